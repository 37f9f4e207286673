"""An immutable set of edits to a node table, and rendering it back to bytes.

An edit replaces the text of one node's subtree (deleting it is replacing it by `b""`). Edits are
kept on disjoint subtrees: adding an edit on a node drops the edits inside it, and an edit on a
node already inside an edited subtree is refused. With that invariant, rendering is one sweep
over the sorted edited nodes, and "is this node still there" is one bisection.

Values are never mutated: a worker builds its candidate with `with_edit`, which returns a new
`Edits` sharing nothing mutable with the global one, so the engine can snapshot the global state
and commit optimistically (a snapshot is current while it is the same object).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from treereduce_py.syntax import NodeTable


@dataclass(frozen=True)
class Edits:
    """Node index -> replacement bytes, on disjoint subtrees."""

    replacements: Mapping[int, bytes] = field(default_factory=dict)
    # Sorted edited node indices (pre-order), kept in step with `replacements`.
    order: tuple[int, ...] = ()

    def __len__(self) -> int:
        return len(self.order)

    def covering(self, table: NodeTable, i: int) -> int | None:
        """The edited node whose subtree contains `i`, if any."""
        k = bisect_right(self.order, i) - 1
        if k >= 0 and table.contains(self.order[k], i):
            return self.order[k]
        return None

    def is_live(self, table: NodeTable, i: int) -> bool:
        """True when node `i` is untouched by the edits (neither it nor an ancestor edited)."""
        return self.covering(table, i) is None

    def with_edits(self, table: NodeTable, new: Iterable[tuple[int, bytes]]) -> Edits | None:
        """These edits plus `new` (node, replacement) pairs, as a new value.

        Returns None when some new node lies inside an already edited subtree: that task no
        longer applies to these edits. Existing edits inside a newly edited node are dropped, and
        so is a new node inside another new node. Linear in the edits plus m log m in the new ones,
        so a chunk of thousands of lines costs no more than rendering it.
        """
        order = self.order
        fresh: list[tuple[int, bytes]] = []
        reach = -1  # the last node covered by the new edits accepted so far
        for i, text in sorted(dict(new).items()):
            if i <= reach:
                continue
            if self._covered(table, order, i):
                return None
            fresh.append((i, text))
            reach = table.last[i]
        repl = dict(self.replacements)
        merged: list[int] = []
        pos = 0
        for i, text in fresh:
            lo = bisect_left(order, i, pos)
            hi = bisect_right(order, table.last[i], lo)
            merged.extend(order[pos:lo])
            for j in order[lo:hi]:
                del repl[j]
            merged.append(i)
            repl[i] = text
            pos = hi
        merged.extend(order[pos:])
        return Edits(repl, tuple(merged))

    def with_edit(self, table: NodeTable, i: int, text: bytes) -> Edits | None:
        return self.with_edits(table, [(i, text)])

    @staticmethod
    def _covered(table: NodeTable, order: Sequence[int], i: int) -> bool:
        k = bisect_right(order, i) - 1
        return k >= 0 and table.contains(order[k], i)


def render(table: NodeTable, edits: Edits, node: int = 0) -> bytes:
    """The text of `node`'s subtree (by default the whole source) with the edits applied."""
    if node in edits.replacements:
        return edits.replacements[node]
    src = table.source
    lo, hi = (0, len(src)) if node == 0 else (table.start[node], table.end[node])
    parts: list[bytes] = []
    pos = lo
    first = bisect_left(edits.order, node)
    last = bisect_right(edits.order, table.last[node])
    for i in edits.order[first:last]:
        s, e = table.start[i], table.end[i]
        if s < pos:  # a zero-width or overlapping node already passed: nothing left to cut
            s = pos
        parts.append(src[pos:s])
        parts.append(edits.replacements[i])
        pos = max(pos, e)
    parts.append(src[pos:hi])
    return b"".join(parts)
