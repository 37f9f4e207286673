#!/bin/sh
# Interesting when running the package ($1, a copy of shop/) still dies of the report's
# ZeroDivisionError in pricing.average (a category where nothing sold: the umbrellas).
cd "$(dirname "$1")" || exit 2
err=$(python3 -S -B -m "$(basename "$1")" 2>&1 >/dev/null)
case $err in *ZeroDivisionError*"in average"* | *"in average"*ZeroDivisionError*) exit 0 ;; esac
exit 1
