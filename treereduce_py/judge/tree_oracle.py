"""A directory's test: each worker's run sees its own private copy of the tree, never the user's.

A directory is reduced in parts (run/directory.py): first its file list (the candidate is the
records of the files kept, lang/filetree.py), then each file's bytes with every other file as it
is now (files reduced at once share a `LiveTree`, into which what passed is installed). Either
way the test needs the whole tree, so `TreeOracle` turns a candidate into the full tree it
stands for and asks the command oracle under it, whose runner writes that tree into the
worker's directory under the input's own name (`@@` names the copy's root; judge/process.py's
`place` hook) and empties the directory after the run. So what a test creates in its copy is
gone before the next run, and a result is made only of the candidate's files.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from treereduce_py.edit.order import smaller
from treereduce_py.judge.oracle import CommandOracle, Criteria, Oracle, Verdict, Wrapped
from treereduce_py.lang.filetree import FileTree


class PlaceTree:
    """Writes the tree a candidate encodes (records of `tree`'s files) at a path (a `Place`:
    judge/process.py; on a Dask worker too, judge/cluster.py)."""

    def __init__(self, tree: FileTree) -> None:
        self.tree = tree

    def __call__(self, path: Path, candidate: bytes) -> None:
        self.tree.decode(candidate).write_to(path)


def tree_command(
    argv: Sequence[str],
    criteria: Criteria,
    tree: FileTree,
    *,
    name: str,
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
) -> CommandOracle:
    """The command oracle of a test on `tree` (a run's candidates are its encoded subtrees), the
    copy named `name` in the worker's directory. Raises ValueError when `argv` has no ``@@``."""
    return CommandOracle(
        argv, criteria, timeout=timeout, input_name=name, env=env, place=PlaceTree(tree)
    )


NO_FILES = FileTree(())


class LiveTree:
    """The tree that files reduced at once share: each file's part tests its candidate in the
    tree as it is when the test starts, and a candidate that passed is *installed* (the tree
    takes it) only if no other file changed meanwhile, so the tree is always one that passed
    the test (the one a part's test saw). A part whose success came too late keeps it in its
    own state, and the tree gets it with that part's next success (or its final re-test).
    `installed` is called with each new tree, under the lock (in order)."""

    def __init__(self, tree: FileTree, installed: Callable[[FileTree], None]) -> None:
        self.tree = tree
        self.installed = installed
        self.version = 0
        self.changed: dict[str, int] = {}  # path -> the version that last changed it
        self.lock = threading.Lock()

    def snapshot(self) -> tuple[FileTree, int]:
        with self.lock:
            return self.tree, self.version

    def install(self, path: str, data: bytes, seen: int) -> bool:
        """Put `data`, which passed in the tree of version `seen`, as file `path`: only if no
        other file changed since that version and `data` is progress over the file now (shorter,
        or as long and smaller: edit/order.py)."""
        with self.lock:
            if any(v > seen for p, v in self.changed.items() if p != path):
                return False
            if not smaller(data, self.tree.get(path).data):
                return False
            self.tree = self.tree.with_data(path, data)
            self.version += 1
            self.changed[path] = self.version
            self.installed(self.tree)
            return True


class TreeOracle(Wrapped):
    """`oracle` (a `tree_command`) asked about the tree a candidate stands for.

    With `focus` None a candidate is the records of some of `tree`'s files (the file pass), to
    which the `pinned` files are added; with `focus` a path, a candidate is that file's bytes in
    `tree`, every other file as it is, or with `live` in the live tree as it is when the test
    starts, into which a candidate that passed is installed. Closing it closes nothing: the
    command oracle outlives the parts of a directory's reduction."""

    def __init__(
        self,
        oracle: Oracle,
        tree: FileTree,
        *,
        focus: str | None = None,
        pinned: FileTree = NO_FILES,
        live: LiveTree | None = None,
    ) -> None:
        super().__init__(oracle)
        self.tree = tree
        self.focus = focus
        self.pinned = pinned
        self.live = live
        assert live is None or focus is not None

    def full_tree(self, candidate: bytes) -> FileTree:
        """The whole tree `candidate` stands for."""
        if self.focus is not None:
            return self.tree.with_data(self.focus, candidate)
        return self.pinned.union(self.tree.decode(candidate))

    def check(
        self,
        candidate: bytes,
        worker: int = 0,
        *,
        timeout: float | None = None,
        capture: bool = False,
    ) -> Verdict:
        if self.live is None or self.focus is None:
            full = self.full_tree(candidate).encode()
            return self.oracle.check(full, worker, timeout=timeout, capture=capture)
        tree, seen = self.live.snapshot()
        full = tree.with_data(self.focus, candidate).encode()
        verdict = self.oracle.check(full, worker, timeout=timeout, capture=capture)
        if verdict.interesting:
            self.live.install(self.focus, candidate, seen)
        return verdict

    def close(self) -> None:
        """The command oracle is the caller's to close."""
