#!/usr/bin/env bash
# graph500 beside GAPBS (and, optionally, an older graph500 binary), in one
# alternating run on one machine: the only way to compare on shared, noisy
# machines. Each round runs, in this order:
#
#   1. `graph500 --scale S --keys 64 --threads T`: the whole benchmark, its
#      wall time, kernel 1 (`construction_time`) and mean validation;
#   2. `graph500 ... --no-validate --csv F`: 64 searches back to back, as
#      GAPBS's trials run: the mean search time as Graph500 times it (the
#      statistics block's `mean_time`; the reset of the parents before each
#      search untimed, as the reference's `clean_pred`), and the mean of
#      search plus reset from the CSV rows, like for like with GAPBS, whose
#      timed trial allocates and initialises its parent array;
#   3. `OMP_NUM_THREADS=T $GAPBS/bfs -g S -n 64`: "Build Time" and
#      "Average Time";
#   4. with BASE=path/to/old/graph500: step 1 with that binary (wall time).
#
# Then the median of each figure over the rounds, and the ratios the issue
# targets. GAPBS's graph is its own Kronecker graph of the same SCALE and
# edgefactor 16, so times compare directly (TEPS ratio = time ratio).
#
# GAPBS is not part of this repository: build it outside, e.g.
#   git clone https://github.com/sbeamer/gapbs /tmp/gapbs && make -C /tmp/gapbs bfs
#
# Usage: [GAPBS=/tmp/gapbs] [BASE=/tmp/base/target/release/graph500] \
#        benches/side_by_side.sh [SCALE] [ROUNDS] [THREADS]   (defaults: 20 5 all)
set -euo pipefail
cd "$(dirname "$0")/.."
source benches/common.sh
scale=${1:-20}
rounds=${2:-5}
threads=${3:-$(nproc)}
gapbs=${GAPBS:-/tmp/gapbs}
base=${BASE:-}
[[ -x $gapbs/bfs ]] || { echo "side_by_side.sh: no GAPBS bfs at $gapbs/bfs (set GAPBS; see the header)" >&2; exit 2; }
[[ -z $base || -x $base ]] || { echo "side_by_side.sh: BASE=$base is not an executable" >&2; exit 2; }
cargo build --release --quiet --locked
bin=target/release/graph500
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# field FILE LABEL: the value of a `label: value` line of an output block.
field() { awk -F': +' -v l="$2" '$1 == l { print $NF }' "$1"; }
# wall COMMAND...: runs it with stdout to $tmp/out; prints its wall seconds.
wall() {
  /usr/bin/time -f %e -o "$tmp/time" "$@" >"$tmp/out"
  cat "$tmp/time"
}

for ((r = 1; r <= rounds; r++)); do
  add wall "$(wall "$bin" --scale "$scale" --keys 64 --threads "$threads" --quiet)"
  add k1 "$(field "$tmp/out" construction_time)"
  add validate "$(field "$tmp/out" 'bfs  mean_validate')"
  add search_v "$(field "$tmp/out" 'bfs  mean_time')"
  "$bin" --scale "$scale" --keys 64 --threads "$threads" --quiet --no-validate --csv "$tmp/csv" >"$tmp/out"
  add search "$(field "$tmp/out" 'bfs  mean_time')"
  add search_reset "$(awk -F, 'NR > 1 { s += $3 + $4; n++ } END { printf "%.9f", s / n }' "$tmp/csv")"
  OMP_NUM_THREADS=$threads "$gapbs/bfs" -g "$scale" -n 64 >"$tmp/out"
  add gapbs_build "$(field "$tmp/out" 'Build Time')"
  add gapbs_search "$(field "$tmp/out" 'Average Time')"
  if [[ -n $base ]]; then
    add base_wall "$(wall "$base" --scale "$scale" --keys 64 --threads "$threads" --quiet)"
  fi
done

ms() { awk -v s="$1" 'BEGIN { printf "%.2f", s * 1000 }'; }

echo "SCALE $scale, $threads threads, medians of $rounds alternating rounds; $(cpu_model)"
echo
echo "| figure | graph500 | compared with | ratio |"
echo "| --- | ---: | ---: | ---: |"
echo "| kernel 1 / GAPBS build (s); ratio GAPBS / ours | $(m k1) | $(m gapbs_build) | $(ratio "$(m gapbs_build)" "$(m k1)") |"
echo "| search, no validation / GAPBS (ms); ratio GAPBS / ours | $(ms "$(m search)") | $(ms "$(m gapbs_search)") | $(ratio "$(m gapbs_search)" "$(m search)") |"
echo "| search with its reset / GAPBS (ms); ratio GAPBS / ours, like for like | $(ms "$(m search_reset)") | $(ms "$(m gapbs_search)") | $(ratio "$(m gapbs_search)" "$(m search_reset)") |"
echo "| validation / search, validated run (ms); ratio validation / search | $(ms "$(m validate)") | $(ms "$(m search_v)") | $(ratio "$(m validate)" "$(m search_v)") |"
if [[ -n $base ]]; then
  echo "| whole run / BASE wall (s); ratio BASE / ours | $(m wall) | $(m base_wall) | $(ratio "$(m base_wall)" "$(m wall)") |"
else
  echo "| whole run wall (s) | $(m wall) | | |"
fi
