#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""rtl_ports.py (gpuvp_add_rtl_component's port reader) on hand-written Verilator XML: what it
accepts, and each declaration error naming the component and the port. No Verilator needed."""
import os
import subprocess
import sys
import tempfile

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "models", "rtl_bridge", "rtl_ports.py")

AXI4_SLAVE = [  # (suffix, slave input?, width)
    ("awaddr", 1, 16), ("awlen", 1, 8), ("awsize", 1, 3), ("awburst", 1, 2), ("awvalid", 1, 1), ("awready", 0, 1),
    ("awprot", 1, 3), ("wdata", 1, 64), ("wstrb", 1, 8), ("wlast", 1, 1), ("wvalid", 1, 1), ("wready", 0, 1),
    ("bresp", 0, 2), ("bvalid", 0, 1), ("bready", 1, 1), ("araddr", 1, 16), ("arlen", 1, 8), ("arsize", 1, 3),
    ("arburst", 1, 2), ("arvalid", 1, 1), ("arready", 0, 1), ("rdata", 0, 64), ("rresp", 0, 2), ("rlast", 0, 1),
    ("rvalid", 0, 1), ("rready", 1, 1), ("buser", 0, 1)]


def xml(ports):
    types, lines = {}, []
    for name, direction, width in ports:
        tid = types.setdefault(width, str(len(types) + 1))
        lines.append(f'<var name="{name}" dtype_id="{tid}" dir="{direction}" vartype="logic"/>')
    dtypes = "".join(f'<basicdtype id="{i}" name="logic"' + ("" if w == 1 else f' left="{w - 1}" right="0"') + "/>"
                     for w, i in types.items())
    return (f'<verilator_xml><netlist><module name="ip" topModule="1">{"".join(lines)}</module>'
            f'<typetable>{dtypes}</typetable></netlist></verilator_xml>')


def ports(prefix="S_AXI_", drop=(), change=None):
    p = [("clk", "input", 1), ("rst", "input", 1)]
    for suffix, slave_in, width in AXI4_SLAVE:
        if suffix in drop:
            continue
        d = "input" if slave_in else "output"
        if change and suffix in change:
            d, width = change[suffix]
        p.append((prefix + suffix.upper(), d, width))
    return p


def run(port_list, bus="S_AXI_:AXI4:SLAVE", extra=(), active_high=True):
    with tempfile.TemporaryDirectory() as d:
        x = os.path.join(d, "p.xml")
        with open(x, "w") as f:
            f.write(xml(port_list))
        out = os.path.join(d, "glue.cpp")
        r = subprocess.run([sys.executable, SCRIPT, "--xml", x, "--name", "ip_x", "--top", "ip", "--clock", "clk",
                            "--reset", "rst", *(["--active-high"] if active_high else []), f"--bus={bus}", *extra,
                            "--out", out],
                           capture_output=True, text=True)
        glue = open(out).read() if r.returncode == 0 else ""
        return r.returncode, r.stderr, glue


failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)


rc, err, glue = run(ports())
expect(rc == 0, f"a complete AXI4 slave is accepted: {err}")
expect("b.tie(d->S_AXI_AWPROT, 0);" in glue, "AWPROT tied to 0")
expect("b.unread(d->S_AXI_BUSER);" in glue, "BUSER left unread")
expect("b.wire(d->rst, b.clk.rst);" in glue, "active-high reset wired to rst")
expect('{"s_axi", "S_AXI", "s_axi", false, false, 8, 16, 0}' in glue, "bus spec: 8-byte data, 16-bit address, no IDs")

rc, err, _ = run(ports(drop=("wlast",)))
expect(rc != 0 and "gpuvp_add_rtl_component(ip_x): BUS S_AXI_ AXI4: no port S_AXI_wlast" in err, f"missing WLAST: {err}")

rc, err, glue = run(ports(change={"wdata": ("input", 128), "wstrb": ("input", 16), "rdata": ("output", 128)}))
expect(rc == 0, f"128-bit data is accepted: {err}")
expect("b.wire(d->S_AXI_WDATA, *b.axi4_bus(0).wdata_wide);" in glue, "128-bit WDATA on the wide pins")
expect("b.wire(d->S_AXI_RDATA, *b.axi4_bus(0).rdata_wide);" in glue, "128-bit RDATA on the wide pins")
expect('{"s_axi", "S_AXI", "s_axi", false, false, 16, 16, 0}' in glue, "bus spec: 16-byte data")

rc, err, _ = run(ports(change={"wdata": ("input", 512), "wstrb": ("input", 64), "rdata": ("output", 512)}))
expect(rc != 0 and "512-bit data; gpuvp's AXI4 transactors take 32, 64, 128, 256 bits" in err, f"512-bit data: {err}")

rc, err, _ = run(ports(change={"awready": ("input", 1)}))
expect(rc != 0 and "port S_AXI_AWREADY (BUS S_AXI_) is an input, expected an output" in err, f"wrong direction: {err}")

rc, err, _ = run(ports(), bus="s_axi_:AXI4:SLAVE")
expect(rc != 0 and "no port starting with 's_axi_' (prefixes are case-sensitive)" in err, f"prefix case: {err}")

rc, err, _ = run(ports(change={"wstrb": ("input", 4)}))
expect(rc != 0 and "WSTRB has 4 bits for 64-bit data" in err, f"WSTRB width: {err}")

# Reset polarity: ACTIVE_LOW wires the port to the active-low reset.
rc, err, glue = run(ports(), active_high=False)
expect(rc == 0 and "b.wire(d->rst, b.clk.rst_n);" in glue, f"active-low reset wired to rst_n: {err}")

# TIE: an input that is none of the bus, clock, reset or interrupt, held at the declared value;
# without the TIE it stays unwired (the component is refused at elaboration, naming it).
extra_in = ports() + [("i_cfg", "input", 4)]
rc, err, glue = run(extra_in, extra=("--tie", "i_cfg=0x5"))
expect(rc == 0 and "b.tie(d->i_cfg, 5u);" in glue, f"TIE i_cfg=0x5: {err}")
rc, err, glue = run(extra_in)
expect(rc == 0 and "i_cfg" not in glue, f"an undeclared input is left unwired: {err}")
rc, err, _ = run(ports(), extra=("--tie", "S_AXI_AWREADY=1"))
expect(rc != 0 and "port S_AXI_AWREADY (TIE) is an output, expected an input" in err, f"TIE on an output: {err}")

# IRQ: a 1-bit output.
rc, err, glue = run(ports() + [("o_irq", "output", 1)], extra=("--irq", "o_irq"))
expect(rc == 0 and "b.irq(d->o_irq);" in glue, f"IRQ o_irq: {err}")
rc, err, _ = run(ports() + [("o_irq", "output", 2)], extra=("--irq", "o_irq"))
expect(rc != 0 and "port o_irq (IRQ) is 2 bits wide, expected 1" in err, f"2-bit IRQ: {err}")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("rtl_ports.py: all cases passed")
