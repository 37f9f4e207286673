"""Where a run's result goes, owned by the run for its lifetime.

A file output is checked (never the input, never a directory, never an existing file without
`--force`; the default reduced/ directory is made for it) and claimed (engine.output.OutputLock:
a second run with the same `-o` refuses, naming the first), and gets the record of the run
beside it. For `-o -` the result is kept in a private file like any output and copied to
standard output when the run ends, however it ends: a pipe or an editor gets the best so far on
Ctrl-C, SIGTERM or at a budget's end, as a file would. `close` leaves nothing behind but the
output and its record, and a run that wrote no output leaves the record as it found it (and no
reduced/ directory it made).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

from treereduce_py.engine.output import OutputLock, record_path, write_atomic, write_record
from treereduce_py.front.exit_codes import UsageError

STDOUT = "standard output"


class Destination:
    """The output a run writes (`path`, for BestSoFar) and how it reaches the user (`output`:
    the file, or None for standard output). Use `claim`, then `close` once."""

    def __init__(
        self, output: Path | None, path: Path, lock: OutputLock | None, resumed: bool = False
    ) -> None:
        self.output = output
        self.path = path
        self._lock = lock
        self._resumed = resumed  # the output already holds this reduction's best
        self._before = _snapshot(output)
        self._old_record: bytes | None = None
        self._recorded = False
        self._made: Path | None = None  # the default output's directory, if this run made it

    @classmethod
    def claim(
        cls,
        output: Path | None,
        input_path: Path | None,
        *,
        force: bool,
        resume: bool = False,
        default: bool = False,
    ) -> Destination:
        """Check and claim `output` (None: standard output, through a private file); `resume`:
        the run continues from the output (so overwrites it); `default`: the output is the
        default reduced/NAME.EXT, whose directory is made here (and removed by `close` if the
        run leaves it empty).

        Raises UsageError for an output that is the input, a directory, in a missing
        directory, or (without `force`) an existing file; OutputTaken (an OutputError) when
        another run holds it.
        """
        if output is None:
            private = Path(tempfile.mkdtemp(prefix="treereduce-py-"))
            return cls(None, private / "result", None)
        if input_path is not None and output.exists() and output.resolve() == input_path.resolve():
            raise UsageError(f"the output {output} is the input: the input is never overwritten")
        if output.is_dir():
            raise UsageError(f"the output {output} is a directory")
        if output.is_symlink() or (output.exists() and not output.is_file()):
            # The result is renamed into place: over a link or a device, it would replace that.
            raise UsageError(f"the output {output} is not a regular file (a link or a device)")
        made = _make_default_directory(output.parent) if default else None
        if not output.parent.is_dir():
            raise UsageError(f"the output's directory does not exist: {output.parent}")
        lock = OutputLock(output)
        try:
            lock.acquire()  # before the check below: a run still writing it is named
        except BaseException:
            _remove_if_empty(made)
            raise
        claimed = cls(output, output, lock, resumed=resume)
        claimed._made = made
        if output.exists() and not (force or resume):
            claimed.close()
            raise UsageError(f"{output} exists: pass --force to overwrite it, or -o another path")
        return claimed

    @property
    def shown(self) -> str:
        """How messages name where the result goes."""
        return str(self.output) if self.output is not None else STDOUT

    @property
    def record(self) -> Path | None:
        """The run's record beside the output, if this run wrote one."""
        return record_path(self.output) if self.output is not None and self._recorded else None

    def write_record(self, record: dict[str, object]) -> None:
        """Write the record of the run beside the output (not for standard output, nor over a
        file of the user's), remembering what it replaces."""
        if self.output is None:
            return
        with contextlib.suppress(OSError):
            self._old_record = record_path(self.output).read_bytes()
        self._recorded = write_record(self.output, record)

    def has_result(self) -> bool:
        """Whether the output holds this reduction's best so far: this run wrote it, or it
        resumes from it."""
        if self._resumed:
            return self.path.exists()
        return self.path.exists() and _snapshot(self.path) != self._before

    def close(self, result: bytes | None = None) -> None:
        """End the run's ownership: copy the result (`result`, else the best so far, if any) to
        standard output for `-o -`; put back the record a run that wrote nothing replaced;
        release the output. Idempotent."""
        if self.output is None:
            self._deliver(result)
            shutil.rmtree(self.path.parent, ignore_errors=True)
        elif self._recorded and not self.has_result():
            self._recorded = False
            with contextlib.suppress(OSError):
                if self._old_record is None:
                    record_path(self.output).unlink()
                else:
                    write_atomic(record_path(self.output), self._old_record)
        if self._lock is not None:
            self._lock.release()
        _remove_if_empty(self._made)
        self._made = None

    def _deliver(self, result: bytes | None) -> None:
        if result is None:
            try:
                result = self.path.read_bytes()
            except OSError:
                return  # nothing was written: nothing to deliver
        try:
            sys.stdout.buffer.write(result)
            sys.stdout.buffer.flush()
        except BrokenPipeError:
            # The reader is gone: nobody to deliver to, and nothing to flush again at exit.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _make_default_directory(directory: Path) -> Path | None:
    """Make the default output's directory (reduced/ beside the input) if it is missing: the
    directory made, or None. Raises UsageError when it cannot be."""
    if directory.is_dir():
        return None
    if directory.exists() or directory.is_symlink():
        raise UsageError(f"cannot put the result in {directory}/: it is not a directory")
    if not directory.parent.is_dir():
        raise UsageError(f"the output's directory does not exist: {directory.parent}")
    try:
        directory.mkdir()
    except OSError as e:
        raise UsageError(f"cannot create {directory}: {e.strerror or e}") from None
    return directory


def _remove_if_empty(directory: Path | None) -> None:
    """Remove a directory this run made, if nothing was left in it."""
    if directory is not None:
        with contextlib.suppress(OSError):
            directory.rmdir()


def _snapshot(path: Path | None) -> tuple[int, int, int] | None:
    """What tells a file rewritten (atomically: a new inode) from one left alone."""
    if path is None:
        return None
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)
