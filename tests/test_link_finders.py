"""lang/link_finders.py: the inlinings of a whole tree, every language's links at once."""

from __future__ import annotations

from treereduce_py.lang.filetree import FileTree, TreeFile
from treereduce_py.lang.link_finders import FINDERS, inlinings


def test_each_language_links_and_the_largest_file_goes_first() -> None:
    tree = FileTree(
        (
            TreeFile("main.c", b'#include "h.h"\n', kind="c"),
            TreeFile("h.h", b"int h;\n" * 4, kind="c"),
            TreeFile("main.rs", b"mod a;\n", kind="rust"),
            TreeFile("a.rs", b"fn a() {}\n" * 2, kind="rust"),
            TreeFile("main.py", b"from m import x\n", kind="python"),
            TreeFile("m.py", b"x = 1\n" * 8, kind="python"),
            TreeFile("main.js", b"require('./j');\n", kind="javascript"),
            TreeFile("j.js", b"f();\n", kind="javascript"),
        )
    )
    assert len(FINDERS) == 4
    offers = [(i.target, i.user) for i in inlinings(tree)]
    assert offers == [
        ("m.py", "main.py"),
        ("h.h", "main.c"),
        ("a.rs", "main.rs"),
        ("j.js", "main.js"),
    ]
    assert [i.target for i in inlinings(tree, pinned=["m.py", "j.js"])] == ["h.h", "a.rs"]
