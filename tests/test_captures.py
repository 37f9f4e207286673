"""Query captures as plug-ins: a toy capture added from outside the package, in a few lines,
is checked in the query files, offered by the tree planner and used by a reduction; the queries
run once per tree; and a capture's extraction reads the spans the matches hold."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import tree_sitter

from treereduce_py import reduce
from treereduce_py.edit.tasks import Replace
from treereduce_py.lang.hints import Hints, Match, QueryFileError, QueryMatches
from treereduce_py.lang.languages import new_parser
from treereduce_py.lang.syntax import NodeTable
from treereduce_py.run.reading import prepare
from treereduce_py.transform.captures import CAPTURES, Capture, Parse
from treereduce_py.transform.hoists import Kinds
from treereduce_py.transform.planners import TreePlanner
from treereduce_py.transform.strategies import Stage

TREE = Stage("tree", "syntax", "tree")

# The recipe (docs/queries.md, "Adding a capture"): a capture's name, and what it offers the
# nodes it marks: here a string may become 'toy', which no other capture offers.
TOY = Capture("toy", lambda parse: {s: (Replace(s, b"'toy'"),) for (s,) in parse.nodes("toy")})
# ... and a pattern that uses it, in a directory given to --queries.
TOY_QUERY = "(string) @toy\n"

SOURCE = b'print("a long greeting")\nprint("another long one")\n'


@pytest.fixture
def toy_queries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "python").mkdir()
    (tmp_path / "python" / "toy.scm").write_text(TOY_QUERY)
    monkeypatch.setitem(CAPTURES, "toy", TOY)
    return tmp_path


def test_a_toy_capture_is_offered_among_the_alternatives(toy_queries: Path) -> None:
    table, facts, _ = prepare(TREE, SOURCE, "python", (toy_queries,))
    strings = [i for i in range(len(table)) if table.kind_name(i) == "string"]
    assert [table.text(s) for s in facts.captured("toy")] == [
        b'"a long greeting"',
        b'"another long one"',
    ]
    planner = TreePlanner(table, facts)
    for s in strings:
        # Registered last, so offered last; the bundled hints (`""`) come first.
        offered = planner.alternatives(s)
        assert offered[-1] == Replace(s, b"'toy'") and Replace(s, b'""') in offered
    # A stage that turns replacements off turns the toy off too (its switch is "replace").
    assert not any(
        t == Replace(s, b"'toy'")
        for s in strings
        for t in TreePlanner(table, facts, replace=False).alternatives(s)
    )


def test_a_toy_capture_is_used_by_a_reduction(toy_queries: Path) -> None:
    def greets(candidate: bytes) -> bool:
        try:
            ast.parse(candidate)
        except SyntaxError:
            return False
        return b"print(" in candidate and (b"greeting" in candidate or b"'toy'" in candidate)

    out = reduce(SOURCE, language="python", test=greets, jobs=1, queries=[toy_queries])
    assert out.reduced.strip() == b"print('toy')"
    # Without the capture, the greeting stays.
    del CAPTURES["toy"]
    (toy_queries / "python" / "toy.scm").unlink()
    out = reduce(SOURCE, language="python", test=greets, jobs=1, queries=[toy_queries])
    assert b"greeting" in out.reduced


def test_a_pattern_of_an_unregistered_capture_is_refused(tmp_path: Path) -> None:
    (tmp_path / "python").mkdir()
    (tmp_path / "python" / "toy.scm").write_text("\n" + TOY_QUERY)
    with pytest.raises(QueryFileError, match=r"toy.scm:2: pattern does not capture .*@replace"):
        prepare(TREE, SOURCE, "python", (tmp_path,))


def test_a_capture_lacking_its_parts_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "python").mkdir()
    (tmp_path / "python" / "toy.scm").write_text(TOY_QUERY)
    monkeypatch.setitem(CAPTURES, "toy", Capture("toy", TOY.extract, parts=("toy.quote",)))
    with pytest.raises(QueryFileError, match=r"toy.scm:1: an @toy pattern lacks @toy.quote"):
        prepare(TREE, SOURCE, "python", (tmp_path,))


def test_the_queries_run_once_per_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    runs: list[int] = []
    real = Hints.matches

    def counted(self: Hints, tree: tree_sitter.Tree | tree_sitter.Node) -> QueryMatches:
        runs.append(1)
        return real(self, tree)

    monkeypatch.setattr(Hints, "matches", counted)
    src = b"def t(h: int):\n    return h\ndef r(h):\n    return t(h)\nx = 1\nr(x)\n"
    _, facts, _ = prepare(TREE, src, "python", ())
    assert len(runs) == 1
    # ... and every bundled capture read those matches.
    assert {"drop", "inline", "define", "call"} <= {n for n in CAPTURES if facts.captured(n)}


def test_a_capture_reads_nodes_by_span_and_skips_what_the_table_lacks() -> None:
    src = b"x = 1\ny = 22\n"
    table = NodeTable.from_tree(src, new_parser("python").parse(src))
    ints = [i for i in range(len(table)) if table.kind_name(i) == "integer"]
    spans = [(table.start[i], table.end[i], table.kind[i]) for i in ints]
    matches = QueryMatches(
        (
            Match({"toy": (spans[1],)}),
            Match({"toy": (spans[0],)}),
            Match({"toy": (spans[0],)}),  # the same node twice: read once
            Match({"toy": (spans[0], spans[1])}),  # two nodes for one name: not a group
            Match({"toy": ((0, 99, spans[0][2]),)}),  # a span no node has
            Match({"other": (spans[0],)}),
        )
    )
    parse = Parse.read(table, Kinds(), matches)
    assert parse.nodes("toy") == [(ints[0],), (ints[1],)]
    assert parse.smallest_of_kind["integer"] == b"1"
    assert TOY.run(parse).found == {
        ints[0]: (Replace(ints[0], b"'toy'"),),
        ints[1]: (Replace(ints[1], b"'toy'"),),
    }


OPERATOR_SOURCES = {
    "c": b"int f(void) { return a == b; }\n",
    "rust": b"fn f() -> bool { a == b }\n",
    "javascript": b"function f() { return a === b; }\n",
    "python": b"def f():\n    return a == b\n",
    "go": b"package p\n\nfunc f() bool { return a == b }\n",
    "java": b"class A { boolean f() { return a == b; } }\n",
}


@pytest.mark.parametrize("lang", sorted(OPERATOR_SOURCES))
def test_an_operator_token_becomes_a_shorter_one_of_the_same_use(lang: str) -> None:
    # The query files' hint on the operator token replaces it alone (captures._replacements):
    # `a == b` -> `a < b` keeps a comparison of a and b, which is all this test asks for.
    parser = new_parser(lang)
    compares = re.compile(rb"a\s*(?:===?|!==?|<=|>=|<|>)\s*b")

    def still_compares(candidate: bytes) -> bool:
        return not parser.parse(candidate).root_node.has_error and bool(compares.search(candidate))

    result = reduce(OPERATOR_SOURCES[lang], language=lang, test=still_compares, jobs=1)
    assert b"a<b" in result.reduced.replace(b" ", b""), result.reduced
