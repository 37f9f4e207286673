"""A directory as one value: its files by relative path, and the 'files' input kind's table.

A project (a Python package, a C program with its headers) is reduced as the set of its files.
`FileTree.read` takes a directory once, refusing what cannot be reduced faithfully (nothing in
it, a symlink loop or one that points out of the tree, a file that cannot be read), and from
then on the tree is plain data: each file's relative path, bytes, mode and the kind of input it
is read as (`languages.detect_kind`: its grammar, text or bytes). A test sees a tree only as a
private copy (`write_to`), never the user's directory.

The file-deletion pass reduces the tree with the same engine as any input: `encode` lays the
files out as records (`path NUL size LF bytes`), and `file_table` makes each record a leaf under
one root, so the tree planner deletes whole files, CDD over the file list, largest first (a
record's gain is its size). `decode` reads the records a candidate kept.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from treereduce_py.lang import languages
from treereduce_py.lang.syntax import NodeTable


class BadTree(ValueError):
    """A directory that cannot be reduced as given; the message is one line naming the path."""


@dataclass(frozen=True)
class TreeFile:
    """One file of a tree: `path` relative to the root (`/`-separated), its bytes, its
    permission bits, and `kind`, the language it is read as (a grammar's name, text or bytes)."""

    path: str
    data: bytes
    mode: int = 0o644
    kind: str = "text"


@dataclass(frozen=True)
class FileTree:
    """The files of a directory, sorted by path (directories exist only as their files' paths;
    an empty directory is not kept)."""

    files: tuple[TreeFile, ...]

    @classmethod
    def read(cls, root: Path) -> FileTree:
        """Every regular file under `root`; a symlink to a file inside the tree is read as that
        file's bytes, one to a directory inside it is left out (its files are there already).
        Raises BadTree for an empty tree, a symlink loop, a symlink out of the tree or a broken
        one, something that is not a regular file (a FIFO), and a file or directory that cannot
        be read."""
        real_root = root.resolve()
        files = [_read(path, path.relative_to(root).as_posix()) for path in _walk(root, real_root)]
        if not files:
            raise BadTree(f"no files to reduce in {root}")
        return cls(tuple(sorted(files, key=lambda f: f.path)))

    @classmethod
    def of_files(cls, paths: Sequence[Path]) -> tuple[Path, FileTree]:
        """The files `paths` (each a regular file, or a symlink to one, named as given) as a
        tree rooted at the deepest directory holding them all, and that directory. Raises
        BadTree for a path that is not a regular file or cannot be read, and for a file named
        twice."""
        seen: dict[str, int] = {}
        for k, p in enumerate(paths):
            first = seen.setdefault(os.path.realpath(p), k)
            if first != k:
                raise BadTree(f"{p} and {paths[first]} are the same file: name it once")
        given = [Path(os.path.abspath(p)) for p in paths]
        root = Path(os.path.commonpath([g.parent for g in given]))
        files = [_read(g, g.relative_to(root).as_posix()) for g in given]
        return root, cls(tuple(sorted(files, key=lambda f: f.path)))

    @property
    def size(self) -> int:
        """Bytes over all files."""
        return sum(len(f.data) for f in self.files)

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(f.path for f in self.files)

    def get(self, path: str) -> TreeFile:
        """The file at `path`; KeyError if there is none."""
        for f in self.files:
            if f.path == path:
                return f
        raise KeyError(path)

    def with_data(self, path: str, data: bytes) -> FileTree:
        """The same tree with the file at `path` holding `data` (KeyError if there is none)."""
        self.get(path)
        return FileTree(tuple(replace(f, data=data) if f.path == path else f for f in self.files))

    def only(self, paths: Iterable[str]) -> FileTree:
        """The files whose path is in `paths`."""
        keep = set(paths)
        return FileTree(tuple(f for f in self.files if f.path in keep))

    def union(self, other: FileTree) -> FileTree:
        """The files of both (`other`'s where a path is in both)."""
        mine = {f.path: f for f in self.files} | {f.path: f for f in other.files}
        return FileTree(tuple(mine[p] for p in sorted(mine)))

    def encode(self) -> bytes:
        """The records of the files, in order: `path NUL size LF` then the bytes."""
        return b"".join(_header(f) + f.data for f in self.files)

    def decode(self, data: bytes) -> FileTree:
        """The files whose records `data` holds (whole records of `self.encode()`), with the
        modes and kinds this tree gives their paths. Raises ValueError for anything else."""
        known = {f.path: f for f in self.files}
        kept = []
        for path, body in _records(data):
            if path not in known:
                raise ValueError(f"no file {path!r} in the tree")
            kept.append(replace(known[path], data=body))
        return FileTree(tuple(kept))

    def write_to(self, dest: Path) -> None:
        """Create `dest` (a new directory) holding the files with their modes."""
        dest.mkdir()
        for f in self.files:
            target = dest / f.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(f.data)
            os.chmod(target, f.mode)


def file_table(data: bytes) -> NodeTable:
    """The 'files' input kind's tree: the root over every record of an encoded tree, each record
    (a whole file) a named leaf of kind `file`. Bytes that are not whole records make one leaf."""
    start, end = [0], [len(data)]
    offset = 0
    try:
        for path, body in _records(data):
            start.append(offset)
            offset += len(_header(TreeFile(path, body))) + len(body)
            end.append(offset)
    except ValueError:
        start, end = [0, 0], [len(data), len(data)]
    n = len(start)
    parent, depth = [-1] + [0] * (n - 1), [0] + [1] * (n - 1)
    kinds = [0] + [1] * (n - 1)
    return NodeTable.from_preorder(
        data, start, end, kinds, b"\x01" * n, parent, depth, ("files", "file")
    )


def _header(f: TreeFile) -> bytes:
    return f.path.encode("utf-8", "surrogateescape") + b"\0%d\n" % len(f.data)


def _records(data: bytes) -> Iterable[tuple[str, bytes]]:
    """(path, bytes) of each record in `data`; ValueError where a record is cut short."""
    offset = 0
    while offset < len(data):
        nul = data.find(b"\0", offset)
        nl = data.find(b"\n", nul + 1)
        if nul < 0 or nl < 0 or not data[nul + 1 : nl].isdigit():
            raise ValueError(f"not a file record at byte {offset}")
        size = int(data[nul + 1 : nl])
        if nl + 1 + size > len(data):
            raise ValueError(f"a file record cut short at byte {offset}")
        yield data[offset:nul].decode("utf-8", "surrogateescape"), data[nl + 1 : nl + 1 + size]
        offset = nl + 1 + size


def _read(path: Path, rel: str) -> TreeFile:
    """The file at `path` as the tree's file `rel`; BadTree if it is not a regular file (a FIFO
    or a device may never end) or cannot be read."""
    if not path.is_file():
        raise BadTree(f"not a regular file: {path}")
    try:
        data = path.read_bytes()
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError as e:
        raise BadTree(f"cannot read {path}: {e.strerror or e}") from None
    return TreeFile(rel, data, mode, languages.detect_kind(path, data))


def _walk(root: Path, real_root: Path) -> Iterable[Path]:
    """The files under `root`, each symlink checked to resolve to a file inside the tree."""

    def fail(e: OSError) -> None:
        raise BadTree(f"cannot read {e.filename}: {e.strerror or e}")

    for dirpath, dirnames, filenames in os.walk(root, onerror=fail):
        for name in [*dirnames, *filenames]:
            path = Path(dirpath) / name
            if path.is_symlink():
                _check_link(path, real_root)
                if name in dirnames:  # a link to a directory of the tree: its files are there
                    continue
            if name in filenames:
                yield path


def _check_link(path: Path, real_root: Path) -> None:
    try:
        target = path.resolve(strict=True)
    except RuntimeError:  # Python < 3.13 reports a loop this way
        raise BadTree(f"symlink loop at {path}") from None
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise BadTree(f"symlink loop at {path}") from None
        raise BadTree(f"broken symlink: {path} -> {os.readlink(path)}") from None
    if not target.is_relative_to(real_root):
        raise BadTree(f"symlink out of the tree: {path} -> {target}")
