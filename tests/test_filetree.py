"""lang/filetree.py: reading a directory, its refusals, and the records the file pass deletes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from treereduce_py.lang.filetree import BadTree, FileTree, TreeFile, file_table
from treereduce_py.lang.inputs import FILES, input_kind


def _project(root: Path) -> Path:
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pkg" / "main.py").write_text("import sub.util\nprint(1)\n")
    (root / "pkg" / "sub" / "util.py").write_text("X = 1\n")
    (root / "pkg" / "notes.txt").write_text("plain words\n")
    (root / "pkg" / "blob.bin").write_bytes(b"\x00\xff\x01")
    (root / "pkg" / "run.sh").write_text("#!/bin/sh\necho hi\n")
    os.chmod(root / "pkg" / "run.sh", 0o755)
    return root / "pkg"


def test_read_gives_relative_paths_sizes_and_kinds(tmp_path: Path) -> None:
    tree = FileTree.read(_project(tmp_path))
    assert tree.paths == ("blob.bin", "main.py", "notes.txt", "run.sh", "sub/util.py")
    kinds = {f.path: f.kind for f in tree.files}
    assert kinds == {
        "blob.bin": "bytes",
        "main.py": "python",
        "notes.txt": "text",
        "run.sh": "bash",
        "sub/util.py": "python",
    }
    assert tree.size == sum(p.stat().st_size for p in (tmp_path / "pkg").rglob("*") if p.is_file())
    assert tree.get("run.sh").mode & 0o111


def test_write_to_makes_the_same_files_with_their_modes(tmp_path: Path) -> None:
    tree = FileTree.read(_project(tmp_path))
    tree.write_to(tmp_path / "copy")
    assert FileTree.read(tmp_path / "copy") == tree


def test_refusals_name_the_problem(tmp_path: Path) -> None:
    (tmp_path / "empty" / "deeper").mkdir(parents=True)
    with pytest.raises(BadTree, match="no files to reduce"):
        FileTree.read(tmp_path / "empty")
    loop = tmp_path / "loop"
    loop.mkdir()
    (loop / "a.c").write_text("int x;\n")
    os.symlink("b", loop / "a")
    os.symlink("a", loop / "b")
    with pytest.raises(BadTree, match="symlink loop"):
        FileTree.read(loop)
    out = tmp_path / "out"
    out.mkdir()
    (out / "a.c").write_text("int x;\n")
    os.symlink("/etc/hostname", out / "host")
    with pytest.raises(BadTree, match="symlink out of the tree"):
        FileTree.read(out)


def test_a_fifo_is_refused_not_read(tmp_path: Path) -> None:
    root = _project(tmp_path)
    os.mkfifo(root / "pipe")
    with pytest.raises(BadTree, match=r"not a regular file: .*pipe"):
        FileTree.read(root)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_file_is_refused(tmp_path: Path) -> None:
    root = _project(tmp_path)
    os.chmod(root / "notes.txt", 0)
    with pytest.raises(BadTree, match=r"cannot read .*notes\.txt"):
        FileTree.read(root)


def test_a_link_inside_the_tree_is_read_as_its_file(tmp_path: Path) -> None:
    root = _project(tmp_path)
    os.symlink("main.py", root / "alias.py")
    tree = FileTree.read(root)
    assert tree.get("alias.py").data == tree.get("main.py").data


def test_records_are_leaves_whose_deletion_drops_whole_files(tmp_path: Path) -> None:
    tree = FileTree.read(_project(tmp_path))
    data = tree.encode()
    table = file_table(data)
    assert input_kind("files") is FILES
    leaves = [(table.start[i], table.end[i]) for i in range(1, len(table))]
    assert len(leaves) == len(tree.files)
    # each leaf's size grows with its file's, so the largest file is the largest deletion
    for (s, e), f in zip(leaves, tree.files, strict=True):
        assert e - s > len(f.data)
    s, e = leaves[1]
    assert tree.decode(data[:s] + data[e:]).paths == tuple(p for p in tree.paths if p != "main.py")


@given(st.lists(st.tuples(st.text(min_size=1), st.binary()), unique_by=lambda t: t[0]))
def test_decode_of_encode_is_the_tree(items: list[tuple[str, bytes]]) -> None:
    tree = FileTree(tuple(TreeFile(p.replace("\0", "_"), d) for p, d in items))
    assume(len({f.path for f in tree.files}) == len(tree.files))
    assert tree.decode(tree.encode()) == tree
    table = file_table(tree.encode())
    assert len(table) == len(tree.files) + 1
