#!/bin/sh
# Interesting when the program compiles and then reads through a null pointer, as
# AddressSanitizer reports it ("address points to the zero page"). Asking only for a
# segmentation fault would let the reducer trade the bug for another one: endless
# recursion, `main(){main();}`, dies of a segfault too.
gcc -w -O0 -fsanitize=address -o prog "$1" 2>/dev/null || exit 1
./prog 2>&1 >/dev/null | grep -q 'address points to the zero page'
