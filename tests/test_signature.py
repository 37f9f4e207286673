"""Tests for crash signatures: which report is chosen, what its key keeps, what matches.

Two kinds of fixtures. Stored reports under tests/data/signatures/ (see its README: most were
captured on this machine, by a fuzzer against zipfile, ASan/UBSan builds, java, node, go, rustc
on the bench's ICE cases) check the promise of issue 32: the same crash reached with other data
gets one signature, different crashes get different ones. Inline fixtures, marked "captured" on
a Debian 12 machine or following the formats of public bug reports, check each kind's details.
Live tests generate reports here (Python, gcc -fsanitize=address, rustc), skipping when the tool
is absent.
"""

from __future__ import annotations

import itertools
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from treereduce_py.judge.errors import BadOptions
from treereduce_py.judge.normalize import normalize
from treereduce_py.judge.oracle import CommandOracle
from treereduce_py.judge.report import Report, glibc_assertion, native_function, strip_values
from treereduce_py.judge.signature import CrashSignature, extract, from_user_regex
from treereduce_py.run import batch

DATA = Path(__file__).parent / "data" / "signatures"
BENCH = Path(__file__).parent.parent / "bench" / "cases"


def stored(name: str) -> bytes:
    return (DATA / name).read_bytes()


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


# --- stored reports: one signature per crash, another for another crash ----------------------

ZIP = "zipfile.py:"
# (file, exit status, crash, expected key); files of one crash differ in values, offsets, pids.
STORED = [
    (
        "python-zipfile-seek-1.txt", 1, "seek",
        f"ValueError at {ZIP}read < {ZIP}open < {ZIP}testzip",
    ),
    ("python-zipfile-seek-2.txt", 1, "seek", None),
    (
        "python-zipfile-zlib-1.txt", 1, "zlib",
        f"zlib.error at {ZIP}_read1 < {ZIP}read < {ZIP}testzip",
    ),
    ("python-zipfile-zlib-2.txt", 1, "zlib", None),
    (
        "python-zipfile-version-1.txt", 1, "version",
        f"NotImplementedError at {ZIP}_RealGetContents < {ZIP}__init__ < target.py:<module>",
    ),
    ("python-zipfile-version-2.txt", 1, "version", None),
    (
        "python-zipfile-method.txt", 1, "method",
        f"NotImplementedError at {ZIP}_check_compression < {ZIP}_get_decompressor < {ZIP}__init__",
    ),
    ("python-zipfile-patched.txt", 1, "patched", None),
    ("python-zipfile-eof.txt", 1, "eof", f"EOFError at {ZIP}_read2 < {ZIP}_read1 < {ZIP}read"),
    (
        "python-faulthandler-1.txt", -11, "faulthandler",
        "Fatal Python error: Segmentation fault at __init__.py:string_at < fh.py:peek < fh.py:load",
    ),
    ("python-faulthandler-2.txt", -11, "faulthandler", None),
    (
        "asan-heap-read-1.txt", 1, "heap-read",
        "AddressSanitizer: heap-buffer-overflow READ at read_field < parse_record < main",
    ),
    ("asan-heap-read-2.txt", 1, "heap-read", None),
    ("asan-null-1.txt", 1, "null", "AddressSanitizer: SEGV null READ at parse_header < main"),
    ("asan-null-2.txt", 1, "null", None),
    (
        "asan-heap-write.txt", 1, "heap-write",
        "AddressSanitizer: heap-buffer-overflow WRITE at fill < main",
    ),
    (
        "ubsan-overflow-1.txt", 1, "overflow",
        "runtime error: signed integer overflow: <n> * <n> cannot be represented in type <q> "
        "(ub.c) at scale < main",
    ),
    ("ubsan-overflow-2.txt", 1, "overflow", None),
    (
        "ubsan-shift.txt", 1, "shift",
        "runtime error: shift exponent <n> is too large for <n>-bit type <q> (ub.c) "
        "at shift < main",
    ),
    ("lsan-leak.txt", 1, "leak", "LeakSanitizer: detected memory leaks at dup_name < main"),
    (
        "msan-uninit-1.txt", 1, "uninit",
        "MemorySanitizer: use-of-uninitialized-value at parse_flags < LLVMFuzzerTestOneInput < "
        "fuzzer::Fuzzer::ExecuteCallback",
    ),
    ("msan-uninit-2.txt", 1, "uninit", None),
    (
        "java-index-1.txt", 1, "java-index",
        "java.lang.ArrayIndexOutOfBoundsException at Parse.field < Parse.record < Parse.main",
    ),
    ("java-index-2.txt", 1, "java-index", None),
    ("java-number.txt", 1, "java-number", None),
    ("node-range-1.txt", 1, "node-range", "RangeError at field < record < Object.<anonymous>"),
    ("node-range-2.txt", 1, "node-range", None),
    ("node-json.txt", 1, "node-json", "SyntaxError at JSON.parse < field < record"),
    (
        "go-index.txt", 2, "go-index",
        "panic: runtime error: index out of range [<n>] with length <n> at main.(*Record).Field < "
        "main.main",
    ),
    ("go-nil.txt", 2, "go-nil", None),
    (
        "rust-index-1.txt", 101, "rust-index",
        "panic: index out of bounds: the len is <n> but the index is <n> (p.rs) at p::field < "
        "p::record < p::main",
    ),
    ("rust-index-2.txt", 101, "rust-index", None),
    ("rust-expect.txt", 101, "rust-expect", None),
    (
        "rustc-ice-hrtb.txt", 101, "rustc-fully-perform",
        "internal compiler error: error performing operation: fully_perform (custom.rs)",
    ),
    ("rustc-ice-wf.txt", 101, "rustc-fully-perform", None),
    (
        "gcc-ice-vect-1.txt", 1, "gcc-vect",
        "internal compiler error in GIMPLE pass vect: in related_int_vector_mode (stor-layout.cc)",
    ),
    ("gcc-ice-vect-2.txt", 1, "gcc-vect", None),
    ("gcc-ice-fre.txt", 1, "gcc-fre", None),
    (
        "gcc-ice-expand-segv.txt", 1, "gcc-segv",
        "internal compiler error in RTL pass expand: Segmentation fault at expand_expr_real_1 < "
        "expand_expr_real < expand_gimple_stmt_1",
    ),
    ("gcc-ice-expand-segv-2.txt", 1, "gcc-segv", None),
]  # fmt: skip


def _stored_signature(name: str, exit_code: int) -> CrashSignature:
    return extract(exit_code, b"", stored(name))


@pytest.mark.parametrize(("name", "exit_code", "crash", "key"), STORED, ids=[s[0] for s in STORED])
def test_stored_report_key(name: str, exit_code: int, crash: str, key: str | None) -> None:
    sig = _stored_signature(name, exit_code)
    assert sig.line is not None
    if key is not None:
        assert sig.line == key
    # No address, pid, temp dir or line number of the run is left in a key.
    for volatile in ("0x", "==", "/tmp", "/root", "sigwork", '.py", line', ":7"):
        assert volatile not in sig.line, sig.line
    assert sig.matches(exit_code, b"", stored(name))


def test_same_crash_one_signature_different_crashes_different_signatures() -> None:
    by_crash: dict[str, set[str]] = {}
    signatures = {}
    for name, exit_code, crash, _ in STORED:
        sig = _stored_signature(name, exit_code)
        assert sig.line is not None
        by_crash.setdefault(crash, set()).add(sig.line)
        signatures[name] = (sig, exit_code, crash)
    assert all(len(keys) == 1 for keys in by_crash.values()), by_crash
    keys = [next(iter(k)) for k in by_crash.values()]
    assert len(set(keys)) == len(keys), "two crashes share a signature"
    # Matching agrees with the keys: a golden run accepts its crash's other reports only.
    for (a, (sig, _, crash_a)), (b, (_, code_b, crash_b)) in itertools.product(
        signatures.items(), repeat=2
    ):
        assert sig.matches(sig.exit_code, b"", stored(b)) == (crash_a == crash_b), (a, b)
        if code_b != sig.exit_code:
            assert not sig.matches(code_b, b"", stored(b))


def test_the_fuzzers_crash_folder_groups_by_stack() -> None:
    # Issue 32: the zipfile fuzzer's files, messages differing in every file, six crashes.
    names = [s[0] for s in STORED if s[0].startswith("python-zipfile-")]
    messages = {stored(n).decode().strip().splitlines()[-1] for n in names}
    keys = {_stored_signature(n, 1).line for n in names}
    assert len(messages) == len(names)  # every file says something else
    assert len(keys) == 6


# --- the kinds in detail (inline fixtures) ---------------------------------------------------


@pytest.mark.parametrize(
    ("exit_code", "stdout", "stderr", "names", "line", "source"),
    [
        pytest.param(
            1, "", PY_TRACEBACK.format(dir="/tmp/x"), ["crash.py"], "ValueError: bad thing: <n>",
            "Python traceback", id="python-frames-in-the-input",
        ),
        pytest.param(
            1, "", PY_TRACEBACK.format(dir="/tmp/x"), [],
            "ValueError at crash.py:a < crash.py:a < crash.py:main", "Python traceback",
            id="python-frames",
        ),
        pytest.param(
            1, "", PY_CHAINED, [], "RuntimeError at chain.py:load < chain.py:<module>",
            "Python traceback", id="python-chained-last-wins",
        ),
        pytest.param(
            1, "", PY_SYNTAX, ["syn.py"], "SyntaxError: invalid syntax", "uncaught exception",
            id="python-syntax",
        ),
        pytest.param(
            1, "", NODE_TYPEERROR, [], "TypeError at f < f < Object.<anonymous>",
            "uncaught exception", id="node",
        ),
        pytest.param(
            1, "", NODE_THROW_STRING, [], "uncaught: plain string", "uncaught exception",
            id="node-string",
        ),
        pytest.param(
            1, "", JAVA_EXCEPTION, ["Crash.java"],
            "java.lang.IllegalStateException: empty input at step <n>", "Java exception",
            id="java-frames-in-the-input",
        ),
        pytest.param(
            101, "", RUST_PANIC.format(tid=4453, dir=""), ["p.rs"],
            "panic: value must be present at p::main", "Rust panic", id="rust-panic",
        ),
        pytest.param(
            1, "", RUSTC_E0308, ["ce.rs"], "error[E0308]: mismatched types",
            "first error message", id="rustc-error",
        ),
        pytest.param(
            1, "", GCC_ERROR, ["ce.c"],
            "error: \u2018x\u2019 undeclared (first use in this function)",
            "first error message", id="gcc-error-keeps-quoted-names",
        ),
        pytest.param(
            -6, "", C_ASSERT, ["as.c"], "assertion failure: `argc == 5'", "assertion failure",
            id="c-assert-in-the-input",
        ),
        pytest.param(
            -6, "", C_ASSERT, [], "assertion failure: `argc == 5' (as.c) at main",
            "assertion failure", id="c-assert",
        ),
        pytest.param(
            139, BASH_SEGV_STDOUT, BASH_SEGV_STDERR.format(pid=7561), [],
            "Segmentation fault", "signal message", id="shell-segv",
        ),
        pytest.param(
            1, "", ASAN.format(pid=6448, a="6020000000", b="5583112611", dir="/tmp/w0"),
            ["asan.c"], "AddressSanitizer: heap-buffer-overflow READ", "sanitizer report",
            id="asan-frames-in-the-input",
        ),
        pytest.param(
            132, "", CLANG_CRASH, ["crash.c"],
            "LLVM crash at clang::Preprocessor::HandlePragmaDirective < "
            "clang::Preprocessor::HandleDirective", "LLVM crash", id="clang-crash-frames",
        ),
        pytest.param(
            70, "", CLANG_FATAL, ["fe.c"],
            "LLVM crash: error in backend: #pragma clang __debug llvm_fatal_error", "LLVM crash",
            id="clang-fatal",
        ),
        pytest.param(
            1, "", CLANG_ASSERT, ["x.cpp"],
            "LLVM crash: `!isCompoundAssignmentOp() && \"Use CompoundAssignOperator for compound "
            "assignments\"' (Expr.cpp) at clang::BinaryOperator::BinaryOperator", "LLVM crash",
            id="clang-assert",
        ),
        pytest.param(
            1, "", GCC_ICE, ["bug.c"], "internal compiler error: in extract_insn (recog.c)",
            "gcc ICE", id="gcc-ice",
        ),
        pytest.param(
            1, "", GCC_ICE_SEGV, ["crash.c"], "internal compiler error: Segmentation fault",
            "gcc ICE", id="gcc-ice-segv",
        ),
        pytest.param(
            101, "", RUSTC_ICE_BUG.format(dir="/tmp/w1/", line=3, tid=81234), ["crash.rs"],
            "internal compiler error: Failed to normalize Alias (normalize_erasing_regions.rs) "
            "at layout_of", "rustc ICE", id="rustc-ice-bug",
        ),
        pytest.param(
            101, "", RUSTC_ICE_PANIC, [],
            "internal compiler error: assertion failed: layout.is_sized (place.rs) at "
            "eval_to_allocation_raw", "rustc ICE", id="rustc-ice-panic",
        ),
        pytest.param(
            101, "", RUSTC_ICE_OLD, [],
            "internal compiler error: called <q> on a <q> value (mod.rs)", "rustc ICE",
            id="rustc-ice-old",
        ),
    ],
)  # fmt: skip
def test_extract_chooses_the_most_specific_report(
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


def test_gcc_ice_keeps_function_and_file_but_not_lines() -> None:
    sig = extract(1, b"", _b(GCC_ICE), input_names=["bug.c"])
    assert sig.matches(1, b"", _b(GCC_ICE.replace("bug.c:9:1", "bug.c:2:7")))
    # Another build of gcc: the line moved, the function did not.
    assert sig.matches(1, b"", _b(GCC_ICE.replace("recog.c:2154", "recog.c:2160")))
    assert not sig.matches(1, b"", _b(GCC_ICE.replace("in extract_insn", "in constrain_operands")))
    # A different ICE that the reduction might run into instead is not the same crash.
    assert not sig.matches(1, b"", _b(GCC_ICE_SEGV))


def test_candidate_matches_when_the_crash_is_among_its_reports() -> None:
    golden = extract(1, b"", stored("python-zipfile-seek-1.txt"))
    handled = stored("python-zipfile-zlib-1.txt") + b"\nDuring handling, another:\n\n"
    # The candidate logged another traceback before it crashed the same way.
    assert golden.matches(1, b"", handled + stored("python-zipfile-seek-2.txt"))
    assert not golden.matches(1, b"", handled)


# --- frames, the user's key, --signature ----------------------------------------------------


def test_frames_count_decides_how_much_of_the_stack_is_the_key() -> None:
    version, method = stored("python-zipfile-version-1.txt"), stored("python-zipfile-method.txt")
    for frames in (1, 2, 3):
        a = extract(1, b"", version, frames=frames)
        assert a.line is not None and a.line.count(" < ") == frames - 1
        assert not a.matches(1, b"", method)
    # No frame at all: the type and the message, values stripped.
    bare = extract(1, b"", version, frames=0)
    assert bare.line == "NotImplementedError: zip file version <n>"
    assert bare.matches(1, b"", stored("python-zipfile-version-2.txt"))
    assert not bare.matches(1, b"", method)


def test_user_key_regex_is_its_first_group_or_match() -> None:
    seek1, seek2 = stored("python-zipfile-seek-1.txt"), stored("python-zipfile-seek-2.txt")
    whole = extract(1, b"", seek1, key_regex=r"negative seek value -\d+")
    assert whole.source == "user --signature-regex"
    assert whole.line == "negative seek value -201326592"
    assert whole.matches(1, b"", seek1) and not whole.matches(1, b"", seek2)
    grouped = extract(1, b"", seek1, key_regex=r"^(\w+): negative seek")
    assert grouped.line == "ValueError" and grouped.matches(1, b"", seek2)
    assert "user --signature-regex" in grouped.describe()
    # No match: the signature is chosen as without the regex.
    fallback = extract(1, b"", seek1, key_regex=r"no such text")
    assert fallback.source == "Python traceback" and fallback.matches(1, b"", seek2)
    with pytest.raises(BadOptions, match="invalid --signature-regex"):
        extract(1, b"", seek1, key_regex="(unclosed")


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
    assert text == "exit 101 and 'panic: value must be present at p::main' (Rust panic)"


# --- matching across runs --------------------------------------------------------------------


def test_same_crash_in_another_temp_dir_with_other_pids_and_addresses_matches() -> None:
    golden_err = ASAN.format(pid=6448, a="6020000000", b="5583112611", dir="/tmp/tr-1/w0")
    sig = extract(1, b"", _b(golden_err), input_names=["asan.c"])
    other = ASAN.format(pid=91, a="6030000a00", b="55d0c0ffee", dir="/tmp/tr-zz/w1")
    assert sig.matches(1, b"", _b(other))

    rust = extract(101, b"", _b(RUST_PANIC.format(tid=4453, dir="")), input_names=["p.rs"])
    moved = RUST_PANIC.format(tid=9219, dir="/tmp/treereduce-q/w1/").replace("5:16", "2:9")
    assert rust.matches(101, b"", _b(moved))

    ice = extract(
        101, b"", _b(RUSTC_ICE_BUG.format(dir="", line=3, tid=5)), input_names=["crash.rs"]
    )
    reduced = RUSTC_ICE_BUG.format(dir="/tmp/x/w0/", line=1, tid=777)
    assert ice.matches(101, b"", _b(reduced))
    assert not ice.matches(101, b"", _b(RUSTC_ICE_PANIC))


def test_shell_signal_report_matches_across_pids() -> None:
    sig = extract(139, _b(BASH_SEGV_STDOUT), _b(BASH_SEGV_STDERR.format(pid=7561)))
    assert sig.matches(139, b"", _b(BASH_SEGV_STDERR.format(pid=12)))
    assert not sig.matches(139, b"", b"bash: line 1:  12 Aborted      ./seg\n")


def test_exception_type_and_stack_decide_not_the_message() -> None:
    sig = extract(1, b"", _b(PY_TRACEBACK.format(dir="/tmp/a")))
    same = PY_TRACEBACK.format(dir="/tmp/b")
    assert sig.matches(1, b"", _b(same))
    assert sig.matches(1, b"", _b(same.replace("bad thing: 42", "other text: 43")))
    assert not sig.matches(1, b"", _b(same.replace("ValueError:", "TypeError:")))
    assert not sig.matches(1, b"", _b(same.replace("ValueError:", "MyValueError:")))
    assert not sig.matches(1, b"", _b(same.replace("in a\n", "in b\n")))
    # With every frame in the input, the message counts, its values stripped.
    own = extract(1, b"", _b(same), input_names=["crash.py"])
    assert own.matches(1, b"", _b(same.replace("bad thing: 42", "bad thing: 420")))
    assert not own.matches(1, b"", _b(same.replace("bad thing: 42", "good thing: 42")))


def test_different_exit_status_does_not_match() -> None:
    stderr = _b(PY_TRACEBACK.format(dir="/tmp/a"))
    sig = extract(1, b"", stderr)
    assert sig.matches(1, b"", stderr)
    assert not sig.matches(2, b"", stderr)
    assert not sig.matches(None, b"", stderr)
    assert not sig.matches(-11, b"", stderr)


def test_signal_only_signature_matches_the_same_signal_only() -> None:
    sig = extract(-11, b"about to crash\n", b"")
    assert sig.matches(-11, b"", b"")
    assert sig.matches(-11, b"other output", b"whatever")
    assert not sig.matches(-6, b"about to crash\n", b"")
    assert not sig.matches(0, b"about to crash\n", b"")
    assert not sig.matches(139, b"about to crash\n", b"")


# --- the pieces of a key ---------------------------------------------------------------------


def test_report_key_keeps_the_message_only_where_it_identifies_the_crash() -> None:
    report = Report("k", "ValueError", frames=("a", "b", "c", "d"), message="bad <n>")
    assert report.key(3) == "ValueError at a < b < c"
    assert report.key(0) == "ValueError: bad <n>"
    kept = Report("k", "panic", location="p.rs", frames=("f",), message="m", keep_message=True)
    assert kept.key(3) == "panic: m (p.rs) at f"


def test_strip_values() -> None:
    assert strip_values("negative seek value -3254779904") == "negative seek value <n>"
    assert strip_values("Error -3 while decompressing: invalid code") == (
        "Error <n> while decompressing: invalid code"
    )
    assert strip_values("KeyError 'E500' at 0x7f3a and \u2018x\u2019") == (
        "KeyError <q> at <hex> and <q>"
    )
    assert strip_values("can't open build/out/a.txt: errno 2") == "can't open a.txt: errno <n>"
    assert strip_values("E0308 in utf8 at 0x<addr>") == "E0308 in utf8 at <hex>"
    assert strip_values("cannot read crash-1a2b", ["crash-1a2b"]) == "cannot read <input>"
    assert strip_values("\u2018x\u2019 undeclared", quoted=False) == "\u2018x\u2019 undeclared"


@given(st.text(alphabet="ab01x-./'\"` <>:\u2018\u2019", max_size=40))
def test_strip_values_is_idempotent(text: str) -> None:
    once = strip_values(text)
    assert strip_values(once) == once


@pytest.mark.parametrize(
    ("symbol", "function", "file"),
    [
        ("read_field parse.c:7", "read_field", "parse.c"),
        ("main crash.c", "main", "crash.c"),
        ("_start (parse+0x1160)", "_start", None),
        ("__interceptor_malloc ../../asan/asan_malloc_linux.cpp:69", "__interceptor_malloc",
         "asan_malloc_linux.cpp"),
        ("Foo::bar(int, char const*) const x.cc:3:1", "Foo::bar", "x.cc"),
        ("(anonymous namespace)::Visitor::operator()(Node&) y.cc:9",
         "{anonymous}::Visitor::operator()", "y.cc"),
        ("operator new(unsigned long) new.cpp:95", "operator new", "new.cpp"),
        ("p::field::h5a5b8284f2d0c266", "p::field", None),
        ("int std::vector<int, std::allocator<int> >::at(unsigned long)",
         "std::vector<int, std::allocator<int> >::at", None),
    ],
)  # fmt: skip
def test_native_function(symbol: str, function: str, file: str | None) -> None:
    assert native_function(symbol) == (function, file)


def test_glibc_assertion() -> None:
    parsed = glibc_assertion("as: as.c:2: int main(int, char **): Assertion `argc == 5' failed.")
    assert parsed is not None
    assert (parsed.file, parsed.function, parsed.expression) == ("as.c", "main", "`argc == 5'")
    assert glibc_assertion("Assertion failed: (x), function f, file a.c, line 3.") is None


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


# Outputs that make naive patterns backtrack quadratically; each is some 100-200 KB.
_ADVERSARIAL = [
    " ".join(str(i) for i in range(20_000)) + " Killed",
    "Assertion " * 20_000,
    "pid" + " " * 100_000,
    "\t" * 100_000 + "x (core dumped)",
    "PLEASE submit a bug report\n #1 0x00007ff7178a5291 x" + " " * 100_000 + "y",
    "/".join(["ab"] * 40_000) + "/crash.c",
    "internal compiler error: " + "in in, at " * 20_000,
    "    at f (" + "(" * 50_000 + ")\n" * 2,
    "a: runtime error: " + "x " * 50_000,
    "panic: x\ngoroutine 1 [running]:\n" + "f(" * 50_000 + ")\n",
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

# Raises three calls deep, with a message that differs in every run (the value and an id).
NESTED_PY = """\
import sys


def check(value):
    if value < 0:
        raise ValueError(f"negative value {value} (object at {hex(id(object()))})")
    return 1 / value


def load(value):
    return check(value)


def parse(value):
    return check(value)


(load if sys.argv[2] == "load" else parse)(int(sys.argv[1]))
"""


def _run(argv: list[str | Path], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(argv, cwd=cwd, capture_output=True, timeout=60, check=False)


def test_live_python_same_raise_other_messages(tmp_path: Path) -> None:
    runs = {}
    for work, value, via in (("w0", -3, "load"), ("w1", -17, "load"), ("w2", 0, "load"),
                             ("w3", -3, "parse")):  # fmt: skip
        (tmp_path / work).mkdir()
        (tmp_path / work / "harness.py").write_text(NESTED_PY)
        runs[work] = _run([sys.executable, "harness.py", str(value), via], tmp_path / work)
    golden = runs["w0"]
    assert golden.stderr != runs["w1"].stderr
    sig = extract(golden.returncode, golden.stdout, golden.stderr)
    assert sig.line == "ValueError at harness.py:check < harness.py:load < harness.py:<module>"
    assert sig.matches(runs["w1"].returncode, runs["w1"].stdout, runs["w1"].stderr)
    assert not sig.matches(runs["w2"].returncode, runs["w2"].stdout, runs["w2"].stderr)
    assert not sig.matches(runs["w3"].returncode, runs["w3"].stdout, runs["w3"].stderr)
    # One frame: reached through parse() it is the same raise.
    top = extract(golden.returncode, golden.stdout, golden.stderr, frames=1)
    assert top.matches(runs["w3"].returncode, runs["w3"].stdout, runs["w3"].stderr)
    # When the script is the input being reduced, its frames go, the message counts.
    own = extract(golden.returncode, golden.stdout, golden.stderr, input_names=["harness.py"])
    assert own.line == "ValueError: negative value <n> (object at <hex>)"
    assert own.matches(runs["w1"].returncode, runs["w1"].stdout, runs["w1"].stderr)


# The standard zipfile fuzz harness of issue 32 (only these two exceptions are expected).
ZIPFILE_TARGET = """\
import io
import sys
import zipfile

data = open(sys.argv[1], "rb").read()
try:
    zipfile.ZipFile(io.BytesIO(data)).testzip()
except (zipfile.BadZipFile, zipfile.LargeZipFile):
    pass
"""


def test_live_batch_groups_the_fuzzers_crash_files_by_stack(tmp_path: Path) -> None:
    # The crash files behind the python-zipfile-*.txt reports: binary, named as libFuzzer names
    # them, nine files, six crashes, every message different.
    (tmp_path / "target.py").write_text(ZIPFILE_TARGET)
    crashes = sorted((DATA / "zipfile-crashes").iterdir())
    argv = [sys.executable, "-S", str(tmp_path / "target.py"), "@@"]
    found = []
    for path in crashes:
        with CommandOracle(argv, input_name=path.name, timeout=60) as oracle:
            found.append(batch.classify(path, oracle))
    groups, clean = batch.group(found)
    assert not clean
    assert len(groups) == 6, [g.signature for g in groups]
    assert sorted(len(g.members) for g in groups) == [1, 1, 1, 2, 2, 2]
    # The user's key: the exception's type alone.
    typed = []
    for path in crashes:
        with CommandOracle(argv, input_name=path.name, timeout=60) as oracle:
            keying = batch.Keying(key=r"^([\w.]+)(?::|$)")
            typed.append(batch.classify(path, oracle, keying))
    assert len(batch.group(typed)[0]) == 4


def _asan_build(tmp_path: Path) -> Path:
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    built = _run(["gcc", "-fsanitize=address", "-g", "-O0", "-o", "parse",
                  DATA / "asan_parse.c"], tmp_path)  # fmt: skip
    if built.returncode != 0:
        pytest.skip(f"no AddressSanitizer here: {built.stderr[-300:]!r}")
    return tmp_path / "parse"


def test_live_asan_heap_overflow_and_null_deref_at_other_offsets(tmp_path: Path) -> None:
    program = _asan_build(tmp_path)
    runs = {}
    for name, data in (("read1", b"H\x01"), ("read2", b"H\x0b"), ("null1", b"N\x08"),
                       ("null2", b"N\x28"), ("write", b"W\x03z")):  # fmt: skip
        (tmp_path / name).write_bytes(data)
        runs[name] = _run([program, name], tmp_path)
        assert b"AddressSanitizer" in runs[name].stderr, runs[name].stderr
    sigs = {
        name: extract(run.returncode, run.stdout, run.stderr, input_names=[name])
        for name, run in runs.items()
    }
    assert sigs["read1"].line == sigs["read2"].line
    assert sigs["null1"].line == sigs["null2"].line
    assert len({sigs[n].line for n in ("read1", "null1", "write")}) == 3
    assert sigs["read1"].line is not None and "read_field < parse_record" in sigs["read1"].line
    for golden, other in (("read1", "read2"), ("null1", "null2")):
        run = runs[other]
        assert sigs[golden].matches(run.returncode, run.stdout, run.stderr)
        assert not sigs[golden].matches(runs["write"].returncode, b"", runs["write"].stderr)


@pytest.mark.skipif(shutil.which("rustc") is None, reason="rustc is not installed")
def test_live_rustc_ice_of_the_bench_cases(tmp_path: Path) -> None:
    runs = []
    for case in ("rust-ice-hrtb", "rust-ice-wf"):
        source = tmp_path / case / "input.rs"
        source.parent.mkdir()
        source.write_bytes((BENCH / case / "input.rs").read_bytes())
        argv: list[str | Path] = ["rustc", "--edition", "2021", "--crate-type", "bin", "-o",
                                  source.parent / "out", source]  # fmt: skip
        runs.append(_run(argv, source.parent))
    if any(run.returncode != 101 for run in runs):
        pytest.skip(f"this rustc does not crash on the bench cases: {runs[0].stderr[-300:]!r}")
    hrtb, wf = runs
    sig = extract(hrtb.returncode, hrtb.stdout, hrtb.stderr, input_names=["input.rs"])
    assert sig.source == "rustc ICE"
    assert sig.matches(wf.returncode, wf.stdout, wf.stderr)
    assert not sig.matches(101, b"", _b(RUSTC_ICE_PANIC))


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
    assert sig.line == "assertion failure: `argc == 5'"

    assert segv_sig.matches(segv.returncode, segv.stdout, segv.stderr)
    assert not segv_sig.matches(aborted.returncode, aborted.stdout, aborted.stderr)
    assert sig.matches(aborted.returncode, aborted.stdout, aborted.stderr)
    assert not sig.matches(segv.returncode, segv.stdout, segv.stderr)
