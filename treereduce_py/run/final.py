"""The end of a reduction: its result tested once more before it is handed over.

The final test gets twice the full limit and no patience (a loaded machine must not fail it).
When it fails a result that had passed, the test is flaky on that result, as on a reduced C
program that reads memory it never wrote: the newest earlier best that passes STEADY tests in a
row is kept instead, found by bisecting the bests so far (as if every best from some one on were
flaky), and the user is told. When not even the first of them (the input) passes again, it is
the test that is flaky: `FlakyTest`. A run stopped by a budget mid-stage offers its tidied text
as the final test's candidate instead, kept when it is interesting.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from treereduce_py.engine.commit import Committer
from treereduce_py.engine.output import BestSoFar
from treereduce_py.judge.errors import FlakyTest
from treereduce_py.judge.judge import Judge

# A result kept after a flaky one (FinalTest.step_back) passed this many tests in a row.
STEADY = 3

T = TypeVar("T")


def newest_steady(results: Sequence[T], passes: Callable[[T], bool]) -> int:
    """The index of the newest of `results` (oldest first; the last one failed) that `passes`
    STEADY tests in a row, found by bisection as if every result from some one on were flaky;
    -1 when none does. A file's bests here, a directory's trees in run/directory.py."""
    low, high, found = 0, len(results) - 1, -1
    while low < high:
        middle = (low + high) // 2
        if all(passes(results[middle]) for _ in range(STEADY)):
            found, low = middle, middle + 1
        else:
            high = middle
    return found


class FinalTest:
    """The final test of one reduction's result (see the module docstring); `notice` tells the
    user what was kept instead of a flaky result."""

    def __init__(
        self, judge: Judge, best: BestSoFar, committer: Committer, notice: Callable[[str], None]
    ) -> None:
        self.judge = judge
        self.best = best
        self.committer = committer
        self.notice = notice

    def run(self, tidied: bytes | None, known_to_pass: bool) -> None:
        """Test the result once more and write it out: `tidied`, the result's tidied text, is
        tested instead and kept when interesting; a result `known_to_pass` (the source, known
        to pass and not changed) is not tested again."""
        if tidied is not None and self.keep(tidied):
            self.best.flush()  # the tidied result just passed: that was its final test
        elif known_to_pass:
            self.best.flush()
        elif not self.retest():
            self.step_back()

    def keep(self, tidied: bytes) -> bool:
        """The final test of `tidied`, committed when interesting: whether it was."""
        verdict = self.judge.final_test(tidied)
        return verdict is not None and self.committer.commit(verdict)

    def retest(self) -> bool:
        """The final result's test, once more (flushed to disk first either way)."""
        final = self.judge.final_test(self.best.data)
        self.best.flush()
        return final is not None

    def step_back(self) -> None:
        """The final test failed a result that had passed: keep the newest earlier best that
        passes STEADY tests in a row, or raise FlakyTest when the input does not either."""
        bests = self.best.history()
        flaky = self.best.data
        found = newest_steady(bests, lambda best: self.judge.final_test(best) is not None)
        if found < 0:
            raise FlakyTest(
                "the final result passed the test before but fails it now: is the test "
                "deterministic? (the last result that passed is kept)"
            )
        steady = bests[found]
        self.best.back_to(steady)
        self.notice(
            f"the test failed the result it had passed ({len(flaky)} B): flaky on it; kept the "
            f"newest earlier result that passed {STEADY} tests in a row ({len(steady)} B)"
        )
