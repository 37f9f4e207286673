#!/usr/bin/env bash
# Interesting iff the program compiles and aborts after reporting order 1's invalid quantity.
f="$(realpath "${1:-input.c}")"
t="$(mktemp -d)"; trap 'rm -rf "$t"' EXIT
gcc -O0 -w "$f" -o "$t/a.out" -lm >/dev/null 2>&1 || exit 1
(cd "$t" && timeout 5 ./a.out >/dev/null 2>"$t/err")
[ $? -eq 134 ] && grep -qx 'invalid quantity -121 for order 1' "$t/err"
