#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Lay out every C++ file the project tracks with .clang-format (issue #31).
#   tools/format.sh          rewrite the files in place
#   tools/format.sh --check  list the files that differ and exit 1 (the test format.check)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "format.sh: clang-format not found (Debian package clang-format)" >&2; exit 2; }
mapfile -t files < <(git ls-files "*.cpp" "*.h" "*.hpp" "*.cc")
if [[ "${1:-}" == --check ]]; then
  bad=0
  for f in "${files[@]}"; do
    if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then echo "format.sh: $f differs from .clang-format (run tools/format.sh)"; bad=1; fi
  done
  exit $bad
fi
clang-format -i "${files[@]}"
