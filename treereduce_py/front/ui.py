"""What the user sees of a run: consumers of the one event stream.

The engine emits `events.Event` values from worker threads and the main thread; a `Reporter` turns
them into output. Every reporter folds the stream into a `RunView` (a frozen value: the newest
stats, the pass, the clock anchor) under a short lock and does its slow work elsewhere: the live
panel is drawn by rich's own refresh thread from that value, so a slow test never freezes the screen
and a worker never waits for the terminal. Four modes share this shape: a live panel on a terminal,
plain log lines otherwise, one JSON line per event for editors and CI, and quiet (warnings only).

Where each mode lives: `view` (the folded state and the shared wording), `live` (the panel),
`lines` (plain, JSON and quiet) and `batch_view` (batch's table of groups); this module picks one.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Literal, Protocol, TextIO

from rich.console import Console

from treereduce_py.events import Event
from treereduce_py.front.batch_view import BatchReporter
from treereduce_py.front.lines import JsonReporter, PlainReporter, QuietReporter
from treereduce_py.front.live import LiveReporter, render_panel, summary_table
from treereduce_py.front.view import (
    RunView,
    fold,
    format_duration,
    percent_reduced,
    summary_line,
)

__all__ = [
    "JsonReporter",
    "LiveReporter",
    "Mode",
    "PlainReporter",
    "QuietReporter",
    "Reporter",
    "RunView",
    "fold",
    "format_duration",
    "is_interactive",
    "make_batch_reporter",
    "make_reporter",
    "percent_reduced",
    "render_panel",
    "summary_line",
    "summary_table",
]

Mode = Literal["auto", "live", "plain", "json", "quiet"]


class Reporter(Protocol):
    """A consumer of the event stream, as the CLI uses it."""

    def __call__(self, event: Event) -> None:
        """Take one event; thread-safe and cheap (never blocks on the terminal for long)."""

    def close(self) -> None:
        """Stop any live display and print the final summary (if the mode has one)."""


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
