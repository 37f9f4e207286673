"""The parsed program as a flat, immutable node table that every worker reads without locks.

tree-sitter nodes are handles into a tree owned by one parser; walking them from many threads is
neither cheap nor safe. So each pass parses the current best once and flattens the tree into plain
arrays indexed by the node's pre-order number: byte range, grammar kind, parent, first child, next
sibling, last descendant. In pre-order a subtree is the contiguous range `i .. last[i]`, which makes
"is this node inside an edited subtree" a bisection and rendering a single left-to-right sweep.

The table can also be built over lines or tokens instead of a syntax tree (`from_lines`,
`from_tokens`), so the text-polishing passes reuse the same edits, tasks and engine.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import tree_sitter

# Tokens that separate the elements of a list; deleting an element deletes one of these with it.
SEPARATORS = frozenset({b",", b";"})

# tree-sitter's kind id for ERROR nodes (the grammar's node kind list does not include it).
ERROR_KIND = 0xFFFF


@dataclass(frozen=True, eq=False)
class NodeTable:
    """Pre-order arrays describing every node of one parse of `source`.

    Index 0 is the root. `kind` is the grammar's kind id (-1 for line/token tables), `named` tells
    named nodes from anonymous tokens, `first_child`/`next_sibling` are -1 when absent, and
    `last[i]` is the index of the last node in i's subtree (the subtree is `i .. last[i]`).
    """

    source: bytes
    start: list[int]
    end: list[int]
    kind: list[int]
    named: list[bool]
    parent: list[int]
    first_child: list[int]
    next_sibling: list[int]
    last: list[int]
    depth: list[int]
    kind_names: tuple[str, ...]
    errors: int
    # Parents with a separator among their children: only their children can have a separator.
    lists: frozenset[int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        lists = frozenset(
            self.parent[i] for i in range(1, len(self.start)) if self._is_separator(i)
        )
        object.__setattr__(self, "lists", lists)  # a derived field of a frozen dataclass

    def __len__(self) -> int:
        return len(self.start)

    def size(self, i: int) -> int:
        """Bytes the node spans."""
        return self.end[i] - self.start[i]

    def text(self, i: int) -> bytes:
        return self.source[self.start[i] : self.end[i]]

    def kind_name(self, i: int) -> str:
        """The grammar's name for i's kind: `ERROR` for error nodes, "" in line/token tables."""
        k = self.kind[i]
        if k == ERROR_KIND and self.kind_names:
            return "ERROR"
        return self.kind_names[k] if 0 <= k < len(self.kind_names) else ""

    def children(self, i: int) -> Iterator[int]:
        c = self.first_child[i]
        while c != -1:
            yield c
            c = self.next_sibling[c]

    def contains(self, ancestor: int, i: int) -> bool:
        """True when `i` is `ancestor` or one of its descendants."""
        return ancestor <= i <= self.last[ancestor]

    def descendants(self, i: int) -> range:
        return range(i + 1, self.last[i] + 1)

    def separator_for(self, i: int, gone: Callable[[int], bool] | None = None) -> int | None:
        """The separator token to delete together with list element `i`, if it has one.

        The separator after the element is preferred (`f(a, b)` -> `f(b)`); for the last element
        of a list it is the one before (`f(a, b)` -> `f(a)`), so no dangling comma is left. A
        separator with nothing after it ends a statement (`return x;`) and is left alone.
        Siblings for which `gone` is true (already deleted) count as absent.
        """
        if self.parent[i] not in self.lists:
            return None
        nxt = self._live_sibling(self.next_sibling[i], gone, forward=True)
        if (
            nxt != -1
            and self._is_separator(nxt)
            and self._live_sibling(self.next_sibling[nxt], gone, forward=True) != -1
        ):
            return nxt
        prev = self._live_sibling(self._prev_sibling(i), gone, forward=False)
        if prev != -1 and self._is_separator(prev):
            return prev
        return None

    def _is_separator(self, i: int) -> bool:
        return not self.named[i] and self.text(i) in SEPARATORS

    def _prev_sibling(self, i: int) -> int:
        # In pre-order the node just before i is its parent or lies in its previous sibling.
        j = i - 1
        p = self.parent[i]
        if j == p:
            return -1
        while self.parent[j] != p:
            j = self.parent[j]
        return j

    def _live_sibling(self, i: int, gone: Callable[[int], bool] | None, forward: bool) -> int:
        while i != -1 and gone is not None and gone(i):
            i = self.next_sibling[i] if forward else self._prev_sibling(i)
        return i

    # Construction ---------------------------------------------------------------------------

    @classmethod
    def from_tree(cls, source: bytes, tree: tree_sitter.Tree) -> NodeTable:
        """Flatten a tree-sitter tree of `source` (one cursor walk, no recursion)."""
        start: list[int] = []
        end: list[int] = []
        kind: list[int] = []
        named: list[bool] = []
        parent: list[int] = []
        first_child: list[int] = []
        next_sibling: list[int] = []
        depth: list[int] = []
        errors = 0
        stack: list[int] = []  # indices of the ancestors of the cursor's node
        prev_at_depth: list[int] = []  # last node seen at each depth, to link siblings
        cursor = tree.walk()
        while True:
            node = cursor.node
            assert node is not None
            i = len(start)
            start.append(node.start_byte)
            end.append(node.end_byte)
            kind.append(node.kind_id)
            named.append(node.is_named)
            if node.is_error or node.is_missing:
                errors += 1
            d = len(stack)
            depth.append(d)
            parent.append(stack[-1] if stack else -1)
            first_child.append(-1)
            next_sibling.append(-1)
            if d < len(prev_at_depth):
                prev = prev_at_depth[d]
                if prev != -1 and parent[prev] == parent[i]:
                    next_sibling[prev] = i
                prev_at_depth[d] = i
                del prev_at_depth[d + 1 :]
            else:
                prev_at_depth.append(i)
            if stack and first_child[stack[-1]] == -1:
                first_child[stack[-1]] = i
            if cursor.goto_first_child():
                stack.append(i)
                continue
            while not cursor.goto_next_sibling():
                if not cursor.goto_parent():
                    return cls._finish(
                        source, start, end, kind, named, parent, first_child, next_sibling,
                        depth, _kind_names(tree.language), errors,
                    )  # fmt: skip
                stack.pop()

    @classmethod
    def from_spans(cls, source: bytes, spans: list[tuple[int, int]]) -> NodeTable:
        """A two-level table: a root spanning `source` with one child per (start, end) span."""
        n = len(spans)
        start = [0] + [s for s, _ in spans]
        end = [len(source)] + [e for _, e in spans]
        parent = [-1] + [0] * n
        first_child = [1 if n else -1] + [-1] * n
        next_sibling = [-1] + [i + 2 if i + 1 < n else -1 for i in range(n)]
        return cls._finish(
            source, start, end, [-1] * (n + 1), [True] * (n + 1), parent, first_child,
            next_sibling, [0] + [1] * n, (), 0,
        )  # fmt: skip

    @classmethod
    def from_lines(cls, source: bytes) -> NodeTable:
        """Each line (with its newline) is a child of the root."""
        spans = [(m.start(), m.end()) for m in re.finditer(rb"[^\n]*\n|[^\n]+$", source)]
        return cls.from_spans(source, spans)

    @classmethod
    def from_tokens(cls, source: bytes) -> NodeTable:
        """Each token (an identifier/number, a string, or one punctuation byte), with the
        whitespace that follows it, is a child of the root; the children cover all of `source`."""
        spans = [(m.start(), m.end()) for m in _TOKEN.finditer(source) if m.end() > m.start()]
        if spans and spans[0][0] > 0:  # leading whitespace belongs to the first token
            spans[0] = (0, spans[0][1])
        elif not spans and source:  # only whitespace: one token, so it can still be deleted
            spans = [(0, len(source))]
        return cls.from_spans(source, spans)

    @classmethod
    def _finish(
        cls,
        source: bytes,
        start: list[int],
        end: list[int],
        kind: list[int],
        named: list[bool],
        parent: list[int],
        first_child: list[int],
        next_sibling: list[int],
        depth: list[int],
        kind_names: tuple[str, ...],
        errors: int,
    ) -> NodeTable:
        n = len(start)
        last = list(range(n))
        for i in range(n - 1, 0, -1):  # children come after parents: propagate maxima upwards
            p = parent[i]
            if last[i] > last[p]:
                last[p] = last[i]
        return cls(
            source, start, end, kind, named, parent, first_child, next_sibling, last, depth,
            kind_names, errors,
        )  # fmt: skip


_TOKEN = re.compile(
    rb"""(?:[A-Za-z0-9_]+|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|[^\sA-Za-z0-9_])\s*"""
)

_KIND_NAMES: dict[int, tuple[str, ...]] = {}


def _kind_names(language: tree_sitter.Language) -> tuple[str, ...]:
    key = id(language)
    names = _KIND_NAMES.get(key)
    if names is None:
        names = tuple(language.node_kind_for_id(k) or "" for k in range(language.node_kind_count))
        _KIND_NAMES[key] = names
    return names
