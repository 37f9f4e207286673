"""List reductions in rounds: a CDD/ddmin round's chunks as independent tasks, and the next
round started before the current one is over.

A list reduction is a group of sibling nodes; each round of its schedule (edit/cdd.py) is a set
of `DeleteChunk` tasks that any worker may test. When the last chunk of a round is answered, the
group reads which of its nodes the edits removed and asks the schedule for the next round.

Planned only then, the next round leaves workers idle at the end of each round: in the first
quarter of a run the rounds over the top-level list kept 3-4 tests running at 8 jobs. So when
at most `AHEAD_OUT` chunks of a round are out (in parallel mode), a chunk being
tested or just failed also starts its list's next round, assuming the chunks still out all fail
(C-Reduce's speculation past failures). A schedule is a function of
the round and the deleted indices, so when the round ends with the deletions assumed, the round
started early *is* the next round and the answers it already has count. Otherwise it is dropped
and the next round computed as without it; its chunks not tested yet are dropped too (`wanted`
says so to the engine, which settles them without a test): they were cut for a list that no
longer exists, and testing them cost the previous attempt at this (branch `engine`, 2830fb9)
about 9% more tests at 8 jobs.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from treereduce_py.edit.cdd import CDD, ListSchedule, Round, by_weight
from treereduce_py.edit.edits import Edits
from treereduce_py.edit.tasks import DeleteChunk, Task
from treereduce_py.lang.syntax import NodeTable

# The next round is started early only while at most this many chunks of the current one are
# out: all of them must fail for it to hold (most chunks fail, but few of ten all do; with no
# limit, 2 to 6 of 10-12 early rounds held at 2 to 8 jobs and the rest cost tests).
AHEAD_OUT = 2


@dataclass
class _Ahead:
    """A group's next round started early, assuming the chunks of the current round still out
    all fail: the indices it assumed deleted, its list, round and tasks, and those answered."""

    deleted: frozenset[int]
    nodes: list[int]
    round: Round
    tasks: list[Task]
    answered: set[Task] = field(default_factory=set)
    members: set[Task] = field(init=False)

    def __post_init__(self) -> None:
        self.members = set(self.tasks)


@dataclass
class _Group:
    """One list reduction: its list at the start of the current round, the round, its chunks
    not answered yet, the indices its accepted chunks deleted, and the next round if started
    early (`ahead`)."""

    nodes: list[int]
    round: Round
    waiting: set[Task]
    deleted: set[int] = field(default_factory=set)
    ahead: _Ahead | None = None
    # Chunks of `waiting` that passed on a state a commit had overtaken: their merge is pending
    # (and nearly always passes).
    passed: set[DeleteChunk] = field(default_factory=set)
    _index: dict[int, int] | None = None

    def indices(self, chunk: DeleteChunk) -> Iterator[int]:
        """The positions in the list of `chunk`'s nodes that are in it; the map is built once
        a round (building it per chunk was quadratic)."""
        if self._index is None:
            self._index = {n: k for k, n in enumerate(self.nodes)}
        found = (self._index.get(n) for n in chunk.nodes)
        return (k for k in found if k is not None)


class ListReductions:
    """The state of every CDD/ddmin list reduction running in one pass; thread-safe."""

    def __init__(self, table: NodeTable, schedule: ListSchedule) -> None:
        self.table = table
        self.schedule = schedule
        self._lock = threading.Lock()
        self._groups: dict[int, _Group] = {}
        # The chunks of dropped rounds not answered yet, by identity: the next round may cut an
        # equal chunk, which is wanted.
        self._dropped: dict[int, Task] = {}
        self._ids = itertools.count(1)

    def start(self, nodes: Sequence[int]) -> list[Task]:
        """The first round's chunks of a new list reduction over `nodes` (none if empty)."""
        first = self.schedule.first(len(nodes))
        if first is None:
            return []
        first = self._cut(first, nodes)
        with self._lock:
            gid = next(self._ids)
        tasks = self._tasks(gid, list(nodes), first)
        with self._lock:
            self._groups[gid] = _Group(list(nodes), first, set(tasks))
        return tasks

    def active(self, gid: int) -> bool:
        with self._lock:
            return gid in self._groups

    def wanted(self, task: Task) -> bool:
        """False for a chunk of a round started early and then dropped: it is not to be tested."""
        with self._lock:
            return id(task) not in self._dropped

    def speculate(self, task: DeleteChunk, passed: bool = False) -> list[Task]:
        """The next round of `task`'s list, if the chunks of its round still out all fail; once
        a round, while `task` is of that round (being tested, or just answered) and one to
        `AHEAD_OUT` of its chunks are out. Or, when chunks of the round passed on a state a
        commit had overtaken (`passed`: `task` is one) and wait for their merge, once none is
        out, assuming the merge passes: a round whose chunks mostly pass (the first rounds over
        a long list) then goes on while the merge is tested, on the union it projects, instead
        of after it."""
        with self._lock:
            group = self._groups.get(task.group)
            if group is None:
                return []
            if passed and task in group.waiting:
                group.passed.add(task)
            if group.ahead is not None:
                return []
            current = (task.round, task.complement) == (group.round.counter, group.round.complement)
            out = len(group.waiting) - len(group.passed)
            # With chunks waiting for a merge, only once none is out: the first rounds over a
            # long list pass chunk after chunk, so one still out would likely pass too.
            if not (current and (out == 0 if group.passed else 0 < out <= AHEAD_OUT)):
                return []
            deleted = set(group.deleted)
            for chunk in group.passed:
                deleted.update(group.indices(chunk))
            nxt = self.schedule.next(group.round, frozenset(deleted))
            if nxt is None:
                return []
            nodes = [n for k, n in enumerate(group.nodes) if k not in deleted]
            nxt = self._cut(nxt, nodes)
            tasks = self._tasks(task.group, nodes, nxt)
            group.ahead = _Ahead(frozenset(deleted), nodes, nxt, tasks)
            return tasks

    def finish(self, task: DeleteChunk, accepted: bool, edits: Edits) -> list[Task]:
        """Record that a chunk was answered (`accepted`: its edit is in, or moot); the next
        round's tasks when the round is over, none when that round was started early and its
        assumption held. A chunk of no list reduction (a language rule's one-off chunk, or one
        of a dropped round) has no next round."""
        with self._lock:
            group = self._groups.get(task.group)
            if self._dropped.pop(id(task), None) is not None or group is None:
                return []
            if task not in group.waiting:
                if group.ahead is not None and task in group.ahead.members:
                    group.ahead.answered.add(task)
                return []
            group.waiting.discard(task)
            group.passed.discard(task)
            if accepted:
                group.deleted.update(group.indices(task))
            return self._advance(task.group, group, edits)

    def _advance(self, gid: int, group: _Group, edits: Edits) -> list[Task]:
        """Under the lock: the next round once `group`'s round is over (its early round, if
        its assumption held and it has chunks still to answer)."""
        while not group.waiting:
            gone = [not edits.is_live(self.table, n) for n in group.nodes]
            deleted = frozenset(k for k, g in enumerate(gone) if g)
            ahead, group.ahead = group.ahead, None
            if ahead is not None and ahead.deleted == deleted:
                waiting = set(ahead.tasks) - ahead.answered
                done = {k for k, n in enumerate(ahead.nodes) if not edits.is_live(self.table, n)}
                group = _Group(ahead.nodes, ahead.round, waiting, done)
                self._groups[gid] = group
                continue  # the round started early is the round; over already if all answered
            if ahead is not None:
                self._dropped.update((id(t), t) for t in ahead.tasks if t not in ahead.answered)
            nxt = self.schedule.next(group.round, deleted)
            if nxt is None:
                del self._groups[gid]
                return []
            remaining = [n for k, n in enumerate(group.nodes) if k not in deleted]
            nxt = self._cut(nxt, remaining)
            tasks = self._tasks(gid, remaining, nxt)
            self._groups[gid] = _Group(remaining, nxt, set(tasks))
            return tasks
        return []

    def _cut(self, rnd: Round, nodes: Sequence[int]) -> Round:
        """The round as the schedule cut it, or by the nodes' bytes (WDD, `CDD.by_bytes`)."""
        if isinstance(self.schedule, CDD) and self.schedule.by_bytes:
            return by_weight(rnd, [self.table.size(n) for n in nodes])
        return rnd

    @staticmethod
    def _tasks(gid: int, nodes: list[int], rnd: Round) -> list[Task]:
        out: list[Task] = []
        everything = range(len(nodes))
        for k, chunk in enumerate(rnd.chunks):
            if rnd.complement:
                inside = set(chunk)
                picked = [i for i in everything if i not in inside]
            else:
                picked = list(chunk)
            if picked:
                out.append(
                    DeleteChunk(
                        tuple(nodes[i] for i in picked), gid, rnd.counter, k, rnd.complement
                    )
                )
        if not out:  # a round with nothing to test still has to advance the group
            out.append(DeleteChunk((), gid, rnd.counter, 0, rnd.complement))
        return out
