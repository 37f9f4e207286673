#!/usr/bin/env bash
# Install the peer reducers and the real tools the benchmark cases need, on a fresh Debian machine.
#
#   bash bench/setup.sh            # as root (or with sudo available)
#
# Installs: C-Vise, C-Reduce, csmith, clang-14, gcc/g++, rustc (expected already), node/npm,
# OpenJDK 17, Go, Shrink Ray into bench/.peers/shrinkray (it needs Python >= 3.12) with its
# tree-sitter grammars compiled into bench/.peers/tslp-cache (bench/grammars.py), and ddSMT
# 2.0.6 into bench/.peers/ddsmt.
# Picireny is not installed: it needs an ANTLR grammar per language plus the ANTLR tool jar,
# which its helper downloads from the network at run time (not possible offline here).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
peers="$here/.peers"
mkdir -p "$peers"

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

# exim4-daemon-light: text-exim-config's test (`exim4 -C FILE -bV`) and its input, exim4-base's
# examples/example.conf.
apt_pkgs=(cvise creduce csmith libcsmith-dev clang-14 gcc g++ nodejs npm openjdk-17-jdk-headless golang-go
          libyaml-dev exim4-daemon-light)
missing=()
for p in "${apt_pkgs[@]}"; do
    # A Node.js from elsewhere (NodeSource) brings its own npm and conflicts with Debian's.
    if [ "$p" = npm ] && command -v npm >/dev/null; then continue; fi
    if [ "$p" = nodejs ] && command -v node >/dev/null; then continue; fi
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
    echo "setup: apt-get install ${missing[*]}"
    $SUDO apt-get update -q
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" ||
        echo "setup: WARNING: apt-get could not install ${missing[*]}; cases needing them are skipped"
fi

command -v rustc >/dev/null || echo "setup: WARNING: rustc not found; the rust-* cases will be skipped"

# Shrink Ray needs Python >= 3.12 (on 3.11 pip silently resolves to an unrelated 2023 release).
find_py312() {
    local c
    for c in python3.14 python3.13 python3.12 \
             /root/.pyenv/versions/3.1[2-9]*/bin/python3 "$HOME"/.pyenv/versions/3.1[2-9]*/bin/python3; do
        if "$c" -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; then
            echo "$c"; return 0
        fi
    done
    return 1
}
if [ ! -x "$peers/shrinkray/bin/shrinkray" ]; then
    if py="$(find_py312)"; then
        echo "setup: installing Shrink Ray with $py"
        "$py" -m venv "$peers/shrinkray"
        # Its llama-cpp-python dependency (only for the --llm passes, which the benchmark turns
        # off) compiles llama.cpp from source for many minutes: install everything else.
        "$peers/shrinkray/bin/pip" install -q --no-deps shrinkray
        "$peers/shrinkray/bin/python" - > "$peers/shrinkray-deps.txt" <<'PY'
from importlib.metadata import requires
for r in requires("shrinkray") or []:
    if "extra ==" not in r and not r.startswith("llama-cpp-python"):
        print(r.split(";")[0])
PY
        "$peers/shrinkray/bin/pip" install -q -r "$peers/shrinkray-deps.txt"
    else
        echo "setup: WARNING: no Python >= 3.12 found; Shrink Ray will be skipped"
    fi
fi

# Shrink Ray's tree-sitter grammars: tree-sitter-language-pack 1.x downloads them at run time,
# which fails offline (Shrink Ray then reduces without its syntax-aware passes). Build them from
# the 0.13 sdist's C sources into bench/.peers/tslp-cache; run.py points Shrink Ray there.
if [ -x "$peers/shrinkray/bin/python" ]; then
    if ! python3 "$here/grammars.py"; then
        echo "setup: ERROR: Shrink Ray would still print 'could not download the tree-sitter grammar';" \
             "its runs would be handicapped (see the lines above)" >&2
        exit 1
    fi
fi

# ddSMT (the SMT-LIB reducer, a peer on the smtlib cases) and z3 (their solver): PyPI.
if [ ! -x "$peers/ddsmt/bin/ddsmt" ]; then
    echo "setup: installing ddSMT 2.0.6"
    python3 -m venv "$peers/ddsmt"
    "$peers/ddsmt/bin/pip" install -q ddsmt==2.0.6
fi
command -v z3 >/dev/null || echo "setup: note: z3 is not on PATH; 'make bench' installs z3-solver into .venv (the test extra)"

echo "setup: peers:"
cvise --version 2>/dev/null || echo "  cvise missing"
creduce --version 2>/dev/null || echo "  creduce missing"
"$peers/shrinkray/bin/pip" show shrinkray 2>/dev/null | grep -i '^version' || echo "  shrinkray missing"
"$peers/ddsmt/bin/ddsmt" --version 2>/dev/null || echo "  ddsmt missing"
