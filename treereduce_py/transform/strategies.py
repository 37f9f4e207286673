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

import collections
import itertools
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

import tree_sitter

from treereduce_py.edit.cdd import DEFAULT_P0, ListSchedule, Round, cdd, ddmin
from treereduce_py.edit.edits import Edits
from treereduce_py.edit.tasks import (
    Delete,
    DeleteChunk,
    Drop,
    Hoist,
    Inline,
    Planner,
    Purge,
    Replace,
    Substitute,
    Task,
)
from treereduce_py.lang.syntax import NodeTable
from treereduce_py.transform.calls import redirect_tasks
from treereduce_py.transform.names import MergePlanner, RenamePlanner, inline_tasks, purge_tasks
from treereduce_py.transform.pairs import adjacent_pairs, balanced_pairs
from treereduce_py.transform.smtlib import SmtRules

TableKind = Literal["syntax", "lines", "tokens"]

# Hoisting candidates per node: the nearest compatible descendants, at most this many.
MAX_HOISTS = 4


class LanguageRules(Protocol):
    """A language's own knowledge of one parse (smtlib.SmtRules): which nodes may be deleted,
    what a node may become instead, and tasks to try first. It replaces the generic guesses
    (smallest node of the same kind, hoisting by kind)."""

    def can_delete(self, node: int) -> bool: ...

    def alternatives(self, node: int) -> list[Task]: ...

    def initial(self) -> list[Task]: ...

    @property
    def names(self) -> frozenset[bytes]:
        """The names the script declares, whatever their leaves' kind (for renaming)."""
        ...


# Languages with rules of their own: a builder per language name.
LANGUAGE_RULES: dict[str, Callable[[NodeTable], LanguageRules]] = {"smtlib": SmtRules.build}


@dataclass(frozen=True)
class SyntaxFacts:
    """What the planners know about one parse beyond the table: replacement hints, the
    grammar's supertypes (for hoisting compatibility) and the language's rules, if it has any."""

    replacements: dict[int, tuple[bytes, ...]] = field(default_factory=dict)
    smallest_of_kind: dict[str, bytes] = field(default_factory=dict)
    supertypes_of: dict[str, frozenset[str]] = field(default_factory=dict)
    rules: LanguageRules | None = None
    # Parent node -> groups of its children a query file says may be dropped together.
    drops: dict[int, tuple[tuple[int, ...], ...]] = field(default_factory=dict)
    # Declaration node -> inlining its value at its one use (a query file's @inline).
    inlines: dict[int, Inline] = field(default_factory=dict)
    # Definition node -> deleting it with the statements that use its name (@define).
    purges: dict[int, Purge] = field(default_factory=dict)
    # Call node -> pointing it at another function (a query file's @call; calls.py).
    redirects: dict[int, tuple[Substitute, ...]] = field(default_factory=dict)
    # Node -> descendants a query file says it may become (@hoist), beyond the grammar's.
    hoists: dict[int, tuple[int, ...]] = field(default_factory=dict)

    @classmethod
    def build(
        cls,
        table: NodeTable,
        language: tree_sitter.Language | None,
        hints: Sequence[tuple[int, int, int, bytes]] = (),
        drops: Sequence[tuple[tuple[int, int, int], ...]] = (),
        inlines: Sequence[tuple[tuple[int, int, int], ...]] = (),
        definitions: Sequence[tuple[tuple[int, int, int], ...]] = (),
        calls: Sequence[tuple[tuple[int, int, int], ...]] = (),
        hoists: Sequence[tuple[tuple[int, int, int], ...]] = (),
        *,
        lang: str = "",
        replacements: bool = True,
    ) -> SyntaxFacts:
        """`hints` are (start, end, kind_id, text) replacements found by the query files, `drops`
        the (start, end, kind_id) of nodes they say may be deleted together, `inlines` those of
        a declaration, its name and its value (`Hints.inlines`), `definitions` those of a
        definition and its name (`Hints.definitions`), `calls` those of a call, its callee and
        its arguments (`Hints.calls`), `hoists` those of a node and a descendant it may become
        (`Hints.hoists`), and `lang` names the language, for its
        rules (LANGUAGE_RULES).

        One sweep over the nodes, comparing sizes before any text is sliced: a 10 MB input has
        millions of nodes, and slicing each one's text would copy its depth times the input.
        Without `replacements`, only the supertypes (for hoisting) and the rules are gathered."""
        rules = LANGUAGE_RULES.get(lang)
        language_rules = rules(table) if rules is not None else None
        if not replacements:
            return cls(supertypes_of=_supertypes(language), rules=language_rules)
        wanted: dict[tuple[int, int, int], list[bytes]] = {}
        for start, end, kind, text in hints:
            wanted.setdefault((start, end, kind), []).append(text)
        groups = (*drops, *inlines, *definitions, *calls, *hoists)
        captured = {span for group in groups for span in group}
        found: dict[tuple[int, int, int], int] = {}  # a captured span -> its first node
        starts, ends, kinds, named = table.start, table.end, table.kind, table.named
        smallest_at: dict[int, tuple[int, int]] = {}  # kind id -> (size, node)
        replacements_at: dict[int, list[bytes]] = {}
        for i in range(len(table)):
            k = kinds[i]
            if captured and (key := (starts[i], ends[i], k)) in captured:
                found.setdefault(key, i)
            if not named[i]:
                continue
            size = ends[i] - starts[i]
            best = smallest_at.get(k)
            if best is None or size < best[0]:
                smallest_at[k] = (size, i)
            if wanted:
                texts = wanted.pop((starts[i], ends[i], k), None)  # the outermost such node
                if texts is not None:
                    replacements_at[i] = texts
        by_name: dict[str, tuple[int, int]] = {}  # several kind ids can share a name
        for size, i in sorted(smallest_at.values()):
            by_name.setdefault(table.kind_name(i), (size, i))
        smallest = {name: table.text(i) for name, (_, i) in by_name.items()}
        lifted: dict[int, list[int]] = {}
        for node_span, target_span in hoists:
            node, target = found.get(node_span, -1), found.get(target_span, -1)
            if node != -1 and target != -1 and table.size(target) < table.size(node):
                lifted.setdefault(node, []).append(target)
        dropped: dict[int, list[tuple[int, ...]]] = {}
        for group in drops:
            nodes = tuple(found.get(span, -1) for span in group)
            if nodes and -1 not in nodes:
                dropped.setdefault(table.parent[nodes[0]], []).append(nodes)
        return cls(
            {i: tuple(ts) for i, ts in replacements_at.items()},
            smallest,
            _supertypes(language),
            language_rules,
            {p: tuple(groups) for p, groups in dropped.items()},
            inline_tasks(table, [tuple(found.get(span, -1) for span in m) for m in inlines]),
            purge_tasks(table, [(found.get(d, -1), found.get(n, -1)) for d, n in definitions]),
            redirect_tasks(
                table,
                [(found.get(c, -1), found.get(f, -1), found.get(a, -1)) for c, f, a in calls],
                [(found.get(d, -1), found.get(n, -1)) for d, n in definitions],
            ),
            {node: tuple(targets) for node, targets in lifted.items()},
        )

    def compatible(self, a: str, b: str) -> bool:
        """Can a node of kind `b` stand where a node of kind `a` stands? Same kind, or both
        subtypes of one supertype (two kinds of `expression`), or both statement-like by name.

        The last rule covers grammars whose statements have no common supertype (Python splits
        them into simple and compound ones); a hoist the grammar does not allow there is caught
        by the syntax check before any test runs.
        """
        if a == b:
            return True
        sa = self.supertypes_of.get(a)
        sb = self.supertypes_of.get(b)
        if sa and sb and not sa.isdisjoint(sb):
            return True
        return _statement_like(a) and _statement_like(b)


def _supertypes(language: tree_sitter.Language | None) -> dict[str, frozenset[str]]:
    """Kind name -> the grammar's supertypes that include it."""
    supertypes_of: dict[str, set[str]] = {}
    if language is not None:
        for sup in language.supertypes:  # ids of the grammar's supertypes
            sup_name = language.node_kind_for_id(sup) or ""
            for sub in language.subtypes(sup):
                name = language.node_kind_for_id(sub) or ""
                supertypes_of.setdefault(name, set()).add(sup_name)
    return {k: frozenset(v) for k, v in supertypes_of.items()}


def _statement_like(kind: str) -> bool:
    return kind.endswith(_STATEMENT_SUFFIXES)


_STATEMENT_SUFFIXES = ("statement", "definition", "declaration")


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


class _ListReductions:
    """The state of every CDD/ddmin list reduction running in one pass.

    Each list reduction is a group of sibling nodes; its current round's chunks are independent
    `DeleteChunk` tasks. When the last chunk of a round has been answered, the group reads which
    of its nodes the global edits removed and asks the schedule for the next round.
    """

    def __init__(self, table: NodeTable, schedule: ListSchedule) -> None:
        self.table = table
        self.schedule = schedule
        self._lock = threading.Lock()
        self._groups: dict[int, tuple[list[int], Round, int]] = {}
        self._ids = itertools.count(1)

    def start(self, nodes: Sequence[int]) -> list[Task]:
        first = self.schedule.first(len(nodes))
        if first is None:
            return []
        with self._lock:
            gid = next(self._ids)
            self._groups[gid] = (list(nodes), first, len(first.chunks))
        return self._tasks(gid, list(nodes), first)

    def active(self, gid: int) -> bool:
        with self._lock:
            return gid in self._groups

    def finish(self, task: DeleteChunk, edits: Edits) -> list[Task]:
        """Record that a chunk was answered; the next round's tasks when the round is over.
        A chunk of no list reduction (a language rule's one-off chunk) has no next round."""
        with self._lock:
            if task.group not in self._groups:
                return []
            nodes, rnd, outstanding = self._groups[task.group]
            outstanding -= 1
            if outstanding > 0:
                self._groups[task.group] = (nodes, rnd, outstanding)
                return []
            deleted = frozenset(k for k, n in enumerate(nodes) if not edits.is_live(self.table, n))
            nxt = self.schedule.next(rnd, deleted)
            remaining = [n for k, n in enumerate(nodes) if k not in deleted]
            if nxt is None:
                del self._groups[task.group]
                return []
            self._groups[task.group] = (remaining, nxt, len(nxt.chunks))
        return self._tasks(task.group, remaining, nxt)

    def _tasks(self, gid: int, nodes: list[int], rnd: Round) -> list[Task]:
        out: list[Task] = []
        everything = range(len(nodes))
        for k, chunk in enumerate(rnd.chunks):
            picked = (
                [i for i in everything if i not in set(chunk)] if rnd.complement else list(chunk)
            )
            if picked:
                out.append(
                    DeleteChunk(
                        tuple(nodes[i] for i in picked), gid, rnd.counter, k, rnd.complement
                    )
                )
        if not out:  # a round with nothing to test still has to advance the group
            out.append(DeleteChunk((), gid, rnd.counter, 0, rnd.complement))
        with self._lock:
            nodes_, rnd_, _ = self._groups[gid]
            self._groups[gid] = (nodes_, rnd_, len(out))
        return out


class _NoSpeculation:
    """For planners whose follow-ups depend on the answer: nothing to start early."""

    def speculate(self, task: Task) -> Iterable[Task]:
        return ()


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
    explored child is also offered its replacements and hoists.
    """

    table: NodeTable
    facts: SyntaxFacts
    schedule: ListSchedule = field(default_factory=cdd)
    hoist: bool = True
    replace: bool = True

    def __post_init__(self) -> None:
        self.lists = _ListReductions(self.table, self.schedule)
        self._explored: set[int] = set()
        self._lock = threading.Lock()

    def initial(self) -> Iterable[Task]:
        rules = self.facts.rules
        return [Delete(0), *(rules.initial() if rules is not None else ())]

    def after(self, task: Task, accepted: bool, edits: Edits) -> Iterable[Task]:
        if isinstance(task, DeleteChunk):
            out = self.lists.finish(task, edits)
            if not accepted and len(task.nodes) == 1 and not task.complement:
                out.extend(self.inside(task.nodes[0]))
            return out
        if accepted:
            return ()
        if isinstance(task, Delete):
            return self.explore(task.node)
        # With rules, a node that cannot be deleted is explored once a mutation of it fails.
        if self.facts.rules is not None and isinstance(task, (Replace, Hoist)):
            return self.explore(task.node)
        return ()

    def speculate(self, task: Task) -> Iterable[Task]:
        """What a failure of `task` would explore, started while it is being tested."""
        if isinstance(task, Delete):
            return self.explore(task.node)
        if isinstance(task, DeleteChunk) and len(task.nodes) == 1 and not task.complement:
            return self.inside(task.nodes[0])
        return ()

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
        if self.facts.rules is not None:
            return self._explore_by_rules(self.facts.rules, kids, eager)
        groups = self.facts.drops.get(node, ()) if self.replace else ()
        drops: list[Task] = [Drop(nodes) for nodes in groups]
        return drops + self._explore_children(kids, eager)

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

    def _explore_by_rules(self, rules: LanguageRules, kids: list[int], eager: bool) -> list[Task]:
        """Only the children the rules let go are deleted (with CDD when there are LIST_MIN or
        more); the others get their mutations, and are explored when one fails (or at once,
        when they have none)."""
        table = self.table
        cut = [k for k in kids if rules.can_delete(k) and table.size(k) > 0]
        out: list[Task] = self.lists.start(cut) if len(cut) >= LIST_MIN else []
        for k in kids:
            if k in cut and len(cut) >= LIST_MIN:
                out.extend(self.inside(k, eager=False) if eager else ())
            elif k in cut:
                out.append(Delete(k))
                out.extend(self.alternatives(k))
            else:
                mutations = self.alternatives(k)
                out.extend(mutations or self.explore(k))
        return out

    def alternatives(self, c: int) -> list[Task]:
        """Replacements and hoists for node `c` (tried when deleting it failed)."""
        table, facts = self.table, self.facts
        out: list[Task] = []
        if facts.rules is not None:
            return [
                *(Replace(c, r) for r in facts.replacements.get(c, ())),
                *facts.rules.alternatives(c),
            ]
        if self.replace:
            size = table.size(c)
            out.extend(Replace(c, r) for r in facts.replacements.get(c, ()))
            kind = table.kind_name(c)
            small = facts.smallest_of_kind.get(kind)
            # Renaming one occurrence of a name almost never keeps a program meaningful; the
            # rename stage renames all occurrences together instead.
            if small is not None and len(small) < size and "identifier" not in kind:
                out.append(Replace(c, small))
        if self.hoist:
            grammar = chi(table, facts, c)
            out.extend(Hoist(c, d) for d in grammar)
            out.extend(Hoist(c, d) for d in facts.hoists.get(c, ()) if d not in grammar)
        if self.replace and c in facts.inlines:
            out.append(facts.inlines[c])
        if self.replace and c in facts.purges:
            out.append(facts.purges[c])
        if self.replace:
            out.extend(facts.redirects.get(c, ()))
        return out


@dataclass
class FlatPlanner(_NoSpeculation):
    """Reduce the root's children (the lines or tokens) as one list with the list schedule."""

    table: NodeTable
    schedule: ListSchedule = field(default_factory=cdd)

    def __post_init__(self) -> None:
        self.lists = _ListReductions(self.table, self.schedule)

    def initial(self) -> Iterable[Task]:
        return self.lists.start(list(self.table.children(0)))

    def after(self, task: Task, accepted: bool, edits: Edits) -> Iterable[Task]:
        if isinstance(task, DeleteChunk):
            return self.lists.finish(task, edits)
        return ()


@dataclass
class LevelPlanner(_NoSpeculation):
    """HDD (Misherghi and Su): the live named nodes of one depth form one list; when its
    reduction is over, the next depth's nodes do (seed 002, ch. 2)."""

    table: NodeTable
    schedule: ListSchedule = field(default_factory=ddmin)

    def __post_init__(self) -> None:
        self.lists = _ListReductions(self.table, self.schedule)
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
        out = self.lists.finish(task, edits)
        with self._lock:
            if out or self.lists.active(task.group):
                return out
            return self._level(edits)


@dataclass
class BreadthFirstPlanner(_NoSpeculation):
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
class PairPlanner(_NoSpeculation):
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


PlannerKind = Literal["tree", "flat", "levels", "breadth-first", "rename", "merge", "pairs"]
ScheduleName = Literal["cdd", "ddmin"]
StageOption = Literal["schedule", "hoist", "replace"]

SCHEDULES: dict[ScheduleName, Callable[[float], ListSchedule]] = {
    "cdd": lambda p0: cdd(p0, adaptive=True),
    "ddmin": lambda p0: ddmin(),
}


@dataclass(frozen=True)
class PlannerKindSpec:
    """How to build one kind of planner, and which stage options it honours."""

    build: Callable[[NodeTable, SyntaxFacts, ListSchedule, bool, bool], Planner]
    honours: frozenset[StageOption]


# Arguments of each builder: table, facts, list schedule, hoist, replace.
PLANNERS: dict[PlannerKind, PlannerKindSpec] = {
    "tree": PlannerKindSpec(
        lambda t, f, s, h, r: TreePlanner(t, f, s, hoist=h, replace=r),
        frozenset({"schedule", "hoist", "replace"}),
    ),
    "flat": PlannerKindSpec(lambda t, f, s, h, r: FlatPlanner(t, s), frozenset({"schedule"})),
    "levels": PlannerKindSpec(lambda t, f, s, h, r: LevelPlanner(t, s), frozenset({"schedule"})),
    "breadth-first": PlannerKindSpec(
        lambda t, f, s, h, r: BreadthFirstPlanner(t, f, hoist=h, replace=r),
        frozenset({"hoist", "replace"}),
    ),
    "rename": PlannerKindSpec(
        lambda t, f, s, h, r: RenamePlanner(t, f.rules.names if f.rules else frozenset()),
        frozenset(),
    ),
    "merge": PlannerKindSpec(lambda t, f, s, h, r: MergePlanner(t), frozenset()),
    "pairs": PlannerKindSpec(lambda t, f, s, h, r: PairPlanner(t), frozenset()),
}


@dataclass(frozen=True)
class Stage:
    """One stage of a strategy: passes of one planner over one kind of table, repeated on the
    re-parsed result until a pass changes nothing.

    `schedule`, `hoist` and `replace` left as None take the planner's defaults (CDD, on, on);
    setting one the planner kind does not honour is a ValueError, never silently ignored.
    """

    name: str
    table: TableKind
    planner_kind: PlannerKind
    schedule: ScheduleName | None = None
    hoist: bool | None = None
    replace: bool | None = None

    def __post_init__(self) -> None:
        given = {"schedule": self.schedule, "hoist": self.hoist, "replace": self.replace}
        ignored = sorted(k for k, v in given.items() if v is not None and k not in self.honours)
        if ignored:
            raise ValueError(
                f"stage {self.name!r}: the {self.planner_kind} planner does not honour "
                + ", ".join(ignored)
            )

    @property
    def honours(self) -> frozenset[StageOption]:
        return PLANNERS[self.planner_kind].honours

    def planner(self, table: NodeTable, facts: SyntaxFacts, p0: float = DEFAULT_P0) -> Planner:
        schedule = SCHEDULES[self.schedule or "cdd"](p0)
        hoist = self.hoist if self.hoist is not None else True
        replace = self.replace if self.replace is not None else True
        return PLANNERS[self.planner_kind].build(table, facts, schedule, hoist, replace)


@dataclass(frozen=True)
class Strategy:
    name: str
    description: str
    stages: tuple[Stage, ...]


STRATEGIES: dict[str, Strategy] = {}


def register(strategy: Strategy) -> Strategy:
    STRATEGIES[strategy.name] = strategy
    return strategy


_DDMIN_STAGES = (
    Stage("ddmin-lines", "lines", "flat", "ddmin"),
    Stage("ddmin-tokens", "tokens", "flat", "ddmin"),
)
_HIERARCHICAL = Stage("hierarchical", "syntax", "breadth-first")

register(
    Strategy(
        "priority",
        "treereduce (seed 001): largest subtree first over the whole tree; child lists with CDD; "
        "hoisting and minimal replacements",
        (Stage("tree", "syntax", "tree"),),
    )
)
register(
    Strategy(
        "hdd",
        "HDD: level by level, ddmin over the nodes of each level (deletion only)",
        (Stage("hdd", "syntax", "levels", "ddmin"),),
    )
)
register(
    Strategy(
        "hierarchical",
        "ddSMT's hierarchical: breadth-first, every mutation of one node at a time",
        (_HIERARCHICAL,),
    )
)
register(Strategy("ddmin", "classic ddmin over lines, then tokens (syntax-unaware)", _DDMIN_STAGES))
register(
    Strategy(
        "hybrid",
        "ddSMT's default: ddmin to a fixed point, then hierarchical",
        (*_DDMIN_STAGES, _HIERARCHICAL),
    )
)

DEFAULT_STRATEGY = "priority"
# DDMIN* after the tree passes (seed 002, ch. 5): lines, then tokens, each to a fixed point;
# then token pairs, which neither finds one at a time.
POLISH_STAGES = (
    Stage("lines", "lines", "flat"),
    Stage("tokens", "tokens", "flat"),
    Stage("pairs", "tokens", "pairs"),
)
RENAME_STAGE = Stage("rename", "syntax", "rename")
MERGE_STAGE = Stage("merge", "syntax", "merge")
