// SPDX-License-Identifier: Apache-2.0
#include "ptimer.h"

namespace gpuvp::ptimer {

ptimer::ptimer(sc_core::sc_module_name name) : sc_module(name) {
  // Reads observe exact time: the bank synchronises the initiator's quantum first.
  time_low.sync = time_high.sync = true;
  time_low.on_read = [this] {
    const uint64_t t = now_ns();
    latched_high_ = uint32_t(t >> 32);
    high_latched_ = true;
    return t & 0xffffffffu;
  };
  time_high.on_read = [this] {
    const uint32_t high = high_latched_ ? latched_high_ : uint32_t(now_ns() >> 32);
    high_latched_ = false;
    return uint64_t(high);
  };
  auto set_time = [this](bool low, uint64_t v) {
    const uint64_t t = now_ns();
    const uint64_t wanted = low ? ((t & ~uint64_t(0xffffffff)) | v) : ((t & 0xffffffffu) | (v << 32));
    offset_ns_ += int64_t(wanted - t);
  };
  time_low.on_write = [set_time](uint64_t v, uint64_t) { set_time(true, v); };
  time_high.on_write = [set_time](uint64_t v, uint64_t) { set_time(false, v); };
}

uint64_t ptimer::now_ns() const {
  const uint64_t ns = sc_core::sc_time_stamp().value() / sc_core::sc_time(1, sc_core::SC_NS).value();
  return ns + uint64_t(offset_ns_);
}

}  // namespace gpuvp::ptimer
