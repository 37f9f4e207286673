"""A crash report, cut down to what identifies the crash: its type, location, frames, message.

ClusterFuzz groups crashes by their type and top stack frames, not by their message, because a
message carries the data that triggered the crash (`negative seek value -11`, `-16`, ...) while
the stack says where the program broke. A `Report` holds what one report in a run's output says,
already free of run-specific text (normalize.py): the crash type (`ValueError`,
`AddressSanitizer: heap-buffer-overflow READ`), where the tool says it broke (a file of its own
source, line numbers dropped), its frames innermost first (function names, with the file's
basename for Python; addresses, offsets, arguments and build paths stripped; frames of the
crash machinery and of the user's input left out), and its message with values stripped
(`strip_values`). `key(frames)` is the text two runs must share to be the same crash: the
message counts only where the report kind says it identifies the crash (`keep_message`) or when
no frames are left.

Each report kind's finder (compiler_reports.py, native_reports.py, exception_reports.py) reads
normalized output lines and yields every report of its kind, in order. Pure text in, values out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass

# Reads a stream's normalized lines (and the input's basenames); yields its reports in order.
Finder = Callable[[list[str], Collection[str]], Iterator["Report"]]


@dataclass(frozen=True)
class Report:
    """One crash report found in a run's output (see the module docstring).

    `kind` names the finder that read it ("Python traceback", "sanitizer report", ...).
    `frames` holds every frame found, innermost first; `key` keeps the top ones. `message` is
    already stripped of values; it is part of the key when `keep_message` says so (the message
    is the crash's identity for this kind: a compiler's ICE message, a Rust panic's text) or
    when no frame is kept.
    """

    kind: str
    crash_type: str
    location: str | None = None
    frames: tuple[str, ...] = ()
    message: str | None = None
    keep_message: bool = False

    def key(self, frames: int) -> str:
        """The crash's identity as one line: type, message, location and the top `frames`."""
        top = self.frames[: max(frames, 0)]
        text = self.crash_type
        if self.message and (self.keep_message or not top):
            text += f": {self.message}"
        if self.location:
            text += f" ({self.location})"
        if top:
            text += " at " + " < ".join(top)
        return text


_QUOTED = re.compile(
    r"(?<!\w)(?:'[^'\n]*'|\"[^\"\n]*\"|`[^`'\n]*[`']|‘[^’\n]*’|“[^”\n]*”|«[^»\n]*»)"
)
_HEX = re.compile(r"(?<![\w<])0[xX](?:<addr>|[0-9a-fA-F]+\b)")
_NUMBER = re.compile(r"(?<![\w.<])[-+]?\d+(?:\.\d+)*(?![\w>])")
# A relative path keeps its last part: directories depend on the build, not on the crash.
_RELATIVE_PATH = re.compile(r"(?<![\w.<])(?:[\w.+-]+/)+(?P<base>[\w+-]*\.[\w.+-]+)")
_BLANKS = re.compile(r"\s+")


def strip_values(message: str, inputs: Collection[str] = (), *, quoted: bool = True) -> str:
    """`message` without the values a crash's data puts in it.

    Quoted text (unless `quoted` is False: a compiler's diagnostic quotes the input's names,
    which identify it) becomes `<q>`, hex numbers `<hex>`, other numbers `<n>`, a relative
    path its last part, the input's own names `<input>`; runs of blanks become one space.
    Placeholders of normalize.py are kept. Linear in the length of `message`.
    """
    text = message
    for name in inputs:
        if name and name in text:
            text = re.sub(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", "<input>", text)
    text = _RELATIVE_PATH.sub(lambda m: m.group("base"), text)
    text = _HEX.sub("<hex>", text)
    text = _NUMBER.sub("<n>", text)
    if quoted:
        text = _QUOTED.sub("<q>", text)
    return _BLANKS.sub(" ", text).strip()


def file_of(location: str) -> str:
    """The file of a normalized location ("p.rs:1:45" -> "p.rs", "x.c(7,3)" -> "x.c")."""
    text = location.strip().strip("()")
    text = re.sub(r"(?::\d+)+:?$|\(\d+(?:,\d+)?\)$|:$", "", text)
    return text.rsplit("/", 1)[-1]


# A native frame's location: "crash.c:2:3", "(libc.so.6+0x<addr>)", "../sysdeps/x.h:58".
# A bare file name is the input's, whose line numbers normalize.py dropped.
_NATIVE_TAIL = re.compile(r"(?<!\s)\s+(?:\([^()\s]*\+0x[^()\s]*\)|\S+:\d+(?::\d+)?|[^\s()]+\.\w+)$")
_ANONYMOUS = re.compile(r"\((?:anonymous namespace|anon)\)")
_RUST_HASH = re.compile(r"::h[0-9a-f]{16}$")


def native_function(symbol: str) -> tuple[str, str | None]:
    """A native frame's function name and the file of its location (None: no location).

    Strips the location ("main asan.c:2", "f (libx.so+0x12)"), a C++ or Rust argument list and
    template arguments' trailing qualifiers ("Foo::bar(int) const" -> "Foo::bar"), and a Rust
    symbol hash.
    """
    text = symbol.strip()
    where = None
    tail = _NATIVE_TAIL.search(text)
    if tail is not None:
        where = tail.group(0).strip()
        text = text[: tail.start()]
    text = _ANONYMOUS.sub("{anonymous}", text)
    # C++ "operator()" keeps its parentheses; any other "(" starts the argument list.
    start = text.find("operator()")
    cut = text.find("(", start + len("operator()") if start >= 0 else 0)
    if cut > 0:
        text = text[:cut]
    text = _RUST_HASH.sub("", _drop_return_type(text.strip()))
    file = None if where is None or where.startswith("(") else file_of(where)
    return text, file


def _drop_return_type(text: str) -> str:
    """ "int f" -> "f", "std::vector<int, a> g<int>" -> "g<int>": the last word outside <...>
    (two for "operator new")."""
    depth, spaces = 0, [-1]
    for i, char in enumerate(text):
        if char == "<":
            depth += 1
        elif char == ">":
            depth = max(depth - 1, 0)
        elif char == " " and depth == 0:
            spaces.append(i)
    start = spaces[-1] + 1
    if len(spaces) > 1 and text[spaces[-2] + 1 : spaces[-1]].endswith("operator"):
        start = spaces[-2] + 1
    return text[start:]


@dataclass(frozen=True)
class Assertion:
    """glibc's assertion message: "prog: file.c:12: int f(int): Assertion `x > 0' failed."."""

    file: str
    function: str
    expression: str


_ASSERTION_TAIL = ": Assertion "


def glibc_assertion(line: str) -> Assertion | None:
    """The parts of a glibc (or LLVM) assertion line, None when the line is not one.

    Splits on the last ": Assertion " with plain string operations (a regex over "Assertion"
    repeated would backtrack quadratically).
    """
    cut = line.rfind(_ASSERTION_TAIL)
    if cut < 0 or not line.rstrip().endswith(("failed.", "failed")):
        return None
    head = line[:cut]
    expression = line[cut + len(_ASSERTION_TAIL) :].rstrip()
    expression = expression.removesuffix(".").removesuffix("failed").strip()
    # head: "prog: file.c:12: int f(int)" (the function may hold ": " itself, e.g. "a::b").
    parts = head.split(": ", 2)
    if len(parts) < 3:
        return None
    function = native_function(parts[2])[0]
    return Assertion(file_of(parts[1]), function, expression)
