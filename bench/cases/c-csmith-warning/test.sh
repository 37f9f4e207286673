#!/usr/bin/env bash
# Interesting iff gcc compiles the candidate and warns with -Wtautological-compare.
f="$(realpath "${1:-input.c}")"
t="$(mktemp -d)"; trap 'rm -rf "$t"' EXIT
LC_ALL=C gcc -O2 -Wall -Wextra -I/usr/include/csmith -c "$f" -o "$t/a.o" 2>"$t/err" || exit 1
grep -q -- '-Wtautological-compare' "$t/err"
