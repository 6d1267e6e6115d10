#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer harnesses (preset "fuzz": clang, ASan + UBSan, build-fuzz/) and runs each
# for SECONDS (default 20) with seed corpora from the tests' data (docs/testing.md).
#   tools/fuzz.sh [SECONDS_PER_HARNESS] [HARNESS...]     e.g. tools/fuzz.sh 600 pm4_text qtest
# Environment: FUZZ_FORK=N runs N worker processes per harness that go on after a finding
#   (long runs); FUZZ_ARGS adds libFuzzer options.
# Findings are saved as build-fuzz/findings/HARNESS-crash-*|timeout-*|oom-*; the working corpus
# grows in build-fuzz/corpus/HARNESS. Exit status: 0 when no harness found anything.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
shift || true
# Every harness that fuzz/CMakeLists.txt builds (its GPUVP_FUZZERS list, which may span lines).
read -r -a all <<<"$(sed -n '/^set(GPUVP_FUZZERS/,/)/p' fuzz/CMakeLists.txt | tr '\n' ' ' | sed 's/^set(GPUVP_FUZZERS//; s/).*//')"
[ ${#all[@]} -gt 0 ] || { echo "fuzz: no harness list in fuzz/CMakeLists.txt" >&2; exit 2; }
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=("${all[@]}")

[ -f build-fuzz/CMakeCache.txt ] || cmake --preset fuzz >/dev/null
# Quiet when it builds; the compiler's messages when it does not (CI's log must say why).
if ! cmake --build build-fuzz -j"$(nproc)" --target fuzzers >build-fuzz/build.log 2>&1; then
  grep -a -B2 -A8 -m5 -e 'error' -e 'FAILED' build-fuzz/build.log | cut -c1-400 >&2
  echo "fuzz: the harnesses do not build (full log: build-fuzz/build.log)" >&2
  exit 2
fi

# Seed files per harness (globs relative to the source tree; missing ones are skipped).
seeds_for() {
  case $1 in
    pb_text) echo models/pfifo/workloads/*.pb ;;
    pb_binary|pm4_binary) echo fuzz/seeds/$1/* ;;
    pm4_text) echo tests/cp/data/*.pm4 ;;
    afuc_asm) echo firmware/cp/*.asm tests/cp/data/*.asm ;;
    afuc_disasm) echo build-fuzz/firmware/cp/*.fw build/adreno-fw/*.fw ;;
    sm_trace) echo tests/sm/data/*/* ;;
    sm_config) echo models/sm/configs/*/*.config ;;
    yaml_config) echo platform/default.yaml fuzz/seeds/yaml_config/* ;;
    qtest) echo tests/qtest/*.qtest ;;
    rd) echo fuzz/seeds/rd/* ;;
    agx_scenario) echo models/agx/scenarios/*.agx ;;
    sweep_spec) echo tests/sweep/data/*.yaml examples/sweeps/*.yaml ;;
    sweep_json|metric_glob) echo fuzz/seeds/$1/* ;;
  esac
}

mkdir -p build-fuzz/findings
status=0
for h in "${harnesses[@]}"; do
  bin=build-fuzz/fuzz/fuzz_$h
  [ -x "$bin" ] || { echo "fuzz: no harness '$h' (known: ${all[*]})" >&2; exit 2; }
  corpus=build-fuzz/corpus/$h seeds=build-fuzz/seeds/$h
  rm -rf "$seeds" && mkdir -p "$corpus" "$seeds"
  for f in $(seeds_for "$h"); do [ -f "$f" ] && cp "$f" "$seeds/${f//\//_}"; done  # path as name: no clashes
  opts=(-max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=4096 -print_final_stats=1
        -artifact_prefix="build-fuzz/findings/$h-" ${FUZZ_ARGS:-})
  [ -n "${FUZZ_FORK:-}" ] && opts+=(-fork="$FUZZ_FORK" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  log=build-fuzz/fuzz-$h.log
  start=$(date +%s)
  if "$bin" "${opts[@]}" "$corpus" "$seeds" >"$log" 2>&1; then result=ok; else result="FINDING (see $log)"; status=1; fi
  # Executions: the final stats line (single process) or the last status line (fork mode).
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  [ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]*\).*/\1/p' "$log" | tail -1)
  [ -n "${FUZZ_FORK:-}" ] && ls build-fuzz/findings | grep -q "^$h-" && { result="FINDINGS in build-fuzz/findings"; status=1; }
  printf 'fuzz %-12s %10s executions in %4ss, corpus %5s files: %s\n' "$h" "${execs:-?}" "$(( $(date +%s) - start ))" \
    "$(ls "$corpus" | wc -l)" "$result"
  # What was found and where the input lies, so that a CI log alone says enough to reproduce it.
  [ "$result" = ok ] || grep -a -m7 -e '^gpuvp fuzz finding' -e 'ERROR: ' -e '^SUMMARY' -e 'Test unit written to' -e '^Base64:' "$log" |
    cut -c1-300 | sed 's/^/  | /' || true
done
exit $status
