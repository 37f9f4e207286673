#!/usr/bin/env bash
# Interesting iff two z3 configurations disagree: the default one answers unsat, the one with a
# resource limit of 400000 does not (it gives up: unknown), like a regression between versions.
f="$(realpath "${1:-input.smt2}")"
[ "$(timeout 10 z3 "$f" 2>&1 | head -n 1)" = unsat ] || exit 1
[ "$(timeout 10 z3 rlimit=400000 "$f" 2>&1 | head -n 1)" = unknown ]
