"""The one place that writes the user's result: atomically, and never the input.

The best result so far is always on disk, complete and interesting: each improvement is written
to a temporary file in the output's directory and renamed over the output (`os.replace` is atomic
on POSIX), so a reader, a crash or a Ctrl-C never sees half a file. The temporary file is
fsynced before the rename and the directory after it, so a power loss cannot leave an empty or
truncated output either. Writes carry a sequence
number, so a slow writer can never replace a newer best with an older one. A run owns its output
for its lifetime (`OutputLock`): a second run with the same output refuses instead of racing it.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import stat
import sys
import threading
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: the lock file is created exclusively instead (see OutputLock)
    fcntl = None  # type: ignore[assignment]


class OutputError(Exception):
    """The output cannot be written (a one-line message naming the path)."""


# The directory beside the input that the default output goes to.
DEFAULT_OUTPUT_DIR = "reduced"


def default_output_path(input_path: Path) -> Path:
    """The input's own file name in a `reduced/` directory beside it (`src/crash.rs` ->
    `src/reduced/crash.rs`).

    The file name is kept because some languages' tools read it: rustc takes the crate name
    from it (`crash.reduced.rs` is not a valid one), javac wants a public class in a file of its
    name, as do Erlang modules and GHC. The directory may not exist yet: the caller creates it
    when it first writes there.
    """
    return input_path.parent / DEFAULT_OUTPUT_DIR / input_path.name


def write_atomic(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write `data` to `path` through a temporary file and a rename: `path` holds either its old
    content or all of `data`, and no temporary file is left behind.

    The file gets `mode` if given, else the mode of the file it replaces, else the usual mode for a
    new file (0o666 minus the umask). Raises OutputError (naming the path) on any OS error.
    """
    directory = path.parent if str(path.parent) else Path(".")
    if mode is None:
        with contextlib.suppress(OSError):
            mode = stat.S_IMODE(path.stat().st_mode)
    try:
        fd, tmp = _create_temp(directory, path.name)
    except OSError as e:
        raise OutputError(f"cannot write {path}: {e.strerror or e}") from e
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())  # the data is on disk before the name points to it
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException as e:
        tmp.unlink(missing_ok=True)
        if isinstance(e, OSError):
            raise OutputError(f"cannot write {path}: {e.strerror or e}") from e
        raise
    _fsync_directory(directory)


def _fsync_directory(directory: Path) -> None:
    """Make a rename in `directory` durable, where the platform can: POSIX systems open a
    directory for reading, Windows cannot (nothing to do there). Best effort: the rename itself
    has happened, and some file systems refuse to fsync a directory (EINVAL)."""
    if os.name != "posix":
        return
    with contextlib.suppress(OSError):
        dir_fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def _create_temp(directory: Path, name: str) -> tuple[int, Path]:
    # Not tempfile.mkstemp: its files are 0o600, and the result should get the umask's default.
    for _ in range(100):
        tmp = directory / f".{name}.{secrets.token_hex(4)}.tmp"
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", str(directory))


class BestSoFar:
    """Holds the best candidate and keeps the output file in step with it.

    With `path` None (output to stdout) nothing is written during the run; `emit` writes the
    final result to stdout.
    """

    def __init__(self, path: Path | None, initial: bytes, mode: int | None = None) -> None:
        self.path = path
        self.data = initial
        self._mode = mode
        self._seq = 0
        self._written = -1
        self._lock = threading.Lock()
        # The bests so far, oldest first, for a step back when the last turns out flaky
        # (`back_to`); thinned to every other one (the first and last kept) past a byte cap.
        self._history = [initial]
        self._history_bytes = len(initial)
        self._history_cap = HISTORY_BYTES + 2 * len(initial)

    def offer(self, data: bytes) -> None:
        """Record a new best (the caller guarantees it is interesting) and write it out."""
        with self._lock:
            self._seq += 1
            self.data = data
            seq = self._seq
            self._remember(data)
        self._write(seq, data)

    def history(self) -> list[bytes]:
        """The bests so far, oldest (the initial data) first, the current one last; a long
        run's are thinned out, evenly in the order they came."""
        with self._lock:
            return list(self._history)

    def back_to(self, data: bytes) -> None:
        """Make `data`, an earlier best (or the initial data), the best again, and write it
        out: the later ones are forgotten."""
        with self._lock:
            index = max(i for i, old in enumerate(self._history) if old is data)
            del self._history[index + 1 :]
            self._history_bytes = sum(map(len, self._history))
            self._seq += 1
            self.data = data
            seq = self._seq
        self._write(seq, data)

    def _remember(self, data: bytes) -> None:
        self._history.append(data)
        self._history_bytes += len(data)
        while self._history_bytes > self._history_cap and len(self._history) > 2:
            last = self._history[-1]
            self._history = [*self._history[:-1:2], last]
            self._history_bytes = sum(map(len, self._history))

    def flush(self) -> None:
        """Make sure the latest best is on disk."""
        with self._lock:
            seq, data = self._seq, self.data
        self._write(seq, data)

    def _write(self, seq: int, data: bytes) -> None:
        if self.path is None:
            return
        with self._lock:
            if seq <= self._written:
                return
            write_atomic(self.path, data, self._mode)
            self._written = seq

    def emit(self) -> None:
        """Final delivery: to stdout when there is no output path, else flush."""
        if self.path is None:
            sys.stdout.buffer.write(self.data)
            sys.stdout.buffer.flush()
        else:
            self.flush()


# The bests a BestSoFar keeps for a step back may hold this many bytes beyond twice the
# initial data's size before they are thinned.
HISTORY_BYTES = 64 << 20


# The record beside an output: what produced it, so `--resume` continues only the same reduction.

RECORD_FORMAT = "treereduce-py run record 1"


def record_path(output: Path) -> Path:
    """Where the record of the run that writes `output` lives: beside it."""
    return output.with_name(output.name + ".treereduce.json")


def write_record(output: Path, record: dict[str, object]) -> bool:
    """Write the record beside `output` (atomically); False, writing nothing, when a file that
    is not such a record is already there (it is the user's)."""
    path = record_path(output)
    if path.exists() and read_record(output) is None:
        return False
    body = {"format": RECORD_FORMAT, **record}
    write_atomic(path, (json.dumps(body, indent=1, sort_keys=True) + "\n").encode())
    return True


def read_record(output: Path) -> dict[str, object] | None:
    """The record beside `output`, or None when there is none (or it is not one of ours)."""
    try:
        body = json.loads(record_path(output).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(body, dict) or body.get("format") != RECORD_FORMAT:
        return None
    return body


# A run's claim on its output: two runs writing one file would silently keep the last writer's.


class OutputTaken(OutputError):
    """Another live run holds the output; `pid` is its process id (None if unreadable)."""

    def __init__(self, output: Path, pid: int | None) -> None:
        self.output = output
        self.pid = pid
        who = f"another treereduce-py run (pid {pid})" if pid else "another treereduce-py run"
        super().__init__(
            f"{output} is being written by {who}; wait for it to end, or choose another -o "
            f"(the claim is {lock_path(output).name})"
        )


def lock_path(output: Path) -> Path:
    """Where the claim on `output` lives while a run writes it: beside it."""
    return output.with_name(output.name + ".treereduce.lock")


class OutputLock:
    """A run's exclusive claim on its output for its lifetime: the file `OUTPUT.treereduce.lock`
    beside it, locked (`flock`) and holding the run's pid.

    A second run finds the lock held and gets OutputTaken naming the first's pid. A lock file
    left by a run that was killed is free (the kernel drops a dead process's locks), so the next
    run takes it over. `release` removes it. Where `flock` is missing (Windows), the file is
    created exclusively instead, and one left by a killed run must be removed by hand.
    """

    def __init__(self, output: Path) -> None:
        self.output = output
        self.path = lock_path(output)
        self._fd: int | None = None

    def acquire(self) -> None:
        """Claim the output; raises OutputTaken when another run holds it, OutputError when the
        lock file cannot be written (the output's directory is not writable)."""
        for _ in range(10):
            fd = self._open()
            if fd is not None:
                os.ftruncate(fd, 0)
                os.write(fd, f"{os.getpid()}\n".encode())
                self._fd = fd
                return
        raise OutputError(f"cannot claim {self.output}: its lock file {self.path} keeps changing")

    def _open(self) -> int | None:
        """The locked file's descriptor, or None when its holder removed it meanwhile (retry)."""
        flags = os.O_RDWR | os.O_CREAT | (0 if fcntl is not None else os.O_EXCL)
        try:
            fd = os.open(self.path, flags, 0o666)
        except FileExistsError:
            raise OutputTaken(self.output, _pid_in(self.path)) from None
        except OSError as e:
            raise OutputError(f"cannot write beside {self.output}: {e.strerror or e}") from e
        if fcntl is None:
            return fd
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            os.close(fd)
            if e.errno in (errno.EWOULDBLOCK, errno.EACCES, errno.EAGAIN):
                raise OutputTaken(self.output, _pid_in(self.path)) from None
            raise OutputError(f"cannot lock {self.path}: {e.strerror or e}") from e
        # Its holder removes the file before letting go: a lock on a file no longer at the path
        # claims nothing.
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(self.path))
        except OSError:
            same = False
        if not same:
            os.close(fd)
            return None
        return fd

    def release(self) -> None:
        """Give the output up: remove the lock file, then let go of it. Idempotent."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with contextlib.suppress(OSError):
            self.path.unlink()
        os.close(fd)

    def __enter__(self) -> OutputLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _pid_in(path: Path) -> int | None:
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
