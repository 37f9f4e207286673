"""ddSMT's mutators (transform.smtlib): the sorts they read, and what each mutation makes of
a node; an end-to-end reduction with the real z3."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from treereduce_py import reduce
from treereduce_py.edit.edits import Edits, render
from treereduce_py.edit.tasks import (
    DeleteChunk,
    Hoist,
    Rename,
    Replace,
    Substitute,
    Task,
    task_edits,
)
from treereduce_py.lang.languages import new_parser
from treereduce_py.lang.syntax import NodeTable
from treereduce_py.transform.captures import Captured
from treereduce_py.transform.facts import SyntaxFacts
from treereduce_py.transform.names import RenamePlanner
from treereduce_py.transform.planners import TreePlanner
from treereduce_py.transform.smtlib import SmtRules, constants

SCRIPT = b"""(set-logic QF_BV)
(declare-fun x () (_ BitVec 8))
(declare-const y (_ BitVec 8))
(declare-const unused Bool)
(declare-fun p () Bool)
(declare-fun g ((_ BitVec 8)) Bool)
(define-fun f ((a (_ BitVec 8))) Bool (bvult a #x10))
(assert (let ((b (bvadd x y)) (c (bvmul x #x03)) (d y)) (and (bvult b c) (g c) (and p (= b x)))))
(assert (! (= ((_ extract 3 0) x) #b0101) :named n1))
(check-sat)
"""


def rules_of(source: bytes) -> tuple[NodeTable, SmtRules]:
    table = NodeTable.from_tree(source, new_parser("smtlib").parse(source))
    return table, SmtRules.build(table)


def node(table: NodeTable, text: bytes, nth: int = 0) -> int:
    return [i for i in range(len(table)) if table.named[i] and table.text(i) == text][nth]


def results(table: NodeTable, tasks: list[Task]) -> list[bytes]:
    """The whole script after each task, with only the text it changes."""
    out = []
    for task in tasks:
        edits = task_edits(table, Edits(), task)
        assert edits is not None
        out.append(render(table, edits))
    return out


def mutated(table: NodeTable, rules: SmtRules, text: bytes, nth: int = 0) -> list[bytes]:
    """What the node with `text` may become (its own new text)."""
    n = node(table, text, nth)
    out = []
    for task in rules.alternatives(n):
        if isinstance(task, Replace):
            out.append(task.text)
        elif isinstance(task, Hoist):
            out.append(table.text(task.target))
    return out


# --- sorts ---------------------------------------------------------------------------------------


def test_sorts_of_declarations_literals_and_operators() -> None:
    table, rules = rules_of(SCRIPT)
    sort = {table.text(i): rules.sorts.get(i) for i in sorted(rules.terms)}
    assert sort[b"(bvadd x y)"] == b"(_ BitVec 8)"
    assert sort[b"#x03"] == b"(_ BitVec 8)"
    assert sort[b"#b0101"] == b"(_ BitVec 4)"
    assert sort[b"((_ extract 3 0) x)"] == b"(_ BitVec 4)"
    assert sort[b"(g c)"] == b"Bool"  # a declared function's result
    assert sort[b"b"] == b"(_ BitVec 8)"  # let-bound
    assert sort[b"a"] == b"(_ BitVec 8)"  # a define-fun parameter
    assert sort[SCRIPT.split(b"\n")[7][8:-1]] == b"Bool"  # the let


@pytest.mark.parametrize(
    ("sort", "expected"),
    [
        (b"Bool", [b"false", b"true"]),
        (b"Int", [b"0", b"1"]),
        (b"Real", [b"0.0"]),
        (b"String", [b'""']),
        (b"(_ BitVec 4)", [b"#b0000", b"(_ bv0 4)"]),
        (b"(_ BitVec 32)", [b"(_ bv0 32)", b"#b" + b"0" * 32]),
        (b"(Array Int Int)", []),
    ],
)
def test_constants_of_a_sort(sort: bytes, expected: list[bytes]) -> None:
    assert constants(sort) == expected


# --- the mutators --------------------------------------------------------------------------------


def test_a_term_becomes_a_constant_or_a_variable_of_its_sort() -> None:
    table, rules = rules_of(SCRIPT)
    assert mutated(table, rules, b"(bvmul x #x03)")[:4] == [b"(_ bv0 8)", b"#b00000000", b"x", b"y"]
    assert mutated(table, rules, b"(= b x)")[:3] == [b"false", b"true", b"p"]


def test_a_term_becomes_a_child_of_the_same_sort_only() -> None:
    table, rules = rules_of(SCRIPT)
    n = node(table, b"(bvult b c)")
    assert not [t for t in rules.alternatives(n) if isinstance(t, Hoist)]  # b, c are bit-vectors
    hoists = [t for t in rules.alternatives(node(table, b"(bvmul x #x03)")) if isinstance(t, Hoist)]
    assert [table.text(t.target) for t in hoists] == [b"x", b"#x03"]


def test_annotations_are_dropped() -> None:
    table, rules = rules_of(SCRIPT)
    assert b"(= ((_ extract 3 0) x) #b0101)" in mutated(
        table, rules, b"(! (= ((_ extract 3 0) x) #b0101) :named n1)"
    )


def test_let_bindings_are_substituted_and_unused_ones_dropped() -> None:
    source = b"(assert (let ((b (bvadd x y)) (d y)) (bvult b b)))"
    table, rules = rules_of(source)
    texts = mutated(table, rules, source[8:-1])
    assert b"(let ((d y)) (bvult (bvadd x y) (bvadd x y)))" not in texts  # longer: not offered
    assert b"(let ((b (bvadd x y)) ) (bvult b b))" in texts  # d is unused
    assert b"(bvult b b)" in texts  # the body, hoisted
    one = b"(assert (let ((a x) (b y)) (bvult a b)))"
    table, rules = rules_of(one)
    texts = mutated(table, rules, one[8:-1])
    assert b"(let ( (b y)) (bvult x b))" in texts
    assert b"(bvult x y)" in texts  # every binding at once


def test_nested_nary_applications_are_merged() -> None:
    table, rules = rules_of(SCRIPT)
    merged = b"(and (bvult b c) (g c) p (= b x))"
    assert merged in mutated(table, rules, b"(and (bvult b c) (g c) (and p (= b x)))")


CHAINS = b"""(declare-const v Int)
(declare-const w Int)
(assert (and (<= 1 v) (<= v 6) (< v w) (< w 9) (<= 2 w)))
(assert (not (and (<= 1 v) (<= v 6) (<= 3 v))))
(check-sat)
"""


def test_neighbouring_comparisons_become_one_chain() -> None:
    table, rules = rules_of(CHAINS)
    first = mutated(table, rules, b"(and (<= 1 v) (<= v 6) (< v w) (< w 9) (<= 2 w))")
    assert b"(and (<= 1 v 6) (< v w) (< w 9) (<= 2 w))" in first
    assert b"(and (<= 1 v) (<= v 6) (< v w 9) (<= 2 w))" in first
    # `(<= v 6)` then `(< v w)`: another operator; `(< w 9)` then `(<= 2 w)`: 9 is not 2.
    assert len([m for m in first if m.count(b"(") == 5]) == 2
    # `(<= v 6)` and `(<= 3 v)`: 6 is not 3.
    second = mutated(table, rules, b"(and (<= 1 v) (<= v 6) (<= 3 v))")
    assert second.count(b"(and (<= 1 v 6) (<= 3 v))") == 1


def test_a_chain_means_the_conjunction_to_z3(tmp_path: Path) -> None:
    if not Path(Z3).exists() and shutil.which("z3") is None:
        pytest.skip("z3 is not installed (pip install z3-solver)")
    table, rules = rules_of(CHAINS)
    original = b"(and (<= 1 v) (<= v 6) (< v w) (< w 9) (<= 2 w))"
    chained = [m for m in mutated(table, rules, original) if m.count(b"(") == 5]
    assert len(chained) == 2
    for text in chained:
        # Equivalent iff the two can never differ: z3 answers unsat.
        path = tmp_path / "eq.smt2"
        path.write_bytes(
            b"(declare-const v Int)(declare-const w Int)(assert (not (= %s %s)))(check-sat)"
            % (original, text)
        )
        done = subprocess.run([Z3, str(path)], capture_output=True, text=True)
        assert done.stdout.strip() == "unsat", (text, done.stdout)


def test_only_commands_nary_arguments_and_let_bindings_may_be_deleted() -> None:
    table, rules = rules_of(SCRIPT)
    deletable = {table.text(i) for i in rules.deletable}
    assert b"(check-sat)" in deletable and b"(declare-const unused Bool)" in deletable
    assert {b"(bvult b c)", b"(g c)", b"(and p (= b x))"} <= deletable  # and with 3 arguments
    assert {b"(b (bvadd x y))", b"(d y)"} <= deletable
    assert b"x" not in deletable and b"(= b x)" not in deletable and b"#x03" not in deletable


def test_unused_declarations_go_in_one_task_and_variables_are_eliminated() -> None:
    table, rules = rules_of(SCRIPT)
    first = rules.initial()
    chunk = first[0]
    assert isinstance(chunk, DeleteChunk)
    assert {table.text(n) for n in chunk.nodes} == {
        b"(declare-const unused Bool)",
        b"(define-fun f ((a (_ BitVec 8))) Bool (bvult a #x10))",
    }
    by_name = {table.text(t.pairs[-1][0]).split()[1]: t for t in first if isinstance(t, Substitute)}
    assert set(by_name) == {b"x", b"y", b"p"}
    (after,) = results(table, [by_name[b"p"]])
    assert b"(declare-fun p () Bool)" not in after
    assert b"(and false (= b x))" in after


def test_the_tree_planner_uses_the_rules_instead_of_generic_guesses() -> None:
    table, rules = rules_of(SCRIPT)
    facts = SyntaxFacts.build(table, None, lang="smtlib")
    assert facts.deletable is not None and facts.names == rules.names
    # The rules plug in last, after the captures they keep (the query files' @replace, @trim).
    kept = [o.capture.name for _, o in facts.offers if isinstance(o, Captured)]
    assert kept == ["replace", "trim"] and isinstance(facts.offers[-1][1], SmtRules)
    planner = TreePlanner(table, facts)
    tasks = list(planner.explore(0))
    # Every task stays within what the rules allow: no `()` for a list, no hoist by kind.
    for task in tasks:
        if isinstance(task, Replace):
            assert task.text != b"()"
    n = node(table, b"(bvadd x y)")
    assert planner.alternatives(n) == rules.alternatives(n)


# --- end to end, with the real z3 ----------------------------------------------------------------

Z3 = shutil.which("z3") or str(Path(sys.executable).parent / "z3")


@pytest.mark.e2e
@pytest.mark.skipif(not Path(Z3).exists(), reason="z3 (PyPI z3-solver) is not installed")
def test_cli_reduces_a_sort_error_with_z3(tmp_path: Path) -> None:
    source = tmp_path / "bug.smt2"
    source.write_bytes(
        SCRIPT.replace(b"(bvmul x #x03)", b"(bvmul x (ite p x p))").replace(b"(check-sat)", b"")
        + b"(check-sat)\n"
    )
    message = "Sorts (_ BitVec 8) and Bool are incompatible"
    regex = re.escape(message)
    assert message in subprocess.run([Z3, str(source)], capture_output=True, text=True).stdout
    exe = Path(sys.executable).parent / "treereduce-py"
    out = tmp_path / "out.smt2"
    done = subprocess.run(
        [
            str(exe),
            str(source),
            "-j",
            "2",
            "-q",
            "-o",
            str(out),
            "--stdout-regex",
            regex,
            "--exit-code",
            "1",
            "--",
            Z3,
            "@@.smt2",
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    reduced = out.read_bytes()
    assert message in subprocess.run([Z3, str(out)], capture_output=True, text=True).stdout
    assert len(reduced) < 60, reduced
    assert b"declare" not in reduced and b"let" not in reduced


def test_api_reduces_a_let_with_a_python_predicate() -> None:
    source = b"(declare-const x Int)(assert (let ((a (+ x 1)) (b 2)) (> a (* b 3))))"
    result = reduce(source, language="smtlib", test=lambda c: b"(* " in c, jobs=2)
    assert b"(* " in result.reduced and len(result.reduced) <= len(b"(assert (* 0 0))")


def test_declared_names_are_renamed_and_operators_are_not() -> None:
    source = b"(declare-fun counter () Int)(define-fun inrange ((v Int)) Bool (<= 0 v))\n" + (
        b"(assert (inrange counter))(assert (let ((delta 1)) (> counter delta)))"
    )
    table, rules = rules_of(source)
    assert rules.names == {b"counter", b"inrange", b"v", b"delta"}
    planner = RenamePlanner(table, rules.names)
    renamed = {table.text(t.nodes[0]) for t in planner.initial() if isinstance(t, Rename)}
    assert renamed == {b"counter", b"inrange", b"delta"}  # `v` is one letter already
    # Through the API: the names become one letter each, the operators stay.
    keeps = (b"(declare-fun ", b"(define-fun ", b"(<= 0 ", b"(assert (", b"(let ((")
    out = reduce(source, language="smtlib", test=lambda c: all(k in c for k in keeps), jobs=1)
    assert b"counter" not in out.reduced and b"inrange" not in out.reduced, out.reduced
