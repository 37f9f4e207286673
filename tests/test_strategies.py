"""Planners and presets: chi(n), compatibility, CDD over child lists, renaming, replacements,
and the endgame without the syntax check."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import gcc_warns_test

from treereduce_py import reduce
from treereduce_py.edit.cdd import ListSchedule, cdd
from treereduce_py.edit.tasks import Delete, DeleteChunk, Hoist
from treereduce_py.events import PassChange
from treereduce_py.judge.oracle import CallableOracle, CommandOracle
from treereduce_py.lang.languages import get_language, new_parser
from treereduce_py.lang.syntax import NodeTable, count_errors
from treereduce_py.run.options import ReduceOptions
from treereduce_py.run.session import ENDGAME_TOKENS, Session, endgame_fits
from treereduce_py.transform.facts import SyntaxFacts
from treereduce_py.transform.hoists import ROOT_NODES, Kinds, chi, to_root
from treereduce_py.transform.planners import LIST_MIN, TreePlanner
from treereduce_py.transform.strategies import STRATEGIES, Stage


def table_of(lang: str, src: bytes) -> NodeTable:
    return NodeTable.from_tree(src, new_parser(lang).parse(src))


def facts_of(lang: str, table: NodeTable) -> SyntaxFacts:
    return SyntaxFacts.build(table, get_language(lang))


def find(table: NodeTable, kind: str, text: bytes | None = None) -> int:
    for i in range(len(table)):
        if table.kind_name(i) == kind and (text is None or table.text(i) == text):
            return i
    raise AssertionError(f"no {kind} {text!r}")


def test_compatible_uses_supertypes() -> None:
    kinds = Kinds.of(get_language("c"))
    assert kinds.compatible("binary_expression", "binary_expression")
    assert kinds.compatible("binary_expression", "identifier")  # both C `expression`s
    assert kinds.compatible("if_statement", "expression_statement")  # both `statement`s
    assert not kinds.compatible("binary_expression", "compound_statement")


def test_chi_gives_nearest_compatible_descendants_farthest_first() -> None:
    table = table_of("c", b"int x = 5 + (3 * y);")
    kinds = Kinds.of(get_language("c"))
    top = find(table, "binary_expression", b"5 + (3 * y)")
    found = [table.text(i) for i in chi(table, kinds, top)]
    # The literal and the parenthesized expression are nearest; nothing below a found node.
    assert set(found) == {b"5", b"(3 * y)"}
    paren = find(table, "parenthesized_expression")
    assert [table.text(i) for i in chi(table, kinds, paren)] == [b"3 * y"]


def test_chi_does_not_offer_incompatible_kinds() -> None:
    table = table_of("c", b"int f(void) { return 1; }")
    kinds = Kinds.of(get_language("c"))
    body = find(table, "compound_statement")
    assert all(
        kinds.compatible("compound_statement", table.kind_name(i)) for i in chi(table, kinds, body)
    )


def test_chi_offers_a_blocks_bare_expression_for_a_statement() -> None:
    # Python's grammar here gives an expression statement in a block as the bare call.
    table = table_of("python", b"if 1:\n    f(1)\n    x = 2\n")
    kinds = Kinds.of(get_language("python"))
    found = [table.text(i) for i in chi(table, kinds, find(table, "if_statement"))]
    assert set(found) == {b"f(1)", b"x = 2"}, found
    # Not for an expression: its items are not statements.
    table = table_of("python", b"g(lambda: 1)\n")
    assert chi(table, kinds, find(table, "argument_list")) == []


def test_to_root_offers_nodes_below_the_roots_children_of_small_documents() -> None:
    table = table_of("json", b'{"a": [1, {"b": 87}]}')
    number = find(table, "number", b"87")
    assert to_root(table, number)
    assert not to_root(table, find(table, "object"))  # the root's child: deleting siblings
    assert not to_root(table, 0)
    big = table_of("json", b"[" + b", ".join([b"1"] * ROOT_NODES) + b", [87]]")
    assert not to_root(big, find(big, "number", b"87"))
    two = table_of("python", b"x = f(87)\ny = 2\n")  # two items: no root hoists
    assert not to_root(two, find(two, "integer", b"87"))
    one = table_of("python", b"x = f(87)\n")
    assert to_root(one, find(one, "integer", b"87"))


def json_with(needle: bytes) -> Callable[[bytes], bool]:
    def test(b: bytes) -> bool:
        try:
            json.loads(b)
        except ValueError:
            return False
        return needle in b

    return test


@pytest.mark.parametrize("src", [b'{"":87}', b'{"a": [1, {"b": [87, 2]}], "c": 2}'])
def test_a_value_deep_in_a_document_becomes_the_document(src: bytes) -> None:
    # No ancestor of 87 is compatible with a number (JSON's grammar has no supertypes), so only
    # a hoist to the root reaches it in the tree stage.
    result = reduce(src, language="json", test=json_with(b"87"), jobs=1, polish=False)
    assert result.reduced.strip() == b"87"


def test_long_child_lists_use_chunks_and_short_ones_single_deletions() -> None:
    stmts = b"".join(b"x%d = %d\n" % (i, i) for i in range(LIST_MIN + 6))
    table = table_of("python", stmts)
    planner = TreePlanner(table, facts_of("python", table))
    tasks = planner.explore(0)
    chunks = [t for t in tasks if isinstance(t, DeleteChunk)]
    assert chunks and all(set(t.nodes) <= set(table.children(0)) for t in chunks)
    # The elements are explored at the same time, one level deep (not the whole tree).
    others = [t for t in tasks if not isinstance(t, DeleteChunk)]
    assert others and all(table.depth[t.node] == 2 for t in others if isinstance(t, Delete))
    assert planner.explore(0) == []  # each node is explored once
    short = table_of("python", b"a = 1\nb = 2\n")
    tasks = TreePlanner(short, facts_of("python", short)).explore(0)
    assert any(isinstance(t, Delete) for t in tasks)


def count_tests(strategy: str, src: bytes, needles: list[bytes]) -> tuple[bytes, int]:
    calls = {"n": 0}

    def pred(b: bytes) -> bool:
        calls["n"] += 1
        return all(n in b for n in needles)

    result = reduce(src, language="python", test=pred, jobs=1, strategy=strategy, polish=False)
    return result.reduced, calls["n"]


def test_cdd_needs_fewer_tests_than_one_at_a_time_on_a_long_list() -> None:
    src = b"".join(b"x%03d = %d\n" % (i, i) for i in range(120))
    needles = [b"x007 =", b"x093 ="]
    out, cdd_tests = count_tests("priority", src, needles)
    assert all(n in out for n in needles)
    assert len(out.split()) <= 5  # `x007 = <value> x093 = <value>`, blank lines aside
    # One-at-a-time deletion would need a test per statement.
    assert cdd_tests < 120


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_presets_keep_what_matters(name: str) -> None:
    src = b"".join(b"def f%d(a, b):\n    return a + b * %d\n\n" % (i, i) for i in range(12))
    out, _ = count_tests(name, src, [b"f3", b"* 3"])
    assert b"f3" in out and b"* 3" in out
    assert len(out) < len(src) // 4


def test_replacement_queries_make_bodies_minimal() -> None:
    src = b"int f(int a) { int b = a * 2; return b + 1; }\nint main(void) { return f(2); }\n"

    def pred(b: bytes) -> bool:
        tree = new_parser("c").parse(b)
        has_body = re.search(rb"int f\(int a\)\s*\{", b) is not None
        return count_errors(tree) == 0 and has_body and b"int main(void) { return f(2); }" in b

    result = reduce(src, language="c", test=pred, jobs=1, polish=False)
    assert re.search(rb"int f\(int a\)\s*\{\s*\}", result.reduced), result.reduced


def test_rename_shortens_identifiers_consistently() -> None:
    src = (
        b"def compute_total(quantity, price):\n    return quantity * price\n\n"
        b"print(compute_total(3, 4))\n"
    )

    def pred(b: bytes) -> bool:
        # Interesting: it still computes 12 through a two-argument function.
        ns: dict[str, object] = {}
        code = b.replace(b"print(", b"RESULT = (")
        try:
            exec(compile(code, "x", "exec"), ns)
        except Exception:
            return False
        return ns.get("RESULT") == 12 and b"def " in b and b"*" in b

    result = reduce(src, language="python", test=pred, jobs=1, rename=True)
    assert b"compute_total" not in result.reduced
    assert b"quantity" not in result.reduced
    assert pred(result.reduced)


def test_hoist_task_applies_rendered_descendant() -> None:
    from treereduce_py.edit.edits import Edits, render
    from treereduce_py.edit.tasks import task_edits

    table = table_of("c", b"int x = 5 + (3 * y);")
    top = find(table, "binary_expression", b"5 + (3 * y)")
    target = find(table, "identifier", b"y")
    edits = task_edits(table, Edits(), Hoist(top, target))
    assert edits is not None
    assert render(table, edits) == b"int x = y;"


def phase_recorder() -> tuple[list[str], Callable[[object], None]]:
    """The phases of the passes a run announces, and the progress callback that records them."""
    phases: list[str] = []

    def seen(event: object) -> None:
        if isinstance(event, PassChange):
            phases.append(event.phase)

    return phases, seen


def test_the_endgame_tests_what_the_grammar_refuses_on_a_small_result(tmp_path: Path) -> None:
    # gcc accepts C's implicit int, `b(){return b==b;}`, which tree-sitter-c parses with an
    # ERROR: the strict syntax check refuses it, and the endgame (token stages without the
    # check, on a result of at most ENDGAME_TOKENS tokens) asks the test instead; `return`
    # gone, the body is one expression statement, and the function a file-scope variable
    # (@global, in the tree stage after the endgame), its `==` a `<` (the operator hint).
    test = gcc_warns_test(tmp_path, "-Wtautological-compare")
    phases, seen = phase_recorder()
    source = b"int b(){return b==b;}\n"
    with CommandOracle([str(test), "@@.c"]) as oracle:
        out = reduce(source, language="c", test=oracle, jobs=1, progress=seen)
    assert out.reduced.strip() == b"b=b<b;", out.reduced
    assert "tokens-lenient" in phases
    with CommandOracle([str(test), "@@.c"]) as oracle:
        strict = reduce(source, language="c", test=oracle, jobs=1, polish=False)
    # No polish, no endgame: the strict stages only make the comparison `<`.
    assert strict.reduced.strip() == b"int b(){return b<b;}"


def test_an_endgame_on_many_tokens_where_tests_are_quick() -> None:
    phases, seen = phase_recorder()
    lines = [b"keep%d = %d" % (i, i) for i in range(40)]  # 120 tokens must stay
    out = reduce(
        b"\n".join(lines),
        language="python",
        test=lambda c: all(x in c for x in lines),
        progress=seen,
    )
    assert all(x in out.reduced for x in lines)
    assert "tokens" in phases and "tokens-lenient" in phases  # instant tests cost nothing


def test_the_endgame_fits_a_few_tokens_or_quick_tests() -> None:
    assert endgame_fits(ENDGAME_TOKENS, 10.0, 1.0)  # a few dozen tokens: always
    assert not endgame_fits(ENDGAME_TOKENS + 1, 10.0, 1.0)
    # 120 tokens: about 240 tests, which must fit in a quarter of the run so far.
    assert endgame_fits(120, 0.01, 4 * 2.4)
    assert not endgame_fits(120, 0.01, 4 * 2.4 - 0.1)


@pytest.mark.parametrize(
    ("lang", "src", "needle"),
    [
        ("c", b"int main(void) { return f(1); }\n", b"f(1"),
        ("rust", b"fn main() { let v = f(1); }\n", b"f(1"),
        ("python", b"def main():\n    return f(1)\n", b"f(1"),
        ("javascript", b"function main() { return f(1); }\n", b"f(1"),
    ],
)
def test_the_endgame_leaves_the_syntax_to_the_test(lang: str, src: bytes, needle: bytes) -> None:
    # The strict rounds keep the result parseable (`f(1)` at least); only the endgame may cut
    # the `)` that a test which looks for `f(1` does not need.
    phases, seen = phase_recorder()

    out = reduce(src, language=lang, test=lambda c: needle in c, jobs=1, progress=seen)
    assert out.reduced.strip() == needle and "tokens-lenient" in phases
    strict = reduce(src, language=lang, test=lambda c: needle in c, jobs=1, polish=False)
    assert needle + b")" in strict.reduced  # no polish, no endgame: still parseable


class _Shrinking:
    """An engine stand-in whose passes cut the best by the next of `cuts` bytes each."""

    def __init__(self, session: Session, cuts: list[int]) -> None:
        self.session, self.cuts = session, cuts

    def run_pass(
        self,
        table: object,
        planner: object,
        judge: object,
        deterministic: bool,
        same_length: bool = False,
    ) -> bool:
        cut = self.cuts.pop(0) if self.cuts else 0
        best = self.session.best
        best.offer(best.data[: len(best.data) - cut])
        return cut > 0


@pytest.mark.parametrize(("polish", "passes"), [(True, 2), (False, 4)])
def test_a_stage_hands_over_after_a_pass_that_gains_little(polish: bool, passes: int) -> None:
    # 100 lines; the first pass cuts half, the second 1 byte (under STAGE_MIN_GAIN of what is
    # left), the third 10.
    src = b"".join(b"x%02d = 1\n" % i for i in range(100))
    options = ReduceOptions(polish=polish, jobs=1)
    session = Session(src, "python", CallableOracle(lambda c: True), options, lambda e: None)
    engine = _Shrinking(session, [len(src) // 2, 1, 10])
    session.run_stage(engine, Stage("tree", "syntax", "tree"))  # type: ignore[arg-type]
    # Where rounds repeat (polish), the stage hands over after the small gain and comes back
    # next round; with one round (--fast), it runs on until a pass changes nothing.
    assert session.pass_number == passes


def test_the_default_preset_keeps_a_chunk_alone_on_a_flat_list() -> None:
    # Only a chunk by itself is interesting (before the marker = after it): no deletion of one
    # chunk passes, so the lines stage must try the chunks alone (cdd.CDD.subsets).
    src = b"alpha\nbeta\ngamma\ndelta\n=\nalpha\nbeta\ngamma\ndelta\n"

    def mirrored(b: bytes) -> bool:
        before, sep, after = b.partition(b"=")
        return bool(sep) and before.strip() == after.strip()

    result = reduce(src, language="text", test=mirrored, jobs=1)
    assert result.reduced.strip() == b"="


def test_wdd_cuts_a_child_list_by_bytes() -> None:
    # One long function among small statements: by count, the first round's two halves differ
    # tenfold in bytes; by bytes, the function is a chunk of its own.
    body = "".join(f"    v{i} = {i}\n" for i in range(40))
    src = ("".join(f"a{i} = {i}\n" for i in range(12)) + f"def big():\n{body}").encode()
    src += "".join(f"b{i} = {i}\n" for i in range(12)).encode()
    table = table_of("python", src)

    def first_chunks(schedule: ListSchedule) -> list[int]:
        tasks = TreePlanner(table, facts_of("python", table), schedule).explore(0)
        chunks = [t for t in tasks if isinstance(t, DeleteChunk)]
        return [sum(table.size(n) for n in t.nodes) for t in chunks]

    by_count, by_bytes = (
        first_chunks(cdd(adaptive=True)),
        first_chunks(cdd(adaptive=True, by_bytes=True)),
    )
    assert len(by_count) == len(by_bytes) >= 2
    assert max(by_bytes) - min(by_bytes) < max(by_count) - min(by_count)
