"""Hoisting: a node replaced by one of its descendants that may stand where it stands.

`5 + (3 * y)` may become `y`, a block may become the one statement inside it: the descendant
keeps its own text, the ancestor's goes. Which descendant may stand in a node's place is a
question about their kinds (seed 002, ch. 7): the same kind, or two subtypes of one grammar
supertype (two kinds of C `expression`), or two statement-like kinds where the grammar groups
statements under no common supertype (Python's simple and compound ones), or an item of a
block standing where a statement does (Python's grammar here puts an expression statement in a
block as the bare expression: `if 1:` around `f(1)` may go). chi(n) is the nearest
such descendants; a hoist the grammar does not allow there after all is caught by the syntax
check before any test runs.

A node may also stand for the whole document (`{"": 87}` becomes `87`): hoisting it to the
root skips its ancestor chain at once, where a hoist by kind would need every ancestor on the
way to be compatible with it. Whether the grammar allows it there is left to the syntax check,
which refuses it without a test; the cost in tests is bounded by offering it only in documents
of at most `ROOT_NODES` nodes, as the tree stage's later passes are, that are one item (a JSON
value, an expression): where a document has several items, deleting all but one does the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import tree_sitter

from treereduce_py.lang.syntax import BLOCK_KIND, NodeTable

# Hoisting candidates per node: the nearest compatible descendants, at most this many.
MAX_HOISTS = 4

# Hoisting to the root is offered only in documents of at most this many nodes.
ROOT_NODES = 256

_STATEMENT_SUFFIXES = ("statement", "definition", "declaration")

# Lists of statements whose items the grammar may give without a statement around them.
_BLOCKS = ("block", "module")


@dataclass(frozen=True)
class Kinds:
    """A grammar's supertypes, by the kinds they include: which kinds may stand for which."""

    supertypes_of: dict[str, frozenset[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, language: tree_sitter.Language | None) -> Kinds:
        """Kind name -> the grammar's supertypes that include it (none without a grammar)."""
        supertypes_of: dict[str, set[str]] = {}
        if language is not None:
            for sup in language.supertypes:  # ids of the grammar's supertypes
                sup_name = language.node_kind_for_id(sup) or ""
                for sub in language.subtypes(sup):
                    name = language.node_kind_for_id(sub) or ""
                    supertypes_of.setdefault(name, set()).add(sup_name)
        return cls({k: frozenset(v) for k, v in supertypes_of.items()})

    def compatible(self, a: str, b: str) -> bool:
        """Can a node of kind `b` stand where a node of kind `a` stands? Same kind, or both
        subtypes of one supertype (two kinds of `expression`), or both statement-like by name.
        """
        if a == b:
            return True
        sa = self.supertypes_of.get(a)
        sb = self.supertypes_of.get(b)
        if sa and sb and not sa.isdisjoint(sb):
            return True
        return _statement_like(a) and _statement_like(b)


def chi(table: NodeTable, kinds: Kinds, node: int, limit: int = MAX_HOISTS) -> list[int]:
    """The nearest descendants of `node` compatible with it (seed 002, ch. 7), farthest first.

    The search does not descend below a compatible node: that one is nearer on its path. A
    block (syntax.BLOCK_KIND, the grammar's no kind) neither has nor is a hoist: one block
    standing for another would keep a run of items whole where the list reduction over its
    children goes on cutting them.
    """
    if table.kind[node] == BLOCK_KIND:
        return []
    kind = table.kind_name(node)
    found: list[int] = []
    stack = list(reversed(list(table.children(node))))
    while stack:
        i = stack.pop()
        smaller = table.named[i] and table.size(i) < table.size(node)
        smaller = smaller and table.kind[i] != BLOCK_KIND
        if smaller and (kinds.compatible(kind, table.kind_name(i)) or _block_item(table, kind, i)):
            found.append(i)
            continue
        stack.extend(reversed(list(table.children(i))))
    found.sort(key=lambda i: (-table.depth[i], i))
    return found[:limit]


def _block_item(table: NodeTable, kind: str, i: int) -> bool:
    """May `i` stand for a node of kind `kind` as an item of a block? When that node is a
    statement and `i` is a named item of a block or module (an expression statement there, as
    Python's grammar gives it)."""
    if not _statement_like(kind):
        return False
    parent = table.parent[i]
    return parent != -1 and table.kind_name(parent) in _BLOCKS


def _statement_like(kind: str) -> bool:
    """A statement, definition or declaration kind (the grammars' own names for them)."""
    return kind.endswith(_STATEMENT_SUFFIXES)


def to_root(table: NodeTable, node: int) -> bool:
    """May `node` be offered in place of the whole document (the root)? In a document of at most
    ROOT_NODES nodes that is one item (the root has one named child, as a JSON document has one
    value), a named node with text below that item. A document of several items gets none: in a
    JavaScript program any expression is a program, and each would cost a test."""
    if len(table) > ROOT_NODES or not table.named[node] or table.depth[node] < 2:
        return False
    if sum(1 for c in table.children(0) if table.named[c]) != 1:
        return False
    return 0 < table.size(node) < table.size(0)
