#!/usr/bin/env bash
# `make bench` in sittings: the whole benchmark at one engine, cut into chunks (a peer case with
# every tool, one family's case and mode, ...), each committed on the current branch as soon as it
# has run, so that a stop (a session's end, a reboot) loses at most the chunk under way. Run it
# again and it skips every chunk whose commit is on the branch for this engine and goes on.
#
#   bench/sitting.sh                 # every phase, in order
#   bench/sitting.sh peers parallel  # some phases
#   DRY=1 bench/sitting.sh           # print what would run
#   RERUN="c-orders-abort js-qs-package" bench/sitting.sh rerun   # peer cases run again whole
#   RERUN=c-program-asan RERUN_TAG=again bench/sitting.sh rerun   # a case re-run once more (its
#                                    # chunk is "rerun again c-program-asan": a new name)
#   NOISE="c-csmith-checksum" bench/sitting.sh noise   # treereduce-py alone, three runs of a case
#   UNTIL=03:30 bench/sitting.sh     # start no chunk that might not end by 03:30 (today; a chunk
#                                    # is assumed to take up to CHUNK_MAX seconds, default 1500)
#
# Phases: peers (bench/run.py, every case and tool, 300 s, -j 2), parallel, size and overhead
# (bench/scaling.py), sleeping, scale (and 100 MB, and Shrink Ray at 100 KB), presets, spread,
# noise (the spread of treereduce-py alone where its rows vary most), cluster. The engine is
# the `treereduce_py/` and `queries/` trees of HEAD; a chunk's commit names it, and the script
# stops if the working tree's engine differs from HEAD's (commit or stash first: a sitting
# measures one engine). Nothing else of yours should run meanwhile: every tool gets the two
# cores, and the run-to-run figures assume an otherwise idle machine.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
py=.venv/bin/python
engine="$(git rev-parse --short HEAD:treereduce_py)-$(git rev-parse --short HEAD:queries)"
if [ -n "$(git status --porcelain -- treereduce_py queries)" ]; then
    echo "sitting: treereduce_py/ or queries/ has uncommitted changes; a sitting measures one engine" >&2
    exit 2
fi
# Bytecode caches as an installed package has them (some machines set this variable).
unset PYTHONDONTWRITEBYTECODE

# (grep reads all of the log: with -q it would stop at the first match, and git's SIGPIPE would
# fail the pipeline under pipefail.)
done_chunk() { git log --format=%s | grep -xF -- "sitting $engine: $1" >/dev/null; }

chunk() {  # chunk NAME COMMAND...: run COMMAND unless NAME is on the branch, then commit bench/results
    local name="$1"; shift
    if done_chunk "$name"; then echo "sitting: $name: on the branch"; return 0; fi
    if [ -n "${UNTIL:-}" ] && [ $(( $(date +%s) + ${CHUNK_MAX:-1500} )) -gt "$(date -d "$UNTIL" +%s)" ]; then
        echo "sitting: $(date +%H:%M:%S): $name might not end by $UNTIL; stopped before it"
        exit 0
    fi
    echo "== $(date +%H:%M:%S) $name"
    if [ -n "${DRY:-}" ]; then echo "   $*"; return 0; fi
    "$@" || { echo "sitting: $name failed (exit $?); stopped" >&2; exit 1; }
    git add bench/results && git commit -q --allow-empty -m "sitting $engine: $name" &&
        echo "-- $(date +%H:%M:%S) $name committed"
}

# A bench module's list, as words (bench_list MODULE EXPRESSION): each family keeps its own cases.
bench_list() { $py -c "import sys; sys.path.insert(0, 'bench'); import $1; print(' '.join($2))"; }

# One commit stamp for the whole sitting: each chunk commits its results, moving HEAD, but every
# run is stamped with the commit the sitting began on (provenance.sitting_pin), and provenance.py
# stops a run if HEAD no longer measures that commit's code. A BENCH_PIN already set is kept.
if [ -z "${BENCH_PIN:-}" ]; then
    BENCH_PIN="$(bench_list provenance "[provenance.sitting_pin('$engine')]")" ||
        { echo "sitting: no commit to pin" >&2; exit 2; }
fi
export BENCH_PIN

phase_peers() {
    local c
    for c in $(bench_list prepare 'c.name for c in prepare.load_cases()'); do
        chunk "peers $c" $py bench/run.py --cases "$c" --resume --no-report --no-scaling
    done
}

# The peer cases named in RERUN (words), each run again whole: every tool, their stored rows
# replaced (no --resume). For a case something else ran beside; SITTING-NOTES.md says what.
# RERUN_TAG names a further re-run of a case already re-run (its chunk needs a new name).
phase_rerun() {
    local c
    for c in ${RERUN:-}; do
        chunk "rerun${RERUN_TAG:+ $RERUN_TAG} $c" $py bench/run.py --cases "$c" --no-report --no-scaling
    done
}

phase_parallel() {
    local c m cases
    cases=$(bench_list scaling 'scaling.PARALLEL_CASES.split(",")')
    # Builds the inputs (and checks each test) where a chunk needs them; quick once built.
    # shellcheck disable=SC2086
    [ -n "${DRY:-}" ] || $py bench/prepare.py $cases
    for m in default deterministic; do
        for c in $cases; do
            chunk "parallel $c $m" \
                $py bench/scaling.py --only parallel --cases "$c" --modes "$m"
        done
    done
}

phase_size() { chunk "size" $py bench/scaling.py --only size; }

phase_overhead() { chunk "overhead" $py bench/scaling.py --only overhead; }

phase_sleeping() {
    local c m
    for m in default deterministic; do
        for c in $(bench_list sleeping 'sleeping.CASES'); do
            chunk "sleeping $c $m" \
                $py bench/sleeping.py --cases "$c" --modes "$m"
        done
    done
}

phase_scale() {
    local l t
    for l in c js; do
        for t in fast real; do
            chunk "scale $l $t" \
                $py bench/scale.py --langs "$l" --tests "$t" --tools treereduce-py,cvise
        done
    done
    chunk "scale 100m" \
        $py bench/scale.py --sizes 100m --tests fast --tools treereduce-py,cvise
    chunk "scale shrinkray 100k" \
        $py bench/scale.py --sizes 100k --tools shrinkray
}

phase_presets() {
    local c
    # The Makefile's PRESET_CASES, which `make bench-presets` runs.
    for c in $(sed -n 's/^PRESET_CASES = //p' Makefile | tr , ' '); do
        chunk "presets $c" $py bench/run.py --no-scaling --no-report \
            --tools treereduce-py --presets all --cases "$c" --resume
    done
}

phase_spread() {
    local c
    for c in $(bench_list spread 'spread.CASES.split(",")'); do
        chunk "spread $c" \
            $py bench/spread.py --cases "$c"
    done
}

# treereduce-py alone, three runs each (bench/spread.py's rows), on the peer cases where its
# stored rows moved most from one sitting to the next, each run stopped by the limit: how far
# one of its rows there can be from another of the same engine: bench/spread.py's NOISE_CASES
# (NOISE names others).
phase_noise() {
    local c
    for c in ${NOISE:-$(bench_list spread 'spread.NOISE_CASES.split(",")')}; do
        chunk "noise $c" $py bench/spread.py --cases "$c" --tools treereduce-py
    done
}

phase_cluster() { chunk "cluster" $py bench/cluster.py; }

phases=("$@")
[ "${#phases[@]}" -gt 0 ] || phases=(peers parallel size overhead sleeping scale presets spread noise cluster)
for p in "${phases[@]}"; do
    declare -F "phase_$p" >/dev/null || { echo "sitting: unknown phase '$p'" >&2; exit 2; }
done
echo "sitting: engine $engine (runs stamped $BENCH_PIN), phases ${phases[*]}"
for p in "${phases[@]}"; do "phase_$p"; done
echo "sitting: done $(date +%H:%M:%S); render with $py bench/report.py"
