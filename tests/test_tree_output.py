"""engine/tree_output.py: the output directory is always one whole tree."""

from __future__ import annotations

from pathlib import Path

import pytest

from treereduce_py.engine.output import OutputError
from treereduce_py.engine.tree_output import TreeOutput, write_tree
from treereduce_py.lang.filetree import FileTree, TreeFile


def _tree(*names: str) -> FileTree:
    return FileTree(tuple(TreeFile(n, n.encode()) for n in names))


def test_write_tree_makes_then_replaces_the_output_whole(tmp_path: Path) -> None:
    out = tmp_path / "out"
    write_tree(out, _tree("a.c", "inc/b.h"))
    assert FileTree.read(out).paths == ("a.c", "inc/b.h")
    (out / "stray").write_text("left by someone")
    write_tree(out, _tree("a.c"))
    assert FileTree.read(out).paths == ("a.c",)  # the old tree is gone, stray file and all
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no temporary left


def test_a_failed_write_leaves_the_old_output(tmp_path: Path) -> None:
    output = TreeOutput(tmp_path / "out")
    output.offer(_tree("a", "b"))
    with pytest.raises(OutputError, match="cannot write"):
        output.offer(_tree("x", "x/y"))  # a file and a directory of one name: cannot be made
    assert FileTree.read(tmp_path / "out").paths == ("a", "b")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_an_output_that_was_a_file_becomes_the_tree(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.write_text("an old file, replaced only because the caller was told to (--force)")
    write_tree(out, _tree("a.c"))
    assert FileTree.read(out).paths == ("a.c",)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
