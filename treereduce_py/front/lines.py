"""Reporters that write lines: plain log lines for a stream that is not a terminal, one JSON line
per event for editors and CI, and quiet (warnings and errors only)."""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import TextIO

from treereduce_py.events import (
    Done,
    Event,
    Failure,
    Improvement,
    Notice,
    PassChange,
    Start,
    Stats,
    to_json,
)
from treereduce_py.front.view import (
    PROGRAM,
    RunView,
    failure_lines,
    fold,
    format_duration,
    jobs_text,
    notice_line,
    percent_reduced,
    read_as,
    summary_line,
)


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
                f" with {jobs_text(event.jobs)} (strategy {event.strategy})"
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
            if isinstance(event, Notice) and event.level != "info"
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
