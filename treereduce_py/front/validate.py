"""Every option checked before the first test: a bad invocation is one line and exit 2.

Two moments: the argument types below convert and range-check each value as it is parsed (numbers
finite and within what the clocks and the system can take, regexes that compile, a formatter
command that splits); `check_run` then checks what needs the input and its language (the query
files parse, the report can be written, and nothing the run writes is its input). A `-j` beyond
what this machine can use is capped, with a note, rather than refused.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import shlex
import urllib.parse
from collections.abc import Sequence
from pathlib import Path

from treereduce_py.front.exit_codes import UsageError
from treereduce_py.lang import languages
from treereduce_py.lang.hints import QueryFileError, load_hints
from treereduce_py.transform.captures import vocabulary

# The longest --timeout or --max-time: the tests' clocks wait in milliseconds held in 32 bits
# (about 24 days), and a final re-test may get twice the timeout.
MAX_SECONDS = 1_000_000.0
# Local tests in flight per CPU core at most (tests that sleep or wait on I/O may use several),
# and the cap never goes below LOCAL_JOBS_FLOOR.
JOBS_PER_CORE = 16
LOCAL_JOBS_FLOOR = 64
# Tests in flight on a Dask cluster at most (each waits on a thread here).
CLUSTER_JOBS_MAX = 1024
# The address schemes a Dask scheduler listens on.
CLUSTER_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx", "inproc")
# Exit statuses a test can have: 0-255, or -N for a test killed by signal N (oracle.Criteria).
EXIT_CODE_RANGE = range(-64, 256)


def count(text: str) -> int:
    """A whole number of at least 1 (jobs, passes, tests)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {text}")
    return value


def seconds(text: str) -> float:
    """A positive, finite number of seconds, at most MAX_SECONDS."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, not {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(
            f"must be a finite number of seconds, not {text} (leave the option out for no limit)"
        )
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, not {text}")
    if value > MAX_SECONDS:
        raise argparse.ArgumentTypeError(
            f"must be at most {MAX_SECONDS:.0f} seconds (about 11 days), not {text}"
        )
    return value


def exit_status(text: str) -> int:
    """An exit status a test can have: 0 to 255, or -N for signal N."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, not {text!r}") from None
    if value not in EXIT_CODE_RANGE:
        raise argparse.ArgumentTypeError(
            f"must be 0 to 255 (or -N for a test killed by signal N), not {text}"
        )
    return value


def probability(text: str) -> float:
    """A number strictly between 0 and 1 (cdd.CDD's rule for p0)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0.0 < value < 1.0):
        raise argparse.ArgumentTypeError(f"must lie strictly between 0 and 1, not {text}")
    return value


def regex(text: str) -> re.Pattern[bytes]:
    """A criterion's regex, compiled over the test's output bytes."""
    try:
        return re.compile(os.fsencode(text), re.MULTILINE)
    except re.error as e:
        raise argparse.ArgumentTypeError(f"bad regular expression {text!r}: {e}") from None


def signature_regex(text: str) -> str:
    """A --signature regex (kept as text: the golden run compiles it, as signature.py does)."""
    try:
        re.compile(text, re.MULTILINE)
    except re.error as e:
        raise argparse.ArgumentTypeError(f"bad regular expression {text!r}: {e}") from None
    return text


def command_line(text: str) -> list[str]:
    """A command given as one string (--format 'clang-format -style=llvm')."""
    try:
        words = shlex.split(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"cannot split {text!r} into words: {e}") from None
    return words


def cluster_address(text: str) -> str:
    """A --cluster address: `local:N` (at most LOCAL_WORKERS_MAX(), each a process here) or
    `SCHEME://HOST[:PORT]` with a scheme Dask speaks and a port that is a port."""
    if text.startswith("local:"):
        workers = text.removeprefix("local:")
        if not workers.isdigit() or int(workers) < 1:
            raise argparse.ArgumentTypeError(
                f"local:N needs a positive number of workers, not {text!r}"
            )
        most = local_workers_max()
        if int(workers) > most:
            raise argparse.ArgumentTypeError(
                f"local:{workers} would start {workers} worker processes here; at most {most} "
                f"(4 per CPU core, at least 16)"
            )
        return text
    scheme, sep, rest = text.partition("://")
    if not sep or scheme not in CLUSTER_SCHEMES or not rest:
        raise argparse.ArgumentTypeError(
            f"wants tcp://HOST:PORT (a Dask scheduler) or local:N, not {text!r}"
        )
    try:
        parsed = urllib.parse.urlsplit(f"tcp://{rest}")
        port = parsed.port  # raises ValueError when it is not a number from 0 to 65535
        valid = bool(parsed.hostname) and not parsed.netloc.endswith(":") and port != 0
    except ValueError:
        valid = False
    if not valid:
        raise argparse.ArgumentTypeError(f"{text!r} is not {scheme}://HOST:PORT")
    return text


def local_workers_max() -> int:
    """The most worker processes `--cluster local:N` may start on this machine."""
    return max(16, 4 * (os.cpu_count() or 1))


def capped_jobs(jobs: int | None, on_cluster: bool) -> tuple[int | None, str | None]:
    """`jobs` within what this machine can use, and a note when it was capped."""
    if on_cluster:
        cap, why = CLUSTER_JOBS_MAX, "tests in flight on a cluster"
    else:
        cores = os.cpu_count() or 1
        cap = max(LOCAL_JOBS_FLOOR, JOBS_PER_CORE * cores)
        why = f"{JOBS_PER_CORE} per CPU core here, at least {LOCAL_JOBS_FLOOR}"
    if jobs is None or jobs <= cap:
        return jobs, None
    return cap, f"-j {jobs} is more than this machine can use: running {cap} tests at once ({why})"


def check_run(
    *,
    lang: str,
    input_path: Path | None,
    output: Path | None,
    report: Path | None,
    queries: Sequence[Path],
) -> None:
    """What needs the input and its language, checked before anything is written or run;
    raises UsageError."""
    if report is not None:
        check_report(report, input_path, output)
    check_queries(lang, queries)


def check_report(report: Path, input_path: Path | None, output: Path | None) -> None:
    """The --report file can be written, and is neither the input nor the output."""
    for other, what in ((input_path, "input"), (output, "output")):
        if other is not None and _same_path(report, other):
            raise UsageError(f"--report {report} is the {what}: give the report its own file")
    if report.is_dir():
        raise UsageError(f"--report {report} is a directory")
    if report.is_symlink() or (report.exists() and not report.is_file()):
        # The report is renamed into place: over a link or a device, it would replace that.
        raise UsageError(f"--report {report} is not a regular file (a link or a device)")
    parent = report.parent
    if not parent.is_dir():
        raise UsageError(f"--report {report}: no such directory: {parent}")
    if not os.access(parent, os.W_OK | os.X_OK) or (
        report.exists() and not os.access(report, os.W_OK)
    ):
        raise UsageError(f"--report {report}: not writable")


def check_queries(lang: str, queries: Sequence[Path]) -> None:
    """Every --queries directory exists and its files for `lang` compile, checked as the
    reduction checks them (transform/facts.py, with the captures' vocabulary); the compiled
    hints are cached, so the run does not compile them again."""
    for directory in queries:
        if not directory.is_dir():
            what = "not a directory" if directory.exists() else "no such directory"
            raise UsageError(f"--queries {directory}: {what}")
    if not queries:
        return  # the bundled files are checked by the tests
    try:
        load_hints(lang, languages.get_language(lang), tuple(queries), vocabulary())
    except QueryFileError as e:
        raise UsageError(f"--queries: {e}") from None


def _same_path(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False
