// SPDX-License-Identifier: Apache-2.0
// tlm2axil: a TLM-2.0 target socket driving AXI4-Lite master pins into an RTL register block
// (32- or 64-bit data, 32-bit addresses relative to the block).
//
// An access of 1, 2, 4 (or, on a 64-bit bus, 8) bytes within one bus word is one AXI4-Lite
// transfer at the word's address (AW and W presented together; WSTRB from the address and length,
// byte enables applied); on a 32-bit bus an aligned 8-byte access is two transfers, low word
// first. Anything else answers
// TLM_BURST_ERROR_RESPONSE. One transfer is outstanding at a time. SLVERR/DECERR map to TLM
// responses as for tlm2axi. Debug access: none (0 bytes).
#pragma once
#include <cstdint>
#include <deque>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>
#include "transactor.h"

namespace gpuvp::rtl {

class tlm2axil : public transactor {
 public:
  tlm_utils::simple_target_socket<tlm2axil> in{"in"};
  axil_pins& pins;

  counter reads{this, "reads", "AXI4-Lite read transfers"};
  counter writes{this, "writes", "AXI4-Lite write transfers"};

  tlm2axil(sc_core::sc_module_name name, rtl_clock& clock, axil_pins& pins);  // bus width: the pins'
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);

  void sample(uint64_t cycle) override;
  void update(uint64_t cycle) override;
  bool active() const override { return !queue_.empty(); }

 private:
  struct transfer {
    bool write = false;
    uint32_t addr = 0, strb = 0;
    uint64_t data = 0;
    uint32_t resp = 0;
    bool aw_done = false, w_done = false, addr_done = false, finished = false;
    sc_core::sc_time start;  // queued (trace)
    sc_core::sc_event done;
  };
  bool run(transfer& t);  // queues it and waits; false on an error response
  std::deque<transfer*> queue_;
  axi_sample s_;
};

}  // namespace gpuvp::rtl
