#!/usr/bin/env bash
# Interesting iff rustc panics (exit 101) with the 'fully_perform' delayed-bug ICE.
f="$(realpath "${1:-input.rs}")"
t="$(mktemp -d)"; trap 'rm -rf "$t"' EXIT
cd "$t" || exit 1
timeout 30 rustc --edition 2021 --crate-type bin -o "$t/out" "$f" >/dev/null 2>"$t/err"
[ $? -eq 101 ] && grep -q "internal compiler error: error performing operation: fully_perform" "$t/err"
