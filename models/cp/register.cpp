// SPDX-License-Identifier: Apache-2.0
// Registers the cp model: the CP component, its tools and the .pm4 workload kind.
#include "afuc_asm.h"
#include "cp.h"
#include "gpuvp/registry.h"
#include "pm4.h"

namespace gpuvp::cp {
void register_pm4_workload();
void register_rd_workload();
}  // namespace gpuvp::cp

void gpuvp_register_cp() {
  auto& r = gpuvp::registry::global();
  r.add_component_type("cp", "Adreno CP: afuc SQE (a6xx) or PFP+ME+MEQ (a5xx), BAR0 0x400000",
                       gpuvp::make_component<gpuvp::cp::command_processor>);
  r.add_tool({"afuc-asm", "assemble afuc microcode: -g 5|6 IN.asm OUT.fw", gpuvp::cp::afuc_asm_main});
  r.add_tool({"afuc-disasm", "disassemble afuc microcode: -g 5|6 [-v] IN.fw", gpuvp::cp::afuc_disasm_main});
  r.add_tool({"pm4-asm", "assemble a .pm4 workload's ring stream: IN.pm4 OUT.bin", gpuvp::cp::pm4_asm_main});
  r.add_tool({"pm4-decode", "list PM4 packets: IN.bin | IN.pm4", gpuvp::cp::pm4_decode_main});
  gpuvp::cp::register_pm4_workload();
  gpuvp::cp::register_rd_workload();
}
