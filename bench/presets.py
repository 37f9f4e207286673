"""The strategy presets family: treereduce-py's `--strategy` presets side by side on a few cases.

`bench/run.py --presets` stores a run of each preset as the tool "treereduce-py:<preset>"
(`make bench-presets`). Those runs are their own family, with their own commit stamp and limit:
the peer table compares treereduce-py's default with the other reducers, and this table compares
the presets with each other, so neither waits for the other to be re-run. A preset's cell is its
final bytes, tests and wall time; the smallest result of a case (among the runs whose final file
is still interesting) is marked, and each preset is credited with the cases where it ended
smallest, ties counted for each.
"""

from __future__ import annotations

from typing import Any

PREFIX = "treereduce-py:"
ORDER = ("priority", "hdd", "hierarchical", "ddmin", "hybrid")  # as docs/strategies.md lists them

Run = dict[str, Any]


def is_preset(run: Run) -> bool:
    """A run of the presets family, kept out of the peer table."""
    return str(run["tool"]).startswith(PREFIX)


def preset_of(run: Run) -> str:
    return str(run["tool"]).removeprefix(PREFIX)


def preset_table(runs: list[Run]) -> tuple[list[str], list[list[str]], dict[str, int]]:
    """The presets in order, one row of cells per case (the case and its input size first; the
    smallest result in bold), and how many cases each preset ended smallest on."""
    presets = sorted(
        {preset_of(r) for r in runs},
        key=lambda p: (ORDER.index(p) if p in ORDER else len(ORDER), p),
    )
    by_key = {(r["case"], preset_of(r)): r for r in runs}
    rows: list[list[str]] = []
    smallest = dict.fromkeys(presets, 0)
    for case in sorted({r["case"] for r in runs}):
        case_runs = [by_key[case, p] for p in presets if (case, p) in by_key]
        best = min((r["final_bytes"] for r in case_runs if r["still_interesting"]), default=None)
        cells = [f"{case} ({case_runs[0]['original_bytes']} B)"]
        for p in presets:
            run = by_key.get((case, p))
            if run is None:
                cells.append("–")
                continue
            cell = f"{run['final_bytes']} B, {run['tests_run']} tests, {run['wall_time']:.0f} s"
            cell += " (limit)" if run["hit_time_limit"] else ""
            if not run["still_interesting"]:
                cells.append(cell + " **FAILS**")
            elif run["final_bytes"] == best:
                smallest[p] += 1
                cells.append(f"**{cell}**")
            else:
                cells.append(cell)
        rows.append(cells)
    return presets, rows, smallest
