"""Bad and unlucky invocations at the front door (issue 31): each gets one clear line and a
documented exit code, never a traceback, never a modified input and never a stray file.

Most cases run the command line in this process (`cli.main`, fast enough for Hypothesis to try
many option values and file contents); those that need a second process, a signal or a real
terminal-less pipe run the installed CLI. Every case checks the same contract (`FrontDoor.check`):
the exit code is one the README documents for that kind of mistake, stderr holds no traceback and
at most one `error:` line, the input is byte-identical, and the directory holds nothing the run
may not leave (the output and its record only after a run that wrote a result) and the temporary
directory nothing at all.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import HANG, PYTHON, QUICK, cli_args
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from treereduce_py.engine.output import OutputLock, OutputTaken, lock_path
from treereduce_py.front import cli
from treereduce_py.front.exit_codes import EXIT_CODES
from treereduce_py.front.internal_error import INTERNAL_ERROR
from treereduce_py.front.validate import MAX_SECONDS
from treereduce_py.run import api

ROOT = Path(__file__).resolve().parent.parent
SOURCE = b"first = 1\nsecond = 2\nprint(first)\n"
# What the user may see for a mistake of theirs: never 1 (Python's own) nor INTERNAL_ERROR (a bug).
USER_CODES = {0, 2, 3, 4, 9, 130}
# The lock's takeover, the signals and the tools the tests run are POSIX behaviour.
pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="POSIX only")
FAST = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@dataclass
class Outcome:
    code: int
    out: bytes
    err: str


class FrontDoor:
    """A working directory with an input, a private temporary directory, and the contract."""

    def __init__(self, root: Path) -> None:
        self.dir = root / "work"
        self.tmp = root / "tmp"
        self.dir.mkdir()
        self.tmp.mkdir()
        self.input = self.dir / "in.py"
        self.source = SOURCE
        self.input.write_bytes(self.source)

    def use(self, source: bytes) -> None:
        """Make `source` the input."""
        self.source = source
        self.input.write_bytes(source)

    def run(self, args: Sequence[object], capfd: pytest.CaptureFixture[str]) -> Outcome:
        """`cli.main` in this process, in the working directory; a SystemExit (argparse) counts
        as its code."""
        capfd.readouterr()
        before = os.getcwd()
        os.chdir(self.dir)
        try:
            code = cli.main([str(a) for a in args])
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 2
        finally:
            os.chdir(before)
        out, err = capfd.readouterr()
        return Outcome(code, out.encode(errors="surrogateescape"), err)

    def run_cli(self, args: Sequence[object], **kwargs: object) -> Outcome:
        """The installed CLI in the working directory, with pipes and this TMPDIR."""
        proc = subprocess.run(
            cli_args(args),
            cwd=self.dir,
            capture_output=True,
            timeout=HANG,
            env={**os.environ, "TMPDIR": str(self.tmp)},
            stdin=subprocess.DEVNULL,
        )
        return Outcome(proc.returncode, proc.stdout, proc.stderr.decode(errors="replace"))

    def check(
        self,
        outcome: Outcome,
        codes: set[int],
        *,
        may_leave: Sequence[str] = (),
        error: str | None = None,
    ) -> None:
        """The contract: an expected code, no traceback, one error line at most (containing
        `error` if given), the input intact, and no file but `may_leave` (and the input)."""
        assert outcome.code in codes, f"exit {outcome.code}, expected {codes}:\n{outcome.err}"
        assert outcome.code in EXIT_CODES
        assert "Traceback" not in outcome.err, outcome.err
        errors = [line for line in outcome.err.splitlines() if ": error:" in line]
        assert len(errors) <= 1, outcome.err
        if error is not None:
            assert errors and error in errors[0], outcome.err
        assert self.input.read_bytes() == self.source, "the input was modified"
        left = sorted(p.name for p in self.dir.iterdir() if p != self.input)
        assert set(left) <= set(may_leave), f"left behind: {left}"
        assert list(self.tmp.iterdir()) == [], f"left in the temporary directory: {left}"

    def reset(self) -> None:
        """Back to just the input (between Hypothesis examples)."""
        for path in self.dir.iterdir():
            if path != self.input:
                path.unlink()
        self.use(SOURCE)


@pytest.fixture
def door(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FrontDoor]:
    found = FrontDoor(tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(found.tmp))
    sigterm = signal.getsignal(signal.SIGTERM)
    hook = threading.excepthook
    yield found
    signal.signal(signal.SIGTERM, sigterm)  # main() installs its own
    assert threading.excepthook is hook, "main() left its thread hook installed"


def fails_fast() -> list[str]:
    """A test command that fails at once: a valid invocation ends with exit 3, before any pass."""
    return ["--", "false"]


# ---------------------------------------------------------------------------------------------
# Option values: every one is checked before the first test


NUMERIC = ["--timeout", "--max-time", "-j", "--passes", "--max-tests", "--cdd-p0", "--exit-code"]
number_texts = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.sampled_from(["inf", "-inf", "nan", "1e10", "1e400", "0", "-0", "0x10", "", " ", "1_000"]),
    st.text(max_size=8),
)


@FAST
@given(option=st.sampled_from(NUMERIC), value=number_texts)
def test_any_number_is_a_usage_error_or_a_run(
    door: FrontDoor, capfd: pytest.CaptureFixture[str], option: str, value: str
) -> None:
    door.reset()
    outcome = door.run([door.input, "-q", f"{option}={value}", *fails_fast()], capfd)
    # Exit 3: the value was fine and the (failing) test ran; with a timeout that small the
    # original may time out, which is exit 3 too.
    door.check(outcome, {2, 3})
    if outcome.code == 2:
        assert re.search(r"argument .*: ", outcome.err), outcome.err


@pytest.mark.parametrize(
    ("option", "value", "says"),
    [
        ("--timeout", "inf", "must be a finite number of seconds"),
        ("--timeout", "1e10", f"must be at most {MAX_SECONDS:.0f} seconds"),
        ("--max-time", "inf", "must be a finite number of seconds"),
        ("--max-time", "1e10", f"must be at most {MAX_SECONDS:.0f} seconds"),
        ("--timeout", "-1", "must be positive"),
        ("--timeout", "nan", "must be a finite number"),
        ("--max-time", "0", "must be positive"),
        ("-j", "0", "must be at least 1"),
        ("-j", "many", "must be a whole number"),
        ("--passes", "1e3", "must be a whole number"),
        ("--max-tests", "-5", "must be at least 1"),
        ("--exit-code", "99999", "must be 0 to 255"),
        ("--cdd-p0", "1", "strictly between 0 and 1"),
        ("--stderr-regex", "(", "bad regular expression"),
        ("--signature", "[", "bad regular expression"),
        ("--format", "clang-format 'unclosed", "cannot split"),
    ],
)
def test_a_bad_value_is_one_line_and_exit_2(
    door: FrontDoor, capfd: pytest.CaptureFixture[str], option: str, value: str, says: str
) -> None:
    outcome = door.run([door.input, option, value, "--", "true"], capfd)
    door.check(outcome, {2}, error=says)


def test_the_largest_timeouts_work(door: FrontDoor, capfd: pytest.CaptureFixture[str]) -> None:
    limit = f"{MAX_SECONDS:.0f}"
    args = [door.input, "-q", "--timeout", limit, "--max-time", limit, "--max-tests", "3"]
    outcome = door.run([*args, "-o", "out.py", "--", "grep", "-q", "print", "@@"], capfd)
    door.check(outcome, {0}, may_leave=["out.py", "out.py.treereduce.json"])
    assert b"print" in (door.dir / "out.py").read_bytes()


def test_a_huge_jobs_count_is_capped_with_a_note(tmp_path: Path) -> None:
    door = FrontDoor(tmp_path)
    started = time.monotonic()
    outcome = door.run_cli(
        [door.input, "-j", "100000", "-o", "out.py", "--", "grep", "-q", "print", "@@"]
    )
    door.check(outcome, {0}, may_leave=["out.py", "out.py.treereduce.json"])
    assert time.monotonic() - started < QUICK
    assert re.search(r"warning: -j 100000 is more than this machine can use: running \d+ tests",
                     outcome.err), outcome.err  # fmt: skip


# ---------------------------------------------------------------------------------------------
# Paths: checked before the original is tested, so nothing is written


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--report", "nodir/r.json"], "--report nodir/r.json: no such directory"),
        (["--report", "."], "is a directory"),
        (["--report", "in.py"], "is the input"),
        (["--report", "out.py", "-o", "out.py"], "is the output"),
        (["--queries", "/nonexistent"], "--queries /nonexistent: no such directory"),
        (["--queries", "in.py"], "not a directory"),
        (["-o", "."], "is a directory"),
        (["-o", "nodir/out.py"], "directory does not exist"),
        (["-o", "in.py"], "is the input"),
        (["-l", "klingon"], "unknown language 'klingon'"),
        (["--resume", "-o", "out.py"], "--resume needs the output file"),
        (["--cluster-upload", "in.py"], "--cluster-upload needs --cluster"),
        (["--cluster", "tcp://host:port"], "is not tcp://HOST:PORT"),
        (["--cluster", "gopher://host:70"], "wants tcp://HOST:PORT"),
        (["--cluster", "local:100000"], "would start 100000 worker processes"),
    ],
)
def test_a_bad_path_fails_before_any_test(
    door: FrontDoor, capfd: pytest.CaptureFixture[str], args: list[str], says: str
) -> None:
    # A test that would write a file if it ever ran: it must not.
    outcome = door.run([door.input, *args, "--", "touch", "ran"], capfd)
    door.check(outcome, {2}, error=says)


def test_links_devices_and_pipes_are_never_replaced(
    door: FrontDoor, capfd: pytest.CaptureFixture[str]
) -> None:
    """The result and the report are renamed into place: over a link or a FIFO that would
    replace it (as root, over /dev/stdout, the system's), so they are refused."""
    target = door.dir / "target.txt"
    target.write_text("the user's\n")
    (door.dir / "link").symlink_to(target)
    os.mkfifo(door.dir / "fifo")
    keep = ["target.txt", "link", "fifo"]
    for args in (["-o", "link", "-f"], ["--report", "link"], ["-o", "fifo", "-f"],
                 ["--report", "fifo"]):  # fmt: skip
        outcome = door.run([door.input, *args, "--", "touch", "ran"], capfd)
        door.check(outcome, {2}, may_leave=keep, error="is not a regular file (a link or a device)")
        assert (door.dir / "link").is_symlink() and target.read_text() == "the user's\n"
        assert (door.dir / "fifo").is_fifo()
    # A device as the input is refused unread (/dev/zero would never end).
    outcome = door.run(["/dev/null", "-l", "c", "--", "true"], capfd)
    door.check(outcome, {2}, may_leave=keep, error="not a file or a pipe: /dev/null")


@pytest.mark.parametrize(
    "pattern",
    [
        "((no_such_node) @replace",  # does not compile
        "(module (assignment left: (identifier) @inline.name) @inline)",  # lacks @inline.value
    ],
)
def test_a_query_file_the_reduction_would_refuse_fails_before_any_test(
    door: FrontDoor, capfd: pytest.CaptureFixture[str], tmp_path: Path, pattern: str
) -> None:
    queries = tmp_path / "queries" / "python"
    queries.mkdir(parents=True)
    (queries / "bad.scm").write_text(f"{pattern}\n")
    outcome = door.run([door.input, "--queries", queries.parent, "--", "touch", "ran"], capfd)
    door.check(outcome, {2}, error="bad.scm")


def test_a_good_query_directory_is_used(
    door: FrontDoor, capfd: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    queries = tmp_path / "queries" / "python"
    queries.mkdir(parents=True)
    (queries / "mine.scm").write_text('((integer) @replace (#set! replacement "0"))\n')
    args = [door.input, "--queries", queries.parent, "-q", "-o", "out.py"]
    outcome = door.run([*args, "--", "grep", "-q", "print", "@@"], capfd)
    door.check(outcome, {0}, may_leave=["out.py", "out.py.treereduce.json"])


def test_the_input_itself_may_be_missing_or_odd(
    door: FrontDoor, capfd: pytest.CaptureFixture[str]
) -> None:
    for name, says in (
        ("missing.py", "no such file"),
        (".", "directory's test must name its copy"),
    ):
        door.check(door.run([name, "--", "true"], capfd), {2}, error=says)
    door.check(door.run([door.input], capfd), {2}, error="missing the test command")
    door.check(door.run([door.input, "--", "/no/such/tool"], capfd), {4}, error="not found")


# ---------------------------------------------------------------------------------------------
# File contents: whatever the bytes, the run ends well and leaves only its output


@FAST
@given(data=st.binary(max_size=300), lang=st.sampled_from(["python", "c", "javascript", "json"]))
def test_any_file_content_reduces_cleanly(
    door: FrontDoor, capfd: pytest.CaptureFixture[str], data: bytes, lang: str
) -> None:
    door.reset()
    door.use(data)
    args = [door.input, "-l", lang, "-j", "1", "--max-tests", "8", "-o", "out", "-q"]
    outcome = door.run([*args, "--", "grep", "-q", "x", "@@"], capfd)
    if b"x" in data:
        door.check(outcome, {0}, may_leave=["out", "out.treereduce.json"])
        assert b"x" in (door.dir / "out").read_bytes()
    else:
        door.check(outcome, {3})


# ---------------------------------------------------------------------------------------------
# Output ownership


def slow_test(tmp_path: Path) -> Path:
    """A test that takes a while and keeps `print` in the result."""
    script = tmp_path / "slow.py"
    script.write_text(
        "import sys, time\ntime.sleep(0.2)\nsys.exit(0 if b'print' in open(sys.argv[1], 'rb')"
        ".read() else 1)\n"
    )
    return script


def big_input(door: FrontDoor) -> None:
    door.use(b"".join(b"x%d = %d\n" % (i, i) for i in range(80)) + b"print(x7)\n")


def test_a_second_run_on_the_same_output_refuses_naming_the_first(tmp_path: Path) -> None:
    door = FrontDoor(tmp_path)
    big_input(door)
    test = [PYTHON, "-S", slow_test(tmp_path), "@@"]
    first = subprocess.Popen(
        cli_args([door.input, "-o", "out.py", "-q", "--", *test]),
        cwd=door.dir,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "TMPDIR": str(door.tmp)},
    )
    try:
        deadline = time.monotonic() + QUICK
        while not lock_path(door.dir / "out.py").exists():
            assert first.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        second = door.run_cli([door.input, "-o", "out.py", "--force", "--", *test])
        assert second.code == 2, second.err
        assert f"another treereduce-py run (pid {first.pid})" in second.err, second.err
        assert "Traceback" not in second.err
        # Stopped once it has written a result (stopped sooner, on a loaded machine while it
        # still tested the original, it would rightly write none).
        deadline = time.monotonic() + HANG
        while not (door.dir / "out.py").exists() and first.poll() is None:
            assert time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=QUICK)
    assert first.returncode in (130, 0)  # 0: it had ended by itself
    # The first run's best is there and still interesting; its claim is gone.
    assert b"print" in (door.dir / "out.py").read_bytes()
    door.check(Outcome(0, b"", ""), {0}, may_leave=["out.py", "out.py.treereduce.json"])


def test_a_lock_left_by_a_killed_run_is_taken_over(
    door: FrontDoor, capfd: pytest.CaptureFixture[str]
) -> None:
    lock_path(door.dir / "out.py").write_text("999999999\n")  # nobody holds it
    outcome = door.run([door.input, "-o", "out.py", "-q", "--", "grep", "-q", "print", "@@"], capfd)
    door.check(outcome, {0}, may_leave=["out.py", "out.py.treereduce.json"])


def test_the_lock_refuses_while_held_and_is_gone_after(tmp_path: Path) -> None:
    output = tmp_path / "out.c"
    with OutputLock(output) as held:
        assert held.path.read_text().strip() == str(os.getpid())
        with pytest.raises(OutputTaken) as refused:
            OutputLock(output).acquire()
        assert f"pid {os.getpid()}" in str(refused.value)
    assert not held.path.exists()


def stdout_run(door: FrontDoor, test: list[object]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        cli_args([door.input, "-o", "-", "--", *test]),
        cwd=door.dir,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "TMPDIR": str(door.tmp)},
        # A shell running pytest in the background ignores SIGINT and the child inherits that.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_stdout_gets_the_best_so_far_on_interrupt(tmp_path: Path, sig: signal.Signals) -> None:
    door = FrontDoor(tmp_path)
    big_input(door)
    proc = stdout_run(door, [PYTHON, "-S", slow_test(tmp_path), "@@"])
    assert proc.stderr is not None
    improved = False
    deadline = time.monotonic() + HANG
    # -o - with stderr not a terminal: JSON events, so the first improvement can be seen.
    while not improved:
        line = proc.stderr.readline()
        assert line, "the run ended before improving"
        improved = json.loads(line)["event"] == "improvement"
        assert time.monotonic() < deadline
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=QUICK)
    assert proc.returncode == 130, err
    assert b"print" in out and len(out) < len(door.source), out
    events = [json.loads(line) for line in err.decode().splitlines()]
    assert "standard output" in events[-1]["message"], events[-1]
    door.check(Outcome(130, out, err.decode()), {130})


def test_an_interrupted_same_crash_run_reports_its_signature(tmp_path: Path) -> None:
    door = FrontDoor(tmp_path)
    door.use(
        b"".join(b"x%d = %d\n" % (i, i) for i in range(40))
        + b"import time\ntime.sleep(0.2)\nraise KeyError('E500')\n"
    )
    args = [door.input, "--same-crash", "--json", "--report", "r.json", "-o", "out.py"]
    proc = subprocess.Popen(
        cli_args([*args, "--", PYTHON, "-S", "@@"]),
        cwd=door.dir,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "TMPDIR": str(door.tmp)},
    )
    assert proc.stderr is not None
    start = json.loads(proc.stderr.readline())
    assert start["event"] == "start" and "KeyError" in start["signature"], start
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=QUICK)
    assert proc.returncode == 130, err
    report = json.loads((door.dir / "r.json").read_text())
    assert report["reason"] == "interrupted" and report["signature"] == start["signature"]
    left = ["r.json", "out.py", "out.py.treereduce.json"]
    door.check(Outcome(130, b"", err.decode()), {130}, may_leave=left)


def test_stdout_gets_the_best_at_the_end_of_a_budget(door: FrontDoor) -> None:
    outcome = door.run_cli([door.input, "-o", "-", "--max-tests", "2", "--", "grep", "-q", "print",
                            "@@"])  # fmt: skip
    door.check(outcome, {0})
    assert b"print" in outcome.out and len(outcome.out) <= len(door.source)


def test_batch_refuses_a_non_empty_outdir_and_a_file(
    door: FrontDoor, capfd: pytest.CaptureFixture[str]
) -> None:
    (door.dir / "results").mkdir()
    (door.dir / "results" / "mine.txt").write_text("the user's\n")
    outcome = door.run(["batch", door.input, "-o", "results", "--", "false"], capfd)
    assert outcome.code == 2 and "results is not empty: pass --force" in outcome.err, outcome.err
    assert sorted(p.name for p in (door.dir / "results").iterdir()) == ["mine.txt"]
    (door.dir / "results" / "mine.txt").unlink()
    (door.dir / "results").rmdir()
    (door.dir / "crashes").write_text("not a directory\n")
    outcome = door.run(["batch", door.input, "-o", "crashes", "--", "false"], capfd)
    door.check(outcome, {2}, may_leave=["crashes"], error="-o crashes is a file")


# ---------------------------------------------------------------------------------------------
# What the tool says


def test_the_end_of_a_run_names_the_output_and_its_record(door: FrontDoor) -> None:
    outcome = door.run_cli([door.input, "-o", "out.py", "-j", "1", "--", "grep", "-q", "print",
                            "@@"])  # fmt: skip
    door.check(outcome, {0}, may_leave=["out.py", "out.py.treereduce.json"])
    last = outcome.err.splitlines()[-1]
    assert re.fullmatch(
        r"treereduce-py: the result \(\d+ bytes\) is in out\.py; out\.py\.treereduce\.json "
        r"records the run \(for --resume\)",
        last,
    ), outcome.err
    assert "with 1 job (strategy" in outcome.err  # not "1 jobs"


def test_a_test_that_accepts_anything_is_warned_about(
    door: FrontDoor, capfd: pytest.CaptureFixture[str]
) -> None:
    outcome = door.run([door.input, "-o", "out.py", "--", "true"], capfd)
    door.check(outcome, {0}, may_leave=["out.py", "out.py.treereduce.json"])
    assert "warning: the test passes on an empty file: `true`" in outcome.err, outcome.err


def test_a_run_that_fails_leaves_no_record(
    door: FrontDoor, capfd: pytest.CaptureFixture[str]
) -> None:
    door.check(door.run([door.input, "--", "false"], capfd), {3})
    door.check(door.run([door.input, "--", "/no/such/tool"], capfd), {4})


def test_a_failed_run_puts_back_the_record_it_replaced(
    door: FrontDoor, capfd: pytest.CaptureFixture[str]
) -> None:
    keep = ["out.py", "out.py.treereduce.json"]
    first = door.run([door.input, "-o", "out.py", "--", "grep", "-q", "print", "@@"], capfd)
    door.check(first, {0}, may_leave=keep)
    record = (door.dir / "out.py.treereduce.json").read_bytes()
    again = door.run([door.input, "-o", "out.py", "--force", "--", "false"], capfd)
    door.check(again, {3}, may_leave=keep)
    assert (door.dir / "out.py.treereduce.json").read_bytes() == record


def test_help_lists_batch_and_batch_help_works(
    door: FrontDoor, capfd: pytest.CaptureFixture[str]
) -> None:
    outcome = door.run(["--help"], capfd)
    assert outcome.code == 0 and "treereduce-py batch" in outcome.out.decode()
    outcome = door.run(["batch", "-h"], capfd)
    assert outcome.code == 0 and "usage: treereduce-py batch" in outcome.out.decode()
    door.check(door.run(["batch", door.input], capfd), {2}, error="missing the test command")


def test_list_languages_names_each_with_its_extensions(
    door: FrontDoor, capfd: pytest.CaptureFixture[str]
) -> None:
    outcome = door.run(["--list-languages"], capfd)
    door.check(outcome, {0})
    lines = outcome.out.decode().splitlines()
    assert len(lines) > 150
    assert any(re.fullmatch(r"python +\.py .*", line) for line in lines), lines[:5]
    assert any(re.fullmatch(r"smtlib +\.smt \.smt2 \(read with the scheme grammar\)", line)
               for line in lines)  # fmt: skip


def test_a_reader_that_stops_early_ends_the_listing_quietly(tmp_path: Path) -> None:
    # `--list-languages | head -1`: the pipe closes after one line; that is no internal error.
    proc = subprocess.Popen(
        cli_args(["--list-languages"]), stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=HANG) == 0
    assert first.startswith(b"actionscript") and err == b""
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------------------------
# A bug: one line, a saved traceback, the documented code


def test_an_internal_error_is_one_line_and_a_saved_traceback(
    door: FrontDoor, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> api.Result:
        raise RuntimeError("planted")

    monkeypatch.setattr(api, "reduce", broken)
    outcome = door.run([door.input, "-q", "--", "true"], capfd)
    assert outcome.code == INTERNAL_ERROR
    check_internal_error(door, outcome)


def test_a_failing_thread_ends_the_run_as_an_internal_error(
    door: FrontDoor, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> api.Result:
        def fail() -> None:
            raise RuntimeError("planted")

        threading.Thread(target=fail).start()
        time.sleep(QUICK)  # interrupted by the failing thread
        raise AssertionError("not interrupted")

    monkeypatch.setattr(api, "reduce", broken)
    outcome = door.run([door.input, "-q", "--", "true"], capfd)
    assert outcome.code == INTERNAL_ERROR, outcome.err
    check_internal_error(door, outcome)


def check_internal_error(door: FrontDoor, outcome: Outcome) -> None:
    assert "Traceback" not in outcome.err
    (line,) = [line for line in outcome.err.splitlines() if line.strip()]
    # The traceback is saved where tempfile puts files (here the door's private directory).
    found = re.fullmatch(
        r"treereduce-py: error: internal error \(RuntimeError: planted\); the traceback is in "
        r"(\S+): please report it",
        line,
    )
    assert found, line
    saved = Path(found.group(1))
    assert saved.parent == door.tmp and "RuntimeError: planted" in saved.read_text()
    saved.unlink()
    door.check(outcome, {INTERNAL_ERROR})


# ---------------------------------------------------------------------------------------------
# The documented exit codes


def markdown_codes(path: Path, heading: str) -> set[int]:
    """The codes in the first column of the table under `heading`."""
    text = path.read_text()
    section = text[text.index(heading) :]
    table = re.search(r"\n((?:\|.*\|\n)+)", section)
    assert table is not None, f"no table under {heading} in {path}"
    return {int(m) for m in re.findall(r"^\| *(\d+) *\|", table.group(1), re.MULTILINE)}


def test_the_readme_and_ci_doc_list_every_exit_code() -> None:
    assert markdown_codes(ROOT / "README.md", "### Exit codes") == set(EXIT_CODES)
    assert markdown_codes(ROOT / "docs" / "ci.md", "## Exit codes") == set(EXIT_CODES)


def test_the_readme_documents_the_run_record_and_the_lock() -> None:
    text = (ROOT / "README.md").read_text()
    assert "NAME.treereduce.json" in text or ".treereduce.json" in text
    assert ".treereduce.lock" in text


def test_a_fresh_install_prints_no_setuptools_warning(tmp_path: Path) -> None:
    """Build the wheel as pip installs it (an isolated build with the newest allowed setuptools)
    and look for setuptools' warnings in its log."""
    proc = subprocess.run(
        [PYTHON, "-m", "pip", "wheel", "-v", "--no-deps", "-w", str(tmp_path), str(ROOT)],
        capture_output=True,
        timeout=HANG,
        cwd=tmp_path,
    )
    log = proc.stdout.decode(errors="replace") + proc.stderr.decode(errors="replace")
    if proc.returncode != 0 and "No matching distribution found for setuptools" in log:
        pytest.skip("no setuptools>=77 to build with (offline?)")
    assert proc.returncode == 0, log[-3000:]
    warnings = [
        line for line in log.splitlines() if "SetuptoolsDeprecationWarning" in line
        or "is absent from the `packages` configuration" in line
    ]  # fmt: skip
    assert warnings == [], warnings
    wheel = next(tmp_path.glob("treereduce_py-*.whl"))
    import zipfile

    names = zipfile.ZipFile(wheel).namelist()
    assert "treereduce_py/queries/python/replacements.scm" in names
    assert "treereduce_py/py.typed" in names
