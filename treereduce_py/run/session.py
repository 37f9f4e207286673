"""One reduction from start to finish: check the original, stages to a fixed point, polish.

A session checks that the original is interesting (or, with `same_crash`, takes the golden run)
and times it to pick the tests' timeout; then runs rounds of the strategy's stages (each
repeating passes over a freshly parsed table of the current best until a pass changes nothing)
and the polish (lines, tokens, token pairs, renaming, whitespace minimization) until a whole
round changes nothing; then runs the user's formatter, kept only if still interesting; and tests
the final result once more. Budgets stop it at any point with the best so far. Everything the user
sees comes through the event stream.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

import tree_sitter

from treereduce_py import events
from treereduce_py.engine.commit import Committer
from treereduce_py.engine.engine import Engine
from treereduce_py.engine.inorder import GROUP
from treereduce_py.engine.output import BestSoFar
from treereduce_py.judge.check import CutsOnly, SyntaxCheck
from treereduce_py.judge.errors import BadOptions, NotInteresting, ResumedNotInteresting
from treereduce_py.judge.golden import golden_run
from treereduce_py.judge.judge import Budget, Judge, Order, Stopped
from treereduce_py.judge.oracle import CommandOracle, Criteria, Oracle, OracleStartError, Verdict
from treereduce_py.judge.timeouts import LOAD_WINDOW, Timeouts
from treereduce_py.lang import inputs, languages
from treereduce_py.lang.syntax import NodeTable, count_errors
from treereduce_py.run import reading
from treereduce_py.run.final import FinalTest
from treereduce_py.run.options import ReduceOptions
from treereduce_py.transform import whitespace
from treereduce_py.transform.strategies import (
    MERGE_STAGE,
    POLISH_STAGES,
    RENAME_STAGE,
    SPANS_STAGE,
    STRATEGIES,
    Stage,
)
from treereduce_py.transform.tidy import TEXT_TIDIERS, TIDIERS, tidy_whitespace
from treereduce_py.transform.zeroes import Lowering


@dataclass(frozen=True)
class Result:
    """The reduced bytes and what it took to get them."""

    reduced: bytes
    original_size: int
    stats: events.Stats
    reason: str  # "fixpoint", "max-time", "max-tests"
    signature: str | None = None  # the crash signature of a same-crash run

    @property
    def size(self) -> int:
        return len(self.reduced)


class Session:
    """Runs one reduction; see the module docstring. Use `run` once."""

    def __init__(
        self,
        source: bytes,
        language: str,
        oracle: Oracle,
        options: ReduceOptions,
        emit: events.EventSink,
        original: bytes | None = None,
    ) -> None:
        self.source = source
        # A resumed run starts from an earlier result; same-crash takes its golden run on the
        # original, so the signature is the original's, not the result's.
        self.golden_source = source if original is None else original
        self.lang = language
        self.input = inputs.input_kind(language)  # what the stages' tables are built from
        self.oracle = oracle
        self.options = options
        self.emit = emit
        self.jobs = options.jobs or os.cpu_count() or 1
        self.original = options.original_size or len(source)
        self.started = time.monotonic()
        self.cpu_started = time.process_time()
        self.phase = ""
        self.pass_number = 0
        # The start-up read of the input, for the first pass: its tree, or for a huge input the
        # coarse table read from its lines or in pieces (read_coarse).
        self.parsed: tuple[bytes, tree_sitter.Tree | NodeTable] | None = None
        self.lines_first = False  # a huge input's items read from its lines (parse_costs_more)
        self.lowerings: list[Lowering] = []  # the budgets of smaller byte values, pass by pass
        # The first pass's parse and table, prepared while the original is tested (`ahead`).
        self.ahead: reading.Ahead | None = None
        self.best = BestSoFar(options.output, source)
        deadline = None if options.max_time is None else self.started + options.max_time
        budget = Budget(options.max_tests, deadline)
        strict = options.syntax == "strict" and self.input.parsed  # no grammar: the test decides
        # The same answers at any --jobs need the same limit for every test: no patience.
        timeouts = Timeouts(options.timeout, options.max_time, patient=not options.deterministic)
        order = Order(timed=not options.deterministic)  # no clock in a deterministic run
        self.judge = Judge(
            oracle, language, syntax_strict=strict, budget=budget, timeouts=timeouts, order=order
        )
        timeouts.on_load = self.loaded
        self.committer = Committer(self.judge, self.best, emit, self.stats)
        # Polishing candidates are judged as the last pass judged its own (before any pass:
        # checked afresh, no parse errors allowed).
        self.last_pass = self.judge.for_pass(check=SyntaxCheck(language), max_errors=0)

    def run(self) -> Result:
        """Reduce; raises the errors `api.reduce` documents."""
        stages = self.stages()
        self.ahead = self.prepare_ahead(stages[0])
        signature = self.check_original()
        self.warn_if_unparsable()
        engine = Engine(self.judge, self.committer, self.jobs, self.emit, self.stats)
        timer = self.start_timer()
        reason = "fixpoint"
        try:
            self.reduce_stages(engine, stages)
            self.polish()
            self.judge.raise_if_stopped()  # the budget may have ended during the polish
        except Stopped as stop:
            reason = stop.reason
        except BaseException:
            self.best.flush()
            raise
        finally:
            if timer is not None:
                timer.cancel()
                timer.join()
        self.judge.resume()
        return self.finish(reason, signature)

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def stats(self, quarters: bool = False) -> events.Stats:
        """The run's statistics now; with `quarters`, also how busy the workers were in each
        quarter of the run (for the last stats: a pass over every test)."""
        now = time.monotonic()
        c = self.judge.counts()
        running = tuple(now - t for t in c.running_since)
        return events.Stats(
            original_size=self.original,
            size=len(self.best.data),
            tests=c.tests + self.options.tests_before,
            interesting=c.interesting,
            cache_hits=c.cache_hits,
            syntax_rejections=c.syntax_rejections,
            commit_retries=c.commit_retries,
            timeouts=c.timeouts,
            busy=len(running),
            jobs=self.jobs,
            pass_number=self.pass_number,
            phase=self.phase,
            elapsed=now - self.started,
            running=running,
            test_seconds=c.test_seconds,
            cpu_seconds=time.process_time() - self.cpu_started,
            wasted=c.wasted,
            busy_quarters=self.judge.busy.shares(self.started, now, self.jobs) if quarters else (),
        )

    def stages(self) -> tuple[Stage, ...]:
        """The strategy's stages, then the polish stages, renaming and merging names (with
        `rename`), each stage's list schedule replaced by `list_algorithm` when one is given."""
        o = self.options
        stages = STRATEGIES[o.strategy].stages
        stages += (POLISH_STAGES if o.polish else ()) + (
            (RENAME_STAGE, MERGE_STAGE) if o.rename else ()
        )
        stages = tuple(s for s in stages if self.input.reads(s.table, s.planner_kind))
        if not stages:
            raise BadOptions(f"the {o.strategy} strategy has no stage for {self.lang} input")
        if o.list_algorithm is None:
            return stages
        if not any("schedule" in s.honours for s in stages):
            raise BadOptions(f"the {o.strategy} strategy reduces no lists: no list algorithm")
        return tuple(
            dataclasses.replace(s, schedule=o.list_algorithm) if "schedule" in s.honours else s
            for s in stages
        )

    def check_original(self) -> str | None:
        """Test the original (or take the golden run); the tests' timeouts follow from its time
        (judge/timeouts.py)."""
        o = self.options
        if o.crash_judged:
            names = self.oracle.input_names()
            if names is None:
                raise BadOptions("--same-crash needs a test command, not a Python predicate")
            started = time.monotonic()
            golden = golden_run(
                lambda candidate: self.judge.test_original(candidate, capture=True),
                self.golden_source,
                names=names,
                limit=self.judge.timeouts.first,
                regex=o.signature,
                emit=self.emit,
                frames=o.signature_frames,
                key_regex=o.signature_regex,
            )
            seconds = time.monotonic() - started
            self.judge.require(golden.criteria)
            if self.resumed:
                self.check_resumed()
            signature: str | None = golden.signature.describe()
            self.emit_start(signature)
        elif o.passed_in is not None:  # known to pass: not run again
            signature = None
            self.emit_start(None)
            seconds = o.passed_in
        else:
            signature = None
            self.emit_start(None)
            first = self.judge.test_original(self.source, capture=True)
            if first.timed_out:
                raise NotInteresting.timed_out(first, self.judge.timeouts.first)
            if not first.interesting:
                if self.resumed:
                    raise ResumedNotInteresting(first)
                raise NotInteresting(first, reasons=self.oracle.failures(first))
            seconds = first.seconds
        self.judge.original_passed(seconds)
        return signature

    @property
    def resumed(self) -> bool:
        """The run starts from an earlier result, not from its original."""
        return self.golden_source is not self.source

    def check_resumed(self) -> None:
        """A resumed run's starting file must still show the original's crash."""
        verdict = self.judge.test_original(self.source)
        if not verdict.interesting:
            raise ResumedNotInteresting(
                verdict, "the file to resume from no longer shows the original's crash"
            )

    def emit_start(self, signature: str | None) -> None:
        """The start event: before the first test of the original, or after the golden run
        (which chooses the signature it announces)."""
        o = self.options
        self.emit(
            events.Start(
                self.original,
                self.lang,
                self.jobs,
                o.strategy,
                tuple(o.command),
                signature,
                elapsed=self.elapsed(),
                front_end=self.input.name,
            )
        )

    def prepare_ahead(self, stage: Stage) -> reading.Ahead | None:
        """Start parsing the input and building the first pass's table and facts in a thread,
        so that they are ready when the original's test is over rather than after it: on a
        125 KB Python input, 0.5 s of parse and queries before the first candidate, with every
        worker idle. Not for a huge input, whose first read depends on the original's time
        (`parse_costs_more`)."""
        if len(self.source) >= reading.PIECES_MIN:
            return None
        ahead = reading.Ahead(stage, self.source)
        thread = threading.Thread(
            target=ahead.run,
            args=(self.lang, self.options.queries, self.input.parsed),
            name="treereduce-ahead",
            daemon=True,  # not waited for when the original turns out not interesting
        )
        thread.start()
        return ahead

    def warn_if_unparsable(self) -> None:
        """Parse the input (the first pass reuses the tree), as pass 0, phase "parse", with the
        live panel refreshing; say so when it does not parse cleanly. Input without a grammar
        is not parsed: a notice says how it is read instead (not for a directory's file list,
        which no grammar could read: its start line says what it is)."""
        if not self.input.parsed:
            how = _HOW_READ.get(self.input.name)
            if how is not None:
                message = f"no grammar for this input: reduced as {self.lang} ({how})"
                self.emit(events.Notice(message, elapsed=self.elapsed()))
            return
        self.phase = "parse"
        size = len(self.source)
        self.emit(events.PassChange(0, self.phase, size, elapsed=self.elapsed()))
        self.lines_first = self.parse_costs_more()
        read: tree_sitter.Tree | NodeTable | None = reading.read_coarse(
            self.source, self.lang, self.lines_first
        )
        if isinstance(read, NodeTable):
            errors = read.errors
        else:
            ahead = None if self.ahead is None else self.ahead.tree.result()
            read = ahead or languages.parse_in_chunks(languages.new_parser(self.lang), self.source)
            errors = count_errors(read)
        self.parsed = (self.source, read)  # the first pass reuses it: no second parse
        if errors:
            self.emit(
                events.Notice(
                    f"the input does not parse cleanly as {self.lang} ({errors} syntax "
                    f"error{'' if errors == 1 else 's'}); reducing it anyway",
                    elapsed=self.elapsed(),
                )
            )

    def parse_costs_more(self) -> bool:
        """Would parsing a huge input (to read its items in pieces) cost more than LINES_TESTS
        of its tests? Then its items are read from its lines (`read_coarse`): that costs no parse
        but more tests where the grammar would not cut (in 4.7 MB of Python's standard library,
        docstrings put 2,159 lines at column 0 that start no item, and the coarse pass took 174
        tests against the pieces' 80; at 10 MB of the scale family's C, 95 and 103). The parse costs
        about PARSE_SECONDS_PER_MB; a test, what the original's took. Not with --deterministic,
        whose result must not depend on the clock."""
        c = self.judge.counts()
        if self.options.deterministic or not c.tests:
            return False
        parse = reading.PARSE_SECONDS_PER_MB * len(self.source) / 1e6
        return parse > reading.LINES_TESTS * c.test_seconds / c.tests

    def start_timer(self) -> threading.Timer | None:
        """The budget ends running tests too: stop within moments of the deadline."""
        if self.options.max_time is None:
            return None
        left = max(0.0, self.options.max_time - self.elapsed())
        timer = threading.Timer(left, self.judge.stop, ("max-time",))
        timer.daemon = True
        timer.start()
        return timer

    def reduce_stages(self, engine: Engine, stages: Sequence[Stage]) -> None:
        """Rounds of every stage and the whitespace minimization, until a whole round changes
        nothing or a budget ends: what the polish removes (a token, a space, a long name) can
        unlock deletions in the tree stage of the next round. With `polish` off (`--fast`), one
        round unless `slow`."""
        while True:
            before_round = self.best.data
            for stage in stages:
                self.run_stage(engine, stage)
            if self.options.polish:
                self.minimize_whitespace()
            if self.rounds_repeat and self.best.data != before_round:
                continue
            if not (
                self.endgame(engine)
                or self.spans_round(engine)
                or self.same_length_round(engine, stages)
            ):
                return

    def spans_round(self, engine: Engine) -> bool:
        """At the fixed point of a binary input's chunks, one pass over the runs of bytes that no
        aligned chunk holds (transform/spans.py): True if it changed the best, and then the
        rounds run again. Only with the polish on (not `--fast`; rounds then repeat)."""
        if not self.options.polish:
            return False
        if not self.input.reads(SPANS_STAGE.table, SPANS_STAGE.planner_kind):
            return False
        before = self.best.data
        self.run_stage(engine, SPANS_STAGE)
        return self.best.data != before

    def same_length_round(self, engine: Engine, stages: Sequence[Stage]) -> bool:
        """At the fixed point of the deletions, one pass of the first tree stage that also takes
        candidates as long as the best and smaller in the progress order (edit/order.py): a `6`
        that may be `1`, a chunk of bytes that may be zeros. True if it changed the best, and
        then the rounds run again (what it simplified may now be deletable). Only where rounds
        repeat (not `--fast`); never more than the order allows, so the rounds still end."""
        tree_stages = [s for s in stages if s.table == "syntax"]
        if not (self.rounds_repeat and tree_stages):
            return False
        before = self.best.data
        self.run_stage(engine, tree_stages[0], same_length=True)
        return self.best.data != before

    def endgame(self, engine: Engine) -> bool:
        """At the fixed point of a small result, the token stages once more with the syntax
        check off (True if they shrank it): a compiler may accept what the grammar does not
        (C's implicit int: `b(){b==b;}` parses with an ERROR). Small means a few dozen tokens,
        or more where the tests are quick: about two tests a token, at the mean test time so
        far, must fit in a quarter of the time the run has taken. Not with `--syntax off`
        (already done) or without polish."""
        if not (self.options.polish and self.judge.syntax_strict):
            return False
        tokens = len(NodeTable.from_tokens(self.best.data))
        c = self.judge.counts()
        if not endgame_fits(tokens, c.test_seconds / max(c.tests, 1) / self.jobs, self.elapsed()):
            return False
        before = self.best.data
        self.judge.forget_syntax_rejections()
        for stage in ENDGAME_STAGES:
            self.run_stage(engine, stage, lenient=True)
        return self.best.data != before

    def lowering(self) -> Lowering | None:
        """The budget of smaller byte values a same-length pass over binary input may try
        (transform/zeroes.py), on a result of at most LOWER_MAX bytes: what is left of
        ENDGAME_SHARE of the time the run has taken, at the mean test time so far, after the
        tries of the passes before (at most LOWER_TESTS; with --deterministic, which the clock
        must not steer, LOWER_TESTS in all)."""
        if not self.input.zeroes or len(self.best.data) > LOWER_MAX:
            return None
        spent = sum(lowering.spent for lowering in self.lowerings)
        tests = LOWER_TESTS
        if not self.options.deterministic:
            c = self.judge.counts()
            seconds = c.test_seconds / max(c.tests, 1) / self.jobs
            tests = min(tests, int(ENDGAME_SHARE * self.elapsed() / max(seconds, 1e-6)))
        if tests <= spent:
            return None
        self.lowerings.append(Lowering(tests - spent))
        return self.lowerings[-1]

    @property
    def rounds_repeat(self) -> bool:
        """Do rounds of the stages repeat while they shrink the result (see reduce_stages)?"""
        return self.options.polish or self.options.slow

    def run_stage(
        self, engine: Engine, stage: Stage, lenient: bool = False, same_length: bool = False
    ) -> None:
        """Passes of one stage on the re-parsed best, until one changes nothing, or, where
        rounds repeat, until one removes less than STAGE_MIN_GAIN of the text: a pass costs
        about as many tests as the one before, and the next stages (the lines the deletions
        left blank, for one) are cheaper; the stage comes again in the next round. On a huge
        tree the first passes are coarse (see `prepare`) until one of them changes nothing.
        `lenient` accepts candidates with any number of parse errors (the test decides);
        `same_length` takes as-long candidates that are smaller (see same_length_round)."""
        self.phase = f"{stage.name}-same-length" if same_length else stage.name
        stage_passes = 0
        coarse = True
        while self.options.passes is None or stage_passes < self.options.passes:
            self.pass_number += 1
            stage_passes += 1
            size = len(self.best.data)
            self.emit(events.PassChange(self.pass_number, self.phase, size, elapsed=self.elapsed()))
            text, parsed = self.best.data, self.parsed
            self.parsed = None
            read = parsed[1] if parsed is not None and parsed[0] == text else None
            ahead, self.ahead = self.ahead, None
            if ahead is not None and ahead.fits(stage, text, read, coarse and not self.lines_first):
                table, facts, tree = ahead.prepared.result()
            else:
                lower = self.lowering() if same_length else None
                table, facts, tree = reading.prepare(
                    stage,
                    text,
                    self.lang,
                    self.options.queries,
                    read,
                    coarse,
                    self.lines_first,
                    lower,
                )
            # Never accept more parse errors than the current best has; candidates are checked
            # by editing this pass's tree (not at all in a coarse pass, which keeps no tree).
            # A lenient pass checks nothing either: parsing its candidates would be wasted.
            self.last_pass = self.judge.for_pass(
                check=CutsOnly(self.lang)
                if tree is None or lenient
                else SyntaxCheck(self.lang, table, tree),
                max_errors=table.errors if tree is None else count_errors(tree),
            )
            # Rounds with work for every worker: `jobs` chunks at least, or in deterministic mode
            # a group's worth (a constant, so the output does not depend on `jobs`).
            width = GROUP if self.options.deterministic else self.jobs
            planner = stage.planner(table, facts, self.options.p0, width)
            changed = engine.run_pass(
                table, planner, self.last_pass, self.options.deterministic, same_length
            )
            if changed and stage.table == "syntax":
                self.sweep_gaps()
            if tree is None and self.input.parsed:
                coarse = changed  # a coarse pass that found nothing hands over to full ones
            elif not changed:
                return
            elif self.rounds_repeat and len(self.best.data) > (1 - STAGE_MIN_GAIN) * size:
                return  # little left here for now: the next stages, and this one next round

    def sweep_gaps(self) -> None:
        """After a tree pass, its deletions' leftover whitespace in one candidate, when that is
        much of the text: deleting a node leaves the blank line around it, so a coarse pass that
        cut 1 MB of top-level items down to two leaves 10 KB of newlines, which the lines stage
        would take about fifty tests to remove (and at 10 MB, 9 s of the reducer's CPU). Tried
        only where it saves SWEEP_MIN_BYTES and SWEEP_MIN_SHARE of the text, so smaller inputs
        go as before."""
        if not self.input.tidy:
            return
        text = self.best.data
        swept = tidy_whitespace(text)
        saved = len(text) - len(swept)
        if saved >= SWEEP_MIN_BYTES and saved >= SWEEP_MIN_SHARE * len(text):
            self.offer(swept)

    def minimize_whitespace(self) -> None:
        """Tidy the blank lines and indentation, then drop every space the parser does not need
        (whitespace.py; with a grammar, else TEXT_TIDIERS); each candidate kept only if still
        interesting."""
        if not self.input.tidy:
            return
        self.phase = "whitespace"
        self.emit(
            events.PassChange(
                self.pass_number, self.phase, len(self.best.data), elapsed=self.elapsed()
            )
        )
        for tidy in TIDIERS:
            self.offer(tidy(self.best.data))
        if self.input.parsed:
            whitespace.minimize(self.best.data, self.lang, self.offer)
            return
        for tidy in TEXT_TIDIERS:
            self.offer(tidy(self.best.data))

    def polish(self) -> None:
        """The user's formatter, kept only if still interesting (a readable result)."""
        if self.options.format_command:
            self.phase = "format"
            self.format(self.options.format_command)

    def offer(self, candidate: bytes) -> bool:
        """Commit `candidate` if it is shorter and interesting (outside the engine: for the
        polishing steps tried one candidate at a time)."""
        if len(candidate) >= len(self.best.data):
            return False
        verdict = self.last_pass(candidate, 0)
        return verdict is not None and self.committer.commit(verdict)

    def format(self, command: Sequence[str]) -> None:
        """Run the formatter as a command (candidate on stdin, text on stdout); its text is
        committed if the judge finds it interesting (it may be larger: it is for reading)."""
        runner = CommandOracle(command, Criteria())
        try:
            done = runner.check(self.best.data, 0, timeout=FORMAT_TIMEOUT, capture=True)
        except OracleStartError as e:
            self.emit(events.Notice(f"--format command failed: {e}"))
            return
        finally:
            runner.close()
        formatted = done.stdout
        if not done.interesting or not formatted:
            self.emit(events.Notice(f"--format command {_failed(done)}; result kept as is"))
            return
        if formatted == self.best.data:
            return
        verdict = self.last_pass(formatted, 0)
        if verdict is not None:
            self.committer.commit(verdict)
        else:
            self.emit(
                events.Notice("the formatted result is not interesting; kept the unformatted one")
            )

    def finish(self, reason: str, signature: str | None) -> Result:
        """The final test of the result (run/final.py), or after a budget stop of its tidied
        text instead; then the done event."""
        final = FinalTest(self.judge, self.best, self.committer, self.notice)
        final.run(self.tidied(reason), self.known_to_pass())
        stats = self.stats(quarters=True)
        result = Result(self.best.data, self.original, stats, reason, signature)
        self.emit(events.Done(result.stats, reason, elapsed=self.elapsed()))
        return result

    def known_to_pass(self) -> bool:
        """Whether the result is the source, which was known to pass (`passed_in`) and not
        tested again here: its re-test would be a repeat."""
        o = self.options
        return o.passed_in is not None and not o.crash_judged and self.best.data == self.source

    def tidied(self, reason: str) -> bytes | None:
        """A run stopped by a budget may end mid-stage, with the blank lines and trailing spaces
        its deletions left (about 1 KB of a 1.7 KB C result): its tidied text, for the final
        test to try instead. None at the fixed point, without polish, for input that is not
        tidied, or when tidying changes nothing."""
        if not self.input.tidy or reason == "fixpoint" or not self.options.polish:
            return None
        tidied = tidy_whitespace(self.best.data)
        return None if tidied == self.best.data else tidied

    def notice(self, message: str) -> None:
        self.emit(events.Notice(message, elapsed=self.elapsed()))

    def loaded(self, patience: float, limit: float) -> None:
        """Half of the last tests ran past their limit: the machine's load (timeouts.py)."""
        self.notice(
            f"half of the last {LOAD_WINDOW} tests ran past their limit: with {self.jobs} at "
            f"once on {os.cpu_count() or 1} cores, the machine's load rather than hangs; "
            f"tests now get {patience:.1f} s (limit {limit:.1f} s)"
        )


# How input without a grammar is read, by its kind (inputs.py), for the notice that says so.
_HOW_READ = {
    "text": "brackets, indentation, lines, tokens",
    "bytes": "chunks of bytes, never decoded",
}


def _failed(verdict: Verdict) -> str:
    if verdict.timed_out:
        return "timed out"
    return f"exited with {verdict.exit_code}"


# Seconds the --format command may run.
FORMAT_TIMEOUT = 60.0
# Where rounds repeat, a stage's passes stop at one that removed less than this share of the
# text (see Session.run_stage).
STAGE_MIN_GAIN = 0.05
# A tree pass's leftover whitespace is swept in one candidate when that saves at least this
# many bytes and this share of the text (see Session.sweep_gaps).
SWEEP_MIN_BYTES = 1024
SWEEP_MIN_SHARE = 0.1
# A result of at most this many tokens gets the endgame: the token stages without the syntax
# check (see Session.endgame).
ENDGAME_TOKENS = 64
# ... or more, if its estimated tests take at most this share of the run's time so far.
ENDGAME_SHARE = 0.25
ENDGAME_STAGES = (
    Stage("tokens-lenient", "tokens", "flat"),
    Stage("pairs-lenient", "tokens", "pairs"),
)
# A same-length pass over binary input tries smaller values of single bytes (Session.lowering)
# on a result of at most LOWER_MAX bytes, at most LOWER_TESTS of them.
LOWER_MAX = 4096
LOWER_TESTS = 4096


def endgame_fits(tokens: int, seconds_per_test: float, elapsed: float) -> bool:
    """Is a result of `tokens` tokens small enough for the endgame: at most ENDGAME_TOKENS, or
    its estimated tests (two a token, at `seconds_per_test` of wall time each) within
    ENDGAME_SHARE of the `elapsed` seconds the run has taken?"""
    return tokens <= ENDGAME_TOKENS or 2 * tokens * seconds_per_test <= ENDGAME_SHARE * elapsed
