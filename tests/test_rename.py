"""Renaming: every name to the shortest unused one, consistently, in C, Rust, Python and JS,
and merging one name into another;
the renamed programs are checked with the real compilers and interpreters."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from conftest import gcc_warns_test, run_tool, which

from treereduce_py import reduce
from treereduce_py.edit.edits import Edits, render
from treereduce_py.edit.tasks import Rename, Substitute, task_edits
from treereduce_py.judge.oracle import CommandOracle
from treereduce_py.lang.languages import new_parser
from treereduce_py.lang.syntax import NodeTable
from treereduce_py.transform.names import MergePlanner, RenamePlanner


def renames(lang: str, src: bytes) -> tuple[NodeTable, list[Rename]]:
    table = NodeTable.from_tree(src, new_parser(lang).parse(src))
    tasks = list(RenamePlanner(table).initial())
    assert all(isinstance(t, Rename) for t in tasks)
    return table, [t for t in tasks if isinstance(t, Rename)]


def rename_all(lang: str, src: bytes, keep: frozenset[bytes] = frozenset()) -> bytes:
    """Every rename at once, except of the names in `keep` (those the program does not declare:
    each rename is its own candidate, and the test rejects renaming `printf`)."""
    table, tasks = renames(lang, src)
    edits: Edits | None = Edits()
    for task in tasks:
        if not old_names(table, task) & keep:
            assert edits is not None
            edits = task_edits(table, edits, task)
    assert edits is not None
    return render(table, edits)


def old_names(table: NodeTable, task: Rename) -> set[bytes]:
    return {table.text(n) for n in task.nodes}


C_SRC = b"""#include <stdio.h>
struct account_record { int balance_total; };
static int compute_total(struct account_record *record_ptr, int quantity) {
    return record_ptr->balance_total * quantity;
}
int main(void) {
    struct account_record acct = { 7 };
    printf("%d\\n", compute_total(&acct, 6));
    return 0;
}
"""

RUST_SRC = b"""struct Branch<const C: u8>;
fn compute_total(quantity: u32, price: u32) -> u32 { quantity * price }
fn main() {
    let result_value = compute_total(6, 7);
    println!("{}", result_value);
}
"""

PY_SRC = b"""def compute_total(quantity, price):
    return quantity * price

result_value = compute_total(6, 7)
print(result_value)
"""

JS_SRC = b"""function computeTotal(quantity, price) { return quantity * price; }
const resultValue = computeTotal(6, 7);
console.log(resultValue);
"""


def test_one_task_per_name_most_used_first() -> None:
    table, tasks = renames("python", PY_SRC)
    firsts = [old_names(table, t) for t in tasks]
    assert all(len(names) == 1 for names in firsts)  # every occurrence of one name together
    counts = [len(t.nodes) for t in tasks]
    assert counts == sorted(counts, reverse=True)
    assert tasks[0].text == b"a"  # the most used name gets the shortest


def test_a_rename_that_would_collide_is_not_made() -> None:
    # `a` and `b` are taken (one only inside a string): no name may be renamed to them.
    src = b'a = 1\nlong_name = "b"\nprint(long_name, a)\n'
    table, tasks = renames("python", src)
    new = {t.text for t in tasks}
    assert b"a" not in new and b"b" not in new
    assert {t.text: old_names(table, t) for t in tasks}[b"c"] == {b"long_name"}


def test_keywords_are_never_new_names() -> None:
    names = [f"n{i}" for i in range(40)]
    src = "\n".join(f"{n}{'x' * 5} = {i}" for i, n in enumerate(names)).encode()
    _, tasks = renames("python", src)
    assert all(t.text not in (b"as", b"do", b"if", b"in", b"is", b"or") for t in tasks)


def test_c_renamed_program_still_compiles_and_prints(tmp_path: Path) -> None:
    gcc = which("gcc")
    out = rename_all("c", C_SRC, frozenset({b"printf", b"main"}))
    assert b"compute_total" not in out and b"balance_total" not in out
    (tmp_path / "r.c").write_bytes(out)
    assert run_tool([gcc, "-o", "r", "r.c"], tmp_path).returncode == 0
    assert run_tool([tmp_path / "r"], tmp_path).stdout == b"42\n"


def test_rust_renamed_program_still_compiles_and_prints(tmp_path: Path) -> None:
    rustc = which("rustc")
    out = rename_all("rust", RUST_SRC, frozenset({b"main", b"println"}))
    assert not re.search(rb"compute_total|quantity|result_value|Branch", out)
    (tmp_path / "r.rs").write_bytes(out)
    done = run_tool([rustc, "--edition", "2021", "-o", "r", "r.rs"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert run_tool([tmp_path / "r"], tmp_path).stdout == b"42\n"


def test_python_renamed_program_runs(tmp_path: Path) -> None:
    out = rename_all("python", PY_SRC, frozenset({b"print"}))
    assert not re.search(rb"compute_total|quantity|result_value", out)
    (tmp_path / "r.py").write_bytes(out)
    assert run_tool([sys.executable, "r.py"], tmp_path).stdout == b"42\n"


def test_javascript_renamed_program_runs(tmp_path: Path) -> None:
    node = which("node")
    out = rename_all("javascript", JS_SRC, frozenset({b"console", b"log"}))
    assert b"computeTotal" not in out and b"resultValue" not in out
    (tmp_path / "r.js").write_bytes(out)
    assert run_tool([node, "r.js"], tmp_path).stdout == b"42\n"


@pytest.mark.parametrize("flag", [None, "--no-rename"])
def test_rename_is_on_by_default(flag: str | None) -> None:
    from treereduce_py.front.cli import build_parser

    args = build_parser().parse_args(["x.py", *([flag] if flag else [])])
    assert args.rename is (flag is None)


# -- merging one name into another -----------------------------------------------------------


def merges(lang: str, src: bytes) -> tuple[NodeTable, list[Substitute]]:
    table = NodeTable.from_tree(src, new_parser(lang).parse(src))
    tasks = list(MergePlanner(table).initial())
    assert all(isinstance(t, Substitute) for t in tasks)
    return table, [t for t in tasks if isinstance(t, Substitute)]


def test_a_merge_deletes_the_declaration_and_renames_the_uses() -> None:
    src = b"int b(){int a;a==a;}"
    table, tasks = merges("c", src)
    assert len(tasks) == 1  # `b`, the first name, has no earlier name to become
    out = task_edits(table, Edits(), tasks[0])
    assert out is not None and render(table, out) == b"int b(){b==b;}"


def test_the_target_is_the_most_used_earlier_name_of_the_same_kind() -> None:
    src = b"struct T { int f; };\nint g;\nint h(struct T t) { int k = g + g; return t.f + k; }\n"
    table, tasks = merges("c", src)
    merged = {table.text(n): text for t in tasks for n, text in t.pairs[1:]}
    deleted = [table.text(t.pairs[0][0]) for t in tasks]
    # `t` and `k` become `g` (used before them, and more than `h`); `h` occurs only inside its
    # definition; the field `f` and the type `T` have no earlier name of their own kind.
    assert merged == {b"t": b"g", b"k": b"g"}
    assert sorted(deleted) == [b"int k = g + g;", b"struct T t"]


def test_merging_reaches_what_renaming_cannot(tmp_path: Path) -> None:
    test = gcc_warns_test(tmp_path, "-Wtautological-compare")
    src = b"int value(){int left;left==left;}\n"
    oracle = CommandOracle([str(test), "@@.c"])
    with oracle:
        out = reduce(src, language="c", test=oracle, jobs=1).reduced
    # Renaming alone ends at `int b(){int a;a==a;}`; merged, one name is left (the endgame may
    # then drop the `int`, and @global make the function a variable: `b=b==b;`, whose operator
    # hint makes `b=b<b;`).
    merged = rb"(int )?([a-z])\(\)\{\2(==|<)\2;\}|([a-z])=\4(==|<)\4;"
    assert re.fullmatch(merged, out.strip()), out


def merge_named(lang: str, src: bytes, name: bytes) -> tuple[bytes, bytes]:
    """The program with `name` merged into its target, and that target."""
    table, tasks = merges(lang, src)
    task = next(t for t in tasks if any(table.text(n) == name for n, _ in t.pairs[1:]))
    out = task_edits(table, Edits(), task)
    assert out is not None
    return render(table, out), task.pairs[1][1]


def test_rust_merged_program_still_compiles_and_prints(tmp_path: Path) -> None:
    rustc = which("rustc")
    src = b'fn main() {\n    let a = 21;\n    let b = a;\n    println!("{}", b + b);\n}\n'
    out, target = merge_named("rust", src, b"b")
    assert target == b"a" and b"let b" not in out and b"a + a" in out, out
    (tmp_path / "m.rs").write_bytes(out)
    done = run_tool([rustc, "--edition", "2021", "-o", "m", "m.rs"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert run_tool([tmp_path / "m"], tmp_path).stdout == b"42\n"


def test_rust_items_declare_names_that_merge(tmp_path: Path) -> None:
    # Rust declares with `*_item`s: the second unit struct, used only as a type, becomes the
    # first one (as Shrink Ray's `(d, d)` on rust-ice-hrtb), its `struct` item going with it.
    rustc = which("rustc")
    src = (
        b"struct G;\nstruct B;\ntrait T { fn hi(&self) -> u8 { 7 } }\nimpl T for B {}\n"
        b"fn f<X: T>(_x: Option<X>) -> u8 { 42 }\n"
        b'fn main() { let n = f::<B>(None); println!("{}", n); }\n'
    )
    out, target = merge_named("rust", src, b"B")
    assert target == b"G" and b"struct B" not in out and b"impl T for G" in out, out
    assert b"f::<G>(None)" in out, out
    (tmp_path / "m.rs").write_bytes(out)
    done = run_tool([rustc, "--edition", "2021", "-o", "m", "m.rs"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert run_tool([tmp_path / "m"], tmp_path).stdout == b"42\n"


def test_python_merged_program_runs(tmp_path: Path) -> None:
    # Python assigns without declaring: the declarations merged away are definitions.
    src = b"def g():\n    return 21\n\n\ndef h():\n    return 21\n\n\nprint(g() + h())\n"
    out, target = merge_named("python", src, b"h")
    assert target == b"g" and b"def h" not in out and b"g() + g()" in out, out
    (tmp_path / "m.py").write_bytes(out)
    assert run_tool([sys.executable, "m.py"], tmp_path).stdout == b"42\n"


def test_javascript_merged_program_runs(tmp_path: Path) -> None:
    node = which("node")
    src = b"const a = 21;\nconst b = a;\nfunction g() { return b; }\nconsole.log(g() + a);\n"
    out, target = merge_named("javascript", src, b"b")
    assert target == b"a" and b"const b" not in out and b"return a;" in out, out
    (tmp_path / "m.js").write_bytes(out)
    assert run_tool([node, "m.js"], tmp_path).stdout == b"42\n"
