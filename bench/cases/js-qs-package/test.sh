#!/usr/bin/env bash
# Interesting iff the package ($1, required through its package.json) still parses a nested
# query string as qs does and still lets a plain value overwrite a prototype property:
# qs.parse('a[b]=c&a=hasOwnProperty') gives a.hasOwnProperty === true.
d="$(realpath "${1:-qs}")"
t="$(mktemp -d)"; trap 'rm -rf "$t"' EXIT
out="$(cd "$t" && QS_DIR="$d" timeout 10 node -e '
const qs = require(process.env.QS_DIR);
const nested = JSON.stringify(qs.parse("x[y][]=1&x[y][]=2&z=3"));
const bypass = qs.parse("a[b]=c&a=hasOwnProperty");
process.stdout.write(nested + " " + JSON.stringify(bypass) + " " + (bypass.a.hasOwnProperty === true));
' 2>/dev/null)" || exit 1
[ "$out" = '{"x":{"y":["1","2"]},"z":"3"} {"a":{"b":"c","hasOwnProperty":true}} true' ]
