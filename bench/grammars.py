"""Shrink Ray's tree-sitter grammars, built offline, and the runs that went without them.

Shrink Ray gets its grammars from tree-sitter-language-pack 1.x, which downloads them at run time.
This machine cannot download, and without a grammar Shrink Ray prints a warning (WARNING below)
and reduces without its syntax-aware passes: a handicapped peer. The pack loads one plain shared
library per language, ``libtree_sitter_<sym>.so`` exporting ``tree_sitter_<sym>()``, from its
``cache_dir()`` (here ``$TREE_SITTER_LANGUAGE_PACK_CACHE_DIR``, set to bench/.peers/tslp-cache for
setup and every run) and downloads only what is missing there; the folder must not be group- or
other-writable. The sdist of tree-sitter-language-pack 0.13 holds the generated C sources of its
grammars (``parsers/<lang>/src``), which gcc compiles to exactly those libraries.

``python bench/grammars.py`` (bench/setup.sh runs it) builds the grammars Shrink Ray wants for the
cases' input files, asking Shrink Ray itself which those are, and exits non-zero when Shrink Ray
would still warn. ``handicap`` finds the warning in a run's log: bench/run.py refuses to store
such a run, and the report marks the stored ones.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterable
from pathlib import Path

BENCH = Path(__file__).resolve().parent
PEERS = BENCH / ".peers"
SHRINKRAY_PYTHON = PEERS / "shrinkray" / "bin" / "python"
CACHE = PEERS / "tslp-cache"
CACHE_ENV = "TREE_SITTER_LANGUAGE_PACK_CACHE_DIR"
SDIST_SPEC = "tree-sitter-language-pack==0.13.0"
# Shrink Ray's words when a grammar is missing (shrinkray/downloads.py and passes/treesitter.py).
WARNING = re.compile(r"could not (?:download|load) the tree-sitter grammar '([^']+)'")
# Where the pack's library symbol differs from the language's name.
SYMBOLS = {
    "csharp": "c_sharp",
    "embeddedtemplate": "embedded_template",
    "vb": "vb_dotnet",
    "avro": "apache_avro",
}


def handicap(log: str) -> str | None:
    """The grammar a Shrink Ray log says it ran without, or None when it warned of none."""
    found = WARNING.search(log)
    return found.group(1) if found else None


def stored_handicap(run: dict[str, object], repo: Path) -> str | None:
    """The grammar a stored Shrink Ray run went without, read from its kept, gzipped stderr
    log (None for other tools, or when the log says nothing of it)."""
    if run.get("tool") != "shrinkray":
        return None
    logs = run.get("logs")
    for path in logs if isinstance(logs, list) else []:
        if str(path).endswith("stderr.log.gz") and (repo / str(path)).exists():
            with gzip.open(repo / str(path), "rt", errors="replace") as f:
                return handicap(f.read())
    return None


def library_name(language: str) -> str:
    """The file the pack loads for ``language``: libtree_sitter_<sym>.so."""
    return f"libtree_sitter_{SYMBOLS.get(language, language)}.so"


def compile_command(src: Path, out: Path) -> list[str]:
    """gcc's command line for one grammar's ``src`` folder (parser.c, and scanner.c when the
    grammar has one) into the shared library ``out``; every symbol must resolve (-z defs)."""
    sources = [src / "parser.c"] + [p for p in [src / "scanner.c"] if p.exists()]
    return ["gcc", "-O2", "-fPIC", "-shared", "-Wl,-z,defs", f"-I{src}", *map(str, sources),
            "-o", str(out)]  # fmt: skip


def _ask_shrinkray(code: str, *args: str) -> object:
    """Run ``code`` in Shrink Ray's own Python (with the bench's grammar cache) and return the
    JSON it prints."""
    env = dict(os.environ, **{CACHE_ENV: str(CACHE)})
    proc = subprocess.run(
        [str(SHRINKRAY_PYTHON), "-c", code, *args],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(proc.stdout.splitlines()[-1])


def wanted(files: Iterable[str]) -> dict[str, str]:
    """File name → the grammar Shrink Ray wants for it (files it has no grammar for left out)."""
    code = (
        "import json, sys\n"
        "from shrinkray.passes.treesitter import language_for_filename as lang\n"
        "print(json.dumps({f: lang(f) for f in sys.argv[1:] if lang(f)}))\n"
    )
    answer = _ask_shrinkray(code, *files)
    assert isinstance(answer, dict)
    return {str(k): str(v) for k, v in answer.items()}


def libs_dir() -> Path:
    """The pack's cache_dir() under the bench's cache, as Shrink Ray's pack computes it."""
    code = "import json, tree_sitter_language_pack as t\nprint(json.dumps(str(t.cache_dir())))\n"
    return Path(str(_ask_shrinkray(code)))


def missing(languages: Iterable[str]) -> dict[str, str]:
    """Language → why Shrink Ray could not use it: not in downloaded_languages() (it would try
    to download it) or not loadable by get_language (the error)."""
    code = (
        "import json, sys, tree_sitter_language_pack as t\n"
        "have, bad = set(t.downloaded_languages()), {}\n"
        "for lang in sys.argv[1:]:\n"
        "    if lang not in have:\n"
        "        bad[lang] = 'not in downloaded_languages()'\n"
        "        continue\n"
        "    try:\n"
        "        t.get_parser(lang).parse(b'')\n"
        "    except Exception as e:\n"
        "        bad[lang] = f'{type(e).__name__}: {e}'\n"
        "print(json.dumps(bad))\n"
    )
    answer = _ask_shrinkray(code, *sorted(set(languages)))
    assert isinstance(answer, dict)
    return {str(k): str(v) for k, v in answer.items()}


def _sdist() -> Path:
    """The tree-sitter-language-pack 0.13 sdist in bench/.peers (downloaded once with pip)."""
    found = sorted(PEERS.glob("tree_sitter_language_pack-0.13.*.tar.gz"))
    if found:
        return found[-1]
    pip = [str(SHRINKRAY_PYTHON), "-m", "pip", "download", "-q", "--no-deps"]
    pip += ["--no-binary", "tree-sitter-language-pack", "-d", str(PEERS), SDIST_SPEC]
    subprocess.run(pip, check=True)
    return sorted(PEERS.glob("tree_sitter_language_pack-0.13.*.tar.gz"))[-1]


def build(languages: Iterable[str], libs: Path) -> None:
    """Compile each language's grammar from the 0.13 sdist into ``libs`` (mode 0755 folders,
    as the pack requires). Raises KeyError for a language the sdist has no sources for."""
    libs.mkdir(parents=True, exist_ok=True)
    for folder in [libs, *libs.parents]:
        if not folder.is_relative_to(CACHE):  # only the cache's own folders
            break
        folder.chmod(0o755)
    with tarfile.open(_sdist()) as tar, tempfile.TemporaryDirectory() as tmp:
        root = tar.getnames()[0].split("/")[0]
        for lang in sorted(set(languages)):
            prefix = f"{root}/parsers/{lang}/src/"
            members = [m for m in tar.getmembers() if m.name.startswith(prefix)]
            if not members:
                raise KeyError(f"the sdist has no parsers/{lang}/src")
            tar.extractall(tmp, members=members, filter="data")
            print(f"grammars: compiling {lang}", flush=True)
            subprocess.run(compile_command(Path(tmp) / prefix, libs / library_name(lang)),
                           check=True)  # fmt: skip


def case_files() -> list[str]:
    """Every case's input file name; for a directory case (``"directory": true``), the names of
    the files in its tree: committed in its case directory, or prepared in bench/work/inputs."""
    names: set[str] = set()
    for meta in (BENCH / "cases").glob("*/case.json"):
        raw = json.loads(meta.read_text())
        if not raw.get("directory"):
            names.add(raw["file"])
            continue
        prepared = BENCH / "work/inputs" / meta.parent.name / raw["file"]
        for root in (meta.parent / raw["file"], prepared):
            names.update(p.name for p in root.rglob("*") if p.is_file())
    return sorted(names)


def main(argv: list[str] | None = None) -> int:
    """Build the grammars the cases need; exit 1, loudly, when Shrink Ray would still warn."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", help="input file names (default: every case's)")
    args = parser.parse_args(argv)
    if not SHRINKRAY_PYTHON.exists():
        print(f"grammars: no Shrink Ray at {SHRINKRAY_PYTHON}; run bench/setup.sh", file=sys.stderr)
        return 1
    files = args.files or case_files()
    languages = set(wanted(files).values())
    libs = libs_dir()
    todo = missing(languages)
    for lang in sorted(todo):
        try:
            build([lang], libs)
        except (KeyError, subprocess.CalledProcessError) as err:
            print(f"grammars: cannot build {lang}: {err}", file=sys.stderr)
    still = missing(languages)
    for lang, why in sorted(still.items()):
        print(f"grammars: ERROR: Shrink Ray would still reduce {lang} without its grammar "
              f"(could not download the tree-sitter grammar): {why}", file=sys.stderr)  # fmt: skip
    if not still:
        print(f"grammars: Shrink Ray has {', '.join(sorted(languages))} in {libs}")
    return 1 if still else 0


if __name__ == "__main__":
    sys.exit(main())
