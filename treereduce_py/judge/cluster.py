"""Tests on a Dask cluster: the search stays here, only the test runs on a worker.

A slow test (a five-minute build) is the one cost of a reduction worth spreading over machines;
everything else (the engine, the heap, the cache, the syntax check) is cheap and stays in the
client. `ClusterOracle` is a `CommandOracle` whose `check` sends one `RemoteTest` (the command,
the criteria, the input's name), the candidate's bytes and the check's timeout to a Dask worker,
where the same local runner (`CommandOracle`) runs it in a private temp dir with the same
process-group timeout rules; the `Verdict` comes back. The judge sees an oracle like any other.

Faults are Dask's to recover where it can: a task whose worker dies is run again on another
worker, and the client sees one answer, so a candidate is counted and judged once. What Dask
cannot recover ends the run with `ClusterLost` (the best so far is on disk): the scheduler going
away, or a test that killed several workers in a row. `connect` raises `ClusterUnreachable` when
there is no scheduler to talk to. Cancelling kills the running tests on every worker.

`distributed` is imported only by `connect` (an optional extra): a local reduction never loads it.
"""

from __future__ import annotations

import contextlib
import math
import os
import shutil
import tempfile
import threading
import uuid
from collections.abc import Mapping, Sequence
from concurrent.futures import CancelledError
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from treereduce_py.judge.errors import BadOptions, ClusterLost, ClusterUnreachable
from treereduce_py.judge.oracle import (
    CANCELLED,
    DEFAULT_KILL_GRACE,
    CommandOracle,
    Criteria,
    OracleStartError,
    Verdict,
)
from treereduce_py.judge.process import Place

# Seconds to wait for a scheduler before giving up on it.
CONNECT_TIMEOUT = 10.0


class Cluster:
    """A connection to a Dask scheduler (and the LocalCluster behind it, if we started one)."""

    # `client` is a distributed.Client, `local` a LocalCluster: Any, as distributed's own hints
    # are partial and it is imported only on demand.
    def __init__(self, address: str, client: Any, local: Any = None) -> None:
        self.address = address
        self.client = client
        self._local = local

    def threads(self) -> int:
        """Worker threads across the cluster now: the default number of tests in flight."""
        nthreads: dict[str, int] = self.client.nthreads()
        return max(1, sum(nthreads.values()))

    def close(self) -> None:
        """Disconnect (and stop a LocalCluster we started); idempotent."""
        self.client.close()
        if self._local is not None:
            self._local.close()
            self._local = None


def connect(address: str, *, jobs: int | None = None) -> Cluster:
    """Connect to `tcp://HOST:PORT` (or start `local:N`, N worker processes on this machine).

    A local cluster gives each worker enough threads for `jobs` tests in flight. Raises
    BadOptions for a malformed address, and ClusterUnreachable when no scheduler answers within
    CONNECT_TIMEOUT seconds or `distributed` is not installed.
    """
    try:
        import distributed
    except ImportError:
        raise ClusterUnreachable(
            "--cluster needs the 'distributed' package: pip install 'treereduce-py[cluster]'"
        ) from None
    if address.startswith("local:"):
        count = address.removeprefix("local:")
        if not count.isdigit() or int(count) < 1:
            raise BadOptions(f"--cluster local:N needs a positive number of workers: {address}")
        workers = int(count)
        local = distributed.LocalCluster(  # type: ignore[no-untyped-call]
            n_workers=workers,
            threads_per_worker=max(1, math.ceil((jobs or workers) / workers)),
            processes=True,
            dashboard_address=None,
            memory_limit=0,
            silence_logs=50,  # logging.CRITICAL: worker restarts are ours to report
        )
        client = distributed.Client(local)  # type: ignore[no-untyped-call]
        return Cluster(local.scheduler_address, client, local)
    if "://" not in address:
        raise BadOptions(f"--cluster wants tcp://HOST:PORT or local:N, not {address!r}")
    try:
        client = distributed.Client(address, timeout=CONNECT_TIMEOUT)  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError) as e:
        raise ClusterUnreachable(f"cannot reach the Dask scheduler at {address}: {e}") from None
    try:
        client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError):
        client.close()  # type: ignore[no-untyped-call]
        raise ClusterUnreachable(
            f"the Dask scheduler at {address} has no workers (start some with dask worker)"
        ) from None
    return Cluster(address, client)


@dataclass(frozen=True)
class RemoteTest:
    """Everything a worker needs to run the test, but the candidate and its timeout: one value
    per oracle.

    `argv` is the user's command; the elements at `uploaded` are names of shipped files, made
    absolute on the worker. `start_dir` is the client's directory (on a shared filesystem, the
    same path on every worker).
    """

    run: str
    argv: tuple[str, ...]
    criteria: Criteria
    input_name: str
    start_dir: str
    env: tuple[tuple[str, str], ...] | None
    kill_grace: float
    uploaded: tuple[int, ...] = ()


class ClusterOracle(CommandOracle):
    """A CommandOracle whose tests run on `cluster`'s workers; safe from many threads.

    `uploads` are files the command needs that workers may not have: shipped once per worker
    into one directory, and every argument naming one of them (as the local runner would resolve
    it) points there. `place` (a directory's test: judge/tree_oracle.py) writes each candidate on
    the worker, shipped once to every worker as the uploads are. Raises ValueError as
    CommandOracle does, and BadOptions for an unreadable upload or two with one name.
    """

    def __init__(
        self,
        argv: Sequence[str],
        criteria: Criteria,
        *,
        cluster: Cluster,
        uploads: Sequence[Path] = (),
        timeout: float | None = None,
        start_dir: Path | None = None,
        input_name: str = "input",
        env: Mapping[str, str] | None = None,
        kill_grace: float = DEFAULT_KILL_GRACE,
        place: Place | None = None,
    ) -> None:
        super().__init__(
            argv,
            criteria,
            timeout=timeout,
            start_dir=start_dir,
            input_name=input_name,
            env=env,
            kill_grace=kill_grace,
            place=place,
        )
        self.cluster = cluster
        start = str(start_dir if start_dir is not None else Path.cwd())
        self._run_id = uuid.uuid4().hex
        files = _read_uploads(uploads)
        remote_argv, uploaded = _point_at_uploads(self.argv, start, files)
        self._spec = RemoteTest(
            run=self._run_id,
            argv=remote_argv,
            criteria=criteria,
            input_name=self.input_name,
            start_dir=start,
            env=None if env is None else tuple(sorted(env.items())),
            kill_grace=kill_grace,
            uploaded=uploaded,
        )
        # Shipped once to every worker (and copied by Dask to workers that join later).
        shipped = {name: (data, mode) for name, (data, mode, _) in files.items()}
        self._uploads = (
            cluster.client.scatter([shipped], broadcast=True, hash=False)[0] if shipped else None
        )
        self._place = (
            cluster.client.scatter([place], broadcast=True, hash=False)[0] if place else None
        )
        self._futures: set[Any] = set()  # distributed.Future
        self._remote_lock = threading.Lock()

    def check(
        self,
        candidate: bytes,
        worker: int = 0,
        *,
        timeout: float | None = None,
        capture: bool = False,
    ) -> Verdict:
        """Run the test on some worker; raises OracleStartError as locally, ClusterLost when
        the scheduler is gone or the test keeps killing workers."""
        if self.cancelled:
            return CANCELLED
        future = self.cluster.client.submit(
            _run_remote,
            self._spec,
            self._uploads,
            self._place,
            candidate,
            self._timeout if timeout is None else timeout,
            capture,
            pure=False,
        )
        with self._remote_lock:
            self._futures.add(future)
        try:
            verdict: Verdict = future.result()
            return verdict
        except CancelledError:
            if self.cancelled:
                return CANCELLED
            raise self._lost("the Dask scheduler went away") from None
        except OracleStartError:
            raise
        except Exception as e:
            if type(e).__name__ == "KilledWorker":
                raise self._lost("the test killed Dask workers again and again") from None
            if isinstance(e, OSError) or self.cluster.client.status != "running":
                # CommClosedError (an OSError) and friends: the connection broke under us.
                raise self._lost(f"{type(e).__name__}: {e}") from None
            raise
        finally:
            with self._remote_lock:
                self._futures.discard(future)

    def cancel(self) -> None:
        """Kill the running tests on every worker; later checks are not interesting."""
        super().cancel()  # sets `cancelled`
        with self._remote_lock:
            futures = list(self._futures)
        for future in futures:
            future.cancel()
        self._broadcast(_cancel_remote, True)

    def resume(self) -> None:
        """Let later checks run again after `cancel`."""
        super().resume()
        self._broadcast(_cancel_remote, False)

    def close(self) -> None:
        """Cancel what runs and remove this run's files from the workers; idempotent."""
        if self._run_id:
            self._broadcast(_forget_remote)
        super().close()

    def _broadcast(self, function: Any, *args: object) -> None:
        # The scheduler may be gone already: then so are the tests.
        with contextlib.suppress(Exception):
            self.cluster.client.run(function, self._run_id, *args, wait=True)

    def _lost(self, why: str) -> ClusterLost:
        return ClusterLost(f"lost the cluster at {self.cluster.address}: {why}")


def _read_uploads(paths: Sequence[Path]) -> dict[str, tuple[bytes, int, str]]:
    """name -> (bytes, mode, absolute path) of each upload."""
    files: dict[str, tuple[bytes, int, str]] = {}
    for path in paths:
        try:
            data, mode = path.read_bytes(), path.stat().st_mode & 0o777
        except OSError as e:
            raise BadOptions(f"cannot read --cluster-upload {path}: {e.strerror}") from None
        if path.name in files:
            raise BadOptions(f"two --cluster-upload files are named {path.name}")
        files[path.name] = (data, mode, os.path.abspath(path))
    return files


def _point_at_uploads(
    argv: Sequence[str], start: str, files: Mapping[str, tuple[bytes, int, str]]
) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """Replace each argument naming an upload by its bare name; return where they are."""
    where = {path: name for name, (_, _, path) in files.items()}
    out, uploaded = list(argv), []
    for i, arg in enumerate(argv):
        names_file = "/" in arg if i == 0 else arg.startswith(("./", "../", "/"))
        resolved = os.path.normpath(os.path.join(start, arg)) if names_file else None
        if resolved in where:
            out[i] = where[resolved]
            uploaded.append(i)
    return tuple(out), tuple(uploaded)


# File name -> (bytes, permission bits) of the uploads.
_Uploads = Mapping[str, tuple[bytes, int]]

# The worker side: one runner per run per worker process, with its upload dir.
_runners: dict[str, CommandOracle] = {}
_upload_dirs: dict[str, Path] = {}
_cancelled_runs: set[str] = set()
_worker_lock = threading.Lock()


def _run_remote(
    spec: RemoteTest,
    uploads: _Uploads | None,
    place: Place | None,
    candidate: bytes,
    timeout: float | None,
    capture: bool,
) -> Verdict:
    """On a worker: run the test with the local runner, one temp dir per worker thread."""
    runner = _runner(spec, uploads or {}, place)
    return runner.check(candidate, threading.get_ident(), timeout=timeout, capture=capture)


def _runner(spec: RemoteTest, uploads: _Uploads, place: Place | None) -> CommandOracle:
    with _worker_lock:
        runner = _runners.get(spec.run)
        if runner is not None:
            return runner
        argv = list(spec.argv)
        if spec.uploaded:
            folder = _upload_dirs.get(spec.run)
            if folder is None:
                folder = _upload_dirs[spec.run] = Path(tempfile.mkdtemp(prefix="treereduce-up-"))
                for name, (data, mode) in uploads.items():
                    (folder / name).write_bytes(data)
                    (folder / name).chmod(mode)
            for i in spec.uploaded:
                argv[i] = str(folder / argv[i])
        runner = CommandOracle(
            argv,
            spec.criteria,
            start_dir=Path(spec.start_dir),
            input_name=spec.input_name,
            env=None if spec.env is None else dict(spec.env),
            kill_grace=spec.kill_grace,
            place=place,
        )
        if spec.run in _cancelled_runs:
            runner.cancel()
        _runners[spec.run] = runner
        return runner


def _cancel_remote(run: str, cancelled: bool) -> None:
    """Cancel (kill) or resume the tests of `run` on this worker."""
    with _worker_lock:
        if cancelled:
            _cancelled_runs.add(run)
        else:
            _cancelled_runs.discard(run)
        runner = _runners.get(run)
    if runner is not None and cancelled:
        runner.cancel()
    elif runner is not None:
        runner.resume()


def _forget_remote(run: str) -> None:
    with _worker_lock:
        _cancelled_runs.discard(run)
        runner = _runners.pop(run, None)
        folder = _upload_dirs.pop(run, None)
    if runner is not None:
        runner.close()
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
