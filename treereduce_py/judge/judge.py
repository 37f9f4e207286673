"""The judge: is this candidate interesting? Cache first, then the syntax check and the test.

The counterpart of treereduce's check.rs. A candidate seen before is answered from the cache; one
with more parse errors than the current best is rejected; anything else is interesting when the
oracle says so, unless a budget (tests or time) has run out, which stops the run. A test cancelled
by a stop says nothing about its candidate: it is answered "not interesting" and not cached.
The judge only ever answers True when the oracle said so, directly or through the cache: that
is what makes every committed candidate interesting.

A candidate must pass both the syntax check and the test, so their order changes the cost, never
the answer. `Order` picks it from what it has measured: checking first costs C + (1 - r) T a
candidate, testing first T + i C (C, T: recent seconds per check and per test; r: the share the
check rejects; i: the share the test finds interesting), so a slow test is guarded by the check
and a fast test on a huge file goes first, the check then running only on the interesting few.

`Patience` stops a test that runs far longer than any interesting one so far: such a candidate
is almost always a hang its edit caused (a loop whose exit or increment went), and waiting for
the test's own timeout made hangs most of the test time on the runtime-exception cases.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from treereduce_py.edit.edits import Edits, Span
from treereduce_py.judge.cache import Cache, digest
from treereduce_py.judge.check import SyntaxCheck
from treereduce_py.judge.oracle import CommandOracle, Oracle

# A test may run this many times as long as the slowest interesting test so far (at least
# PATIENCE_FLOOR seconds) before it is stopped as not interesting.
PATIENCE_FACTOR = 5.0
PATIENCE_FLOOR = 1.0


class Stopped(Exception):
    """The run was stopped by a budget (time or tests); the best so far stands."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class Counters:
    """Mutable run counters, updated under the judge's or the engine's lock."""

    tests: int = 0
    interesting: int = 0
    syntax_rejections: int = 0
    commit_retries: int = 0
    timeouts: int = 0
    test_seconds: float = 0.0


class Order:
    """Check first or test first: the cheaper order by the running measurements (see above).

    Estimates are exponential moving averages; one decision in `EXPLORE` checks first regardless,
    so the share the check rejects stays measured when testing first has been winning.
    """

    EXPLORE = 8
    WEIGHT = 0.2  # of the newest sample in a moving average

    def __init__(self) -> None:
        self.check_seconds: float | None = None  # no measurement yet: check first
        self.test_seconds: float | None = None
        self.rejected = 0.5  # r, among candidates checked first
        self.interesting = 0.2  # i, among candidates tested
        self._decisions = 0
        self._lock = threading.Lock()

    def check_first(self) -> bool:
        with self._lock:
            self._decisions += 1
            c, t = self.check_seconds, self.test_seconds
            if self._decisions % self.EXPLORE == 0 or c is None or t is None:
                return True
            return c * (1.0 - self.interesting) < self.rejected * t

    def checked(self, seconds: float, rejected: bool | None) -> None:
        """A check took `seconds`; `rejected` is None when it ran after the test (biased)."""
        with self._lock:
            self.check_seconds = self._mix(self.check_seconds, seconds)
            if rejected is not None:
                self.rejected += self.WEIGHT * (rejected - self.rejected)

    def tested(self, seconds: float, interesting: bool) -> None:
        with self._lock:
            self.test_seconds = self._mix(self.test_seconds, seconds)
            self.interesting += self.WEIGHT * (interesting - self.interesting)

    def _mix(self, average: float | None, sample: float) -> float:
        return sample if average is None else average + self.WEIGHT * (sample - average)


@dataclass
class Patience:
    """How long a test may run: `factor` times the `slowest` interesting test so far (at least
    `floor` seconds), never more than `limit` (the user's --timeout, or 10x the original's run).

    A test stopped early counts as not interesting, so patience can only cost a reduction (of a
    candidate that would have been interesting, slowly), never admit a wrong one."""

    limit: float
    slowest: float
    factor: float = PATIENCE_FACTOR
    floor: float = PATIENCE_FLOOR

    def seconds(self) -> float:
        return min(self.limit, max(self.floor, self.factor * self.slowest))


@dataclass(frozen=True)
class Budget:
    max_tests: int | None = None
    deadline: float | None = None  # time.monotonic() value


class Judge:
    """Decides whether a candidate is interesting: cache, then syntax check, then the oracle."""

    def __init__(
        self,
        oracle: Oracle,
        language: str,
        *,
        syntax_strict: bool,
        budget: Budget,
        counters: Counters,
    ) -> None:
        self.oracle = oracle
        self.language = language
        self.syntax_strict = syntax_strict
        self.budget = budget
        self.counters = counters
        self.cache = Cache()
        self.max_errors = 0
        self.check = SyntaxCheck(language)  # replaced by each pass's incremental check
        self.order = Order()
        self.patience: Patience | None = None  # set once the original's run is timed
        self.lock = threading.Lock()
        self.stop_reason: str | None = None
        # Seconds each worker's running test started at (monotonic), for the UI.
        self.running: dict[int, float] = {}
        self._starting = 0  # tests allowed to start whose answer is not in yet

    def __call__(
        self,
        candidate: bytes,
        worker: int,
        spans: list[Span] | None = None,
        since: Edits | None = None,
    ) -> bool:
        """Is `candidate` interesting? `spans` say what it changes in the text of the state
        whose edits are `since` (for the incremental check; without them the check parses the
        whole candidate)."""
        key = digest(candidate)
        known = self.cache.get(key)
        if known is not None:
            return known
        if not self.syntax_strict:
            return self._test(key, candidate, worker)
        if self.order.check_first():
            if not self._syntax_ok(key, candidate, spans, since, first=True):
                return False
            return self._test(key, candidate, worker)
        return self._test(key, candidate, worker, cache=False) and self._syntax_ok(
            key, candidate, spans, since, first=False
        )

    def _syntax_ok(
        self,
        key: bytes,
        candidate: bytes,
        spans: list[Span] | None,
        since: Edits | None,
        first: bool,
    ) -> bool:
        """No more parse errors than the best; a rejection is counted and cached."""
        began = time.perf_counter()
        ok = self.check.errors(candidate, spans, since) <= self.max_errors
        self.order.checked(time.perf_counter() - began, (not ok) if first else None)
        if not ok:
            with self.lock:
                self.counters.syntax_rejections += 1
        if not ok or not first:
            self.cache.put(key, len(candidate), ok, by_syntax=not ok)
        return ok

    def _test(self, key: bytes, candidate: bytes, worker: int, cache: bool = True) -> bool:
        """Run the oracle (budgets permitting); cache the answer unless told not to."""
        if not self._may_test():
            return False
        self.running[worker] = time.monotonic()
        try:
            verdict = self.oracle.check(candidate, worker)
        finally:
            self.running.pop(worker, None)
        with self.lock:
            self._starting -= 1
            self.counters.tests += 1
            self.counters.interesting += verdict.interesting
            self.counters.timeouts += verdict.timed_out
            self.counters.test_seconds += verdict.seconds
        if self.stop_reason is not None:
            return False  # a cancelled test says nothing about the candidate
        if verdict.interesting:
            self.slower_interesting(verdict.seconds)
        self.order.tested(verdict.seconds, verdict.interesting)
        if cache or not verdict.interesting:
            self.cache.put(key, len(candidate), verdict.interesting)
        return verdict.interesting

    def be_patient(self, patience: Patience | None) -> None:
        """Use `patience` for the command's tests from now on (None: its limit stays as is)."""
        self.patience = patience
        if patience is not None and isinstance(self.oracle, CommandOracle):
            self.oracle.timeout = patience.seconds()

    def slower_interesting(self, seconds: float) -> None:
        """An interesting test took `seconds`: later tests may run as long, and then some."""
        with self.lock:
            p = self.patience
            if p is not None and seconds > p.slowest:
                p.slowest = seconds
                if isinstance(self.oracle, CommandOracle):
                    self.oracle.timeout = p.seconds()

    def _may_test(self) -> bool:
        b = self.budget
        with self.lock:
            if self.stop_reason is not None:
                return False
            # Tests started, not finished, count: parallel workers must not overshoot.
            if b.max_tests is not None and self.counters.tests + self._starting >= b.max_tests:
                self.stop_reason = "max-tests"
            elif b.deadline is not None and time.monotonic() >= b.deadline:
                self.stop_reason = "max-time"
            self._starting += self.stop_reason is None
            return self.stop_reason is None

    def stop(self, reason: str) -> None:
        """Stop the run: no new tests, running ones cancelled (resumed by `resume`)."""
        with self.lock:
            if self.stop_reason is None:
                self.stop_reason = reason
        self.oracle.cancel()

    def raise_if_stopped(self) -> None:
        """Raise Stopped when a budget (or an interrupt) has stopped the run."""
        if self.stop_reason is not None:
            raise Stopped(self.stop_reason)
