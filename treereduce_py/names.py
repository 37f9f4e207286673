"""Names: renaming each to the shortest unused one, merging one into another, and inlining a
variable used once.

All three change every occurrence of a name in one candidate, so references stay consistent
(a rename, a merge) or disappear (an inlining); which leaves are occurrences is decided by the
table alone (leaves whose kind contains `identifier`, compared by text), not by scope analysis.
Where that is wrong, the candidate fails its test, as any other guess would.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from treereduce_py.edits import Edits
from treereduce_py.syntax import NodeTable
from treereduce_py.tasks import Inline, Rename, Substitute, Task


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
    where: dict[bytes, list[int]] = {}  # name -> start bytes of its identifier leaves, sorted
    for i in range(len(table)):
        if table.first_child[i] == -1 and "identifier" in table.kind_name(i):
            text = table.text(i)
            if text in wanted:
                where.setdefault(text, []).append(i)
    out: dict[int, Inline] = {}
    for decl, (name, value) in single.items():
        scope = table.parent[decl]
        lo, hi = table.start[scope], table.end[scope]
        inside = [u for u in where[table.text(name)] if lo <= table.start[u] < hi and u != name]
        if len(inside) == 1 and table.start[inside[0]] >= table.end[decl]:
            kind = table.kind_name(value)
            plain = table.first_child[value] == -1 or any(
                word in kind for word in ("call", "parenthesized", "string", "literal")
            )
            out[decl] = Inline(decl, inside[0], value, parens=not plain)
    return out


@dataclass
class RenamePlanner:
    """Rename each name to the shortest unused one (C-Reduce's renaming pass), one task per
    name: every occurrence at once, so references stay consistent. The most-used names get the
    shortest new names. A new name never appears anywhere in the text (not even in a string or
    a comment), so a rename cannot collide with, or capture, an existing name; the test
    decides whether the program still means the same to the tool."""

    table: NodeTable

    def initial(self) -> Iterable[Task]:
        t = self.table
        groups: dict[bytes, list[int]] = {}
        for i in range(len(t)):
            if t.named[i] and t.first_child[i] == -1 and "identifier" in t.kind_name(i):
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

    def speculate(self, task: Task) -> Iterable[Task]:
        return ()


@dataclass
class MergePlanner:
    """Merge a name into another one (Shrink Ray reaches `a(){a<a;}` this way): the
    declaration of `x` goes, and every other occurrence of `x` becomes `y`, one candidate per
    name. `y` is the most used name of the same leaf kind whose first occurrence comes before
    `x`'s, so it is usually in scope where `x` was used. The declaration is the nearest
    `*declaration`/`*definition` above `x`'s first occurrence; a name with no occurrence outside
    it is left to deletion. The test decides whether `y` can stand for `x`."""

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
            if t.kind_name(p).endswith(("declaration", "definition")):
                return p
            p = t.parent[p]
        return None

    def after(self, task: Task, accepted: bool, edits: Edits) -> Iterable[Task]:
        return ()

    def speculate(self, task: Task) -> Iterable[Task]:
        return ()


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
