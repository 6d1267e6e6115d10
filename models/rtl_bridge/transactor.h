// SPDX-License-Identifier: Apache-2.0
// Transactors between TLM-2.0 and AXI pins (docs/rtl.md):
//   tlm2axi   TLM target -> AXI4 master pins, into an RTL slave (memories, register files)
//   tlm2axil  TLM target -> AXI4-Lite master pins, into an RTL register block
//   axi2tlm   AXI4 slave pins, from an RTL master -> TLM initiator (bound to the interconnect)
// Each runs on an rtl_clock and carries a protocol checker (axi_checker.h) on its pins.
//
// Time. On the TLM side a transactor is loosely timed; on the pin side time is cycles:
//   - A target transactor (tlm2axi, tlm2axil) first waits for the initiator's annotated delay (so
//     the pins see the request at the initiator's local time), then the request travels the pins
//     and b_transport returns, with the delay set to zero, at the time of the last response
//     handshake: the RTL's latency is real simulated time.
//   - An initiator transactor (axi2tlm) calls b_transport when a request is complete on the pins
//     (AR handshake; last W beat) with a zero delay. A target that waits inside b_transport moves
//     time on (the clock resumes on its grid). The annotated delay it returns is turned into
//     cycles, rounded up: the first R beat / the B response is driven that many cycles later.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include <systemc>
#include <tlm>
#include "axi_checker.h"
#include "gpuvp/config.h"
#include "gpuvp/stats.h"
#include "rtl_clock.h"

namespace gpuvp::rtl {

class transactor : public sc_core::sc_module, public clocked {
 public:
  param<bool> check{this, "check", true, "check the AXI protocol on this transactor's pins"};
  param<bool> stop_on_violation{this, "stop_on_violation", true, "stop the simulation at the first AXI protocol violation"};
  counter violations{this, "violations", "AXI protocol violations seen on the pins"};

  transactor(sc_core::sc_module_name name, rtl_clock& clock, const std::string& prefix, unsigned bus_bytes, bool lite);
  // Protocol violations (modelled errors of the owning component).
  const std::vector<std::string>& errors() const { return errors_.empty() ? checker_.violations() : errors_; }

 protected:
  void check_pins(const axi_sample& s, uint64_t cycle) {
    if (check) checker_.check(s, cycle);
  }
  // A slave transactor reached from its own block's master (through the interconnect): the
  // block's clock thread is the caller and cannot clock the request, so it is refused (SLVERR to
  // the master) as a modelled error instead of hanging.
  bool refuse_own_master(tlm::tlm_generic_payload& gp);
  // A bus transaction from `start` to now on the block's trace track (rtl_clock::trace_span),
  // named `what` ("read", "write") with the bus, address, beats, ID and response as arguments.
  void trace(const char* what, const sc_core::sc_time& start, uint64_t addr, unsigned beats, uint32_t id, uint32_t resp);
  rtl_clock& clock_;
  const std::string prefix_;
  axi_checker checker_;
  std::vector<std::string> errors_;
};

// TLM response of an AXI response code, and back.
tlm::tlm_response_status to_tlm(uint32_t resp);
uint32_t to_axi(tlm::tlm_response_status s);

}  // namespace gpuvp::rtl
