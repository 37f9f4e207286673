"""What the running tests and the proposals waiting for their merge edit (parallel mode), so that
a worker starts independent work.

Two tasks on one node (its alternatives, or a deletion and the children speculated under it)
cannot both be committed: when the first succeeds, the second's test is lost. So a worker
prefers the best task that edits none of the nodes the running tests and the held proposals
edit, and starts a dependent one only when nothing independent is near the top of the heap
(speculation, rather than idling), and not at all while a test it overlaps is worth `DECLINE`
times more: it waits for that answer instead. A held proposal counts as a running test: its
merge will almost surely pass. The whole text's deletion blocks nothing: it almost never passes,
and the first round over the top-level list would wait a test-time for it.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterable, Sequence

from treereduce_py.edit.tasks import Delete, Footprint, Task, cover, footprint, gain, overlap
from treereduce_py.engine.passes import DECLINE
from treereduce_py.lang.syntax import NodeTable


def blocks_nothing(task: object) -> bool:
    """Whether `task` is the whole text's deletion (the tree pass's first task)."""
    return isinstance(task, Delete) and task.node == 0


class Claims:
    """The footprints (tasks.footprint) and gains of each worker's running task and of the held
    proposals, behind one lock; thread-safe."""

    def __init__(self, table: NodeTable) -> None:
        self.table = table
        self.lock = threading.Lock()
        self.running: dict[int, tuple[Footprint, int]] = {}  # worker -> what its task edits, gain
        self.held: dict[Task, tuple[Footprint, int]] = {}  # proposals not settled yet, likewise
        # The union of those footprints, rebuilt after a change (None): a task is checked
        # against all of them with one lookup.
        self.busy: Footprint | None = None
        # Footprint and gain of each task a pop has looked at, until it is taken: a declined
        # task is looked at again at every pop (id -> task, footprint, gain; holding the task
        # keeps its id from being reused while the entry is there).
        self.prints: dict[int, tuple[Task, Footprint, int]] = {}

    def claim(self, worker: int, task: Task, taken: bool, also: Sequence[Footprint] = ()) -> bool:
        """Whether `task` is independent of the tasks other workers are testing and of the held
        proposals (it edits none of their nodes, nor any of `also`), claiming it for `worker`
        if so, or if `taken` anyway (the heap's best, when nothing near the top is independent)
        unless a test it overlaps is worth `DECLINE` times more."""
        known = self.prints.get(id(task))
        if known is None:
            known = (task, footprint(self.table, task), gain(self.table, task))
            self.prints[id(task)] = known
        _, mine, worth = known
        if not taken and any(overlap(mine, fp) for fp in also):
            return False
        with self.lock:
            if not taken:
                if self.busy is None:
                    self.busy = cover(fp for fp, _ in self._footprints())
                if overlap(mine, self.busy):
                    return False
            else:
                over = [g for fp, g in self._footprints() if overlap(mine, fp)]
                if over and max(over) >= DECLINE * worth:
                    return False
            self.running[worker] = (((), ()) if blocks_nothing(task) else mine, worth)
            self.busy = None
        return True

    def ended(self, worker: int) -> None:
        """`worker`'s task is over."""
        with self.lock:
            self.running.pop(worker, None)
            self.busy = None

    def forget(self, item: object) -> None:
        """`item` left the heap: its looked-at footprint goes."""
        self.prints.pop(id(item), None)

    def hold(self, tasks: Iterable[Task]) -> None:
        """`tasks` are proposals waiting for their merge."""
        held = {t: (footprint(self.table, t), gain(self.table, t)) for t in tasks}
        with self.lock:
            self.held.update(held)
            self.busy = None

    def release(self, tasks: Iterable[Task]) -> None:
        """`tasks` were settled: held no longer."""
        with self.lock:
            for task in tasks:
                self.held.pop(task, None)
            self.busy = None

    def _footprints(self) -> Iterable[tuple[Footprint, int]]:
        """What the running tests and the held proposals edit, with their gains (the caller
        holds `lock`)."""
        return itertools.chain(self.running.values(), self.held.values())
