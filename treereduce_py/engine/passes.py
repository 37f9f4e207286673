"""One pass of the engine over one node table: the committed state, a task applied to it as a
candidate, and the one way the state changes.

A pass works on one `NodeTable`. Its state is the edits committed so far and the text they make;
a task of the planner, applied to a state, is a candidate (the new edits, what they change in
the state's text, and the resulting text). Every change of the state and the best goes through
`Pass.commit`, which hands the judge's `Interesting` answer to the commit service (commit.py):
only the oracle can make a candidate interesting, so no uninteresting candidate is ever
committed. An answered task is settled: the planner's follow-ups are queued on the pass's heap.
How the heap is worked is the mode's: `Parallel` (parallel.py) or `InOrder` for
`--deterministic` (inorder.py).
"""

from __future__ import annotations

import concurrent.futures
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from treereduce_py.edit.edits import Edits, Span, apply, shifts, spans_since
from treereduce_py.edit.order import shorter
from treereduce_py.edit.tasks import Planner, Task, anchor, gain, task_pairs
from treereduce_py.engine.commit import Committer
from treereduce_py.engine.heap import TaskHeap
from treereduce_py.judge.judge import Interesting, Judge, PassJudge
from treereduce_py.lang.syntax import NodeTable

# A worker waits rather than start a task that overlaps a running test worth this many times
# more: if that test passes (a chunk of a long list usually does), the task's test is lost.
# (Deterministic mode keeps a task out of a group on the same rule.)
DECLINE = 4


class Workers(Protocol):
    """What a pass needs of the engine that runs it (engine.py's `Engine`)."""

    judge: Judge
    committer: Committer
    jobs: int
    progress_interval: float

    def progress(self) -> None: ...


@dataclass(frozen=True)
class State:
    """A committed state: its edits, its text, and the edits' prefix sums of length changes
    (`edits.shifts`), with which candidates are built from this text."""

    edits: Edits
    text: bytes
    shifts: Sequence[int] = (0,)


@dataclass(frozen=True)
class Candidate:
    """A task applied to a state: the new edits, what they change in the state's text, and
    the resulting text."""

    edits: Edits
    spans: list[Span]
    text: bytes


@dataclass(frozen=True)
class Merge:
    """Parallel mode's other heap item (parallel.py): test the union of proposals on the current
    state; `tasks` empty means every pending one. `chained`: on the union another merge is
    testing, when it still is (see `Parallel.merge`)."""

    tasks: tuple[Task, ...] = ()
    chained: bool = False


Item = Task | Merge


class Pass:
    """The state of one pass: its table, planner, heap and global state, and how a success is
    committed and an answered task followed up. `ask` is the pass's view of the judge; `judge`
    the judge itself (stops, statistics). `run` works the heap to exhaustion, in one of two
    modes: `Parallel` or `InOrder` (deterministic)."""

    def __init__(
        self,
        engine: Workers,
        table: NodeTable,
        planner: Planner,
        ask: PassJudge,
        better: Callable[[bytes, bytes], bool] = shorter,
    ) -> None:
        self.engine = engine
        self.better = better
        self.judge = engine.judge
        self.ask = ask
        self.table = table
        self.planner = planner
        self.state = State(Edits(), table.source)
        self.heap: TaskHeap[Item] = TaskHeap()
        self.failure: BaseException | None = None
        self.lock = threading.Lock()
        self.merges = 0  # merges queued or running (parallel mode): other commits wait for them
        self.setup()
        self.start(list(planner.initial()))

    def setup(self) -> None:
        """The mode's own fields, set before the planner's first tasks are queued."""

    def start(self, tasks: list[Task]) -> None:
        """Queue the planner's first tasks."""
        self.push(tasks)

    def run(self, pool: concurrent.futures.ThreadPoolExecutor) -> None:
        """Work the heap to exhaustion with the pool's workers."""
        raise NotImplementedError

    def push(self, tasks: Iterable[Task]) -> None:
        self.heap.push_all((t, gain(self.table, t), anchor(t)) for t in tasks)

    def commit(
        self,
        base: State,
        cand: Candidate,
        verdict: Interesting,
        merging: bool = False,
        state: State | None = None,
    ) -> bool:
        """Commit `cand`, built on `base`, which the judge answered interesting (`verdict`), if
        `base` is still current and no merge is under way (its union would go stale); `merging`
        says this is that merge, and `state` the state it installs, made beforehand from `cand`
        (the one its projection named). The commit service writes the best in commit order."""
        assert verdict.candidate is cand.text  # the answer is about this candidate
        if state is None:
            state = State(cand.edits, cand.text, shifts(cand.edits))  # outside the lock
        assert state.text is cand.text and state.edits is cand.edits

        def install() -> bool:
            with self.lock:
                if self.state is not base or self.judge.stop_reason is not None:
                    return False
                if self.merges and not merging:
                    return False
                self.state = state
                self.ask.committed(cand.edits, cand.spans)  # the next checks' base
                return True

        return self.engine.committer.commit(verdict, install)

    def settle(self, tasks: Iterable[Task], accepted: bool) -> None:
        """Queue the planner's follow-ups of answered tasks (accepted: its edit is in, or moot)."""
        for task in tasks:
            self.push(self.planner.after(task, accepted, self.state.edits))

    def candidate(self, base: State, task: Task) -> Candidate | None:
        """`task` applied to `base`, built from its text; None when the task no longer applies."""
        pairs = task_pairs(self.table, base.edits, task)
        edits = None if pairs is None else base.edits.with_edits(self.table, pairs)
        if pairs is None or edits is None:
            return None
        spans = spans_since(self.table, base.edits, base.shifts, pairs)
        return Candidate(edits, spans, apply(base.text, spans))
