"""Batch mode: a folder of crashing inputs in, one reduced file per distinct crash out.

A fuzzing campaign or a nightly CI job finds hundreds of crashing inputs, most of them the same
bug. Reducing each would repeat the same work; reducing one per crash is what a person wants. So
each original is run once (the golden run of `--same-crash`), inputs are grouped by their crash
signature (signature.py), inputs that run cleanly are listed as not crashing, and the smallest
member of each group is reduced with same-crash semantics, several groups at once. Results go to
`OUTDIR/<signature-slug>.<ext>`, with `summary.json` (rewritten after every group, which is what
`resume` reads) and `summary.md`. A timeout is a group too, but same-crash cannot reduce it: it
is listed, not reduced.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import hashlib
import json
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from treereduce_py import events
from treereduce_py.engine.output import write_atomic
from treereduce_py.judge import signature
from treereduce_py.judge.errors import BadOptions, ReduceError
from treereduce_py.judge.oracle import CommandOracle, OracleStartError
from treereduce_py.lang import languages
from treereduce_py.run import api

SUMMARY_VERSION = 1
# The golden run of each original gets this long unless --timeout says otherwise.
FIRST_RUN_TIMEOUT = 300.0

# Makes the oracle for one input file name (locally or on a cluster).
OracleFactory = Callable[[str], CommandOracle]


@dataclass(frozen=True)
class Crash:
    """One original's golden run: its signature key and how to describe it (None: clean)."""

    path: Path
    size: int
    key: str | None
    description: str = ""


@dataclass
class Group:
    """Inputs with one crash signature; `status`: queued, reducing, done, failed, skipped."""

    slug: str
    signature: str
    members: list[Path]
    status: str = "queued"
    output: str | None = None
    original_size: int = 0
    final_size: int | None = None
    tests: int = 0
    seconds: float = 0.0
    message: str = ""
    timed_out: bool = False

    def event(self, size: int | None = None, elapsed: float = 0.0) -> events.GroupUpdate:
        return events.GroupUpdate(
            group=self.slug,
            signature=self.signature,
            members=len(self.members),
            status=self.status,
            original_size=self.original_size,
            size=self.final_size if size is None else size,
            tests=self.tests,
            elapsed=elapsed,
        )


def expand_inputs(patterns: Sequence[str]) -> list[Path]:
    """Files named, files under directories named (recursively, hidden ones skipped), and
    glob matches; sorted, each once. Raises BadOptions naming a pattern that matches nothing."""
    found: dict[Path, None] = {}
    for pattern in patterns:
        path = Path(pattern)
        if path.is_file():
            matches = [path]
        elif path.is_dir():
            matches = sorted(
                p
                for p in path.rglob("*")
                if p.is_file()
                and not any(part.startswith(".") for part in p.relative_to(path).parts)
            )
        else:
            matches = sorted(p for p in Path().glob(pattern) if p.is_file()) if pattern else []
        if not matches:
            raise BadOptions(f"no input matches {pattern!r}")
        found.update(dict.fromkeys(matches))
    return list(found)


def classify(
    path: Path,
    oracle: CommandOracle,
    frames: int = signature.DEFAULT_FRAMES,
    key: str | None = None,
) -> Crash:
    """Run the original once; its crash key (None when it runs cleanly), the signature of
    `--same-crash` with `frames` top frames (or the user's `key` regex)."""
    data = path.read_bytes()
    run = oracle.check(data, threading.get_ident(), capture=True)
    if run.timed_out:
        return Crash(path, len(data), "timeout", f"timed out after {oracle.timeout} s")
    stem = Path(oracle.input_name).stem
    names = [oracle.input_name] + [stem + a[2:] for a in oracle.argv if a.startswith("@@.")]
    sig = signature.extract(
        run.exit_code, run.stdout, run.stderr, input_names=names, frames=frames, key_regex=key
    )
    if run.exit_code == 0 and sig.line is None:
        return Crash(path, len(data), None)
    return Crash(path, len(data), f"{sig.exit_code}\n{sig.line}", sig.describe())


def slug(crash: Crash) -> str:
    """A file name for a crash: its words, short, and a hash that tells similar ones apart."""
    line = (crash.key or "").partition("\n")[2]
    text = line if line not in ("", "None") else crash.description
    words = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40].strip("-")
    digest = hashlib.blake2b((crash.key or "").encode(), digest_size=4).hexdigest()
    return f"{words or 'crash'}-{digest}"


def group(crashes: Sequence[Crash]) -> tuple[list[Group], list[Path]]:
    """Groups by crash key (each listed by size, then path) and the clean inputs."""
    by_key: dict[str, list[Crash]] = {}
    clean = []
    for crash in crashes:
        if crash.key is None:
            clean.append(crash.path)
        else:
            by_key.setdefault(crash.key, []).append(crash)
    groups = []
    for members in by_key.values():
        members.sort(key=lambda c: (c.size, str(c.path)))
        first = members[0]
        paths = [c.path for c in members]
        timed_out = first.key == "timeout"
        groups.append(
            Group(
                slug(first), first.description, paths, original_size=first.size, timed_out=timed_out
            )
        )
    groups.sort(key=lambda g: g.slug)
    return groups, clean


class Batch:
    """One batch run; see the module docstring. `run` returns the groups and clean inputs."""

    def __init__(
        self,
        inputs: Sequence[Path],
        outdir: Path,
        make_oracle: OracleFactory,
        *,
        jobs: int,
        options: api.ReduceOptions,
        emit: events.EventSink,
        resume: bool = False,
        command: Sequence[str] = (),
    ) -> None:
        self.inputs = list(inputs)
        self.outdir = outdir
        self.make_oracle = make_oracle
        self.jobs = jobs
        self.options = options
        self.emit = emit
        self.resume = resume
        self.command = tuple(command)
        self.started = time.monotonic()
        self.groups: list[Group] = []
        self.clean: list[Path] = []
        self._lock = threading.Lock()

    def run(self) -> tuple[list[Group], list[Path]]:
        """Classify, group, reduce; raises OracleStartError when the command cannot start."""
        self.outdir.mkdir(parents=True, exist_ok=True)
        with concurrent.futures.ThreadPoolExecutor(self.jobs, "treereduce-batch") as pool:
            crashes = list(pool.map(self._classify, self.inputs))
            self.groups, self.clean = group(crashes)
            self._restore_finished()
            for g in self.groups:
                self.emit(g.event(elapsed=self._elapsed()))
            todo = [g for g in self.groups if g.status == "queued"]
            # Every reduction may use all the slots, but together they hold at most `jobs`
            # tests in flight: when the small groups are done, the largest gets every slot.
            slots = threading.Semaphore(self.jobs)
            for future in [pool.submit(self._reduce, g, slots) for g in todo]:
                future.result()
        self._write_summary()
        return self.groups, self.clean

    def _elapsed(self) -> float:
        return time.monotonic() - self.started

    def _classify(self, path: Path) -> Crash:
        with self.make_oracle(path.name) as oracle:
            oracle.timeout = self.options.timeout or FIRST_RUN_TIMEOUT
            return classify(
                path, oracle, self.options.signature_frames, self.options.signature_regex
            )

    def _restore_finished(self) -> None:
        """With resume: groups whose result is already on disk keep their old entry."""
        summary = self.outdir / "summary.json"
        if not self.resume or not summary.exists():
            return
        old = {g["slug"]: g for g in json.loads(summary.read_text())["groups"]}
        for g in self.groups:
            entry = old.get(g.slug)
            if entry and entry["status"] == "done" and (self.outdir / entry["output"]).exists():
                for name in ("status", "output", "final_size", "tests", "seconds"):
                    setattr(g, name, entry[name])

    def _reduce(self, g: Group, slots: threading.Semaphore) -> None:
        source = g.members[0]
        if g.timed_out:
            self._finish(g, "skipped", "a timeout is not reduced: give a test that checks for it")
            return
        lang = languages.detect(source, source.read_bytes())
        if lang is None:
            self._finish(g, "skipped", f"cannot tell the language of {source}")
            return
        g.output = f"{g.slug}{source.suffix}"
        g.status = "reducing"
        self.emit(g.event(elapsed=self._elapsed()))
        started = time.monotonic()
        options = dataclasses.replace(
            self.options, jobs=self.jobs, same_crash=True, output=self.outdir / g.output
        )

        def forward(event: events.Event) -> None:
            self.emit(events.Grouped(g.slug, event, elapsed=self._elapsed()))

        with self.make_oracle(source.name) as oracle:
            oracle.slots = slots
            try:
                result = api.reduce(
                    source.read_bytes(),
                    language=lang,
                    test=oracle,
                    options=options,
                    progress=forward,
                )
            except (ReduceError, OracleStartError) as e:
                g.seconds = time.monotonic() - started
                self._finish(g, "failed", str(e))
                return
        g.final_size, g.tests = result.size, result.stats.tests
        g.seconds = time.monotonic() - started
        self._finish(g, "done")

    def _finish(self, g: Group, status: str, message: str = "") -> None:
        g.status, g.message = status, message
        self.emit(g.event(elapsed=self._elapsed()))
        self._write_summary()

    def _write_summary(self) -> None:
        with self._lock:
            body = {
                "version": SUMMARY_VERSION,
                "command": list(self.command),
                "groups": [
                    {**dataclasses.asdict(g), "members": [str(p) for p in g.members]}
                    for g in self.groups
                ],
                "clean": [str(p) for p in self.clean],
                "wall_time": round(self._elapsed(), 3),
            }
            write_atomic(self.outdir / "summary.json", (json.dumps(body, indent=2) + "\n").encode())
            write_atomic(
                self.outdir / "summary.md", summary_markdown(self.groups, self.clean).encode()
            )


def summary_markdown(groups: Sequence[Group], clean: Sequence[Path]) -> str:
    """summary.md: one row per group, then the inputs that did not crash."""
    lines = [
        "# Batch reduction",
        "",
        "| signature | members | reduced from | original | final | tests | time | result |",
        "|---|---:|---|---:|---:|---:|---:|---|",
    ]
    for g in groups:
        final = "" if g.final_size is None else f"{g.final_size} B"
        result = g.output if g.status == "done" else f"{g.status}: {g.message}".rstrip(": ")
        sig = g.signature.replace("|", "\\|")
        lines.append(
            f"| {sig} | {len(g.members)} | {g.members[0]} | {g.original_size} B | {final} "
            f"| {g.tests} | {g.seconds:.1f} s | {result} |"
        )
    lines += ["", f"Not crashing ({len(clean)}):", ""]
    lines += [f"- {p}" for p in clean] or ["(none)"]
    return "\n".join(lines) + "\n"
