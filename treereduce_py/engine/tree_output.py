"""A directory's result, written whole or not at all: a new tree beside the output, then a rename.

The output directory always holds a complete tree that passed the test. Each write builds the
tree in a temporary directory beside the output (same file system), fsyncs its files, then
renames it into place: over nothing, or, when an output is there already, exchanged with it in
one step (Linux's `renameat2(RENAME_EXCHANGE)`) and the old tree removed afterwards. Where the
exchange is missing, the old tree is first renamed aside, which leaves a moment without an
output but never a half-written one. Writes carry a sequence number, as `output.BestSoFar`'s
do, so an older tree never replaces a newer one. Nothing but the output path is ever replaced;
the caller decides whether that may be the input (`--in-place`).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import secrets
import shutil
import threading
from pathlib import Path

from treereduce_py.engine.output import OutputError
from treereduce_py.lang.filetree import FileTree

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def write_tree(path: Path, tree: FileTree) -> None:
    """Make `path` a directory holding exactly `tree`, atomically where the system allows.
    Raises OutputError naming the path on any OS error (the old output then stays)."""
    parent = path.parent if str(path.parent) else Path(".")
    tmp = parent / f".{path.name}.{secrets.token_hex(4)}.tmp"
    try:
        tree.write_to(tmp)
        _fsync_tree(tmp)
        if not os.path.lexists(path):
            os.rename(tmp, path)
        elif not _exchange(tmp, path):
            aside = tmp.with_suffix(".old")
            os.rename(path, aside)
            os.rename(tmp, path)
            tmp = aside
    except OSError as e:
        raise OutputError(f"cannot write {path}: {e.strerror or e}") from e
    finally:
        _remove(tmp)  # the old output, or a half-built new one


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step; False where the system cannot."""
    name = ctypes.util.find_library("c")
    libc = ctypes.CDLL(name, use_errno=True) if name else None
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (22, 38, 95):  # EINVAL, ENOSYS, EOPNOTSUPP: no exchange on this file system
        return False
    raise OSError(err, os.strerror(err), str(b))


def _fsync_tree(root: Path) -> None:
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            with contextlib.suppress(OSError):
                fd = os.open(os.path.join(dirpath, name), os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)


class TreeOutput:
    """The output directory kept in step with the best tree so far; thread-safe."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._seq = 0
        self._written = 0
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()

    def offer(self, tree: FileTree) -> None:
        """Write `tree` (the caller guarantees it passed the test), unless a newer one was."""
        with self._lock:
            self._seq += 1
            seq = self._seq
        with self._write_lock:
            if seq < self._written:
                return
            write_tree(self.path, tree)
            self._written = seq
