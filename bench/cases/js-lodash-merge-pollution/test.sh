#!/usr/bin/env bash
# Interesting iff the candidate's export still deep-merges two objects and merging a parsed
# {"__proto__": {"polluted": "yes"}} into {} sets Object.prototype.polluted.
f="$(realpath "${1:-input.js}")"
t="$(mktemp -d)"; trap 'rm -rf "$t"' EXIT
cp "$f" "$t/candidate.js"
out="$(cd "$t" && timeout 10 node -e '
const merge = require("./candidate.js");
const deep = merge({ a: { c: 2 } }, { a: { b: 1 } });
merge({}, JSON.parse("{\"__proto__\":{\"polluted\":\"yes\"}}"));
process.stdout.write(JSON.stringify(deep) + " " + ({}).polluted);
' 2>/dev/null)" || exit 1
[ "$out" = '{"a":{"c":2,"b":1}} yes' ]
