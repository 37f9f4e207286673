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
from itertools import accumulate

from treereduce_py.lang.syntax import NodeTable


@dataclass(frozen=True)
class Edits:
    """Node index -> replacement bytes, on disjoint subtrees."""

    replacements: Mapping[int, bytes] = field(default_factory=dict)
    # Sorted edited node indices (pre-order), kept in step with `replacements`.
    order: tuple[int, ...] = ()
    # The length change of each edit in `order` (replacement minus span), for `shifts`.
    changes: tuple[int, ...] = ()

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
        changes: list[int] = []
        pos = 0
        for i, text in fresh:
            lo = bisect_left(order, i, pos)
            hi = bisect_right(order, table.last[i], lo)
            merged.extend(order[pos:lo])
            changes.extend(self.changes[pos:lo])
            for j in order[lo:hi]:
                del repl[j]
            merged.append(i)
            changes.append(len(text) - (table.end[i] - table.start[i]))
            repl[i] = text
            pos = hi
        merged.extend(order[pos:])
        changes.extend(self.changes[pos:])
        return Edits(repl, tuple(merged), tuple(changes))

    def with_edit(self, table: NodeTable, i: int, text: bytes) -> Edits | None:
        return self.with_edits(table, [(i, text)])

    def applies(self, table: NodeTable, new: Iterable[tuple[int, bytes]]) -> bool:
        """Would `with_edits(table, new)` take these pairs (no new node inside an edited
        subtree; a new node inside another new one is not looked at)? Without building them."""
        reach = -1
        for i in sorted(dict(new)):
            if i <= reach:
                continue
            if self._covered(table, self.order, i):
                return False
            reach = table.last[i]
        return True

    @staticmethod
    def _covered(table: NodeTable, order: Sequence[int], i: int) -> bool:
        k = bisect_right(order, i) - 1
        return k >= 0 and table.contains(order[k], i)


def render(table: NodeTable, edits: Edits, node: int = 0) -> bytes:
    """The text of `node`'s subtree (by default the whole source) with the edits applied."""
    if node in edits.replacements:
        return edits.replacements[node]
    src = memoryview(table.source)  # slices share the source: the join is the one copy
    lo, hi = (0, len(src)) if node == 0 else (table.start[node], table.end[node])
    parts: list[bytes | memoryview] = []
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


# Building candidates from a committed state's text ------------------------------------------
#
# `render` sweeps every edit of the pass: at 10 MB, after a chunk of ten thousand deletions, that
# is a Python loop of ten thousand steps and a copy of the file for each candidate. A candidate is
# a committed state plus a task, so it is built instead from the state's text and the few spans
# the task changes in it: `spans_since` maps the task's nodes into the state's text through the
# prefix sums of its edits' length changes (`shifts`), and `apply` copies the unchanged stretches
# once. The syntax check reuses the same spans to edit the state's parse tree.

Span = tuple[int, int, bytes]  # (start, end, replacement) in some state's text


def shifts(edits: Edits) -> list[int]:
    """Prefix sums of the edits' length changes: `shifts[k]` for the first k edits in order.
    An offset of the pass's text that follows k edits lies at offset + shifts[k] after them."""
    return [0, *accumulate(edits.changes)]


def spans_since(
    table: NodeTable, base: Edits, base_shifts: Sequence[int], new: Iterable[tuple[int, bytes]]
) -> list[Span]:
    """What `base.with_edits(table, new)` changes, as spans of the base's text: sorted and
    disjoint, a new node inside another new one dropped, base edits inside a new node replaced
    with it. Call it only when `with_edits` did not refuse (no new node inside a base edit)."""
    order, start, end, last = base.order, table.start, table.end, table.last
    out: list[Span] = []
    reach = -1  # the last node covered by the new edits taken so far
    for i, text in sorted(dict(new).items()):
        if i <= reach:
            continue
        reach = last[i]
        k = bisect_left(order, i)
        j = bisect_right(order, reach, k)
        _add_span(out, start[i] + base_shifts[k], end[i] + base_shifts[j], text)
    return out


def diff(
    table: NodeTable, base: Edits, base_shifts: Sequence[int], new: Edits
) -> list[Span] | None:
    """What turns the base's text into the text of `new`, as spans of the base's text; None when
    `new` does not extend `base` (some edit of `base` is neither in `new` nor inside one of its
    edits). Linear in the edits: for merges, which apply several tasks."""
    had, had_repl, repl = base.order, base.replacements, new.replacements
    start, end, last = table.start, table.end, table.last
    out: list[Span] = []
    j, n = 0, len(had)
    for i in new.order:
        if j < n and had[j] < i:
            return None
        if j < n and had[j] == i and had_repl[i] == repl[i]:
            j += 1
            continue
        k = j
        while j < n and had[j] <= last[i]:
            j += 1
        _add_span(out, start[i] + base_shifts[k], end[i] + base_shifts[j], repl[i])
    return out if j == n else None


def _add_span(out: list[Span], s: int, e: int, text: bytes) -> None:
    # As `render` does: a node starting before the previous end (zero-width) is cut from there.
    if out and s < out[-1][1]:
        s = out[-1][1]
    out.append((s, max(s, e), text))


def apply(text: bytes, spans: Sequence[Span]) -> bytes:
    """`text` with each span replaced: one copy of the unchanged stretches."""
    if not spans:
        return text
    view = memoryview(text)
    parts: list[bytes | memoryview] = []
    pos = 0
    for s, e, replacement in spans:
        parts.append(view[pos:s])
        parts.append(replacement)
        pos = e
    parts.append(view[pos:])
    return b"".join(parts)
