"""Calls: point a call at another function, so that what stood between them can go.

A reducer that only deletes and replaces syntax keeps the chains a program calls through: a
function that only calls the next (`an(h, e)` -> `z(h, e, j)` -> `r(...)` -> `t(...)`), or a
table of function pointers filled by a constructor and called in a loop (`f[r](e)`), where the
interesting work is in one function at the end. C-Reduce collapses such chains with clang's
semantic rewrites; here one candidate per call and target, from the query files' captures of
calls (`@call`, `@call.callee`, `@call.arguments`) and of definitions (`@define`):

* **Skipping a level.** A call to a function defined once in the file, `z(h, e, j)`, is pointed
  at a function that `z` itself calls with as many arguments (`r(h, e, j)`), and `z`'s
  definition goes in the same candidate when this was its only use. Repeated, the chain
  collapses one level per success.
* **Resolving an indirect call.** A call through a table or a pointer (`f[r](e)`, `(*fp)(x)`)
  is pointed at a function the file uses as a value (passed, stored or registered: `i(k)`,
  `f[0] = k`) with as many parameters as the call has arguments. The table, the registration
  and the loop can then go by plain deletions. Calls of methods and library functions
  (`list.add(x)`, `printf(...)`) are left alone: guessing their targets would mostly waste tests.

Names are compared by text and arity by counting, with no scope or type analysis: a wrong guess
is a failed test. A candidate is made only when it makes the text shorter (a redirection alone
rarely does: with renamed names both are one letter), and at most MAX_TARGETS per call.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from treereduce_py.edit.tasks import Substitute
from treereduce_py.lang.syntax import NodeTable
from treereduce_py.transform.names import identifier_leaves

# Targets tried per call, nearest definition first: each is a test.
MAX_TARGETS = 4
# Callees that read a function out of something (`f[r]`, `(*fp)`): the indirect calls resolved.
_INDIRECT = ("subscript", "index", "pointer", "parenthesized")
# Nodes around a definition that go with it (`template <...>`, decorators).
_WRAPPERS = ("template", "decorated")


@dataclass(frozen=True)
class _Function:
    definition: int  # what goes when the function is no longer used (its template, decorators)
    node: int  # the definition itself (its calls are inside it)
    name: int  # the identifier leaf that names it
    arity: int


def redirect_tasks(
    table: NodeTable,
    calls: Sequence[tuple[int, int, int]],
    definitions: Sequence[tuple[int, int]],
) -> dict[int, tuple[Substitute, ...]]:
    """Call node -> its redirections, for the (call, callee, arguments) and (definition, name)
    node triples and pairs the query files capture (-1 where a capture found no node)."""
    functions = _functions(table, definitions)
    calls = [c for c in calls if -1 not in c]
    if not functions or not calls:
        return {}
    leaves = identifier_leaves(table, set(functions))
    callee_leaf = {call: _name_leaf(table, callee) for call, callee, _ in calls}
    called = {leaf for leaf in callee_leaf.values() if leaf != -1}
    named = {f.name for f in functions.values()}
    # Functions the file uses as values (passed, stored, registered): where an indirect call goes.
    values = [
        text
        for text, found in leaves.items()
        if any(u not in called and u not in named for u in found)
    ]
    inner = _Inner(table, functions, leaves, calls, callee_leaf)
    out: dict[int, tuple[Substitute, ...]] = {}
    for call, callee, arguments in calls:
        arity = _count(table, arguments)
        leaf = callee_leaf[call]
        text = table.text(leaf) if leaf != -1 else b""
        if text in functions:
            tasks = _skip_level(table, inner, functions[text], leaf, arity)
        elif any(word in table.kind_name(callee) for word in _INDIRECT):
            tasks = _resolve(table, functions, values, callee, arity)
        else:  # a method or a library function (`list.add(x)`, `printf(...)`): left alone
            continue
        if tasks:
            out[call] = tuple(tasks[:MAX_TARGETS])
    return out


class _Inner:
    """What each function's body calls and where else its name is used, worked out once a
    function rather than once a call to it (a file with thousands of calls made it quadratic)."""

    def __init__(
        self,
        table: NodeTable,
        functions: dict[bytes, _Function],
        leaves: dict[bytes, list[int]],
        calls: Sequence[tuple[int, int, int]],
        callee_leaf: dict[int, int],
    ) -> None:
        self.table, self.functions, self.leaves = table, functions, leaves
        self.calls, self.callee_leaf = calls, callee_leaf
        # In pre-order a body's calls are those numbered within its subtree's range.
        self.by_node = sorted((c[0], position) for position, c in enumerate(calls))
        self._targets: dict[tuple[int, int], list[bytes]] = {}
        self._uses: dict[int, list[int]] = {}

    def uses(self, f: _Function) -> list[int]:
        """The leaves naming `f` outside its own definition."""
        if f.node not in self._uses:
            name = self.table.text(f.name)
            self._uses[f.node] = [
                u for u in self.leaves[name] if u != f.name and not self.table.contains(f.node, u)
            ]
        return self._uses[f.node]

    def targets(self, f: _Function, arity: int) -> list[bytes]:
        """The functions other than `f` that `f`'s body calls with `arity` arguments, each once,
        in the order of the captured calls."""
        key = (f.node, arity)
        if key not in self._targets:
            lo = bisect.bisect_left(self.by_node, (f.node, -1))
            hi = bisect.bisect_right(self.by_node, (self.table.last[f.node], len(self.calls)))
            found: list[bytes] = []
            for position in sorted(p for _, p in self.by_node[lo:hi]):
                call, _, arguments = self.calls[position]
                inner = self.callee_leaf[call]
                if inner == -1:
                    continue
                target = self.table.text(inner)
                g = self.functions.get(target)
                if g is None or g is f or target in found:
                    continue
                if _count(self.table, arguments) == arity:
                    found.append(target)
            self._targets[key] = found
        return self._targets[key]


def _skip_level(
    table: NodeTable, inner: _Inner, f: _Function, leaf: int, arity: int
) -> list[Substitute]:
    """Point the call whose callee names `f` at what `f` calls, taking `f` along when this
    call was its only use."""
    if table.contains(f.node, leaf):  # a recursive call: nothing stands between
        return []
    drop: tuple[tuple[int, bytes], ...] = ((f.definition, b""),) if inner.uses(f) == [leaf] else ()
    out: list[Substitute] = []
    for target in inner.targets(f, arity):
        pairs = ((leaf, target), *drop)
        if sum(len(t) - table.size(n) for n, t in pairs) < 0:
            out.append(Substitute(pairs))
    return out


def _resolve(
    table: NodeTable,
    functions: dict[bytes, _Function],
    values: list[bytes],
    callee: int,
    arity: int,
) -> list[Substitute]:
    """Point an indirect call at each function the file uses as a value, with as many
    parameters as the call has arguments."""
    fits = [t for t in values if functions[t].arity == arity and len(t) < table.size(callee)]
    fits.sort(key=lambda t: abs(functions[t].node - callee))
    return [Substitute(((callee, t),)) for t in fits]


def _functions(table: NodeTable, definitions: Sequence[tuple[int, int]]) -> dict[bytes, _Function]:
    """Name -> the function it names, for the names defined once (overloads are left alone)."""
    found: dict[bytes, list[_Function]] = {}
    for node, name in definitions:
        if node == -1 or name == -1 or not _is_function(table.kind_name(node)):
            continue
        params = _parameters(table, node)
        if params == -1:
            continue
        parent = table.parent[node]
        wrapped = parent != -1 and any(
            w in table.kind_name(parent) for w in ("template", "decorated")
        )
        whole = parent if wrapped else node
        arity = _count(table, params)
        found.setdefault(table.text(name), []).append(_Function(whole, node, name, arity))
    return {text: fs[0] for text, fs in found.items() if len(fs) == 1}


def _is_function(kind: str) -> bool:
    return "function" in kind or "method" in kind


def _parameters(table: NodeTable, node: int) -> int:
    """The parameter list of a function definition: the first node, breadth first, whose kind
    names parameters in the plural or a list of them (`parameter_list`, `formal_parameters`,
    `parameters`); -1 when there is none."""
    queue = list(table.children(node))
    while queue:
        i = queue.pop(0)
        kind = table.kind_name(i)
        if kind.endswith("parameters") or kind == "parameter_list":
            return i
        if "body" not in kind and "block" not in kind and "statement" not in kind:
            queue.extend(table.children(i))
    return -1


def _count(table: NodeTable, node: int) -> int:
    """How many parameters or arguments a list holds: its named children but comments, with C's
    `(void)` counting none."""
    items = [
        c for c in table.children(node) if table.named[c] and "comment" not in table.kind_name(c)
    ]
    if len(items) == 1 and table.text(items[0]) == b"void":
        return 0
    return len(items)


def _name_leaf(table: NodeTable, callee: int) -> int:
    """The identifier leaf a callee ends in (`an` of `c::an`, `run` of `self.run`), or -1."""
    last = -1
    for i in (callee, *table.descendants(callee)):
        if table.first_child[i] == -1 and "identifier" in table.kind_name(i):
            last = i
    return last
