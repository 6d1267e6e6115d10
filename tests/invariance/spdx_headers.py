#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Every source file of the project (C++, SystemVerilog, Python, shell, CMake) names its licence in
# an SPDX line among its first three lines; prints FILE for each one that does not, exits 1 then.
import os
import sys

TAG = "SPDX-License-Identifier: Apache-2.0"
DIRS = ["models", "platform", "sc_main", "tests", "bench", "fuzz", "firmware", "python", "rtl", "examples", "tools",
        "cmake", ".ci"]
SOURCE = (".cpp", ".h", ".sv", ".v", ".py", ".sh", ".cmake", ".in")


def is_source(path):
    name = os.path.basename(path)
    return name == "CMakeLists.txt" or name.endswith(SOURCE) or path.endswith(os.path.join(".ci", "run"))


def main(root):
    missing, seen = [], 0
    paths = [os.path.join(root, "CMakeLists.txt")]
    for d in DIRS:
        for base, dirs, files in os.walk(os.path.join(root, d)):
            dirs[:] = [x for x in dirs if x != "__pycache__"]
            paths += [os.path.join(base, f) for f in files]
    for p in sorted(paths):
        if not is_source(p):
            continue
        seen += 1
        with open(p, encoding="utf-8", errors="replace") as f:
            head = [f.readline() for _ in range(3)]
        if not any(TAG in line for line in head):
            missing.append(os.path.relpath(p, root))
    for m in missing:
        print(f"{m}: no '{TAG}' line among the first three lines")
    print(f"{seen} source files, {len(missing)} without an SPDX line")
    return 1 if missing or seen == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
