"""Tests for the oracle: real test processes (sh, sys.executable) judged by the criteria."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import treereduce_py
from treereduce_py.judge import process
from treereduce_py.judge.oracle import (
    CANCELLED,
    CallableOracle,
    CommandOracle,
    Criteria,
    Oracle,
    OracleBase,
    OracleStartError,
    Rejudged,
    Verdict,
    as_oracle,
)
from treereduce_py.judge.slots import Ranked, RankedSlots, Slotted

T = TypeVar("T")
# Generous limit that only detects hangs; never a performance assertion.
HANG = 30.0
SAMPLES = [b"", b"a", b"\0", b"nul\0in\0the\0middle", b"crlf\r\nline\r\n", bytes(range(256))]


def sh(script: str, *args: str) -> list[str]:
    """argv running `script` with sh, with positional parameters `args`."""
    return ["sh", "-c", script, "sh", *args]


def within(seconds: float, fn: Callable[[], T]) -> T:
    """fn() run in a thread; fails the test if it has not returned after `seconds`."""
    box: list[T] = []
    errors: list[BaseException] = []

    def target() -> None:
        try:
            box.append(fn())
        except BaseException as err:
            errors.append(err)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still running after {seconds} s"
    if errors:
        raise errors[0]
    return box[0]


def is_gone(pid: int) -> bool:
    """True if the process no longer runs (a zombie awaiting its reaper counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


def wait_gone(pid: int, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if is_gone(pid):
            return True
        time.sleep(0.02)
    return is_gone(pid)


def wait_for_file(path: Path, seconds: float = HANG) -> None:
    deadline = time.monotonic() + seconds
    while not (path.exists() and path.stat().st_size > 0):
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.01)


def kill_if_alive(pid_file: Path) -> None:
    """Clean up a process this test started indirectly, should the oracle have missed it."""
    if pid_file.exists():
        pid = int(pid_file.read_text())
        if not is_gone(pid):
            os.kill(pid, signal.SIGKILL)


@pytest.fixture
def make_oracle() -> Iterator[Callable[..., CommandOracle]]:
    """Builds CommandOracles that are closed when the test ends."""
    made: list[CommandOracle] = []

    def make(*args: object, **kwargs: object) -> CommandOracle:
        oracle = CommandOracle(*args, **kwargs)  # type: ignore[arg-type]
        made.append(oracle)
        return oracle

    yield make
    for oracle in made:
        oracle.close()


# --- Criteria (pure) ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "codes", "expected"),
    [
        (0, {0}, True),
        (1, {0}, False),
        (3, {1, 3}, True),
        (1, {1, 3}, True),
        (2, {1, 3}, False),
        (-11, {139}, True),  # SIGSEGV as a shell reports it
        (-11, {-11}, True),
        (-11, {11}, False),
        (-6, {134}, True),
        (139, {-11}, False),
        (None, {0}, False),  # timed out
        (5, set(), True),  # no exit-code criterion
        (None, set(), False),
    ],
)
def test_criteria_exit_codes(code: int | None, codes: set[int], expected: bool) -> None:
    assert Criteria(exit_codes=frozenset(codes)).matches(code, b"", b"") is expected


def test_criteria_regexes_each() -> None:
    out, err = b"compiled ok\n", b"warning: unused\n"
    assert Criteria(stdout_regex=re.compile(rb"ok$", re.M)).matches(0, out, err)
    assert not Criteria(stdout_regex=re.compile(rb"warning")).matches(0, out, err)
    assert Criteria(stderr_regex=re.compile(rb"warning")).matches(0, out, err)
    assert not Criteria(stderr_regex=re.compile(rb"ok")).matches(0, out, err)
    assert not Criteria(not_stdout_regex=re.compile(rb"ok")).matches(0, out, err)
    assert Criteria(not_stdout_regex=re.compile(rb"error")).matches(0, out, err)
    assert not Criteria(not_stderr_regex=re.compile(rb"unused")).matches(0, out, err)
    assert Criteria(not_stderr_regex=re.compile(rb"error")).matches(0, out, err)


def test_criteria_extra_gets_the_run() -> None:
    seen: list[tuple[int | None, bytes, bytes]] = []

    def extra(code: int | None, out: bytes, err: bytes) -> bool:
        seen.append((code, out, err))
        return b"boom" in err

    criteria = Criteria(exit_codes=frozenset({-11}), extra=extra)
    assert criteria.needs_stdout() and criteria.needs_stderr()
    assert criteria.matches(-11, b"o", b"boom")
    assert not criteria.matches(-11, b"o", b"fine")
    assert seen == [(-11, b"o", b"boom"), (-11, b"o", b"fine")]


def test_criteria_needs() -> None:
    assert not Criteria().needs_stdout() and not Criteria().needs_stderr()
    assert Criteria(stdout_regex=re.compile(b"x")).needs_stdout()
    assert not Criteria(stdout_regex=re.compile(b"x")).needs_stderr()
    assert Criteria(not_stderr_regex=re.compile(b"x")).needs_stderr()
    assert not Criteria(not_stderr_regex=re.compile(b"x")).needs_stdout()


_REGEXES = [re.compile(p) for p in (rb"a", rb"b+", rb"^c", rb"\x00")]


@settings(max_examples=200)
@given(
    code=st.sampled_from([0, 1, -11, 139]),
    codes=st.frozensets(st.sampled_from([0, 1, 139]), max_size=3),
    out=st.binary(max_size=8),
    err=st.binary(max_size=8),
    picks=st.lists(st.sampled_from([None, *_REGEXES]), min_size=4, max_size=4),
)
def test_criteria_all_must_hold(
    code: int,
    codes: frozenset[int],
    out: bytes,
    err: bytes,
    picks: list[re.Pattern[bytes] | None],
) -> None:
    # All criteria together match exactly when each one alone does.
    names = ["stdout_regex", "stderr_regex", "not_stdout_regex", "not_stderr_regex"]
    given_ = {name: pick for name, pick in zip(names, picks, strict=True) if pick is not None}
    together = Criteria(exit_codes=codes, **given_).matches(code, out, err)  # type: ignore[arg-type]
    alone = [Criteria(exit_codes=codes).matches(code, out, err)] + [
        Criteria(exit_codes=frozenset(), **{name: pick}).matches(code, out, err)  # type: ignore[arg-type]
        for name, pick in given_.items()
    ]
    assert together == all(alone)


# --- Exit codes and output criteria on real processes -----------------------------------------


def test_exit_code_matching(make_oracle: Callable[..., CommandOracle]) -> None:
    exit3 = sh("exit 3")
    verdict = make_oracle(exit3, Criteria(exit_codes=frozenset({3}))).check(b"")
    assert verdict.interesting and verdict.exit_code == 3 and not verdict.timed_out
    assert not make_oracle(exit3).check(b"").interesting
    assert make_oracle(exit3, Criteria(exit_codes=frozenset({1, 3}))).check(b"").interesting
    assert make_oracle(sh("exit 0")).check(b"").interesting


def test_signal_exit_codes(make_oracle: Callable[..., CommandOracle]) -> None:
    segv = sh("kill -SEGV $$")
    verdict = make_oracle(segv, Criteria(exit_codes=frozenset({139}))).check(b"")
    assert verdict.exit_code == -signal.SIGSEGV and verdict.interesting
    assert make_oracle(segv, Criteria(exit_codes=frozenset({-11}))).check(b"").interesting
    assert not make_oracle(segv, Criteria(exit_codes=frozenset({11}))).check(b"").interesting
    assert not make_oracle(segv).check(b"").interesting


def test_output_regexes(make_oracle: Callable[..., CommandOracle]) -> None:
    prints = sh("printf 'out-marker\\n'; printf 'err-marker\\n' >&2; exit 1")
    one = frozenset({1})

    def judge(**kwargs: re.Pattern[bytes]) -> Verdict:
        return make_oracle(prints, Criteria(exit_codes=one, **kwargs)).check(b"")  # type: ignore[arg-type]

    assert judge(stdout_regex=re.compile(b"out-m")).interesting
    assert not judge(stdout_regex=re.compile(b"err-m")).interesting
    assert judge(stderr_regex=re.compile(b"err-m")).interesting
    assert not judge(stderr_regex=re.compile(b"out-m")).interesting
    assert not judge(not_stdout_regex=re.compile(b"out-m")).interesting
    assert judge(not_stdout_regex=re.compile(b"err-m")).interesting
    assert not judge(not_stderr_regex=re.compile(b"err-m")).interesting
    assert judge(not_stderr_regex=re.compile(b"out-m")).interesting
    both = {"stdout_regex": re.compile(b"out"), "stderr_regex": re.compile(b"err")}
    assert judge(**both).interesting
    assert not judge(**both, not_stderr_regex=re.compile(b"marker")).interesting
    # Regexes hold but the exit code does not.
    assert not make_oracle(prints, Criteria(stdout_regex=re.compile(b"out"))).check(b"").interesting


def test_output_captured_only_when_needed(make_oracle: Callable[..., CommandOracle]) -> None:
    prints = sh("printf out; printf err >&2")
    oracle = make_oracle(prints)
    plain = oracle.check(b"")
    assert (plain.stdout, plain.stderr) == (b"", b"")
    captured = oracle.check(b"", capture=True)
    assert (captured.stdout, captured.stderr) == (b"out", b"err")
    needed = make_oracle(prints, Criteria(stderr_regex=re.compile(b"e"))).check(b"")
    assert needed.stderr == b"err"


def test_extra_predicate_sees_output(make_oracle: Callable[..., CommandOracle]) -> None:
    seen: list[tuple[int | None, bytes, bytes]] = []

    def extra(code: int | None, out: bytes, err: bytes) -> bool:
        seen.append((code, out, err))
        return True

    criteria = Criteria(exit_codes=frozenset({2}), extra=extra)
    assert make_oracle(sh("printf o; printf e >&2; exit 2"), criteria).check(b"").interesting
    assert seen == [(2, b"o", b"e")]


# --- How the candidate reaches the test --------------------------------------------------------


@pytest.mark.parametrize("candidate", [*SAMPLES, os.urandom(300_000)])
def test_at_at_delivers_exact_bytes(
    make_oracle: Callable[..., CommandOracle], tmp_path: Path, candidate: bytes
) -> None:
    got, name = tmp_path / "got", tmp_path / "name"
    script = 'printf %s "$1" > "$2"; cat "$1" > "$3"'
    oracle = make_oracle(sh(script, "@@", str(name), str(got)), input_name="crash.c")
    assert oracle.check(candidate).interesting
    assert got.read_bytes() == candidate
    assert name.read_text() == "crash.c"


@pytest.mark.parametrize("candidate", SAMPLES)
def test_at_at_ext_uses_stem_and_suffix(
    make_oracle: Callable[..., CommandOracle], tmp_path: Path, candidate: bytes
) -> None:
    got, name = tmp_path / "got", tmp_path / "name"
    script = 'printf %s "$1" > "$2"; cat "$1" > "$3"'
    oracle = make_oracle(sh(script, "@@.rs", str(name), str(got)), input_name="crash.c")
    assert oracle.check(candidate).interesting
    assert got.read_bytes() == candidate
    assert name.read_text() == "crash.rs"


@pytest.mark.parametrize("flag", ["--x=@@", "--x=@@.ll"])
def test_flag_equals_at_at(
    make_oracle: Callable[..., CommandOracle], tmp_path: Path, flag: str
) -> None:
    got, name = tmp_path / "got", tmp_path / "name"
    script = 'f="${1#--x=}"; printf %s "$f" > "$2"; cat "$f" > "$3"'
    oracle = make_oracle(sh(script, flag, str(name), str(got)), input_name="bug.c")
    candidate = b"int main(void){}\r\n\0"
    assert oracle.check(candidate).interesting
    assert got.read_bytes() == candidate
    assert name.read_text() == ("bug.c" if flag.endswith("@@") else "bug.ll")


def test_at_at_inside_other_text_is_literal(make_oracle: Callable[..., CommandOracle]) -> None:
    verdict = make_oracle(sh('printf %s "$1"', "x@@y"), input_name="f").check(b"", capture=True)
    assert verdict.stdout == b"x@@y"


def test_input_name_starting_with_dash(make_oracle: Callable[..., CommandOracle]) -> None:
    verdict = make_oracle(sh('printf %s "$1"; cat -- "$1"', "@@"), input_name="-odd.c").check(
        b"body", capture=True
    )
    assert verdict.stdout == b"./-odd.cbody"


def test_absolute_paths_option(make_oracle: Callable[..., CommandOracle]) -> None:
    oracle = make_oracle(sh('printf %s "$1"', "@@"), input_name="a.c", absolute_paths=True)
    path = Path(oracle.check(b"", capture=True).stdout.decode())
    assert path.is_absolute() and path.name == "a.c" and "treereduce-" in str(path)


@pytest.mark.parametrize("candidate", [*SAMPLES, os.urandom(300_000)])
def test_stdin_mode_delivers_exact_bytes(
    make_oracle: Callable[..., CommandOracle], tmp_path: Path, candidate: bytes
) -> None:
    from_stdin, from_file = tmp_path / "stdin", tmp_path / "file"
    # Without @@ the candidate is stdin and also a file under its own name (C-Vise convention).
    script = 'cat > "$1"; cat crash.c > "$2"'
    oracle = make_oracle(sh(script, str(from_stdin), str(from_file)), input_name="crash.c")
    assert oracle.check(candidate).interesting
    assert from_stdin.read_bytes() == candidate
    assert from_file.read_bytes() == candidate


def test_stdin_is_devnull_with_at_at(make_oracle: Callable[..., CommandOracle]) -> None:
    verdict = make_oracle(sh("cat", "@@")).check(b"not for stdin", capture=True)
    assert verdict.interesting and verdict.stdout == b""


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(candidate=st.binary(max_size=5000), use_stdin=st.booleans())
def test_arbitrary_bytes_arrive_unchanged(
    tmp_path: Path, candidate: bytes, use_stdin: bool
) -> None:
    got = tmp_path / "got"
    argv = sh('cat > "$1"', str(got)) if use_stdin else sh('cat "$1" > "$2"', "@@", str(got))
    with CommandOracle(argv) as oracle:
        assert oracle.check(candidate).interesting
    assert got.read_bytes() == candidate


# --- Worker directories ------------------------------------------------------------------------


def test_worker_dirs_are_private_and_cleaned(make_oracle: Callable[..., CommandOracle]) -> None:
    # Fails if an a.out from an earlier run is still there.
    script = "[ ! -e a.out ] || exit 7; touch a.out; mkdir sub; touch sub/x; pwd"
    oracle = make_oracle(sh(script))
    runs = [oracle.check(b"", worker=w, capture=True) for w in (0, 0, 1, 1)]
    assert all(v.interesting for v in runs), runs
    dirs = [Path(v.stdout.decode().strip()) for v in runs]
    assert dirs[0] == dirs[1] and dirs[2] == dirs[3] and dirs[0] != dirs[2]
    assert dirs[0].parent == dirs[2].parent and Path.cwd() not in (dirs[0], dirs[2])
    assert list(dirs[0].iterdir()) == [] and list(dirs[2].iterdir()) == []


def test_concurrent_workers_do_not_collide(make_oracle: Callable[..., CommandOracle]) -> None:
    oracle = make_oracle(sh("cat > a.out; sleep 0.05; cat a.out"))
    results: dict[int, list[tuple[bytes, Verdict]]] = {}

    def work(worker: int) -> None:
        results[worker] = []
        for i in range(4):
            candidate = f"worker {worker} run {i}".encode()
            results[worker].append((candidate, oracle.check(candidate, worker, capture=True)))

    threads = [threading.Thread(target=work, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(HANG)
    assert sum(len(r) for r in results.values()) == 16
    for runs in results.values():
        for candidate, verdict in runs:
            assert verdict.interesting and verdict.stdout == candidate


# --- Finding the command -----------------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """tmp/proj/check.sh (interesting iff the file holds 'needle'); cwd moved to tmp/elsewhere."""
    proj = tmp_path / "proj"
    (proj / "bin").mkdir(parents=True)
    for script in (proj / "check.sh", proj / "bin" / "check"):
        script.write_text('#!/bin/sh\ngrep -q needle "$1"\n')
        script.chmod(0o755)
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    return proj


@pytest.mark.parametrize(
    ("argv", "start"),
    [
        (["./check.sh", "@@"], "proj"),
        (["../proj/check.sh", "@@"], "elsewhere"),
        (["bin/check", "@@"], "proj"),
        (["sh", "./check.sh", "@@"], "proj"),  # a non-command argument that exists there
        (["sh", "check.sh", "@@"], "proj"),  # an interpreter's script, even without ./
        (["bash", "--norc", "check.sh", "@@"], "proj"),  # after the interpreter's options
    ],
)
def test_relative_command_resolves_against_start_dir(
    make_oracle: Callable[..., CommandOracle], project: Path, argv: list[str], start: str
) -> None:
    oracle = make_oracle(argv, start_dir=project.parent / start)
    assert oracle.check(b"a needle here").interesting
    assert not oracle.check(b"hay").interesting


def test_start_dir_defaults_to_cwd_at_construction(
    make_oracle: Callable[..., CommandOracle], project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    oracle = make_oracle(["./check.sh", "@@"])
    monkeypatch.chdir(project.parent)
    assert oracle.check(b"needle").interesting


def test_relative_argument_that_does_not_exist_stays(
    make_oracle: Callable[..., CommandOracle], project: Path
) -> None:
    oracle = make_oracle(sh('printf %s "$1"', "./no-such-file"), start_dir=project)
    assert oracle.check(b"", capture=True).stdout == b"./no-such-file"


def test_only_explicitly_relative_arguments_are_rewritten(
    make_oracle: Callable[..., CommandOracle], project: Path
) -> None:
    # `gcc -o prog @@.c` with a ./prog in the user's directory must write the worker's own prog,
    # and `grep -q needle @@` must keep its pattern although a file `needle` exists.
    (project / "prog").write_text("the user's program\n")
    (project / "needle").write_text("")
    args = ["prog", "needle", "bin/check", "./prog", "../proj/needle", "./missing"]
    oracle = make_oracle(sh('printf "%s\\n" "$@"', *args), start_dir=project)
    printed = oracle.check(b"", capture=True).stdout.decode().splitlines()
    assert printed == [
        "prog",
        "needle",
        "bin/check",
        str(project / "prog"),
        str(project / "needle"),
        "./missing",
    ]


def test_only_an_interpreters_first_operand_is_taken_for_its_script(
    make_oracle: Callable[..., CommandOracle], project: Path
) -> None:
    # `sh check.sh prog @@`: check.sh is the script sh reads; `prog` after it is its data.
    (project / "prog").write_text("the user's program\n")
    (project / "show.sh").write_text('printf "%s\\n" "$@"\n')
    oracle = make_oracle(["sh", "show.sh", "prog", "@@"], start_dir=project)
    printed = oracle.check(b"", capture=True).stdout.decode().splitlines()
    assert printed[0] == "prog" and len(printed) == 2


def test_missing_commands_raise_start_error(
    make_oracle: Callable[..., CommandOracle], tmp_path: Path
) -> None:
    plain = tmp_path / "plain.sh"
    plain.write_text("#!/bin/sh\nexit 0\n")
    plain.chmod(0o644)
    no_shebang = tmp_path / "no-shebang"
    no_shebang.write_text("exit 0\n")
    no_shebang.chmod(0o755)
    bad_interpreter = tmp_path / "bad-interp"
    bad_interpreter.write_text("#!/no/such/interpreter\n")
    bad_interpreter.chmod(0o755)
    cases = {
        "./does-not-exist.sh": "not found",
        "treereduce-no-such-command-zz": "PATH",
        "./plain.sh": "not executable",
        "./no-shebang": "#!",
        "./bad-interp": "interpreter",
        str(tmp_path): "not executable",  # a directory
    }
    for command, hint in cases.items():
        oracle = make_oracle([command, "@@"], start_dir=tmp_path)
        with pytest.raises(OracleStartError) as info:
            oracle.check(b"x")
        message = str(info.value)
        assert Path(command).name in message and hint in message and "\n" not in message


def test_bad_arguments_rejected() -> None:
    with pytest.raises(ValueError):
        CommandOracle([])
    with pytest.raises(ValueError):
        CommandOracle(["true"], input_name="")


# --- Timeouts, cancellation, hangs -------------------------------------------------------------


def test_timeout_kills_grandchildren(
    make_oracle: Callable[..., CommandOracle], tmp_path: Path
) -> None:
    pid_file = tmp_path / "pid"
    # The wrapper and its grandchild ignore SIGTERM, so only the SIGKILL that follows stops them.
    script = 'trap "" TERM; sleep 30 & echo $! > "$1"; wait'
    oracle = make_oracle(sh(script, str(pid_file)))
    try:
        verdict = within(HANG, lambda: oracle.check(b"", timeout=0.5))
        assert verdict.timed_out and not verdict.interesting and verdict.exit_code is None
        assert wait_gone(int(pid_file.read_text()))
    finally:
        kill_if_alive(pid_file)


def test_a_timed_out_test_gets_sigterm_first_from_any_thread(
    make_oracle: Callable[..., CommandOracle], tmp_path: Path
) -> None:
    # A test's cleanup trap runs on the SIGTERM of a timeout, whichever thread started it: the
    # main thread (the original's test) once started its tests with SIGTERM blocked.
    marker = tmp_path / "trapped"
    script = "trap 'echo yes > \"$1\"; exit 3' TERM; sleep 30 & wait"
    oracle = make_oracle(sh(script, str(marker)), kill_grace=5.0)
    assert threading.current_thread() is threading.main_thread()
    assert oracle.check(b"", timeout=0.3).timed_out  # from the main thread
    assert marker.read_text() == "yes\n"
    marker.unlink()
    assert within(HANG, lambda: oracle.check(b"", timeout=0.3)).timed_out  # from another
    assert marker.read_text() == "yes\n"


def test_an_interrupt_while_a_test_starts_leaves_it_killed(tmp_path: Path) -> None:
    # Ctrl-C reaches the main thread at any bytecode, also inside Popen after the fork: the test
    # must still be known, and killed. Here the interrupt comes while Popen is returning.
    started: list[subprocess.Popen[bytes]] = []
    abandoned: list[subprocess.Popen[bytes]] = []

    taken = threading.Event()

    def interrupted(signum: int, frame: object) -> None:
        taken.set()
        raise KeyboardInterrupt

    def start() -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(["sleep", "30"], start_new_session=True)
        started.append(proc)
        os.kill(os.getpid(), signal.SIGINT)
        # Popen returns only once the main thread has taken the interrupt (a fixed sleep here
        # was too short on a loaded machine).
        assert taken.wait(HANG)
        return proc

    def abandon(proc: subprocess.Popen[bytes]) -> None:
        abandoned.append(proc)
        proc.kill()
        proc.wait()

    # Run in the background (`make test &`, nohup), a process starts with SIGINT ignored.
    previous = signal.signal(signal.SIGINT, interrupted)
    try:
        with pytest.raises(KeyboardInterrupt):
            process._off_main(start, abandon)
        assert len(started) == 1 and abandoned == started
        assert started[0].returncode == -signal.SIGKILL
    finally:
        signal.signal(signal.SIGINT, previous)
        for proc in started:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def test_an_interrupt_inside_thread_start_leaves_no_test_behind(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The interrupt can also come while the main thread is still in Thread.start, the helper
    # already running: the test the helper starts must be abandoned, or never started.
    started: list[subprocess.Popen[bytes]] = []
    abandoned: list[subprocess.Popen[bytes]] = []
    thread_start = threading.Thread.start

    def interrupted_start(thread: threading.Thread) -> None:
        thread_start(thread)
        raise KeyboardInterrupt

    def start() -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(["sleep", "30"], start_new_session=True)
        started.append(proc)
        return proc

    def abandon(proc: subprocess.Popen[bytes]) -> None:
        abandoned.append(proc)
        proc.kill()
        proc.wait()

    monkeypatch.setattr(threading.Thread, "start", interrupted_start)
    try:
        with pytest.raises(KeyboardInterrupt):
            process._off_main(start, abandon)
        monkeypatch.undo()
        time.sleep(0.5)  # a helper left running would have started its test by now
        assert abandoned == started
    finally:
        for proc in started:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def test_no_timeout_is_no_limit(make_oracle: Callable[..., CommandOracle]) -> None:
    verdict = make_oracle(sh("sleep 0.3"), timeout=None).check(b"")
    assert verdict.interesting and not verdict.timed_out


@pytest.mark.parametrize("escape", ["", "setsid "])
def test_background_child_holding_stdout_cannot_hang(
    make_oracle: Callable[..., CommandOracle], tmp_path: Path, escape: str
) -> None:
    pid_file = tmp_path / "pid"
    # A leftover child keeps the stdout pipe open after the test exits; with setsid it has even
    # left the test's process group.
    script = f'{escape}sleep 30 & echo $! > "$1"; echo done'
    oracle = make_oracle(sh(script, str(pid_file)), Criteria(stdout_regex=re.compile(b"done")))
    try:
        verdict = within(HANG, lambda: oracle.check(b""))
        assert verdict.interesting and not verdict.timed_out
        if not escape:
            assert wait_gone(int(pid_file.read_text()))
    finally:
        kill_if_alive(pid_file)


def test_large_output_does_not_deadlock(make_oracle: Callable[..., CommandOracle]) -> None:
    size = 20_000_000
    script = f"head -c {size} /dev/zero; head -c {size} /dev/zero >&2; echo THE-END"
    criteria = Criteria(stdout_regex=re.compile(b"THE-END"), stderr_regex=re.compile(b"\0"))
    oracle = make_oracle(sh(script), criteria, timeout=120)
    verdict = within(HANG * 2, lambda: oracle.check(b""))
    assert verdict.interesting and not verdict.timed_out
    assert len(verdict.stdout) == size + len(b"THE-END\n") and len(verdict.stderr) == size


def test_cancel_kills_running_tests_and_stops_later_checks(
    make_oracle: Callable[..., CommandOracle], tmp_path: Path
) -> None:
    pid_files = [tmp_path / "pid0", tmp_path / "pid1"]
    # The candidate (stdin) is where the test writes its grandchild's pid.
    oracle = make_oracle(sh('sleep 30 & echo $! > "$(cat)"; wait'))
    verdicts: list[Verdict] = []

    def work(worker: int) -> None:
        verdicts.append(oracle.check(bytes(pid_files[worker]), worker))

    threads = [threading.Thread(target=work, args=(w,)) for w in (0, 1)]
    try:
        for thread in threads:
            thread.start()
        for pid_file in pid_files:
            wait_for_file(pid_file)
        oracle.cancel()
        for thread in threads:
            thread.join(HANG)
        assert not any(thread.is_alive() for thread in threads)
        assert [v.interesting for v in verdicts] == [False, False]
        assert all(v.exit_code is None and not v.timed_out for v in verdicts)
        assert all(wait_gone(int(p.read_text())) for p in pid_files)
        marker = tmp_path / "ran"
        later = within(HANG, lambda: oracle.check(bytes(marker)))
        assert not later.interesting and not marker.exists()
    finally:
        for pid_file in pid_files:
            kill_if_alive(pid_file)


# --- Lifetime and the Python oracle -----------------------------------------------------------


def test_close_removes_temp_root_and_is_idempotent() -> None:
    with CommandOracle(sh("pwd")) as oracle:
        worker_dir = Path(oracle.check(b"", capture=True).stdout.decode().strip())
        root = worker_dir.parent
        assert root.is_dir() and root.name.startswith("treereduce-")
        oracle.close()
        assert not root.exists()
        oracle.close()
    assert not root.exists()


def test_callable_oracle() -> None:
    calls: list[bytes] = []

    def predicate(candidate: bytes) -> bool:
        calls.append(candidate)
        if candidate == b"raise":
            raise RuntimeError("from the predicate")
        return b"x" in candidate

    oracle: Oracle = CallableOracle(predicate)
    assert oracle.check(b"axb").interesting
    assert not oracle.check(b"ab", worker=3).interesting
    with pytest.raises(RuntimeError, match="from the predicate"):
        oracle.check(b"raise")
    oracle.cancel()
    assert not oracle.check(b"xxx").interesting
    assert calls == [b"axb", b"ab", b"raise"]
    oracle.close()
    oracle.close()


def test_python_test_command(make_oracle: Callable[..., CommandOracle]) -> None:
    code = "import sys; sys.exit(0 if b'needle' in open(sys.argv[1], 'rb').read() else 1)"
    oracle = make_oracle([sys.executable, "-c", code, "@@"])
    assert oracle.check(b"a needle").interesting
    assert not oracle.check(b"hay").interesting


def test_without_pidfd_the_polling_fallback_works(
    make_oracle: Callable[..., CommandOracle], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Platforms without pidfd_open wait by polling; the behaviour must not change.
    monkeypatch.setattr(process, "_pidfd", lambda pid: -1)
    criteria = Criteria(exit_codes=frozenset({4}), stdout_regex=re.compile(b"hi"))
    assert make_oracle(sh("echo hi; exit 4"), criteria).check(b"").interesting
    assert not make_oracle(sh("echo ho; exit 4"), criteria).check(b"").interesting
    pid_file = tmp_path / "pid"
    oracle = make_oracle(sh('trap "" TERM; sleep 30 & echo $! > "$1"; wait', str(pid_file)))
    try:
        verdict = within(HANG, lambda: oracle.check(b"", timeout=0.3))
        assert verdict.timed_out and not verdict.interesting
        assert wait_gone(int(pid_file.read_text()))
    finally:
        kill_if_alive(pid_file)


# --- Oracles made of oracles, and a new one -------------------------------------------------


def test_rejudged_judges_the_runs_by_other_criteria(
    make_oracle: Callable[..., CommandOracle],
) -> None:
    # The command's own criteria (exit 0) never hold; the golden run's criteria replace them.
    crashes = make_oracle(sh('grep -q boom; s=$?; echo "status $s" >&2; exit 3'))
    same_crash = Rejudged(
        crashes, Criteria(exit_codes=frozenset({3}), stderr_regex=re.compile(b"status 0"))
    )
    assert not crashes.check(b"boom").interesting
    boom = same_crash.check(b"boom")
    assert boom.interesting and boom.exit_code == 3 and b"status 0" in boom.stderr
    assert not same_crash.check(b"bang").interesting
    assert same_crash.input_names() == crashes.input_names() == ("input",)
    same_crash.cancel()
    assert same_crash.check(b"boom") == CANCELLED


def test_every_oracle_follows_the_protocol() -> None:
    with CommandOracle(["true"]) as command:
        # Typed as the protocol: mypy checks each against it, isinstance at run time.
        oracles: list[Oracle] = [
            command,
            CallableOracle(lambda c: True),
            Rejudged(command, Criteria()),
            Slotted(command, threading.Semaphore(1)),
            Ranked(command, RankedSlots(1)),
        ]
        assert all(isinstance(oracle, Oracle) for oracle in oracles)
        assert all(oracle.check(b"", timeout=5).interesting for oracle in oracles)


def test_a_test_is_a_predicate_or_an_oracle() -> None:
    oracle = CallableOracle(lambda c: True)
    assert as_oracle(oracle) is oracle
    assert as_oracle(lambda c: b"x" in c).check(b"x").interesting
    assert CallableOracle(lambda c: True).input_names() is None  # no command: no same-crash
    with pytest.raises(TypeError, match="predicate on bytes or an Oracle"):
        as_oracle(42)  # type: ignore[arg-type]


def test_recipe_a_new_executor_is_one_class() -> None:
    """docs/design.md, "Adding an executor": `OracleBase` and one `check` method."""

    class Grep(OracleBase):
        """Interesting while the candidate holds every one of `words`."""

        def __init__(self, *words: bytes) -> None:
            self.words = words
            self.limits: list[float | None] = []

        def check(
            self,
            candidate: bytes,
            worker: int = 0,
            *,
            timeout: float | None = None,
            capture: bool = False,
        ) -> Verdict:
            self.limits.append(timeout)
            if self.cancelled:
                return CANCELLED
            return Verdict.answer(all(word in candidate for word in self.words))

    toy = Grep(b"raise", b"Boom")
    source = b"import sys\n\nclass Boom(Exception):\n    pass\n\n\nx = 1\nraise Boom(x)\n"
    result = treereduce_py.reduce(source, language="python", test=toy, jobs=2)
    assert b"raise Boom" in result.reduced and result.size < len(source) // 2
    assert None not in toy.limits  # the judge gave every test its time limit


def test_failures_name_each_criterion_a_run_fails() -> None:
    criteria = Criteria(
        exit_codes=frozenset({0, 3}),
        stderr_regex=re.compile(b"KeyError"),
        not_stdout_regex=re.compile(b"ok"),
    )
    assert criteria.failures(0, b"", b"KeyError: 'x'") == ()
    assert criteria.failures(1, b"all ok", b"fine") == (
        "exit code 1 not in {0, 3}",
        "--stderr-regex 'KeyError' did not match",
        "--not-stdout-regex 'ok' matched",
    )
    assert criteria.failures(None, b"", b"KeyError") == ("the test did not exit",)
    oracle = CommandOracle(["sh", "-c", "exit 2"], criteria)
    with oracle:
        verdict = oracle.check(b"", capture=True)
        assert oracle.failures(verdict)[0] == "exit code 2 not in {0, 3}"
    assert CallableOracle(lambda c: False).failures(verdict) == ()


def test_ranked_slots_go_to_the_best_waiter_and_name_the_worker() -> None:
    slots = RankedSlots(1)
    held = slots.acquire(0.0)
    assert held is not None
    got: list[tuple[float, int]] = []

    def wait(priority: float) -> None:
        slot = slots.acquire(priority)
        assert slot is not None
        got.append((priority, slot))
        slots.release(slot)

    waiters = [threading.Thread(target=wait, args=(p,)) for p in (1.0, 5.0)]
    for w in waiters:
        w.start()
        while len(slots._waiting) < waiters.index(w) + 1:  # each waits before the next comes
            time.sleep(0.001)
    slots.release(held)
    for w in waiters:
        w.join()
    assert got == [(5.0, 0), (1.0, 0)]  # the later but more valuable waiter first


def test_a_ranked_oracle_runs_as_its_slot_and_cancels_only_itself() -> None:
    workers: list[int] = []

    class Record(OracleBase):
        def check(
            self,
            candidate: bytes,
            worker: int = 0,
            *,
            timeout: float | None = None,
            capture: bool = False,
        ) -> Verdict:
            workers.append(worker)
            return Verdict.answer(True)

    shared = Record()
    slots = RankedSlots(3)
    one, two = Ranked(shared, slots), Ranked(shared, slots)
    assert one.check(b"x", worker=7).interesting
    assert workers == [2]  # the slot's number, not the caller's worker
    one.cancel()
    assert one.check(b"x") == CANCELLED
    assert two.check(b"x").interesting  # the other reduction still tests
    one.resume()
    assert one.check(b"x").interesting
    slots.close()
    assert two.check(b"x") == CANCELLED


def test_a_stopped_reduction_gives_up_its_wait_for_a_slot() -> None:
    # A part whose slice ended must not wait behind better tasks of other files to learn that it
    # stopped: its waiting workers give up their place at once.
    slots = RankedSlots(1)
    held = slots.acquire(0.0)
    assert held is not None
    waiter = Ranked(CallableOracle(lambda c: True), slots)
    answers: list[Verdict] = []
    thread = threading.Thread(target=lambda: answers.append(waiter.check(b"x")))
    thread.start()
    while not slots._waiting:
        time.sleep(0.001)
    waiter.cancel()
    thread.join(timeout=10)
    assert answers == [CANCELLED] and not slots._waiting
    slots.release(held)
