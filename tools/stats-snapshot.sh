#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# stats-snapshot.sh GPUVP OUTDIR: the statistics of every shipped workload, platform and sample
# input, one file each, with host-time figures removed. Run it with the binary before and after a
# change that must not change behaviour, then `diff -r BEFORE AFTER` (docs/testing.md).
set -u
gpuvp=$1; out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
strip_host() {  # drop wall-clock and host-speed figures, keep everything simulated
  grep -vE '"wall_s"|wall time|simulation speed|warp instructions/s|"host_|_per_s"' "$1" >"$1.tmp" || true
  mv "$1.tmp" "$1"
}
run() {  # NAME ARGS...: gpuvp ARGS with --stats; the exit status is kept beside the statistics
  name=$1; shift
  "$gpuvp" run "$@" --stats "$out/$name.json" -q >"$out/$name.out" 2>&1
  echo "exit $?" >>"$out/$name.out"
  [ -f "$out/$name.json" ] && strip_host "$out/$name.json"
  strip_host "$out/$name.out"
}
run default
for w in traffic agx-hv-tlbi agx-axi2af agx-rvae-end agx-no-inval agx-cached-unmap agx-powerdown rtl-copy pfifo-default; do
  run "$w" --workload "$w"
done
run gpu-memory --platform gpu-memory
for f in "$root"/models/pfifo/workloads/*.pb "$root"/examples/sweeps/mmu-tlb.pb \
         "$root"/tests/cp/data/*.pm4 "$root"/models/copy_engine/workloads/*.copies; do
  run "$(basename "$f")" --workload "$f"
done
for g in QV100 RTX3070 A100 H100 GV100 RTX2060; do
  "$gpuvp" sm-run --gpu "$g" "$root/examples/sweeps/sm-trace/kernelslist.g" >"$out/sm-$g.out" 2>&1
  echo "exit $?" >>"$out/sm-$g.out"
  strip_host "$out/sm-$g.out"
done
"$gpuvp" sm-run "$root/tests/sm/data/ffma/kernelslist.g" >"$out/sm-ffma.out" 2>&1; echo "exit $?" >>"$out/sm-ffma.out"
strip_host "$out/sm-ffma.out"
"$gpuvp" config dump >"$out/config-dump.yaml" 2>&1
"$gpuvp" config dump --platform agx >"$out/config-dump-agx.yaml" 2>&1
echo "stats-snapshot: $(ls "$out" | wc -l) files in $out"
