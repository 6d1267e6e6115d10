#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Enforces docs/architecture.md's data flow: models meet only through declared ports.

1. No source under models/X includes a header of another model Y, except the headers listed in
   PORT_HEADERS (ports other models may use) and COMPOSITION (a component built of other
   models' parts). An include resolves first in X (next to the file, then X's root).
2. No model looks another up by name: no sc_find_object / sc_get_top_level_objects, and no
   reading of the platform's component list (`components.` keys of the configuration).
   Workload drivers find their component through the platform (platform::find_as / all_of):
   that is the host's view, not a model's, and is not checked here.
3. Every model's code is in `namespace gpuvp::X` (or a namespace nested in it), X its folder's
   name, except the few listed in NAMESPACE_EXCEPTIONS with why.
4. Every model folder models/X has its page docs/models/X.md and every page there is named after
   a model folder, except those listed in DOC_PAGE_EXCEPTIONS with why.

Usage: data_flow.py REPO_ROOT [--self-test]
"""
import os
import re
import sys

# Port headers: "<model>/<header>" -> why other models may include it. Add a model's port header
# here (e.g. the GPU memory system's) when it is declared in docs/architecture.md.
PORT_HEADERS = {
    "sm/launch_port.h": "kernel-launch port: the CP, PFIFO's compute class and the ASC launch kernels "
                        "on a compute engine bound by <component>.launch.to",
    "gpu_memory/gpu_memory_port.h": "GPU memory port: a compute engine's SMs use the shared L2 slices, crossbar "
                                    "and DRAM channels of the gpu_l2 bound by compute.l2.to",
    "gpu_memory/core/mem_port.h": "the memory system's side of an SM's L1 (fetches, replies) that the SMs' core "
                                  "is written against",
    "sm/core/gpu_config.h": "the Accel-Sim GPU configuration (shipped GPUs, option files) that the SMs and the "
                            "GPU memory system are both built from",
    "rtl_bridge/axi.h": "rtl_bridge is the library of AXI/TLM transactors that RTL-backed models are built with",
    "rtl_bridge/axi2tlm.h": "idem",
    "rtl_bridge/tlm2axil.h": "idem",
    "rtl_bridge/rtl_clock.h": "idem",
    "rtl_bridge/rtl_trace.h": "idem",
}

# Composition: (including model, "<model>/<header>") -> why. The part is a submodule of the
# component, not a peer reached over the platform.
COMPOSITION = {
    ("agx", "asc/asc.h"): "the agx SoC component contains the ASC",
    ("agx", "axi2af/axi2af.h"): "the agx SoC component contains the AXI2AF bridge",
    ("agx", "uat/uat.h"): "the agx SoC component contains the UAT",
    ("sm", "gpu_memory/core/memsys.h"): "a compute engine whose l2 port is unbound (and sm-run) owns its GPU's "
                                        "memory system",
    ("sm", "gpu_memory/core/mem_log.h"): "sm-run writes the memory system's access log of the memory system it owns",
    ("sm", "gpu_memory/core/mem_config.h"): "the GPU configuration contains the memory system's options (caches, "
                                            "DRAM); the SM's L1 caches use its cache geometry",
    ("asc", "uat/uat.h"): "the ASC's L1 cache takes the UAT's cache-maintenance operations (agx part to agx part)",
}

# (model folder, namespace) -> why a model's code may open gpuvp::<namespace> other than its own.
NAMESPACE_EXCEPTIONS = {
    ("rtl_bridge", "rtl"): "the transactor library's public, installed namespace (gpuvp::rtl) that RTL "
                           "components built out of tree are written against",
    ("agx", "agx_scenario"): "the .agx scenario workload kind registered by the agx folder",
}
# A model folder without a page of its own, or a page that is no model folder -> where / why.
DOC_PAGE_EXCEPTIONS = {
    "agx": "the SoC composition of uat, asc and axi2af: docs/architecture.md, section AGX platform",
    "rtl_bridge": "the AXI/TLM transactor library: docs/rtl.md",
    "interconnect": "the platform's router and links (platform/), not a model folder",
}
NAMESPACE = re.compile(r"^\s*namespace\s+gpuvp::(\w+)")
LOOKUP = re.compile(r"\bsc_find_object\b|\bsc_get_top_level_objects\b|find\(\s*\"components\.|children\(\s*\"components\"\)")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
SOURCE_EXT = (".h", ".hpp", ".cpp", ".cc")


def check(root):
    models_dir = os.path.join(root, "models")
    models = sorted(d for d in os.listdir(models_dir) if os.path.isdir(os.path.join(models_dir, d)))
    problems = []
    for x in models:
        for dirpath, _, files in os.walk(os.path.join(models_dir, x)):
            for f in sorted(files):
                if not f.endswith(SOURCE_EXT):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8", errors="replace") as src:
                    for n, line in enumerate(src, 1):
                        code = line.split("//")[0]
                        ns = NAMESPACE.match(code)
                        if ns and ns.group(1) != x and (x, ns.group(1)) not in NAMESPACE_EXCEPTIONS:
                            problems.append(f"{rel}:{n}: opens namespace gpuvp::{ns.group(1)}, not gpuvp::{x}")
                        if LOOKUP.search(code):
                            problems.append(f"{rel}:{n}: looks another component up by name: {line.strip()}")
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        inc = m.group(1)
                        if os.path.exists(os.path.join(dirpath, inc)) or os.path.exists(os.path.join(models_dir, x, inc)):
                            continue
                        for y in models:
                            if y == x or not os.path.exists(os.path.join(models_dir, y, inc)):
                                continue
                            key = f"{y}/{inc}"
                            if key not in PORT_HEADERS and (x, key) not in COMPOSITION:
                                problems.append(f"{rel}:{n}: includes {key}, a header of model {y} that is not a "
                                                f"declared port header (tests/platform/data_flow.py)")
    pages_dir = os.path.join(root, "docs", "models")
    pages = sorted(f[:-3] for f in os.listdir(pages_dir) if f.endswith(".md")) if os.path.isdir(pages_dir) else []
    for x in models:
        if x not in pages and x not in DOC_PAGE_EXCEPTIONS:
            problems.append(f"models/{x}: no page docs/models/{x}.md (a page is named after its folder)")
    for page in pages:
        if page not in models and page not in DOC_PAGE_EXCEPTIONS:
            problems.append(f"docs/models/{page}.md: named after no model folder (models/{page}/ does not exist)")
    return problems


def self_test(root):
    """The checks catch what they are for (a checker that cannot fail is no check)."""
    import shutil
    import tempfile
    tmp = tempfile.mkdtemp()
    try:
        for m in ("a", "b", "sm"):
            os.makedirs(os.path.join(tmp, "models", m))
        open(os.path.join(tmp, "models", "b", "b.h"), "w").write("#pragma once\n")
        open(os.path.join(tmp, "models", "sm", "launch_port.h"), "w").write("#pragma once\n")
        open(os.path.join(tmp, "models", "a", "a.h"), "w").write('#include "a.h"\n#include "launch_port.h"\n')
        os.makedirs(os.path.join(tmp, "docs", "models"))
        for page in ("a", "b", "sm"):
            open(os.path.join(tmp, "docs", "models", page + ".md"), "w").write("# page\n")
        if check(tmp):
            return "a clean tree was reported: " + "; ".join(check(tmp))
        open(os.path.join(tmp, "models", "a", "a.cpp"), "w").write(
            '#include "b.h"\nauto* p = sc_core::sc_find_object("b");\n// sc_find_object in a comment\n'
            'for (auto& n : cfg.children("components")) {}\nnamespace gpuvp::b {}\nnamespace gpuvp::a::inner {}\n')
        os.rename(os.path.join(tmp, "docs", "models", "b.md"), os.path.join(tmp, "docs", "models", "b-model.md"))
        got = check(tmp)
        want = ["models/a/a.cpp:1: includes b/b.h", "models/a/a.cpp:2: looks another component up by name",
                "models/a/a.cpp:4: looks another component up by name", "models/a/a.cpp:5: opens namespace gpuvp::b",
                "models/b: no page docs/models/b.md", "docs/models/b-model.md: named after no model folder"]
        if len(got) != 6 or any(not g.startswith(w) for g, w in zip(got, want)):
            return "expected six problems, got: " + "; ".join(got)
        return ""
    finally:
        shutil.rmtree(tmp)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    if "--self-test" in sys.argv:
        err = self_test(root)
        print("data_flow self-test: " + (err or "ok"))
        return 1 if err else 0
    problems = check(root)
    for p in problems:
        print(p)
    print(f"data_flow: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
