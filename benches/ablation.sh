#!/usr/bin/env bash
# The effect of each optimisation of the dobfs kernel, measured in one run:
# ROUNDS alternating rounds of the benchmark (64 searches, no validation, so
# searches run back to back as in GAPBS's trials) for each variant, then the
# median of each variant's mean search time and its ratio to full dobfs.
#
# Usage: benches/ablation.sh [SCALE] [ROUNDS] [THREADS]   (defaults: 20 5 all)
set -euo pipefail
cd "$(dirname "$0")/.."
source benches/common.sh
scale=${1:-20}
rounds=${2:-5}
threads=${3:-$(nproc)}
cargo build --release --quiet
bin=target/release/graph500

names=("dobfs (alpha 15, beta 72)" "dobfs, no hub tests" "dobfs, scan every vertex" "dobfs, alpha 4 (switch later)"
       "dobfs, alpha 60 (switch sooner)" "dobfs, beta 18 (Beamer's: back top-down sooner)" "par (top-down only)")
flags=("--kernel dobfs" "--kernel dobfs --dobfs-no-hubs" "--kernel dobfs --dobfs-scan-all" "--kernel dobfs --alpha 4"
       "--kernel dobfs --alpha 60" "--kernel dobfs --beta 18" "--kernel par")

mean_time() {
  # shellcheck disable=SC2086 # flags are words on purpose
  "$bin" --scale "$scale" --keys 64 --threads "$threads" --no-validate --quiet $1 |
    awk -F': +' '$1 == "bfs  mean_time" { print $2 }'
}

declare -A times
for ((r = 1; r <= rounds; r++)); do
  for i in "${!names[@]}"; do
    times[$i]+="$(mean_time "${flags[$i]}") "
  done
done
echo "SCALE $scale, $threads threads, median of $rounds rounds of 64 searches (no validation):"
echo
echo "| variant | flags | mean search (ms) | time / dobfs |"
echo "| --- | --- | ---: | ---: |"
# shellcheck disable=SC2086 # word splitting of the collected times
base=$(median ${times[0]})
for i in "${!names[@]}"; do
  # shellcheck disable=SC2086
  m=$(median ${times[$i]})
  awk -v n="${names[$i]}" -v f="${flags[$i]}" -v m="$m" -v b="$base" \
    'BEGIN { printf "| %s | `%s` | %.2f | %.2f |\n", n, f, m * 1000, m / b }'
done
