"""The judge (judge/judge.py): its per-pass views, the original's and the final tests, and the
statistics it alone keeps. The order of check and test is in test_check.py."""

from __future__ import annotations

import re

import pytest

from treereduce_py.judge.check import CutsOnly, SyntaxCheck
from treereduce_py.judge.judge import Budget, Judge, Overtaken
from treereduce_py.judge.oracle import CallableOracle, CommandOracle, Criteria


def counting(answer: bool) -> tuple[CallableOracle, list[bytes]]:
    asked: list[bytes] = []

    def predicate(candidate: bytes) -> bool:
        asked.append(candidate)
        return answer

    return CallableOracle(predicate), asked


def test_each_pass_asks_with_its_own_check_and_error_limit() -> None:
    oracle, asked = counting(True)
    judge = Judge(oracle, "c", syntax_strict=True)
    strict = judge.for_pass(check=SyntaxCheck("c"), max_errors=0)
    unchecked = judge.for_pass(check=CutsOnly("c"), max_errors=0)
    lenient = judge.for_pass(check=SyntaxCheck("c"), max_errors=5)
    assert strict(b"int f( {", 0) is None and asked == []
    assert lenient(b"int g( {", 0) is not None and unchecked(b"int h( {", 0) is not None
    assert judge.counts().syntax_rejections == 1 and judge.counts().tests == 2


def test_the_originals_runs_and_the_final_test_bypass_cache_and_budget() -> None:
    oracle, asked = counting(True)
    judge = Judge(oracle, "python", syntax_strict=False, budget=Budget(max_tests=1))
    assert judge.test_original(b"x = 1\n").interesting
    judge.original_passed(0.01)
    ask = judge.for_pass(check=SyntaxCheck("python"), max_errors=0)
    assert ask(b"x\n", 0) is None  # the budget: one test, and the original's run took it
    assert judge.stop_reason == "max-tests"
    assert ask(b"x = 1\n", 0) is None  # the original's run is not in the cache either
    final = judge.final_test(b"x = 1\n")
    assert final is not None and final.candidate == b"x = 1\n"
    assert judge.final_test(b"x = 1\n") is not None  # asked again: a re-test is never cached
    assert asked == [b"x = 1\n"] * 3
    counts = judge.counts()
    assert (counts.tests, counts.interesting, counts.cache_hits) == (3, 1, 0)


def test_proposals_are_counted_by_the_judge() -> None:
    judge = Judge(CallableOracle(lambda c: True), "python", syntax_strict=False)
    judge.proposed(3)
    judge.proposed(2)
    assert judge.counts().commit_retries == 5


def test_required_criteria_replace_the_oracles_own() -> None:
    script = 'grep -q boom || exit 0; echo "crash here" >&2; exit 134'
    with CommandOracle(["sh", "-c", script]) as oracle:
        judge = Judge(oracle, "python", syntax_strict=False)
        ask = judge.for_pass(check=SyntaxCheck("python"), max_errors=0)
        assert ask(b"boom = 1\n", 0) is None and ask(b"calm = 1\n", 0) is not None
        judge.require(Criteria(exit_codes=frozenset({134}), stderr_regex=re.compile(b"crash")))
        assert ask(b"boom = 2\n", 0) is not None and ask(b"calm = 2\n", 0) is None
        assert judge.final_test(b"boom = 3\n") is not None


def test_a_candidate_whose_base_is_gone_is_not_tested_but_a_known_answer_is_given() -> None:
    oracle, asked = counting(True)
    judge = Judge(oracle, "python", syntax_strict=False)
    ask = judge.for_pass(check=SyntaxCheck("python"), max_errors=0)
    with pytest.raises(Overtaken):
        ask(b"x = 1\n", 0, fresh=lambda: False)
    assert asked == [] and judge.counts().tests == 0
    assert ask(b"x = 1\n", 0, fresh=lambda: True) is not None
    assert ask(b"x = 1\n", 0, fresh=lambda: False) is not None  # cached: costs no test
    assert asked == [b"x = 1\n"]
