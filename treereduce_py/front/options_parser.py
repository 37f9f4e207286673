"""What a user may type: the arguments of `treereduce-py` and `treereduce-py batch`, by topic.

Each argument is defined once with its help text; values are converted and range-checked by the
argument types of validate.py, so a bad number is a usage error before anything runs.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from treereduce_py import __version__
from treereduce_py.edit.cdd import DEFAULT_P0
from treereduce_py.front.cluster_options import add_cluster_options
from treereduce_py.front.exit_codes import EXIT_CODES
from treereduce_py.front.language_list import language_lines
from treereduce_py.front.validate import (
    command_line,
    count,
    exit_status,
    probability,
    regex,
    seconds,
    signature_regex,
)
from treereduce_py.judge.signature import DEFAULT_FRAMES
from treereduce_py.run.batch import TEST_MODES
from treereduce_py.transform.strategies import DEFAULT_STRATEGY, STRATEGIES

EPILOG = (
    "A candidate is interesting when ALL given criteria hold: the exit code is one of "
    "--exit-code (default 0), and each --stdout-regex/--stderr-regex matches and each "
    "--not-stdout-regex/--not-stderr-regex does not.\n"
    "An argument @@ (or @@.ext, keeping the suffix compilers need) becomes the path of a file "
    "holding the candidate; without one the candidate goes to the command's standard input. "
    "Each worker runs the command in its own temporary directory; no shell is used unless the "
    "command is one. A command containing '/' (./check.sh) and arguments starting with ./ or ../ "
    "that exist (python3 ./check.py @@) are made absolute, so they are found from there; no other "
    "argument is rewritten (gcc -o prog @@.c writes each worker's own prog).\n\nexit codes:\n"
    + "\n".join(f"  {code:>3}  {text}" for code, text in EXIT_CODES.items())
)


def build_parser() -> argparse.ArgumentParser:
    """The parser of a single run's options (the test command after `--` is split off first)."""
    p = argparse.ArgumentParser(
        prog="treereduce-py",
        usage="treereduce-py [options] INPUT... -- COMMAND [ARG...]",
        description="Reduce INPUT to a small file that still makes COMMAND interesting.\n\n"
        "commands:\n"
        "  treereduce-py INPUT ...  reduce one file or directory, or several files together "
        "(the options below)\n"
        "  treereduce-py batch ...  run COMMAND on many inputs, group the crashing ones by crash "
        "signature\n"
        "                           and reduce one input of each group (see: treereduce-py batch "
        "--help)",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_files(p)
    _add_test_runs(p)
    _add_criteria(p)
    _add_strategy(p)
    _add_resume_and_report(p)
    _add_passes(p)
    _add_budgets(p)
    _add_display(p)
    return p


def _add_files(p: argparse.ArgumentParser) -> None:
    """The input, its language and the output."""
    p.add_argument(
        "inputs",
        nargs="+",
        metavar="INPUT",
        help="the file or directory to reduce ('-' reads stdin); several files are reduced "
        "together, as a directory holding just them (-o OUTDIR says where the result goes)",
    )
    p.add_argument("-l", "--lang", help="language name (default: from the extension/shebang)")
    p.add_argument(
        "--list-languages",
        action=_ListLanguages,
        help="list every language name with the extensions and file names that select it, and exit",
    )
    p.add_argument(
        "-o",
        "--output",
        help="where to write the result (default: reduced/NAME.EXT beside the input; '-': stdout)",
    )
    p.add_argument("-f", "--force", action="store_true", help="overwrite an existing output file")
    p.add_argument(
        "--in-place",
        action="store_true",
        help="directory input: replace the directory itself with the result (default: DIR.reduced)",
    )
    p.add_argument(
        "--keep",
        action="append",
        default=[],
        metavar="GLOB",
        help="directory input: never delete or change the files whose path matches GLOB",
    )


def _add_test_runs(p: argparse.ArgumentParser) -> None:
    """How many tests run at once, for how long, and where."""
    p.add_argument(
        "-j",
        "--jobs",
        type=count,
        default=None,
        help="parallel tests (default: the CPUs; at most 16 per CPU core or 64, whichever is more)",
    )
    p.add_argument(
        "--timeout",
        type=seconds,
        help="most seconds per test (default: 10x the original's run, at least 1 s); a test "
        "running 5x as long as the slowest interesting one so far (at least 1 s) is stopped "
        "sooner as a hang, unless --deterministic; both double while half the tests are "
        "stopped (a loaded machine)",
    )
    add_cluster_options(p)


def _add_criteria(p: argparse.ArgumentParser) -> None:
    """What makes a finished test interesting."""
    p.add_argument(
        "--exit-code",
        type=exit_status,
        action="append",
        dest="exit_codes",
        help="an interesting exit code (repeatable; default 0)",
    )
    for name in ("stdout-regex", "stderr-regex", "not-stdout-regex", "not-stderr-regex"):
        p.add_argument(f"--{name}", type=regex, metavar="RE")


def _add_strategy(p: argparse.ArgumentParser) -> None:
    """The preset, the same-crash criterion and determinism."""
    p.add_argument(
        "--strategy",
        choices=sorted(STRATEGIES),
        default=DEFAULT_STRATEGY,
        help=f"reduction preset (default {DEFAULT_STRATEGY}); see docs/strategies.md",
    )
    p.add_argument(
        "--same-crash",
        action="store_true",
        help="interesting = same exit status and crash signature as the original (no script "
        "needed); the chosen signature is printed at the start",
    )
    p.add_argument(
        "--signature",
        type=signature_regex,
        metavar="RE",
        help="crash signature: a regex the output must match (with the original's exit "
        "status) instead of the chosen crash signature; implies --same-crash",
    )
    add_signature_options(p)
    p.add_argument(
        "--deterministic",
        action="store_true",
        help="byte-identical results at any --jobs (for a deterministic test; 8 tests at most "
        "at once)",
    )


def _add_resume_and_report(p: argparse.ArgumentParser) -> None:
    """Continuing an earlier run, and the JSON summary of this one."""
    p.add_argument(
        "--resume",
        action="store_true",
        help="continue from the output file of an interrupted run (same input and test, as the "
        "record OUTPUT.treereduce.json written beside it says)",
    )
    p.add_argument("--report", type=Path, metavar="FILE", help="write a JSON summary to FILE")


def _add_passes(p: argparse.ArgumentParser) -> None:
    """How hard the reduction works, and the transformations it may use."""
    p.add_argument("--passes", type=count, help="cap on passes per stage")
    speed = p.add_mutually_exclusive_group()
    speed.add_argument("--fast", action="store_true", help="one pass per stage, no polishing")
    speed.add_argument(
        "--slow", action="store_true", help="repeat all stages until none changes anything"
    )
    p.add_argument(
        "--rename",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="rename each identifier to the shortest unused name (default: on)",
    )
    p.add_argument(
        "--members",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="reduce a zip archive (a jar, an .apk, a .docx) member by member, packed again for "
        "each test, before its bytes (default: on)",
    )
    p.add_argument(
        "--format",
        type=command_line,
        metavar="CMD",
        help="formatter for the final result (reads stdin, writes stdout, e.g. "
        "'clang-format'); kept only if still interesting",
    )
    p.add_argument(
        "--list-algorithm",
        choices=("cdd", "ddmin", "wdd"),
        help="reduce every child list with this algorithm (default: the preset's; for "
        "comparisons); wdd: CDD with chunks of about equal bytes",
    )
    p.add_argument(
        "--cdd-p0",
        type=probability,
        default=DEFAULT_P0,
        metavar="P",
        help=f"CDD's initial probability, strictly between 0 and 1 (default {DEFAULT_P0})",
    )
    p.add_argument(
        "--syntax",
        choices=("strict", "off"),
        default="strict",
        help="strict: never test a candidate with more parse errors than the best (but for "
        "the endgame: one token pass without the check on a result of at most 64 tokens)",
    )
    p.add_argument("--queries", type=Path, action="append", default=[], metavar="DIR",
                   help="extra query directory (DIR/LANG/*.scm), repeatable")  # fmt: skip


def _add_budgets(p: argparse.ArgumentParser) -> None:
    """When to stop early, with the best so far."""
    p.add_argument("--max-time", type=seconds, metavar="SECS", help="time budget")
    p.add_argument("--max-tests", type=count, metavar="N", help="test budget")


def _add_display(p: argparse.ArgumentParser) -> None:
    """What is shown while it runs."""
    out = p.add_mutually_exclusive_group()
    out.add_argument("-q", "--quiet", action="store_true", help="print only warnings and errors")
    out.add_argument(
        "--json",
        action="store_true",
        help="JSON event lines on stderr (the default with -o - when stderr is not a terminal)",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="per-pass statistics")
    p.add_argument("--show-best", action="store_true", help="preview the best result live")
    p.add_argument("--version", action="version", version=f"treereduce-py {__version__}")


def add_signature_options(p: argparse.ArgumentParser) -> None:
    """--signature-frames and --signature-regex: how a crash's signature is made."""
    p.add_argument(
        "--signature-frames",
        type=count,
        default=DEFAULT_FRAMES,
        metavar="N",
        help="crash signature: the crash type and its top N stack frames (default %(default)s)",
    )
    p.add_argument(
        "--signature-regex",
        type=signature_regex,
        metavar="RE",
        help="crash signature: the first match of RE in the output, or its first group "
        "(implies --same-crash)",
    )


def build_batch_parser() -> argparse.ArgumentParser:
    """The parser of `treereduce-py batch`'s options (the test command after `--` split off)."""
    p = argparse.ArgumentParser(
        prog="treereduce-py batch",
        usage="treereduce-py batch [-o OUTDIR] [options] INPUT... -- COMMAND [ARG...]",
        description="Run COMMAND on every INPUT (files, folders, globs), group the crashing "
        "ones by crash signature, and reduce the smallest input of each group (--same-crash). "
        "Writes OUTDIR/<signature>.<ext> (a folder with --dirs), summary.json and summary.md. "
        "By default COMMAND is the program under test (--test-mode crash): a non-zero exit or "
        "a crash message is the crash, so pass the crashing program itself (e.g. "
        "`-- ./fuzz_target @@`). With --test-mode interesting, COMMAND is a test that exits 0 "
        "while the input still shows its crash, as for a single reduction. Without @@ the "
        "input is COMMAND's stdin.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("inputs", nargs="+", metavar="INPUT")
    p.add_argument(
        "-o",
        "--outdir",
        type=Path,
        default=Path("reduced"),
        help="default: reduced; a new or empty directory, unless --force or --resume",
    )
    p.add_argument(
        "--test-mode",
        choices=TEST_MODES,
        default="crash",
        help="crash: COMMAND is the program under test (default); interesting: COMMAND exits 0 "
        "while the input still shows its crash",
    )
    p.add_argument("-l", "--lang", help="the language of every input (default: detected)")
    p.add_argument(
        "--same-crash",
        action="store_true",
        help="with --test-mode interesting, also keep the crash message the test prints "
        "(always on in crash mode)",
    )
    p.add_argument("-r", "--recursive", action="store_true", help="go into folders' folders")
    p.add_argument(
        "--dirs",
        action="store_true",
        help="each input is a folder (a crashing project): a folder named holds them, one per "
        "subfolder; each is reduced as a directory, its test given its copy as @@",
    )
    p.add_argument(
        "-f", "--force", action="store_true", help="write into an OUTDIR that is not empty"
    )
    p.add_argument("-j", "--jobs", type=count, help="tests in flight, over all groups")
    p.add_argument("--timeout", type=seconds, help="seconds per test (default: adaptive)")
    p.add_argument("--max-time", type=seconds, metavar="SECS", help="per reduction")
    p.add_argument("--strategy", choices=sorted(STRATEGIES), default=DEFAULT_STRATEGY)
    p.add_argument("--fast", action="store_true", help="one pass per stage, no polishing")
    p.add_argument("--resume", action="store_true", help="skip groups already reduced in OUTDIR")
    add_cluster_options(p)
    add_signature_options(p)
    out = p.add_mutually_exclusive_group()
    out.add_argument("-q", "--quiet", action="store_true", help="print only warnings and errors")
    out.add_argument("--json", action="store_true", help="JSON event lines on stderr")
    return p


class _ListLanguages(argparse.Action):
    """--list-languages: print the languages and exit 0, like --version (no INPUT needed)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        print("\n".join(language_lines()))
        parser.exit()
