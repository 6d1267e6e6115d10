#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The SM model's host threads under ThreadSanitizer: builds target sm_threads_tsan in build-tsan/
# (-DGPUVP_TSAN_CHECK=ON: the model's core sources again with -fsanitize=thread) and runs it
# (docs/testing.md). Exit status: 0 when the threaded runs match one thread and TSan reports
# nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f build-tsan/CMakeCache.txt ] ||
  cmake -S . -B build-tsan -G Ninja -DGPUVP_TSAN_CHECK=ON -DGPUVP_WERROR=ON -DGPUVP_BUILD_BENCH=OFF \
    -DGPUVP_BUILD_PYTHON=OFF >/dev/null
cmake --build build-tsan -j"$(nproc)" --target sm_threads_tsan >/dev/null
TSAN_OPTIONS="halt_on_error=1 ${TSAN_OPTIONS:-}" build-tsan/tests/sm/sm_threads_tsan
