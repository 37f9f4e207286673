"""Tests on a Dask cluster (cluster.py): a LocalCluster on this machine, real worker processes,
a real `dask scheduler` that goes away, and a worker killed mid-test."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import PYTHON, QUICK, needle_program, run_cli, succeeded

from treereduce_py.judge.oracle import CommandOracle, Criteria, Oracle
from treereduce_py.run import api

distributed = pytest.importorskip(
    "distributed", reason="distributed is not installed (pip install 'treereduce-py[cluster]')"
)

from treereduce_py.judge import cluster  # noqa: E402

DASK = str(Path(sys.executable).parent / "dask")

# Every run appends "<pid of the worker process> <candidate size>" to $LOG, then sleeps $NAP;
# interesting while the candidate still holds "needle" and compiles.
LOGGING_CHECK = """\
import os, sys, time
with open(os.environ["LOG"], "a") as log:
    log.write(f"{os.getppid()} {os.path.getsize(sys.argv[1])}\\n")
time.sleep(float(os.environ.get("NAP", "0")))
data = open(sys.argv[1], "rb").read()
try:
    compile(data, "candidate", "exec")
except SyntaxError:
    sys.exit(1)
sys.exit(0 if b"needle" in data else 1)
"""


@pytest.fixture(scope="module")
def local() -> Iterator[cluster.Cluster]:
    conn = cluster.connect("local:2", jobs=2)  # two processes, one thread each
    yield conn
    conn.close()


def test_a_local_reduction_never_imports_distributed() -> None:
    code = (
        "import sys, treereduce_py\n"
        "r = treereduce_py.reduce(b'a = 1\\nb = 2\\n', language='python', "
        "test=lambda c: b'b' in c, jobs=2)\n"
        "from treereduce_py.front import cli\n"
        "from treereduce_py.judge import cluster\n"
        "assert r.size < 12, r.reduced\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('distributed', 'dask')))\n"
    )
    done = subprocess.run([PYTHON, "-c", code], capture_output=True, timeout=QUICK)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.strip() == b"[]"


def test_remote_verdicts_are_the_local_ones(local: cluster.Cluster, tmp_path: Path) -> None:
    argv = ["sh", "-c", 'grep -q boom "$1" && echo found >&2 && exit 3', "sh", "@@"]
    criteria = Criteria(exit_codes=frozenset({3}), stderr_regex=re.compile(b"found"))
    with (
        CommandOracle(argv, criteria, timeout=5, input_name="x.txt") as here,
        cluster.ClusterOracle(
            argv, criteria, cluster=local, timeout=5, input_name="x.txt"
        ) as there,
    ):
        for candidate in (b"boom", b"nothing", b""):
            a, b = here.check(candidate, capture=True), there.check(candidate, capture=True)
            assert (a.interesting, a.exit_code, a.stderr) == (b.interesting, b.exit_code, b.stderr)
        assert there.check(b"boom").interesting and not there.check(b"no").interesting


def test_a_cluster_oracle_is_an_oracle(local: cluster.Cluster) -> None:
    with cluster.ClusterOracle(["true"], Criteria(), cluster=local, input_name="a.rs") as oracle:
        checked: Oracle = oracle  # mypy: the protocol, statically
        assert isinstance(checked, Oracle) and checked.input_names() == ("a.rs",)


def test_remote_timeout_kills_the_whole_group(local: cluster.Cluster, tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    argv = ["sh", "-c", f"sleep 30 & echo $! > {pids}; wait"]
    with cluster.ClusterOracle(argv, Criteria(), cluster=local, timeout=0.5) as oracle:
        verdict = oracle.check(b"")
    assert verdict.timed_out and not verdict.interesting
    assert not _alive(int(pids.read_text()))


def test_uploaded_script_is_used_on_the_workers(local: cluster.Cluster, tmp_path: Path) -> None:
    script = tmp_path / "check.sh"
    script.write_text('#!/bin/sh\ngrep -q boom "$1"\n')
    script.chmod(0o755)
    oracle = cluster.ClusterOracle(
        ["./check.sh", "@@"], Criteria(), cluster=local, uploads=[script], start_dir=tmp_path
    )
    script.unlink()  # from now on only the shipped copy exists
    with oracle:
        assert oracle.check(b"boom").interesting
        assert not oracle.check(b"bang").interesting
    with pytest.raises(api.BadOptions, match="cannot read --cluster-upload"):
        cluster.ClusterOracle(["true"], Criteria(), cluster=local, uploads=[script])


def test_cancel_kills_running_remote_tests(local: cluster.Cluster, tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    argv = ["sh", "-c", f"echo $$ > {pids}; exec sleep 30"]
    with cluster.ClusterOracle(argv, Criteria(), cluster=local, timeout=60) as oracle:
        answers: list[object] = []
        thread = threading.Thread(target=lambda: answers.append(oracle.check(b"")))
        thread.start()
        _wait_for(lambda: pids.exists() and pids.read_text().strip() != "")
        oracle.cancel()
        thread.join(QUICK)
        assert not thread.is_alive()
        assert answers and not answers[0].interesting  # type: ignore[attr-defined]
        _wait_for(lambda: not _alive(int(pids.read_text())))
        oracle.resume()
        assert oracle.check(b"", timeout=0.3).timed_out  # it ran again after resume


def test_killed_worker_retries_its_test_once(local: cluster.Cluster, tmp_path: Path) -> None:
    """A worker killed mid-test: its test runs again elsewhere, the client gets one answer, and
    the reduction counts it once and ends as the same reduction without the kill would."""
    check = tmp_path / "check.py"
    check.write_text(LOGGING_CHECK)
    source = needle_program(6)
    log = tmp_path / "log"
    env = {**os.environ, "LOG": str(log), "NAP": "0.4"}
    options = api.ReduceOptions(jobs=2, deterministic=True, polish=False)
    argv = [PYTHON, "-S", str(check), "@@"]
    expected = api.reduce(
        source, language="python", test=CommandOracle(argv, env=env), options=options
    )
    log.write_text("")
    killed: list[int] = []

    def kill_a_worker_mid_test() -> None:
        _wait_for(lambda: len(log.read_text().splitlines()) >= 6)
        pid = int(log.read_text().splitlines()[-1].split()[0])
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)

    killer = threading.Thread(target=kill_a_worker_mid_test)
    killer.start()
    with cluster.ClusterOracle(argv, Criteria(), cluster=local, env=env) as oracle:
        result = api.reduce(source, language="python", test=oracle, options=options)
    killer.join()
    runs = log.read_text().splitlines()
    assert killed
    assert result.reduced == expected.reduced
    # One run more than the reduction counted: the killed one, run again on another worker.
    assert len(runs) == result.stats.tests + 1, runs
    assert sum(1 for line in runs if int(line.split()[0]) == killed[0]) >= 1
    local.client.wait_for_workers(2, timeout=QUICK)  # the nanny restarts it


def test_cli_on_a_local_cluster_matches_the_local_run(tmp_path: Path) -> None:
    check = tmp_path / "check.py"
    check.write_text(LOGGING_CHECK)
    source = tmp_path / "prog.py"
    source.write_bytes(needle_program(5))
    env = {**os.environ, "LOG": str(tmp_path / "log")}
    outputs = []
    for where in ([], ["--cluster", "local:2"]):
        out = tmp_path / f"out{len(where)}.py"
        args = [source, "-o", out, "-j", 2, "--deterministic", *where]
        args += ["--", PYTHON, "-S", "./check.py", "@@"]
        proc = subprocess.run(
            [str(Path(sys.executable).parent / "treereduce-py"), *map(str, args)],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            timeout=300,
        )
        succeeded(proc)
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1] and b"needle" in outputs[0]
    assert len(outputs[0]) < len(source.read_bytes()) // 5


def test_unreachable_scheduler_is_exit_4(tmp_path: Path) -> None:
    source = tmp_path / "prog.py"
    source.write_bytes(b"needle = 1\n")
    proc = run_cli([source, "--cluster", f"tcp://127.0.0.1:{_free_port()}", "--", "true"], tmp_path)
    assert proc.returncode == 4, proc.stderr
    lines = proc.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and "cannot reach the Dask scheduler" in lines[0], lines
    bad = run_cli([source, "--cluster", "local:zero", "--", "true"], tmp_path)
    assert bad.returncode == 2 and b"positive number of workers" in bad.stderr


def test_scheduler_that_goes_away_leaves_the_best_on_disk(tmp_path: Path) -> None:
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    quiet = subprocess.DEVNULL
    scheduler = subprocess.Popen(
        [DASK, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
        stdout=quiet,
        stderr=quiet,
    )
    worker: subprocess.Popen[bytes] | None = None
    try:
        _wait_for(lambda: _connects(port), within=QUICK)
        # Remote tests see the worker's environment, not the client's.
        env = {**os.environ, "LOG": str(tmp_path / "log"), "NAP": "0.2"}
        worker = subprocess.Popen(
            [DASK, "worker", address, "--nthreads", "2", "--no-dashboard", "--no-nanny"],
            env=env,
            stdout=quiet,
            stderr=quiet,
        )
        check = tmp_path / "check.py"
        check.write_text(LOGGING_CHECK)
        source = tmp_path / "prog.py"
        source.write_bytes(needle_program(30))
        out = tmp_path / "out.py"
        args = [source, "-o", out, "-j", 2, "--cluster", address]
        args += ["--", PYTHON, "-S", str(check), "@@"]
        run = subprocess.Popen(
            [str(Path(sys.executable).parent / "treereduce-py"), *map(str, args)],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        original = len(source.read_bytes())

        def improved_or_ended() -> bool:
            return (out.exists() and len(out.read_bytes()) < original) or run.poll() is not None

        _wait_for(improved_or_ended, within=300)
        assert run.poll() is None, run.communicate()
        scheduler.kill()
        _, err = run.communicate(timeout=120)
        assert run.returncode == 7, err
        message = err.decode().strip().splitlines()[-1]
        assert "lost the cluster" in message and str(out) in message, message
        best = out.read_bytes()
        assert b"needle" in best and len(best) < original
        compile(best, "best", "exec")
    finally:
        for proc in (scheduler, worker):
            if proc is None:
                continue
            proc.kill()
            proc.wait()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped by its parent) counts as gone.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def _wait_for(condition: Callable[[], bool], within: float = QUICK) -> None:
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.02)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _connects(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_a_directory_is_reduced_on_the_cluster(tmp_path: Path) -> None:
    # The tree travels to the worker: each candidate is written there as the directory the
    # test names with @@, with its files' modes (the test runs run.sh, which must stay
    # executable; what it says does not matter).
    root = tmp_path / "proj"
    root.mkdir()
    (root / "run.sh").write_text("#!/bin/sh\necho checking\n")
    (root / "run.sh").chmod(0o755)
    (root / "notes.txt").write_text("".join(f"note {i}\n" for i in range(30)) + "a bug\n")
    (root / "other.txt").write_text("nothing\n" * 20)
    test = '"$1/run.sh" && grep -q bug "$1/notes.txt"'
    args = [root, "-j", 2, "--cluster", "local:2", "--", "sh", "-c", test, "t", "@@"]
    succeeded(run_cli(args, tmp_path))
    out = tmp_path / "proj.reduced"
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt", "run.sh"]
    assert (out / "notes.txt").read_text().strip() == "bug"
    assert os.access(out / "run.sh", os.X_OK)


def test_a_batch_of_crashing_folders_is_triaged_and_reduced_on_the_cluster(
    tmp_path: Path,
) -> None:
    # batch --dirs on the cluster: each folder's copy is written on the worker for the triage
    # runs and for every candidate of its group's reduction.
    for name, pad in (("k1", 12), ("k2", 4)):
        root = tmp_path / "crashes" / name
        root.mkdir(parents=True)
        (root / "main.py").write_text("import lib\nlib.run()\n")
        helpers = "".join(f"def helper{j}(x):\n    return x * {j}\n\n\n" for j in range(pad))
        (root / "lib.py").write_text(helpers + "def run():\n    return {}['E500']\n")
        (root / "notes.txt").write_text("padding\n" * pad)
    ok = tmp_path / "crashes" / "ok"
    ok.mkdir()
    (ok / "main.py").write_text("print('fine')\n")
    command = ["sh", "-c", f'cd "$1" && exec {sys.executable} -S -B main.py', "run", "@@"]
    out = tmp_path / "out"
    crashes = tmp_path / "crashes"
    args = ["batch", "--dirs", "-o", out, "-j", 2, "--cluster", "local:2", crashes, "--"]
    succeeded(run_cli([*args, *command], tmp_path))
    summary = json.loads((out / "summary.json").read_text())
    assert summary["clean"] == [str(crashes / "ok")]
    (group,) = summary["groups"]
    assert sorted(Path(m).name for m in group["members"]) == ["k1", "k2"]
    (result,) = [p for p in out.iterdir() if p.is_dir()]
    files = {p.name: p.read_text() for p in result.iterdir()}
    assert "main.py" in files and set(files) <= {"lib.py", "main.py"}  # lib may be inlined
    assert "helper" not in "".join(files.values())  # the padding went
