"""SMT-LIB's own mutations: ddSMT's mutators (seed 003) as tasks for the tree planner.

A generic tree reducer wastes most of its tests on SMT-LIB: deleting an argument of `bvadd` or
hoisting a Bool into a bit-vector position can never type-check. ddSMT's answer is to know the
sorts: a term may become one of its children of the same sort, a constant of its sort (`false`,
`0`, `(_ bv0 8)`, `""`), or a declared variable of its sort; a `let` may lose a binding by
substituting it, or lose its unused bindings; `(and a (and b c))` may become `(and a b c)`;
`(! t :named n)` may become `t`; declarations nobody uses may go. Only top-level commands, the
arguments of n-ary operators and `let` bindings are ever deleted.

The sorts come from one light pass over the table: declarations (`declare-fun`, `declare-const`,
`define-fun`, quantified and `let`-bound variables), literals (`#b0101` is `(_ BitVec 4)`) and
the result sort of the core, bit-vector, arithmetic and string operators. No solver is needed,
and no answer is trusted: a wrongly sorted candidate is just a test that fails, as in ddSMT.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import ClassVar

from treereduce_py.edit.tasks import DeleteChunk, Hoist, Replace, Substitute, Task
from treereduce_py.lang.syntax import NodeTable

Sort = bytes

BOOL, INT, REAL, STRING = b"Bool", b"Int", b"Real", b"String"
_BOOLEAN_OPS = frozenset(
    b"not and or xor => = distinct < <= > >= forall exists is_int str.in_re str.prefixof "
    b"str.suffixof str.contains str.< str.<= bvult bvule bvugt bvuge bvslt bvsle bvsgt bvsge "
    b"bvumul_noovfl bvsmul_noovfl bvsmul_noudfl bvuadd_ovfl bvsadd_ovfl".split()
)
_LIKE_FIRST_ARG = frozenset(
    b"bvadd bvsub bvmul bvudiv bvurem bvsdiv bvsrem bvsmod bvand bvor bvxor bvnot bvneg bvshl "
    b"bvlshr bvashr bvnand bvnor bvxnor + - * div mod abs /".split()
)
# Associative n-ary operators: nested applications merge into one, and arguments may be deleted.
_NARY = frozenset(b"and or xor + * bvadd bvmul bvand bvor bvxor".split())
_CHAINABLE = frozenset(b"= distinct < <= > >=".split())
# Declaration commands and their number of parts: (declare-fun f (A) R) has 4.
_DECLARATIONS = {b"declare-const": 3, b"declare-fun": 4, b"define-const": 4, b"define-fun": 5}


def _bv(width: int) -> Sort:
    return b"(_ BitVec %d)" % width


def _bv_width(sort: Sort | None) -> int | None:
    if sort is None or not sort.startswith(b"(_ BitVec "):
        return None
    return int(sort[10:-1])


def constants(sort: Sort) -> list[bytes]:
    """The simplest values of `sort` (ddSMT's constant substitution), shortest first."""
    width = _bv_width(sort)
    if width is not None:
        return sorted([b"(_ bv0 %d)" % width, b"#b" + b"0" * width], key=len)
    return {BOOL: [b"false", b"true"], INT: [b"0", b"1"], REAL: [b"0.0"], STRING: [b'""']}.get(
        sort, []
    )


def _normal(text: bytes) -> bytes:
    return (
        b" ".join(text.replace(b"(", b" ( ").replace(b")", b" ) ").split())
        .replace(b"( ", b"(")
        .replace(b" )", b")")
    )


@dataclass
class SmtRules:
    """What the tree planner may do to one parse of an SMT-LIB script (`build` reads it)."""

    table: NodeTable
    sorts: dict[int, Sort] = field(default_factory=dict)
    terms: set[int] = field(default_factory=set)  # nodes in term position
    deletable: set[int] = field(default_factory=set)
    children: dict[int, list[int]] = field(default_factory=dict)  # a term's sub-terms
    variables: dict[Sort, list[bytes]] = field(default_factory=dict)  # shortest first
    declared: dict[int, bytes] = field(default_factory=dict)  # declaration node -> its name
    # Every name the script declares or binds (functions, constants, parameters, let-bound and
    # quantified variables): what the rename stage may rename, among SMT-LIB's symbols.
    names: frozenset[bytes] = frozenset()
    # The query captures whose offers stay beside these rules: a query file's @replace hints.
    keeps: ClassVar[frozenset[str]] = frozenset({"replace", "trim"})

    @classmethod
    def build(cls, table: NodeTable) -> SmtRules:
        rules = cls(table)
        rules._read_commands()
        rules._infer_sorts()
        return rules

    # --- the planner's questions ------------------------------------------------------------

    def can_delete(self, node: int) -> bool:
        """Whether deleting `node` can leave a well-formed script."""
        return node in self.deletable

    def initial(self) -> list[Task]:
        """Delete every declaration whose name no other node mentions, in one test; and
        eliminate each declared constant: a constant of its sort at every use, no declaration."""
        t = self.table
        names = {self._named(d)[1] for d in self.declared}
        mentions: dict[bytes, int] = {}
        for i in range(len(t)):
            if t.kind_name(i) == "symbol" and i not in names:
                mentions[t.text(i)] = mentions.get(t.text(i), 0) + 1
        uses: dict[bytes, list[int]] = {}
        for i in sorted(self.terms):
            if t.kind_name(i) == "symbol":
                uses.setdefault(t.text(i), []).append(i)
        unused = tuple(d for d, name in self.declared.items() if name not in mentions)
        out: list[Task] = [DeleteChunk(unused)] if unused else []
        for decl, name in self.declared.items():
            used = uses.get(name, [])
            # Every mention must be a use as a term, or the declaration is still needed.
            sort = self.sorts.get(used[0]) if used and len(used) == mentions[name] else None
            values = constants(sort) if sort is not None else []
            if values and self._head(decl) != b"define-fun":
                out.append(Substitute((*((u, values[0]) for u in used), (decl, b""))))
        return out

    def exploring(self, node: int) -> list[Task]:
        """Nothing goes with exploring a node but the deletions `can_delete` allows."""
        return []

    def alternatives(self, node: int) -> list[Task]:
        """Every mutation of `node` that makes its text shorter."""
        if node not in self.terms:
            return []
        t, sort = self.table, self.sorts.get(node)
        size = t.size(node)
        out: list[Task] = []
        texts = constants(sort) if sort is not None else []
        texts += self.variables.get(sort, [])[:2] if sort is not None else []
        out += [
            Replace(node, x) for x in dict.fromkeys(texts) if len(x) < size and x != t.text(node)
        ]
        for c in self.children.get(node, ()):
            if sort is None or self.sorts.get(c, sort) == sort:
                out.append(Hoist(node, c))
        head = self._head(node)
        out += self._let_eliminations(node) if head == b"let" else []
        out += self._flattenings(node, head) if head in _NARY else []
        out += self._chains(node) if head == b"and" else []
        return out

    # --- reading the script -----------------------------------------------------------------

    def _named(self, i: int) -> list[int]:
        t = self.table
        return [c for c in t.children(i) if t.named[c] and t.kind_name(c) != "comment"]

    def _head(self, i: int) -> bytes | None:
        if self.table.kind_name(i) != "list":
            return None
        kids = self._named(i)
        return (
            self.table.text(kids[0]) if kids and self.table.kind_name(kids[0]) == "symbol" else None
        )

    def _read_commands(self) -> None:
        t = self.table
        for cmd in t.items(0):
            block = t.parent[cmd]
            while block > 0:  # a huge script's commands come in blocks: they go whole too
                self.deletable.add(block)
                block = t.parent[block]
            if not t.named[cmd]:
                continue
            self.deletable.add(cmd)
            head, kids = self._head(cmd), self._named(cmd)
            if head is not None and len(kids) == _DECLARATIONS.get(head):
                self.declared[cmd] = t.text(kids[1])
            if head == b"assert" and len(kids) == 2:
                self._term(kids[1])
            elif head in (b"define-fun", b"define-const") and len(kids) >= 4:
                self._term(kids[-1])

    def _term(self, root: int) -> None:
        """Mark the terms under `root` and what each may be cut down to (no recursion: deep
        `let` nests are common)."""
        stack = [root]
        while stack:
            i = stack.pop()
            self.terms.add(i)
            head, kids = self._head(i), self._named(i)
            if self.table.kind_name(i) != "list" or not kids or head == b"_":
                continue
            subs: list[int] = []
            if head == b"let" and len(kids) == 3:
                bindings = self._named(kids[1])
                self.deletable.update(bindings if len(bindings) > 1 else ())
                subs_of_bindings = [
                    self._named(b)[-1] for b in bindings if len(self._named(b)) == 2
                ]
                stack += subs_of_bindings
                subs = [kids[2]]
            elif head in (b"forall", b"exists") and len(kids) == 3:
                subs = [kids[2]]
            elif head == b"!" and len(kids) >= 2:
                subs = [kids[1]]
            elif head in (b"as", b"match"):
                continue
            else:
                subs = kids[1:]
                if head in _NARY or head in _CHAINABLE:
                    self.deletable.update(subs if len(subs) > 2 else ())
            self.children[i] = subs
            stack += subs

    def _infer_sorts(self) -> None:
        """Sorts bottom-up in post-order: a `let`'s bound terms are done before its body."""
        t = self.table
        names: dict[bytes, Sort] = {}
        for cmd, name in self.declared.items():
            self._declare(cmd, name, names)
        for vs in self.variables.values():
            vs.sort(key=lambda v: (len(v), v))
        for i in _post_order(t):
            if i in self.terms:
                sort = self._sort(i, names)
                if sort is not None:
                    self.sorts[i] = sort
            elif t.kind_name(i) == "list" and t.parent[i] >= 0:
                self._bind(i, names)
        self.names = frozenset(names)

    def _declare(self, cmd: int, name: bytes, names: dict[bytes, Sort]) -> None:
        """`(declare-const x S)`, `(declare-fun f (S...) S)`, `(define-fun f ((p S)...) S t)`,
        `(define-const x S t)`: the name's sort, and the parameters' sorts (for the body)."""
        t, head, kids = self.table, self._head(cmd), self._named(cmd)
        result = kids[2] if head in (b"declare-const", b"define-const") else kids[3]
        names[name] = _normal(t.text(result))
        nullary = head in (b"declare-const", b"define-const") or not self._named(kids[2])
        if nullary and head != b"define-fun":
            self.variables.setdefault(names[name], []).append(name)
        for param in self._named(kids[2]) if head == b"define-fun" else []:
            p = self._named(param)
            if len(p) == 2:
                names[t.text(p[0])] = _normal(t.text(p[1]))

    def _bind(self, i: int, names: dict[bytes, Sort]) -> None:
        """A `let` binding `(v t)` or a sorted variable `(v S)` of a quantifier."""
        t, kids = self.table, self._named(i)
        if len(kids) != 2 or t.kind_name(kids[0]) != "symbol":
            return
        grand = t.parent[t.parent[i]] if t.parent[i] > 0 else -1
        head = self._head(grand) if grand >= 0 else None
        if head == b"let" and kids[1] in self.sorts:
            names[t.text(kids[0])] = self.sorts[kids[1]]
        elif head in (b"forall", b"exists"):
            names[t.text(kids[0])] = _normal(t.text(kids[1]))

    def _sort(self, i: int, names: dict[bytes, Sort]) -> Sort | None:
        t = self.table
        kind, text = t.kind_name(i), t.text(i)
        if kind == "number":
            if text.startswith(b"#b"):
                return _bv(len(text) - 2)
            if text.startswith(b"#x"):
                return _bv(4 * (len(text) - 2))
            return REAL if b"." in text else INT
        if kind == "string":
            return STRING
        if kind == "symbol":
            return BOOL if text in (b"true", b"false") else names.get(text)
        kids = self._named(i)
        if not kids:
            return None
        head, args = t.text(kids[0]), kids[1:]
        arg_sorts = [self.sorts.get(a) for a in args]
        if head == b"_" and len(kids) == 3 and t.text(kids[1]).startswith(b"bv"):
            return _bv(int(t.text(kids[2]))) if t.text(kids[2]).isdigit() else None
        if head in _BOOLEAN_OPS:
            return BOOL
        if head in (b"let", b"!") and arg_sorts:
            return arg_sorts[-1] if head == b"let" else arg_sorts[0]
        if head == b"ite":
            return next((s for s in arg_sorts[1:] if s is not None), None)
        if head in _LIKE_FIRST_ARG:
            return next((s for s in arg_sorts if s is not None), None)
        if head == b"concat":
            widths = [_bv_width(s) for s in arg_sorts]
            return _bv(sum(w for w in widths if w)) if all(widths) else None
        if head in (b"str.++", b"str.at", b"str.substr", b"str.replace"):
            return STRING
        if head in (b"str.len", b"str.to_int", b"str.indexof"):
            return INT
        if t.kind_name(kids[0]) == "list":
            return self._indexed(kids[0], arg_sorts)
        return names.get(head)

    def _indexed(self, op: int, arg_sorts: list[Sort | None]) -> Sort | None:
        """`((_ extract 7 0) x)`, `((_ zero_extend 8) x)` and friends."""
        t = self.table
        parts = [t.text(k) for k in self._named(op)]
        if len(parts) < 3 or parts[0] != b"_" or not all(p.isdigit() for p in parts[2:]):
            return None
        nums = [int(p) for p in parts[2:]]
        width = _bv_width(arg_sorts[0]) if arg_sorts else None
        if parts[1] == b"extract" and len(nums) == 2:
            return _bv(nums[0] - nums[1] + 1)
        if width is None:
            return None
        if parts[1] in (b"zero_extend", b"sign_extend"):
            return _bv(width + nums[0])
        if parts[1] == b"repeat":
            return _bv(width * nums[0])
        return _bv(width) if parts[1] in (b"rotate_left", b"rotate_right") else None

    # --- mutations that rewrite text ----------------------------------------------------------

    def _splice(self, node: int, cuts: Iterable[tuple[int, int, bytes]]) -> bytes:
        """The text of `node` with byte ranges replaced (ranges absolute, disjoint)."""
        t = self.table
        out, at = [], t.start[node]
        for start, end, text in sorted(cuts):
            out += [t.source[at:start], text]
            at = end
        out.append(t.source[at : t.end[node]])
        return b"".join(out)

    def _uses(self, root: int, name: bytes) -> list[int]:
        t = self.table
        return [
            i
            for i in range(root, t.last[root] + 1)
            if t.kind_name(i) == "symbol" and t.text(i) == name
        ]

    def _let_eliminations(self, let: int) -> list[Task]:
        """Substitute one binding (or all) into the body; drop the unused bindings at once."""
        t = self.table
        kids = self._named(let)
        if len(kids) != 3:
            return []
        bindings = [b for b in self._named(kids[1]) if len(self._named(b)) == 2]
        body = kids[2]
        texts: list[bytes] = []
        unused: list[int] = []
        every: list[tuple[int, int, bytes]] = []
        for b in bindings:
            var, value = self._named(b)
            subst = [(t.start[u], t.end[u], t.text(value)) for u in self._uses(body, t.text(var))]
            unused += [] if subst else [b]
            every += subst
            texts.append(self._without(let, [b], subst, len(bindings)))
        if unused and len(unused) < len(bindings):
            texts.append(self._without(let, unused, [], len(bindings)))
        if len(bindings) > 1:
            texts.append(self._splice(body, every))
        return [Replace(let, x) for x in dict.fromkeys(texts) if len(x) < t.size(let)]

    def _without(
        self, let: int, drop: list[int], subst: list[tuple[int, int, bytes]], n: int
    ) -> bytes:
        """The `let` without the bindings `drop` (the body alone when none is left)."""
        t = self.table
        body = self._named(let)[2]
        if len(drop) == n:
            return self._splice(body, subst)
        return self._splice(let, [(t.start[b], t.end[b], b"") for b in drop] + subst)

    def _flattenings(self, node: int, head: bytes | None) -> list[Task]:
        """`(and a (and b c))` -> `(and a b c)`, one nested application at a time."""
        t = self.table
        out: list[Task] = []
        for c in self.children.get(node, ()):
            if self._head(c) == head and t.kind_name(c) == "list":
                inner = self._named(c)[1:]
                text = b" ".join(t.text(k) for k in inner)
                out.append(Replace(node, self._splice(node, [(t.start[c], t.end[c], text)])))
        return out

    def _chains(self, conjunction: int) -> list[Task]:
        """`(and (<= 1 v) (<= v 6))` -> `(and (<= 1 v 6))`: two neighbouring arguments applying
        one chainable comparison, the first's last argument the second's first, become one chain
        (SMT-LIB's `:chainable` operators mean exactly the conjunction)."""
        t = self.table
        args = self.children.get(conjunction, [])
        out: list[Task] = []
        for x, y in itertools.pairwise(args):
            head = self._head(x)
            if head not in _CHAINABLE or head == b"distinct" or self._head(y) != head:
                continue
            xs, ys = self._named(x)[1:], self._named(y)[1:]
            if len(xs) < 2 or len(ys) < 2 or _normal(t.text(xs[-1])) != _normal(t.text(ys[0])):
                continue
            chain = b"(%s %s)" % (head, b" ".join(t.text(k) for k in (*xs, *ys[1:])))
            cut = (t.start[x], t.end[y], chain)
            out.append(Replace(conjunction, self._splice(conjunction, [cut])))
        return out


def _post_order(table: NodeTable) -> list[int]:
    order: list[int] = []
    stack: list[tuple[int, bool]] = [(0, False)]
    while stack:
        i, done = stack.pop()
        if done:
            order.append(i)
            continue
        stack.append((i, True))
        stack += [(c, False) for c in reversed(list(table.children(i)))]
    return order
