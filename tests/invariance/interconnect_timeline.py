#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The interconnect's figures lie on the run's one time line, on every shipped workload.

Runs every embedded workload (the list `gpuvp --help` prints), the Accel-Sim example of
examples/sweeps/sm-trace on the default and the gpu-memory platforms (whose SMs' traffic the GPU's
memory system times: the interconnect carries it untimed), with --stats and --trace, and checks:

1. every port's busy fraction (interconnect.PORT.busy) is at most 1 of the simulated time;
2. no queueing delay (interconnect.PORT.queueing max, ps) is longer than the run;
3. on each target link's track (`interconnect.PORT`: one server, one transfer at a time) no two
   spans overlap, and none ends after the run;
4. the example's SM traffic is counted as untimed on the VRAM link (interconnect.vram.untimed
   equals compute.mem_reads + compute.mem_writes) and books none of it: the link's busy time is
   that of the other transactions only.

usage: interconnect_timeline.py GPUVP SOURCE_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def embedded_workloads(gpuvp):
    out = subprocess.run([gpuvp, "--help"], capture_output=True, text=True, timeout=60).stdout
    names, section = [], False
    for line in out.splitlines():
        if line.startswith("workloads "):
            section = True
            continue
        if section:
            if not line.startswith("  "):
                break
            names.append(line.split()[0])
    return names


def ps(us):
    return round(float(us) * 1e6)


def run_one(gpuvp, label, args, tmp):
    stats, trace = os.path.join(tmp, "stats.json"), os.path.join(tmp, "trace.json")
    r = subprocess.run([gpuvp, "run", "--quiet", "--stats", stats, "--trace", trace] + args,
                       capture_output=True, text=True, timeout=300)
    # A workload may end in a modelled error of its own (exit 1); the figures must hold all the same.
    check(r.returncode in (0, 1), f"{label}: exit {r.returncode}: {r.stderr.strip()[:300]}")
    if r.returncode not in (0, 1):
        return None
    with open(stats) as f:
        s = json.load(f)
    end = s["run"]["sim_time_ps"]
    for key, v in s.items():
        if not key.startswith("interconnect."):
            continue
        if key.endswith(".busy"):
            check(v <= 1.0 + 1e-9, f"{label}: {key} = {v} (more than the whole run)")
        if key.endswith(".queueing"):
            check(v["max"] <= end, f"{label}: {key} max {v['max']} ps is longer than the run ({end} ps)")
    with open(trace) as f:
        events = json.load(f)["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in events if e.get("ph") == "M"}
    links = {tid for tid, n in names.items() if n.startswith("interconnect.")}
    spans = {}
    for e in events:
        if e.get("ph") == "X" and e["tid"] in links:
            spans.setdefault(e["tid"], []).append((ps(e["ts"]), ps(e["dur"])))
    for tid, lst in spans.items():
        lst.sort()
        for (a, da), (b, _) in zip(lst, lst[1:]):
            if b < a + da:
                check(False, f"{label}: spans overlap on {names[tid]}: [{a}, {a + da}) ps and one from {b} ps")
                break
        last = max(a + d for a, d in lst)
        check(last <= end, f"{label}: a span on {names[tid]} ends at {last} ps, after the run ({end} ps)")
    return s


def main():
    gpuvp, src = sys.argv[1], os.path.abspath(sys.argv[2])
    example = os.path.join(src, "examples", "sweeps", "sm-trace", "kernelslist.g")
    cases = [(f"--workload {w}", ["--workload", w]) for w in embedded_workloads(gpuvp)]
    check(len(cases) >= 2, f"gpuvp --help lists {len(cases)} embedded workloads")
    cases.append(("the sm-trace example", ["--workload", example]))
    cases.append(("the sm-trace example on gpu-memory", ["--platform", "gpu-memory", "--workload", example]))
    with tempfile.TemporaryDirectory() as tmp:
        for label, args in cases:
            s = run_one(gpuvp, label, args, tmp)
            if s is None or "compute.mem_reads" not in s:
                continue
            sm = s["compute.mem_reads"] + s["compute.mem_writes"]
            check(sm > 0, f"{label}: the SMs sent no access")
            check(s.get("interconnect.vram.untimed") == sm,
                  f"{label}: interconnect.vram.untimed = {s.get('interconnect.vram.untimed')}, SM accesses {sm}")
            booked = s["interconnect.vram.transactions"] - s["interconnect.vram.untimed"]
            if booked == 0:
                check(s["interconnect.vram.busy"] == 0, f"{label}: vram busy {s['interconnect.vram.busy']} with nothing booked")
    for f in failures:
        print("FAIL:", f)
    print(f"{len(cases)} runs, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
