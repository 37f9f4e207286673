#!/usr/bin/env bash
# Interesting iff node dies reading .toFixed of the undefined TriggerShape().depth.
f="$(realpath "${1:-input.js}")"
t="$(mktemp -d)"; trap 'rm -rf "$t"' EXIT
cp "$f" "$t/candidate.js"
cd "$t" && timeout 60 node candidate.js >/dev/null 2>"$t/err"
[ $? -eq 1 ] || exit 1
grep -q "^TypeError: Cannot read properties of undefined (reading 'toFixed')$" "$t/err"
