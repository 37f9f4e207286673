"""judge/tree_oracle.py: a directory's test runs on a private copy, never the user's tree."""

from __future__ import annotations

from pathlib import Path

import pytest

from treereduce_py.judge.oracle import CallableOracle, Criteria
from treereduce_py.judge.tree_oracle import LiveTree, TreeOracle, tree_command
from treereduce_py.lang.filetree import FileTree, TreeFile

# Interesting when a.txt says "bug"; the test also litters its copy and records its root.
_TEST = (
    'grep -q bug "$1/a.txt" || exit 1; echo junk > "$1/made.txt"; '
    'pwd > "$1/../seen"; cp "$1/../seen" "$0"; exit 0'
)


def _tree() -> FileTree:
    return FileTree(
        (
            TreeFile("a.txt", b"a bug here\n"),
            TreeFile("b/c.txt", b"other\n", 0o755),
        )
    )


def test_the_test_sees_the_whole_tree_in_a_private_copy(tmp_path: Path) -> None:
    tree = _tree()
    seen = tmp_path / "seen"
    argv = ["sh", "-c", _TEST, str(seen), "@@"]
    with tree_command(argv, Criteria(), tree, name="proj") as command:
        oracle = TreeOracle(command, tree)
        assert oracle.check(tree.encode(), 0).interesting
        first = seen.read_text()
        assert oracle.check(tree.encode(), 1).interesting
        assert seen.read_text() != first  # each worker has its own copy
        assert not Path(first.strip(), "proj").exists()  # emptied after the run
        # without a.txt the test fails: the candidate is what the test saw
        assert not oracle.check(tree.only(["b/c.txt"]).encode(), 0).interesting


def test_a_focused_oracle_puts_the_candidate_in_the_rest_of_the_tree(tmp_path: Path) -> None:
    tree = _tree()
    listing = tmp_path / "listing"
    argv = ["sh", "-c", 'grep -q bug "$1/a.txt" && ls -lR "$1" > "$0"', str(listing), "@@"]
    with tree_command(argv, Criteria(), tree, name="proj") as command:
        oracle = TreeOracle(command, tree, focus="a.txt")
        assert oracle.check(b"bug", 0).interesting
        assert "c.txt" in listing.read_text() and "rwxr-xr-x" in listing.read_text()
        assert not oracle.check(b"fine", 0).interesting
        pinned = tree.only(["a.txt"])
        files = TreeOracle(command, tree.only(["b/c.txt"]), pinned=pinned)
        assert files.check(b"", 0).interesting  # the pinned a.txt is always there


def test_a_tree_needs_at_at_in_the_command() -> None:
    with pytest.raises(ValueError, match="@@"):
        tree_command(["cat"], Criteria(), _tree(), name="proj")


def test_a_live_tree_takes_only_what_passed_in_the_tree_as_it_is() -> None:
    installed: list[FileTree] = []
    live = LiveTree(_tree(), installed.append)
    _, seen = live.snapshot()
    assert live.install("a.txt", b"bug\n", seen)  # nothing else changed since
    assert not live.install("a.txt", b"a bug here\n", seen)  # no progress over what it has
    assert live.install("a.txt", b"bug", seen)  # its own file changed, no other: still the tree
    assert not live.install("b/c.txt", b"o\n", seen)  # a.txt changed since b's test began
    _, now = live.snapshot()
    assert live.install("b/c.txt", b"o\n", now)
    assert [t.get("a.txt").data for t in installed] == [b"bug\n", b"bug", b"bug"]
    assert live.tree.get("b/c.txt").data == b"o\n" and live.tree.get("b/c.txt").mode == 0o755


def test_a_live_tree_oracle_installs_a_candidate_that_passed() -> None:
    tree = _tree()
    live = LiveTree(tree, lambda _t: None)

    def test(candidate: bytes) -> bool:
        return b"bug" in tree.decode(candidate).get("a.txt").data

    oracle = TreeOracle(CallableOracle(test), tree, focus="a.txt", live=live)
    assert not oracle.check(b"nothing\n").interesting
    assert live.tree == tree
    assert oracle.check(b"bug").interesting
    assert live.tree.get("a.txt").data == b"bug"
