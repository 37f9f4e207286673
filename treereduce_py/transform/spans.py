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
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from treereduce_py.edit.edits import Edits
from treereduce_py.edit.tasks import Drop, Task
from treereduce_py.lang.syntax import NodeTable

# Runs are offered on results of at most this many bytes: a pass tries up to
# SPANS_MAX * (SPAN_LONGEST - 1) of them.
SPANS_MAX = 64
# The longest run offered (single bytes are the chunk passes' leaves already).
SPAN_LONGEST = 16


@dataclass
class SpanPlanner:
    """Over a table of single bytes (the root's children): delete each run of 2 to SPAN_LONGEST
    of them as one candidate, the longest first (their gain orders them), on a table of at most
    SPANS_MAX bytes."""

    table: NodeTable

    def initial(self) -> Iterable[Task]:
        kids = list(self.table.children(0))
        if len(kids) > SPANS_MAX:
            return []
        longest = min(SPAN_LONGEST, len(kids) - 1)
        return [
            Drop(tuple(kids[i : i + k]))
            for k in range(longest, 1, -1)
            for i in range(len(kids) - k + 1)
        ]

    def after(self, task: Task, accepted: bool, edits: Edits) -> Iterable[Task]:
        return ()

    def speculate(self, task: Task, passed: bool = False) -> Iterable[Task]:
        return ()

    def wanted(self, task: Task) -> bool:
        return True
