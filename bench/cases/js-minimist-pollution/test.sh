#!/usr/bin/env bash
# Interesting iff the candidate still parses `-x 3 --name=bob rest` as minimist does and parsing
# `--__proto__.polluted yes` sets Object.prototype.polluted.
f="$(realpath "${1:-input.js}")"
t="$(mktemp -d)"; trap 'rm -rf "$t"' EXIT
cp "$f" "$t/candidate.js"
out="$(cd "$t" && timeout 10 node -e '
const parse = require("./candidate.js");
const args = parse(["-x", "3", "--name=bob", "rest"]);
parse(["--__proto__.polluted", "yes"]);
process.stdout.write(JSON.stringify(args) + " " + ({}).polluted);
' 2>/dev/null)" || exit 1
[ "$out" = '{"_":["rest"],"x":3,"name":"bob"} yes' ]
