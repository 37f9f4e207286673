#!/usr/bin/env bash
# Interesting iff the program ($1: its .c and .h files and input.txt), built from all its .c
# files with AddressSanitizer, still writes one byte past a heap buffer in buf_cstr when run on
# its input.txt.
d="$(realpath "${1:-prog}")"
t="$(mktemp -d)"; trap 'rm -rf "$t"' EXIT
cd "$t" || exit 1
shopt -s nullglob
srcs=("$d"/*.c)
[ ${#srcs[@]} -gt 0 ] || exit 1
timeout 30 gcc -std=gnu11 -g -O0 -fsanitize=address -fno-omit-frame-pointer -I"$d" -o "$t/prog" \
    "${srcs[@]}" >/dev/null 2>&1 || exit 1
ASAN_OPTIONS=detect_leaks=0 timeout 10 "$t/prog" "$d/input.txt" >/dev/null 2>"$t/err"
grep -q "ERROR: AddressSanitizer: heap-buffer-overflow" "$t/err" &&
    grep -q "WRITE of size 1" "$t/err" &&
    grep -q "#0 0x[0-9a-f]* in buf_cstr" "$t/err"
