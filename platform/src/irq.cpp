// SPDX-License-Identifier: Apache-2.0
#include "gpuvp/irq.h"

namespace gpuvp {

irq_controller::irq_controller(sc_core::sc_module_name name) : sc_module(name) {
  SC_HAS_PROCESS(irq_controller);
  SC_METHOD(on_line_change);
  for (auto& line : lines) sensitive << line;
  dont_initialize();
  SC_METHOD(drive_output);
  sensitive << output_changed_;
  dont_initialize();
  intr_status.on_read = [this] { return uint64_t(levels_); };
  // Acknowledging (W1C on INTR) or changing the mask re-evaluates the host line; a level that is
  // still high is latched again at once, as with a level-triggered source.
  intr.on_write = [this](uint64_t, uint64_t) {
    intr = intr | levels_;
    output_changed_.notify();
  };
  intr_en.on_write = [this](uint64_t, uint64_t) { output_changed_.notify(); };
}

void irq_controller::on_line_change() {
  uint32_t now = 0;
  for (unsigned i = 0; i < max_lines; ++i)
    if (lines[i].get_interface() && lines[i].read()) now |= 1u << i;
  const uint32_t changed = now ^ levels_;
  const uint32_t rising = changed & now;
  levels_ = now;
  if (rising) {
    intr = intr | rising;
    raised += __builtin_popcount(rising);
  }
  if (observer)
    for (unsigned i = 0; i < max_lines; ++i)
      if (changed & (1u << i)) observer(i, (now >> i) & 1);
  output_changed_.notify();  // drive_output runs in this evaluation phase
}

void irq_controller::drive_output() {
  if (host_irq.get_interface()) host_irq.write((intr & intr_en) != 0);
}

}  // namespace gpuvp
