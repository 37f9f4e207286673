"""A C function whose body's one use is an expression, made a file-scope variable initialized
with it (`@global`, `@global.value`): `b(){b==b;}` -> `b=b==b;`, as Shrink Ray reached on
bench/cases/c-csmith-warning; offered among the function's alternatives and checked with gcc."""

from __future__ import annotations

from pathlib import Path

from conftest import run_tool, which

from treereduce_py import reduce
from treereduce_py.edit.tasks import Replace
from treereduce_py.judge.oracle import CommandOracle
from treereduce_py.run.reading import prepare
from treereduce_py.transform.planners import TreePlanner
from treereduce_py.transform.strategies import Stage

TREE = Stage("tree", "syntax", "tree")


def offered(src: bytes) -> dict[bytes, list[bytes]]:
    """What each function a @global pattern captures may become (its Replace alternatives that
    the capture made)."""
    table, facts, _ = prepare(TREE, src, "c", ())
    planner = TreePlanner(table, facts)
    return {
        table.text(n): [
            t.text for t in planner.alternatives(n) if isinstance(t, Replace) and b"=" in t.text
        ]
        for n in facts.captured("global")
    }


def test_a_function_of_one_expression_statement_is_offered_as_an_initializer() -> None:
    src = b"int b(void) { b == b; }\nlong f(int x) { g(x) + 1; }\nvoid h() {}\nk() { 1; 2; }\n"
    got = offered(src)
    assert got == {
        b"int b(void) { b == b; }": [b"b=b == b;"],
        b"long f(int x) { g(x) + 1; }": [b"g=g(x) + 1;"],
    }
    # no expression statement (h) or more than one statement (k): nothing offered


WARNING = """#!/usr/bin/env bash
f="$(realpath "$1")"; t="$(mktemp -d)"; trap 'rm -rf "$t"' EXIT
LC_ALL=C gcc -O2 -Wall -Wextra -c "$f" -o "$t/a.o" 2>"$t/err" || exit 1
grep -q -- '-Wtautological-compare' "$t/err"
"""


def test_a_warning_that_needs_one_comparison_ends_at_file_scope(tmp_path: Path) -> None:
    which("gcc")
    test = tmp_path / "warns.sh"
    test.write_text(WARNING)
    test.chmod(0o755)
    src = b"int g(int x) { return x + 1; }\nint b(void) { int q = 3; b == b; return q; }\n"
    (tmp_path / "in.c").write_bytes(src)
    assert run_tool([str(test), "in.c"], tmp_path).returncode == 0
    with CommandOracle([str(test), "@@"], input_name="in.c") as oracle:
        result = reduce(src, language="c", test=oracle, jobs=2)
    # ... and the operator hint makes the comparison `<` (gcc still warns).
    assert result.reduced == b"b=b<b;", result.reduced
