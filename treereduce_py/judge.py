"""The judge: is this candidate interesting? Cache first, then the syntax check, then the test.

The counterpart of treereduce's check.rs. A candidate seen before is answered from the cache; one
with more parse errors than the current best is rejected without a test; anything else goes to
the oracle, unless a budget (tests or time) has run out, which stops the run. A test cancelled
by a stop says nothing about its candidate: it is answered "not interesting" and not cached.
The judge only ever answers True when the oracle said so, directly or through the cache: that
is what makes every committed candidate interesting.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from treereduce_py.cache import Cache, digest
from treereduce_py.languages import new_parser
from treereduce_py.oracle import Oracle
from treereduce_py.syntax import count_errors


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
        self.lock = threading.Lock()
        self.stop_reason: str | None = None
        self._local = threading.local()
        # Seconds each worker's running test started at (monotonic), for the UI.
        self.running: dict[int, float] = {}
        self._starting = 0  # tests allowed to start whose answer is not in yet

    def parse_errors(self, text: bytes) -> int:
        """ERROR and MISSING nodes in a parse of `text` (a parser per thread)."""
        parser = getattr(self._local, "parser", None)
        if parser is None:
            parser = self._local.parser = new_parser(self.language)
        return count_errors(parser.parse(text))

    def __call__(self, candidate: bytes, worker: int) -> bool:
        key = digest(candidate)
        known = self.cache.get(key)
        if known is not None:
            return known
        if self.syntax_strict and self.parse_errors(candidate) > self.max_errors:
            with self.lock:
                self.counters.syntax_rejections += 1
            self.cache.put(key, len(candidate), False)
            return False
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
        self.cache.put(key, len(candidate), verdict.interesting)
        return verdict.interesting

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
