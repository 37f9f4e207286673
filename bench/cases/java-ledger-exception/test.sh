#!/usr/bin/env bash
# Interesting iff running the program throws ArithmeticException: / by zero inside some Rule*.apply.
f="$(realpath "${1:-input.java}")"
t="$(mktemp -d)"; trap 'rm -rf "$t"' EXIT
cp "$f" "$t/Main.java"
cd "$t" && timeout 30 java -XX:TieredStopAtLevel=1 -Xshare:auto Main.java >/dev/null 2>"$t/err"
[ $? -eq 1 ] || exit 1
grep -q 'Exception in thread "main" java.lang.ArithmeticException: / by zero' "$t/err" \
    && grep -qE '^\s+at Rule[0-9]+\.apply' "$t/err"
