"""The peer comparison's ratios: treereduce-py's figure over the peer's, case by case, then
summed up three ways (geometric mean, median, and the whole per-case list), each with what it
divides by and over how many cases.

A ratio is treereduce-py / peer: below 1 means treereduce-py's result is smaller or its run
shorter. Size: final bytes over final bytes, on every case where both results pass their re-check.
Time: wall time over wall time, only where both runs finished: neither hit the limit (a stopped
run measures the limit) nor crashed (a crash measures no reduction). Reach: the time
treereduce-py took to get down to the peer's final size over the time the peer took to get there
(its own final size, from its trace), where treereduce-py got there at all.
No plotting here, so the tests can import it without the bench extra.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from report_markdown import tool_order
from targets import finished, own_final_time, time_to_reach

Run = dict[str, Any]


def geomean(values: Sequence[float]) -> float:
    """The geometric mean of positive ``values`` (at least one)."""
    return math.exp(sum(math.log(v) for v in values) / len(values))


@dataclass
class Pair:
    """What one (treereduce-py variant, peer) comparison found over the cases both ran."""

    ours: str
    peer: str
    size: dict[str, float] = field(default_factory=dict)  # case -> size ratio
    time: dict[str, float] = field(default_factory=dict)
    reach: dict[str, float] = field(default_factory=dict)
    smaller: int = 0
    ties: int = 0
    handicapped: int = 0  # peer runs without their tree-sitter grammar (report_markdown's †)


def pairs(runs: list[Run], only: set[str] | None = None) -> Iterator[Pair]:
    """Every (treereduce-py variant, peer) with at least one case both ran and both passed,
    over the cases in ``only`` (None: every case)."""
    by_key = {(r["case"], r["tool"]): r for r in runs if only is None or r["case"] in only}
    tools = {t for _, t in by_key}
    for ours in (t for t in tool_order(tools) if t.startswith("treereduce-py")):
        for peer in (t for t in tool_order(tools) if not t.startswith("treereduce-py")):
            pair = Pair(ours, peer)
            for case in sorted({c for c, t in by_key if t == ours}):
                a, b = by_key.get((case, ours)), by_key.get((case, peer))
                if (
                    a is None
                    or b is None
                    or not (a["still_interesting"] and b["still_interesting"])
                ):
                    continue
                _compare(pair, case, a, b)
            if pair.size:
                yield pair


def _compare(pair: Pair, case: str, a: Run, b: Run) -> None:
    """Add one case's ratios of run ``a`` (ours) over run ``b`` (the peer) to ``pair``."""
    pair.size[case] = max(a["final_bytes"], 1) / max(b["final_bytes"], 1)
    pair.handicapped += bool(b.get("handicap"))
    if finished(a) and finished(b):
        pair.time[case] = max(a["wall_time"], 0.01) / max(b["wall_time"], 0.01)
    pair.smaller += a["final_bytes"] < b["final_bytes"]
    pair.ties += a["final_bytes"] == b["final_bytes"]
    reach = time_to_reach(a["trace"], b["final_bytes"])
    if reach is not None:
        pair.reach[case] = max(reach, 0.01) / max(own_final_time(b), 0.01)


def _means(values: Sequence[float]) -> str:
    """ "G, median M" of some ratios ("-" for none)."""
    if not values:
        return "-"
    return f"{geomean(values):.2f}, median {statistics.median(values):.2f}"


def _counted(ratios: dict[str, float], n: int) -> str:
    """ "k/n, G, median M": the k of n cases that have a ratio, and their means."""
    return f"{len(ratios)}/{n}, {_means(list(ratios.values()))}"


SUMMARY_COLUMNS = [
    "treereduce-py",
    "peer",
    "cases",
    "size ratio: geomean, median",
    "time ratio (both finished): cases, geomean, median",
    "final size",
    "reached peer's size: cases, time ratio geomean, median",
]


def summary_rows(runs: list[Run], only: set[str] | None = None) -> list[list[str]]:
    """One row per (treereduce-py variant, peer), SUMMARY_COLUMNS, over the cases in ``only``."""
    rows = []
    for p in pairs(runs, only):
        n = len(p.size)
        rows.append(
            [
                p.ours,
                p.peer + (f" ({p.handicapped}†)" if p.handicapped else ""),
                str(n),
                _means(list(p.size.values())),
                _counted(p.time, n),
                f"{p.smaller}/{n} smaller, {p.ties} equal",
                _counted(p.reach, n),
            ]
        )
    return rows


def per_case_rows(runs: list[Run], held_out: set[str]) -> tuple[list[str], list[list[str]]]:
    """treereduce-py's (default preset) final bytes over each peer's, per case: the header and
    one row per case, each cell "ours/peer = ratio" (blank where either is missing or fails its
    re-check); held-out cases are marked."""
    by_key = {(r["case"], r["tool"]): r for r in runs}
    peers = [t for t in tool_order({t for _, t in by_key}) if not t.startswith("treereduce-py")]
    rows = []
    for case in sorted({c for c, t in by_key if t == "treereduce-py"}):
        ours = by_key[(case, "treereduce-py")]
        cells = []
        for peer in peers:
            theirs = by_key.get((case, peer))
            if theirs is None or not (ours["still_interesting"] and theirs["still_interesting"]):
                cells.append("")
                continue
            ratio = max(ours["final_bytes"], 1) / max(theirs["final_bytes"], 1)
            mark = "†" if theirs.get("handicap") else ""
            cells.append(f"{ours['final_bytes']}/{theirs['final_bytes']}{mark} = {ratio:.2f}")
        rows.append([case + (" (held out)" if case in held_out else ""), *cells])
    return ["case", *peers], rows
