// Registers the cp model's tools with the gpuvp program.
#include "afuc_asm.h"
#include "gpuvp/registry.h"

void gpuvp_register_cp() {
  auto& r = gpuvp::registry::global();
  r.add_tool({"afuc-asm", "assemble afuc microcode: -g 5|6 IN.asm OUT.fw", gpuvp::cp::afuc_asm_main});
  r.add_tool({"afuc-disasm", "disassemble afuc microcode: -g 5|6 [-v] IN.fw", gpuvp::cp::afuc_disasm_main});
}
