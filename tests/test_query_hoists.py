"""Hoists a query file names (`@hoist`, `@hoist.target`) where the grammar relates the two
nodes by no supertype: a generic type becomes one of its type arguments (`f::s<i, a>` -> `i`),
offered with the grammar's own hoists, and the hoisted programs checked with g++ and rustc."""

from __future__ import annotations

from pathlib import Path

from conftest import run_tool, which

from treereduce_py.edit.edits import Edits, render
from treereduce_py.edit.tasks import Hoist, task_edits
from treereduce_py.run.reading import prepare
from treereduce_py.transform.planners import TreePlanner
from treereduce_py.transform.strategies import Stage

TREE = Stage("tree", "syntax", "tree")


def hoisted(lang: str, src: bytes) -> dict[bytes, list[bytes]]:
    """What each node a hoist pattern captures may become, as the tree planner offers it (the
    node itself in place of the whole document, hoists.to_root, aside)."""
    table, facts, _ = prepare(TREE, src, lang, ())
    planner = TreePlanner(table, facts)
    return {
        table.text(n): [
            table.text(h.target)
            for h in planner.alternatives(n)
            if isinstance(h, Hoist) and h.node == n
        ]
        for n in facts.captured("hoist")
    }


def hoist(lang: str, src: bytes, node: bytes, target: bytes) -> bytes:
    table, facts, _ = prepare(TREE, src, lang, ())
    [(n, t)] = [
        (n, t.target)
        for n, ts in facts.captured("hoist").items()
        for t in ts
        if isinstance(t, Hoist) and table.text(n) == node and table.text(t.target) == target
    ]
    edits = task_edits(table, Edits(), Hoist(n, t))
    assert edits is not None
    return render(table, edits)


CPP = b"""namespace f { template <typename x, typename y> struct s { x p; }; }
template <typename i, typename a> struct ag {
    typedef f::s<i, a> y;
    y n() { return y(); }
};
struct Point {};
int main() { ag<Point *, Point> q; return q.n() < q.n(); }
"""


def test_cpp_a_template_type_becomes_a_type_argument(tmp_path: Path) -> None:
    gxx = which("g++")
    offered = hoisted("cpp", CPP)
    assert offered[b"f::s<i, a>"] == [b"i", b"a"]
    assert offered[b"s<i, a>"] == [b"i", b"a"]
    assert offered[b"ag<Point *, Point>"] == [b"Point *", b"Point"]
    out = hoist("cpp", CPP, b"f::s<i, a>", b"i")
    assert b"typedef i y;" in out, out
    # The wrapper gone, the comparison is of two pointers: g++ accepts what it rejected.
    (tmp_path / "before.cpp").write_bytes(CPP)
    (tmp_path / "after.cpp").write_bytes(out)
    check = [gxx, "-std=c++17", "-fsyntax-only"]
    assert run_tool([*check, "before.cpp"], tmp_path).returncode != 0
    assert run_tool([*check, "after.cpp"], tmp_path).returncode == 0


RUST = b"""fn take(_x: Option<Vec<u8>>) -> usize { 0 }
fn main() { std::process::exit(take(None) as i32); }
"""


def test_rust_a_generic_type_becomes_its_argument(tmp_path: Path) -> None:
    rustc = which("rustc")
    offered = hoisted("rust", RUST)
    assert b"Vec<u8>" in offered[b"Option<Vec<u8>>"] and b"u8" in offered[b"Vec<u8>"]
    out = hoist("rust", RUST, b"Option<Vec<u8>>", b"Vec<u8>")
    assert b"fn take(_x: Vec<u8>)" in out, out
    (tmp_path / "p.rs").write_bytes(out)
    # `take(None)` no longer type-checks: the test judges such a candidate, as any other.
    done = run_tool([rustc, "--edition", "2021", "-o", "p", "p.rs"], tmp_path)
    assert b"mismatched types" in done.stderr, done
    fixed = out.replace(b"take(None)", b"take(vec![])")
    (tmp_path / "q.rs").write_bytes(fixed)
    assert run_tool([rustc, "--edition", "2021", "-o", "q", "q.rs"], tmp_path).returncode == 0


def test_java_and_typescript_generic_types() -> None:
    java = hoisted("java", b"class A { java.util.Map<String, Integer> m; }")
    assert java == {b"java.util.Map<String, Integer>": [b"String", b"Integer"]}
    ts = hoisted("typescript", b"let m: Map<string, Set<number>>;")
    assert set(ts[b"Map<string, Set<number>>"]) == {b"string", b"Set<number>"}
    assert ts[b"Set<number>"] == [b"number"]
