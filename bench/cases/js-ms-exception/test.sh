#!/usr/bin/env bash
# Interesting iff require(candidate)('') throws ms's validation Error while ms('2h') still works.
f="$(realpath "${1:-input.js}")"
t="$(mktemp -d)"; trap 'rm -rf "$t"' EXIT
cp "$f" "$t/candidate.js"
cd "$t" && timeout 10 node -e '
const ms = require("./candidate.js");
if (ms("2h") !== 7200000) process.exit(2);
try { ms(""); } catch (e) {
  if (e instanceof Error && e.message.startsWith("val is not a non-empty string or a valid number.")) process.exit(0);
}
process.exit(3);
' >/dev/null 2>&1
