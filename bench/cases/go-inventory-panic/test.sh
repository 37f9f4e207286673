#!/usr/bin/env bash
# Interesting iff go run panics with index out of range [9] with length 9 inside a restock* function.
f="$(realpath "${1:-input.go}")"
t="$(mktemp -d)"; trap 'rm -rf "$t"' EXIT
cp "$f" "$t/main.go"
cd "$t" && GOFLAGS=-mod=mod GO111MODULE=off timeout 30 go run main.go >/dev/null 2>"$t/err"
grep -q 'panic: runtime error: index out of range \[9\] with length 9' "$t/err" \
    && grep -qE '^main\.restock[0-9]+\(' "$t/err"
