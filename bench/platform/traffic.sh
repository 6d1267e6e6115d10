#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Figures of `gpuvp run --workload traffic` (not a test): medians of N runs of the whole program
# (wall, CPU, maximum resident set, minor page faults), alternated with the baselines of the same
# run: the program's start-up alone (`gpuvp config dump` of the same workload: every model built,
# nothing simulated) and, when given, another build of gpuvp (an older commit) on the same run.
# Goal (issue 32): >= 5x faster than the build with zeroed 64 KiB pages, resident memory in
# proportion to the bytes touched.
# usage: bench/platform/traffic.sh [build/gpuvp] [N] [BASELINE_GPUVP]
set -euo pipefail
gpuvp=${1:-build/gpuvp}
n=${2:-7}
baseline=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fmt="%e %U %S %M %R"
for i in $(seq "$n"); do
  /usr/bin/time -a -o "$work/run" -f "$fmt" "$gpuvp" run --workload traffic -q
  /usr/bin/time -a -o "$work/start" -f "$fmt" "$gpuvp" config dump --workload traffic >/dev/null
  if [ -n "$baseline" ]; then /usr/bin/time -a -o "$work/base" -f "$fmt" "$baseline" run --workload traffic -q; fi
done
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
line() {  # label file: medians of wall, CPU, resident set, faults
  awk '{print $1}' "$2" | median >"$work/w"
  awk '{print $2 + $3}' "$2" | median >"$work/c"
  awk '{print $4 / 1024}' "$2" | median >"$work/m"
  awk '{print $5}' "$2" | median >"$work/f"
  printf "  %-9s %5.2f s wall, %5.2f s CPU, %4.0f MB resident, %6d minor faults\n" "$1" "$(cat "$work/w")" "$(cat "$work/c")" "$(cat "$work/m")" "$(cat "$work/f")"
}
echo "gpuvp run --workload traffic, medians of $n runs, alternated:"
line run "$work/run"
run_w=$(cat "$work/w") run_c=$(cat "$work/c")
line start-up "$work/start"
start_c=$(cat "$work/c")
awk -v r="$run_c" -v s="$start_c" 'BEGIN { printf "  the run is %.2fx the start-up in CPU\n", (0 < s ? r / s : 0) }'
if [ -n "$baseline" ]; then
  line baseline "$work/base"
  awk -v rw="$run_w" -v bw="$(cat "$work/w")" -v rc="$run_c" -v bc="$(cat "$work/c")" 'BEGIN {
    printf "  against the baseline: %.1fx faster in wall time, %.1fx in CPU   goal >= 5x   %s\n", bw / rw, (0 < rc ? bc / rc : 0), (5 <= bw / rw ? "met" : "NOT met") }'
fi
