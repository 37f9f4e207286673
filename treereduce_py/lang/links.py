"""Links between a tree's files (a file that names another), and the inlinings they offer.

A file that exactly one other file names (a C header one `#include` names, a Rust module one
`mod x;` declares, a Python or JavaScript module one import loads) can be pasted into that file
and its own file deleted: what C-Vise's include pass does for headers. Files reduced one at a
time cannot make that move, and it is what lets the user's reduction see the linked file's
definitions as its own. A file that nothing names any more needs no link: the file pass deletes
it anyway.

Each language finds its links (`Link`: who names what, and how to paste it in); `once` turns the
links of a tree into its inlinings. A link that cannot be inlined still counts as a use, so a
file named twice, once in a way no inlining handles, is not offered.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass

from treereduce_py.lang.filetree import FileTree


@dataclass(frozen=True)
class Link:
    """`user` names `target`; `inline` is the text of `user` with `target`'s text (its
    argument) pasted in its place, or None when this use cannot be inlined."""

    target: str
    user: str
    inline: Callable[[bytes], bytes] | None


@dataclass(frozen=True)
class Inlining:
    """`target` pasted into `user`: `tree` is the whole tree after it, without `target`."""

    target: str
    user: str
    tree: FileTree


def once(tree: FileTree, links: Iterable[Link], pinned: Collection[str] = ()) -> Iterator[Inlining]:
    """The inlining of each file, not pinned, that exactly one link of `links` names, in a file
    other than itself; the largest file first."""
    uses: dict[str, list[Link]] = {}
    for link in links:
        uses.setdefault(link.target, []).append(link)
    for target in sorted(uses, key=lambda t: (-len(tree.get(t).data), t)):
        (link, *more) = uses[target]
        if more or link.inline is None or target in pinned or link.user == target:
            continue
        rest = tree.only(p for p in tree.paths if p != target)
        yield Inlining(
            target, link.user, rest.with_data(link.user, link.inline(tree.get(target).data))
        )


def spliced(
    data: bytes, start: int, end: int, before: bytes = b"", after: bytes = b""
) -> Callable[[bytes], bytes]:
    """The `inline` of a link whose span `start:end` in `data` becomes `before`, the linked
    file's text (ending in a newline), then `after`."""

    def inline(body: bytes) -> bytes:
        if body and not body.endswith(b"\n"):
            body += b"\n"
        return data[:start] + before + body + after + data[end:]

    return inline
