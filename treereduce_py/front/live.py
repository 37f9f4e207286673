"""The live panel on a terminal: rich's `Live`, redrawn by its own refresh thread.

The panel is rendered from the folded `RunView` at each refresh, with the elapsed time and the
running tests' times projected to the moment of drawing, so it keeps moving between events; a
preview of the best so far is fetched again only when the best changed. On close the panel gives
way to a summary table.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.panel import Panel
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from treereduce_py.events import Event, Failure, Notice, Stats
from treereduce_py.front.view import (
    PROGRAM,
    Clock,
    RunView,
    failure_lines,
    fold,
    format_duration,
    jobs_text,
    notice_line,
    percent_reduced,
    read_as,
)

# A running test is shown in the live panel once it has run this long.
SLOW_TEST_SECONDS = 2.0
PREVIEW_LINES = 15
PREVIEW_WIDTH = 100


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


def render_panel(view: RunView, now: float, preview: Text | None = None) -> RenderableType:
    """The live panel for `view` at clock reading `now`. Pure; never raises."""
    elapsed = view.elapsed(now)
    stats = view.stats
    title = PROGRAM
    if view.start is not None:
        start = view.start
        title = f"{PROGRAM} · {read_as(start)} · {start.strategy} · {jobs_text(start.jobs)}"
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
        self._live = make_live(console, self.render, refresh_per_second, auto_refresh)

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


def make_live(
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
