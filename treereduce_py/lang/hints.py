"""Replacement hints: the small fragments a node of a given kind may become.

Deleting nodes cannot shrink everything: a function body must stay a body, a call's arguments
must stay an argument list. What such a node can become instead is knowledge about one language
(`{}` for a C block, `pass` for a Python block, `0` for a number, `""` for a string), so it lives
in plain tree-sitter query files that users can read and extend, not in code. Each pattern
captures one node as `@replace` and names its replacement with tree-sitter's own `#set!`
directive:

    ((compound_statement) @replace (#set! replacement "{}"))

A pattern may instead capture one or more nodes as `@drop`: an optional part and its
punctuation, deleted together (`: int`, `-> str`, `= 5`, a `pub`):

    (function_definition "->" @drop return_type: (_) @drop)

A pattern may also capture a declaration as `@inline`, the name it declares as `@inline.name`
and its value as `@inline.value`: where the name is used exactly once elsewhere, the
declaration may go and the use become the value (a variable used once, inlined):

    (let_declaration pattern: (identifier) @inline.name value: (_) @inline.value) @inline

And a pattern may capture a definition as `@define` and the name it defines as `@define.name`:
the definition may go together with the statements that use the name (a class with the line
that registers it, a function with its calls):

    (class_declaration name: (identifier) @define.name) @define

And a pattern may capture a call as `@call`, with what it calls as `@call.callee` and its
argument list as `@call.arguments`: a call may be pointed at another function, one its callee
calls or one the file uses as a value (calls.py):

    (call_expression function: (_) @call.callee arguments: (argument_list) @call.arguments) @call

And a pattern may capture a node as `@hoist` and a descendant it may become as
`@hoist.target`, where the grammar gives the two no common supertype (a generic type and its
type argument: `f::s<i, a>` -> `i`):

    (template_type arguments: (template_argument_list (type_descriptor) @hoist.target)) @hoist

The bundled files are `queries/<lang>/replacements.scm` (installed as the package
`treereduce_py.queries`); `--queries DIR` adds every `DIR/<lang>/*.scm`. A hint is offered only
where it makes the node's text strictly shorter, so applying hints always makes progress.
"""

from __future__ import annotations

import importlib.resources
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import tree_sitter

__all__ = [
    "CALL",
    "CALL_PARTS",
    "CAPTURE",
    "DEFINE",
    "DEFINE_PARTS",
    "DROP",
    "HOIST",
    "HOIST_PARTS",
    "INLINE",
    "INLINE_PARTS",
    "SETTING",
    "Hints",
    "QueryFileError",
    "Replacement",
    "load_hints",
    "query_files",
]

# The capture that marks the node to replace, and the `#set!` key that holds its replacement.
CAPTURE = "replace"
SETTING = "replacement"
# The capture that marks nodes deleted together (an optional part and its punctuation).
DROP = "drop"
# The captures of a declaration whose one use may become its value.
INLINE = "inline"
INLINE_PARTS = ("inline", "inline.name", "inline.value")
# The captures of a definition that may go with the statements that use its name.
DEFINE = "define"
DEFINE_PARTS = ("define", "define.name")
# The captures of a call that may be pointed at another function.
CALL = "call"
CALL_PARTS = ("call", "call.callee", "call.arguments")
# The captures of a node that may be replaced by a descendant the grammar does not relate to it.
HOIST = "hoist"
HOIST_PARTS = ("hoist", "hoist.target")

_BUNDLED_PACKAGE = "treereduce_py.queries"
_BUNDLED_NAME = "replacements.scm"


@dataclass(frozen=True)
class Replacement:
    """Replace the node spanning bytes `start:end` (grammar kind id `kind_id`) by `text`."""

    start: int
    end: int
    kind_id: int
    text: bytes


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

    def replacements(self, tree: tree_sitter.Tree | tree_sitter.Node) -> list[Replacement]:
        """Every hint that matches in `tree` (or under the node) and makes its node shorter.

        Sorted by start byte, then longer nodes first, then by kind and text; at most one entry
        per (node, text) even when several patterns or files offer the same text.
        """
        root = tree.root_node if isinstance(tree, tree_sitter.Tree) else tree
        found: set[Replacement] = set()
        for file_query in self._queries:
            cursor = tree_sitter.QueryCursor(file_query.query)
            for pattern, captures in cursor.matches(root):
                text = file_query.texts[pattern]
                if text is None:
                    continue
                for node in captures.get(CAPTURE, ()):
                    if len(text) < node.end_byte - node.start_byte:
                        found.add(Replacement(node.start_byte, node.end_byte, node.kind_id, text))
        return sorted(found, key=lambda r: (r.start, r.start - r.end, r.kind_id, r.text))

    def drops(self, tree: tree_sitter.Tree) -> list[tuple[tuple[int, int, int], ...]]:
        """For each match of a drop pattern, the (start, end, kind_id) of the nodes it drops
        together, sorted, without duplicates."""
        found: set[tuple[tuple[int, int, int], ...]] = set()
        for file_query in self._queries:
            cursor = tree_sitter.QueryCursor(file_query.query)
            for pattern, captures in cursor.matches(tree.root_node):
                nodes = captures.get(DROP, ())
                if file_query.texts[pattern] is None and nodes:
                    found.add(tuple(sorted((n.start_byte, n.end_byte, n.kind_id) for n in nodes)))
        return sorted(found)

    def inlines(self, tree: tree_sitter.Tree) -> list[tuple[tuple[int, int, int], ...]]:
        """For each match of an inline pattern, the (start, end, kind_id) of the declaration,
        its name and its value, in that order; sorted, without duplicates."""
        return self._parts(tree, INLINE_PARTS)

    def definitions(self, tree: tree_sitter.Tree) -> list[tuple[tuple[int, int, int], ...]]:
        """For each match of a define pattern, the (start, end, kind_id) of the definition and
        of the name it defines; sorted, without duplicates."""
        return self._parts(tree, DEFINE_PARTS)

    def calls(self, tree: tree_sitter.Tree) -> list[tuple[tuple[int, int, int], ...]]:
        """For each match of a call pattern, the (start, end, kind_id) of the call, its callee
        and its argument list; sorted, without duplicates."""
        return self._parts(tree, CALL_PARTS)

    def hoists(self, tree: tree_sitter.Tree) -> list[tuple[tuple[int, int, int], ...]]:
        """For each match of a hoist pattern, the (start, end, kind_id) of the node and of the
        descendant it may become; sorted, without duplicates."""
        return self._parts(tree, HOIST_PARTS)

    def _parts(
        self, tree: tree_sitter.Tree, names: tuple[str, ...]
    ) -> list[tuple[tuple[int, int, int], ...]]:
        found: set[tuple[tuple[int, int, int], ...]] = set()
        for file_query in self._queries:
            cursor = tree_sitter.QueryCursor(file_query.query)
            for _, captures in cursor.matches(tree.root_node):
                parts = [list(captures.get(name, [])) for name in names]
                if all(len(p) == 1 for p in parts):
                    found.add(tuple((p[0].start_byte, p[0].end_byte, p[0].kind_id) for p in parts))
        return sorted(found)


_CACHE: dict[tuple[str, tuple[Path, ...]], Hints] = {}
_CACHE_LOCK = threading.Lock()


def load_hints(lang: str, language: tree_sitter.Language, extra_dirs: Sequence[Path] = ()) -> Hints:
    """The hints for `lang` from its bundled file and the extra directories, compiled against
    `language`. Compiled once per (lang, extra_dirs) and then served from a cache.

    A language without any hint file gets empty hints. Raises QueryFileError (naming the file
    and line) when a file cannot be read, does not compile, or has a pattern that does not
    capture `@replace` (or `@drop`, or `@inline` with its name and value, or `@define` with
    its name, `@call` with its callee and arguments, or `@hoist` with its target) or lacks
    `(#set! replacement "...")`.
    """
    key = (lang, tuple(Path(d) for d in extra_dirs))
    with _CACHE_LOCK:
        cached = _CACHE.get(key)
    if cached is not None:
        return cached
    paths = tuple(query_files(lang, key[1]))
    hints = Hints(lang, paths, tuple(_compile(path, language) for path in paths))
    with _CACHE_LOCK:
        # Two threads may compile at once; both results are equal, keep the first.
        return _CACHE.setdefault(key, hints)


def _compile(path: Path, language: tree_sitter.Language) -> _FileQuery:
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
        if DROP in names and CAPTURE not in names:
            texts.append(None)
            continue
        marked = [
            (m, ps)
            for m, ps in (
                (INLINE, INLINE_PARTS),
                (DEFINE, DEFINE_PARTS),
                (CALL, CALL_PARTS),
                (HOIST, HOIST_PARTS),
            )
            if m in names
        ]
        if marked and CAPTURE not in names:
            for mark, parts in marked:
                missing = [f"@{n}" for n in parts if n not in names]
                if missing:
                    raise QueryFileError(
                        path, line, f"an @{mark} pattern lacks {', '.join(missing)}"
                    )
            texts.append(None)
            continue
        if CAPTURE not in names:
            raise QueryFileError(path, line, f"pattern does not capture a node as @{CAPTURE}")
        text = query.pattern_settings(i).get(SETTING)
        if text is None:
            raise QueryFileError(path, line, f'pattern lacks (#set! {SETTING} "...")')
        texts.append(text.encode("utf-8"))
    return _FileQuery(path, query, tuple(texts))


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
