#!/usr/bin/env bash
# graph500 over MPI ranks beside itself in one process and (optionally)
# beside the Graph500 reference code, in one alternating run on one
# machine. Each round runs, in this order:
#
#   1. `mpirun -np RANKS graph500 --scale S --keys 64 --threads 1 --json`:
#      the distributed run (harmonic-mean TEPS, kernel 1, mean search and
#      validation, each rank's peak memory);
#   2. `graph500 --scale S --keys 64 --threads RANKS --json`: one process on
#      the same cores (peak memory from the same JSON);
#   3. with REF=path/to/graph500_reference_bfs:
#      `SKIP_VALIDATION=1 mpirun -np RANKS $REF S` (its validation is not
#      part of its TEPS and would take minutes a round);
#   4. with REF_SSSP=path/to/graph500_reference_bfs_sssp, the distributed
#      run of 1. also runs kernel 3 (`--sssp`), and
#      `SKIP_VALIDATION=1 mpirun -np RANKS $REF_SSSP S` (whose BFS row
#      stands in for REF's when REF is not given).
#
# The reference runs every round, as `sssp_side_by_side.sh` runs it, so
# that its figures are medians too: one run of it moved by a quarter from
# one script run to the next (docs/results.md, over MPI ranks).
#
# Then the median of each figure over the rounds and the ratios to the
# targets of docs/results.md. The binary is built with `--features mpi`, which needs the
# system's MPI (Debian: libopenmpi-dev openmpi-bin libclang-dev pkgconf).
# The reference is not part of this repository: build it outside, e.g.
#   git clone -b newreference https://github.com/graph500/graph500 /tmp/g500ref
#   make -C /tmp/g500ref/src CFLAGS="-O3 -fcommon ..."   (see docs/results.md)
#
# Usage: [REF=/tmp/g500ref/src/graph500_reference_bfs] \
#        [REF_SSSP=/tmp/g500ref/src/graph500_reference_bfs_sssp] \
#        benches/mpi_side_by_side.sh [SCALE] [ROUNDS] [RANKS]   (defaults: 20 3 2)
set -euo pipefail
cd "$(dirname "$0")/.."
source benches/common.sh
scale=${1:-20}
rounds=${2:-3}
ranks=${3:-2}
ref=${REF:-}
ref_sssp=${REF_SSSP:-}
[[ -z $ref || -x $ref ]] || { echo "mpi_side_by_side.sh: REF=$ref is not an executable" >&2; exit 2; }
[[ -z $ref_sssp || -x $ref_sssp ]] || { echo "mpi_side_by_side.sh: REF_SSSP=$ref_sssp is not an executable" >&2; exit 2; }
sssp=()
[[ -z $ref_sssp ]] || sssp=(--sssp)
cargo build --release --quiet --locked --features mpi
bin=target/release/graph500
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpi=(mpirun -np "$ranks" --oversubscribe)

# json FILE EXPR: a value of a run's JSON (python3's json module).
json() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1"; }
stat() { json "$1" "r['statistics']['$2']"; }

for ((r = 1; r <= rounds; r++)); do
  "${mpi[@]}" "$bin" --scale "$scale" --keys 64 --threads 1 "${sssp[@]}" --quiet --json "$tmp/d.json" >/dev/null
  add d_teps "$(json "$tmp/d.json" "r['statistics']['bfs']['teps']['harmonic_mean']")"
  add d_k1 "$(stat "$tmp/d.json" construction_time)"
  add d_search "$(json "$tmp/d.json" "r['statistics']['bfs']['time']['mean']")"
  add d_validate "$(json "$tmp/d.json" "r['statistics']['bfs']['validate']['mean']")"
  [[ -z $ref_sssp ]] || add d_sssp "$(json "$tmp/d.json" "r['statistics']['sssp']['teps']['harmonic_mean']")"
  add d_peak "$(json "$tmp/d.json" "max(r['mpi']['peak_memory_bytes_per_rank'])")"
  "$bin" --scale "$scale" --keys 64 --threads "$ranks" --quiet --json "$tmp/s.json" >/dev/null
  add s_teps "$(json "$tmp/s.json" "r['statistics']['bfs']['teps']['harmonic_mean']")"
  add s_k1 "$(stat "$tmp/s.json" construction_time)"
  add s_peak "$(json "$tmp/s.json" "r['peak_memory_bytes']")"
  if [[ -n $ref ]]; then
    (cd "$tmp" && SKIP_VALIDATION=1 "${mpi[@]}" -x SKIP_VALIDATION "$ref" "$scale" >"$tmp/ref.out" 2>&1)
    add ref_teps "$(awk -F': +' '$1 == "bfs  harmonic_mean_TEPS" { print $NF }' "$tmp/ref.out" | tr -d '! ')"
  fi
  if [[ -n $ref_sssp ]]; then
    (cd "$tmp" && SKIP_VALIDATION=1 "${mpi[@]}" -x SKIP_VALIDATION "$ref_sssp" "$scale" >"$tmp/ref_sssp.out" 2>&1)
    teps() { awk -F': +' -v k="$1" '$1 == k { print $NF }' "$tmp/ref_sssp.out" | tr -d '! '; }
    add ref_sssp_teps "$(teps "sssp harmonic_mean_TEPS")"
    [[ -n $ref ]] || add ref_teps "$(teps "bfs  harmonic_mean_TEPS")"
  fi
done

g() { awk -v x="$1" 'BEGIN { printf "%.3g", x }'; }

echo "SCALE $scale, $ranks ranks x 1 thread vs 1 process x $ranks threads, medians of $rounds alternating rounds; $(cpu_model)"
echo
echo "| figure | over MPI | compared with | ratio |"
echo "| --- | ---: | ---: | ---: |"
echo "| harmonic-mean TEPS / one process | $(g "$(m d_teps)") | $(g "$(m s_teps)") | $(ratio "$(m d_teps)" "$(m s_teps)") |"
if [[ -n $ref || -n $ref_sssp ]]; then
  echo "| harmonic-mean TEPS / reference | $(g "$(m d_teps)") | $(g "$(m ref_teps)") | $(ratio "$(m d_teps)" "$(m ref_teps)") |"
fi
if [[ -n $ref_sssp ]]; then
  echo "| SSSP harmonic-mean TEPS / reference | $(g "$(m d_sssp)") | $(g "$(m ref_sssp_teps)") | $(ratio "$(m d_sssp)" "$(m ref_sssp_teps)") |"
fi
echo "| kernel 1 (s) / one process | $(g "$(m d_k1)") | $(g "$(m s_k1)") | $(ratio "$(m d_k1)" "$(m s_k1)") |"
echo "| mean search, mean validation (ms) | $(g "$(awk -v x="$(m d_search)" 'BEGIN{print x*1000}')"), $(g "$(awk -v x="$(m d_validate)" 'BEGIN{print x*1000}')") | | |"
echo "| peak memory per rank / one process's (MB) | $(g "$(awk -v x="$(m d_peak)" 'BEGIN{print x/1e6}')") | $(g "$(awk -v x="$(m s_peak)" 'BEGIN{print x/1e6}')") | $(ratio "$(m d_peak)" "$(m s_peak)") |"
