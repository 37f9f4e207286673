"""The command line: `treereduce-py [options] INPUT -- COMMAND [ARG...]`, a thin layer over `api`.

It turns arguments into an oracle, an output path and a reporter, calls `api.reduce`, and maps
every failure to a one-line message and a distinct exit code (see EXIT_CODES).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import logging
import math
import os
import re
import select
import shlex
import signal
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType

from treereduce_py import __version__, events
from treereduce_py.edit.cdd import DEFAULT_P0
from treereduce_py.engine.output import (
    OutputError,
    default_output_path,
    read_record,
    record_path,
    write_atomic,
    write_record,
)
from treereduce_py.front import ui
from treereduce_py.judge import cluster
from treereduce_py.judge.errors import ResumedNotInteresting
from treereduce_py.judge.oracle import CommandOracle, Criteria, OracleStartError
from treereduce_py.judge.signature import DEFAULT_FRAMES
from treereduce_py.lang import languages
from treereduce_py.run import api, batch
from treereduce_py.run.options import ReduceOptions
from treereduce_py.transform.strategies import DEFAULT_STRATEGY, STRATEGIES

EXIT_CODES = {
    0: "success: the result is written and passed a final re-test",
    1: "internal error",
    2: "usage error (bad option, missing or unreadable input, unknown language, output exists)",
    3: "the original input is not interesting: fix the test first (batch: no input shows a "
    "crash, or all fail as an empty file does)",
    4: "the test cannot be started (command not found or not executable, or no Dask scheduler "
    "answers at the --cluster address, or distributed is not installed)",
    5: "the final result failed its re-test (the test is not deterministic?)",
    7: "--cluster: the cluster went away during the run; the best result so far is on disk",
    8: "batch: some groups could not be reduced or were skipped (summary.md says why)",
    130: "interrupted (SIGINT/SIGTERM); the best result so far is on disk",
}

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


class UsageError(Exception):
    pass


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="treereduce-py",
        usage="treereduce-py [options] INPUT -- COMMAND [ARG...]",
        description="Reduce INPUT to a small file that still makes COMMAND interesting.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("input", metavar="INPUT", help="the file to reduce ('-' reads stdin)")
    p.add_argument("-l", "--lang", help="language name (default: from the extension/shebang)")
    p.add_argument(
        "-o",
        "--output",
        help="where to write the result (default: reduced/NAME.EXT beside the input; '-': stdout)",
    )
    p.add_argument("-f", "--force", action="store_true", help="overwrite an existing output file")
    p.add_argument("-j", "--jobs", type=_positive_int, default=None, help="parallel tests")
    p.add_argument(
        "--timeout",
        type=_positive_float,
        help="most seconds per test (default: 10x the original's run, at least 1 s); a test "
        "running 5x as long as the slowest interesting one so far (at least 1 s) is stopped "
        "sooner as a hang, unless --deterministic",
    )
    add_cluster_options(p)
    p.add_argument(
        "--exit-code",
        type=int,
        action="append",
        dest="exit_codes",
        help="an interesting exit code (repeatable; default 0)",
    )
    for name in ("stdout-regex", "stderr-regex", "not-stdout-regex", "not-stderr-regex"):
        p.add_argument(f"--{name}", type=_regex, metavar="RE")
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
        metavar="RE",
        help="crash signature: a regex the output must match (with the original's exit "
        "status) instead of the chosen crash signature; implies --same-crash",
    )
    add_signature_options(p)
    p.add_argument(
        "--deterministic",
        action="store_true",
        help="byte-identical results at any --jobs (for a deterministic test; a little slower)",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="continue from the output file of an interrupted run (same input and test, as the "
        "record OUTPUT.treereduce.json written beside it says)",
    )
    p.add_argument("--report", type=Path, metavar="FILE", help="write a JSON summary to FILE")
    p.add_argument("--passes", type=_positive_int, help="cap on passes per stage")
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
        "--format",
        metavar="CMD",
        help="formatter for the final result (reads stdin, writes stdout, e.g. "
        "'clang-format'); kept only if still interesting",
    )
    p.add_argument(
        "--list-algorithm",
        choices=("cdd", "ddmin"),
        help="reduce every child list with this algorithm (default: the preset's; for comparisons)",
    )
    p.add_argument(
        "--cdd-p0",
        type=_probability,
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
    p.add_argument("--max-time", type=_positive_float, metavar="SECS", help="time budget")
    p.add_argument("--max-tests", type=_positive_int, metavar="N", help="test budget")
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
    return p


def add_cluster_options(p: argparse.ArgumentParser) -> None:
    """--cluster and --cluster-upload (docs/cluster.md)."""
    p.add_argument(
        "--cluster",
        metavar="ADDR",
        help="run the tests on a Dask cluster: tcp://HOST:PORT of a scheduler, or local:N to "
        "start N worker processes here (-j: tests in flight; default: the workers' threads)",
    )
    p.add_argument(
        "--cluster-upload",
        type=Path,
        action="append",
        default=[],
        metavar="PATH",
        help="a file the test needs, shipped to every worker (repeatable; see docs/cluster.md)",
    )


def add_signature_options(p: argparse.ArgumentParser) -> None:
    """--signature-frames and --signature-regex: how a crash's signature is made."""
    p.add_argument(
        "--signature-frames",
        type=_positive_int,
        default=DEFAULT_FRAMES,
        metavar="N",
        help="crash signature: the crash type and its top N stack frames (default %(default)s)",
    )
    p.add_argument(
        "--signature-regex",
        metavar="RE",
        help="crash signature: the first match of RE in the output, or its first group "
        "(implies --same-crash)",
    )


def open_cluster(args: argparse.Namespace) -> cluster.Cluster | None:
    """Connect to --cluster (None without it); --cluster-upload alone is a usage error."""
    if args.cluster is None:
        if args.cluster_upload:
            raise UsageError("--cluster-upload needs --cluster")
        return None
    conn = cluster.connect(args.cluster, jobs=args.jobs)
    # Our own one-line messages say what went wrong; distributed's log lines would bury them.
    for name in list(logging.root.manager.loggerDict):
        if name.split(".")[0] == "distributed":
            logging.getLogger(name).setLevel(logging.CRITICAL)
    if args.jobs is None:
        args.jobs = conn.threads()
    return conn


def main(argv: Sequence[str] | None = None) -> int:
    started = time.monotonic()
    _sigterm_as_interrupt()  # from the start, so an early SIGTERM also ends with exit 130
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["batch"]:
        return batch_main(args_list[1:])
    parser = build_parser()
    if "--" in args_list:
        cut = args_list.index("--")
        options, command = args_list[:cut], args_list[cut + 1 :]
    else:
        options, command = args_list, []
    args, extra = parser.parse_known_args(options)
    if not command:
        hint = f" (found {' '.join(extra)!r} before it)" if extra else ""
        parser.error(
            f"missing the test command: put it after '--' (INPUT -- COMMAND [ARG...]){hint}"
        )
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    mode: ui.Mode = "json" if args.json else "quiet" if args.quiet else "auto"
    if mode == "auto" and args.output == "-" and not ui.is_interactive(sys.stderr):
        mode = "json"  # an editor or a pipeline reading the result: progress it can parse
    preview = _Preview()
    reporter = ui.make_reporter(
        mode=mode,
        stream=sys.stderr,
        verbose=args.verbose,
        show_best=preview.read if args.show_best else None,
    )
    try:
        return _run(args, command, reporter, preview)
    except UsageError as e:
        reporter(events.Failure(str(e), 2))
        reporter.close()
        return 2
    except KeyboardInterrupt:
        # Before _run's own handler is in place (reading the input, choosing the language and the
        # output, setting up the oracle) or after it (cleaning up).
        output = preview.output
        if output is not None and output.exists():
            where = f"the best result so far is in {output}"
        else:
            where = "no result was written"
        elapsed = time.monotonic() - started
        reporter(events.Failure(f"interrupted after {elapsed:.1f} s; {where}", 130))
        reporter.close()
        return 130


def build_batch_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="treereduce-py batch",
        usage="treereduce-py batch [-o OUTDIR] [options] INPUT... -- COMMAND [ARG...]",
        description="Run COMMAND on every INPUT (files, folders, globs), group the crashing "
        "ones by crash signature, and reduce the smallest input of each group (--same-crash). "
        "Writes OUTDIR/<signature>.<ext>, summary.json and summary.md. By default COMMAND is "
        "the program under test (--test-mode crash): a non-zero exit or a crash message is the "
        "crash, so pass the crashing program itself (e.g. `-- ./fuzz_target @@`). With "
        "--test-mode interesting, COMMAND is a test that exits 0 while the input still shows "
        "its crash, as for a single reduction. Without @@ the input is COMMAND's stdin.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("inputs", nargs="+", metavar="INPUT")
    p.add_argument("-o", "--outdir", type=Path, default=Path("reduced"), help="default: reduced")
    p.add_argument(
        "--test-mode",
        choices=batch.TEST_MODES,
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
    p.add_argument("-j", "--jobs", type=_positive_int, help="tests in flight, over all groups")
    p.add_argument("--timeout", type=_positive_float, help="seconds per test (default: adaptive)")
    p.add_argument("--max-time", type=_positive_float, metavar="SECS", help="per reduction")
    p.add_argument("--strategy", choices=sorted(STRATEGIES), default=DEFAULT_STRATEGY)
    p.add_argument("--fast", action="store_true", help="one pass per stage, no polishing")
    p.add_argument("--resume", action="store_true", help="skip groups already reduced in OUTDIR")
    add_cluster_options(p)
    add_signature_options(p)
    out = p.add_mutually_exclusive_group()
    out.add_argument("-q", "--quiet", action="store_true", help="print only warnings and errors")
    out.add_argument("--json", action="store_true", help="JSON event lines on stderr")
    return p


def batch_main(args_list: list[str]) -> int:
    """`treereduce-py batch`: see batch.py."""
    if "--" not in args_list:
        if {"-h", "--help"} & set(args_list):
            build_batch_parser().parse_args(["-h"])
        build_batch_parser().error("missing the test command: put it after '--'")
    cut = args_list.index("--")
    args = build_batch_parser().parse_args(args_list[:cut])
    command = args_list[cut + 1 :]
    mode: ui.Mode = "json" if args.json else "quiet" if args.quiet else "auto"
    reporter = ui.make_batch_reporter(mode)
    conn = None
    try:
        inputs, skipped = batch.expand_inputs(args.inputs, recursive=args.recursive)
        if not command:
            raise UsageError("missing the test command after '--'")
        lang = None if args.lang is None else _language(args.lang, None, b"")
        conn = open_cluster(args)
        jobs = args.jobs or os.cpu_count() or 1

        def make_oracle(name: str, criteria: Criteria) -> CommandOracle:
            if conn is None:
                return CommandOracle(command, criteria, timeout=args.timeout, input_name=name)
            return cluster.ClusterOracle(
                command,
                criteria,
                cluster=conn,
                uploads=args.cluster_upload,
                timeout=args.timeout,
                input_name=name,
            )

        options = ReduceOptions(
            strategy=args.strategy,
            passes=1 if args.fast else None,
            polish=not args.fast,
            timeout=args.timeout,
            max_time=args.max_time,
            command=tuple(command),
            signature_frames=args.signature_frames,
            signature_regex=args.signature_regex,
        )
        run = batch.Batch(
            inputs,
            args.outdir,
            make_oracle,
            jobs=jobs,
            options=options,
            emit=reporter,
            resume=args.resume,
            command=command,
            mode=args.test_mode,
            language=lang,
            same_crash=args.same_crash,
            skipped=skipped,
        )
        groups, _ = run.run()
        code = 8 if any(g.status in ("failed", "skipped") for g in groups) else 0
    except (UsageError, OutputError) as e:
        code = 2
        reporter(events.Failure(str(e), code))
    except (api.ReduceError, OracleStartError) as e:
        code = _exit_code(e)
        reporter(events.Failure(str(e), code))
    except KeyboardInterrupt:
        code = 130
        reporter(events.Failure(f"interrupted; finished groups are in {args.outdir}", code))
    finally:
        if conn is not None:
            conn.close()
    reporter.close()
    return code


def _run(
    args: argparse.Namespace, command: list[str], reporter: ui.Reporter, preview: _Preview
) -> int:
    source, input_path = _read_input(args.input)
    lang = _language(args.lang, input_path, source)
    output = _output_path(args.output, input_path, args.force or args.resume)
    start_from = source
    record = _run_record(args, command, lang, source)
    if args.resume:
        if output is None or not output.exists():
            raise UsageError("--resume needs the output file of an earlier run (-o PATH)")
        _check_record(output, record)
        start_from = output.read_bytes()
    criteria = Criteria(
        exit_codes=frozenset(args.exit_codes or [0]),
        stdout_regex=args.stdout_regex,
        stderr_regex=args.stderr_regex,
        not_stdout_regex=args.not_stdout_regex,
        not_stderr_regex=args.not_stderr_regex,
    )
    input_name = input_path.name if input_path is not None else f"input{_suffix_for(lang)}"
    preview.output, preview.source = output, source
    last = _LastStats(reporter, show_signature=not (args.json or args.quiet))
    if output is not None:
        last.on_checked = lambda: _claim_output(output, record)
    started = time.monotonic()
    report = _Report(args, command, lang, len(source), output)
    code = 1
    try:
        conn = open_cluster(args)
    except api.ReduceError as e:
        reporter(events.Failure(str(e), e.exit_code))
        reporter.close()
        return e.exit_code
    if conn is None:
        oracle = CommandOracle(command, criteria, timeout=args.timeout, input_name=input_name)
    else:
        try:
            oracle = cluster.ClusterOracle(
                command,
                criteria,
                cluster=conn,
                uploads=args.cluster_upload,
                timeout=args.timeout,
                input_name=input_name,
            )
        except api.ReduceError as e:
            conn.close()
            reporter(events.Failure(str(e), e.exit_code))
            reporter.close()
            return e.exit_code
    with contextlib.ExitStack() as closing:
        if conn is not None:
            closing.callback(conn.close)
        closing.enter_context(oracle)
        try:
            result = api.reduce(
                start_from,
                language=lang,
                test=oracle,
                options=_options(args, command, output),
                original_size=len(source),
                progress=last,
                original=source if args.resume else None,
            )
            report.signature = result.signature
            report.reason = result.reason
            code = 0
        except api.NotInteresting as e:
            reporter(_not_interesting(e, command, 40 if args.verbose else 5))
            code = e.exit_code
        except (api.ReduceError, OracleStartError, OutputError, UsageError) as e:
            code = _exit_code(e)
            reporter(events.Failure(_with_best(str(e), e, output), code))
        except KeyboardInterrupt:
            elapsed = time.monotonic() - started
            if output is not None and output.exists():
                where = f"the best result so far is in {output}"
            elif output is not None:
                where = "no result was written yet"
            else:
                where = "the best result so far is lost (output was stdout)"
            code = 130
            reporter(events.Failure(f"interrupted after {elapsed:.1f} s; {where}", code))
            report.reason = "interrupted"
        finally:
            report.signature = report.signature or last.signature  # also when interrupted
            if args.report is not None:
                report.write(args.report, last.stats, code, time.monotonic() - started)
    reporter.close()
    if code != 0:
        return code
    if output is None:
        sys.stdout.buffer.write(result.reduced)
        sys.stdout.buffer.flush()
    return 0


def _options(args: argparse.Namespace, command: list[str], output: Path | None) -> ReduceOptions:
    return ReduceOptions(
        jobs=args.jobs,
        strategy=args.strategy,
        passes=1 if args.fast else args.passes,
        polish=not args.fast,
        syntax=args.syntax,
        timeout=args.timeout,
        max_time=args.max_time,
        max_tests=args.max_tests,
        output=output,
        queries=tuple(args.queries),
        p0=args.cdd_p0,
        list_algorithm=args.list_algorithm,
        deterministic=args.deterministic,
        rename=args.rename,
        slow=args.slow,
        format_command=shlex.split(args.format) if args.format else None,
        same_crash=args.same_crash,
        signature=args.signature,
        signature_frames=args.signature_frames,
        signature_regex=args.signature_regex,
        command=tuple(command),
    )


def _with_best(message: str, e: Exception, output: Path | None) -> str:
    """A lost cluster leaves a result: say where."""
    if isinstance(e, api.ClusterLost) and output is not None and output.exists():
        return f"{message}; the best result so far is in {output}"
    return message


def _exit_code(e: Exception) -> int:
    if isinstance(e, api.ReduceError):
        return e.exit_code
    return 4 if isinstance(e, OracleStartError) else 2


class _LastStats:
    """Passes events on to the reporter and remembers the latest statistics and the crash
    signature (for --report); prints the signature of a --same-crash run (--json has it in the
    start event); calls `on_checked` once, at the first pass, when the original has passed."""

    def __init__(self, reporter: ui.Reporter, show_signature: bool) -> None:
        self.reporter = reporter
        self.show_signature = show_signature
        self.stats: events.Stats | None = None
        self.signature: str | None = None
        self.on_checked: Callable[[], None] | None = None

    def __call__(self, event: events.Event) -> None:
        stats = getattr(event, "stats", None)
        if isinstance(stats, events.Stats):
            self.stats = stats
        if isinstance(event, events.Start):
            self.signature = event.signature
        if isinstance(event, events.PassChange) and self.on_checked is not None:
            on_checked, self.on_checked = self.on_checked, None
            on_checked()
        if isinstance(event, events.Start) and event.signature and self.show_signature:
            print(f"treereduce-py: crash signature: {event.signature}", file=sys.stderr)
        self.reporter(event)


class _Report:
    """The --report JSON summary."""

    def __init__(
        self,
        args: argparse.Namespace,
        command: list[str],
        lang: str,
        original_size: int,
        output: Path | None,
    ) -> None:
        self.args = args
        self.command = command
        self.lang = lang
        self.original_size = original_size
        self.output = output
        self.signature: str | None = None
        self.reason = "error"

    def write(self, path: Path, stats: events.Stats | None, code: int, wall: float) -> None:
        body: dict[str, object] = {
            "tool": "treereduce-py",
            "version": __version__,
            "input": self.args.input,
            "output": str(self.output) if self.output is not None else "-",
            "language": self.lang,
            "strategy": self.args.strategy,
            "jobs": stats.jobs if stats is not None else self.args.jobs,
            "command": self.command,
            "signature": self.signature,
            "exit_code": code,
            "reason": self.reason,
            "original_size": self.original_size,
            "wall_time": round(wall, 3),
        }
        if stats is not None:
            body.update(
                final_size=stats.size,
                reduced_percent=round(100 * stats.reduced_fraction, 2),
                tests=stats.tests,
                interesting=stats.interesting,
                cache_hits=stats.cache_hits,
                syntax_rejections=stats.syntax_rejections,
                commit_retries=stats.commit_retries,
                timeouts=stats.timeouts,
                passes=stats.pass_number,
            )
        write_atomic(path, (json.dumps(body, indent=2) + "\n").encode())


class _Preview:
    """The best so far, for --show-best: read back from the output file (always complete)."""

    def __init__(self) -> None:
        self.output: Path | None = None
        self.source = b""

    def read(self) -> bytes:
        if self.output is not None:
            with contextlib.suppress(OSError):
                return self.output.read_bytes()
        return self.source


def _run_record(
    args: argparse.Namespace, command: list[str], lang: str, source: bytes
) -> dict[str, object]:
    """What makes two runs the same reduction: the input, the language and the test."""
    return {
        "input_sha256": hashlib.sha256(source).hexdigest(),
        "language": lang,
        "command": command,
        "exit_codes": sorted(args.exit_codes or [0]),
        "regexes": [_pattern_text(r) for r in (args.stdout_regex, args.stderr_regex,
                                                args.not_stdout_regex, args.not_stderr_regex)],
        "same_crash": bool(args.same_crash),
    }  # fmt: skip


def _claim_output(output: Path, record: dict[str, object]) -> None:
    """Once the original has passed (an output is sure to follow): make the default output's
    directory and write the run's record, so a run that fails its first test leaves neither."""
    try:
        output.parent.mkdir(exist_ok=True)
    except OSError as e:
        raise OutputError(f"cannot create {output.parent}: {e.strerror or e}") from None
    write_record(output, record)


def _pattern_text(regex: object) -> str | None:
    """A criterion's regex (compiled over bytes by argparse) as text for the record."""
    pattern = getattr(regex, "pattern", regex)
    return pattern.decode("latin-1") if isinstance(pattern, bytes) else pattern  # type: ignore[return-value]


def _check_record(output: Path, record: dict[str, object]) -> None:
    """`--resume` continues only the reduction that wrote `output` (its record says which)."""
    earlier = read_record(output)
    if earlier is None:
        raise UsageError(
            f"--resume: {output} has no record of the run that wrote it "
            f"({record_path(output).name}); run again without --resume"
        )
    if earlier.get("input_sha256") != record["input_sha256"]:
        raise UsageError(f"--resume: {output} was reduced from a different input")
    changed = [k for k in record if k != "input_sha256" and earlier.get(k) != record[k]]
    if changed:
        raise UsageError(
            f"--resume: {output} was reduced with a different {', '.join(changed)}; "
            "resume with the same test, or run again without --resume"
        )


def _read_input(name: str) -> tuple[bytes, Path | None]:
    if name == "-":
        return _read_stream(sys.stdin.fileno()), None
    path = Path(name)
    try:
        if not path.is_fifo():
            return path.read_bytes(), path
        fd = os.open(path, os.O_RDONLY)
        try:
            return _read_stream(fd), path
        finally:
            os.close(fd)
    except FileNotFoundError:
        raise UsageError(f"no such file: {name}") from None
    except IsADirectoryError:
        raise UsageError(f"is a directory, not a file: {name}") from None
    except OSError as e:
        raise UsageError(f"cannot read {name}: {e.strerror}") from None


def _read_stream(fd: int) -> bytes:
    """Everything from a pipe or terminal, waiting in short polls: a signal that lands just
    before a blocking read() would wait for the writer; between polls it is handled at once."""
    chunks: list[bytes] = []
    while True:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if not ready:
            continue
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _language(name: str | None, path: Path | None, data: bytes) -> str:
    try:
        if name is not None:
            return languages.canonical(name)
    except languages.UnknownLanguage as e:
        raise UsageError(str(e)) from None
    return languages.detect_kind(path, data)


def _output_path(option: str | None, input_path: Path | None, force: bool) -> Path | None:
    if option == "-" or (option is None and input_path is None):
        return None
    assert option is not None or input_path is not None
    path = Path(option) if option is not None else default_output_path(input_path)  # type: ignore[arg-type]
    if input_path is not None and path.exists() and path.resolve() == input_path.resolve():
        raise UsageError(f"the output {path} is the input: the input is never overwritten")
    if path.exists() and not force:
        raise UsageError(f"{path} exists: pass --force to overwrite it, or -o another path")
    if path.is_dir():
        raise UsageError(f"the output {path} is a directory")
    # The default output's directory (reduced/) is made once the original passes.
    directory = path.parent.parent if option is None else path.parent
    if not directory.exists():
        raise UsageError(f"the output's directory does not exist: {directory}")
    if option is None and path.parent.exists() and not path.parent.is_dir():
        raise UsageError(f"cannot put the result in {path.parent}/: it is not a directory")
    return path


def _suffix_for(lang: str) -> str:
    return {"c": ".c", "cpp": ".cpp", "rust": ".rs", "python": ".py", "javascript": ".js"}.get(
        lang, ""
    )


def _not_interesting(e: api.NotInteresting, command: list[str], lines: int) -> events.Failure:
    """The failure of an original that does not pass: its status, the criteria it fails, and
    the last `lines` lines of its stderr (-v shows more)."""
    v = e.verdict
    status = "timed out" if v.timed_out else f"exited with {v.exit_code}"
    if e.reasons:
        status += f" ({'; '.join(e.reasons)})"
    tail = v.stderr.decode(errors="replace").rstrip().splitlines()[-lines:]
    if isinstance(e, ResumedNotInteresting):
        what, advice = str(e), "run again without --resume"
    else:
        what, advice = (
            "the original input is not interesting",
            "fix the test so it passes on the input",
        )
    return events.Failure(
        f"{what}: `{shlex.join(command)}` {status}; {advice}",
        e.exit_code,
        tuple(f"stderr: {line}" for line in tail),
    )


def _sigterm_as_interrupt() -> None:
    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    if os.name == "posix":
        signal.signal(signal.SIGTERM, handler)


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError("must be positive")
    return value


def _probability(text: str) -> float:
    value = float(text)
    if not (math.isfinite(value) and 0.0 < value < 1.0):  # cdd.CDD's rule for p0
        raise argparse.ArgumentTypeError(f"must lie strictly between 0 and 1, not {text}")
    return value


def _regex(text: str) -> re.Pattern[bytes]:
    try:
        return re.compile(text.encode(), re.MULTILINE)
    except re.error as e:
        raise argparse.ArgumentTypeError(f"bad regular expression {text!r}: {e}") from None


if __name__ == "__main__":
    sys.exit(main())
