"""The judge: is this candidate interesting? Cache first, then the syntax check and the test.

The counterpart of treereduce's check.rs. A candidate seen before is answered from the cache; one
with more parse errors than the current best is rejected; anything else is interesting when the
oracle says so, unless a budget (tests or time) has run out, which stops the run. A test cancelled
by a stop says nothing about its candidate: it is answered "not interesting" and not cached.
The judge's yes is an `Interesting` value, which only this module makes and which the commit
service (engine/commit.py) demands: only the oracle, directly or through the cache that stores
its answers, can make a candidate committable.

Each pass asks through its own view (`Judge.for_pass`): the pass's syntax check (which edits the
pass's tree) and the parse errors it allows. The judge owns everything else: the oracle, the
cache, the budgets, how long each test may run (timeouts.py), and the run's statistics, which
change only through its methods.

A candidate must pass both the syntax check and the test, so their order changes the cost, never
the answer. `Order` picks it from what it has measured: checking first costs C + (1 - r) T a
candidate, testing first T + i C (C, T: recent seconds per check and per test; r: the share the
check rejects; i: the share the test finds interesting), so a slow test is guarded by the check
and a fast test on a huge file goes first, the check then running only on the interesting few.
Measured times differ run to run, so a deterministic run always checks first: with a test budget,
which candidates spend a test must not depend on timing.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field

from treereduce_py.edit.edits import Edits, Span
from treereduce_py.judge.busy import WASTE, Busy
from treereduce_py.judge.cache import Cache, digest
from treereduce_py.judge.check import SyntaxCheck
from treereduce_py.judge.oracle import Criteria, Oracle, Rejudged, Verdict
from treereduce_py.judge.timeouts import Timeouts


class Overtaken(Exception):
    """The state a candidate was built on changed before its test started (`PassJudge`'s
    `fresh` said so): the caller rebuilds it on the new state instead of testing it stale."""


class Stopped(Exception):
    """The run was stopped by a budget (time or tests); the best so far stands."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Counts:
    """The run's statistics so far (`Judge.counts`); `running_since` holds the monotonic start
    time of each test running now."""

    tests: int = 0
    interesting: int = 0
    syntax_rejections: int = 0
    commit_retries: int = 0
    timeouts: int = 0
    test_seconds: float = 0.0
    cache_hits: int = 0
    running_since: tuple[float, ...] = ()
    wasted: Mapping[str, int] = field(default_factory=dict)  # busy.WASTE cause -> tests


@dataclass
class _Counters:
    """The mutable counters behind `Counts`, changed only under the judge's lock."""

    tests: int = 0
    interesting: int = 0
    syntax_rejections: int = 0
    commit_retries: int = 0
    timeouts: int = 0
    test_seconds: float = 0.0
    wasted: dict[str, int] = field(default_factory=lambda: dict.fromkeys(WASTE, 0))
    remembered: int = 0  # answers an oracle remembered, no test run (counted as cache hits)


_SEAL = object()


@dataclass(frozen=True)
class Interesting:
    """The judge's yes: `candidate` passed the test (and the syntax check). Only the judge makes
    these (the constructor refuses any other `seal`), and committing takes one, so no candidate
    the judge did not answer interesting can become the best."""

    candidate: bytes
    seal: object = field(repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.seal is not _SEAL:
            raise TypeError("only the judge says a candidate is interesting")


class Order:
    """Check first or test first: the cheaper order by the running measurements (see above).

    Estimates are exponential moving averages; one decision in `EXPLORE` checks first regardless,
    so the share the check rejects stays measured when testing first has been winning.
    """

    EXPLORE = 8
    WEIGHT = 0.2  # of the newest sample in a moving average

    def __init__(self, *, timed: bool = True) -> None:
        self.timed = timed  # False: always check first (no decision depends on a clock)
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
            if not self.timed or self._decisions % self.EXPLORE == 0 or c is None or t is None:
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


@dataclass(frozen=True)
class Budget:
    max_tests: int | None = None
    deadline: float | None = None  # time.monotonic() value


class Judge:
    """Decides whether a candidate is interesting: cache, then syntax check, then the oracle.

    `timeouts` (default: no user timeout, no time budget, patient) is the policy for how long
    each test may run; the original's first runs (`test_original`) use its first limit until
    `original_passed` says how long the original took.
    """

    def __init__(
        self,
        oracle: Oracle,
        language: str,
        *,
        syntax_strict: bool,
        budget: Budget = Budget(),
        timeouts: Timeouts | None = None,
        order: Order | None = None,
    ) -> None:
        self.oracle = oracle
        self.language = language
        self.syntax_strict = syntax_strict
        self.budget = budget
        self.timeouts = timeouts if timeouts is not None else Timeouts()
        self.cache = Cache()
        self.order = order if order is not None else Order()
        self.lock = threading.Lock()
        self.stop_reason: str | None = None
        self._counters = _Counters()
        # When each test ran (monotonic): the UI's running tests, the run's busy quarters.
        self.busy = Busy()
        self._tested: dict[int, bool] = {}  # worker -> its last question ran the oracle
        self._starting = 0  # tests allowed to start whose answer is not in yet

    def for_pass(self, *, check: SyntaxCheck, max_errors: int) -> PassJudge:
        """The judge as a pass asks it: candidates are checked by `check` (which edits the
        pass's tree) and may have at most `max_errors` parse errors."""
        return PassJudge(self, check, max_errors)

    # The original's runs and the final one -------------------------------------------------

    def test_original(self, candidate: bytes, *, capture: bool = False) -> Verdict:
        """One of the first runs (the original, the golden run, a resumed start): the oracle
        within the first limit, counted as a test; no cache, no budget."""
        verdict = self.oracle.check(candidate, 0, timeout=self.timeouts.first, capture=capture)
        with self.lock:
            self._counters.tests += 1
            self._counters.test_seconds += verdict.seconds
        return verdict

    def require(self, criteria: Criteria) -> None:
        """From now on a run is interesting when it meets `criteria` (the golden run's same
        crash), whatever the oracle's own criteria say."""
        self.oracle = Rejudged(self.oracle, criteria)

    def original_passed(self, seconds: float) -> None:
        """The original is interesting and its run took `seconds`: the later tests' limits
        follow from it."""
        with self.lock:
            self._counters.interesting += 1
        self.timeouts.timed(seconds)

    def resume(self) -> None:
        """Let the oracle run again after a stop cancelled it (for the final tests)."""
        self.oracle.resume()

    def final_test(self, candidate: bytes) -> Interesting | None:
        """The last test of a run, counted as a test: within twice the full limit, budgets and
        patience aside, and not from the cache (a flaky test must show)."""
        verdict = self.oracle.check(candidate, 0, timeout=self.timeouts.final())
        with self.lock:
            self._counters.tests += 1
            self._counters.test_seconds += verdict.seconds
        return Interesting(candidate, _SEAL) if verdict.interesting else None

    # What the engine and the commit service tell it ----------------------------------------

    def committed(self, verdict: Interesting) -> None:
        """`verdict`'s candidate is the best now: no later candidate is as large (cache.py)."""
        self.cache.shrink_to(len(verdict.candidate))

    def proposed(self, count: int) -> None:
        """`count` successes could not commit at once and wait for a merge (a statistic)."""
        with self.lock:
            self._counters.commit_retries += count

    def wasted(self, cause: str, worker: int) -> None:
        """The answer to `worker`'s last question is of no use for `cause` (busy.WASTE): counted
        when a test gave it (a statistic)."""
        with self.lock:
            if self._tested.get(worker, False):
                self._counters.wasted[cause] += 1

    def forget_syntax_rejections(self) -> None:
        """Before passes that check no syntax: their test must answer what the check rejected."""
        self.cache.forget_syntax_rejections()

    def hold(self, priority: float = 0.0) -> AbstractContextManager[None]:
        """What a worker holds while it builds and tests candidates, for a task worth
        `priority` (`Oracle.hold`)."""
        return self.oracle.hold(priority)

    def counts(self) -> Counts:
        """The statistics so far."""
        with self.lock:
            c = self._counters
            return Counts(
                tests=c.tests,
                interesting=c.interesting,
                syntax_rejections=c.syntax_rejections,
                commit_retries=c.commit_retries,
                timeouts=c.timeouts,
                test_seconds=c.test_seconds,
                cache_hits=self.cache.hits + c.remembered,
                running_since=self.busy.running_since(),
                wasted=dict(c.wasted),
            )

    # Judging ---------------------------------------------------------------------------------

    def _answer(
        self,
        candidate: bytes,
        worker: int,
        spans: list[Span] | None,
        since: Edits | None,
        check: SyntaxCheck,
        max_errors: int,
        fresh: Callable[[], bool] | None = None,
    ) -> bool:
        self._tested[worker] = False
        key = digest(candidate)
        known = self.cache.get(key)
        if known is not None:
            return known
        if not self.syntax_strict:
            return self._test(key, candidate, worker, fresh=fresh)
        if self.order.check_first():
            ok = self._syntax_ok(key, candidate, spans, since, check, max_errors, first=True)
            return ok and self._test(key, candidate, worker, fresh=fresh)
        return self._test(key, candidate, worker, cache=False, fresh=fresh) and self._syntax_ok(
            key, candidate, spans, since, check, max_errors, first=False
        )

    def _syntax_ok(
        self,
        key: bytes,
        candidate: bytes,
        spans: list[Span] | None,
        since: Edits | None,
        check: SyntaxCheck,
        max_errors: int,
        first: bool,
    ) -> bool:
        """No more parse errors than the best; a rejection is counted and cached."""
        began = time.perf_counter()
        ok = check.errors(candidate, spans, since, max_errors) <= max_errors
        self.order.checked(time.perf_counter() - began, (not ok) if first else None)
        if not ok:
            with self.lock:
                self._counters.syntax_rejections += 1
        if not ok or not first:
            self.cache.put(key, len(candidate), ok, by_syntax=not ok)
        return ok

    def _test(
        self,
        key: bytes,
        candidate: bytes,
        worker: int,
        cache: bool = True,
        fresh: Callable[[], bool] | None = None,
    ) -> bool:
        """Run the oracle (budgets permitting); cache the answer unless told not to. Raises
        Overtaken, testing nothing, when `fresh` says the candidate's base is gone."""
        if fresh is not None and not fresh():
            raise Overtaken
        if not self._may_test():
            return False
        self._tested[worker] = True
        self.busy.began(worker, time.monotonic())
        try:
            given = self.timeouts.now()
            verdict = self.oracle.check(candidate, worker, timeout=given)
        finally:
            self.busy.ended(worker, time.monotonic())
        with self.lock:
            self._starting -= 1
            self._counters.tests += not verdict.remembered
            self._counters.remembered += verdict.remembered
            self._counters.interesting += verdict.interesting
            self._counters.timeouts += verdict.timed_out
            self._counters.test_seconds += verdict.seconds
        if self.stop_reason is not None:
            return False  # a cancelled test says nothing about the candidate
        if verdict.interesting:
            self.timeouts.interesting_took(verdict.seconds)
        if not verdict.remembered:  # (no test ran: it says nothing of the machine)
            self.timeouts.answered(verdict.timed_out, given, verdict.seconds)
        self.order.tested(verdict.seconds, verdict.interesting)
        if cache or not verdict.interesting:
            self.cache.put(key, len(candidate), verdict.interesting)
        return verdict.interesting

    def _may_test(self) -> bool:
        b = self.budget
        with self.lock:
            if self.stop_reason is not None:
                return False
            # Tests started, not finished, count: parallel workers must not overshoot.
            if b.max_tests is not None and self._counters.tests + self._starting >= b.max_tests:
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


class PassJudge:
    """The judge as one pass asks it (`Judge.for_pass`): its syntax check and error limit."""

    def __init__(self, judge: Judge, check: SyntaxCheck, max_errors: int) -> None:
        self._judge = judge
        self._check = check
        self._max_errors = max_errors

    def __call__(
        self,
        candidate: bytes,
        worker: int,
        spans: list[Span] | None = None,
        since: Edits | None = None,
        fresh: Callable[[], bool] | None = None,
    ) -> Interesting | None:
        """Is `candidate` interesting? `spans` say what it changes in the text of the state
        whose edits are `since` (for the incremental check; without them the check parses the
        whole candidate).

        Raises Overtaken when `fresh` says, just before the test would start, that the state
        the candidate was built on is gone (a cached answer is still given: it costs nothing).
        """
        ok = self._judge._answer(
            candidate, worker, spans, since, self._check, self._max_errors, fresh
        )
        return Interesting(candidate, _SEAL) if ok else None

    def committed(self, edits: Edits, spans: list[Span]) -> None:
        """The pass committed the candidate checked with `spans`, whose edits are `edits`: its
        parse is a base of the next checks (check.py)."""
        self._check.committed(edits, spans)
