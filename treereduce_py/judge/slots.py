"""Test slots shared by several reductions: at most so many tests in flight between them.

Batch mode reduces several groups at once, each with its own oracle and its own workers; together
they must not run more than `jobs` tests at a time, yet when the small groups are done the last
one should get every slot. So each reduction's oracle is wrapped in `Slotted`, and all of them
share one semaphore: a test takes a slot for as long as it runs.

A worker takes its slot before it builds a candidate (`hold`), not when it starts the test: a
candidate built first and then kept waiting for a slot would be tested on a state that other
commits have since replaced, and its success would cost a merge test.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager

from treereduce_py.judge.oracle import Oracle, Verdict, Wrapped


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

    def hold(self) -> AbstractContextManager[None]:
        """Hold one slot for every check this thread makes inside (one slot, however nested)."""
        return self._held()

    @contextlib.contextmanager
    def _held(self) -> Iterator[None]:
        if self._holding.slot:
            yield
            return
        with self._slots, self.oracle.hold():
            self._holding.slot = True
            try:
                yield
            finally:
                self._holding.slot = False
