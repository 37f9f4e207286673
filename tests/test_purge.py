"""Deleting a definition together with the statements that use its name (query files' @define):
which uses go with it, which names get no purge, the purged programs checked with javac/java,
gcc and node, and a reduction that only a purge can finish."""

from __future__ import annotations

import ast
import traceback
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import run_tool, which

from treereduce_py import reduce
from treereduce_py.edit.edits import Edits, render
from treereduce_py.edit.tasks import Purge, task_edits
from treereduce_py.lang.syntax import NodeTable
from treereduce_py.run.reading import prepare
from treereduce_py.transform.captures import CAPTURES
from treereduce_py.transform.strategies import Stage

TREE = Stage("tree", "syntax", "tree")


def purges(lang: str, src: bytes) -> tuple[NodeTable, dict[bytes, Purge]]:
    """The purges offered in `src`, by the first line of their definition."""
    table, facts, _ = prepare(TREE, src, lang, ())
    found = [t for ts in facts.captured("define").values() for t in ts if isinstance(t, Purge)]
    by_head = {table.text(t.definition).split(b"\n")[0]: t for t in found}
    assert len(by_head) == len(facts.captured("define"))
    return table, by_head


def uses(table: NodeTable, task: Purge) -> list[bytes]:
    return [table.text(u) for u in task.uses]


def purge_each(lang: str, src: bytes, heads: list[bytes]) -> bytes:
    table, tasks = purges(lang, src)
    edits: Edits | None = Edits()
    for head in heads:
        assert edits is not None
        edits = task_edits(table, edits, tasks[head])
    assert edits is not None
    return render(table, edits)


JAVA_SRC = b"""import java.util.*;

public class Main {
    public static void main(String[] args) {
        List<Rule> rules = new ArrayList<>();
        rules.add(new Half());
        rules.add(new Twice());
        Twice t = new Twice();
        int total = 84;
        for (Rule r : rules) total = r.apply(total);
        System.out.println(total + t.apply(0));
    }
}

interface Rule { int apply(int x); }

class Half implements Rule {
    public int apply(int x) { return x / 2; }
}

class Twice implements Rule {
    public int apply(int x) { return x * 2; }
}
"""


def test_a_class_goes_with_the_statements_that_name_it() -> None:
    table, tasks = purges("java", JAVA_SRC)
    half = tasks[b"class Half implements Rule {"]
    assert uses(table, half) == [b"rules.add(new Half());"]
    # What uses `t`, which only `Twice t = ...` defines, goes with it.
    twice = tasks[b"class Twice implements Rule {"]
    assert uses(table, twice) == [
        b"rules.add(new Twice());",
        b"Twice t = new Twice();",
        b"System.out.println(total + t.apply(0));",
    ]
    # A loop whose body is the use goes whole.
    assert uses(table, tasks[b"int total = 84;"])[0].startswith(b"for (Rule r : rules)")
    # `apply` is defined in the interface and in both classes: no purge for any of them.
    kinds = {table.kind_name(t.definition) for t in tasks.values()}
    assert "method_declaration" not in kinds and "class_declaration" in kinds


def test_java_purged_program_compiles_and_runs(tmp_path: Path) -> None:
    java = which("java")
    out = purge_each("java", JAVA_SRC, [b"class Half implements Rule {"])
    assert b"Half" not in out, out
    (tmp_path / "Main.java").write_bytes(out)
    done = run_tool([java, "Main.java"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == b"168\n"


C_SRC = b"""#include <stdio.h>
static int one(void) { return 1; }
static int two(void) { return 2; }
static int (*table[])(void) = { one, two };
int main(void) {
    printf("%d\\n", table[0]());
    two();
    return 0;
}
"""


def test_a_use_in_a_list_takes_only_its_element(tmp_path: Path) -> None:
    gcc = which("gcc")
    table, tasks = purges("c", C_SRC)
    two = tasks[b"static int two(void) { return 2; }"]
    assert uses(table, two) == [b"two", b"two();"]
    out = purge_each("c", C_SRC, [b"static int two(void) { return 2; }"])
    assert b"two" not in out and b"{ one }" in out.replace(b"  ", b" "), out
    (tmp_path / "p.c").write_bytes(out)
    assert run_tool([gcc, "-o", "p", "p.c"], tmp_path).returncode == 0
    assert run_tool([tmp_path / "p"], tmp_path).stdout == b"1\n"


def test_a_loop_goes_whole_with_a_name_in_its_header_or_its_brace_less_body() -> None:
    src = (
        b"int n = 3;\nint main(void) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }\n"
    )
    table, tasks = purges("c", src)
    loop = b"for (int i = 0; i < n; i++) s += i;"
    assert uses(table, tasks[b"int n = 3;"]) == [loop]  # not `i < n` alone: `;` is no comma
    assert uses(table, tasks[b"int s = 0;"]) == [loop, b"return s;"]


JS_SRC = b"""class Shape { area() { return 0; } }
function square(n) { return n * n; }
const sq = square(6);
console.log(sq + 6, new Shape().area());
"""


def test_javascript_purged_program_runs(tmp_path: Path) -> None:
    node = which("node")
    table, tasks = purges("javascript", JS_SRC)
    # A use in an argument list takes only its argument.
    assert uses(table, tasks[b"class Shape { area() { return 0; } }"]) == [b"new Shape().area()"]
    # `sq`, defined by a use of `square`, goes with it, and so does its own use, an argument.
    out = purge_each("javascript", JS_SRC, [b"function square(n) { return n * n; }"])
    assert b"square" not in out and b"sq" not in out, out
    (tmp_path / "p.js").write_bytes(out)
    assert run_tool([node, "p.js"], tmp_path).stdout == b"0\n"


def test_names_defined_twice_or_together_get_no_purge() -> None:
    src = b"""import functools
@functools.cache
def f():
    return 1
def g():
    return 2
def g():
    return 3
a, b = f(), g()
print(a, b, f())
"""
    table, tasks = purges("python", src)
    # The decorated function is matched with and without its decorator: the outer one counts.
    assert uses(table, tasks[b"@functools.cache"]) == [b"f()", b"f()"]
    assert not any(head.startswith(b"def g") for head in tasks)  # defined twice
    assert not any(head.startswith(b"def f") for head in tasks)  # the inner match


def strict_and_divides_in_crash(candidate: bytes) -> bool:
    """Like a compiler that rejects unused names (Go): every function and variable defined at
    the top level is read somewhere, and running the program raises ZeroDivisionError in a
    function named `crash`."""
    try:
        module = ast.parse(candidate)
    except SyntaxError:
        return False
    defined = {n.name for n in module.body if isinstance(n, ast.FunctionDef)} | {
        t.id
        for n in module.body
        if isinstance(n, ast.Assign)
        for t in n.targets
        if isinstance(t, ast.Name)
    }
    read = {
        n.id for n in ast.walk(module) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    }
    if defined - read:
        return False
    try:
        exec(compile(module, "candidate", "exec"), {"print": lambda *a: None})
    except ZeroDivisionError as e:
        return traceback.extract_tb(e.__traceback__)[-1].name == "crash"
    except Exception:
        return False
    return False


STRICT_SRC = b"""def helper():
    return 1
def crash(n):
    return n / 0
value = helper()
print(value)
print(value + 1)
crash(2)
"""


def functions(src: bytes) -> set[str]:
    return {n.name for n in ast.parse(src).body if isinstance(n, ast.FunctionDef)}


def test_a_reduction_purges_what_neither_deletion_can_remove(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = reduce(STRICT_SRC, language="python", test=strict_and_divides_in_crash, jobs=1).reduced
    assert functions(out) == {"crash"}, out
    # Without @define, `helper` stays (renamed): its definition, and the statements that use
    # it, fail their tests unless they go together.
    monkeypatch.setitem(CAPTURES, "define", replace(CAPTURES["define"], extract=lambda p: {}))
    kept = reduce(STRICT_SRC, language="python", test=strict_and_divides_in_crash, jobs=1).reduced
    assert len(functions(kept)) == 2, kept
