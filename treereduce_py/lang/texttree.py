"""A tree for text that has no grammar, inferred from its brackets and its layout.

Most text with no grammar still has structure a person sees at a glance: balanced `()[]{}`
groups, quoted strings, blocks made by indentation (a line and the more indented lines after
it), paragraphs between blank lines, lines, and the tokens on them. `text_table` turns that into
the same `NodeTable` a parse gives (pre-order arrays, a subtree is `i .. last[i]`), so the tree
stage's deletion, CDD over a node's children and hoisting (a group replaced by a group inside it,
a block by an inner block) work on a `.conf`, a log or a home-grown DSL with the same engine.

Every byte belongs to exactly one leaf: a token owns the spaces after it up to and including the
last newline before the next token, and a line's indentation belongs to its first token. So the
leaves tile the text, every node's children tile the node, and deleting a line or a block takes
its line break with it and leaves the next line's indentation alone.

It never fails: an unmatched closer is a plain token, and an opener with no closer closes at the
end of its indentation block (or at its enclosing group's closer, or the end of the text). A
closer that matches an opener further out closes that one, and the openers left open inside it
end before it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from treereduce_py.lang.syntax import NodeTable

# Node kinds; a table's `kind` column indexes this tuple.
KINDS = (
    "text",  # the root
    "paragraph",  # siblings between blank lines
    "block",  # a line and the more indented lines after it
    "line",  # one logical line: a group that opens on it runs on to its closer
    "item",  # the part of a line or group up to and including a separator
    "parens",
    "brackets",
    "braces",
    "string",  # quoted on one line
    "word",
    "separator",  # `,` or `;`
    "punct",
    "open",  # a group's opening bracket (anonymous: it goes with its group)
    "close",  # a group's closing bracket (anonymous)
    "space",  # a text of whitespace only
)
(TEXT, PARAGRAPH, BLOCK, LINE, ITEM, PARENS, BRACKETS, BRACES) = range(8)
(STRING, WORD, SEPARATOR, PUNCT, OPEN, CLOSE, SPACE) = range(8, 15)

# One token: a word (non-ASCII bytes are word bytes, so no UTF-8 sequence is split), a string
# quoted on one line (a `'` right after a word is an apostrophe), a bracket, a separator, or a
# run of other punctuation. Spaces are skipped; a run of whitespace that starts with a newline
# is matched (it ends one line and indents the next).
_TOKEN = re.compile(
    rb"""(\n\s*)
    |([A-Za-z0-9_\x80-\xff]+)
    |("(?:[^"\\\n]|\\[^\n])*"|`(?:[^`\\\n]|\\[^\n])*`
        |(?<![A-Za-z0-9_\x80-\xff])'(?:[^'\\\n]|\\[^\n])*')
    |([,;])
    |([^\sA-Za-z0-9_\x80-\xff()\[\]{},;"'`]+|["'`])
    |(\()|(\[)|(\{)|(\))|(\])|(\})""",
    re.VERBOSE,
)
# Token codes, by the regex's group: the newline run, then leaves, then the brackets.
_NEWLINE = 1
(_WORD, _STRING, _SEP, _PUNCT) = range(2, 6)
_OPENERS = range(6, 9)  # ( [ {
_CLOSERS = range(9, 12)  # ) ] }, each 3 after its opener
_SPACE = 12
# The table kind of each token code (a closer that matches nothing is punctuation).
_KIND_OF = (-1, -1, WORD, STRING, SEPARATOR, PUNCT, OPEN, OPEN, OPEN, CLOSE, CLOSE, CLOSE, SPACE)
_GROUP_OF = {6: PARENS, 7: BRACKETS, 8: BRACES}


@dataclass(frozen=True)
class _Tokens:
    """The tokens of a text and the layout facts the tree is built from."""

    start: list[int]  # where each token's span starts (its line's indentation included)
    end: list[int]  # where it ends (the whitespace after it included)
    code: list[int]  # what it is (_WORD ... _SPACE)
    # The tokens that start a line -> (their indentation in bytes, a blank line before them).
    lines: dict[int, tuple[int, bool]]
    indent: dict[int, int]  # each opener -> the indentation of its line


def _tokenize(text: bytes) -> _Tokens:
    start: list[int] = []
    code: list[int] = []
    lines: dict[int, tuple[int, bool]] = {}
    indent: dict[int, int] = {}
    line: tuple[int, int, bool] | None = None  # (begins, indent, blank) after a newline run
    current = 0  # the indentation of the current line
    for m in _TOKEN.finditer(text):
        g = m.lastindex
        assert g is not None
        s = m.start()
        if g == _NEWLINE:
            e = m.end()
            newline = text.rfind(b"\n", s, e)
            line = (newline + 1, e - newline - 1, newline != s)
            continue
        k = len(code)
        if line is not None:
            begins, current, blank = line
            lines[k] = (current, blank and k > 0)
            start.append(begins if k else 0)  # leading whitespace belongs to the first token
            line = None
        elif k:
            start.append(s)  # the spaces before it trail the token before
        else:
            current = s
            lines[0] = (s, False)
            start.append(0)
        code.append(g)
        if g in _OPENERS:
            indent[k] = current
    if not code and text:  # whitespace only: one leaf, so that it can still be deleted
        start.append(0)
        code.append(_SPACE)
        lines[0] = (0, False)
    return _Tokens(start, [*start[1:], len(text)], code, lines, indent)


class _Node:
    """A node under construction, made after its children; leaves are token indices."""

    __slots__ = ("children", "first", "kind", "last")

    def __init__(self, kind: int, children: list[_Node | int]) -> None:
        self.kind = kind
        self.children = children
        c, d = children[0], children[-1]
        self.first: int = c if isinstance(c, int) else c.first  # its first token
        self.last: int = d if isinstance(d, int) else d.last  # its last token


def _first(x: _Node | int) -> int:
    return x if isinstance(x, int) else x.first


def _match(t: _Tokens) -> tuple[list[int], list[int]]:
    """Pair the brackets (a closer no opener waits for becomes _PUNCT). Returns `after` (for
    an opener, the token after its group; -1 for other tokens) and `closer` (an opener's
    closing token, -1 when it has none)."""
    code = t.code
    n = len(code)
    closer = [-1] * n
    parent = [-1] * n  # the opener around each opener when it opened
    stack: list[int] = []
    waiting = dict.fromkeys(_OPENERS, 0)  # open openers of each bracket
    for k in range(n):
        c = code[k]
        if c in _OPENERS:
            parent[k] = stack[-1] if stack else -1
            stack.append(k)
            waiting[c] += 1
        elif c in _CLOSERS:
            want = c - 3
            if not waiting[want]:
                code[k] = _PUNCT
                continue
            while code[stack[-1]] != want:  # openers left open inside it end before it
                waiting[code[stack.pop()]] -= 1
            waiting[want] -= 1
            closer[stack.pop()] = k
    # An unclosed group never runs past the closer of the nearest closed group around it.
    limit = [n] * n
    for k in t.indent:
        p = parent[k]
        if p != -1:
            limit[k] = closer[p] if closer[p] != -1 else limit[p]
    after = [-1] * n
    lines = t.lines
    for k in sorted(t.indent, reverse=True):  # the groups inside an opener's are known first
        if closer[k] != -1:
            after[k] = closer[k] + 1
            continue
        own = t.indent[k]
        j = k + 1  # to the end of the opener's indentation block, groups taken whole
        while j < limit[k] and not (j in lines and lines[j][0] <= own):
            j = after[j] if code[j] in _OPENERS else j + 1
        after[k] = j
    return after, closer


def _units(
    t: _Tokens, after: list[int], groups: dict[int, _Node], lo: int, hi: int
) -> list[_Node | int]:
    """Tokens lo..hi-1 as units: single tokens, and groups taken whole."""
    out: list[_Node | int] = []
    j = lo
    while j < hi:
        if j in groups:
            out.append(groups[j])
            j = after[j]
        else:
            out.append(j)
            j += 1
    return out


def _items(t: _Tokens, units: list[_Node | int]) -> list[_Node | int]:
    """Units cut after each separator into items, when that makes two or more."""
    code = t.code
    items: list[list[_Node | int]] = [[]]
    for u in units:
        items[-1].append(u)
        if isinstance(u, int) and code[u] == _SEP:
            items.append([])
    if not items[-1]:
        items.pop()
    if len(items) < 2:
        return units
    return [its[0] if len(its) == 1 else _Node(ITEM, its) for its in items]


class _Entry:
    """A line while the indentation blocks are found, with the more indented lines after it."""

    __slots__ = ("indent", "kids", "line", "node")

    def __init__(self, line: _Node | int, indent: int) -> None:
        self.line = line
        self.indent = indent
        self.kids: list[_Entry] = []
        self.node: _Node | int = line  # the block it heads, once its kids are done


def _body(t: _Tokens, units: list[_Node | int], indent: int) -> list[_Node | int]:
    """The structure of a sequence of units (a group's inside, or the whole text; `indent` is
    that of the line it starts on): one logical line gives its items; several give lines, under
    indentation blocks, between blank lines."""
    lines: list[list[_Node | int]] = []
    starts = t.lines
    for u in units:
        if not lines or _first(u) in starts:
            lines.append([])
        lines[-1].append(u)
    if len(lines) <= 1:
        return _items(t, lines[0]) if lines else []
    top = _Entry(-1, -1)
    path = [top]  # the open blocks, outermost first
    made: list[_Entry] = []  # in pre-order
    for line in lines:
        items = _items(t, line)
        first = _first(line[0])
        own = starts[first][0] if first in starts else indent
        entry = _Entry(items[0] if len(items) == 1 else _Node(LINE, items), own)
        while len(path) > 1 and path[-1].indent >= own:
            path.pop()
        path[-1].kids.append(entry)
        path.append(entry)
        made.append(entry)
    for entry in reversed(made):  # children before parents: no recursion
        if entry.kids:
            entry.node = _Node(BLOCK, [entry.line, *_paragraphs(t, entry.kids)])
    return _paragraphs(t, top.kids)


def _paragraphs(t: _Tokens, entries: list[_Entry]) -> list[_Node | int]:
    """The entries' nodes, those between blank lines grouped when that makes two or more
    groups."""
    groups: list[list[_Node | int]] = []
    starts = t.lines
    for e in entries:
        first = _first(e.node)
        if not groups or (first in starts and starts[first][1]):
            groups.append([])
        groups[-1].append(e.node)
    if len(groups) < 2:
        return groups[0] if groups else []
    return [g[0] if len(g) == 1 else _Node(PARAGRAPH, g) for g in groups]


def _tree(t: _Tokens) -> _Node:
    """The root, built from the innermost groups out."""
    after, closer = _match(t)
    groups: dict[int, _Node] = {}
    for k in sorted(t.indent, reverse=True):
        end = closer[k] if closer[k] != -1 else after[k]
        inside = _body(t, _units(t, after, groups, k + 1, end), t.indent[k])
        kids: list[_Node | int] = [k, *inside, *((closer[k],) if closer[k] != -1 else ())]
        groups[k] = _Node(_GROUP_OF[t.code[k]], kids)
    return _Node(TEXT, _body(t, _units(t, after, groups, 0, len(t.code)), 0))


_NAMED = bytes(0 if k in (OPEN, CLOSE) else 1 for k in range(len(KINDS)))


def text_table(text: bytes) -> NodeTable:
    """The inferred tree of `text` as a NodeTable (see the module docstring). Any bytes are
    accepted. `kind_names` are KINDS; group brackets are anonymous nodes, every other node is
    named; `lists` is empty (a separator ends an item instead)."""
    t = _tokenize(text)
    if not t.code:  # an empty text: the root alone
        return NodeTable.from_preorder(text, [0], [0], [TEXT], b"\x01", [-1], [0], KINDS)
    start, end, kind, parent, depth = [], [], [], [], []
    tstart, tend, code = t.start, t.end, t.code
    stack: list[tuple[_Node | int, int, int]] = [(_tree(t), -1, 0)]
    pop, push = stack.pop, stack.extend
    while stack:
        node, p, d = pop()
        if isinstance(node, int):
            start.append(tstart[node])
            end.append(tend[node])
            kind.append(_KIND_OF[code[node]])
        else:
            i = len(kind)
            start.append(tstart[node.first])
            end.append(tend[node.last])
            kind.append(node.kind)
            d1 = d + 1
            push([(c, i, d1) for c in reversed(node.children)])
        parent.append(p)
        depth.append(d)
    named = bytes(_NAMED[k] for k in kind)
    return NodeTable.from_preorder(text, start, end, kind, named, parent, depth, KINDS)
