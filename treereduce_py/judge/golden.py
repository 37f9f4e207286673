"""The golden run (ddSMT's): run the original once and make "the same crash" the criterion.

`--same-crash` needs no wrapper script: the original's exit status or signal and its crash
signature (signature.py: the crash type and top stack frames) become what every candidate must
reproduce. An empty file that reproduces the signature too is worth a warning: the crash is
probably in the tool, not in the input. The run returns the signature and the criteria; the judge
then holds every run to them (`Judge.require`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from treereduce_py import events
from treereduce_py.judge import signature
from treereduce_py.judge.errors import BadOptions, NotInteresting
from treereduce_py.judge.oracle import Criteria, Verdict


@dataclass(frozen=True)
class Golden:
    """What the golden run found: the crash, and the criteria that mean "the same crash"."""

    signature: signature.CrashSignature
    criteria: Criteria


# Why --same-crash has nothing to keep: what a signature is, for a run that showed none.
NO_SIGNATURE = (
    "--same-crash found no crash signature: the run exited 0 and printed no crash (an uncaught "
    "exception, a panic, a sanitizer report, a failed assertion, an internal compiler error) "
    "and no fatal signal ended it"
)


def golden_run(
    run: Callable[[bytes], Verdict],
    source: bytes,
    *,
    names: Sequence[str],
    limit: float,
    regex: str | None,
    emit: events.EventSink,
    frames: int = signature.DEFAULT_FRAMES,
    key_regex: str | None = None,
) -> Golden:
    """Run the original (through `run`, which captures the output and gives each run `limit`
    seconds) and choose its signature; `names` are the file names the test sees the candidate
    as (`Oracle.input_names`).

    `frames` and `key_regex` say how the crash's key is made (signature.extract). Raises
    NotInteresting when the original times out or shows no crash (or not the one `regex` asks
    for), and BadOptions when `regex` or `key_regex` is not usable.
    """
    golden = run(source)
    if golden.timed_out:
        raise NotInteresting.timed_out(golden, limit)
    if regex is not None:
        try:
            sig = signature.from_user_regex(golden.exit_code, regex, input_names=names)
        except ValueError as e:
            raise BadOptions(str(e)) from None
        if not sig.matches(golden.exit_code, golden.stdout, golden.stderr):
            raise NotInteresting(golden, reasons=(f"--signature {regex!r} did not match",))
    else:
        sig = signature.extract(
            golden.exit_code, golden.stdout, golden.stderr, input_names=names, frames=frames,
            key_regex=key_regex,
        )  # fmt: skip
        if golden.exit_code == 0 and sig.line is None:
            raise NotInteresting(golden, reasons=(NO_SIGNATURE,))
    empty = run(b"")
    if sig.matches(empty.exit_code, empty.stdout, empty.stderr):
        emit(
            events.Notice(
                "an empty file reproduces this signature too, so the result will be (nearly) "
                "empty: is the crash in the tool rather than caused by the input? (--signature "
                "chooses another)"
            )
        )
    return Golden(sig, Criteria(exit_codes=frozenset(), extra=sig.matches))
