"""Pointing a call at another function (query files' @call; calls.py): a call skips a level of
a chain and takes the skipped function along, an indirect call goes to a function the file uses
as a value; the redirected programs checked with gcc, rustc, python and node; and a reduction
that only a redirection can finish."""

from __future__ import annotations

import traceback
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import run_tool, which

from treereduce_py import reduce
from treereduce_py.edit.edits import Edits, render
from treereduce_py.edit.tasks import Substitute, task_edits
from treereduce_py.run.reading import prepare
from treereduce_py.transform.captures import CAPTURES
from treereduce_py.transform.strategies import Stage

TREE = Stage("tree", "syntax", "tree")


def redirects(lang: str, src: bytes) -> dict[bytes, list[tuple[bytes, bytes]]]:
    """Each call's redirections as (what it now calls, the first line of what goes along)."""
    table, facts, _ = prepare(TREE, src, lang, ())
    out: dict[bytes, list[tuple[bytes, bytes]]] = {}
    for call, tasks in facts.captured("call").items():
        for task in tasks:
            assert isinstance(task, Substitute)
            target = task.pairs[0][1]
            gone = b"".join(table.text(n).split(b"\n")[0] for n, _ in task.pairs[1:])
            out.setdefault(table.text(call), []).append((target, gone))
    return out


def redirected(lang: str, src: bytes, call: bytes, target: bytes) -> bytes:
    """`src` with `call` pointed at `target` (and what goes along)."""
    table, facts, _ = prepare(TREE, src, lang, ())
    tasks: list[Substitute] = [
        t
        for c, ts in facts.captured("call").items()
        if table.text(c) == call
        for t in ts
        if isinstance(t, Substitute) and t.pairs[0][1] == target
    ]
    assert len(tasks) == 1, tasks
    edits = task_edits(table, Edits(), tasks[0])
    assert edits is not None
    return render(table, edits)


C_CHAIN = b"""int t(int h, int e, int j) { return h < e ? 3 : 4; }
int r(int h, int e, int j) { return t(h, e, j); }
int z(int h, int e, int j) { return r(h, e, j); }
int an(int h, int e) { return z(h, e, 0); }
int main(void) { return an(1, 2); }
"""


def test_c_a_call_skips_a_level_and_the_skipped_function_goes(tmp_path: Path) -> None:
    gcc = which("gcc")
    offered = redirects("c", C_CHAIN)
    assert offered == {
        b"z(h, e, 0)": [(b"r", b"int z(int h, int e, int j) { return r(h, e, j); }")],
        b"r(h, e, j)": [(b"t", b"int r(int h, int e, int j) { return t(h, e, j); }")],
        b"an(1, 2)": [(b"z(1, 2, 0)", b"int an(int h, int e) { return z(h, e, 0); }")],
    }
    # an(1, 2) has two arguments and z three parameters: no level to skip, but it unfolds to
    # the call an makes; z(h, e, 0) and r(h, e, j) unfold to what their skips make, offered
    # once; t calls nothing.
    out = redirected("c", C_CHAIN, b"z(h, e, 0)", b"r")
    assert b"int z(" not in out and b"return r(h, e, 0);" in out, out
    (tmp_path / "p.c").write_bytes(out)
    assert run_tool([gcc, "-Wall", "-Werror", "-o", "p", "p.c"], tmp_path).returncode == 0
    assert run_tool([tmp_path / "p"], tmp_path).returncode == 3


C_TABLE = b"""#include <stdio.h>
#include <stdlib.h>
struct order { int id; int qty; };
typedef void (*handler)(struct order *);
handler table[4];
int count;
void enlist(handler h) { table[count++] = h; }
void check(struct order *o) { if (o->qty < 0) { fprintf(stderr, "bad %d\\n", o->id); abort(); } }
void log_order(struct order *o, int level) { printf("%d %d\\n", o->id, level); }
__attribute__((constructor)) void setup(void) { enlist(check); }
int main(void) {
    struct order o = {1, -5};
    for (int i = 0; i < count; i++) table[i](&o);
    log_order(&o, 2);
    return 0;
}
"""


def test_c_an_indirect_call_goes_to_a_registered_function(tmp_path: Path) -> None:
    gcc = which("gcc")
    offered = redirects("c", C_TABLE)
    # `check` is used as a value (registered) and takes one parameter, as the call passes one;
    # `enlist` is one too (`setup` calls it, but nothing uses it as a value); `log_order` is
    # called directly: its call unfolds to its body's printf, the argument &o bracketed.
    assert offered == {
        b"table[i](&o)": [(b"check", b"")],
        b"log_order(&o, 2)": [
            (
                b'printf("%d %d\\n", (&o)->id, 2)',
                b'void log_order(struct order *o, int level) { printf("%d %d\\n", o->id, level); }',
            )
        ],
    }
    out = redirected("c", C_TABLE, b"table[i](&o)", b"check")
    assert b"check(&o);" in out, out
    (tmp_path / "p.c").write_bytes(out)
    assert run_tool([gcc, "-o", "p", "p.c"], tmp_path).returncode == 0
    done = run_tool([tmp_path / "p"], tmp_path)
    assert done.returncode != 0 and b"bad 1" in done.stderr, done


RUST_CHAIN = b"""fn t(h: u8, e: u8) -> u8 { h.wrapping_sub(e) }
fn r(h: u8, e: u8) -> u8 { t(h, e) }
fn z(h: u8) -> u8 { r(h, 1) }
fn main() { std::process::exit(z(3) as i32); }
"""


def test_rust_a_call_skips_a_level(tmp_path: Path) -> None:
    rustc = which("rustc")
    offered = redirects("rust", RUST_CHAIN)
    # z(3) has one argument and r two: only r's call to t can skip; z(3) unfolds to r(3, 1)
    # and t(h, e) to the method call its body makes.
    assert offered == {
        b"r(h, 1)": [(b"t", b"fn r(h: u8, e: u8) -> u8 { t(h, e) }")],
        b"z(3)": [(b"r(3, 1)", b"fn z(h: u8) -> u8 { r(h, 1) }")],
        b"t(h, e)": [(b"h.wrapping_sub(e)", b"fn t(h: u8, e: u8) -> u8 { h.wrapping_sub(e) }")],
    }
    out = redirected("rust", RUST_CHAIN, b"r(h, 1)", b"t")
    assert b"fn r" not in out and b"{ t(h, 1) }" in out, out
    (tmp_path / "p.rs").write_bytes(out)
    assert run_tool([rustc, "-D", "warnings", "-o", "p", "p.rs"], tmp_path).returncode == 0
    assert run_tool([tmp_path / "p"], tmp_path).returncode == 2


PY_CHAIN = b"""import functools
def t(h, e):
    return h / e
def r(h, e):
    return t(h, e)
@functools.lru_cache
def z(h, e):
    return r(h, e)
def an(h):
    return z(h, 0)
an(1)
"""


def test_python_a_decorated_function_goes_with_its_decorator(tmp_path: Path) -> None:
    python = which("python3")
    assert redirects("python", PY_CHAIN) == {
        b"r(h, e)": [(b"t", b"def r(h, e):")],
        b"z(h, 0)": [(b"r", b"@functools.lru_cache")],
        b"an(1)": [(b"z(1, 0)", b"def an(h):")],
    }
    out = redirected("python", PY_CHAIN, b"z(h, 0)", b"r")
    assert b"lru_cache" not in out and b"def z" not in out and b"return r(h, 0)" in out, out
    (tmp_path / "p.py").write_bytes(out)
    done = run_tool([python, "p.py"], tmp_path)
    assert b"ZeroDivisionError" in done.stderr, done


JS_HANDLERS = b"""const handlers = [];
function register(h) { handlers.push(h); }
function fail(x) { throw new Error("bad " + x); }
function show(x, y) { console.log(x, y); }
register(fail);
for (let i = 0; i < handlers.length; i++) handlers[i](7);
show(1, 2);
"""


def test_javascript_an_indirect_call_goes_to_a_registered_function(tmp_path: Path) -> None:
    node = which("node")
    offered = redirects("javascript", JS_HANDLERS)
    # handlers.push(h) is a library method's call: no guess at its target, but register(fail)
    # and show(1, 2) unfold to the calls their bodies make.
    assert offered == {
        b"handlers[i](7)": [(b"fail", b"")],
        b"register(fail)": [
            (b"handlers.push(fail)", b"function register(h) { handlers.push(h); }")
        ],
        b"show(1, 2)": [(b"console.log(1, 2)", b"function show(x, y) { console.log(x, y); }")],
    }
    out = redirected("javascript", JS_HANDLERS, b"handlers[i](7)", b"fail")
    (tmp_path / "p.js").write_bytes(out)
    done = run_tool([node, "p.js"], tmp_path)
    assert b"Error: bad 7" in done.stderr, done


def test_no_redirection_that_is_not_shorter_recursive_or_of_another_arity() -> None:
    src = b"""int t(int a) { return a; }
int u(int a, int b) { return t(a) + b; }
int r(int a) { return t(a); }
int s(int a) { return s(a - 1) + u(a, 1); }
int main(void) { return r(1) + r(2) + s(3); }
"""
    # r is used twice: pointing one of its calls at t alone saves nothing. s's call to itself
    # skips nothing; u(a, 1) has two arguments and u calls t with one, so neither skips a level:
    # both only unfold (s's own call to s is not a target), r's calls not even that (t(1) is
    # no shorter than r(1) while r stays).
    assert redirects("c", src) == {
        b"u(a, 1)": [(b"t(a)", b"int u(int a, int b) { return t(a) + b; }")],
        b"s(3)": [(b"u(3, 1)", b"int s(int a) { return s(a - 1) + u(a, 1); }")],
    }


def fails_in_t(candidate: bytes) -> bool:
    """Interesting while running the program raises ZeroDivisionError in a function `t`."""
    namespace: dict[str, object] = {}
    try:
        exec(compile(candidate, "candidate", "exec"), namespace)
    except ZeroDivisionError as e:
        return traceback.extract_tb(e.__traceback__)[-1].name == "t"
    except Exception:
        return False
    return False


WRAPPED = b"""def t(h, e):
    return h / e
def r(h, e):
    return t(h, e)
def z(h, e):
    return r(h, e)
def an(h):
    return z(h, 0)
an(1)
"""


def test_a_reduction_collapses_a_chain_only_with_redirections(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Unfolding an(1) to z(1, 0), and so on down, leaves t alone with a call of its own.
    out = reduce(WRAPPED, language="python", test=fails_in_t, jobs=1).reduced
    assert out.count(b"def ") == 1 and b"t(" in out.split(b"\n")[-1], out
    # The same run with the @call capture extracting nothing.
    monkeypatch.setitem(CAPTURES, "call", replace(CAPTURES["call"], extract=lambda parse: {}))
    kept = reduce(WRAPPED, language="python", test=fails_in_t, jobs=1).reduced
    assert kept.count(b"def ") == 4, kept


UNFOLD = b"""def t(h):
    return 1 / h
def w(a, b, c):
    t(c)
if 1:
    w({}, 2, 0)
"""


def test_python_a_call_unfolds_to_the_call_its_body_makes(tmp_path: Path) -> None:
    python = which("python3")
    # w calls t with one argument where w takes three: no level to skip, but w's call can
    # become t's, with w's parameter c replaced by the argument 0, and w goes.
    assert redirects("python", UNFOLD) == {b"w({}, 2, 0)": [(b"t(0)", b"def w(a, b, c):")]}
    out = redirected("python", UNFOLD, b"w({}, 2, 0)", b"t(0)")
    assert out == b"def t(h):\n    return 1 / h\n\nif 1:\n    t(0)\n", out
    (tmp_path / "p.py").write_bytes(out)
    assert b"ZeroDivisionError" in run_tool([python, "p.py"], tmp_path).stderr


def test_an_argument_inside_a_larger_expression_is_bracketed(tmp_path: Path) -> None:
    node = which("node")
    src = b"function h(a, b) { return g(a * 2, b); }\nfunction g(x, y) { throw x; }\nh(1 + 2, 3);\n"
    offered = redirects("javascript", src)
    # Skipping the level (h -> g, same arity) and unfolding (a * 2 with a = 1 + 2).
    gone = src.split(b"\n")[0]
    assert offered == {b"h(1 + 2, 3)": [(b"g", gone), (b"g((1 + 2) * 2, 3)", gone)]}
    out = redirected("javascript", src, b"h(1 + 2, 3)", b"g((1 + 2) * 2, 3)")
    (tmp_path / "p.js").write_bytes(out)
    # node prints the thrown value on a line of its own.
    assert b"6" in run_tool([node, "p.js"], tmp_path).stderr.splitlines(), out


def test_no_unfolding_of_a_local_a_keyword_or_a_gathered_argument() -> None:
    src = b"""def f(x, k=0):
    return 1 / x
def g(a):
    x = a
    f(x)
def h(*a):
    f(a)
def i(a):
    f(a.a, k=a)
def j(a):
    f(a)
g(1)
h(1)
i(2)
j(a=3)
"""
    # g's f(x) names its local x; h gathers its arguments; j is called with a keyword: each
    # only skips a level (to f, called with one argument as they are). i's call unfolds, the
    # attribute's name left alone, its object bracketed and the keyword's value replaced.
    assert redirects("python", src) == {
        b"g(1)": [(b"f", b"def g(a):")],
        b"h(1)": [(b"f", b"def h(*a):")],
        b"i(2)": [(b"f((2).a, k=2)", b"def i(a):")],
        b"j(a=3)": [(b"f", b"def j(a):")],
    }
