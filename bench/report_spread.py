"""The Run-to-run spread section of docs/benchmarks.md: each tool run several times on a few
cases (bench/spread.py), so a difference in the peer table can be weighed against the noise."""

from __future__ import annotations

from typing import Any

from report_commits import family_commits, mixed_note
from report_markdown import Run, handicap_note, markdown_table
from spread import CASES, spread_rows

COLUMNS = [
    "case",
    "tool",
    "runs ok",
    "final bytes",
    "largest / smallest",
    "wall s",
    "tests",
    "limit hit",
]


def spread_section(spread: dict[str, Any] | None, allow_mixed: bool = False) -> list[str]:
    """Markdown for results/spread.json (or how to make it)."""
    out = ["## Run-to-run spread", ""]
    runs: list[Run] = (spread or {}).get("runs", [])
    if not runs:
        return [
            *out,
            "Not yet run. `make bench-spread` (bench/spread.py) runs each tool three times on "
            f"{CASES.replace(',', ', ')} with the peer table's test, `--jobs`, timeout and limit, "
            "and stores every run in bench/results/spread.json; until then, a difference between "
            "two tools in the tables above cannot be told from run-to-run noise.",
            "",
        ]
    commits = family_commits(runs, "spread", allow_mixed)
    repeats = max(int(r["repeat"]) for r in runs)
    limits = ", ".join(f"{t:g} s" for t in sorted({float(r["time_limit"]) for r in runs}))
    return [
        *out,
        f"Each tool up to {repeats} times on the same case (`make bench-spread`, "
        f"bench/spread.py), with the peer table's test and `--jobs`, a limit of {limits} per "
        f"run; commits {', '.join(commits)}. Each figure is the smallest–largest over the runs "
        "(their median in brackets); *largest / smallest* is the final bytes' spread. A "
        "difference between two tools in the tables above smaller than both tools' spread here "
        "is within run-to-run noise.",
        "",
        *solo_note(runs),
        *mixed_note(commits),
        *markdown_table(COLUMNS, spread_rows(runs)),
        "",
        *handicap_note(runs, "spread runs"),
    ]


def solo_note(runs: list[Run]) -> list[str]:
    """A paragraph naming the cases run by one tool alone (`bench/sitting.sh noise`: its own
    spread where its stored rows vary most, no comparison with the others), or nothing."""
    tools: dict[str, set[str]] = {}
    for r in runs:
        tools.setdefault(r["case"], set()).add(r["tool"])
    solo = {case: next(iter(t)) for case, t in sorted(tools.items()) if len(t) == 1}
    if not solo:
        return []
    named = ", ".join(f"{case} ({tool})" for case, tool in solo.items())
    return [
        f"One tool alone on {named}: the cases where its rows in the peer table moved most from "
        "one sitting to the next, each run stopped by the limit (`bench/sitting.sh noise`), to "
        "show how far one of its stored rows there can be from another of the same engine; the "
        "other tools did not run there.",
        "",
    ]
