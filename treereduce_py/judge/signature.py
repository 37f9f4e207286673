"""Crash signatures: "is this the same crash as the original?" without a wrapper script.

For `--same-crash` (ddSMT's golden run) the original input is run once; its exit status (or the
signal that killed it) and one characteristic line of its output, the *crash signature*, are
recorded. A candidate is interesting when it ends with the same status and its output still
contains that line. Which line: the most specific sign of a crash that the output holds, in this
order: a compiler's internal error (gcc/rustc ICE, LLVM crash), a Rust panic, an assertion
failure, a sanitizer report, an uncaught exception (Python, Node, Java), a shell's "Segmentation
fault"; failing those, a process killed by a signal is identified by the signal alone, and a
process that exited is identified by its first "error:" diagnostic, or by its exit status only.

Outputs differ between runs in ways that say nothing about the crash, so both the golden output
and every candidate's output go through `normalize` before the signature is chosen or searched:
addresses, pids, thread ids, timestamps and durations are replaced by placeholders and absolute
paths shrink to their basenames (each worker runs in its own temp dir). Locations are treated by
whose they are. A location in the *tool's* source (`at expr.cc:10586`,
`compiler/rustc_middle/src/ty/mod.rs:123:45`, glibc's `prog: file.c:12: f: Assertion ...` of a
tool) identifies the crash and is kept. A location in the *user's input* (`crash.rs:12:5`,
`File "crash.py", line 4`, "line 42") moves as the input shrinks and is dropped: line and column
numbers after a name in `input_names` go, and so does the number in any "line N" / "column N".

Everything here is pure: text in, values out; running the test is the oracle's job.
"""

from __future__ import annotations

import functools
import re
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import PurePath, PureWindowsPath

# describe() cuts a long signature line to this many characters.
_DESCRIBE_WIDTH = 160


@dataclass(frozen=True)
class CrashSignature:
    """What a candidate must reproduce to count as the same crash as the golden run.

    `exit_code` is the golden run's returncode as subprocess reports it (negative: killed by that
    signal; None: it never exited). `line` is the normalized signature text chosen from the
    output (two lines joined by a newline for a Rust panic whose message follows its header), or
    the user's regex, or None when only the exit status is compared. `pattern` is what is searched
    in a candidate's normalized output. `input_names` are the basenames under which the input is
    shown to the tool; their locations are dropped by normalization. `search_raw` also searches
    the raw output (for a user's regex, written against what they saw in their terminal).
    """

    exit_code: int | None
    line: str | None
    pattern: re.Pattern[str] | None
    source: str
    input_names: tuple[str, ...] = ()
    search_raw: bool = False

    def describe(self) -> str:
        """One line for the user saying what is being matched."""
        status = _describe_status(self.exit_code)
        if self.line is None:
            if self.exit_code is not None and self.exit_code < 0:
                return status
            return f"{status} only ({self.source})"
        if self.search_raw:
            return f"{status} and output matching /{self.line}/ ({self.source})"
        text = " ⏎ ".join(self.line.split("\n"))
        if len(text) > _DESCRIBE_WIDTH:
            text = text[: _DESCRIBE_WIDTH - 3] + "..."
        return f"{status} and '{text}' ({self.source})"

    def matches(self, exit_code: int | None, stdout: bytes, stderr: bytes) -> bool:
        """True iff a run ended with the same status and its output contains the signature.

        The status must be equal (a signal matches only the same signal; None only None); the
        pattern is searched in the normalized stdout and stderr (and, with `search_raw`, in the
        raw text too).
        """
        if exit_code != self.exit_code:
            return False
        if self.pattern is None:
            return True
        out, err = _decode(stdout), _decode(stderr)
        text = normalize(out, input_names=self.input_names) + "\n"
        text += normalize(err, input_names=self.input_names)
        if self.pattern.search(text) is not None:
            return True
        return self.search_raw and self.pattern.search(out + "\n" + err) is not None


def normalize(text: str, *, input_names: Sequence[str] = ()) -> str:
    """Return `text` with run-specific details replaced, so two runs of one crash compare equal.

    Removes terminal colour codes, "(core dumped)", and trailing whitespace; replaces absolute
    paths by their basenames, dates and times by ``<date>``/``<time>``, durations ("in 0.42s")
    by ``<duration>``, hex addresses of 6+ digits by ``0x<addr>``, pids and thread ids
    (``==1234==``, ``pid 1234``, ``thread 'main' (1234)``, the pid in a shell's "1234 Segmentation
    fault") by ``<pid>`` or nothing, and line/column numbers of the user's input (after a name in
    `input_names`, or in "line N"/"column N") by nothing or ``<n>``. Locations in the tool's own
    source are kept. Normalizing again changes nothing (for text whose tokens are separated by
    blanks or punctuation). Linear in the length of `text`. Never raises.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _ANSI.sub("", text)
    text = _CORE_DUMPED.sub("", text)
    text = _POSIX_PATH.sub(lambda m: m.group("base"), text)
    text = _WINDOWS_PATH.sub(lambda m: m.group("base"), text)
    text = _drop_shell_pids(text)
    for name in _basenames(input_names):
        if name in text:
            for pattern, replacement in _input_rules(name):
                text = pattern.sub(replacement, text)
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    return "\n".join(line.rstrip() for line in text.split("\n"))


def extract(
    exit_code: int | None, stdout: bytes, stderr: bytes, *, input_names: Sequence[str] = ()
) -> CrashSignature:
    """Choose the crash signature of a golden run with this status and output.

    Kinds are tried in priority order (compiler internal error, Rust panic, assertion failure,
    sanitizer report, uncaught exception, shell signal message), each in stderr first and then
    stdout; the first line found wins. With none found, a run killed by a signal is identified by
    that signal alone (line None), and an exited run by its first "error:" line or, failing that,
    by its exit status alone. `input_names` are the names under which the tool sees the input
    (e.g. "crash.rs"); their locations are left out of the signature. Never raises.
    """
    names = _basenames(input_names)
    streams = [
        [
            line
            for line in normalize(_decode(stream), input_names=names).split("\n")
            if not _SOURCE_ECHO.match(line)
        ]
        for stream in (stderr, stdout)
    ]
    for finder, source in _FINDERS:
        for lines in streams:
            found = finder(lines)
            if found is not None:
                return _literal(exit_code, found, source, names, lines)
    # A shell reports a child killed by signal N as exit 128+N and prints the signal's name.
    if exit_code is not None and (exit_code < 0 or exit_code > 128):
        for lines in streams:
            found = _shell_signal(lines)
            if found is not None:
                return _literal(exit_code, found, "signal message", names, lines)
    if exit_code is not None and exit_code < 0:
        return CrashSignature(exit_code, None, None, f"signal {_signal_name(exit_code)}", names)
    for lines in streams:
        found = _error_line(lines)
        if found is not None:
            return _literal(exit_code, found, "first error message", names, lines)
    return CrashSignature(exit_code, None, None, "no signature line found", names)


def from_user_regex(
    exit_code: int | None, regex: str, *, input_names: Sequence[str] = ()
) -> CrashSignature:
    """A signature from the user's `--signature REGEX` for a golden run with this status.

    A candidate matches when its status equals `exit_code` and `re.search(regex)` finds a match
    in its normalized output or in its raw output. Raises ValueError if `regex` does not compile.
    """
    try:
        pattern = re.compile(regex, re.MULTILINE)
    except re.error as err:
        raise ValueError(f"invalid --signature regex {regex!r}: {err}") from err
    return CrashSignature(
        exit_code, regex, pattern, "user --signature", _basenames(input_names), search_raw=True
    )


# ---------------------------------------------------------------------------------------------
# Normalization rules.

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_CORE_DUMPED = re.compile(r"(?<![ \t])[ \t]*\(core dumped\)")
# Characters that end a path inside a message: whitespace, quotes, brackets, separators.
_PATH_CHAR = r"[^\s/:'\"`()\[\]{}<>,;|]"
# An absolute path with at least one directory; not part of a URL (file:///x) or a relative path.
_POSIX_PATH = re.compile(rf"(?<![\w.:/~$-])(?:/{_PATH_CHAR}+)+/(?P<base>{_PATH_CHAR}+)")
_WINDOWS_PATH = re.compile(
    r"(?<![\w.])[A-Za-z]:\\(?:[^\s\\:'\"()<>,;|]+\\)+(?P<base>[^\s\\:'\"()<>,;|]+)"
)
_SIGNAL_WORDS = (
    r"Segmentation fault|Aborted|Bus error|Illegal instruction|Floating point exception"
    r"|Killed|Trace/breakpoint trap|IOT instruction|Terminated|Hangup|Quit"
)
_SHELL_SIGNAL = re.compile(rf"\b(?:{_SIGNAL_WORDS})\b")
_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    # Dates, optionally with a time of day (also rustc's ICE file names: 2024-03-05T20_23_52).
    (
        re.compile(
            r"\b\d{4}-\d{2}-\d{2}(?:[T _]\d{2}[:_]\d{2}(?:[:_]\d{2}(?:[.,]\d+)?)?"
            r"(?:Z|[+-]\d{2}:?\d{2})?)?\b"
        ),
        "<date>",
    ),
    # A time of day; "file:12:34" has only two numbers, so locations are not touched.
    (re.compile(r"(?<![\d:])\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?(?![\d:])"), "<time>"),
    # Durations: a decimal with any time unit, or an integer with an unambiguous one.
    (
        re.compile(
            r"(?<![\w.])(?:\d+\.\d+ ?(?:ns|us|µs|ms|s|sec|secs|seconds?|min|mins|minutes?)"
            r"|\d+ ?(?:ns|us|µs|ms|secs?|seconds?|minutes?))(?!\w)"
        ),
        "<duration>",
    ),
    (re.compile(r"\b0[xX][0-9a-fA-F]{6,}\b"), "0x<addr>"),
    # Sanitizer report prefix ==1234== and "pid 1234" / "pid=1234" / "tid: 5".
    (re.compile(r"==\d+=="), "==<pid>=="),
    (re.compile(r"\b(pid|PID|tid|TID)([ \t]*(?:[:=#][ \t]*)?)\d+\b"), r"\1\2<pid>"),
    # Rust >= 1.85 prints the thread id: thread 'main' (4453) panicked at ...
    (re.compile(r"(thread '[^'\n]*') \(\d+\)"), r"\1"),
    # "line 42" and "column 7" almost always point into the input being reduced.
    (re.compile(r"\b(line|column|col)([ \t]+)\d+\b", re.IGNORECASE), r"\1\2<n>"),
)


@functools.lru_cache(maxsize=64)
def _input_rules(name: str) -> tuple[tuple[re.Pattern[str], str], ...]:
    """Rules that drop the directories and line/column numbers after an input's name."""
    quoted = re.escape(name)
    return (
        # A relative directory prefix (w0/crash.rs) depends on where the test ran.
        (re.compile(rf"(?<![\w.+/-])[\w.+-]+(?:/[\w.+-]+)*/(?={quoted}\b)"), ""),
        # crash.rs:12:5, crash.c:12, crash.c(12,5), "crash.py", line 4
        (re.compile(rf"(?<![\w.-]){quoted}(?::\d+)+(?![\w.])"), name),
        (re.compile(rf"(?<![\w.-]){quoted}\(\d+(?:,\d+)?\)"), name),
        (re.compile(rf"(?<![\w.-])({quoted}\"?),? line \d+"), r"\1"),
    )


def _basenames(names: Sequence[str]) -> tuple[str, ...]:
    """Basenames of the given names, without empties or duplicates, in order."""
    result: list[str] = []
    for name in names:
        base = PureWindowsPath(name).name if "\\" in name else PurePath(name).name
        if base and base not in result:
            result.append(base)
    return tuple(result)


def _drop_shell_pids(text: str) -> str:
    """Drop the pid a shell prints before a signal's name ("line 1:  4280 Segmentation fault").

    Scans back from each signal name rather than using a regex like (\\d+\\s+)+(?=name), which
    takes quadratic time on a long line of numbers.
    """
    pieces: list[str] = []
    done = 0
    for word in _SHELL_SIGNAL.finditer(text):
        cut = word.start()
        while True:
            blanks = cut
            while blanks > done and text[blanks - 1] in " \t":
                blanks -= 1
            digits = blanks
            while digits > done and text[digits - 1].isdigit():
                digits -= 1
            # Stop unless "<number><blanks>" stands alone (not the end of "x86 " or "E0308 ").
            if blanks == cut or digits == blanks:
                break
            if digits > 0 and (text[digits - 1].isalnum() or text[digits - 1] == "_"):
                break
            cut = digits
        pieces.append(text[done:cut])
        done = word.start()
    pieces.append(text[done:])
    return "".join(pieces)


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


# ---------------------------------------------------------------------------------------------
# Finders: each looks at one stream's normalized lines and returns the signature text or None.

# A line of the input quoted by gcc ("  12 |   x = 1;") or rustc ("12 |     let x"): the user's
# text, which may say anything, so no finder looks at it.
_SOURCE_ECHO = re.compile(r"^[ \t]*\d*[ \t]\|")
_ICE = re.compile(r"(?:\berror: )?\binternal compiler error\b.*")
# rustc's catch-all ICE message; the panic line says more.
_GENERIC_ICE = re.compile(r"internal compiler error:?(?:\s*unexpected panic)?$")
_ICE_MARKERS = re.compile(
    r"internal compiler error|the compiler unexpectedly panicked|query stack during panic"
)
_PANIC = re.compile(r"\bthread '(?P<thread>[^'\n]*)' panicked at (?P<rest>.*)")
_LLVM_FATAL = re.compile(r"\bLLVM ERROR: .*|\berror in backend: .*|\bUNREACHABLE executed at .*")
_LLVM_CRASH = re.compile(r"PLEASE submit a bug report|^Stack dump:$")
# An LLVM stack frame: " #6 0x<addr> clang::Foo::bar(int) (libclang-cpp.so.14+0x<addr>)".
_LLVM_FRAME = re.compile(r"^\s*#\d+\s+0x(?:<addr>|[0-9a-fA-F]+)\s+(?P<symbol>[^(\s].*)$")
_LLVM_FRAME_TAIL = re.compile(r"(?<!\s)\s+(?:\([^()\s]*\+0x[^()\s]*\)|\S+:\d+(?::\d+)?)$")
# Frames of the crash machinery itself, not of the code that crashed.
_HANDLER_FRAME = re.compile(
    r"^(?:llvm::sys::|llvm::report_fatal_error|llvm::llvm_unreachable_internal|SignalHandler"
    r"|__restore_rt|raise|abort|__assert_fail|__GI_|_start\b|__libc_)"
)
_FRONTEND_FAILED = re.compile(r"\bfrontend command failed.*")

_ASSERTION = re.compile(
    r"^AssertionError\b"  # Python, Node's assert module
    r"|\bassertion failed\b"  # Rust's assert!, OCaml, many C libraries
    r"|\bASSERT(?:ION)?(?: FAILED| failure)\b",
    re.IGNORECASE,
)
# glibc, musl, macOS, LLVM, C++ libraries: "Assertion `x' failed", "Assertion failed: (x), ...".
_ASSERTION_WORD = re.compile(r"\bAssertion\b", re.IGNORECASE)
_FAILED_WORD = re.compile(r"\bfailed\b", re.IGNORECASE)
_SANITIZER = re.compile(
    r"\b(?:ERROR|WARNING): \w*Sanitizer: .*|\bruntime error: .*|\bSanitizer CHECK failed: .*"
)
_PY_TRACEBACK = "Traceback (most recent call last):"
_JAVA_EXCEPTION = re.compile(r"\bException in thread \"[^\"]*\" \S.*")
_UNCAUGHT = re.compile(r"\bUncaught\b\s*(?:\(in promise\)\s*)?\S.*")
_EXCEPTION_LINE = re.compile(
    r"^(?:[A-Za-z_$][\w$.]*)?(?:Error|Exception|Exit|Interrupt)(?: \[[\w-]+\])?(?::\s.*)?$"
)
_ERROR_LINE = re.compile(
    r"\b(?:fatal error|error)(?:\[[\w-]+\])?:\s*\S.*|^\(error \".*", re.IGNORECASE
)


def _compiler_crash(lines: list[str]) -> str | None:
    """An internal compiler error of gcc, rustc or LLVM/clang."""
    ices = [m.group(0) for line in lines if (m := _ICE.search(line))]
    specific = [ice for ice in ices if not _GENERIC_ICE.search(ice)]
    if specific:
        return specific[0]
    if any(_ICE_MARKERS.search(line) for line in lines):
        panic = _rust_panic_in(lines, lambda thread: True)
    else:
        panic = _rust_panic_in(lines, lambda thread: thread == "rustc")
    if panic is not None:
        return panic
    if ices:
        return ices[0]
    for i, line in enumerate(lines[:-1]):
        if line.strip() == "query stack during panic:" and lines[i + 1].startswith("#0 "):
            return lines[i + 1].strip()
    if any(_LLVM_CRASH.search(line) for line in lines):
        return _llvm_crash(lines)
    for line in lines:
        if m := _LLVM_FATAL.search(line):
            return m.group(0)
    return None


def _llvm_crash(lines: list[str]) -> str | None:
    """The best line of an LLVM crash report: its error message, else its crashing frame."""
    for line in lines:
        if m := _LLVM_FATAL.search(line):
            return m.group(0)
    # An assertion is reported whole: its location is in LLVM's source.
    assertion = _assertion(lines)
    if assertion is not None:
        return assertion
    for line in lines:
        frame = _LLVM_FRAME.match(line)
        if frame is None:
            continue
        symbol = _LLVM_FRAME_TAIL.sub("", frame.group("symbol")).strip()
        if symbol and not _HANDLER_FRAME.match(symbol):
            return symbol
    for line in lines:
        if m := _FRONTEND_FAILED.search(line):
            return m.group(0).strip()
    return None


def _rust_panic(lines: list[str]) -> str | None:
    """A Rust panic: the header with its location and, in the newer format, the message line."""
    return _rust_panic_in(lines, lambda thread: True)


def _rust_panic_in(lines: list[str], thread_ok: Callable[[str], bool]) -> str | None:
    for i, line in enumerate(lines):
        m = _PANIC.search(line)
        if m is None or not thread_ok(m.group("thread")):
            continue
        header = m.group(0).rstrip()
        # Rust >= 1.73: "panicked at src/main.rs:4:5:" then the message on the next line.
        if header.endswith(":") and i + 1 < len(lines) and lines[i + 1].strip():
            return header + "\n" + lines[i + 1].strip()
        return header
    return None


def _assertion(lines: list[str]) -> str | None:
    """An assertion failure, whole line (its location, if any, is in the asserting program)."""
    for line in lines:
        if _ASSERTION.search(line):
            return line.strip()
        # Two searches instead of "Assertion.*failed", which is quadratic on repeated words.
        word = _ASSERTION_WORD.search(line)
        if word is not None and _FAILED_WORD.search(line, word.end()):
            return line.strip()
    return None


def _sanitizer(lines: list[str]) -> str | None:
    """The header of an AddressSanitizer/UBSan/... report."""
    for line in lines:
        if m := _SANITIZER.search(line):
            return m.group(0).strip()
    return None


def _exception(lines: list[str]) -> str | None:
    """An uncaught exception: Python's last traceback line, Java's or Node's exception line."""
    starts = [i for i, line in enumerate(lines) if line.strip() == _PY_TRACEBACK]
    if starts:
        for line in lines[starts[-1] + 1 :]:
            if line.strip() and not line[:1].isspace():
                return line.strip()
    for i, line in enumerate(lines):
        # Node's report of a thrown non-Error value: the value, then this hint.
        if line.startswith("(Use `node --trace-uncaught") and i > 0 and lines[i - 1].strip():
            return lines[i - 1].strip()
    for line in lines:
        if m := _JAVA_EXCEPTION.search(line):
            return m.group(0).strip()
    for line in lines:
        if m := _UNCAUGHT.search(line):
            return m.group(0).strip()
    for line in lines:
        if _EXCEPTION_LINE.match(line):
            return line.strip()
    return None


def _shell_signal(lines: list[str]) -> str | None:
    """A shell's or runtime's report of a fatal signal ("Segmentation fault", "Aborted")."""
    for line in lines:
        if m := _SHELL_SIGNAL.search(line):
            return m.group(0)
    return None


def _error_line(lines: list[str]) -> str | None:
    """The first diagnostic saying "error:" (from the keyword on), or an SMT-LIB (error ...)."""
    for line in lines:
        if m := _ERROR_LINE.search(line):
            return m.group(0).strip()
    return None


_FINDERS: tuple[tuple[Callable[[list[str]], str | None], str], ...] = (
    (_compiler_crash, "internal compiler error"),
    (_rust_panic, "Rust panic"),
    (_assertion, "assertion failure"),
    (_sanitizer, "sanitizer report"),
    (_exception, "uncaught exception"),
)


def _literal(
    exit_code: int | None, text: str, source: str, names: tuple[str, ...], lines: list[str]
) -> CrashSignature:
    """A signature searching for `text` as found in `lines`, tolerant of inner whitespace.

    The match must start at a word boundary, and must end a line when `text` ended one in the
    golden output, so "ValueError: bad 4" does not match "ValueError: bad 42".
    """
    parts = [r"[ \t]+".join(re.escape(word) for word in line.split()) for line in text.split("\n")]
    regex = r"[ \t]*\n[ \t]*".join(parts)
    if re.match(r"\w", text):
        regex = r"(?<!\w)" + regex
    last = text.split("\n")[-1]
    if any(line.rstrip().endswith(last) for line in lines):
        regex += r"[ \t]*$"
    return CrashSignature(exit_code, text, re.compile(regex, re.MULTILINE), source, names)


def _signal_name(exit_code: int) -> str:
    try:
        return signal.Signals(-exit_code).name
    except ValueError:
        return f"signal {-exit_code}"


def _describe_status(exit_code: int | None) -> str:
    if exit_code is None:
        return "no exit status"
    if exit_code < 0:
        return f"killed by {_signal_name(exit_code)}"
    return f"exit {exit_code}"
