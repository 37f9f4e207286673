"""The one stream of events a reduction emits.

The engine reports what happens as small frozen values; the terminal UI, the plain log lines, the
`--json` output and API progress callbacks all consume this same stream, so they can never
disagree. Every event carries the elapsed wall time; `to_json` gives the documented wire form
(see docs/events.md).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

# The wire format's version (docs/events.md). 2: `notice` events (was `warning`), and the stats
# fields `test_seconds` and `cpu_seconds`. 3: batch mode's `group` events, and a `group` field on
# the events of each of its reductions. 4: the stats fields `wasted` and `busy_quarters`, and a
# `file` field on the events of a directory's reduction (which file, or `.` for the
# file-deletion pass). 5: `tree_size` and `tree_tests` beside `file`: the whole tree's bytes and
# tests so far.
SCHEMA_VERSION = 5

# Why a test's answer was of no use (judge/busy.py): the keys of `Stats.wasted`.
WASTE = ("stale", "moot", "merge")


@dataclass(frozen=True)
class Stats:
    """Counters of a run so far; all fields are monotone except `size` and `busy`."""

    original_size: int
    size: int
    tests: int = 0
    interesting: int = 0
    cache_hits: int = 0
    syntax_rejections: int = 0
    commit_retries: int = 0
    timeouts: int = 0
    busy: int = 0
    jobs: int = 1
    pass_number: int = 0
    phase: str = ""
    elapsed: float = 0.0
    # Seconds each currently running test has been running (for a slow test, the UI shows it).
    running: tuple[float, ...] = ()
    # Seconds spent in finished tests, summed over workers (utilization = test_seconds /
    # (jobs * elapsed)), and CPU seconds of this process (the engine's own work, tests excluded).
    test_seconds: float = 0.0
    cpu_seconds: float = 0.0
    # Tests whose answer was of no use, by cause (judge/busy.py: stale, moot, merge).
    wasted: Mapping[str, int] = field(default_factory=lambda: dict.fromkeys(WASTE, 0))
    # The share of the workers' time spent testing in each quarter of the run so far; only in
    # the `done` event's stats (empty elsewhere: it costs a pass over every test).
    busy_quarters: tuple[float, ...] = ()

    @property
    def reduced_fraction(self) -> float:
        """Share of the original removed so far, 0.0 to 1.0."""
        if self.original_size == 0:
            return 0.0
        return 1.0 - self.size / self.original_size


@dataclass(frozen=True)
class Start:
    original_size: int
    language: str
    jobs: int
    strategy: str
    command: tuple[str, ...] = ()
    signature: str | None = None
    elapsed: float = 0.0
    # What reads the input: "grammar" (tree-sitter), "text" or "bytes" (lang/inputs.py).
    front_end: str = "grammar"
    kind: str = field(default="start", init=False)


@dataclass(frozen=True)
class Progress:
    stats: Stats
    elapsed: float = 0.0
    kind: str = field(default="progress", init=False)


@dataclass(frozen=True)
class Improvement:
    size: int
    stats: Stats
    elapsed: float = 0.0
    kind: str = field(default="improvement", init=False)


@dataclass(frozen=True)
class PassChange:
    pass_number: int
    phase: str
    size: int
    elapsed: float = 0.0
    kind: str = field(default="pass", init=False)


@dataclass(frozen=True)
class Notice:
    message: str
    elapsed: float = 0.0
    # "warning": something the user should know; "info": where the run is (a directory's next
    # file), which quiet mode leaves out.
    level: str = "warning"
    kind: str = field(default="notice", init=False)


@dataclass(frozen=True)
class Done:
    stats: Stats
    reason: str  # "fixpoint", "max-time", "max-tests", "interrupted"; a directory's file: "slice"
    elapsed: float = 0.0
    kind: str = field(default="done", init=False)


@dataclass(frozen=True)
class Failure:
    """The run ends without a result: `message` says why in one line, `details` adds context
    (such as the test's last stderr lines), and `exit_code` is the CLI's exit status."""

    message: str
    exit_code: int
    details: tuple[str, ...] = ()
    elapsed: float = 0.0
    kind: str = field(default="error", init=False)


@dataclass(frozen=True)
class GroupUpdate:
    """Batch mode: a group of inputs with one crash signature changed status (queued, reducing,
    done, failed, skipped); `size` is the reduced size once known; `message` says why a group
    failed or was skipped."""

    group: str
    signature: str
    members: int
    status: str
    original_size: int
    size: int | None
    tests: int = 0
    elapsed: float = 0.0
    message: str = ""
    kind: str = field(default="group", init=False)


@dataclass(frozen=True)
class Grouped:
    """Batch mode: an event of the reduction of `group`; on the wire, that event plus `group`."""

    group: str
    event: Event
    elapsed: float = 0.0
    kind: str = field(default="grouped", init=False)


@dataclass(frozen=True)
class InFile:
    """Directory input: an event of the reduction of one of its files (`file`, relative to the
    directory; `.` for the file-deletion pass over the whole tree), with the whole tree's bytes
    and tests so far (`tree_size`, `tree_tests`: the event's own stats are the file's run's); on
    the wire, that event plus `file`, `tree_size` and `tree_tests`."""

    file: str
    event: Event
    elapsed: float = 0.0
    tree_size: int | None = None
    tree_tests: int | None = None
    kind: str = field(default="in-file", init=False)


Event = (
    Start
    | Progress
    | Improvement
    | PassChange
    | Notice
    | Done
    | Failure
    | GroupUpdate
    | Grouped
    | InFile
)
EventSink = Callable[[Event], None]


def to_dict(event: Event) -> dict[str, Any]:
    """The wire form of an event: a flat JSON object with `event` naming its kind."""
    if isinstance(event, Grouped):
        return {**to_dict(event.event), "group": event.group}
    if isinstance(event, InFile):
        tree = {"tree_size": event.tree_size, "tree_tests": event.tree_tests}
        known = {k: v for k, v in tree.items() if v is not None}
        return {**to_dict(event.event), "file": event.file, **known}
    body = dataclasses.asdict(event)
    kind = body.pop("kind")
    stats = body.pop("stats", None)
    out: dict[str, Any] = {"event": kind, "schema": SCHEMA_VERSION}
    out.update(body)
    if stats is not None:
        stats["running"] = list(stats["running"])
        stats["busy_quarters"] = list(stats["busy_quarters"])
        stats["wasted"] = dict(stats["wasted"])
        out["stats"] = stats
    for key in ("command", "details"):
        if key in out:
            out[key] = list(out[key])
    return out


def to_json(event: Event) -> str:
    """One line of newline-delimited JSON."""
    return json.dumps(to_dict(event), separators=(",", ":"), sort_keys=True)
