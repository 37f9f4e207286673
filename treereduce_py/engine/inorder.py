"""Deterministic mode: groups of independent tasks judged on one state, the same at any `--jobs`.

See `InOrder`: what is tested and committed depends on the heap and the answers only, never on
the number of workers or on which test ends first.
"""

from __future__ import annotations

import concurrent.futures
import queue
import time
from dataclasses import dataclass

from treereduce_py.edit.edits import apply, diff, shifts
from treereduce_py.edit.tasks import Footprint, Task, footprint, gain, overlap, task_edits, within
from treereduce_py.engine.passes import DECLINE, Candidate, Merge, Pass, State
from treereduce_py.judge.judge import Interesting

# Deterministic mode tests groups of at most this many independent tasks on one state (a
# constant, not `jobs`: the groups, and so the output, must not depend on the workers). More
# jobs than this add nothing there. At 16 the groups held more stale tests: on
# python-orders-exception, 396 tests against 8's 388, and in test-times 4.7x faster at 8 jobs
# than at 1 against 8's 5.6x (16 jobs: 6.2x against 5.6x).
GROUP = 8

# ... passing over at most this many times `GROUP` tasks that overlap one in the group.
LOOKAHEAD = 4


@dataclass(frozen=True)
class Union:
    """Deterministic mode: the union of a group's successes on `base`, to be tested (beside
    the next group, which is built on its `state`)."""

    base: State
    won: tuple[tuple[Task, Candidate, Interesting], ...]  # each with its own candidate, answer
    cand: Candidate
    state: State

    @property
    def tasks(self) -> tuple[Task, ...]:
        return tuple(task for task, _, _ in self.won)


class InOrder(Pass):
    """Deterministic mode: groups of independent tasks judged on one state, their successes
    committed together.

    A group is the next tasks in heap order that edit no node another task of the group edits
    (`tasks.footprint`), at most `GROUP` of them with a candidate to test; those that overlap
    an earlier one wait for a later group, except its rivals: a task inside an earlier one
    and worth more than a `DECLINE`th of it (another alternative of one node). Heap order
    decides: once an earlier task passes, its rivals are moot and go back on the heap
    whatever their answers, as one worker would not have tested them. The group's candidates
    are all built on the current state and tested `jobs` at a time; then the failures are
    settled and the successes committed: one at once, several as their union, tested once
    (when the union fails, the first success alone, the others back on the heap for the new
    state). The union is tested
    beside the next group (of `GROUP` - 1), which is built on it: unions nearly always pass,
    and a union tested alone left all workers but one idle. When it fails, that group's
    answers are dropped and its tasks go back on the heap. What is tested and committed
    depends on the heap and the answers only, never on `jobs` or on which test ends first, so
    the output and the tests run are the same at any `jobs`; at `jobs` 1 a group is tested in
    turn.

    One worker taking the heap's top each time tests every task on the newest state; so did
    this mode before, `jobs` tasks at a time, losing every test after the first success of a
    batch (C-Reduce's speculation): 2.05x at 8 jobs. A failure after a success here was tested
    on a state one worker would not have used; it counts as a failure all the same. Trying it
    again on the new state cost more tests and ended larger (on python-orders-exception with
    an in-process copy of its test, jobs 1: 641 tests and 739 B against 388 and 523 B; one
    worker's order took 361 tests to 524 B).
    """

    def setup(self) -> None:
        self.last_progress = time.monotonic()
        self.slots: queue.SimpleQueue[int] = queue.SimpleQueue()
        for slot in range(self.engine.jobs):
            self.slots.put(slot)

    def run(self, pool: concurrent.futures.ThreadPoolExecutor) -> None:
        """Groups of the next tasks, until the heap is empty or the run is stopped. A union of
        a group's successes is tested beside the next group, which is built on the union."""
        union: Union | None = None
        while self.judge.stop_reason is None:
            base = self.state if union is None else union.state
            group = self.next_group(base, GROUP - (union is not None))
            if not group and union is None:
                break
            futures = [pool.submit(self.judged, base, cand) for _, cand in group]
            if union is not None:
                futures.insert(0, pool.submit(self.judged, union.base, union.cand))
            answers = self.wait(futures)
            if union is not None and not self.settle_union(union, answers.pop(0)):
                self.push([task for task, _ in group])  # built on a union that failed
                union = None
                continue
            union = self.use(self.state, group, answers)

    def judged(self, base: State, cand: Candidate) -> Interesting | None:
        """`cand` judged by whichever worker slot is free (the pool runs `jobs` at a time)."""
        slot = self.slots.get()
        try:
            return self.ask(cand.text, slot, cand.spans, base.edits)
        finally:
            self.slots.put(slot)

    def wait(
        self, futures: list[concurrent.futures.Future[Interesting | None]]
    ) -> list[Interesting | None]:
        """The group's answers, the live panel kept moving while a slow test runs."""
        pending = list(futures)
        while pending:
            _, running = concurrent.futures.wait(pending, self.engine.progress_interval)
            pending = list(running)
            if time.monotonic() - self.last_progress >= self.engine.progress_interval:
                self.last_progress = time.monotonic()
                self.engine.progress()
        return [f.result() for f in futures]

    def next_group(self, base: State, size: int) -> list[tuple[Task, Candidate]]:
        """The next tasks in heap order that are independent of each other and have a candidate
        to test, at most `size` of them, passing over at most `LOOKAHEAD` times `GROUP`.
        A task with nothing to test (its nodes gone: settled as accepted, as in parallel mode;
        or no progress: order.py) is settled at once; a task that overlaps one already in the
        group, or makes the same text, goes back on the heap (the same text would be tested
        twice at once by two workers, and once by one, which answers the second from the
        cache: the tests run would depend on `jobs`)."""
        group: list[tuple[Task, Candidate]] = []
        prints: list[tuple[Footprint, int]] = []
        later: list[Task] = []  # taken, to go back on the heap
        texts: set[bytes] = set()  # a second task making the same text waits (for the cache)
        while len(group) < size and len(group) + len(later) < LOOKAHEAD * GROUP:
            taken = self.heap.take(1)
            if not taken:
                break
            task = taken[0][1]
            assert not isinstance(task, Merge)  # merges exist only in parallel mode
            cand = self.candidate(base, task)
            if cand is None or not self.better(cand.text, base.text):
                self.settle([task], cand is None)
                continue
            mine = footprint(self.table, task)
            worth = gain(self.table, task)
            if cand.text in texts or any(
                overlap(mine, fp) and (g >= DECLINE * worth or not within(mine, fp))
                for fp, g in prints
            ):
                later.append(task)
                continue
            group.append((task, cand))
            prints.append((mine, worth))
            texts.add(cand.text)
        self.push(later)
        return group

    def use(
        self,
        base: State,
        group: list[tuple[Task, Candidate]],
        answers: list[Interesting | None],
    ) -> Union | None:
        """Settle the failures and commit a single success; several successes make the union to
        test (with the next group), or when it cannot be built, the first commits alone."""
        won: list[tuple[Task, Candidate, Interesting]] = []
        prints: list[Footprint] = []
        later: list[Task] = []
        for (task, cand), ok in zip(group, answers, strict=True):
            mine = footprint(self.table, task)
            if any(overlap(mine, fp) for fp in prints):
                later.append(task)  # a rival of an earlier success: moot or tried again later
                continue
            if ok is None:
                self.settle([task], False)
                continue
            won.append((task, cand, ok))
            prints.append(mine)
        self.push(later)
        if not won or self.judge.stop_reason is not None:
            self.push([task for task, _, _ in won])
            return None
        union = self.union(base, won) if len(won) > 1 else None
        if union is None:
            task, cand, ok = won[0]
            self.settle([task], self.commit(base, cand, ok))
            self.push([task for task, _, _ in won[1:]])
        return union

    def union(self, base: State, won: list[tuple[Task, Candidate, Interesting]]) -> Union | None:
        """The union of the `won` tasks, each of which passed alone on `base`, as a candidate
        to test; None when it cannot be built or is no progress."""
        edits = base.edits
        for task, _, _ in won:
            more = task_edits(self.table, edits, task)
            if more is None:
                return None
            edits = more
        spans = diff(self.table, base.edits, base.shifts, edits)
        if spans is None:
            return None
        cand = Candidate(edits, spans, apply(base.text, spans))
        if not self.better(cand.text, base.text):
            return None
        state = State(cand.edits, cand.text, shifts(cand.edits))
        return Union(base, tuple(won), cand, state)

    def settle_union(self, union: Union, verdict: Interesting | None) -> bool:
        """Commit the union if it passed: True when the state is now the union's; else the first
        of its tasks is committed alone (it passed alone on the union's base) and the others
        go back on the heap for the new state."""
        if verdict is not None:
            committed = self.commit(union.base, union.cand, verdict)
            self.settle(union.tasks, committed)
            return committed
        self.judge.wasted("merge", 0)
        first, cand, ok = union.won[0]
        self.settle([first], self.commit(union.base, cand, ok))
        self.push(union.tasks[1:])
        return False
