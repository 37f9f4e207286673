"""The library entry point: `reduce(source, language=..., test=...) -> Result`.

It checks that the original is interesting (and times it, to pick a timeout), then runs the
strategy's stages: each stage repeats passes over a freshly parsed table of the current best until
a pass changes nothing. The final result is tested once more before it is returned. Everything the
user sees comes through the event stream; the CLI is a thin layer over this function.
"""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import textwrap
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import tree_sitter

from treereduce_py import events, languages
from treereduce_py.cdd import DEFAULT_P0
from treereduce_py.engine import Budget, Counters, Engine, Judge, Stopped
from treereduce_py.oracle import CallableOracle, CommandOracle, Oracle, Verdict
from treereduce_py.output import BestSoFar
from treereduce_py.strategies import (
    DEFAULT_STRATEGY,
    POLISH_STAGES,
    RENAME_STAGE,
    STRATEGIES,
    ScheduleName,
    Stage,
    SyntaxFacts,
)
from treereduce_py.syntax import NodeTable


class ReduceError(Exception):
    """Base of the errors `reduce` raises; `exit_code` is what the CLI exits with."""

    exit_code = 1


class NotInteresting(ReduceError):
    """The original input does not pass the test: nothing to reduce."""

    exit_code = 3

    def __init__(self, verdict: Verdict) -> None:
        super().__init__("the original input is not interesting")
        self.verdict = verdict


class FlakyTest(ReduceError):
    """The final result, which passed the test before, failed it on the re-test."""

    exit_code = 5


@dataclass(frozen=True)
class Result:
    """The reduced bytes and what it took to get them."""

    reduced: bytes
    original_size: int
    stats: events.Stats
    reason: str  # "fixpoint", "max-time", "max-tests"

    @property
    def size(self) -> int:
        return len(self.reduced)


Test = Callable[[bytes], bool] | Oracle


def reduce(
    source: bytes,
    *,
    language: str,
    test: Test,
    jobs: int | None = None,
    strategy: str = DEFAULT_STRATEGY,
    passes: int | None = None,
    polish: bool = True,
    syntax: str = "strict",
    timeout: float | None = None,
    max_time: float | None = None,
    max_tests: int | None = None,
    output: Path | None = None,
    queries: Sequence[Path] = (),
    p0: float = DEFAULT_P0,
    list_algorithm: ScheduleName | None = None,
    deterministic: bool = False,
    rename: bool = False,
    slow: bool = False,
    format_command: Sequence[str] | None = None,
    original_size: int | None = None,
    command: Sequence[str] = (),
    signature: str | None = None,
    progress: events.EventSink | None = None,
) -> Result:
    """Reduce `source` while `test` stays true.

    `test` is a predicate on candidate bytes or an `Oracle` (see oracle.py). `jobs` worker
    threads run tests in parallel (default: the number of CPUs); with `deterministic` the result
    is the same at any `jobs` for a deterministic test. `polish` adds the line, token and
    whitespace passes; `rename` tries short identifier names; `slow` repeats every stage until a
    whole round changes nothing; `list_algorithm` ("cdd" or "ddmin") overrides every stage's
    list reduction, for comparisons; `format_command` (argv, the candidate on stdin, the formatted
    text on stdout) formats the final result, kept only if still interesting. `output`, when
    given, always holds the best result so far, written atomically. `timeout` applies to a
    `CommandOracle`; None picks one from the first run (10x its time, at least 1 s).

    Raises NotInteresting when the original fails the test, FlakyTest when the final result
    fails its re-test, languages.UnknownLanguage for an unknown language, KeyError for an
    unknown strategy, and oracle.OracleStartError when the test command cannot be started.
    A KeyboardInterrupt stops every test and propagates after the best is on disk.
    """
    lang = languages.canonical(language)
    chosen = STRATEGIES[strategy]
    oracle = test if isinstance(test, (CommandOracle, CallableOracle)) else _as_oracle(test)
    jobs = jobs or os.cpu_count() or 1
    emit: events.EventSink = progress or (lambda _e: None)
    started = time.monotonic()
    cpu_started = time.process_time()
    counters = Counters()

    original = original_size if original_size is not None else len(source)
    emit(events.Start(original, lang, jobs, strategy, tuple(command), signature))
    first = oracle.check(source, 0, capture=True)
    counters.tests += 1
    if not first.interesting:
        raise NotInteresting(first)
    counters.interesting += 1
    if isinstance(oracle, CommandOracle) and oracle.timeout is None:
        oracle.timeout = timeout if timeout is not None else max(1.0, 10 * first.seconds)

    deadline = started + max_time if max_time is not None else None
    judge = Judge(
        oracle,
        lang,
        syntax_strict=(syntax == "strict"),
        budget=Budget(max_tests, deadline),
        counters=counters,
    )
    original_errors = judge.parse_errors(source)
    judge.max_errors = original_errors
    if original_errors:
        emit(
            events.Notice(
                f"the input does not parse cleanly as {lang} ({original_errors} syntax "
                f"error{'' if original_errors == 1 else 's'}); "
                "reducing it anyway",
                elapsed=time.monotonic() - started,
            )
        )
    best = BestSoFar(output, source)
    phase = ""
    pass_number = 0

    def stats() -> events.Stats:
        now = time.monotonic()
        running = tuple(now - t for t in list(judge.running.values()))
        c = counters
        return events.Stats(
            original_size=original,
            size=len(best.data),
            tests=c.tests,
            interesting=c.interesting,
            cache_hits=judge.cache.hits,
            syntax_rejections=c.syntax_rejections,
            commit_retries=c.commit_retries,
            timeouts=c.timeouts,
            busy=len(running),
            jobs=jobs,
            pass_number=pass_number,
            phase=phase,
            elapsed=now - started,
            running=running,
            test_seconds=c.test_seconds,
            cpu_seconds=time.process_time() - cpu_started,
        )

    engine = Engine(judge, best, jobs, emit, stats)
    # The budget ends running tests too: stop within moments of the deadline, not a test later.
    timer = None
    if max_time is not None:
        timer = threading.Timer(
            max(0.0, max_time - (time.monotonic() - started)), judge.stop, ("max-time",)
        )
        timer.daemon = True
        timer.start()
    stages = chosen.stages + (POLISH_STAGES if polish else ()) + ((RENAME_STAGE,) if rename else ())
    if list_algorithm is not None:  # for comparisons: every list reduced with this algorithm
        stages = tuple(dataclasses.replace(s, schedule=list_algorithm) for s in stages)
    reason = "fixpoint"
    try:
        while True:
            size_before_round = len(best.data)
            for stage in stages:
                phase = stage.name
                stage_passes = 0
                while passes is None or stage_passes < passes:
                    pass_number += 1
                    stage_passes += 1
                    emit(
                        events.PassChange(
                            pass_number, phase, len(best.data), elapsed=time.monotonic() - started
                        )
                    )
                    table, facts = _prepare(stage, best.data, lang, queries)
                    # Never accept more parse errors than the current best has.
                    judge.max_errors = judge.parse_errors(best.data)
                    if not engine.run_pass(table, stage.planner(table, facts, p0), deterministic):
                        break
            if not slow or len(best.data) >= size_before_round:
                break
        if polish:
            phase = "whitespace"
            _tidy(best, judge)
        if format_command:
            phase = "format"
            _format(best, judge, format_command, emit)
    except Stopped as stop:
        reason = stop.reason
        oracle.resume()
    except BaseException:
        best.flush()
        raise
    finally:
        if timer is not None:
            timer.cancel()

    if isinstance(oracle, CommandOracle):
        oracle.timeout = oracle.timeout and oracle.timeout * 2  # a loaded machine must not fail it
    final = oracle.check(best.data, 0)
    counters.tests += 1
    if not final.interesting:
        best.flush()
        raise FlakyTest(
            "the final result passed the test before but fails it now: is the test "
            "deterministic? (the last result that passed is kept)"
        )
    best.flush()
    result = Result(best.data, original, stats(), reason)
    emit(events.Done(result.stats, reason, elapsed=time.monotonic() - started))
    return result


def _as_oracle(test: Test) -> Oracle:
    if callable(test) and not hasattr(test, "check"):
        return CallableOracle(test)
    return test  # type: ignore[return-value]  # any object with the Oracle methods


def _prepare(
    stage: Stage, text: bytes, lang: str, queries: Sequence[Path]
) -> tuple[NodeTable, SyntaxFacts]:
    if stage.table == "lines":
        return NodeTable.from_lines(text), SyntaxFacts()
    if stage.table == "tokens":
        return NodeTable.from_tokens(text), SyntaxFacts()
    parser = languages.new_parser(lang)
    tree = parser.parse(text)
    table = NodeTable.from_tree(text, tree)
    hints: list[tuple[int, int, int, bytes]] = []
    if stage.replace:
        hints = _hints(lang, tree, queries)
    return table, SyntaxFacts.build(table, languages.get_language(lang), hints)


def _hints(
    lang: str, tree: tree_sitter.Tree, queries: Sequence[Path]
) -> list[tuple[int, int, int, bytes]]:
    from treereduce_py.hints import load_hints

    hints = load_hints(lang, languages.get_language(lang), tuple(queries))
    return [(r.start, r.end, r.kind_id, r.text) for r in hints.replacements(tree)]


_BLANK_RUNS = re.compile(rb"\n[ \t]*\n(?:[ \t]*\n)+")
_TRAILING = re.compile(rb"[ \t]+(?=\r?\n|$)")


def tidy_whitespace(text: bytes) -> bytes:
    """Trailing spaces removed, runs of blank lines collapsed to one, leading blank lines gone."""
    text = _TRAILING.sub(b"", text)
    text = _BLANK_RUNS.sub(b"\n\n", text)
    return text.lstrip(b"\r\n")


def _tidy(best: BestSoFar, judge: Judge) -> None:
    """Whitespace normalization, then a dedent of the common indentation, each kept only if
    the test still passes."""
    for tidy in (tidy_whitespace, _dedent):
        candidate = tidy(best.data)
        if len(candidate) < len(best.data) and judge(candidate, 0):
            best.offer(candidate)


def _dedent(text: bytes) -> bytes:
    try:
        return textwrap.dedent(text.decode()).encode()
    except UnicodeDecodeError:
        return text


def _format(best: BestSoFar, judge: Judge, command: Sequence[str], emit: events.EventSink) -> None:
    """Run the user's formatter on the result; keep its output if the test still passes."""
    try:
        done = subprocess.run(
            list(command), input=best.data, capture_output=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        emit(events.Notice(f"--format command failed: {e}"))
        return
    if done.returncode != 0 or not done.stdout:
        emit(events.Notice(f"--format command exited with {done.returncode}; result kept as is"))
        return
    if done.stdout != best.data and judge(done.stdout, 0):
        best.offer(done.stdout)
    elif done.stdout != best.data:
        emit(events.Notice("the formatted result is not interesting; kept the unformatted one"))
