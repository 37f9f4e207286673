"""Benchmark cases: load their descriptions and build their inputs into bench/work/inputs/.

A case is a directory under bench/cases/ holding ``case.json`` (language, input file name, an
optional ``prepare`` shell command, description, the misbehaving tool) and ``test.sh``, an
interestingness test that takes the candidate's path as ``$1`` or, without arguments, reads the
file by its basename in the current directory (the C-Vise/C-Reduce convention), so one script
serves every reducer.  Large or third-party inputs are never committed: ``prepare`` generates them
(csmith with a seed, a seeded generator) or fetches them from a package registry (npm pack), and
is run once with ``CASE_DIR`` set, in an empty directory where it must leave the input file.
A directory case (``"directory": true``) names a directory as its input instead: a package, a
program with its headers, a crate (bench/tree_input.py says how each reducer is given it).

Run ``python bench/prepare.py`` to build every input and check each test: interesting on its input,
not interesting on an empty file (an empty directory for a directory case).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tree_input import copy_input, measure

BENCH = Path(__file__).resolve().parent
CASES = BENCH / "cases"
WORK = BENCH / "work"
INPUTS = WORK / "inputs"

# Tokens for the "final tokens" column: identifiers/numbers as one token, every other
# non-space character as its own token (a language-neutral approximation of a lexer).
TOKEN_RE = re.compile(rb"\w+|[^\w\s]")


def count_tokens(data: bytes) -> int:
    """Return the number of tokens in ``data`` under the regex tokenizer ``TOKEN_RE``."""
    return len(TOKEN_RE.findall(data))


@dataclass(frozen=True)
class Case:
    """One benchmark case as described by its case.json."""

    name: str
    directory: Path
    language: str
    lang: str
    file: str
    prepare: str | None
    description: str
    misbehaviour: str
    tool: str
    not_c: bool
    # Written by others and added after the engine was developed (issue 30): no transformation
    # was tuned on it.
    held_out: bool = False
    # The input is a directory (case.json "directory"): its figures are over all its files.
    tree: bool = False

    @property
    def test(self) -> Path:
        """The case's interestingness test script."""
        return self.directory / "test.sh"

    @property
    def input_path(self) -> Path:
        """Where the prepared input lives (built by :func:`prepare_case`)."""
        return INPUTS / self.name / self.file


def load_cases(names: list[str] | None = None) -> list[Case]:
    """Load the cases under bench/cases/, all of them or those named (in the given order).

    Raises KeyError for a name that is not a case, ValueError for a malformed case.json.
    """
    found: dict[str, Case] = {}
    for meta in sorted(CASES.glob("*/case.json")):
        raw = json.loads(meta.read_text())
        try:
            case = Case(
                name=meta.parent.name,
                directory=meta.parent,
                language=str(raw["language"]),
                lang=str(raw["lang"]),
                file=str(raw["file"]),
                prepare=raw.get("prepare"),
                description=str(raw["description"]),
                misbehaviour=str(raw["misbehaviour"]),
                tool=str(raw["tool"]),
                not_c=bool(raw.get("not_c", False)),
                held_out=bool(raw.get("held_out", False)),
                tree=bool(raw.get("directory", False)),
            )
        except KeyError as err:
            raise ValueError(f"{meta}: missing field {err}") from err
        found[case.name] = case
    if names is None:
        return list(found.values())
    missing = [n for n in names if n not in found]
    if missing:
        raise KeyError(f"unknown case(s): {', '.join(missing)}; known: {', '.join(found)}")
    return [found[n] for n in names]


def prepare_case(case: Case, *, force: bool = False) -> Path:
    """Build the case's input under bench/work/inputs/<case>/ (once) and return its path.

    Raises RuntimeError when the prepare command fails or leaves no input file.
    """
    target = case.input_path
    if target.exists() and not force:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    if case.prepare is None:
        copy_input(case.directory / case.file, target)
        return target
    with tempfile.TemporaryDirectory(prefix=f"prep-{case.name}-") as tmp:
        env = dict(os.environ, CASE_DIR=str(case.directory))
        proc = subprocess.run(
            ["bash", "-c", f"set -euo pipefail; {case.prepare}"],
            cwd=tmp,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        built = Path(tmp) / case.file
        if proc.returncode != 0 or not built.exists() or built.is_dir() != case.tree:
            raise RuntimeError(f"{case.name}: prepare failed ({proc.returncode}): {proc.stderr}")
        copy_input(built, target)
    return target


def tools_on_path() -> None:
    """Put this Python's directory first on PATH: the tools the cases' tests call may live there
    (`z3` from z3-solver). Every harness that runs a case's test, or a tool on it, calls it
    first."""
    here = str(Path(sys.executable).parent)
    path = os.environ.get("PATH", "")
    if path.split(os.pathsep)[0] != here:
        os.environ["PATH"] = here + os.pathsep + path


def run_test(case: Case, candidate: Path, *, timeout: float = 120.0) -> bool:
    """Run the case's test on ``candidate`` (passed as $1); True when it is interesting."""
    try:
        proc = subprocess.run(
            [str(case.test), str(candidate)],
            cwd=candidate.parent,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return False
    return proc.returncode == 0


def check_case(case: Case) -> tuple[bool, bool]:
    """Return (interesting on the prepared input, interesting on an empty file, or an empty
    directory for a directory case)."""
    path = prepare_case(case)
    with tempfile.TemporaryDirectory(prefix=f"empty-{case.name}-") as tmp:
        empty = Path(tmp) / case.file
        if case.tree:
            empty.mkdir()
        else:
            empty.write_bytes(b"")
        return run_test(case, path), run_test(case, empty)


def main(argv: list[str] | None = None) -> int:
    """Prepare (and check) the cases named on the command line, or all of them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", help="case names (default: all)")
    parser.add_argument("--force", action="store_true", help="rebuild inputs that exist")
    args = parser.parse_args(argv)
    ok = True
    for case in load_cases(args.cases or None):
        prepare_case(case, force=args.force)
        on_input, on_empty = check_case(case)
        size, files = measure(case.input_path)
        good = on_input and not on_empty
        ok &= good
        status = "ok" if good else "BROKEN"
        print(
            f"{case.name:28} {case.language:11} {size:>9} B"
            + (f" in {files} files" if case.tree else "")
            + f"  {status}"
            f" (input interesting: {on_input}, empty interesting: {on_empty})"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
