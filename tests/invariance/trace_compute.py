#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Where time went on the SMs, and the flow arrows: checks a --trace against the run's own figures.

1. A generated Accel-Sim workload (two kernels, CTAs of 4 warps, 2 SMs) runs with and without
   --trace: the statistics are identical (tracing changes no simulated result).
2. Its trace is valid JSON with, per kernel, one span on track `compute` lasting exactly the
   kernel's reported cycles (compute.results_file) times the core clock period; one span per CTA on
   the `compute.smS.ctaC` tracks, inside its kernel's span, the last ending in the kernel's last
   cycle; spans on one track never overlap; sampled warps (compute.trace_warp_sample) on the
   `compute.smS.warpW` tracks: the first and every N-th warp launched on each SM, each inside its
   CTA's span and starting with it; with trace_warp_sample 0 no warp span; beyond 2^20 exit 2.
3. Flow arrows of the copy engine, PFIFO (M2MF copy, compute LAUNCH) and CP (CP_EXEC_CS)
   workloads pair up: every "s" has exactly one "f" with the same id and vice versa, and each lies
   inside a complete span on its own track (a start in a later nanosecond than the span's start).

usage: trace_compute.py GPUVP SOURCE_DIR
"""
import json
import math
import os
import subprocess
import sys
import tempfile

# QV100 (the compute engine's default configuration): -gpgpu_clock_domains 1132.0:...; SystemC's
# default resolution of 1 ps rounds the period 883.39 ps to 883 ps.
CORE_MHZ = 1132.0
PERIOD_PS = round(1e6 / CORE_MHZ)
WARPS_PER_CTA = 4
KERNELS = [(1, 12), (2, 5)]  # (kernel id, CTAs)

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def write_kernel(path, kid, ctas):
    """An Accel-Sim trace: `ctas` CTAs of 4 warps; warp w runs w+1 dependent FFMAs, then EXIT."""
    lines = [f"-kernel name = k{kid}", f"-kernel id = {kid}", f"-grid dim = ({ctas},1,1)",
             f"-block dim = ({32 * WARPS_PER_CTA},1,1)", "-shmem = 0", "-nregs = 8", "-binary version = 70",
             "-cuda stream id = 0", "-shmem base_addr = 0x00007f4e90000000",
             "-local mem base_addr = 0x00007f4e8e000000", "-nvbit version = 1.5.5",
             "-accelsim tracer version = 5", "-enable lineinfo = 0",
             "#traces format = PC mask dest_num reg_dests opcode src_num reg_srcs mem_width mem_addresses", ""]
    for c in range(ctas):
        lines += ["#BEGIN_TB", "", f"thread block = {c},0,0", ""]
        for w in range(WARPS_PER_CTA):
            insts = [f"{16 * i:04x} ffffffff 1 R1 FFMA 3 R1 R2 R3 0" for i in range(w + 1)]
            insts.append(f"{16 * (w + 1):04x} ffffffff 0 EXIT 0 0")
            lines += [f"warp = {w}", f"insts = {len(insts)}"] + insts + [""]
        lines += ["#END_TB", ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))


def run(gpuvp, args, cwd, trace=None, stats=None):
    cmd = [gpuvp, "run", "--quiet"] + args
    if trace:
        cmd += ["--trace", trace]
    if stats:
        cmd += ["--stats", stats]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=cwd)
    check(r.returncode == 0, f"{' '.join(args)}: exit {r.returncode}: {r.stderr.strip()[:300]}")
    return r.returncode == 0


def load(trace):
    with open(trace) as f:
        events = json.load(f)["traceEvents"]  # valid JSON, or the test fails here
    names = {e["tid"]: e["args"]["name"] for e in events if e.get("ph") == "M"}
    return events, names


def ps(us):
    return round(float(us) * 1e6)


def spans_of(events, names, prefix):
    out = []
    for e in events:
        if e.get("ph") == "X" and names.get(e["tid"], "").startswith(prefix):
            out.append((names[e["tid"]], ps(e["ts"]), ps(e["ts"]) + ps(e["dur"]), e))
    return out


def check_compute(gpuvp, tmp):
    kl = os.path.join(tmp, "kernelslist.g")
    with open(kl, "w") as f:
        for kid, ctas in KERNELS:
            write_kernel(os.path.join(tmp, f"kernel-{kid}.traceg"), kid, ctas)
            f.write(f"kernel-{kid}.traceg\n")
    base = ["--workload", kl, "--set", "compute.sms=2"]
    results = os.path.join(tmp, "results.json")
    plain, traced = os.path.join(tmp, "plain.json"), os.path.join(tmp, "traced.json")
    trace = os.path.join(tmp, "t.json")
    sample = 3
    if not (run(gpuvp, base, tmp, stats=plain) and
            run(gpuvp, base + ["--set", f"compute.trace_warp_sample={sample}", "--set", "compute.trace_warps=1",
                               "--set", f"compute.results_file={results}"], tmp, trace=trace, stats=traced)):
        return
    # 1. Same statistics (the run metadata's wall time and configuration hash aside: the traced
    # run sets more parameters).
    with open(plain) as f:
        a = json.load(f)
    with open(traced) as f:
        b = json.load(f)
    check(a["run"]["sim_time_ps"] == b["run"]["sim_time_ps"], "simulated time differs with --trace")
    a.pop("run"), b.pop("run")
    diff = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    check(not diff, f"statistics differ with --trace: {diff[:10]}")

    # 2. The compute tracks.
    events, names = load(trace)
    with open(results) as f:
        cycles = {r["kernel"]: r["cycles"] for r in json.load(f)}
    kernels = {s[3]["args"]["kernel"]: s for s in spans_of(events, names, "compute") if s[0] == "compute"}
    check(sorted(kernels) == [k for k, _ in KERNELS], f"kernel spans {sorted(kernels)}")
    for kid, (_, start, end, _) in kernels.items():
        check(end - start == cycles[kid] * PERIOD_PS,
              f"kernel {kid}: span {end - start} ps, reported {cycles[kid]} cycles x {PERIOD_PS} ps")
    ctas = [s for s in spans_of(events, names, "compute.sm") if ".cta" in s[0]]
    warps = [s for s in spans_of(events, names, "compute.sm") if ".warp" in s[0] and s[3]["name"] == "warp"]
    insts = [s for s in spans_of(events, names, "compute.sm") if ".warp" in s[0] and s[3]["name"] != "warp"]
    for kid, n in KERNELS:
        mine = [s for s in ctas if s[3]["args"]["kernel"] == kid]
        check(sorted(s[3]["args"]["cta"] for s in mine) == list(range(n)), f"kernel {kid}: CTA spans {len(mine)} of {n}")
        if kid in kernels and mine:
            _, ks, ke, _ = kernels[kid]
            check(all(ks <= s[1] < s[2] <= ke for s in mine), f"kernel {kid}: a CTA span outside the kernel's")
            last = max(s[2] for s in mine)
            check(ke - PERIOD_PS <= last <= ke, f"kernel {kid}: last CTA ends at {last}, kernel at {ke}")
        # Sampled warps: per SM, the first and every `sample`-th of the warps launched there.
        by_sm = {}
        for s in mine:
            by_sm.setdefault(s[0].split(".")[1], []).append(s)
        for sm, cs in by_sm.items():
            mw = [w for w in warps if w[3]["args"]["kernel"] == kid and w[0].split(".")[1] == sm]
            launched = len(cs) * WARPS_PER_CTA
            check(len(mw) == math.ceil(launched / sample),
                  f"kernel {kid} {sm}: {len(mw)} warp spans for {launched} warps, sample {sample}")
            for w in mw:
                cta = [c for c in cs if c[3]["args"]["cta"] == w[3]["args"]["cta"]]
                check(len(cta) == 1 and cta[0][1] == w[1] and w[2] <= cta[0][2],
                      f"kernel {kid} {sm}: warp span {w[3]['args']} not inside its CTA's span")
    check(len(ctas) == sum(n for _, n in KERNELS), f"{len(ctas)} CTA spans")
    check(insts, "no instruction spans (compute.trace_warps=1)")
    for track in {s[0] for s in ctas + warps}:
        iv = sorted((s[1], s[2]) for s in ctas + warps if s[0] == track)
        check(all(b[0] >= a[1] for a, b in zip(iv, iv[1:])), f"{track}: overlapping spans")
    # Instruction spans nest in their warp's span where the warp is sampled.
    for name, s0, e0, _ in insts:
        outer = [w for w in warps if w[0] == name and w[1] <= s0 and e0 <= w[2]]
        over = [w for w in warps if w[0] == name and w[1] < e0 and s0 < w[2]]
        check(not over or outer, f"{name}: an instruction span straddles a warp span")
    print(f"compute: {len(kernels)} kernel, {len(ctas)} CTA, {len(warps)} warp, {len(insts)} instruction spans")

    # Out of its range [0, 2^20]: a configuration error naming the parameter (exit 2).
    r = subprocess.run([gpuvp, "run", "--quiet"] + base + ["--set", "compute.trace_warp_sample=1048577"],
                       capture_output=True, text=True, timeout=60, cwd=tmp)
    check(r.returncode == 2 and "compute.trace_warp_sample" in r.stderr,
          f"trace_warp_sample=1048577: exit {r.returncode}: {r.stderr.strip()[:200]}")
    # trace_warp_sample 0: no warp span at all.
    if run(gpuvp, base + ["--set", "compute.trace_warp_sample=0"], tmp, trace=trace):
        events, names = load(trace)
        check(not [s for s in spans_of(events, names, "compute.sm") if s[3]["name"] == "warp"],
              "warp spans with trace_warp_sample=0")


def check_flows(gpuvp, src, tmp, args, from_prefix, to_prefix):
    trace = os.path.join(tmp, "f.json")
    if not run(gpuvp, args, src, trace=trace):
        return
    events, names = load(trace)
    spans = {}
    for e in events:
        if e.get("ph") == "X":
            spans.setdefault(e["tid"], []).append((ps(e["ts"]), ps(e["ts"]) + ps(e["dur"])))
    starts, ends = {}, {}
    for e in events:
        if e.get("ph") in ("s", "f"):
            (starts if e["ph"] == "s" else ends).setdefault(e["id"], []).append(e)
            # Perfetto keeps whole nanoseconds: a start must fall in a later nanosecond than the
            # start of the span it binds to (else it may come first and bind to nothing).
            t = ps(e["ts"])
            inside = [(a, b) for a, b in spans.get(e["tid"], []) if a <= t <= b]
            if e["ph"] == "s":
                inside = [(a, b) for a, b in inside if t // 1000 > a // 1000]
            check(inside, f"{args[1]}: flow {e['ph']} {e['id']} on {names.get(e['tid'])} at {t} ps is in no span")
            check(e["ph"] == "s" or e.get("bp") == "e", f"{args[1]}: flow end without bp e")
    check(starts, f"{args[1]}: no flow arrows")
    check(sorted(starts) == sorted(ends), f"{args[1]}: unpaired flow ids {sorted(set(starts) ^ set(ends))[:10]}")
    check(all(len(v) == 1 for v in list(starts.values()) + list(ends.values())), f"{args[1]}: a flow id used twice")
    pairs = {(names[starts[i][0]["tid"]], names[ends[i][0]["tid"]]) for i in starts if i in ends}
    check(any(a.startswith(from_prefix) and b.startswith(to_prefix) for a, b in pairs),
          f"{args[1]}: no arrow from {from_prefix}* to {to_prefix}*: {sorted(pairs)}")
    print(f"{args[1]}: {len(starts)} flow arrows: {sorted(pairs)}")


def main():
    gpuvp, src = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        check_compute(gpuvp, tmp)
        check_flows(gpuvp, src, tmp, ["--workload", "rtl-copy"], "copy.", "interconnect.")
        check_flows(gpuvp, src, tmp, ["--workload", "pfifo-default"], "pfifo.engine.", "interconnect.")
        check_flows(gpuvp, src, tmp, ["--workload", "models/pfifo/workloads/compute.pb"], "pfifo.engine.", "compute")
        check_flows(gpuvp, src, tmp, ["--workload", "tests/cp/data/exec_cs.pm4", "--set", "components.compute=compute",
                                      "--set", "cp.launch.kernels=tests/sm/data/ffma/kernelslist.g"], "cp.", "compute")
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
