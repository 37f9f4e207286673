"""Crash reports of managed runtimes: uncaught exceptions of Python, Java and Node, and errors.

Each finder reads one stream's normalized lines and yields every report of its kind (report.py).
Per kind, what makes the key:

- Python traceback: the exception's type and the innermost frames as `file:function` (the
  file's basename), frames in the user's input left out; the message only when no frame is
  left (it carries the data: "negative seek value -11"). faulthandler's "Fatal Python error"
  dumps the same way.
- Java exception: the exception class and the `at` frames as `Class.method`.
- uncaught exception (Node, and any "SomeError: message" line): the type and the `at` frames
  following it (Node's `function` or, for an anonymous one, the file); Node's report of a
  thrown non-Error value is that value.
- first error message: not a crash but a diagnostic ("error: ‘x’ undeclared"): its text, with
  numbers stripped but quoted names kept, since they are the input's and say which error it is.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator

from treereduce_py.judge.report import Report, file_of, strip_values

_PY_TRACEBACK = "Traceback (most recent call last):"
_PY_FRAME = re.compile(r'^\s+File "(?P<file>[^"]*)"(?:, line [^,]*)?,? in (?P<function>\S+)\s*$')
_PY_FATAL = re.compile(r"^Fatal Python error: (?P<what>.*)$")
_EXCEPTION_LINE = re.compile(
    r"^(?P<type>(?:[A-Za-z_$][\w$.]*)?(?:Error|Exception|Exit|Interrupt))"
    r"(?: \[[\w-]+\])?(?::\s(?P<message>.*))?$"
)


def python_tracebacks(lines: list[str], inputs: Collection[str]) -> Iterator[Report]:
    """Python tracebacks, last first (of a chain, the last ended the run); faulthandler's."""
    found: list[Report] = []
    frames: list[str] = []
    in_traceback = False
    for i, line in enumerate(lines):
        if line.strip() == _PY_TRACEBACK:
            frames, in_traceback = [], True
        elif m := _PY_FATAL.match(line):
            found.append(_python_fatal(lines, i, m.group("what"), inputs))
        elif not in_traceback:
            continue
        elif m := _PY_FRAME.match(line):
            if file_of(m.group("file")) not in inputs:
                frames.append(f"{file_of(m.group('file'))}:{m.group('function')}")
        elif line.strip() and not line[:1].isspace():  # not a quoted source line or ^^^
            in_traceback = False
            exception = _exception("Python traceback", line.strip(), frames[::-1], inputs)
            found.append(exception)
    yield from reversed(found)


def _python_fatal(lines: list[str], i: int, what: str, inputs: Collection[str]) -> Report:
    """faulthandler: "Fatal Python error: Segmentation fault" and "File "x.py", line 3 in f"."""
    frames: list[str] = []
    for line in lines[i + 1 : i + 200]:
        if m := _PY_FRAME.match(line):
            if file_of(m.group("file")) not in inputs:
                frames.append(f"{file_of(m.group('file'))}:{m.group('function')}")
        elif frames and not line.strip():
            break
    message = strip_values(what, inputs)
    return Report(
        "Python traceback", "Fatal Python error", frames=tuple(frames), message=message,
        keep_message=True,
    )  # fmt: skip


_JAVA_EXCEPTION = re.compile(r"\bException in thread \"[^\"]*\" (?P<exception>\S.*)")
# "\tat pkg.Class.method(File.java:12)", "    at f (t.js:1:34)", "    at t.js:2:1".
_AT_FRAME = re.compile(r"^\s+at (?P<body>\S.*)$")
_AT_CALL = re.compile(r"^(?:async )?(?P<function>[^()]+?) ?\((?P<where>[^()]*)\)$")


def java_exceptions(lines: list[str], inputs: Collection[str]) -> Iterator[Report]:
    """Uncaught Java exceptions: "Exception in thread ..." and its `at` frames."""
    for i, line in enumerate(lines):
        if m := _JAVA_EXCEPTION.search(line):
            frames = _at_frames(lines, i + 1, inputs)
            exception = m.group("exception").strip()
            yield _exception("Java exception", exception, list(frames), inputs)


def uncaught_exceptions(lines: list[str], inputs: Collection[str]) -> Iterator[Report]:
    """ "SomeError: message" lines (Node's with their `at` frames), thrown non-Error values."""
    for i, line in enumerate(lines):
        # Node's report of a thrown non-Error value: the value, then this hint.
        if line.startswith("(Use `node --trace-uncaught") and i > 0 and lines[i - 1].strip():
            yield Report("uncaught exception", "uncaught", message=strip_values(lines[i - 1]))
        elif _EXCEPTION_LINE.match(line) or line.startswith("Uncaught "):
            text = line.strip().removeprefix("Uncaught ").removeprefix("(in promise) ")
            frames = _at_frames(lines, i + 1, inputs)
            yield _exception("uncaught exception", text, list(frames), inputs, typed=False)


def _at_frames(lines: list[str], start: int, inputs: Collection[str]) -> tuple[str, ...]:
    """The `at` frames right after an exception line, innermost first."""
    frames: list[str] = []
    for line in lines[start:]:
        m = _AT_FRAME.match(line)
        if m is None:
            break
        body = m.group("body")
        call = _AT_CALL.match(body)
        function, where = (call.group("function"), call.group("where")) if call else ("", body)
        file = file_of(where)
        if file in inputs:
            continue
        # Java's "java.base/java.lang.Integer.parseInt": the module says nothing more.
        function = re.sub(r"^[\w.]+/", "", function.strip())
        frames.append(function or file)
    return tuple(frames)


def _exception(
    kind: str, text: str, frames: list[str], inputs: Collection[str], *, typed: bool = True
) -> Report:
    """A report of an exception line "Type: message" or a bare "Type"; with `typed` False
    (any line that looks like an exception) a line that does not name a type is a bare value."""
    m = _EXCEPTION_LINE.match(text)
    if m is not None:
        name, message = m.group("type"), m.group("message") or ""
    else:
        name, _, message = text.partition(": ")
        if not (typed and re.fullmatch(r"[\w$.]+", name)):
            name, message = "uncaught", text
    message = strip_values(message, inputs)
    return Report(kind, name, frames=tuple(frames), message=message or None)


_ERROR_LINE = re.compile(
    r"\b(?:fatal error|error)(?:\[[\w-]+\])?:\s*\S.*|^\(error \".*", re.IGNORECASE
)


def error_lines(lines: list[str], inputs: Collection[str]) -> Iterator[Report]:
    """Diagnostics saying "error:" (from the keyword on), and SMT-LIB's (error ...)."""
    for line in lines:
        if m := _ERROR_LINE.search(line):
            text = strip_values(m.group(0), inputs, quoted=False)
            yield Report("first error message", text)
