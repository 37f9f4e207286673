"""Crash reports of compilers: rustc and gcc internal compiler errors, LLVM/clang crashes.

Each finder reads one stream's normalized lines and yields every report of its kind (report.py).
A compiler crash's location is in the compiler's own source, so it identifies the crash; its
line number is dropped all the same (it moves between compiler builds, the function does not).
Per kind, what makes the key (the message is always kept: it is the compiler's own words):

- rustc ICE: the ICE message's type (the message with values stripped, cut before its first
  bracket: "Failed to normalize Alias"; the panic's message when the ICE line is the generic
  "unexpected panic"), the file of the panic or of "delayed at", and the top entries of the
  query stack (`[typeck]`, `[mir_borrowck]`).
- gcc ICE: "internal compiler error: in FUNC, at FILE:LINE" keeps FUNC and FILE; other messages
  ("Segmentation fault", "tree check: expected ...") keep their text with values stripped; the
  pass named by "during GIMPLE pass: vrp" joins the type; the backtrace's functions, without
  the error reporting ones (`crash_signal`, `fancy_abort`, `internal_error`), are the frames.
- LLVM crash: "LLVM ERROR:", "error in backend:", "UNREACHABLE executed" or an assertion's
  expression and file, and the stack dump's functions without the signal handler's.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator

from treereduce_py.judge.native_reports import PANIC, panic_parts
from treereduce_py.judge.report import (
    Report,
    file_of,
    glibc_assertion,
    native_function,
    strip_values,
)

_ICE = re.compile(r"\binternal compiler error: (?P<what>.*)")
# rustc's catch-all ICE messages; the panic says more.
_GENERIC_ICE = re.compile(r"^(?:unexpected panic|)$")
_RUSTC_MARKERS = re.compile(
    r"query stack during panic|the compiler unexpectedly panicked|^note: delayed at "
    r"|^note: rustc \S+ .*running on"
)
_RUST_LOCATION = re.compile(r"^(?P<where>\S+\.rs(?::\d+)*): (?P<message>.*)$")
_DELAYED = re.compile(r"^note: delayed at (?P<where>\S+)")
_QUERY = re.compile(r"^#\d+ \[(?P<query>\w+)\]")


def rustc_ices(lines: list[str], inputs: Collection[str]) -> Iterator[Report]:
    """rustc's internal compiler errors: one report per specific ICE line, else one for the
    panic of the thread 'rustc' (or of any thread in output that says it is an ICE)."""
    rustc = any(_RUSTC_MARKERS.search(line) for line in lines)
    panic_at, panic_message = None, None
    for i, line in enumerate(lines):
        m = PANIC.search(line)
        if m is not None and (rustc or m.group("thread") == "rustc"):
            panic_at, panic_message = panic_parts(lines, i, m.group("rest"))
            rustc = True
            break
    if not rustc:
        return
    queries = tuple(q.group("query") for line in lines if (q := _QUERY.match(line)))
    delayed = next((file_of(d.group("where")) for x in lines if (d := _DELAYED.match(x))), None)
    fallback = file_of(panic_at) if panic_at else delayed
    found = False
    for line in lines:
        ice = _ICE.search(line)
        if ice is None or _GENERIC_ICE.match(ice.group("what").strip()):
            continue
        what = ice.group("what").strip()
        at = _RUST_LOCATION.match(what)
        location = file_of(at.group("where")) if at else fallback
        message = at.group("message") if at else what
        found = True
        yield _rustc_report(message, location, queries, inputs)
    if not found and (panic_message or panic_at):
        message = "" if panic_message in (None, "Box<dyn Any>") else panic_message
        yield _rustc_report(message or "", fallback, queries, inputs)


def _rustc_report(
    message: str, location: str | None, queries: tuple[str, ...], inputs: Collection[str]
) -> Report:
    kind = re.split(r"[({\[]", strip_values(message, inputs), maxsplit=1)[0].strip(" :")
    return Report(
        "rustc ICE",
        "internal compiler error",
        location=location,
        frames=queries,
        message=kind or None,
        keep_message=True,
    )


_GCC_IN = re.compile(r"^(?P<head>.*?)\s*\bin (?P<function>[^\s,]+), at (?P<file>[^\s:]+)(?::\d+)?$")
_GCC_PASS = re.compile(r"^during (?P<pass>\w+ pass: \S+)")
_GCC_FRAME = re.compile(r"^0x(?:<addr>|[0-9a-fA-F]+) (?P<symbol>\S.*)$")
# Frames of gcc's error reporting, not of the code that failed.
_GCC_REPORTING = re.compile(
    r"^(?:crash_signal|internal_error|fancy_abort|_fatal_insn\w*|diagnostic_\w+"
    r"|diagnostic_context::|\w*::report_diagnostic|error_at|internal_error_cont|__libc_|_start$|\?+$)"
)


def gcc_ices(lines: list[str], inputs: Collection[str]) -> Iterator[Report]:
    """gcc's internal compiler errors (and any compiler's saying "internal compiler error:")."""
    during = None
    for i, line in enumerate(lines):
        if m := _GCC_PASS.match(line):
            during = m.group("pass").replace(": ", " ")
        ice = _ICE.search(line)
        if ice is None or _GENERIC_ICE.match(ice.group("what").strip()):
            continue
        what = ice.group("what").strip()
        located = _GCC_IN.match(what)
        if located is not None:
            head = strip_values(located.group("head"), inputs)
            message = f"{head} in {located.group('function')}".strip()
            location: str | None = file_of(located.group("file"))
        else:
            message, location = strip_values(what, inputs), None
        frames = []
        for later in lines[i + 1 : i + 200]:
            if later.startswith("Please submit"):
                break
            if frame := _GCC_FRAME.match(later):
                function = native_function(frame.group("symbol"))[0]
                if function and not _GCC_REPORTING.match(function):
                    frames.append(function)
        crash_type = "internal compiler error" + (f" in {during}" if during else "")
        yield Report(
            "gcc ICE", crash_type, location, tuple(frames), message or None, keep_message=True
        )


_LLVM_FATAL = re.compile(r"\bLLVM ERROR: .*|\berror in backend: .*|\bUNREACHABLE executed at .*")
_LLVM_CRASH = re.compile(r"PLEASE submit a bug report|^Stack dump:$")
# An LLVM stack frame: " #6 0x<addr> clang::Foo::bar(int) (libclang-cpp.so.14+0x<addr>)".
_LLVM_FRAME = re.compile(r"^\s*#\d+\s+0x(?:<addr>|[0-9a-fA-F]+)\s+(?P<symbol>[^(\s].*)$")
# Frames of the crash machinery itself, not of the code that crashed.
_HANDLER_FRAME = re.compile(
    r"^(?:llvm::sys::|llvm::report_fatal_error|llvm::llvm_unreachable_internal|SignalHandler"
    r"|__restore_rt|raise|abort|__assert_fail|__GI_|_start\b|__libc_|.*CrashRecoveryContext)"
)
_FRONTEND_FAILED = re.compile(r"\bfrontend command failed.*")


def llvm_crashes(lines: list[str], inputs: Collection[str]) -> Iterator[Report]:
    """An LLVM/clang crash report, or an LLVM fatal error without one."""
    fatal = next((m.group(0) for line in lines if (m := _LLVM_FATAL.search(line))), None)
    crashed = any(_LLVM_CRASH.search(line) for line in lines)
    if fatal is None and not crashed:
        return
    message, location = None, None
    frames: list[str] = []
    if fatal is not None:
        message = strip_values(fatal, inputs)
    else:
        parsed = next((a for line in lines if (a := glibc_assertion(line))), None)
        if parsed is not None:
            message, location = parsed.expression, parsed.file
            frames.append(parsed.function)
    for line in lines:
        if m := _LLVM_FRAME.match(line):
            function = native_function(m.group("symbol"))[0]
            if function and not _HANDLER_FRAME.match(function) and function not in frames:
                frames.append(function)
    if message is None and not frames:
        failed = next((m.group(0) for x in lines if (m := _FRONTEND_FAILED.search(x))), None)
        message = strip_values(failed, inputs) if failed else None
    yield Report("LLVM crash", "LLVM crash", location, tuple(frames), message, keep_message=True)
