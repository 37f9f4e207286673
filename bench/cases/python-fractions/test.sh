#!/usr/bin/env bash
# Interesting iff the program dies with ZeroDivisionError: Fraction(1, 0) raised in a Fraction method.
f="$(realpath "${1:-input.py}")"
t="$(mktemp -d)"; trap 'rm -rf "$t"' EXIT
cd "$t" || exit 1
timeout 10 python3 -I "$f" >/dev/null 2>"$t/err"
[ $? -eq 1 ] || exit 1
tail -n 1 "$t/err" | grep -qx "ZeroDivisionError: Fraction(1, 0)" && grep -q ", in __new__" "$t/err"
