#!/usr/bin/env bash
# Interesting iff z3 still answers unsat and still needs at least 300 conflicts (z3 -st).
f="$(realpath "${1:-input.smt2}")"
out="$(timeout 10 z3 -st "$f" 2>&1)" || true
[ "$(printf '%s\n' "$out" | head -n 1)" = unsat ] || exit 1
n="$(printf '%s\n' "$out" | sed -n 's/^ *:\(sat-\)\{0,1\}conflicts *\([0-9]*\).*/\2/p' | head -n 1)"
[ -n "$n" ] && [ "$n" -ge 300 ]
