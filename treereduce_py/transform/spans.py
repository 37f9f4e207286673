"""Spans of bytes: a binary input's records that no aligned chunk holds.

A binary format often frames its data in records whose length is their own (a tag, a length
byte, that many bytes): a fuzzer's crash file is dozens of them, and the one that crashes may sit
behind records the program skips. The bytes front end's chunks (lang/bytetree.py) are aligned
powers of 16, so a 5-byte record astride two chunks is no node, and deleting any part of it
alone breaks the framing of everything after it: a 2.2 KB crash file stopped at 20 bytes, two
junk records before the 6 that crash, where Shrink Ray reached those 6.

So once the chunk passes are done, a small result (at most SPANS_MAX bytes) is offered the
deletion of every run of 2 to SPAN_LONGEST consecutive bytes at every offset, the longest first,
each run whole or not at all (a run that lost a byte to another deletion is void; the next pass
offers the runs of the shrunk result). Only for the bytes front end: a text or a grammar's
tokens have their own list stages.

A record longer than the crash needs cannot lose a byte alone either: its length byte says how
many follow. So each byte is also read as a length (`Shorten`): a byte of value v followed by at
least v bytes is offered v - d with the last d of those v bytes deleted, together, for d = v,
v/2, v/4 ... 1. On an overflow of a 16-byte buffer by a 35-byte record, the result went from
27-41 B (junk around a record still 35 bytes long) to the 22 B of a 17-byte one, as Shrink Ray's.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from treereduce_py.edit.edits import Edits
from treereduce_py.edit.tasks import Drop, NoSpeculation, Pairs, Task
from treereduce_py.lang.syntax import NodeTable

# Runs are offered on results of at most this many bytes: a pass tries up to
# SPANS_MAX * (SPAN_LONGEST - 1) of them.
SPANS_MAX = 64
# The longest run offered (single bytes are the chunk passes' leaves already).
SPAN_LONGEST = 16


@dataclass
class SpanPlanner(NoSpeculation):
    """Over a table of single bytes (the root's children): delete each run of 2 to SPAN_LONGEST
    of them as one candidate, the longest first (their gain orders them), on a table of at most
    SPANS_MAX bytes."""

    table: NodeTable

    def initial(self) -> Iterable[Task]:
        kids = list(self.table.children(0))
        if len(kids) > SPANS_MAX:
            return []
        longest = min(SPAN_LONGEST, len(kids) - 1)
        runs: list[Task] = [
            Drop(tuple(kids[i : i + k]))
            for k in range(longest, 1, -1)
            for i in range(len(kids) - k + 1)
        ]
        return runs + list(shortenings(self.table))

    def after(self, task: Task, accepted: bool, edits: Edits) -> Iterable[Task]:
        return ()


@dataclass(frozen=True)
class Shorten(Task):
    """Read a byte as the length of the record after it: lower it by `len(cut)` and delete that
    many bytes at the record's end (`cut`), together; void if any of them was edited."""

    length: int
    value: int
    cut: tuple[int, ...]

    def replacements(self, table: NodeTable, edits: Edits) -> Pairs | None:
        nodes = (self.length, *self.cut)
        if any(n in edits.replacements or not edits.is_live(table, n) for n in nodes):
            return None
        return [(self.length, bytes([self.value])), *((n, b"") for n in self.cut)]

    def edited(self) -> tuple[int, ...]:
        return (self.length, *self.cut)

    def gain(self, table: NodeTable) -> int:
        return len(self.cut)


def shortenings(table: NodeTable) -> list[Shorten]:
    """Each byte read as a length: a byte of value v followed by at least v bytes is offered
    v - d with the d bytes after those v - d deleted, for d = v, v/2, v/4, ... 1."""
    kids = list(table.children(0))
    data = [table.text(k)[0] for k in kids]
    out = []
    for i, v in enumerate(data):
        if i + 1 + v > len(kids):
            continue
        stop, d = i + 1 + v, v
        while d >= 1:
            out.append(Shorten(kids[i], v - d, tuple(kids[stop - d : stop])))
            d //= 2
    return out
