"""The syntax check, incremental: a candidate is parsed by editing a tree already parsed.

Every candidate of a pass is some committed state's text with a few more node spans replaced. A
committed state's parse is already known (its candidate was checked before it was committed), so
tree-sitter is told which byte ranges of that state's text the candidate changes (`Tree.edit` on a
copy) and reparses with it: every subtree outside the changed ranges is reused without being lexed
again. The check therefore costs about the size of the task's own edit, not of the file, and not
of everything the pass has deleted so far (at 10 MB of C: about 0.1 s instead of 3 s for one
deletion; what remains is tree-sitter re-reading the root's list of 26,000 items).

The bases are the pass's text (with its tree) and the last few committed states, each found by
the identity of its `Edits` value: the engine says which state a candidate was built on
(`since`) and which candidate it committed (`committed`). A candidate whose state is no longer a
base, or whose changed ranges hold INCREMENTAL_RATIO times more old text than the candidate
itself (tree-sitter visits the old nodes in a changed range), is parsed afresh, and so is one
checked without edits (polishing, the original); `full_parses` and `incremental_parses` count
both kinds.

From a base with parse errors, tree-sitter's incremental reparse may recover differently from a
fresh parse and count more errors (on a JavaScript chain: 3 against 2), which would turn away a
candidate a fresh parse lets through: there, a count over the caller's limit is taken afresh
(`errors(limit=...)`) up to `EXACT_MAX` bytes, and the fresh tree is the one kept.

Changed ranges closer than `COALESCE_GAP` bytes are one range for tree-sitter, so a chunk of ten
thousand deleted siblings is one `Tree.edit`. Ranges are given in bytes only, with zero points:
nothing here reads a node's row or column, and the byte offsets are what reuse depends on.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import tree_sitter

from treereduce_py.edit.edits import Edits, Span
from treereduce_py.lang.languages import new_parser
from treereduce_py.lang.syntax import NodeTable, count_errors

# Changed ranges closer than this are one range for tree-sitter.
COALESCE_GAP = 256
# A reparse is incremental while the old text in changed ranges is less than this many times the
# candidate: measured at 10 MB of C, tree-sitter's edit and reparse cost about 0.06 s per MB of
# old text in a changed range, a fresh parse about 0.3 s per MB of candidate.
INCREMENTAL_RATIO = 4
# Committed states kept as bases, and checked candidates kept in case they are committed.
BASES = 3
RECENT = 64
# Up to this many bytes, a candidate parsed from a base with errors that counts more than the
# caller allows is parsed afresh to decide (about 10 ms a 100 KB, 0.3 s a MB).
EXACT_MAX = 1 << 20

_ZERO = (0, 0)


class SyntaxCheck:
    """Counts the parse errors of candidates of one pass over `table`, whose text `tree` parses.

    Without a table and tree it always parses afresh. Thread-safe: each thread has its own
    parser, shared trees are only ever copied, and the bookkeeping is under a lock.
    """

    def __init__(
        self, language: str, table: NodeTable | None = None, tree: tree_sitter.Tree | None = None
    ) -> None:
        self.language = language
        self._local = threading.local()
        self._lock = threading.Lock()
        # id(edits) -> (edits, parse of that state's text, whether it has errors): the pass's
        # text and recent commits.
        self._bases: OrderedDict[int, tuple[Edits, tree_sitter.Tree, bool]] = OrderedDict()
        # id(spans) -> (spans, parse): checked candidates, one of which may be committed next.
        self._recent: OrderedDict[int, tuple[list[Span], tree_sitter.Tree]] = OrderedDict()
        self.full_parses = 0
        self.incremental_parses = 0
        # The parse of the pass's text: the base of candidates built on no commit yet.
        self._start = tree if table is not None else None
        self._start_errors = self._start is not None and self._start.root_node.has_error

    def parser(self) -> tree_sitter.Parser:
        """This thread's parser."""
        parser: tree_sitter.Parser | None = getattr(self._local, "parser", None)
        if parser is None:
            parser = self._local.parser = new_parser(self.language)
        return parser

    def parse(
        self, text: bytes, spans: list[Span] | None = None, since: Edits | None = None
    ) -> tree_sitter.Tree:
        """The parse tree of `text`: the text of the state whose edits are `since` (the pass's
        text when not given) with `spans` of it replaced (edits.spans_since, edits.diff)."""
        return self._parse(text, spans, since)[0]

    def errors(
        self,
        text: bytes,
        spans: list[Span] | None = None,
        since: Edits | None = None,
        limit: int | None = None,
    ) -> int:
        """ERROR and MISSING nodes in the parse of `text` (see `parse`); when that parse was
        incremental from a base with errors and counts more than `limit`, in a fresh parse
        (up to `EXACT_MAX` bytes), which then stands for the candidate."""
        tree, rough = self._parse(text, spans, since)
        found = count_errors(tree)
        if rough and limit is not None and found > limit and len(text) <= EXACT_MAX:
            tree = self._fresh(text)
            found = count_errors(tree)
            self._remember(spans, tree)
        return found

    def _fresh(self, text: bytes) -> tree_sitter.Tree:
        """A parse of `text` from nothing, counted in `full_parses`."""
        with self._lock:
            self.full_parses += 1
        return self.parser().parse(text)

    def _parse(
        self, text: bytes, spans: list[Span] | None, since: Edits | None
    ) -> tuple[tree_sitter.Tree, bool]:
        """`parse`, and whether it was incremental from a base with errors."""
        known = self._base(since) if spans is not None else None
        ranges = _coalesced(spans) if known is not None and spans else []
        touched = sum(e - s for s, e, _ in ranges)
        rough = False
        if known is None or not ranges or touched >= INCREMENTAL_RATIO * len(text):
            tree = self._fresh(text)
        else:
            base, rough = known
            old = base.copy()
            for s, e, new_len in reversed(ranges):
                old.edit(s, e, s + new_len, _ZERO, _ZERO, _ZERO)
            tree = self.parser().parse(text, old)
            with self._lock:
                self.incremental_parses += 1
        self._remember(spans, tree)
        return tree, rough

    def _remember(self, spans: list[Span] | None, tree: tree_sitter.Tree) -> None:
        """Keep `tree` as the parse of the candidate checked with `spans`, in case it is
        committed (`committed`)."""
        if spans is not None and self._start is not None:
            with self._lock:
                self._recent[id(spans)] = (spans, tree)
                while len(self._recent) > RECENT:
                    self._recent.popitem(last=False)

    def committed(self, edits: Edits, spans: list[Span]) -> None:
        """The engine committed the candidate checked with `spans`, whose edits are `edits`:
        its parse becomes a base."""
        with self._lock:
            known = self._recent.pop(id(spans), None)
            if known is not None and known[0] is spans:
                self._bases[id(edits)] = (edits, known[1], known[1].root_node.has_error)
                while len(self._bases) > BASES:
                    self._bases.popitem(last=False)

    def _base(self, since: Edits | None) -> tuple[tree_sitter.Tree, bool] | None:
        """The parse of the state whose edits are `since`, and whether it has errors."""
        with self._lock:
            if since is None or not since.order:
                return None if self._start is None else (self._start, self._start_errors)
            known = self._bases.get(id(since))
        return (known[1], known[2]) if known is not None and known[0] is since else None


class CutsOnly(SyntaxCheck):
    """The check of a coarse pass (reading.COARSE_NODES): none. Its candidates delete whole
    subtrees near the root of a huge tree, which keeps the syntax as it was, and checking one
    would cost more than the test it might save: `Tree.edit` visits every node of a deleted
    range (0.3 s for half of 10 MB of JavaScript). The test decides alone."""

    def errors(
        self,
        text: bytes,
        spans: list[Span] | None = None,
        since: Edits | None = None,
        limit: int | None = None,
    ) -> int:
        return 0

    def committed(self, edits: Edits, spans: list[Span]) -> None:
        pass


def _coalesced(spans: list[Span]) -> list[tuple[int, int, int]]:
    """(start, old end, new length) of the spans, those closer than COALESCE_GAP merged."""
    out: list[tuple[int, int, int]] = []
    for s, e, text in spans:
        if out and s - out[-1][1] <= COALESCE_GAP:
            ps, pe, plen = out[-1]
            out[-1] = (ps, e, plen + (s - pe) + len(text))
        else:
            out.append((s, e, len(text)))
    return out
