"""Reduction tasks: small frozen values saying which edit to try, each kind carrying its behaviour.

A task names nodes of the pass's `NodeTable`. Its kind says how it applies: `replacements` turns
it into concrete (node, replacement) pairs against the *current* edits, so a task created
against an older version can be re-applied after another worker committed (the optimistic
rebase); a task whose nodes vanished under a committed edit simply no longer applies. Its kind
also names the nodes it edits (`edited`: its footprint, for the engine's independence test, and
its anchor) and its expected gain. A new kind is one subclass of `Task` and the planner line
that makes it (docs/design.md, "Adding a task kind").

`gain` is the number of bytes the task is expected to remove: the task heap pops the largest gain
first (PARDIS's priority, seed 001), and ties are broken by the node's position so the order does
not depend on thread timing.
"""

from __future__ import annotations

import bisect
from abc import abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from treereduce_py.edit.edits import Edits, render
from treereduce_py.lang.syntax import NodeTable

Pairs = list[tuple[int, bytes]]


class Task:
    """One edit to try. A kind is a frozen dataclass subclassing this: its fields name the nodes
    (its repr is the heap's last tie-break, so it must be deterministic), its methods say how it
    applies. The methods are abstract for mypy only: no ABCMeta, so `isinstance` on a kind stays
    a plain type check in the planners' hot paths."""

    @abstractmethod
    def replacements(self, table: NodeTable, edits: Edits) -> Pairs | None:
        """The (node, replacement) pairs the task adds to `edits`, or None when nothing of it
        is left (`edits.with_edits` may still refuse them, when a node lies inside an edited
        subtree)."""

    @abstractmethod
    def edited(self) -> tuple[int, ...]:
        """The nodes whose subtrees the task replaces (its separators aside), first node first."""

    @abstractmethod
    def gain(self, table: NodeTable) -> int:
        """Bytes the task removes from the original text of the pass (an upper bound later on)."""

    def anchor(self) -> int:
        """The first node the task touches: the deterministic tie-break between equal gains."""
        nodes = self.edited()
        return nodes[0] if nodes else 0


@dataclass(frozen=True)
class Delete(Task):
    """Delete a node's subtree (and the list separator next to it)."""

    node: int

    def replacements(self, table: NodeTable, edits: Edits) -> Pairs | None:
        return deletion(table, edits, self.node)

    def edited(self) -> tuple[int, ...]:
        return (self.node,)

    def gain(self, table: NodeTable) -> int:
        return table.size(self.node)


@dataclass(frozen=True)
class Replace(Task):
    """Replace a node by a fixed, shorter text (a minimal fragment such as `{}` or `0`)."""

    node: int
    text: bytes

    def replacements(self, table: NodeTable, edits: Edits) -> Pairs | None:
        return [(self.node, self.text)] if edits.is_live(table, self.node) else None

    def edited(self) -> tuple[int, ...]:
        return (self.node,)

    def gain(self, table: NodeTable) -> int:
        return table.size(self.node) - len(self.text)


@dataclass(frozen=True)
class Hoist(Task):
    """Replace a node by one of its descendants (`5 + (3 * y)` -> `y`)."""

    node: int
    target: int

    def replacements(self, table: NodeTable, edits: Edits) -> Pairs | None:
        if not edits.is_live(table, self.node) or not edits.is_live(table, self.target):
            return None
        return [(self.node, render(table, edits, self.target))]

    def edited(self) -> tuple[int, ...]:
        return (self.node,)

    def gain(self, table: NodeTable) -> int:
        return table.size(self.node) - table.size(self.target)


@dataclass(frozen=True)
class DeleteChunk(Task):
    """Delete several sibling nodes at once: one chunk of a CDD/ddmin round over a child list.

    `group` identifies the list reduction this chunk belongs to (the strategy keeps its state);
    `round` and `index` identify the chunk within it.
    """

    nodes: tuple[int, ...]
    group: int = 0
    round: int = 0
    index: int = 0
    complement: bool = field(default=False)

    def replacements(self, table: NodeTable, edits: Edits) -> Pairs | None:
        pairs: Pairs = []
        taken: set[int] = set()
        parent, edited = table.parent, edits.replacements
        # Siblings of a live parent are live unless edited themselves: one dict lookup each
        # instead of a bisection (a chunk of a 10 MB file has ten thousand nodes).
        p = parent[self.nodes[0]] if self.nodes else -1
        siblings = p != -1 and edits.is_live(table, p)
        for n in self.nodes:
            if n in taken:
                continue
            if siblings and parent[n] == p:
                if n in edited:
                    continue  # already gone: the rest of the chunk still applies
            elif not edits.is_live(table, n):
                continue
            more = deletion(table, edits, n, taken, live=True)
            taken.update(m for m, _ in more)
            pairs.extend(more)
        return pairs or None

    def edited(self) -> tuple[int, ...]:
        return self.nodes

    def gain(self, table: NodeTable) -> int:
        return sum(table.size(n) for n in self.nodes)


@dataclass(frozen=True)
class Rename(Task):
    """Give every occurrence of one identifier a shorter name (`--rename`, as C-Reduce does)."""

    nodes: tuple[int, ...]
    text: bytes

    def replacements(self, table: NodeTable, edits: Edits) -> Pairs | None:
        live = [(n, self.text) for n in self.nodes if edits.is_live(table, n)]
        return live or None

    def edited(self) -> tuple[int, ...]:
        return self.nodes

    def gain(self, table: NodeTable) -> int:
        return sum(table.size(n) - len(self.text) for n in self.nodes)


@dataclass(frozen=True)
class Substitute(Task):
    """Replace several nodes together, each by its own text: a variable by a constant at every
    use, and its declaration by nothing (ddSMT's variable elimination, smtlib.py)."""

    pairs: tuple[tuple[int, bytes], ...]

    def replacements(self, table: NodeTable, edits: Edits) -> Pairs | None:
        live = [(n, text) for n, text in self.pairs if edits.is_live(table, n)]
        return live or None

    def edited(self) -> tuple[int, ...]:
        return tuple(n for n, _ in self.pairs)

    def gain(self, table: NodeTable) -> int:
        return sum(table.size(n) - len(text) for n, text in self.pairs)


@dataclass(frozen=True)
class Drop(Task):
    """Delete several nodes together: an optional part and its punctuation (`: int`, `-> str`,
    from a query file's `@drop`), or a balanced pair of tokens (`(` with its `)`)."""

    nodes: tuple[int, ...]

    def replacements(self, table: NodeTable, edits: Edits) -> Pairs | None:
        if not all(edits.is_live(table, n) for n in self.nodes):
            return None  # all or nothing: half a pair is not what was asked
        return [(n, b"") for n in self.nodes]

    def edited(self) -> tuple[int, ...]:
        return self.nodes

    def gain(self, table: NodeTable) -> int:
        return sum(table.size(n) for n in self.nodes)


@dataclass(frozen=True)
class Inline(Task):
    """Delete a declaration and put its value, as it reads now, where its one use was
    (`y = a + b; f(y)` -> `f((a + b))`); `parens` wraps the value (the pair stage drops them
    later where the test allows)."""

    decl: int
    use: int
    value: int
    parens: bool = True

    def replacements(self, table: NodeTable, edits: Edits) -> Pairs | None:
        if not all(edits.is_live(table, n) for n in (self.decl, self.use, self.value)):
            return None
        value = render(table, edits, self.value)
        return [
            *deletion(table, edits, self.decl),
            (self.use, b"(%s)" % value if self.parens else value),
        ]

    def edited(self) -> tuple[int, ...]:
        return (self.decl, self.use)

    def gain(self, table: NodeTable) -> int:
        return table.size(self.decl) + table.size(self.use) - table.size(self.value) - 2


@dataclass(frozen=True)
class Purge(Task):
    """Delete a definition together with the statements that use its name (`class Rule3 {...}`
    with `rules.add(new Rule3());`): neither can go alone when one needs the other, both can
    go together. Uses already gone are skipped; without its definition the task is void."""

    definition: int
    uses: tuple[int, ...]

    def replacements(self, table: NodeTable, edits: Edits) -> Pairs | None:
        if not edits.is_live(table, self.definition):
            return None
        pairs = deletion(table, edits, self.definition, live=True)
        taken = {n for n, _ in pairs}
        for n in self.uses:
            if n not in taken and edits.is_live(table, n):
                more = deletion(table, edits, n, taken, live=True)
                taken.update(m for m, _ in more)
                pairs.extend(more)
        return pairs

    def edited(self) -> tuple[int, ...]:
        return (self.definition, *self.uses)

    def gain(self, table: NodeTable) -> int:
        return table.size(self.definition) + sum(table.size(n) for n in self.uses)


class Planner(Protocol):
    """The tasks of one pass: the first ones, and the follow-ups of each answered task.

    `after` may be called from any worker thread. `speculate` returns the tasks `after` would
    return if `task` failed, before its answer is known, so idle workers can start on them;
    with `passed`, `task` passed on a state a commit had overtaken and waits for its merge
    (which nearly always passes): what would follow its acceptance. A planner returns each
    such task once (from `speculate` or from `after`, never both).
    `wanted` is False for a task speculated on an assumption that turned out wrong: the engine
    settles it (as accepted: no follow-ups) without a test.
    """

    def initial(self) -> Iterable[Task]: ...

    def after(self, task: Task, accepted: bool, edits: Edits) -> Iterable[Task]: ...

    def speculate(self, task: Task, passed: bool = False) -> Iterable[Task]: ...

    def wanted(self, task: Task) -> bool: ...


class NoSpeculation:
    """For planners whose follow-ups depend on the answer: nothing to start early, nothing
    dropped."""

    def speculate(self, task: Task, passed: bool = False) -> Iterable[Task]:
        return ()

    def wanted(self, task: Task) -> bool:
        return True


Footprint = tuple[tuple[int, ...], tuple[int, ...]]

# A task editing more nodes than this (a chunk of a long list) gets one range around them all:
# its exact footprint would cost a sort of its nodes at every pop, under the heap's lock.
FOOTPRINT_NODES = 64


def footprint(table: NodeTable, task: Task) -> Footprint:
    """The index ranges of the subtrees `task` edits, as sorted starts and ends of disjoint
    ranges (a range inside another is left out): two tasks whose footprints overlap cannot both
    be committed as they were tested, so the engine does not run them at the same time while it
    has independent work."""
    nodes = task.edited()
    if len(nodes) > FOOTPRINT_NODES:  # one range around them all: cheap, and rarely too wide
        return (min(nodes),), (max(map(table.last.__getitem__, nodes)),)
    return _merged(sorted((n, table.last[n]) for n in nodes))


def cover(prints: Iterable[Footprint]) -> Footprint:
    """One footprint that overlaps what any of `prints` overlaps: the engine checks a task
    against every running test at once."""
    return _merged(sorted(r for starts, ends in prints for r in zip(starts, ends, strict=True)))


def _merged(ranges: list[tuple[int, int]]) -> Footprint:
    """Sorted index ranges as a footprint: those that overlap merged into one."""
    starts: list[int] = []
    ends: list[int] = []
    for lo, hi in ranges:
        if ends and lo <= ends[-1]:
            ends[-1] = max(ends[-1], hi)
        else:
            starts.append(lo)
            ends.append(hi)
    return tuple(starts), tuple(ends)


def overlap(a: Footprint, b: Footprint) -> bool:
    """Whether two footprints share a node: each range of the shorter is looked up in the
    longer by bisection."""
    if len(a[0]) > len(b[0]):
        a, b = b, a
    starts, ends = b
    if not starts or not a[0] or a[0][0] > ends[-1] or a[1][-1] < starts[0]:
        return False
    for lo, hi in zip(*a, strict=True):
        k = bisect.bisect_right(starts, hi) - 1  # the last range of b starting by hi
        if k >= 0 and ends[k] >= lo:
            return True
    return False


def anchor(task: Task) -> int:
    """The first node a task touches: the deterministic tie-break between equal gains."""
    return task.anchor()


def within(a: Footprint, b: Footprint) -> bool:
    """Whether every range of `a` lies inside one range of `b`: when what `b` edits is
    committed, `a` no longer applies."""
    starts, ends = b
    for lo, hi in zip(*a, strict=True):
        k = bisect.bisect_right(starts, lo) - 1  # the last range of b starting by lo
        if k < 0 or ends[k] < hi:
            return False
    return True


def gain(table: NodeTable, task: Task) -> int:
    """Bytes the task removes from the original text of the pass (an upper bound later on)."""
    return task.gain(table)


def task_edits(table: NodeTable, edits: Edits, task: Task) -> Edits | None:
    """The edits with `task` applied, or None when the task no longer applies to them."""
    pairs = task.replacements(table, edits)
    return None if pairs is None else edits.with_edits(table, pairs)


def task_pairs(table: NodeTable, edits: Edits, task: Task) -> Pairs | None:
    """The (node, replacement) pairs `task` adds to `edits`, or None when nothing of it is left
    (`edits.with_edits` may still refuse them, when a node lies inside an edited subtree)."""
    return task.replacements(table, edits)


def deletion(
    table: NodeTable,
    edits: Edits,
    node: int,
    taken: set[int] | None = None,
    live: bool = False,
) -> Pairs:
    """The pairs that delete `node` and its list separator: what a kind that deletes a node
    returns. Nodes in `taken` are being deleted alongside; `live` says the caller knows `node`
    is live."""
    if table.parent[node] not in table.lists or not (live or edits.is_live(table, node)):
        return [(node, b"")]  # no separator to find (or the task no longer applies)
    edited = edits.replacements

    # `node` is live, so its parent is: a sibling is gone only when it is edited itself.
    def gone(j: int) -> bool:
        return j in edited or (taken is not None and j in taken)

    sep = table.separator_for(node, gone)
    return [(node, b"")] if sep is None else [(node, b""), (sep, b"")]
