"""Tests for treereduce_py.lang.hints and the bundled queries/<lang>/replacements.scm files."""

from __future__ import annotations

import importlib.resources
import pickle
import textwrap
from collections import Counter
from pathlib import Path
from typing import Any, cast

import pytest
import tree_sitter
import tree_sitter_language_pack as pack
from hypothesis import given
from hypothesis import strategies as st

from treereduce_py.lang.hints import (
    CAPTURE,
    SETTING,
    Hints,
    Match,
    QueryFileError,
    QueryMatches,
    Replacement,
    Span,
    load_hints,
    query_files,
)
from treereduce_py.lang.languages import get_language, new_parser
from treereduce_py.transform.captures import vocabulary

REQUIRED = {"c", "cpp", "rust", "python", "javascript", "typescript", "tsx", "java", "go"}

# One program per shipped language that exercises every bundled pattern there (a test checks
# that, so a new pattern needs a line here); each must parse without errors.
SAMPLES: dict[str, str] = {
    "c": """
        #include <stdio.h>
        struct S { int a; unsigned long b; };
        static const char *msg = "hello" " world";
        int arr[] = {1, 2, 3};
        int f(int x, long y) { if (x > 3) return x + 1; while (y) y--; return 0; }
        int main(void) {
            char c = '\\n'; double d = 3.25e10; int z = f(42, 100) ? 7 : 8;
            printf("%d\\n", z);
            struct S s; __attribute__((unused)) int w;
            if (c) d = (double)sizeof(struct S); else z = arr[0] + s.a + -z;
            return 1 + 2;
        }
        static int g(void) { return 0; }
        static char *name(void) { return 0; }
        void tick(int *n) { (*n)++; }
        typedef unsigned long size;
    """,
    "cpp": """
        #include <vector>
        template <typename T> struct Box { T value; T get() const { return value; } };
        namespace ns { int g = 12345; }
        std::vector<std::pair<int, long>> v{{1, 2}, {3, 4}};
        auto lam = [](int a, int b) -> int { return a * b; };
        const char *cs = "a" "b";
        int main() {
            std::string s = R"(raw)"; char c = '\\n'; unsigned long long u = (1 + 2) ? 3 : 4;
            if (int k = 3; k > 2) { s += "abc"; }
            int *p = new int[10]; delete[] p;
            return lam(2, 3);
        }
        static char *name() { return 0; }
        int &ref() { return ns::g; }
        typedef unsigned long size;
        using word = unsigned;
        class K { int k; };
        int plain;
    """,
    "rust": """
        struct P { x: i32, y: Vec<String> }
        enum E { A(u8), B { z: f64 } }
        #![allow(dead_code)]
        #[derive(Debug)]
        pub struct W<Q> where Q: Copy { q: Q }
        trait T { fn t(&self) -> u64; }
        impl T for P { fn t(&self) -> u64 { self.x as u64 } }
        fn f(a: i32, b: &str) -> Result<i32, String> {
            if a > 10 && b.len() < 3 { return Ok(a * 2); }
            while a < 12345 { break; }
            let v: Vec<u8> = vec![1, 2, 3];
            let arr = [1.5, 2.25];
            let c = '\\n';
            let s = r#"raw"#;
            let cl = |q: i32| -> i32 { q + 1 };
            let mut m = &v;
            if !true { m = &v; } else { let _ = match a { _ => -a }; }
            Err(String::from("no"))
        }
        union U { a: u8 }
        type Alias = u8;
        mod inner {}
        macro_rules! m { () => {}; }
        const K: u8 = 1;
        static S: u8 = 2;
    """,
    "python": """
        import os
        class A(Base):
            \"\"\"Doc.\"\"\"
            x: int = 12345
            @staticmethod
            async def n(c: int = 3) -> int:
                for i in c:
                    await c
                else:
                    return lambda: -c if not c else 1
            def m(self, a: list[int], b=2.5):
                if a and len(a) > 2:
                    return self.m(a[1:], b=b * 2)
                elif b is None:
                    pass
                else:
                    pass
                while a is not None:
                    break
                d = {"k": (1, 2), "l": [1, 2]}
                l = [x for x in d]
                e = {k: v for k, v in d.items()}
                g = (y for y in d)
                r = 'a' 'b'
                return 0x1F if d else None
        top = A()
    """,
    "javascript": """
        class C extends Base { m(v) { return v.length * 2; } }
        function f(a, b = 2.5) {
          if (a > 3 && b) { return `t${a}` + 'q'; }
          while (a--) { continue; } if (!a) {} else { o["k"] = [a = 1] = [2]; }
          const o = { k: 1, arr: [1, 2, 3] };
          const g = (q) => q + 1;
          async function aw() { await g; }
          const h = function (z) { return z; };
          const r = cond ? foo(1, 2) : new Bar();
          const el = <div className="x">hi</div>;
          var w = g(a);
          return w;
        }
        function* gen() { yield 1; }
    """,
    "typescript": """
        interface I { a: number; b?: string[] }
        type T = { k: Map<string, number> } | null;
        enum Color { Red = 1, Green }
        class C extends D implements I {
          private a: number = 12345;
          override m<U>(v: Array<number>, w?: U): number { return v.length * 2; }
        }
        function f(a: number, b = 2.5): string {
          if (a > 3 && b) { return `t${a}` + 'q'; } else {}
          while (a--) { continue; }
          const o = { k: 1, arr: [1, 2, 3] };
          const g = (q: number) => q + 1;
          const h = function (z) { return z; };
          const r = cond ? foo(1, 2) : new Bar();
          var w = foo(a, b);
          return w;
        }
        function* gen() { yield 1; }
    """,
    "java": """
        public class Main {
            int[] arr = {1, 2, 3};
            enum E { A, B }
            interface I { void g(); }
            Main(int a) { super(); this.x = a; }
            public static void main(String[] args) {
                java.util.List<String> l = new java.util.ArrayList<>();
                char c = '\\n'; double d = 2.5e3; long h = 0x10L; String s = "abc";
                int o = 0777, b = 0b1010, n = 12345; double x = 0x1.8p1;
                if (args.length > 0) { return; }
                foo(1, 2);
            }
            int h() { return 1 + 2; }
            record R(int a) {}
        }
    """,
    "go": """
        package main

        import "fmt"

        type P struct {
        \tX int
        }

        func (p *P) M(a int) error { return nil }

        func f(a int, b string) (int, error) {
        \tif a > 3 && b != "" {
        \t\treturn a * 2, nil
        \t}
        \tm := map[string]int{"a": 1}
        \ts := []float64{1.5, 2.25}
        \tc := '\\n'
        \tr := `raw`
        \tfn := func(q int) int { return q + 1 }
        \tfmt.Println(m, s, c, r, fn(3))
        \treturn 12345, nil
        }

        var limit = 3

        const name = "n"
    """,
    "bash": """
        f() { local x="$1"; echo "x=$x" 'lit' $((x + 42)); }
        if [ "$#" -gt 3 ] && grep -q foo file.txt; then f "a" b | wc -l; fi
        for i in 1 2 3; do echo $i; done
        while read -r line; do echo "$line"; done < input.txt
        v=$(ls -la /tmp) arr=(one two three)
    """,
    "ruby": """
        class A < B
          def initialize(a, b = 2.5)
            @h = { "k" => [1, 2, 3] }
          end
          def m(x, y)
            return x + 1 if x > 10
            if y > 12345 then puts("no") end
            while x > 100 do x -= 1 end
            [1, 2].each do |v| puts v end
            [3].map { |w| w * 2 }
            s = 'lit' "#{x} interp"
            foo(12345, 2)
          end
        end
    """,
    "csharp": """
        namespace N {
          public class C {
            private int x = 12345;
            public C(int a) { x = a; }
            int M(int a, double b = 2.5) {
              if (a > 3 && b < 1.0) { return a * 2; }
              while (a > 12345) { a--; }
              int[] arr = new int[] { 1, 2, 3 };
              char c = '\\n'; string v = @"verb"; string i = $"interp {a}";
              string s = "abcdef"; string r = \"\"\"raw text\"\"\";
              return Foo(1, 2);
            }
          }
          enum E { A, B }
        }
    """,
    "kotlin": """
        class C : B() {
            val z: Long = 12345L
            fun m(a: Int, b: Double = 12.345): Int {
                if (a > 3 && b < 1.0) { return a * 2 }
                val arr = arrayOf(1, 2, 3)
                val c = '\\n'; val s = "abc"
                val f = { q: Int -> q + 1 }
                return foo(1, 2)
            }
        }
    """,
    "php": """
        <?php
        class C extends B {
            private $x = 12345;
            public function m($a, $b = 2.5) {
                if ($a > 3 && $b) { return $a * 2; }
                while ($a > 0) { $a--; }
                $arr = [1, 2, 3]; $s = "abc $a"; $t = 'lit'; $u = $a ? 3 : 4;
                return foo(1, 2);
            }
        }
    """,
    "lua": """
        local M = {}
        function M.f(a, b)
          if a > 3 and b then return a * 2 elseif not a then error("bad") end
          while a > 12345 do a = a - 1 end
          local t = { 1, 2, k = "v" }
          return foo(1, 2), 12345
        end
        return M
    """,
    "zig": """
        const std = @import("std");
        fn f(a: i32, b: f64) i32 {
            const arr = [_]u8{ 1, 2, 3 };
            const c = '\\n';
            _ = arr; _ = c; _ = b;
            return a * 12345;
        }
        pub fn main() void { _ = f(1, 2.5); }
    """,
    "json": """
        {"a": [1, 2.5, true, null], "b": {"c": "str"}, "n": 12345}
    """,
    "scala": """
        object Main {
          case class P(x: Int, y: List[String])
          def f(a: Int, b: Double = 2.5): Int = {
            if (a > 3 && b < 1.0) { return a * 2 }
            while (a > 12345) { println("x") }
            val c = '\\n'; val s = s"abc $a"
            foo(1, 12345)
          }
        }
    """,
    "swift": """
        struct P { var x: Int = 12345; let y: [String] = ["a"] }
        func f(a: Int, b: Double = 2.5) -> Int {
            if a > 3 { return a * 2 }
            while a > 12345 { print("x") }
            let d = ["k": 1]
            let m = \"\"\"
            abc
            \"\"\"
            return foo(1, 2)
        }
    """,
}
# Operators: each sample compares, combines and shifts, and assigns with an operator (indented
# as the samples are: _sample dedents them).
_OPERATORS = {
    "c": "int ops(int a, int b) { a += b; return a == b && a << b; }",
    "cpp": "int ops(int a, int b) { a += b; return a == b && a << b; }",
    "rust": "fn ops(mut a: i32, b: i32) -> bool { a += b; a == b && a << b > 0 }",
    "python": "def ops(a, b):\n    a += b\n    return a == b and a ** b",
    "javascript": "function ops(a, b) { a += b; return a === b && a ** b; }",
    "typescript": "function ops(a: number, b: number) { a += b; return a === b && a ** b; }",
    "go": "func ops(a int, b int) bool { a += b; return a == b && a<<b > 0 }",
}
for _lang, _code in _OPERATORS.items():
    SAMPLES[_lang] = SAMPLES[_lang].rstrip(" ") + textwrap.indent(_code, " " * 8) + "\n"
SAMPLES["java"] = SAMPLES["java"].replace(
    "int h() { return 1 + 2; }",
    "int h() { return 1 + 2; }\n"
    "            int ops(int a, int b) { a += b; return a == b && a << b > 0 ? 1 : 0; }",
)
SAMPLES["tsx"] = SAMPLES["typescript"] + "const el = <div className='x'>hi</div>;\n"
SAMPLES["smtlib"] = '(declare-const s String)\n(assert (= s "abc"))\n(assert (> 12 0))\n'

# (language, node text, replacement) that the language's sample must be offered.
EXPECTED: list[tuple[str, str, str]] = [
    ("c", "{ int a; unsigned long b; }", "{}"),
    ("c", "{1, 2, 3}", "{0}"),
    ("c", "3.25e10", "0"),
    ("c", '"hello" " world"', '""'),
    ("c", "'\\n'", "0"),
    ("c", "(int x, long y)", "()"),
    ("c", "(x > 3)", "(1)"),
    ("c", "(x > 3)", "(0)"),
    ("c", "return 1 + 2;", "return;"),
    ("c", "unsigned long", "int"),
    ("c", "f(42, 100)", "0"),
    ("cpp", 'R"(raw)"', '""'),
    ("cpp", "<std::pair<int, long>>", "<int>"),
    ("cpp", "(int k = 3; k > 2)", "(1)"),
    ("cpp", "[](int a, int b) -> int { return a * b; }", "[]{}"),
    ("cpp", "{ int g = 12345; }", "{}"),
    ("rust", "{ self.x as u64 }", "{}"),
    ("rust", "2.25", "0.0"),
    ("rust", 'r#"raw"#', '""'),
    ("rust", "[1, 2, 3]", "()"),
    ("rust", "a > 10 && b.len() < 3", "true"),
    ("rust", 'String::from("no")', "todo!()"),
    ("rust", "return Ok(a * 2)", "return"),
    ("rust", "Result<i32, String>", "()"),
    ("rust", "Vec<u8>", "_"),
    ("rust", "|q: i32|", "||"),
    ("python", "return self.m(a[1:], b=b * 2)", "pass"),
    ("python", "12345", "0"),
    ("python", '"""Doc."""', '""'),
    ("python", "(self, a: list[int], b=2.5)", "()"),
    ("python", "a and len(a) > 2", "1"),
    ("python", "a is not None", "0"),
    ("python", "return 0x1F if d else None", "return"),
    ("python", "list[int]", "int"),
    ("python", "{k: v for k, v in d.items()}", "{}"),
    ("javascript", "{ return v.length * 2; }", "{}"),
    ("javascript", "`t${a}`", '""'),
    ("javascript", "(a > 3 && b)", "(1)"),
    ("javascript", "(q) => q + 1", "()=>{}"),
    ("javascript", '<div className="x">hi</div>', "<a/>"),
    ("typescript", ": Array<number>", ":any"),
    ("typescript", "{ Red = 1, Green }", "{}"),
    ("typescript", "{ k: Map<string, number> }", "{}"),
    ("typescript", "{ a: number; b?: string[] }", "{}"),
    ("tsx", "<div className='x'>hi</div>", "<a/>"),
    ("tsx", "<string, number>", "<any>"),
    ("java", "{ super(); this.x = a; }", "{}"),
    ("java", "0x10L", "0"),
    ("java", "'\\n'", "'a'"),
    ("java", "(args.length > 0)", "(true)"),
    ("java", "return 1 + 2;", "return;"),
    ("java", "java.util.List<String>", "var"),
    ("go", "{ return q + 1 }", "{}"),
    ("go", "{\n\tX int\n}", "{}"),
    ("go", '{"a": 1}', "{}"),
    ("go", "(a int, b string)", "()"),
    ("go", 'a > 3 && b != ""', "true"),
    ("go", "return 12345, nil", "return"),
    ("bash", "echo $i", ":"),
    ("bash", "do echo $i; done", "do :;done"),
    ("bash", '{ local x="$1"; echo "x=$x" \'lit\' $((x + 42)); }', "{ :;}"),
    ("ruby", '@h = { "k" => [1, 2, 3] }', "nil"),
    ("ruby", "(12345, 2)", "()"),
    ("ruby", "return x + 1", "return"),
    ("csharp", "{ x = a; }", "{}"),
    ("csharp", '$"interp {a}"', '""'),
    ("csharp", "a > 3 && b < 1.0", "true"),
    ("kotlin", "12345L", "0L"),
    ("kotlin", "return a * 2", "return"),
    ("php", "[1, 2, 3]", "[]"),
    ("php", '"abc $a"', "''"),
    ("lua", '{ 1, 2, k = "v" }', "{}"),
    ("lua", "foo(1, 2)", "0"),
    ("zig", "{ 1, 2, 3 }", "{}"),
    ("json", '{"c": "str"}', "{}"),
    ("scala", "foo(1, 12345)", "???"),
    ("swift", '["k": 1]', "[:]"),
]


def _sample(lang: str) -> bytes:
    return textwrap.dedent(SAMPLES[lang]).lstrip().encode()


def _language(lang: str) -> tree_sitter.Language:
    # SMT-LIB is read through another grammar (languages.py).
    if lang == "smtlib":
        return get_language(lang)
    # The pack types its argument as a Literal of every name; tests loop over plain strings.
    return pack.get_language(cast(Any, lang))


def _parse(lang: str, source: bytes) -> tree_sitter.Tree:
    if lang == "smtlib":
        return new_parser(lang).parse(source)
    return pack.get_parser(cast(Any, lang)).parse(source)


def _hints(lang: str) -> Hints:
    """The files of `lang`, checked against the captures the reducer registers."""
    return load_hints(lang, _language(lang), captures=vocabulary())


def _drops(matches: QueryMatches) -> list[tuple[Span, ...]]:
    """The spans of each @drop match, as the drop capture reads them."""
    return sorted(
        {
            tuple(sorted(m.captures["drop"]))
            for m in matches.matches
            if m.replacement is None and m.captures.get("drop")
        }
    )


def _offered(lang: str, source: bytes) -> set[tuple[bytes, bytes]]:
    tree = _parse(lang, source)
    return {(source[r.start : r.end], r.text) for r in _hints(lang).replacements(tree)}


def _bundled_languages() -> list[str]:
    root = importlib.resources.files("treereduce_py.queries")
    return sorted(d.name for d in root.iterdir() if (d / "replacements.scm").is_file())


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


# -- the bundled files ---------------------------------------------------------------------------


def test_required_languages_are_shipped_and_sampled() -> None:
    assert set(_bundled_languages()) >= REQUIRED
    assert set(SAMPLES) == set(_bundled_languages())


@pytest.mark.parametrize("lang", _bundled_languages())
def test_bundled_file_compiles_and_every_pattern_sets_a_replacement(lang: str) -> None:
    total = 0
    for path in query_files(lang):  # its own file last, after the files it inherits
        query = tree_sitter.Query(_language(lang), path.read_text())
        assert query.pattern_count > 0
        captures = [query.capture_name(i) for i in range(query.capture_count)]
        # Names starting with `_` only serve predicates (tree-sitter's private captures).
        known = {CAPTURE, *(n for mark, parts in vocabulary().items() for n in (mark, *parts))}
        assert {c for c in captures if not c.startswith("_")} <= known
        for i in range(query.pattern_count):
            text = query.pattern_settings(i).get(SETTING)
            # A pattern sets a replacement, or marks nodes for another capture (none set).
            marks = set(vocabulary()) & set(captures)
            assert (isinstance(text, str) and text) or marks, (lang, i)
        total += query.pattern_count
    assert query_files(lang)[-1].parent.name == lang
    assert _hints(lang).pattern_count == total


@pytest.mark.parametrize("lang", sorted(SAMPLES))
def test_sample_uses_every_pattern_and_each_replacement_keeps_it_parsing(lang: str) -> None:
    source = _sample(lang)
    tree = _parse(lang, source)
    assert not tree.root_node.has_error, "the sample itself must parse"
    # Which patterns of the language's own file fire (and would shorten their node) on the
    # sample; an inherited file is exercised by the sample of its own language.
    path = query_files(lang)[-1]
    query = tree_sitter.Query(_language(lang), path.read_text())
    fired = Counter[int]()
    for index, captures in tree_sitter.QueryCursor(query).matches(tree.root_node):
        if any(mark in captures for mark in vocabulary()):
            fired[index] += 1
            continue
        text = query.pattern_settings(index)[SETTING] or ""
        fired[index] += sum(len(text) < n.end_byte - n.start_byte for n in captures[CAPTURE])
    unused = [i for i in range(query.pattern_count) if not fired[i]]
    assert not unused, [
        path.read_text()[query.start_byte_for_pattern(i) :].splitlines()[0] for i in unused
    ]
    # Every bundled hint keeps the program parseable on its own.
    broken = []
    for r in _hints(lang).replacements(tree):
        candidate = source[: r.start] + r.text + source[r.end :]
        if _parse(lang, candidate).root_node.has_error:
            broken.append((source[r.start : r.end], r.text))
    # So does every drop (its parts deleted together).
    for group in _drops(_hints(lang).matches(tree)):
        candidate, dropped = source, b""
        for start, end, _ in reversed(group):
            candidate, dropped = candidate[:start] + candidate[end:], source[start:end] + dropped
        if _parse(lang, candidate).root_node.has_error:
            broken.append((dropped, b""))
    assert broken == []


@pytest.mark.parametrize(("lang", "original", "replacement"), EXPECTED)
def test_expected_replacement_is_offered(lang: str, original: str, replacement: str) -> None:
    assert (original.encode(), replacement.encode()) in _offered(lang, _sample(lang))


# SMT-LIB's file only marks literals (@trim): its replacements are its rules' (smtlib.py).
@pytest.mark.parametrize("lang", sorted(set(SAMPLES) - {"smtlib"}))
def test_replacements_are_shorter_sorted_unique_and_match_the_nodes(lang: str) -> None:
    source = _sample(lang)
    tree = _parse(lang, source)
    found = _hints(lang).replacements(tree)
    assert found, "every sample gets some hints"
    for r in found:
        assert len(r.text) < r.end - r.start
        assert r.text != source[r.start : r.end]
        node = tree.root_node.descendant_for_byte_range(r.start, r.end)
        assert node is not None
        # The node with that range and kind exists (it may sit above the smallest one).
        kinds = set()
        while node is not None and (node.start_byte, node.end_byte) == (r.start, r.end):
            kinds.add(node.kind_id)
            node = node.parent
        assert r.kind_id in kinds
    assert found == sorted(found, key=lambda r: (r.start, -(r.end - r.start), r.kind_id, r.text))
    assert len({(r.start, r.end, r.kind_id, r.text) for r in found}) == len(found)


def test_c_main_body_becomes_empty_and_short_literals_are_left_alone() -> None:
    offered = _offered("c", b"int main(){return 1+2;}")
    assert (b"{return 1+2;}", b"{}") in offered
    assert (b"return 1+2;", b"return;") in offered
    assert (b"1+2", b"0") in offered
    # "1" -> "0" would not make the text shorter.
    assert not any(original in (b"1", b"2") for original, _ in offered)
    assert (b"1234", b"0") in _offered("c", b"int x = 1234;")


def test_given_the_source_a_hint_as_long_is_offered_where_it_is_smaller() -> None:
    source = b"int x = 6, y = 1, z = 0; void f() {}"
    tree = _parse("c", source)
    found = {(source[r.start : r.end], r.text) for r in _hints("c").replacements(tree, source)}
    assert {(b"6", b"0"), (b"6", b"1"), (b"1", b"0")} <= found
    assert not {(b"1", b"1"), (b"0", b"0"), (b"0", b"1"), (b"{}", b"{}")} & found
    for original, text in found:
        assert len(text) < len(original) or text < original


def test_python_function_body_becomes_pass_and_still_parses() -> None:
    source = b"def f(a):\n    x = a + 1\n    return x\n"
    tree = _parse("python", source)
    [body] = [
        r for r in _hints("python").replacements(tree) if source[r.start : r.end].startswith(b"x =")
    ]
    assert body.text == b"pass"
    candidate = source[: body.start] + body.text + source[body.end :]
    assert candidate == b"def f(a):\n    pass\n"
    assert not _parse("python", candidate).root_node.has_error


def test_replacements_of_a_node_stay_inside_it() -> None:
    source = b"int f(void) { return 12345; }\nint g(void) { return 67890; }\n"
    tree = _parse("c", source)
    g = tree.root_node.children[1]
    inside = _hints("c").replacements(g)
    assert inside
    assert all(g.start_byte <= r.start and r.end <= g.end_byte for r in inside)
    assert (b"67890", b"0") in {(source[r.start : r.end], r.text) for r in inside}
    assert b"12345" not in {source[r.start : r.end] for r in inside}


def test_language_without_hint_files_gets_none() -> None:
    hints = load_hints("yaml", _language("yaml"))
    assert hints.files == ()
    assert hints.replacements(_parse("yaml", b"a: [1, 2]\n")) == []


# -- user query directories ----------------------------------------------------------------------


def test_user_directory_adds_hints_after_the_bundled_file(tmp_path: Path) -> None:
    second = _write(tmp_path / "c" / "b.scm", '((identifier) @replace (#set! replacement "v"))\n')
    first = _write(
        tmp_path / "c" / "a.scm",
        """\
        ; Calls to one function only; other captures may help a pattern.
        ((call_expression function: (identifier) @fn) @replace
          (#set! replacement "1")
          (#eq? @fn "printf"))
        ; The same text as a bundled hint is offered once.
        ((compound_statement) @replace (#set! replacement "{}"))
        """,
    )
    _write(tmp_path / "python" / "x.scm", "this is not for C")
    files = query_files("c", [tmp_path])
    assert files[1:] == [first, second]
    assert files[0].name == "replacements.scm"

    hints = load_hints("c", _language("c"), [tmp_path])
    source = b'int main(void) { printf("hi"); puts("x"); return zeta; }'
    found = hints.replacements(_parse("c", source))
    offered = [(source[r.start : r.end], r.text) for r in found]
    assert (b'printf("hi")', b"1") in offered
    assert (b'puts("x")', b"1") not in offered
    assert (b"zeta", b"v") in offered
    assert offered.count((b'{ printf("hi"); puts("x"); return zeta; }', b"{}")) == 1
    # Without the directory none of the user's hints appear.
    assert (b"zeta", b"v") not in _offered("c", source)


def test_user_directory_can_add_a_language_that_ships_none(tmp_path: Path) -> None:
    _write(tmp_path / "yaml" / "r.scm", '((flow_sequence) @replace (#set! replacement "[]"))\n')
    hints = load_hints("yaml", _language("yaml"), [tmp_path])
    source = b"a: [1, 2]\n"
    found = hints.replacements(_parse("yaml", source))
    assert [(source[r.start : r.end], r.text) for r in found] == [(b"[1, 2]", b"[]")]


def test_hints_are_cached_per_language_and_directories(tmp_path: Path) -> None:
    language = _language("c")
    assert load_hints("c", language) is load_hints("c", language)
    _write(tmp_path / "c" / "r.scm", '((identifier) @replace (#set! replacement "v"))\n')
    with_dir = load_hints("c", language, [tmp_path])
    assert with_dir is not load_hints("c", language)
    assert with_dir is load_hints("c", language, (tmp_path,))


# -- broken user files ---------------------------------------------------------------------------

BROKEN = [
    ("syntax", '; fine\n((number_literal) @replace (#set! replacement "0"))\n\n((( @replace\n', 4),
    ("node", '; comment\n\n((no_such_kind) @replace (#set! replacement "0"))\n', 3),
    (
        "field",
        '((number_literal) @replace (#set! replacement "0"))\n((call_expression nope: (_)))',
        2,
    ),
    (
        "no setting",
        '((number_literal) @replace (#set! replacement "0"))\n((string_literal) @replace)\n',
        2,
    ),
    ("no capture", '\n((number_literal) @other (#set! replacement "0"))\n', 2),
    ("predicate", "((number_literal) @replace\n  (#eq? @replace))\n", 1),
    (
        "order",
        '((number_literal) @replace\n  (#eq? @replace "12")\n  (#set! replacement "0"))\n',
        3,
    ),
    ("eof", '((number_literal) @replace (#set! replacement "0")\n', 1),
]


@pytest.mark.parametrize(("case", "text", "line"), BROKEN, ids=[b[0] for b in BROKEN])
def test_broken_user_file_names_file_and_line(
    tmp_path: Path, case: str, text: str, line: int
) -> None:
    path = _write(tmp_path / "c" / f"{case.replace(' ', '_')}.scm", text)
    with pytest.raises(QueryFileError) as info:
        load_hints("c", _language("c"), [tmp_path], vocabulary())
    assert info.value.path == path
    assert info.value.line == line
    assert str(info.value).startswith(f"{path}:{line}: ")


def test_directive_before_text_predicate_is_accepted(tmp_path: Path) -> None:
    _write(
        tmp_path / "c" / "r.scm",
        '((number_literal) @replace (#set! replacement "0") (#match? @replace "^12"))\n',
    )
    hints = load_hints("c", _language("c"), [tmp_path])
    source = b"int a = 12345, b = 99999;"
    found = hints.replacements(_parse("c", source))
    user = [r for r in found if source[r.start : r.end] == b"12345"]
    assert user and b"0" in {r.text for r in user}  # the bundled file offers `1` too


def test_strings_and_comments_do_not_confuse_the_checks(tmp_path: Path) -> None:
    # A `#set!` or `@replace` inside a string or comment is text, not query syntax.
    _write(
        tmp_path / "c" / "r.scm",
        """\
        ; (#eq? @x "y") (#set! a "b") @replace
        ((string_literal) @replace (#set! replacement "\\"#eq? (\\"") (#set! note "@replace"))
        """,
    )
    hints = load_hints("c", _language("c"), [tmp_path])
    source = b'char *s = "a long string";'
    found = hints.replacements(_parse("c", source))
    assert Replacement(10, 25, found[-1].kind_id, b'"#eq? ("') in found


def test_invalid_utf8_and_missing_directory(tmp_path: Path) -> None:
    path = tmp_path / "c" / "bad.scm"
    path.parent.mkdir()
    path.write_bytes(b'; ok\n((number_literal) @replace (#set! replacement "\xff"))\n')
    with pytest.raises(QueryFileError, match=r"bad\.scm:2: not valid UTF-8"):
        load_hints("c", _language("c"), [tmp_path])
    missing = tmp_path / "nope"
    with pytest.raises(QueryFileError, match="no such query directory") as info:
        query_files("c", [missing])
    assert info.value.path == missing


def test_query_file_error_survives_pickling() -> None:
    error = QueryFileError(Path("q/c/x.scm"), 7, "broken")
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.path, copy.line, copy.reason, str(copy)) == (
        error.path,
        error.line,
        error.reason,
        "q/c/x.scm:7: broken",
    )
    assert isinstance(copy, ValueError)


@pytest.mark.parametrize(
    ("lang", "pattern", "missing"),
    [
        ("python", "(assignment left: (identifier) @inline.name) @inline", "@inline.value"),
        ("python", "(function_definition) @define", "@define.name"),
        ("python", "(call function: (_) @call.callee) @call", "@call.arguments"),
        ("rust", "(generic_type) @hoist", "@hoist.target"),
    ],
)
def test_a_pattern_without_its_parts_is_refused(
    tmp_path: Path, lang: str, pattern: str, missing: str
) -> None:
    """An @inline, @define, @call or @hoist pattern names each of its parts."""
    (tmp_path / lang).mkdir()
    (tmp_path / lang / "bad.scm").write_text(f"\n{pattern}\n")
    mark = pattern.rsplit("@", 1)[1]
    with pytest.raises(QueryFileError, match=rf"bad.scm:2: an @{mark} pattern lacks {missing}"):
        load_hints(lang, _language(lang), (tmp_path,), vocabulary())


@given(
    st.lists(
        st.dictionaries(
            st.sampled_from(["a", "b", "c"]),
            st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.just(1)), max_size=2),
        ),
        max_size=8,
    ),
    st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=2),
)
def test_groups_are_the_matches_with_one_node_for_each_name(
    raw: list[dict[str, list[tuple[int, int, int]]]], names: list[str]
) -> None:
    matches = QueryMatches(tuple(Match({k: tuple(v) for k, v in m.items()}) for m in raw))
    whole = sorted(
        {
            tuple(m.captures[n][0] for n in names)
            for m in matches.matches
            if all(len(m.captures.get(n, ())) == 1 for n in names)
        }
    )
    assert matches.groups(names) == whole
    assert matches.groups(names[::-1]) == sorted(tuple(g[::-1]) for g in whole)  # index reused
