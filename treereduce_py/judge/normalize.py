"""Normalization: two runs of one crash print different text; make them compare equal.

Outputs differ between runs in ways that say nothing about the crash, so both the golden output
and every candidate's output go through `normalize` before a crash report is read from them:
addresses, pids, thread ids, timestamps and durations are replaced by placeholders and absolute
paths shrink to their basenames (each worker runs in its own temp dir). Locations are treated by
whose they are. A location in the *tool's* source (`at expr.cc:10586`,
`compiler/rustc_middle/src/ty/mod.rs:123:45`, glibc's `prog: file.c:12: f: Assertion ...` of a
tool) is kept here (a report's key drops its line later). A location in the *user's input*
(`crash.rs:12:5`, `File "crash.py", line 4`, "line 42") moves as the input shrinks and is
dropped: line and column numbers after a name in `input_names` go, and so does the number in any
"line N" / "column N".

Pure text in, text out.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from pathlib import PurePath, PureWindowsPath


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
    for name in basenames(input_names):
        if name in text:
            for pattern, replacement in _input_rules(name):
                text = pattern.sub(replacement, text)
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    return "\n".join(line.rstrip() for line in text.split("\n"))


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
SIGNAL_WORDS = (
    r"Segmentation fault|Aborted|Bus error|Illegal instruction|Floating point exception"
    r"|Killed|Trace/breakpoint trap|IOT instruction|Terminated|Hangup|Quit"
)
SHELL_SIGNAL = re.compile(rf"\b(?:{SIGNAL_WORDS})\b")
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


def basenames(names: Sequence[str]) -> tuple[str, ...]:
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
    for word in SHELL_SIGNAL.finditer(text):
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


def decode(data: bytes) -> str:
    """A run's output as text (undecodable bytes replaced)."""
    return data.decode("utf-8", errors="replace")
