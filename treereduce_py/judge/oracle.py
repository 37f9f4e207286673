"""The interestingness test: what a check takes, and what it answers.

Reduction is a search guided by one question, asked thousands of times: "is this candidate still
interesting?". An oracle answers it with a `Verdict`. The judge and the engine see only the
`Oracle` protocol, and everything a check depends on is an argument of `check`: the candidate,
the worker asking (each worker's checks run one at a time), how long the test may run (the
judge's choice: judge/timeouts.py) and whether to keep its output. Besides checking, an oracle
can stop its running tests (`cancel`, `resume`), holds what a worker needs before it builds a
candidate (`hold`: a test slot shared with other reductions, in batch mode), names the files the
test sees the candidate as (`input_names`, for crash signatures; None when the test is no
command) and frees what it holds (`close`). `OracleBase` gives the defaults of all but `check`,
so a new executor is a class with one method (docs/design.md, "Adding an executor").

Here: `CommandOracle` runs a command (judge/process.py's `Runner`) and judges the run by its
`Criteria`; `CallableOracle` asks a Python predicate; `Rejudged` judges another oracle's runs by
other criteria (the golden run's: the same crash). judge/slots.py and judge/cluster.py hold two
more.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Protocol, TypeVar, runtime_checkable

from treereduce_py.judge.process import (
    DEFAULT_KILL_GRACE,
    OracleStartError,
    Place,
    Runner,
    input_names,
)

__all__ = [
    "CANCELLED",
    "DEFAULT_KILL_GRACE",
    "CallableOracle",
    "CommandOracle",
    "Criteria",
    "Oracle",
    "OracleBase",
    "OracleStartError",
    "Rejudged",
    "Verdict",
    "as_oracle",
]

_Self = TypeVar("_Self", bound="OracleBase")


@dataclass(frozen=True)
class Criteria:
    """What makes a finished test run interesting; every criterion given must hold.

    An empty `exit_codes` accepts any exit status (but never a run that did not exit, i.e. timed
    out). A test killed by signal N (returncode -N) matches N+128 or -N in `exit_codes`, as a shell
    reports 139 for SIGSEGV. Regexes are searched anywhere in the whole stream.
    """

    exit_codes: frozenset[int] = frozenset({0})
    stdout_regex: re.Pattern[bytes] | None = None
    stderr_regex: re.Pattern[bytes] | None = None
    not_stdout_regex: re.Pattern[bytes] | None = None
    not_stderr_regex: re.Pattern[bytes] | None = None
    # Extra predicate (crash-signature matching for --same-crash) on (exit code or None, stdout,
    # stderr); when set, both streams are captured.
    extra: Callable[[int | None, bytes, bytes], bool] | None = None

    def needs_stdout(self) -> bool:
        """Whether judging a run needs the test's stdout."""
        return (
            self.stdout_regex is not None
            or self.not_stdout_regex is not None
            or self.extra is not None
        )

    def needs_stderr(self) -> bool:
        """Whether judging a run needs the test's stderr."""
        return (
            self.stderr_regex is not None
            or self.not_stderr_regex is not None
            or self.extra is not None
        )

    def matches(self, exit_code: int | None, stdout: bytes, stderr: bytes) -> bool:
        """True iff all given criteria hold for a run with this exit code (None: no exit)."""
        if not _exit_code_matches(exit_code, self.exit_codes):
            return False
        if self.stdout_regex is not None and self.stdout_regex.search(stdout) is None:
            return False
        if self.stderr_regex is not None and self.stderr_regex.search(stderr) is None:
            return False
        if self.not_stdout_regex is not None and self.not_stdout_regex.search(stdout) is not None:
            return False
        if self.not_stderr_regex is not None and self.not_stderr_regex.search(stderr) is not None:
            return False
        return self.extra is None or self.extra(exit_code, stdout, stderr)

    def failures(self, exit_code: int | None, stdout: bytes, stderr: bytes) -> tuple[str, ...]:
        """Which criteria a run fails, each in the words of its option (empty: none fails).
        The streams must have been captured for the regexes to be judged."""
        out: list[str] = []
        if exit_code is None:
            out.append("the test did not exit")
        elif not _exit_code_matches(exit_code, self.exit_codes):
            codes = ", ".join(str(c) for c in sorted(self.exit_codes))
            out.append(f"exit code {exit_code} not in {{{codes}}}")
        for name, regex, stream, wanted in (
            ("--stdout-regex", self.stdout_regex, stdout, True),
            ("--stderr-regex", self.stderr_regex, stderr, True),
            ("--not-stdout-regex", self.not_stdout_regex, stdout, False),
            ("--not-stderr-regex", self.not_stderr_regex, stderr, False),
        ):
            if regex is not None and (regex.search(stream) is not None) != wanted:
                pattern = regex.pattern.decode(errors="replace")
                out.append(f"{name} {pattern!r} {'did not match' if wanted else 'matched'}")
        if self.extra is not None and not self.extra(exit_code, stdout, stderr):
            out.append("not the same crash")
        return tuple(out)


def _exit_code_matches(exit_code: int | None, codes: frozenset[int]) -> bool:
    if exit_code is None:
        return False
    if not codes or exit_code in codes:
        return True
    # Killed by signal N: a shell would report 128+N.
    return exit_code < 0 and 128 - exit_code in codes


@dataclass(frozen=True)
class Verdict:
    """The outcome of one check.

    `exit_code` is the subprocess returncode (negative: killed by that signal) and None when the
    test did not finish: it timed out (`timed_out`) or the oracle was cancelled (both False/None).
    `stdout`/`stderr` hold the output only when it was captured. `remembered`: no test ran,
    the answer is one given before (a directory run's refusals, judge/refusals.py).
    """

    interesting: bool
    exit_code: int | None
    timed_out: bool
    seconds: float
    stdout: bytes = b""
    stderr: bytes = b""
    remembered: bool = False

    @classmethod
    def answer(cls, interesting: bool, seconds: float = 0.0) -> Verdict:
        """The verdict of a test that only says yes or no: exit code 0 for interesting and 1
        otherwise, as a test script would report."""
        return cls(interesting, 0 if interesting else 1, timed_out=False, seconds=seconds)


# The verdict of a check that ran nothing: the oracle was cancelled.
CANCELLED = Verdict(interesting=False, exit_code=None, timed_out=False, seconds=0.0)


@runtime_checkable
class Oracle(Protocol):
    """Answers "is this candidate interesting?"; safe to call from several worker threads."""

    def check(
        self,
        candidate: bytes,
        worker: int = 0,
        *,
        timeout: float | None = None,
        capture: bool = False,
    ) -> Verdict:
        """Test `candidate` for at most `timeout` seconds (None: the oracle's own limit, if
        any); `worker` identifies the calling worker (never used concurrently); with `capture`
        the verdict carries the test's output."""
        ...

    def hold(self, priority: float = 0.0) -> AbstractContextManager[None]:
        """What a worker holds while it builds and tests candidates (a shared test slot);
        `priority` is what its task is worth (bytes: where slots are ranked, the most first)."""
        ...

    def input_names(self) -> tuple[str, ...] | None:
        """The file names the test sees the candidate as (a crash report names them); None when
        the test is no command, so it has no crash to compare (--same-crash needs one)."""
        ...

    def failures(self, verdict: Verdict) -> tuple[str, ...]:
        """Why a captured run was not interesting, criterion by criterion, in the words of the
        options that set them (empty when the oracle cannot say)."""
        ...

    def cancel(self) -> None:
        """Stop running tests now; every later check is not interesting and runs nothing."""
        ...

    def resume(self) -> None:
        """Undo `cancel` for later checks (the final re-test after a budget ran out)."""
        ...

    def close(self) -> None:
        """Release resources (temp dirs); idempotent."""
        ...


class OracleBase:
    """The defaults of the `Oracle` protocol for all but `check`: nothing to hold, no input
    names, a `cancelled` flag set by `cancel` and cleared by `resume`, nothing to close, and
    use as a context manager (closed on exit)."""

    _cancelled = False

    def check(
        self,
        candidate: bytes,
        worker: int = 0,
        *,
        timeout: float | None = None,
        capture: bool = False,
    ) -> Verdict:
        """Test `candidate` (see `Oracle.check`); the one method an executor must give."""
        raise NotImplementedError

    def hold(self, priority: float = 0.0) -> AbstractContextManager[None]:
        """Nothing to hold."""
        return contextlib.nullcontext()

    def input_names(self) -> tuple[str, ...] | None:
        """No command, no names."""
        return None

    def failures(self, verdict: Verdict) -> tuple[str, ...]:
        """No criteria to name."""
        return ()

    @property
    def cancelled(self) -> bool:
        """Whether `cancel` was called (and not undone by `resume`)."""
        return self._cancelled

    def cancel(self) -> None:
        """Make later checks return `CANCELLED` (a subclass may stop running tests too)."""
        self._cancelled = True

    def resume(self) -> None:
        """Let later checks run again."""
        self._cancelled = False

    def close(self) -> None:
        """Nothing to release."""

    def __enter__(self: _Self) -> _Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class CommandOracle(OracleBase):
    """Runs a command (argv, no shell; see process.py for how it sees the candidate) and judges
    each run by `criteria`.

    `timeout` is the limit of a check that names none (direct use); a reduction gives every check
    its own (`ReduceOptions.timeout` and the judge's policy). `check` raises OracleStartError when
    the command cannot be started; any other OSError (such as running out of file descriptors)
    propagates unchanged. The other arguments are `Runner`'s.
    """

    def __init__(
        self,
        argv: Sequence[str],
        criteria: Criteria = Criteria(),
        *,
        timeout: float | None = None,
        start_dir: Path | None = None,
        input_name: str = "input",
        env: Mapping[str, str] | None = None,
        absolute_paths: bool = False,
        kill_grace: float = DEFAULT_KILL_GRACE,
        place: Place | None = None,
    ) -> None:
        """Prepare to run `argv` (nothing is started yet); raises ValueError for an empty argv,
        an unusable input_name, or a `place` without ``@@``."""
        self.criteria = criteria
        self._timeout = timeout
        self._runner = Runner(
            argv,
            start_dir=start_dir,
            input_name=input_name,
            env=env,
            absolute_paths=absolute_paths,
            kill_grace=kill_grace,
            place=place,
        )
        self.argv = self._runner.argv
        self.input_name = self._runner.input_name

    def check(
        self,
        candidate: bytes,
        worker: int = 0,
        *,
        timeout: float | None = None,
        capture: bool = False,
    ) -> Verdict:
        """Run the test on `candidate` in `worker`'s directory and judge it by the criteria.

        With `capture`, both output streams are returned in the verdict even if no criterion needs
        them. Raises OracleStartError if the command cannot be started.
        """
        run = self._runner.run(
            candidate,
            worker,
            timeout=self._timeout if timeout is None else timeout,
            capture_out=capture or self.criteria.needs_stdout(),
            capture_err=capture or self.criteria.needs_stderr(),
        )
        if run is None:
            return CANCELLED
        interesting = not run.timed_out and self.criteria.matches(
            run.exit_code, run.stdout, run.stderr
        )
        return Verdict(
            interesting=interesting,
            exit_code=None if run.timed_out else run.exit_code,
            timed_out=run.timed_out,
            seconds=run.seconds,
            stdout=run.stdout,
            stderr=run.stderr,
        )

    def failures(self, verdict: Verdict) -> tuple[str, ...]:
        """The criteria the run fails (see Criteria.failures)."""
        return self.criteria.failures(verdict.exit_code, verdict.stdout, verdict.stderr)

    def input_names(self) -> tuple[str, ...]:
        """The input file and its ``@@.ext`` copies."""
        return input_names(self.argv, self.input_name)

    def cancel(self) -> None:
        """Kill every running test's process group now; later checks return not interesting."""
        super().cancel()
        self._runner.cancel()

    def resume(self) -> None:
        """Let later checks run again after `cancel`."""
        super().resume()
        self._runner.resume()

    def close(self) -> None:
        """Kill any test still running and remove the temp root; safe to call more than once."""
        self._runner.close()


class CallableOracle(OracleBase):
    """A Python predicate as the oracle (library use, tests); exceptions from it propagate.

    The predicate must be thread-safe if several workers use the oracle. A predicate cannot be
    stopped, so `timeout` is not enforced. Verdicts report exit code 0 for interesting and 1
    otherwise, as a test script would.
    """

    def __init__(self, predicate: Callable[[bytes], bool]) -> None:
        self._predicate = predicate

    def check(
        self,
        candidate: bytes,
        worker: int = 0,
        *,
        timeout: float | None = None,
        capture: bool = False,
    ) -> Verdict:
        """Call the predicate on `candidate` (not at all once cancelled)."""
        if self.cancelled:
            return CANCELLED
        start = time.monotonic()
        interesting = bool(self._predicate(candidate))
        return Verdict.answer(interesting, time.monotonic() - start)


class Wrapped(OracleBase):
    """An oracle around another: everything is `oracle`'s unless a subclass says otherwise
    (the base of `Rejudged` and of batch mode's `Slotted`)."""

    def __init__(self, oracle: Oracle) -> None:
        self.oracle = oracle

    def check(
        self,
        candidate: bytes,
        worker: int = 0,
        *,
        timeout: float | None = None,
        capture: bool = False,
    ) -> Verdict:
        return self.oracle.check(candidate, worker, timeout=timeout, capture=capture)

    def hold(self, priority: float = 0.0) -> AbstractContextManager[None]:
        return self.oracle.hold(priority)

    def input_names(self) -> tuple[str, ...] | None:
        return self.oracle.input_names()

    def failures(self, verdict: Verdict) -> tuple[str, ...]:
        return self.oracle.failures(verdict)

    def cancel(self) -> None:
        self.oracle.cancel()

    def resume(self) -> None:
        self.oracle.resume()

    def close(self) -> None:
        self.oracle.close()


class Rejudged(Wrapped):
    """`oracle`'s runs judged by `criteria` instead of its own (the golden run's same crash):
    every check captures the output, and a run is interesting when it finished and meets them.
    Everything else is `oracle`'s."""

    def __init__(self, oracle: Oracle, criteria: Criteria) -> None:
        super().__init__(oracle)
        self.criteria = criteria

    def check(
        self,
        candidate: bytes,
        worker: int = 0,
        *,
        timeout: float | None = None,
        capture: bool = False,
    ) -> Verdict:
        """Run `oracle`'s test on `candidate` and judge the run by `criteria`."""
        run = self.oracle.check(candidate, worker, timeout=timeout, capture=True)
        interesting = not run.timed_out and self.criteria.matches(
            run.exit_code, run.stdout, run.stderr
        )
        return dataclasses.replace(run, interesting=interesting)

    def failures(self, verdict: Verdict) -> tuple[str, ...]:
        """The criteria the run fails (see Criteria.failures)."""
        return self.criteria.failures(verdict.exit_code, verdict.stdout, verdict.stderr)


def as_oracle(test: Callable[[bytes], bool] | Oracle) -> Oracle:
    """`test` as an oracle: an `Oracle` as it is, a predicate on candidate bytes wrapped in a
    `CallableOracle`. Raises TypeError for anything else (such as an object with some of the
    protocol's methods but not all)."""
    if isinstance(test, Oracle):
        return test
    if callable(test):
        return CallableOracle(test)
    raise TypeError(f"the test must be a predicate on bytes or an Oracle, not {test!r}")
