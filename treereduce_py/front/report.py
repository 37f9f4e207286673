"""The `--report FILE` JSON summary of a run, written at its end whatever the outcome
(docs/ci.md describes the fields)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from treereduce_py import __version__, events
from treereduce_py.engine.output import write_atomic


class Report:
    """The --report JSON summary: what the run was, how it ended, and its counters."""

    def __init__(
        self,
        args: argparse.Namespace,
        command: list[str],
        lang: str,
        original_size: int,
        output: Path | None,
    ) -> None:
        self.args = args
        self.command = command
        self.lang = lang
        self.original_size = original_size
        self.output = output
        self.signature: str | None = None
        self.reason = "error"

    def write(self, path: Path, stats: events.Stats | None, code: int, wall: float) -> None:
        """Write the summary to `path` atomically; raises OutputError when it cannot."""
        body: dict[str, object] = {
            "tool": "treereduce-py",
            "version": __version__,
            "input": self.args.input,
            "output": str(self.output) if self.output is not None else "-",
            "language": self.lang,
            "strategy": self.args.strategy,
            "jobs": stats.jobs if stats is not None else self.args.jobs,
            "command": self.command,
            "signature": self.signature,
            "exit_code": code,
            "reason": self.reason,
            "original_size": self.original_size,
            "wall_time": round(wall, 3),
        }
        if stats is not None:
            body.update(
                final_size=stats.size,
                reduced_percent=round(100 * stats.reduced_fraction, 2),
                tests=stats.tests,
                interesting=stats.interesting,
                cache_hits=stats.cache_hits,
                syntax_rejections=stats.syntax_rejections,
                commit_retries=stats.commit_retries,
                timeouts=stats.timeouts,
                passes=stats.pass_number,
            )
        write_atomic(path, (json.dumps(body, indent=2) + "\n").encode())
