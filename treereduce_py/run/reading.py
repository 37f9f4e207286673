"""How a pass's table is read from the text it reduces: the whole tree, a coarse table of a huge
tree or input, and the first pass prepared while the original is tested.

`prepare` gives a stage's pass its table (the syntax tree's nodes, the lines or the tokens), what
the planners know about it (`SyntaxFacts`) and the parse its syntax check edits. A tree of more
than COARSE_NODES nodes is first worked through a coarse table of its upper levels, and an input
of PIECES_MIN bytes or more is never parsed whole: its coarse table is read from its lines or in
pieces (`read_coarse`), so the first cuts cost what the tests do. `Ahead` prepares the first pass
in a thread while the original's test runs. Input without a grammar gets its kind's table
(lang/inputs.py).
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Sequence
from pathlib import Path

import tree_sitter

from treereduce_py.lang import inputs, languages, lineitems, pieces
from treereduce_py.lang.syntax import NodeTable, coarse_depth
from treereduce_py.transform.facts import SyntaxFacts
from treereduce_py.transform.strategies import Stage
from treereduce_py.transform.zeroes import Lowering, Zeroes

# Texts larger than this are reduced without replacements (see prepare).
REPLACE_MAX = 2_000_000
# A tree with more nodes than this is first reduced through a coarse table (see prepare).
COARSE_NODES = 100_000
# An input of at least this many bytes gets its coarse table from its lines (lang/lineitems.py)
# or from parses of pieces of it, never one tree of the whole (lang/pieces.py: 550 MB at 10 MB of
# C): from its lines where the parse would cost more than LINES_TESTS tests.
PIECES_MIN = 4 * pieces.PIECE
LINES_TESTS = 25
# tree-sitter's parse of C here (0.39 s for 1 MB of the scale family's; Python's 0.17).
PARSE_SECONDS_PER_MB = 0.4


class Ahead:
    """The first pass prepared in a thread (Session.prepare_ahead, run/session.py): the parse of
    `source` (None without a grammar), then `stage`'s table, facts and tree as `prepare` makes
    them for a first pass (coarse, not from the lines), or the exception that stopped it, raised
    where the pass would have met it."""

    def __init__(self, stage: Stage, source: bytes) -> None:
        self.stage = stage
        self.source = source
        self.tree: concurrent.futures.Future[tree_sitter.Tree | None] = concurrent.futures.Future()
        self.prepared: concurrent.futures.Future[
            tuple[NodeTable, SyntaxFacts, tree_sitter.Tree | None]
        ] = concurrent.futures.Future()

    def run(self, lang: str, queries: Sequence[Path], parsed: bool) -> None:
        try:
            tree = (
                languages.parse_in_chunks(languages.new_parser(lang), self.source)
                if parsed
                else None
            )
        except BaseException as e:
            self.tree.set_exception(e)
            self.prepared.set_exception(e)
            return
        self.tree.set_result(tree)
        try:
            self.prepared.set_result(prepare(self.stage, self.source, lang, queries, tree, True))
        except BaseException as e:
            self.prepared.set_exception(e)

    def fits(
        self, stage: Stage, text: bytes, read: tree_sitter.Tree | NodeTable | None, first: bool
    ) -> bool:
        """Is this what the pass of `stage` on `text` would prepare from `read` (`first`: as a
        first pass, coarse and not from the lines)?"""
        if not (first and stage is self.stage and text == self.source):
            return False
        done = self.tree.done() and self.tree.exception() is None
        return read is None or (done and read is self.tree.result())


def read_coarse(text: bytes, lang: str, lines_first: bool = False) -> NodeTable | None:
    """The coarse table of a text of PIECES_MIN bytes or more: with `lines_first` (where the
    parse costs more than the tests it saves: Session.parse_costs_more) its items read from its
    lines, unless they do not start at column 0; else, or then, read in pieces (None when the
    text is smaller, or its top level cuts neither way)."""
    if len(text) < PIECES_MIN:
        return None
    language = languages.get_language(lang)
    lines = lineitems.coarse_table(text, language) if lines_first else None
    return lines or pieces.coarse_table(text, language)


def prepare(
    stage: Stage,
    text: bytes,
    lang: str,
    queries: Sequence[Path],
    read: tree_sitter.Tree | NodeTable | None = None,
    coarse: bool = False,
    lines_first: bool = False,
    lower: Lowering | None = None,
) -> tuple[NodeTable, SyntaxFacts, tree_sitter.Tree | None]:
    """The table a stage's pass works on, what the planners know about it, and the parse of
    `text` (which the pass's syntax check edits); `read`, when given, is that parse, or the
    coarse table of a huge `text` read in pieces (`read_coarse`).

    With `coarse`, a tree of more than COARSE_NODES nodes gives a coarse table instead: the
    levels from the root down to where COARSE_NODES are reached, each deepest node a leaf (at
    10 MB of C or JavaScript: the root and its 100,000 items, built in 0.1 s where the whole
    table of 5 million nodes takes 2.5 s and twice the tree's memory). Its pass deletes whole
    items, lists of them first, so the text shrinks geometrically from the first candidates; the
    tree is then not returned (None) and is freed, and the pass goes unchecked (`CutsOnly`).
    From PIECES_MIN bytes on, that coarse table is read from the lines or in pieces
    (`read_coarse`, `lines_first`), so the first passes never hold a tree of the whole text.
    Input without a grammar gets its kind's table (inputs.py), hoisting by kind if the kind
    takes it, and no tree; bytes get their zeroing, and with `lower`, smaller byte values.
    """
    kind = inputs.input_kind(lang)
    if not kind.parsed:
        table = kind.table(stage.table, text)
        tree_stage = stage.table == "syntax"
        facts = SyntaxFacts()
        if kind.hoists and tree_stage:
            facts = SyntaxFacts.build(table, None, replacements=False)
        elif kind.zeroes and tree_stage:
            facts = SyntaxFacts(((None, Zeroes(table, lower)),))
        return table, facts, None
    language = languages.get_language(lang)
    coarse_read = read if isinstance(read, NodeTable) else None
    if coarse and stage.table == "syntax" and coarse_read is None:
        coarse_read = read_coarse(text, lang, lines_first)
    if coarse and stage.table == "syntax" and coarse_read is not None:
        facts = SyntaxFacts.build(coarse_read, language, lang=lang, replacements=False)
        return coarse_read, facts, None
    tree = read if isinstance(read, tree_sitter.Tree) else languages.new_parser(lang).parse(text)
    if stage.table == "lines":
        return NodeTable.from_lines(text), SyntaxFacts(), tree
    if stage.table == "tokens":
        return NodeTable.from_tokens(text), SyntaxFacts(), tree
    depth = coarse_depth(tree, COARSE_NODES) if coarse else None
    if depth is not None:
        table = NodeTable.from_tree(text, tree, depth)
        return table, SyntaxFacts.build(table, language, lang=lang, replacements=False), None
    table = NodeTable.from_tree(text, tree)
    # Replacements (query hints, drops, the smallest node of each kind) save little on a huge
    # text and cost seconds to gather; passes repeat until one changes nothing, so they come in
    # once the text is below REPLACE_MAX.
    wants = "replace" in stage.honours and stage.replace is not False and len(text) <= REPLACE_MAX
    if not wants:
        return table, SyntaxFacts.build(table, language, lang=lang, replacements=False), tree
    facts = SyntaxFacts.build(table, language, lang=lang, tree=tree, queries=queries)
    return table, facts, tree
