"""What each stage of a treereduce-py run bought: bytes removed, tests spent, seconds taken.

Read from a stored run's `--json` event log (bench/results/runs/CASE-treereduce-py.stderr.log.gz,
kept by run.py), so the figures come from the same runs as the peer table. A `pass` event names
the phase that starts; an `improvement` event says how many bytes its phase removed; the test
count and the clock advance between any two events with stats (progress events come every
0.25 s), and what they advanced by goes to the phase under way. A phase shorter than that
interval may lend a few tests to its neighbour.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

# The stages in the order a round runs them; a phase not listed here is shown after them.
ORDER = (
    "files",
    "tree",
    "lines",
    "tokens",
    "pairs",
    "rename",
    "merge",
    "whitespace",
    "tokens-lenient",
    "pairs-lenient",
)


def read_events(path: Path) -> list[dict[str, Any]]:
    """The JSON events of a gzipped log (lines that are not JSON, or cut by LOG_CAP, skipped)."""
    events = []
    for line in gzip.decompress(path.read_bytes()).splitlines():
        if not line.startswith(b"{"):
            continue
        try:
            events.append(json.loads(line))
        except ValueError:
            continue
    return events


def stage_costs(events: Iterable[dict[str, Any]]) -> dict[str, list[float]]:
    """Phase -> [bytes removed, tests, seconds] over one run's events.

    A directory's run interleaves its files' parts, each event naming its file: a part's own
    session counts its tests from 0 and its sizes are the file's, so phase, test count and
    size are followed per file (the file pass, whose file is ".", is the phase "files"), and so
    is the clock: each part's `elapsed` starts at 0."""
    out: dict[str, list[float]] = {}
    phase: dict[str, str] = {}
    tests: dict[str, int] = {}
    size: dict[str, int] = {}
    clock: dict[str, float] = {}
    for event in events:
        name = str(event.get("file", ""))
        stats = event.get("stats") or {}
        kind = event.get("event")
        if kind == "start":
            tests[name], size[name], clock[name] = 0, int(event["original_size"]), 0.0
            phase.pop(name, None)
        now = float(event.get("elapsed", clock.get(name, 0.0)))
        count = int(stats.get("tests", tests.get(name, 0)))
        if name in phase:
            cost = out.setdefault(phase[name], [0, 0, 0.0])
            cost[1] += count - tests.get(name, 0)
            cost[2] += now - clock.get(name, 0.0)
        tests[name], clock[name] = count, now
        if kind == "pass":
            phase[name] = "files" if name == "." else str(event["phase"])
            size[name] = int(event["size"])
        elif kind == "improvement":
            where = "files" if name == "." else str(stats.get("phase") or phase.get(name))
            out.setdefault(where, [0, 0, 0.0])[0] += size.get(name, 0) - int(event["size"])
            size[name] = int(event["size"])
    return out


def stage_rows(runs: list[dict[str, Any]], repo: Path) -> tuple[list[str], list[list[str]]]:
    """Columns (the phases seen, in round order) and one row per case: "bytes B, tests" per
    phase, from the default treereduce-py run of each case whose event log is stored."""
    costs: dict[str, dict[str, list[float]]] = {}
    for run in sorted(runs, key=lambda r: r["case"]):
        if run["tool"] != "treereduce-py":
            continue
        logs = [p for p in run.get("logs", []) if p.endswith(".stderr.log.gz")]
        if logs and (repo / logs[0]).exists():
            costs[run["case"]] = stage_costs(read_events(repo / logs[0]))
    seen = {phase for c in costs.values() for phase in c if phase != "parse"}
    phases = [p for p in ORDER if p in seen] + sorted(seen - set(ORDER))
    rows = []
    for case, cost in costs.items():
        cells = [f"{int(cost[p][0])} B, {int(cost[p][1])}" if p in cost else "–" for p in phases]
        rows.append([case, *cells])
    return phases, rows
