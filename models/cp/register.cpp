// Registers the cp model: the CP component and its tools.
#include "afuc_asm.h"
#include "cp.h"
#include "gpuvp/registry.h"

void gpuvp_register_cp() {
  auto& r = gpuvp::registry::global();
  r.add_component_type("cp", "Adreno CP: afuc SQE (a6xx) or PFP+ME+MEQ (a5xx), BAR0 0x400000",
                       gpuvp::make_component<gpuvp::cp::cp_model>);
  r.add_tool({"afuc-asm", "assemble afuc microcode: -g 5|6 IN.asm OUT.fw", gpuvp::cp::afuc_asm_main});
  r.add_tool({"afuc-disasm", "disassemble afuc microcode: -g 5|6 [-v] IN.fw", gpuvp::cp::afuc_disasm_main});
}
