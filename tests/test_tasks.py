"""Tests for treereduce_py.edit.tasks: the text each task produces, list separators going with their
elements (no dangling commas in C, JavaScript, Python and Rust), rebasing onto newer edits, and
the gain/anchor priority values.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import random
import re
from collections.abc import Callable
from pathlib import Path

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
    cover,
    footprint,
    gain,
    overlap,
    task_edits,
    task_pairs,
    within,
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
    assert isinstance(task, Delete | Replace | Hoist | DeleteChunk)  # the kinds generated here
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
def test_overlap_and_within_are_about_the_nodes_of_subtrees(a: list[int], b: list[int]) -> None:
    src = b"".join(b"def f%d(x):\n    return [x, x + 1, (x, 2)]\n" % i for i in range(3))
    t = table_of("python", src)
    a = [n % len(t) for n in a]
    b = [n % len(t) for n in b]

    def inside(nodes: list[int]) -> set[int]:
        return {m for n in nodes for m in range(n, t.last[n] + 1)}

    fa, fb = (footprint(t, DeleteChunk(tuple(ns))) for ns in (a, b))
    assert overlap(fa, fb) == bool(inside(a) & inside(b))
    assert within(fa, fb) == (inside(a) <= inside(b))


@given(
    st.lists(st.integers(0, 40), max_size=6),
    st.lists(st.lists(st.integers(0, 40), max_size=70), max_size=5),
)
@settings(max_examples=200, deadline=None)
def test_a_cover_overlaps_what_any_of_its_footprints_overlaps(
    a: list[int], bs: list[list[int]]
) -> None:
    src = b"".join(b"def f%d(x):\n    return [x, x + 1, (x, 2)]\n" % i for i in range(3))
    t = table_of("python", src)
    mine = footprint(t, DeleteChunk(tuple(n % len(t) for n in a)))
    # Lists longer than FOOTPRINT_NODES get one range around them: ranges that cross.
    prints = [footprint(t, DeleteChunk(tuple(n % len(t) for n in b))) for b in bs]
    assert overlap(mine, cover(prints)) == any(overlap(mine, p) for p in prints)


def test_a_long_chunk_has_one_range_around_its_nodes() -> None:
    src = b"".join(b"x%d = %d\n" % (i, i) for i in range(100))
    t = table_of("python", src)
    kids = list(t.children(0))
    chunk = footprint(t, DeleteChunk(tuple(kids[:80])))
    assert chunk == ((kids[0],), (t.last[kids[79]],))
    assert overlap(chunk, footprint(t, Replace(kids[40] + 1, b"0")))
    assert not overlap(chunk, footprint(t, Delete(kids[90])))


# --- every kind against fixed expectations -----------------------------------------------------

# Programs whose parses the kinds are run on: lists with separators, nested expressions, names
# used several times, in the languages whose planners make each kind.
KIND_SOURCES = {
    "python": b"def f(a, b: int) -> int:\n    y = a + b\n    return g(y, [a, b, 1])\n\n"
    b"class C:\n    x: int = 5\n\nz = f(1, 2)\nprint(z, C.x)\n",
    "c": b"int f(int a, int b) { int y = a * b; return g(y, a, 2); }\n"
    b"int t[] = {1, 2, 3};\nint main(void) { return f(t[0], 1) + f(2, 3); }\n",
    "javascript": b"function f(a, b) { const y = a + b; return g(y, [a, b]); }\n"
    b"let o = {p: 1, q: f(1, 2)};\nconsole.log(o.p, f(o.q, 3));\n",
    "smtlib": b"(declare-const x Int)(declare-fun h (Int) Int)\n"
    b"(assert (and (= x (h 3)) (> (+ x 1) (let ((z 2)) z))))\n(check-sat)\n",
}
KIND_SAMPLES = 6  # tasks of each kind on each program
FIXTURE = Path(__file__).parent / "data" / "task_kinds.json"


def kind_samples(table: NodeTable, rng: random.Random) -> list[Task]:
    """KIND_SAMPLES tasks of every kind on `table`, drawn by `rng`: valid ones (a hoist to a
    descendant, a chunk of siblings) and odd ones (empty tuples, unrelated nodes)."""
    n = len(table)
    node = functools.partial(rng.randrange, n)
    texts = [b"", b"0", b"{}", b"x"]
    parents = [i for i in range(n) if len(list(table.children(i))) >= 2]
    leaves = [i for i in range(n) if table.last[i] == i and table.named[i]]
    elements = [c for p in sorted(table.lists) for c in table.children(p) if table.named[c]]

    def some(k: int) -> tuple[int, ...]:
        return tuple(sorted({node() for _ in range(k)}))

    def chunk() -> tuple[int, ...]:
        kids = list(table.children(rng.choice(parents)))
        return tuple(sorted(rng.sample(kids, rng.randint(1, len(kids)))))

    def same_text() -> tuple[int, ...]:
        text = table.text(rng.choice(leaves))
        return tuple(i for i in leaves if table.text(i) == text)

    def hoist() -> Hoist:
        top = rng.choice([i for i in range(n) if table.last[i] > i])
        return Hoist(top, rng.randint(top + 1, table.last[top]))

    def inline() -> Inline:
        decl = rng.choice([i for i in range(n) if table.last[i] > i])
        value = rng.randint(decl + 1, table.last[decl])
        return Inline(decl, node(), value, rng.random() < 0.5)

    def purge() -> Purge:  # a use may repeat the definition or lie inside it
        definition = node()
        return Purge(definition, tuple(sorted({*some(rng.randint(0, 4)), definition})))

    makers: list[Callable[[], Task]] = [  # one line a kind
        lambda: Delete(rng.choice(elements or leaves) if rng.random() < 0.5 else node()),
        lambda: Replace(node(), rng.choice(texts)),
        hoist,
        lambda: DeleteChunk(
            chunk() if rng.random() < 0.8 else some(rng.randint(0, 3)),
            rng.randint(0, 3),
            rng.randint(0, 3),
            rng.randint(0, 3),
            rng.random() < 0.3,
        ),
        lambda: Rename(same_text() if rng.random() < 0.8 else (), rng.choice(texts)),
        lambda: Substitute(tuple((i, rng.choice(texts)) for i in some(rng.randint(0, 3)))),
        lambda: Drop(some(rng.randint(0, 3))),
        inline,
        purge,
    ]
    return [make() for make in makers for _ in range(KIND_SAMPLES)]


def kind_states(table: NodeTable, rng: random.Random) -> list[Edits]:
    """Edits a task may be rebased onto: none, a few deletions, a hoist and a replacement."""
    deleted = Edits()
    for _ in range(4):
        deleted = task_edits(table, deleted, Delete(rng.randrange(1, len(table)))) or deleted
    top = rng.choice([i for i in range(len(table)) if table.last[i] > i + 2])
    mixed = task_edits(table, Edits(), Hoist(top, table.last[top] - 1)) or Edits()
    mixed = task_edits(table, mixed, Replace(rng.randrange(1, len(table)), b"0")) or mixed
    return [Edits(), deleted, mixed]


def digest(data: object) -> str:
    return hashlib.blake2b(repr(data).encode(), digest_size=6).hexdigest()


def kind_record(table: NodeTable, states: list[Edits], task: Task) -> list[object]:
    """What the engine asks of `task`: its repr (the heap's last key), gain, anchor and footprint,
    and on each state the nodes of its pairs, their digest, and the text of its edits (None
    when it no longer applies)."""
    applied: list[object] = []
    for edits in states:
        pairs = task_pairs(table, edits, task)
        out = task_edits(table, edits, task)
        text = None if out is None else digest(render(table, out))
        applied.append(None if pairs is None else [[n for n, _ in pairs], digest(pairs), text])
    fp = footprint(table, task)
    return [repr(task), gain(table, task), anchor(task), [list(fp[0]), list(fp[1])], applied]


def kind_records() -> dict[str, list[list[object]]]:
    records = {}
    for lang, src in KIND_SOURCES.items():
        table = table_of(lang, src)
        rng = random.Random(f"{lang} kinds")
        states = kind_states(table, rng)
        records[lang] = [kind_record(table, states, t) for t in kind_samples(table, rng)]
    return records


def test_every_kind_applies_itself_as_it_always_did() -> None:
    """The reprs (heap keys), gains, anchors, footprints and edits of every kind on real parses,
    against what the isinstance ladders computed before the kinds carried their behaviour.
    Regenerate (`python tests/test_tasks.py`) only for an intended change of behaviour."""
    expected = json.loads(FIXTURE.read_text())
    observed = json.loads(json.dumps(kind_records()))
    assert observed.keys() == expected.keys()
    for lang, records in observed.items():
        for got, want in zip(records, expected[lang], strict=True):
            assert got == want, lang


def test_the_expectations_cover_every_kind_of_the_module() -> None:
    kinds = {k for k in Task.__subclasses__() if k.__module__ == Task.__module__}
    table = table_of("python", KIND_SOURCES["python"])
    assert {type(t) for t in kind_samples(table, random.Random(0))} == kinds


if __name__ == "__main__":
    FIXTURE.write_text(
        "{\n"
        + ",\n".join(
            f"{json.dumps(lang)}: [\n" + ",\n".join(json.dumps(r) for r in recs) + "\n]"
            for lang, recs in kind_records().items()
        )
        + "\n}\n"
    )
