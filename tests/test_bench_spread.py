"""bench/spread.py: several runs of one tool on one case summed up as smallest, median and
largest, so the peer table's differences can be weighed against run-to-run noise.

bench/ is not a package; its modules import each other by name, so the test puts bench/ on the
path as its scripts do.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import prepare  # type: ignore[import-not-found]  # noqa: E402
import spread  # type: ignore[import-not-found]  # noqa: E402


def run(tool: str, repeat: int, size: int, wall: float, tests: int, **extra: Any) -> dict[str, Any]:
    record = {
        "case": "c",
        "tool": tool,
        "repeat": repeat,
        "final_bytes": size,
        "wall_time": wall,
        "tests_run": tests,
        "hit_time_limit": False,
        "still_interesting": True,
    }
    return record | extra


def test_three_runs_give_their_range_median_and_byte_spread() -> None:
    runs = [run("cvise", 1, 120, 40.0, 400), run("cvise", 2, 100, 50.0, 500)]
    runs.append(run("cvise", 3, 150, 45.0, 450, hit_time_limit=True))
    [row] = spread.spread_rows(runs)
    assert row == [
        "c",
        "cvise",
        "3/3",
        "100–150 (median 120)",
        "1.50",
        "40.0–50.0 (median 45.0)",
        "400–500 (median 450)",
        "yes",
    ]


def test_equal_runs_show_one_value_and_failed_rechecks_are_counted() -> None:
    runs = [run("treereduce-py", i, 10, 2.0, 30) for i in (1, 2)]
    runs.append(run("treereduce-py", 3, 10, 2.0, 30, still_interesting=False))
    [row] = spread.spread_rows(runs)
    assert row[2:5] == ["2/3", "10", "1.00"]
    assert row[7] == "no"


def test_each_tool_and_case_is_its_own_row_and_a_handicap_is_marked() -> None:
    runs = [run("cvise", 1, 10, 1.0, 5), run("shrinkray", 1, 9, 1.0, 5, handicap="c")]
    rows = spread.spread_rows(runs)
    assert [r[1] for r in rows] == ["cvise", "shrinkray†"]


def test_a_case_whose_input_is_not_interesting_fails_the_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A sitting commits a chunk whose command exits 0: a skipped case must not look done.
    case = SimpleNamespace(name="smt-x", lang="smtlib")
    monkeypatch.setattr(spread, "load_cases", lambda names: [case])
    monkeypatch.setattr(spread, "prepare_case", lambda c: Path("/nonexistent"))
    monkeypatch.setattr(spread, "run_test", lambda c, p: False)
    monkeypatch.setattr(spread, "select_tools", lambda names, presets: [])
    monkeypatch.setattr(spread, "machine_info", lambda tools: {"reducers": {}})
    assert spread.main(["--cases", "smt-x"]) == 1
    assert "smt-x: the input is not interesting here" in capsys.readouterr().out


def test_the_tools_next_to_this_python_come_first_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    # The cases' tests call z3, which z3-solver installs beside the venv's python.
    here = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", os.pathsep.join(["/usr/bin", "/bin"]))
    prepare.tools_on_path()
    prepare.tools_on_path()  # once only
    assert os.environ["PATH"].split(os.pathsep) == [here, "/usr/bin", "/bin"]


def test_a_case_run_by_one_tool_alone_is_named_as_such() -> None:
    import report_spread  # type: ignore[import-not-found]

    both = [run("cvise", 1, 10, 1.0, 5), run("treereduce-py", 1, 9, 1.0, 5)]
    alone = [run("treereduce-py", k, 9, 1.0, 5) | {"case": "d"} for k in (1, 2, 3)]
    assert report_spread.solo_note(both) == []
    [note, blank] = report_spread.solo_note(both + alone)
    assert note.startswith("One tool alone on d (treereduce-py): ") and blank == ""
