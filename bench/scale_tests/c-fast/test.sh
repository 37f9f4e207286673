#!/usr/bin/env bash
# Interesting iff both trigger lines are still there (two greps: the time goes to the reducer).
# It writes nothing, so it needs no private directory.
f="${1:-input.c}"
grep -qF 'struct trigger_shape {' "$f" && grep -qF 'return s->depth;' "$f"
