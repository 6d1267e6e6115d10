#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Figures of `gpuvp sweep` (not a test): in one run, on the same point,
#  1. the driver's overhead per point: a sweep of N identical points with -j 1 against N bare
#     `gpuvp run` of that point, one after the other, in CPU time (every process's user + system,
#     from the shell's `times`) and wall time;
#  2. the speed-up of -j 2 over -j 1 on the same N points (wall time).
# Each figure is printed beside its goal (issue 32). -j 2 can reach 2x only with two idle cores.
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
# cpu=the CPU seconds (user + system) of every finished child of this shell so far (`times` in
# this shell itself, not in a $(...) subshell, which would count its own children only).
child_cpu() {
  times >"$work/times"
  local user sys
  read -r user sys <<<"$(tail -n 1 "$work/times")"  # "XmY.YYYs XmY.YYYs"
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { split(u, a, /[ms]/); split(s, b, /[ms]/); print a[1] * 60 + a[2] + b[1] * 60 + b[2] }')
}
child_cpu
c0=$cpu t0=$EPOCHREALTIME
for ((i = 0; i < n; ++i)); do "$gpuvp" run "${args[@]}" --set platform.quantum=1us --stats "$work/bare.json" -q; done
t1=$EPOCHREALTIME
child_cpu
c1=$cpu
"$gpuvp" sweep "$work/spec.yaml" --out "$work/j1" -j 1 --no-plot 2>/dev/null
t2=$EPOCHREALTIME
child_cpu
c2=$cpu
"$gpuvp" sweep "$work/spec.yaml" --out "$work/j2" -j 2 --no-plot 2>/dev/null
t3=$EPOCHREALTIME
cmp -s "$work/j1/results.csv" "$work/j2/results.csv" || { echo "results differ between -j 1 and -j 2"; exit 1; }
awk -v n="$n" -v t0="$t0" -v t1="$t1" -v t2="$t2" -v t3="$t3" -v c0="$c0" -v c1="$c1" -v c2="$c2" 'BEGIN {
  bare = t1 - t0; j1 = t2 - t1; j2 = t3 - t2; bare_cpu = c1 - c0; j1_cpu = c2 - c1
  printf "points: %d (traffic, 3500 transactions each)\n", n
  printf "bare gpuvp run x %d: %.3f s CPU, %.2f s wall (%.3f s CPU a point)\n", n, bare_cpu, bare, bare_cpu / n
  printf "sweep -j 1: %.3f s CPU, %.2f s wall; driver overhead %+.1f %% CPU (goal <= +5 %%), %+.1f %% wall (%.3f s wall a point; includes the config check)\n",
         j1_cpu, j1, 100 * (j1_cpu - bare_cpu) / bare_cpu, 100 * (j1 - bare) / bare, (j1 - bare) / n
  printf "sweep -j 2: %.2f s wall; speed-up over -j 1: %.2fx (goal >= 1.8x; %d points, needs 2 idle cores)\n",
         j2, j1 / j2, n
}'
