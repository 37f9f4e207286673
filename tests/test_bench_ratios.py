"""bench/ratios.py: the peer comparison's ratios (treereduce-py / peer) as geometric means,
medians and per-case cells, each over the cases it may count.

bench/ is not a package; its modules import each other by name, so the test puts bench/ on the
path as its scripts do.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from conftest import stored_run

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import ratios  # type: ignore[import-not-found]  # noqa: E402

run = stored_run


THREE = [
    run("a", "treereduce-py", 10, 1.0),
    run("a", "cvise", 20, 4.0),
    run("b", "treereduce-py", 30, 2.0),
    run("b", "cvise", 10, 2.0, hit_time_limit=True),
    run("c", "treereduce-py", 40, 3.0),
    run("c", "cvise", 40, 3.0),
]


def test_the_geometric_mean_of_reciprocals_is_one() -> None:
    assert math.isclose(ratios.geomean([0.5, 2.0]), 1.0)
    assert math.isclose(ratios.geomean([4.0, 1.0]), 2.0)


def test_size_ratios_count_every_case_and_time_ratios_only_finished_ones() -> None:
    [pair] = ratios.pairs(THREE)
    assert pair.size == {"a": 0.5, "b": 3.0, "c": 1.0}
    assert set(pair.time) == {"a", "c"}  # b's peer hit the limit
    assert (pair.smaller, pair.ties) == (1, 1)


def test_a_crash_before_the_limit_is_no_time_either() -> None:
    # Shrink Ray's directory mode crashed after 15.3 s on rust-crate-ice: no finished reduction.
    [pair] = ratios.pairs(
        [*THREE, run("d", "treereduce-py", 9, 50.0), run("d", "cvise", 90, 15.0, exit_code=1)]
    )
    assert set(pair.time) == {"a", "c"} and pair.size["d"] == 0.1


def test_the_summary_row_gives_the_geomean_the_median_and_the_denominators() -> None:
    [row] = ratios.summary_rows(THREE)
    assert row[:3] == ["treereduce-py", "cvise", "3"]
    assert row[3] == f"{ratios.geomean([0.5, 3.0, 1.0]):.2f}, median 1.00"
    assert row[4] == f"2/3, {ratios.geomean([0.25, 1.0]):.2f}, median 0.62"
    assert row[5] == "1/3 smaller, 1 equal"


def test_a_failed_recheck_leaves_the_case_out() -> None:
    runs = [*THREE[:4], run("c", "treereduce-py", 40, 3.0, still_interesting=False), THREE[5]]
    [pair] = ratios.pairs(runs)
    assert set(pair.size) == {"a", "b"}


def test_a_subset_of_cases_is_summed_up_alone() -> None:
    [row] = ratios.summary_rows(THREE, only={"b"})
    assert row[2:4] == ["1", "3.00, median 3.00"]
    assert ratios.summary_rows(THREE, only={"nothing"}) == []


def test_per_case_cells_show_both_sizes_and_mark_held_out_and_handicapped_runs() -> None:
    runs = [*THREE, run("a", "shrinkray", 5, 9.0, handicap="c")]
    header, rows = ratios.per_case_rows(runs, held_out={"c"})
    assert header == ["case", "cvise", "shrinkray"]
    assert rows[0] == ["a", "10/20 = 0.50", "10/5† = 2.00"]
    assert rows[1] == ["b", "30/10 = 3.00", ""]
    assert rows[2][0] == "c (held out)"
