"""bench/report_scaling.py: the parallel family's medians and targets are over the padded cases;
a case with a real slow test is shown beside them and judged by none of them.

bench/ is not a package; its modules import each other by name, so the test puts bench/ on the
path as its scripts do.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import report_scaling  # type: ignore[import-not-found]  # noqa: E402


def run(case: str, mode: str, jobs: int, wall: float, tests: int = 100) -> dict[str, Any]:
    return {
        "case": case, "mode": mode, "jobs": jobs, "wall_time": wall, "tests": tests,
        "final_bytes": 500, "utilization": 0.95, "overhead_share": 0.01, "reason": "fixpoint",
        "still_interesting": True, "commit": "abc1234", "date": "2026-11-27T06:00:00+00:00",
    }  # fmt: skip


def family() -> dict[str, Any]:
    """Three padded cases that speed up 6x, 7x and 8x at 8 jobs (median 7x), and a real slow
    test that speeds up 1.5x (with it, the median would be 6.5x)."""
    runs = []
    for case, speedup in (("a", 6.0), ("b", 7.0), ("c", 8.0)):
        runs += [run(case, "default", 1, 600.0), run(case, "default", 8, 600.0 / speedup)]
    runs += [run("java", "default", 1, 600.0), run("java", "default", 8, 400.0)]
    cases = {n: {"language": "X", "bytes": 1, "test_wall": 0.1, "test_cpu": 0.1} for n in "abc"}
    cases["java"] = {"language": "Java", "bytes": 1, "test_wall": 1.2, "test_cpu": 2.0, "pad": 0.0}
    return {"pad": 0.5, "strategy": "--fast", "max_time": 600.0, "cases": cases, "runs": runs}


def test_a_real_slow_test_is_shown_but_not_counted() -> None:
    par = family()
    assert report_scaling.padded(par) == {"a", "b", "c"}
    text = "\n".join(report_scaling.parallel_section(par, allow_mixed=True))
    assert "| java (real test) | 600 | 1.00 | 1.50 |" in text
    assert "| **median** |  | **1.00** | **7.00** |" in text
    assert "Every target is met." in text


def test_a_padded_case_below_target_is_named() -> None:
    par = family()
    par["runs"][1] = run("a", "default", 8, 100.0, tests=200)  # twice the jobs-1 tests
    text = "\n".join(report_scaling.parallel_section(par, allow_mixed=True))
    assert "a runs 200 tests at 8 jobs, over 1.15x the jobs-1 count 100" in text
    assert "java runs" not in text


def test_the_sleeping_family_counts_every_case_and_names_its_misses() -> None:
    runs = []
    for case, speedup in (("a", 6.0), ("b", 5.0), ("c", 8.0)):
        runs += [run(case, "default", 1, 300.0), run(case, "default", 8, 300.0 / speedup)]
    sleeping = {"sleep": 0.5, "strategy": "--strategy priority --fast", "runs": runs}
    text = "\n".join(report_scaling.sleeping_section(sleeping))
    assert "a test that sleeps 0.5 s" in text
    assert "| **median** |  | **1.00** | **6.00** |" in text  # over all three cases
    assert "Every target is met." in text
    runs[1] = run("a", "default", 8, 100.0)  # 3x, and 5x: the median is below the target
    text = "\n".join(report_scaling.sleeping_section(sleeping))
    assert "median speed-up at 8 jobs is 5.00x, target 6.0x" in text
    # The page shows it once the family has run, after the padded family's section.
    page = "\n".join(report_scaling.scaling_section({"sleeping": sleeping}))
    assert "### Parallel speed-up of the engine alone: a test that sleeps" in page


def test_each_speed_up_is_decomposed_into_busy_workers_tests_and_test_time() -> None:
    # 600 s and 100 tests at one job, 100 s and 110 tests at 8 jobs whose tests took longer each
    # (sharing the cores): 6x = 8 x 0.9 / 0.983 (busy) x 100 / 110 (tests) x 5.9 / 6.55 (pace).
    one = {**run("a", "default", 1, 600.0, tests=100), "test_seconds": 590.0}
    eight = {**run("a", "default", 8, 100.0, tests=110), "test_seconds": 720.0}
    for r in (one, eight):
        r["utilization"] = r["test_seconds"] / (r["jobs"] * r["wall_time"])
    (row,) = report_scaling.decomposition_rows([one, eight], "default")
    assert row == ["a", "8", "6.00", "7.32", "0.91", "0.90"]
    speedup, busy, tests, pace = (float(x) for x in row[2:])
    assert abs(busy * tests * pace - speedup) < 0.02
    text = "\n".join(
        report_scaling.sleeping_section({"sleep": 0.5, "strategy": "-", "runs": [one, eight]})
    )
    assert "| a | 8 | 6.00 | 7.32 | 0.91 | 0.90 |" in text
    # Runs stored without their test-seconds (before the family kept them) are left out.
    assert report_scaling.decomposition_rows(family()["runs"], "default") == []
