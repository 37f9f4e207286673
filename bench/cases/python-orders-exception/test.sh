#!/usr/bin/env bash
# Interesting iff the program dies with the ValueError of order 1 raised in check_quantity from a rule.
f="$(realpath "${1:-input.py}")"
t="$(mktemp -d)"; trap 'rm -rf "$t"' EXIT
cd "$t" || exit 1
timeout 10 python3 -I "$f" >/dev/null 2>"$t/err"
[ $? -eq 1 ] || exit 1
tail -n 1 "$t/err" | grep -qx "ValueError: invalid quantity -143 for order 1" \
    && grep -q ", in check_quantity" "$t/err" && grep -qE ", in rule_[0-9]+$" "$t/err"
