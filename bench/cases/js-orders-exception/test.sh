#!/usr/bin/env bash
# Interesting iff node dies with the RangeError of order 1 thrown in checkQuantity from a rule.
f="$(realpath "${1:-input.js}")"
t="$(mktemp -d)"; trap 'rm -rf "$t"' EXIT
cp "$f" "$t/candidate.js"
cd "$t" && timeout 10 node candidate.js >/dev/null 2>"$t/err"
[ $? -eq 1 ] || exit 1
grep -q '^RangeError: invalid quantity -143 for order 1$' "$t/err" \
    && grep -qE '^ +at checkQuantity ' "$t/err" && grep -qE '^ +at rule[0-9]+ ' "$t/err"
