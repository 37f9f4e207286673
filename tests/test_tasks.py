"""Tests for treereduce_py.edit.tasks: the text each task produces, list separators going with their
elements (no dangling commas in C, JavaScript, Python and Rust), rebasing onto newer edits, and
the gain/anchor priority values.
"""

from __future__ import annotations

import functools
import itertools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treereduce_py.edit.edits import Edits, render
from treereduce_py.edit.tasks import (
    Delete,
    DeleteChunk,
    Drop,
    Hoist,
    Inline,
    Purge,
    Rename,
    Replace,
    Substitute,
    Task,
    anchor,
    footprint,
    gain,
    overlap,
    task_edits,
)
from treereduce_py.lang.languages import new_parser
from treereduce_py.lang.syntax import NodeTable


@functools.cache
def table_of(lang: str, src: bytes) -> NodeTable:
    return NodeTable.from_tree(src, new_parser(lang).parse(src))


def find(table: NodeTable, text: bytes, kind: str | None = None) -> int:
    """The first named node (pre-order) with this text (and kind)."""
    return next(
        i
        for i in range(len(table))
        if table.named[i] and table.text(i) == text and kind in (None, table.kind_name(i))
    )


def squash(text: bytes) -> bytes:
    return re.sub(rb"\s+", b"", text)


def apply(table: NodeTable, edits: Edits, task: Task) -> Edits:
    out = task_edits(table, edits, task)
    assert out is not None, task
    return out


# --- separators --------------------------------------------------------------------------------

# (language, program, the list in it, whether every reduced program must still parse)
LISTS = [
    ("c", b"int main(void) { f(a, b, c); }\n", b"(a, b, c)", True),
    ("javascript", b"f(a, b, c);\n", b"(a, b, c)", True),
    ("python", b"f(a, b, c)\n", b"(a, b, c)", True),
    ("rust", b"fn main() { f(a, b, c); }\n", b"(a, b, c)", True),
    ("c", b"int x[] = {1, 2, 3};\n", b"{1, 2, 3}", True),
    ("javascript", b"x = [1, 2, 3];\n", b"[1, 2, 3]", True),
    ("python", b"x = [1, 2, 3]\n", b"[1, 2, 3]", True),
    ("rust", b"fn main() { let x = [1, 2, 3]; }\n", b"[1, 2, 3]", True),
    ("python", b"import a, b, c\n", b"import a, b, c", False),  # `import` alone is no program
]


def list_case(lang: str, src: bytes, lst: bytes) -> tuple[NodeTable, int, list[int]]:
    table = table_of(lang, src)
    node = find(table, lst)
    elements = [c for c in table.children(node) if table.named[c]]
    assert len(elements) == 3
    return table, node, elements


def expected_list(table: NodeTable, node: int, elements: list[int], kept: list[int]) -> bytes:
    """The list with only `kept` elements, comma separated, whitespace removed."""
    text = squash(table.text(node))
    head = text[: text.index(squash(table.text(elements[0])))]
    tail = text[len(squash(b"".join(table.text(c) for c in table.children(node)))) :]
    closing = b"" if table.named[table.last[node]] else squash(table.text(table.last[node]))
    return head + b",".join(squash(table.text(e)) for e in kept) + (tail or closing)


def assert_list_result(
    lang: str, table: NodeTable, node: int, edits: Edits, expected: bytes, must_parse: bool
) -> None:
    whole = render(table, edits)
    part = render(table, edits, node)
    src = table.source
    assert whole == src[: table.start[node]] + part + src[table.end[node] :]
    assert squash(part) == expected
    assert b",," not in squash(whole)
    if must_parse:
        assert not new_parser(lang).parse(whole).root_node.has_error, whole


@pytest.mark.parametrize(("lang", "src", "lst", "must_parse"), LISTS)
def test_deleting_elements_one_by_one_leaves_no_dangling_comma(
    lang: str, src: bytes, lst: bytes, must_parse: bool
) -> None:
    table, node, elements = list_case(lang, src, lst)
    for k in range(1, len(elements) + 1):
        for order in itertools.permutations(elements, k):
            edits = Edits()
            for step, e in enumerate(order, 1):
                edits = apply(table, edits, Delete(e))
                kept = [x for x in elements if x not in order[:step]]
                expected = expected_list(table, node, elements, kept)
                assert_list_result(lang, table, node, edits, expected, must_parse)


@pytest.mark.parametrize(("lang", "src", "lst", "must_parse"), LISTS)
def test_deleting_a_chunk_of_elements_leaves_no_dangling_comma(
    lang: str, src: bytes, lst: bytes, must_parse: bool
) -> None:
    table, node, elements = list_case(lang, src, lst)
    for k in range(1, len(elements) + 1):
        for chunk in itertools.combinations(elements, k):
            edits = apply(table, Edits(), DeleteChunk(chunk))
            kept = [x for x in elements if x not in chunk]
            expected = expected_list(table, node, elements, kept)
            assert_list_result(lang, table, node, edits, expected, must_parse)


def test_the_expected_lists_are_what_they_look_like() -> None:
    table, node, elements = list_case("c", b"int main(void) { f(a, b, c); }\n", b"(a, b, c)")
    assert expected_list(table, node, elements, elements[1:]) == b"(b,c)"
    assert expected_list(table, node, elements, []) == b"()"
    table, node, elements = list_case("python", b"import a, b, c\n", b"import a, b, c")
    assert expected_list(table, node, elements, elements[:1]) == b"importa"


def test_deleting_everything_from_a_list_with_a_trailing_comma() -> None:
    src = b"x = [1, 2, 3,];\n"
    table = table_of("javascript", src)
    elements = [find(table, t) for t in (b"1", b"2", b"3")]
    edits = apply(table, Edits(), Delete(elements[2]))
    assert squash(render(table, edits)) == b"x=[1,2,];"
    for e in elements[:2]:
        edits = apply(table, edits, Delete(e))
    assert squash(render(table, edits)) == b"x=[];"


def test_a_one_element_tuple_loses_its_comma() -> None:
    table = table_of("python", b"x = (1,)\n")
    edits = apply(table, Edits(), Delete(find(table, b"1")))
    assert render(table, edits) == b"x = ()\n"


def test_deleting_a_returned_value_keeps_the_semicolon() -> None:
    src = b"void f(void) { return x; }\n"
    table = table_of("c", src)
    edits = apply(table, Edits(), Delete(find(table, b"x")))
    assert render(table, edits) == b"void f(void) { return ; }\n"


def test_a_chunk_whose_separator_is_also_in_it_deletes_each_once() -> None:
    table = table_of("javascript", b"f(a, b);\n")
    a = find(table, b"a")
    comma = a + 1
    assert table.text(comma) == b","
    edits = apply(table, Edits(), DeleteChunk((a, comma)))
    assert render(table, edits) == b"f( b);\n"


# --- Replace, Hoist, DeleteChunk ---------------------------------------------------------------


def test_replace_puts_the_text_in_place_of_the_node() -> None:
    src = b"int main(void) { if (x) { y(); z(); } return 0; }\n"
    table = table_of("c", src)
    block = find(table, b"{ y(); z(); }")
    edits = apply(table, Edits(), Replace(block, b"{}"))
    assert render(table, edits) == b"int main(void) { if (x) {} return 0; }\n"


def test_hoist_puts_a_descendant_in_place_of_the_node() -> None:
    src = b"x = 5 + (3 * y);\n"
    table = table_of("javascript", src)
    node = find(table, b"5 + (3 * y)")
    target = find(table, b"y")
    edits = apply(table, Edits(), Hoist(node, target))
    assert render(table, edits) == b"x = y;\n"


def test_hoist_carries_the_edits_inside_the_target() -> None:
    src = b"f(g(a, b))\n"
    table = table_of("python", src)
    outer, inner = find(table, b"f(g(a, b))"), find(table, b"g(a, b)")
    edits = apply(table, Edits(), Delete(find(table, b"b")))
    edits = apply(table, edits, Hoist(outer, inner))
    assert render(table, edits) == b"g(a )\n"


def test_delete_chunk_deletes_several_siblings() -> None:
    src = b"a = 1\nb = 2\nc = 3\nd = 4\n"
    table = table_of("python", src)
    stmts = list(table.children(0))
    edits = apply(table, Edits(), DeleteChunk((stmts[0], stmts[2]), group=1, round=2, index=3))
    assert render(table, edits) == b"\nb = 2\n\nd = 4\n"


# --- tasks that no longer apply ----------------------------------------------------------------

SRC = b"def f(a, b):\n    return g(a + 1, b * 2)\n\nprint(f(1, 2))\n"


def test_tasks_inside_an_edited_subtree_no_longer_apply() -> None:
    table = table_of("python", SRC)
    func = find(table, table.text(1))
    call = find(table, b"g(a + 1, b * 2)")
    plus = find(table, b"a + 1")
    one = find(table, b"1")
    edits = apply(table, Edits(), Delete(func))
    assert task_edits(table, edits, Delete(call)) is None
    assert task_edits(table, edits, Delete(func)) is None
    assert task_edits(table, edits, Replace(call, b"0")) is None
    assert task_edits(table, edits, Hoist(call, plus)) is None
    assert task_edits(table, edits, DeleteChunk((call, plus))) is None
    # A node outside the deleted function is still fair game.
    printed = find(table, b"print(f(1, 2))")
    assert task_edits(table, edits, Delete(printed)) is not None
    # A hoist whose target is gone does not apply either.
    gone = apply(table, Edits(), Delete(one))
    assert task_edits(table, gone, Hoist(plus, one)) is None


def test_a_chunk_with_some_nodes_gone_still_deletes_the_rest() -> None:
    table = table_of("python", b"a = 1\nb = 2\nc = 3\n")
    s0, s1, s2 = table.children(0)
    edits = apply(table, Edits(), Delete(s1))
    after = apply(table, edits, DeleteChunk((s0, s1, s2)))
    assert render(table, after) == b"\n\n\n"
    assert task_edits(table, after, DeleteChunk((s0, s1, s2))) is None
    assert task_edits(table, Edits(), DeleteChunk(())) is None


@st.composite
def rebase_cases(draw: st.DrawFn) -> tuple[NodeTable, Edits, Task]:
    """Some committed deletions, then a random task created against the original table."""
    lang, src = draw(
        st.sampled_from([("python", SRC), *((lang, src) for lang, src, _, _ in LISTS)])
    )
    table = table_of(lang, src)
    node = st.integers(0, len(table) - 1)
    edits = Edits()
    for n in draw(st.lists(node, max_size=4)):
        edits = task_edits(table, edits, Delete(n)) or edits
    n = draw(node)
    below = list(table.descendants(n))
    options: list[Task] = [
        Delete(n),
        Replace(n, b"0"),
        DeleteChunk(tuple(sorted(set(draw(st.lists(node, max_size=4)))))),
    ]
    if below:
        options.append(Hoist(n, draw(st.sampled_from(below))))
    return table, edits, draw(st.sampled_from(options))


@settings(max_examples=200, deadline=None)
@given(rebase_cases())
def test_rebased_tasks_apply_exactly_when_their_nodes_are_live(
    case: tuple[NodeTable, Edits, Task],
) -> None:
    table, edits, task = case
    before = render(table, edits)
    out = task_edits(table, edits, task)
    assert not isinstance(task, Rename | Substitute | Drop | Inline | Purge)  # not generated here
    if isinstance(task, DeleteChunk):
        live = [n for n in task.nodes if edits.is_live(table, n)]
        assert (out is None) == (not live)
        touched = live
    else:
        nodes = [task.node, task.target] if isinstance(task, Hoist) else [task.node]
        assert (out is None) == (not all(edits.is_live(table, n) for n in nodes))
        touched = [task.node]
    if out is None:
        return
    for n in touched:  # the touched nodes are now edited
        assert not out.is_live(table, n)
    after = render(table, out)
    if isinstance(task, Delete | DeleteChunk):
        assert len(after) <= len(before)
        # Only the nodes and at most one separator per node went.
        assert len(out.replacements) - len(edits.replacements) <= 2 * len(touched)
    else:  # the node's rendered text (its deletions included) gave way to the new one
        new = task.text if isinstance(task, Replace) else render(table, edits, task.target)
        assert len(after) == len(before) - len(render(table, edits, task.node)) + len(new)


def test_drop_deletes_its_nodes_together_or_not_at_all() -> None:
    src = b"x: int = 5\n"
    table = table_of("python", src)
    colon = next(i for i in range(len(table)) if table.text(i) == b":" and not table.named[i])
    kind = next(i for i in range(len(table)) if table.kind_name(i) == "type")
    task = Drop((colon, kind))
    out = task_edits(table, Edits(), task)
    assert out is not None and render(table, out) == b"x  = 5\n"  # whitespace goes later
    assert gain(table, task) == len(b": int") - 1  # the space after the colon stays
    assert anchor(task) == colon
    # Once one of its nodes is gone, the rest is not dropped alone.
    gone = Edits().with_edit(table, kind, b"str")
    assert gone is not None and task_edits(table, gone, task) is None


def test_purge_deletes_the_live_uses_with_its_definition_and_nothing_without_it() -> None:
    src = b"def f():\n    pass\nf()\nx = [f, 1]\nf()\n"
    table = table_of("python", src)
    definition = find(table, b"def f():\n    pass")
    calls = [i for i in table.children(0) if table.text(i) == b"f()"]  # their statements
    at = src.index(b"[f") + 1
    element = next(i for i in range(len(table)) if table.start[i] == at and table.named[i])
    task = Purge(definition, (*calls, element))
    assert gain(table, task) == len(b"def f():\n    pass") + 2 * len(b"f()") + 1
    assert anchor(task) == definition
    out = task_edits(table, Edits(), task)
    assert out is not None and render(table, out) == b"\n\nx = [ 1]\n\n"  # the comma went too
    # A use already gone is skipped; without the definition nothing applies.
    one_gone = apply(table, Edits(), Delete(calls[0]))
    out = task_edits(table, one_gone, task)
    assert out is not None and render(table, out) == b"\n\nx = [ 1]\n\n"
    assert task_edits(table, apply(table, Edits(), Delete(definition)), task) is None


# --- gain and anchor ---------------------------------------------------------------------------


def test_gain_is_the_bytes_the_task_removes_from_the_original() -> None:
    table = table_of("python", SRC)
    call = find(table, b"g(a + 1, b * 2)")
    plus = find(table, b"a + 1")
    times = find(table, b"b * 2")
    assert gain(table, Delete(call)) == len(b"g(a + 1, b * 2)")
    assert gain(table, Replace(call, b"0")) == len(b"g(a + 1, b * 2)") - 1
    assert gain(table, Replace(plus, b"too long")) < 0
    assert gain(table, Hoist(call, plus)) == len(b"g(a + 1, b * 2)") - len(b"a + 1")
    assert gain(table, DeleteChunk((plus, times))) == len(b"a + 1") + len(b"b * 2")
    assert gain(table, DeleteChunk(())) == 0
    for task in (Delete(call), Replace(call, b""), DeleteChunk((call,))):
        edits = apply(table, Edits(), task)
        assert len(SRC) - len(render(table, edits)) >= gain(table, task)


def test_anchor_is_the_first_node_a_task_touches() -> None:
    assert anchor(Delete(7)) == 7
    assert anchor(Replace(8, b"")) == 8
    assert anchor(Hoist(9, 12)) == 9
    assert anchor(DeleteChunk((4, 6, 9))) == 4
    assert anchor(DeleteChunk(())) == 0


def test_tasks_are_hashable_values() -> None:
    assert Delete(3) == Delete(3)
    assert len({Delete(3), Delete(3), Replace(3, b"0"), DeleteChunk((1, 2), 1, 0, 0)}) == 3


def test_substitute_replaces_each_live_node_by_its_own_text() -> None:
    table = table_of("smtlib", b"(declare-const x Int)(assert (= x x))")
    decl, _ = (c for c in table.children(0) if table.named[c])
    uses = [i for i in range(len(table)) if table.text(i) == b"x" and i > table.last[decl]]
    task = Substitute((*((u, b"0") for u in uses), (decl, b"")))
    assert gain(table, task) == len(b"(declare-const x Int)")
    assert anchor(task) == uses[0]
    out = task_edits(table, Edits(), task)
    assert out is not None and render(table, out) == b"(assert (= 0 0))"
    gone = task_edits(table, Edits(), Delete(decl))
    assert gone is not None
    rebased = task_edits(table, gone, task)
    assert rebased is not None and render(table, rebased) == b"(assert (= 0 0))"


def test_footprints_overlap_when_one_task_edits_inside_the_other() -> None:
    src = b"def f(a, b):\n    x = a + b\n    return x\n\ndef g():\n    pass\n"
    t = table_of("python", src)
    f, g = (c for c in t.children(0))
    body = next(c for c in t.children(f) if t.kind_name(c) == "block")
    stmt = next(iter(t.children(body)))
    whole = footprint(t, Delete(f))
    assert overlap(whole, footprint(t, Replace(stmt, b"pass")))  # inside: one or the other
    assert overlap(footprint(t, Hoist(stmt, stmt + 1)), whole)  # either way round
    assert not overlap(whole, footprint(t, Delete(g)))  # siblings are independent
    chunk = footprint(t, DeleteChunk((f, g)))
    assert chunk == ((f, g), (t.last[f], t.last[g]))
    assert overlap(chunk, footprint(t, Replace(stmt, b"pass")))
    assert not overlap(footprint(t, DeleteChunk(())), whole)


@given(st.lists(st.integers(0, 40), max_size=6), st.lists(st.integers(0, 40), max_size=6))
@settings(max_examples=200, deadline=None)
def test_overlap_is_whether_two_sets_of_subtrees_share_a_node(a: list[int], b: list[int]) -> None:
    src = b"".join(b"def f%d(x):\n    return [x, x + 1, (x, 2)]\n" % i for i in range(3))
    t = table_of("python", src)
    a = [n % len(t) for n in a]
    b = [n % len(t) for n in b]

    def inside(nodes: list[int]) -> set[int]:
        return {m for n in nodes for m in range(n, t.last[n] + 1)}

    fa, fb = (footprint(t, DeleteChunk(tuple(ns))) for ns in (a, b))
    assert overlap(fa, fb) == bool(inside(a) & inside(b))


def test_a_long_chunk_has_one_range_around_its_nodes() -> None:
    src = b"".join(b"x%d = %d\n" % (i, i) for i in range(100))
    t = table_of("python", src)
    kids = list(t.children(0))
    chunk = footprint(t, DeleteChunk(tuple(kids[:80])))
    assert chunk == ((kids[0],), (t.last[kids[79]],))
    assert overlap(chunk, footprint(t, Replace(kids[40] + 1, b"0")))
    assert not overlap(chunk, footprint(t, Delete(kids[90])))
