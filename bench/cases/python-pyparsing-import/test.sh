#!/usr/bin/env bash
# Interesting iff `import pyparsing` of the candidate fails with the AttributeError on
# collections.MutableMapping, raised at import time from the candidate module itself.
f="$(realpath "${1:-pyparsing.py}")"
t="$(mktemp -d)"; trap 'rm -rf "$t"' EXIT
cp "$f" "$t/pyparsing.py"
cd "$t" || exit 1
timeout 10 python3 -E -s -c 'import pyparsing' >/dev/null 2>"$t/err"
[ $? -eq 1 ] || exit 1
tail -n 1 "$t/err" | grep -qx "AttributeError: module 'collections' has no attribute 'MutableMapping'" &&
    grep -q 'File ".*/pyparsing.py", line [0-9]*, in <module>' "$t/err"
