// SPDX-License-Identifier: Apache-2.0
// sum_engine: the custom-model example's device (docs/extending.md). Software writes a source
// address and a byte count, then 1 to START; the engine reads the buffer through its `dma`
// initiator socket in bursts (timed TLM transactions), adds the little-endian 32-bit words
// modulo 2^32 and sets STATUS.DONE (or STATUS.ERROR when a read fails or LEN is not a multiple
// of 4). The registers sit in BAR0 at `bar0_offset`.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include "gpuvp/config.h"
#include "gpuvp/regbank.h"
#include "gpuvp/registry.h"
#include "gpuvp/stats.h"

class sum_engine : public sc_core::sc_module, public gpuvp::component {
 public:
  static constexpr uint32_t status_busy = 1, status_done = 2, status_error = 4;

  gpuvp::register_bank regs{"regs", 0x100};
  gpuvp::reg src_lo{regs, "SRC_LO", 0x00, 4, 0};                     // source address, bits 31:0
  gpuvp::reg src_hi{regs, "SRC_HI", 0x04, 4, 0};                     // source address, bits 63:32
  gpuvp::reg len{regs, "LEN", 0x08, 4, 0};                           // bytes, a multiple of 4
  gpuvp::reg start{regs, "START", 0x0c, 4, 0, gpuvp::access::wo};    // write 1: start
  gpuvp::reg status{regs, "STATUS", 0x10, 4, 0, gpuvp::access::ro};  // busy, done, error
  gpuvp::reg sum{regs, "SUM", 0x14, 4, 0, gpuvp::access::ro};        // the result

  tlm_utils::simple_initiator_socket<sum_engine> dma{"dma"};

  gpuvp::param<uint64_t> bar0_offset{this, "bar0_offset", 0xf00000, "BAR0 offset of the register block", 0, 0xffff00};
  gpuvp::param<uint64_t> burst{this, "burst", 64, "bytes per DMA read", 4, 4096};
  gpuvp::param<sc_core::sc_time> add_time{this, "add_time", sc_core::sc_time(1, sc_core::SC_NS), "time to add the words of one burst"};

  gpuvp::counter jobs{this, "jobs", "sums computed"};
  gpuvp::counter bytes{this, "bytes", "bytes read by the DMA"};

  explicit sum_engine(sc_core::sc_module_name name);
  sc_core::sc_module& module() override { return *this; }
  std::vector<target_port> targets() override { return {{"regs", &regs.in, bar0_offset, 0x100, true}}; }
  std::vector<initiator_port> initiators() override { return {{"dma", &dma}}; }
  void report(std::ostream& os) override;
  std::vector<std::string> modelled_errors() override { return errors_; }

 private:
  void thread();
  sc_core::sc_event start_ev_;
  std::vector<std::string> errors_;
};

// Adds the sum_engine component type to gpuvp's registry.
void register_sum_engine();
