"""The parsed program as a flat, immutable node table that every worker reads without locks.

tree-sitter nodes are handles into a tree owned by one parser; walking them from many threads is
neither cheap nor safe. So each pass parses the current best once and flattens the tree into compact
arrays (`array.array`, not lists of ints: millions of nodes at 10 MB) indexed by the node's
pre-order number: byte range, grammar kind, parent, first child, next sibling, last descendant,
depth. In pre-order a subtree is the contiguous range `i .. last[i]`, which makes
"is this node inside an edited subtree" a bisection and rendering a single left-to-right sweep.

The table can also be built over lines or tokens instead of a syntax tree (`from_lines`,
`from_tokens`), so the text-polishing passes reuse the same edits, tasks and engine.

`count_errors` lives here too: it is the one question the engine asks of a parse tree ("how broken
is it?"), and it must stay cheap on large trees that have no or few errors.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import tree_sitter

# Tokens that separate the elements of a list; deleting an element deletes one of these with it.
SEPARATORS = frozenset({b",", b";"})

# Deleted siblings `separator_for` looks past before it gives up.
SKIP_LIMIT = 64

# tree-sitter's kind id for ERROR nodes (the grammar's node kind list does not include it).
ERROR_KIND = 0xFFFF
# The kind of a block, a node no grammar has: a run of a huge list's items grouped under one
# node so that a deletion names a few blocks instead of thousands of items (lang/blocks.py).
BLOCK_KIND = 0xFFFE


@dataclass(frozen=True, eq=False)
class NodeTable:
    """Pre-order arrays describing every node of one parse of `source`.

    Index 0 is the root. `kind` is the grammar's kind id (-1 for line/token tables), `named` tells
    named nodes (1) from anonymous tokens (0), `first_child`/`next_sibling` are -1 when absent, and
    `last[i]` is the index of the last node in i's subtree (the subtree is `i .. last[i]`).

    The columns are compact arrays (4 bytes a node, 1 for `named`), not lists of Python ints: a
    10 MB input has millions of nodes. Indexing them gives plain ints; treat them as read-only.
    """

    source: bytes
    start: array[int]
    end: array[int]
    kind: array[int]
    named: bytearray
    parent: array[int]
    first_child: array[int]
    next_sibling: array[int]
    last: array[int]
    depth: array[int]
    kind_names: tuple[str, ...]
    errors: int
    # Parents with a separator among their children: only their children can have a separator.
    lists: frozenset[int] = field(repr=False)

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

    def items(self, i: int) -> Iterator[int]:
        """The children of `i`, those of its blocks in their place (see BLOCK_KIND): the
        grammar's children of a node whose long child list was grouped into blocks."""
        for c in self.children(i):
            if self.kind[c] == BLOCK_KIND:
                yield from self.items(c)
            else:
                yield c

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
        after, before = self.next_sibling[i], self._prev_sibling(i)
        if not (after != -1 and self._is_separator(after)) and not (
            before != -1 and self._is_separator(before)
        ):
            return None  # not a separated element (a C function among `struct s {};` items)
        nxt = self._live_sibling(after, gone, forward=True)
        if (
            nxt != -1
            and self._is_separator(nxt)
            and self._live_sibling(self.next_sibling[nxt], gone, forward=True) != -1
        ):
            return nxt
        prev = self._live_sibling(before, gone, forward=False)
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
        """The first sibling from `i` on that is not gone; -1 past the end, and also after
        SKIP_LIMIT gone ones (a chunk of thousands of list elements must not cost their square:
        beyond that, the element is deleted without a separator and the syntax check decides)."""
        skipped = 0
        while i != -1 and gone is not None and gone(i):
            skipped += 1
            if skipped > SKIP_LIMIT:
                return -1
            i = self.next_sibling[i] if forward else self._prev_sibling(i)
        return i

    # Construction ---------------------------------------------------------------------------

    @classmethod
    def from_tree(
        cls, source: bytes, tree: tree_sitter.Tree, max_depth: int | None = None
    ) -> NodeTable:
        """Flatten a tree-sitter tree of `source` in one cursor walk (no recursion).

        The columns are allocated once at the tree's node count and filled in place; parent,
        depth, first child, next sibling and last descendant all follow from the cursor's moves,
        so each node costs one `cursor.node` and four reads of it. Linear in the node count.

        With `max_depth`, nodes at that depth are leaves of the table (their subtrees are not
        walked): the coarse table of a huge tree (see `coarse_depth`).
        """
        root = tree.root_node
        # The root and every node below it (down to max_depth), as walked.
        n = root.descendant_count if max_depth is None else sum(_level_sizes(root, max_depth))
        start, end, kind = _column(n, 0, "I"), _column(n, 0, "I"), _column(n, 0)
        parent, depth = _column(n, -1), _column(n, 0)
        first_child, next_sibling, last = _column(n, -1), _column(n, -1), _column(n, 0)
        named = bytearray(n)
        lists: set[int] = set()
        sep_max = max(map(len, SEPARATORS))
        cursor = tree.walk()
        down, right, up = cursor.goto_first_child, cursor.goto_next_sibling, cursor.goto_parent
        ancestors: list[int] = []  # parents of the cursor's ancestors (the path's parent links)
        push, pop = ancestors.append, ancestors.pop
        i = 0  # the next free row
        p = -1  # parent of the cursor's node
        d = 0  # depth of the cursor's node
        while True:
            node = cursor.node
            assert node is not None  # a cursor always stands on a node
            s = start[i] = node.start_byte
            e = end[i] = node.end_byte
            kind[i] = node.kind_id
            if node.is_named:
                named[i] = 1
            elif e - s <= sep_max and source[s:e] in SEPARATORS:
                lists.add(p)
            parent[i] = p
            depth[i] = d
            cur = i
            i += 1
            if (max_depth is None or d < max_depth) and down():
                first_child[cur] = i  # in pre-order the first child comes right after
                push(p)
                p = cur
                d += 1
                continue
            last[cur] = cur
            while not right():
                if not up():
                    assert i == n, (i, n)
                    lists.discard(-1)  # the root is in no list
                    return cls(
                        source, start, end, kind, named, parent, first_child, next_sibling,
                        last, depth, kind_names(tree.language), count_errors(tree),
                        frozenset(lists),
                    )  # fmt: skip
                cur = p  # back on the parent, whose subtree ends with the last row filled
                p = pop()
                d -= 1
                last[cur] = i - 1
            next_sibling[cur] = i

    @classmethod
    def from_spans(cls, source: bytes, spans: Iterable[tuple[int, int]]) -> NodeTable:
        """A two-level table: a root spanning `source` with one child per (start, end) span."""
        start = array("I", [0])
        end = array("I", [len(source)])
        for s, e in spans:
            start.append(s)
            end.append(e)
        return cls._flat(source, start, end)

    @classmethod
    def from_lines(cls, source: bytes) -> NodeTable:
        """Each line (with its newline) is a child of the root."""
        return cls.from_spans(source, (m.span() for m in _LINE.finditer(source)))

    @classmethod
    def from_tokens(cls, source: bytes) -> NodeTable:
        """Each token (an identifier/number, a string, or one punctuation byte), with the
        whitespace that follows it, is a child of the root; the children cover all of `source`."""
        start = array("I", [0])
        end = array("I", [len(source)])
        for m in _TOKEN.finditer(source):
            s, e = m.span()
            if e > s:
                start.append(s)
                end.append(e)
        if len(start) > 1:
            start[1] = 0  # leading whitespace belongs to the first token
        elif source:  # only whitespace: one token, so it can still be deleted
            start.append(0)
            end.append(len(source))
        return cls._flat(source, start, end)

    @classmethod
    def from_preorder(
        cls,
        source: bytes,
        start: Sequence[int],
        end: Sequence[int],
        kind: Sequence[int],
        named: bytes,
        parent: Sequence[int],
        depth: Sequence[int],
        kind_names: tuple[str, ...],
        *,
        errors: int = 0,
        lists: frozenset[int] = frozenset(),
    ) -> NodeTable:
        """A table from rows already in pre-order (row 0 the root, parent -1) whose `parent`
        and `depth` are known: the child, sibling and last-descendant links follow from them.
        For trees built without one parse (texttree, bytetree, pieces); `errors` parse errors,
        `lists` the parents with a separator among their children."""
        n = len(parent)
        last = list(range(n))
        for i in range(n - 1, 0, -1):  # a subtree ends where its last descendant does
            p = parent[i]
            if last[i] > last[p]:
                last[p] = last[i]
        first_child = [i + 1 if i + 1 < n and parent[i + 1] == i else -1 for i in range(n)]
        next_sibling = [
            j if (j := last[i] + 1) < n and parent[j] == parent[i] else -1 for i in range(n)
        ]
        return cls(
            source, array("I", start), array("I", end), array("i", kind), bytearray(named),
            array("i", parent), array("i", first_child), array("i", next_sibling),
            array("i", last), array("i", depth), kind_names, errors, lists,
        )  # fmt: skip

    @classmethod
    def _flat(cls, source: bytes, start: array[int], end: array[int]) -> NodeTable:
        """The root (row 0) and its children (rows 1..n-1), whose spans are already filled."""
        n = len(start)
        if n > 1:
            next_sibling = array("i", range(2, n + 1))
            next_sibling[-1] = -1
            next_sibling.insert(0, -1)
        else:
            next_sibling = _column(n, -1)
        parent, depth = _column(n, 0), _column(n, 1)
        parent[0], depth[0] = -1, 0
        first_child = _column(n, -1)
        last = array("i", range(n))
        if n > 1:
            first_child[0], last[0] = 1, n - 1
        return cls(
            source, start, end, _column(n, -1), bytearray(b"\x01") * n, parent, first_child,
            next_sibling, last, depth, (), 0, frozenset(),
        )  # fmt: skip


def coarse_depth(tree: tree_sitter.Tree, max_nodes: int) -> int | None:
    """The deepest level down to which `tree` has at most `max_nodes` nodes, or None when the
    whole tree fits (then no coarse table is needed). At least 1: the root's children."""
    root = tree.root_node
    if root.descendant_count <= max_nodes:
        return None
    total, depth = 0, 0
    for depth, size in enumerate(_level_sizes(root, None)):
        total += size
        if total > max_nodes:
            return max(1, depth - 1)
    return max(1, depth)  # unreachable: the whole tree did not fit


def _level_sizes(root: tree_sitter.Node, max_depth: int | None) -> Iterator[int]:
    """The number of nodes at each depth of `root`'s subtree, from 0 (the root) down to
    `max_depth` (every level when None). A level is counted from its parents' child counts before
    its nodes are listed, so a caller that stops at a level never pays for the nodes in it."""
    level = [root]
    yield 1
    depth = 0
    while max_depth is None or depth < max_depth:
        size = sum(node.child_count for node in level)
        if not size:
            return
        yield size
        depth += 1
        if depth == max_depth:
            return  # the last level is counted, never listed
        level = [child for node in level for child in node.children]


def _column(n: int, value: int, typecode: str = "i") -> array[int]:
    """An array of `n` copies of `value` (no temporary list of n items)."""
    return array(typecode, [value]) * n


def count_errors(tree: tree_sitter.Tree) -> int:
    """Number of ERROR nodes plus MISSING nodes in `tree` (0 for a clean parse).

    Only subtrees flagged `has_error` are entered, so a clean tree costs one check and a large
    tree with a few errors costs about the size of the paths down to them.
    """
    return errors_below(tree.root_node)


def errors_below(root: tree_sitter.Node) -> int:
    """Number of ERROR and MISSING nodes in `root`'s subtree (see `count_errors`)."""
    if not root.has_error:
        return 0
    count = 0
    cursor = root.walk()
    while True:
        node = cursor.node
        assert node is not None  # a cursor always stands on a node
        if node.is_error or node.is_missing:
            count += 1
        if node.has_error and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return count


_LINE = re.compile(rb"[^\n]*\n|[^\n]+$")

_TOKEN = re.compile(
    rb"""(?:[A-Za-z0-9_]+|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|[^\sA-Za-z0-9_])\s*"""
)

_KIND_NAMES: dict[int, tuple[str, ...]] = {}


def kind_names(language: tree_sitter.Language) -> tuple[str, ...]:
    """The grammar's name of each kind id (cached a language)."""
    key = id(language)
    names = _KIND_NAMES.get(key)
    if names is None:
        names = tuple(language.node_kind_for_id(k) or "" for k in range(language.node_kind_count))
        _KIND_NAMES[key] = names
    return names
