// SPDX-License-Identifier: Apache-2.0
// Registers the pfifo component type, the pb-asm/pb-decode tools and the .pb workload kind.
#include "embedded/pfifo_default_pb.h"
#include "gpuvp/registry.h"
#include "pb_text.h"
#include "pfifo.h"
#include "workload.h"

void gpuvp_register_pfifo() {
  auto& r = gpuvp::registry::global();
  r.add_component_type("pfifo", "PFIFO command front end: channels, pusher, CACHE, puller, RAMHT, semaphores, engines",
                       gpuvp::make_component<gpuvp::pfifo::pfifo>);
  r.add_tool({"pb-asm", "assemble a text pushbuffer into binary words (docs/tools/pushbuffer.md)", gpuvp::pfifo::pb_asm_main});
  r.add_tool({"pb-decode", "list a binary pushbuffer: commands, subchannels, methods, data", gpuvp::pfifo::pb_decode_main});
  gpuvp::pfifo::register_workload_kind();
  // `gpuvp run` without --workload runs this scenario (models/pfifo/workloads/default.pb).
  r.add_embedded_workload(
      {"pfifo-default",
       "PFIFO scenario: 3 channels (DMA and IB), the copy engine (one copy through page tables), semaphores between channels", "pushbuffer",
       pfifo_default_pb});
}
