"""Reduction inside tokens (T-Rec, TOSEM'25): a literal shortened where deleting it failed.

A grammar-level deleter stops at a token: `"\\xrtf"` stays whole when the test needs only its
`\\x`, and `1234` stays when any number would do. The query files mark such tokens `@trim`
(string and number literals); a marked token with children is a string, whose delimiters (and
prefix, `b"`, `r"`) stay while its contents lose characters, an escape sequence going as one
unit so that what is left still reads as the same kind of token; a marked leaf is a number,
which may become `0` or `1`. Only a few candidates a token a pass: the contents emptied, or
their first or last half kept; the tree stage's passes repeat on the result, so a string is
halved again next time, as ddmin would narrow it, a test or two each time. A string holding
anything but text and escapes (an interpolation, `f"{x}"`) is left alone.
"""

from __future__ import annotations

from treereduce_py.lang.syntax import NodeTable

# The children of a string literal that are its text (the grammars name them so).
_TEXT = ("content", "fragment", "escape")
# A string's delimiters, when the grammar names them (Python's `string_start`, `string_end`).
_DELIMITERS = ("start", "end")


def trims(table: NodeTable, node: int) -> list[bytes]:
    """The shorter texts the @trim token `node` may become, shortest first (none for a string
    with an interpolation or a leaf already one character long)."""
    if table.first_child[node] == -1:
        return [t for t in (b"0", b"1") if len(t) < table.size(node)]
    span = _contents(table, node)
    if span is None:
        return []
    start, end = span
    units = _units(table, node, start, end)
    text = table.text(node)
    head, tail = text[: start - table.start[node]], text[end - table.start[node] :]
    keep = (len(units) + 1) // 2
    kept = [b"", *({b"".join(units[:keep]), b"".join(units[-keep:])} if len(units) > 1 else ())]
    texts = [head + k + tail for k in sorted(kept, key=lambda k: (len(k), k))]
    return [t for t in texts if len(t) < len(text)]


def _contents(table: NodeTable, node: int) -> tuple[int, int] | None:
    """The byte range of a string's contents: from its first to its last text child, or between
    its first and last child (its delimiters) when it has no text child; None when a named child
    is neither text nor a delimiter."""
    kids = list(table.children(node))
    text = []
    for c in kids:
        kind = table.kind_name(c)
        if table.named[c] and not kind.endswith(_DELIMITERS):
            if not any(part in kind for part in _TEXT):
                return None
            text.append(c)
    if text:
        return table.start[text[0]], table.end[text[-1]]
    if len(kids) >= 2:
        return table.end[kids[0]], table.start[kids[-1]]
    return None


def _units(table: NodeTable, node: int, start: int, end: int) -> list[bytes]:
    """The contents as units: each escape sequence whole, every other character alone (UTF-8
    continuation bytes stay with their character)."""
    escapes = {
        table.start[i]: table.end[i]
        for i in table.descendants(node)
        if "escape" in table.kind_name(i) and start <= table.start[i] and table.end[i] <= end
    }
    source = table.source
    units: list[bytes] = []
    i = start
    while i < end:
        stop = escapes.get(i, i + 1)
        while stop < end and stop not in escapes and source[stop] & 0xC0 == 0x80:
            stop += 1
        units.append(source[i:stop])
        i = stop
    return units
