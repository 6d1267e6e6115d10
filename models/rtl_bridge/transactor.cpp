// SPDX-License-Identifier: Apache-2.0
#include "transactor.h"

#include <cstdio>
#include "gpuvp/trace.h"

namespace gpuvp::rtl {

transactor::transactor(sc_core::sc_module_name name, rtl_clock& clock, const std::string& prefix, unsigned bus_bytes, bool lite)
    : sc_module(name), clock_(clock), prefix_(prefix), checker_(std::string(basename()), prefix, bus_bytes, lite) {
  checker_ = axi_checker(this->name(), prefix, bus_bytes, lite);
  checker_.on_violation = [this](const std::string& m) {
    clock_.sync();  // at the clock's time (it may run ahead: rtl_clock.cpp)
    ++violations;
    if (stop_on_violation) sc_core::sc_stop();
  };
  clock.add(this);
}

bool transactor::refuse_own_master(tlm::tlm_generic_payload& gp) {
  if (!clock_.in_clock_thread()) return false;
  gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
  if (errors_.empty()) {
    errors_ = checker_.violations();
    errors_.push_back(std::string(name()) +
                      ": reached from a master port of the same RTL block (its clock would wait on "
                      "itself); map the block's own slaves out of its masters' reach");
    sc_core::sc_stop();
  }
  return true;
}

void transactor::trace(const char* what, const sc_core::sc_time& start, uint64_t addr, unsigned beats, uint32_t id, uint32_t resp) {
  if (!tracer::global().enabled()) return;
  clock_.sync();  // the span ends at the clock's time
  static const char* const resp_names[4] = {"OKAY", "EXOKAY", "SLVERR", "DECERR"};
  char a[24];
  std::snprintf(a, sizeof a, "0x%llx", (unsigned long long)addr);
  clock_.trace_span(what, start, {{"bus", prefix_}, {"addr", a}, {"beats", beats}, {"id", id}, {"resp", resp_names[resp & 3]}});
}

tlm::tlm_response_status to_tlm(uint32_t resp) {
  switch (resp) {
    case resp_okay:
    case resp_exokay:
      return tlm::TLM_OK_RESPONSE;
    case resp_decerr:
      return tlm::TLM_ADDRESS_ERROR_RESPONSE;
    default:
      return tlm::TLM_GENERIC_ERROR_RESPONSE;
  }
}

uint32_t to_axi(tlm::tlm_response_status s) {
  if (s == tlm::TLM_OK_RESPONSE) return resp_okay;
  if (s == tlm::TLM_ADDRESS_ERROR_RESPONSE) return resp_decerr;
  return resp_slverr;
}

}  // namespace gpuvp::rtl
