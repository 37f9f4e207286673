"""The record beside an output: what makes two runs the same reduction, and `--resume`'s check.

A run writes `OUTPUT.treereduce.json` (engine/output.py) holding a hash of its input, its language,
its test and its signature options; `--resume` continues from an output only when its record
names the same reduction.
"""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path

from treereduce_py.engine.output import read_record, record_path
from treereduce_py.front.exit_codes import UsageError


def run_record(
    args: argparse.Namespace, command: list[str], lang: str, source: bytes
) -> dict[str, object]:
    """What makes two runs the same reduction: the input, the language, the test and how a
    crash's signature is made."""
    return {
        "input_sha256": hashlib.sha256(source).hexdigest(),
        "language": lang,
        "command": command,
        "exit_codes": sorted(args.exit_codes or [0]),
        "regexes": [_pattern_text(r) for r in (args.stdout_regex, args.stderr_regex,
                                                args.not_stdout_regex, args.not_stderr_regex)],
        "same_crash": bool(args.same_crash),
        "signature": _pattern_text(args.signature),
        "signature_frames": args.signature_frames,
        "signature_regex": _pattern_text(args.signature_regex),
    }  # fmt: skip


def _pattern_text(regex: object) -> str | None:
    """A criterion's regex (compiled over bytes by argparse) as text for the record."""
    pattern = getattr(regex, "pattern", regex)
    return pattern.decode("latin-1") if isinstance(pattern, bytes) else pattern  # type: ignore[return-value]


def check_record(output: Path, record: dict[str, object]) -> None:
    """`--resume` continues only the reduction that wrote `output` (its record says which);
    raises UsageError otherwise."""
    earlier = read_record(output)
    if earlier is None:
        raise UsageError(
            f"--resume: {output} has no record of the run that wrote it "
            f"({record_path(output).name}); run again without --resume"
        )
    if earlier.get("input_sha256") != record["input_sha256"]:
        raise UsageError(f"--resume: {output} was reduced from a different input")
    # A record written by an older version lacks the newer keys: those it has must match.
    changed = [
        k for k in record if k != "input_sha256" and k in earlier and earlier[k] != record[k]
    ]
    if changed:
        raise UsageError(
            f"--resume: {output} was reduced with a different {', '.join(changed)}; "
            "resume with the same test, or run again without --resume"
        )
