"""Inputs without a grammar: text and bytes read as trees, so the same engine reduces them.

A reducer that knows only grammars turns away a configuration file, a log, a home-grown DSL or a
fuzzer's binary crash file. Each of them has structure a reducer can use without a grammar, so
each is read as a tree of its own, flattened into the same `NodeTable` a parse gives: the tree
stage's deletion, its CDD over a node's children and its hoisting apply unchanged.

- **text** (valid UTF-8 without NUL bytes): paragraphs (runs of lines between blank lines), in
  them indented blocks (a line and the more-indented lines after it, to any depth), lines, and
  in a line its bracket groups (`()`, `[]`, `{}`, nested), quoted strings kept whole. A list of
  paragraphs, of a block's lines or of a group's items is what CDD halves; a group may become
  one of the groups inside it (hoisting), `f(g(x))` to `g(x)`.
- **bytes** (anything else): byte chunks of 4096, 256, 16 and 1 bytes, each level the children of
  the one above, so CDD removes large runs first and single bytes last. The bytes are never
  decoded: a candidate is the input with runs cut out, byte for byte what the test receives.

Neither has a parse to check, so the test alone judges every candidate (the judge's `CutsOnly`),
and the stages that need a grammar (renaming, merging, whitespace by the grammar's tokens) are
left out; text keeps the line, token and bracket-pair stages.
"""

from __future__ import annotations

import re
from array import array
from dataclasses import dataclass, field

from treereduce_py.lang.syntax import NodeTable

TEXT = "text"
BYTES = "bytes"
GRAMMARLESS = frozenset({TEXT, BYTES})

# The byte front end's chunk sizes, largest first; the last level is single bytes.
CHUNKS = (4096, 256, 16, 1)
_OPEN = {ord("("): ord(")"), ord("["): ord("]"), ord("{"): ord("}")}
_QUOTES = frozenset(b"\"'`")
_LINE = re.compile(rb"[^\n]*\n|[^\n]+")


def is_grammarless(lang: str) -> bool:
    """Whether `lang` names a front end of this module rather than a tree-sitter grammar."""
    return lang in GRAMMARLESS


def kind_of(data: bytes) -> str:
    """The front end for an input no grammar claims: text if it is UTF-8 without NUL bytes."""
    if b"\x00" in data:
        return BYTES
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return BYTES
    return TEXT


def table(lang: str, source: bytes) -> NodeTable:
    """The tree of `source` as front end `lang` reads it (see the module docstring)."""
    root = _text_tree(source) if lang == TEXT else _chunk_tree(source)
    return _flatten(source, root)


@dataclass
class _Node:
    start: int
    end: int
    kind: int
    children: list[_Node] = field(default_factory=list)


# Kind ids index KINDS. Hoisting keeps to one kind, and a chunk standing for a bigger one is
# only a deletion of its siblings (which CDD tries anyway), so each chunk size is its own kind.
KINDS = ("document", "paragraph", "block", "line", "group", *(f"chunk{n}" for n in CHUNKS))
_DOC, _PARAGRAPH, _BLOCK, _LINE_KIND, _GROUP = range(5)


def _chunk_tree(source: bytes) -> _Node:
    """Chunks of CHUNKS[0] bytes under the root, each split into chunks of the next size."""

    def split(start: int, end: int, level: int) -> list[_Node]:
        size = CHUNKS[level]
        kind = _GROUP + 1 + level
        nodes = []
        for s in range(start, end, size):
            e = min(s + size, end)
            node = _Node(s, e, kind)
            if size > 1 and e - s > 1:
                node.children = split(s, e, level + 1)
            nodes.append(node)
        return nodes

    level = next((i for i, size in enumerate(CHUNKS) if size < len(source)), len(CHUNKS) - 1)
    return _Node(0, len(source), _DOC, split(0, len(source), level) if source else [])


def _text_tree(source: bytes) -> _Node:
    """Paragraphs, indented blocks, lines and bracket groups (see the module docstring)."""
    lines = [m.span() for m in _LINE.finditer(source)]
    root = _Node(0, len(source), _DOC)
    paragraph: list[tuple[int, int]] = []
    for span in lines:
        paragraph.append(span)
        if not source[span[0] : span[1]].strip():  # a blank line closes its paragraph
            root.children.append(_paragraph(source, paragraph))
            paragraph = []
    if paragraph:
        root.children.append(_paragraph(source, paragraph))
    if len(root.children) == 1:  # one paragraph: its blocks are the document's
        root.children = root.children[0].children
    return root


def _paragraph(source: bytes, lines: list[tuple[int, int]]) -> _Node:
    node = _Node(lines[0][0], lines[-1][1], _PARAGRAPH)
    node.children = _blocks(source, lines)
    return node


def _indent(source: bytes, span: tuple[int, int]) -> int | None:
    """The indentation of a line, or None for a blank one (which belongs to the block above)."""
    text = source[span[0] : span[1]]
    stripped = text.lstrip(b" \t")
    return None if not stripped.strip() else len(text) - len(stripped)


def _blocks(source: bytes, lines: list[tuple[int, int]]) -> list[_Node]:
    """Each line, or a line with the more-indented lines after it as one block."""
    out: list[_Node] = []
    i = 0
    while i < len(lines):
        head = _indent(source, lines[i])
        j = i + 1
        while j < len(lines):
            indent = _indent(source, lines[j])
            if indent is not None and head is not None and indent <= head:
                break
            j += 1
        line = _line(source, lines[i])
        if j == i + 1 or head is None:
            out.append(line)
            i += 1
            continue
        block = _Node(lines[i][0], lines[j - 1][1], _BLOCK)
        block.children = [line, *_blocks(source, lines[i + 1 : j])]
        out.append(block)
        i = j
    return out


def _line(source: bytes, span: tuple[int, int]) -> _Node:
    node = _Node(span[0], span[1], _LINE_KIND)
    node.children = _groups(source, span[0], span[1])
    return node


def _groups(source: bytes, start: int, end: int) -> list[_Node]:
    """The bracket groups between start and end, nested; an unmatched bracket is plain text,
    and brackets inside a quoted string do not count."""
    stack: list[_Node] = [_Node(start, end, _LINE_KIND)]
    closers: list[int] = []
    i = start
    while i < end:
        c = source[i]
        if c in _QUOTES:
            close = source.find(bytes([c]), i + 1, end)
            i = end if close < 0 else close + 1
            continue
        if c in _OPEN:
            stack.append(_Node(i, end, _GROUP))
            closers.append(_OPEN[c])
        elif closers and c == closers[-1]:
            group = stack.pop()
            closers.pop()
            group.end = i + 1
            stack[-1].children.append(group)
        i += 1
    while len(stack) > 1:  # unclosed groups: their brackets were plain text
        orphan = stack.pop()
        stack[-1].children.extend(orphan.children)
    return stack[0].children


def _flatten(source: bytes, root: _Node) -> NodeTable:
    """The pre-order arrays of NodeTable from a tree of _Node (every node named)."""
    start, end, kind = array("I"), array("I"), array("i")
    parent, first_child, next_sibling = array("i"), array("i"), array("i")
    last, depth = array("i"), array("i")
    todo: list[tuple[_Node, int, int]] = [(root, -1, 0)]
    while todo:
        node, p, d = todo.pop()
        i = len(start)
        start.append(node.start)
        end.append(node.end)
        kind.append(node.kind)
        parent.append(p)
        depth.append(d)
        first_child.append(-1)
        next_sibling.append(-1)
        last.append(i)
        todo.extend((child, i, d + 1) for child in reversed(node.children))
    n = len(start)
    previous: dict[int, int] = {}  # parent -> its last child so far
    for i in range(1, n):
        p = parent[i]
        if p in previous:
            next_sibling[previous[p]] = i
        else:
            first_child[p] = i
        previous[p] = i
    for i in range(n - 1, 0, -1):  # a subtree ends where its last descendant does
        last[parent[i]] = max(last[parent[i]], last[i])
    return NodeTable(
        source, start, end, kind, bytearray(b"\x01") * n, parent, first_child, next_sibling,
        last, depth, KINDS, 0, frozenset(),
    )  # fmt: skip
