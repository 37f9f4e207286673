"""Crash signatures: "is this the same crash?" by the crash's type and stack, not its message.

For `--same-crash` (ddSMT's golden run) the original input is run once and its exit status (or
the signal that killed it) and its *crash signature* are recorded; a candidate is interesting
when it ends with the same status and its output shows a crash with the same signature. Batch
mode groups a folder of crashing inputs by the same signature, computed by the same function
(`extract`), so one reduction per distinct crash.

The signature is a crash report's key (report.py): the crash type plus the top N frames
(`frames`, default 3), found in the output normalized (normalize.py). ClusterFuzz groups crashes
this way because a message carries the data that triggered the crash (`negative seek value
-11`, `-16`, ...) while the stack says where the program broke. The kinds of report, most
specific first (each looked for in stderr, then stdout; the first found is the signature):
rustc ICE, gcc ICE, LLVM crash (compiler_reports.py); Rust panic, Go panic, Python traceback,
sanitizer report, assertion failure, Java exception, uncaught exception (native_reports.py and
exception_reports.py, which say per kind what makes the key). Failing those, a run that died of a
signal is identified by the shell's message ("Segmentation fault") or the signal alone, and a run
that exited by its first "error:" diagnostic, or by its exit status only.

A candidate matches when its output holds a report of the golden run's kind with the same key
(not necessarily its first one). The user can give their own key (`--signature-regex`: the first
match of the regex, or its first group, in the normalized output, else in the raw output), or a
regex the output must merely match (`--signature`, `from_user_regex`).

Everything here is pure: text in, values out; running the test is the oracle's job.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from treereduce_py.judge import compiler_reports, exception_reports, native_reports
from treereduce_py.judge.errors import BadOptions
from treereduce_py.judge.normalize import basenames, decode, normalize
from treereduce_py.judge.report import Finder

# The top frames of a stack that make a crash's key (--signature-frames).
DEFAULT_FRAMES = 3
# describe() cuts a long signature to this many characters.
_DESCRIBE_WIDTH = 160

# Every kind of report by name; the crash kinds in the order they are tried.
_FINDERS: dict[str, Finder] = {
    "rustc ICE": compiler_reports.rustc_ices,
    "gcc ICE": compiler_reports.gcc_ices,
    "LLVM crash": compiler_reports.llvm_crashes,
    "Rust panic": native_reports.rust_panics,
    "Go panic": native_reports.go_panics,
    "Python traceback": exception_reports.python_tracebacks,
    "sanitizer report": native_reports.sanitizer_reports,
    "assertion failure": native_reports.assertion_reports,
    "Java exception": exception_reports.java_exceptions,
    "uncaught exception": exception_reports.uncaught_exceptions,
    "signal message": native_reports.signal_messages,
    "first error message": exception_reports.error_lines,
}
_CRASH_KINDS = tuple(_FINDERS)[:-2]
_USER_KEY = "user --signature-regex"


@dataclass(frozen=True)
class CrashSignature:
    """What a candidate must reproduce to count as the same crash as the golden run.

    `exit_code` is the golden run's returncode as subprocess reports it (negative: killed by that
    signal; None: it never exited). `line` is the signature: the key of the crash report found
    (of kind `source`), or the user's key or regex, or None when only the exit status is
    compared. `frames` is the number of top frames in a key and `key_regex` the user's key
    regex; a candidate's reports are keyed the same way. `pattern` (`--signature`) is searched in
    a candidate's output instead of comparing keys, in the normalized and the raw text.
    `input_names` are the basenames under which the input is shown to the tool; their locations
    and frames are left out.
    """

    exit_code: int | None
    line: str | None
    source: str
    input_names: tuple[str, ...] = ()
    frames: int = DEFAULT_FRAMES
    key_regex: re.Pattern[str] | None = None
    pattern: re.Pattern[str] | None = None

    def describe(self) -> str:
        """One line for the user saying what is being matched."""
        status = _describe_status(self.exit_code)
        if self.line is None:
            if self.exit_code is not None and self.exit_code < 0:
                return status
            return f"{status} only ({self.source})"
        if self.pattern is not None:
            return f"{status} and output matching /{self.line}/ ({self.source})"
        text = " ⏎ ".join(self.line.split("\n"))
        if len(text) > _DESCRIBE_WIDTH:
            text = text[: _DESCRIBE_WIDTH - 3] + "..."
        return f"{status} and '{text}' ({self.source})"

    def matches(self, exit_code: int | None, stdout: bytes, stderr: bytes) -> bool:
        """True iff a run ended with the same status and its output shows the same crash.

        The status must be equal (a signal matches only the same signal; None only None); then
        some report of the golden run's kind in the normalized stderr or stdout must have the
        same key (with `pattern`: the pattern must be found in the output).
        """
        if exit_code != self.exit_code:
            return False
        if self.line is None:
            return True
        texts = (decode(stderr), decode(stdout))
        if self.pattern is not None:
            normalized = "\n".join(normalize(t, input_names=self.input_names) for t in texts)
            if self.pattern.search(normalized) is not None:
                return True
            return self.pattern.search("\n".join(texts)) is not None
        return any(key == self.line for key in self._keys(texts))

    def _keys(self, texts: tuple[str, str]) -> Iterator[str]:
        """The keys of every report of this signature's kind in the two streams."""
        if self.key_regex is not None:
            yield from _regex_keys(self.key_regex, texts, self.input_names)
            return
        finder = _FINDERS[self.source]
        for text in texts:
            for report in finder(_lines(text, self.input_names), frozenset(self.input_names)):
                yield report.key(self.frames)


def extract(
    exit_code: int | None,
    stdout: bytes,
    stderr: bytes,
    *,
    input_names: Sequence[str] = (),
    frames: int = DEFAULT_FRAMES,
    key_regex: str | None = None,
) -> CrashSignature:
    """The crash signature of a run with this status and output (see the module docstring).

    `input_names` are the names under which the tool sees the input (e.g. "crash.rs"): their
    locations and frames are left out. `frames`: top frames in a key. `key_regex`: the user's
    key, used when it matches the output (else the signature is chosen as without it). Raises
    BadOptions when `key_regex` does not compile; never raises otherwise.
    """
    names = basenames(input_names)
    texts = (decode(stderr), decode(stdout))
    if key_regex is not None:
        try:
            pattern = re.compile(key_regex, re.MULTILINE)
        except re.error as err:
            raise BadOptions(f"invalid --signature-regex {key_regex!r}: {err}") from None
        key = next(_regex_keys(pattern, texts, names), None)
        if key is not None:
            return CrashSignature(exit_code, key, _USER_KEY, names, frames, pattern)
    streams = [_lines(text, names) for text in texts]
    inputs = frozenset(names)

    def first(kind: str) -> CrashSignature | None:
        for lines in streams:
            report = next(_FINDERS[kind](lines, inputs), None)
            if report is not None:
                return CrashSignature(exit_code, report.key(frames), kind, names, frames)
        return None

    for kind in _CRASH_KINDS:
        if found := first(kind):
            return found
    # A shell reports a child killed by signal N as exit 128+N and prints the signal's name.
    signalled = exit_code is not None and (exit_code < 0 or exit_code > 128)
    if signalled and (found := first("signal message")):
        return found
    if exit_code is not None and exit_code < 0:
        return CrashSignature(exit_code, None, f"signal {_signal_name(exit_code)}", names, frames)
    return first("first error message") or CrashSignature(
        exit_code, None, "no crash report found", names, frames
    )


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
    names = basenames(input_names)
    return CrashSignature(exit_code, regex, "user --signature", names, pattern=pattern)


# A line of the input quoted by gcc ("  12 |   x = 1;") or rustc ("12 |     let x"): the user's
# text, which may say anything, so no finder looks at it.
_SOURCE_ECHO = re.compile(r"^[ \t]*\d*[ \t]\|")


def _lines(text: str, names: Sequence[str]) -> list[str]:
    """A stream's normalized lines, without the input's source lines that tools quote."""
    normalized = normalize(text, input_names=names).split("\n")
    return [line for line in normalized if not _SOURCE_ECHO.match(line)]


def _regex_keys(
    pattern: re.Pattern[str], texts: tuple[str, str], names: Sequence[str]
) -> Iterator[str]:
    """The user's keys: each match (its first group, if it has one) in the normalized streams,
    then in the raw ones."""
    normalized = tuple(normalize(text, input_names=names) for text in texts)
    for text in (*normalized, *texts):
        for m in pattern.finditer(text):
            group = m.group(1) if pattern.groups else None
            yield m.group(0) if group is None else group


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
