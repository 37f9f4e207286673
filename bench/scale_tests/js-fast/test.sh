#!/usr/bin/env bash
# Interesting iff both trigger lines are still there (two greps: the time goes to the reducer).
# It writes nothing, so it needs no private directory.
f="${1:-input.js}"
grep -qF 'class TriggerShape {' "$f" && grep -qF 'new TriggerShape().depth.toFixed(2);' "$f"
