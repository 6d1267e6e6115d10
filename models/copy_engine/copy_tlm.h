// SPDX-License-Identifier: Apache-2.0
// copy_tlm: the TLM model of the copy engine block (rtl/copy_engine/copy_engine.sv): the same
// registers and the same memory transactions, loosely timed.
//
// Registers (32-bit; BAR0 window of the copy component):
//   0x00 SRC_LO, 0x04 SRC_HI   source byte address
//   0x08 DST_LO, 0x0C DST_HI   destination byte address
//   0x10 LEN                   bytes to copy (0: the copy completes at once)
//   0x14 CTRL                  bit0 GO (write 1 starts a copy when idle; reads 0), bit1 IRQ_EN
//   0x18 STATUS                bit0 BUSY (ro), bit1 DONE (w1c), bit2 ERROR (w1c)
//   0x1C ID                    0x434F5059 ("COPY")
// irq = (DONE | ERROR) & IRQ_EN (level).
//
// The copy goes in chunks, as in the RTL: the longest run such that neither the read nor the
// write covers more than 16 beats of 8 bytes or crosses a 4 KiB boundary. Per chunk: one read of
// the beats' bytes from the source address (len = beats*8 - src%8, as the AXI read returns whole
// beats), then one write of the chunk's bytes. An error response stops the copy with ERROR.
// Timing estimate per chunk: the reads' and writes' annotated delays plus (read beats + write
// beats + chunk_overhead) clock cycles.
#pragma once
#include <cstdint>
#include <functional>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include "gpuvp/config.h"
#include "gpuvp/regbank.h"
#include "gpuvp/stats.h"

namespace gpuvp::copy_engine {

namespace copy_engine_regs {
constexpr uint64_t src_lo = 0x00, src_hi = 0x04, dst_lo = 0x08, dst_hi = 0x0c, len = 0x10, ctrl = 0x14, status = 0x18, id = 0x1c;
constexpr uint32_t ctrl_go = 1, ctrl_irq_en = 2;
constexpr uint32_t status_busy = 1, status_done = 2, status_error = 4;
constexpr uint32_t id_value = 0x434f5059;
constexpr unsigned max_beats = 16;  // the RTL's MAX_BEATS
}  // namespace copy_engine_regs

class copy_tlm : public sc_core::sc_module {
 public:
  gpuvp::register_bank regs{"regs", 0x100};
  gpuvp::reg src_lo{regs, "SRC_LO", copy_engine_regs::src_lo, 4, 0};
  gpuvp::reg src_hi{regs, "SRC_HI", copy_engine_regs::src_hi, 4, 0};
  gpuvp::reg dst_lo{regs, "DST_LO", copy_engine_regs::dst_lo, 4, 0};
  gpuvp::reg dst_hi{regs, "DST_HI", copy_engine_regs::dst_hi, 4, 0};
  gpuvp::reg len{regs, "LEN", copy_engine_regs::len, 4, 0};
  gpuvp::reg ctrl{regs, "CTRL", copy_engine_regs::ctrl, 4, 0, gpuvp::access::rw, 0x3};
  gpuvp::reg status{regs, "STATUS", copy_engine_regs::status, 4, 0, gpuvp::access::w1c, 0x6};
  gpuvp::reg id{regs, "ID", copy_engine_regs::id, 4, copy_engine_regs::id_value, gpuvp::access::ro};

  tlm_utils::simple_initiator_socket<copy_tlm> mem{"mem"};
  sc_core::sc_out<bool> irq{"irq"};

  gpuvp::counter copies{this, "copies", "copies completed"};
  gpuvp::counter bytes{this, "bytes", "bytes copied"};
  gpuvp::counter chunks{this, "chunks", "chunks (one read and one write burst each)"};

  // clock: the block's clock (cycles of the estimate); overhead: cycles per chunk besides beats.
  copy_tlm(sc_core::sc_module_name name, const sc_core::sc_time& clock, uint64_t chunk_overhead);
  // Shadow mode (lock-step): writes are not sent; their delay is `shadow_write_latency`.
  void set_shadow(const sc_core::sc_time& write_latency) {
    shadow_ = true;
    shadow_write_latency_ = write_latency;
  }
  // Sees every memory transaction as issued (after it returned; for writes in shadow mode, instead of sending it).
  std::function<void(const tlm::tlm_generic_payload&)> observer;
  // Called when a copy finished (simulated time of its end, after the estimate).
  std::function<void()> on_done;

 private:
  void thread();
  void update_irq();
  bool transfer(tlm::tlm_command cmd, uint64_t addr, unsigned char* data, unsigned n, sc_core::sc_time& t);
  sc_core::sc_time clock_;
  uint64_t overhead_;
  bool busy_ = false, shadow_ = false;
  sc_core::sc_time shadow_write_latency_;
  sc_core::sc_time started_;  // the running copy's GO (its trace span's start)
  uint32_t track_ = 0;        // trace track (0: not made yet)
  sc_core::sc_event go_, irq_changed_;
};

}  // namespace gpuvp::copy_engine
