"""A huge input's top-level items read from its lines, without a parser.

tree-sitter parses C at about 2.5 MB a second here: reading a 100 MB input's items in pieces
(pieces.py) costs 40 s of CPU before the first test, more than C-Vise takes to reduce it. Yet the
first passes on such an input only delete whole top-level items, and in most languages a
top-level item starts a line at column 0: a function, a struct, a statement, an SMT-LIB command.
So the items are read from the text alone: a line that starts at column 0 starts an item, unless
it continues the one before (it opens with a closing bracket, an Allman `{`, or what continues an
expression: `.`, `,`, `&`, `|`, `?`; the line before ends with a backslash; it is Python's
`else:`, `elif`, `except`, `finally`; it follows a decorator line or a Rust attribute, `@` or
`#[`). An item runs to the next one's start, the line breaks and blank lines after it included,
so deleting items leaves no gaps.

A cut the grammar would not make (a column-0 line inside a multi-line string or comment) is not
checked for: the coarse passes trust the test (judge/check.py's CutsOnly), which refuses what a
compiler refuses; the passes after them parse what is left. Such cuts cost tests, so the session
reads the items this way only where a parse would cost more (Session.parse_costs_more). A text
whose items do not start at column 0 (a Java class, a minified bundle) has too few of them, and
the caller reads it in pieces or whole, as before.
"""

from __future__ import annotations

import re

import tree_sitter

from treereduce_py.lang import blocks
from treereduce_py.lang.blocks import Row
from treereduce_py.lang.syntax import NodeTable, kind_names

# A table of fewer items than this saves little: the caller reads the text another way.
MIN_ITEMS = 64
# An item starts at a line break followed by a byte that opens no continuation: not a closing
# bracket, an Allman `{`, nor what continues an expression (`.method()`, `, b`, `&& c`, `? d`).
_STARTS = re.compile(rb"\n(?=[^\s{})\].,&|?])")
# What an item may start with that belongs to the item after it: a decorator (Python, Java,
# TypeScript) or a Rust attribute.
_DECORATIONS = (b"@", b"#[")
# Words that continue the item before at column 0 (Python's compound statements).
_CONTINUING = (b"else", b"elif", b"except", b"finally")


def coarse_table(text: bytes, language: tree_sitter.Language) -> NodeTable | None:
    """The root of `text` and its top-level items read from its lines (see the module
    docstring), in blocks (blocks.py); None when there are fewer than MIN_ITEMS."""
    rows: list[Row] = []
    start = 0
    decorated = text.startswith(_DECORATIONS)
    for m in _STARTS.finditer(text):
        pos = m.end()
        if decorated or _continues(text, pos):
            decorated = decorated and text.startswith(_DECORATIONS, pos)
            continue
        rows.append((start, pos, -1, True))
        start = pos
        decorated = text.startswith(_DECORATIONS, pos)
    if start < len(text):
        rows.append((start, len(text), -1, True))
    if len(rows) < MIN_ITEMS:
        return None
    # The root's kind, from a parse of the first item (or of its start, if it is long).
    root = tree_sitter.Parser(language).parse(text[: min(rows[0][1], 1 << 16)]).root_node
    return blocks.table(text, rows, root.kind_id, kind_names(language))


def _continues(text: bytes, pos: int) -> bool:
    """Does the column-0 line at `pos` continue the item before it (a backslash at the end of
    the line before, or a word of _CONTINUING, not the start of a longer name: `else:`, not
    `elsewhere`)?"""
    before = text[max(0, pos - 3) : pos - 1].rstrip(b"\r")
    if before.endswith(b"\\"):
        return True
    word = next((w for w in _CONTINUING if text.startswith(w, pos)), None)
    if word is None:
        return False
    after = text[pos + len(word) : pos + len(word) + 1]
    return not (after.isalnum() or after == b"_")
