"""What the user sees of a run: consumers of the one event stream.

The engine emits `events.Event` values from worker threads and the main thread; a `Reporter` turns
them into output. Every reporter folds the stream into a `RunView` (a frozen value: the newest
stats, the pass, the clock anchor) under a short lock and does its slow work elsewhere: the live
panel is drawn by rich's own refresh thread from that value, so a slow test never freezes the screen
and a worker never waits for the terminal. Four modes share this shape: a live panel on a terminal,
plain log lines otherwise, one JSON line per event for editors and CI, and quiet (warnings only).
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal, Protocol, TextIO

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.panel import Panel
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from treereduce_py.events import (
    Done,
    Event,
    Failure,
    Grouped,
    GroupUpdate,
    Improvement,
    Notice,
    PassChange,
    Start,
    Stats,
    to_json,
)

PROGRAM = "treereduce-py"
# A running test is shown in the live panel once it has run this long.
SLOW_TEST_SECONDS = 2.0
PREVIEW_LINES = 15
PREVIEW_WIDTH = 100

Mode = Literal["auto", "live", "plain", "json", "quiet"]
Clock = Callable[[], float]


class Reporter(Protocol):
    """A consumer of the event stream, as the CLI uses it."""

    def __call__(self, event: Event) -> None:
        """Take one event; thread-safe and cheap (never blocks on the terminal for long)."""

    def close(self) -> None:
        """Stop any live display and print the final summary (if the mode has one)."""


# ---------------------------------------------------------------------------------------------
# The folded state of a run


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


# ---------------------------------------------------------------------------------------------
# Formatting shared by every mode


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
    if reason != "fixpoint":
        line += f", stopped: {reason}"
    return line


def failure_lines(failure: Failure) -> list[str]:
    """`treereduce-py: error: ...` and the indented details, one string per line."""
    return [f"{PROGRAM}: error: {failure.message}", *(f"  {d}" for d in failure.details)]


def notice_line(notice: Notice) -> str:
    """How every mode but JSON prints a notice: as a `warning:` line, the word users know from
    compilers."""
    return f"{PROGRAM}: warning: {notice.message}"


# ---------------------------------------------------------------------------------------------
# Live panel


def preview_text(best: bytes, width: int = PREVIEW_WIDTH, lines: int = PREVIEW_LINES) -> Text:
    """The first `lines` lines of `best`, each cut to `width` columns, decoded leniently."""
    # Only the head is decoded: the preview is redrawn several times a second on large inputs.
    head = best[: lines * (width + 1) * 4].split(b"\n", lines)
    shown = head[:lines]
    out = Text(no_wrap=True, overflow="ellipsis")
    for index, raw in enumerate(shown):
        line = raw.decode("utf-8", errors="replace").expandtabs(4).rstrip("\r")
        if len(line) > width:
            line = line[: width - 1] + "…"
        out.append(line)
        if index < len(shown) - 1:
            out.append("\n")
    if len(head) > lines:
        out.append("\n…", style="dim")
    return out


def read_as(start: Start) -> str:
    """What the input is read as: its language, or the front end that reads it without one."""
    return _FRONT_ENDS.get(start.front_end, start.language)


_FRONT_ENDS = {"text": "text (no grammar)", "bytes": "binary (byte chunks)"}


def render_panel(view: RunView, now: float, preview: Text | None = None) -> RenderableType:
    """The live panel for `view` at clock reading `now`. Pure; never raises."""
    elapsed = view.elapsed(now)
    stats = view.stats
    title = PROGRAM
    if view.start is not None:
        start = view.start
        title = f"{PROGRAM} · {read_as(start)} · {start.strategy} · {start.jobs} jobs"
    if stats is None:
        body: RenderableType = Text(f"starting… {format_duration(elapsed)}", style="dim")
        return Panel(body, title=title, title_align="left", expand=False)

    original = stats.original_size
    bar = ProgressBar(total=max(original, 1), completed=stats.size, width=30)
    size = Table.grid(padding=(0, 1))
    size.add_row(
        bar,
        Text(f"{original:,} → {stats.size:,} bytes", style="bold"),
        Text(f"{percent_reduced(stats)} reduced", style="bold green"),
    )

    rate = stats.tests / elapsed if elapsed > 0 else 0.0
    share = stats.interesting / stats.tests if stats.tests else 0.0
    grid = Table.grid(padding=(0, 2))
    for _ in range(4):
        grid.add_column()
    grid.add_row(
        "tests",
        f"{stats.tests:,} ({rate:.1f}/s)",
        "interesting",
        f"{stats.interesting:,} ({share:.1%})",
    )
    grid.add_row(
        "cache hits",
        f"{stats.cache_hits:,}",
        "syntax rejections",
        f"{stats.syntax_rejections:,}",
    )
    grid.add_row(
        "commit retries",
        f"{stats.commit_retries:,}",
        "workers busy",
        f"{stats.busy}/{stats.jobs}",
    )
    grid.add_row(
        "pass",
        f"{view.pass_number} {view.phase}".rstrip(),
        "elapsed",
        format_duration(elapsed),
    )
    parts: list[RenderableType] = [size, grid]
    slow = sorted((s for s in view.running(now) if s >= SLOW_TEST_SECONDS), reverse=True)
    if slow:
        shown = ", ".join(format_duration(s) for s in slow[:8])
        parts.append(Text(f"slow tests running: {shown}", style="yellow"))
    if preview is not None:
        parts.append(Panel(preview, title="best so far", title_align="left", border_style="dim"))
    return Panel(Group(*parts), title=title, title_align="left", expand=False)


def summary_table(stats: Stats, reason: str) -> Table:
    """The final summary shown after the live panel."""
    table = Table(title=f"{PROGRAM} summary", show_header=False, title_justify="left")
    table.add_column(style="bold")
    table.add_column(justify="right")
    rows = [
        ("original size", f"{stats.original_size:,} bytes"),
        ("final size", f"{stats.size:,} bytes"),
        ("reduced", percent_reduced(stats)),
        ("tests", f"{stats.tests:,}"),
        ("interesting", f"{stats.interesting:,}"),
        ("cache hits", f"{stats.cache_hits:,}"),
        ("syntax rejections", f"{stats.syntax_rejections:,}"),
        ("commit retries", f"{stats.commit_retries:,}"),
        ("timeouts", f"{stats.timeouts:,}"),
        ("wall time", format_duration(stats.elapsed)),
        ("stop reason", reason),
    ]
    for name, value in rows:
        table.add_row(name, value)
    return table


class LiveReporter:
    """A rich `Live` panel that refreshes on its own thread (`refresh_per_second`), started at the
    first event. `clock` is the monotonic clock used to project elapsed and running-test times
    between events; tests inject a fake one and call `render` directly."""

    def __init__(
        self,
        console: Console,
        *,
        show_best: Callable[[], bytes] | None = None,
        clock: Clock = time.monotonic,
        refresh_per_second: float = 4.0,
        auto_refresh: bool = True,
    ) -> None:
        self._console = console
        self._show_best = show_best
        self._clock = clock
        self._lock = threading.Lock()
        # Held for start/stop only, never while `_lock` is held (the refresh thread takes `_lock`).
        self._lifecycle = threading.Lock()
        self._view = RunView()
        self._started = False
        self._closed = False
        self._preview_key: tuple[int, int] | None = None
        self._preview: Text | None = None
        self._live = _make_live(console, self.render, refresh_per_second, auto_refresh)

    @property
    def view(self) -> RunView:
        """The state folded from the events so far."""
        with self._lock:
            return self._view

    def __call__(self, event: Event) -> None:
        """Fold `event` into the view; a Notice is also printed above the panel."""
        with self._lock:
            self._view = fold(self._view, event, self._clock())
            start = not self._started
        if start:
            self._start()
        if isinstance(event, Notice):
            self._console.print(Text(notice_line(event), style="yellow"))
        elif isinstance(event, Failure):
            self._console.print(Text("\n".join(failure_lines(event)), style="red"))

    def _start(self) -> None:
        with self._lifecycle:
            if self._started or self._closed:
                return
            self._started = True
            self._live.start()

    def render(self) -> RenderableType:
        """The panel as it should look now (called by the refresh thread)."""
        with self._lock:
            view = self._view
        return render_panel(view, self._clock(), self._best_preview(view))

    def refresh(self) -> None:
        """Redraw now (only needed when `auto_refresh` is off)."""
        if self._started and not self._closed:
            self._live.refresh()

    # Only called from `render`, which rich serializes under the Live's own lock.
    def _best_preview(self, view: RunView) -> Text | None:
        if self._show_best is None or view.stats is None:
            return None
        key = (view.improvements, view.stats.size)
        # Fetch the best again only when it changed; the refresh runs several times a second.
        if key != self._preview_key:
            try:
                self._preview = preview_text(self._show_best())
            except Exception as error:  # a failing preview must not kill the display
                self._preview = Text(f"(preview unavailable: {error})", style="dim")
            self._preview_key = key
        return self._preview

    def close(self) -> None:
        """Stop the panel and print the summary table (if the run got as far as any stats)."""
        with self._lifecycle:
            if self._closed:
                return
            self._closed = True
            if self._started:
                self._live.stop()
        view = self.view
        if view.stats is not None:
            reason = view.done.reason if view.done is not None else "unfinished"
            stats = replace(view.stats, elapsed=view.elapsed(self._clock()))
            self._console.print(summary_table(stats, reason))


def _make_live(
    console: Console,
    get_renderable: Callable[[], RenderableType],
    refresh_per_second: float,
    auto_refresh: bool,
) -> Live:
    return Live(
        console=console,
        get_renderable=get_renderable,
        refresh_per_second=refresh_per_second,
        auto_refresh=auto_refresh,
        transient=True,
        # Redirecting would send the program's stdout (maybe a pipe) to the stderr console.
        redirect_stdout=False,
        redirect_stderr=False,
    )


# ---------------------------------------------------------------------------------------------
# Plain log lines, JSON lines, quiet


class PlainReporter:
    """Log lines for a stream that is not a terminal: Start, improvements (at most one per
    `min_interval` seconds of run time, the last one always shown before Done), pass changes,
    warnings and a final summary line. With `verbose`, each finished pass gets a statistics line."""

    def __init__(self, stream: TextIO, *, verbose: bool = False, min_interval: float = 1.0) -> None:
        self._stream = stream
        self._verbose = verbose
        self._min_interval = min_interval
        self._lock = threading.Lock()
        self._view = RunView()
        self._last_line_at: float | None = None
        self._pending: Improvement | None = None
        self._pass: PassChange | None = None
        self._pass_stats: Stats | None = None
        self._done = False

    def __call__(self, event: Event) -> None:
        """Fold `event` and write the lines it calls for."""
        with self._lock:
            lines = self._lines_for(event)
            if lines:
                self._stream.write("".join(line + "\n" for line in lines))
                self._stream.flush()

    def _lines_for(self, event: Event) -> list[str]:
        self._view = fold(self._view, event, event.elapsed)
        lines: list[str] = []
        if isinstance(event, Improvement):
            self._pending = event
        # A held-back improvement is written by the first event a full interval later.
        if self._pending is not None and self._due(event.elapsed):
            lines.append(self._improvement_line(self._pending))
            self._last_line_at = event.elapsed
            self._pending = None
        if isinstance(event, Start):
            lines.append(
                f"{PROGRAM}: reducing {event.original_size} bytes of {read_as(event)}"
                f" with {event.jobs} jobs (strategy {event.strategy})"
            )
        elif isinstance(event, PassChange):
            lines.extend(self._pass_lines(event.elapsed))
            lines.append(f"{PROGRAM}: pass {event.pass_number}: {event.phase} ({event.size} bytes)")
            self._pass, self._pass_stats = event, self._view.stats
        elif isinstance(event, Notice):
            lines.append(notice_line(event))
        elif isinstance(event, Failure):
            lines.extend(failure_lines(event))
        elif isinstance(event, Done):
            if self._pending is not None:
                lines.append(self._improvement_line(self._pending))
                self._pending = None
            lines.extend(self._pass_lines(event.stats.elapsed))
            self._pass = None
            lines.append(summary_line(event.stats, event.reason))
            self._done = True
        return lines

    def _due(self, at: float) -> bool:
        return self._last_line_at is None or at - self._last_line_at >= self._min_interval

    def _improvement_line(self, event: Improvement) -> str:
        stats = event.stats
        fraction = replace(stats, size=event.size)
        return (
            f"{PROGRAM}: {event.size} bytes ({percent_reduced(fraction)} reduced)"
            f" after {stats.tests} tests, {format_duration(event.elapsed)}"
        )

    def _pass_lines(self, ended_at: float) -> list[str]:
        # The statistics of the pass that just ended: newest stats minus those at its start.
        if not self._verbose or self._pass is None or self._view.stats is None:
            return []
        start, before, now = self._pass, self._pass_stats, self._view.stats
        base = before if before is not None else Stats(original_size=now.original_size, size=0)
        seconds = ended_at - start.elapsed
        return [
            f"{PROGRAM}:   pass {start.pass_number} {start.phase}:"
            f" {now.tests - base.tests} tests, {now.interesting - base.interesting} interesting,"
            f" {now.cache_hits - base.cache_hits} cache hits,"
            f" {now.syntax_rejections - base.syntax_rejections} syntax rejections,"
            f" {now.commit_retries - base.commit_retries} commit retries,"
            f" {start.size} -> {now.size} bytes in {format_duration(max(0.0, seconds))}"
        ]

    def close(self) -> None:
        """Write a held-back improvement if the run ended without a Done event."""
        with self._lock:
            if not self._done and self._pending is not None:
                self._stream.write(self._improvement_line(self._pending) + "\n")
                self._stream.flush()
            self._pending = None
            self._done = True


class JsonReporter:
    """One JSON line per event (`events.to_json`), flushed at once; nothing else is written."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()

    def __call__(self, event: Event) -> None:
        """Write `event` as one line of newline-delimited JSON and flush."""
        line = to_json(event) + "\n"
        with self._lock:
            self._stream.write(line)
            self._stream.flush()

    def close(self) -> None:
        """Nothing to finish: every line is already flushed."""


class QuietReporter:
    """Only warnings (Notice events), one line each; no progress and no summary."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()

    def __call__(self, event: Event) -> None:
        """Write `event` if it is a warning or an error; ignore everything else."""
        lines = (
            [notice_line(event)]
            if isinstance(event, Notice)
            else failure_lines(event)
            if isinstance(event, Failure)
            else []
        )
        if lines:
            with self._lock:
                self._stream.write("".join(line + "\n" for line in lines))
                self._stream.flush()

    def close(self) -> None:
        """Nothing to finish."""


# ---------------------------------------------------------------------------------------------
# Batch mode: one line per group


def fold_groups(
    rows: dict[str, GroupUpdate], event: Event
) -> tuple[dict[str, GroupUpdate], GroupUpdate | None]:
    """The rows after `event`, and the row that changed status (None if none). Pure."""
    if isinstance(event, GroupUpdate):
        old = rows.get(event.group)
        changed = event if old is None or old.status != event.status else None
        return {**rows, event.group: event}, changed
    if isinstance(event, Grouped) and event.group in rows:
        stats = getattr(event.event, "stats", None)
        if isinstance(stats, Stats):
            row = replace(rows[event.group], size=stats.size, tests=stats.tests)
            return {**rows, event.group: row}, None
    return rows, None


def group_line(row: GroupUpdate) -> str:
    """One line for a group: status, members, sizes, tests, signature."""
    size = "" if row.size is None else f" -> {row.size}"
    return (
        f"{row.status:>8}  {row.members:>3} input{'s' if row.members != 1 else ' '}  "
        f"{row.original_size}{size} B  {row.tests} tests  {row.signature}"
    )


def render_groups(rows: dict[str, GroupUpdate], elapsed: float) -> RenderableType:
    table = Table(box=None, expand=False, show_header=True, header_style="bold")
    for name in ("group", "inputs", "status", "size", "tests"):
        table.add_column(name, justify="right" if name in ("inputs", "tests") else "left")
    for row in rows.values():
        size = f"{row.original_size} B" + ("" if row.size is None else f" → {row.size} B")
        table.add_row(row.group, str(row.members), row.status, size, str(row.tests))
    done = sum(r.status in ("done", "failed", "skipped") for r in rows.values())
    title = f"{PROGRAM} batch: {done}/{len(rows)} groups, {format_duration(elapsed)}"
    return Panel(table, title=title, expand=False)


class BatchReporter:
    """Batch progress: a live table of groups on a terminal, else a line per status change.
    Notices and errors are printed as in a single run."""

    def __init__(self, stream: TextIO, *, live: bool, clock: Clock = time.monotonic) -> None:
        self._stream = stream
        self._clock = clock
        self._started = clock()
        self._rows: dict[str, GroupUpdate] = {}
        self._lock = threading.Lock()
        self._console = Console(file=stream)
        self._live = _make_live(self._console, self.render, 4.0, True) if live else None
        if self._live is not None:
            self._live.start()

    def render(self) -> RenderableType:
        with self._lock:
            rows = self._rows
        return render_groups(rows, self._clock() - self._started)

    def __call__(self, event: Event) -> None:
        inner = event.event if isinstance(event, Grouped) else event
        with self._lock:
            self._rows, changed = fold_groups(self._rows, event)
        lines = []
        if changed is not None and self._live is None:
            lines.append(f"{PROGRAM}: {changed.group}: {group_line(changed)}")
        if isinstance(inner, Notice):
            lines.append(notice_line(inner))
        elif isinstance(inner, Failure):
            lines.extend(failure_lines(inner))
        if lines:
            if self._live is not None:
                self._console.print("\n".join(lines), markup=False, highlight=False)
            else:
                self._stream.write("".join(line + "\n" for line in lines))
                self._stream.flush()

    def close(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None
            self._console.print(self.render())


def make_batch_reporter(mode: Mode, stream: TextIO = sys.stderr) -> Reporter:
    """The reporter for `batch`: json and quiet as for one run, a table or lines otherwise."""
    if mode == "json":
        return JsonReporter(stream)
    if mode == "quiet":
        return QuietReporter(stream)
    live = mode == "live" or (mode == "auto" and is_interactive(stream))
    return BatchReporter(stream, live=live)


def is_interactive(stream: TextIO) -> bool:
    """Whether `stream` is a terminal that can take a live display (a tty, TERM not dumb)."""
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or already closed
        return False
    return tty and os.environ.get("TERM", "") not in ("dumb", "unknown")


def make_reporter(
    *,
    mode: Mode,
    stream: TextIO = sys.stderr,
    verbose: bool = False,
    show_best: Callable[[], bytes] | None = None,
) -> Reporter:
    """The reporter for a CLI `mode`: "auto" is "live" on a terminal and "plain" otherwise.

    Raises ValueError for an unknown mode.
    """
    if mode == "auto":
        mode = "live" if is_interactive(stream) else "plain"
    if mode == "live":
        return LiveReporter(Console(file=stream), show_best=show_best)
    if mode == "plain":
        return PlainReporter(stream, verbose=verbose)
    if mode == "json":
        return JsonReporter(stream)
    if mode == "quiet":
        return QuietReporter(stream)
    raise ValueError(f"unknown reporter mode: {mode!r}")
