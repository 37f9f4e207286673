"""What can end a reduction without a result, each error with the exit code the CLI uses."""

from __future__ import annotations

from treereduce_py.judge.oracle import Verdict


class ReduceError(Exception):
    """Base of the errors `reduce` raises; `exit_code` is what the CLI exits with."""

    exit_code = 1


class NotInteresting(ReduceError):
    """The original input does not pass the test (or timed out on it): nothing to reduce."""

    exit_code = 3

    def __init__(
        self,
        verdict: Verdict,
        message: str = "the original input is not interesting",
        reasons: tuple[str, ...] = (),
    ):
        super().__init__(message)
        self.verdict = verdict
        self.reasons = reasons  # which criteria failed, in the words of their options

    @classmethod
    def timed_out(cls, verdict: Verdict, limit: float | None) -> NotInteresting:
        """The original ran past `limit` seconds: say so, and how to allow more."""
        return cls(
            verdict, f"the original input timed out after {limit} s (give a larger --timeout)"
        )


class ResumedNotInteresting(NotInteresting):
    """The earlier result a run resumes from no longer passes the test (or, with same-crash,
    no longer shows the original's crash)."""

    def __init__(self, verdict: Verdict, message: str = "the file to resume from fails the test"):
        super().__init__(verdict, message)


class FlakyTest(ReduceError):
    """The final result, which passed the test before, failed it on the re-test, and no earlier
    result (the input included) passes steadily either."""

    exit_code = 5


class BadOptions(ReduceError):
    """Options that cannot work together or a `signature` that is not a usable regex."""

    exit_code = 2


class ClusterUnreachable(ReduceError):
    """No Dask scheduler answers at the --cluster address (or `distributed` is missing).

    Exit 4, as for a test command that cannot be started: either way no test can run.
    """

    exit_code = 4


class ClusterLost(ReduceError):
    """The cluster went away during a run (scheduler gone, workers killed again and again);
    the best result so far is on disk."""

    exit_code = 7
