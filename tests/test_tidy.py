"""The whitespace tidiers as pure functions."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import treereduce_py
from treereduce_py import events
from treereduce_py.run import session
from treereduce_py.transform.tidy import (
    dedent,
    single_spaces,
    squeeze_brackets,
    strip_ends,
    tidy_whitespace,
    unix_lines,
)

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))
from scale_gen import generate  # type: ignore[import-not-found]  # noqa: E402


def test_trailing_spaces_blank_runs_and_leading_blank_lines_go() -> None:
    text = b"\n\n  \nint f() {  \n\n\n\n  return 0;\t\n}\n"
    assert tidy_whitespace(text) == b"int f() {\n\n  return 0;\n}\n"


def test_indentation_and_single_blank_lines_stay() -> None:
    text = b"def f():\n    x = 1\n\n    return x\n"
    assert tidy_whitespace(text) == text


def test_crlf_line_ends_keep_their_cr() -> None:
    assert tidy_whitespace(b"a  \r\nb\r\n") == b"a\r\nb\r\n"


@pytest.mark.parametrize("needs_cr", [False, True])
def test_crlf_line_ends_become_lf_unless_the_test_needs_them(needs_cr: bool) -> None:
    # python-pyparsing-import (CRLF, from a real package) ended at 46 B where C-Vise had 45 B:
    # the same two lines with LF.
    text = b"import collections\r\n\r\nx = 1\r\ncollections.MutableMapping\r\n"

    def test(candidate: bytes) -> bool:
        lines = {line.strip() for line in candidate.splitlines()}
        both = {b"import collections", b"collections.MutableMapping"} <= lines
        return both and (b"\r" in candidate or not needs_cr)

    result = treereduce_py.reduce(text, language="python", test=test, jobs=1)
    eol = b"\r\n" if needs_cr else b"\n"
    assert result.reduced.strip() == b"import collections" + eol + b"collections.MutableMapping"


def test_unix_lines_replaces_only_crlf() -> None:
    assert unix_lines(b"a\r\nb\rc\n\r\n") == b"a\nb\rc\n\n"


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


@pytest.mark.parametrize("sweep", [True, False])
def test_a_tree_pass_leaves_no_kilobytes_of_blank_lines(
    monkeypatch: pytest.MonkeyPatch, sweep: bool
) -> None:
    # Deleting the 3000 items of 200 KB of C but two leaves a blank line for each: swept in one
    # candidate after the pass (session.sweep_gaps), not left to the lines stage's tests.
    if not sweep:
        monkeypatch.setattr(session, "SWEEP_MIN_BYTES", 1 << 30)
    text = generate("c", 200_000).encode()
    passes: list[tuple[str, int]] = []

    def sink(event: object) -> None:
        if isinstance(event, events.PassChange):
            passes.append((event.phase, event.size))

    def test(candidate: bytes) -> bool:
        return b"struct trigger_shape {" in candidate and b"return s->depth;" in candidate

    result = treereduce_py.reduce(text, language="c", test=test, jobs=1, progress=sink)
    assert test(result.reduced)
    assert passes[1][0] == passes[2][0] == "tree"
    # The second tree pass starts from the two items alone, or with a blank line for each item.
    assert (passes[2][1] < 200) == sweep
    assert passes[2][1] > 2000 or sweep
