"""How a run ends, as a number a script can test: every exit code, and the error that gives it.

The table is printed by `--help` and mirrored in README.md and docs/ci.md; each failure the command
line can meet maps to exactly one of its codes.
"""

from __future__ import annotations

from treereduce_py.front.internal_error import INTERNAL_ERROR
from treereduce_py.judge.errors import ReduceError
from treereduce_py.judge.oracle import OracleStartError

EXIT_CODES = {
    0: "success: the result is written and passed a final re-test",
    1: "Python failed before treereduce-py could handle it (a broken installation); "
    "treereduce-py itself never exits 1",
    2: "usage error (bad option or value, missing or unreadable input, unknown language, output "
    "exists or is being written by another run)",
    3: "the original input is not interesting: fix the test first (batch: no input shows a "
    "crash, or all fail as an empty file does)",
    4: "the test cannot be started (command not found or not executable, or no Dask scheduler "
    "answers at the --cluster address, or distributed is not installed)",
    5: "the final result failed its re-test (the test is not deterministic?)",
    7: "--cluster: the cluster went away during the run; the best result so far is on disk",
    8: "batch: some groups could not be reduced or were skipped (summary.md says why)",
    9: "a directory input cannot be reduced as given (no files, a symlink loop or one out of "
    "the tree, something that is not a file or cannot be read)",
    INTERNAL_ERROR: "internal error (a bug): one line names the saved traceback; please report it",
    130: "interrupted (SIGINT/SIGTERM); the best result so far is on disk (or on stdout with -o -)",
}


class UsageError(Exception):
    """A bad invocation, found before or while starting the run: one line, exit 2."""


def exit_code(e: Exception) -> int:
    """The exit code for an error that ends a run: a ReduceError's own, 4 for a test command
    that cannot be started, 2 for anything the user asked for that cannot be done."""
    if isinstance(e, ReduceError):
        return e.exit_code
    return 4 if isinstance(e, OracleStartError) else 2
