"""End-to-end tests: the installed `treereduce-py` run as a subprocess against real tools.

Each test writes a small program into its own tmp_path, runs the command-line tool on it with a
real interestingness test (gcc, clang, node, the Python running these tests, grep), and then
checks the result itself by running the same test on it: a reducer that claims success must hand
back a file that is interesting, much smaller, and must never touch its input. Exit codes, error
messages, signals and odd inputs are checked the same way, from the outside, as a user sees them.

Timeouts here only detect hangs; nothing asserts how fast a reduction is.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    PYTHON,
    QUICK,
    RUN_PY,
    cli_args,
    needle_ok,
    needle_setup,
    run_cli,
    run_tool,
    signal_when,
    succeeded,
    which,
)

pytestmark = pytest.mark.e2e

# ---------------------------------------------------------------------------------------------
# Inputs

C_WARNING = b"""\
/* Running statistics over a small ring buffer; one helper divides by a constant zero. */
#include <stdio.h>
#include <string.h>

#define RING_SIZE 8

struct ring {
    double values[RING_SIZE];
    unsigned head;
    unsigned count;
};

static void ring_init(struct ring *r) {
    memset(r, 0, sizeof *r);
}

static void ring_push(struct ring *r, double v) {
    r->values[r->head] = v;
    r->head = (r->head + 1) % RING_SIZE;
    if (r->count < RING_SIZE)
        r->count++;
}

static double ring_mean(const struct ring *r) {
    double sum = 0.0;
    for (unsigned i = 0; i < r->count; i++)
        sum += r->values[i];
    return r->count ? sum / r->count : 0.0;
}

static double ring_max(const struct ring *r) {
    double best = r->values[0];
    for (unsigned i = 1; i < r->count; i++)
        if (r->values[i] > best)
            best = r->values[i];
    return best;
}

static int bucket_of(int value) {
    const int width = 0;
    int scaled = value * 3 + 1;
    return scaled / 0 + width;
}

static void print_summary(const char *label, const struct ring *r) {
    printf("%s: n=%u mean=%.2f max=%.2f\\n", label, r->count, ring_mean(r), ring_max(r));
}

int main(void) {
    struct ring temps;
    ring_init(&temps);
    const double samples[] = {12.5, 14.0, 13.25, 15.5, 11.0, 16.75, 18.0, 17.5, 19.25};
    for (unsigned i = 0; i < sizeof samples / sizeof samples[0]; i++)
        ring_push(&temps, samples[i]);
    print_summary("temperature", &temps);
    int histogram[4] = {0, 0, 0, 0};
    for (int v = 0; v < 12; v++)
        histogram[bucket_of(v) & 3]++;
    for (int b = 0; b < 4; b++)
        printf("bucket %d: %d\\n", b, histogram[b]);
    return 0;
}
"""
# Both gcc ("division by zero [-Wdiv-by-zero]") and clang ("division by zero is undefined").
C_WARNING_RE = r"warning: division by zero"

PY_LEDGER = b'''\
"""A small ledger that fails deep in a call chain when one account is missing."""

import contextlib
import json


class Account:
    def __init__(self, name):
        self.name = name
        self.balance = 0

    def deposit(self, amount):
        self.balance += amount

    def withdraw(self, amount):
        if amount > self.balance:
            raise ValueError("insufficient funds")
        self.balance -= amount


class Ledger:
    def __init__(self):
        self.accounts = {}

    def open(self, name):
        self.accounts[name] = Account(name)
        return self.accounts[name]

    def lookup(self, name):
        return self.accounts[name]

    def transfer(self, source, target, amount):
        self.lookup(source).withdraw(amount)
        self.lookup(target).deposit(amount)

    def report(self):
        return json.dumps({n: a.balance for n, a in sorted(self.accounts.items())})


def settle(ledger, moves):
    for source, target, amount in moves:
        ledger.transfer(source, target, amount)


ledger = Ledger()
for name in ("alice", "bob", "carol"):
    ledger.open(name).deposit(100)
settle(ledger, [("alice", "bob", 30), ("bob", "carol", 50)])
print(ledger.report())
settle(ledger, [("carol", "mallory", 10)])
'''
PY_LEDGER_RE = r"KeyError: 'mallory'"

JS_CART = b"""\
// A cart whose discount lookup reads a property of undefined for one coupon code.
"use strict";

const COUPONS = { SPRING: { percent: 10, minimum: 5 } };

function subtotal(items) {
  return items.reduce((sum, item) => sum + item.price, 0);
}

function discount(items, code) {
  const coupon = COUPONS[code];
  if (subtotal(items) < coupon.minimum) {
    return 0;
  }
  return (subtotal(items) * coupon.percent) / 100;
}

const items = [{ name: "apple", price: 6 }, { name: "bread", price: 3.25 }];
console.log("spring:", subtotal(items) - discount(items, "SPRING"));
console.log("winter:", subtotal(items) - discount(items, "WINTER"));
"""
JS_CART_RE = r"TypeError: Cannot read properties of undefined \(reading 'minimum'\)"

# ---------------------------------------------------------------------------------------------
# Helpers


def error_lines(proc: subprocess.CompletedProcess[bytes], code: int) -> list[str]:
    """Check a failure with `code` that printed one error line and no traceback; return stderr.

    The plain progress reporter may print its start line first; everything after the error line
    must be the indented stderr tail of the test command (exit code 3 only).
    """
    err = proc.stderr.decode(errors="replace")
    assert proc.returncode == code, f"exit {proc.returncode}, expected {code}:\n{err}"
    assert "Traceback" not in err, err
    assert proc.stdout == b"", proc.stdout
    lines = err.rstrip("\n").splitlines()
    errors = [i for i, line in enumerate(lines) if line.startswith("treereduce-py: error: ")]
    assert len(errors) == 1, err
    tail = lines[errors[0] + 1 :]
    assert all(line.startswith("  stderr: ") for line in tail), err
    before = lines[: errors[0]]
    assert all(line.startswith("treereduce-py: ") for line in before), err
    return lines


def assert_all_gone(pids: Path, grace: float = 0.2) -> None:
    """Assert that no process whose pid a test script recorded in `pids` is still running.

    A killed process whose parent (the CLI) has exited is a zombie until init reaps it: it runs
    nothing, so it counts as gone; one still on its way out gets `grace` seconds to finish dying
    (less than the test script's own sleep, so a test left running is still caught: 0.2 s for
    the scripts that sleep 0.3 s; the ones that sleep 120 s can give a loaded machine longer,
    where a killed process may wait more than 0.2 s for a core to die on).
    """
    recorded = [int(p.name) for p in pids.iterdir()]
    assert recorded, "the test script never ran"
    deadline = time.monotonic() + grace
    alive = [pid for pid in recorded if _running(pid)]
    while alive and time.monotonic() < deadline:
        time.sleep(0.05)
        alive = [pid for pid in alive if _running(pid)]
    assert alive == [], f"test processes still running: {alive}"


def _running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] not in ("Z", "X")


def json_events(stderr: bytes) -> list[dict[str, Any]]:
    """The --json event lines."""
    return [json.loads(line) for line in stderr.decode().splitlines() if line.strip()]


def py_raises(path: Path, pattern: str, cwd: Path) -> bool:
    """Whether running `path` with our Python exits 1 with `pattern` in its stderr."""
    proc = run_tool([*RUN_PY, path], cwd)
    return proc.returncode == 1 and re.search(pattern.encode(), proc.stderr) is not None


# ---------------------------------------------------------------------------------------------
# Real reductions


@pytest.mark.parametrize("compiler", [("gcc",), ("clang", "clang-14")], ids=["gcc", "clang"])
def test_c_compiler_warning(tmp_path: Path, compiler: tuple[str, ...]) -> None:
    cc = which(*compiler)
    source = tmp_path / "stats.c"
    source.write_bytes(C_WARNING)
    test = [cc, "-fsyntax-only", "-Wall"]
    assert re.search(C_WARNING_RE.encode(), run_tool([*test, source], tmp_path).stderr)

    proc = run_cli([source, "--stderr-regex", C_WARNING_RE, "--", *test, "@@"], tmp_path)

    succeeded(proc)
    assert source.read_bytes() == C_WARNING
    result = tmp_path / "reduced" / "stats.c"
    reduced = result.read_bytes()
    assert 0 < len(reduced) < len(C_WARNING) // 4, reduced
    again = run_tool([*test, result], tmp_path)
    assert again.returncode == 0, again.stderr
    assert re.search(C_WARNING_RE.encode(), again.stderr), again.stderr


@pytest.mark.parametrize("jobs", [1, 4])
def test_python_exception_deep_in_call_chain(tmp_path: Path, jobs: int) -> None:
    source = tmp_path / "ledger.py"
    source.write_bytes(PY_LEDGER)
    assert py_raises(source, PY_LEDGER_RE, tmp_path)
    out = tmp_path / "small.py"

    test = ["--exit-code", "1", "--stderr-regex", PY_LEDGER_RE, "--", *RUN_PY, "@@"]
    proc = run_cli([source, "-o", out, "--jobs", str(jobs), *test], tmp_path)

    succeeded(proc)
    assert source.read_bytes() == PY_LEDGER
    reduced = out.read_bytes()
    assert len(reduced) < len(PY_LEDGER) // 3, reduced
    assert py_raises(out, PY_LEDGER_RE, tmp_path)


def test_javascript_type_error(tmp_path: Path) -> None:
    node = which("node", "nodejs")
    source = tmp_path / "cart.js"
    source.write_bytes(JS_CART)

    proc = run_cli(
        [source, "--exit-code", "1", "--stderr-regex", JS_CART_RE, "--", node, "@@"], tmp_path
    )

    succeeded(proc)
    assert source.read_bytes() == JS_CART
    result = tmp_path / "reduced" / "cart.js"
    reduced = result.read_bytes()
    assert len(reduced) < len(JS_CART) * 30 // 100, reduced
    again = run_tool([node, result], tmp_path)
    assert again.returncode == 1
    assert re.search(JS_CART_RE.encode(), again.stderr), again.stderr


# ---------------------------------------------------------------------------------------------
# Exit codes and their messages


@pytest.mark.parametrize("quiet", [False, True], ids=["plain", "quiet"])
class TestExitCodes:
    """Each failure exits with its own code and says why in one line, in plain and quiet mode."""

    @staticmethod
    def args(quiet: bool, *rest: str | Path) -> list[str | Path]:
        return (["-q"] if quiet else []) + list(rest)

    @pytest.fixture
    def small(self, tmp_path: Path) -> Path:
        path = tmp_path / "small.py"
        path.write_bytes(b"x = 1\nneedle = x\n")
        return path

    def test_missing_input(self, tmp_path: Path, quiet: bool) -> None:
        proc = run_cli(self.args(quiet, "nosuch.py", "--", "true"), tmp_path, timeout=QUICK)
        lines = error_lines(proc, 2)
        assert lines == ["treereduce-py: error: no such file: nosuch.py"]

    def test_input_is_a_directory(self, tmp_path: Path, quiet: bool) -> None:
        (tmp_path / "src.py").mkdir()
        proc = run_cli(self.args(quiet, "src.py", "--", "true"), tmp_path, timeout=QUICK)
        lines = error_lines(proc, 2)
        assert len(lines) == 1 and "directory" in lines[0]

    def test_output_directory_missing(self, tmp_path: Path, small: Path, quiet: bool) -> None:
        proc = run_cli(self.args(quiet, small, "-o", "no/such/dir/out.py", "--", "true"), tmp_path)
        lines = error_lines(proc, 2)
        assert len(lines) == 1 and "no/such/dir" in lines[0]
        assert list(tmp_path.iterdir()) == [small]

    def test_unknown_language(self, tmp_path: Path, small: Path, quiet: bool) -> None:
        proc = run_cli(self.args(quiet, small, "-l", "klingon", "--", "true"), tmp_path)
        lines = error_lines(proc, 2)
        assert len(lines) == 1
        assert "unknown language 'klingon'" in lines[0]

    def test_output_exists_without_force(self, tmp_path: Path, small: Path, quiet: bool) -> None:
        existing = tmp_path / "reduced" / "small.py"
        existing.parent.mkdir()
        existing.write_bytes(b"keep me")
        proc = run_cli(self.args(quiet, small, "--", "true"), tmp_path, timeout=QUICK)
        lines = error_lines(proc, 2)
        assert len(lines) == 1
        assert "exists" in lines[0] and "--force" in lines[0]
        assert existing.read_bytes() == b"keep me"

    def test_output_is_input(self, tmp_path: Path, small: Path, quiet: bool) -> None:
        before = small.read_bytes()
        proc = run_cli(self.args(quiet, small, "-o", small, "-f", "--", "true"), tmp_path)
        lines = error_lines(proc, 2)
        assert len(lines) == 1
        assert "is the input" in lines[0]
        assert small.read_bytes() == before

    @pytest.mark.parametrize(
        "command",
        [
            pytest.param([], id="no-command"),
            pytest.param(
                ["gcc", "@@"],
                id="command-without-separator",
            ),
        ],
    )
    def test_missing_separator(
        self, tmp_path: Path, small: Path, quiet: bool, command: list[str]
    ) -> None:
        proc = run_cli(self.args(quiet, small, *command), tmp_path, timeout=QUICK)
        err = proc.stderr.decode()
        assert proc.returncode == 2, err
        assert "Traceback" not in err
        # argparse's usage line, then one error line naming the missing '--'.
        lines = err.rstrip("\n").splitlines()
        assert len(lines) == 2 and lines[0].startswith("usage: "), err
        assert lines[1].startswith("treereduce-py: error: ") and "'--'" in lines[1], err

    @pytest.mark.parametrize("p0", ["1.5", "1", "0", "-0.1", "nan", "inf", "x"])
    def test_cdd_p0_out_of_range(self, tmp_path: Path, small: Path, quiet: bool, p0: str) -> None:
        proc = run_cli(self.args(quiet, small, "--cdd-p0", p0, "--", "true"), tmp_path)
        err = proc.stderr.decode()
        assert proc.returncode == 2, err
        lines = err.rstrip("\n").splitlines()
        assert len(lines) == 2 and lines[0].startswith("usage: "), err
        assert lines[1].startswith("treereduce-py: error: argument --cdd-p0"), err
        assert list(tmp_path.iterdir()) == [small]

    def test_original_not_interesting(self, tmp_path: Path, small: Path, quiet: bool) -> None:
        script = "import sys; print('first line', file=sys.stderr); " + (
            "print('the compiler said no', file=sys.stderr); sys.exit(7)"
        )
        proc = run_cli(self.args(quiet, small, "--", PYTHON, "-c", script, "@@"), tmp_path)
        lines = error_lines(proc, 3)
        error = next(line for line in lines if line.startswith("treereduce-py: error: "))
        assert "not interesting" in error
        assert PYTHON in error and "exited with 7 (exit code 7 not in {0})" in error
        assert lines[-2:] == ["  stderr: first line", "  stderr: the compiler said no"]
        assert not (tmp_path / "reduced" / "small.py").exists()
        if quiet:
            assert len(lines) == 3

    def test_original_fails_a_regex_and_shows_no_crash(
        self, tmp_path: Path, small: Path, quiet: bool
    ) -> None:
        args = self.args(quiet, small, "--stderr-regex", "KeyError", "--", PYTHON, "@@")
        error = next(
            line
            for line in error_lines(run_cli(args, tmp_path), 3)
            if line.startswith("treereduce-py: error: ")
        )
        assert "(--stderr-regex 'KeyError' did not match)" in error, error
        args = self.args(quiet, small, "--same-crash", "--", PYTHON, "@@")
        proc = run_cli(args, tmp_path)
        assert proc.returncode == 3
        assert b"--same-crash found no crash signature" in proc.stderr, proc.stderr

    def test_flaky_test(self, tmp_path: Path, small: Path, quiet: bool) -> None:
        marker = tmp_path / "ran-once"
        script = (
            "import os, sys; first = not os.path.exists(sys.argv[1]); "
            "open(sys.argv[1], 'a').close(); sys.exit(0 if first else 1)"
        )
        proc = run_cli(self.args(quiet, small, "--", *RUN_PY, "-c", script, marker), tmp_path)
        lines = error_lines(proc, 5)
        assert "re-test" in lines[-1] or "deterministic" in lines[-1]
        if quiet:
            assert len(lines) == 1
        # The last result that passed (here the input itself) is kept.
        assert (tmp_path / "reduced" / "small.py").read_bytes() == small.read_bytes()

    @pytest.mark.parametrize("command", ["no-such-command-4711", "./missing-script.sh"])
    def test_command_not_found(
        self, tmp_path: Path, small: Path, quiet: bool, command: str
    ) -> None:
        proc = run_cli(self.args(quiet, small, "--", command, "@@"), tmp_path)
        lines = error_lines(proc, 4)
        assert "not found" in lines[-1] and command in lines[-1]
        if quiet:
            assert len(lines) == 1

    def test_command_not_executable(self, tmp_path: Path, small: Path, quiet: bool) -> None:
        script = tmp_path / "check.sh"
        script.write_text("#!/bin/sh\nexit 0\n")
        script.chmod(0o644)
        proc = run_cli(self.args(quiet, small, "--", "./check.sh", "@@"), tmp_path)
        lines = error_lines(proc, 4)
        assert "not executable" in lines[-1] and "check.sh" in lines[-1]
        if quiet:
            assert len(lines) == 1


def test_json_mode_reports_errors_as_json(tmp_path: Path) -> None:
    source = tmp_path / "small.py"
    source.write_bytes(b"x = 1\n")
    proc = run_cli([source, "--json", "--", "grep", "-q", "needle", "@@"], tmp_path)
    assert proc.returncode == 3
    events = json_events(proc.stderr)  # raises on a line that is not JSON
    assert events[0]["event"] == "start"


# ---------------------------------------------------------------------------------------------
# Signals


def _default_sigint() -> None:
    """In the CLI's process before exec: a shell running pytest in the background ignores
    SIGINT, and a child inherits that; the tests that send SIGINT need its default back."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_signal_keeps_best_result(tmp_path: Path, sig: signal.Signals) -> None:
    source, test = needle_setup(tmp_path, 40)
    (tmp_path / "slow.flag").write_text("0.3")
    pids = tmp_path / "pids"
    temp = tmp_path / "temp"
    pids.mkdir()
    temp.mkdir()
    original = source.read_bytes()
    out = tmp_path / "out.py"
    proc = subprocess.Popen(
        cli_args([source, "-o", out, "-j", "2", "--", *test, pids]), cwd=tmp_path,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "TMPDIR": str(temp)},
        preexec_fn=_default_sigint,
    )  # fmt: skip
    stdout, stderr = signal_when(
        proc,
        lambda: out.exists() and out.stat().st_size < len(original),
        sig,
        waiting_for="an improvement to be written",
    )
    code = proc.returncode
    err = stderr.decode(errors="replace")
    assert code == 130, f"exit {code}:\n{err}"
    assert "Traceback" not in err, err
    assert "interrupted" in err and str(out) in err, err
    assert stdout == b""
    assert source.read_bytes() == original
    result = out.read_bytes()
    assert len(result) < len(original)
    # No test left running, no temporary file left behind (workers' dirs, half-written output).
    assert_all_gone(pids)
    assert list(temp.iterdir()) == []
    leftovers = sorted(p.name for p in tmp_path.iterdir())
    # The output and its run record (for --resume), nothing else.
    assert leftovers == [
        "check.py", "out.py", "out.py.treereduce.json", "pids", "prog.py", "slow.flag", "temp"
    ]  # fmt: skip
    assert needle_ok(out, tmp_path), result


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_signal_while_the_original_is_tested(tmp_path: Path, sig: signal.Signals) -> None:
    pids = tmp_path / "pids"
    pids.mkdir()
    check = tmp_path / "check.py"
    check.write_text(
        "import os, sys, time\n"
        f"open(os.path.join({str(pids)!r}, str(os.getpid())), 'w').close()\n"
        "time.sleep(120)\n"
    )
    source = tmp_path / "prog.py"
    source.write_bytes(b"x = 1\n")
    out = tmp_path / "prog.out.py"
    proc = subprocess.Popen(
        cli_args([source, "-o", out, "--", PYTHON, check, "@@"]), cwd=tmp_path,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        preexec_fn=_default_sigint,
    )  # fmt: skip
    _, stderr = signal_when(
        proc, lambda: any(pids.iterdir()), sig, within=QUICK, waiting_for="the test to start"
    )
    code = proc.returncode
    err = stderr.decode(errors="replace")
    assert code == 130, f"exit {code}:\n{err}"
    assert "Traceback" not in err, err
    assert "interrupted" in err, err
    assert_all_gone(pids, grace=5.0)
    # Whatever it says about the best result must be true.
    if str(out) in err:
        assert out.read_bytes() == source.read_bytes(), err
    assert source.read_bytes() == b"x = 1\n"


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_signal_while_the_input_is_read(tmp_path: Path, sig: signal.Signals) -> None:
    # A FIFO as INPUT: opening its write end succeeds once the CLI has opened it to read the
    # input, so the signal arrives at start-up, before the input is even complete.
    source = tmp_path / "prog.py"
    os.mkfifo(source)
    out = tmp_path / "prog.out.py"
    writers: list[int] = []  # held open until the CLI is gone, so its read never sees the end

    def opened_by_the_cli() -> bool:
        with contextlib.suppress(OSError):  # ENXIO: no reader yet
            writers.append(os.open(source, os.O_WRONLY | os.O_NONBLOCK))
        return bool(writers)

    proc = subprocess.Popen(
        cli_args([source, "-o", out, "--", "true"]), cwd=tmp_path,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        preexec_fn=_default_sigint,
    )  # fmt: skip
    try:
        stdout, stderr = signal_when(
            proc, opened_by_the_cli, sig, within=QUICK, waiting_for="the CLI to open its input"
        )
        code = proc.returncode
    finally:
        for fd in writers:
            os.close(fd)
    err = stderr.decode(errors="replace")
    assert code == 130, f"exit {code}:\n{err}"
    assert "Traceback" not in err, err
    lines = err.rstrip("\n").splitlines()
    assert len(lines) == 1 and "interrupted" in lines[0], err
    assert "no result was written" in lines[0], err
    assert stdout == b""
    assert not out.exists()


# ---------------------------------------------------------------------------------------------
# Odd inputs


def test_crlf_line_endings(tmp_path: Path) -> None:
    text = (
        b"import sys\r\n\r\ndef helper(a):\r\n    b = a + 1\r\n    return b\r\n\r\n"
        b"def fail(x):\r\n    y = helper(x)\r\n    raise LookupError('crlf kept %d' % y)\r\n\r\n"
        b"print('start')\r\nfor i in range(3):\r\n    print(i)\r\nfail(41)\r\n"
    )
    source = tmp_path / "crlf.py"
    source.write_bytes(text)
    pattern = "LookupError: crlf kept 42"

    proc = run_cli(
        [source, "--exit-code", "1", "--stderr-regex", pattern, "--", *RUN_PY, "@@"], tmp_path
    )

    succeeded(proc)
    assert source.read_bytes() == text
    result = tmp_path / "reduced" / "crlf.py"
    reduced = result.read_bytes()
    assert len(reduced) < len(text)
    assert py_raises(result, pattern, tmp_path)
    # Deleting syntax must not split a CRLF pair into a bare LF or CR; the whitespace stage may
    # then turn every CRLF into LF at once (transform/tidy.py's unix_lines).
    assert b"\r" not in reduced.replace(b"\r\n", b""), reduced
    assert reduced.count(b"\r\n") in (0, reduced.count(b"\n")), reduced


def test_nul_byte(tmp_path: Path) -> None:
    text = (
        b"def first():\n    return 1\n\nMARKER = 'a\0b'\n\ndef second():\n    return 2\n\n"
        b"for i in range(3):\n    print(first() + second())\n"
    )
    source = tmp_path / "nul.py"
    source.write_bytes(text)
    check = (
        "import sys; d = open(sys.argv[1], 'rb').read(); "
        "sys.exit(b'\\0' not in d or b'MARKER' not in d)"
    )

    proc = run_cli([source, "--", PYTHON, "-c", check, "@@"], tmp_path)

    succeeded(proc)
    assert source.read_bytes() == text
    reduced = (tmp_path / "reduced" / "nul.py").read_bytes()
    assert b"\0" in reduced and b"MARKER" in reduced
    assert len(reduced) < len(text) // 4, reduced


def test_latin1_encoding(tmp_path: Path) -> None:
    text = (
        b"# -*- coding: latin-1 -*-\ndef greet(name):\n    return 'bonjour ' + name\n\n"
        b"def order(item):\n    raise ValueError('pas de ' + item)\n\n"
        b"print(greet('Ren\xe9'))\norder('caf\xe9')\n"
    )
    source = tmp_path / "latin.py"
    source.write_bytes(text)
    pattern = "ValueError: pas de café"
    assert py_raises(source, pattern, tmp_path)

    proc = run_cli(
        [source, "--exit-code", "1", "--stderr-regex", pattern, "--", *RUN_PY, "@@"], tmp_path
    )

    succeeded(proc)
    assert source.read_bytes() == text
    result = tmp_path / "reduced" / "latin.py"
    reduced = result.read_bytes()
    assert b"caf\xe9" in reduced  # the bytes are kept as they are, never re-encoded
    assert len(reduced) < len(text)
    assert py_raises(result, pattern, tmp_path)


def test_empty_interesting_file(tmp_path: Path) -> None:
    source = tmp_path / "empty.py"
    source.write_bytes(b"")

    proc = run_cli([source, "--", *RUN_PY, "@@"], tmp_path)

    succeeded(proc)
    assert (tmp_path / "reduced" / "empty.py").read_bytes() == b""


def test_empty_stdin(tmp_path: Path) -> None:
    proc = run_cli(["-", "-l", "python", "--", "true"], tmp_path, stdin=b"")
    succeeded(proc)
    assert proc.stdout == b""
    assert list(tmp_path.iterdir()) == []


def test_empty_uninteresting_file(tmp_path: Path) -> None:
    source = tmp_path / "empty.py"
    source.write_bytes(b"")
    proc = run_cli([source, "--", "grep", "-q", "needle", "@@"], tmp_path)
    error_lines(proc, 3)
    assert not (tmp_path / "reduced" / "empty.py").exists()


def test_input_that_does_not_parse(tmp_path: Path) -> None:
    text = b"def ok():\n    return 1\n\ndef broken(:\n    pass\n\nneedle = ok()\nprint(needle)\n"
    source = tmp_path / "bad.py"
    source.write_bytes(text)

    proc = run_cli([source, "-j", "2", "--", "grep", "-q", "needle", "@@"], tmp_path)

    succeeded(proc)
    err = proc.stderr.decode()
    warnings = [line for line in err.splitlines() if "does not parse cleanly" in line]
    assert len(warnings) == 1, err
    assert warnings[0].startswith("treereduce-py: warning: "), err
    reduced = (tmp_path / "reduced" / "bad.py").read_bytes()
    assert b"needle" in reduced
    assert len(reduced) < len(text) // 4, reduced
    assert source.read_bytes() == text


# ---------------------------------------------------------------------------------------------
# Where the result goes


def test_stdin_to_stdout(tmp_path: Path) -> None:
    text = (
        b"import math\n\n\ndef ratio(a, b):\n    return a / b\n\n\n"
        b"def spread(xs):\n    return max(xs) - min(xs)\n\n\n"
        b"def mean(xs):\n    return ratio(sum(xs), len(xs))\n\n\n"
        b"data = [1, 2, 3, 5, 8]\nprint(mean(data), spread(data), math.sqrt(spread(data)))\n"
        b"print(mean([]))\n"
    )
    pattern = "ZeroDivisionError"

    test = ["--exit-code", "1", "--stderr-regex", pattern, "--", *RUN_PY, "-"]
    proc = run_cli(["-", "-l", "python", "-o", "-", *test], tmp_path, stdin=text)

    succeeded(proc)
    reduced = proc.stdout
    assert 0 < len(reduced) < len(text) // 2, reduced
    assert b"treereduce-py" not in reduced
    again = subprocess.run(
        [*RUN_PY, "-"], input=reduced, capture_output=True, cwd=tmp_path, timeout=QUICK
    )
    assert again.returncode == 1 and pattern.encode() in again.stderr, again.stderr
    assert list(tmp_path.iterdir()) == []


def test_default_output_next_to_input(tmp_path: Path) -> None:
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    text = b"import os\n\nalpha = 1\nneedle = 2\nomega = 3\n"
    source = inputs / "prog.py"
    source.write_bytes(text)

    proc = run_cli(["../inputs/prog.py", "--", "grep", "-q", "needle", "@@"], work)

    succeeded(proc)
    assert sorted(p.name for p in inputs.iterdir()) == ["prog.py", "reduced"]
    assert sorted(p.name for p in (inputs / "reduced").iterdir()) == [
        "prog.py", "prog.py.treereduce.json"
    ]  # fmt: skip
    assert list(work.iterdir()) == []
    reduced = (inputs / "reduced" / "prog.py").read_bytes()
    assert b"needle" in reduced and len(reduced) < len(text) // 2
    assert source.read_bytes() == text


def test_explicit_output_and_force(tmp_path: Path) -> None:
    text = b"import os\n\nalpha = 1\nneedle = 2\nomega = 3\n"
    source = tmp_path / "prog.py"
    source.write_bytes(text)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / "result.txt"
    args: list[str | Path] = [source, "-o", out, "-l", "python", "--", "grep", "-q", "needle", "@@"]

    succeeded(run_cli(args, tmp_path))
    first = out.read_bytes()
    assert b"needle" in first and len(first) < len(text) // 2
    assert not (tmp_path / "reduced" / "prog.py").exists()

    out.write_bytes(b"stale")
    refused = run_cli(args, tmp_path)
    error_lines(refused, 2)
    assert out.read_bytes() == b"stale"

    succeeded(run_cli([*args[:1], "--force", *args[1:]], tmp_path))
    assert out.read_bytes() == first
    assert sorted(p.name for p in out_dir.iterdir()) == ["result.txt", "result.txt.treereduce.json"]
    assert source.read_bytes() == text


def test_help_says_signature_implies_same_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    from treereduce_py.front import cli

    monkeypatch.setenv("COLUMNS", "1000")  # no line breaks inside option names
    text = " ".join(cli.build_parser().format_help().split())
    described = re.search(r"--signature RE (.*?) --deterministic", text)
    assert described is not None, text
    assert "implies --same-crash" in described.group(1), described.group(1)


def test_python_m_help(tmp_path: Path) -> None:
    proc = subprocess.run(
        [PYTHON, "-m", "treereduce_py", "--help"], capture_output=True, cwd=tmp_path, timeout=QUICK
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    assert out.startswith("usage: treereduce-py")
    assert "exit codes:" in out and "130" in out


# ---------------------------------------------------------------------------------------------
# Timeouts


def test_hanging_candidates_are_killed(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    pids.mkdir()
    check = tmp_path / "check.py"
    check.write_text(
        "import os, sys, time\n"
        "data = open(sys.argv[1], 'rb').read()\n"
        "if b'keep' not in data:\n"
        f"    open(os.path.join({str(pids)!r}, str(os.getpid())), 'w').close()\n"
        "    time.sleep(120)\n"
        "sys.exit(0)\n"
    )
    text = b"a = 1\nkeep = a\nb = 2\n"
    source = tmp_path / "hang.py"
    source.write_bytes(text)

    proc = run_cli(
        [source, "--timeout", "1.5", "--json", "-j", "2", "--", *RUN_PY, check, "@@"],
        tmp_path,
        timeout=100,  # below the 120 s a hanging candidate sleeps: finishing means they were killed
    )

    succeeded(proc)
    reduced = (tmp_path / "reduced" / "hang.py").read_bytes()
    assert b"keep" in reduced and len(reduced) < len(text)
    done = [e for e in json_events(proc.stderr) if e["event"] == "done"]
    assert len(done) == 1
    assert done[0]["stats"]["timeouts"] >= 1
    assert_all_gone(pids, grace=5.0)
