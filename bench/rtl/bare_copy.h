// SPDX-License-Identifier: Apache-2.0
// bare_copy: the speed baseline of bench_rtl (docs/rtl.md). The copy engine's RTL
// (rtl/copy_engine/copy_engine.sv), Verilated with the same options as gpuvp's model but as plain
// C++ (no SystemC), clocked by a loop that toggles clk and calls eval(): registers programmed over
// its AXI4-Lite pins, memory an ideal AXI4 slave in C++ (a byte array, READY always high while
// fewer than 4 bursts wait, data the cycle after the request). The clock runs from the first
// register write of a copy to the interrupt's acknowledge, as gpuvp's clock does while the block
// has work.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

struct bare_copy_job {
  uint64_t src, dst;
  uint32_t len;
};
struct bare_copy_result {
  uint64_t cycles = 0;
  std::string error;  // "" when every destination byte is right
};
// Runs the copies one after another (the source filled with a pattern first), checks the bytes.
bare_copy_result bare_copy(const std::vector<bare_copy_job>& jobs);
