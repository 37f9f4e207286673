"""bench/tree_input.py and the runner's directory cases: a directory is measured over all its
files, laid out flat for C-Vise and C-Reduce and rebuilt by the wrapper before the test, and a
tool's run of it is recorded with its bytes and file counts before and after, its result
re-checked from a fresh copy.

bench/ is not a package; its modules import each other by name, so the test puts bench/ on the
path as its scripts do.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import prepare  # type: ignore[import-not-found]  # noqa: E402
import run  # type: ignore[import-not-found]  # noqa: E402
import tree_input  # type: ignore[import-not-found]  # noqa: E402

# Interesting while the tree's src/main.txt still holds "bug" (and a file kept.txt exists).
TEST = """#!/usr/bin/env bash
d="$(realpath "${1:-pkg}")"
[ -f "$d/kept.txt" ] && grep -q bug "$d/src/main.txt"
"""


def make_tree(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src/main.txt").write_text("a bug here\n")  # 11 bytes
    (root / "src/extra.txt").write_text("padding padding\n")  # 16 bytes
    (root / "kept.txt").write_text("k\n")  # 2 bytes
    return root


def test_a_directory_is_measured_over_its_regular_files(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "pkg")
    (root / "link").symlink_to(root / "src/main.txt")
    assert tree_input.measure(root) == (29, 3)
    assert tree_input.measure(root / "kept.txt") == (2, 1)
    assert tree_input.contents(root) == b"k\n\npadding padding\n\na bug here\n"


def test_flat_names_keep_top_level_files_and_write_folders_as_separators(
    tmp_path: Path,
) -> None:
    root = make_tree(tmp_path / "pkg")
    assert tree_input.flat_layout(root) == [
        ("kept.txt", "kept.txt"),
        ("src__extra.txt", "src/extra.txt"),
        ("src__main.txt", "src/main.txt"),
    ]
    (root / "src__main.txt").write_text("clash\n")
    with pytest.raises(ValueError, match="flat name"):
        tree_input.flat_layout(root)


def test_a_flat_layout_rebuilds_the_same_tree(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "pkg")
    flat = tmp_path / "flat"
    flat.mkdir()
    names = tree_input.lay_flat(root, flat)
    assert sorted(p.name for p in flat.iterdir()) == sorted([*names, tree_input.FLATMAP])
    again = tree_input.rebuild(flat, tmp_path / "again" / "pkg")
    assert tree_input.tree_files(again) == tree_input.tree_files(root)
    for rel in tree_input.tree_files(root):
        assert (again / rel).read_bytes() == (root / rel).read_bytes()


def wrapper(tmp_path: Path) -> tuple[Path, Path]:
    """The directory wrapper around TEST, written as the runner writes it; (wrapper, rundir)."""
    rundir = tmp_path / "run"
    rundir.mkdir()
    test = tmp_path / "test.sh"
    test.write_text(TEST)
    test.chmod(0o755)
    files = run._RunFiles(rundir)
    script = rundir / "wrap.sh"
    script.write_text(
        tree_input.WRAPPER.format(
            counter=files.counter,
            test=test,
            name="pkg",
            best=files.best,
            stopped=files.stopped,
            flatmap=rundir / tree_input.FLATMAP,
        )
    )
    script.chmod(0o755)
    return script, rundir


def test_the_wrapper_rebuilds_a_flat_tree_and_keeps_the_smallest_interesting(
    tmp_path: Path,
) -> None:
    script, rundir = wrapper(tmp_path)
    tree_input.lay_flat(make_tree(tmp_path / "pkg"), rundir)
    # As C-Vise calls it: no argument, the files flat in the current directory.
    assert subprocess.run([str(script)], cwd=rundir).returncode == 0
    (rundir / "src__extra.txt").write_text("")
    assert subprocess.run([str(script)], cwd=rundir).returncode == 0
    (rundir / "src__main.txt").write_text("fine\n")
    assert subprocess.run([str(script)], cwd=rundir).returncode == 1
    best = rundir / "best"
    assert tree_input.measure(best) == (13, 3)
    assert (best / "src/main.txt").read_text() == "a bug here\n"
    assert (rundir / "best.size").read_text().strip() == "13"
    log = (rundir / "tests.log").read_text().split("\n")
    assert [line.split()[0] for line in log if line] == ["s", "e", "b", "s", "e", "b", "s", "e"]
    # Each test's start and end name the same wrapper process, and the end its exit code.
    ends = [line.split() for line in log if line.startswith("e ")]
    starts = [line.split() for line in log if line.startswith("s ")]
    assert [e[2] for e in ends] == [s[2] for s in starts]
    assert [e[3] for e in ends] == ["0", "0", "1"]


def test_the_wrapper_tests_a_directory_it_is_given(tmp_path: Path) -> None:
    script, rundir = wrapper(tmp_path)
    tree = make_tree(tmp_path / "copy" / "pkg")
    assert subprocess.run([str(script), str(tree)], cwd=rundir).returncode == 0
    (tree / "kept.txt").unlink()
    assert subprocess.run([str(script), str(tree)], cwd=rundir).returncode == 1
    assert tree_input.measure(rundir / "best") == (29, 3)


def tree_case(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> prepare.Case:
    """A committed directory case with TEST, its runs and inputs under tmp_path."""
    monkeypatch.setattr(run, "RUNS", tmp_path / "runs")
    monkeypatch.setattr(prepare, "INPUTS", tmp_path / "inputs")
    folder = tmp_path / "case"
    make_tree(folder / "pkg")
    (folder / "test.sh").write_text(TEST)
    (folder / "test.sh").chmod(0o755)
    return prepare.Case(
        "dir-x", folder, "Text (directory)", "text", "pkg", None, "", "", "bash", True, tree=True
    )


def test_a_tool_given_the_directory_is_recorded_over_its_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = tree_case(tmp_path, monkeypatch)

    def command(case: prepare.Case, name: str, wrapper: Path, jobs: int, limit: float) -> object:
        # Deletes a file, empties another and tests the result, as a reducer would.
        script = f"rm {name}/src/extra.txt && printf bug > {name}/kept.txt && {wrapper} {name}"
        return ["bash", "-c", script], name

    record = run.run_one(case, run.Tool("fake", "1", command), 1, 20.0)
    assert (record.original_bytes, record.original_files) == (29, 3)
    assert (record.final_bytes, record.final_files) == (14, 2)
    assert record.still_interesting and record.tests_run == 1 and record.tests_interesting == 1
    assert (run.run_dir(case, run.Tool("fake", "1", command)) / "final/pkg/kept.txt").exists()


def test_a_flat_tool_gets_the_files_and_its_result_is_the_rebuilt_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = tree_case(tmp_path, monkeypatch)

    def command(case: prepare.Case, name: str, wrapper: Path, jobs: int, limit: float) -> object:
        # Breaks the test by emptying main.txt, as a reducer's rejected candidate, and puts it
        # back; then empties extra.txt, which the test does not need.
        script = f": > src__main.txt; {wrapper}; echo 'a bug here' > src__main.txt; "
        script += f": > src__extra.txt; {wrapper}"
        return ["bash", "-c", script], "."

    tool = run.Tool("fake", "1", command, flat=True)
    record = run.run_one(case, tool, 1, 20.0)
    assert (record.final_bytes, record.final_files) == (13, 3)
    assert record.still_interesting and (record.tests_run, record.tests_interesting) == (2, 1)


def test_a_result_that_fails_the_test_is_recorded_as_failing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = tree_case(tmp_path, monkeypatch)

    def command(case: prepare.Case, name: str, wrapper: Path, jobs: int, limit: float) -> object:
        return ["bash", "-c", f"rm {name}/kept.txt"], name

    record = run.run_one(case, run.Tool("fake", "1", command), 1, 20.0)
    assert (record.final_bytes, record.final_files) == (27, 2)
    assert not record.still_interesting


def test_a_directory_cases_table_counts_its_files() -> None:
    import report_peers  # type: ignore[import-not-found]

    run_of = {
        "tool": "cvise",
        "version": "2.7.0",
        "original_bytes": 6887,
        "final_bytes": 300,
        "original_tokens": 900,
        "final_tokens": 80,
        "original_files": 11,
        "final_files": 11,
        "wall_time": 10.0,
        "hit_time_limit": False,
        "tests_run": 50,
        "still_interesting": True,
        "trace": [(0.0, 6887), (9.0, 300)],
    }
    assert report_peers.is_tree(run_of)
    columns = report_peers.case_columns(True)
    row = report_peers._case_row(run_of, True)
    assert dict(zip(columns, row, strict=True))["files"] == "11 of 11"
    assert dict(zip(columns, row, strict=True))["bytes"] == "300"
    file_run = {**run_of, "original_files": None, "final_files": None}
    assert not report_peers.is_tree(file_run)
    assert "files" not in report_peers.case_columns(False)
    assert len(report_peers._case_row(file_run)) == len(report_peers.case_columns(False))


def test_a_tool_stopped_at_the_limit_is_judged_by_its_smallest_interesting_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = tree_case(tmp_path, monkeypatch)

    def command(case: prepare.Case, name: str, wrapper: Path, jobs: int, limit: float) -> object:
        # Tests a smaller tree, then puts the file back as C-Vise does between passes, and
        # has not written its progress back when the limit stops it.
        script = f"cp src__extra.txt keep; : > src__extra.txt; {wrapper}; "
        script += "cp keep src__extra.txt; exec sleep 60"
        return ["bash", "-c", script], "."

    record = run.run_one(case, run.Tool("fake", "1", command, flat=True), 1, 3.0)
    assert record.hit_time_limit and record.still_interesting
    assert (record.final_bytes, record.final_files) == (13, 3)


def test_each_tool_is_given_a_directory_its_own_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = tree_case(tmp_path, monkeypatch)
    prepare.prepare_case(case)
    wrap = tmp_path / "wrap.sh"
    ours = run.treereduce_tool(None)
    assert ours is not None  # the worktree's own CLI
    argv, result = ours.command(case, "pkg", wrap, 2, 60.0)
    assert "-l" not in argv and argv[-4:] == ["pkg", "--", str(wrap), "@@"]
    assert result == "reduced" and not ours.flat
    cvise = run.cvise_tool()
    if cvise is None:
        pytest.skip("C-Vise is not installed (bench/setup.sh)")
    argv, _ = cvise.command(case, "pkg", wrap, 2, 60.0)
    assert cvise.flat and "--not-c" in argv
    assert argv[argv.index(str(wrap)) + 1 :] == ["kept.txt", "src__extra.txt", "src__main.txt"]
