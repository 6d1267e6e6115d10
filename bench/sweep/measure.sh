#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Figures of `gpuvp sweep` (not a test): in one run, on the same point,
#  1. the driver's overhead per point: a sweep of N identical points with -j 1 against N bare
#     `gpuvp run` of that point, one after the other;
#  2. the speed-up of -j 2 over -j 1 on the same N points.
# usage: bench/sweep/measure.sh [build/gpuvp] [N]
set -euo pipefail
gpuvp=${1:-build/gpuvp}
n=${2:-8}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
args=(--workload traffic --set traffic.g0.count=2000 --set traffic.g1.count=1000 --set traffic.g2.count=500)
values=$(printf '1us, %.0s' $(seq "$n"))
cat >"$work/spec.yaml" <<SPEC
workload: traffic
set: {traffic.g0.count: 2000, traffic.g1.count: 1000, traffic.g2.count: 500}
parameters:
  platform.quantum: [${values%, }]
combine: zip
SPEC
now() { date +%s.%N; }
t0=$(now)
for i in $(seq "$n"); do "$gpuvp" run "${args[@]}" --set platform.quantum=1us --stats "$work/bare.json" -q; done
t1=$(now)
"$gpuvp" sweep "$work/spec.yaml" --out "$work/j1" -j 1 --no-plot 2>/dev/null
t2=$(now)
"$gpuvp" sweep "$work/spec.yaml" --out "$work/j2" -j 2 --no-plot 2>/dev/null
t3=$(now)
cmp -s "$work/j1/results.csv" "$work/j2/results.csv" || { echo "results differ between -j 1 and -j 2"; exit 1; }
awk -v n="$n" -v t0="$t0" -v t1="$t1" -v t2="$t2" -v t3="$t3" 'BEGIN {
  bare = t1 - t0; j1 = t2 - t1; j2 = t3 - t2
  printf "points: %d (traffic, 3500 transactions each)\n", n
  printf "bare gpuvp run x %d: %.2f s (%.3f s a point)\n", n, bare, bare / n
  printf "sweep -j 1: %.2f s (%.3f s a point); driver overhead %.3f s a point (%.1f %% of a bare run; includes the config check)\n", j1, j1 / n, (j1 - bare) / n, 100 * (j1 - bare) / bare
  printf "sweep -j 2: %.2f s; speed-up over -j 1: %.2fx\n", j2, j1 / j2
}'
