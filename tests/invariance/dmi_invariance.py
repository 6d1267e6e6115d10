#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""DMI is a speed switch only: simulated time and statistics do not depend on it.

Runs every shipped workload (the embedded ones `gpuvp --help` lists, each on the first embedded
platform that accepts it, the files under
models/*/workloads/, the traffic generators, and each embedded platform without a workload) with
its DMI switches as configured, with all of them off, and with each kind of switch off alone
(`use_dmi`, `fetch_dmi`, `grant_dmi`, `walk_dmi`, the memories' `dmi`), and requires the same
--stats JSON from every run except:
  - statistics named after the access path: any whose last name component contains `dmi`
    (dmi_accesses, dmi_fetches, dmi_grants, dmi_transactions, walk_dmi_reads, ...);
  - host memory use: `pages_allocated` of the memories (a DMI grant hands out a pointer into a
    host page, which therefore exists even if only read);
  - the run metadata that cannot match: wall_s and config_sha256 (the switches are configuration).
sim_time_ps, exit_code and errors must match too.

usage: dmi_invariance.py GPUVP SOURCE_DIR BINARY_DIR
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

SRC = "."  # runs start here: workload files name their inputs relative to the source tree
SWITCHES = ("use_dmi", "fetch_dmi", "grant_dmi", "walk_dmi", "dmi")


def dmi_switches(gpuvp, args):
    """Paths of the DMI switches in the effective configuration of `args` (config dump)."""
    r = subprocess.run([gpuvp, "config", "dump"] + args, capture_output=True, text=True, cwd=SRC)
    if r.returncode != 0:
        raise RuntimeError(f"config dump {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    found, path = [], []
    for line in r.stdout.splitlines():
        text = line.split("#", 1)[0].rstrip()
        if not text.strip() or text.lstrip().startswith("-"):
            continue
        indent = (len(text) - len(text.lstrip())) // 2
        key, _, value = text.strip().partition(":")
        path = path[:indent] + [key]
        if key in SWITCHES and value.strip() in ("true", "false"):
            found.append(".".join(path))
    return found


def comparable(stats):
    out = {}
    for k, v in stats.items():
        if k == "run":
            out[k] = {m: x for m, x in v.items() if m not in ("wall_s", "config_sha256")}
        elif "dmi" not in k.rsplit(".", 1)[-1] and not k.endswith(".pages_allocated"):
            out[k] = v
    return out


def run(gpuvp, args, sets, tmp):
    stats = os.path.join(tmp, "stats.json")
    if os.path.exists(stats):
        os.remove(stats)
    cmd = [gpuvp, "run", "--quiet", "--stats", stats] + args
    for s in sets:
        cmd += ["--set", s]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=SRC)
    if not os.path.exists(stats):
        raise RuntimeError(f"{' '.join(cmd)}: no statistics (exit {r.returncode}): {r.stderr.strip()[:500]}")
    with open(stats) as f:
        return json.load(f), r.returncode


def main():
    global SRC
    gpuvp, src, binary = sys.argv[1], sys.argv[2], sys.argv[3]
    SRC = src
    env_fw = os.path.join(binary, "adreno-fw")
    if "GPUVP_ADRENO_FW_DIR" not in os.environ and os.path.isdir(env_fw):
        os.environ["GPUVP_ADRENO_FW_DIR"] = env_fw
    help_text = subprocess.run([gpuvp, "--help"], capture_output=True, text=True, check=True).stdout
    cases, section, workloads, platforms = [], None, [], []
    for line in help_text.splitlines():
        if not line.startswith("  "):
            section = line.split(" ")[0] if line.strip() else section
            continue
        name = line.split()[0]
        if section == "workloads":
            workloads.append(name)
        elif section == "platforms" and name != "default":
            platforms.append(name)
            cases.append(["--platform", name])
    # An embedded workload runs on the first platform whose configuration accepts it.
    for name in workloads:
        for plat in [[]] + [["--platform", p] for p in platforms]:
            r = subprocess.run([gpuvp, "config", "dump", "--workload", name] + plat, capture_output=True, cwd=src)
            if r.returncode == 0:
                cases.append(["--workload", name] + plat)
                break
        else:
            cases.append(["--workload", name])  # fails below, naming the error
    for f in sorted(glob.glob(os.path.join(src, "models", "*", "workloads", "*"))):
        cases.append(["--workload", f])

    failures, runs = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for args in cases:
            label = " ".join(a if not a.startswith(src) else os.path.relpath(a, src) for a in args)
            try:
                switches = dmi_switches(gpuvp, args)
            except RuntimeError as e:
                failures.append(f"{label}: {e}")
                continue
            base, rc = run(gpuvp, args, [], tmp)
            runs += 1
            variants = [("all DMI off", [s + "=false" for s in switches])]
            for kind in SWITCHES:
                sel = [s for s in switches if s.rsplit(".", 1)[-1] == kind]
                if sel and len(sel) < len(switches):
                    variants.append((kind + " off", [s + "=false" for s in sel]))
            want = comparable(base)
            dmi_used = sum(v for k, v in base.items() if k != "run" and "dmi" in k.rsplit(".", 1)[-1]
                           and isinstance(v, (int, float)))
            print(f"{label}: {len(switches)} switches, {base['run']['sim_time_ps']} ps, exit {rc}, "
                  f"DMI counters {dmi_used}")
            for what, sets in variants:
                got, rc2 = run(gpuvp, args, sets, tmp)
                runs += 1
                have = comparable(got)
                if have == want and rc2 == rc:
                    continue
                diffs = [k for k in sorted(set(want) | set(have)) if want.get(k) != have.get(k)]
                detail = "; ".join(f"{k}: {json.dumps(want.get(k))[:120]} -> {json.dumps(have.get(k))[:120]}"
                                   for k in diffs[:6])
                failures.append(f"{label} with {what}: exit {rc} -> {rc2}; {len(diffs)} differ: {detail}")
    for f in failures:
        print("FAIL " + f)
    print(f"{len(cases)} workloads, {runs} runs, {len(failures)} differences")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
