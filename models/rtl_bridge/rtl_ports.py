#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""rtl_ports.py: writes the glue of gpuvp_add_rtl_component (cmake/gpuvp_rtl.cmake, docs/rtl.md).

Reads the RTL top's real ports (names, directions, widths) from Verilator's --xml-only output,
matches them against the call's CLOCK / RESET / BUS / IRQ / BUSY / TIE declarations and writes a
C++ file that binds every port of the Verilated SystemC model to gpuvp's transactors
(models/rtl_bridge/rtl_component.h). Declaration errors (a bus without its required signals, a
data width the transactors do not take, a port going the wrong way) stop the build with a message
naming the component and the port; ports that none of the declarations claim stay unbound and are
refused when the component is built (configuration error, exit 2), as the runtime check says.
"""
import argparse
import sys
import xml.etree.ElementTree as ET

# Signal suffixes of each channel, as seen from the slave: (suffix, slave input?, required?).
AXI4 = [
    ("awid", True, False), ("awaddr", True, True), ("awlen", True, True), ("awsize", True, True),
    ("awburst", True, True), ("awvalid", True, True), ("awready", False, True),
    ("wdata", True, True), ("wstrb", True, True), ("wlast", True, True), ("wvalid", True, True),
    ("wready", False, True),
    ("bid", False, False), ("bresp", False, True), ("bvalid", False, True), ("bready", True, True),
    ("arid", True, False), ("araddr", True, True), ("arlen", True, True), ("arsize", True, True),
    ("arburst", True, True), ("arvalid", True, True), ("arready", False, True),
    ("rid", False, False), ("rdata", False, True), ("rresp", False, True), ("rlast", False, True),
    ("rvalid", False, True), ("rready", True, True),
]
AXIL = [
    ("awaddr", True, True), ("awvalid", True, True), ("awready", False, True),
    ("wdata", True, True), ("wstrb", True, True), ("wvalid", True, True), ("wready", False, True),
    ("bresp", False, True), ("bvalid", False, True), ("bready", True, True),
    ("araddr", True, True), ("arvalid", True, True), ("arready", False, True),
    ("rdata", False, True), ("rresp", False, True), ("rvalid", False, True), ("rready", True, True),
]
# Optional AXI signals gpuvp does not use: inputs get the AXI default 0 (normal, non-secure data
# access; device non-bufferable; no lock, QoS, region or user bits); outputs are left unread.
OPTIONAL = ["awlock", "awcache", "awprot", "awqos", "awregion", "awuser", "wuser", "buser",
            "arlock", "arcache", "arprot", "arqos", "arregion", "aruser", "ruser", "wid"]


def fail(component, msg):
    sys.exit(f"gpuvp_add_rtl_component({component}): {msg}")


def read_ports(xml_file, top):
    root = ET.parse(xml_file).getroot()
    widths = {}
    for t in root.iter("basicdtype"):
        left, right = t.get("left"), t.get("right")
        widths[t.get("id")] = 1 if left is None else abs(int(left) - int(right)) + 1
    for m in root.iter("module"):
        if m.get("topModule") == "1" or m.get("name") == top:
            ports = {}
            for v in m.findall("var"):
                if v.get("dir") in ("input", "output", "inout"):
                    ports[v.get("name")] = (v.get("dir"), widths.get(v.get("dtype_id"), 0))
            return ports
    sys.exit(f"rtl_ports.py: no top module {top} in {xml_file}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--xml", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--top", required=True)
    ap.add_argument("--clock", required=True)
    ap.add_argument("--reset", required=True)
    ap.add_argument("--active-high", action="store_true")
    ap.add_argument("--bus", action="append", default=[], help="PREFIX:AXI4|AXI4LITE:SLAVE|MASTER")
    ap.add_argument("--irq", action="append", default=[])
    ap.add_argument("--busy", default="")
    ap.add_argument("--tie", action="append", default=[], help="PORT=VALUE")
    ap.add_argument("--legacy", action="store_true", help="old form: transactors named in/regs/mem")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    n = a.name
    ports = read_ports(a.xml, a.top)
    claimed = {}

    def need(port, direction, width=None, what=""):
        if port not in ports:
            fail(n, f"the top {a.top} has no port {port}{what}; its ports: {', '.join(sorted(ports))}")
        d, w = ports[port]
        if d != direction:
            fail(n, f"port {port}{what} is an {d}, expected an {direction}")
        if width is not None and w != width:
            fail(n, f"port {port}{what} is {w} bits wide, expected {width}")
        claimed[port] = what

    lines = []
    need(a.clock, "input", 1, " (CLOCK)")
    lines.append(f"  b.wire(d->{a.clock}, b.clk.clk);")
    need(a.reset, "input", 1, " (RESET)")
    lines.append(f"  b.wire(d->{a.reset}, b.clk.{'rst' if a.active_high else 'rst_n'});")
    buses = []
    for i, spec in enumerate(a.bus):
        prefix, kind, role = spec.split(":")
        lite, master = kind == "AXI4LITE", role == "MASTER"
        if lite and master:
            fail(n, f"BUS {prefix}: an AXI4-Lite port can only be a SLAVE")
        signals = AXIL if lite else AXI4
        by_suffix = {p[len(prefix):].lower(): p for p in ports if p.startswith(prefix)}
        if not by_suffix:
            fail(n, f"BUS {prefix}: the top {a.top} has no port starting with '{prefix}' (prefixes are case-sensitive)")
        name = prefix.rstrip("_").lower()
        pins = f"b.{'axil' if lite else 'axi4'}_bus({i})"
        for suffix, slave_in, required in signals:
            port = by_suffix.get(suffix)
            if port is None:
                if required:
                    fail(n, f"BUS {prefix} {kind}: no port {prefix}{suffix} (or another case of it)")
                continue
            need(port, "input" if slave_in != master else "output", what=f" (BUS {prefix})")
            wide = suffix in ("wdata", "rdata") and ports[port][1] > (32 if lite else 64)
            lines.append(f"  b.wire(d->{port}, {'*' if wide else ''}{pins}.{suffix}{'_wide' if wide else ''});")
        for suffix in OPTIONAL:
            port = by_suffix.get(suffix)
            if port is None:
                continue
            d, w = ports[port]
            claimed[port] = "optional"
            if d == "input":
                lines.append(f"  b.tie(d->{port}, 0);")
            else:
                lines.append(f"  b.unread(d->{port});")
        data_bits = ports[by_suffix["wdata"]][1]
        ok = (32, 64) if lite else (32, 64, 128, 256)
        if data_bits not in ok:
            fail(n, f"BUS {prefix}: {data_bits}-bit data; gpuvp's {kind} transactors take {', '.join(map(str, ok))} bits")
        if ports[by_suffix["wstrb"]][1] != data_bits // 8:
            fail(n, f"BUS {prefix}: WSTRB has {ports[by_suffix['wstrb']][1]} bits for {data_bits}-bit data")
        id_port = by_suffix.get("awid" if master else "bid")
        id_bits = 0 if lite or id_port is None else ports[id_port][1]
        addr_bits = ports[by_suffix["awaddr"]][1]
        if a.legacy:
            xname = "regs" if lite else "mem" if master else "in"
        else:
            xname = name
        buses.append(f'{{"{name}", "{prefix.rstrip("_")}", "{xname}", {str(lite).lower()}, {str(master).lower()}, '
                     f'{data_bits // 8}, {addr_bits}, {id_bits}}}')
    for irq in a.irq:
        need(irq, "output", 1, " (IRQ)")
        lines.append(f'  b.irq(d->{irq});')
    busy = a.busy.rstrip("?")
    if busy and (busy in ports or not a.busy.endswith("?")):
        need(busy, "output", 1, " (BUSY)")
        lines.append(f"  b.busy(d->{busy});")
    for t in a.tie:
        port, _, value = t.partition("=")
        need(port, "input", what=" (TIE)")
        lines.append(f"  b.tie(d->{port}, {int(value, 0)}u);")

    single = len(buses) == 1 or a.legacy
    body = "\n".join(lines)
    with open(a.out, "w") as f:
        f.write(f"""// Generated by gpuvp_add_rtl_component({n}) (cmake/gpuvp_rtl.cmake, models/rtl_bridge/rtl_ports.py)
// from Verilator's description of the top {a.top}'s ports.
#include "V{n}.h"
#include "rtl_component.h"

namespace {{
std::unique_ptr<sc_core::sc_module> build_{n}(gpuvp::rtl::rtl_block& b) {{
  auto d = std::make_unique<V{n}>("rtl");
{body}
  b.traced([m = d.get()](VerilatedFstC* t) {{ m->trace(t, 99); }});
  return d;
}}
}}  // namespace

void gpuvp_register_{n}() {{
  static const gpuvp::rtl::block_spec spec{{"{n}", "{a.top}", {str(a.active_high).lower()}, {str(single).lower()},
                                           {{{", ".join(buses)}}}}};
  gpuvp::rtl::register_rtl_block(spec, &build_{n});
}}
""")


if __name__ == "__main__":
    main()
