"""Bytes toward zero: a binary input's chunk that cannot go may still become zeros.

Deleting bytes from a binary shifts everything after them, which breaks any offset or length the
format records; overwriting them in place does not. Where deleting a chunk failed, its bytes as
they stand are offered as that many zero bytes: as long, and smaller in the progress order
(edit/order.py), so it is progress when the test still passes. A zeroed field is one a reader did
not need (a timestamp, a comment, padding, data no checksum covers), and the next passes may find
it deletable. Only for the bytes front end: nothing is decoded, and a chunk already all zeros
gives the text it had, which the engine drops without a test.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from treereduce_py.edit.edits import Edits, render
from treereduce_py.edit.tasks import Pairs, Task
from treereduce_py.lang.syntax import NodeTable


@dataclass(frozen=True)
class Zero(Task):
    """Overwrite a chunk's current bytes with as many zero bytes."""

    node: int

    def replacements(self, table: NodeTable, edits: Edits) -> Pairs | None:
        if not edits.is_live(table, self.node):
            return None
        return [(self.node, bytes(len(render(table, edits, self.node))))]

    def edited(self) -> tuple[int, ...]:
        return (self.node,)

    def gain(self, table: NodeTable) -> int:
        return 0


@dataclass(frozen=True)
class Zeroes:
    """The offer of the bytes front end's tree planner: each chunk's zeroing, after its deletion."""

    table: NodeTable

    def alternatives(self, node: int) -> Sequence[Task]:
        t = self.table
        return (
            [Zero(node)] if node != 0 and t.source[t.start[node] : t.end[node]].strip(b"\0") else []
        )

    def exploring(self, node: int) -> Sequence[Task]:
        return ()

    def initial(self) -> Sequence[Task]:
        return ()
