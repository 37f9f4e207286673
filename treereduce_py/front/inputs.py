"""What a run reads and where it writes: the input (a file, a FIFO or standard input), its
language, and the output's path (destination.py checks and claims it).

Each problem is a one-line UsageError naming the path.
"""

from __future__ import annotations

import os
import select
import stat
import sys
from pathlib import Path

from treereduce_py.engine.output import default_output_path
from treereduce_py.front.exit_codes import UsageError
from treereduce_py.lang import languages


def read_input(name: str) -> tuple[bytes, Path | None]:
    """The bytes of INPUT and its path (None for '-', standard input)."""
    if name == "-":
        try:
            return read_stream(sys.stdin.fileno()), None
        except (AttributeError, ValueError, OSError):  # closed (`<&-`) or not a stream
            raise UsageError("cannot read standard input (is it closed?)") from None
    path = Path(name)
    try:
        kind = path.stat().st_mode
        if stat.S_ISREG(kind):
            return path.read_bytes(), path
        if stat.S_ISDIR(kind):
            raise IsADirectoryError
        if not stat.S_ISFIFO(kind):  # a device or socket may never end (/dev/zero)
            raise UsageError(f"not a file or a pipe: {name} (use - to read standard input)")
        fd = os.open(path, os.O_RDONLY)
        try:
            return read_stream(fd), path
        finally:
            os.close(fd)
    except FileNotFoundError:
        raise UsageError(f"no such file: {name}") from None
    except IsADirectoryError:
        raise UsageError(f"is a directory, not a file: {name}") from None
    except OSError as e:
        raise UsageError(f"cannot read {name}: {e.strerror}") from None


def read_stream(fd: int) -> bytes:
    """Everything from a pipe or terminal, waiting in short polls: a signal that lands just
    before a blocking read() would wait for the writer; between polls it is handled at once."""
    chunks: list[bytes] = []
    while True:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if not ready:
            continue
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def language(name: str | None, path: Path | None, data: bytes) -> str:
    """The canonical language: the one named with -l, else detected from the path or shebang,
    else the text or bytes front end."""
    try:
        if name is not None:
            return languages.canonical(name)
    except languages.UnknownLanguage as e:
        raise UsageError(str(e)) from None
    return languages.detect_kind(path, data)


def output_path(option: str | None, input_path: Path | None) -> Path | None:
    """Where the result goes: `-o`, else reduced/NAME.EXT beside the input; None for standard
    output (`-o -`, or input from standard input without `-o`). Destination checks it."""
    if option == "-" or (option is None and input_path is None):
        return None
    if option is not None:
        return Path(option)
    assert input_path is not None
    return default_output_path(input_path)


def suffix_for(lang: str) -> str:
    """The file suffix a test may need for input read from standard input."""
    return {"c": ".c", "cpp": ".cpp", "rust": ".rs", "python": ".py", "javascript": ".js"}.get(
        lang, ""
    )
