#!/usr/bin/env bash
# Interesting iff require(candidate).chunk splits ['a','b','c','d','e'] by 2 as lodash does.
f="$(realpath "${1:-input.js}")"
t="$(mktemp -d)"; trap 'rm -rf "$t"' EXIT
cp "$f" "$t/candidate.js"
out="$(cd "$t" && timeout 10 node -e '
const _ = require("./candidate.js");
process.stdout.write(JSON.stringify(_.chunk(["a", "b", "c", "d", "e"], 2)));
' 2>/dev/null)" || exit 1
[ "$out" = '[["a","b"],["c","d"],["e"]]' ]
