"""The folded state of a run, and the words every display mode uses.

Every reporter folds the event stream into a `RunView` (a frozen value: the newest stats, the
pass, the clock anchor) under a short lock and renders from that value, so a slow test never
freezes a display and a worker never waits for the terminal. The one-line summary, the error and
warning lines, and the sizes and durations are worded here once for every mode.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Callable
from dataclasses import dataclass, replace

from treereduce_py.events import (
    Done,
    Event,
    Failure,
    Grouped,
    GroupUpdate,
    Improvement,
    InFile,
    Notice,
    PassChange,
    Start,
    Stats,
)
from treereduce_py.judge.errors import NotInteresting, ResumedNotInteresting

PROGRAM = "treereduce-py"
Clock = Callable[[], float]


def read_as(start: Start) -> str:
    """What the input is read as: its language, or the front end that reads it without one."""
    return _FRONT_ENDS.get(start.front_end, start.language)


_FRONT_ENDS = {"text": "text (no grammar)", "bytes": "binary (byte chunks)"}


@dataclass(frozen=True)
class RunView:
    """Everything a display needs, folded from the events seen so far.

    `clock_anchor`/`elapsed_anchor` pair a reading of the reporter's monotonic clock with the run's
    elapsed time at that moment, so the elapsed time can be projected to any later instant without
    a new event. `stats_clock` is the clock reading when `stats` arrived (for `Stats.running`).
    """

    start: Start | None = None
    stats: Stats | None = None
    pass_number: int = 0
    phase: str = ""
    improvements: int = 0
    notices: int = 0
    done: Done | None = None
    clock_anchor: float | None = None
    elapsed_anchor: float = 0.0
    stats_clock: float = 0.0

    def elapsed(self, now: float) -> float:
        """Seconds since the run started, projected to clock reading `now`; frozen once done."""
        if self.done is not None:
            return self.done.stats.elapsed
        if self.clock_anchor is None:
            return 0.0
        return self.elapsed_anchor + max(0.0, now - self.clock_anchor)

    def running(self, now: float) -> tuple[float, ...]:
        """Seconds each running test has been running, projected to clock reading `now`."""
        if self.stats is None or self.done is not None:
            return ()
        extra = max(0.0, now - self.stats_clock)
        return tuple(seconds + extra for seconds in self.stats.running)

    @property
    def original_size(self) -> int:
        """Size of the input in bytes, 0 before the run has started."""
        if self.stats is not None:
            return self.stats.original_size
        return self.start.original_size if self.start is not None else 0


def _newer(candidate: Stats, current: Stats | None) -> bool:
    # Snapshots from several threads can arrive out of order; keep the newest, never regress.
    if current is None:
        return True
    return (candidate.elapsed, candidate.tests) >= (current.elapsed, current.tests)


def fold(view: RunView, event: Event, now: float) -> RunView:
    """The view after `event`, which arrived at clock reading `now`. Pure; never raises."""
    if isinstance(event, InFile):  # a directory's file: the view follows the file's run
        return fold(view, event.event, now)
    elapsed = max(event.elapsed, view.elapsed(now))
    view = replace(view, clock_anchor=now, elapsed_anchor=elapsed)
    if isinstance(event, (Failure, GroupUpdate, Grouped)):  # batch events: see BatchReporter
        return view
    if isinstance(event, Start):
        return replace(view, start=event)
    if isinstance(event, PassChange):
        return replace(view, pass_number=event.pass_number, phase=event.phase)
    if isinstance(event, Notice):
        return replace(view, notices=view.notices + 1)
    if isinstance(event, Done):
        return replace(
            view,
            stats=event.stats,
            stats_clock=now,
            done=event,
            pass_number=event.stats.pass_number or view.pass_number,
            phase=event.stats.phase or view.phase,
        )
    if isinstance(event, Improvement):
        view = replace(view, improvements=view.improvements + 1)
    if not _newer(event.stats, view.stats):
        return view
    stats = event.stats
    return replace(
        view,
        stats=stats,
        stats_clock=now,
        pass_number=stats.pass_number or view.pass_number,
        phase=stats.phase or view.phase,
    )


def percent_reduced(stats: Stats) -> str:
    """The share removed as `"99.7%"`, rounded down so that only an empty result shows 100%."""
    tenths = math.floor(stats.reduced_fraction * 1000 + 1e-9)
    return f"{tenths / 10:.1f}%"


def format_duration(seconds: float) -> str:
    """`12.3 s`, `4m 05s` or `1h 02m 03s`."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes:02d}m {secs:02d}s"
    return f"{minutes}m {secs:02d}s"


def jobs_text(jobs: int) -> str:
    """`1 job`, `4 jobs`."""
    return f"{jobs} job" if jobs == 1 else f"{jobs} jobs"


def summary_line(stats: Stats, reason: str) -> str:
    """The one-line result of a run, e.g. `treereduce-py: 102400 -> 312 bytes (99.7% reduced),
    1234 tests (56 interesting, 210 cache hits, 300 syntax rejections) in 12.3 s`; a stop reason
    other than "fixpoint" is appended as `, stopped: <reason>`."""
    reduced = percent_reduced(stats)
    line = (
        f"{PROGRAM}: {stats.original_size} -> {stats.size} bytes ({reduced} reduced),"
        f" {stats.tests} tests ({stats.interesting} interesting, {stats.cache_hits} cache hits,"
        f" {stats.syntax_rejections} syntax rejections) in {format_duration(stats.elapsed)}"
    )
    if reason == "slice":  # a directory's file, taken up again next round
        line += ", paused: its time this round is up"
    elif reason != "fixpoint":
        line += f", stopped: {reason}"
    return line


def failure_lines(failure: Failure) -> list[str]:
    """`treereduce-py: error: ...` and the indented details, one string per line."""
    return [f"{PROGRAM}: error: {failure.message}", *(f"  {d}" for d in failure.details)]


def notice_line(notice: Notice) -> str:
    """How every mode but JSON prints a notice: a warning as a `warning:` line, the word users
    know from compilers; an `info` notice as a plain line."""
    if notice.level == "info":
        return f"{PROGRAM}: {notice.message}"
    return f"{PROGRAM}: warning: {notice.message}"


def not_interesting(
    e: NotInteresting, command: list[str], lines: int, what: str = "input"
) -> Failure:
    """The failure of an original (`what`: input or directory) that does not pass: its status,
    the criteria it fails, and the last `lines` lines of its stderr (-v shows more)."""
    v = e.verdict
    status = "timed out" if v.timed_out else f"exited with {v.exit_code}"
    if e.reasons:
        status += f" ({'; '.join(e.reasons)})"
    tail = v.stderr.decode(errors="replace").rstrip().splitlines()[-lines:]
    if isinstance(e, ResumedNotInteresting):
        head, advice = str(e), "run again without --resume"
    else:
        head = f"the original {what} is not interesting"
        advice = f"fix the test so it passes on the {what}"
    return Failure(
        f"{head}: `{shlex.join(command)}` {status}; {advice}",
        e.exit_code,
        tuple(f"stderr: {line}" for line in tail),
    )
