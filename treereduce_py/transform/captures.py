"""Query captures as plug-ins: what a capture in the query files lets the tree planner try.

A query file marks nodes with captures (hints.py): `@replace` with a shorter fragment, `@trim`
(a literal shortened inside), `@drop`,
`@inline`, `@define`, `@call`, `@hoist`, `@global`. What a capture means lives in one `Capture`
registered here: its name and the parts its patterns must also capture (so that a broken file
is refused with its line), what it extracts from the matches of one parse (node -> the tasks it
makes there), and where the planner offers those tasks: among a node's alternatives, tried when
deleting the node failed, or with the exploration of the node's children. The queries run once
per tree; SyntaxFacts (facts.py) hands each registered capture the same matches, and the tree
planner asks the captures in the order they were registered. Adding a capture is one
`register` call and a pattern in a query file (docs/queries.md, "Adding a capture").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from treereduce_py.edit.tasks import Drop, Hoist, Replace, Substitute, Task
from treereduce_py.lang.hints import CAPTURE, QueryMatches, Span
from treereduce_py.lang.syntax import NodeTable
from treereduce_py.transform.calls import redirect_tasks
from treereduce_py.transform.hoists import Kinds, chi, to_root
from treereduce_py.transform.names import inline_tasks, purge_tasks
from treereduce_py.transform.tokens import trims

# The stage option that switches a capture's offers off (Stage.hoist, Stage.replace).
Switch = Literal["hoist", "replace"]
# What a capture extracted from one parse: node -> the tasks it makes there.
Found = Mapping[int, tuple[Task, ...]]


class Offer(Protocol):
    """What one plug-in offers the tree planner in one parse (a capture's `Captured`, or a
    language's rules): alternatives of a node whose deletion failed, tasks that go with
    exploring a node's children, and tasks to try first."""

    def alternatives(self, node: int) -> Sequence[Task]: ...

    def exploring(self, node: int) -> Sequence[Task]: ...

    def initial(self) -> Sequence[Task]: ...


@dataclass(frozen=True)
class Parse:
    """What a capture reads: one parse's table and query matches, the first node of each
    captured span (and the first named one), the grammar's kinds, and the text of the smallest
    named node of each kind."""

    table: NodeTable
    kinds: Kinds = field(default_factory=Kinds)
    matches: QueryMatches = field(default_factory=QueryMatches)
    first: Mapping[Span, int] = field(default_factory=dict)
    first_named: Mapping[Span, int] = field(default_factory=dict)
    smallest_of_kind: Mapping[str, bytes] = field(default_factory=dict)
    # What `nodes` answered, by names: two captures reading the same parts (@define's, which
    # @call reads too) read them once.
    _read: dict[tuple[str, ...], list[tuple[int, ...]]] = field(
        default_factory=dict, compare=False, repr=False
    )

    @classmethod
    def read(
        cls, table: NodeTable, kinds: Kinds, matches: QueryMatches, *, smallest: bool = True
    ) -> Parse:
        """One sweep over the nodes, comparing sizes before any text is sliced: a 10 MB input
        has millions of nodes, and slicing each one's text would copy its depth times the
        input. Without `smallest`, no smallest node of a kind is gathered."""
        spans = matches.spans()
        first: dict[Span, int] = {}
        first_named: dict[Span, int] = {}
        smallest_at: dict[int, tuple[int, int]] = {}  # kind id -> (size, node)
        starts, ends, kind_ids, named = table.start, table.end, table.kind, table.named
        for i in range(len(table)):
            k = kind_ids[i]
            if spans and (key := (starts[i], ends[i], k)) in spans:
                first.setdefault(key, i)
                if named[i]:
                    first_named.setdefault(key, i)
            if not smallest or not named[i]:
                continue
            size = ends[i] - starts[i]
            best = smallest_at.get(k)
            if best is None or size < best[0]:
                smallest_at[k] = (size, i)
        by_name: dict[str, tuple[int, int]] = {}  # several kind ids can share a name
        for size, i in sorted(smallest_at.values()):
            by_name.setdefault(table.kind_name(i), (size, i))
        texts = {name: table.text(i) for name, (_, i) in by_name.items()}
        return cls(table, kinds, matches, first, first_named, texts)

    def node(self, span: Span) -> int:
        """The first node (in pre-order: the outermost) with `span`; -1 if none."""
        return self.first.get(span, -1)

    def named_node(self, span: Span) -> int:
        """The first named node with `span`; -1 if none."""
        return self.first_named.get(span, -1)

    def nodes(self, *names: str) -> list[tuple[int, ...]]:
        """For each match holding exactly one node for each of `names`, those nodes in that
        order, sorted by their spans, without duplicates; a match with a span the table lacks
        (a coarse table's) is left out."""
        if names not in self._read:
            groups = ([self.node(s) for s in group] for group in self.matches.groups(names))
            self._read[names] = [tuple(nodes) for nodes in groups if -1 not in nodes]
        return list(self._read[names])


@dataclass(frozen=True)
class Capture:
    """A query capture as a plug-in of the tree planner.

    `name` is the capture that marks its patterns (`@inline`) and `parts` the other captures
    they must hold (`@inline.name`, `@inline.value`). `extract` reads one parse's matches into
    the tasks of each node; the planner offers a node its tasks among its alternatives, or with
    the exploration of its children when `explores` (as `@drop` does with the parts of the
    explored node). `offer`, when given, computes a node's alternatives from the capture's
    tasks instead (adding what needs no query). `switch` is the stage option that turns the
    capture off.
    """

    name: str
    extract: Callable[[Parse], Found]
    parts: tuple[str, ...] = ()
    offer: Callable[[Captured, int], Sequence[Task]] | None = None
    explores: bool = False
    switch: Switch = "replace"

    def run(self, parse: Parse) -> Captured:
        return Captured(self, parse, self.extract(parse))


@dataclass(frozen=True)
class Captured:
    """One capture over one parse: what it extracted, offered to the planner."""

    capture: Capture
    parse: Parse
    found: Found

    def alternatives(self, node: int) -> Sequence[Task]:
        if self.capture.explores:
            return ()
        if self.capture.offer is not None:
            return self.capture.offer(self, node)
        return self.found.get(node, ())

    def exploring(self, node: int) -> Sequence[Task]:
        return self.found.get(node, ()) if self.capture.explores else ()

    def initial(self) -> Sequence[Task]:
        return ()


# The registered captures, in the order the planner asks them (and offers their alternatives).
CAPTURES: dict[str, Capture] = {}


def register(capture: Capture) -> Capture:
    """Add `capture` after the registered ones, or in the place of one of the same name."""
    CAPTURES[capture.name] = capture
    return capture


def vocabulary() -> dict[str, tuple[str, ...]]:
    """Each registered capture's mark with its parts, for `load_hints` to check the files."""
    return {name: c.parts for name, c in CAPTURES.items() if name != CAPTURE}


# -- the bundled captures, in the order their alternatives are offered ---------------------------


def _replacements(parse: Parse) -> Found:
    """@replace: each hint's text, at the outermost named node of its span; one as long as the
    node's text only where it is smaller byte by byte (edit/order.py: `6` may become `1`, `1`
    may become `0`, `()` does not become `()`). A hint on an anonymous token (an operator:
    `==` -> `<`) replaces the token alone, offered among its nearest named ancestor's
    alternatives (the planner offers named nodes only), so the operands stay free to shrink."""
    table = parse.table
    found: dict[int, list[Task]] = {}
    for r in parse.matches.replacements(table.source):
        span = (r.start, r.end, r.kind_id)
        node = parse.named_node(span)
        if node != -1:
            found.setdefault(node, []).append(Replace(node, r.text))
        elif (token := parse.node(span)) != -1:
            owner = table.parent[token]  # a token is never the root
            while owner > 0 and not table.named[owner]:
                owner = table.parent[owner]
            found.setdefault(owner, []).append(Substitute(((token, r.text),)))
    return {node: tuple(tasks) for node, tasks in found.items()}


def _with_smallest(captured: Captured, node: int) -> Sequence[Task]:
    """The query files' replacements, then the smallest node of the same kind in the file."""
    table = captured.parse.table
    kind = table.kind_name(node)
    small = captured.parse.smallest_of_kind.get(kind)
    # Renaming one occurrence of a name almost never keeps a program meaningful; the rename
    # stage renames all occurrences together instead.
    if small is not None and len(small) < table.size(node) and "identifier" not in kind:
        return (*captured.found.get(node, ()), Replace(node, small))
    return captured.found.get(node, ())


def _trims(parse: Parse) -> Found:
    """@trim: a string or number literal shortened inside (tokens.trims)."""
    found: dict[int, tuple[Task, ...]] = {}
    for (node,) in parse.nodes("trim"):
        if tasks := tuple(Replace(node, text) for text in trims(parse.table, node)):
            found[node] = tasks
    return found


def _hoist_targets(parse: Parse) -> Found:
    """@hoist: the descendants (@hoist.target) a node may become, smaller than it."""
    table = parse.table
    found: dict[int, list[Task]] = {}
    for node, target in parse.nodes("hoist", "hoist.target"):
        if table.size(target) < table.size(node):
            found.setdefault(node, []).append(Hoist(node, target))
    return {node: tuple(tasks) for node, tasks in found.items()}


def _after_chi(captured: Captured, node: int) -> Sequence[Task]:
    """The grammar's hoists (chi), then those the query files add, then the node in place of
    the whole document (hoists.to_root)."""
    parse = captured.parse
    grammar = [Hoist(node, d) for d in chi(parse.table, parse.kinds, node)]
    root = [Hoist(0, node)] if to_root(parse.table, node) else []
    return grammar + [t for t in captured.found.get(node, ()) if t not in grammar] + root


def _drops(parse: Parse) -> Found:
    """@drop: the nodes of one match, deleted together, offered when their parent is
    explored; only from patterns that set no replacement."""
    groups = {
        tuple(sorted(m.captures["drop"]))
        for m in parse.matches.matches
        if m.replacement is None and m.captures.get("drop")
    }
    found: dict[int, list[Task]] = {}
    for group in sorted(groups):
        nodes = tuple(parse.node(span) for span in group)
        if -1 not in nodes:
            found.setdefault(parse.table.parent[nodes[0]], []).append(Drop(nodes))
    return {parent: tuple(tasks) for parent, tasks in found.items()}


def _inlines(parse: Parse) -> Found:
    """@inline: a declaration whose name is used once, inlined there (names.inline_tasks)."""
    tasks = inline_tasks(parse.table, parse.nodes("inline", "inline.name", "inline.value"))
    return {decl: (task,) for decl, task in tasks.items()}


def _definitions(parse: Parse) -> list[tuple[int, int]]:
    return [(d, n) for d, n in parse.nodes("define", "define.name")]


def _purges(parse: Parse) -> Found:
    """@define: a definition deleted with the statements that use it (names.purge_tasks)."""
    return {d: (task,) for d, task in purge_tasks(parse.table, _definitions(parse)).items()}


def _redirects(parse: Parse) -> Found:
    """@call: a call pointed at another function (calls.redirect_tasks), among the functions
    the @define captures name."""
    calls = [(c, f, a) for c, f, a in parse.nodes("call", "call.callee", "call.arguments")]
    return redirect_tasks(parse.table, calls, _definitions(parse))


def _globals(parse: Parse) -> Found:
    """@global: a top-level item (a C function) replaced by one file-scope declaration that
    keeps only a value inside it (@global.value): `name=value;`, the name the value's first
    identifier, which the declaration then defines (`b(){b==b;}` becomes `b=b==b;`), or `a`."""
    table = parse.table
    found: dict[int, list[Task]] = {}
    for item, value in parse.nodes("global", "global.value"):
        name = _first_identifier(table, value) or b"a"
        text = name + b"=" + table.text(value) + b";"
        if len(text) < table.size(item):
            found.setdefault(item, []).append(Replace(item, text))
    return {item: tuple(tasks) for item, tasks in found.items()}


def _first_identifier(table: NodeTable, node: int) -> bytes | None:
    """The text of the first node named `identifier` in `node`'s subtree (pre-order)."""
    stack = [node]
    while stack:
        i = stack.pop()
        if table.kind_name(i) == "identifier":
            return table.text(i)
        stack.extend(reversed(list(table.children(i))))
    return None


register(Capture(CAPTURE, _replacements, offer=_with_smallest))
register(Capture("trim", _trims))
register(Capture("hoist", _hoist_targets, ("hoist.target",), _after_chi, switch="hoist"))
register(Capture("drop", _drops, explores=True))
register(Capture("inline", _inlines, ("inline.name", "inline.value")))
register(Capture("define", _purges, ("define.name",)))
register(Capture("call", _redirects, ("call.callee", "call.arguments")))
register(Capture("global", _globals, ("global.value",)))
