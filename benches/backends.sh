#!/usr/bin/env bash
# Compares the two backends of --kernel par (rayon, pipes) in one run:
# ROUNDS alternating runs of the benchmark each (64 validated searches), then
# the ratio of their median harmonic-mean TEPS. Alternating spreads the
# machine's noise over both.
#
# Usage: benches/backends.sh [SCALE] [ROUNDS]     (defaults: 18 5)
set -euo pipefail
cd "$(dirname "$0")/.."
source benches/common.sh
scale=${1:-18}
rounds=${2:-5}
cargo build --release --quiet
bin=target/release/graph500

teps() {
  "$bin" --scale "$scale" --keys 64 --kernel par --backend "$1" --quiet |
    awk -F': +' '$1 == "bfs  harmonic_mean_TEPS" { v = $NF; gsub(/[! ]/, "", v); print v }'
}

rayon=() pipes=()
for ((r = 1; r <= rounds; r++)); do
  rayon+=("$(teps rayon)")
  pipes+=("$(teps pipes)")
  echo "round $r: rayon ${rayon[-1]}  pipes ${pipes[-1]}"
done
mr=$(median "${rayon[@]}")
mp=$(median "${pipes[@]}")
echo "SCALE $scale, $(nproc) threads, $rounds rounds: median harmonic-mean TEPS rayon $mr, pipes $mp," \
     "pipes/rayon $(awk -v p="$mp" -v r="$mr" 'BEGIN { printf "%.3f", p / r }')"
