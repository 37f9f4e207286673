"""The command line: `treereduce-py [options] INPUT... -- COMMAND [ARG...]`, a thin layer over
`api`.

It checks every option before the first test (validate.py), claims the output (destination.py),
turns the arguments into an oracle and a reporter, calls `api.reduce`, and maps every failure to
a one-line message and a distinct exit code (exit_codes.EXIT_CODES); a bug gets one line and a
saved traceback (internal_error.py). `treereduce-py batch ...` is handed to batch_cli.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import shlex
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from treereduce_py import events
from treereduce_py.engine.output import OutputError
from treereduce_py.front import ui
from treereduce_py.front.batch_cli import batch_main
from treereduce_py.front.cluster_options import cluster_oracle, open_cluster
from treereduce_py.front.destination import Destination
from treereduce_py.front.directory_cli import is_directory_input, run_directory
from treereduce_py.front.exit_codes import EXIT_CODES, UsageError, exit_code
from treereduce_py.front.inputs import language, output_path, read_input, suffix_for
from treereduce_py.front.internal_error import (
    INTERNAL_ERROR,
    ThreadFailures,
    describe,
    watching_threads,
)
from treereduce_py.front.options_parser import build_batch_parser, build_parser
from treereduce_py.front.report import Report
from treereduce_py.front.run_record import check_record, run_record
from treereduce_py.front.validate import capped_jobs, check_run
from treereduce_py.front.view import not_interesting
from treereduce_py.judge import cluster
from treereduce_py.judge.oracle import CommandOracle, Criteria, OracleStartError
from treereduce_py.run import api
from treereduce_py.run.options import ReduceOptions

__all__ = ["EXIT_CODES", "build_batch_parser", "build_parser", "main"]

# A result this small after a larger input means the test accepts (almost) anything.
TRIVIAL_SIZE = 1


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line `argv` (default: sys.argv[1:]); the exit code."""
    _sigterm_as_interrupt()  # from the start, so an early SIGTERM also ends with exit 130
    args_list = list(sys.argv[1:] if argv is None else argv)
    with watching_threads() as threads:
        try:
            if args_list[:1] == ["batch"]:
                return batch_main(args_list[1:], threads)
            return _main(args_list, threads)
        except BrokenPipeError:  # `--list-languages | head`: the reader had what it wanted
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
        except Exception as e:  # a bug, not the user's doing: one line and a saved traceback
            print(f"treereduce-py: error: {describe(e)}", file=sys.stderr)
            return INTERNAL_ERROR


def _main(args_list: list[str], threads: ThreadFailures) -> int:
    started = time.monotonic()
    args, command = _parse(args_list)
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
        code, where = _run(args, command, reporter, preview, threads)
    except (UsageError, OutputError) as e:  # OutputError: the output is another run's
        code, where = 2, None
        reporter(events.Failure(str(e), 2))
    except KeyboardInterrupt:
        # Before _run's own handler is in place (reading the input, choosing the language and the
        # output, setting up the oracle) or after it (cleaning up).
        code, where = 130, None
        reporter(_interrupted(time.monotonic() - started, preview.destination, threads))
    except Exception as e:
        code, where = INTERNAL_ERROR, None
        reporter(events.Failure(describe(e), INTERNAL_ERROR))
    reporter.close()
    if where is not None and mode == "auto":
        print(f"treereduce-py: {where}", file=sys.stderr)
    return code


def _parse(args_list: list[str]) -> tuple[argparse.Namespace, list[str]]:
    """The options and the test command (after `--`); a usage error (exit 2) for either."""
    parser = build_parser()
    if "--" in args_list:
        cut = args_list.index("--")
        options, command = args_list[:cut], args_list[cut + 1 :]
    else:
        options, command = args_list, []
    args, extra = parser.parse_known_intermixed_args(options)  # FILE -j 2 FILE -- ...
    args.input = args.inputs[0]
    if not command:
        stray = [*args.inputs[1:], *extra]  # `crash.c gcc @@`: the command, without `--`
        hint = f" (found {' '.join(stray)!r} before it)" if stray else ""
        parser.error(
            f"missing the test command: put it after '--' (INPUT... -- COMMAND [ARG...]){hint}"
        )
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return args, command


@dataclass(frozen=True)
class _Plan:
    """What a run starts from, once the input, language and options are checked."""

    source: bytes  # the input as read
    input_path: Path | None  # None: standard input
    lang: str
    output: Path | None  # None: standard output
    input_name: str  # the name the test sees the candidate under
    start_from: bytes  # what the reduction starts from: the input, or a resumed output


def _plan(args: argparse.Namespace, command: list[str], reporter: ui.Reporter) -> _Plan:
    """Read the input and settle its language; check every option that needs them (a note
    when -j is capped). Nothing is written yet."""
    source, input_path = read_input(args.input)
    lang = language(args.lang, input_path, source)
    output = output_path(args.output, input_path)
    check_run(
        lang=lang, input_path=input_path, output=output, report=args.report, queries=args.queries
    )
    args.jobs, note = capped_jobs(args.jobs, on_cluster=args.cluster is not None)
    if note is not None:
        reporter(events.Notice(note))
    input_name = input_path.name if input_path is not None else f"input{suffix_for(lang)}"
    return _Plan(source, input_path, lang, output, input_name, start_from=source)


def _claim(args: argparse.Namespace, command: list[str], plan: _Plan) -> tuple[Destination, _Plan]:
    """Claim the output, check a --resume against its record (the plan then starts from the
    output), and write the run's record beside it."""
    output = plan.output
    destination = Destination.claim(
        output,
        plan.input_path,
        force=args.force,
        resume=args.resume,
        default=args.output is None,
    )
    try:
        record = run_record(args, command, plan.lang, plan.source)
        if args.resume:
            if output is None or not output.exists():
                raise UsageError("--resume needs the output file of an earlier run (-o PATH)")
            check_record(output, record)
            plan = dataclasses.replace(plan, start_from=output.read_bytes())
        destination.write_record(record)
    except BaseException:
        destination.close()
        raise
    return destination, plan


def _run(
    args: argparse.Namespace,
    command: list[str],
    reporter: ui.Reporter,
    preview: _Preview,
    threads: ThreadFailures,
) -> tuple[int, str | None]:
    """The run after parsing: its exit code, and on success the line saying where the result
    is (for the modes that print one)."""
    if is_directory_input(args) or len(args.inputs) > 1:
        args.jobs, note = capped_jobs(args.jobs, on_cluster=args.cluster is not None)
        if note is not None:
            reporter(events.Notice(note))
        options = _options(args, command, Path(args.input))
        return run_directory(args, command, options, _criteria(args), reporter)
    if args.keep or args.in_place:
        raise UsageError("--keep and --in-place are for a directory input")
    plan = _plan(args, command, reporter)
    destination, plan = _claim(args, command, plan)
    preview.destination, preview.source = destination, plan.source
    started = time.monotonic()
    result: api.Result | None = None
    try:
        try:
            oracle, conn = _open_oracle(args, command, plan.input_name)
        except api.ReduceError as e:
            reporter(events.Failure(str(e), e.exit_code))
            return e.exit_code, None
        with contextlib.ExitStack() as closing:
            if conn is not None:
                closing.callback(conn.close)
            closing.enter_context(oracle)
            run = _Reduction(args, command, plan, destination, reporter, threads, started)
            code, result = run.reduce(oracle)
    finally:
        destination.close(result.reduced if result is not None else None)
    if result is None:
        return code, None
    if result.size <= TRIVIAL_SIZE < len(plan.source):
        reporter(events.Notice(_trivial(result.size, command)))
    return code, _written(destination, result.size)


def _open_oracle(
    args: argparse.Namespace, command: list[str], input_name: str
) -> tuple[CommandOracle, cluster.Cluster | None]:
    """The test command as an oracle, on the --cluster when there is one (then also the
    connection, for the caller to close); raises ReduceError when the cluster cannot be used."""
    criteria = _criteria(args)
    conn = open_cluster(args)
    if conn is None:
        oracle = CommandOracle(command, criteria, timeout=args.timeout, input_name=input_name)
        return oracle, None
    try:
        oracle = cluster_oracle(args, command, criteria, conn, name=input_name)
    except api.ReduceError:
        conn.close()
        raise
    return oracle, conn


def _criteria(args: argparse.Namespace) -> Criteria:
    return Criteria(
        exit_codes=frozenset(args.exit_codes or [0]),
        stdout_regex=args.stdout_regex,
        stderr_regex=args.stderr_regex,
        not_stdout_regex=args.not_stdout_regex,
        not_stderr_regex=args.not_stderr_regex,
    )


@dataclass(frozen=True)
class _Reduction:
    """The reduction itself, with what it reports to and where its result goes."""

    args: argparse.Namespace
    command: list[str]
    plan: _Plan
    destination: Destination
    reporter: ui.Reporter
    threads: ThreadFailures
    started: float  # the monotonic clock when the run began, for its wall time

    def reduce(self, oracle: CommandOracle) -> tuple[int, api.Result | None]:
        """Run it; its exit code and result (None unless it succeeded), every failure
        reported in one line, and the --report written whatever the outcome."""
        args, plan, reporter = self.args, self.plan, self.reporter
        last = _LastStats(reporter, show_signature=not (args.json or args.quiet))
        output = self.destination.output
        report = Report(args, self.command, plan.lang, len(plan.source), output)
        code, result = INTERNAL_ERROR, None
        try:
            result = api.reduce(
                plan.start_from,
                language=plan.lang,
                test=oracle,
                options=_options(args, self.command, self.destination.path),
                original_size=len(plan.source),
                progress=last,
                original=plan.source if args.resume else None,
            )
            report.signature, report.reason, code = result.signature, result.reason, 0
        except api.NotInteresting as e:
            code = e.exit_code
            reporter(not_interesting(e, self.command, 40 if args.verbose else 5))
        except (api.ReduceError, OracleStartError, OutputError, UsageError) as e:
            code = exit_code(e)
            reporter(events.Failure(_with_best(str(e), e, self.destination), code))
        except KeyboardInterrupt:
            failure = _interrupted(self.elapsed(), self.destination, self.threads)
            code, report.reason = failure.exit_code, _reason(failure.exit_code)
            reporter(failure)
        except Exception as e:
            code = INTERNAL_ERROR
            reporter(events.Failure(_with_best(describe(e), e, self.destination), code))
        finally:
            if args.report is not None:
                report.signature = report.signature or last.signature
                report.write(args.report, last.stats, code, self.elapsed())
        return code, result

    def elapsed(self) -> float:
        return time.monotonic() - self.started


def _reason(code: int) -> str:
    return "interrupted" if code == 130 else "error"


def _interrupted(
    elapsed: float, destination: Destination | None, threads: ThreadFailures
) -> events.Failure:
    """The message of a run stopped by Ctrl-C or SIGTERM, or by another thread's internal error
    (which interrupts the main thread): where its best result is."""
    best = _where_best(destination)
    if threads.failure is not None:
        message = describe(threads.failure)
        return events.Failure(f"{message}; {best}" if best else message, INTERNAL_ERROR)
    if best is None:
        best = "no result was written yet" if destination is not None else "no result was written"
    return events.Failure(f"interrupted after {elapsed:.1f} s; {best}", 130)


def _where_best(destination: Destination | None) -> str | None:
    """Where the best result so far is, if the run wrote one."""
    if destination is None or not destination.has_result():
        return None
    if destination.output is None:
        return "the best result so far goes to standard output"
    return f"the best result so far is in {destination.output}"


def _with_best(message: str, e: Exception, destination: Destination) -> str:
    """A lost cluster or an internal error leaves a result: say where."""
    best = _where_best(destination)
    if best is not None and not isinstance(e, (api.FlakyTest, api.NotInteresting)):
        return f"{message}; {best}"
    return message


def _written(destination: Destination, size: int) -> str:
    """The closing line of a successful run: where the result is, and its record."""
    if destination.output is None:
        return f"the result ({size} bytes) went to standard output"
    line = f"the result ({size} bytes) is in {destination.output}"
    if destination.record is not None:
        line += f"; {destination.record} records the run (for --resume)"
    return line


def _trivial(size: int, command: list[str]) -> str:
    """The warning for a result of at most TRIVIAL_SIZE bytes: the test accepts anything."""
    what = "an empty file" if size == 0 else f"a {size}-byte file"
    return (
        f"the test passes on {what}: `{shlex.join(command)}` may not check what you mean "
        "(a test should fail on an input without the problem)"
    )


def _options(args: argparse.Namespace, command: list[str], output: Path) -> ReduceOptions:
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
        members=args.members,
        slow=args.slow,
        format_command=args.format or None,
        same_crash=args.same_crash,
        signature=args.signature,
        signature_frames=args.signature_frames,
        signature_regex=args.signature_regex,
        command=tuple(command),
    )


class _LastStats:
    """Passes events on to the reporter and remembers the latest statistics and the crash
    signature (for --report, also of a run stopped early); prints the signature of a
    --same-crash run (--json has it in the start event)."""

    def __init__(self, reporter: ui.Reporter, show_signature: bool) -> None:
        self.reporter = reporter
        self.show_signature = show_signature
        self.stats: events.Stats | None = None
        self.signature: str | None = None  # announced at the start, for a run that then fails

    def __call__(self, event: events.Event) -> None:
        stats = getattr(event, "stats", None)
        if isinstance(stats, events.Stats):
            self.stats = stats
        if isinstance(event, events.Start) and event.signature:
            self.signature = event.signature
            if self.show_signature:
                print(f"treereduce-py: crash signature: {event.signature}", file=sys.stderr)
        self.reporter(event)


class _Preview:
    """The best so far, for --show-best: read back from the output file (always complete)."""

    def __init__(self) -> None:
        self.destination: Destination | None = None
        self.source = b""

    def read(self) -> bytes:
        if self.destination is not None:
            with contextlib.suppress(OSError):
                return self.destination.path.read_bytes()
        return self.source


def _sigterm_as_interrupt() -> None:
    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    if os.name == "posix":
        signal.signal(signal.SIGTERM, handler)


if __name__ == "__main__":
    sys.exit(main())
