"""The command line: `treereduce-py [options] INPUT -- COMMAND [ARG...]`, a thin layer over `api`.

It turns arguments into an oracle, an output path and a reporter, calls `api.reduce`, and maps
every failure to a one-line message and a distinct exit code (see exit_codes.EXIT_CODES).
`treereduce-py batch ...` is handed to batch_cli.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from treereduce_py import events
from treereduce_py.engine.output import OutputError
from treereduce_py.front import ui
from treereduce_py.front.batch_cli import batch_main
from treereduce_py.front.cluster_options import open_cluster
from treereduce_py.front.exit_codes import EXIT_CODES, UsageError, exit_code
from treereduce_py.front.inputs import language, output_path, read_input, suffix_for
from treereduce_py.front.options_parser import build_batch_parser, build_parser
from treereduce_py.front.report import Report
from treereduce_py.front.run_record import check_record, claim_output, run_record
from treereduce_py.judge import cluster
from treereduce_py.judge.errors import ResumedNotInteresting
from treereduce_py.judge.oracle import CommandOracle, Criteria, OracleStartError
from treereduce_py.run import api
from treereduce_py.run.options import ReduceOptions

__all__ = ["EXIT_CODES", "build_batch_parser", "build_parser", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line `argv` (default: sys.argv[1:]); the exit code."""
    started = time.monotonic()
    _sigterm_as_interrupt()  # from the start, so an early SIGTERM also ends with exit 130
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["batch"]:
        return batch_main(args_list[1:])
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


def _parse(args_list: list[str]) -> tuple[argparse.Namespace, list[str]]:
    """The options and the test command (after `--`); a usage error (exit 2) for either."""
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
    return args, command


@dataclass(frozen=True)
class _Plan:
    """What a run starts from, once the input, language and output are settled."""

    source: bytes  # the input as read
    start_from: bytes  # what the reduction starts from: the input, or a resumed output
    lang: str
    output: Path | None  # None: standard output
    input_name: str  # the name the test sees the candidate under
    record: dict[str, object]  # written beside the output once the original has passed


def _plan(args: argparse.Namespace, command: list[str]) -> _Plan:
    """Read the input, settle the language and the output, and check a --resume."""
    source, input_path = read_input(args.input)
    lang = language(args.lang, input_path, source)
    output = output_path(args.output, input_path, args.force or args.resume)
    start_from = source
    record = run_record(args, command, lang, source)
    if args.resume:
        if output is None or not output.exists():
            raise UsageError("--resume needs the output file of an earlier run (-o PATH)")
        check_record(output, record)
        start_from = output.read_bytes()
    input_name = input_path.name if input_path is not None else f"input{suffix_for(lang)}"
    return _Plan(source, start_from, lang, output, input_name, record)


def _run(
    args: argparse.Namespace, command: list[str], reporter: ui.Reporter, preview: _Preview
) -> int:
    plan = _plan(args, command)
    preview.output, preview.source = plan.output, plan.source
    started = time.monotonic()
    try:
        oracle, conn = _open_oracle(args, command, plan.input_name)
    except api.ReduceError as e:
        reporter(events.Failure(str(e), e.exit_code))
        reporter.close()
        return e.exit_code
    with contextlib.ExitStack() as closing:
        if conn is not None:
            closing.callback(conn.close)
        closing.enter_context(oracle)
        code, result = _reduce(args, command, plan, oracle, reporter, started)
    reporter.close()
    if code != 0:
        return code
    assert result is not None
    if plan.output is None:
        sys.stdout.buffer.write(result.reduced)
        sys.stdout.buffer.flush()
    return 0


def _open_oracle(
    args: argparse.Namespace, command: list[str], input_name: str
) -> tuple[CommandOracle, cluster.Cluster | None]:
    """The test command as an oracle, on the --cluster when there is one (then also the
    connection, for the caller to close); raises ReduceError when the cluster cannot be used."""
    criteria = Criteria(
        exit_codes=frozenset(args.exit_codes or [0]),
        stdout_regex=args.stdout_regex,
        stderr_regex=args.stderr_regex,
        not_stdout_regex=args.not_stdout_regex,
        not_stderr_regex=args.not_stderr_regex,
    )
    conn = open_cluster(args)
    if conn is None:
        oracle = CommandOracle(command, criteria, timeout=args.timeout, input_name=input_name)
        return oracle, None
    try:
        oracle = cluster.ClusterOracle(
            command,
            criteria,
            cluster=conn,
            uploads=args.cluster_upload,
            timeout=args.timeout,
            input_name=input_name,
        )
    except api.ReduceError:
        conn.close()
        raise
    return oracle, conn


def _reduce(
    args: argparse.Namespace,
    command: list[str],
    plan: _Plan,
    oracle: CommandOracle,
    reporter: ui.Reporter,
    started: float,
) -> tuple[int, api.Result | None]:
    """Run the reduction; its exit code and result (None unless it succeeded), every failure
    reported in one line, and the --report written whatever the outcome (`started`: the
    monotonic clock when the run began, for its wall time)."""
    last = _LastStats(reporter, show_signature=not (args.json or args.quiet))
    output, record = plan.output, plan.record
    if output is not None:
        last.on_checked = lambda: claim_output(output, record)
    report = Report(args, command, plan.lang, len(plan.source), plan.output)
    code, result = 1, None
    try:
        result = api.reduce(
            plan.start_from,
            language=plan.lang,
            test=oracle,
            options=_options(args, command, plan.output),
            original_size=len(plan.source),
            progress=last,
            original=plan.source if args.resume else None,
        )
        report.signature = result.signature
        report.reason = result.reason
        code = 0
    except api.NotInteresting as e:
        reporter(_not_interesting(e, command, 40 if args.verbose else 5))
        code = e.exit_code
    except (api.ReduceError, OracleStartError, OutputError, UsageError) as e:
        code = exit_code(e)
        reporter(events.Failure(_with_best(str(e), e, plan.output), code))
    except KeyboardInterrupt:
        code = 130
        reporter(_interrupted(time.monotonic() - started, plan.output))
        report.reason = "interrupted"
    finally:
        report.signature = report.signature or last.signature  # also when interrupted
        if args.report is not None:
            report.write(args.report, last.stats, code, time.monotonic() - started)
    return code, result


def _interrupted(elapsed: float, output: Path | None) -> events.Failure:
    """The message of a run interrupted during the reduction: where its best result is."""
    if output is not None and output.exists():
        where = f"the best result so far is in {output}"
    elif output is not None:
        where = "no result was written yet"
    else:
        where = "the best result so far is lost (output was stdout)"
    return events.Failure(f"interrupted after {elapsed:.1f} s; {where}", 130)


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


if __name__ == "__main__":
    sys.exit(main())
