"""bench/run.py: a Shrink Ray run whose log says it went without its tree-sitter grammar is
refused, so no handicapped peer enters a table.

bench/ is not a package; its modules import each other by name, so the test puts bench/ on the
path as its scripts do.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import run  # type: ignore[import-not-found]  # noqa: E402
from prepare import Case  # type: ignore[import-not-found]  # noqa: E402

CASE = Case("c-x", BENCH, "C", "c", "input.c", None, "", "", "gcc", False)
WARNING = "WARNING: could not download the tree-sitter grammar 'c' (DownloadError); reducing"


def finished(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tool: str, stderr: str) -> object:
    """A tool's run of CASE that left ``stderr`` in its run directory (under tmp_path)."""
    monkeypatch.setattr(run, "RUNS", tmp_path)
    monkeypatch.setattr(run, "REPO", tmp_path)
    peer = run.Tool(tool, "1", lambda *a: ([], ""))
    run.run_dir(CASE, peer).mkdir(parents=True)
    (run.run_dir(CASE, peer) / "stderr.log").write_text(stderr)
    return peer


def test_shrinkray_without_its_grammar_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    peer = finished(tmp_path, monkeypatch, "shrinkray", f"Starting...\n{WARNING}\n")
    why = run.handicapped(CASE, peer)
    assert why is not None and why.startswith("REFUSED") and "'c'" in why


def test_shrinkray_with_its_grammar_is_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    peer = finished(tmp_path, monkeypatch, "shrinkray", "Starting reduction...\nDone\n")
    assert run.handicapped(CASE, peer) is None


def test_other_tools_are_not_judged_by_shrinkrays_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    peer = finished(tmp_path, monkeypatch, "cvise", WARNING)
    assert run.handicapped(CASE, peer) is None


def test_a_peer_killed_mid_write_is_measured_by_its_best_tested_candidate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A peer stopped at the limit while rewriting its file leaves it torn (Shrink Ray's 0-byte
    input.cpp on cpp-sort-diagnostic); the wrapper's best interesting candidate is measured."""
    import prepare

    monkeypatch.setattr(run, "RUNS", tmp_path / "runs")
    monkeypatch.setattr(prepare, "INPUTS", tmp_path / "inputs")
    cases = tmp_path / "case"
    cases.mkdir()
    (cases / "input.c").write_text("int main(void) { return 0; } /* and more */\n")
    (cases / "test.sh").write_text('#!/usr/bin/env bash\ngrep -q main "$1"\n')
    (cases / "test.sh").chmod(0o755)
    case = Case("c-torn", cases, "C", "c", "input.c", None, "", "", "gcc", False)

    def command(case: Case, name: str, wrapper: Path, jobs: int, limit: float) -> object:
        script = f"printf 'main()' > small.c; {wrapper} small.c; : > {name}; sleep 60"
        return ["bash", "-c", script], name

    record = run.run_one(case, run.Tool("torn", "1", command), jobs=1, limit=1.0)
    assert record.hit_time_limit and record.from_best and record.still_interesting
    assert record.final_bytes == len("main()")
