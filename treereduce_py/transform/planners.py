"""Planners: which tasks a pass tries, and what it tries next once a task is answered.

A planner only generates tasks (the first ones, and follow-ups once a task is answered); their
priority comes from the expected gain, so the same planner serves every worker in parallel.

The tree planner follows treereduce's design (seed 001) with hoisting (seed 002, ch. 7) and
minimal replacements: try deleting the largest subtree first; when a deletion fails, explore the
node's children: delete each (child lists with CDD), and offer each what the plug-ins offer it
(facts.py: the query captures' replacements, hoists, inlinings ...; SMT-LIB's rules). The other
planners reduce one flat list (lines, tokens), the nodes of one depth at a time (HDD), one node's
every mutation at a time (ddSMT's hierarchical), or token pairs.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from treereduce_py.edit.cdd import ListSchedule, cdd, ddmin
from treereduce_py.edit.edits import Edits
from treereduce_py.edit.tasks import (
    Delete,
    DeleteChunk,
    Drop,
    Hoist,
    NoSpeculation,
    Replace,
    Task,
)
from treereduce_py.lang.syntax import NodeTable
from treereduce_py.transform.facts import SyntaxFacts
from treereduce_py.transform.pairs import adjacent_pairs, balanced_pairs
from treereduce_py.transform.rounds import ListReductions
from treereduce_py.transform.zeroes import Lower, Zero

# Child lists shorter than this are reduced one child at a time (CDD's last round anyway).
LIST_MIN = 4
# Lists longer than this are not explored eagerly: the 26,000 items of a 10 MB file would queue
# a hundred thousand tasks (and their hoist searches) before the first halving is tested.
EAGER_MAX = 512


@dataclass
class TreePlanner:
    """Largest subtree first; on a failed deletion, explore the node's children.

    Children lists of LIST_MIN or more named nodes are reduced with the list schedule (CDD by
    default); a child that survives its list reduction is then explored the same way. Each
    explored child is also offered its alternatives: what the plug-ins (`facts.offers`) offer
    it, those the stage options `hoist` and `replace` leave on.
    """

    table: NodeTable
    facts: SyntaxFacts
    schedule: ListSchedule = field(default_factory=cdd)
    hoist: bool = True
    replace: bool = True

    def __post_init__(self) -> None:
        self.lists = ListReductions(self.table, self.schedule)
        self._explored: set[int] = set()
        self._lock = threading.Lock()
        on = {"hoist": self.hoist, "replace": self.replace}
        self._offers = [o for switch, o in self.facts.offers if switch is None or on[switch]]

    def initial(self) -> Iterable[Task]:
        return [Delete(0), *(t for offer in self._offers for t in offer.initial())]

    def after(self, task: Task, accepted: bool, edits: Edits) -> Iterable[Task]:
        if isinstance(task, DeleteChunk):
            out = self.lists.finish(task, accepted, edits)
            if not accepted and len(task.nodes) == 1 and not task.complement:
                out.extend(self.inside(task.nodes[0]))
            return out
        if accepted:
            return ()
        if isinstance(task, Delete):
            return self.explore(task.node)
        if isinstance(task, (Zero, Lower)):
            return task.failed(self.table)  # a byte's next value, within the pass's budget
        # Where the language's rules say what may be deleted, a node they keep is explored once
        # a mutation of it fails.
        if self.facts.deletable is not None and isinstance(task, (Replace, Hoist)):
            return self.explore(task.node)
        return ()

    def speculate(self, task: Task, passed: bool = False) -> Iterable[Task]:
        """What a failure of `task` would explore, started while it is being tested; for a
        chunk, also its list's next round (if the chunks still out fail: rounds.py). For a
        chunk that `passed` and waits for its merge, only its list's next round."""
        if passed:
            return self.lists.speculate(task, passed) if isinstance(task, DeleteChunk) else ()
        if isinstance(task, Delete):
            return self.explore(task.node)
        if not isinstance(task, DeleteChunk):
            return ()
        ahead = self.lists.speculate(task)
        if len(task.nodes) == 1 and not task.complement:
            return [*self.inside(task.nodes[0]), *ahead]
        return ahead

    def wanted(self, task: Task) -> bool:
        return self.lists.wanted(task)

    def inside(self, node: int, eager: bool = True) -> list[Task]:
        """The alternatives of a list element and the exploration of its children (once)."""
        with self._lock:
            if node in self._explored:
                return []
        return self.alternatives(node) + self.explore(node, eager)

    def explore(self, node: int, eager: bool = True) -> list[Task]:
        """Tasks for the named children of `node` (each node is explored once).

        A long child list gets a CDD reduction, and (with `eager`) its elements are explored
        at the same time, one level deep: while large chunks fail, say because every function
        is referenced from `main`, the inside of `main` is reduced by gain order instead of
        waiting for the list's last round. Tasks of an element a chunk deletes later are
        skipped without a test.
        """
        with self._lock:
            if node in self._explored:
                return []
            self._explored.add(node)
        table = self.table
        kids = [c for c in table.children(node) if table.named[c]]
        first = [t for offer in self._offers for t in offer.exploring(node)]
        if self.facts.deletable is not None:
            return first + self._explore_by_rules(self.facts.deletable, kids, eager)
        return first + self._explore_children(kids, eager)

    def _explore_children(self, kids: list[int], eager: bool) -> list[Task]:
        table = self.table
        if len(kids) >= LIST_MIN:
            out = self.lists.start(kids)
            if eager and len(kids) <= EAGER_MAX:
                for k in kids:
                    out.extend(self.inside(k, eager=False))
            return out
        out = []
        for c in kids:
            if table.size(c) > 0:
                out.append(Delete(c))
                out.extend(self.alternatives(c))
            else:
                out.extend(self.explore(c))
        return out

    def _explore_by_rules(
        self, deletable: Callable[[int], bool], kids: list[int], eager: bool
    ) -> list[Task]:
        """Only the children the rules let go are deleted (with CDD when there are LIST_MIN or
        more); the others get their mutations, and are explored when one fails (or at once,
        when they have none)."""
        table = self.table
        cut = [k for k in kids if deletable(k) and table.size(k) > 0]
        out: list[Task] = self.lists.start(cut) if len(cut) >= LIST_MIN else []
        listed = set(cut)  # a set: a list's `in` made this quadratic in the number of children
        for k in kids:
            if k in listed and len(cut) >= LIST_MIN:
                out.extend(self.inside(k, eager=False) if eager else ())
            elif k in listed:
                out.append(Delete(k))
                out.extend(self.alternatives(k))
            else:
                mutations = self.alternatives(k)
                out.extend(mutations or self.explore(k))
        return out

    def alternatives(self, c: int) -> list[Task]:
        """What the plug-ins offer node `c` (tried when deleting it failed), in their order, each
        task once (a hint's `1` and a trim's `1` are one candidate)."""
        return list(dict.fromkeys(t for offer in self._offers for t in offer.alternatives(c)))


@dataclass
class FlatPlanner:
    """Reduce the root's children (the lines or tokens) as one list with the list schedule."""

    table: NodeTable
    schedule: ListSchedule = field(default_factory=cdd)

    def __post_init__(self) -> None:
        self.lists = ListReductions(self.table, self.schedule)

    def initial(self) -> Iterable[Task]:
        return self.lists.start(list(self.table.children(0)))

    def after(self, task: Task, accepted: bool, edits: Edits) -> Iterable[Task]:
        if isinstance(task, DeleteChunk):
            return self.lists.finish(task, accepted, edits)
        return ()

    def speculate(self, task: Task, passed: bool = False) -> Iterable[Task]:
        """The list's next round, started while the chunks of this one are still out (or wait
        for their merge, `passed`)."""
        if isinstance(task, DeleteChunk):
            return self.lists.speculate(task, passed)
        return ()

    def wanted(self, task: Task) -> bool:
        return self.lists.wanted(task)


@dataclass
class LevelPlanner(NoSpeculation):
    """HDD (Misherghi and Su): the live named nodes of one depth form one list; when its
    reduction is over, the next depth's nodes do (seed 002, ch. 2)."""

    table: NodeTable
    schedule: ListSchedule = field(default_factory=ddmin)

    def __post_init__(self) -> None:
        self.lists = ListReductions(self.table, self.schedule)
        self.depth = 0
        self.max_depth = max(self.table.depth, default=0)
        self._lock = threading.Lock()

    def initial(self) -> Iterable[Task]:
        return self._level(Edits())

    def _level(self, edits: Edits) -> list[Task]:
        while self.depth <= self.max_depth:
            t = self.table
            nodes = [
                i
                for i in range(len(t))
                if t.depth[i] == self.depth and t.named[i] and t.size(i) > 0 and edits.is_live(t, i)
            ]
            self.depth += 1
            tasks = self.lists.start(nodes)
            if tasks:
                return tasks
        return []

    def after(self, task: Task, accepted: bool, edits: Edits) -> Iterable[Task]:
        if not isinstance(task, DeleteChunk):
            return ()
        out = self.lists.finish(task, accepted, edits)
        with self._lock:
            if out or self.lists.active(task.group):
                return out
            return self._level(edits)


@dataclass
class BreadthFirstPlanner(NoSpeculation):
    """ddSMT's hierarchical strategy: visit nodes breadth-first and try every mutation (delete,
    replacements, hoists) of one node, in parallel, before moving on to the next node."""

    table: NodeTable
    facts: SyntaxFacts
    hoist: bool = True
    replace: bool = True

    def __post_init__(self) -> None:
        self.tree = TreePlanner(self.table, self.facts, hoist=self.hoist, replace=self.replace)
        self.queue: collections.deque[int] = collections.deque([0])
        self.outstanding = 0
        self.current = -1
        self._lock = threading.Lock()

    def initial(self) -> Iterable[Task]:
        with self._lock:
            return self._next(Edits())

    def _next(self, edits: Edits) -> list[Task]:
        t = self.table
        while self.queue:
            node = self.queue.popleft()
            if not edits.is_live(t, node):
                continue
            tasks: list[Task] = [Delete(node)] if t.size(node) > 0 else []
            tasks += self.tree.alternatives(node)
            self.current = node
            if tasks:
                self.outstanding = len(tasks)
                return tasks
            self._enqueue_children(node)
        return []

    def _enqueue_children(self, node: int) -> None:
        t = self.table
        self.queue.extend(c for c in t.children(node) if t.named[c])

    def after(self, task: Task, accepted: bool, edits: Edits) -> Iterable[Task]:
        with self._lock:
            self.outstanding -= 1
            if self.outstanding > 0:
                return []
            if edits.is_live(self.table, self.current):
                self._enqueue_children(self.current)
            return self._next(edits)


@dataclass
class PairPlanner(NoSpeculation):
    """Over a token table: delete each balanced bracket pair, then each two adjacent tokens,
    as one candidate each (pairs.py says why); the largest first."""

    table: NodeTable

    def initial(self) -> Iterable[Task]:
        t = self.table
        kids = list(t.children(0))
        texts = [t.text(k).strip() for k in kids]
        found = balanced_pairs(texts) + adjacent_pairs(len(kids))
        return [Drop((kids[i], kids[j])) for i, j in dict.fromkeys(found)]

    def after(self, task: Task, accepted: bool, edits: Edits) -> Iterable[Task]:
        return ()
