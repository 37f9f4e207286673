"""An unexpected internal error ends a run with one line and a saved traceback, never a raw one.

A bug is not the user's doing, so they get what a bug report needs in one line: what failed, and
the path of the full traceback saved in the temporary directory. A thread other than the main
one (a timer, the live display) that fails is recorded and the main thread is interrupted, so
the run stops as after Ctrl-C (the best so far on disk) and then ends as an internal error:
`failure` tells the two apart. The exit code is INTERNAL_ERROR (EX_SOFTWARE in sysexits.h).
"""

from __future__ import annotations

import _thread
import contextlib
import os
import signal
import tempfile
import threading
import traceback
from collections.abc import Iterator

INTERNAL_ERROR = 70


def describe(error: BaseException) -> str:
    """The one line for `error`: what it is, and where its traceback was saved."""
    what = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    saved = save_traceback(error)
    where = (
        f"the traceback is in {saved}" if saved is not None else "the traceback could not be saved"
    )
    return f"internal error ({what}); {where}: please report it"


def save_traceback(error: BaseException) -> str | None:
    """Write `error`'s traceback to a new file in the temporary directory; its path, or None."""
    text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    try:
        fd, path = tempfile.mkstemp(prefix="treereduce-py-traceback-", suffix=".txt")
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as f:
            f.write(text)
    except OSError:
        return None
    return path


class ThreadFailures:
    """The first exception that ended a thread other than the main one while installed."""

    def __init__(self) -> None:
        self.failure: BaseException | None = None
        self._lock = threading.Lock()

    def hook(self, args: threading.ExceptHookArgs) -> None:
        """threading.excepthook: keep the first failure and interrupt the main thread."""
        if args.exc_type is SystemExit or args.exc_value is None:
            return
        with self._lock:
            first = self.failure is None
            if first:
                self.failure = args.exc_value.with_traceback(args.exc_traceback)
        if first:
            _thread.interrupt_main(_interrupting_signal())


def _interrupting_signal() -> signal.Signals:
    # interrupt_main does nothing for a signal Python does not handle, and a run started in the
    # background (`cmd &` in a script, nohup) ignores SIGINT: use the SIGTERM handler there.
    if callable(signal.getsignal(signal.SIGINT)):
        return signal.SIGINT
    if callable(signal.getsignal(signal.SIGTERM)):
        return signal.SIGTERM
    return signal.SIGINT


@contextlib.contextmanager
def watching_threads() -> Iterator[ThreadFailures]:
    """Route the failures of other threads to a ThreadFailures for the duration."""
    failures = ThreadFailures()
    previous = threading.excepthook
    threading.excepthook = failures.hook
    try:
        yield failures
    finally:
        threading.excepthook = previous
