"""Test slots shared by several reductions: at most so many tests in flight between them.

Batch mode reduces several groups at once, each with its own oracle and its own workers; together
they must not run more than `jobs` tests at a time, yet when the small groups are done the last
one should get every slot. So each reduction's oracle is wrapped in `Slotted`, and all of them
share one semaphore: a test takes a slot for as long as it runs.

A directory's files are reduced at once the same way, but they share one test command, so their
slots are ranked (`RankedSlots`, `Ranked`): a free slot goes to the waiting task worth the most
bytes, whichever file it is in (the one heap over every file, in effect), and it names the worker
directory the test runs in, so no two tests share one.

A worker takes its slot before it builds a candidate (`hold`), not when it starts the test: a
candidate built first and then kept waiting for a slot would be tested on a state that other
commits have since replaced, and its success would cost a merge test.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import math
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager

from treereduce_py.judge.oracle import CANCELLED, Oracle, Verdict, Wrapped


class _Holding(threading.local):
    slot = False  # this thread holds a slot already (`hold`)


class Slotted(Wrapped):
    """`oracle` whose every test holds one of `slots` (a semaphore other oracles share)."""

    def __init__(self, oracle: Oracle, slots: threading.Semaphore) -> None:
        super().__init__(oracle)
        self._slots = slots
        self._holding = _Holding()

    def check(
        self,
        candidate: bytes,
        worker: int = 0,
        *,
        timeout: float | None = None,
        capture: bool = False,
    ) -> Verdict:
        """`oracle`'s check, in a slot (the one this thread holds already, if it does)."""
        with self.hold():
            return self.oracle.check(candidate, worker, timeout=timeout, capture=capture)

    def hold(self, priority: float = 0.0) -> AbstractContextManager[None]:
        """Hold one slot for every check this thread makes inside (one slot, however nested)."""
        return self._held(priority)

    @contextlib.contextmanager
    def _held(self, priority: float) -> Iterator[None]:
        if self._holding.slot:
            yield
            return
        with self._slots, self.oracle.hold(priority):
            self._holding.slot = True
            try:
                yield
            finally:
                self._holding.slot = False


# A check made outside `hold` (a part's first test or its final re-test) goes before any task.
URGENT = math.inf


class RankedSlots:
    """`count` test slots, numbered from 0; a slot that comes free goes to the waiter of the
    highest priority (the first to come among equals). A waiter whose reduction stopped gives up
    its place (`acquire`'s `stopped`, asked again at each `wake`)."""

    def __init__(self, count: int) -> None:
        self.closed = False  # (set by `close`: every later check runs nothing)
        self._free = list(range(count))
        self._waiting: list[tuple[float, int]] = []  # (-priority, ticket), a heap
        self._tickets = itertools.count()
        self._changed = threading.Condition()

    def acquire(self, priority: float, stopped: Callable[[], bool] = lambda: False) -> int | None:
        """A slot, once this is the best waiter and a slot is free; None when `stopped` (or the
        slots closed) first."""
        with self._changed:
            me = (-priority, next(self._tickets))
            heapq.heappush(self._waiting, me)
            while not (self._free and self._waiting[0] == me):
                if stopped() or self.closed:
                    self._waiting.remove(me)
                    heapq.heapify(self._waiting)
                    self._changed.notify_all()  # the next best may be first now
                    return None
                self._changed.wait()
            heapq.heappop(self._waiting)
            self._changed.notify_all()  # the next best may take another free slot
            return self._free.pop()

    def release(self, slot: int) -> None:
        with self._changed:
            self._free.append(slot)
            self._changed.notify_all()

    def wake(self) -> None:
        """Let the waiters ask again whether they stopped."""
        with self._changed:
            self._changed.notify_all()

    def close(self) -> None:
        """Every waiter gives up and every later check runs nothing (Ctrl-C)."""
        self.closed = True
        self.wake()


class _Slot(threading.local):
    number: int | None = None  # the slot this thread holds (`hold`)
    held: bool = False  # this thread is inside `hold` (with a slot, or without: stopped)


class Ranked(Wrapped):
    """`oracle` whose every test holds one of `slots` by rank and runs as that slot's worker
    (slots are exclusive, so no two tests share a worker directory).

    The oracle is shared with other reductions, so `cancel` (a budget that ended, this
    reduction's own) stops only this one's later checks, and its workers waiting for a slot give
    up; its tests running then end on their own. To stop every test now, cancel the shared
    oracle and close the slots."""

    def __init__(self, oracle: Oracle, slots: RankedSlots) -> None:
        super().__init__(oracle)
        self._slots = slots
        self._slot = _Slot()
        self._cancelled = False

    def cancel(self) -> None:
        self._cancelled = True
        self._slots.wake()

    def resume(self) -> None:
        self._cancelled = False

    def stopped(self) -> bool:
        return self._cancelled or self._slots.closed

    def check(
        self,
        candidate: bytes,
        worker: int = 0,
        *,
        timeout: float | None = None,
        capture: bool = False,
    ) -> Verdict:
        """`oracle`'s check in this thread's slot, taken first (`URGENT`) if it holds none;
        nothing runs once cancelled."""
        with self.hold(URGENT):
            slot = self._slot.number
            if slot is None or self.stopped():
                return CANCELLED
            return self.oracle.check(candidate, slot, timeout=timeout, capture=capture)

    def hold(self, priority: float = 0.0) -> AbstractContextManager[None]:
        """Hold a slot, given by rank, for every check this thread makes inside (none when this
        reduction stopped while it waited: its checks then run nothing)."""
        return self._held(priority)

    @contextlib.contextmanager
    def _held(self, priority: float) -> Iterator[None]:
        if self._slot.held:
            yield
            return
        number = None if self.stopped() else self._slots.acquire(priority, self.stopped)
        self._slot.number, self._slot.held = number, True
        try:
            if number is None:
                yield
            else:
                with self.oracle.hold(priority):
                    yield
        finally:
            self._slot.number, self._slot.held = None, False
            if number is not None:
                self._slots.release(number)
