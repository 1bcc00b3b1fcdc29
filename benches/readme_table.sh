#!/usr/bin/env bash
# Makes README's results table: the main benchmark (64 validated searches)
# at SCALE 16, 18 and 20, on 1 thread and on all threads, with the default
# kernel. Prints a Markdown table and the machine it ran on.
#
# Usage: benches/readme_table.sh [KERNEL]     (default: par)
set -euo pipefail
cd "$(dirname "$0")/.."
kernel=${1:-par}
cargo build --release --quiet
bin=target/release/graph500
all=$(nproc)

field() { awk -F': +' -v label="$1" '$1 == label { print $2 }'; }

echo "| SCALE | threads | harmonic-mean TEPS | median TEPS | construction (s) | mean BFS (s) | mean validation (s) | peak RSS (MiB) |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for scale in 16 18 20; do
  for threads in 1 "$all"; do
    block=$( { /usr/bin/time -f 'peak_rss_kib: %M' "$bin" --scale "$scale" --keys 64 \
                --kernel "$kernel" --threads "$threads" --quiet; } 2>&1 )
    printf '| %s | %s | %s | %s | %s | %s | %s | %d |\n' "$scale" "$threads" \
      "$(field 'bfs  harmonic_mean_TEPS' <<<"$block")" \
      "$(field 'bfs  median_TEPS' <<<"$block")" \
      "$(field 'construction_time' <<<"$block")" \
      "$(field 'bfs  mean_time' <<<"$block")" \
      "$(field 'bfs  mean_validate' <<<"$block")" \
      "$(( $(field 'peak_rss_kib' <<<"$block") / 1024 ))"
  done
done
echo
echo "Machine: $(lscpu | awk -F': +' '/Model name/ {print $2}'), $all cores," \
     "$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo);" \
     "kernel $kernel; $(date -u +%Y-%m-%d)."
