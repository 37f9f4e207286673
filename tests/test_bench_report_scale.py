"""bench/report_scale.py: the Scale section's targets, here the 100 MB runs (the fast test only,
treereduce-py beside C-Vise) judged where they were run and not asked for where they were not.

bench/ is not a package; its modules import each other by name, so the test puts bench/ on the
path as its scripts do.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import report_scale  # type: ignore[import-not-found]  # noqa: E402


def run(test: str, size: str, tool: str, wall: float, final: int, peak: float) -> dict[str, Any]:
    return {
        "lang": "c", "language": "C", "test": test, "size": size, "tool": tool,
        "wall_time": wall, "final_bytes": final, "peak_rss_mib": peak, "time_limit": 300.0,
        "hit_time_limit": False, "still_interesting": True,
    }  # fmt: skip


def family(huge_ours: tuple[float, int, float] | None) -> list[dict[str, Any]]:
    """Both tests at the three sizes, both tools; the fast test at 100 MB when `huge_ours`
    (treereduce-py's wall, bytes and peak there) is given."""
    runs = [
        run(test, size, tool, wall, 40, 100.0)
        for test in ("fast", "real")
        for size in ("100k", "1m", "10m")
        for tool, wall in (("treereduce-py", 2.0), ("cvise", 40.0))
    ]
    if huge_ours is not None:
        wall, final, peak = huge_ours
        runs += [run("fast", "100m", "treereduce-py", wall, final, peak)]
        runs += [run("fast", "100m", "cvise", 50.0, 41, 600.0)]
    return runs


def test_100_mb_is_judged_where_it_ran_and_not_asked_for_elsewhere() -> None:
    assert report_scale.scale_misses(family((10.0, 38, 400.0))) == []
    assert report_scale.scale_unjudged(family((10.0, 38, 400.0))) == []
    assert report_scale.scale_unjudged(family(None)) == []  # 100 MB is optional
    misses = report_scale.scale_misses(family((30.0, 60, 3000.0)))
    assert misses == [
        "c fast 100m: treereduce-py's wall is 0.60x C-Vise's, target 0.5x",
        "c fast: treereduce-py ends at 60 bytes at 100 MB, more than its 40 at 100 KB",
        "c fast: peak memory at 100 MB is 3000 MiB, target under 2048 MiB",
    ]


def test_the_ratio_table_has_a_100_mb_column_only_when_there_were_runs() -> None:
    with_huge = "\n".join(report_scale._ratio_table(family((10.0, 38, 400.0))))
    assert "| 100m |" in with_huge and "0.20" in with_huge
    assert "100m" not in "\n".join(report_scale._ratio_table(family(None)))
