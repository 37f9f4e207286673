"""Batch mode: a folder of crashing inputs in, one reduced file per distinct crash out.

A fuzzing campaign or a nightly CI job finds hundreds of crashing inputs, most of them the same
bug. Reducing each would repeat the same work; reducing one per crash is what a person wants. So
each original is run once (the golden run of `--same-crash`), inputs are grouped by their crash
signature (signature.py), inputs that run cleanly are listed as not crashing, and the smallest
member of each group is reduced with same-crash semantics, several groups at once. Results go to
`OUTDIR/<signature-slug>.<ext>`, with `summary.json` (rewritten after every group, which is what
`resume` reads) and `summary.md`. A timeout is a group too, but same-crash cannot reduce it: it
is listed, not reduced.

The command has one of two contracts (`TestMode`). In `crash` mode (the default) it is the
program under test: a non-zero exit or a crash message is the crash. In `interesting` mode it is
the user's test, as for a single reduction: exit 0 means the input still shows its crash, and
the groups come from the crash messages the test lets through (one group when it prints none).
The wrong contract would fail silently (every input "clean"), so a batch in which nothing
crashes ends with an error that names the other mode, and one whose inputs all fail exactly as
an empty file does ends with an error that says the command, not the inputs, is failing.

Inputs are taken as fuzzers leave them: every regular file of a folder (below it too with
`recursive`), extensionless and binary included; hidden entries (AFL++'s `.state`) and AFL++'s
`README.txt` beside its `id:...` files are skipped, and every skipped entry is said and counted.
With `dirs` each input is a folder, a crashing project (a folder named holds them, one per
subfolder): it is run as a directory is (the test gets a private copy of its tree as `@@`,
judge/tree_oracle.py) and its group's smallest member is reduced as one (run/directory.py),
into the folder `OUTDIR/<signature-slug>`.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import fnmatch
import hashlib
import json
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from treereduce_py import events
from treereduce_py.engine.output import OutputError, write_atomic
from treereduce_py.engine.tree_output import TreeOutput
from treereduce_py.judge import signature
from treereduce_py.judge.errors import BadOptions, ReduceError
from treereduce_py.judge.oracle import Criteria, Oracle, OracleStartError, Verdict
from treereduce_py.judge.signature import CrashSignature
from treereduce_py.judge.slots import Slotted
from treereduce_py.judge.timeouts import first_run_timeout
from treereduce_py.lang import languages
from treereduce_py.lang.filetree import BadTree, FileTree
from treereduce_py.run import api
from treereduce_py.run.directory import DirectorySession

SUMMARY_VERSION = 1

# Makes the oracle for one input's name with these criteria (a command, locally or on a
# cluster); with a tree, the input is that directory's, each candidate a tree's records
# (judge/tree_oracle.py's `tree_command`).
OracleFactory = Callable[[str, Criteria, FileTree | None], Oracle]

# What the command's exit says: "crash", it is the program under test (a non-zero exit or a
# crash message is the crash); "interesting", it is the user's test (exit 0: still crashes).
TestMode = Literal["crash", "interesting"]
TEST_MODES: tuple[str, ...] = get_args(TestMode)


class NothingToReduce(ReduceError):
    """No input shows a crash to reduce, or all of them fail as an empty file does."""

    exit_code = 3


@dataclass(frozen=True)
class Skipped:
    """An entry of an input folder that is not an input, and why."""

    path: Path
    reason: str


@dataclass(frozen=True)
class Crash:
    """One original's golden run: its signature key and how to describe it (None: clean)."""

    path: Path
    size: int
    key: str | None
    description: str = ""
    exit_code: int | None = None
    sig: CrashSignature | None = None


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
    sig: CrashSignature | None = None

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
            message=self.message,
        )


def expand_inputs(
    patterns: Sequence[str], *, recursive: bool = False, dirs: bool = False
) -> tuple[list[Path], list[Skipped]]:
    """Files named, the files of folders named (and below them with `recursive`), and glob
    matches, sorted, each once; and the entries of those folders that are skipped, with why.
    With `dirs` the inputs are folders: the subfolders of a folder named, and the folders a
    glob matches. Raises BadOptions naming a pattern that matches no input."""
    if dirs and recursive:
        raise BadOptions("--dirs takes each folder as one input; --recursive would go into it")
    found: dict[Path, None] = {}
    skipped: list[Skipped] = []
    for pattern in patterns:
        path = Path(pattern)
        if dirs and path.is_file():
            raise BadOptions(f"{pattern} is a file: with --dirs each input is a folder")
        if path.is_file():
            matches = [path]
        elif path.is_dir():
            matches = (
                _folder_dirs(path, skipped) if dirs else _folder_inputs(path, recursive, skipped)
            )
        else:
            matches = _glob(pattern, Path.is_dir if dirs else Path.is_file)
        if not matches:
            raise BadOptions(f"no input matches {pattern!r}")
        found.update(dict.fromkeys(matches))
    return list(found), skipped


def _glob(pattern: str, wanted: Callable[[Path], bool]) -> list[Path]:
    """The matches of a glob that are inputs (`wanted`), sorted. As in a shell, a wildcard does
    not match a hidden name (a leading dot) unless the pattern's own part starts with a dot."""
    if not pattern:
        return []
    dotted = [part for part in Path(pattern).parts if part.startswith(".")]

    def shown(match: Path) -> bool:
        hidden = (p for p in match.parts if p.startswith(".") and p not in (".", ".."))
        return all(any(fnmatch.fnmatchcase(h, d) for d in dotted) for h in hidden)

    return sorted(p for p in Path().glob(pattern) if shown(p) and wanted(p))


def _folder_inputs(folder: Path, recursive: bool, skipped: list[Skipped]) -> list[Path]:
    """A folder's inputs as a fuzzer leaves them; what is not an input goes to `skipped`."""
    entries = sorted(folder.iterdir())
    afl = any(e.name.startswith("id:") for e in entries)
    inputs: list[Path] = []
    for entry in entries:
        if entry.name.startswith("."):
            skipped.append(Skipped(entry, "hidden"))
        elif afl and entry.name == "README.txt":
            skipped.append(Skipped(entry, "AFL++'s note on the folder, not a crash"))
        elif entry.is_dir():
            if recursive:
                inputs += _folder_inputs(entry, recursive, skipped)
            else:
                skipped.append(Skipped(entry, "a folder (--recursive goes into folders)"))
        elif entry.is_file():
            inputs.append(entry)
        else:
            skipped.append(Skipped(entry, "not a regular file"))
    return inputs


def _folder_dirs(folder: Path, skipped: list[Skipped]) -> list[Path]:
    """A folder's subfolders, each one input (--dirs); its files and hidden entries are
    skipped."""
    inputs: list[Path] = []
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith("."):
            skipped.append(Skipped(entry, "hidden"))
        elif entry.is_dir():
            inputs.append(entry)
        else:
            skipped.append(Skipped(entry, "not a folder (with --dirs each input is a folder)"))
    return inputs


@dataclass(frozen=True)
class Keying:
    """How runs are told apart: the test's contract, and the signature's frames or the user's
    own key regex (signature.extract's)."""

    mode: TestMode = "crash"
    frames: int = signature.DEFAULT_FRAMES
    key: str | None = None


def classify(
    path: Path,
    oracle: Oracle,
    keying: Keying = Keying(),
    *,
    timeout: float | None = None,
    tree: FileTree | None = None,
) -> Crash:
    """Run the original once, for at most `timeout` seconds (None: the oracle's own limit); its
    crash key (None when it shows no crash to reduce), the signature of `--same-crash` with
    `keying`'s frames (or the user's key regex). A folder's original is its `tree`."""
    data = path.read_bytes() if tree is None else tree.encode()
    run = oracle.check(data, threading.get_ident(), timeout=timeout, capture=True)
    size = len(data) if tree is None else tree.size
    return crash_of(path, size, run, oracle.input_names() or (), keying, timeout)


def crash_of(
    path: Path,
    size: int,
    run: Verdict,
    names: Sequence[str],
    keying: Keying,
    limit: float | None,
) -> Crash:
    """What one run says of its input (see TestMode and Keying); `names` are the file names the
    test saw it as, `limit` the run's time limit."""
    mode = keying.mode
    if run.timed_out:
        after = "" if limit is None else f" after {limit} s"
        return Crash(path, size, "timeout", f"timed out{after}")
    sig = signature.extract(
        run.exit_code,
        run.stdout,
        run.stderr,
        input_names=names,
        frames=keying.frames,
        key_regex=keying.key,
    )
    if mode == "interesting":
        if run.exit_code != 0:
            return Crash(path, size, None, _status(run), run.exit_code)
        if sig.line is None:
            return Crash(path, size, "interesting", "interesting to the test", 0)
        return Crash(path, size, f"0\n{sig.line}", sig.describe(), 0, sig)
    if run.exit_code == 0 and sig.line is None:
        return Crash(path, size, None, _status(run), 0)
    return Crash(path, size, f"{sig.exit_code}\n{sig.line}", sig.describe(), run.exit_code, sig)


def _status(run: Verdict) -> str:
    """A run's exit status and the last line of its stderr, for the diagnosis of a batch."""
    lines = run.stderr.decode(errors="replace").strip().splitlines()
    last = f": {lines[-1].strip()[:160]}" if lines else ""
    return f"exit {run.exit_code}{last}"


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
                slug(first),
                first.description,
                paths,
                original_size=first.size,
                timed_out=timed_out,
                sig=first.sig,
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
        mode: TestMode = "crash",
        language: str | None = None,
        same_crash: bool = False,
        skipped: Sequence[Skipped] = (),
    ) -> None:
        self.inputs = list(inputs)
        self.mode: TestMode = mode
        self.keying = Keying(mode, options.signature_frames, options.signature_regex)
        self.language = language
        # In crash mode a group is always reduced to its crash; in interesting mode the test
        # decides, and same_crash also keeps the crash message the test let through.
        self.same_crash = same_crash or mode == "crash"
        self.skipped = list(skipped)
        self.outdir = outdir
        self.make_oracle = make_oracle
        self.jobs = jobs
        self.options = options
        # The limit of each original's golden run: the user's timeout, or the first runs' default.
        self._first_run = first_run_timeout(options.timeout)
        self.emit = emit
        self.resume = resume
        self.command = tuple(command)
        self.started = time.monotonic()
        self.groups: list[Group] = []
        self.clean: list[Path] = []
        self._lock = threading.Lock()
        self._trees: dict[Path, FileTree] = {}  # the folders' trees, read once

    def run(self) -> tuple[list[Group], list[Path]]:
        """Classify, group, reduce; raises OracleStartError when the command cannot start and
        NothingToReduce when no input shows a crash (or all fail as an empty file does)."""
        for s in self.skipped:
            self.emit(events.Notice(f"skipped {s.path}: {s.reason}"))
        with concurrent.futures.ThreadPoolExecutor(self.jobs, "treereduce-batch") as pool:
            crashes = [c for c in pool.map(self._classify, self.inputs) if c is not None]
            self._diagnose(crashes)
            self.groups, self.clean = group(crashes)
            self._warn_status_only()
            self.outdir.mkdir(parents=True, exist_ok=True)
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

    def _classify(self, path: Path) -> Crash | None:
        """The original's golden run; None for a folder that cannot be read as a tree."""
        tree = None
        if path.is_dir():
            try:
                tree = self._trees[path] = FileTree.read(path)
            except BadTree as e:  # said and counted as skipped, as any entry that is no input
                with self._lock:
                    self.skipped.append(Skipped(path, str(e)))
                self.emit(events.Notice(f"skipped {path}: {e}"))
                return None
        with contextlib.closing(self.make_oracle(path.name, Criteria(), tree)) as oracle:
            return classify(path, oracle, self.keying, timeout=self._first_run, tree=tree)

    def _diagnose(self, crashes: Sequence[Crash]) -> None:
        """Refuse a batch with nothing to reduce, saying which contract the command seems to
        follow; or whose inputs all fail exactly as an empty file does."""
        if not crashes:
            raise NothingToReduce("no input could be read (each is listed as skipped, with why)")
        shown = [c for c in crashes if c.key is not None]
        if not shown:
            self._nothing_crashed(crashes)
        if len(crashes) < 2 or len(shown) < len(crashes) or len({c.key for c in shown}) > 1:
            return
        first = crashes[0].path
        tree = self._trees.get(first)
        with contextlib.closing(self.make_oracle(first.name, Criteria(), tree)) as oracle:
            run = oracle.check(b"", 0, timeout=self._first_run, capture=True)
            names = oracle.input_names() or ()
            empty = crash_of(Path(""), 0, run, names, self.keying, self._first_run)
        if empty.key == shown[0].key:
            raise NothingToReduce(
                f"all {len(crashes)} inputs fail exactly as an empty file does "
                f"({shown[0].description}): the command fails, not the inputs (is every file "
                "it names there? a file named without ./ or a full path, other than an "
                "interpreter's script, is looked for in the test's private directory)"
            )

    def _warn_status_only(self) -> None:
        """A crash group known by a plain exit status, beside inputs that exit 0, is what a
        "still crashes" test run in crash mode looks like: say so once."""
        plain = [
            g for g in self.groups if g.sig and g.sig.line is None and (g.sig.exit_code or 0) > 0
        ]
        if self.mode == "crash" and plain and self.clean:
            self.emit(
                events.Notice(
                    f"{len(plain)} group(s) are told apart only by an exit status, with no crash "
                    f"message, and {len(self.clean)} inputs exit 0: if the command is a test "
                    "that exits 0 while the crash is there, use --test-mode interesting"
                )
            )

    def _nothing_crashed(self, crashes: Sequence[Crash]) -> None:
        n = len(crashes)
        codes = sorted({str(c.exit_code) for c in crashes})
        if self.mode == "crash":
            raise NothingToReduce(
                f"no input crashed the command (all {n} exited {' or '.join(codes)} without a "
                "crash message); batch runs it as the program under test. If it is a test that "
                "exits 0 while the crash is still there, add --test-mode interesting"
            )
        raise NothingToReduce(
            f"the test found no input interesting (all {n} exited {' or '.join(codes)}, and "
            f"--test-mode interesting counts only exit 0; e.g. {crashes[0].description}). If "
            "the command is the crashing program itself, leave out --test-mode interesting"
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
        tree = self._trees.get(source)
        g.output = g.slug if tree else f"{g.slug}{source.suffix}"
        g.status = "reducing"
        self.emit(g.event(elapsed=self._elapsed()))
        started = time.monotonic()
        keep_crash = self.same_crash and g.sig is not None and self.mode == "interesting"
        criteria = Criteria(extra=g.sig.matches) if keep_crash and g.sig else Criteria()
        options = dataclasses.replace(
            self.options,
            jobs=self.jobs,
            same_crash=self.mode == "crash",
            output=self.outdir / g.output,
        )

        def forward(event: events.Event) -> None:
            self.emit(events.Grouped(g.slug, event, elapsed=self._elapsed()))

        with contextlib.closing(self.make_oracle(source.name, criteria, tree)) as oracle:
            test = Slotted(oracle, slots)
            try:
                if tree is None:
                    data = source.read_bytes()
                    lang = self.language or languages.detect_kind(source, data)
                    result = api.reduce(
                        data, language=lang, test=test, options=options, progress=forward
                    )
                    g.final_size, g.tests = result.size, result.stats.tests
                else:
                    output = TreeOutput(self.outdir / g.output)
                    session = DirectorySession(
                        tree, test, options, forward, output=output, name=source.name
                    )
                    done = session.run()
                    output.offer(done.tree)  # written even when nothing could go
                    g.final_size, g.tests = done.tree.size, done.tests
            except (ReduceError, OracleStartError, OutputError) as e:
                g.seconds = time.monotonic() - started
                self._finish(g, "failed", str(e))
                return
        g.seconds = time.monotonic() - started
        self._finish(g, "done")

    def _finish(self, g: Group, status: str, message: str = "") -> None:
        g.status, g.message = status, message
        self.emit(g.event(elapsed=self._elapsed()))
        if status in ("skipped", "failed"):
            self.emit(events.Notice(f"{g.slug}: {status}: {message}"))
        self._write_summary()

    def _write_summary(self) -> None:
        with self._lock:
            body = {
                "version": SUMMARY_VERSION,
                "command": list(self.command),
                "mode": self.mode,
                "inputs": len(self.inputs),
                "groups": [_group_json(g) for g in self.groups],
                "clean": [str(p) for p in self.clean],
                "skipped": [{"path": str(s.path), "reason": s.reason} for s in self.skipped],
                "wall_time": round(self._elapsed(), 3),
            }
            write_atomic(self.outdir / "summary.json", (json.dumps(body, indent=2) + "\n").encode())
            markdown = summary_markdown(self.groups, self.clean, self.skipped)
            write_atomic(self.outdir / "summary.md", markdown.encode())


def _group_json(g: Group) -> dict[str, object]:
    body = {f.name: getattr(g, f.name) for f in dataclasses.fields(g) if f.name != "sig"}
    return {**body, "members": [str(p) for p in g.members]}


def summary_markdown(
    groups: Sequence[Group], clean: Sequence[Path], skipped: Sequence[Skipped] = ()
) -> str:
    """summary.md: one row per group, then the inputs that did not crash and what was skipped;
    every file given is in exactly one of the three."""
    files = sum(len(g.members) for g in groups) + len(clean) + len(skipped)
    lines = [
        "# Batch reduction",
        "",
        f"{files} entries: {sum(len(g.members) for g in groups)} crashing in {len(groups)} "
        f"groups, {len(clean)} not crashing, {len(skipped)} skipped.",
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
    if skipped:
        lines += ["", f"Skipped ({len(skipped)}):", ""]
        lines += [f"- {s.path}: {s.reason}" for s in skipped]
    return "\n".join(lines) + "\n"
