"""How long a test may run: the judge's policy, from the first run of the original to the last.

A hanging original must not hang the reducer, so its first runs get the user's timeout or
`FIRST_RUN_TIMEOUT` (within the time budget). Its time then sets the limit of every later test:
the user's timeout, or ten times the original's run (at least a second). Within that limit,
`Patience` stops a test that runs far longer than any interesting one so far: such a candidate is
almost always a hang its edit caused (a loop whose exit or increment went), and waiting for the
test's own limit made hangs most of the test time on the runtime-exception cases. A stopped test
counts as not interesting, so patience can only cost a reduction, never admit a wrong one; the
same answers at any `--jobs` need the same limit for every test, so `--deterministic` has none.
The final re-test gets twice the full limit and no patience: a loaded machine must not fail it.

A loaded machine must not fail the other tests either. Patience and the limit are measured on
the original's run, alone; with more tests at once than the machine has cores for (`--jobs 8`
on two, and a test that keeps a core busy), every test is slower, and at 8 jobs a Java test
(javac, then a JVM) took longer than its patience: each interesting candidate was stopped, so
patience never grew, and the run removed nothing in 600 s (1,424 tests). Hangs are rare (one
test in 381 on the C runtime-abort case), so when half of the last `LOAD_WINDOW` tests were
stopped and the tests that ended were slow too (their median no quicker than the slowest
interesting test), that is the machine, not the candidates: patience is doubled, and the limit
too unless the user set it (`Timeouts.answered`), as often as that happens, up to
`FIRST_RUN_TIMEOUT`. Hangs among quick tests (a C lexer's candidates that loop) are candidates.
"""

from __future__ import annotations

import math
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass

# The first runs of the original get this long when the user gave no timeout.
FIRST_RUN_TIMEOUT = 300.0
# A test may run this many times as long as the slowest interesting test so far (at least
# PATIENCE_FLOOR seconds) before it is stopped as not interesting.
PATIENCE_FACTOR = 5.0
PATIENCE_FLOOR = 1.0
# When half of the last this many tests were stopped, patience (and the limit we chose) double.
LOAD_WINDOW = 8


def loaded(window: Iterable[tuple[bool, float]], slowest: float) -> bool:
    """Whether the tests of `window` (stopped, or else the seconds each took) say the machine is
    loaded: half of them or more stopped, and the others not quicker (their median) than the
    `slowest` interesting test so far. A loaded machine slows every test; a run of hangs (a C
    lexer's candidates that loop forever) leaves the tests that end as quick as ever, and then
    doubling patience only makes each hang cost twice as long: a c-program-asan run at -j 2
    doubled it twice on such hangs (at 49 s and 145 s) and ran 788 tests in its first 150 s,
    where eight other runs (five before this rule, three with it) ran 1,119-1,353."""
    tests = list(window)
    if 2 * sum(stopped for stopped, _ in tests) < len(tests):
        return False
    ended = sorted(seconds for stopped, seconds in tests if not stopped)
    return not ended or ended[len(ended) // 2] >= slowest


def first_run_timeout(user: float | None, max_time: float | None = None) -> float:
    """The limit of the original's first runs: the user's timeout, else FIRST_RUN_TIMEOUT
    within the time budget `max_time`."""
    if user is not None:
        return user
    return min(FIRST_RUN_TIMEOUT, max_time if max_time is not None else math.inf)


@dataclass
class Patience:
    """How long a test may run: `factor` times the `slowest` interesting test so far (at least
    `floor` seconds), times `boost` (the machine's load, as `Timeouts.answered` judges it), never
    more than `limit` (the user's --timeout, or 10x the original's run, as boosted)."""

    limit: float
    slowest: float
    factor: float = PATIENCE_FACTOR
    floor: float = PATIENCE_FLOOR
    boost: float = 1.0

    def seconds(self) -> float:
        return min(self.limit, self.boost * max(self.floor, self.factor * self.slowest))


class Timeouts:
    """The limit of each test of one reduction (see the module docstring); thread-safe.

    `user` is the user's timeout (None: chosen from the original's time), `max_time` the time
    budget, `patient` whether hangs are cut short (not with --deterministic).
    """

    def __init__(
        self, user: float | None = None, max_time: float | None = None, patient: bool = True
    ) -> None:
        self.user = user
        self.first = first_run_timeout(user, max_time)
        self.patient = patient
        self.limit: float | None = None  # set by `timed`
        self.patience: Patience | None = None
        self.cap = first_run_timeout(None, max_time)  # the most a boosted limit may reach
        self.boosts = 0  # times patience was doubled for the machine's load
        # Told (patience, limit) after each doubling: the session says so to the user.
        self.on_load: Callable[[float, float], None] | None = None
        # The last tests: stopped, or else how long they took
        self._window: deque[tuple[bool, float]] = deque(maxlen=LOAD_WINDOW)
        self._lock = threading.Lock()

    def timed(self, seconds: float) -> None:
        """The original's run took `seconds`: the limit of every later test follows from it."""
        limit = self.user if self.user is not None else max(1.0, 10 * seconds)
        self.limit = limit
        self.patience = Patience(limit, seconds) if self.patient else None

    def now(self) -> float:
        """The limit of a test starting now."""
        if self.limit is None:
            return self.first
        with self._lock:
            p = self.patience
            return self.limit if p is None else p.seconds()

    def answered(self, stopped: bool, given: float, seconds: float = math.inf) -> None:
        """A test given `given` seconds ended after `seconds` (`stopped`: by that limit). When
        half of the last `LOAD_WINDOW` were stopped and the others were slow too (`loaded`),
        patience doubles, and the limit with it if it is ours (see the module docstring); the
        window then starts again. A test that started before the last doubling, with less time
        than tests get now, does not count."""
        with self._lock:
            p = self.patience
            if p is None or self.limit is None:  # the original's runs, or --deterministic
                return
            if given < p.seconds():
                return
            self._window.append((stopped, seconds))
            if len(self._window) < LOAD_WINDOW or not loaded(self._window, p.slowest):
                return
            self._window.clear()
            before = (p.seconds(), self.limit)
            if self.user is None:
                self.limit = p.limit = max(self.limit, min(self.cap, 2 * self.limit))
            if p.seconds() < p.limit:
                p.boost *= 2
            now = (p.seconds(), self.limit)
            if now == before:
                return
            self.boosts += 1
            told = self.on_load
        if told is not None:
            told(*now)

    def interesting_took(self, seconds: float) -> None:
        """An interesting test took `seconds`: later tests may run as long, and then some."""
        with self._lock:
            p = self.patience
            if p is not None and seconds > p.slowest:
                p.slowest = seconds

    def final(self) -> float:
        """The limit of the final re-test: twice the full limit, without patience."""
        return 2 * (self.first if self.limit is None else self.limit)
