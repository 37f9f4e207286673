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
* **Unfolding a call.** A call of a function defined once, `h({}, 0, 1)` with
  `def h(v, q, j): f(j)`, becomes a call its body makes with the parameters replaced by the
  arguments, `f(1)`, whatever that call's callee and arity (skipping a level needs the same
  arity); `h` goes along when this was its only use. Not offered when the inner call names
  what the body defines itself (a name the body uses outside that call, other than a
  parameter), nor for keyword, gathered or defaulted arguments; an argument that lands inside
  a larger expression is bracketed.

Names are compared by text and arity by counting, with no scope or type analysis: a wrong guess
is a failed test. A candidate is made only when it makes the text shorter (a redirection alone
rarely does: with renamed names both are one letter), and at most MAX_TARGETS per call.
"""

from __future__ import annotations

import bisect
import collections
from collections.abc import Sequence
from dataclasses import dataclass

from treereduce_py.edit.tasks import Substitute
from treereduce_py.lang.syntax import NodeTable
from treereduce_py.transform.names import identifier_leaves

# Targets tried per call, nearest definition first: each is a test.
MAX_TARGETS = 4
# Callees that read a function out of something (`f[r]`, `(*fp)`): the indirect calls resolved.
_INDIRECT = ("subscript", "index", "pointer", "parenthesized")
# Arguments and parameters that unfolding cannot map one to one (`*a`, `**k`, `f(x=1)`, `...a`).
_GATHERED = ("splat", "spread", "keyword")
# Parents of an identifier that, past their first child, names a member, not a variable.
_MEMBER = ("attribute", "member", "field", "scoped")
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
            f = functions[text]
            tasks = _skip_level(table, inner, f, leaf, arity)
            # An unfolding that only renames the callee (`r(h, e)` -> `t(h, e)`) is a skip.
            skipped = {_renamed(table, call, leaf, s.pairs[0][1]) for s in tasks}
            unfolded = _unfold(table, inner, f, call, arguments, leaf)
            tasks += [u for u in unfolded if u.pairs[0][1] not in skipped]
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
        self._bodies: dict[int, _Body | None] = {}

    def uses(self, f: _Function) -> list[int]:
        """The leaves naming `f` outside its own definition."""
        if f.node not in self._uses:
            name = self.table.text(f.name)
            self._uses[f.node] = [
                u for u in self.leaves[name] if u != f.name and not self.table.contains(f.node, u)
            ]
        return self._uses[f.node]

    def body(self, f: _Function) -> _Body | None:
        """What unfolding a call of `f` needs of it (None when it cannot be unfolded)."""
        if f.node not in self._bodies:
            self._bodies[f.node] = _Body.of(self.table, self, f)
        return self._bodies[f.node]

    def calls_in(self, node: int) -> list[int]:
        """The captured calls inside `node`'s subtree, in text order."""
        lo = bisect.bisect_left(self.by_node, (node + 1, -1))
        hi = bisect.bisect_right(self.by_node, (self.table.last[node], len(self.calls)))
        return [call for call, _ in self.by_node[lo:hi]]

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


@dataclass(frozen=True)
class _Body:
    """A function's parameter names, in order, the identifier leaves of its subtree by text,
    and the calls its body makes (each one a call of another function)."""

    params: tuple[bytes, ...]
    # Identifier text -> how many leaves of the definition hold it.
    names: collections.Counter[bytes]
    calls: tuple[int, ...]

    @classmethod
    def of(cls, table: NodeTable, inner: _Inner, f: _Function) -> _Body | None:
        params = _param_names(table, _parameters(table, f.node))
        if params is None:
            return None
        names = collections.Counter(
            table.text(i) for i in table.descendants(f.node) if _is_name(table, i)
        )
        own = table.text(f.name)
        calls = tuple(
            c
            for c in inner.calls_in(f.node)
            if (leaf := inner.callee_leaf.get(c, -1)) == -1 or table.text(leaf) != own
        )
        return cls(params, names, calls)


def _renamed(table: NodeTable, call: int, leaf: int, name: bytes) -> bytes:
    """`call`'s text with its callee leaf `leaf` replaced by `name`."""
    source = table.source
    return (
        source[table.start[call] : table.start[leaf]]
        + name
        + source[table.end[leaf] : table.end[call]]
    )


def _unfold(
    table: NodeTable, inner: _Inner, f: _Function, call: int, arguments: int, leaf: int
) -> list[Substitute]:
    """The call `call` of `f` replaced by each call `f`'s body makes, its parameters replaced by
    the call's arguments; `f` going along when this was its only use."""
    if table.contains(f.node, call):
        return []
    body = inner.body(f)
    args = _items(table, arguments)
    if body is None or len(args) != len(body.params):
        return []
    if any(w in table.kind_name(a) for a in args for w in _GATHERED):
        return []
    value = {p: _bracketed(table, a) for p, a in zip(body.params, args, strict=True)}
    drop: tuple[tuple[int, bytes], ...] = ((f.definition, b""),) if inner.uses(f) == [leaf] else ()
    out: list[Substitute] = []
    for inner_call in body.calls:
        text = _substituted(table, body, inner_call, value)
        if text is None:
            continue
        pairs = ((call, text), *drop)
        if sum(len(t) - table.size(n) for n, t in pairs) < 0:
            out.append(Substitute(pairs))
    return out


def _substituted(
    table: NodeTable, body: _Body, call: int, value: dict[bytes, tuple[bytes, bytes]]
) -> bytes | None:
    """`call`'s text with each parameter replaced by its argument (the bare text where the
    parameter is a whole argument, else bracketed); None when it names what the body defines
    (a name held by more leaves of the definition than of this call) other than a parameter."""
    start, end = table.start[call], table.end[call]
    names = [i for i in table.descendants(call) if _is_name(table, i)]
    inside = collections.Counter(table.text(i) for i in names)
    out, at = [], start
    for i in names:
        text = table.text(i)
        if text not in value:
            if body.names.get(text, 0) > inside[text] and not _callee(table, i):
                return None  # a local of the body (or a global it also uses elsewhere)
            continue
        bare, bracketed = value[text]
        parent = table.parent[i]
        if table.parent[parent] == call:  # a whole argument of the call
            bracketed = bare
        elif any(w in table.kind_name(parent) for w in _MEMBER) and bracketed == bare:
            # The object of `.a`: `(2).a`, as `2.a` would read as a number.
            named = bare.decode(errors="replace").isidentifier()
            bracketed = bare if named else b"(" + bare + b")"
        out += [table.source[at : table.start[i]], bracketed]
        at = table.end[i]
    out.append(table.source[at:end])
    return b"".join(out)


def _callee(table: NodeTable, leaf: int) -> bool:
    """Whether `leaf` is what a call calls (`g` of `g(x)`): a function, not a local value."""
    parent = table.parent[leaf]
    return parent != -1 and table.first_child[parent] == leaf and "call" in table.kind_name(parent)


def _bracketed(table: NodeTable, node: int) -> tuple[bytes, bytes]:
    """An argument's text as is, and as it may stand inside a larger expression (bracketed
    unless it is one token, a call or already bracketed)."""
    text = table.text(node)
    kind = table.kind_name(node)
    simple = table.first_child[node] == -1 or "string" in kind or "call" in kind
    simple = simple or "parenthesized" in kind
    return text, text if simple else b"(" + text + b")"


def _param_names(table: NodeTable, params: int) -> tuple[bytes, ...] | None:
    """The names of a parameter list's parameters, in order (the first identifier leaf of
    each); None when one is gathered, defaulted or nameless."""
    if params == -1:
        return None
    if _count(table, params) == 0:
        return ()
    found: list[bytes] = []
    for item in _items(table, params):
        kind = table.kind_name(item)
        if any(w in kind for w in (*_GATHERED, "default", "variadic", "rest")):
            return None
        names = [i for i in (item, *table.descendants(item)) if _is_name(table, i)]
        if not names:
            return None
        found.append(table.text(names[0]))
    return tuple(found) if len(set(found)) == len(found) else None


def _is_name(table: NodeTable, i: int) -> bool:
    """An identifier leaf that names a variable: not an attribute, field or keyword name
    (`o.x`, `f(x=1)`), which only share its text."""
    if table.first_child[i] != -1 or table.kind_name(i) != "identifier":
        return False
    parent = table.parent[i]
    if parent == -1:
        return True
    kind = table.kind_name(parent)
    if "keyword" in kind:  # `x` of `f(x=1)`
        return table.first_child[parent] != i
    return table.first_child[parent] == i or not any(w in kind for w in _MEMBER)


def _items(table: NodeTable, node: int) -> list[int]:
    """The named children of a list but comments (`(void)` holds one)."""
    return [
        c for c in table.children(node) if table.named[c] and "comment" not in table.kind_name(c)
    ]


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
    items = _items(table, node)
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
