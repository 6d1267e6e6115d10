# SPDX-License-Identifier: Apache-2.0
"""Compare a `gpuvp sm-run --mem-log` file with an Accel-Sim event timeline.

    python3 tools/mem_log_diff.py ACCEL_SIM_EVENTS.csv[.gz] GPUVP_MEM_LOG.csv [--context N]

Both files have the columns event,cycle,unit,addr,f5,f6,f7 (docs/models/gpu_memory.md, "Event log").
Accel-Sim's addresses may carry 0x and its ACT lines an empty address column; both are
normalised. Only the first kernel of the gpuvp file is read. Events are compared per kind
(INJ, L2, DQ, ACT, RD, RSP), sorted by cycle and, within a cycle, as a set (the order within a
cycle is each simulator's own). For each kind the script prints the counts and the first
difference with a few events of context; exit status 0 when every kind is identical, 1 otherwise.
"""
import gzip
import sys

KINDS = ("INJ", "L2", "DQ", "ACT", "RD", "RSP")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    events = []
    seen_kernel = False
    with opener(path, "rt") as f:
        for line in f:
            line = line.strip()
            if line.startswith("# kernel"):
                if seen_kernel:
                    break  # only the first kernel
                seen_kernel = True
                continue
            if not line or line.startswith("#") or line.startswith("event,"):
                continue
            fields = line.split(",")
            if fields[0] not in KINDS:
                break  # the per-bank / per-channel tables after the events
            if fields[0] == "ACT" and len(fields) > 3 and fields[3] == "":
                fields = fields[:3] + fields[4:]  # Accel-Sim's empty address column
            fields = [x[2:] if x.startswith("0x") else x for x in fields]
            while fields and fields[-1] == "":
                fields.pop()
            events.append(tuple(fields))
    return events


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    context = 3
    if "--context" in argv:
        context = int(argv[argv.index("--context") + 1])
        args.remove(str(context))
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    ref, got = load(args[0]), load(args[1])
    print(f"events: Accel-Sim {len(ref)}, gpuvp {len(got)}")
    same = True
    key = lambda e: (int(e[1]), e)
    for kind in KINDS:
        a = sorted((e for e in ref if e[0] == kind), key=key)
        b = sorted((e for e in got if e[0] == kind), key=key)
        first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), None)
        if first is None and len(a) != len(b):
            first = min(len(a), len(b))
        if first is None:
            print(f"{kind:4} {len(a):8} {len(b):8}  identical")
            continue
        same = False
        print(f"{kind:4} {len(a):8} {len(b):8}  first difference at #{first}:")
        for i in range(max(0, first - context), min(max(len(a), len(b)), first + context + 1)):
            x = ",".join(a[i]) if i < len(a) else "-"
            y = ",".join(b[i]) if i < len(b) else "-"
            print(f"  {'*' if x != y else ' '} {x:48} | {y}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
