#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""`gpuvp sm-run` on Ctrl-C: the statistics so far, the wall time, exit 130 (SIGTERM: 143).

A kernel list naming the sm-trace example's kernel 400 times runs for minutes; once sm-run has
printed its `memory:` line (its handler is installed from there on) the test sends SIGINT, then
checks that sm-run ends within seconds with exit 130, says where it stopped (`interrupted by
SIGINT in kernel N at cycle C`), prints that kernel's figures so far (`kernel N _Z10fma_...`),
how many kernels completed (N - 1 of 400) and its wall time with set-up and simulation; the
kernels before it are numbered 1, 2, ... in list order (one trace file, one id in its header).

usage: sm_run_interrupt.py GPUVP SOURCE_DIR
"""
import os
import re
import signal
import subprocess
import sys
import tempfile
import time


def main():
    gpuvp, src = sys.argv[1], os.path.abspath(sys.argv[2])
    trace = os.path.join(src, "examples", "sweeps", "sm-trace", "kernel-1.traceg")
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        lst = os.path.join(tmp, "kernelslist.g")
        with open(lst, "w") as f:
            f.write((trace + "\n") * 400)
        for sig, code in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
            p = subprocess.Popen([gpuvp, "sm-run", "--sms", "4", lst], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)
            out = ""
            while "memory:" not in out:  # the line is flushed once the handler is in place
                line = p.stdout.readline()
                if not line:
                    break
                out += line
            time.sleep(0.5)
            p.send_signal(sig)
            try:
                rest, err = p.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                p.kill()
                failures.append(f"{sig.name}: sm-run did not stop within 60 s")
                continue
            out += rest
            name = "SIGINT" if sig == signal.SIGINT else "SIGTERM"
            if p.returncode != code:
                failures.append(f"{name}: exit {p.returncode}, expected {code}: {err.strip()[:300]}")
            m = re.search(r"interrupted by " + name + r" in kernel (\d+) at cycle (\d+) \(CTAs (\d+) of 16 done\)", out)
            if not m:
                failures.append(f"{name}: no 'interrupted by' line: {out[-500:]}")
                continue
            n = int(m.group(1))
            if f"kernel {n} _Z10fma_streamPfS_:" not in out:
                failures.append(f"{name}: the interrupted kernel's figures are missing")
            if f"{n - 1} of 400 kernels completed" not in out:
                failures.append(f"{name}: no '{n - 1} of 400 kernels completed' line")
            for k in range(1, n):
                if f"kernel {k} _Z10fma_streamPfS_:" not in out:
                    failures.append(f"{name}: kernel {k} is not numbered in list order")
                    break
            if not re.search(r"wall time: [0-9.]+ s from the program's start \(set-up [0-9.]+ s, simulation [0-9.]+ s\)", out):
                failures.append(f"{name}: no wall time line")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
