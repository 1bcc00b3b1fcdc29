#!/usr/bin/env bash
# The communication model of a distributed run (docs/clusters.md, "Communication
# model"; the formulas are benches/mpi_model.py's) against the bytes the ranks
# really sent, for both partitions, then projected to list scales.
#
# For each partition in PARTITIONS, P in RANKS and SCALE in SCALES, runs
#   mpirun -np P --oversubscribe graph500 --partition X --scale S --keys 8 --threads 1 --trace --json F
# and compares, summed over all ranks and per search, the bytes of the search,
# of kernel 1 and of a validation with the model (the per-level terms come from
# the trace: the frontier, the vertices discovered, the arcs a top-down level
# read, the 2-D fold's proposals). Then projects a search and its validation to
# SCALE 30, 33 and 36 on P = 64-4096 ranks on a stated network, from the
# frontier profile and per-arc rank compute of PROFILE_RANKS ranks (not
# oversubscribed) at the largest SCALE: a search's time less its slowest
# rank's time inside collectives (the JSON's mpi.search_comm_seconds), since
# the projection adds the communication at its own B and alpha.
# Needs --features mpi (Debian: libopenmpi-dev openmpi-bin libclang-dev pkgconf).
#
# The rank times of the profile are its run's unless SEARCH_NS (a search's
# ns an arc) or VALIDATE_NS (a validation's ns a tuple) give quiet ones:
# on a loaded machine busy-polling ranks measure their waiting.
#
# The 2-D search's compute is the 2-D profile's own rank compute an arc
# (SEARCH_NS_2D gives a quiet one); without a 2-D run, the 1-D one's.
#
# Usage: [SEARCH_NS=x] [SEARCH_NS_2D=z] [VALIDATE_NS=y] benches/mpi_traffic.sh [SCALES] [RANKS] [PARTITIONS]
#   (defaults: "16 18 20" "4 9 16" "1d 2d"; PROFILE_RANKS defaults to the cores)
set -euo pipefail
cd "$(dirname "$0")/.."
source benches/common.sh
scales=${1:-16 18 20}
all_ranks=${2:-4 9 16}
partitions=${3:-1d 2d}
profile_ranks=${PROFILE_RANKS:-$(nproc)}
cargo build --release --quiet --locked --features mpi
bin=target/release/graph500
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
largest=$(printf '%s\n' $scales | sort -n | tail -1)
for part in $partitions; do
  for s in $scales; do
    for p in $all_ranks; do
      mpirun -np "$p" --oversubscribe "$bin" --partition "$part" --scale "$s" --keys 8 --threads 1 \
        --trace --quiet --json "$tmp/check-$part-s$s-p$p.json" >/dev/null
    done
  done
  mpirun -np "$profile_ranks" "$bin" --partition "$part" --scale "$largest" --keys 16 --threads 1 \
    --trace --quiet --json "$tmp/profile-$part.json" >/dev/null
done
echo "$(cpu_model), $(git rev-parse --short HEAD); bytes summed over ranks, mean per search"
PYTHONPATH=benches python3 - "$tmp" <<'PY'
import glob, json, os, sys
import mpi_model as model

tmp = sys.argv[1]
runs = [json.load(open(p)) for p in glob.glob(os.path.join(tmp, "check-*.json"))]
rows = sorted(model.check(runs), key=lambda r: (r["partition"], r["scale"], r["P"]))
mb = lambda x: f"{x / 1e6:.3f} MB"
fit = lambda m, x: f"{mb(m)} ({m / x:.3f}x)" if x else mb(m)
print("| partition | SCALE | P | search: measured | model | kernel 1: measured | model | validation: measured | model |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for r in rows:
    print(f"| {r['partition']} | {r['scale']} | {r['P']} | {mb(r['search'])} | {fit(r['search_model'], r['search'])} "
          f"| {mb(r['kernel1'])} | {fit(r['kernel1_model'], r['kernel1'])} "
          f"| {mb(r['validation'])} | {fit(r['validation_model'], r['validation'])} |")
by = {(r["partition"], r["scale"], r["P"]): r for r in rows}
pairs = [(k[1], k[2]) for k in by if k[0] == "2d" and ("1d", k[1], k[2]) in by]
if pairs:
    print()
    print("2-D bytes per search as a share of 1-D's: " + ", ".join(
        f"SCALE {s} P {p}: {by[('2d', s, p)]['search'] / by[('1d', s, p)]['search']:.2f}x" for s, p in sorted(pairs)))

B, alpha = 12.5e9, 2e-6
profiles = {}
for path in glob.glob(os.path.join(tmp, "profile-*.json")):
    run = json.load(open(path))
    profiles[run["mpi"].get("partition", "1d")] = model.profile(run)
base = profiles.get("1d") or next(iter(profiles.values()))
for key, env in (("search_per_arc", "SEARCH_NS"), ("validate_per_tuple", "VALIDATE_NS")):
    if os.environ.get(env):
        base[key] = float(os.environ[env]) * 1e-9
# The 2-D search's compute is its own profile's rank compute an arc (the
# grid's scans are not the 1-D rows'), or SEARCH_NS_2D.
per_arc_2d = profiles["2d"]["search_per_arc"] if "2d" in profiles else base["search_per_arc"]
if os.environ.get("SEARCH_NS_2D"):
    per_arc_2d = float(os.environ["SEARCH_NS_2D"]) * 1e-9
# The 2-D fold's pairs to other ranks per vertex a bottom-up level
# discovers, measured on the widest grid rows (the 2-D check run with the
# most ranks, at the largest SCALE): the row step proposes a vertex once
# and its owner, scanning first, sends nothing for what it finds, so the
# share is below 1 and grows with C; the projection takes the bound, 1.
wide = [r for r in runs if r["mpi"].get("partition") == "2d"]
if wide:
    widest = max(wide, key=lambda r: (r["mpi"]["ranks"], r["options"]["scale"]))
    steps = [st for rec in widest["searches"] for st in rec["trace"] if st["direction"] == "bottom-up"]
    q_mean = sum(st["proposals"] for st in steps) / max(sum(st["discovered"] for st in steps), 1)
    q_from = f"SCALE {widest['options']['scale']} on {widest['mpi']['ranks']} ranks, grid {widest['mpi']['grid']}"
print()
print(f"Projection: B = {B / 1e9:g} GB/s a rank, alpha = {alpha * 1e6:g} us a message; profile of SCALE {base['scale']} "
      f"on {base['P']} ranks: {base['search_per_arc'] * 1e9:.2f} ns of rank compute an arc (1-D search), "
      f"{per_arc_2d * 1e9:.2f} (2-D search), "
      f"{base['validate_per_tuple'] * 1e9:.2f} ns a tuple (validation), depth {base['depth'] - 1:.1f}")
print()
print("| SCALE | P | 1-D compute | 1-D: bytes + latency | 1-D search | 2-D compute | 2-D: bytes + latency | 2-D search | 1-D / 2-D "
      "| validation: bytes + latency | validation | / 2-D search | grid validation: bytes + latency | grid validation | / 2-D search |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
at_most_2 = lambda x, search: f"{x / search:.2f}x" + (" (<= 2)" if x <= 2 * search else " (> 2)")
ms = lambda x: f"{x * 1e3:.1f} ms" if x < 1 else f"{x:.2f} s"
prof = base
for S in (30, 33, 36):
    for P in (64, 256, 1024, 4096):
        one, two, v, g = model.project(prof, S, P, B, alpha, per_arc_2d=per_arc_2d)
        print(f"| {S} | {P} | {ms(one['compute'])} | {ms(one['bytes'])} + {ms(one['latency'])} | {ms(one['seconds'])} "
              f"| {ms(two['compute'])} | {ms(two['bytes'])} + {ms(two['latency'])} | {ms(two['seconds'])} "
              f"| {one['seconds'] / two['seconds']:.1f}x "
              f"| {ms(v['bytes'])} + {ms(v['latency'])} | {ms(v['seconds'])} | {at_most_2(v['seconds'], two['seconds'])} "
              f"| {ms(g['bytes'])} + {ms(g['latency'])} | {ms(g['seconds'])} | {at_most_2(g['seconds'], two['seconds'])} |")
if wide:
    print(f"(2-D fold: one pair a vertex a bottom-up level discovers, the row step's bound; measured "
          f"{q_mean:.2f} at {q_from})")
PY
