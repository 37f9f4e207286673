"""Syntax-aware whitespace minimization: drop every whitespace run the parser does not need.

The whitespace between two tokens is needed only to keep them apart (`int x`, `a - -b`) or,
in layout languages (Python, YAML, Haskell ...), to carry the block structure. So each gap
between two leaves of the syntax tree gets its smallest stand-in: nothing, one space, or (in a
layout language, or when the lines must stay) its newline with the indentation renumbered to one
column per level. Gaps inside strings, comments and other literal text are never touched.

A plan is checked against the parser before any test is spent: the candidate must parse to the
same tree (the same node kinds, the same token texts) as the text it came from. When the whole
plan does not, it is bisected, still with parses only, down to the gaps that can go together.
What remains is a safe candidate; the interestingness test then decides, as for any other.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import tree_sitter

from treereduce_py.lang.languages import new_parser

# Languages whose line breaks and indentation carry structure.
LAYOUT_LANGUAGES = frozenset(
    {"python", "yaml", "haskell", "make", "nim", "fsharp", "elm", "purescript", "starlark"}
)

# Node kinds whose text is data, not layout: the whitespace inside them stays as it is.
_LITERAL_WORDS = (
    "string",
    "comment",
    "heredoc",
    "template_literal",
    "char_literal",
    "character",
    "rune_literal",
    "regex",
    "raw_text",
)

# Bytes a plan's check may parse (each try parses the whole text) before the bisection stops.
MAX_PARSED_BYTES = 20_000_000


@dataclass(frozen=True)
class Gap:
    """Replace `text[start:end]` (whitespace between two tokens) by `replacement`."""

    start: int
    end: int
    replacement: bytes


def apply(text: bytes, gaps: Sequence[Gap]) -> bytes:
    """`text` with each gap replaced; the gaps must be disjoint (any order)."""
    parts: list[bytes] = []
    pos = 0
    for g in sorted(gaps, key=lambda g: g.start):
        parts += (text[pos : g.start], g.replacement)
        pos = g.end
    parts.append(text[pos:])
    return b"".join(parts)


def plan(text: bytes, lang: str, keep_lines: bool = False) -> list[Gap]:
    """The smallest stand-in for every gap between tokens (not yet checked by a parse).

    `keep_lines` keeps each line break (so line numbers in a diagnostic stay the same) but
    drops the indentation and the spaces within lines.
    """
    leaves = _leaves(new_parser(lang).parse(text))
    # Inside open brackets a layout language's line breaks carry nothing.
    depths = list(
        itertools.accumulate((_BRACKETS.get(text[s:e], 0) for s, e, _ in leaves), initial=0)
    )
    layout = lang in LAYOUT_LANGUAGES
    indents = _indent_levels(text, leaves, depths) if layout else {}
    gaps: list[Gap] = []
    prev_end, prev_kind = 0, ""
    for (start, end, kind), depth in zip(
        [*leaves, (len(text), len(text), "")], depths, strict=True
    ):
        old = text[prev_end:start]
        if old and not old.strip():  # only whitespace (a line continuation is not)
            in_layout = layout and depth <= 0
            new = _stand_in(text, prev_end, start, prev_kind, in_layout, keep_lines, indents)
            if new != old:
                gaps.append(Gap(prev_end, start, new))
        prev_end, prev_kind = max(prev_end, end), kind
    return gaps


_BRACKETS = {b"(": 1, b"[": 1, b"{": 1, b")": -1, b"]": -1, b"}": -1}


def _stand_in(
    text: bytes,
    start: int,
    end: int,
    left_kind: str,
    layout: bool,
    keep_lines: bool,
    indents: dict[int, int],
) -> bytes:
    old = text[start:end]
    if start == 0 or end == len(text):
        return b""  # leading and trailing whitespace separates nothing
    line_comment = "comment" in left_kind and text[start - 2 : start] != b"*/"
    if b"\n" in old and (layout or keep_lines or line_comment):
        newlines = old.count(b"\n") if keep_lines else 1
        eol = b"\r\n" if b"\r\n" in old else b"\n"  # the text's own line ending stays
        return eol * newlines + b" " * indents.get(end, 0)
    return b" " if _fuse(text[start - 1], text[end]) else b""


def _fuse(left: int, right: int) -> bool:
    """Would these two bytes run together into one token without a space between them?"""
    # Two operator characters may fuse (`- -` and `--`) or not (`>>` closing generics, `:?`):
    # they are planned apart, and the parse check puts the space back where it is needed.
    return _word(left) and _word(right)


def _word(byte: int) -> bool:
    return byte >= 0x80 or chr(byte).isalnum() or byte in b"_$'\""


def _literal(kind: str) -> bool:
    return any(w in kind for w in _LITERAL_WORDS)


def _leaves(tree: tree_sitter.Tree) -> list[tuple[int, int, str]]:
    """The non-empty leaves (start, end, kind) in order; a literal node (a string, a comment)
    counts as one leaf, so no gap lies inside it: its inside is data."""
    leaves: list[tuple[int, int, str]] = []
    cursor = tree.walk()
    while True:
        node = cursor.node
        assert node is not None  # a cursor always stands on a node
        if not _literal(node.type) and cursor.goto_first_child():
            continue
        if node.end_byte > node.start_byte:
            leaves.append((node.start_byte, node.end_byte, node.type))
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return leaves


def _indent_levels(
    text: bytes, leaves: list[tuple[int, int, str]], depths: list[int]
) -> dict[int, int]:
    """For each leaf that starts a line outside brackets: its new indentation, the rank of its
    old one among all those indentations (so their order and equality are kept)."""
    width: dict[int, int] = {}
    for (start, _, _), depth in zip(leaves, depths, strict=False):
        line = text.rfind(b"\n", 0, start) + 1
        if depth <= 0 and not text[line:start].strip():
            width[start] = start - line
    rank = {w: k for k, w in enumerate(sorted(set(width.values())))}
    return {start: rank[w] for start, w in width.items()}


def shape(text: bytes, lang: str) -> list[tuple[int, bytes | None]]:
    """What a whitespace change must keep: each node's kind, and each leaf's (or literal's) text."""
    out: list[tuple[int, bytes | None]] = []
    cursor = new_parser(lang).parse(text).walk()
    while True:
        node = cursor.node
        assert node is not None
        if _literal(node.type) or node.child_count == 0:
            out.append((node.kind_id, text[node.start_byte : node.end_byte]))
        else:
            out.append((node.kind_id, None))
            cursor.goto_first_child()
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return out


def safe_gaps(text: bytes, lang: str, gaps: Sequence[Gap]) -> list[Gap]:
    """The largest part of `gaps` found (by bisection) whose application keeps `shape`; a gap
    planned as nothing that must stay is tried again as one space."""
    want = shape(text, lang)
    budget = [max(8, MAX_PARSED_BYTES // max(1, len(text)))]
    accepted: list[Gap] = []

    def keeps(candidate: list[Gap]) -> bool:
        return shape(apply(text, accepted + candidate), lang) == want

    accepted = bisect_safe(list(gaps), keeps, budget)
    taken = set(accepted)
    spaces = [
        Gap(g.start, g.end, b" ")
        for g in gaps
        if g not in taken and not g.replacement and g.end - g.start > 1
    ]
    return accepted + bisect_safe(spaces, keeps, budget)


def bisect_safe(
    items: list[Gap], keeps: Callable[[list[Gap]], bool], budget: list[int], min_chunk: int = 1
) -> list[Gap]:
    """Greedy bisection: accept a chunk when `keeps(accepted + chunk)`, else split it in two
    (down to `min_chunk` gaps)."""
    accepted: list[Gap] = []
    stack = [items]
    while stack and budget[0] > 0:
        chunk = stack.pop()
        if not chunk:
            continue
        budget[0] -= 1
        if keeps(accepted + chunk):
            accepted += chunk
        elif len(chunk) > min_chunk:
            mid = len(chunk) // 2
            stack += (chunk[mid:], chunk[:mid])  # the first half is tried first
    return accepted


# Tests the chunked fallback of `minimize` may spend: chunks of at least 1/CHUNKS of the gaps.
CHUNKS = 16


def minimize(text: bytes, lang: str, interesting: Callable[[bytes], bool]) -> bytes:
    """The smallest whitespace `interesting` accepts, among safe candidates: the whole plan
    (one test); else with the line breaks kept (diagnostics cite lines); then the rest of the
    plan in halves, down to a sixteenth of it. Each candidate keeps `shape`."""
    whole = apply(text, safe_gaps(text, lang, plan(text, lang)))
    if len(whole) < len(text) and interesting(whole):
        return whole
    lines = apply(text, safe_gaps(text, lang, plan(text, lang, keep_lines=True)))
    if len(lines) < len(text) and interesting(lines):
        text = lines
    want = shape(text, lang)
    gaps = plan(text, lang)

    def keeps(chunk: list[Gap]) -> bool:
        candidate = apply(text, chunk)
        return shape(candidate, lang) == want and interesting(candidate)

    budget = [4 * CHUNKS]
    return apply(text, bisect_safe(gaps, keeps, budget, max(1, len(gaps) // CHUNKS)))
