"""bench/grammars.py: which Shrink Ray runs went without their tree-sitter grammar, and how the
grammars are compiled for tree-sitter-language-pack 1.x to load.

bench/ is not a package; its modules import each other by name, so the test puts bench/ on the
path as its scripts do.
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import grammars  # type: ignore[import-not-found]  # noqa: E402

OFFLINE = (
    "Starting reduction...\nWARNING: could not download the tree-sitter grammar 'rust' "
    "(DownloadError); reducing without its passes.\n"
)


def test_the_warning_names_the_missing_grammar() -> None:
    assert grammars.handicap(OFFLINE) == "rust"
    assert grammars.handicap("WARNING: could not load the tree-sitter grammar 'c' (X)") == "c"


def test_a_log_without_the_warning_is_fair() -> None:
    assert grammars.handicap("Starting reduction...\nReduction completed!\n") is None


def test_a_stored_run_is_judged_by_its_kept_stderr_log(tmp_path: Path) -> None:
    log = tmp_path / "runs" / "x-shrinkray.stderr.log.gz"
    log.parent.mkdir()
    with gzip.open(log, "wt") as f:
        f.write(OFFLINE)
    run = {
        "tool": "shrinkray",
        "logs": ["runs/x-shrinkray.stdout.log.gz", str(log.relative_to(tmp_path))],
    }
    assert grammars.stored_handicap(run, tmp_path) == "rust"
    assert grammars.stored_handicap({**run, "tool": "cvise"}, tmp_path) is None
    with gzip.open(log, "wt") as f:
        f.write("Reduction completed!\n")
    assert grammars.stored_handicap(run, tmp_path) is None


def test_library_names_follow_the_packs_symbols() -> None:
    assert grammars.library_name("python") == "libtree_sitter_python.so"
    assert grammars.library_name("csharp") == "libtree_sitter_c_sharp.so"


def test_the_scanner_is_compiled_only_where_the_grammar_has_one(tmp_path: Path) -> None:
    (tmp_path / "parser.c").write_text("")
    out = tmp_path / "lib.so"
    without = grammars.compile_command(tmp_path, out)
    assert str(tmp_path / "parser.c") in without and str(tmp_path / "scanner.c") not in without
    (tmp_path / "scanner.c").write_text("")
    with_scanner = grammars.compile_command(tmp_path, out)
    assert str(tmp_path / "scanner.c") in with_scanner
    assert with_scanner[-2:] == ["-o", str(out)] and "-Wl,-z,defs" in with_scanner
