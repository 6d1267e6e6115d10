// SPDX-License-Identifier: Apache-2.0
// The a6xx pipe registers the firmware writes through $addr bits 31:24 (Mesa adreno_pipe_regs.xml):
// the NRT memory port and the event pipe.
#include "cp_uc.h"

namespace gpuvp::cp {

void command_processor::uc::pipe_write(uint32_t id, uint32_t v) {
  switch (id) {
    case 0xa0:
      m.nrt_addr_lo = v;
      return;
    case 0xa1:
      m.nrt_addr_hi = v;
      return;
    case 0xa2:
      mem_write32(nrt_next(), v);
      return;
    case 0xe7:
      ++m.pipe_events;
      ++m.events;
      if (m.cs_outstanding_)  // the event completes after every kernel launched before it
        block(m.cs_done_ev_, m.stall_compute, [this] { return m.cs_outstanding_ == 0; });
      return;
    case 0xe8:
      ev_addr = (ev_addr & ~uint64_t(0xffffffffu)) | v;
      return;
    case 0xe9:
      ev_addr = (ev_addr & 0xffffffffu) | uint64_t(v) << 32;
      return;
    case 0xea:
      ev_ctrl = v;
      if (v & 2) {  // TIMESTAMP: 64 bits
        const uint64_t t = timestamp();
        ++m.pipe_ts_writes;
        mem_write32(ev_addr, uint32_t(t));
        mem_write32(ev_addr + 4, uint32_t(t >> 32));
      }
      if (v & 4) m.raise(INT_EVENT);
      return;
    case 0xeb:
      if (!(ev_ctrl & 2)) {
        ++m.pipe_ts_writes;
        mem_write32(ev_addr, v);
      }
      return;
    default:
      ++m.pipe_other;
      return;
  }
}

}  // namespace gpuvp::cp
