"""Bytes toward zero: a binary input's chunk that cannot go may still become zeros, or a byte a
smaller value.

Deleting bytes from a binary shifts everything after them, which breaks any offset or length the
format records; overwriting them in place does not. Where deleting a chunk failed, its bytes as
they stand are offered as that many zero bytes: as long, and smaller in the progress order
(edit/order.py), so it is progress when the test still passes. A zeroed field is one a reader did
not need (a timestamp, a comment, padding, data no checksum covers), and the next passes may find
it deletable. Only for the bytes front end: nothing is decoded, and a chunk already all zeros
gives the text it had, which the engine drops without a test.

A byte that cannot be zero may still be smaller (Shrink Ray lowers bytes too): a single byte
whose zeroing failed is offered the values from 1 up, the next one when one fails, until one
passes or none below its own is left. A format that packs fields into bits (a deflate block's
first byte says whether its Huffman tables follow) can then take a simpler field: a gzip file
stuck at 101 bytes, where no deletion or zeroing kept its CRC error, went on to 21 bytes once
its first deflate byte went from 0xed to 0x23. That costs up to 255 tests a byte, so the session
gives the pass a budget of them (`Lowering`), and only in the round of same-length moves: a
share of the run's time, over all its passes (Session.lowering).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from treereduce_py.edit.edits import Edits, render
from treereduce_py.edit.tasks import Pairs, Task
from treereduce_py.lang.syntax import NodeTable


class Lowering:
    """How many byte values one pass may still try (`Lower` tasks); thread-safe."""

    def __init__(self, tests: int) -> None:
        self.tests = tests
        self.left = tests
        self._lock = threading.Lock()

    @property
    def spent(self) -> int:
        return self.tests - self.left

    def take(self) -> bool:
        """One more try, if the budget allows it."""
        with self._lock:
            if self.left <= 0:
                return False
            self.left -= 1
            return True


@dataclass(frozen=True)
class Zero(Task):
    """Overwrite a chunk's current bytes with as many zero bytes."""

    node: int
    lowering: Lowering | None = field(default=None, compare=False, repr=False)

    def replacements(self, table: NodeTable, edits: Edits) -> Pairs | None:
        if not edits.is_live(table, self.node):
            return None
        return [(self.node, bytes(len(render(table, edits, self.node))))]

    def edited(self) -> tuple[int, ...]:
        return (self.node,)

    def gain(self, table: NodeTable) -> int:
        return 0

    def failed(self, table: NodeTable) -> Sequence[Task]:
        """What to try when zeroing failed: a single byte's smallest value but zero."""
        return _lower(table, self.node, 1, self.lowering)


@dataclass(frozen=True)
class Lower(Task):
    """Overwrite a single byte with `value` (from 1 up: zero is `Zero`'s), when that is smaller
    than the byte as it stands."""

    node: int
    value: int
    lowering: Lowering | None = field(default=None, compare=False, repr=False)

    def replacements(self, table: NodeTable, edits: Edits) -> Pairs | None:
        if not edits.is_live(table, self.node):
            return None
        now = render(table, edits, self.node)
        if len(now) != 1 or now[0] <= self.value:
            return None  # another edit made it as small already: nothing of this is left
        return [(self.node, bytes((self.value,)))]

    def edited(self) -> tuple[int, ...]:
        return (self.node,)

    def gain(self, table: NodeTable) -> int:
        return 0

    def failed(self, table: NodeTable) -> Sequence[Task]:
        """The next value, while it is below the byte's own and the budget lasts."""
        return _lower(table, self.node, self.value + 1, self.lowering)


def _lower(table: NodeTable, node: int, value: int, lowering: Lowering | None) -> list[Task]:
    """`Lower(node, value)` if `node` is a single byte above `value` and `lowering` allows one more
    try (the text of the pass: a byte an edit of it changed is checked by `Lower` itself)."""
    if lowering is None or table.end[node] - table.start[node] != 1:
        return []
    if table.source[table.start[node]] <= value or not lowering.take():
        return []
    return [Lower(node, value, lowering)]


@dataclass(frozen=True)
class Zeroes:
    """The offer of the bytes front end's tree planner: each chunk's zeroing, after its deletion,
    and with a `lowering` budget, the values of a single byte after its zeroing."""

    table: NodeTable
    lowering: Lowering | None = None

    def alternatives(self, node: int) -> Sequence[Task]:
        t = self.table
        if node == 0 or not t.source[t.start[node] : t.end[node]].strip(b"\0"):
            return []
        return [Zero(node, self.lowering)]

    def exploring(self, node: int) -> Sequence[Task]:
        return ()

    def initial(self) -> Sequence[Task]:
        return ()
