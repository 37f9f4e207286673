#!/usr/bin/env bash
# Interesting iff gcc -fsyntax-only still reports that struct trigger_shape has no member 'depth'.
f="$(realpath "${1:-input.c}")"
t="$(mktemp -d)"; trap 'rm -rf "$t"' EXIT
LC_ALL=C timeout 60 gcc -fsyntax-only -w "$f" 2>"$t/err"
grep -qF "error: 'struct trigger_shape' has no member named 'depth'" "$t/err"
