"""bench/sitting.sh: `make bench` in chunks, each committed as it ends and skipped when on the
branch, for one engine.

Each test copies the script (with the bench modules and the Makefile it reads its case lists
from) into a scratch git repository whose `.venv/bin/python` is a stub that records its arguments
and writes a result file, so the chunks' commands run for real (as the stub) and their commits
land in that repository only. The stub hands `-c` programs (the case lists) to this interpreter.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

STUB = f"""#!/usr/bin/env bash
if [ "$1" = -c ]; then exec {sys.executable} "$@"; fi
echo "$*" >> "$(dirname "$0")/../../calls.log"
echo "${{BENCH_PIN:-}}" >> "$(dirname "$0")/../../pins.log"
mkdir -p bench/results
echo "$*" > "bench/results/$(basename "$1" .py).json"
"""

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


# Who commits, in the scratch repositories (CI machines may have no git identity).
IDENTITY = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, **IDENTITY}
    done = subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with an engine (treereduce_py/, queries/), the script and the stub python."""
    (tmp_path / "bench").mkdir()
    for module in [ROOT / "bench" / "sitting.sh", *(ROOT / "bench").glob("*.py")]:
        shutil.copy(module, tmp_path / "bench" / module.name)
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    for part in ("treereduce_py", "queries"):
        (tmp_path / part).mkdir()
        (tmp_path / part / "x").write_text(part)
    stub = tmp_path / ".venv" / "bin" / "python"
    stub.parent.mkdir(parents=True)
    stub.write_text(STUB)
    stub.chmod(0o755)
    (tmp_path / ".gitignore").write_text(".venv/\ncalls.log\npins.log\n__pycache__/\n")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "engine")
    return tmp_path


def sitting(
    repo: Path, *phases: str, dry: bool = False, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    run_env = {**os.environ, **IDENTITY}
    for name in ("DRY", "BENCH_PIN", "RERUN", "RERUN_TAG", "UNTIL", "NOISE"):
        run_env.pop(name, None)  # (a sitting of this repository may be under way)
    run_env.update(env or {})
    if dry:
        run_env["DRY"] = "1"
    return subprocess.run(
        ["bash", "bench/sitting.sh", *phases], cwd=repo, env=run_env, capture_output=True, text=True
    )


def calls(repo: Path) -> list[str]:
    log = repo / "calls.log"
    return log.read_text().splitlines() if log.exists() else []


def test_each_chunk_runs_and_is_committed_with_its_results(repo: Path) -> None:
    done = sitting(repo, "spread", "cluster")
    assert done.returncode == 0, done.stderr
    assert calls(repo) == [
        "bench/spread.py --cases js-minimist-pollution",
        "bench/spread.py --cases rust-ice-wf",
        "bench/spread.py --cases smt-qfbv-sort-error",
        "bench/spread.py --cases go-inventory-panic",
        "bench/cluster.py",
    ]
    engine = f"{git(repo, 'rev-parse', '--short', 'HEAD:treereduce_py').strip()}-"
    engine += git(repo, "rev-parse", "--short", "HEAD:queries").strip()
    subjects = git(repo, "log", "--format=%s").splitlines()
    assert subjects[0] == f"sitting {engine}: cluster"
    assert subjects[4] == f"sitting {engine}: spread js-minimist-pollution"
    # The cluster chunk's own result is in its commit.
    shown = git(repo, "show", "--name-only", "--format=", "HEAD")
    assert shown.split() == ["bench/results/cluster.json"]


def test_a_second_run_skips_what_is_on_the_branch(repo: Path) -> None:
    assert sitting(repo, "cluster").returncode == 0
    again = sitting(repo, "spread", "cluster")
    assert again.returncode == 0, again.stderr
    assert "sitting: cluster: on the branch" in again.stdout
    assert calls(repo)[1:] == [
        f"bench/spread.py --cases {c}"
        for c in (
            "js-minimist-pollution",
            "rust-ice-wf",
            "smt-qfbv-sort-error",
            "go-inventory-panic",
        )
    ]


def pins(repo: Path) -> list[str]:
    """The commit each chunk's command was told to stamp its runs with (BENCH_PIN)."""
    return (repo / "pins.log").read_text().splitlines()


def test_every_run_of_a_sitting_is_stamped_with_the_commit_it_began_on(repo: Path) -> None:
    start = git(repo, "rev-parse", "--short", "HEAD").strip()
    assert sitting(repo, "cluster").returncode == 0
    again = sitting(repo, "spread")  # a later session: HEAD has moved by the chunk's commit
    assert again.returncode == 0, again.stderr
    assert f"runs stamped {start}" in again.stdout
    assert pins(repo) == [start] * 5
    # The harness changed: HEAD no longer measures `start`'s code, so a new sitting pins anew.
    (repo / "bench" / "spread.py").write_text("# another harness\n")
    git(repo, "commit", "-q", "-am", "harness")
    harness = git(repo, "rev-parse", "--short", "HEAD").strip()
    assert sitting(repo, "presets").returncode == 0
    assert pins(repo)[5:] == [harness] * 5


def test_another_engine_runs_every_chunk_again(repo: Path) -> None:
    assert sitting(repo, "cluster").returncode == 0
    (repo / "queries" / "x").write_text("changed")
    git(repo, "commit", "-q", "-am", "new engine")
    assert sitting(repo, "cluster").returncode == 0
    assert calls(repo) == ["bench/cluster.py", "bench/cluster.py"]


def test_uncommitted_engine_changes_are_refused(repo: Path) -> None:
    (repo / "treereduce_py" / "x").write_text("dirty")
    done = sitting(repo, "cluster")
    assert done.returncode == 2
    assert "uncommitted changes" in done.stderr
    assert calls(repo) == []


def test_a_dry_run_runs_and_commits_nothing(repo: Path) -> None:
    done = sitting(repo, "sleeping", dry=True)
    assert done.returncode == 0, done.stderr
    assert "bench/sleeping.py --cases c-orders-abort --modes deterministic" in done.stdout
    assert calls(repo) == []
    assert git(repo, "log", "--format=%s").splitlines() == ["engine"]


def test_an_unknown_phase_is_refused_before_anything_runs(repo: Path) -> None:
    done = sitting(repo, "cluster", "bogus")
    assert done.returncode == 2
    assert "unknown phase 'bogus'" in done.stderr
    assert calls(repo) == []


def test_a_rerun_runs_its_cases_again_and_a_tag_names_a_further_one(repo: Path) -> None:
    done = sitting(repo, "rerun", env={"RERUN": "c-orders-abort"})
    assert done.returncode == 0, done.stderr
    # Run again whole: every tool, no --resume (the stored rows are replaced).
    assert calls(repo) == ["bench/run.py --cases c-orders-abort --no-report --no-scaling"]
    again = sitting(repo, "rerun", env={"RERUN": "c-orders-abort"})
    assert "sitting: rerun c-orders-abort: on the branch" in again.stdout
    assert len(calls(repo)) == 1
    # A case disturbed in its re-run is re-run once more under a new chunk name.
    tagged = sitting(repo, "rerun", env={"RERUN": "c-orders-abort", "RERUN_TAG": "again"})
    assert tagged.returncode == 0, tagged.stderr
    assert len(calls(repo)) == 2
    assert git(repo, "log", "-1", "--format=%s").strip().endswith(": rerun again c-orders-abort")


def test_noise_runs_treereduce_py_alone_three_times_on_its_cases(repo: Path) -> None:
    done = sitting(repo, "noise")
    assert done.returncode == 0, done.stderr
    assert calls(repo) == [
        f"bench/spread.py --cases {c} --tools treereduce-py"
        for c in (
            "c-csmith-checksum",
            "smt-unsat-conflicts",
            "c-program-asan",
            "python-pyyaml-package",
        )
    ]
    assert git(repo, "log", "-1", "--format=%s").strip().endswith(": noise python-pyyaml-package")
    # NOISE names other cases; each is a chunk of its own, skipped once on the branch.
    other = sitting(repo, "noise", env={"NOISE": "rust-ice-wf c-program-asan"})
    assert other.returncode == 0, other.stderr
    assert "sitting: noise c-program-asan: on the branch" in other.stdout
    assert calls(repo)[4:] == ["bench/spread.py --cases rust-ice-wf --tools treereduce-py"]
