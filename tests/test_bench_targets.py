"""bench/targets.py: the issues' targets judged per case from stored runs (a peer stopped by
the limit is timed by when it stopped shrinking; a result that fails its re-check counts as
missing).

bench/ is not a package; its modules import each other by name, so the test puts bench/ on the
path as its scripts do.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from conftest import stored_run

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import targets  # type: ignore[import-not-found]  # noqa: E402

run = stored_run


def rows(*runs: dict[str, Any]) -> list[list[str]]:
    return targets.target_rows(list(runs))  # type: ignore[no-any-return]


def test_smaller_and_twice_as_fast_meets_the_target() -> None:
    [row] = rows(run("c", "treereduce-py", 10, 5.0), run("c", "cvise", 12, 10.0))
    assert row == ["c", "10 B, 5.0 s", "12 B (cvise)", "10.0 s (cvise)", "met", ""]


def test_size_and_time_are_judged_against_the_best_peer_of_each() -> None:
    [row] = rows(
        run("c", "treereduce-py", 10, 6.0),
        run("c", "cvise", 12, 10.0),
        run("c", "creduce", 9, 200.0),
    )
    assert row[2:5] == ["9 B (creduce)", "10.0 s (cvise)", "missed: size and time"]


def test_where_every_peer_hit_the_limit_the_first_to_stop_shrinking_times_them() -> None:
    stuck = [[0.0, 500], [40.0, 50], [300.0, 50]]
    [row] = rows(
        run("c", "treereduce-py", 20, 30.0),
        run("c", "shrinkray", 50, 300.0, hit_time_limit=True, trace=stuck),
        run("c", "cvise", 60, 300.0, hit_time_limit=True, trace=[[0.0, 500], [90.0, 60]]),
    )
    assert row[3:5] == ["40.0 s (shrinkray)", "missed: time"]
    # A peer that finished sets the time, however early another one stopped shrinking.
    [row] = rows(
        run("c", "treereduce-py", 20, 30.0),
        run("c", "shrinkray", 50, 300.0, hit_time_limit=True, trace=stuck),
        run("c", "cvise", 60, 90.0),
    )
    assert row[3:5] == ["90.0 s (cvise)", "met"]


def test_a_peer_that_crashed_before_the_limit_sets_no_time() -> None:
    # C-Vise's 0.5 s crash on bytes-gzip-crc reduced nothing; it is no time to beat.
    [row] = rows(
        run("b", "treereduce-py", 21, 8.7),
        run("b", "cvise", 20926, 0.5, exit_code=1),
        run("b", "creduce", 342, 281.0, exit_code=0),
    )
    assert row[3:5] == ["281.0 s (creduce)", "met"]
    # Beside peers stopped by the limit, it does not count as the one that finished first.
    [row] = rows(
        run("d", "treereduce-py", 137, 51.6),
        run("d", "shrinkray", 5179, 15.3, exit_code=1),
        run(
            "d",
            "cvise",
            293,
            300.0,
            hit_time_limit=True,
            exit_code=-15,
            trace=[[0.0, 900], [80.0, 293]],
        ),
    )
    assert row[3:5] == ["80.0 s (cvise)", "missed: time"]
    # When every peer crashed, the earliest crash is all there is.
    [row] = rows(run("e", "treereduce-py", 9, 1.0), run("e", "cvise", 90, 0.5, exit_code=1))
    assert row[3] == "0.5 s (cvise)"


def test_our_own_run_counts_its_wall_time_even_at_the_limit() -> None:
    ours = run("c", "treereduce-py", 20, 300.0, hit_time_limit=True, trace=[[0.0, 99], [5.0, 20]])
    [row] = rows(ours, run("c", "cvise", 60, 300.0, hit_time_limit=True))
    assert row[1] == "20 B, 300.0 s" and row[4] == "missed: time"


def test_a_failed_recheck_is_no_result_and_ddsmt_is_judged_apart() -> None:
    ours = run("smt", "treereduce-py", 30, 7.5)
    assert rows(ours, run("smt", "cvise", 20, 60.0, still_interesting=False)) == []
    [row] = rows(ours, run("smt", "cvise", 100, 60.0), run("smt", "ddsmt", 44, 7.0))
    assert row[4:] == ["met", "44 B, 7.0 s: missed: time"]
