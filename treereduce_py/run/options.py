"""What a reduction may be asked to do: one frozen value, shared by the API, the CLI and tests.

Every knob of `reduce` is a field here with its default, so a run is described by one value
that can be printed, compared and changed with `dataclasses.replace`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from treereduce_py.edit.cdd import DEFAULT_P0
from treereduce_py.judge.signature import DEFAULT_FRAMES
from treereduce_py.transform.strategies import DEFAULT_STRATEGY, ScheduleName


@dataclass(frozen=True)
class ReduceOptions:
    """How to reduce.

    `jobs`: tests in flight (None: the number of CPUs). `strategy`: a preset of
    strategies.STRATEGIES. `passes`: at most this many passes per stage (None: until one changes
    nothing). `polish`: the line, token and whitespace passes. `syntax`: "strict" rejects
    candidates with more parse errors than the best without a test; "off" tests everything.
    `timeout`: seconds per test of a command (None: 10x the first run, at least 1 s; the first
    runs get judge/timeouts.py's FIRST_RUN_TIMEOUT).
    `max_time`/`max_tests`: budgets. `output`: always holds the best so far, written atomically.
    `queries`: extra query directories. `p0`: CDD's initial probability. `list_algorithm`:
    override every list reduction (for comparisons). `deterministic`: the same result at any
    `jobs` for a deterministic test. `rename`: try short identifier names (on by default).
    `members`: reduce a zip archive (bytes input) member by member before its bytes
    (run/archive.py; on by default).
    `slow`: repeat all stages until a whole round changes nothing. `format_command`: argv of a
    formatter (candidate on stdin, result on stdout), its output kept only if still interesting.
    `same_crash`: run the original once and require the same crash (exit status or signal, and
    crash signature); `signature`: a regex the output must match instead (implies same_crash).
    `signature_frames`: top stack frames in a crash signature; `signature_regex`: the user's own
    signature, the regex's first match or first group (implies same_crash).
    `original_size`/`command`: reported in the start event (`--resume` starts from a smaller
    file than the original).
    `passed_in`: the source is known to pass, in a run of this many seconds (a directory's part
    on the tree the last part ended on and re-tested): it is not tested first, and when nothing
    improved it is not re-tested at the end either. Not with a same-crash run (its golden run).
    `tests_before`: tests an earlier stage of the same run ran (an archive's members,
    run/archive.py), counted into the statistics' `tests`.
    """

    jobs: int | None = None
    strategy: str = DEFAULT_STRATEGY
    passes: int | None = None
    polish: bool = True
    syntax: str = "strict"
    timeout: float | None = None
    max_time: float | None = None
    max_tests: int | None = None
    output: Path | None = None
    queries: Sequence[Path] = ()
    p0: float = DEFAULT_P0
    list_algorithm: ScheduleName | None = None
    deterministic: bool = False
    rename: bool = True
    members: bool = True
    slow: bool = False
    format_command: Sequence[str] | None = None
    same_crash: bool = False
    signature: str | None = None
    signature_frames: int = DEFAULT_FRAMES
    signature_regex: str | None = None
    original_size: int | None = None
    command: Sequence[str] = ()
    passed_in: float | None = None
    tests_before: int = 0

    @property
    def crash_judged(self) -> bool:
        """Whether the same crash is judged (`same_crash`, or a signature given): by the golden
        run's criteria, not the test command's own."""
        return self.same_crash or self.signature is not None or self.signature_regex is not None
