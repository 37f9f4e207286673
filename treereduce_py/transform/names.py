"""Names: renaming each to the shortest unused one, merging one into another, inlining a
variable used once, and deleting a definition with the statements that use it.

All four change every occurrence of a name in one candidate, so references stay consistent
(a rename, a merge) or disappear (an inlining, a purge); which leaves are occurrences is decided
by the table alone (leaves whose kind contains `identifier`, compared by text), not by scope
analysis. Where that is wrong, the candidate fails its test, as any other guess would.
"""

from __future__ import annotations

import bisect
import collections
import itertools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from treereduce_py.edit.edits import Edits
from treereduce_py.edit.tasks import Inline, NoSpeculation, Purge, Rename, Substitute, Task
from treereduce_py.lang.syntax import NodeTable


def identifier_leaves(table: NodeTable, texts: set[bytes]) -> dict[bytes, list[int]]:
    """Name -> its identifier leaves (pre-order, so in text order), for the names in `texts`."""
    found: dict[bytes, list[int]] = {}
    for i in range(len(table)):
        if table.first_child[i] == -1 and "identifier" in table.kind_name(i):
            text = table.text(i)
            if text in texts:
                found.setdefault(text, []).append(i)
    return found


def inline_tasks(table: NodeTable, matches: Sequence[tuple[int, ...]]) -> dict[int, Inline]:
    """Declaration -> its inlining, for each (declaration, name, value) whose name occurs
    exactly once more in the declaration's parent (its block, its module), after it. Every
    identifier leaf of that text there counts, whatever its scope, so a name used twice in the
    block is left alone; outside the block the same text may be another variable (after
    renaming, most are `a`, `b` ...). A declaration matched more than once
    (`int a = 1, b = 2;`) is left alone too."""
    per_decl: dict[int, list[tuple[int, int]]] = {}
    for decl, name, value in (m for m in matches if len(m) == 3 and -1 not in m):
        per_decl.setdefault(decl, []).append((name, value))
    single = {d: pairs[0] for d, pairs in per_decl.items() if len(pairs) == 1}
    wanted = {table.text(name) for name, _ in single.values()}
    if not wanted:
        return {}
    where = identifier_leaves(table, wanted)
    # Leaves come in pre-order, so by start: a scope's uses are a bisected slice (a name declared
    # in thousands of scopes made a scan of all its uses per declaration quadratic).
    starts = {text: [table.start[u] for u in uses] for text, uses in where.items()}
    out: dict[int, Inline] = {}
    for decl, (name, value) in single.items():
        scope = table.parent[decl]
        lo, hi = table.start[scope], table.end[scope]
        text = table.text(name)
        first, last = bisect.bisect_left(starts[text], lo), bisect.bisect_left(starts[text], hi)
        inside = [u for u in where[text][first:last] if u != name]
        if len(inside) == 1 and table.start[inside[0]] >= table.end[decl]:
            kind = table.kind_name(value)
            plain = table.first_child[value] == -1 or any(
                word in kind for word in ("call", "parenthesized", "string", "literal")
            )
            out[decl] = Inline(decl, inside[0], value, parens=not plain)
    return out


def purge_tasks(table: NodeTable, matches: Sequence[tuple[int, int]]) -> dict[int, Purge]:
    """Definition -> deleting it with every statement that uses its name, for each (definition,
    name) a query file captures (`@define`, `@define.name`).

    A use is an identifier leaf with the name's text outside the definition; what goes with it
    is its unit: the nearest enclosing statement, declaration, definition or item, or a nearer
    element of a separated list (`[a, b, c]`, `f(x, a)`). What goes cascades: the uses of a
    name defined inside anything that goes (`value = helper()` defines `value`; a class
    defines its methods) go too, since they could not stand without it. A name with no use
    needs no purge (a plain deletion does it); a name defined twice (an overloaded or
    overriding method), or with a use that no unit encloses, or whose unit holds the
    definition, gets none."""
    single = _defined_once(table, matches)
    if not single:
        return {}
    leaves = identifier_leaves(table, {text for text, _ in single})
    scopes: dict[bytes, list[int]] = {}  # name -> the blocks that define it locally
    for text, scope in single:
        if scope != -1:
            scopes.setdefault(text, []).append(scope)
    units: dict[int, list[int] | None] = {}  # definition -> the units of its uses

    def inside(text: bytes, scope: int) -> list[int]:
        found = leaves[text]  # in pre-order, so a subtree's leaves are one slice
        lo = bisect.bisect_left(found, scope)
        return found[lo : bisect.bisect_right(found, table.last[scope], lo)]

    for (text, scope), definition in single.items():
        if scope == -1:  # every occurrence but those a block's own definition shadows
            shadowed = {u for s in scopes.get(text, ()) for u in inside(text, s)}
            occurrences = [u for u in leaves[text] if u not in shadowed]
        else:
            occurrences = inside(text, scope)
        found = [_unit(table, u) for u in occurrences if not table.contains(definition, u)]
        whole = all(u is not None and not table.contains(u, definition) for u in found)
        units[definition] = [u for u in found if u is not None] if whole else None
    starts = sorted(units)  # definitions in pre-order: those inside a node follow it
    out: dict[int, Purge] = {}
    for definition, direct in units.items():
        if direct and len(direct) <= MAX_PURGE:
            gone = _cascade(table, definition, units, starts)
            if gone is not None:
                out[definition] = Purge(definition, tuple(g for g in gone if g != definition))
    return out


# A purge takes at most this many statements along: the definition a few lines register or
# call (C-Reduce's and Shrink Ray's users know the shape); one that most of the program uses
# would fail its test, and each costs one.
MAX_PURGE = 16


def _defined_once(
    table: NodeTable, matches: Sequence[tuple[int, int]]
) -> dict[tuple[bytes, int], int]:
    """(name, scope) -> its one definition there; the scope is the block a local variable is
    declared in, -1 for everything else (functions, classes, globals, fields). A definition
    matched with two names (`int a = 1, b = 2;`) counts for neither; a name matched by nested
    definitions (a decorated function, with and without its decorator) counts for the
    outermost; a name defined twice in one scope, for none."""
    found = {m for m in matches if -1 not in m}
    names_of = collections.Counter(d for d, _ in found)
    defined: dict[tuple[bytes, int], list[int]] = {}
    for definition, name in found:
        if names_of[definition] == 1:
            key = (table.text(name), _scope(table, definition))
            defined.setdefault(key, []).append(definition)
    single: dict[tuple[bytes, int], int] = {}
    for key, defs in defined.items():
        first, *rest = sorted(defs)  # pre-order: an enclosing definition comes first
        if all(table.contains(first, d) for d in rest):
            single[key] = first
    return single


def _scope(table: NodeTable, definition: int) -> int:
    """The block a variable is local to, or -1: a definition directly in a block (a function's
    body, not a class's) that is not itself a function, class or type."""
    p = table.parent[definition]
    kind = table.kind_name(definition)
    local = p > 0 and ("block" in table.kind_name(p) or table.kind_name(p) == "compound_statement")
    if not local or any(w in kind for w in _GLOBAL_WORDS):
        return -1
    return p


_GLOBAL_WORDS = ("function", "method", "class", "struct", "interface", "enum", "type", "decorated")


def _cascade(
    table: NodeTable, definition: int, units: dict[int, list[int] | None], starts: list[int]
) -> list[int] | None:
    """The outermost nodes that go with `definition`: it, the units of its uses, and in turn
    the units of the uses of every definition inside what goes; None past MAX_PURGE units."""
    gone = {definition}
    todo = [definition]
    while todo:
        region = todo.pop()
        lo = bisect.bisect_left(starts, region)
        hi = bisect.bisect_right(starts, table.last[region])
        for inner in starts[lo:hi]:
            for unit in units[inner] or ():
                if unit not in gone and not table.contains(unit, definition):
                    gone.add(unit)
                    todo.append(unit)
        if len(gone) > MAX_PURGE + 1:
            return None
    kept: list[int] = []
    for node in sorted(gone):  # pre-order: a node inside another comes after it
        if not kept or not table.contains(kept[-1], node):
            kept.append(node)
    return kept


_UNIT_SUFFIXES = ("statement", "declaration", "definition", "item")


def _unit(table: NodeTable, node: int) -> int | None:
    """What goes with a use: its nearest enclosing statement-like node, or a nearer element of
    a comma-separated list (one with a comma of its own to go with it), or the child of a block
    or of the root it lies in; None for the root itself. A statement that is the body of
    another (`for (...) total += x;`, not in a block) takes that one along: the other cannot
    stand without a body."""
    i = node
    while True:
        p = table.parent[i]
        if p < 0:
            return None
        sep = table.separator_for(i) if table.named[i] else None
        if sep is not None and table.text(sep) == b",":  # `;` ends statements, or `for (;;)`'s
            return i
        if p == 0 or _block(table.kind_name(p)):
            unit = i  # a statement of a block, whatever its kind (Python's calls)
            break
        if table.kind_name(p).endswith(_UNIT_SUFFIXES):
            unit = p
            break
        i = p
    while (up := table.parent[unit]) > 0 and _bodiless(table.kind_name(up)):
        unit = up
    return unit


def _block(kind: str) -> bool:
    """A node whose children are statements or items: a block, a body, a declaration list."""
    return any(w in kind for w in ("block", "body", "compound_statement", "declaration_list"))


def _bodiless(kind: str) -> bool:
    """A statement whose direct child statement is its body (`if`, `for`, `while`), not a block."""
    return kind.endswith("statement") and not any(w in kind for w in ("block", "compound"))


@dataclass
class RenamePlanner(NoSpeculation):
    """Rename each name to the shortest unused one (C-Reduce's renaming pass), one task per
    name: every occurrence at once, so references stay consistent. The most-used names get the
    shortest new names. A new name never appears anywhere in the text (not even in a string or
    a comment), so a rename cannot collide with, or capture, an existing name; the test
    decides whether the program still means the same to the tool. `declared` adds names whose
    leaves are of another kind (SMT-LIB's declared symbols, among its operators' symbols)."""

    table: NodeTable
    declared: frozenset[bytes] = frozenset()

    def initial(self) -> Iterable[Task]:
        t = self.table
        groups: dict[bytes, list[int]] = {}
        for i in range(len(t)):
            if not (t.named[i] and t.first_child[i] == -1):
                continue
            if "identifier" in t.kind_name(i) or (self.declared and t.text(i) in self.declared):
                text = t.text(i)
                if _NAME.fullmatch(text):
                    groups.setdefault(text, []).append(i)
        taken = set(_NAME.findall(t.source))
        fresh: Iterator[bytes] = (
            name for name in _short_names() if name not in taken and name not in _RESERVED
        )
        order = sorted(groups.items(), key=lambda kv: (-len(kv[1]), -len(kv[0]), kv[0]))
        tasks: list[Task] = []
        for old, nodes in order:
            new = next(fresh)
            if len(new) < len(old):
                tasks.append(Rename(tuple(nodes), new))
            else:
                fresh = itertools.chain([new], fresh)  # a later, longer name may take it
        return tasks

    def after(self, task: Task, accepted: bool, edits: Edits) -> Iterable[Task]:
        return ()


@dataclass
class MergePlanner(NoSpeculation):
    """Merge a name into another one (Shrink Ray reaches `a(){a<a;}` this way): the
    declaration of `x` goes, and every other occurrence of `x` becomes `y`, one candidate per
    name. `y` is the most used name of the same leaf kind whose first occurrence comes before
    `x`'s, so it is usually in scope where `x` was used. The declaration is the nearest
    `*declaration`/`*definition` above `x`'s first occurrence; a name with no occurrence outside
    it is left to deletion (Rust's `*_item`s count as declarations: two unit structs that
    only stand as type arguments become one). The test decides whether `y` can stand for `x`."""

    table: NodeTable

    def initial(self) -> Iterable[Task]:
        t = self.table
        groups: dict[tuple[bytes, str], list[int]] = {}
        for i in range(len(t)):
            if t.named[i] and t.first_child[i] == -1 and "identifier" in t.kind_name(i):
                groups.setdefault((t.text(i), t.kind_name(i)), []).append(i)
        # Per leaf kind, in order of first occurrence: the most used name seen before each.
        target: dict[tuple[bytes, str], bytes] = {}
        best: dict[str, tuple[int, bytes]] = {}
        for (name, kind), nodes in sorted(groups.items(), key=lambda g: g[1][0]):
            if kind in best:
                target[(name, kind)] = best[kind][1]
            if kind not in best or len(nodes) > best[kind][0]:
                best[kind] = (len(nodes), name)
        tasks: list[Task] = []
        for key, nodes in groups.items():
            decl = self._declaration(nodes[0])
            if decl is None or key not in target:
                continue
            outside = [n for n in nodes if not t.start[decl] <= t.start[n] < t.end[decl]]
            if outside:
                tasks.append(Substitute(((decl, b""), *((n, target[key]) for n in outside))))
        return tasks

    def _declaration(self, node: int) -> int | None:
        t = self.table
        p = t.parent[node]
        while p > 0:
            if t.kind_name(p).endswith(_DECLARATION_KINDS):
                return p
            p = t.parent[p]
        return None

    def after(self, task: Task, accepted: bool, edits: Edits) -> Iterable[Task]:
        return ()


# What declares a name: most grammars say `*declaration`/`*definition`; Rust says `*_item`
# (`struct_item`, `function_item`, `trait_item` ...).
_DECLARATION_KINDS = ("declaration", "definition", "_item")

_NAME = re.compile(rb"[A-Za-z_$][A-Za-z0-9_$]*")
# Short words that are keywords in common languages: never offered as new names.
_RESERVED = frozenset(
    b"as do fn go if in is of or and def del end for fun let mod mut new not pub ref try use "
    b"var".split()
)


def _short_names() -> Iterable[bytes]:
    letters = [bytes([c]) for c in range(ord("a"), ord("z") + 1)]
    yield from letters
    for length in itertools.count(2):
        for combo in itertools.product(letters, repeat=length):
            yield b"".join(combo)
