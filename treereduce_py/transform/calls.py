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
    out: dict[int, tuple[Substitute, ...]] = {}
    for call, callee, arguments in calls:
        arity = _count(table, arguments)
        leaf = callee_leaf[call]
        text = table.text(leaf) if leaf != -1 else b""
        if text in functions:
            tasks = _skip_level(table, functions, leaves, calls, callee_leaf, leaf, arity)
        elif any(word in table.kind_name(callee) for word in _INDIRECT):
            tasks = _resolve(table, functions, values, callee, arity)
        else:  # a method or a library function (`list.add(x)`, `printf(...)`): left alone
            continue
        if tasks:
            out[call] = tuple(tasks[:MAX_TARGETS])
    return out


def _skip_level(
    table: NodeTable,
    functions: dict[bytes, _Function],
    leaves: dict[bytes, list[int]],
    calls: Sequence[tuple[int, int, int]],
    callee_leaf: dict[int, int],
    leaf: int,
    arity: int,
) -> list[Substitute]:
    """Point the call whose callee names a function at what that function calls, taking the
    function along when this call was its only use."""
    f = functions[table.text(leaf)]
    if table.contains(f.node, leaf):  # a recursive call: nothing stands between
        return []
    uses = [u for u in leaves[table.text(leaf)] if u != f.name and not table.contains(f.node, u)]
    drop: tuple[tuple[int, bytes], ...] = ((f.definition, b""),) if uses == [leaf] else ()
    out: list[Substitute] = []
    seen: set[bytes] = set()
    for call, _, arguments in calls:
        inner = callee_leaf[call]
        if inner == -1 or not table.contains(f.node, call):
            continue
        target = table.text(inner)
        g = functions.get(target)
        if g is None or g is f or target in seen or _count(table, arguments) != arity:
            continue
        seen.add(target)
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
