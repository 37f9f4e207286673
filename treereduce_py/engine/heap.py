"""The shared max-heap of tasks, and the rule that tells idle workers the pass is over.

Workers pop the task with the largest expected gain; equal gains are ordered by the task's anchor
node so the order never depends on thread timing. A pass is over when the heap is empty *and* no
worker is still running a task (a running task may push follow-ups). Idle workers sleep on a
condition variable; nobody polls.
"""

from __future__ import annotations

import heapq
import itertools
import threading
from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

T = TypeVar("T")


Key = tuple[int, int, str]

# How far below the top `pop` looks for a task that fits (a node's alternatives and the children
# speculated under it are usually fewer).
SCAN = 32


class TaskHeap(Generic[T]):
    """A blocking priority queue with termination detection.

    The key of a task is (-gain, anchor, repr of the task): a total order that does not depend
    on when a task was pushed, so a deterministic run pops the same sequence at any `--jobs`.
    """

    def __init__(self) -> None:
        self._heap: list[tuple[int, int, str, int, T]] = []
        self._seq = itertools.count()
        self._cond = threading.Condition()
        self._active = 0
        self._closed = False

    def __len__(self) -> int:
        with self._cond:
            return len(self._heap)

    def push(self, task: T, gain: int, anchor: int) -> None:
        with self._cond:
            heapq.heappush(self._heap, (-gain, anchor, repr(task), next(self._seq), task))
            self._cond.notify()

    def push_all(self, items: Iterable[tuple[T, int, int]]) -> None:
        with self._cond:
            for task, gain, anchor in items:
                heapq.heappush(self._heap, (-gain, anchor, repr(task), next(self._seq), task))
            self._cond.notify_all()

    def pop(self, fits: Callable[[T, bool], bool] | None = None, floor: float = 0.0) -> T | None:
        """The best task, blocking while others may still add some; None when the pass is over
        (or the heap was closed). Every task returned must be answered with `done()`.

        With `fits`, the best of the first `SCAN` tasks that fits (`fits(task, False)`) and
        whose gain is at least `floor` times the best's is taken, and the best task when none
        does (told so by `fits(task, True)`). That call may decline it (return False) while
        another task runs: the pop then waits for a task to end or arrive and looks again (with
        none running, the best is taken all the same). `fits` runs under the heap's lock, so it
        may claim the task it accepts or is given."""
        with self._cond:
            while not self._closed:
                if self._heap:
                    task = self._best(fits, floor)
                    if task is not None:
                        self._active += 1
                        return task
                    self._cond.wait()  # the best was declined: wait for a test to end
                    continue
                if self._active == 0:
                    self._cond.notify_all()
                    return None
                self._cond.wait()
            return None

    def try_pop(self, fits: Callable[[T, bool], bool]) -> T | None:
        """The best of the first `SCAN` tasks that fits, without waiting; None when none does
        (or the heap is closed). A task returned must be answered with `done()`."""
        with self._cond:
            if self._closed or not self._heap:
                return None
            task = self._scan(fits, fallback=False)
            if task is not None:
                self._active += 1
            return task

    def _best(self, fits: Callable[[T, bool], bool] | None, floor: float) -> T | None:
        if fits is None:
            return heapq.heappop(self._heap)[4]
        return self._scan(fits, fallback=True, floor=floor, force=self._active == 0)

    def _scan(
        self,
        fits: Callable[[T, bool], bool],
        fallback: bool,
        floor: float = 0.0,
        force: bool = False,
    ) -> T | None:
        skipped: list[tuple[int, int, str, int, T]] = []
        chosen = None
        while self._heap and len(skipped) < SCAN:
            if skipped and -self._heap[0][0] < floor * -skipped[0][0]:
                break  # worth less than the best would be if the test it waits on fails
            entry = heapq.heappop(self._heap)
            if fits(entry[4], False):
                chosen = entry
                break
            skipped.append(entry)
        if chosen is None and fallback and (fits(skipped[0][4], True) or force):
            chosen = skipped.pop(0)  # nothing near the top fits: the best after all
        for entry in skipped:
            heapq.heappush(self._heap, entry)
        return None if chosen is None else chosen[4]

    def done(self) -> None:
        """A popped task is finished (its follow-ups, if any, were pushed before)."""
        with self._cond:
            self._active -= 1
            self._cond.notify_all()  # the pass may be over, or a declined task now fits

    def close(self) -> None:
        """Stop: every waiting and future `pop` returns None."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def take(self, n: int) -> list[tuple[Key, T]]:
        """Remove up to `n` tasks in pop order without blocking (deterministic mode)."""
        with self._cond:
            out: list[tuple[Key, T]] = []
            while self._heap and len(out) < n:
                g, a, r, _, task = heapq.heappop(self._heap)
                out.append(((g, a, r), task))
            return out

    def top_key(self) -> Key | None:
        """The key of the task `pop` would return next, if any."""
        with self._cond:
            if not self._heap:
                return None
            g, a, r, _, _ = self._heap[0]
            return (g, a, r)
