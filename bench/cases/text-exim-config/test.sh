#!/usr/bin/env bash
# Interesting iff Exim still refuses the configuration for the misspelt router option.
f="$(realpath "${1:-exim.conf}")"
timeout 10 exim4 -C "$f" -bV 2>&1 >/dev/null | grep -q 'option "check_ancestors" unknown'
