"""Whitespace minimization: smallest safe gaps, checked by the parser, in several languages."""

from __future__ import annotations

import pytest

from treereduce_py.transform import whitespace
from treereduce_py.transform.whitespace import apply, minimize, plan, safe_gaps, shape


def minimal(text: bytes, lang: str) -> bytes:
    return apply(text, safe_gaps(text, lang, plan(text, lang)))


@pytest.mark.parametrize(
    ("lang", "text", "expected"),
    [
        (
            "c",
            b"int   main( void ) {\n    int  x = 1 ;\n    return x - -1 ; /* a  b */\n"
            b'    puts("a  b");\n}\n',
            b'int main(void){int x=1;return x- -1;/* a  b */puts("a  b");}',
        ),
        (
            "rust",
            b"struct Branch<const C: u8  >;\nfn  main() {\n    let x: Vec<Vec<u8> > = vec![];\n}\n",
            b"struct Branch<const C:u8>;fn main(){let x:Vec<Vec<u8>>=vec![];}",
        ),
        (
            "javascript",
            b"const  a = 1 ;\nlet b = a + +a;\nconst s = 'x  y';\n",
            b"const a=1;let b=a+ +a;const s='x  y';",
        ),
    ],
)
def test_minimal_whitespace(lang: str, text: bytes, expected: bytes) -> None:
    assert minimal(text, lang) == expected
    assert shape(expected, lang) == shape(text, lang)


def test_python_indentation_survives() -> None:
    text = (
        b"class A:\n    def f(self,  x):\n        if x :\n            return  'a  b'\n"
        b"        return 2\n\n\nprint( A().f(1),\n       [2,\n        3] )\n"
    )
    out = minimal(text, "python")
    assert out == (
        b"class A:\n def f(self,x):\n  if x:\n   return 'a  b'\n  return 2\nprint(A().f(1),[2,3])"
    )
    namespace: dict[str, object] = {}
    exec(compile(out, "<min>", "exec"), namespace)  # still a valid program with the same blocks
    assert shape(out, "python") == shape(text, "python")


def test_line_comment_keeps_its_newline() -> None:
    text = b"int x; // note\nint y;\n"
    assert minimal(text, "c") == b"int x;// note\nint y;"


def test_unsafe_gaps_are_left_alone() -> None:
    # Joining `x` and `-` is fine, but `- -` must keep a space: the parse says so.
    text = b"int f(int x) { return x - -x; }"
    out = minimal(text, "c")
    assert b"- -" in out
    assert shape(out, "c") == shape(text, "c")


def test_keep_lines_keeps_line_numbers() -> None:
    text = b"int a;\n\n   int  b;\nint c ;\n"
    gaps = plan(text, "c", keep_lines=True)
    out = apply(text, safe_gaps(text, "c", gaps))
    assert out == b"int a;\n\nint b;\nint c;"


def test_minimize_asks_the_test_and_falls_back_to_kept_lines() -> None:
    text = b"int a ;\n  int  b ;\n"
    asked: list[bytes] = []

    def needs_two_lines(candidate: bytes) -> bool:
        asked.append(candidate)
        return candidate.count(b"\n") == 1

    out = minimize(text, "c", needs_two_lines)
    assert out == b"int a;\nint b;"
    assert asked[0] == b"int a;int b;"  # the whole plan first, one test


def test_minimize_returns_the_text_when_nothing_passes() -> None:
    text = b"int a ;\n"
    assert minimize(text, "c", lambda c: False) == text


def test_bisection_budget_is_respected() -> None:
    calls = []

    def keeps(chunk: list[whitespace.Gap]) -> bool:
        calls.append(len(chunk))
        return False

    gaps = [whitespace.Gap(i, i + 1, b"") for i in range(64)]
    assert whitespace.bisect_safe(gaps, keeps, [10]) == []
    assert len(calls) == 10


def test_crlf_line_endings_stay() -> None:
    text = b"def f(x):\r\n    return  x\r\n\r\nf(1)\r\n"
    assert minimal(text, "python") == b"def f(x):\r\n return x\r\nf(1)"
