"""The issues' targets against the stored peer runs, case by case (docs/benchmarks.md#targets).

Issue 9: treereduce-py's final size at most the smallest of C-Vise's, C-Reduce's and Shrink
Ray's, at a wall time at most half the fastest one's, that is the shortest wall time or, where
every peer was stopped by the limit, the earliest time one of them reached its own final size.
A peer that crashed before the limit (a non-zero exit) finished no reduction, so its time is no
target; it counts only where every peer crashed.
Issue 11: on the SMT-LIB cases, size and wall time at most ddSMT's. No plotting here, so the
tests can import it without the bench extra.
"""

from __future__ import annotations

from typing import Any

from report_markdown import tool_label

Run = dict[str, Any]


def time_to_reach(trace: list[list[float]], size: int) -> float | None:
    """When the trace first got to ``size`` bytes or below (None: never)."""
    for t, s in trace:
        if s <= size:
            return t
    return None


def own_final_time(run: Run) -> float:
    """When a run first reached its own final size (its trace; the wall time without one)."""
    reached = time_to_reach(run.get("trace") or [], run["final_bytes"])
    return run["wall_time"] if reached is None else reached


def crashed(run: Run) -> bool:
    """Did the run end before the limit with an error (C-Vise's 0.5 s crash on a binary input,
    Shrink Ray's directory mode)? Runs stored without an exit code did not."""
    return not run["hit_time_limit"] and run.get("exit_code", 0) != 0


def finished(run: Run) -> bool:
    """Did the run end by itself, before the limit and without an error?"""
    return not run["hit_time_limit"] and run.get("exit_code", 0) == 0


def peer_time(peers: list[Run]) -> tuple[float, Run]:
    """The fastest peer's time and run, over the peers that did not crash (all of them when
    every one did): the shortest wall time, or, when every such peer was stopped by the limit,
    the earliest time one reached its own final size."""
    peers = [p for p in peers if not crashed(p)] or peers
    if all(p["hit_time_limit"] for p in peers):
        fastest = min(peers, key=own_final_time)
        return own_final_time(fastest), fastest
    fastest = min(peers, key=lambda p: p["wall_time"])
    return fastest["wall_time"], fastest


# The peers each target compares with: issue 9's program reducers on every case, and issue 11's
# ddSMT on the SMT-LIB ones (the cases where it runs).
PROGRAM_PEERS = ("cvise", "creduce", "shrinkray")


def target_rows(runs: list[Run]) -> list[list[str]]:
    """Per case, the targets of the issues against the stored runs: final bytes at most the
    smallest program reducer's, at a wall time at most half the fastest one's (peer_time); and
    on the SMT-LIB cases, bytes and wall time at most ddSMT's. Results that fail their re-check
    count as missing."""
    rows: list[list[str]] = []
    for case in sorted({r["case"] for r in runs}):
        by_tool = {r["tool"]: r for r in runs if r["case"] == case and r["still_interesting"]}
        ours = by_tool.get("treereduce-py")
        peers = [by_tool[t] for t in PROGRAM_PEERS if t in by_tool]
        if ours is None or not peers:
            continue
        smallest = min(peers, key=lambda r: r["final_bytes"])
        fastest_time, fastest = peer_time(peers)
        size_ok = ours["final_bytes"] <= smallest["final_bytes"]
        time_ok = ours["wall_time"] <= 0.5 * fastest_time
        row = [
            case,
            f"{ours['final_bytes']} B, {ours['wall_time']:.1f} s",
            f"{smallest['final_bytes']} B ({tool_label(smallest)})",
            f"{fastest_time:.1f} s ({tool_label(fastest)})",
            _verdict(size_ok, time_ok),
        ]
        ddsmt = by_tool.get("ddsmt")
        if ddsmt is None:
            row.append("")
        else:
            ok = (
                ours["final_bytes"] <= ddsmt["final_bytes"],
                ours["wall_time"] <= ddsmt["wall_time"],
            )
            row.append(f"{ddsmt['final_bytes']} B, {ddsmt['wall_time']:.1f} s: {_verdict(*ok)}")
        rows.append(row)
    return rows


def _verdict(size_ok: bool, time_ok: bool) -> str:
    if size_ok and time_ok:
        return "met"
    missed = [what for what, ok in (("size", size_ok), ("time", time_ok)) if not ok]
    return "missed: " + " and ".join(missed)
