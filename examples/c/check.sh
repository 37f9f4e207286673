#!/bin/sh
# Interesting when the program compiles and then dies of a segmentation fault (signal 11).
gcc -w -O0 -o prog "$1" 2>/dev/null || exit 1
./prog >/dev/null 2>&1
test $? -eq 139
