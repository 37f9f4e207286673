#!/usr/bin/env bash
# Interesting iff z3 still reports the planted sort error (an ite of a bit-vector and a Bool).
f="$(realpath "${1:-input.smt2}")"
timeout 10 z3 "$f" 2>&1 | grep -q 'Sorts (_ BitVec 16) and Bool are incompatible'
