"""Strategies: which tasks to try, in which order; the engine decides nothing about that.

A strategy is a named list of *stages*; a stage says which table a pass works on (the syntax tree,
or lines/tokens for the final text polishing) and builds a `Planner` for each pass. Planners only
generate tasks (the first ones, and follow-ups once a task is answered); their priority comes from
the expected gain, so the same planner serves every worker in parallel.

The syntax planner follows treereduce's design (seed 001) with hoisting (seed 002, ch. 7) and
minimal replacements: try deleting the largest subtree first; when a deletion fails, explore the
node's children: delete each, replace it by a shorter fragment (from the language's query file or
the smallest node of the same kind in the file), or hoist one of its nearest compatible
descendants (chi(n)) in its place.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import tree_sitter

from treereduce_py.edits import Edits
from treereduce_py.engine import Planner
from treereduce_py.syntax import NodeTable
from treereduce_py.tasks import Delete, DeleteChunk, Hoist, Replace, Task

TableKind = Literal["syntax", "lines", "tokens"]

# Hoisting candidates per node: the nearest compatible descendants, at most this many.
MAX_HOISTS = 4


@dataclass(frozen=True)
class SyntaxFacts:
    """What the planners know about one parse beyond the table: replacement hints and the
    grammar's supertypes (for hoisting compatibility)."""

    replacements: dict[int, tuple[bytes, ...]] = field(default_factory=dict)
    smallest_of_kind: dict[str, bytes] = field(default_factory=dict)
    supertypes_of: dict[str, frozenset[str]] = field(default_factory=dict)

    @classmethod
    def build(
        cls,
        table: NodeTable,
        language: tree_sitter.Language | None,
        hints: Sequence[tuple[int, int, int, bytes]] = (),
    ) -> SyntaxFacts:
        """`hints` are (start, end, kind_id, text) replacements found by the query files."""
        by_span: dict[tuple[int, int, int], int] = {}
        smallest: dict[str, bytes] = {}
        for i in range(len(table)):
            if not table.named[i]:
                continue
            by_span.setdefault((table.start[i], table.end[i], table.kind[i]), i)
            name = table.kind_name(i)
            text = table.text(i)
            best = smallest.get(name)
            if best is None or len(text) < len(best):
                smallest[name] = text
        replacements: dict[int, list[bytes]] = {}
        for start, end, kind, text in hints:
            node = by_span.get((start, end, kind))
            if node is not None:
                replacements.setdefault(node, []).append(text)
        supertypes_of: dict[str, set[str]] = {}
        if language is not None:
            for sup in language.supertypes:  # ids of the grammar's supertypes
                sup_name = language.node_kind_for_id(sup) or ""
                for sub in language.subtypes(sup):
                    name = language.node_kind_for_id(sub) or ""
                    supertypes_of.setdefault(name, set()).add(sup_name)
        return cls(
            {i: tuple(ts) for i, ts in replacements.items()},
            smallest,
            {k: frozenset(v) for k, v in supertypes_of.items()},
        )

    def compatible(self, a: str, b: str) -> bool:
        """Can a node of kind `b` stand where a node of kind `a` stands? (same kind, or both
        subtypes of one supertype, e.g. two kinds of `expression`)"""
        if a == b:
            return True
        sa = self.supertypes_of.get(a)
        sb = self.supertypes_of.get(b)
        return bool(sa and sb and not sa.isdisjoint(sb))


def chi(table: NodeTable, facts: SyntaxFacts, node: int, limit: int = MAX_HOISTS) -> list[int]:
    """The nearest descendants of `node` compatible with it (seed 002, ch. 7), farthest first.

    The search does not descend below a compatible node: that one is nearer on its path.
    """
    kind = table.kind_name(node)
    found: list[int] = []
    stack = list(reversed(list(table.children(node))))
    while stack:
        i = stack.pop()
        smaller = table.named[i] and table.size(i) < table.size(node)
        if smaller and facts.compatible(kind, table.kind_name(i)):
            found.append(i)
            continue
        stack.extend(reversed(list(table.children(i))))
    found.sort(key=lambda i: (-table.depth[i], i))
    return found[:limit]


@dataclass
class TreePlanner:
    """Largest subtree first; on a failed deletion, explore the node's children."""

    table: NodeTable
    facts: SyntaxFacts
    hoist: bool = True
    replace: bool = True

    def initial(self) -> Iterable[Task]:
        return [Delete(0)]

    def after(self, task: Task, accepted: bool, edits: Edits) -> Iterable[Task]:
        if accepted or not isinstance(task, Delete):
            return ()
        return self.explore(task.node)

    def explore(self, node: int) -> list[Task]:
        table, facts = self.table, self.facts
        out: list[Task] = []
        for c in table.children(node):
            if not table.named[c]:
                continue
            size = table.size(c)
            if size > 0:
                out.append(Delete(c))
            if self.replace:
                text = table.text(c)
                for r in facts.replacements.get(c, ()):
                    out.append(Replace(c, r))
                small = facts.smallest_of_kind.get(table.kind_name(c))
                if small is not None and len(small) < size and small != text:
                    out.append(Replace(c, small))
            if self.hoist:
                out.extend(Hoist(c, d) for d in chi(table, facts, c))
            if size == 0:
                out.extend(self.explore(c))
        return out


@dataclass
class FlatPlanner:
    """Delete each child of the root (each line or token), largest first."""

    table: NodeTable

    def initial(self) -> Iterable[Task]:
        return [Delete(c) for c in self.table.children(0)]

    def after(self, task: Task, accepted: bool, edits: Edits) -> Iterable[Task]:
        return ()


@dataclass(frozen=True)
class Stage:
    """One stage of a strategy: passes of one planner kind over one table kind."""

    name: str
    table: TableKind
    hoist: bool = True
    replace: bool = True

    def planner(self, table: NodeTable, facts: SyntaxFacts) -> Planner:
        if self.table == "syntax":
            return TreePlanner(table, facts, hoist=self.hoist, replace=self.replace)
        return FlatPlanner(table)


@dataclass(frozen=True)
class Strategy:
    name: str
    description: str
    stages: tuple[Stage, ...]


STRATEGIES: dict[str, Strategy] = {}


def register(strategy: Strategy) -> Strategy:
    STRATEGIES[strategy.name] = strategy
    return strategy


register(
    Strategy(
        "priority",
        "treereduce: largest subtree first over the whole tree, with hoisting and replacements",
        (Stage("tree", "syntax"),),
    )
)

DEFAULT_STRATEGY = "priority"
POLISH_STAGES = (Stage("lines", "lines"), Stage("tokens", "tokens"))

__all__ = ["STRATEGIES", "DeleteChunk", "Stage", "Strategy", "SyntaxFacts", "chi"]
