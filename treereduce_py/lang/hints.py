"""Query files: what tree-sitter queries say about a language's nodes, read once per tree.

Deleting nodes cannot shrink everything: a function body must stay a body, a call's arguments
must stay an argument list. What such a node can become instead is knowledge about one language
(`{}` for a C block, `pass` for a Python block, `0` for a number, `""` for a string), so it lives
in plain tree-sitter query files that users can read and extend, not in code. Each pattern
captures one node as `@replace` and names its replacement with tree-sitter's own `#set!`
directive:

    ((compound_statement) @replace (#set! replacement "{}"))

A pattern may instead mark nodes with another capture (`@drop`, `@inline`, `@define`, `@call`,
`@hoist`, ...): what each of those means is a plug-in of the tree planner (transform/captures.py,
docs/queries.md), which tells `load_hints` its name and the parts its patterns must capture
(`@inline` with `@inline.name` and `@inline.value`), so that a file using it wrongly is refused
with its line. `Hints.matches` runs every file's query once over a tree and keeps each match's
captured nodes as (start, end, kind id) spans, plain data for the plug-ins to read.

The bundled files are `queries/<lang>/replacements.scm` (installed as the package
`treereduce_py.queries`); `--queries DIR` adds every `DIR/<lang>/*.scm`. A hint is offered only
where it makes the node's text shorter, or as long and smaller byte by byte (a `6` that may
become `1`; edit/order.py) where the caller gives the source, so applying hints makes progress.
"""

from __future__ import annotations

import importlib.resources
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import tree_sitter

__all__ = [
    "CAPTURE",
    "SETTING",
    "Hints",
    "Match",
    "QueryFileError",
    "QueryMatches",
    "Replacement",
    "Span",
    "load_hints",
    "query_files",
]

# The capture that marks the node to replace, and the `#set!` key that holds its replacement.
CAPTURE = "replace"
SETTING = "replacement"

_BUNDLED_PACKAGE = "treereduce_py.queries"
_BUNDLED_NAME = "replacements.scm"


@dataclass(frozen=True)
class Replacement:
    """Replace the node spanning bytes `start:end` (grammar kind id `kind_id`) by `text`."""

    start: int
    end: int
    kind_id: int
    text: bytes


# A captured node: (start byte, end byte, grammar kind id), which names it in any table of the
# same parse.
Span = tuple[int, int, int]


@dataclass(frozen=True)
class Match:
    """One match of one pattern: the spans each of its captures holds (`_` names, which only
    serve predicates, left out), and the pattern's replacement if it is a `@replace` one."""

    captures: Mapping[str, tuple[Span, ...]]
    replacement: bytes | None = None


@dataclass(frozen=True)
class QueryMatches:
    """Every match of every query file over one tree, in file and match order."""

    matches: tuple[Match, ...] = ()
    # The matches holding each capture name, built at the first `groups`: a planner asks for
    # several name sets, and most matches hold none of a set's names.
    _holding: dict[str, list[Match]] = field(default_factory=dict, compare=False, repr=False)

    def spans(self) -> set[Span]:
        """Every span any capture holds."""
        return {s for m in self.matches for spans in m.captures.values() for s in spans}

    def groups(self, names: Sequence[str]) -> list[tuple[Span, ...]]:
        """For each match holding exactly one node for each of `names`, their spans in that
        order; sorted, without duplicates."""
        found: set[tuple[Span, ...]] = set()
        if not names:
            return [()] if self.matches else []
        if not self._holding:  # built whole, then published at once: another thread may ask
            holding: dict[str, list[Match]] = {}
            for m in self.matches:
                for name in m.captures:
                    holding.setdefault(name, []).append(m)
            self._holding.update(holding)
        for m in self._holding.get(names[0], ()):
            parts = [m.captures.get(name, ()) for name in names]
            if all(len(p) == 1 for p in parts):
                found.add(tuple(p[0] for p in parts))
        return sorted(found)

    def replacements(self, source: bytes | None = None) -> list[Replacement]:
        """Every `@replace` hint that makes its node shorter, or, given the `source` the matches
        are of, as long and smaller byte by byte (edit/order.py: `6` may become `1`, `()` is not
        offered `()`); sorted by start byte, then longer nodes first, then by kind and text; at
        most one entry per (node, text) even when several patterns or files offer the same
        text."""
        found: set[Replacement] = set()
        for m in self.matches:
            text = m.replacement
            if text is None:
                continue
            for start, end, kind in m.captures.get(CAPTURE, ()):
                if len(text) < end - start or (
                    source is not None and len(text) == end - start and text < source[start:end]
                ):
                    found.add(Replacement(start, end, kind, text))
        return sorted(found, key=lambda r: (r.start, r.start - r.end, r.kind_id, r.text))


class QueryFileError(ValueError):
    """A query file that cannot be used; the message starts with `path:line:`."""

    def __init__(self, path: Path, line: int | None, reason: str) -> None:
        self.path = path
        self.line = line
        self.reason = reason
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where}: {reason}")

    def __reduce__(self) -> tuple[type[QueryFileError], tuple[Path, int | None, str]]:
        # Rebuild from the fields, not the message, so the exception survives pickling.
        return (QueryFileError, (self.path, self.line, self.reason))


def query_files(lang: str, extra_dirs: Sequence[Path] = ()) -> list[Path]:
    """The hint files for `lang`: the bundled one (if the language has one), then the sorted
    `*.scm` files of `<dir>/<lang>/` for each extra directory, in the order given.

    Raises QueryFileError when an extra directory does not exist.
    """
    files = _bundled(lang, set())
    for extra in extra_dirs:
        root = Path(extra)
        if not root.is_dir():
            raise QueryFileError(root, None, "no such query directory")
        files.extend(sorted(p for p in (root / lang).glob("*.scm") if p.is_file()))
    return files


def _bundled(lang: str, seen: set[str]) -> list[Path]:
    """The bundled file of `lang`, after those it inherits from: a first line
    `; inherits: a,b` (nvim-treesitter's convention) names languages whose hints apply too."""
    if lang in seen:
        return []
    seen.add(lang)
    resource = importlib.resources.files(_BUNDLED_PACKAGE) / lang / _BUNDLED_NAME
    if not resource.is_file():
        return []
    # The package is a plain directory (installed or editable), so this is a real path.
    path = Path(str(resource))
    first = path.read_text(encoding="utf-8", errors="replace").partition("\n")[0]
    files: list[Path] = []
    if first.startswith(_INHERITS):
        for parent in first[len(_INHERITS) :].split(","):
            files.extend(_bundled(parent.strip(), seen))
    files.append(path)
    return files


_INHERITS = "; inherits:"


@dataclass(frozen=True, eq=False)
class _FileQuery:
    """One compiled query file and the replacement bytes of each of its patterns."""

    path: Path
    query: tree_sitter.Query
    texts: tuple[bytes | None, ...]  # None for a pattern that sets no replacement


@dataclass(frozen=True, eq=False)
class Hints:
    """The compiled hint files of one language; safe to share between threads."""

    lang: str
    files: tuple[Path, ...]
    _queries: tuple[_FileQuery, ...]

    @property
    def pattern_count(self) -> int:
        """How many hint patterns the files hold together."""
        return sum(len(q.texts) for q in self._queries)

    def matches(self, tree: tree_sitter.Tree | tree_sitter.Node) -> QueryMatches:
        """Every match of every file in `tree` (or under the node): each query runs once."""
        root = tree.root_node if isinstance(tree, tree_sitter.Tree) else tree
        found: list[Match] = []
        for file_query in self._queries:
            cursor = tree_sitter.QueryCursor(file_query.query)
            for pattern, captures in cursor.matches(root):
                spans = {
                    name: tuple((n.start_byte, n.end_byte, n.kind_id) for n in nodes)
                    for name, nodes in captures.items()
                    if not name.startswith("_")
                }
                found.append(Match(spans, file_query.texts[pattern]))
        return QueryMatches(tuple(found))

    def replacements(
        self, tree: tree_sitter.Tree | tree_sitter.Node, source: bytes | None = None
    ) -> list[Replacement]:
        """Every hint that matches in `tree` (or under the node) and makes its node shorter, or
        smaller where `source` is given (`QueryMatches.replacements`)."""
        return self.matches(tree).replacements(source)


# The captures a pattern may use besides @replace: each mark with the parts it requires.
Captures = Mapping[str, Sequence[str]]
_Marks = tuple[tuple[str, tuple[str, ...]], ...]  # a Captures as a hashable value
_CacheKey = tuple[str, tuple[Path, ...], _Marks | None]
_CACHE: dict[_CacheKey, Hints] = {}
_CACHE_LOCK = threading.Lock()


def load_hints(
    lang: str,
    language: tree_sitter.Language,
    extra_dirs: Sequence[Path] = (),
    captures: Captures | None = None,
) -> Hints:
    """The hints for `lang` from its bundled file and the extra directories, compiled against
    `language`. Compiled once per (lang, extra_dirs, captures) and then served from a cache.

    `captures` names the marks a pattern may use instead of `@replace`, each with the parts
    its patterns must also capture (`{"inline": ("inline.name", "inline.value")}`; the
    reducer passes its plug-ins', `captures.vocabulary()`); None accepts any pattern without
    `@replace` (for reading replacements alone). A language without any hint file gets empty
    hints. Raises QueryFileError (naming the file and line) when a file cannot be read, does
    not compile, or has a pattern that captures `@replace` but lacks `(#set! replacement
    "...")`, captures none of `@replace` and the `captures`, or lacks one of its mark's parts.
    """
    marks = None if captures is None else tuple((m, tuple(p)) for m, p in captures.items())
    key = (lang, tuple(Path(d) for d in extra_dirs), marks)
    with _CACHE_LOCK:
        cached = _CACHE.get(key)
    if cached is not None:
        return cached
    paths = tuple(query_files(lang, key[1]))
    hints = Hints(lang, paths, tuple(_compile(path, language, marks) for path in paths))
    with _CACHE_LOCK:
        # Two threads may compile at once; both results are equal, keep the first.
        return _CACHE.setdefault(key, hints)


def _compile(path: Path, language: tree_sitter.Language, marks: _Marks | None) -> _FileQuery:
    try:
        data = path.read_bytes()
        source = data.decode("utf-8")
    except OSError as e:
        raise QueryFileError(path, None, f"cannot read: {e.strerror or e}") from e
    except UnicodeDecodeError as e:
        raise QueryFileError(path, _line_at(data, e.start), "not valid UTF-8") from e
    tokens = _tokens(data)
    _check_directive_order(path, data, tokens)
    try:
        query = tree_sitter.Query(language, source)
    except ValueError as e:  # tree_sitter.QueryError is a ValueError
        raise QueryFileError(path, *_locate(str(e), data)) from e
    texts: list[bytes | None] = []
    for i in range(query.pattern_count):
        start, end = query.start_byte_for_pattern(i), query.end_byte_for_pattern(i)
        line = _line_at(data, start)
        names = {name for at, kind, name in tokens if kind == "@" and start <= at < end}
        if CAPTURE in names:
            text = query.pattern_settings(i).get(SETTING)
            if text is None:
                raise QueryFileError(path, line, f'pattern lacks (#set! {SETTING} "...")')
            texts.append(text.encode("utf-8"))
            continue
        texts.append(None)
        if marks is not None:
            _check_marks(path, line, names, marks)
    return _FileQuery(path, query, tuple(texts))


def _check_marks(path: Path, line: int, names: set[str], marks: _Marks) -> None:
    """Refuse a pattern without `@replace` that captures none of `marks`, or lacks one of the
    parts of a mark it captures. Raises QueryFileError."""
    used = [(mark, parts) for mark, parts in marks if mark in names]
    if not used:
        known = ", ".join(f"@{mark}" for mark, _ in marks)
        nor = f" (nor as {known})" if known else ""
        raise QueryFileError(path, line, f"pattern does not capture a node as @{CAPTURE}{nor}")
    for mark, parts in used:
        missing = [f"@{n}" for n in parts if n not in names]
        if missing:
            raise QueryFileError(path, line, f"an @{mark} pattern lacks {', '.join(missing)}")


_ROW = re.compile(r" at row (\d+)(?:, column (\d+))?")


def _locate(message: str, data: bytes) -> tuple[int, str]:
    """The 1-based line and a row-free message for a tree-sitter query error."""
    match = _ROW.search(message)
    if match is None:
        # "Unexpected EOF" and the like: the problem shows at the end of the file.
        return data.count(b"\n") + (0 if data.endswith(b"\n") else 1), message
    column = f" (column {int(match.group(2)) + 1})" if match.group(2) else ""
    return int(match.group(1)) + 1, message[: match.start()] + column + message[match.end() :]


def _line_at(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


# Token: (byte offset, "@" for a capture or "#" for a predicate, name).
_Token = tuple[int, str, str]
_NAME = re.compile(rb"[A-Za-z0-9_.?!\-]*")
# Directives that py-tree-sitter 0.26 mishandles after a text predicate in the same pattern: the
# query's construction corrupts the heap and the process crashes later, far from the cause.
_CORRUPTING_AFTER_TEXT_PREDICATE = frozenset({"set!", "is?", "is-not?"})


def _tokens(data: bytes) -> list[_Token]:
    """Captures and predicate names of a query source, skipping comments and strings; a `(`
    that opens a new top-level form is reported as `(` so callers can tell patterns apart."""
    tokens: list[_Token] = []
    depth = 0
    i = 0
    n = len(data)
    while i < n:
        c = data[i : i + 1]
        if c == b";":
            newline = data.find(b"\n", i)
            i = n if newline < 0 else newline
            continue
        if c == b'"':
            i += 1
            while i < n and data[i : i + 1] != b'"':
                i += 2 if data[i : i + 1] == b"\\" else 1
        elif c in (b"(", b"["):
            if depth == 0:
                tokens.append((i, "(", ""))
            depth += 1
        elif c in (b")", b"]"):
            depth = max(0, depth - 1)
        elif c in (b"@", b"#"):
            match = _NAME.match(data, i + 1)
            assert match is not None  # the pattern also matches the empty name
            tokens.append((i, c.decode(), match.group().decode()))
            i = match.end()
            continue
        i += 1
    return tokens


def _check_directive_order(path: Path, data: bytes, tokens: list[_Token]) -> None:
    """Refuse `#set!`/`#is?` after a text predicate (`#eq?`, `#match?` ...) in one pattern.

    Raises QueryFileError; putting the directive first gives the same query without the crash.
    """
    seen_text_predicate = False
    for at, kind, name in tokens:
        if kind == "(":
            seen_text_predicate = False
        elif kind == "#" and name in _CORRUPTING_AFTER_TEXT_PREDICATE:
            if seen_text_predicate:
                raise QueryFileError(
                    path,
                    _line_at(data, at),
                    f"put (#{name} ...) before predicates such as #eq? and #match? in the pattern"
                    " (py-tree-sitter crashes on this order)",
                )
        elif kind == "#" and name.endswith("?"):
            seen_text_predicate = True
