"""The library entry point end to end, with in-process predicates: correctness invariants."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from treereduce_py import BadOptions, FlakyTest, NotInteresting, ReduceOptions, events, reduce
from treereduce_py.engine.inorder import GROUP
from treereduce_py.judge.oracle import CommandOracle
from treereduce_py.lang.languages import new_parser
from treereduce_py.lang.syntax import count_errors
from treereduce_py.transform.strategies import STRATEGIES

PROGRAM = b"""import os
import sys

def helper(a, b, c):
    x = [1, 2, 3, 4]
    return a + (b * c)

class Foo:
    def bar(self):
        print("hello world")
        return 42

def main():
    y = helper(1, 2, 3)
    z = Foo().bar()
    raise ValueError("boom")

main()
"""


def parses(lang: str, text: bytes) -> bool:
    return count_errors(new_parser(lang).parse(text)) == 0


class Recorder:
    """A predicate that records every answer it gave, thread-safely."""

    def __init__(self, needles: tuple[bytes, ...], lang: str = "python") -> None:
        self.needles = needles
        self.lang = lang
        self.yes: set[bytes] = set()
        self.calls = 0
        self.lock = threading.Lock()

    def __call__(self, candidate: bytes) -> bool:
        ok = all(n in candidate for n in self.needles) and parses(self.lang, candidate)
        with self.lock:
            self.calls += 1
            if ok:
                self.yes.add(candidate)
        return ok


def test_reduces_and_result_is_interesting() -> None:
    pred = Recorder((b"ValueError", b"main"))
    result = reduce(PROGRAM, language="python", test=pred, jobs=2)
    assert pred(result.reduced)
    assert result.size < len(PROGRAM) // 4
    assert result.stats.tests >= 1
    assert result.reason == "fixpoint"


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_every_preset_gives_an_interesting_smaller_result(name: str) -> None:
    pred = Recorder((b"ValueError", b"helper"))
    result = reduce(PROGRAM, language="python", test=pred, jobs=2, strategy=name)
    assert pred(result.reduced)
    assert result.size < len(PROGRAM) // 2


def test_every_written_best_was_judged_interesting(tmp_path: Path) -> None:
    out = tmp_path / "best.py"
    pred = Recorder((b"raise", b"Foo"))
    seen: list[bytes] = []

    def on_event(event: events.Event) -> None:
        if isinstance(event, events.Improvement):
            seen.append(out.read_bytes())

    result = reduce(PROGRAM, language="python", test=pred, jobs=3, output=out, progress=on_event)
    assert seen, "no improvement was reported"
    assert all(s in pred.yes for s in seen)
    assert out.read_bytes() == result.reduced
    sizes = [len(s) for s in seen]
    assert sizes[-1] <= sizes[0] < len(PROGRAM)


def test_original_not_interesting_raises() -> None:
    with pytest.raises(NotInteresting):
        reduce(PROGRAM, language="python", test=lambda b: False)


def test_flaky_test_is_reported() -> None:
    calls = {"n": 0}

    def flaky(candidate: bytes) -> bool:
        calls["n"] += 1
        return calls["n"] <= 2  # the original and the first candidate pass, then never again

    with pytest.raises(FlakyTest):
        reduce(PROGRAM, language="python", test=flaky, jobs=1)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_result_the_test_is_flaky_on_is_stepped_back_from(tmp_path: Path, jobs: int) -> None:
    # Deterministic above 120 bytes; below, a candidate passes its first test and fails the
    # next, as a reduced C program that reads memory it never wrote may. The final re-test fails
    # the result; the run keeps the newest earlier result that passes steadily, and says so.
    steady = Recorder((b"ValueError",))
    answers: dict[bytes, int] = {}
    lock = threading.Lock()

    def test(candidate: bytes) -> bool:
        if not steady(candidate):
            return False
        with lock:
            answers[candidate] = answers.get(candidate, 0) + 1
            return len(candidate) > 120 or answers[candidate] == 1

    notices: list[str] = []

    def on_event(event: events.Event) -> None:
        if isinstance(event, events.Notice):
            notices.append(event.message)

    out = tmp_path / "out.py"
    result = reduce(PROGRAM, language="python", test=test, jobs=jobs, output=out, progress=on_event)
    assert len(result.reduced) > 120 and steady(result.reduced)
    assert out.read_bytes() == result.reduced
    assert any(len(c) <= 120 for c in answers), "no candidate the test is flaky on was tested"
    flaky = [n for n in notices if "flaky" in n]
    assert len(flaky) == 1 and f"({len(result.reduced)} B)" in flaky[0], notices
    assert result.stats.size == len(result.reduced)


def test_max_tests_stops_with_an_interesting_result() -> None:
    pred = Recorder((b"ValueError",))
    result = reduce(PROGRAM, language="python", test=pred, jobs=2, max_tests=5)
    assert result.reason == "max-tests"
    assert pred(result.reduced)
    assert result.stats.tests <= 5 + 2  # the budget, plus the first and final checks


def test_deterministic_mode_is_identical_at_any_jobs() -> None:
    outs = set()
    for jobs in (1, 2, 4):
        pred = Recorder((b"ValueError", b"bar"))
        outs.add(
            reduce(PROGRAM, language="python", test=pred, jobs=jobs, deterministic=True).reduced
        )
    assert len(outs) == 1


def test_deterministic_mode_cuts_a_long_list_in_a_groups_worth_of_chunks_at_any_jobs() -> None:
    # 200 top-level statements, one of them needed: the first round over the list has at
    # least engine.GROUP chunks (not halves), at one job as at four, so groups are full.
    src = b"".join(b"x%d = %d\n" % (i, i) for i in range(200))
    for jobs in (1, 4):
        tested: list[bytes] = []

        def keep_x150(candidate: bytes, tested: list[bytes] = tested) -> bool:
            tested.append(candidate)
            return b"x150 = 150" in candidate

        result = reduce(src, language="python", test=keep_x150, jobs=jobs, deterministic=True)
        assert result.reduced.strip() == b"x150 = 150"
        # The first cut after the original's check and the whole text's deletion (a deleted
        # statement leaves its line blank: count the statements):
        cut = [200 - c.count(b" = ") for c in tested if 0 < c.count(b" = ") < 200]
        assert 0 < cut[0] <= 200 // GROUP + 1  # an eighth of the list, not half


def test_unknown_language_and_strategy() -> None:
    from treereduce_py.lang.languages import UnknownLanguage

    with pytest.raises(UnknownLanguage):
        reduce(PROGRAM, language="pyhton", test=lambda b: True)
    with pytest.raises(KeyError):
        reduce(PROGRAM, language="python", test=lambda b: True, strategy="nope")


def test_list_separators_leave_valid_syntax() -> None:
    src = b"const xs = [10, 20, 30, 40, 50, 60];\nf(1, 2, 3, 4, 5);\n"
    pred = Recorder((b"30", b"4"), lang="javascript")
    result = reduce(src, language="javascript", test=pred, jobs=2, polish=False)
    assert b",," not in result.reduced
    assert b"[," not in result.reduced and b",]" not in result.reduced
    assert parses("javascript", result.reduced)


def test_hoisting_replaces_a_node_by_a_descendant() -> None:
    src = b"x = 5 + (3 * yy)\n"
    pred = Recorder((b"x", b"yy"))
    result = reduce(src, language="python", test=pred, jobs=1, polish=False)
    assert result.reduced.strip() == b"x = yy"


def test_hoisting_a_statement_out_of_an_if() -> None:
    src = b"int main(void) { if (1) { f(); } return 0; }\n"
    pred = Recorder((b"main", b"f()"), lang="c")
    result = reduce(src, language="c", test=pred, jobs=1, polish=False)
    assert b"if" not in result.reduced
    assert b"f();" in result.reduced


EMPTY_OK = [b"", b"\r\n", b"\x00", b"x = 1\r\ny = 2\r\n", "é = 'ü'\n".encode("latin-1")]


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("src", EMPTY_OK)
def test_odd_bytes_reduce_to_empty_when_everything_is_interesting(src: bytes, jobs: int) -> None:
    # The empty file is the smallest candidate there is, and an always-true test accepts it.
    result = reduce(src, language="python", test=lambda b: True, jobs=jobs)
    assert result.reduced == b""
    assert result.size == 0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.sampled_from([b"a = 1\n", b"b = [1, 2]\n", b"def f():\n    return 3\n", b"g(4)\n"]),
        min_size=1,
        max_size=8,
    ),
    st.integers(min_value=1, max_value=3),
)
def test_output_never_larger_and_always_interesting(parts: list[bytes], jobs: int) -> None:
    src = b"".join(parts)
    needle = parts[len(parts) // 2].split(b" ")[0][:1]
    pred = Recorder((needle,))
    result = reduce(src, language="python", test=pred, jobs=jobs)
    assert result.size <= len(src)
    assert result.reduced in pred.yes or result.reduced == src


@pytest.mark.parametrize("algorithm", ["cdd", "ddmin", "wdd"])
def test_list_algorithm_can_be_chosen_for_comparison(algorithm: str) -> None:
    src = b"".join(b"v%02d = %d\n" % (i, i) for i in range(30))
    pred = Recorder((b"v07 =", b"v21 ="))
    result = reduce(
        src,
        language="python",
        test=pred,
        jobs=1,
        polish=False,
        list_algorithm=algorithm,
    )
    assert pred(result.reduced)
    assert len(result.reduced.split()) <= 6


def test_the_budget_ending_during_format_keeps_the_result() -> None:
    # Regression: the max-time timer fired during --format, cancelled the oracle, and the final
    # re-test came back cancelled: a false FlakyTest.
    src = b"a = 1\nb = 2\nraise ValueError\n"
    result = reduce(
        src,
        language="python",
        test=lambda c: b"ValueError" in c,
        jobs=1,
        max_time=1.0,
        format_command=["sh", "-c", "sleep 2; cat"],
    )
    assert result.reason == "max-time"
    assert b"ValueError" in result.reduced


def test_a_hanging_original_times_out_within_the_budget(tmp_path: Path) -> None:
    oracle = CommandOracle(["sleep", "60"])
    with pytest.raises(NotInteresting, match="timed out"):
        reduce(b"x = 1\n", language="python", test=oracle, max_time=1.0)


def test_a_list_algorithm_for_a_strategy_without_lists_is_refused() -> None:
    with pytest.raises(BadOptions, match="reduces no lists"):
        reduce(
            b"x = 1\n",
            language="python",
            test=lambda c: True,
            strategy="hierarchical",
            polish=False,
            list_algorithm="ddmin",
        )


def test_options_can_be_given_as_one_value() -> None:
    opts = ReduceOptions(jobs=1, polish=False, strategy="hdd")
    result = reduce(PROGRAM, language="python", test=Recorder((b"boom",)), options=opts)
    assert b"boom" in result.reduced
    with pytest.raises(TypeError):
        reduce(PROGRAM, language="python", test=lambda c: True, no_such_option=1)


def test_a_huge_tree_is_cut_coarse_first_then_reduced_in_full(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With a node budget smaller than the program, the first passes use coarse tables (no tree
    kept, no check) until one changes nothing; full passes then reduce inside the functions, and
    every candidate they commit is still judged by the test."""
    from treereduce_py.run import reading

    kinds: list[bool] = []
    prepare = reading.prepare

    def spy(*args: object, **kwargs: object) -> object:
        out = prepare(*args, **kwargs)  # type: ignore[arg-type]
        kinds.append(out[2] is None)
        return out

    monkeypatch.setattr(reading, "COARSE_NODES", 30)
    monkeypatch.setattr(reading, "prepare", spy)
    pred = Recorder((b"ValueError", b"main"))
    result = reduce(PROGRAM * 20, language="python", test=pred, jobs=2)
    assert pred(result.reduced) and result.reduced in pred.yes
    assert kinds[0] and not all(kinds)  # coarse first, full passes after
    assert kinds.index(False) == len(kinds) - kinds[::-1].index(True)  # no coarse after full
    assert result.size < len(PROGRAM) // 4


def test_the_start_up_parse_is_pass_0_before_the_first_pass() -> None:
    seen: list[events.Event] = []
    reduce(PROGRAM, language="python", test=Recorder((b"main",)), jobs=1, progress=seen.append)
    passes = [(e.pass_number, e.phase) for e in seen if isinstance(e, events.PassChange)]
    assert passes[0] == (0, "parse") and passes[1][0] == 1
    assert isinstance(seen[0], events.Start)


def test_the_first_pass_is_prepared_while_the_original_is_tested(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The parse and the first pass's table and facts are built while the original's test
    runs, not after it (the workers would wait for them), and only once."""
    from treereduce_py.run import reading

    prepared = threading.Event()
    calls: list[bytes] = []
    prepare = reading.prepare

    def spy(*args: object, **kwargs: object) -> object:
        out = prepare(*args, **kwargs)  # type: ignore[arg-type]
        calls.append(args[1])  # type: ignore[arg-type]
        prepared.set()
        return out

    monkeypatch.setattr(reading, "prepare", spy)
    pred = Recorder((b"ValueError", b"main"))
    during: list[bool] = []

    def test(candidate: bytes) -> bool:
        if not during:  # the original: its test lasts until the first pass is ready
            during.append(prepared.wait(10))
        return pred(candidate)

    result = reduce(PROGRAM, language="python", test=test, jobs=2)
    assert during == [True]
    assert calls.count(PROGRAM) == 1 and pred(result.reduced)


def test_a_broken_query_file_is_reported_after_the_original_is_judged(tmp_path: Path) -> None:
    """The first pass is prepared early, but its errors come where they did: a test that is not
    interesting on the original says so first."""
    from treereduce_py.lang.hints import QueryFileError

    (tmp_path / "python").mkdir()
    (tmp_path / "python" / "bad.scm").write_text("((identifier) @replace\n")
    opts = ReduceOptions(queries=(tmp_path,), jobs=1)
    with pytest.raises(NotInteresting):
        reduce(PROGRAM, language="python", test=lambda b: False, options=opts)
    with pytest.raises(QueryFileError, match=r"bad\.scm"):
        reduce(PROGRAM, language="python", test=Recorder((b"main",)), options=opts)


# -- patience: a test far slower than any interesting one is stopped -----------------------------


def test_patience_is_a_multiple_of_the_slowest_interesting_test_within_the_limit() -> None:
    from treereduce_py.judge.timeouts import Patience

    assert Patience(limit=30.0, slowest=0.1).seconds() == 1.0  # the floor
    assert Patience(limit=30.0, slowest=0.5).seconds() == 2.5
    assert Patience(limit=2.0, slowest=0.5).seconds() == 2.0  # never past the limit


@pytest.mark.parametrize("deterministic", [False, True])
def test_a_hanging_candidate_is_stopped_long_before_the_timeout(
    tmp_path: Path, deterministic: bool
) -> None:
    # A candidate without `keep` hangs for 1.5 s (as a loop whose exit was deleted would, until
    # the test's own timeout), then fails; one with `keep` passes at once. The --timeout is a
    # minute, but patience stops the hang at 1 s (five times the quick interesting run, at least
    # 1 s), unless --deterministic asks for the same limit on every test.
    waited = tmp_path / "waited"
    script = tmp_path / "t.sh"
    script.write_text(
        f'#!/bin/sh\ngrep -q keep "$1" && exit 0\nsleep 1.5\ntouch "{waited}"\nexit 1\n'
    )
    script.chmod(0o755)
    with CommandOracle([str(script), "@@"]) as oracle:
        result = reduce(
            b"a = 1\nkeep = 2\n",
            language="python",
            test=oracle,
            jobs=1,
            timeout=60,
            polish=False,
            rename=False,
            deterministic=deterministic,
        )
    assert b"keep" in result.reduced and b"a = 1" not in result.reduced
    if deterministic:
        assert waited.exists() and result.stats.timeouts == 0
    else:
        assert not waited.exists() and result.stats.timeouts >= 1


@pytest.mark.parametrize("polish", [True, False])
def test_a_budget_stop_ends_with_the_tidied_text_when_it_passes(polish: bool) -> None:
    src = b"a = 1\n\n\n\n\nkeep = 2   \n\n\n\nb = 3\n"
    result = reduce(
        src, language="python", test=lambda c: b"keep" in c, jobs=1, max_tests=2, polish=polish
    )
    assert result.reason == "max-tests"
    # Stopped before any stage changed a byte: the blank lines the input had are still there,
    # unless the final test was of the tidied text (not with --fast: no polishing).
    assert result.reduced == (b"a = 1\n\nkeep = 2\n\nb = 3\n" if polish else src)


def test_a_source_known_to_pass_is_not_tested_again_unless_it_changed() -> None:
    """`passed_in` (a directory's part on the tree the last part re-tested): the source is not
    run first, nor re-tested at the end when nothing changed; a result that changed is."""
    source = b"def f():\n    return 1\n"
    asked: list[bytes] = []

    def whole(candidate: bytes) -> bool:
        asked.append(candidate)
        return candidate == source

    result = reduce(source, language="python", test=whole, passed_in=0.1)
    assert result.reduced == source and source not in asked and asked
    asked.clear()
    reduce(source, language="python", test=whole)
    assert asked.count(source) == 2  # the first test and the final re-test

    def keeps_f(candidate: bytes) -> bool:
        asked.append(candidate)
        return b"f" in candidate

    asked.clear()
    result = reduce(source, language="python", test=keeps_f, passed_in=0.1)
    assert source not in asked and asked.count(result.reduced) >= 2  # accepted, then re-tested
