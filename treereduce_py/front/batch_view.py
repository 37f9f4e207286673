"""What `treereduce-py batch` shows: one row per group of crashes (its status, members, sizes and
tests), as a live table on a terminal or a line per status change otherwise."""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from typing import TextIO

from rich.console import Console, RenderableType
from rich.panel import Panel
from rich.table import Table

from treereduce_py.events import Event, Failure, Grouped, GroupUpdate, InFile, Notice, Stats
from treereduce_py.front.live import make_live
from treereduce_py.front.view import PROGRAM, Clock, failure_lines, format_duration, notice_line


def fold_groups(
    rows: dict[str, GroupUpdate], event: Event
) -> tuple[dict[str, GroupUpdate], GroupUpdate | None]:
    """The rows after `event`, and the row that changed status (None if none). Pure."""
    if isinstance(event, GroupUpdate):
        old = rows.get(event.group)
        changed = event if old is None or old.status != event.status else None
        return {**rows, event.group: event}, changed
    if isinstance(event, Grouped) and event.group in rows:
        inner = event.event
        if isinstance(inner, InFile):  # a directory group: the whole tree's figures
            if inner.tree_size is not None and inner.tree_tests is not None:
                row = replace(rows[event.group], size=inner.tree_size, tests=inner.tree_tests)
                return {**rows, event.group: row}, None
            return rows, None
        stats = getattr(inner, "stats", None)
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
        self._live = make_live(self._console, self.render, 4.0, True) if live else None
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
