# What the benchmark scripts share; sourced, not run.

# median X...: the median of the numbers (each an argument or
# whitespace-separated inside one).
median() { printf '%s\n' $* | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# ratio A B: A / B to two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
# cpu_model: lscpu's model name, which every figure names.
cpu_model() { lscpu | awk -F': +' '/Model name/ { print $2; exit }'; }
# Columns of figures, one per name, filled round by round: `add NAME X`,
# then `m NAME` is the median of its column.
declare -A col
add() { col[$1]+="$2 "; }
m() { median "${col[$1]}"; }
