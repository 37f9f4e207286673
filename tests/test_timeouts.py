"""How long each test may run (judge/timeouts.py): the policy, and the limits an oracle is given."""

from __future__ import annotations

import pytest

from treereduce_py import events, reduce
from treereduce_py.judge.oracle import CANCELLED, OracleBase, Verdict
from treereduce_py.judge.timeouts import (
    FIRST_RUN_TIMEOUT,
    LOAD_WINDOW,
    Timeouts,
    first_run_timeout,
    loaded,
)


def test_the_first_runs_get_the_users_timeout_or_the_default_within_the_budget() -> None:
    assert first_run_timeout(7.0, max_time=2.0) == 7.0
    assert first_run_timeout(None) == FIRST_RUN_TIMEOUT
    assert first_run_timeout(None, max_time=2.0) == 2.0


def test_the_originals_time_sets_the_limit_and_patience_cuts_hangs_short() -> None:
    timeouts = Timeouts(max_time=100.0)
    assert timeouts.now() == 100.0  # not timed yet: the first runs' limit
    timeouts.timed(0.5)
    assert timeouts.limit == 5.0 and timeouts.now() == 2.5  # 10x; 5x the slowest interesting
    timeouts.interesting_took(0.8)
    assert timeouts.now() == 4.0
    timeouts.interesting_took(0.1)  # only a slower one moves it
    assert timeouts.now() == 4.0
    timeouts.interesting_took(3.0)
    assert timeouts.now() == 5.0  # never past the limit
    assert timeouts.final() == 10.0


def test_without_patience_every_test_gets_the_full_limit() -> None:
    timeouts = Timeouts(user=3.0, patient=False)
    assert timeouts.now() == 3.0
    timeouts.timed(0.01)
    timeouts.interesting_took(0.02)
    assert timeouts.now() == 3.0 and timeouts.final() == 6.0


class Recording(OracleBase):
    """Interesting while the candidate holds `keep`; records the limit each check was given."""

    def __init__(self, keep: bytes) -> None:
        self.keep = keep
        self.limits: list[float | None] = []

    def check(
        self,
        candidate: bytes,
        worker: int = 0,
        *,
        timeout: float | None = None,
        capture: bool = False,
    ) -> Verdict:
        self.limits.append(timeout)
        return CANCELLED if self.cancelled else Verdict.answer(self.keep in candidate)


@pytest.mark.parametrize("deterministic", [False, True])
def test_the_judge_gives_every_check_its_limit(deterministic: bool) -> None:
    oracle = Recording(b"keep")
    source = b"a = 1\nb = 2\nkeep = 3\n"
    reduce(source, language="python", test=oracle, jobs=1, timeout=7.0, deterministic=deterministic)
    first, *tests, final = oracle.limits
    assert first == 7.0  # the user's timeout
    # Patience: five times the slowest interesting test (quick here), at least a second.
    assert set(tests) == ({7.0} if deterministic else {1.0})
    assert final == 14.0  # twice the full limit


def test_when_half_the_last_tests_were_stopped_patience_and_our_limit_double() -> None:
    timeouts = Timeouts()
    timeouts.timed(0.4)  # limit 4 s, patience 2 s
    told: list[tuple[float, float]] = []
    timeouts.on_load = lambda patience, limit: told.append((patience, limit))
    for stopped in [True, False] * (LOAD_WINDOW // 2 - 1) + [True]:
        timeouts.answered(stopped, 2.0)
    assert timeouts.now() == 2.0 and told == []  # a window not yet full
    timeouts.answered(False, 2.0)  # half of the last LOAD_WINDOW: the machine's load
    assert (timeouts.now(), timeouts.limit, told) == (4.0, 8.0, [(4.0, 8.0)])
    for _ in range(LOAD_WINDOW):
        timeouts.answered(True, 2.0)  # started before: they had 2 s, not 4
    for _ in range(LOAD_WINDOW - 1):
        timeouts.answered(True, 4.0)
    assert timeouts.now() == 4.0  # the window starts again
    timeouts.answered(True, 4.0)
    assert (timeouts.now(), timeouts.limit, timeouts.boosts) == (8.0, 16.0, 2)
    assert timeouts.final() == 32.0


def test_a_users_limit_stays_when_patience_doubles_for_the_load() -> None:
    timeouts = Timeouts(user=3.0)
    timeouts.timed(0.2)  # patience 1 s
    for _ in range(LOAD_WINDOW):
        timeouts.answered(True, 1.0)
    assert (timeouts.now(), timeouts.limit) == (2.0, 3.0)
    for given in (2.0, 3.0):
        for _ in range(LOAD_WINDOW):
            timeouts.answered(True, given)
    assert (timeouts.now(), timeouts.boosts) == (3.0, 2)  # never past the user's limit
    for _ in range(LOAD_WINDOW):
        timeouts.answered(True, 3.0)
    assert timeouts.boosts == 2  # nothing left to raise: no notice either
    deterministic = Timeouts(user=3.0, patient=False)
    deterministic.timed(0.2)
    for _ in range(LOAD_WINDOW):
        deterministic.answered(True, 3.0)
    assert deterministic.now() == 3.0 and deterministic.boosts == 0  # the same for every test


class Loaded(OracleBase):
    """Interesting while the candidate holds `keep`; every test after the original's runs takes
    `need` seconds (a loaded machine), and is stopped when its limit is shorter."""

    def __init__(self, keep: bytes, need: float) -> None:
        self.keep, self.need = keep, need
        self.checks = 0

    def check(
        self,
        candidate: bytes,
        worker: int = 0,
        *,
        timeout: float | None = None,
        capture: bool = False,
    ) -> Verdict:
        self.checks += 1
        if self.cancelled:
            return CANCELLED
        seconds = 0.1 if self.checks == 1 else self.need
        if timeout is not None and timeout < seconds:
            return Verdict(False, None, timed_out=True, seconds=timeout)
        return Verdict(self.keep in candidate, 0, timed_out=False, seconds=seconds)


def test_a_reduction_on_a_loaded_machine_goes_on_once_its_tests_get_longer() -> None:
    # The original took 0.1 s (limit and patience 1 s); every later test takes 1.5 s, as on a
    # machine running more tests than it has cores. Before, each was stopped as a hang and
    # nothing was removed; now the first tests' stops double patience and the limit.
    notices: list[str] = []
    source = b"".join(b"v%d = %d\n" % (i, i) for i in range(30)) + b"keep = 3\n"
    result = reduce(
        source,
        language="python",
        test=Loaded(b"keep", need=1.5),
        jobs=1,
        progress=lambda e: notices.append(e.message) if isinstance(e, events.Notice) else None,
    )
    assert b"keep" in result.reduced and len(result.reduced) <= len(b"keep = 3\n")
    assert any("the machine's load" in n for n in notices), notices


def test_hangs_among_quick_tests_are_not_the_machines_load() -> None:
    # A C lexer's candidates that loop forever: half the tests stopped, the others as quick as
    # the original. Doubling patience would only make each hang cost twice as long.
    timeouts = Timeouts()
    timeouts.timed(0.4)  # limit 4 s, patience 2 s
    for _ in range(LOAD_WINDOW // 2):
        timeouts.answered(True, 2.0, 2.0)
        timeouts.answered(False, 2.0, 0.3)
    assert (timeouts.now(), timeouts.boosts) == (2.0, 0)
    # A loaded machine: the tests that end are slow too (as slow as the slowest that passed).
    for _ in range(LOAD_WINDOW // 2):
        timeouts.answered(True, 2.0, 2.0)
        timeouts.answered(False, 2.0, 0.9)
    assert (timeouts.now(), timeouts.boosts) == (4.0, 1)


def test_the_load_reads_the_median_of_the_tests_that_ended() -> None:
    assert loaded([(True, 2.0)] * LOAD_WINDOW, 0.4)  # nothing ended at all
    assert not loaded([(True, 2.0)] * 3 + [(False, 1.0)] * 5, 0.4)  # fewer than half stopped
    quick_and_slow = [(True, 2.0)] * 4 + [(False, 0.1), (False, 0.2), (False, 0.5), (False, 0.6)]
    assert loaded(quick_and_slow, 0.4)  # median of the ended: 0.5
    assert not loaded(quick_and_slow, 0.55)
