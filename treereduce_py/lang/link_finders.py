"""Which module finds each language's links, and the inlinings a whole tree offers.

The directory session asks this module, and no language's, for the inlinings of its tree: one
`once` (lang/links.py) over the links every finder reports, so a file named exactly once is
offered whatever its language, the largest first across all of them. A language's links are
one function in a small module of its own, `links(tree, name) -> Iterable[Link]` (`name`: the
tree's folder, as the test's copy is named); adding a language is that module and one line in
`FINDERS`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Iterable, Iterator

from treereduce_py.lang import includes, js_imports, py_imports, rust_mods
from treereduce_py.lang.filetree import FileTree
from treereduce_py.lang.links import Inlining, Link, once

LinkFinder = Callable[[FileTree, str], Iterable[Link]]

FINDERS: dict[str, LinkFinder] = {
    "c includes": includes.links,
    "rust mods": rust_mods.links,
    "python imports": py_imports.links,
    "javascript imports": js_imports.links,
}


def inlinings(tree: FileTree, pinned: Collection[str] = (), name: str = "") -> Iterator[Inlining]:
    """Each file of `tree`, not pinned, that exactly one link names, pasted where it is named;
    the largest first."""
    found = itertools.chain.from_iterable(find(tree, name) for find in FINDERS.values())
    return once(tree, found, pinned)
