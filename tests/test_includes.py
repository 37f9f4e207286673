"""lang/includes.py: quoted includes in a tree, and the inlining of a header included once."""

from __future__ import annotations

from treereduce_py.lang.filetree import FileTree, TreeFile
from treereduce_py.lang.includes import links
from treereduce_py.lang.link_finders import inlinings


def _tree() -> FileTree:
    return FileTree(
        (
            TreeFile(
                "main.c",
                b'#include "inc/a.h"\n#include "b.h"\n#include <stdio.h>\nint m;\n',
                kind="c",
            ),
            TreeFile("inc/a.h", b'#include "c.h"\nint a;', kind="c"),
            TreeFile("inc/c.h", b"int c;\n", kind="c"),
            TreeFile("b.h", b"int b;\n", kind="c"),
            TreeFile("other.c", b'#include "b.h"\n', kind="c"),
            TreeFile("notes.txt", b'#include "inc/c.h"\n'),
        )
    )


def test_includes_resolve_beside_the_includer_then_at_the_root() -> None:
    found = [(link.target, link.user) for link in links(_tree())]
    assert sorted(found) == [
        ("b.h", "main.c"),
        ("b.h", "other.c"),
        ("inc/a.h", "main.c"),
        ("inc/c.h", "inc/a.h"),  # the text file is no C
    ]


def test_a_header_included_once_is_inlined_where_its_directive_was() -> None:
    tree = _tree()
    offers = {i.target: i for i in inlinings(tree)}
    assert sorted(offers) == ["inc/a.h", "inc/c.h"]  # b.h is included twice
    inlined = offers["inc/a.h"]
    assert inlined.user == "main.c" and "inc/a.h" not in inlined.tree.paths
    assert inlined.tree.get("main.c").data.startswith(b'#include "c.h"\nint a;\n#include "b.h"\n')
    size = tree.size - len(b'#include "inc/a.h"\n') + 1  # the newline a.h lacked
    assert inlined.tree.size == size
    assert not list(inlinings(tree, pinned=["inc/a.h", "inc/c.h"]))
