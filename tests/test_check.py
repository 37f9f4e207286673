"""The incremental syntax check (check.py) and the judge's choice of order (judge.Order)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from treereduce_py import check
from treereduce_py.check import SyntaxCheck
from treereduce_py.edits import Edits, render
from treereduce_py.judge import Budget, Counters, Judge, Order
from treereduce_py.languages import new_parser
from treereduce_py.oracle import CallableOracle
from treereduce_py.syntax import NodeTable, count_errors

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


def setup(lang: str) -> tuple[NodeTable, SyntaxCheck]:
    src = PROGRAMS[lang]
    tree = new_parser(lang).parse(src)
    table = NodeTable.from_tree(src, tree)
    return table, SyntaxCheck(lang, table, tree)


@st.composite
def edited(draw: st.DrawFn) -> tuple[str, NodeTable, SyntaxCheck, Edits]:
    lang = draw(st.sampled_from(sorted(PROGRAMS)))
    table, checker = setup(lang)
    edits = Edits()
    for _ in range(draw(st.integers(1, 10))):
        node = draw(st.integers(1, len(table) - 1))
        nxt = edits.with_edit(table, node, draw(st.sampled_from(TEXTS)))
        if nxt is not None:
            edits = nxt
    return lang, table, checker, edits


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edited(), st.sampled_from([0, 8, check.COALESCE_GAP]))
def test_incremental_count_equals_a_fresh_parse(
    case: tuple[str, NodeTable, SyntaxCheck, Edits], gap: int
) -> None:
    lang, table, checker, edits = case
    text = render(table, edits)
    fresh = count_errors(new_parser(lang).parse(text))
    old_gap = check.COALESCE_GAP
    check.COALESCE_GAP = gap
    try:
        tree = checker.parse(text, edits)
    finally:
        check.COALESCE_GAP = old_gap
    assert tree.root_node.end_byte == len(text)
    assert count_errors(tree) == fresh


def function_node(table: NodeTable, k: int) -> int:
    """The node of the C program's k-th top-level function definition."""
    kids = [c for c in table.children(0) if table.kind_name(c) == "function_definition"]
    return kids[k]


def test_a_clean_edit_is_checked_without_a_full_parse() -> None:
    table, checker = setup("c")
    edits = Edits().with_edit(table, function_node(table, 3), b"")
    assert edits is not None
    text = render(table, edits)
    assert checker.errors(text, edits) == 0
    assert (checker.incremental_parses, checker.full_parses) == (1, 0)


def test_an_edit_that_breaks_the_syntax_is_still_seen() -> None:
    table, checker = setup("c")
    body = table.last[function_node(table, 5)]  # the closing brace of f5's body
    edits = Edits().with_edit(table, body, b"")
    assert edits is not None
    text = render(table, edits)
    assert checker.errors(text, edits) > 0
    assert (checker.incremental_parses, checker.full_parses) == (1, 0)


def test_a_candidate_mostly_deleted_is_parsed_afresh() -> None:
    table, checker = setup("c")
    kids = [c for c in table.children(0) if table.named[c]]
    edits = Edits().with_edits(table, [(c, b"") for c in kids[:-1]])
    assert edits is not None
    text = render(table, edits)
    assert checker.errors(text, edits) == 0
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


def test_nothing_measured_yet_checks_first() -> None:
    assert Order().check_first()


@pytest.mark.parametrize("check_first", [True, False])
def test_a_broken_candidate_is_never_interesting_whatever_the_order(check_first: bool) -> None:
    tested: list[bytes] = []

    def always(candidate: bytes) -> bool:
        tested.append(candidate)
        return True

    judge = Judge(
        CallableOracle(always), "c", syntax_strict=True, budget=Budget(), counters=Counters()
    )
    judge.order.check_first = lambda: check_first  # type: ignore[method-assign]
    assert not judge(b"int f( {", 0)
    assert judge.counters.syntax_rejections == 1
    assert tested == ([] if check_first else [b"int f( {"])
    assert not judge(b"int f( {", 0)  # from the cache now
    assert judge.counters.syntax_rejections == 1
    assert judge(b"int x;", 0)
