"""Tests for lang.syntax: the flattened node table agrees with tree-sitter's own tree on
real (and randomly broken) programs, and line/token tables cover their source exactly.
"""

from __future__ import annotations

import functools
import json
import typing
from array import array
from dataclasses import dataclass

import pytest
import tree_sitter
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from treereduce_py.lang.languages import new_parser
from treereduce_py.lang.syntax import NodeTable, coarse_depth, count_errors

# Small programs with nesting, lists with separators, comments and strings.
SAMPLES: dict[str, bytes] = {
    "c": b"""#include <stdio.h>
/* comment */
struct point { int x; int y; };
int add(int a, int b) { return a + b; }
int main(void) {
    int xs[] = {1, 2, 3};
    for (int i = 0; i < 3; i++) { printf("%d\\n", add(xs[i], 5 * (3 + i))); }
    return 0;
}
""",
    "python": b"""import os, sys
# comment
def f(a, b=2, *args):
    if a:
        return [a, b, (1,)]
    return {"k": f(b, a)}

class C:
    x = 1
print(f(1, 2), 'str')
""",
    "javascript": b"""// comment
function f(a, b) { return [a, b, 3]; }
const o = { k: 1, 'q': f(1, 2) };
let s = `t${o.k}`;
if (s) { console.log(f(o, s), "x"); }
""",
    "rust": b"""// comment
struct P { x: i32, y: i32 }
fn add(a: i32, b: i32) -> i32 { a + b }
fn main() {
    let v = vec![1, 2, 3];
    let p = P { x: 1, y: add(v[0], 2) };
    println!("{}", p.x);
}
""",
}

# Bytes likely to break a parse in interesting ways (and NUL, CR, non-ASCII).
NOISE = [b"(", b")", b"{", b"}", b"[", b"]", b",", b";", b"\n", b"\x00", b"\r\n", b'"', b"\xff"]


@functools.cache
def parser(lang: str) -> tree_sitter.Parser:
    return new_parser(lang)


@st.composite
def programs(draw: st.DrawFn) -> tuple[str, bytes]:
    """A sample program of some language with a few random deletions and insertions."""
    lang = draw(st.sampled_from(sorted(SAMPLES)))
    src = bytearray(SAMPLES[lang])
    for _ in range(draw(st.integers(0, 5))):
        pos = draw(st.integers(0, len(src)))
        if draw(st.booleans()):
            del src[pos : pos + draw(st.integers(1, 12))]
        else:
            src[pos:pos] = draw(st.sampled_from(NOISE) | st.binary(max_size=3))
    return lang, bytes(src)


@dataclass
class Reference:
    """The tree as a plain recursive walk over tree-sitter's own nodes sees it."""

    nodes: list[tree_sitter.Node]
    parent: list[int]
    children: list[list[int]]
    depth: list[int]
    last: list[int]


def reference(tree: tree_sitter.Tree) -> Reference:
    ref = Reference([], [], [], [], [])

    def visit(node: tree_sitter.Node, parent: int, depth: int) -> None:
        i = len(ref.nodes)
        ref.nodes.append(node)
        ref.parent.append(parent)
        ref.children.append([])
        ref.depth.append(depth)
        ref.last.append(i)
        if parent != -1:
            ref.children[parent].append(i)
        for child in node.children:
            visit(child, i, depth + 1)
        ref.last[i] = len(ref.nodes) - 1

    visit(tree.root_node, -1, 0)
    return ref


def table_of(lang: str, src: bytes) -> tuple[NodeTable, tree_sitter.Tree]:
    tree = parser(lang).parse(src)
    return NodeTable.from_tree(src, tree), tree


def assert_matches_tree(table: NodeTable, tree: tree_sitter.Tree) -> None:
    ref = reference(tree)
    n = len(ref.nodes)
    assert len(table) == n
    for i, node in enumerate(ref.nodes):
        assert (table.start[i], table.end[i]) == (node.start_byte, node.end_byte), i
        assert table.kind[i] == node.kind_id
        assert table.kind_name(i) == node.type
        assert table.named[i] == node.is_named
        assert table.parent[i] == ref.parent[i]
        assert list(table.children(i)) == ref.children[i]
        assert table.first_child[i] == (ref.children[i][0] if ref.children[i] else -1)
        assert table.depth[i] == ref.depth[i]
        assert table.last[i] == ref.last[i]
        assert table.text(i) == node.text
        assert table.size(i) == node.end_byte - node.start_byte
    for i in range(n):  # next_sibling: the following child of the same parent, else -1
        p = ref.parent[i]
        siblings = ref.children[p] if p != -1 else [i]
        k = siblings.index(i)
        assert table.next_sibling[i] == (siblings[k + 1] if k + 1 < len(siblings) else -1)
    assert table.errors == count_errors(tree)
    # The parents that have a separator among their children, as the old post-pass found them.
    with_separator = {
        ref.parent[i]
        for i, node in enumerate(ref.nodes)
        if i and not node.is_named and node.text in (b",", b";")
    }
    assert table.lists == with_separator


# --- from_tree ---------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", sorted(SAMPLES))
def test_sample_programs_flatten_like_a_recursive_walk(lang: str) -> None:
    table, tree = table_of(lang, SAMPLES[lang])
    assert table.errors == 0
    assert table.source == SAMPLES[lang]
    assert_matches_tree(table, tree)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_mutated_programs_flatten_like_a_recursive_walk(program: tuple[str, bytes]) -> None:
    lang, src = program
    table, tree = table_of(lang, src)
    assert_matches_tree(table, tree)


def test_broken_programs_count_error_and_missing_nodes() -> None:
    # An unclosed parenthesis gives a MISSING node; a stray brace an ERROR node.
    for lang, src in [("c", b"int x = (1;"), ("c", b"int f({ return x"), ("python", b"def f(:\n")]:
        table, tree = table_of(lang, src)
        assert table.errors > 0
        assert table.errors == count_errors(tree)
        assert_matches_tree(table, tree)


def test_error_nodes_are_named_error() -> None:
    table, _ = table_of("c", b"int f({ return x")
    assert "ERROR" in {table.kind_name(i) for i in range(len(table))}


def test_empty_source_is_a_lone_root() -> None:
    table, tree = table_of("python", b"")
    assert len(table) == 1
    assert table.parent[0] == -1
    assert table.first_child[0] == -1
    assert table.last[0] == 0
    assert list(table.descendants(0)) == []
    assert_matches_tree(table, tree)


def ancestors_or_self(table: NodeTable, i: int) -> list[int]:
    out = [i]
    while table.parent[out[-1]] != -1:
        out.append(table.parent[out[-1]])
    return out


@settings(max_examples=40, deadline=None)
@given(programs())
def test_contains_descendants_and_children_agree_with_parent_links(
    program: tuple[str, bytes],
) -> None:
    table, _ = table_of(*program)
    n = len(table)
    chains = [ancestors_or_self(table, i) for i in range(n)]
    for a in range(n):
        below = {i for i in range(n) if a in chains[i]}
        assert {i for i in range(n) if table.contains(a, i)} == below
        assert set(table.descendants(a)) == below - {a}
        assert list(table.children(a)) == [i for i in range(n) if table.parent[i] == a]


def test_subtrees_are_contiguous_and_nested_in_bytes() -> None:
    table, _ = table_of("c", SAMPLES["c"])
    for i in range(1, len(table)):
        p = table.parent[i]
        assert table.start[p] <= table.start[i] <= table.end[i] <= table.end[p]
        assert table.depth[i] == table.depth[p] + 1


# Generated programs: valid (or nearly valid) JSON documents and Python modules of random shape.

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4)
    ),
    max_leaves=20,
)


@st.composite
def json_documents(draw: st.DrawFn) -> tuple[str, bytes]:
    value = draw(json_values)
    indent = draw(st.sampled_from([None, 0, 2]))
    return "json", json.dumps(value, indent=indent, ensure_ascii=draw(st.booleans())).encode()


NAMES = st.sampled_from(["x", "y", "f", "g", "self", "_k"])
py_atoms = NAMES | st.integers(0, 999).map(str) | st.sampled_from(["'s'", '"t"', "None", "..."])
py_exprs = st.recursive(
    py_atoms,
    lambda e: st.one_of(
        st.tuples(e, st.sampled_from(["+", "-", "*", " and ", " or ", " < "]), e).map(
            lambda t: f"({t[0]}{t[1]}{t[2]})"
        ),
        st.tuples(NAMES, st.lists(e, max_size=3)).map(lambda t: f"{t[0]}({', '.join(t[1])})"),
        st.lists(e, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.lists(e, min_size=1, max_size=3).map(lambda xs: "(" + ", ".join(xs) + ",)"),
        st.lists(st.tuples(e, e), max_size=2).map(
            lambda kv: "{" + ", ".join(f"{k}: {v}" for k, v in kv) + "}"
        ),
    ),
    max_leaves=8,
)


@st.composite
def py_block(draw: st.DrawFn, indent: str = "", depth: int = 0) -> str:
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        choice = draw(st.integers(0, 5 if depth < 2 else 2))
        if choice == 0:
            lines.append(f"{indent}{draw(NAMES)} = {draw(py_exprs)}\n")
        elif choice == 1:
            lines.append(f"{indent}{draw(py_exprs)}  # note\n")
        elif choice == 2:
            lines.append(f"{indent}return {draw(py_exprs)}\n")
        elif choice == 3:
            params = ", ".join(draw(st.lists(NAMES, max_size=3, unique=True)))
            body = draw(py_block(indent + "    ", depth + 1))
            lines.append(f"{indent}def {draw(NAMES)}({params}):\n{body}")
        elif choice == 4:
            body = draw(py_block(indent + "    ", depth + 1))
            lines.append(f"{indent}if {draw(py_exprs)}:\n{body}")
        else:
            body = draw(py_block(indent + "    ", depth + 1))
            lines.append(f"{indent}for {draw(NAMES)} in {draw(py_exprs)}:\n{body}")
    return "".join(lines)


@st.composite
def python_modules(draw: st.DrawFn) -> tuple[str, bytes]:
    return "python", draw(py_block()).encode()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_documents() | python_modules())
def test_generated_programs_flatten_like_tree_sitters_own_nodes(program: tuple[str, bytes]) -> None:
    lang, src = program
    table, tree = table_of(lang, src)
    assert_matches_tree(table, tree)


def test_deep_nesting_needs_no_recursion() -> None:
    depth = 5000
    src = b"[" * depth + b"]" * depth
    table, tree = table_of("json", src)
    assert len(table) == tree.root_node.descendant_count
    assert max(table.depth) == depth + 1  # document > array > ... > the innermost "[" and "]"
    assert table.last[0] == len(table) - 1
    inner = max(range(len(table)), key=lambda i: table.depth[i])
    assert table.parent[inner] == inner - 1 - (table.kind_name(inner) == "]")


def test_columns_are_compact_arrays() -> None:
    table, _ = table_of("python", SAMPLES["python"])
    for column in (table.start, table.end, table.kind, table.parent, table.first_child,
                   table.next_sibling, table.last, table.depth):  # fmt: skip
        assert isinstance(column, array) and column.itemsize == 4
    assert isinstance(table.named, bytearray)
    for flat in (NodeTable.from_lines(b"a\nb\n"), NodeTable.from_tokens(b"a b")):
        assert isinstance(flat.start, array) and isinstance(flat.named, bytearray)


# --- separator_for -----------------------------------------------------------------------------


def node_with_text(table: NodeTable, text: bytes, named: bool = True) -> int:
    """The first node (in pre-order) whose text is `text`."""
    return next(i for i in range(len(table)) if table.text(i) == text and table.named[i] == named)


def test_separator_is_the_following_comma_then_the_preceding_one() -> None:
    table, _ = table_of("c", b"int main() { f(a, b, c); }")
    a, b, c = (node_with_text(table, x) for x in (b"a", b"b", b"c"))
    sep_a, sep_b = table.separator_for(a), table.separator_for(b)
    sep_c = table.separator_for(c)
    assert sep_a is not None and sep_b is not None and sep_c is not None
    assert table.text(sep_a) == table.text(sep_b) == table.text(sep_c) == b","
    assert table.start[sep_a] == table.end[a]
    assert table.start[sep_b] == table.end[b]
    assert sep_c == sep_b  # the last element takes the comma before it


def test_separator_skips_siblings_that_are_gone() -> None:
    table, _ = table_of("javascript", b"f(a, b, c);")
    a, b, c = (node_with_text(table, x) for x in (b"a", b"b", b"c"))
    comma_ab, comma_bc = table.separator_for(a), table.separator_for(b)
    assert comma_ab is not None and comma_bc is not None
    # With b and the comma after it deleted, c's separator is the comma after a.
    assert table.separator_for(c, lambda j: j in {b, comma_bc}) == comma_ab
    # With b and c deleted, a is the only element left and has no separator.
    assert table.separator_for(a, lambda j: j in {b, c, comma_ab, comma_bc}) is None


def test_a_statement_terminator_is_not_a_separator() -> None:
    table, _ = table_of("c", b"int f(void) { return x; }")
    assert table.separator_for(node_with_text(table, b"x")) is None


def test_single_element_tuple_loses_its_trailing_comma() -> None:
    table, _ = table_of("python", b"x = (1,)\n")
    sep = table.separator_for(node_with_text(table, b"1"))
    assert sep is not None and table.text(sep) == b","


def test_the_root_has_no_separator() -> None:
    table, _ = table_of("c", b"int x;")
    assert table.separator_for(0) is None


# --- lines and tokens --------------------------------------------------------------------------

PIECES = [b"a", b"bc", b" ", b"\t", b"\n", b"\r\n", b"\x00", b'"', b"'", b"\\", b"\xff"]
tricky_bytes = st.binary(max_size=200) | st.lists(st.sampled_from(PIECES), max_size=40).map(
    b"".join
)


def assert_flat_cover(table: NodeTable, source: bytes) -> None:
    """A two-level table whose children tile `source` exactly, in order."""
    kids = list(table.children(0))
    assert kids == list(range(1, len(table)))
    assert b"".join(table.text(k) for k in kids) == source
    assert (table.start[0], table.end[0]) == (0, len(source))
    for k in kids:
        assert table.size(k) > 0
        assert table.parent[k] == 0 and table.depth[k] == 1 and table.last[k] == k
        assert table.kind_name(k) == ""
        assert table.separator_for(k) is None
    assert table.last[0] == len(table) - 1
    assert table.errors == 0


@settings(max_examples=200, deadline=None)
@given(tricky_bytes)
def test_lines_tile_the_source(source: bytes) -> None:
    table = NodeTable.from_lines(source)
    assert_flat_cover(table, source)
    for k in table.children(0):
        text = table.text(k)
        # One line each: a newline only at the end (the last line may lack it).
        assert b"\n" not in text[:-1]
        assert text.endswith(b"\n") or table.next_sibling[k] == -1
    unterminated = 1 if source and not source.endswith(b"\n") else 0
    assert len(table) - 1 == source.count(b"\n") + unterminated


@settings(max_examples=200, deadline=None)
@given(tricky_bytes)
def test_tokens_tile_the_source(source: bytes) -> None:
    table = NodeTable.from_tokens(source)
    assert_flat_cover(table, source)
    for k in table.children(0):
        if k != 1:  # only the first token carries the whitespace in front of it
            assert not table.text(k)[:1].isspace()


def test_tokens_split_words_strings_and_punctuation() -> None:
    source = b'  x = f("a b", 12);\n'
    table = NodeTable.from_tokens(source)
    texts = [table.text(k) for k in table.children(0)]
    assert texts == [b"  x ", b"= ", b"f", b"(", b'"a b"', b", ", b"12", b")", b";\n"]


def test_whitespace_only_source_is_one_token() -> None:
    table = NodeTable.from_tokens(b" \n\t")
    assert [table.text(k) for k in table.children(0)] == [b" \n\t"]


def test_lines_keep_crlf_and_a_missing_final_newline() -> None:
    table = NodeTable.from_lines(b"a\r\nb\r\n\nc")
    assert [table.text(k) for k in table.children(0)] == [b"a\r\n", b"b\r\n", b"\n", b"c"]


def test_empty_source_has_no_lines_or_tokens() -> None:
    for table in (NodeTable.from_lines(b""), NodeTable.from_tokens(b"")):
        assert len(table) == 1
        assert list(table.children(0)) == []


# --- count_errors ------------------------------------------------------------------------------


def _brute_force_errors(tree: tree_sitter.Tree) -> int:
    """Every node of the tree, visited without pruning."""
    count = 0
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        count += node.is_error or node.is_missing
        stack.extend(node.children)
    return count


VALID = {
    "c": b'#include <stdio.h>\nint main(void) { printf("%d\\n", 1 + 2); return 0; }\n',
    "python": b"def f(x):\n    return [y * 2 for y in x if y]\n\nprint(f([1, 2]))\n",
    "javascript": b"function f(a) { return a.map((x) => x + 1); }\nconsole.log(f([1]));\n",
    "rust": b'fn main() { let v: Vec<i32> = vec![1, 2]; println!("{:?}", v); }\n',
    "json": b'{"a": [1, 2, {"b": null}], "c": "d"}\n',
}


@pytest.mark.parametrize("language", sorted(VALID))
def test_count_errors_is_zero_on_valid_code(language: str) -> None:
    tree = new_parser(language).parse(VALID[language])
    assert count_errors(tree) == 0
    assert _brute_force_errors(tree) == 0


@pytest.mark.parametrize(
    ("language", "source"),
    [
        ("c", b"int main( { return 0 }\n"),
        ("python", b"def f(:\n    return )\n"),
        ("javascript", b"function ( { ]\n"),
        ("json", b'{"a": [1, 2,, }\n'),
    ],
)
def test_count_errors_is_positive_on_broken_code(language: str, source: bytes) -> None:
    tree = new_parser(language).parse(source)
    assert count_errors(tree) > 0
    assert count_errors(tree) == _brute_force_errors(tree)


def test_count_errors_counts_missing_nodes() -> None:
    tree = new_parser("c").parse(b"int x = 1\n")
    missing = [node for node in _walk(tree.root_node) if node.is_missing]
    assert len(missing) == 1
    assert not any(node.is_error for node in _walk(tree.root_node))
    assert count_errors(tree) == 1


def _walk(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    return [node, *(n for child in node.children for n in _walk(child))]


class _CleanRootOnly:
    """A tree whose root says it has no errors and that fails if anything looks further."""

    class _Root:
        has_error = False

        def __getattr__(self, name: str) -> object:
            raise AssertionError(f"count_errors looked at root.{name}")

    root_node = _Root()


def test_count_errors_does_not_walk_a_clean_tree() -> None:
    assert count_errors(typing.cast(tree_sitter.Tree, _CleanRootOnly())) == 0


_C_PROGRAM = (
    b"struct p { int x; int y; };\n"
    b"static int add(int a, int b) { return a + b; }\n"
    b"int main(void) {\n  struct p q = {1, 2};\n  if (q.x < q.y) { q.x = add(q.x, 3); }\n"
    b"  for (int i = 0; i < 3; i++) q.y *= i;\n  return q.x;\n}\n"
)
_PY_PROGRAM = b"class A:\n    def f(self, x=(1, 2)):\n        return {k: [x] for k in x}\n"


@st.composite
def _mutated(draw: st.DrawFn) -> tuple[str, bytes]:
    language, source = draw(st.sampled_from([("c", _C_PROGRAM), ("python", _PY_PROGRAM)]))
    data = bytearray(source)
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        start = draw(st.integers(min_value=0, max_value=len(data)))
        end = draw(st.integers(min_value=start, max_value=min(len(data), start + 12)))
        insert = draw(
            st.sampled_from([b"", b";", b"(", b"}", b"{", b"\n", b":", b"x", b'"', b"  "])
        )
        data[start:end] = insert
    return language, bytes(data)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_mutated())
def test_count_errors_matches_a_full_walk_on_mutations(case: tuple[str, bytes]) -> None:
    language, source = case
    tree = new_parser(language).parse(source)
    assert count_errors(tree) == _brute_force_errors(tree)


# --- coarse tables ------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", sorted(SAMPLES))
def test_a_coarse_table_is_the_full_table_cut_at_a_depth(lang: str) -> None:
    """The same nodes, in the same order, as the full table's down to the depth; those at the
    depth are leaves; and the depth chosen keeps the table within its node budget."""
    full, tree = table_of(lang, SAMPLES[lang])
    for budget in (1, 5, 20, len(full) // 2):
        depth = coarse_depth(tree, budget)
        assert depth is not None and depth >= 1
        coarse = NodeTable.from_tree(SAMPLES[lang], tree, depth)
        kept = [i for i in range(len(full)) if full.depth[i] <= depth]
        assert depth == 1 or len(coarse) <= budget
        assert len(coarse) == len(kept)
        for j, i in enumerate(kept):
            assert (coarse.start[j], coarse.end[j], coarse.kind[j]) == (
                full.start[i],
                full.end[i],
                full.kind[i],
            )
            assert coarse.depth[j] == full.depth[i]
            assert (coarse.first_child[j] == -1) == (
                full.depth[i] == depth or full.first_child[i] == -1
            )
            assert coarse.last[j] >= j
    assert coarse_depth(tree, len(full)) is None  # the whole tree fits: no coarse table
