#!/usr/bin/env bash
# Interesting iff gcc -O0 compiles the candidate and the program prints csmith seed 1's checksum.
f="$(realpath "${1:-input.c}")"
t="$(mktemp -d)"; trap 'rm -rf "$t"' EXIT
gcc -O0 -w -I/usr/include/csmith "$f" -o "$t/a.out" >/dev/null 2>&1 || exit 1
out="$(cd "$t" && timeout 5 ./a.out 2>/dev/null)" || exit 1
[ "$out" = "checksum = F7B2B1F4" ]
