#!/usr/bin/env bash
# The communication model of a distributed run (docs/clusters.md, "Communication model")
# against the bytes the ranks really sent, then projected to large runs.
#
# For P in 1 2 4 8 and SCALE in 16 18 20, runs
#   mpirun -np P --oversubscribe graph500 --scale S --keys 8 --threads 1 --trace --json F
# (P = 1 is one process: it sends nothing) and compares, summed over all
# ranks, per search, kernel 1 and validation:
#   top-down level:  2 s m_f (P-1)/P + 32 P (P-1)   (s: id bytes; m_f: the
#                    frontier's arcs, the trace's edges_examined)
#   bottom-up level: (N/8) (P-1) + 24 P (P-1)       (the frontier bitmap)
#   kernel 1:        2 s M (P-1)/P + 8 B (P-1) R     (two packed arcs a
#                    tuple; B blocks of 2^11 rows, R rounds of counts)
#   validation:  per level k, 4 (P-1) sum_r min(2 w_r, c_k / P)
#                    + P (P-1) (24 (D+2) + 80)      (c_k: the vertices of
#                    level k, from the trace; w_r: rank r's 64-bit words;
#                    D: the depth; each rank announces its level-k vertices
#                    as 4-byte indices or as its bitmap, whichever is
#                    shorter, in D+2 rounds of 24-byte records, plus check
#                    1's agreement and the verdict)
# (kernel 1: self-loops send nothing, so its model is slightly high). Then the
# per-search time at SCALE 30-36 for P = 64-4096 on the network named in
# the output, with the frontier profile and per-arc rank time measured at
# the largest SCALE here. Needs --features mpi (Debian: libopenmpi-dev
# openmpi-bin libclang-dev pkgconf).
#
# Usage: benches/mpi_traffic.sh [SCALES] [RANKS]   (defaults: "16 18 20" "1 2 4 8")
set -euo pipefail
cd "$(dirname "$0")/.."
source benches/common.sh
scales=${1:-16 18 20}
all_ranks=${2:-1 2 4 8}
cargo build --release --quiet --locked --features mpi
bin=target/release/graph500
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for s in $scales; do
  for p in $all_ranks; do
    mpirun -np "$p" --oversubscribe "$bin" --scale "$s" --keys 8 --threads 1 --trace --quiet \
      --json "$tmp/s$s-p$p.json" >/dev/null
  done
done
echo "$(cpu_model); bytes summed over ranks, mean per search"
python3 - "$tmp" <<'PY'
import glob, json, math, os, sys

def shares(N, P):
    """Vertices per rank (dist/src/partition.rs: chunks of ceil(N/P) rounded up to 64)."""
    chunk = max(64, math.ceil(N / P / 64) * 64)
    return [min(max(N - q * chunk, 0), chunk) for q in range(P)]

rows = []
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json")), key=lambda p: (len(p), p)):
    r = json.load(open(path))
    mpi = r.get("mpi")
    if mpi is None:
        continue  # one rank: one process, nothing sent
    P, s = mpi["ranks"], mpi["id_bytes"]
    N, M = r["graph"]["num_vertices"], r["graph"]["num_edges"]
    f = (P - 1) / P
    words = sum(math.ceil(c / 64) for c in shares(N, P))
    model = measured = td = bu = v_model = 0
    for rec in r["searches"]:
        for i, st in enumerate(rec["trace"]):
            measured += st["bytes"]
            if st["direction"] == "top-down":
                model += 2 * s * st["edges_examined"] * f + 32 * P * (P - 1)
                td += 1
            else:
                model += 8 * words * (P - 1) + 24 * P * (P - 1)
                bu += 1
        # Validation (dist/src/check/levels.rs): vertices per level, each
        # rank's share announced as indices or as its bitmap.
        counts = [1] + [st["discovered"] for st in rec["trace"]]
        while counts[-1] == 0:
            counts.pop()
        depth = len(counts) - 1
        v_model += P * (P - 1) * (24 * (depth + 2) + 80)
        v_model += 4 * (P - 1) * sum(min(2 * math.ceil(c / 64), n / P) for n in counts for c in shares(N, P))
    k = len(r["searches"])
    blocks = sum(math.ceil(c / 2048) for c in shares(N, P))
    rounds = math.ceil(M / P / (1 << 20))
    k1_model = 2 * s * M * f + 8 * blocks * (P - 1) * rounds
    v_model /= k
    v_measured = sum(mpi["validate_bytes"]) / k
    rows.append((r["options"]["scale"], P, measured / k, model / k, td / k, bu / k,
                 mpi["kernel1_bytes"], k1_model, v_measured, v_model))
print("| SCALE | P | search: measured | model | TD, BU levels | kernel 1: measured | model | validation: measured | model |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
mb = lambda x: f"{x / 1e6:.2f} MB"
for S, P, sm, smod, td, bu, k1, k1m, vm, vmod in rows:
    print(f"| {S} | {P} | {mb(sm)} | {mb(smod)} ({smod / sm:.2f}x) | {td:.1f}, {bu:.1f} | {mb(k1)} | {mb(k1m)} ({k1m / k1:.2f}x) | {mb(vm)} | {mb(vmod)} ({vmod / vm:.2f}x) |")

# Projection: the frontier profile of the largest run here (top-down arcs
# as a share of all arcs, bottom-up levels per search) and its rank time
# per arc, on a network of B bytes/s per rank and alpha s per message.
# The largest SCALE's run on as many ranks as cores (not oversubscribed).
cores = os.cpu_count()
runs = [json.load(open(p)) for p in glob.glob(os.path.join(sys.argv[1], "*.json"))]
runs = [r for r in runs if r.get("mpi") and r["mpi"]["ranks"] <= cores]
r = max(runs, key=lambda r: (r["options"]["scale"], r["mpi"]["ranks"]))
P0, M0 = r["mpi"]["ranks"], r["graph"]["num_edges"]
td_share = sum(st["edges_examined"] for rec in r["searches"] for st in rec["trace"] if st["direction"] == "top-down") / len(r["searches"]) / (2 * M0)
bu_levels = sum(st["direction"] == "bottom-up" for rec in r["searches"] for st in rec["trace"]) / len(r["searches"])
per_arc = r["statistics"]["bfs"]["time"]["mean"] / (2 * M0 / P0)
B, alpha = 12.5e9, 2e-6
print()
print(f"Projection: B = {B / 1e9:g} GB/s per rank (100 Gb/s), alpha = {alpha * 1e6:g} us per message; from SCALE {r['options']['scale']} at P = {P0}: "
      f"top-down arcs {td_share:.3f} of all, {bu_levels:.1f} bottom-up levels a search, {per_arc * 1e9:.2f} ns of rank time per arc")
print()
print("| SCALE | P | compute | 1-D: top-down + bitmap + latency | 1-D search | 2-D bitmap instead |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for S in (30, 33, 36):
    N = 2 ** S
    M = 16 * N
    for P in (64, 256, 1024, 4096):
        f = (P - 1) / P
        comp = per_arc * 2 * M / P
        td = 2 * 8 * td_share * 2 * M * f / P / B
        bitmap = bu_levels * N / 8 * f / B
        lat = (bu_levels + 4) * alpha * (P - 1)
        two_d = bu_levels * 2 * N / 8 / P ** 0.5 / B
        ms = lambda x: f"{x * 1e3:.1f} ms" if x < 1 else f"{x:.2f} s"
        print(f"| {S} | {P} | {ms(comp)} | {ms(td)} + {ms(bitmap)} + {ms(lat)} | {ms(comp + td + bitmap + lat)} | {ms(two_d)} |")
PY
