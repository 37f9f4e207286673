"""Tests for lang.inputs and the session's use of it: which stages each kind of input gets, and,
through the library entry point, text and bytes reduced by the same engine: no parse and no
syntax check, the front end named in the start event, and bytes never decoded (every candidate
a deletion of the input's own bytes, the result one of the candidates the test passed)."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from conftest import cut_or_lowered
from hypothesis import given, settings
from hypothesis import strategies as st

from treereduce_py import BadOptions, events, reduce
from treereduce_py.lang.inputs import BYTES, GRAMMAR, TEXT, input_kind
from treereduce_py.transform.strategies import MERGE_STAGE, POLISH_STAGES, RENAME_STAGE, STRATEGIES

DEFAULT_STAGES = (*STRATEGIES["priority"].stages, *POLISH_STAGES, RENAME_STAGE, MERGE_STAGE)

CONF = b"".join(
    b"[section%d]\nname = value %d\npath = /srv/%d/data\nflags = (a, b, [c, %d])\n\n" % (i, i, i, i)
    for i in range(30)
)


def stage_names(kind: str) -> list[str]:
    k = input_kind(kind)
    return [s.name for s in DEFAULT_STAGES if k.reads(s.table, s.planner_kind)]


def test_each_kind_gets_the_stages_its_tables_support() -> None:
    assert input_kind("python") is GRAMMAR and input_kind("text") is TEXT
    assert input_kind("bytes") is BYTES
    assert stage_names("c") == ["tree", "lines", "tokens", "pairs", "rename", "merge"]
    assert stage_names("text") == ["tree", "lines", "tokens", "pairs"]
    assert stage_names("bytes") == ["tree"]


def test_a_grammar_has_no_table_of_its_own() -> None:
    with pytest.raises(ValueError, match="parse"):
        GRAMMAR.table("syntax", b"x")
    assert TEXT.table("lines", b"a\nb\n").size(1) == 2
    assert BYTES.table("syntax", bytes(300)).kind_names[0] == "bytes"


class Seen:
    """A predicate that records every candidate it was asked about, thread-safely."""

    def __init__(self, wanted: bytes) -> None:
        self.wanted = wanted
        self.asked: list[bytes] = []
        self.passed: set[bytes] = set()
        self.lock = threading.Lock()

    def __call__(self, candidate: bytes) -> bool:
        ok = self.wanted in candidate
        with self.lock:
            self.asked.append(candidate)
            if ok:
                self.passed.add(candidate)
        return ok


def run(source: bytes, test: Seen, **options: object) -> tuple[bytes, list[events.Event]]:
    seen: list[events.Event] = []
    result = reduce(source, test=test, jobs=2, progress=seen.append, **options)  # type: ignore[arg-type]
    return result.reduced, seen


def test_text_is_reduced_through_its_inferred_tree_without_a_parse() -> None:
    test = Seen(b"flags = (a, b, [c, 17])")
    reduced, seen = run(CONF, test)
    assert reduced == b"flags = (a, b, [c, 17])"
    (start,) = [e for e in seen if isinstance(e, events.Start)]
    assert (start.language, start.front_end) == ("text", "text")
    phases = {e.phase for e in seen if isinstance(e, events.PassChange)}
    # No parse, no rename; the last round's tree pass takes as-long smaller candidates too.
    assert phases == {"tree", "lines", "tokens", "pairs", "whitespace", "tree-same-length"}
    (done,) = [e for e in seen if isinstance(e, events.Done)]
    assert done.stats.syntax_rejections == 0
    assert reduced in test.passed


def test_syntax_strict_changes_nothing_for_text() -> None:
    broken = b"(((\n" + CONF + b"]]]\n"
    test = Seen(b"[c, 3])")
    reduced, seen = run(broken, test, language="text", syntax="strict")
    assert reduced == b"[c, 3])"
    (done,) = [e for e in seen if isinstance(e, events.Done)]
    assert done.stats.syntax_rejections == 0


@settings(max_examples=10, deadline=None)
@given(st.binary(min_size=1, max_size=3000), st.integers(0, 2999))
def test_bytes_are_only_ever_cut_or_lowered(data: bytes, at: int) -> None:
    source = b"\xff\x00" + data + b"\xfe"  # never UTF-8
    wanted = source[at % len(source) : at % len(source) + 2]
    test = Seen(wanted)
    reduced, seen = run(source, test)
    (start,) = [e for e in seen if isinstance(e, events.Start)]
    assert (start.language, start.front_end) == ("bytes", "bytes")
    assert all(cut_or_lowered(c, source) for c in test.asked)
    assert reduced == wanted and reduced in test.passed


def test_a_needle_in_a_binary_file_is_found_byte_for_byte() -> None:
    source = bytes(range(256)) * 60 + b"\x00NEEDLE\xff\x00" + bytes(range(255, -1, -1)) * 20
    test = Seen(b"\x00NEEDLE\xff")
    reduced, _ = run(source, test)
    assert reduced == b"\x00NEEDLE\xff"
    assert reduced in test.passed


def two_bytes_at_least(low: int) -> Callable[[bytes], bool]:
    """A test that a binary passes while it has two bytes or more, each `low` or more (fields
    that cannot be zero), recording what it passed."""
    passed: list[bytes] = []

    def test(candidate: bytes) -> bool:
        ok = len(candidate) >= 2 and min(candidate) >= low
        if ok:
            passed.append(candidate)
        return ok

    test.passed = passed  # type: ignore[attr-defined]
    return test


@pytest.mark.parametrize("deterministic", [False, True])
def test_a_byte_that_cannot_be_zero_is_lowered_to_the_smallest_value_that_passes(
    deterministic: bool,
) -> None:
    source = bytes(range(0x80, 0x100)) * 2  # never UTF-8; no byte below 0x80
    test = two_bytes_at_least(3)
    result = reduce(source, test=test, jobs=2, deterministic=deterministic)
    assert result.reduced == b"\x03\x03" and result.reduced in test.passed  # type: ignore[attr-defined]


def test_lowering_tries_the_values_in_order_within_its_budget() -> None:
    from treereduce_py.edit.edits import Edits
    from treereduce_py.lang.bytetree import chunk_table
    from treereduce_py.transform.zeroes import Lower, Lowering, Zero

    table = chunk_table(b"\x05\x09")
    leaf = next(n for n in range(len(table.start)) if table.source[table.start[n]] == 9)
    budget = Lowering(3)
    tries: list[Zero | Lower] = [Zero(leaf, budget)]
    while next_ := tries[-1].failed(table):
        (task,) = next_
        assert isinstance(task, Lower)
        tries.append(task)
    assert [t.value for t in tries[1:] if isinstance(t, Lower)] == [1, 2, 3]  # then no budget
    assert budget.spent == 3 and budget.left == 0
    assert Lower(leaf, 4).replacements(table, Edits()) == [(leaf, b"\x04")]
    assert Lower(leaf, 9).replacements(table, Edits()) is None  # no smaller than the byte
    assert Zero(leaf).failed(table) == []  # no budget: no lowering (a normal pass)


def test_a_strategy_with_no_stage_for_bytes_is_refused() -> None:
    with pytest.raises(BadOptions, match="ddmin strategy has no stage for bytes"):
        reduce(b"\x00\x01", language="bytes", test=lambda c: True, strategy="ddmin")
