"""Reduction inside tokens (transform/tokens.py, the `@trim` capture): what a literal may become,
and real reductions that need it, with the languages' own tools."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import QUICK, which

from treereduce_py import reduce
from treereduce_py.edit.tasks import Replace
from treereduce_py.lang.languages import get_language, new_parser
from treereduce_py.lang.syntax import NodeTable, count_errors
from treereduce_py.transform.facts import SyntaxFacts
from treereduce_py.transform.tokens import trims

SAMPLES = {
    "c": b'int main(void) { char *s = "ab\\x41rtf"; return 1234 + 0x1f; }\n',
    "rust": b'fn main() { let s = "a\\nbc"; let r = r#"xy"#; let n = 1234u32; }\n',
    "python": b's = b"ab\\n"\nf = f"a{s}b"\nn = 1234 + 2.5\n',
    "javascript": b'let s = "a\\nbc"; let t = `ab`; let n = 0x1f;\n',
    "smtlib": b'(declare-const s String)\n(assert (= s "abc"))\n(assert (> 1234 0))\n',
}


def trimmed(lang: str) -> tuple[NodeTable, dict[int, list[bytes]]]:
    src = SAMPLES[lang]
    tree = new_parser(lang).parse(src)
    table = NodeTable.from_tree(src, tree)
    facts = SyntaxFacts.build(table, get_language(lang), lang=lang, tree=tree)
    found = facts.captured("trim")
    assert all(isinstance(t, Replace) for tasks in found.values() for t in tasks)
    texts = {n: [t.text for t in tasks if isinstance(t, Replace)] for n, tasks in found.items()}
    return table, texts


@pytest.mark.parametrize("lang", sorted(SAMPLES))
def test_every_trim_is_shorter_and_parses_as_the_same_token(lang: str) -> None:
    table, found = trimmed(lang)
    assert found, f"no @trim in {lang}"
    for node, texts in found.items():
        assert texts == trims(table, node)
        for text in texts:
            assert len(text) < table.size(node)
            src = table.source
            candidate = src[: table.start[node]] + text + src[table.end[node] :]
            tree = new_parser(lang).parse(candidate)
            assert count_errors(tree) == 0, candidate
            at = tree.root_node.descendant_for_byte_range(
                table.start[node], table.start[node] + len(text)
            )
            assert at is not None and at.text == text


def texts_of(lang: str, literal: bytes) -> list[bytes]:
    table, found = trimmed(lang)
    return next(texts for n, texts in found.items() if table.text(n) == literal)


def test_strings_keep_delimiters_and_whole_escapes() -> None:
    assert texts_of("c", b'"ab\\x41rtf"') == [b'""', b'"rtf"', b'"ab\\x41"']  # 6 units
    assert b'r#"x"#' in texts_of("rust", b'r#"xy"#')
    assert b'b"ab"' in texts_of("python", b'b"ab\\n"')  # `\n` stays one unit
    assert b"``" in texts_of("javascript", b"`ab`")
    assert texts_of("smtlib", b'"abc"') == [b'""', b'"ab"', b'"bc"']


def test_numbers_become_0_or_1_and_interpolated_strings_stay() -> None:
    assert texts_of("python", b"1234") == [b"0", b"1"]
    assert texts_of("c", b"0x1f") == [b"0", b"1"]
    assert texts_of("rust", b"1234u32") == [b"0", b"1"]
    table, found = trimmed("python")
    assert all(table.text(n) != b'f"a{s}b"' for n in found)


# --- real reductions -----------------------------------------------------------------------------


def prints_a(
    run: list[str], tmp_path: Path, build: list[str] | None = None
) -> Callable[[bytes], bool]:
    """A test: the program (built first, when `build` is given) runs and prints an `A`."""
    name = run[-1] if build is None else build[-1]

    def test(candidate: bytes) -> bool:
        (tmp_path / name).write_bytes(candidate)
        try:
            if build is not None:
                made = subprocess.run(build, cwd=tmp_path, capture_output=True, timeout=QUICK)
                if made.returncode != 0:
                    return False
            done = subprocess.run(run, cwd=tmp_path, capture_output=True, timeout=QUICK)
        except subprocess.TimeoutExpired:
            return False
        return done.returncode == 0 and b"A" in done.stdout

    return test


SENTENCE = "it is A here"


@pytest.mark.parametrize(
    ("lang", "src", "tools"),
    [
        ("python", f'print("{SENTENCE}")\n', ["python3"]),
        ("javascript", f'console.log("{SENTENCE}");\n', ["node"]),
        ("c", f'#include <stdio.h>\nint main(void) {{ puts("{SENTENCE}"); }}\n', ["gcc"]),
        ("rust", f'fn main() {{ println!("{{}}", "{SENTENCE}"); }}\n', ["rustc"]),
    ],
)
def test_a_string_shrinks_to_what_the_program_must_print(
    lang: str, src: str, tools: list[str], tmp_path: Path
) -> None:
    tool = which(*tools)
    if lang == "python":
        test = prints_a([tool, "-S", "p.py"], tmp_path)
    elif lang == "javascript":
        test = prints_a([tool, "p.js"], tmp_path)
    elif lang == "c":
        test = prints_a(["./p"], tmp_path, [tool, "-w", "-o", "p", "p.c"])
    else:
        test = prints_a(["./p"], tmp_path, [tool, "-o", "p", "p.rs"])
    result = reduce(src.encode(), language=lang, test=test, jobs=1, polish=False)
    assert test(result.reduced)
    assert b'"A"' in result.reduced, result.reduced


def test_a_number_shrinks_where_any_count_will_do(tmp_path: Path) -> None:
    python = which("python3")
    test = prints_a([python, "-S", "p.py"], tmp_path)
    result = reduce(b'print("A" * 1234)\n', language="python", test=test, jobs=1)
    assert test(result.reduced)
    assert b"1234" not in result.reduced and b"12" not in result.reduced


def test_an_smtlib_string_shrinks_to_what_z3_needs(tmp_path: Path) -> None:
    beside = Path(sys.executable).parent / "z3"  # PyPI's z3-solver, in the test extras
    z3 = str(beside) if beside.exists() else which("z3")  # skips when z3 is not installed
    src = b'(declare-const s String)\n(assert (str.contains s "it is A here"))\n(check-sat)\n'

    def test(candidate: bytes) -> bool:
        (tmp_path / "p.smt2").write_bytes(candidate)
        done = subprocess.run([z3, "p.smt2"], cwd=tmp_path, capture_output=True, timeout=QUICK)
        return done.stdout.strip() == b"sat" and b"A" in candidate

    result = reduce(src, language="smtlib", test=test, jobs=1, polish=False)
    assert test(result.reduced)
    assert b'"A"' in result.reduced, result.reduced
