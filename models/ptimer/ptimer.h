// SPDX-License-Identifier: Apache-2.0
// PTIMER: the GPU's nanosecond timer (BAR0 0x009000-0x009fff). The time is simulated time in
// nanoseconds. Reading TIME_LOW latches the high word, so a driver that reads TIME_LOW then
// TIME_HIGH gets one consistent 64-bit value; reading TIME_HIGH alone gives the current high word.
// Writing TIME_LOW/TIME_HIGH sets an offset added to simulated time (as nouveau's ptimer init does).
#pragma once
#include <cstdint>
#include <systemc>
#include "gpuvp/registry.h"
#include "gpuvp/regbank.h"

namespace gpuvp::ptimer {

class ptimer : public sc_core::sc_module, public gpuvp::component {
 public:
  gpuvp::register_bank regs{"regs", 0x1000};                                        // BAR0 0x009000
  gpuvp::reg numerator{regs, "NUMERATOR", 0x200, 4, 1, gpuvp::access::rw, 0xffff};  // clock ratio (kept, no effect: time is ns)
  gpuvp::reg denominator{regs, "DENOMINATOR", 0x210, 4, 1, gpuvp::access::rw, 0xffff};
  gpuvp::reg time_low{regs, "TIME_LOW", 0x400, 4, 0};    // ns, bits 31:0
  gpuvp::reg time_high{regs, "TIME_HIGH", 0x410, 4, 0};  // ns, bits 63:32

  static constexpr uint64_t bar0_offset = 0x9000;

  explicit ptimer(sc_core::sc_module_name name);
  sc_core::sc_module& module() override { return *this; }
  std::vector<target_port> targets() override { return {{"regs", &regs.in, bar0_offset, 0x1000, true}}; }

  // Current timer value in ns (simulated time plus the offset written by software).
  uint64_t now_ns() const;

 private:
  int64_t offset_ns_ = 0;
  uint32_t latched_high_ = 0;
  bool high_latched_ = false;
};

}  // namespace gpuvp::ptimer
