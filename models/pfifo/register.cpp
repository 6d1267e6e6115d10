// Registers the pfifo component type, the pb-asm/pb-decode tools and the .pb workload kind.
#include "gpuvp/registry.h"
#include "pb_text.h"

void gpuvp_register_pfifo() {
  auto& r = gpuvp::registry::global();
  r.add_tool({"pb-asm", "assemble a text pushbuffer into binary words (docs/tools/pushbuffer.md)",
              gpuvp::pfifo::pb_asm_main});
  r.add_tool({"pb-decode", "list a binary pushbuffer: commands, subchannels, methods, data",
              gpuvp::pfifo::pb_decode_main});
}
