#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sets up a Debian bookworm machine (as root) and builds gpuvp: installs the Debian packages that
# are missing, fetches the Adreno firmware used by tests (never committed), configures and builds.
# Idempotent: when nothing changed it only checks and runs an incremental build.
# Under CI (CI=true) or with GPUVP_PRESET=ci, compiler warnings are errors.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake ninja-build pkg-config git
          libsystemc-dev libboost-dev libboost-program-options-dev
          libyaml-cpp-dev nlohmann-json3-dev
          zlib1g-dev  # .rd.gz captures (docs/formats/rd.md)
          libgtest-dev libgmock-dev libbenchmark-dev
          verilator  # RTL co-simulation (docs/rtl.md); without it the build leaves the RTL parts out
          xz-utils zstd  # xz/zstd: compressed firmware blobs (tools/fetch-adreno-firmware.sh)
          python3-pytest python3-yaml  # the Python package (docs/python.md)
          clang libfuzzer-14-dev  # the fuzz preset (tools/fuzz.sh, docs/testing.md)
          clang-format  # tools/format.sh and the test format.check (.clang-format)
          python3-matplotlib  # gpuvp plot (tools/gpuvp_plot.py)
          slurm-wlm munge)  # gpuvp sweep --backend slurm and its one-node cluster test
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Real Adreno microcode for the CP tests (Debian non-free-firmware), unpacked into the build tree.
# (tests/cp looks in build/adreno-fw; the script returns at once when the blobs are there.)
if [ -x tools/fetch-adreno-firmware.sh ]; then
  tools/fetch-adreno-firmware.sh build/adreno-fw || echo "setup: Adreno firmware not available; tests that need it are skipped"
fi

default_preset=default
[ "${CI:-}" = true ] && default_preset=ci
preset=${GPUVP_PRESET:-$default_preset}
if [ ! -f build/CMakeCache.txt ]; then
  cmake --preset "$preset" >/dev/null
elif [ "$preset" = ci ]; then
  cmake --preset ci >/dev/null  # make sure -Werror is on
fi
cmake --build build -j"$(nproc)"
