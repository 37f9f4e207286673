#!/usr/bin/env bash
# Interesting iff g++ reports no operator< for two Points.
f="$(realpath "${1:-input.cpp}")"
LC_ALL=C g++ -std=c++17 -fsyntax-only -w -x c++ "$f" 2>&1 \
    | grep -q "no match for 'operator<' (operand types are 'Point' and 'Point')"
