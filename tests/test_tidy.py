"""The whitespace tidiers as pure functions."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from treereduce_py.transform.tidy import (
    dedent,
    single_spaces,
    squeeze_brackets,
    strip_ends,
    tidy_whitespace,
)


def test_trailing_spaces_blank_runs_and_leading_blank_lines_go() -> None:
    text = b"\n\n  \nint f() {  \n\n\n\n  return 0;\t\n}\n"
    assert tidy_whitespace(text) == b"int f() {\n\n  return 0;\n}\n"


def test_indentation_and_single_blank_lines_stay() -> None:
    text = b"def f():\n    x = 1\n\n    return x\n"
    assert tidy_whitespace(text) == text


def test_crlf_line_ends_keep_their_cr() -> None:
    assert tidy_whitespace(b"a  \r\nb\r\n") == b"a\r\nb\r\n"


@given(st.text(alphabet=" \t\nab", max_size=40).map(str.encode))
def test_tidying_never_grows_and_is_idempotent(text: bytes) -> None:
    once = tidy_whitespace(text)
    assert len(once) <= len(text)
    assert tidy_whitespace(once) == once
    assert once.split() == text.split()  # only whitespace changes


def test_dedent_removes_common_indentation_only() -> None:
    assert dedent(b"    a\n      b\n") == b"a\n  b\n"
    assert dedent(b"\xff  x\n") == b"\xff  x\n"  # not UTF-8: untouched


def test_spaces_inside_brackets_go_but_indentation_stays() -> None:
    assert squeeze_brackets(b"(assert (( (f x) ) ))\n") == b"(assert (((f x))))\n"
    assert squeeze_brackets(b"f( a, b )\n    )\n") == b"f(a, b)\n    )\n"


@given(st.text(alphabet=" \t\n()[]ab", max_size=40).map(str.encode))
def test_squeezing_brackets_only_removes_spaces(text: bytes) -> None:
    once = squeeze_brackets(text)
    assert once.replace(b" ", b"").replace(b"\t", b"") == text.replace(b" ", b"").replace(
        b"\t", b""
    )
    assert squeeze_brackets(once) == once


def test_text_tidiers_strip_the_ends_and_single_the_spaces_inside_lines() -> None:
    text = b"\n  key  =\t\tvalue  # note\n    indented   x\n\n"
    assert strip_ends(text) == b"key  =\t\tvalue  # note\n    indented   x"
    assert single_spaces(text) == b"\n  key = value # note\n    indented x\n\n"
    assert single_spaces(b"a b\n") == b"a b\n" and strip_ends(b"") == b""
