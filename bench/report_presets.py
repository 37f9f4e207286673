"""The Strategy presets section of docs/benchmarks.md: treereduce-py's presets side by side on
the cases they ran (bench/presets.py), a family with its own commit and limit."""

from __future__ import annotations

from presets import preset_table
from report_commits import family_commits, mixed_note
from report_markdown import Run, markdown_table


def preset_section(runs: list[Run], allow_mixed: bool = False) -> list[str]:
    """The strategy presets side by side on the cases they ran (bench/presets.py)."""
    if not runs:
        return []
    commits = family_commits(runs, "presets", allow_mixed)
    presets, rows, smallest = preset_table(runs)
    limits = " / ".join(f"{x:g} s" for x in sorted({float(r["time_limit"]) for r in runs}))
    lines = [
        "## Strategy presets",
        "",
        f"treereduce-py's `--strategy` presets (docs/strategies.md) on {len(rows)} cases, run by "
        "`make bench-presets` (`bench/run.py --presets`): same test, jobs and timeout as the peer "
        f"table, {limits} per run; commit {', '.join(commits)}. Bold: the smallest result of the "
        'case; "(limit)": stopped by the limit.',
        "",
        *mixed_note(
            commits,
            "rendered with `--allow-mixed`; `make bench-presets` re-runs them at one commit",
        ),
        *markdown_table(["case (input bytes)", *(f"`{p}`" for p in presets)], rows),
        "",
        "Smallest result (ties counted for each): "
        + ", ".join(
            f"`{p}` on {smallest[p]} of {len(rows)}"
            for p in sorted(presets, key=lambda p: -smallest[p])
        )
        + ".",
        "",
    ]
    return lines
