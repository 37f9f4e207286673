"""SMT-LIB read through the scheme grammar (language_table.DIALECTS): hand-written edge cases
and generated S-expressions parse without errors, and the node table covers every byte."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treereduce_py.edit.edits import Edits, render
from treereduce_py.lang.languages import new_parser
from treereduce_py.lang.syntax import NodeTable, count_errors

EDGE_CASES = [
    b"; a comment with (an unbalanced paren\n(set-logic QF_BV)\n",
    b'(assert (= s "say ""hi"" (not a paren"))',
    b'(assert (= s ""))(assert (= s """"))',
    b"(set-info :source |multi\nline source with ) paren|)",
    b"(declare-fun |x y| () (_ BitVec 8))(assert (bvult |x y| #b00001111))",
    b"(assert (= (_ bv0 8) (bvand x #xDEADbeef)))",
    b"(assert (! (bvult x y) :named a1))",
    b"(define-fun f ((a (_ BitVec 8))) Bool (let ((b (bvadd a #x01)) (c a)) (bvule b c)))",
    b"(assert (f ((_ extract 7 0) x)))",
    b"(assert (= 1.5 (/ 3.0 2.0) (- 5)))",
    b"(declare-const x!1 Int)(declare-const a@b Int)(declare-const .x Int)(declare-const ?y Int)",
    b"(assert (= ((as const (Array Int Int)) 0) (store ((as const (Array Int Int)) 0) 1 0)))",
    b"(assert (forall ((q Int)) (! (> q (- 5)) :pattern ((f q)))))",
    b'(assert (str.in_re s (re.* (str.to_re "\\u{48}"))))',
    b"(check-sat) ; trailing comment\n(get-model)\n(exit)\n",
]

ATOM_KINDS = {"symbol", "number", "string", "boolean", "keyword"}


def _table(source: bytes) -> tuple[NodeTable, int]:
    tree = new_parser("smtlib").parse(source)
    return NodeTable.from_tree(source, tree), count_errors(tree)


def _uncovered(table: NodeTable) -> list[int]:
    """Non-space bytes outside every top-level node (lists, atoms, comments)."""
    covered = bytearray(len(table.source))
    for c in table.children(0):
        covered[table.start[c] : table.end[c]] = b"\1" * table.size(c)
    return [i for i, b in enumerate(table.source) if not covered[i] and not chr(b).isspace()]


@pytest.mark.parametrize("source", EDGE_CASES)
def test_edge_cases_parse_without_errors_and_are_covered(source: bytes) -> None:
    table, errors = _table(source)
    assert errors == 0
    assert _uncovered(table) == []
    assert render(table, Edits()) == source


def test_quoted_symbol_with_spaces_and_newlines_is_one_node() -> None:
    source = b"(set-info :source |multi\nline ) source|)"
    table, _ = _table(source)
    kinds = {table.text(i): table.kind_name(i) for i in range(len(table)) if table.named[i]}
    assert kinds[b"|multi\nline ) source|"] == "symbol"


def test_literals_are_single_atoms() -> None:
    table, _ = _table(b"(assert (= #b0101 #xff (_ bv0 8) 42))")
    atoms = {table.text(i) for i in range(len(table)) if table.kind_name(i) in ATOM_KINDS}
    assert {b"#b0101", b"#xff", b"bv0", b"42"} <= atoms


def test_a_string_with_escaped_quotes_stays_inside_its_list() -> None:
    source = b'(assert (= s "a "" ) b"))(check-sat)'
    table, errors = _table(source)
    assert errors == 0
    top = [table.text(c) for c in table.children(0)]
    assert top == [b'(assert (= s "a "" ) b"))', b"(check-sat)"]


# --- generated S-expressions ---------------------------------------------------------------------

_simple = st.from_regex(r"[a-z~!@$%^&*_+=<>.?/-][a-z0-9~!@$%^&*_+=<>.?/-]{0,6}", fullmatch=True)
_quoted = st.from_regex(r"\|[a-z ()\n;\"]{0,8}\|", fullmatch=True)
_numeral = st.from_regex(r"0|[1-9][0-9]{0,5}", fullmatch=True)
_decimal = st.from_regex(r"[0-9]{1,3}\.[0-9]{1,3}", fullmatch=True)
_binary = st.from_regex(r"#b[01]{1,16}", fullmatch=True)
_hex = st.from_regex(r"#x[0-9a-fA-F]{1,8}", fullmatch=True)
_string = st.from_regex(r'"([a-z ()|;]|"")*"', fullmatch=True)
_keyword = st.from_regex(r":[a-z][a-z-]{0,6}", fullmatch=True)
_atom = st.one_of(_simple, _quoted, _numeral, _decimal, _binary, _hex, _string, _keyword)
_sexpr = st.recursive(
    _atom,
    lambda inner: st.lists(inner, max_size=5).map(lambda xs: "(" + " ".join(xs) + ")"),
    max_leaves=30,
)
_command = st.lists(_sexpr, min_size=1, max_size=4).map(lambda xs: "(" + " ".join(xs) + ")")
_comment = st.from_regex(r"; [a-z ()|\"]{0,20}", fullmatch=True)
_script = st.lists(st.one_of(_command, _comment), min_size=1, max_size=6)


@settings(max_examples=200, deadline=None)
@given(_script)
def test_generated_scripts_parse_without_errors_and_keep_their_commands(items: list[str]) -> None:
    source = "\n".join(items).encode()
    table, errors = _table(source)
    assert errors == 0, source
    assert _uncovered(table) == []
    # Each command or comment is one top-level node: the list the reducer cuts with CDD.
    assert [table.text(c).decode() for c in table.children(0)] == items
