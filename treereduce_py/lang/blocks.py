"""A huge list's items grouped into blocks, so that a deletion names a few nodes, not thousands.

The coarse table of a huge input (pieces.py, lineitems.py) is its root and its top-level items: a
million of them at 100 MB. A chunk of a list reduction over them names half a million nodes,
and building each candidate (the edits' union, its spans, the separators) is linear in them: at
10 MB of C, 11 s of the reducer's CPU over the coarse pass's hundred candidates, more than the
tests took. So runs of at most BLOCK items are grouped under a block
(syntax.BLOCK_KIND, a kind no grammar has), runs of blocks under blocks, up to the root: no node
has more than BLOCK children, a chunk names at most BLOCK nodes, and the list reductions go down
the levels as over any tree. A block is deleted whole or explored; it is never hoisted, nor a
hoist (transform/hoists.py).
"""

from __future__ import annotations

from treereduce_py.lang.syntax import BLOCK_KIND, NodeTable

# Most children a node of the table has: longer runs of items are grouped into blocks.
BLOCK = 64

Row = tuple[int, int, int, bool]  # start, end, kind id, named: an item's row in the table


def table(
    text: bytes,
    rows: list[Row],
    root_kind: int,
    names: tuple[str, ...],
    errors: int = 0,
    separated: bool = False,
) -> NodeTable:
    """The root of `text` over its items `rows`, grouped into blocks of at most BLOCK items
    (syntax.BLOCK_KIND; blocks of blocks where there are more than BLOCK of those), so that a
    node never has more than BLOCK children: a chunk of a list reduction over them names at
    most BLOCK nodes, not half of the items. A block spans its first item's start to its last
    one's end, so deleting it takes the gaps between its items too. `separated`: some items are
    separators (`;`), so the nodes over them are lists (NodeTable.lists)."""
    start, end, kind, named = [0], [len(text)], [root_kind], bytearray([1])
    parent, depth = [-1], [0]
    lists: set[int] = set()

    def row(s: int, e: int, k: int, nm: bool, up: int, level: int) -> None:
        start.append(s)
        end.append(e)
        kind.append(k)
        named.append(nm)
        parent.append(up)
        depth.append(level)

    def add(lo: int, hi: int, up: int, level: int) -> None:
        """Rows lo..hi-1 as the children of row `up` (at depth `level`), blocked if need be."""
        if hi - lo <= BLOCK:
            for s, e, k, nm in rows[lo:hi]:
                row(s, e, k, nm, up, level)
            if separated:
                lists.add(up)
            return
        width = BLOCK
        while width * BLOCK < hi - lo:
            width *= BLOCK
        for a in range(lo, hi, width):
            b = min(a + width, hi)
            block = len(start)
            row(rows[a][0], rows[b - 1][1], BLOCK_KIND, True, up, level)
            add(a, b, block, level + 1)

    add(0, len(rows), 0, 1)
    return NodeTable.from_preorder(
        text, start, end, kind, bytes(named), parent, depth, names,
        errors=errors, lists=frozenset(lists),
    )  # fmt: skip
