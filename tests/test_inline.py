"""Inlining a variable used once (query files' @inline): which declarations are offered, and
the inlined programs checked with the real compilers and interpreters in C, Rust, Python and
JavaScript."""

from __future__ import annotations

import sys
from pathlib import Path

from conftest import run_tool, which

from treereduce_py import reduce
from treereduce_py.edit.edits import Edits, render
from treereduce_py.edit.tasks import Inline, task_edits
from treereduce_py.lang.syntax import NodeTable
from treereduce_py.run.reading import prepare
from treereduce_py.transform.strategies import Stage

TREE = Stage("tree", "syntax", "tree")


def inlines(lang: str, src: bytes) -> tuple[NodeTable, dict[bytes, Inline]]:
    """The inlinings offered in `src`, by the name they remove."""
    table, facts, _ = prepare(TREE, src, lang, ())
    found = [task for tasks in facts.captured("inline").values() for task in tasks]
    by_name = {table.text(task.use): task for task in found if isinstance(task, Inline)}
    assert len(by_name) == len(found)
    return table, by_name


def inline_all(lang: str, src: bytes) -> bytes:
    table, tasks = inlines(lang, src)
    edits: Edits | None = Edits()
    for task in tasks.values():
        assert edits is not None
        edits = task_edits(table, edits, task)
    assert edits is not None
    return render(table, edits)


C_SRC = b"""#include <stdio.h>
int twice(int x) { return 2 * x; }
int main(void) {
    int base = twice(20);
    int total = base + 2, spare = 0;
    int shown = total;
    printf("%d\\n", shown + spare);
    return 0;
}
"""

RUST_SRC = b"""fn main() {
    let base = 40;
    let total: i32 = base + 2;
    let twice = total;
    println!("{}", twice / 2 + twice / 2);
}
"""

PY_SRC = b"""def compute(a):
    scaled = a * 6
    total = scaled + 0
    return total


print(compute(7))
"""

JS_SRC = b"""function compute(a) {
  const scaled = a * 6;
  let total = scaled - 0;
  return total;
}
console.log(compute(7));
"""


def test_only_names_used_exactly_once_afterwards_are_offered() -> None:
    _, c = inlines("c", C_SRC)
    # `total` and `spare` share a declaration; `shown`'s one use comes after it.
    assert set(c) == {b"base", b"shown"}
    _, rust = inlines("rust", RUST_SRC)
    assert set(rust) == {b"base", b"total"}  # `twice` is used twice
    _, py = inlines("python", b"x = 1\nprint(x)\ny = 2\nprint(y, y)\nprint(z)\nz = 3\n")
    assert set(py) == {b"x"}  # y is used twice, z before its assignment


def test_uses_are_counted_in_the_declarations_block() -> None:
    # After renaming, every function has its `a`: only the block of the declaration counts.
    src = b"def f():\n    a = g()\n    return a\n\n\ndef h(a):\n    return a + a\n"
    table, py = inlines("python", src)
    assert set(py) == {b"a"} and table.start[py[b"a"].use] == src.index(b"return a") + 7
    src = b"int f(void) {\n    int a = g();\n    { a++; }\n    return a;\n}\n"
    assert inlines("c", src)[1] == {}  # used twice in its block, once in a nested one


def test_the_value_is_parenthesized_unless_it_is_one_token_or_a_call() -> None:
    _, c = inlines("c", C_SRC)
    assert not c[b"base"].parens and not c[b"shown"].parens  # a call, a name
    _, py = inlines("python", PY_SRC)
    assert py[b"scaled"].parens and py[b"total"].parens  # two binary operations


def test_c_inlined_program_still_compiles_and_prints(tmp_path: Path) -> None:
    gcc = which("gcc")
    out = inline_all("c", C_SRC)
    assert b"base" not in out and b"shown" not in out, out
    (tmp_path / "i.c").write_bytes(out)
    assert run_tool([gcc, "-o", "i", "i.c"], tmp_path).returncode == 0
    assert run_tool([tmp_path / "i"], tmp_path).stdout == b"42\n"


def test_rust_inlined_program_still_compiles_and_prints(tmp_path: Path) -> None:
    rustc = which("rustc")
    out = inline_all("rust", RUST_SRC)
    assert b"base" not in out and b"total" not in out, out
    (tmp_path / "i.rs").write_bytes(out)
    done = run_tool([rustc, "--edition", "2021", "-o", "i", "i.rs"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert run_tool([tmp_path / "i"], tmp_path).stdout == b"42\n"


def test_python_inlined_program_runs(tmp_path: Path) -> None:
    out = inline_all("python", PY_SRC)
    assert b"scaled" not in out and b"total" not in out, out
    (tmp_path / "i.py").write_bytes(out)
    assert run_tool([sys.executable, "i.py"], tmp_path).stdout == b"42\n"


def test_javascript_inlined_program_runs(tmp_path: Path) -> None:
    node = which("node")
    out = inline_all("javascript", JS_SRC)
    assert b"scaled" not in out and b"total" not in out, out
    (tmp_path / "i.js").write_bytes(out)
    assert run_tool([node, "i.js"], tmp_path).stdout == b"42\n"


def test_an_inlining_applies_to_the_value_as_it_reads_now() -> None:
    table, tasks = inlines("python", PY_SRC)
    first = task_edits(table, Edits(), tasks[b"scaled"])  # `scaled` into `total = ...`
    assert first is not None
    both = task_edits(table, first, tasks[b"total"])  # then `total`, value already edited
    assert both is not None
    assert b"return ((a * 6) + 0)" in render(table, both)


def test_a_reduction_inlines_what_it_cannot_delete() -> None:
    def prints_42(candidate: bytes) -> bool:
        scope: dict[str, object] = {}
        try:
            exec(compile(candidate, "c", "exec"), scope)
            compute = scope["compute"]
            return callable(compute) and compute(7) == 42
        except Exception:
            return False

    src = b"def compute(a):\n    scaled = a * 6\n    return scaled\n"
    out = reduce(src, language="python", test=prints_42, jobs=1, rename=False).reduced
    assert b"scaled" not in out and b"return" in out, out
