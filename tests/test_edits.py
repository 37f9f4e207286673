"""Tests for edit.edits: the disjoint-subtree invariant of `Edits` and `render` checked
against brute-force splicing on real parses and on line/token tables.
"""

from __future__ import annotations

import functools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treereduce_py.edit.edits import Edits, render
from treereduce_py.lang.languages import new_parser
from treereduce_py.lang.syntax import NodeTable

SOURCES: dict[str, bytes] = {
    "c": b"int add(int a, int b) { return a + b; }\nint main(void) { int x[] = {1, 2}; "
    b"return add(x[0], 3 * (x[1] + 4)); }\n",
    "python": b"import os, sys\n\ndef f(a, b):\n    return [a, b, (1,)]\n\nprint(f(1, 2))\n",
    "javascript": b"function f(a, b) { return [a, b]; }\nconst o = { k: f(1, 2) };\n",
    "rust": b"fn add(a: i32, b: i32) -> i32 { a + b }\nfn main() { let v = [1, 2]; }\n",
    "broken-c": b"int f({ return (1 + ;\n",
}
KINDS = [*SOURCES, "lines", "tokens"]


@functools.cache
def table_for(kind: str) -> NodeTable:
    src = SOURCES.get(kind, SOURCES["c"])
    if kind == "lines":
        return NodeTable.from_lines(src)
    if kind == "tokens":
        return NodeTable.from_tokens(src)
    lang = "c" if kind == "broken-c" else kind
    return NodeTable.from_tree(src, new_parser(lang).parse(src))


def edited_ancestor(table: NodeTable, edits: Edits, i: int) -> int | None:
    """Brute force: the edited node on the path from `i` up to the root, if any."""
    j = i
    while j != -1:
        if j in edits.replacements:
            return j
        j = table.parent[j]
    return None


def splice(table: NodeTable, edits: Edits) -> bytes:
    """Brute force rendering: apply the replacements right to left by byte range."""
    out = table.source
    for i in sorted(edits.replacements, key=lambda i: table.start[i], reverse=True):
        lo, hi = (0, len(out)) if i == 0 else (table.start[i], table.end[i])
        out = out[:lo] + edits.replacements[i] + out[hi:]
    return out


def assert_invariant(table: NodeTable, edits: Edits) -> None:
    """Edits sit on disjoint subtrees and `order` lists them sorted."""
    assert list(edits.order) == sorted(edits.replacements)
    assert len(edits) == len(edits.replacements)
    for i in edits.order:
        for j in edits.order:
            assert i == j or not table.contains(i, j)


@st.composite
def edit_sets(draw: st.DrawFn) -> tuple[NodeTable, Edits]:
    """A table and the edits left after trying a random sequence of edits on it."""
    table = table_for(draw(st.sampled_from(KINDS)))
    edits = Edits()
    for _ in range(draw(st.integers(0, 8))):
        node = draw(st.integers(0, len(table) - 1))
        text = draw(st.sampled_from([b"", b"", b"0", b"{}", b"xyz"]))
        nxt = edits.with_edit(table, node, text)
        if nxt is not None:
            edits = nxt
    return table, edits


@pytest.mark.parametrize("kind", KINDS)
def test_rendering_no_edits_is_the_source(kind: str) -> None:
    table = table_for(kind)
    assert render(table, Edits()) == table.source
    for i in range(1, len(table)):
        assert render(table, Edits(), i) == table.text(i)


@settings(max_examples=120, deadline=None)
@given(st.binary(max_size=300))
def test_rendering_no_edits_is_the_identity_on_any_bytes(source: bytes) -> None:
    for table in (NodeTable.from_lines(source), NodeTable.from_tokens(source)):
        assert render(table, Edits()) == source
    table = NodeTable.from_tree(source, new_parser("c").parse(source))
    assert render(table, Edits()) == source


@pytest.mark.parametrize("kind", KINDS)
def test_deleting_one_node_cuts_exactly_its_bytes(kind: str) -> None:
    table = table_for(kind)
    src = table.source
    for i in range(1, len(table)):
        edits = Edits().with_edit(table, i, b"")
        assert edits is not None
        assert render(table, edits) == src[: table.start[i]] + src[table.end[i] :]
    root = Edits().with_edit(table, 0, b"")
    assert root is not None and render(table, root) == b""


@settings(max_examples=200, deadline=None)
@given(edit_sets())
def test_render_equals_brute_force_splicing(case: tuple[NodeTable, Edits]) -> None:
    table, edits = case
    assert_invariant(table, edits)
    assert render(table, edits) == splice(table, edits)


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(KINDS), st.lists(st.integers(0, 10_000), max_size=10))
def test_deletions_never_grow_the_text(kind: str, picks: list[int]) -> None:
    table = table_for(kind)
    edits = Edits()
    size = len(table.source)
    for p in picks:
        nxt = edits.with_edit(table, p % len(table), b"")
        if nxt is None:
            continue
        edits = nxt
        new_size = len(render(table, edits))
        assert new_size <= size
        size = new_size


@settings(max_examples=120, deadline=None)
@given(edit_sets())
def test_covering_and_is_live_agree_with_walking_up(case: tuple[NodeTable, Edits]) -> None:
    table, edits = case
    for i in range(len(table)):
        expected = edited_ancestor(table, edits, i)
        assert edits.covering(table, i) == expected
        assert edits.is_live(table, i) == (expected is None)


@settings(max_examples=120, deadline=None)
@given(edit_sets(), st.integers(0, 10_000))
def test_with_edit_refuses_covered_nodes_and_drops_nested_ones(
    case: tuple[NodeTable, Edits], pick: int
) -> None:
    table, edits = case
    i = pick % len(table)
    nxt = edits.with_edit(table, i, b"#")
    if edited_ancestor(table, edits, i) is not None:
        assert nxt is None
        return
    assert nxt is not None
    assert nxt.replacements[i] == b"#"
    assert_invariant(table, nxt)
    for j, text in edits.replacements.items():  # edits outside i survive, edits inside go
        if table.contains(i, j):
            assert j not in nxt.replacements
        else:
            assert nxt.replacements[j] == text
    assert edits.with_edit(table, i, b"") is not None  # the original value is unchanged


def test_with_edits_keeps_the_outer_of_nested_new_nodes_in_any_order() -> None:
    table = table_for("c")
    inner = next(i for i in range(1, len(table)) if table.parent[i] > 0)
    outer = table.parent[inner]
    for batch in ([(outer, b""), (inner, b"x")], [(inner, b"x"), (outer, b"")]):
        both = Edits().with_edits(table, batch)
        assert both is not None
        assert dict(both.replacements) == {outer: b""}
        assert both.order == (outer,)


def test_with_edits_refuses_a_batch_touching_an_edited_subtree() -> None:
    table = table_for("c")
    inner = next(i for i in range(1, len(table)) if table.parent[i] > 0)
    outer = table.parent[inner]
    edits = Edits().with_edit(table, outer, b"")
    assert edits is not None
    free = table.last[outer] + 1  # a node after the edited subtree
    assert edits.with_edits(table, [(free, b""), (inner, b"")]) is None
    ok = edits.with_edits(table, [(free, b"")])
    assert ok is not None and ok.order == (outer, free)


@settings(max_examples=120, deadline=None)
@given(edit_sets(), st.lists(st.tuples(st.integers(0, 10_000), st.binary(max_size=2)), max_size=6))
def test_with_edits_matches_a_model_of_batches(
    case: tuple[NodeTable, Edits], batch: list[tuple[int, bytes]]
) -> None:
    table, edits = case
    pairs = [(i % len(table), text) for i, text in batch]
    new = dict(pairs)  # a repeated node keeps its last text
    # The model: new nodes inside other new nodes are dropped; the batch is refused when a kept
    # node lies in an edited subtree; kept nodes replace the edits inside them.
    kept = {i: t for i, t in new.items() if not any(j != i and table.contains(j, i) for j in new)}
    result = edits.with_edits(table, pairs)
    if any(edited_ancestor(table, edits, i) is not None for i in kept):
        assert result is None
        return
    expected = {
        j: t for j, t in edits.replacements.items() if not any(table.contains(i, j) for i in kept)
    }
    expected.update(kept)
    assert result is not None
    assert dict(result.replacements) == expected
    assert_invariant(table, result)
    assert render(table, result) == splice(table, result)


def test_an_edited_node_cannot_be_edited_again() -> None:
    table = table_for("python")
    once = Edits().with_edit(table, 3, b"")
    assert once is not None
    assert once.with_edit(table, 3, b"x") is None
    assert once.covering(table, 3) == 3


def test_edits_are_values() -> None:
    table = table_for("javascript")
    base = Edits()
    one = base.with_edit(table, 2, b"")
    assert one is not None
    two = one.with_edit(table, len(table) - 1, b"")
    assert two is not None
    assert len(base) == 0 and len(one) == 1 and len(two) == 2
    assert render(table, one) == splice(table, one)


@settings(max_examples=120, deadline=None)
@given(edit_sets(), st.integers(0, 10_000))
def test_rendering_a_live_node_is_its_slice_of_the_whole_render(
    case: tuple[NodeTable, Edits], pick: int
) -> None:
    table, edits = case
    node = pick % len(table)
    if node == 0 or not edits.is_live(table, node):
        return
    whole = render(table, edits)
    part = render(table, edits, node)
    # Edited nodes before `node` in pre-order are not its ancestors (it is live): they lie in
    # earlier subtrees, so they shift its text by their change in length.
    shift = sum(
        len(edits.replacements[j]) - table.size(j) for j in edits.order if j < node and j != 0
    )
    at = table.start[node] + shift
    assert whole[at : at + len(part)] == part
    assert part == splice_node(table, edits, node)


def splice_node(table: NodeTable, edits: Edits, node: int) -> bytes:
    """Brute force rendering of one node's subtree."""
    out = table.text(node)
    base = table.start[node]
    inside = [j for j in edits.replacements if table.contains(node, j)]
    for j in sorted(inside, key=lambda j: table.start[j], reverse=True):
        lo, hi = table.start[j] - base, table.end[j] - base
        out = out[:lo] + edits.replacements[j] + out[hi:]
    return out


def test_rendering_an_edited_node_gives_its_replacement() -> None:
    table = table_for("rust")
    edits = Edits().with_edit(table, 5, b"REPL")
    assert edits is not None
    assert render(table, edits, 5) == b"REPL"


@settings(max_examples=120, deadline=None)
@given(edit_sets(), st.lists(st.integers(0, 10_000), min_size=1, max_size=4))
def test_applies_says_what_with_edits_does_without_building(
    case: tuple[NodeTable, Edits], picks: list[int]
) -> None:
    """The engine's waste count asks `applies` instead of building the edits: the two agree."""
    table, edits = case
    pairs = [(p % len(table), b"") for p in picks]
    assert edits.applies(table, pairs) == (edits.with_edits(table, pairs) is not None)
