#!/usr/bin/env bash
# Interesting iff rustc, compiling the crate from its src/main.rs (the mod files it names),
# panics (exit 101) with the 'fully_perform' delayed-bug ICE. $1 is the crate's directory.
d="$(realpath "${1:-crate}")"
t="$(mktemp -d)"; trap 'rm -rf "$t"' EXIT
cd "$t" || exit 1
timeout 30 rustc --edition 2021 --crate-type bin -o "$t/out" "$d/src/main.rs" >/dev/null 2>"$t/err"
[ $? -eq 101 ] && grep -q "internal compiler error: error performing operation: fully_perform" "$t/err"
