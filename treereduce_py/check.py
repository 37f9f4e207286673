"""The syntax check, incremental: a candidate is parsed by editing the pass's tree, not afresh.

Every candidate of a pass is the pass's text with some node spans replaced (an `Edits` value).
tree-sitter is built for exactly this: tell a copy of the old tree which byte ranges changed
(`Tree.edit`) and parse the new text with it; every subtree outside the changed ranges is reused
without being lexed again. So the check costs about the size of the edits (plus a walk over the
edited paths), not the size of the file: 0.1 s instead of 3 s for one deletion at 10 MB.

Edits closer than `COALESCE_GAP` bytes are told to tree-sitter as one changed range (the text
between them unchanged but re-lexed), so a chunk of ten thousand deleted siblings costs one
`Tree.edit`, not ten thousand Python calls. Positions are given as bytes and (row, column)
points; the points of the old text come from a line index built once per pass.

tree-sitter's edit and reparse still visit every old node inside a changed range, so when more
of the old text changed than the candidate holds (a 1 MB pass whose candidates are 20 KB by now),
the candidate is parsed afresh instead. A check without edits (polishing, the original) is a full
parse too; `full_parses` and `incremental_parses` count both kinds.
"""

from __future__ import annotations

import re
import threading
from array import array
from bisect import bisect_right
from collections.abc import Iterator

import tree_sitter

from treereduce_py.edits import Edits
from treereduce_py.languages import new_parser
from treereduce_py.syntax import NodeTable, count_errors

# Edited spans closer than this are one changed range for tree-sitter.
COALESCE_GAP = 256

Point = tuple[int, int]


class SyntaxCheck:
    """Counts the parse errors of candidates of one pass (of `table`, whose text `tree` parses).

    Without a tree (or without edits) it parses from scratch. Thread-safe: each thread has its
    own parser, and the shared tree is only ever copied.
    """

    def __init__(
        self, language: str, table: NodeTable | None = None, tree: tree_sitter.Tree | None = None
    ) -> None:
        self.language = language
        self.table = table
        self.tree = tree if table is not None else None
        self._local = threading.local()
        self._lines: array[int] | None = None
        self._lock = threading.Lock()
        self.full_parses = 0
        self.incremental_parses = 0

    def parser(self) -> tree_sitter.Parser:
        """This thread's parser."""
        parser: tree_sitter.Parser | None = getattr(self._local, "parser", None)
        if parser is None:
            parser = self._local.parser = new_parser(self.language)
        return parser

    def parse(self, text: bytes, edits: Edits | None = None) -> tree_sitter.Tree:
        """The parse tree of `text`, which is this pass's text with `edits` applied (if given)."""
        ranges = [] if edits is None or self.tree is None else list(self._ranges(edits, text))
        # tree-sitter's edit and reparse visit every old node in a changed range: when more old
        # text changed than the candidate has, parsing the candidate afresh is cheaper.
        if self.tree is None or not ranges or sum(r[1] - r[0] for r in ranges) >= len(text):
            with self._lock:
                self.full_parses += 1
            return self.parser().parse(text)
        old = self.tree.copy()
        for s, e, new_end, start, old_end, new_end_point in reversed(ranges):
            old.edit(s, e, new_end, start, old_end, new_end_point)
        with self._lock:
            self.incremental_parses += 1
        return self.parser().parse(text, old)

    def errors(self, text: bytes, edits: Edits | None = None) -> int:
        """ERROR and MISSING nodes in the parse of `text` (see `parse`)."""
        return count_errors(self.parse(text, edits))

    def _ranges(
        self, edits: Edits, text: bytes
    ) -> Iterator[tuple[int, int, int, Point, Point, Point]]:
        """The changed ranges, ascending and coalesced: old start/end, new end, and their points.

        Applied to the tree from last to first, each range's old coordinates are still those of
        the pass's text, and its new end is measured in the candidate `text`.
        """
        table = self.table
        assert table is not None
        start, end, repl = table.start, table.end, edits.replacements
        shift = 0  # candidate offset - old offset, before the current range
        cur: list[int] | None = None  # [old start, old end, new length]
        for i in edits.order:
            s, e = start[i], end[i]
            if cur is not None and s - cur[1] <= COALESCE_GAP:
                # As render does: a node starting before the previous end (zero-width) is cut
                # from where the previous one ended.
                cur[2] += max(0, s - cur[1]) + len(repl[i])
                cur[1] = max(cur[1], e)
                continue
            if cur is not None:
                yield self._range(cur, shift, text)
                shift += cur[2] - (cur[1] - cur[0])
            cur = [s, e, len(repl[i])]
        if cur is not None:
            yield self._range(cur, shift, text)

    def _range(
        self, span: list[int], shift: int, text: bytes
    ) -> tuple[int, int, int, Point, Point, Point]:
        s, e, new_len = span
        start, old_end = self._point(s), self._point(e)
        new_s = s + shift
        new_e = new_s + new_len
        rows = text.count(b"\n", new_s, new_e)
        # The new end's column: from the last newline the replacement brought, if any.
        col = new_e - (text.rfind(b"\n", new_s, new_e) + 1) if rows else start[1] + new_len
        return s, e, s + new_len, start, old_end, (start[0] + rows, col)

    def _point(self, offset: int) -> Point:
        """(row, column) of a byte offset in the pass's text."""
        lines = self._lines
        if lines is None:
            assert self.table is not None
            src = self.table.source
            lines = array("I", [0])
            lines.extend(m.end() for m in _NEWLINE.finditer(src))
            self._lines = lines
        row = bisect_right(lines, offset) - 1
        return row, offset - lines[row]


_NEWLINE = re.compile(b"\n")
