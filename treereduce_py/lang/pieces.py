"""A huge input's coarse table read in pieces: the root and its top-level items, from parses of
about `PIECE` bytes each, never one tree of the whole text.

A tree-sitter tree costs about 50 bytes of memory per byte of input (550 MB at 10 MB of the scale
family's C, so 5 GB or more at 100 MB), and the first passes on a huge input only delete whole
top-level items (the coarse table, reading.prepare): they need the items' byte ranges and kinds,
not the tree. So the text is parsed a piece at a time, each piece's tree freed before the next:
a piece starts where a named top-level item starts and runs about `PIECE` bytes; its items count
up to the last one (the cut may have truncated it) and up to the first with a parse error (error
recovery at the cut may have read the ones before otherwise), between named items (`};`'s `;`
read alone is another statement), and only when the text up to the next item, parsed alone,
reads them alike; the next piece starts at the first item not counted. An item longer than a
piece doubles the piece, up to `MAX_PIECE`; beyond that, or when the top level has too few items
to be worth cutting, there is no table (None) and the caller parses the whole text as before.
The items are grouped into blocks (lang/blocks.py).
"""

from __future__ import annotations

import tree_sitter

from treereduce_py.lang import blocks
from treereduce_py.lang.blocks import Row
from treereduce_py.lang.syntax import SEPARATORS, NodeTable, errors_below, kind_names

PIECE = 1 << 20
MAX_PIECE = 16 * PIECE
# A table of fewer top-level items than this saves little: the caller's coarse table goes deeper.
MIN_ITEMS = 64


def coarse_table(
    text: bytes, language: tree_sitter.Language, piece: int = PIECE
) -> NodeTable | None:
    """The root of `text` and its top-level items (their spans, kinds, named flags and parse
    errors) as `NodeTable.from_tree(text, tree, 1)` would give them, parsed in pieces of about
    `piece` bytes; None when an item is longer than `MAX_PIECE` or there are under `MIN_ITEMS`."""
    parser = tree_sitter.Parser(language)
    rows: list[Row] = []
    errors, separated, root_kind = 0, False, 0
    pos, size = 0, piece
    while pos < len(text):
        cut = min(len(text), pos + size)
        counted = _piece(parser, text[pos:cut], cut == len(text))
        if counted is None:  # an item longer than the piece
            if size >= MAX_PIECE:
                return None
            size *= 2
            continue
        root, items, following = counted
        if not root.is_error:
            root_kind = root.kind_id
        for item in items:
            s, e = pos + item.start_byte, pos + item.end_byte
            rows.append((s, e, item.kind_id, item.is_named))
            errors += errors_below(item)
            separated |= not item.is_named and text[s:e] in SEPARATORS
        if cut == len(text):
            break
        pos += following
        size = piece
    if len(rows) < MIN_ITEMS:
        return None
    return blocks.table(text, rows, root_kind, kind_names(language), errors, separated)


def _piece(
    parser: tree_sitter.Parser, piece: bytes, whole: bool
) -> tuple[tree_sitter.Node, list[tree_sitter.Node], int] | None:
    """A parse's root of `piece` (not an error where one is not), the items of it to count and
    where the first one not counted starts: all of them when the piece ends the text (`whole`),
    else those `_trusted` keeps; when error recovery at the cut made the whole piece's root an
    ERROR (its children a jumble of tokens), only those that the text up to the next one,
    parsed alone, reads alike. None when none is left."""
    root = parser.parse(piece).root_node
    items = root.children
    if whole:
        return root, items, len(piece)
    for _ in range(3):
        kept = _trusted(items)
        if not kept:
            return None
        following = items[len(kept)].start_byte
        if not root.is_error:
            return root, kept, following
        again = parser.parse(piece[:following]).root_node
        if not again.is_error and _rows(again.children) == _rows(kept):
            return again, kept, following
        ours, theirs = _rows(kept), _rows(again.children)
        same = next((i for i, r in enumerate(ours) if i >= len(theirs) or theirs[i] != r), 0)
        items = kept[: same + 1]
    return None


def _row(item: tree_sitter.Node) -> Row:
    return (item.start_byte, item.end_byte, item.kind_id, item.is_named)


def _rows(items: list[tree_sitter.Node]) -> list[Row]:
    return [_row(item) for item in items]


def _trusted(items: list[tree_sitter.Node]) -> list[tree_sitter.Node]:
    """The items of a cut piece that the whole text's parse has too: those before the last
    one (the cut may have truncated it) and before any with a parse error (error recovery at
    the cut may have read them otherwise), ending with a named item and followed by a named one
    that is not an error (`};`'s `;` read alone is another statement)."""
    first_error = next((i for i, item in enumerate(items) if item.has_error), len(items))
    kept = items[: min(len(items) - 1, first_error)]
    while kept and not (
        kept[-1].is_named and items[len(kept)].is_named and not items[len(kept)].is_error
    ):
        kept.pop()
    return kept
