"""Tests for crash signatures: which line is chosen, what normalization hides, what matches.

Fixtures marked "captured" were produced on a Debian 12 machine by the tool named (python 3.11,
gcc 12, clang 14, node 20, rustc 1.95, OpenJDK); stack traces are trimmed. Compiler crashes that
cannot be reproduced on demand follow the formats of public bug reports (cited at each one).
A few tests run real crashes live (Python, C), skipping when the tool is absent.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from treereduce_py.judge.signature import CrashSignature, extract, from_user_regex, normalize

# --- captured fixtures -----------------------------------------------------------------------

# python3 crash.py, run from two different temp dirs (captured, paths rewritten to temp dirs).
PY_TRACEBACK = """\
Traceback (most recent call last):
  File "{dir}/crash.py", line 7, in <module>
    main()
  File "{dir}/crash.py", line 6, in main
    a(3)
  File "{dir}/crash.py", line 4, in a
    return a(n - 1)
           ^^^^^^^^
  File "{dir}/crash.py", line 3, in a
    raise ValueError("bad thing: %d" % 42)
ValueError: bad thing: 42
"""

# python3 chain.py: `raise RuntimeError(...) from e` (captured).
PY_CHAINED = """\
Traceback (most recent call last):
  File "/tmp/sigwork/chain.py", line 4, in load
    return json.loads(s)
           ^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/json/decoder.py", line 353, in raw_decode
    obj, end = self.scan_once(s, idx)
               ^^^^^^^^^^^^^^^^^^^^^^
json.decoder.JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 2 \
(char 1)

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/tmp/sigwork/chain.py", line 7, in <module>
    load("{")
  File "/tmp/sigwork/chain.py", line 6, in load
    raise RuntimeError("config is broken") from e
RuntimeError: config is broken
"""

# python3 syn.py (captured): no "Traceback" header for a syntax error in the script itself.
PY_SYNTAX = """\
  File "/tmp/sigwork/syn.py", line 1
    def f(:
          ^
SyntaxError: invalid syntax
"""

# node t.js (captured): node quotes the user's source line before the exception.
NODE_TYPEERROR = """\
/tmp/sigwork/t.js:1
function f(x) { if (x > 2) throw new TypeError("x is not a function"); return f(x+1); }
                           ^

TypeError: x is not a function
    at f (/tmp/sigwork/t.js:1:34)
    at f (/tmp/sigwork/t.js:1:79)
    at Object.<anonymous> (/tmp/sigwork/t.js:2:1)
    at Module._compile (node:internal/modules/cjs/loader:1521:14)

Node.js v20.20.2
"""

# node -e 'throw "plain string"' (captured).
NODE_THROW_STRING = """\
[eval]:1
throw "plain string"
^
plain string
(Use `node --trace-uncaught ...` to show where the exception was thrown)

Node.js v20.20.2
"""

# java Crash.java (captured).
JAVA_EXCEPTION = """\
Exception in thread "main" java.lang.IllegalStateException: empty input at step 3
\tat Crash.f(Crash.java:2)
\tat Crash.main(Crash.java:3)
"""

# A Rust program's `expect` failing, rustc 1.95 with RUST_BACKTRACE=1 (captured; the number
# after the thread name is the thread id, different in every run).
RUST_PANIC = """\
thread 'main' ({tid}) panicked at {dir}p.rs:5:16:
value must be present
stack backtrace:
   0: __rustc::rust_begin_unwind
             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/std/src/panicking.rs:689:5
   1: core::panicking::panic_fmt
             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/panicking.rs:80:14
   5: p::main
note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.
"""

# rustc ce.rs (captured): a plain compile error.
RUSTC_E0308 = """\
error[E0308]: mismatched types
 --> ce.rs:2:18
  |
2 |     let x: i32 = "hello";
  |            ---   ^^^^^^^ expected `i32`, found `&str`
  |            |
  |            expected due to this

error: aborting due to 1 previous error

For more information about this error, try `rustc --explain E0308`.
"""

# gcc -c ce.c (captured).
GCC_ERROR = """\
ce.c: In function \u2018main\u2019:
ce.c:2:12: error: \u2018x\u2019 undeclared (first use in this function)
    2 |     return x;
      |            ^
ce.c:2:12: note: each undeclared identifier is reported only once for each function it appears in
"""

# ./as (captured): glibc's assert, SIGABRT.
C_ASSERT = "as: as.c:2: main: Assertion `argc == 5' failed.\n"

# bash -c './seg; exit $?' (captured): the shell reports the child's SIGSEGV as exit 139.
BASH_SEGV_STDOUT = "about to crash\n"
BASH_SEGV_STDERR = "bash: line 1:  {pid} Segmentation fault      ./seg\n"

# ./ub with gcc -fsanitize=undefined (captured).
UBSAN = (
    "ub.c:2:64: runtime error: signed integer overflow: 2147483647 + 1 cannot be represented "
    "in type 'int'\n"
)

# gcc -fsanitize=address, heap-buffer-overflow (captured, trimmed).
ASAN = """\
=================================================================
=={pid}==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x{a}020 at pc 0x{b}1ca bp \
0x7ffc2bd970e0 sp 0x7ffc2bd970d8
READ of size 4 at 0x{a}020 thread T0
    #0 0x{b}1c9 in main {dir}/asan.c:2
    #1 0x7f559f445249 in __libc_start_call_main ../sysdeps/nptl/libc_start_call_main.h:58

SUMMARY: AddressSanitizer: heap-buffer-overflow {dir}/asan.c:2 in main
=={pid}==ABORTING
"""

# clang-14 -c crash.c with `#pragma clang __debug crash` (captured, frames trimmed): a release
# build has no assertion text, so the crashing frame identifies the crash.
CLANG_CRASH = (
    "PLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/ and include the "
    "crash backtrace, preprocessed source, and associated run script.\n"
    "Stack dump:\n"
    "0.\tProgram arguments: clang-14 -c cl1/crash.c -o /dev/null\n"
    "1.\tcl1/crash.c:2:2: current parser token 'pragma'\n"
    "2.\tcl1/crash.c:1:16: parsing function body 'main'\n"
    " #0 0x00007ff7178a5291 llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) "
    "(/lib/x86_64-linux-gnu/libLLVM-14.so.1+0xea5291)\n"
    " #1 0x00007ff7178a2fbe llvm::sys::RunSignalHandlers() "
    "(/lib/x86_64-linux-gnu/libLLVM-14.so.1+0xea2fbe)\n"
    " #2 0x00007ff7178a464b llvm::sys::CleanupOnSignal(unsigned long) "
    "(/lib/x86_64-linux-gnu/libLLVM-14.so.1+0xea464b)\n"
    " #3 0x00007ff7177cb83f (/lib/x86_64-linux-gnu/libLLVM-14.so.1+0xdcb83f)\n"
    " #4 0x00007ff71685a050 (/lib/x86_64-linux-gnu/libc.so.6+0x3c050)\n"
    " #5 0x00007ff71de20692 (/lib/x86_64-linux-gnu/libclang-cpp.so.14+0xa20692)\n"
    " #6 0x00007ff71de1971f clang::Preprocessor::HandlePragmaDirective(clang::PragmaIntroducer) "
    "(/lib/x86_64-linux-gnu/libclang-cpp.so.14+0xa1971f)\n"
    " #7 0x00007ff71ddf682a clang::Preprocessor::HandleDirective(clang::Token&) "
    "(/lib/x86_64-linux-gnu/libclang-cpp.so.14+0x9f682a)\n"
    "clang: error: clang frontend command failed with exit code 132 (use -v to see invocation)\n"
    "Debian clang version 14.0.6\n"
    "clang: note: diagnostic msg: /tmp/crash-f2d685.c\n"
)

# clang-14 with `#pragma clang __debug llvm_fatal_error` (captured, trimmed).
CLANG_FATAL = (
    "fatal error: error in backend: #pragma clang __debug llvm_fatal_error\n"
    "PLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/ and include the "
    "crash backtrace, preprocessed source, and associated run script.\n"
    "Stack dump:\n"
    "0.\tProgram arguments: clang-14 -c cl1/fe.c -o /dev/null\n"
    " #7 0x00007f734d5da393 llvm::report_fatal_error(llvm::Twine const&, bool) "
    "(/lib/x86_64-linux-gnu/libLLVM-14.so.1+0xdda393)\n"
    "clang: error: clang frontend command failed with exit code 70 (use -v to see invocation)\n"
)

# --- compiler crashes in the formats of public bug reports -----------------------------------

# gcc ICE after an earlier error, as in adapteva/epiphany-sdk#38 (gcc 4.8).
GCC_ICE = """\
bug.c: In function \u2018test\u2019:
bug.c:9:1: error: unrecognizable insn:
 }
 ^
bug.c:9:1: internal compiler error: in extract_insn, at recog.c:2154
0x7ac31a _fatal_insn(char const*, rtx_def const*, char const*, int, char const*)
\t/home/esim/esdk-src/unisrc-2014.11/gcc/rtl-error.c:109
Please submit a full bug report,
with preprocessed source if appropriate.
"""

# gcc 12's report of a crash inside cc1, with its source echo.
GCC_ICE_SEGV = """\
crash.c: In function \u2018f\u2019:
crash.c:3:5: internal compiler error: Segmentation fault
    3 |     return g(x);
      |     ^~~~~~
0xe3f22f crash_signal
\t../../src/gcc/toplev.cc:322
Please submit a full bug report, with preprocessed source (by using -freport-bug).
Please include the complete backtrace with any bug report.
See <file:///usr/share/doc/gcc-12/README.Bugs> for instructions.
"""

# rustc >= 1.73 ICE via bug!/span_bug!: the ICE line says what went wrong, the panic is generic
# (layout of rust-lang/rust#138710 and #121535; rustc >= 1.85 prints the thread id).
RUSTC_ICE_BUG = """\
error: internal compiler error: compiler/rustc_middle/src/ty/normalize_erasing_regions.rs:168:90: \
Failed to normalize Alias(Projection, AliasTy {{ args: [T/#0], \
def_id: DefId(0:5 ~ crash[4f5a]::Tr::Out) }})
  --> {dir}crash.rs:{line}:5
   |
{line} |     let _ = std::mem::size_of::<T::Out>();
   |             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

thread 'rustc' ({tid}) panicked at compiler/rustc_middle/src/ty/normalize_erasing_regions.rs:168:90:
Box<dyn Any>
stack backtrace:
   0:     0x7f5b2c1f0a45 - std::backtrace_rs::backtrace::libunwind::trace::h5a5b8284f2d0c266

error: the compiler unexpectedly panicked. this is a bug.

note: please attach the file at `{dir}rustc-ice-2024-05-01T12_03_44-{tid}.txt` to your bug report

query stack during panic:
#0 [layout_of] computing layout of `Foo`
end of query stack
"""

# rustc >= 1.73 panicking in compiler code: the message follows the location line.
RUSTC_ICE_PANIC = """\
thread 'rustc' panicked at compiler/rustc_const_eval/src/interpret/place.rs:543:9:
assertion failed: layout.is_sized()
stack backtrace:
   0: __rustc::rust_begin_unwind
error: the compiler unexpectedly panicked. this is a bug.

query stack during panic:
#0 [eval_to_allocation_raw] const-evaluating + checking `FOO`
end of query stack
"""

# rustc 1.50 (old format, rust-lang/rust#80321): the panic line says more than the ICE line.
RUSTC_ICE_OLD = """\
thread 'rustc' panicked at 'called `Option::unwrap()` on a `None` value', \
compiler/rustc_middle/src/ty/query/mod.rs:235:5
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace

error: internal compiler error: unexpected panic

note: the compiler unexpectedly panicked. this is a bug.

query stack during panic:
end of query stack
"""

# An assertion-enabled clang (as in llvm/llvm-project issue reports from Compiler Explorer).
CLANG_ASSERT = (
    "clang++: /root/llvm-project/clang/lib/AST/Expr.cpp:4655: "
    "clang::BinaryOperator::BinaryOperator(const clang::ASTContext&, clang::Expr*, clang::Expr*, "
    "clang::BinaryOperator::Opcode, clang::QualType, clang::ExprValueKind, clang::ExprObjectKind, "
    "clang::SourceLocation, clang::FPOptionsOverride): Assertion `!isCompoundAssignmentOp() && "
    '"Use CompoundAssignOperator for compound assignments"\' failed.\n'
    "PLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/ and include the "
    "crash backtrace, preprocessed source, and associated run script.\n"
    "Stack dump:\n"
    "0.\tProgram arguments: /opt/compiler-explorer/clang-assertions-trunk/bin/clang++ -c x.cpp\n"
    " #0 0x0000000003c2f1a8 llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) "
    "(/opt/compiler-explorer/clang-assertions-trunk/bin/clang+++0x3c2f1a8)\n"
    "clang++: error: clang frontend command failed due to signal (use -v to see invocation)\n"
)


def _b(text: str) -> bytes:
    return text.encode()


# --- which line is chosen --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("exit_code", "stdout", "stderr", "names", "line", "source"),
    [
        pytest.param(
            1,
            "",
            PY_TRACEBACK.format(dir="/tmp/x"),
            ["crash.py"],
            "ValueError: bad thing: 42",
            "uncaught exception",
            id="python",
        ),
        pytest.param(
            1, "", PY_CHAINED, [], "RuntimeError: config is broken", "uncaught exception",
            id="python-chained",
        ),
        pytest.param(
            1, "", PY_SYNTAX, ["syn.py"], "SyntaxError: invalid syntax", "uncaught exception",
            id="python-syntax",
        ),
        pytest.param(
            1, "", NODE_TYPEERROR, ["t.js"], "TypeError: x is not a function",
            "uncaught exception", id="node",
        ),
        pytest.param(
            1, "", NODE_THROW_STRING, [], "plain string", "uncaught exception", id="node-string"
        ),
        pytest.param(
            1, "", JAVA_EXCEPTION, ["Crash.java"],
            'Exception in thread "main" java.lang.IllegalStateException: empty input at step 3',
            "uncaught exception", id="java",
        ),
        pytest.param(
            101, "", RUST_PANIC.format(tid=4453, dir=""), ["p.rs"],
            "thread 'main' panicked at p.rs:\nvalue must be present", "Rust panic",
            id="rust-panic",
        ),
        pytest.param(
            1, "", RUSTC_E0308, ["ce.rs"], "error[E0308]: mismatched types",
            "first error message", id="rustc-error",
        ),
        pytest.param(
            1, "", GCC_ERROR, ["ce.c"],
            "error: \u2018x\u2019 undeclared (first use in this function)",
            "first error message", id="gcc-error",
        ),
        pytest.param(
            -6, "", C_ASSERT, ["as.c"], "as: as.c: main: Assertion `argc == 5' failed.",
            "assertion failure", id="c-assert",
        ),
        pytest.param(
            139, BASH_SEGV_STDOUT, BASH_SEGV_STDERR.format(pid=7561), [],
            "Segmentation fault", "signal message", id="shell-segv",
        ),
        pytest.param(
            1, "", UBSAN, ["ub.c"],
            "runtime error: signed integer overflow: 2147483647 + 1 cannot be represented in "
            "type 'int'",
            "sanitizer report", id="ubsan",
        ),
        pytest.param(
            1, "", ASAN.format(pid=6448, a="6020000000", b="5583112611", dir="/tmp/w0"),
            ["asan.c"],
            "ERROR: AddressSanitizer: heap-buffer-overflow on address 0x<addr> at pc 0x<addr> "
            "bp 0x<addr> sp 0x<addr>",
            "sanitizer report", id="asan",
        ),
        pytest.param(
            132, "", CLANG_CRASH, ["crash.c"],
            "clang::Preprocessor::HandlePragmaDirective(clang::PragmaIntroducer)",
            "internal compiler error", id="clang-crash-frame",
        ),
        pytest.param(
            70, "", CLANG_FATAL, ["fe.c"],
            "error in backend: #pragma clang __debug llvm_fatal_error",
            "internal compiler error", id="clang-fatal",
        ),
        pytest.param(
            1, "", CLANG_ASSERT, ["x.cpp"], CLANG_ASSERT.split("\n")[0].replace(
                "/root/llvm-project/clang/lib/AST/", ""
            ),
            "internal compiler error", id="clang-assert",
        ),
        pytest.param(
            1, "", GCC_ICE, ["bug.c"], "internal compiler error: in extract_insn, at recog.c:2154",
            "internal compiler error", id="gcc-ice",
        ),
        pytest.param(
            1, "", GCC_ICE_SEGV, ["crash.c"], "internal compiler error: Segmentation fault",
            "internal compiler error", id="gcc-ice-segv",
        ),
        pytest.param(
            101, "", RUSTC_ICE_BUG.format(dir="/tmp/w1/", line=3, tid=81234), ["crash.rs"],
            "error: internal compiler error: compiler/rustc_middle/src/ty/"
            "normalize_erasing_regions.rs:168:90: Failed to normalize Alias(Projection, AliasTy { "
            "args: [T/#0], def_id: DefId(0:5 ~ crash[4f5a]::Tr::Out) })",
            "internal compiler error", id="rustc-ice-bug",
        ),
        pytest.param(
            101, "", RUSTC_ICE_PANIC, [],
            "thread 'rustc' panicked at compiler/rustc_const_eval/src/interpret/place.rs:543:9:\n"
            "assertion failed: layout.is_sized()",
            "internal compiler error", id="rustc-ice-panic",
        ),
        pytest.param(
            101, "", RUSTC_ICE_OLD, [],
            "thread 'rustc' panicked at 'called `Option::unwrap()` on a `None` value', "
            "compiler/rustc_middle/src/ty/query/mod.rs:235:5",
            "internal compiler error", id="rustc-ice-old",
        ),
    ],
)  # fmt: skip
def test_extract_chooses_the_most_specific_line(
    exit_code: int, stdout: str, stderr: str, names: list[str], line: str, source: str
) -> None:
    sig = extract(exit_code, _b(stdout), _b(stderr), input_names=names)
    assert sig.line == line
    assert sig.source == source
    assert sig.exit_code == exit_code
    # The golden run always matches its own signature.
    assert sig.matches(exit_code, _b(stdout), _b(stderr))


def test_stderr_is_preferred_over_stdout_and_priority_over_position() -> None:
    stdout = "ValueError: printed by the program, not raised\n"
    stderr = "note: something\nerror: plain diagnostic\n" + C_ASSERT
    sig = extract(-6, _b(stdout), _b(stderr))
    assert sig.source == "assertion failure"
    only_stdout = extract(1, _b("error: first\n" + stdout), b"")
    assert only_stdout.line == "ValueError: printed by the program, not raised"


def test_killed_by_signal_without_a_better_line_is_the_signal_alone() -> None:
    sig = extract(-11, b"about to crash\n", b"")
    assert sig.line is None and sig.pattern is None
    assert sig.source == "signal SIGSEGV"
    assert "SIGSEGV" in sig.describe()


def test_no_line_at_all_is_matched_by_exit_status_only() -> None:
    sig = extract(3, b"all fine\n", b"")
    assert sig.line is None and sig.pattern is None
    assert sig.matches(3, b"different output", b"")
    assert not sig.matches(0, b"all fine\n", b"")
    assert "exit 3" in sig.describe()


def test_quoted_user_source_is_never_the_signature() -> None:
    # gcc quotes the input line; the input happens to say "internal compiler error".
    stderr = (
        "c.c: In function \u2018f\u2019:\n"
        "c.c:2:3: error: expected \u2018;\u2019 before \u2018}\u2019 token\n"
        '    2 |   puts("internal compiler error: in foo, at bar.c:1")\n'
        "      |   ^\n"
    )
    sig = extract(1, b"", _b(stderr), input_names=["c.c"])
    assert sig.line == "error: expected \u2018;\u2019 before \u2018}\u2019 token"


# --- normalization ---------------------------------------------------------------------------


def test_normalize_hides_run_specific_details() -> None:
    text = (
        "==6448==ERROR: at 0x7ffd1234abcd pid 1234 PID=99 tid: 7\n"
        "thread 'main' (4453) panicked at /tmp/treereduce-abc123/w0/crash.rs:12:5:\n"
        "[2024-05-01 12:03:44,123] finished in 0.42s, took 15 ms at 23:59:01\n"
        "bash: line 1:  4280 Segmentation fault (core dumped)      ./seg\n"
        "\x1b[1m\x1b[31merror\x1b[0m: see C:\\Users\\me\\AppData\\Local\\Temp\\w0\\crash.rs   \n"
    )
    assert normalize(text, input_names=["crash.rs"]) == (
        "==<pid>==ERROR: at 0x<addr> pid <pid> PID=<pid> tid: <pid>\n"
        "thread 'main' panicked at crash.rs:\n"
        "[<date>] finished in <duration>, took <duration> at <time>\n"
        "bash: line <n>:  Segmentation fault      ./seg\n"
        "error: see crash.rs\n"
    )


def test_normalize_keeps_tool_locations_and_drops_input_locations() -> None:
    text = (
        "crash.c:5:1: internal compiler error: in expand_expr_real_1, at expr.cc:10586\n"
        "thread 'rustc' panicked at compiler/rustc_middle/src/ty/mod.rs:123:45:\n"
        '  File "/tmp/t/w3/crash.py", line 42, in f\n'
        '  File "/usr/lib/python3.11/json/decoder.py", line 353, in raw_decode\n'
        "w1/crash.c(7,3): error C2065\n"
        '(error "line 3 column 12: unknown constant x")\n'
    )
    assert normalize(text, input_names=["/home/me/bugs/crash.c", "crash.py"]) == (
        "crash.c: internal compiler error: in expand_expr_real_1, at expr.cc:10586\n"
        "thread 'rustc' panicked at compiler/rustc_middle/src/ty/mod.rs:123:45:\n"
        '  File "crash.py", in f\n'
        '  File "decoder.py", line <n>, in raw_decode\n'
        "crash.c: error C2065\n"
        '(error "line <n> column <n>: unknown constant x")\n'
    )


def test_normalize_leaves_urls_relative_paths_and_short_hex_alone() -> None:
    text = (
        "see <file:///usr/share/doc/gcc-12/README.Bugs> and https://github.com/llvm/llvm-project/"
        " ../../src/gcc/toplev.cc:322 value 0x10 (asan+0x10b0)"
    )
    assert normalize(text) == text


_TRICKY = st.sampled_from(
    [
        "/tmp/a/b/crash.c", "crash.c:1:2", "w0/crash.c", "0x7ffd1234abcd", "0x12", "==12==",
        "pid 7", "thread 'm' (9)", "12:03:44", "2024-01-02", "0.5s", "3 ms", "line 4",
        "12", "34", "Segmentation fault", "(core dumped)", "\x1b[0m", "https://x.org/a/b",
        "C:\\a\\b.c", '"crash.c", line 3', "error:", ":", "'", "\r\n",
    ]
)  # fmt: skip


@given(st.lists(st.tuples(_TRICKY, st.sampled_from([" ", "\n", ", ", "\t"])), max_size=12))
def test_normalize_is_idempotent(parts: list[tuple[str, str]]) -> None:
    text = "".join(token + separator for token, separator in parts)
    once = normalize(text, input_names=["crash.c"])
    assert normalize(once, input_names=["crash.c"]) == once


# --- matching --------------------------------------------------------------------------------


def test_same_crash_in_another_temp_dir_with_other_pids_and_addresses_matches() -> None:
    golden_err = ASAN.format(pid=6448, a="6020000000", b="5583112611", dir="/tmp/tr-1/w0")
    sig = extract(1, b"", _b(golden_err), input_names=["asan.c"])
    other = ASAN.format(pid=91, a="6030000a00", b="55d0c0ffee", dir="/tmp/tr-zz/w1")
    assert normalize(other, input_names=["asan.c"]) == normalize(golden_err, input_names=["asan.c"])
    assert sig.matches(1, b"", _b(other))

    rust = extract(101, b"", _b(RUST_PANIC.format(tid=4453, dir="")), input_names=["p.rs"])
    moved = RUST_PANIC.format(tid=9219, dir="/tmp/treereduce-q/w1/").replace("5:16", "2:9")
    assert rust.matches(101, b"", _b(moved))

    ice = extract(
        101, b"", _b(RUSTC_ICE_BUG.format(dir="", line=3, tid=5)), input_names=["crash.rs"]
    )
    reduced = RUSTC_ICE_BUG.format(dir="/tmp/x/w0/", line=1, tid=777)
    assert ice.matches(101, b"", _b(reduced))


def test_shell_signal_report_matches_across_pids() -> None:
    sig = extract(139, _b(BASH_SEGV_STDOUT), _b(BASH_SEGV_STDERR.format(pid=7561)))
    assert sig.matches(139, b"", _b(BASH_SEGV_STDERR.format(pid=12)))
    assert not sig.matches(139, b"", b"bash: line 1:  12 Aborted      ./seg\n")


def test_different_exception_type_or_message_does_not_match() -> None:
    sig = extract(1, b"", _b(PY_TRACEBACK.format(dir="/tmp/a")), input_names=["crash.py"])
    same = PY_TRACEBACK.format(dir="/tmp/b")
    assert sig.matches(1, b"", _b(same))
    assert not sig.matches(1, b"", _b(same.replace("ValueError:", "TypeError:")))
    assert not sig.matches(1, b"", _b(same.replace("bad thing: 42", "bad thing: 43")))
    # A longer message or a longer exception name is a different exception.
    assert not sig.matches(1, b"", _b(same.replace("bad thing: 42", "bad thing: 420")))
    assert not sig.matches(1, b"", _b(same.replace("ValueError:", "MyValueError:")))


def test_different_exit_status_does_not_match() -> None:
    stderr = _b(PY_TRACEBACK.format(dir="/tmp/a"))
    sig = extract(1, b"", stderr)
    assert sig.matches(1, b"", stderr)
    assert not sig.matches(2, b"", stderr)
    assert not sig.matches(None, b"", stderr)
    assert not sig.matches(-11, b"", stderr)


def test_gcc_ice_keeps_gccs_location_but_not_the_inputs() -> None:
    sig = extract(1, b"", _b(GCC_ICE), input_names=["bug.c"])
    moved = GCC_ICE.replace("bug.c:9:1", "bug.c:2:7")
    assert sig.matches(1, b"", _b(moved))
    elsewhere_in_gcc = GCC_ICE.replace("recog.c:2154", "recog.c:2160")
    assert not sig.matches(1, b"", _b(elsewhere_in_gcc))
    # A different ICE that the reduction might run into instead is not the same crash.
    assert not sig.matches(1, b"", _b(GCC_ICE_SEGV))


def test_signal_only_signature_matches_the_same_signal_only() -> None:
    sig = extract(-11, b"about to crash\n", b"")
    assert sig.matches(-11, b"", b"")
    assert sig.matches(-11, b"other output", b"whatever")
    assert not sig.matches(-6, b"about to crash\n", b"")
    assert not sig.matches(0, b"about to crash\n", b"")
    assert not sig.matches(139, b"about to crash\n", b"")


def test_user_regex_overrides_the_choice() -> None:
    stderr = _b(PY_TRACEBACK.format(dir="/tmp/a"))
    sig = from_user_regex(1, r"ValueError: bad thing: \d+", input_names=["crash.py"])
    assert isinstance(sig, CrashSignature)
    assert sig.source == "user --signature"
    assert sig.matches(1, b"", stderr.replace(b"42", b"7"))
    assert not sig.matches(1, b"", stderr.replace(b"ValueError", b"KeyError"))
    assert not sig.matches(2, b"", stderr)
    assert "ValueError" in sig.describe()
    # Written against the raw output the user saw, a location still matches.
    raw = from_user_regex(1, r"crash\.py\", line 3", input_names=["crash.py"])
    assert raw.matches(1, b"", stderr)
    assert not raw.matches(1, b"", stderr.replace(b"line 3,", b"line 4,"))


def test_user_regex_must_compile() -> None:
    with pytest.raises(ValueError, match="invalid --signature regex"):
        from_user_regex(1, "(unclosed")


def test_describe_is_one_line() -> None:
    sig = extract(101, b"", _b(RUST_PANIC.format(tid=1, dir="")), input_names=["p.rs"])
    text = sig.describe()
    assert "\n" not in text
    assert text.startswith("exit 101 and 'thread 'main' panicked at p.rs:")
    assert "value must be present" in text


# Outputs that make naive patterns backtrack quadratically; each is some 100-200 KB.
_ADVERSARIAL = [
    " ".join(str(i) for i in range(20_000)) + " Killed",
    "Assertion " * 20_000,
    "pid" + " " * 100_000,
    "\t" * 100_000 + "x (core dumped)",
    "PLEASE submit a bug report\n #1 0x00007ff7178a5291 x" + " " * 100_000 + "y",
    "/".join(["ab"] * 40_000) + "/crash.c",
]


def test_long_adversarial_output_does_not_hang() -> None:
    def work() -> None:
        for text in _ADVERSARIAL:
            data = _b(text + "\n")
            extract(-11, data, data, input_names=["crash.c"]).matches(-11, data, data)
        finished.set()

    finished = threading.Event()
    # A generous limit: linear work takes well under a second, quadratic work takes minutes.
    threading.Thread(target=work, daemon=True).start()
    assert finished.wait(timeout=60)


# --- live crashes ----------------------------------------------------------------------------

DEEP_PY = """\
def a(n):
    if n == 0:
        raise ValueError("bad thing: %d" % {value})
    return a(n - 1)


a(3)
"""


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(argv, cwd=cwd, capture_output=True, timeout=60, check=False)


def test_live_python_crash_in_two_temp_dirs(tmp_path: Path) -> None:
    runs = []
    for name, value in (("w0", 42), ("w1", 42), ("w2", 43)):
        work = tmp_path / name
        work.mkdir()
        (work / "crash.py").write_text(DEEP_PY.format(value=value))
        runs.append(_run([sys.executable, str(work / "crash.py")], work))
    golden, again, other = runs
    sig = extract(golden.returncode, golden.stdout, golden.stderr, input_names=["crash.py"])
    assert sig.line == "ValueError: bad thing: 42"
    assert golden.stderr != again.stderr  # the temp dirs show in the traceback
    assert normalize(golden.stderr.decode(), input_names=["crash.py"]) == normalize(
        again.stderr.decode(), input_names=["crash.py"]
    )
    assert sig.matches(again.returncode, again.stdout, again.stderr)
    assert not sig.matches(other.returncode, other.stdout, other.stderr)


SEGV_C = """\
#include <stdio.h>
int main(void) { volatile int *p = 0; puts("about to crash"); fflush(stdout); return *p; }
"""

ASSERT_C = """\
#include <assert.h>
int main(int argc, char **argv) { (void)argv; assert(argc == 5); return 0; }
"""


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
def test_live_c_segfault_and_assert(tmp_path: Path) -> None:
    for name, source in (("segv", SEGV_C), ("assert", ASSERT_C)):
        (tmp_path / f"{name}.c").write_text(source)
        _run(["gcc", "-O0", "-o", name, f"{name}.c"], tmp_path).check_returncode()

    segv = _run(["./segv"], tmp_path)
    assert segv.returncode == -11
    segv_sig = extract(segv.returncode, segv.stdout, segv.stderr, input_names=["segv.c"])
    assert segv_sig.line is None and segv_sig.source == "signal SIGSEGV"

    aborted = _run(["./assert"], tmp_path)
    assert aborted.returncode == -6
    sig = extract(aborted.returncode, aborted.stdout, aborted.stderr, input_names=["assert.c"])
    assert sig.source == "assertion failure"
    assert sig.line is not None and "Assertion `argc == 5' failed." in sig.line

    assert segv_sig.matches(segv.returncode, segv.stdout, segv.stderr)
    assert not segv_sig.matches(aborted.returncode, aborted.stdout, aborted.stderr)
    assert sig.matches(aborted.returncode, aborted.stdout, aborted.stderr)
    assert not sig.matches(segv.returncode, segv.stdout, segv.stderr)
