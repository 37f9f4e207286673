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
from collections.abc import Iterable
from typing import Generic, TypeVar

T = TypeVar("T")


class TaskHeap(Generic[T]):
    """A blocking priority queue with termination detection."""

    def __init__(self) -> None:
        self._heap: list[tuple[int, int, int, T]] = []
        self._seq = itertools.count()
        self._cond = threading.Condition()
        self._active = 0
        self._closed = False

    def __len__(self) -> int:
        with self._cond:
            return len(self._heap)

    def push(self, task: T, gain: int, anchor: int) -> None:
        with self._cond:
            heapq.heappush(self._heap, (-gain, anchor, next(self._seq), task))
            self._cond.notify()

    def push_all(self, items: Iterable[tuple[T, int, int]]) -> None:
        with self._cond:
            for task, gain, anchor in items:
                heapq.heappush(self._heap, (-gain, anchor, next(self._seq), task))
            self._cond.notify_all()

    def pop(self) -> T | None:
        """The best task, blocking while others may still add some; None when the pass is over
        (or the heap was closed). Every task returned must be answered with `done()`."""
        with self._cond:
            while not self._closed:
                if self._heap:
                    self._active += 1
                    return heapq.heappop(self._heap)[3]
                if self._active == 0:
                    self._cond.notify_all()
                    return None
                self._cond.wait()
            return None

    def done(self) -> None:
        """A popped task is finished (its follow-ups, if any, were pushed before)."""
        with self._cond:
            self._active -= 1
            if self._active == 0 and not self._heap:
                self._cond.notify_all()

    def close(self) -> None:
        """Stop: every waiting and future `pop` returns None."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def drain(self) -> list[T]:
        """Remove and return every queued task in pop order (used by deterministic mode)."""
        with self._cond:
            items = [heapq.heappop(self._heap)[3] for _ in range(len(self._heap))]
            return items
