#!/usr/bin/env bash
# Compares the two backends (rayon, pipes) on every kernel in one run:
# ROUNDS alternating rounds; each round, for each SCALE and thread count T,
# runs both backends (which goes first swaps every round), each time
#
#   graph500 --scale S --keys K --threads T --backend B --kernel dobfs --sssp
#       kernel 1 with weights (construction_time), dobfs (mean BFS time),
#       kernel 3 (mean SSSP time);
#   graph500 --scale S --keys K --threads T --backend B --kernel par
#       kernel 1 (construction_time), par (mean BFS time).
#
# Then, per kernel, SCALE and T, the median of each backend's seconds and
# their ratio pipes/rayon (above 1: pipes slower). Alternating spreads the
# machine's noise over both. Every search is validated unless VALIDATE=0
# (validation is outside the times compared, but takes most of a run).
#
# Usage: [VALIDATE=0] benches/backends.sh [SCALES] [THREADS] [ROUNDS] [KEYS]
#        (defaults: "18" "$(nproc)" 5 64)
# The backends table of docs/results.md: benches/backends.sh "18 20 22" "1 2" 5
set -euo pipefail
cd "$(dirname "$0")/.."
source benches/common.sh
scales=${1:-18}
threads=${2:-$(nproc)}
rounds=${3:-5}
keys=${4:-64}
validate=()
[[ ${VALIDATE:-1} == 0 ]] && validate=(--no-validate)
cargo build --release --locked --quiet
bin=target/release/graph500
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# run S T B: both runs of backend B, their figures added to the columns.
run() {
  local s=$1 t=$2 b=$3 at="$1/$2/$3"
  "$bin" --scale "$s" --keys "$keys" --threads "$t" --backend "$b" --kernel dobfs --sssp \
    "${validate[@]}" --quiet --json "$tmp/d.json" >/dev/null
  add "kernel 1 (weighted)/$at" "$(field "$tmp/d.json" "d['statistics']['construction_time']")"
  add "dobfs/$at" "$(field "$tmp/d.json" "d['statistics']['bfs']['time']['mean']")"
  add "sssp/$at" "$(field "$tmp/d.json" "d['statistics']['sssp']['time']['mean']")"
  "$bin" --scale "$s" --keys "$keys" --threads "$t" --backend "$b" --kernel par \
    "${validate[@]}" --quiet --json "$tmp/p.json" >/dev/null
  add "kernel 1/$at" "$(field "$tmp/p.json" "d['statistics']['construction_time']")"
  add "par/$at" "$(field "$tmp/p.json" "d['statistics']['bfs']['time']['mean']")"
}

for ((r = 1; r <= rounds; r++)); do
  order=(rayon pipes)
  ((r % 2 == 0)) && order=(pipes rayon)
  for s in $scales; do
    for t in $threads; do
      for b in "${order[@]}"; do run "$s" "$t" "$b"; done
      echo "round $r: SCALE $s, $t threads done" >&2
    done
  done
done

echo "$keys keys a run, medians of $rounds alternating rounds; $(cpu_model)"
echo
echo "| kernel | SCALE | threads | rayon (s) | pipes (s) | pipes/rayon |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
for k in "kernel 1" "kernel 1 (weighted)" par dobfs sssp; do
  for s in $scales; do
    for t in $threads; do
      mr=$(m "$k/$s/$t/rayon")
      mp=$(m "$k/$s/$t/pipes")
      printf '| %s | %s | %s | %.4g | %.4g | %s |\n' "$k" "$s" "$t" "$mr" "$mp" \
        "$(awk -v p="$mp" -v r="$mr" 'BEGIN { printf "%.3f", p / r }')"
    done
  done
done
