"""Tests for lang.texttree: the inferred tree of any text keeps a parse's invariants and tiles
the text; brackets, strings, indentation blocks, paragraphs and items become the nodes a
person would draw; broken brackets never break it; and the tree stage's planner finds the
deletions and hoists it was built for."""

from __future__ import annotations

import pytest
from conftest import assert_tiles
from hypothesis import given, settings
from hypothesis import strategies as st

from treereduce_py.edit.tasks import Hoist
from treereduce_py.lang.syntax import NodeTable
from treereduce_py.lang.texttree import text_table
from treereduce_py.transform.facts import SyntaxFacts
from treereduce_py.transform.hoists import Kinds, chi
from treereduce_py.transform.planners import TreePlanner


def nodes(table: NodeTable, kind: str) -> list[bytes]:
    """The texts of the nodes of `kind`, in pre-order."""
    return [table.text(i) for i in range(len(table)) if table.kind_name(i) == kind]


def node(table: NodeTable, text: bytes, kind: str | None = None) -> int:
    """The first node spanning exactly `text` (of `kind`, when given)."""
    return next(
        i
        for i in range(len(table))
        if table.text(i) == text and (kind is None or table.kind_name(i) == kind)
    )


# Pieces that make brackets, quotes and layout collide.
PIECES = [b"(", b")", b"[", b"]", b"{", b"}", b'"', b"'", b"`", b",", b";", b"\n", b"\n\n"]
PIECES += [b"  ", b"\t", b"\r\n", b"a", b"bc ", b"=", b"\\", b"\xc3\xa9", b"\x00", b"  x\n"]


@settings(deadline=None)
@given(st.text())
def test_any_utf8_text_is_tiled(text: str) -> None:
    source = text.encode()
    assert_tiles(text_table(source), source)


@settings(deadline=None)
@given(st.lists(st.sampled_from(PIECES)).map(b"".join))
def test_bracket_and_layout_soup_is_tiled(source: bytes) -> None:
    assert_tiles(text_table(source), source)


@settings(deadline=None)
@given(st.binary())
def test_any_bytes_are_tiled(source: bytes) -> None:
    assert_tiles(text_table(source), source)


@settings(deadline=None)
@given(st.lists(st.sampled_from(PIECES)).map(b"".join))
def test_group_brackets_are_anonymous_and_bound_their_group(source: bytes) -> None:
    table = text_table(source)
    for i in range(len(table)):
        kind = table.kind_name(i)
        assert table.named[i] == (kind not in ("open", "close"))
        if kind in ("parens", "brackets", "braces"):
            kids = list(table.children(i))
            assert table.kind_name(kids[0]) == "open"
            assert (
                table.text(kids[0]).lstrip()[:1]
                == {"parens": b"(", "brackets": b"[", "braces": b"{"}[kind]
            )
            closers = [k for k in kids if table.kind_name(k) == "close"]
            assert closers in ([], [kids[-1]])
            if closers:
                assert (
                    table.text(kids[-1]).lstrip()[:1]
                    == {"parens": b")", "brackets": b"]", "braces": b"}"}[kind]
                )


def test_empty_text_is_a_lone_root() -> None:
    table = text_table(b"")
    assert len(table) == 1 and table.size(0) == 0


def test_whitespace_only_text_is_one_deletable_leaf() -> None:
    table = text_table(b" \n\t\n")
    assert len(table) == 2 and table.named[1] and table.kind_name(1) == "space"


def test_balanced_groups_nest() -> None:
    table = text_table(b"f(a, [b (c)]) {x}\n")
    assert nodes(table, "parens") == [b"(a, [b (c)]) ", b"(c)"]
    assert nodes(table, "brackets") == [b"[b (c)]"]
    assert nodes(table, "braces") == [b"{x}\n"]


def test_separators_end_items() -> None:
    table = text_table(b"f(a, g(b, c), d)\n")
    # A one-token item is that token.
    assert nodes(table, "item") == [b"a, ", b"g(b, c), ", b"b, "]
    assert b"d" in nodes(table, "word") and b"c" in nodes(table, "word")


def test_an_unmatched_closer_is_a_plain_token() -> None:
    table = text_table(b"1) one\n2) two\n")
    assert nodes(table, "punct") == [b") ", b") "]
    assert nodes(table, "parens") == []


def test_an_unclosed_opener_ends_with_its_indentation_block() -> None:
    source = b"a (b\n  c\n  d\ne\n"
    table = text_table(source)
    assert nodes(table, "parens") == [b"(b\n  c\n  d\n"]
    assert node(table, b"e\n") in list(table.children(0))


def test_a_closer_closes_the_opener_it_matches_and_those_inside_end_before_it() -> None:
    table = text_table(b"(a [b) c]\n")
    assert nodes(table, "parens") == [b"(a [b) "]
    assert nodes(table, "brackets") == [b"[b"]
    assert nodes(table, "punct") == [b"]\n"]


def test_quoted_strings_are_leaves_and_apostrophes_are_not_quotes() -> None:
    table = text_table(b"say \"a (b\" don't (x) 'q'\n")
    assert nodes(table, "string") == [b'"a (b" ', b"'q'\n"]
    assert nodes(table, "parens") == [b"(x) "]


def test_brackets_in_strings_do_not_count_and_blocks_nest() -> None:
    source = b'[db]\nurl = "x(y"\nopts = f(g(1), [2])\n\nblock:\n  inner\n    deeper\nend\n'
    table = text_table(source)
    assert nodes(table, "parens") == [b"(g(1), [2])\n\n", b"(1)"]  # the blank line trails it
    assert nodes(table, "brackets") == [b"[db]\n", b"[2]"]
    assert nodes(table, "string") == [b'"x(y"\n']
    assert nodes(table, "block") == [b"block:\n  inner\n    deeper\n", b"  inner\n    deeper\n"]


def test_indented_lines_make_a_block_under_the_line_before() -> None:
    source = b"top\n  one\n    deep\n  two\nnext\n"
    table = text_table(source)
    assert nodes(table, "block") == [b"top\n  one\n    deep\n  two\n", b"  one\n    deep\n"]
    # Deleting a block takes its lines and their line breaks, and leaves the next line alone.
    block = node(table, b"  one\n    deep\n")
    assert source[: table.start[block]] + source[table.end[block] :] == b"top\n  two\nnext\n"


def test_blank_lines_separate_paragraphs() -> None:
    source = b"[a]\nx = 1\ny = 2\n\n[b]\nz = 3\n"
    table = text_table(source)
    assert nodes(table, "paragraph") == [b"[a]\nx = 1\ny = 2\n\n", b"[b]\nz = 3\n"]
    assert nodes(table, "line") == [b"x = 1\n", b"y = 2\n\n", b"z = 3\n"]


def test_a_group_over_several_lines_holds_them_as_lines() -> None:
    source = b"server {\n    listen 80;\n    name x;\n}\nend\n"
    table = text_table(source)
    group = node(table, b"{\n    listen 80;\n    name x;\n}\n", "braces")
    assert [table.text(c) for c in table.children(group)] == [
        b"{\n",
        b"    listen 80;\n",
        b"    name x;\n",
        b"}\n",
    ]
    assert [table.kind_name(c) for c in table.children(group)][1:3] == ["line", "line"]


def test_utf8_sequences_are_never_split() -> None:
    source = "naïve café ünïcödé\n".encode()
    table = text_table(source)
    for i in range(len(table)):
        table.text(i).decode()  # raises if a node cut a character in two


@pytest.mark.parametrize("depth", [5000])
def test_deep_nesting_needs_no_recursion(depth: int) -> None:
    for source in (
        b"(" * depth + b")" * depth,
        b"(" * depth,
        b"".join(b" " * k + b"x\n" for k in range(depth)),
    ):
        assert_tiles(text_table(source), source)


def test_a_group_may_be_hoisted_into_its_place() -> None:
    table = text_table(b"keep(drop (inner x) more)\n")
    outer = node(table, b"(drop (inner x) more)\n", "parens")
    inner = node(table, b"(inner x) ", "parens")
    assert chi(table, Kinds(), outer) == [inner]
    planner = TreePlanner(table, SyntaxFacts.build(table, None))
    assert Hoist(outer, inner) in planner.alternatives(outer)
