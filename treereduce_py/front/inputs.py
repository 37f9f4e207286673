"""What a run reads and where it writes: the input (a file, a FIFO or standard input), its
language, and the output path (never the input, never an existing file without --force).

Each problem is a one-line UsageError naming the path.
"""

from __future__ import annotations

import os
import select
import sys
from pathlib import Path

from treereduce_py.engine.output import default_output_path
from treereduce_py.front.exit_codes import UsageError
from treereduce_py.lang import languages


def read_input(name: str) -> tuple[bytes, Path | None]:
    """The bytes of INPUT and its path (None for '-', standard input)."""
    if name == "-":
        return read_stream(sys.stdin.fileno()), None
    path = Path(name)
    try:
        if not path.is_fifo():
            return path.read_bytes(), path
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


def output_path(option: str | None, input_path: Path | None, force: bool) -> Path | None:
    """Where the result goes (None: standard output), checked before anything runs."""
    if option == "-" or (option is None and input_path is None):
        return None
    assert option is not None or input_path is not None
    path = Path(option) if option is not None else default_output_path(input_path)  # type: ignore[arg-type]
    if input_path is not None and path.exists() and path.resolve() == input_path.resolve():
        raise UsageError(f"the output {path} is the input: the input is never overwritten")
    if path.exists() and not force:
        raise UsageError(f"{path} exists: pass --force to overwrite it, or -o another path")
    if path.is_dir():
        raise UsageError(f"the output {path} is a directory")
    # The default output's directory (reduced/) is made once the original passes.
    directory = path.parent.parent if option is None else path.parent
    if not directory.exists():
        raise UsageError(f"the output's directory does not exist: {directory}")
    if option is None and path.parent.exists() and not path.parent.is_dir():
        raise UsageError(f"cannot put the result in {path.parent}/: it is not a directory")
    return path


def suffix_for(lang: str) -> str:
    """The file suffix a test may need for input read from standard input."""
    return {"c": ".c", "cpp": ".cpp", "rust": ".rs", "python": ".py", "javascript": ".js"}.get(
        lang, ""
    )
