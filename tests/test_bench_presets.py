"""bench/presets.py: the strategy presets family, compared with each other and kept apart from
the peer table.

bench/ is not a package; its modules import each other by name, so the test puts bench/ on the
path as its scripts do.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import presets  # type: ignore[import-not-found]  # noqa: E402


def run(case: str, tool: str, size: int, ok: bool = True, limit: bool = False) -> dict[str, Any]:
    return {
        "case": case,
        "tool": tool,
        "original_bytes": 1000,
        "final_bytes": size,
        "tests_run": 10,
        "wall_time": 12.3,
        "hit_time_limit": limit,
        "still_interesting": ok,
    }


def test_only_tools_labelled_with_a_preset_are_in_the_family() -> None:
    assert presets.is_preset(run("a", "treereduce-py:hdd", 5))
    assert not presets.is_preset(run("a", "treereduce-py", 5))
    assert not presets.is_preset(run("a", "shrinkray", 5))


def test_the_smallest_interesting_result_of_each_case_is_marked_and_counted() -> None:
    runs = [
        run("a", "treereduce-py:hybrid", 30),
        run("a", "treereduce-py:hdd", 10, ok=False),  # smaller, but its file fails the test
        run("a", "treereduce-py:priority", 20, limit=True),
        run("b", "treereduce-py:priority", 7),
        run("b", "treereduce-py:hdd", 7),
    ]
    order, rows, smallest = presets.preset_table(runs)
    assert order == ["priority", "hdd", "hybrid"]
    assert rows[0] == [
        "a (1000 B)",
        "**20 B, 10 tests, 12 s (limit)**",
        "10 B, 10 tests, 12 s **FAILS**",
        "30 B, 10 tests, 12 s",
    ]
    assert rows[1] == ["b (1000 B)", "**7 B, 10 tests, 12 s**", "**7 B, 10 tests, 12 s**", "–"]
    assert smallest == {"priority": 2, "hdd": 1, "hybrid": 0}
