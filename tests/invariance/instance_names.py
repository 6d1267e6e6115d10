#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A model reads only its own parameters: renaming a component changes nothing but the names.

Each case runs a shipped workload as shipped, then with its component given another instance
name (the PFIFO as `pfifo2`, its settings moved under the new name), and requires the same --stats
JSON once the new name is read as the old one: same statistics, simulated time, exit code and
errors (the run metadata's wall time and config_sha256 aside). A model that looked up its
neighbours or its own settings under a fixed name would run differently, or be refused.

usage: instance_names.py GPUVP SOURCE_DIR
"""
import json
import os
import re
import subprocess
import sys
import tempfile

# (workload, component, new name, settings of the component the case sets on both runs). The .pb
# kind's platform overlay sets the generation, engine map and kernel list of the component named
# `pfifo` (the shipped platform's): under another name the case sets them itself.
# Every case also sets timing parameters away from their defaults, so that a model reading them
# under a fixed name would run differently (the first case checks that they change its statistics).
FFMA = "tests/sm/data/ffma/kernelslist.g"
TIMING = {"method_cost": "3 ns", "engine_switch_cost": "250 ns", "word_cost": "2 ns"}
CASES = [
    ("models/pfifo/workloads/default.pb", "pfifo", "pfifo2", {}),
    ("models/pfifo/workloads/gf100.pb", "pfifo", "pfifo2", {"generation": "GF100"}),
    ("models/pfifo/workloads/nv40.pb", "pfifo", "pfifo2", {"generation": "NV40"}),
    ("models/pfifo/workloads/errors.pb", "pfifo", "pfifo2", {}),
    ("models/pfifo/workloads/semaphore_fault.pb", "pfifo", "pfifo2", {}),
    # the compute class's launch port binds to compute.launch from pfifo2 as from pfifo
    ("models/pfifo/workloads/compute.pb", "pfifo", "pfifo2",
     {"engine_map": "[1:m2mf, 3:m2mf, 2:compute]", "launch.kernels": FFMA}),
]


def run(gpuvp, src, workload, sets, stats):
    args = [gpuvp, "run", "--workload", workload, "--stats", stats]
    for key, value in sets:
        args += ["--set", f"{key}={value}"]
    r = subprocess.run(args, capture_output=True, text=True, cwd=src)
    if not os.path.exists(stats):
        return r.returncode, r.stderr, None
    with open(stats) as f:
        return r.returncode, r.stderr, json.load(f)


def comparable(stats, old=None, new=None):
    run_meta = {k: v for k, v in stats.pop("run").items() if k not in ("wall_s", "config_sha256", "argv", "command")}
    if new:  # the new name as a whole component of a statistic's dotted name or in a message
        stats = {re.sub(rf"(^|\.){new}(\.|$)", rf"\g<1>{old}\2", k): v for k, v in stats.items()}
        run_meta["errors"] = [re.sub(rf"\b{new}\b", old, e) for e in run_meta.get("errors", [])]
    return json.dumps({"run": run_meta, "stats": stats}, sort_keys=True)


def main():
    gpuvp, src = os.path.abspath(sys.argv[1]), sys.argv[2]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n, (workload, old, new, settings) in enumerate(CASES):
            settings = {**TIMING, **settings}
            if n == 0:
                _, _, plain = run(gpuvp, src, workload, [], os.path.join(tmp, "plain.json"))
                _, _, timed = run(gpuvp, src, workload, [(f"{old}.{k}", v) for k, v in TIMING.items()],
                                  os.path.join(tmp, "timed.json"))
                if plain is None or timed is None or comparable(plain) == comparable(timed):
                    print(f"FAIL {workload}: the timing settings {TIMING} do not change the statistics")
                    failures += 1
            a_sets = [(f"{old}.{k}", v) for k, v in settings.items()]
            b_sets = [(f"components.{old}", "none"), (f"components.{new}", "pfifo")]
            b_sets += [(f"{new}.{k}", v) for k, v in settings.items()]
            rc_a, err_a, a = run(gpuvp, src, workload, a_sets, os.path.join(tmp, f"{n}a.json"))
            rc_b, err_b, b = run(gpuvp, src, workload, b_sets, os.path.join(tmp, f"{n}b.json"))
            label = f"{workload} with {old} named {new}"
            if a is None:
                print(f"FAIL {workload}: the shipped run exits {rc_a} without statistics: {err_a.strip()}")
                failures += 1
            elif rc_b != rc_a:
                print(f"FAIL {label}: exit {rc_b}, shipped {rc_a}: {err_b.strip()}")
                failures += 1
            elif b is None or not any(k.startswith(new + ".") for k in b):
                print(f"FAIL {label}: no statistic is named after {new}")
                failures += 1
            elif comparable(a) != comparable(b, old, new):
                print(f"FAIL {label}: statistics differ")
                failures += 1
            else:
                print(f"ok   {label}: {len(a)} statistics identical")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
