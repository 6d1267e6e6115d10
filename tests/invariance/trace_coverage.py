#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Where time went: a workload's --trace has spans covering most of its simulated time.

Runs a workload with --trace and --stats and measures, per track, the union of its complete
("X") spans. Requires the units' tracks (every track but the interconnect's ports) together to
cover at least MIN_COVER of the simulated time, and the named tracks to have spans.

usage: trace_coverage.py GPUVP MIN_COVER TRACK_PREFIX[,PREFIX...] -- RUN_ARGS...
"""
import json
import os
import subprocess
import sys
import tempfile


def union(intervals):
    total, end = 0.0, None
    start = None
    for a, b in sorted(intervals):
        if end is None or a > end:
            if end is not None:
                total += end - start
            start, end = a, b
        else:
            end = max(end, b)
    if end is not None:
        total += end - start
    return total


def main():
    gpuvp, min_cover, prefixes = sys.argv[1], float(sys.argv[2]), sys.argv[3].split(",")
    args = sys.argv[sys.argv.index("--") + 1:]
    with tempfile.TemporaryDirectory() as tmp:
        trace, stats = os.path.join(tmp, "t.json"), os.path.join(tmp, "s.json")
        r = subprocess.run([gpuvp, "run", "--quiet", "--trace", trace, "--stats", stats] + args,
                           capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            print(f"run failed: exit {r.returncode}: {r.stderr.strip()[:500]}")
            return 1
        with open(trace) as f:
            events = json.load(f)["traceEvents"]
        with open(stats) as f:
            sim_us = json.load(f)["run"]["sim_time_ps"] / 1e6
    names = {e["tid"]: e["args"]["name"] for e in events if e.get("ph") == "M"}
    spans = {}
    for e in events:
        if e.get("ph") == "X":
            spans.setdefault(names.get(e["tid"], "?"), []).append((float(e["ts"]), float(e["ts"]) + float(e["dur"])))
    units = []
    for track in sorted(spans):
        cover = union(spans[track])
        print(f"{track}: {len(spans[track])} spans, {cover:.3f} us of {sim_us:.3f} us")
        if not track.startswith("interconnect."):
            units += spans[track]
    failures = [f"no spans on a track named {p}*" for p in prefixes if not any(t.startswith(p) for t in spans)]
    total = union(units)
    print(f"units together: {total:.3f} us of {sim_us:.3f} us ({100 * total / sim_us:.1f} %)")
    if sim_us <= 0 or total < min_cover * sim_us:
        failures.append(f"units' spans cover {total:.3f} of {sim_us:.3f} us, less than {100 * min_cover:.0f} %")
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
