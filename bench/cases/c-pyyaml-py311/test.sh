#!/usr/bin/env bash
# Interesting iff gcc, against this Python's headers, reports that _PyErr_StackItem has no
# member named 'exc_type' (the field Python 3.11 removed) in the candidate.
f="$(realpath "${1:-_yaml.c}")"
t="$(mktemp -d)"; trap 'rm -rf "$t"' EXIT
inc="$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')" || exit 1
LC_ALL=C timeout 20 gcc -fsyntax-only -I"$inc" -I"$inc/cpython" "$f" 2>"$t/err"
[ $? -ne 0 ] || exit 1
grep -q "error: '_PyErr_StackItem' {aka 'struct _err_stackitem'} has no member named 'exc_type'" "$t/err"
