"""The user-facing workflows of the command line, run as a user runs them.

Each test is one thing a person does with `treereduce-py` and checks what they would look at:
the live panel in a real terminal (tmux renders it; pexpect reads the raw stream), the `--json`
events against the documented schema, `--same-crash` on real crashes with no wrapper script
(a Python exception deep in a call chain whose message holds a temp path, an address, a pid and a
timestamp that all change between runs; a C program that segfaults at run time; a gcc
diagnostic; a rustc internal compiler error), the `--signature` override, `--deterministic`
across `--jobs`, the `--max-time`/`--max-tests` budgets with `--report`, `--resume` after an
interrupt, and the editor mode (buffer on stdin, result on stdout, JSON on stderr).

Every result is re-checked here by running the tool on it ourselves. Timeouts only detect hangs;
the one timing assertion is the `--max-time` budget, which the feature promises.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    CLI,
    HANG,
    PYTHON,
    QUICK,
    RUN_PY,
    cli_args,
    needle_ok,
    needle_program,
    needle_setup,
    run_cli,
    run_tool,
    signal_when,
    succeeded,
    which,
)

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parent.parent
SCHEMA_PATH = REPO / "docs" / "events.schema.json"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Za-z0-9]|\x1b[=>78]")

# ---------------------------------------------------------------------------------------------
# Inputs

# The exception message changes on every run: a temp path (each worker has its own directory),
# an object address, a pid and a timestamp.
PY_LEDGER = b'''\
"""Posting records to a ledger; a negative record fails three calls deep."""
import datetime
import os


class Record:
    def __init__(self, account, cents):
        self.account = account
        self.cents = cents


def validate(record):
    if record.cents < 0:
        stamp = datetime.datetime.now().isoformat()
        where = os.path.abspath(__file__)
        raise ValueError(f"bad record {record!r} in {where} (pid {os.getpid()}) at {stamp}")
    return record


def post(ledger, record):
    validate(record)
    ledger[record.account] = ledger.get(record.account, 0) + record.cents


def post_all(ledger, records):
    for record in records:
        post(ledger, record)
    return ledger


records = [Record("rent", 120000), Record("food", 5400), Record("refund", -700)]
print(sorted(post_all({}, records).items()))
'''
PY_LEDGER_RE = (
    rb"(?m)^ValueError: bad record <__main__\.Record object at 0x[0-9a-f]+> in /\S+ "
    rb"\(pid \d+\) at \d{4}-\d\d-\d\dT[\d:.]+$"
)

# Dereferences a null pointer three calls deep, at run time only.
C_SEGV = b"""\
#include <stdio.h>
#include <stdlib.h>

struct node { int value; struct node *next; };

static struct node *push(struct node *head, int value) {
    struct node *n = malloc(sizeof *n);
    n->value = value;
    n->next = head;
    return n;
}

static int nth(struct node *head, int index) {
    while (index-- > 0)
        head = head->next;
    return head->value;
}

static int sum_first(struct node *head, int count) {
    int total = 0;
    for (int i = 0; i < count; i++)
        total += nth(head, i);
    return total;
}

int main(void) {
    struct node *list = NULL;
    for (int i = 1; i <= 3; i++)
        list = push(list, i * 10);
    printf("%d\\n", sum_first(list, 2));
    printf("%d\\n", sum_first(list, 5));
    return 0;
}
"""

# Two undeclared names: gcc reports `scale` first and `offset` second.
C_DIAG = b"""\
#include <stdio.h>

struct point { int x; int y; };

static int dot(struct point a, struct point b) {
    return a.x * b.x + a.y * b.y;
}

static int shifted(struct point p) {
    return p.x + scale;
}

int main(void) {
    struct point p = { 3, 4 };
    struct point q = { 1, 2 };
    printf("%d %d\\n", dot(p, p), dot(p, q));
    printf("%d\\n", offset * dot(q, q) + shifted(p));
    return 0;
}
"""

# A real rustc 1.95 ICE (rust-lang/rust#102047), the benchmark's rust-ice-hrtb case.
RUST_ICE = (REPO / "bench" / "cases" / "rust-ice-hrtb" / "input.rs").read_bytes()
RUST_ICE_LINE = b"internal compiler error: error performing operation: fully_perform"

# ---------------------------------------------------------------------------------------------
# Helpers


def signature_line(stderr: str) -> str:
    """The `crash signature:` line printed at the start of a --same-crash run."""
    lines = [line for line in stderr.splitlines() if "crash signature:" in line]
    assert len(lines) == 1, stderr
    assert stderr.splitlines()[0] == lines[0], "the signature is not the first line"
    return lines[0]


def events_of(stderr: bytes) -> list[dict[str, Any]]:
    """The --json lines of stderr; fails if any line is not JSON."""
    events = []
    for line in stderr.decode().splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            pytest.fail(f"a non-JSON line on stderr in --json mode: {line!r}")
    return events


def check_events(events: list[dict[str, Any]], start_size: int | None = None) -> None:
    """Validate every event against docs/events.schema.json and the documented order; the run
    started from `start_size` bytes (default: the original's size; less with --resume)."""
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema (a test dependency)")
    schema = json.loads(SCHEMA_PATH.read_text())
    validator = jsonschema.Draft202012Validator(schema)
    for event in events:
        problems = [e.message for e in validator.iter_errors(event)]
        assert not problems, (event, problems)
    assert events[0]["event"] == "start", events[0]
    assert events[-1]["event"] == "done", events[-1]
    assert [e["event"] for e in events].count("start") == 1
    assert [e["event"] for e in events].count("done") == 1
    sizes = [e["size"] for e in events if e["event"] == "improvement"]
    assert sizes == sorted(set(sizes), reverse=True), f"improvements not decreasing: {sizes}"
    first = events[0]["original_size"] if start_size is None else start_size
    final = events[-1]["stats"]["size"]
    assert all(size < first for size in sizes)
    assert final == (sizes[-1] if sizes else first)


# ---------------------------------------------------------------------------------------------
# The live panel in a real terminal

# What the panel shows (ui.render_panel) and the summary table after it (ui.summary_table).
SIZE_RE = re.compile(r"([\d,]+) → ([\d,]+) bytes")
TESTS_RE = re.compile(r"tests\s+([\d,]+) \(")
ELAPSED_RE = re.compile(r"elapsed\s+([\d.]+) s")
SLOW_RE = re.compile(r"slow tests running: ([\d.]+) s")


def number(text: str) -> int:
    return int(text.replace(",", ""))


def tmux_screens(tmp_path: Path, command: list[str], done: Callable[[str], bool]) -> list[str]:
    """Run `command` in a fresh tmux server (100x30) and capture the screen every 0.1 s until
    `done(screen)`; return the distinct screens in order. The server is private to this test."""
    tmux = which("tmux")
    base = [tmux, "-S", str(tmp_path / "tmux.sock"), "-f", "/dev/null"]
    # The shell stays after the command so the last screen can still be read.
    script = f"cd {shlex.quote(str(tmp_path))} && {shlex.join(command)}; echo EXIT=$?; sleep 600"
    subprocess.run(
        [*base, "new-session", "-d", "-s", "w", "-x", "100", "-y", "30", script],
        check=True,
        timeout=QUICK,
        env={**os.environ, "TERM": "xterm-256color"},
    )
    screens: list[str] = []
    try:
        deadline = time.monotonic() + HANG
        while time.monotonic() < deadline:
            screen = subprocess.run(
                [*base, "capture-pane", "-p", "-t", "w"],
                capture_output=True,
                text=True,
                timeout=QUICK,
                check=True,
            ).stdout
            if not screens or screen != screens[-1]:
                screens.append(screen)
            if done(screen):
                return screens
            time.sleep(0.1)
        pytest.fail("the run did not finish in the terminal:\n" + screens[-1])
    finally:
        subprocess.run([*base, "kill-server"], capture_output=True, timeout=QUICK)


def pexpect_stream(tmp_path: Path, command: list[str]) -> tuple[str, int]:
    """Run `command` in a pseudo-terminal (30x100) with pexpect; return its output with the
    terminal escapes removed, and its exit status."""
    pexpect = pytest.importorskip("pexpect", reason="pexpect (a test dependency)")
    child = pexpect.spawn(
        command[0],
        command[1:],
        cwd=str(tmp_path),
        dimensions=(30, 100),
        env={**os.environ, "TERM": "xterm-256color"},
        timeout=HANG,
        encoding="utf-8",
        codec_errors="replace",
    )
    chunks = []
    try:
        while True:
            try:
                chunks.append(child.read_nonblocking(65536, timeout=HANG))
            except pexpect.EOF:
                break
        child.close()
    finally:
        if child.isalive():
            child.terminate(force=True)
    assert child.exitstatus is not None, f"killed by signal {child.signalstatus}"
    return ANSI.sub("", "".join(chunks)), int(child.exitstatus)


def live_setup(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    """A one-worker run whose 6th test takes 4 s (its --timeout lets it finish; the original's
    run takes 1 s, so patience lets a test run 5 s before it takes it for a hang)."""
    source, test = needle_setup(tmp_path, 14)
    (tmp_path / "slow_at").write_text("1 1 6 4")
    out = tmp_path / "out.py"
    args = [source, "-o", out, "-j", "1", "--timeout", "20", "--", *test]
    return source, out, cli_args(args)


def check_panel_sequence(text_frames: list[str], original: int) -> None:
    """The panel shows the sizes and a test count that grows; a slow test's running time shows
    and keeps moving while nothing else happens (one worker, so no test ends meanwhile)."""
    frames = [f for f in text_frames if TESTS_RE.search(f)]
    assert len(frames) >= 3, "\n----\n".join(text_frames)
    for frame in frames:
        m = SIZE_RE.search(frame)
        assert m is not None, frame
        assert number(m.group(1)) == original
        assert number(m.group(2)) <= original
        assert ELAPSED_RE.search(frame), frame
    tests = [number(TESTS_RE.findall(f)[-1]) for f in frames]
    assert tests == sorted(tests) and tests[-1] > tests[0], tests
    slow = [float(v) for f in frames for v in SLOW_RE.findall(f)]
    assert len(set(slow)) >= 2, "the slow test's time was not shown moving"
    assert all(2.0 <= v < 30 for v in slow), slow
    assert slow == sorted(slow), slow
    # While the one slow test runs no event arrives; the clock must still move.
    during = [float(ELAPSED_RE.findall(f)[-1]) for f in frames if SLOW_RE.search(f)]
    assert during[-1] > during[0], during


def check_summary(text: str, out: Path, original: int) -> None:
    """The summary table after the panel agrees with the file written."""
    assert "treereduce-py summary" in text, text
    rows = dict(
        (m.group(1).strip(), m.group(2).strip())
        for m in re.finditer(r"│ ([a-z ]+?)\s+│\s+(.+?) │", text)
    )
    assert rows["original size"] == f"{original:,} bytes", rows
    assert rows["final size"] == f"{len(out.read_bytes()):,} bytes", rows
    assert rows["stop reason"] == "fixpoint", rows


def test_live_panel_in_tmux(tmp_path: Path) -> None:
    source, out, command = live_setup(tmp_path)
    original = len(source.read_bytes())

    screens = tmux_screens(tmp_path, command, lambda s: "EXIT=" in s)

    final = screens[-1]
    assert "EXIT=0" in final, final
    check_panel_sequence(screens, original)
    # The panel's frame is drawn (box characters and the title with the language and jobs).
    assert any("╭─ treereduce-py · python · " in s and "1 job " in s for s in screens)
    check_summary(final, out, original)
    assert "╭─" not in final, "the live panel was left on the screen"
    assert needle_ok(out, tmp_path)
    assert len(out.read_bytes()) < original


def test_live_panel_raw_stream_pexpect(tmp_path: Path) -> None:
    source, out, command = live_setup(tmp_path)
    original = len(source.read_bytes())

    text, status = pexpect_stream(tmp_path, command)

    assert status == 0, text[-3000:]
    # Each refresh redraws the whole panel: split the stream at its top-left corner.
    frames = ["╭" + part for part in text.split("╭")[1:]]
    check_panel_sequence(frames, original)
    check_summary(text, out, original)
    assert needle_ok(out, tmp_path)


def test_plain_log_when_not_a_terminal_and_verbose(tmp_path: Path) -> None:
    source, test = needle_setup(tmp_path, 6)
    out = tmp_path / "out.py"

    proc = run_cli([source, "-o", out, "-v", "--", *test], tmp_path)

    err = succeeded(proc)
    assert "\x1b[" not in err and "╭" not in err, "terminal drawing in a pipe"
    lines = err.splitlines()
    assert all(line.startswith("treereduce-py: ") for line in lines), err
    assert re.match(r"treereduce-py: reducing \d+ bytes of python with \d+ jobs?", lines[0])
    # -v: one statistics line per pass.
    assert re.search(r"^treereduce-py:   pass 1 \w+: \d+ tests, \d+ interesting", err, re.M), err
    final = len(out.read_bytes())
    assert re.search(rf"-> {final} bytes .* in [\d.]+ s$", lines[-2]), lines[-2]
    # The last line says where the result and the run's record are.
    assert lines[-1] == (
        f"treereduce-py: the result ({final} bytes) is in {out}; {out}.treereduce.json records "
        "the run (for --resume)"
    ), lines[-1]
    assert proc.stdout == b""

    quiet = run_cli([source, "-o", out, "-f", "-q", "--", *test], tmp_path)
    assert quiet.returncode == 0 and quiet.stderr == b"" and quiet.stdout == b""


# ---------------------------------------------------------------------------------------------
# JSON events and the editor mode


def test_editor_mode_stdin_to_stdout_with_json_events(tmp_path: Path) -> None:
    text = (
        b"import math\n\n\ndef ratio(a, b):\n    return a / b\n\n\n"
        b"def spread(xs):\n    return max(xs) - min(xs)\n\n\n"
        b"def mean(xs):\n    return ratio(sum(xs), len(xs))\n\n\n"
        b"data = [1, 2, 3, 5, 8]\nprint(mean(data), spread(data), math.sqrt(spread(data)))\n"
        b"print(mean([]))\n"
    )
    test = ["--exit-code", "1", "--stderr-regex", "ZeroDivisionError", "--", *RUN_PY, "-"]

    proc = run_cli(["-", "-l", "python", "-o", "-", "--json", *test], tmp_path, stdin=text)

    assert proc.returncode == 0, proc.stderr
    events = events_of(proc.stderr)
    check_events(events)
    assert events[0]["language"] == "python" and events[0]["original_size"] == len(text)
    assert events[-1]["reason"] == "fixpoint"
    # stdout holds the result and nothing else, so an editor can replace the buffer with it.
    assert events[-1]["stats"]["size"] == len(proc.stdout) < len(text) // 2
    again = subprocess.run(
        [*RUN_PY, "-"], input=proc.stdout, capture_output=True, cwd=tmp_path, timeout=QUICK
    )
    assert again.returncode == 1 and b"ZeroDivisionError" in again.stderr, again.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [], "files left next to the input"


def test_json_with_same_crash_is_pure_json(tmp_path: Path) -> None:
    source = tmp_path / "diag.c"
    source.write_bytes(C_DIAG)
    cc = which("gcc")

    proc = run_cli(
        [source, "--json", "--same-crash", "--max-tests", "5", "--", cc, "-c", "@@"], tmp_path
    )

    assert proc.returncode == 0, proc.stderr
    events = events_of(proc.stderr)
    check_events(events)
    assert "scale" in events[0]["signature"]


# ---------------------------------------------------------------------------------------------
# --same-crash and --signature


def test_same_crash_python_exception_with_changing_paths(tmp_path: Path) -> None:
    source = tmp_path / "ledger.py"
    source.write_bytes(PY_LEDGER)
    # The message differs between two runs of the very same file (the timestamp at least).
    first, second = (run_tool([*RUN_PY, source], tmp_path) for _ in range(2))
    assert re.search(PY_LEDGER_RE, first.stderr) and first.stderr != second.stderr

    # A test budget keeps this short; any real reduction shows that the workers' runs, each in
    # its own directory and at its own time, matched the golden run.
    budget = ["--max-tests", "200"]
    proc = run_cli([source, "--same-crash", *budget, "--", *RUN_PY, "@@"], tmp_path)

    err = succeeded(proc)
    sig = signature_line(err)
    # The run-specific parts were normalized away, so the workers' runs could match at all.
    assert "exit 1 and 'ValueError: bad record" in sig, sig
    for volatile in ("/tmp", str(tmp_path), f"pid {os.getpid()}", "0x7"):
        assert volatile not in sig, sig
    reduced = (tmp_path / "reduced" / "ledger.py").read_bytes()
    assert len(reduced) < len(PY_LEDGER) * 85 // 100, reduced
    again = run_tool([*RUN_PY, tmp_path / "reduced" / "ledger.py"], tmp_path)
    assert again.returncode == 1
    assert re.search(PY_LEDGER_RE, again.stderr), again.stderr
    assert source.read_bytes() == PY_LEDGER


@pytest.mark.parametrize("exec_", [False, True], ids=["shell-reports", "killed-by-signal"])
def test_same_crash_c_segfault_at_run_time(tmp_path: Path, exec_: bool) -> None:
    cc = which("gcc")
    source = tmp_path / "list.c"
    source.write_bytes(C_SEGV)
    # The crash is at run time, so the test compiles and runs: a shell line, still no script.
    # Without exec the shell reports "Segmentation fault" and exits 139; with it, signal 11.
    run = "exec ./prog" if exec_ else "./prog"
    test = ["sh", "-c", f'{cc} -w -O0 -o prog "$1" && {run}', "sh", "@@"]

    proc = run_cli([source, "--same-crash", "--max-tests", "60", "--", *test], tmp_path)

    err = succeeded(proc)
    sig = signature_line(err)
    if exec_:
        assert "SIGSEGV" in sig, sig
    else:
        assert "exit 139 and 'Segmentation fault'" in sig, sig
    result = tmp_path / "reduced" / "list.c"
    # The budget (for a short test) stops it early; it still removes much of the program.
    assert len(result.read_bytes()) < len(C_SEGV) * 85 // 100, result.read_bytes()
    built = run_tool([cc, "-w", "-O0", "-o", tmp_path / "again", result], tmp_path)
    assert built.returncode == 0, built.stderr
    assert run_tool([tmp_path / "again"], tmp_path).returncode == -signal.SIGSEGV


def test_same_crash_compiler_diagnostic_without_script(tmp_path: Path) -> None:
    cc = which("gcc")
    source = tmp_path / "points.c"
    source.write_bytes(C_DIAG)

    proc = run_cli([source, "--same-crash", "--", cc, "-c", "@@"], tmp_path)

    sig = signature_line(succeeded(proc))
    assert "exit 1 and 'error: ‘scale’ undeclared" in sig, sig
    result = tmp_path / "reduced" / "points.c"
    assert len(result.read_bytes()) < len(C_DIAG) // 4, result.read_bytes()
    again = run_tool([cc, "-c", "-o", os.devnull, result], tmp_path)
    assert again.returncode == 1
    assert "error: ‘scale’ undeclared" in again.stderr.decode(), again.stderr


def test_signature_override_keeps_the_chosen_error(tmp_path: Path) -> None:
    cc = which("gcc")
    source = tmp_path / "points.c"
    source.write_bytes(C_DIAG)
    regex = r"‘offset’ undeclared"

    proc = run_cli([source, "--same-crash", "--signature", regex, "--", cc, "-c", "@@"], tmp_path)

    sig = signature_line(succeeded(proc))
    assert regex in sig and "user --signature" in sig, sig
    result = (tmp_path / "reduced" / "points.c").read_bytes()
    again = run_tool([cc, "-c", "-o", os.devnull, tmp_path / "reduced" / "points.c"], tmp_path)
    assert again.returncode == 1 and re.search(regex, again.stderr.decode()), again.stderr
    # The default signature (the first error) would have kept `scale`; this one need not.
    assert b"scale" not in result, result


def test_signature_that_does_not_match_the_original(tmp_path: Path) -> None:
    cc = which("gcc")
    source = tmp_path / "points.c"
    source.write_bytes(C_DIAG)

    proc = run_cli([source, "--signature", "no such text", "--", cc, "-c", "@@"], tmp_path)

    assert proc.returncode == 3, proc.stderr
    assert b"not interesting" in proc.stderr
    assert not (tmp_path / "reduced" / "points.c").exists()


# ---------------------------------------------------------------------------------------------
# Budgets and the CI report


def test_rustc_ice_with_test_budget_and_report(tmp_path: Path) -> None:
    rustc = which("rustc")
    source = tmp_path / "crash.rs"
    source.write_bytes(RUST_ICE)
    probe = run_tool([rustc, "--crate-type", "lib", "-o", tmp_path / "probe", source], tmp_path)
    if proc_ice(probe) is False:
        pytest.skip(f"this rustc does not crash on the sample: {probe.stderr[-300:]!r}")
    report = tmp_path / "report.json"
    out = tmp_path / "small.rs"
    budget = 30

    # The command from the issue, as a user types it; the budget keeps the test short.
    args = [source, "-o", out, "--same-crash", "--max-tests", budget, "--report", report]
    proc = run_cli([*args, "--", rustc, "--crate-type", "lib", "@@.rs"], tmp_path)

    sig = signature_line(succeeded(proc))
    assert "exit 101 and 'internal compiler error: error performing operation: fully_perform" in sig
    body = json.loads(report.read_text())
    result = out.read_bytes()
    assert body["exit_code"] == 0 and body["reason"] == "max-tests", body
    assert body["original_size"] == len(RUST_ICE) and body["final_size"] == len(result)
    assert body["reduced_percent"] == round(100 * (1 - len(result) / len(RUST_ICE)), 2)
    assert "internal compiler error" in body["signature"]
    assert body["output"] == str(out) and body["language"] == "rust"
    # The budget counts tests started: in-flight ones finish, and the final re-test is extra.
    assert budget <= body["tests"] <= budget + body["jobs"] + 1, body
    again = run_tool([rustc, "--crate-type", "lib", "-o", tmp_path / "again", out], tmp_path)
    assert proc_ice(again), again.stderr
    assert not list(tmp_path.glob("rustc-ice-*")), "an ICE report was left next to the input"


def proc_ice(proc: subprocess.CompletedProcess[bytes]) -> bool:
    return proc.returncode == 101 and RUST_ICE_LINE in proc.stderr


def test_max_time_stops_the_run_with_an_interesting_result(tmp_path: Path) -> None:
    source, test = needle_setup(tmp_path, 40)
    # ~25 tests reach the fixpoint here; at 0.5 s a test, two workers run ~12 in the budget.
    (tmp_path / "slow.flag").write_text("0.5")
    out = tmp_path / "out.py"
    report = tmp_path / "report.json"
    proc = run_cli([source, "-o", out, "--max-time", 3, "--report", report, "--", *test], tmp_path)
    succeeded(proc)
    body = json.loads(report.read_text())
    # The budget, not the fixpoint, ended the run. How soon after the deadline it ends is a
    # timing goal, not asserted here (these machines are shared): the running tests are killed
    # and the best is re-tested once.
    assert body["reason"] == "max-time", body
    assert body["final_size"] == len(out.read_bytes()) <= len(source.read_bytes())
    assert needle_ok(out, tmp_path)


# ---------------------------------------------------------------------------------------------
# Deterministic runs and resume


def test_deterministic_same_bytes_at_any_jobs(tmp_path: Path) -> None:
    source = tmp_path / "prog.py"
    source.write_bytes(needle_program(12))
    # Any three of the 12 return lines will do, so which three survive depends on the order in
    # which candidates are tried and committed: without --deterministic, -j 4 picks differently
    # from run to run (seen here), while -j 1 always keeps the same three.
    three = 'test "$(grep -o \'return y + [0-9]*\' "$1" | sort -u | wc -l)" -ge 3'
    results = []
    for jobs in (1, 4):
        out = tmp_path / f"out{jobs}.py"
        test = ["sh", "-c", three, "sh", "@@"]
        proc = run_cli([source, "-o", out, "-j", jobs, "--deterministic", "--", *test], tmp_path)
        succeeded(proc)
        results.append(out.read_bytes())
    assert results[0] == results[1]
    # As the test counts them (on a result this small the endgame may cut a digit run off).
    kept = set(re.findall(rb"return y \+ \d*", results[0]))
    assert len(kept) == 3 and len(results[0]) < len(source.read_bytes()) // 10, results[0]


def test_resume_continues_an_interrupted_run(tmp_path: Path) -> None:
    source, test = needle_setup(tmp_path, 25)
    original = source.read_bytes()
    out = tmp_path / "out.py"
    # Once the output has shrunk every test hangs, so the run is surely caught mid-way.
    hold = tmp_path / "hold"
    hold.write_text(str(out))
    command = ["--timeout", "120", "--", *test]
    proc = subprocess.Popen(
        cli_args([source, "-o", out, *command]),
        # A shell's background job ignores SIGINT, and a child inherits that: undo it, as a
        # terminal's Ctrl-C would reach the program.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    signal_when(proc, lambda: out.exists() and len(out.read_bytes()) < len(original))
    assert proc.returncode == 130, proc.stderr
    interrupted = out.read_bytes()
    hold.unlink()
    assert needle_ok(out, tmp_path)

    again = run_cli([source, "-o", out, "--resume", "--json", *command], tmp_path)

    assert again.returncode == 0, again.stderr
    events = events_of(again.stderr)
    check_events(events, start_size=len(interrupted))
    first_pass = next(e for e in events if e["event"] == "pass")
    # It starts from the interrupted best, not from the original.
    assert first_pass["size"] == len(interrupted) < len(original)
    assert events[0]["original_size"] == len(original)
    assert len(out.read_bytes()) <= len(interrupted)
    assert needle_ok(out, tmp_path)
    assert source.read_bytes() == original


def test_resume_refuses_an_output_of_another_reduction(tmp_path: Path) -> None:
    source = tmp_path / "prog.py"
    source.write_text("a = 1\nb = 2\nkeep = 3\n")
    out = tmp_path / "out.py"
    test = ["--", "sh", "-c", 'grep -q keep "$1"', "sh", "@@"]
    succeeded(run_cli([source, "-o", out, *test], tmp_path))
    record = json.loads((tmp_path / "out.py.treereduce.json").read_text())
    assert record["command"] == test[1:] and record["language"] == "python"

    other_test = ["--", "sh", "-c", 'grep -q a "$1"', "sh", "@@"]
    proc = run_cli([source, "-o", out, "--resume", *other_test], tmp_path)
    assert proc.returncode == 2 and b"different command" in proc.stderr, proc.stderr

    source.write_text("a = 1\nkeep = 4\n")
    proc = run_cli([source, "-o", out, "--resume", *test], tmp_path)
    assert proc.returncode == 2 and b"different input" in proc.stderr, proc.stderr

    (tmp_path / "out.py.treereduce.json").unlink()
    proc = run_cli([source, "-o", out, "--resume", *test], tmp_path)
    assert proc.returncode == 2 and b"no record" in proc.stderr, proc.stderr


def test_resume_same_crash_keeps_the_originals_signature(tmp_path: Path) -> None:
    source = tmp_path / "prog.py"
    source.write_text('import sys\nx = 1\nraise ValueError("bad 1")\n')
    out = tmp_path / "out.py"
    command = ["--same-crash", "--", *RUN_PY, "@@"]
    err = succeeded(run_cli([source, "-o", out, *command], tmp_path))
    assert "ValueError: bad <n>" in signature_line(err), err

    # The file being resumed crashes too, but not as the original did: the golden run is the
    # original's, so this is not the same crash (taken from the resumed file, it would be).
    out.write_text('raise KeyError("other")\n')
    proc = run_cli([source, "-o", out, "--resume", *command], tmp_path)
    assert proc.returncode == 3 and b"no longer shows the original's crash" in proc.stderr, (
        proc.stderr
    )
    assert out.read_text() == 'raise KeyError("other")\n'  # left as it was

    out.write_text('y = 2\nraise ValueError("bad 1")\n')
    err = succeeded(run_cli([source, "-o", out, "--resume", *command], tmp_path))
    assert "ValueError: bad <n>" in signature_line(err), err
    assert out.read_text().strip() == 'raise ValueError("bad 1")'


def test_resume_refuses_other_signature_options(tmp_path: Path) -> None:
    source = tmp_path / "prog.py"
    source.write_text('x = 1\nraise ValueError("bad 1")\n')
    out = tmp_path / "out.py"
    test = ["--", *RUN_PY, "@@"]
    succeeded(run_cli([source, "-o", out, "--same-crash", *test], tmp_path))
    reduced = out.read_bytes()
    for options in (["--signature-frames", "1"], ["--signature-regex", "Value"],
                    ["--signature", "ValueError"]):  # fmt: skip
        proc = run_cli([source, "-o", out, "--resume", "--same-crash", *options, *test], tmp_path)
        assert proc.returncode == 2, proc.stderr
        assert b"was reduced with a different signature" in proc.stderr, proc.stderr
        assert out.read_bytes() == reduced
    succeeded(run_cli([source, "-o", out, "--resume", "--same-crash", *test], tmp_path))


def test_resume_from_a_file_that_fails_the_test_says_so(tmp_path: Path) -> None:
    source = tmp_path / "prog.py"
    source.write_text("a = 1\nkeep = 3\n")
    out = tmp_path / "out.py"
    test = ["--", "sh", "-c", 'grep -q keep "$1"', "sh", "@@"]
    succeeded(run_cli([source, "-o", out, *test], tmp_path))
    out.write_text("a = 1\n")
    proc = run_cli([source, "-o", out, "--resume", *test], tmp_path)
    assert proc.returncode == 3, proc.stderr
    assert b"the file to resume from fails the test" in proc.stderr, proc.stderr
    assert b"run again without --resume" in proc.stderr, proc.stderr
    assert out.read_text() == "a = 1\n"


def test_a_file_of_the_users_where_the_record_goes_is_left_alone(tmp_path: Path) -> None:
    source = tmp_path / "prog.py"
    source.write_text("a = 1\nkeep = 3\n")
    mine = tmp_path / "out.py.treereduce.json"
    mine.write_text("my notes\n")
    test = ["--", "sh", "-c", 'grep -q keep "$1"', "sh", "@@"]
    succeeded(run_cli([source, "-o", tmp_path / "out.py", *test], tmp_path))
    assert mine.read_text() == "my notes\n"


# ---------------------------------------------------------------------------------------------
# Records, reports and the default output name


@pytest.mark.parametrize("output", [None, "out.py"], ids=["default-output", "explicit-output"])
@pytest.mark.parametrize(
    ("test", "code"),
    [(["sh", "-c", "exit 1"], 3), (["no-such-command-4711", "@@"], 4)],
    ids=["not-interesting", "cannot-start"],
)
def test_a_run_that_fails_its_first_test_leaves_no_record(
    tmp_path: Path, output: str | None, test: list[str], code: int
) -> None:
    source = tmp_path / "prog.py"
    source.write_text("keep = 1\n")
    args: list[object] = [source, *(["-o", tmp_path / output] if output else []), "--", *test]

    proc = run_cli(args, tmp_path)

    assert proc.returncode == code, proc.stderr
    # Neither the record nor the default output's directory: nothing for CI to upload.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["prog.py"]


def test_interrupted_same_crash_report_names_the_signature(tmp_path: Path) -> None:
    lines = "".join(f"value_{i} = {i}\n" for i in range(20))
    source = tmp_path / "prog.py"
    source.write_text(lines + 'raise ValueError("bad value")\n' + lines)
    out = tmp_path / "out.py"
    report = tmp_path / "report.json"
    # Once the output has shrunk every test hangs: the run is surely caught mid-way.
    hold = f"if [ -f {out} ] && [ $(wc -c < {out}) -lt {source.stat().st_size} ]; then sleep 60; fi"
    test = ["sh", "-c", f'{hold}; exec "$0" -S "$1"', PYTHON, "@@"]
    proc = subprocess.Popen(
        cli_args([source, "-o", out, "--report", report, "--same-crash", "--timeout", "120",
                  "--", *test]),
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    signal_when(proc, lambda: out.exists() and out.stat().st_size < source.stat().st_size)

    assert proc.returncode == 130
    body = json.loads(report.read_text())
    assert body["exit_code"] == 130 and body["reason"] == "interrupted", body
    assert "ValueError: bad value" in body["signature"], body


def test_a_usage_error_writes_no_report(tmp_path: Path) -> None:
    # As docs/ci.md says: an error in the options or the input is found before the run starts.
    report = tmp_path / "report.json"
    proc = run_cli([tmp_path / "missing.rs", "--report", report, "--", "true"], tmp_path)
    assert proc.returncode == 2 and b"no such file" in proc.stderr, proc.stderr
    assert not report.exists()


RUST_TYPE_ERROR = b"""\
pub fn total(xs: &[i32]) -> i32 {
    let mut sum = 0;
    for x in xs {
        sum += x;
    }
    sum
}

pub fn label() -> i32 {
    let text: i32 = "seven";
    text
}
"""


def test_default_output_compiles_as_rust_under_its_name(tmp_path: Path) -> None:
    rustc = which("rustc")
    source = tmp_path / "crash.rs"
    source.write_bytes(RUST_TYPE_ERROR)

    succeeded(run_cli([source, "--same-crash", "--", rustc, "--crate-type", "lib", "@@"], tmp_path))

    result = tmp_path / "reduced" / "crash.rs"
    assert len(result.read_bytes()) < len(RUST_TYPE_ERROR) // 2, result.read_bytes()
    # The same error, from the file as it is named: rustc takes the crate name from it.
    again = run_tool([rustc, "--crate-type", "lib", "--out-dir", tmp_path, result], tmp_path)
    assert again.returncode == 1, again.stderr
    assert b"error[E0308]: mismatched types" in again.stderr, again.stderr
    assert b"crate name" not in again.stderr, again.stderr


def test_default_output_compiles_as_java_under_its_name(tmp_path: Path) -> None:
    javac = which("javac")
    source = tmp_path / "Main.java"
    source.write_text(
        "import java.util.List;\n\npublic class Main {\n    static int unused = 3;\n\n"
        "    public static void main(String[] args) {\n        System.out.println(keep());\n"
        "    }\n\n    static int keep() {\n        return 42;\n    }\n}\n"
    )
    classes = tmp_path / "classes"
    # Interesting while it keeps `keep` and compiles: javac wants the public class in Main.java.
    test = ["sh", "-c", f'grep -q keep "$1" && {javac} -d . "$1"', "sh", "@@"]

    succeeded(run_cli([source, "--max-tests", "12", "--", *test], tmp_path))

    result = tmp_path / "reduced" / "Main.java"
    assert b"public class Main" in result.read_bytes(), result.read_bytes()
    again = run_tool([javac, "-d", classes, result], tmp_path)
    assert again.returncode == 0, again.stderr
    assert (classes / "Main.class").exists()


# ---------------------------------------------------------------------------------------------
# The CI and editor examples that docs/ci.md and docs/editors.md point to

EXAMPLES = REPO / "examples"


def parse_cli_line(line: str, env: dict[str, str]) -> tuple[Any, list[str]]:
    """Parse a `treereduce-py ...` shell line with the real argument parser; return the options
    and the test command. Fails on an option the CLI does not have."""
    from treereduce_py.front import cli

    for name, value in env.items():
        line = line.replace(f'"${name}"', value).replace(f"${name}", value)
    words = shlex.split(line)
    assert words[0].endswith("treereduce-py"), words
    cut = words.index("--")
    try:
        options = cli.build_parser().parse_args(words[1:cut])
    except SystemExit:
        pytest.fail(f"the example's options do not parse: {line}")
    return options, words[cut + 1 :]


def test_ci_examples_are_valid() -> None:
    yaml = pytest.importorskip("yaml", reason="PyYAML, to parse the CI examples")
    github = yaml.safe_load((EXAMPLES / "ci" / "github-reduce.yml").read_text())
    env = {k: str(v) for k, v in github["env"].items()}
    steps = github["jobs"]["reduce"]["steps"]
    runs = [step["run"].replace("\\\n", " ") for step in steps if "run" in step]
    lines = [line.strip() for run in runs for line in run.splitlines()]
    (command,) = [line for line in lines if line.startswith("treereduce-py ")]
    command, _, tee = command.partition(" 2>&1 | ")
    assert tee == "tee reduced/log.txt", tee  # the summary reads the error from there
    options, test = parse_cli_line(command, env)
    assert options.same_crash and options.max_time > 0 and options.report is not None
    assert test[0] == "rustc" and "@@.rs" in test
    uploads = [s for s in steps if s.get("uses", "").startswith("actions/upload-artifact")]
    assert uploads and uploads[0]["if"] == "always()"
    assert "reduced/" in uploads[0]["with"]["path"]
    assert any(line == "python -m pip install ./treereduce-py" for line in lines)

    gitlab = yaml.safe_load((EXAMPLES / "ci" / "gitlab-reduce.yml").read_text())
    job = gitlab["reduce-crash"]
    (command,) = [line for line in job["script"] if "treereduce-py crash/" in line]
    options, test = parse_cli_line(command.replace(".tr/bin/", ""), gitlab["variables"])
    assert options.same_crash and options.max_time > 0 and options.report is not None
    assert job["artifacts"]["when"] == "always" and "reduced/" in job["artifacts"]["paths"]
    assert job["stage"] in gitlab["stages"]


def check_jsonschema() -> Path:
    """check-jsonschema, which vendors SchemaStore's schemas (no network needed)."""
    found = Path(sys.executable).parent / "check-jsonschema"
    if not found.exists():
        pytest.skip("check-jsonschema is not installed (pip install check-jsonschema)")
    return found


@pytest.mark.parametrize(
    ("name", "schema"),
    [("github-reduce.yml", "github-workflows"), ("gitlab-reduce.yml", "gitlab-ci")],
)
def test_ci_examples_match_their_schemas(tmp_path: Path, name: str, schema: str) -> None:
    checker = check_jsonschema()
    example = EXAMPLES / "ci" / name
    proc = run_tool([checker, "--builtin-schema", f"vendor.{schema}", example], tmp_path)
    assert proc.returncode == 0, proc.stdout.decode() + proc.stderr.decode()

    # The check can fail: the same file with a key its schema does not allow.
    broken = tmp_path / name
    broken.write_text(example.read_text() + "\nstages-typo: [reduce]\n")
    proc = run_tool([checker, "--builtin-schema", f"vendor.{schema}", broken], tmp_path)
    assert proc.returncode == 1, proc.stdout.decode() + proc.stderr.decode()


# The first major of each action that runs on the Node 24 runtime (GitHub retired Node 20).
NODE24_MAJORS = {
    "actions/checkout": 5,
    "actions/setup-python": 6,
    "actions/download-artifact": 7,
    "actions/upload-artifact": 6,
}


def test_ci_actions_run_on_a_current_node_runtime() -> None:
    workflow = (EXAMPLES / "ci" / "github-reduce.yml").read_text()
    docs = (REPO / "docs" / "ci.md").read_text()
    used = re.findall(r"uses: ([\w-]+/[\w-]+)@v(\d+)", workflow + docs)
    assert {name for name, _ in used} == set(NODE24_MAJORS), used
    for name, major in used:
        assert int(major) >= NODE24_MAJORS[name], f"{name}@v{major} runs on Node 20"


def github_steps() -> dict[str, dict[str, Any]]:
    yaml = pytest.importorskip("yaml", reason="PyYAML, to parse the CI examples")
    github = yaml.safe_load((EXAMPLES / "ci" / "github-reduce.yml").read_text())
    return {step.get("name", ""): step for step in github["jobs"]["reduce"]["steps"]}


def run_github_steps(
    workspace: Path, crash: bytes, reduce_seconds: str = "120"
) -> tuple[subprocess.CompletedProcess[bytes], str]:
    """Run the workflow's Reduce and Summary steps as a runner does (bash -e for `run:`, python
    for `shell: python`), with `crash` as the downloaded crash/crash.rs; return the Reduce step's
    process and the job summary it left."""
    steps = github_steps()
    reduce, summary = steps["Reduce (same crash, time budget)"], steps["Summary"]
    assert "shell" not in reduce and summary["shell"] == "python"
    (workspace / "crash").mkdir(parents=True)
    (workspace / "crash" / "crash.rs").write_bytes(crash)
    (workspace / "reduce.sh").write_text(reduce["run"])
    (workspace / "summary.py").write_text(summary["run"])
    summary_file = workspace / "summary.md"
    env = {
        **os.environ,
        "PATH": f"{CLI.parent}{os.pathsep}{os.environ['PATH']}",
        "REDUCE_SECONDS": reduce_seconds,
        "GITHUB_STEP_SUMMARY": str(summary_file),
    }

    def run(args: list[str], timeout: float) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            args, cwd=workspace, env=env, capture_output=True, stdin=subprocess.DEVNULL,
            timeout=timeout,
        )  # fmt: skip

    reduced = run(["bash", "-e", "reduce.sh"], HANG)
    written = run([PYTHON, "summary.py"], QUICK)
    assert written.returncode == 0, written.stderr
    return reduced, summary_file.read_text()


def test_github_job_summary_of_a_reduction(tmp_path: Path) -> None:
    which("rustc")
    proc, summary = run_github_steps(tmp_path, RUST_TYPE_ERROR)

    assert proc.returncode == 0, proc.stdout.decode()
    result = (tmp_path / "reduced" / "crash.rs").read_bytes()
    assert not result.endswith(b"\n"), "the case this checks: a result with no final newline"
    lines = summary.splitlines()
    assert lines[0] == "### Reduced crash" and "- signature: `exit 1 and 'error[E0308]" in summary
    assert lines[-1] == "```" and lines[-2] == result.decode().splitlines()[-1], summary
    assert lines[lines.index("```rust") + 1 : -1] == result.decode().splitlines(), summary
    assert "None" not in summary and "failed" not in summary, summary
    assert sorted(p.name for p in (tmp_path / "reduced").iterdir()) == [
        "crash.rs", "crash.rs.treereduce.json", "log.txt", "report.json"
    ]  # fmt: skip


def test_github_job_summary_when_the_crash_does_not_reproduce(tmp_path: Path) -> None:
    which("rustc")
    proc, summary = run_github_steps(tmp_path, b"pub fn fine() -> i32 {\n    7\n}\n")

    assert proc.returncode == 3, proc.stdout.decode()
    assert "- failed (exit code 3)" in summary, summary
    assert "treereduce-py: error: the original input is not interesting" in summary, summary
    # No signature line for a run that has none (the error itself may explain signatures).
    assert "signature: `None`" not in summary and "signature: None" not in summary, summary
    assert not any(line.startswith("- signature") for line in summary.splitlines()), summary
    assert summary.count("```") % 2 == 0, summary
    # What the upload step finds: the log and the report, no orphan record, no result.
    assert sorted(p.name for p in (tmp_path / "reduced").iterdir()) == ["log.txt", "report.json"]


def test_github_job_summary_of_a_usage_error(tmp_path: Path) -> None:
    proc, summary = run_github_steps(tmp_path, RUST_TYPE_ERROR, reduce_seconds="soon")

    assert proc.returncode == 2, proc.stdout.decode()
    assert "- failed (exit code unknown: no report)" in summary, summary
    assert "treereduce-py: error: argument --max-time" in summary, summary
    assert "None" not in summary, summary


def test_vscode_tasks_parse_and_run_real_options() -> None:
    tasks = json.loads((EXAMPLES / "editors" / "vscode" / "tasks.json").read_text())
    defaults = {i["id"]: i["default"] for i in tasks["inputs"]}
    for task in tasks["tasks"]:
        line = task["command"].replace("${file}", "/src/crash.rs")
        line = re.sub(r"\$\{input:(\w+)\}", lambda m: defaults[m.group(1)], line)
        assert "${" not in line, line
        options, test = parse_cli_line(line, {})
        assert options.inputs == ["/src/crash.rs"] and test, line
