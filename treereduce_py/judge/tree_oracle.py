"""A directory's test: each worker's run sees its own private copy of the tree, never the user's.

A directory is reduced one part at a time (run/directory.py): first its file list (the candidate
is the records of the files kept, lang/filetree.py), then one file's bytes with every other file
as it is now. Either way the test needs the whole tree, so `TreeOracle` turns a candidate into
the full tree it stands for and asks the command oracle under it, whose runner writes that tree
into the worker's directory under the input's own name (`@@` names the copy's root; judge/
process.py's `place` hook) and empties the directory after the run. So what a test creates in
its copy is gone before the next run, and a result is made only of the candidate's files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

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


class TreeOracle(Wrapped):
    """`oracle` (a `tree_command`) asked about the tree a candidate stands for.

    With `focus` None a candidate is the records of some of `tree`'s files (the file pass), to
    which the `pinned` files are added; with `focus` a path, a candidate is that file's bytes in
    `tree`, every other file as it is. Closing it closes nothing: the command oracle outlives
    the parts of a directory's reduction."""

    def __init__(
        self,
        oracle: Oracle,
        tree: FileTree,
        *,
        focus: str | None = None,
        pinned: FileTree = NO_FILES,
    ) -> None:
        super().__init__(oracle)
        self.tree = tree
        self.focus = focus
        self.pinned = pinned

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
        full = self.full_tree(candidate).encode()
        return self.oracle.check(full, worker, timeout=timeout, capture=capture)

    def close(self) -> None:
        """The command oracle is the caller's to close."""
