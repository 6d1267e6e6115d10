// SPDX-License-Identifier: Apache-2.0
// axi2tlm: AXI4 slave pins, driven by an RTL master, turned into TLM-2.0 transactions on an
// initiator socket (bound to the interconnect, so RTL traffic is routed, contends and is counted
// like any other initiator's). 32- or 64-bit data bus (32: byte lanes 0-3 of the pins' data).
//
// Reads: the AR request is queued (up to max_outstanding); when it reaches the head, its bytes
// are read with b_transport: beats whose byte ranges are contiguous (INCR; the partial first
// beat of an unaligned address; WRAP's two halves) form one TLM transaction, a FIXED burst is one
// per beat. R beats carry the request's ID in order, the first one ceil(delay / period) cycles
// after the transaction returned (delay: its annotated delay).
// Writes: WREADY rises only once the burst's AW was accepted (allowed by A3.3.1). After the last
// beat, each run of contiguous strobed bytes is one TLM write; the B response (request's ID)
// comes ceil(delay / period) cycles later. Beats without strobes write nothing.
// Responses: TLM_OK -> OKAY, TLM_ADDRESS_ERROR -> DECERR, any other error -> SLVERR (all beats of
// a read carry the worst response).
// ready_delay holds AWREADY/ARREADY low for that many cycles of a pending VALID (back-pressure, to
// exercise the master's handshakes).
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include "transactor.h"

namespace gpuvp::rtl {

class axi2tlm : public transactor {
 public:
  tlm_utils::simple_initiator_socket<axi2tlm> out{"out"};
  axi4_pins& pins;

  param<uint64_t> max_outstanding{this, "max_outstanding", 4, "read and write requests accepted ahead", 1, 64};
  param<uint64_t> ready_delay{this, "ready_delay", 0, "cycles a pending AWVALID/ARVALID waits for READY", 0, 64};

  counter transactions{this, "transactions", "TLM transactions issued"};
  counter bursts{this, "bursts", "AXI bursts received"};
  counter beats{this, "beats", "AXI data beats transferred"};

  // bus_bytes: 4, 8, 16 or 32 (as the pins).
  axi2tlm(sc_core::sc_module_name name, rtl_clock& clock, axi4_pins& pins, unsigned bus_bytes = axi4_bus_bytes);
  // Sees every TLM transaction after it returned (the lock-step scoreboard listens here).
  std::function<void(const tlm::tlm_generic_payload&)> observer;

  void sample(uint64_t cycle) override;
  void update(uint64_t cycle) override;
  bool active() const override { return !ar_.empty() || !aw_.empty() || !b_.empty(); }

 private:
  struct request {
    uint32_t id = 0, len = 0, size = 0, type = 0;
    uint64_t addr = 0;
    std::vector<beat_data> data;  // read: beats; write: collected beats
    std::vector<uint32_t> strb;
    uint32_t resp = resp_okay;
    bool done = false;  // read: TLM transactions made
    uint64_t ready_cycle = 0;
    unsigned next = 0;          // next R beat
    sc_core::sc_time accepted;  // address handshake (trace)
  };
  struct response {
    uint32_t id, resp;
    uint64_t ready_cycle;
    uint64_t addr;
    unsigned beats;
    sc_core::sc_time accepted;
  };
  std::vector<uint64_t> beat_addresses(const request& r) const;
  uint32_t transport(tlm::tlm_command cmd, uint64_t addr, unsigned char* data, unsigned len, sc_core::sc_time& delay);
  void do_read(request& r);
  void do_write(request& r);
  std::deque<request> ar_, aw_;
  std::deque<response> b_;
  axi_sample s_;
  beat_data wdata_;  // the W beat of the last edge, all lanes
  uint64_t aw_wait_ = 0, ar_wait_ = 0;
  const unsigned bus_bytes_;
};

}  // namespace gpuvp::rtl
