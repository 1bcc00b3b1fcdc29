#!/usr/bin/env bash
# Kernel 3 beside GAPBS's sssp, in one alternating run on one machine.
# Each round runs, in this order:
#
#   1. for each delta D in DELTAS: `graph500 --scale S --keys K --sssp
#      --delta D --threads T --json`: the mean SSSP time and validation,
#      kernel 1; the SSSP time as Graph500 times it (the reset of the
#      distances before each search untimed), and the mean of search plus
#      reset from the JSON rows, like for like with GAPBS, whose timed trial
#      allocates and initialises its distance array;
#   2. with GAPBS=path/to/gapbs (built there with `make`):
#      `OMP_NUM_THREADS=T sssp -g S -n K`,
#      its "Average Time" (integer weights 1..255, its default delta);
#   3. with REF=path/to/graph500_reference_bfs_sssp (the Graph500 reference,
#      branch newreference, built outside this repository, see docs/results.md):
#      `SKIP_VALIDATION=1 SKIP_BFS=1 mpirun -np $(nproc) $REF S`, its SSSP
#      harmonic-mean TEPS and mean time (64 roots: give KEYS 64 to compare
#      like with like). Issue 33 times the reference without its validation
#      (its own switches, read from the environment of every rank); with it,
#      a round at SCALE 20 takes several minutes.
#
# Then the median of each figure over the rounds, and each delta's mean
# SSSP time as a ratio to GAPBS's (issue 33's target: at most 0.4; with
# and without our reset), its
# validation as a ratio to its search (at most 1.5), and its SSSP
# harmonic-mean TEPS as a ratio to the reference's (at least 12).
#
# T is THREADS, all of the machine's by default; the reference always runs
# $(nproc) ranks of one thread.
#
# Usage: [THREADS=T] [GAPBS=/tmp/gapbs] [REF=/tmp/g500ref/src/graph500_reference_bfs_sssp] \
#        [DELTAS="0.015625 0.03125 0.0625"] \
#        benches/sssp_side_by_side.sh [SCALE] [ROUNDS] [KEYS]   (defaults: 20 3 16)
set -euo pipefail
cd "$(dirname "$0")/.."
source benches/common.sh
scale=${1:-20}
rounds=${2:-3}
keys=${3:-16}
deltas=${DELTAS:-0.015625 0.03125 0.0625}
gapbs=${GAPBS:-}
ref=${REF:-}
threads=${THREADS:-$(nproc)}
[[ -z $gapbs || -x $gapbs/sssp ]] || { echo "sssp_side_by_side.sh: no $gapbs/sssp" >&2; exit 2; }
[[ -z $ref || -x $ref ]] || { echo "sssp_side_by_side.sh: REF=$ref is not an executable" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cargo build --release --locked -q
bin=target/release/graph500
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
for ((r = 1; r <= rounds; r++)); do
    for d in $deltas; do
        "$bin" --scale "$scale" --keys "$keys" --sssp --delta "$d" --threads "$threads" --quiet --json "$tmp/r.json" >/dev/null
        add "sssp$d" "$(field "$tmp/r.json" "d['statistics']['sssp']['time']['mean']")"
        add "valid$d" "$(field "$tmp/r.json" "d['statistics']['sssp']['validate']['mean']")"
        add "k1$d" "$(field "$tmp/r.json" "d['statistics']['construction_time']")"
        add "teps$d" "$(field "$tmp/r.json" "d['statistics']['sssp']['teps']['harmonic_mean']")"
        add "reset$d" "$(field "$tmp/r.json" "sum(s['time'] + s['reset_time'] for s in d['sssp_searches']) / len(d['sssp_searches'])")"
    done
    if [[ -n $gapbs ]]; then
        add gapbs "$(OMP_NUM_THREADS=$threads "$gapbs/sssp" -g "$scale" -n "$keys" | awk '/Average Time/ { print $3 }')"
    fi
    if [[ -n $ref ]]; then
        (cd "$tmp" && SKIP_VALIDATION=1 SKIP_BFS=1 mpirun -np "$(nproc)" --oversubscribe \
            -x SKIP_VALIDATION -x SKIP_BFS "$ref" "$scale" >"$tmp/ref.out" 2>&1)
        add ref_teps "$(awk -F': +' '$1 == "sssp harmonic_mean_TEPS" { print $NF }' "$tmp/ref.out" | tr -d '! ')"
        add ref_time "$(awk -F': +' '$1 == "sssp mean_time" { print $NF }' "$tmp/ref.out")"
    fi
done
echo "SCALE $scale, $keys keys, $threads threads, medians of $rounds alternating rounds; $(cpu_model)"
echo
g3() { awk -v x="$1" 'BEGIN { printf "%.3g", x }'; }
echo "| delta | mean SSSP (s) | / GAPBS | with reset (s) | / GAPBS, like for like | mean validation (s) | / search | kernel 1 (s) | SSSP TEPS (hm) | / reference |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for d in $deltas; do
    s=$(printf %.4f "$(m "sssp$d")"); v=$(printf %.4f "$(m "valid$d")")
    w=$(printf %.4f "$(m "reset$d")")
    g=$([[ -n $gapbs ]] && ratio "$s" "$(m gapbs)" || echo "-")
    gw=$([[ -n $gapbs ]] && ratio "$w" "$(m gapbs)" || echo "-")
    r=$([[ -n $ref ]] && ratio "$(m "teps$d")" "$(m ref_teps)" || echo "-")
    echo "| $d | $s | $g | $w | $gw | $v | $(ratio "$v" "$s") | $(printf %.3f "$(m "k1$d")") | $(g3 "$(m "teps$d")") | $r |"
done
[[ -z $gapbs ]] || echo "| GAPBS | $(m gapbs) | 1.00 | | 1.00 | | | | | |"
[[ -z $ref ]] || echo "| reference, $(nproc) ranks | $(m ref_time) | | | | | | | $(g3 "$(m ref_teps)") | 1.00 |"
