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

from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass

import tree_sitter

from treereduce_py.lang import languages
from treereduce_py.lang.filetree import FileTree, TreeFile


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
    data: bytes,
    start: int,
    end: int,
    before: bytes = b"",
    after: bytes = b"",
    also: Sequence[tuple[int, int, bytes]] = (),
) -> Callable[[bytes], bytes]:
    """The `inline` of a link whose span `start:end` in `data` becomes `before`, the linked
    file's text (ending in a newline), then `after`; each span of `also` (disjoint from it and
    from each other) becomes its bytes."""

    def inline(body: bytes) -> bytes:
        if body and not body.endswith(b"\n"):
            body += b"\n"
        out, at = [], 0
        for s, e, text in sorted([(start, end, before + body + after), *also]):
            out += [data[at:s], text]
            at = e
        return b"".join([*out, data[at:]])

    return inline


def parsed(tree: FileTree, kind: str) -> Iterator[tuple[TreeFile, tree_sitter.Node]]:
    """Each file of the tree read as `kind` (a grammar's name), with its parse's root."""
    parser = languages.new_parser(kind)
    for f in tree.files:
        if f.kind == kind:
            yield f, parser.parse(f.data).root_node


# The nodes that may name a module: JavaScript's `{x}` is `{x: x}`.
_NAMES = frozenset({"identifier", "shorthand_property_identifier"})


def own_line(data: bytes, stmt: tree_sitter.Node) -> int | None:
    """The end of the line `stmt` fills (after its newline), or None when the line holds more."""
    end = data.find(b"\n", stmt.end_byte)
    end = len(data) if end < 0 else end + 1
    if stmt.start_point[1] != 0 or data[stmt.end_byte : end].strip():
        return None
    return end


def text_of(node: tree_sitter.Node, field: str) -> bytes:
    """The text of `node`'s child `field` (empty when there is none)."""
    child = node.child_by_field_name(field)
    return (child.text or b"") if child is not None else b""


def member_uses(
    root: tree_sitter.Node,
    skip: tree_sitter.Node,
    name: bytes,
    member: str,
    field: str,
    other_names: Collection[str] = (),
) -> list[tuple[int, int, bytes]] | None:
    """Each `name.attr` (a `member` node whose `object` is the identifier `name`) under `root`
    and outside `skip`, as (start, end, `attr`: its `field`); None when `name` is used in
    another way. An identifier `name` under a node of a type in `other_names` is another name
    (Python's `o.name`, `f(name=...)`), unless it is that node's `value`."""
    uses = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node == skip:
            continue
        stack.extend(node.named_children)
        if node.type not in _NAMES or node.text != name or node.parent is None:
            continue
        parent = node.parent
        if parent.type == member and parent.child_by_field_name("object") == node:
            uses.append((parent.start_byte, parent.end_byte, text_of(parent, field)))
        elif parent.type not in other_names or parent.child_by_field_name("value") == node:
            return None  # a use of the module as a value
    return uses
