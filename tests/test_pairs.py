"""Token pairs: balanced brackets (and generics' angle brackets) and neighbours, as one deletion;
checked on C, Rust, Python and JavaScript with the planner over a real token table."""

from __future__ import annotations

import re

import pytest

from treereduce_py.edit.edits import Edits, render
from treereduce_py.edit.tasks import Drop, task_edits
from treereduce_py.lang.languages import new_parser
from treereduce_py.lang.syntax import NodeTable, count_errors
from treereduce_py.transform.pairs import adjacent_pairs, balanced_pairs
from treereduce_py.transform.planners import PairPlanner


def tokens(src: bytes) -> list[bytes]:
    return re.findall(rb"[A-Za-z0-9_]+|[^\sA-Za-z0-9_]", src)


def spans(src: bytes) -> list[bytes]:
    toks = tokens(src)
    return [b"".join(toks[i : j + 1]) for i, j in balanced_pairs(toks)]


def test_brackets_pair_with_their_match() -> None:
    assert spans(b"f(a[1], {b})") == [b"(a[1],{b})", b"[1]", b"{b}"]


def test_angle_brackets_pair_only_after_a_name() -> None:
    assert spans(b"Vec<Vec<u8>> x; if (a < b) {}") == [b"<Vec<u8>>", b"<u8>", b"(a<b)", b"{}"]
    assert spans(b"fn f() -> u8 {}") == [b"()", b"{}"]  # `->` opens nothing


def test_unbalanced_brackets_pair_with_nothing_across() -> None:
    assert spans(b"a) (b") == []


def test_adjacent_pairs() -> None:
    assert adjacent_pairs(3) == [(0, 1), (1, 2)]
    assert adjacent_pairs(1) == []


def applied(lang: str, src: bytes, wanted: bytes) -> bytes:
    """The result of the planner's one task that deletes the tokens `wanted` (stripped)."""
    table = NodeTable.from_tokens(src)
    for task in PairPlanner(table).initial():
        assert isinstance(task, Drop)
        if b"".join(table.text(n).strip() for n in task.nodes) == wanted:
            edits = task_edits(table, Edits(), task)
            assert edits is not None
            out = render(table, edits)
            assert count_errors(new_parser(lang).parse(out)) == 0, out
            return out
    raise AssertionError(f"no pair {wanted!r}")


@pytest.mark.parametrize(
    ("lang", "src", "pair", "expected"),
    [
        ("c", b"int x = (1 + 2);", b"()", b"int x = 1 + 2;"),
        ("rust", b"let v: Vec<u8> = w;", b"<>", b"let v: Vecu8= w;"),
        ("rust", b"let x: u8 = 0;", b":u8", b"let x= 0;"),
        ("python", b"x = (a)\n", b"()", b"x = a"),
        ("javascript", b"if (a) { f(); }", b"{}", b"if (a) f(); "),
    ],
)
def test_planner_offers_the_pair(lang: str, src: bytes, pair: bytes, expected: bytes) -> None:
    assert applied(lang, src, pair) == expected
