"""Running a test command on a candidate: one process group per run, in a worker's own directory.

The oracle asks one question of a command ("does this candidate still fail?"); this module holds
everything about running it, and nothing about judging the answer (oracle.py's `Criteria` do).

How a command sees the candidate:

- Each worker number has a private, initially empty directory (under one ``treereduce-*`` temp
  root); the test runs there as its cwd, so files it writes (an ``a.out``) never collide between
  workers. The candidate is written there as ``input_name`` (the user's file name, e.g. ``crash.c``)
  before every run, and the directory is emptied after every run, so nothing stale survives.
  (A `place` function may put something else there under that name: a directory's private copy.)
- An argv element exactly ``@@`` becomes that file's name; ``@@.ext`` becomes the name's stem with
  that suffix (``@@.rs`` → ``crash.rs``, a second copy of the bytes) because compilers go by the
  suffix; an element ending in ``=@@`` or ``=@@.ext`` (``--file=@@``) is substituted the same way.
  ``@@`` anywhere else inside an argument is left alone. The substituted path is the bare file
  name, relative to the cwd, so compiler messages read ``crash.c:3:1: ...`` exactly as in the
  user's own runs and do not vary between workers (pass ``absolute_paths=True`` for scripts that
  ``cd`` elsewhere).
- Without any ``@@`` the candidate is the test's stdin (a file, so it is seekable) and is still
  present under its own name in the cwd, as C-Vise and C-Reduce scripts expect. With ``@@``, stdin
  is /dev/null.
- argv[0] containing a ``/`` and other arguments starting with ``./`` or ``../`` that exist are
  resolved against the directory the user started in, since the cwd is now the temp dir. Nothing
  else is rewritten: ``gcc -o prog @@.c`` writes ``prog`` in the worker's directory even when the
  user's directory has one, and ``check.py`` (no ``./``) is looked for in the worker's directory,
  where it is not. A bare command name is looked up on PATH. No shell is involved.

How a run goes: the test runs in its own session (process group). Its stdout and stderr are
read while it runs, and only when the caller asks (otherwise they go to /dev/null); what is read
is kept whole, because regexes need the whole stream, so memory grows with what the test prints.
When the test exits, anything it left running in its group is killed. On timeout the whole group
gets SIGTERM, then SIGKILL after a short grace. The waiting uses one poll() on the output pipes
and a pidfd of the test (Linux), so there are no helper threads and no sleep loops; elsewhere it
falls back to short polling.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import errno
import math
import os
import re
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

# How long a test gets after SIGTERM before SIGKILL, in seconds.
DEFAULT_KILL_GRACE = 0.3
# How long to keep reading output after the test's group is dead (only matters when a process
# that escaped the group still holds a pipe open).
_DRAIN_GRACE = 0.1
_READ_SIZE = 1 << 16
# errno values meaning "this command cannot be started", as opposed to a transient system limit.
_START_ERRNOS = frozenset(
    {
        errno.ENOENT,
        errno.EACCES,
        errno.EPERM,
        errno.ENOEXEC,
        errno.ENOTDIR,
        errno.EISDIR,
        errno.ELOOP,
        errno.ENAMETOOLONG,
    }
)
_WHOLE_ARG = re.compile(r"(?P<prefix>)@@(?P<suffix>\.[^/]+)?")
_FLAG_ARG = re.compile(r"(?P<prefix>.+=)@@(?P<suffix>\.[^/=]+)?")
# Commands whose first operand is a script they read: `python3.11`, `node`, `bash` ...
_INTERPRETER = re.compile(
    r"(python|pypy|node|nodejs|deno|bun|bash|sh|dash|zsh|ksh|ruby|perl|php|lua|luajit|Rscript"
    r"|tclsh)[0-9.]*"
)


class OracleStartError(Exception):
    """The test command cannot be started (not found, not executable); one line naming it."""


# How a candidate is put at a path of a worker's directory: by default, a file of its bytes.
Place = Callable[[Path, bytes], None]


def _write_file(path: Path, candidate: bytes) -> None:
    with open(path, "wb") as f:
        f.write(candidate)


# One argv element: a literal string, or (prefix, file name) to become prefix + the file's path.
_ArgSlot = str | tuple[str, str]


def input_names(argv: Sequence[str], input_name: str) -> tuple[str, ...]:
    """The names the command sees the candidate under: the input file and its ``@@.ext`` copies
    (a crash report names them; signature.py takes them out of the signature)."""
    stem = Path(input_name).stem
    return (input_name, *(stem + a[2:] for a in argv if a.startswith("@@.")))


class Runner:
    """Runs one command (argv, no shell) on candidates; see the module docstring.

    `run` raises OracleStartError when the command cannot be started; any other OSError (such as
    running out of file descriptors) propagates unchanged.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        start_dir: Path | None = None,
        input_name: str = "input",
        env: Mapping[str, str] | None = None,
        absolute_paths: bool = False,
        kill_grace: float = DEFAULT_KILL_GRACE,
        place: Place | None = None,
    ) -> None:
        """Prepare to run `argv` (nothing is started yet).

        `start_dir` (default: the cwd now) anchors a relative argv[0] with a ``/`` and arguments
        starting with ``./`` or ``../`` that exist there (nothing else); `input_name` is the
        candidate's file name in the worker dir; `env` replaces the environment (None inherits
        it); `absolute_paths` makes @@ an absolute path; `kill_grace` is the time between SIGTERM
        and SIGKILL on timeout; `place` puts a candidate at a path in place of writing its
        bytes there (a directory's files: judge/tree_oracle.py), and needs ``@@`` in `argv`.
        Raises ValueError for an empty argv, an unusable input_name, or `place` without ``@@``.
        """
        if not argv:
            raise ValueError("the test command is empty")
        name = Path(input_name).name
        if name in ("", ".", ".."):
            raise ValueError(f"unusable input file name: {input_name!r}")
        self.argv = tuple(argv)
        self.input_name = name
        self._kill_grace = kill_grace
        self._env = dict(env) if env is not None else None
        self._command = argv[0]
        base = str(start_dir) if start_dir is not None else os.getcwd()
        self._slots = _parse_argv(argv, name, base)
        at_files = [slot[1] for slot in self._slots if not isinstance(slot, str)]
        self._uses_at = bool(at_files)
        if place is not None and not self._uses_at:
            raise ValueError("a test of a directory names it with @@")
        self._place = place or _write_file
        # The plain input file is always written first: @@ may name only suffixed copies, and
        # C-Vise style scripts open the file by its name.
        self._file_names = tuple(dict.fromkeys([name, *at_files]))
        self._relative_argv = None if absolute_paths else _fill(self._slots, None)
        self._lock = threading.Lock()
        self._running: set[int] = set()  # leader pids, not yet reaped, so their group ids are ours
        self._cancelled = False
        self._root: Path | None = None
        self._remove_root: weakref.finalize[..., Runner] | None = None
        self._worker_dirs: dict[int, Path] = {}

    def run(
        self,
        candidate: bytes,
        worker: int,
        *,
        timeout: float | None,
        capture_out: bool,
        capture_err: bool,
    ) -> Run | None:
        """Run the command on `candidate` in `worker`'s directory for at most `timeout` seconds
        (None: no limit), reading the output streams asked for; None when cancelled (before or
        during the run). Raises OracleStartError if the command cannot be started."""
        if self._cancelled:
            return None
        wdir = self._worker_dir(worker)
        argv = self._relative_argv if self._relative_argv is not None else _fill(self._slots, wdir)
        stdin: IO[bytes] | None = None
        try:
            for file_name in self._file_names:
                self._place(wdir / file_name, candidate)
            if not self._uses_at:
                stdin = open(wdir / self._file_names[0], "rb")  # noqa: SIM115 (closed below)
            run = self._spawn(argv, wdir, stdin, timeout, (capture_out, capture_err))
        finally:
            if stdin is not None:
                stdin.close()
            _empty_dir(wdir)
        return None if run.cancelled else run

    def cancel(self) -> None:
        """Kill every running test's process group now; later runs run nothing."""
        with self._lock:
            self._cancelled = True
            for pid in self._running:
                _kill_group(pid, signal.SIGKILL)

    def resume(self) -> None:
        """Let later runs run again after `cancel`."""
        with self._lock:
            self._cancelled = False

    def close(self) -> None:
        """Kill any test still running and remove the temp root; safe to call more than once."""
        with self._lock:
            for pid in self._running:
                _kill_group(pid, signal.SIGKILL)
            remove_root, self._remove_root = self._remove_root, None
            self._root = None
            self._worker_dirs = {}
        if remove_root is not None:
            remove_root()

    def _worker_dir(self, worker: int) -> Path:
        wdir = self._worker_dirs.get(worker)
        if wdir is not None:
            return wdir
        with self._lock:
            if self._root is None:
                self._root = Path(tempfile.mkdtemp(prefix="treereduce-"))
                # Removes the root at garbage collection or exit if close() is never called.
                self._remove_root = weakref.finalize(
                    self, shutil.rmtree, str(self._root), ignore_errors=True
                )
            wdir = self._root / f"w{worker}"
            wdir.mkdir(exist_ok=True)
            self._worker_dirs[worker] = wdir
        return wdir

    def _spawn(
        self,
        argv: list[str],
        cwd: Path,
        stdin: IO[bytes] | None,
        timeout: float | None,
        capture: tuple[bool, bool],
    ) -> Run:
        capture_out, capture_err = capture
        out_r, out_w = os.pipe() if capture_out else (-1, -1)
        err_r, err_w = os.pipe() if capture_err else (-1, -1)
        start = time.monotonic()
        try:
            proc = _off_main(lambda: self._start(argv, cwd, stdin, out_w, err_w), self._abandon)
        except BaseException:
            _close_fds(out_r, err_r)
            raise
        try:
            timed_out, chunks = self._wait(proc, (out_r, err_r), start, timeout)
        except BaseException:
            # E.g. KeyboardInterrupt in a single-threaded run: leave no test behind.
            _kill_group(proc.pid, signal.SIGKILL)
            raise
        finally:
            with self._lock:
                self._running.discard(proc.pid)
                cancelled = self._cancelled
            proc.wait()
            _close_fds(out_r, err_r)
        return Run(
            exit_code=proc.returncode,
            timed_out=timed_out,
            cancelled=cancelled,
            seconds=time.monotonic() - start,
            stdout=b"".join(chunks.get(out_r, ())),
            stderr=b"".join(chunks.get(err_r, ())),
        )

    def _start(
        self, argv: list[str], cwd: Path, stdin: IO[bytes] | None, out_w: int, err_w: int
    ) -> subprocess.Popen[bytes]:
        """Start the test in its own session and register it for `cancel` (killed at once if a
        cancel came first). Closes the pipes' write ends."""
        try:
            try:
                proc = subprocess.Popen(
                    argv,
                    stdin=stdin if stdin is not None else subprocess.DEVNULL,
                    stdout=out_w if out_w >= 0 else subprocess.DEVNULL,
                    stderr=err_w if err_w >= 0 else subprocess.DEVNULL,
                    cwd=cwd,
                    env=self._env,
                    start_new_session=True,
                )
            finally:
                _close_fds(out_w, err_w)
        except OSError as err:
            if err.errno in _START_ERRNOS:
                raise OracleStartError(self._start_error_message(err, argv[0])) from err
            raise
        with self._lock:
            self._running.add(proc.pid)
            if self._cancelled:
                _kill_group(proc.pid, signal.SIGKILL)
        return proc

    def _abandon(self, proc: subprocess.Popen[bytes]) -> None:
        """Kill and reap a test `_start` started for a caller that was interrupted meanwhile."""
        _kill_group(proc.pid, signal.SIGKILL)
        with self._lock:
            self._running.discard(proc.pid)
        proc.wait()

    def _wait(
        self,
        proc: subprocess.Popen[bytes],
        pipes: tuple[int, int],
        start: float,
        timeout: float | None,
    ) -> tuple[bool, dict[int, list[bytes]]]:
        """Read output until the leader exits or time runs out; returns (timed out, chunks).

        On return the test's whole group has been sent SIGKILL, the leader is dead (or dying) but
        not reaped, and the pipes have been drained.
        """
        poller = select.poll()
        chunks: dict[int, list[bytes]] = {}
        for fd in pipes:
            if fd >= 0:
                poller.register(fd, select.POLLIN)
                chunks[fd] = []
        open_pipes = set(chunks)
        pidfd = _pidfd(proc.pid)
        if pidfd >= 0:
            poller.register(pidfd, select.POLLIN)
        deadline = None if timeout is None else start + timeout
        timed_out = False
        backoff = 0.001
        try:
            while True:
                if pidfd < 0 and _has_exited(proc):
                    break
                now = time.monotonic()
                if deadline is not None and now >= deadline:
                    if timed_out:
                        break  # the grace after SIGTERM is over; SIGKILL follows
                    timed_out = True
                    _kill_group(proc.pid, signal.SIGTERM)
                    deadline = now + self._kill_grace
                    continue
                wait = None if deadline is None else deadline - now
                if pidfd < 0:
                    wait = backoff if wait is None else min(wait, backoff)
                    backoff = min(backoff * 2, 0.05)
                events = poller.poll(None if wait is None else math.ceil(wait * 1000))
                if any(fd == pidfd for fd, _ in events):
                    break
                for fd, _ in events:
                    if not _read_chunk(fd, chunks[fd]):
                        poller.unregister(fd)
                        open_pipes.discard(fd)
        finally:
            # The leader is unreaped, so its pid still names our group and cannot be reused.
            _kill_group(proc.pid, signal.SIGKILL)
            if pidfd >= 0:
                poller.unregister(pidfd)
                os.close(pidfd)
        _drain(poller, open_pipes, chunks)
        return timed_out, chunks

    def _start_error_message(self, err: OSError, resolved: str) -> str:
        shown = self._command
        where = "" if resolved == shown else f" ({resolved})"
        if err.errno == errno.ENOENT:
            if "/" not in resolved:
                path = self._env.get("PATH") if self._env is not None else None
                if shutil.which(resolved, path=path) is None:
                    return f"test command not found on PATH: {shown}"
            elif not os.path.exists(resolved):
                return f"test command not found: {shown}{where}"
            return f"cannot start test command {shown}{where}: its '#!' interpreter was not found"
        if err.errno in (errno.EACCES, errno.EPERM):
            return (
                f"test command is not executable: {shown}{where} "
                "(permission denied; is it a file with chmod +x?)"
            )
        if err.errno == errno.ENOEXEC:
            return (
                f"test command is not a program: {shown}{where} (a script needs a '#!' first line)"
            )
        return f"cannot start test command {shown}{where}: {err.strerror}"


@dataclass(frozen=True)
class Run:
    """One finished run: its returncode (negative: killed by that signal), whether it ran out of
    time (then it was killed) or was cancelled, how long it took, and the output read."""

    exit_code: int | None
    timed_out: bool
    cancelled: bool
    seconds: float
    stdout: bytes
    stderr: bytes


def _parse_argv(argv: Sequence[str], name: str, start_dir: str) -> list[_ArgSlot]:
    """Resolve relative paths against start_dir and turn @@ arguments into file slots."""
    command = argv[0]
    if "/" in command and not os.path.isabs(command):
        command = os.path.normpath(os.path.join(start_dir, command))
    slots: list[_ArgSlot] = [command]
    for arg in argv[1:]:
        at = _WHOLE_ARG.fullmatch(arg) or _FLAG_ARG.fullmatch(arg)
        if at is not None:
            prefix = at.group("prefix") or ""
            suffix = at.group("suffix")
            slots.append((prefix, name if suffix is None else Path(name).stem + suffix))
        elif _names_a_file(arg, start_dir) or _names_a_script(argv, len(slots), start_dir):
            # `python3 ./check.py @@` must find check.py although the test runs elsewhere.
            slots.append(os.path.normpath(os.path.join(start_dir, arg)))
        else:
            slots.append(arg)
    return slots


def _names_a_script(argv: Sequence[str], i: int, start_dir: str) -> bool:
    """`argv[i]` is the script an interpreter runs (`python3 target.py @@`, `node t.js @@`): the
    first argument after the interpreter's options, naming a file under start_dir. An
    interpreter only reads its script, so every worker may share the user's."""
    name = os.path.basename(argv[0])
    if _INTERPRETER.fullmatch(name) is None:
        return False
    if any(not a.startswith("-") for a in argv[1:i]) or argv[i].startswith("-"):
        return False  # not the first operand (`python3 -c CODE`: CODE is not a path either)
    if any(a in ("-c", "-e", "-m", "--eval", "-p") for a in argv[1:i]):
        return False
    return os.path.isfile(os.path.join(start_dir, argv[i]))


def _names_a_file(arg: str, start_dir: str) -> bool:
    """An explicitly relative path (``./x``, ``../x``) to something that exists under start_dir.

    Only these are rewritten: a bare word that happens to name a file in the user's directory (the
    ``prog`` of ``gcc -o prog``, the pattern of ``grep foo``) is an output or plain data, and making
    it absolute would have every worker share (and overwrite) the user's file.
    """
    if not arg.startswith(("./", "../")):
        return False
    return os.path.exists(os.path.join(start_dir, arg))


def _fill(slots: list[_ArgSlot], wdir: Path | None) -> list[str]:
    """The argv with each @@ slot naming its file: bare (cwd-relative) or, given wdir, absolute."""
    argv = []
    for slot in slots:
        if isinstance(slot, str):
            argv.append(slot)
            continue
        prefix, file_name = slot
        if wdir is not None:
            path = str(wdir / file_name)
        elif file_name.startswith("-") and not prefix:
            path = "./" + file_name  # so the test does not take the file for an option
        else:
            path = file_name
        argv.append(prefix + path)
    return argv


def _pidfd(pid: int) -> int:
    """A pidfd for our unreaped child (readable once it exits), or -1 where there is none."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return -1


def _has_exited(proc: subprocess.Popen[bytes]) -> bool:
    """Whether the child exited, leaving it unreaped where the platform allows."""
    try:
        return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except AttributeError:
        return proc.poll() is not None
    except ChildProcessError:
        return True


def _read_chunk(fd: int, into: list[bytes]) -> bool:
    """Read what is available from a readable pipe; False at end of file."""
    try:
        data = os.read(fd, _READ_SIZE)
    except OSError:
        return False
    if not data:
        return False
    into.append(data)
    return True


def _drain(poller: select.poll, open_pipes: set[int], chunks: dict[int, list[bytes]]) -> None:
    """Read the pipes to end of file, giving a process outside the group only a short grace."""
    deadline = time.monotonic() + _DRAIN_GRACE
    while open_pipes:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return
        events = poller.poll(math.ceil(remaining * 1000))
        if not events:
            return
        for fd, _ in events:
            if not _read_chunk(fd, chunks[fd]):
                poller.unregister(fd)
                open_pipes.discard(fd)


def _off_main(
    start: Callable[[], subprocess.Popen[bytes]],
    abandon: Callable[[subprocess.Popen[bytes]], None],
) -> subprocess.Popen[bytes]:
    """`start()`, called in a helper thread when the caller is the main thread.

    Python raises KeyboardInterrupt (Ctrl-C, and SIGTERM in the CLI) only in the main thread, and
    at any bytecode: inside Popen, after the fork, it would leave a test running that nothing
    knows of. In another thread, `start` always gets to register its test; a main thread
    interrupted meanwhile waits for that (Popen returns within moments), has the test
    `abandon`ed and re-raises. (Blocking the signals around Popen is not enough: the kernel
    hands them to any thread that does not block them, the Python handler still runs in the
    main thread, and the test would inherit the blocked mask.)
    """
    if threading.current_thread() is not threading.main_thread():
        return start()
    started: concurrent.futures.Future[subprocess.Popen[bytes]] = concurrent.futures.Future()

    def run() -> None:
        # False when the main thread gave up before this thread got here: then start nothing.
        if not started.set_running_or_notify_cancel():
            return
        try:
            started.set_result(start())
        except BaseException as e:
            started.set_exception(e)

    try:
        threading.Thread(target=run, name="treereduce-start", daemon=True).start()
        return started.result()
    except BaseException:
        # The interrupt may come at any point here, also inside Thread.start while the helper
        # already runs `start`: either the helper has not begun (cancelled, it never will) or
        # its test is waited for and abandoned.
        if not started.cancel():
            while True:
                try:
                    failed = started.exception()
                    break
                except BaseException:  # another interrupt: the test must still be reaped
                    continue
            if failed is None:
                abandon(started.result())
        raise


def _kill_group(pgid: int, sig: signal.Signals) -> None:
    # Already gone, or holding a member we may not signal (setuid): nothing more to do.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _close_fds(*fds: int) -> None:
    for fd in fds:
        if fd >= 0:
            os.close(fd)


def _empty_dir(path: Path) -> None:
    """Remove everything in `path` (what the test left behind), ignoring what cannot be removed."""
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        shutil.rmtree(entry.path, ignore_errors=True)
                    else:
                        os.unlink(entry.path)
                except OSError:
                    pass
    except FileNotFoundError:
        pass
