"""C and C++ `#include "x.h"` links between a tree's files, and the inlinings they offer.

A header that one file includes, and only one, can take the place of its `#include` line (what
C-Vise's include pass does): the header's file goes, the includer holds its text where the
directive was, and the tree is smaller by the directive. Files reduced one at a time cannot make
that move, and it is what lets the includer's reduction see the header's declarations as its
own. A header nothing includes any more needs no link: the file pass deletes it anyway.

An include names a file of the tree relative to the includer's directory, else to the tree's
root (a `-I.` build); system headers (`<...>`) and names outside the tree are not links.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection, Iterator

from treereduce_py.lang.filetree import FileTree

# The kinds whose files are read for quoted includes (languages.detect_kind's names).
C_KINDS = frozenset({"c", "cpp", "cuda", "objc"})
_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"[^\n]*\n?', re.MULTILINE)


def includes(tree: FileTree) -> dict[str, list[tuple[str, int, int]]]:
    """Header path → each (includer, start, end) of a directive that names it in the tree."""
    paths = set(tree.paths)
    found: dict[str, list[tuple[str, int, int]]] = {}
    for f in tree.files:
        if f.kind not in C_KINDS:
            continue
        for m in _INCLUDE.finditer(f.data):
            name = m.group(1).decode("utf-8", "surrogateescape")
            near = posixpath.normpath(posixpath.join(posixpath.dirname(f.path), name))
            target = near if near in paths else posixpath.normpath(name)
            if target in paths and target != f.path:
                found.setdefault(target, []).append((f.path, m.start(), m.end()))
    return found


def inlinings(tree: FileTree, pinned: Collection[str] = ()) -> Iterator[tuple[str, str, FileTree]]:
    """(header, includer, the tree with the header inlined) for each header, not pinned, that
    exactly one directive in the tree includes; the largest header first."""
    links = sorted(includes(tree).items(), key=lambda item: -len(tree.get(item[0]).data))
    for header, uses in links:
        if len(uses) != 1 or header in pinned:
            continue
        includer, start, end = uses[0]
        body = tree.get(header).data
        if body and not body.endswith(b"\n"):
            body += b"\n"
        data = tree.get(includer).data
        rest = tree.only(p for p in tree.paths if p != header)
        yield header, includer, rest.with_data(includer, data[:start] + body + data[end:])
