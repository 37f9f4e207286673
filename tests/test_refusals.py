"""judge/refusals.py: a directory run's refused trees are answered again without a run; nothing
else is remembered."""

from __future__ import annotations

from treereduce_py.judge.oracle import CallableOracle, Verdict
from treereduce_py.judge.refusals import Refusals


class _Counting(CallableOracle):
    def __init__(self, answers: dict[bytes, Verdict]) -> None:
        super().__init__(lambda c: answers[c].interesting)
        self.answers = answers
        self.runs: list[bytes] = []

    def check(
        self,
        candidate: bytes,
        worker: int = 0,
        *,
        timeout: float | None = None,
        capture: bool = False,
    ) -> Verdict:
        self.runs.append(candidate)
        return self.answers[candidate]


def test_only_refusals_that_ran_to_their_end_are_remembered() -> None:
    hung = Verdict(False, None, timed_out=True, seconds=9.0)
    inner = _Counting(
        {b"no": Verdict.answer(False, 1.0), b"yes": Verdict.answer(True, 1.0), b"hang": hung}
    )
    oracle = Refusals(inner)
    for _ in range(3):
        assert not oracle.check(b"no").interesting
        assert oracle.check(b"yes").interesting
        assert not oracle.check(b"hang").interesting
    assert inner.runs.count(b"no") == 1 and oracle.hits == 2
    assert inner.runs.count(b"yes") == 3 and inner.runs.count(b"hang") == 3
    assert oracle.check(b"no").remembered and not oracle.check(b"yes").remembered
    # a check whose output is wanted (a golden run) always runs
    assert not oracle.check(b"no", capture=True).remembered
    assert inner.runs.count(b"no") == 2
