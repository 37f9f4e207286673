"""`treereduce-py DIR -- CMD @@` end to end: real reductions, refusals, interrupts, --in-place."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest
from conftest import PYTHON, cli_args, run_cli, signal_when, succeeded

from treereduce_py import events
from treereduce_py.front import cli, directory_cli
from treereduce_py.lang.filetree import FileTree

pytestmark = pytest.mark.e2e

# A package whose __main__ dies of a ZeroDivisionError in stats.mean, through report.py; the
# other modules are there to be deleted or emptied.
_PACKAGE = {
    "__init__.py": "VERSION = '1.0'\n",
    "__main__.py": "from shop import report\nprint(report.render([3, 4], []))\n",
    "report.py": (
        "from shop import stats, fmt\n\n\ndef render(*groups):\n"
        "    return fmt.table([stats.mean(g) for g in groups])\n"
    ),
    "stats.py": (
        "def mean(xs):\n    return sum(xs) / len(xs)\n\n\n"
        "def spread(xs):\n    return max(xs) - min(xs)\n"
    ),
    "fmt.py": "def table(rows):\n    return '\\n'.join(f'{r:8.2f}' for r in rows)\n",
    "units.py": "CENTS = 100\n\n\ndef euros(c):\n    return c / CENTS\n" * 3,
    "README.txt": "The shop package: a report of sales.\n" * 10,
}


def _package(tmp_path: Path) -> tuple[Path, Path]:
    """The package directory `shop` and its test script (interesting: the traceback ends in a
    ZeroDivisionError raised in mean)."""
    root = tmp_path / "shop"
    root.mkdir()
    for name, text in _PACKAGE.items():
        (root / name).write_text(text)
    test = tmp_path / "check.sh"
    test.write_text(
        '#!/bin/sh\ncd "$(dirname "$1")" || exit 2\n'
        f'err=$({PYTHON} -S -B -m "$(basename "$1")" 2>&1 >/dev/null)\n'
        'case $err in *"in mean"*ZeroDivisionError*) exit 0 ;; esac\nexit 1\n'
    )
    test.chmod(0o755)
    return root, test


def _interesting(tree: Path, test: Path, tmp_path: Path) -> bool:
    """Run the test on a clean copy of `tree`, named as the test expects."""
    clean = tmp_path / "clean" / "shop"
    shutil.rmtree(clean.parent, ignore_errors=True)
    shutil.copytree(tree, clean)
    return subprocess.run([str(test), str(clean)], check=False).returncode == 0


def test_a_python_package_is_reduced_into_dir_reduced(tmp_path: Path) -> None:
    root, test = _package(tmp_path)
    before = FileTree.read(root)
    proc = run_cli([root.name, "-j", "2", "--json", "--", str(test), "@@"], cwd=tmp_path)
    err = succeeded(proc)
    out = tmp_path / "shop.reduced"
    after = FileTree.read(out)
    assert FileTree.read(root) == before  # the user's directory is untouched
    assert _interesting(out, test, tmp_path)
    assert "units.py" not in after.paths and "README.txt" not in after.paths
    assert after.size < before.size / 2
    assert "__pycache__" not in str(after.paths)  # what the test made in its copy is not kept
    lines = [json.loads(line) for line in err.splitlines()]
    files = {e["file"] for e in lines if "file" in e}
    assert "." in files and "__main__.py" in files
    # stats.py, imported by report.py alone, and report.py, by __main__.py, are pasted in
    inlined = {e["message"] for e in lines if e["event"] == "notice"}
    assert {"inlined report.py", "inlined stats.py"} <= inlined
    # ...and each event says the whole tree's bytes so far, which end at the result's
    assert [e["tree_size"] for e in lines if "file" in e][-1] == after.size


def test_each_files_start_says_its_bytes_and_the_trees() -> None:
    start = events.Start(original_size=120, language="python", jobs=2, strategy="hybrid")
    note = directory_cli._start_note(events.InFile("lib.py", start, tree_size=900), start)
    assert note == "reducing lib.py (120 bytes; the tree: 900 bytes)"
    listing = events.InFile(".", start, tree_size=900)  # its own bytes are the records'
    assert (
        directory_cli._start_note(listing, start) == "reducing the file list (the tree: 900 bytes)"
    )


def _main(args: list[object], capfd: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli.main([str(a) for a in args])
    return code, capfd.readouterr().err


def test_bad_directories_are_refused_with_one_line_and_exit_9(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty" / "sub").mkdir(parents=True)
    code, err = _main(["empty", "--", "true", "@@"], capfd)
    assert code == 9 and "no files to reduce" in err and len(err.strip().splitlines()) == 1
    (tmp_path / "loop").mkdir()
    (tmp_path / "loop" / "a.txt").write_text("a\n")
    os.symlink("y", tmp_path / "loop" / "x")
    os.symlink("x", tmp_path / "loop" / "y")
    code, err = _main(["loop", "--", "true", "@@"], capfd)
    assert code == 9 and "symlink loop" in err


@pytest.mark.parametrize(
    ("passes", "kept"),
    [(2, "no smaller tree passed, so nothing was written"), (4, "is in d.reduced")],
)
def test_a_flaky_test_says_so_and_where_the_last_tree_that_passed_is(
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    passes: int,
    kept: str,
) -> None:
    """A test that passes on its first runs only: the run stops with exit 5 and one line that
    names the flakiness and what was kept: nothing, or the last tree that passed."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "x.txt").write_text("a\nb\nbug\n")
    (tmp_path / "d" / "y.txt").write_text("c\nd\n")
    test = tmp_path / "t.sh"
    test.write_text(
        "#!/bin/sh\n"
        f"n=$(cat {tmp_path}/count 2>/dev/null || echo 0); echo $((n+1)) > {tmp_path}/count\n"
        f'[ "$n" -lt {passes} ] && grep -q bug "$1/x.txt"\n'
    )
    test.chmod(0o755)
    code, err = _main(["d", "-j", "1", "--", test, "@@"], capfd)
    last = err.strip().splitlines()[-1]
    assert code == 5
    assert "is the test deterministic?" in last and kept in last, last
    out = tmp_path / "d.reduced"
    assert out.exists() == (passes > 2)
    if out.exists():  # what it holds passed the test (once)
        assert "bug" in (out / "x.txt").read_text()


def test_a_tree_the_test_is_flaky_on_is_stepped_back_from_and_the_run_goes_on(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Below 30 bytes of x.txt the test passes a tree the first time it sees it and never
    again (as a reduced program reading memory it never wrote may): the part that ends on such a
    tree steps back to one that passes steadily, says so, and the run ends with exit 0."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d").mkdir()
    lines = [f"line {k}" for k in range(12)]
    (tmp_path / "d" / "x.txt").write_text("\n".join([*lines[:6], "bug", *lines[6:]]) + "\n")
    (tmp_path / "d" / "y.txt").write_text("c\nd\n")
    seen = tmp_path / "seen"
    seen.mkdir()
    test = tmp_path / "t.sh"
    test.write_text(
        "#!/bin/sh\n"
        'grep -q bug "$1/x.txt" || exit 1\n'
        '[ "$(wc -c < "$1/x.txt")" -ge 30 ] && exit 0\n'
        f'h=$(cat "$1"/* | cksum | tr " " _); [ -e {seen}/"$h" ] && exit 1\n'
        f'touch {seen}/"$h"\n'
    )
    test.chmod(0o755)
    code, err = _main(["d", "-j", "1", "--", test, "@@"], capfd)
    assert code == 0, err
    assert "flaky on it; kept the newest earlier result that passed 3 tests in a row" in err, err
    x = tmp_path / "d.reduced" / "x.txt"
    assert "bug" in x.read_text() and x.stat().st_size >= 30


@pytest.mark.parametrize(
    ("extra", "command", "says"),
    [
        (["--resume"], ["true", "@@"], "--resume needs the output directory"),
        (["--resume", "--in-place"], ["true", "@@"], "drop --resume"),
        (["-o", "-"], ["true", "@@"], "-o - does not work with a directory"),
        (["-l", "c"], ["true", "@@"], "-l/--lang"),
        ([], ["true"], "must name its copy with @@"),
        ([], ["true", "@@.c"], "@@.EXT names a file"),
        (["--in-place", "-o", "x"], ["true", "@@"], "give one"),
        (["-o", "no/such/out"], ["true", "@@"], "no such directory: no/such"),
        (["-o", "d/inside"], ["true", "@@"], "inside the input"),
    ],
)
def test_what_a_directory_cannot_take_is_refused(
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    extra: list[str],
    command: list[str],
    says: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.txt").write_text("a\n")
    code, err = _main(["d", *extra, "--", *command], capfd)
    assert code == 2 and says in err, err
    assert not (tmp_path / "d.reduced").exists()


def test_an_existing_output_needs_force_and_keep_needs_a_directory(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.txt").write_text("a bug\n")
    (tmp_path / "d.reduced").mkdir()
    (tmp_path / "d.reduced" / "mine").write_text("the user's\n")
    code, err = _main(["d", "--", "grep", "-rq", "bug", "@@"], capfd)
    assert code == 2 and "output exists" in err
    assert (tmp_path / "d.reduced" / "mine").read_text() == "the user's\n"
    code, err = _main(["d", "--force", "-j", "1", "--", "grep", "-rq", "bug", "@@"], capfd)
    assert code == 0, err
    assert FileTree.read(tmp_path / "d.reduced").paths == ("a.txt",)
    code, err = _main(["d/a.txt", "--keep", "*.txt", "--", "grep", "-q", "bug", "@@"], capfd)
    assert code == 2 and "for a directory input" in err


def test_in_place_replaces_the_directory_and_keep_pins_files(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    d = tmp_path / "d"
    (d / "sub").mkdir(parents=True)
    (d / "a.txt").write_text("one\ntwo bug three\nfour\n")
    (d / "sub" / "b.txt").write_text("other words\n")
    (d / "KEEP.md").write_text("pinned, never changed\n")
    code, err = _main(
        ["d", "--in-place", "--keep", "*.md", "-j", "1", "--", "grep", "-rq", "bug", "@@"], capfd
    )
    assert code == 0, err
    assert FileTree.read(d).paths == ("KEEP.md", "a.txt")
    assert (d / "KEEP.md").read_text() == "pinned, never changed\n"
    assert b"bug" in (d / "a.txt").read_bytes() and len((d / "a.txt").read_bytes()) < 8
    assert not (tmp_path / "d.reduced").exists()


def test_sigterm_leaves_an_interesting_output(tmp_path: Path) -> None:
    root, test = _package(tmp_path)
    out = tmp_path / "shop.reduced"
    proc = subprocess.Popen(
        cli_args([root.name, "-j", "1", "--", str(test), "@@"]),
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    _, err = signal_when(proc, out.exists, signal.SIGTERM, waiting_for="a first output tree")
    assert proc.returncode in (0, 130), err
    if proc.returncode == 130:
        assert b"the best tree so far is in" in err
    assert _interesting(out, test, tmp_path)


def test_a_directory_run_goes_on_with_resume_from_its_record(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.txt").write_text("".join(f"line {i}\n" for i in range(40)) + "a bug\n")
    (tmp_path / "d" / "b.txt").write_text("other\n" * 20)
    test = ["--", "grep", "-rq", "bug", "@@"]
    code, err = _main(["d", "-j", "1", "--max-tests", "4", *test], capfd)
    assert code == 0, err
    out = tmp_path / "d.reduced"
    first = FileTree.read(out)
    assert (tmp_path / "d.reduced.treereduce.json").exists()
    code, err = _main(["d", "-j", "1", "--resume", *test], capfd)
    assert code == 0, err
    final = FileTree.read(out)
    assert final.size < first.size and b"bug" in final.files[0].data
    # Another input, or another test, is not the reduction the record names.
    code, err = _main(["d", "--resume", "--", "grep", "-rq", "other", "@@"], capfd)
    assert code == 2 and "different command" in err, err
    (tmp_path / "d" / "b.txt").write_text("changed\n")
    code, err = _main(["d", "--resume", *test], capfd)
    assert code == 2 and "from a different input" in err, err
    assert FileTree.read(out) == final  # a refused resume leaves the output as it was


class _Shown:
    """A reporter that keeps what it is given."""

    def __init__(self) -> None:
        self.events: list[events.Event] = []

    def __call__(self, event: events.Event) -> None:
        self.events.append(event)

    def close(self) -> None:
        pass


def test_the_display_follows_one_file_of_those_reduced_at_once() -> None:
    shown = _Shown()
    sink = directory_cli._sink(shown, json=False)
    start = {f: events.Start(n, "text", 2, "priority") for f, n in (("a.txt", 90), ("b.txt", 50))}

    def stats(size: int) -> events.Stats:
        return events.Stats(original_size=90, size=size)

    for event in (
        events.InFile("a.txt", start["a.txt"]),
        events.InFile("b.txt", start["b.txt"]),
        events.InFile("b.txt", events.Improvement(40, stats(40))),  # not shown: a.txt's is
        events.InFile("a.txt", events.Improvement(60, stats(60))),
        events.InFile("b.txt", events.Notice("a warning of b's")),
        events.InFile("a.txt", events.Done(stats(60), "slice")),  # then b.txt's run is shown
        events.InFile("b.txt", events.Improvement(30, stats(30))),
        events.InFile("b.txt", events.Done(stats(30), "fixpoint")),
    ):
        sink(event)
    said = [e.message for e in shown.events if isinstance(e, events.Notice)]
    assert said == [
        "reducing a.txt (90 bytes)",
        "reducing b.txt (50 bytes)",
        "a warning of b's",
        "showing b.txt, reduced at the same time",
    ]
    runs = [e for e in shown.events if not isinstance(e, events.Notice)]
    assert [getattr(e, "size", None) for e in runs if isinstance(e, events.Improvement)] == [60, 30]
    assert [e for e in runs if isinstance(e, events.Start)] == [start["a.txt"], start["b.txt"]]
    assert [e.reason for e in runs if isinstance(e, events.Done)] == ["slice", "fixpoint"]
