"""The benchmark harness's provenance: runs stamped with their commit, logs kept, resumable runs.

bench/ is not a package; its modules import each other by name, so the tests put bench/ on the
path as its scripts do. Only modules without the bench extra's dependencies are imported here.
"""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import provenance  # type: ignore[import-not-found]  # noqa: E402
import run  # type: ignore[import-not-found]  # noqa: E402


def test_a_stamp_names_a_commit_an_engine_and_a_utc_date() -> None:
    stamped = provenance.stamp()
    assert re.fullmatch(r"[0-9a-f]{7,}(\+dirty)?", stamped["commit"])
    assert re.fullmatch(r"[0-9a-f]{7,}-[0-9a-f]{7,}(\+dirty)?", stamped["engine"])
    assert stamped["engine"] != stamped["commit"]  # a tree, not the commit
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", stamped["date"])


def test_kept_logs_are_gzipped_with_the_head_and_tail_of_long_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(provenance, "REPO", tmp_path)
    monkeypatch.setattr(provenance, "LOG_CAP", 100)
    rundir = tmp_path / "run"
    rundir.mkdir()
    (rundir / "short.log").write_bytes(b"all of it")
    (rundir / "long.log").write_bytes(b"h" * 500 + b"t" * 500)
    names = ["short.log", "long.log", "absent.log"]
    kept = provenance.keep_logs(rundir, names, tmp_path / "k", "x")
    assert kept == ["k/x.short.log.gz", "k/x.long.log.gz"]
    assert gzip.decompress((tmp_path / kept[0]).read_bytes()) == b"all of it"
    long = gzip.decompress((tmp_path / kept[1]).read_bytes())
    assert long.startswith(b"h" * 25 + b"\n[... 900 bytes left out ...]\n")
    assert long.endswith(b"t" * 75) and len(long) < 200


def test_resume_skips_only_runs_of_this_engine_limit_and_jobs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run, "RESULTS", tmp_path)
    rows = [
        {"case": "a", "tool": "cvise", "engine": "e1", "jobs": 2, "time_limit": 300.0},
        {"case": "b", "tool": "cvise", "engine": "e1", "jobs": 2, "time_limit": 60.0},
        {"case": "c", "tool": "cvise", "engine": "e2", "jobs": 2, "time_limit": 300.0},
        {"case": "d", "tool": "cvise", "engine": "e1", "jobs": 4, "time_limit": 300.0},
        {"case": "e", "tool": "cvise", "jobs": 2, "time_limit": 300.0},  # stored before stamps
    ]
    (tmp_path / "runs.json").write_text(json.dumps(rows))
    here = {"commit": "abc1234", "engine": "e1", "date": "2026-11-23T00:00:00Z"}
    assert run.stored_runs(here, 2, 300.0) == {("a", "cvise")}
    assert run.stored_runs({**here, "commit": "fff0000"}, 2, 300.0) == {("a", "cvise")}
    assert run.stored_runs({**here, "engine": "e1+dirty"}, 2, 300.0) == set()


class Scratch:
    """A scratch git repository: each commit writes one file."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.git("init", "-q")

    def git(self, *args: str) -> str:
        done = subprocess.run(["git", *args], cwd=self.root, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    def commit(self, path: str, text: str, message: str = "") -> str:
        (self.root / path).parent.mkdir(parents=True, exist_ok=True)
        (self.root / path).write_text(text)
        self.git("add", "-A")
        self.git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message or path)
        return self.git("rev-parse", "--short", "HEAD")


def test_commits_that_change_only_results_docs_or_tests_measure_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commit = Scratch(tmp_path).commit
    a = commit("treereduce_py/engine.py", "v1")
    b = commit("bench/results/runs.json", "[1]")  # a run's rows, committed between sittings
    c = commit("docs/benchmarks.md", "page")
    s = commit("bench/sitting.sh", "chunks")  # which runs to make: not how they are made
    n = commit("bench/README.md", "how to")
    d = commit("bench/run.py", "harness v2")  # the harness changed: another version
    e = commit("treereduce_py/engine.py", "v2")
    monkeypatch.setattr(provenance, "REPO", tmp_path)
    day = "2026-11-24T0%d:00:00Z"
    first = {a: day % 1, b: day % 2, c: day % 3, s: day % 4, n: day % 5, d: day % 6, e: day % 7}
    assert provenance.versions(first) == [[a, b, c, s, n], [d], [e]]
    assert not provenance.same_measured(a, "0000000")  # unknown to git: not the same


def test_a_sitting_stamps_every_run_with_its_first_commit_while_head_measures_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commit = Scratch(tmp_path).commit
    monkeypatch.setattr(provenance, "REPO", tmp_path)
    monkeypatch.delenv("BENCH_PIN", raising=False)
    start = commit("treereduce_py/engine.py", "v1", "engine")
    assert provenance.sitting_pin("e1") == start  # no chunk yet: HEAD
    commit("bench/results/runs.json", "[1]", "sitting e1: peers a")
    commit("bench/results/runs.json", "[1, 2]", "sitting e1: peers b")
    assert provenance.sitting_pin("e1") == start  # HEAD moved; the sitting began on `start`
    assert provenance.measured_commit() != start
    monkeypatch.setenv("BENCH_PIN", start)
    assert provenance.measured_commit() == start
    assert provenance.stamp()["commit"] == start
    harness = commit("bench/run.py", "harness v2", "harness")  # measures other code now
    with pytest.raises(provenance.PinMoved, match=f"BENCH_PIN={start}"):
        provenance.stamp()
    assert provenance.sitting_pin("e1") == harness  # a new sitting begins here


def test_the_page_dates_a_run_made_in_sittings_by_its_first_and_last_start() -> None:
    rows = [
        {"tool": "cvise", "date": "2026-11-24T16:55:34Z"},
        {"tool": "treereduce-py", "date": "2026-11-24T12:44:05Z"},
        {"tool": "shrinkray"},  # stored before stamps
        {"tool": "creduce", "date": "2026-11-24T15:16:02Z"},
    ]
    assert provenance.run_dates(rows) == (
        "2026-11-24T12:44:05Z to 2026-11-24T16:55:34Z (the runs' starts)"
    )
    assert provenance.run_dates(rows[:1]) == "2026-11-24T16:55:34Z"
    assert provenance.run_dates(rows[2:3]) == ""
