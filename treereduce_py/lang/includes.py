"""C and C++ `#include "x.h"` links between a tree's files (lang/links.py).

A header that one file includes, and only one, can take the place of its `#include` line: the
header's file goes, the includer holds its text where the directive was, and the tree is smaller
by the directive. An include names a file of the tree relative to the includer's directory, else
to the tree's root (a `-I.` build); system headers (`<...>`) and names outside the tree are not
links.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from treereduce_py.lang.filetree import FileTree
from treereduce_py.lang.links import Link, spliced

# The kinds whose files are read for quoted includes (languages.detect_kind's names).
C_KINDS = frozenset({"c", "cpp", "cuda", "objc"})
_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"[^\n]*\n?', re.MULTILINE)


def links(tree: FileTree, name: str = "") -> Iterator[Link]:
    """Each quoted include in the tree's C files that names one of its files (`name`: unused)."""
    paths = set(tree.paths)
    for f in tree.files:
        if f.kind not in C_KINDS:
            continue
        for m in _INCLUDE.finditer(f.data):
            name = m.group(1).decode("utf-8", "surrogateescape")
            near = posixpath.normpath(posixpath.join(posixpath.dirname(f.path), name))
            target = near if near in paths else posixpath.normpath(name)
            if target in paths:
                yield Link(target, f.path, spliced(f.data, m.start(), m.end()))
