"""How long each test may run (judge/timeouts.py): the policy, and the limits an oracle is given."""

from __future__ import annotations

import pytest

from treereduce_py import reduce
from treereduce_py.judge.oracle import CANCELLED, OracleBase, Verdict
from treereduce_py.judge.timeouts import FIRST_RUN_TIMEOUT, Timeouts, first_run_timeout


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
