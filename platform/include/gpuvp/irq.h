// SPDX-License-Identifier: Apache-2.0
// Interrupt lines and the interrupt aggregator. A model drives an interrupt with an
// `sc_core::sc_out<bool>` (level, active high); the platform binds it to a signal and to one input
// of the aggregator, which latches rising edges into INTR (write 1 to clear), masks them with
// INTR_EN and drives the host interrupt. The layout follows NVIDIA's PMC: INTR at 0x100,
// INTR_EN at 0x140 (BAR0 0x000000).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>
#include <systemc>
#include "gpuvp/regbank.h"

namespace gpuvp {

class irq_controller : public sc_core::sc_module {
 public:
  static constexpr unsigned max_lines = 32;
  register_bank regs{"regs", 0x1000};
  reg boot_0{regs, "BOOT_0", 0x000, 4, 0x50a100a2, access::ro};    // chipset id (NV50 family)
  reg intr{regs, "INTR", 0x100, 4, 0, access::w1c};                // latched pending lines
  reg intr_status{regs, "INTR_STATUS", 0x104, 4, 0, access::ro};   // current line levels
  reg intr_en{regs, "INTR_EN", 0x140, 4, 0xffffffff, access::rw};  // enable mask

  sc_core::sc_vector<sc_core::sc_in<bool>> lines{"lines", max_lines};
  sc_core::sc_out<bool> host_irq{"host_irq"};

  counter raised{this, "raised", "rising edges latched on any line"};

  explicit irq_controller(sc_core::sc_module_name name);
  // Name of each line (for reports and the qtest "IRQ raise N" lines).
  std::vector<std::string> line_names = std::vector<std::string>(max_lines);
  // Called on every line change: (line, level). qtest's irq_intercept uses it.
  // Current level of every line (bit per line).
  uint32_t levels() const { return levels_; }
  std::function<void(unsigned, bool)> observer;

 private:
  void on_line_change();
  void drive_output();                // the one process that writes host_irq
  sc_core::sc_event output_changed_;  // register hooks (any caller's thread) notify it
  uint32_t levels_ = 0;
};

}  // namespace gpuvp
