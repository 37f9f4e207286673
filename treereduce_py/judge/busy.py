"""Where a parallel run's time goes: how busy the workers were, by quarter of the run, and
which tests were wasted, by cause.

Speed-up = jobs x utilization / tests ratio, so a run loses to idle workers and to tests whose
answer could not be used as it came. `Busy` keeps each test's interval and folds them into the
share of the workers' time spent testing in each quarter of the run (the first quarter starves
when rounds are planned one after the other; the last when what is left overlaps what is being
tested). `events.WASTE` names the causes of a wasted test: *stale* (built on a state that a
concurrent success changed before the answer came), *moot* (its edit was already gone when the
answer came) and *merge* (a union of racing successes that failed).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

from treereduce_py.events import WASTE

__all__ = ["WASTE", "Busy", "busy_shares"]
QUARTERS = 4


def busy_shares(
    intervals: Iterable[tuple[float, float]], start: float, end: float, jobs: int
) -> tuple[float, ...]:
    """The share of `jobs` workers' time that the test `intervals` (start, end) cover in each
    quarter of [`start`, `end`]; each share in [0, 1] (more only if more tests ran at once than
    `jobs`, which the engine never does). Zeros for an empty span."""
    span = (end - start) / QUARTERS
    if span <= 0 or jobs <= 0:
        return (0.0,) * QUARTERS
    covered = [0.0] * QUARTERS
    for a, b in intervals:
        a, b = max(a, start), min(b, end)
        first = min(int((a - start) / span), QUARTERS - 1)
        for q in range(first, QUARTERS):
            lo, hi = start + q * span, start + (q + 1) * span
            if lo >= b:
                break
            covered[q] += max(0.0, min(b, hi) - max(a, lo))
    return tuple(round(c / (span * jobs), 4) for c in covered)


class Busy:
    """The intervals of the tests a run has started (monotonic seconds), thread-safe."""

    def __init__(self) -> None:
        self._done: list[tuple[float, float]] = []
        self._running: dict[int, float] = {}
        self._lock = threading.Lock()

    def began(self, worker: int, at: float) -> None:
        with self._lock:
            self._running[worker] = at

    def ended(self, worker: int, at: float) -> None:
        with self._lock:
            began = self._running.pop(worker, None)
            if began is not None:
                self._done.append((began, at))

    def running_since(self) -> tuple[float, ...]:
        """When each test running now began."""
        with self._lock:
            return tuple(self._running.values())

    def shares(self, start: float, end: float, jobs: int) -> tuple[float, ...]:
        """`busy_shares` of the tests finished and those running (up to `end`)."""
        with self._lock:
            intervals = [*self._done, *((t, end) for t in self._running.values())]
        return busy_shares(intervals, start, end, jobs)
