"""Crash reports of native programs: sanitizers, assertions, Rust and Go panics, signals.

Each finder reads one stream's normalized lines and yields every report of its kind (report.py).
Per kind, what makes the key:

- sanitizer report (ASan, UBSan, MSan, LSan, TSan, ...): the sanitizer and bug type, with
  ASan's access (READ/WRITE) and "null" for an address in the zero page; the frames of the first
  stack (`#0 #1 #2`), function names only, without the sanitizer's interceptors, allocator and
  libc start-up frames; the message (addresses only) is dropped. UBSan's "runtime error:"
  message *is* its type ("signed integer overflow: <n> * <n> cannot be represented in type
  <q>"), kept with the file it names.
- assertion failure: glibc's/LLVM's "file: function: Assertion `expr' failed" keeps the
  expression, the file (line dropped) and the function; other assertion lines keep their text
  with values stripped.
- Rust panic: the panic's file (line dropped), its message with values stripped (a panic's
  message is what tells two panics of one file apart), and the backtrace's frames outside the
  standard library when RUST_BACKTRACE was set.
- Go panic: the message with values stripped and the goroutine's frames outside `runtime.`.
- signal message: a shell's "Segmentation fault", "Aborted", ... alone.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator

from treereduce_py.judge.normalize import SHELL_SIGNAL
from treereduce_py.judge.report import (
    Report,
    file_of,
    glibc_assertion,
    native_function,
    strip_values,
)

# ---------------------------------------------------------------------------------------------
# Sanitizers

_SANITIZER = re.compile(r"\b(?:ERROR|WARNING): (?P<tool>\w*Sanitizer): (?P<what>.*)")
_UBSAN = re.compile(
    r"(?:^|\s)(?P<where>\S+?): runtime error: (?P<what>.*)|\bruntime error: (?P<bare>.*)"
)
_CHECK = re.compile(r"\bSanitizer CHECK failed: (?P<what>.*)")
_ACCESS = re.compile(r"^(?P<access>READ|WRITE) of size\b|caused by a (?P<cause>READ|WRITE) memory")
_NATIVE_FRAME = re.compile(r"^\s*#\d+\s+0x(?:<addr>|[0-9a-fA-F]+)\s+(?:in\s+)?(?P<symbol>\S.*)$")
# Frames of the sanitizer runtime, the allocator, libc's string functions and start-up.
_RUNTIME_FRAME = re.compile(
    r"^(?:_*(?:asan|msan|lsan|tsan|hwasan|ubsan|sanitizer|interceptor)_|__asan::|__sanitizer::"
    r"|__ubsan::|__msan::|__lsan::|__tsan::|__interceptor|___interceptor|operator new"
    r"|operator delete|(?:malloc|calloc|realloc|free|memcpy|memmove|memset|memcmp|strlen"
    r"|strcmp|strncmp|strcpy|strncpy|strcat|abort|raise|gsignal)$|__libc_|_start$|__GI_"
    r"|__assert_|__pthread_kill|pthread_kill)"
)


def sanitizer_reports(lines: list[str], inputs: Collection[str]) -> Iterator[Report]:
    """AddressSanitizer & co. reports, UBSan "runtime error:" lines, sanitizer CHECK failures."""
    for i, line in enumerate(lines):
        if m := _SANITIZER.search(line):
            tool, what = m.group("tool"), m.group("what")
            bug = re.split(r" on | at |: |\(", what, maxsplit=1)[0].strip()
            crash_type = f"{tool}: {strip_values(bug, inputs)}"
            access = _access(lines, i + 1)
            if access:
                crash_type += f" {access}"
            yield Report("sanitizer report", crash_type, frames=_stack(lines, i + 1, inputs))
        elif "panic: runtime error" not in line and (m := _UBSAN.search(line)):  # not Go's
            what = m.group("what") if m.group("what") is not None else m.group("bare")
            where = m.group("where")
            file = file_of(where) if where else None
            yield Report(
                "sanitizer report",
                "runtime error",
                location=None if file is None or file in inputs else file,
                frames=_stack(lines, i + 1, inputs),
                message=strip_values(what, inputs),
                keep_message=True,
            )
        elif m := _CHECK.search(line):
            message = strip_values(m.group("what"), inputs)
            yield Report("sanitizer report", "Sanitizer CHECK failed", message=message)


def _access(lines: list[str], start: int) -> str:
    """ASan's access kind ("READ", "WRITE", "null READ") from the lines after the header."""
    for line in lines[start : start + 4]:
        if _NATIVE_FRAME.match(line):
            break
        if m := _ACCESS.search(line):
            access = m.group("access") or m.group("cause")
            null = any("points to the zero page" in later for later in lines[start : start + 4])
            return f"null {access}" if null else access
    return ""


def _stack(lines: list[str], start: int, inputs: Collection[str]) -> tuple[str, ...]:
    """Function names of the first `#N` stack within a few lines after `start`, to its end."""
    frames: list[str] = []
    seen = False
    for j in range(start, len(lines)):
        m = _NATIVE_FRAME.match(lines[j])
        if m is None:
            # LSan puts a blank line and "Direct leak of ..." between its header and the stack.
            if seen or j >= start + 6 or _SANITIZER.search(lines[j]):
                break
            continue
        seen = True
        symbol = m.group("symbol")
        if symbol.startswith("("):
            continue  # not symbolized: only a module and an offset
        function, file = native_function(symbol)
        if function and not _RUNTIME_FRAME.match(function) and file not in inputs:
            frames.append(function)
    return tuple(frames)


# ---------------------------------------------------------------------------------------------
# Assertions

_ASSERTION = re.compile(
    r"^AssertionError\b"  # Python, Node's assert module
    r"|\bassertion failed\b"  # Rust's assert!, OCaml, many C libraries
    r"|\bASSERT(?:ION)?(?: FAILED| failure)\b",
    re.IGNORECASE,
)
_ASSERTION_WORD = re.compile(r"\bAssertion\b", re.IGNORECASE)
_FAILED_WORD = re.compile(r"\bfailed\b", re.IGNORECASE)


def assertion_reports(lines: list[str], inputs: Collection[str]) -> Iterator[Report]:
    """Assertion failures: glibc's format parsed, any other assertion line as a message."""
    for line in lines:
        parsed = glibc_assertion(line)
        if parsed is not None:
            own = parsed.file not in inputs
            yield Report(
                "assertion failure",
                "assertion failure",
                location=parsed.file if own else None,
                frames=(parsed.function,) if own and parsed.function else (),
                message=parsed.expression,
                keep_message=True,
            )
            continue
        # Two searches instead of "Assertion.*failed", which is quadratic on repeated words.
        word = _ASSERTION_WORD.search(line)
        if _ASSERTION.search(line) or (word and _FAILED_WORD.search(line, word.end())):
            message = strip_values(line, inputs)
            yield Report("assertion failure", "assertion failure", message=message)


# ---------------------------------------------------------------------------------------------
# Rust and Go panics

PANIC = re.compile(r"\bthread '(?P<thread>[^'\n]*)' panicked at (?P<rest>.*)")
# Rust < 1.73: "panicked at 'message', src/main.rs:4:5".
_OLD_PANIC = re.compile(r"^'(?P<message>.*)', (?P<where>\S+)$")
_RUST_FRAME = re.compile(r"^\s*\d+:\s+(?:0x(?:<addr>|[0-9a-fA-F]+) - )?(?P<symbol>\S.*)$")
_BACKTRACE = "stack backtrace:"
_RUST_AT = re.compile(r"^\s+at (?P<where>\S+)")
_RUST_STD = re.compile(
    r"^<?(?:(?:std|core|alloc|__rustc|panic_unwind|panic_abort)::|rust_begin_unwind|rust_panic"
    r"|__rust|_start$|__libc_|main$)"
)


def rust_panics(lines: list[str], inputs: Collection[str]) -> Iterator[Report]:
    """Rust panics (of any thread but rustc's: those are compiler crashes)."""
    for i, line in enumerate(lines):
        m = PANIC.search(line)
        if m is None or m.group("thread") == "rustc":
            continue
        location, message = panic_parts(lines, i, m.group("rest"))
        file = file_of(location) if location else None
        yield Report(
            "Rust panic",
            "panic",
            location=None if file is None or file in inputs else file,
            frames=_rust_backtrace(lines, i + 1, inputs),
            message=strip_values(message, inputs) if message else None,
            keep_message=True,
        )


def panic_parts(lines: list[str], i: int, rest: str) -> tuple[str | None, str | None]:
    """A Rust panic's location and message, from its header `rest` and the line after it."""
    rest = rest.rstrip()
    old = _OLD_PANIC.match(rest)
    if old is not None:
        return old.group("where"), old.group("message")
    message = lines[i + 1].strip() if i + 1 < len(lines) else ""
    return rest.rstrip(":"), message or None


def _rust_backtrace(lines: list[str], start: int, inputs: Collection[str]) -> tuple[str, ...]:
    """The frames of the backtrace right after a panic (RUST_BACKTRACE), outside std."""
    heading = [j for j in range(start, min(start + 3, len(lines))) if lines[j] == _BACKTRACE]
    if not heading:
        return ()
    frames: list[str] = []
    for j in range(heading[0] + 1, len(lines)):
        m = _RUST_FRAME.match(lines[j])
        if m is None:
            if _RUST_AT.match(lines[j]):
                continue
            break
        function = native_function(m.group("symbol"))[0]
        where = _RUST_AT.match(lines[j + 1]) if j + 1 < len(lines) else None
        if where is not None and file_of(where.group("where")) in inputs:
            continue
        if function and not _RUST_STD.match(function):
            frames.append(function)
    return tuple(frames)


_GO_PANIC = re.compile(r"^panic: (?P<message>.*)$")
_GO_AT = re.compile(r"^\t(?P<where>\S+)")


def go_panics(lines: list[str], inputs: Collection[str]) -> Iterator[Report]:
    """Go panics: "panic: message", then the first goroutine's frames outside the runtime."""
    for i, line in enumerate(lines):
        m = _GO_PANIC.match(line)
        if m is None:
            continue
        after = range(i + 1, min(i + 6, len(lines)))
        trace = [j for j in after if lines[j].startswith("goroutine ")]
        if not trace:
            continue  # "panic: ..." alone may be anyone's text; Go's is followed by its stacks
        frames: list[str] = []
        for j in range(trace[0] + 1, len(lines)):
            frame = lines[j]
            if not frame.strip() or frame.startswith("goroutine "):
                break
            # "main.(*Record).Field(...)" then "\t/src/main.go:11 +0x1d"; "created by ..." ends.
            if frame[0].isspace() or not frame.endswith(")"):
                continue
            function = frame[: frame.rfind("(")]
            where = _GO_AT.match(lines[j + 1]) if j + 1 < len(lines) else None
            if where is not None and file_of(where.group("where")) in inputs:
                continue
            if not function.startswith(("runtime.", "panic")):
                frames.append(function)
        message = strip_values(m.group("message"), inputs)
        yield Report("Go panic", "panic", frames=tuple(frames), message=message, keep_message=True)


# ---------------------------------------------------------------------------------------------
# Signals


def signal_messages(lines: list[str], inputs: Collection[str]) -> Iterator[Report]:
    """A shell's or runtime's report of a fatal signal ("Segmentation fault", "Aborted")."""
    for line in lines:
        if m := SHELL_SIGNAL.search(line):
            yield Report("signal message", m.group(0))
