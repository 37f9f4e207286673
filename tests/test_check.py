"""The incremental syntax check (check.py) and the judge's choice of order (judge.Order)."""

from __future__ import annotations

import pytest
import tree_sitter
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from treereduce_py.edit.edits import Edits, Span, apply, diff, render, shifts, spans_since
from treereduce_py.judge import check
from treereduce_py.judge.check import SyntaxCheck
from treereduce_py.judge.judge import Judge, Order
from treereduce_py.judge.oracle import CallableOracle
from treereduce_py.lang.languages import new_parser
from treereduce_py.lang.syntax import NodeTable, count_errors

PROGRAMS = {
    "c": b"".join(
        b"int f%d(int a, int b) {\n  if (a > %d) { return a * b; }\n  return b - %d;\n}\n"
        % (k, k, k)
        for k in range(12)
    )
    + b"struct s { int x; char *name; };\n"
    + b"int main(void) { int v[] = {1, 2, 3}; return f1(v[0], 2); }\n",
    "python": b"".join(
        b"def f%d(a, b=%d):\n    if a:\n        return [a, b, (1,)]\n" % (k, k)
        + b"    return {'k': b}\n\n"
        for k in range(10)
    )
    + b"print(f1(1, 2))\n",
    "javascript": b"".join(
        b"function f%d(a, b) {\n  const o = { k: [a, b] };\n  return o.k[%d] ?? `t${a}`;\n}\n"
        % (k, k % 2)
        for k in range(10)
    ),
}
TEXTS = [b"", b"", b"", b"0", b"{}", b"(", b"x\ny", b";\n\n", b"return 1;"]


def same_tree(a: tree_sitter.Tree, b: tree_sitter.Tree) -> bool:
    """Same kinds and byte ranges everywhere (what the reducer reads of a tree)."""

    def shape(t: tree_sitter.Tree) -> list[tuple[int, int, int]]:
        out, cursor = [], t.walk()
        while True:
            node = cursor.node
            assert node is not None
            out.append((node.kind_id, node.start_byte, node.end_byte))
            if cursor.goto_first_child():
                continue
            while not cursor.goto_next_sibling():
                if not cursor.goto_parent():
                    return out

    return shape(a) == shape(b)


def setup(lang: str) -> tuple[NodeTable, SyntaxCheck]:
    src = PROGRAMS[lang]
    tree = new_parser(lang).parse(src)
    table = NodeTable.from_tree(src, tree)
    return table, SyntaxCheck(lang, table, tree)


class State:
    """A committed state as the engine keeps it: edits, text and shifts."""

    def __init__(self, table: NodeTable, edits: Edits) -> None:
        self.table, self.edits = table, edits
        self.text, self.shifts = render(table, edits), shifts(edits)

    def build(self, pairs: list[tuple[int, bytes]]) -> tuple[Edits, list[Span], bytes] | None:
        """The candidate of adding `pairs`, built from this state's text as the engine does."""
        edits = self.edits.with_edits(self.table, pairs)
        if edits is None:
            return None
        spans = spans_since(self.table, self.edits, self.shifts, pairs)
        return edits, spans, apply(self.text, spans)


@st.composite
def pair_lists(draw: st.DrawFn, table: NodeTable) -> list[tuple[int, bytes]]:
    nodes = st.integers(1, len(table) - 1)
    return draw(st.lists(st.tuples(nodes, st.sampled_from(TEXTS)), min_size=1, max_size=4))


@st.composite
def chains(draw: st.DrawFn) -> tuple[str, NodeTable, SyntaxCheck, list[State]]:
    """A check that has seen a chain of committed states (checked, then committed)."""
    lang = draw(st.sampled_from(sorted(PROGRAMS)))
    table, checker = setup(lang)
    states = [State(table, Edits())]
    for _ in range(draw(st.integers(0, 4))):
        built = states[-1].build(draw(pair_lists(table)))
        if built is not None:
            edits, spans, text = built
            checker.parse(text, spans, states[-1].edits)
            checker.committed(edits, spans)
            states.append(State(table, edits))
    return lang, table, checker, states


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chains(), st.data())
def test_candidates_built_from_a_state_are_the_naive_rendering(
    case: tuple[str, NodeTable, SyntaxCheck, list[State]], data: st.DataObject
) -> None:
    _, table, _, states = case
    state = data.draw(st.sampled_from(states))
    built = state.build(data.draw(pair_lists(table)))
    if built is not None:
        edits, _, text = built
        assert text == render(table, edits)
        assert apply(state.text, diff(table, state.edits, state.shifts, edits) or []) == text
    for older in states:  # diff between any two states of the chain, the older first
        if older is state:
            break
        between = diff(table, older.edits, older.shifts, state.edits)
        assert between is not None and apply(older.text, between) == state.text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chains(), st.data(), st.sampled_from([0, 8, check.COALESCE_GAP]))
def test_a_candidate_on_a_committed_state_parses_as_a_fresh_parse(
    case: tuple[str, NodeTable, SyntaxCheck, list[State]], data: st.DataObject, gap: int
) -> None:
    lang, table, checker, states = case
    # Only chains of error-free states: tree-sitter's incremental reparse from a tree with
    # errors may recover differently from a fresh parse and count more errors (hypothesis found
    # a JavaScript chain, f0's `}` and f7's `k` deleted, whose candidate with f6's `k` made `{}`
    # counted 3 errors incrementally and 2 afresh), so on such a state a candidate can be
    # turned away that a fresh parse would let through (a reduction missed, never an
    # uninteresting commit). Most passes start error-free (inputs that parse) and keep so.
    assume(not any(count_errors(new_parser(lang).parse(s.text)) for s in states))
    state = states[-1]
    built = state.build(data.draw(pair_lists(table)))
    if built is None:
        return
    _, spans, text = built
    old_gap = check.COALESCE_GAP
    check.COALESCE_GAP = gap
    try:
        tree = checker.parse(text, spans, state.edits)
    finally:
        check.COALESCE_GAP = old_gap
    fresh = new_parser(lang).parse(text)
    assert count_errors(tree) == count_errors(fresh)
    # Where the text has errors, tree-sitter's recovery may wrap them differently in an
    # incremental parse (deleting a function's `}` and replacing another's body by `x\ny` in
    # the JavaScript program gives two errors either way, in other ERROR nodes): only the count
    # decides a candidate, and only error-free parses become bases.
    if count_errors(fresh) == 0:
        assert same_tree(tree, fresh)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chains(), st.data(), st.sampled_from([0, 8, check.COALESCE_GAP]))
def test_a_candidate_on_any_state_is_judged_as_a_fresh_parse_would(
    case: tuple[str, NodeTable, SyntaxCheck, list[State]], data: st.DataObject, gap: int
) -> None:
    # On a chain with errors too: where the incremental count is over the limit, a fresh
    # parse decides (check.EXACT_MAX), so no candidate is turned away that it would let through.
    lang, table, checker, states = case
    state = states[-1]
    built = state.build(data.draw(pair_lists(table)))
    if built is None:
        return
    _, spans, text = built
    fresh = count_errors(new_parser(lang).parse(text))
    old_gap = check.COALESCE_GAP
    check.COALESCE_GAP = gap
    try:
        for limit in sorted({0, max(fresh - 1, 0), fresh}):
            judged = checker.errors(text, spans, state.edits, limit)
            assert (judged <= limit) == (fresh <= limit), (limit, judged, fresh)
    finally:
        check.COALESCE_GAP = old_gap


def test_a_candidate_on_an_erroneous_state_is_let_through_as_a_fresh_parse_would() -> None:
    """The chain hypothesis found: from a JavaScript tree with two errors (f0's `}` and f7's
    `k` deleted), f6's `k` made `{}` counts 3 errors incrementally, 2 afresh."""
    table, checker = setup("javascript")
    first = State(table, Edits())
    gone = [(_node_at(table, 75, 76), b""), (_node_at(table, 597, 598), b"")]
    built = first.build(gone)
    assert built is not None
    edits, spans, text = built
    checker.parse(text, spans)
    checker.committed(edits, spans)
    state = State(table, edits)
    cand = state.build([(_node_at(table, 520, 521), b"{}")])  # f6's `k`
    assert cand is not None
    _, spans, text = cand
    assert count_errors(new_parser("javascript").parse(text)) == 2
    assert count_errors(checker.parse(text, spans, state.edits)) == 3  # tree-sitter's recovery
    assert checker.errors(text, spans, state.edits, 2) == 2


def _node_at(table: NodeTable, start: int, end: int) -> int:
    """The deepest node spanning exactly `start`..`end` of the table's text."""
    found = [i for i in range(len(table)) if (table.start[i], table.end[i]) == (start, end)]
    return found[-1]


def test_an_erroneous_candidate_counts_its_errors_as_a_fresh_parse() -> None:
    """The example hypothesis found where the trees differ and the counts agree."""
    table, checker = setup("javascript")
    state = State(table, Edits())
    built = state.build([(51, b""), (418, b"x\ny")])
    assert built is not None
    _, spans, text = built
    fresh = new_parser("javascript").parse(text)
    assert count_errors(fresh) > 0
    assert checker.errors(text, spans, state.edits) == count_errors(fresh)


def function_node(table: NodeTable, k: int) -> int:
    """The node of the C program's k-th top-level function definition."""
    kids = [c for c in table.children(0) if table.kind_name(c) == "function_definition"]
    return kids[k]


def test_a_clean_edit_is_checked_without_a_full_parse() -> None:
    table, checker = setup("c")
    built = State(table, Edits()).build([(function_node(table, 3), b"")])
    assert built is not None
    _, spans, text = built
    assert checker.errors(text, spans) == 0
    assert (checker.incremental_parses, checker.full_parses) == (1, 0)


def test_an_edit_that_breaks_the_syntax_is_still_seen() -> None:
    table, checker = setup("c")
    body = table.last[function_node(table, 5)]  # the closing brace of f5's body
    built = State(table, Edits()).build([(body, b"")])
    assert built is not None
    _, spans, text = built
    assert checker.errors(text, spans) > 0
    assert (checker.incremental_parses, checker.full_parses) == (1, 0)


def test_the_next_candidate_is_parsed_from_the_committed_state() -> None:
    table, checker = setup("c")
    start = State(table, Edits())
    built = start.build([(function_node(table, 2), b"")])
    assert built is not None
    edits, spans, text = built
    checker.parse(text, spans)
    checker.committed(edits, spans)
    state = State(table, edits)
    built = state.build([(table.last[function_node(table, 7)], b"")])  # f7's closing brace
    assert built is not None
    _, spans, text = built
    assert checker.errors(text, spans, edits) > 0
    assert (checker.incremental_parses, checker.full_parses) == (2, 0)


def test_a_candidate_on_an_unknown_state_is_parsed_afresh() -> None:
    table, checker = setup("c")
    first = Edits().with_edit(table, function_node(table, 2), b"")
    assert first is not None  # never checked nor committed: not a base
    built = State(table, first).build([(function_node(table, 4), b"")])
    assert built is not None
    _, spans, text = built
    assert checker.errors(text, spans, first) == 0
    assert (checker.incremental_parses, checker.full_parses) == (0, 1)


def test_a_candidate_mostly_deleted_is_parsed_afresh() -> None:
    table, checker = setup("c")
    kids = [c for c in table.children(0) if table.named[c]]
    built = State(table, Edits()).build([(c, b"") for c in kids[:-1]])
    assert built is not None
    _, spans, text = built
    assert checker.errors(text, spans) == 0
    assert (checker.incremental_parses, checker.full_parses) == (0, 1)


def test_without_a_tree_or_edits_the_check_parses_afresh() -> None:
    checker = SyntaxCheck("c")
    assert checker.errors(b"int f( {") > 0
    assert checker.errors(b"int x;") == 0
    assert checker.full_parses == 2


# The judge's order --------------------------------------------------------------------------


def measured(check_s: float, test_s: float, rejected: float, interesting: float) -> Order:
    order = Order()
    order.checked(check_s, None)
    order.tested(test_s, interesting > 0.5)
    order.rejected, order.interesting = rejected, interesting
    return order


def decisions(order: Order, n: int = 16) -> list[bool]:
    return [order.check_first() for _ in range(n)]


def test_a_slow_test_is_guarded_by_the_check() -> None:
    assert all(decisions(measured(0.01, 2.0, rejected=0.3, interesting=0.2)))


def test_a_fast_test_on_a_slow_check_goes_first_but_the_check_is_still_sampled() -> None:
    made = decisions(measured(0.5, 0.01, rejected=0.3, interesting=0.2), 2 * Order.EXPLORE)
    assert made.count(True) == 2  # one in EXPLORE checks first, to keep `rejected` measured
    assert made.count(False) == 2 * Order.EXPLORE - 2


def test_an_untimed_order_always_checks_first() -> None:
    # --deterministic: even where the clock says a fast test should go first (as above).
    order = measured(0.5, 0.01, rejected=0.3, interesting=0.2)
    order.timed = False
    assert all(decisions(order, 2 * Order.EXPLORE))


def test_nothing_measured_yet_checks_first() -> None:
    assert Order().check_first()


@pytest.mark.parametrize("check_first", [True, False])
def test_a_broken_candidate_is_never_interesting_whatever_the_order(check_first: bool) -> None:
    tested: list[bytes] = []

    def always(candidate: bytes) -> bool:
        tested.append(candidate)
        return True

    judge = Judge(CallableOracle(always), "c", syntax_strict=True)
    judge.order.check_first = lambda: check_first  # type: ignore[method-assign]
    ask = judge.for_pass(check=SyntaxCheck("c"), max_errors=0)
    assert ask(b"int f( {", 0) is None
    assert judge.counts().syntax_rejections == 1
    assert tested == ([] if check_first else [b"int f( {"])
    assert ask(b"int f( {", 0) is None  # from the cache now
    assert judge.counts().syntax_rejections == 1
    verdict = ask(b"int x;", 0)
    assert verdict is not None and verdict.candidate == b"int x;"
