"""run/directory.py: a directory reduced as files, then each file, every tree it keeps passing."""

from __future__ import annotations

import dataclasses
import shutil
import time
from pathlib import Path

import pytest

import treereduce_py
from treereduce_py import events
from treereduce_py.engine.tree_output import TreeOutput
from treereduce_py.judge.errors import FlakyTest, NotInteresting
from treereduce_py.judge.oracle import CallableOracle, Criteria
from treereduce_py.judge.tree_oracle import tree_command
from treereduce_py.lang.filetree import FileTree, TreeFile
from treereduce_py.run import directory, together
from treereduce_py.run.directory import DirectorySession
from treereduce_py.run.options import ReduceOptions
from treereduce_py.run.session import Session
from treereduce_py.run.together import TogetherSession

_OPTIONS = ReduceOptions(jobs=2)


def _tree() -> FileTree:
    return FileTree(
        (
            TreeFile(
                "main.c", b'#include "a.h"\nint main(void) { return f(1) + g(2); }\n', kind="c"
            ),
            TreeFile(
                "a.h", b"int f(int x) { return x * 2; }\nint g(int y) { return y; }\n", kind="c"
            ),
            TreeFile("notes.txt", b"a long note that nothing needs\n" * 20),
            TreeFile("LICENSE", b"keep me\n"),
        )
    )


class _Recorder:
    """A tree sink that keeps every tree offered."""

    def __init__(self, kept: list[FileTree]) -> None:
        self.kept = kept

    def offer(self, tree: FileTree) -> None:
        self.kept.append(tree)


def _wants(tree: FileTree, seen: list[FileTree]) -> CallableOracle:
    """Interesting while main.c still calls f and a.h still defines it; records every tree."""

    def test(candidate: bytes) -> bool:
        t = tree.decode(candidate)
        seen.append(t)
        files = {f.path: f.data for f in t.files}
        return b"f(" in files.get("main.c", b"") and b"int f(" in files.get("a.h", b"")

    return CallableOracle(test)


def test_files_go_then_each_file_shrinks_and_every_kept_tree_passed(tmp_path: Path) -> None:
    tree = _tree()
    seen: list[FileTree] = []
    oracle = _wants(tree, seen)
    got: list[events.Event] = []
    out = TreeOutput(tmp_path / "out")
    result = DirectorySession(tree, oracle, _OPTIONS, got.append, keep=["LIC*"], output=out).run()
    assert result.reason == "fixpoint"
    assert result.tree.paths == ("LICENSE", "a.h", "main.c")  # notes.txt went; LICENSE is pinned
    assert result.tree.get("LICENSE") == tree.get("LICENSE")
    assert result.tree.size < tree.size - len(tree.get("notes.txt").data)
    assert b"g(" not in result.tree.get("main.c").data
    # what the output holds is the result, and it passed (as every tree the oracle saw had
    # LICENSE: the pinned file is in every test)
    assert FileTree.read(tmp_path / "out").encode() == result.tree.encode()
    assert oracle.check(result.tree.encode()).interesting
    assert all("LICENSE" in t.paths for t in seen)
    files = {e.file for e in got if isinstance(e, events.InFile)}
    assert {".", "main.c", "a.h"} <= files


def test_an_uninteresting_original_is_refused() -> None:
    tree = _tree()
    with pytest.raises(NotInteresting):
        DirectorySession(tree, CallableOracle(lambda _c: False), _OPTIONS, lambda _e: None).run()


def test_budgets_count_over_the_whole_directory() -> None:
    tree = _tree()
    seen: list[FileTree] = []
    session = DirectorySession(
        tree, _wants(tree, seen), ReduceOptions(jobs=1, max_tests=6), lambda _e: None
    )
    result = session.run()
    assert result.reason == "max-tests"
    assert result.tests <= 6 + 2  # each part's final re-test is outside the budget


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
def test_a_c_program_with_headers_under_gcc(tmp_path: Path) -> None:
    root = tmp_path / "prog"
    (root / "include").mkdir(parents=True)
    (root / "main.c").write_text(
        '#include "include/calc.h"\n#include "include/log.h"\n'
        'int main(void) {\n  log_line("start");\n  int v = divide(10, 0);\n'
        '  log_line("done");\n  return v;\n}\n'
    )
    (root / "include" / "calc.h").write_text(
        "static int add(int a, int b) { return a + b; }\n"
        "static int divide(int a, int b) { return a / b; }\n"
        "static int twice(int a) { return add(a, a); }\n"
    )
    (root / "include" / "log.h").write_text(
        '#include <stdio.h>\nstatic void log_line(const char *s) { printf("%s\\n", s); }\n'
    )
    (root / "include" / "unused.h").write_text("#define NOTHING 1\n" * 10)
    script = tmp_path / "check.sh"
    script.write_text('#!/bin/sh\ncd "$1" && gcc -w -o prog main.c && ./prog; test $? -eq 136\n')
    script.chmod(0o755)
    tree = FileTree.read(root)
    before = {p: (root / p).read_bytes() for p in tree.paths}
    with tree_command([str(script), "@@"], Criteria(), tree, name="prog") as command:
        result = DirectorySession(tree, command, _OPTIONS, lambda _e: None).run()
        assert command.check(result.tree.encode()).interesting  # re-tested from a new copy
    # unused.h is deleted; calc.h and log.h, included once each, are inlined into main.c
    assert result.tree.paths == ("main.c",)
    assert result.tree.size < tree.size / 2
    code = [line for f in result.tree.files for line in f.data.splitlines() if b"#" not in line]
    assert any(b"/" in line for line in code)  # the division that crashes stays
    assert {p: (root / p).read_bytes() for p in tree.paths} == before  # the user's tree untouched


def test_a_part_is_not_run_again_on_the_tree_it_settled_on() -> None:
    tree = FileTree(
        (
            TreeFile("a.txt", b"one\nbug\ntwo\nthree\nfour\n"),
            TreeFile("b.txt", b"five\nsix\nbug\n"),
        )
    )

    def both_bugs(candidate: bytes) -> bool:
        files = {f.path: f.data for f in tree.decode(candidate).files}
        return all(b"bug" in files.get(p, b"") for p in ("a.txt", "b.txt"))

    got: list[events.Event] = []
    # (in turn, as --deterministic reduces files; at once, a part's last tree depends on timing)
    options = dataclasses.replace(_OPTIONS, deterministic=True)
    result = DirectorySession(tree, CallableOracle(both_bugs), options, got.append).run()
    assert [f.data for f in result.tree.files] == [b"bug", b"bug"]
    starts = [
        e.file for e in got if isinstance(e, events.InFile) and isinstance(e.event, events.Start)
    ]
    # round 1 shrinks both files, round 2 changes nothing: the file list and a.txt (reduced
    # first, the larger) are tried again on the tree b.txt left; b.txt settled on that very tree
    assert starts == [".", "a.txt", "b.txt", ".", "a.txt"]


def test_files_are_reduced_at_once_each_in_the_tree_the_others_made() -> None:
    # Two files that each need the other's line: every test sees both. With two jobs the two
    # files' parts run at once (each starts before the other is done), and every tree the run
    # kept passed the test.
    tree = FileTree(
        (
            TreeFile("a.txt", b"".join(b"a%d\n" % k for k in range(12)) + b"bug\n"),
            TreeFile("b.txt", b"".join(b"b%d\n" % k for k in range(12)) + b"bug\n"),
        )
    )
    passed: set[bytes] = set()

    def both_bugs(candidate: bytes) -> bool:
        time.sleep(0.02)
        files = {f.path: f.data for f in tree.decode(candidate).files}
        ok = all(b"bug" in files.get(p, b"") for p in ("a.txt", "b.txt"))
        if ok:
            passed.add(candidate)
        return ok

    kept: list[FileTree] = []
    got: list[events.Event] = []
    out = _Recorder(kept)
    session = TogetherSession(tree, CallableOracle(both_bugs), _OPTIONS, got.append, output=out)
    result = session.run()
    assert [f.data for f in result.tree.files] == [b"bug", b"bug"]
    marks = [
        (e.file, type(e.event).__name__)
        for e in got
        if isinstance(e, events.InFile) and isinstance(e.event, events.Start | events.Done)
    ]
    first = marks.index(("a.txt", "Done"))
    assert ("b.txt", "Start") in marks[:first]
    assert kept and all(t.encode() in passed for t in kept)


def test_files_in_turn_share_a_round_by_their_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    """In turn, a file's part runs for half a slice and its share of the other half of the
    round by bytes: the mean share is one slice, so a file of most of the tree gets most of
    the round, and a small one at least half a slice (and SLICE_FLOOR)."""
    monkeypatch.setattr(directory, "SLICE_TESTS", 100)
    monkeypatch.setattr(directory, "SLICE_FLOOR", 0.01)
    big = b"".join(b"padding line %d\n" % k for k in range(60)) + b"bug\n"
    small = b"one\ntwo\nbug\n"
    tree = FileTree((TreeFile("big.txt", big), TreeFile("small.txt", small)))

    def every_bug(candidate: bytes) -> bool:
        time.sleep(0.005)
        files = {f.path: f.data for f in tree.decode(candidate).files}
        return all(b"bug" in files.get(p, b"") for p in ("big.txt", "small.txt"))

    # Each file's first part: its max_time and the round's slice.
    first: dict[bytes, tuple[float | None, float]] = {}

    def recording(source: bytes, lang: str, oracle, options, emit):  # type: ignore[no-untyped-def]
        if lang != "files" and session.slice is not None:
            first.setdefault(source, (options.max_time, session.slice))
        return Session(source, lang, oracle, options, emit)

    monkeypatch.setattr(directory, "Session", recording)
    session = DirectorySession(tree, CallableOracle(every_bug), _OPTIONS, lambda e: None)
    result = session.run()
    assert [f.data for f in result.tree.files] == [b"bug", b"bug"]
    total = len(big) + len(small)
    for data in (big, small):
        length, round_slice = first[data]
        share = (1 + 2 * len(data) / total) / 2
        assert length == pytest.approx(max(0.01, round_slice * share))
    assert first[big][0] > 1.9 * first[small][0]  # type: ignore[operator]


def test_parts_at_once_share_the_round_so_each_runs_as_many_slices_as_there_are_parts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Three files at once share the slots for the round: each part may run three slices, so a
    round lasts about as long as in turn (one slice each, one after the other); a later round
    shares it among the files that still have a part to run. With one slice each, a round of
    parts at once did a third of the work and its fixed costs came thrice as often (the file
    pass, each part's start and re-test)."""
    monkeypatch.setattr(directory, "SLICE_TESTS", 1)
    monkeypatch.setattr(directory, "SLICE_FLOOR", 0.05)
    lines = b"".join(b"padding line %d\n" % k for k in range(30))
    names = ("a.txt", "b.txt", "c.txt")
    tree = FileTree(tuple(TreeFile(n, lines + b"bug\n") for n in names))

    def every_bug(candidate: bytes) -> bool:
        time.sleep(0.005)
        files = {f.path: f.data for f in tree.decode(candidate).files}
        return all(b"bug" in files.get(p, b"") for p in names)

    budgets: list[tuple[float | None, float | None]] = []  # a file part's max_time, the slice

    def recording(source: bytes, lang: str, oracle, options, emit):  # type: ignore[no-untyped-def]
        if lang != "files":  # not the file-deletion pass, which is never sliced
            budgets.append((options.max_time, session.slice))
        return Session(source, lang, oracle, options, emit)

    monkeypatch.setattr(together, "Session", recording)
    session = TogetherSession(tree, CallableOracle(every_bug), _OPTIONS, lambda e: None)
    result = session.run()
    assert [f.data for f in result.tree.files] == [b"bug"] * 3
    # Each round's parts (those given one slice) share it: max_time is their number times it.
    slices = list(dict.fromkeys(s for _, s in budgets))
    rounds = [[t for t, s in budgets if s == r] for r in slices]
    assert len(rounds[0]) == 3  # no file is at its fixed point in the first round
    for r, parts in zip(slices, rounds, strict=True):
        assert r is not None and parts == [pytest.approx(len(parts) * r)] * len(parts)


def test_the_library_reduces_a_directory_with_a_command(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "docs").mkdir(parents=True)
    (root / "a.txt").write_text("alpha\nthe bug\nomega\n")
    (root / "docs" / "b.txt").write_text("nothing here\n" * 5)
    out = tmp_path / "out"
    result = treereduce_py.reduce_directory(
        root, ["grep", "-rq", "bug", "@@"], options=ReduceOptions(jobs=1), output=out
    )
    assert result.tree.paths == ("a.txt",) and b"bug" in result.tree.get("a.txt").data
    assert result.tree.size < len(b"the bug")
    assert FileTree.read(out) == result.tree
    assert FileTree.read(root).size > 60  # the input is as it was


def test_max_time_counts_from_when_the_caller_started_the_run() -> None:
    """--max-time counts from the run's start as the caller took it (the CLI takes it before
    reading the tree and making the test's copies), not from when the session was built: a
    budget spent before the session began leaves nothing to reduce with, yet the run still ends
    on the original tree."""
    tree = _tree()
    seen: list[FileTree] = []
    options = ReduceOptions(jobs=2, max_time=5.0)
    session = DirectorySession(
        tree, _wants(tree, seen), options, lambda _e: None, started=time.monotonic() - 60.0
    )
    result = session.run()
    assert result.reason == "max-time"
    assert result.tree == tree
    fresh = DirectorySession(tree, _wants(tree, []), options, lambda _e: None).run()
    assert fresh.tree.size < tree.size  # the same budget from now reduces it


def test_inlinings_tested_at_once_keep_the_first_that_passes_in_order() -> None:
    # Three headers each included once, the largest first: inlining a.h or c.h fails (the test
    # wants both files), inlining b.h passes. Tested in one batch of three, b.h's is kept, as
    # one at a time it would have been.
    headers = {"a.h": b"int a;\n" * 3, "b.h": b"int b;\n" * 2, "c.h": b"int c;\n"}
    main = b"".join(b'#include "%s"\n' % name.encode() for name in headers) + b"int main;\n"
    tree = FileTree(
        (
            TreeFile("main.c", main, kind="c"),
            *(TreeFile(n, d, kind="c") for n, d in headers.items()),
        )
    )

    def wants(candidate: bytes) -> bool:
        files = {f.path: f.data for f in tree.decode(candidate).files}
        b = files.get("b.h", b"") + files.get("main.c", b"")
        return {"main.c", "a.h", "c.h"} <= set(files) and b"int b;" in b

    got: list[events.Event] = []
    DirectorySession(tree, CallableOracle(wants), ReduceOptions(jobs=3), got.append).run()
    notices = [e.event for e in got if isinstance(e, events.InFile)]
    inlined = [n.message for n in notices if isinstance(n, events.Notice)]
    assert [m for m in inlined if m.startswith("inlined ")][:1] == ["inlined b.h"]


def test_a_files_part_stops_at_its_slice_and_the_next_round_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With slices far shorter than a file's reduction, parts pause and later rounds take them
    up again (twice as long each round), until a round ends with every part at its fixed point:
    the result is the one without slices, and the refusals of paused parts are not run again."""
    monkeypatch.setattr(directory, "SLICE_TESTS", 1)
    monkeypatch.setattr(directory, "SLICE_FLOOR", 0.05)
    lines = b"".join(b"padding line %d\n" % k for k in range(40))
    tree = FileTree(
        (
            TreeFile("a.txt", lines + b"bug\n" + lines),
            TreeFile("b.txt", b"bug\n" + lines),
        )
    )

    runs: list[bytes] = []

    def both_bugs(candidate: bytes) -> bool:
        runs.append(candidate)
        time.sleep(0.005)
        files = {f.path: f.data for f in tree.decode(candidate).files}
        return all(b"bug" in files.get(p, b"") for p in ("a.txt", "b.txt"))

    got: list[events.Event] = []
    session = DirectorySession(tree, CallableOracle(both_bugs), _OPTIONS, got.append)
    result = session.run()
    assert result.reason == "fixpoint"
    assert [f.data for f in result.tree.files] == [b"bug", b"bug"]
    ends = [
        (e.file, e.event.reason)
        for e in got
        if isinstance(e, events.InFile) and isinstance(e.event, events.Done)
    ]
    assert ("a.txt", "slice") in ends and ends[-1][1] == "fixpoint"
    assert session.command.hits > 0
    assert result.tests == len(runs)  # remembered refusals ran nothing and count as no test
    assert session.slice is not None and session.slice > 0.05


def test_a_tree_of_one_file_is_not_sliced(monkeypatch: pytest.MonkeyPatch) -> None:
    """Slices share the time between files: with one file left there is none to share."""
    monkeypatch.setattr(directory, "SLICE_TESTS", 1)
    monkeypatch.setattr(directory, "SLICE_FLOOR", 0.01)
    lines = b"".join(b"padding line %d\n" % k for k in range(40))
    tree = FileTree((TreeFile("a.txt", lines + b"bug\n" + lines),))

    def bug(candidate: bytes) -> bool:
        time.sleep(0.005)
        return b"bug" in b"".join(f.data for f in tree.decode(candidate).files)

    got: list[events.Event] = []
    result = DirectorySession(tree, CallableOracle(bug), _OPTIONS, got.append).run()
    assert [f.data for f in result.tree.files] == [b"bug"]
    reasons = {
        e.event.reason
        for e in got
        if isinstance(e, events.InFile) and isinstance(e.event, events.Done)
    }
    assert reasons == {"fixpoint"}


@pytest.mark.parametrize("backs", [1, directory.STEP_BACKS])
def test_a_test_turned_flaky_on_a_verified_tree_steps_back_to_a_steady_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backs: int
) -> None:
    """A tree that passed a part's re-test fails when a later part tests it again (the test is
    flaky there, as on a reduced C program that reads memory it never wrote): the run steps back
    to the newest tree that passes STEADY tests in a row, writes it, says so and goes on from
    it, or at the last step back allowed ends there; never a FlakyTest while such a tree
    exists, and the result is a steady tree."""
    monkeypatch.setattr(directory, "STEP_BACKS", backs)
    lines = b"".join(b"padding line %d\n" % k for k in range(12))
    tree = FileTree(
        (
            TreeFile("a.txt", lines + b"bug\n" + lines),
            TreeFile("b.txt", b"bug\n" + lines[:80]),
        )
    )
    small = tree.size - len(lines)  # trees below this are flaky once b.txt's part has begun
    flaky = False
    sightings: dict[bytes, int] = {}

    def test(candidate: bytes) -> bool:
        nonlocal flaky
        files = {f.path: f.data for f in tree.decode(candidate).files}
        if not all(b"bug" in files.get(p, b"") for p in ("a.txt", "b.txt")):
            return False
        if len(files["b.txt"]) < len(tree.get("b.txt").data):
            flaky = True
        if not flaky or len(candidate) >= small + 2 * len(tree.files) * 8:
            return True
        sightings[candidate] = sightings.get(candidate, 0) + 1
        return sightings[candidate] == 1  # a small tree passes the first time only

    got: list[events.Event] = []
    out = TreeOutput(tmp_path / "out")
    options = dataclasses.replace(_OPTIONS, deterministic=True)
    session = DirectorySession(tree, CallableOracle(test), options, got.append, output=out)
    result = session.run()
    kept = result.tree.encode()
    assert all(test(kept) for _ in range(5))  # steady, unlike the trees it stepped back from
    assert FileTree.read(tmp_path / "out").encode() == kept
    notices = [e.message for e in got if isinstance(e, events.Notice) and "flaky" in e.message]
    if backs == 1:
        assert result.reason == "flaky"
        assert len(notices) == 1 and notices[0].endswith(
            f"the run ends on the newest earlier tree that passed 3 tests in a row "
            f"({result.tree.size} B)"
        )
    else:
        assert result.reason == "fixpoint" and notices
        assert all("goes on from" in m for m in notices)


def test_a_test_flaky_on_the_original_too_is_still_a_flaky_test() -> None:
    tree = _tree()
    wants = _wants(tree, [])
    calls = 0

    def test(candidate: bytes) -> bool:
        nonlocal calls
        calls += 1
        return calls <= 6 and wants.check(candidate).interesting  # none passes later

    with pytest.raises(FlakyTest):
        DirectorySession(tree, CallableOracle(test), _OPTIONS, lambda _e: None).run()
