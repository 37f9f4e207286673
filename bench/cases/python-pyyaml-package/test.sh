#!/usr/bin/env bash
# Interesting iff `yaml.safe_load("a: 1")`, importing the candidate's yaml package ($1 holds
# yaml/), fails with the AttributeError on collections.Hashable, raised in a module of the
# candidate (the last frame of the traceback is a file under $1).
d="$(realpath "${1:-pyyaml}")"
t="$(mktemp -d)"; trap 'rm -rf "$t"' EXIT
cd "$d" || exit 1
timeout 10 python3 -E -s -B -c 'import yaml; yaml.safe_load("a: 1")' >/dev/null 2>"$t/err"
[ $? -eq 1 ] || exit 1
tail -n 1 "$t/err" | grep -qx "AttributeError: module 'collections' has no attribute 'Hashable'" &&
    grep '^  File "' "$t/err" | tail -n 1 | grep -qF "  File \"$d/"
