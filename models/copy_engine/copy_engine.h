// SPDX-License-Identifier: Apache-2.0
// copy_engine: a DMA copy engine component with three implementations (docs/models/copy_engine.md):
//   impl: tlm       the TLM model (copy_tlm.h): loosely timed, fast
//   impl: rtl       the Verilated RTL (rtl/copy_engine/copy_engine.sv) through AXI transactors
//   impl: lockstep  both on the same register writes; a scoreboard (scoreboard.h) compares their
//                   memory transactions; the RTL's are the ones that reach memory, the TLM
//                   model's reads go to memory too (port tlm_mem) but its writes are only compared
// The registers (copy_tlm.h) are a 256-byte window in BAR0 at bar0_offset; "mem" is bound to the
// interconnect; "irq" goes to the next PMC line.
#pragma once
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include "copy_rtl.h"
#include "copy_tlm.h"
#include "gpuvp/config.h"
#include "gpuvp/registry.h"
#include "gpuvp/timing.h"
#include "scoreboard.h"

namespace gpuvp::copy_engine {

class copy_engine : public sc_core::sc_module, public gpuvp::component {
 public:
  tlm_utils::simple_target_socket<copy_engine> regs{"regs"};

  gpuvp::param<std::string> impl{this, "impl", "tlm", "implementation: tlm, rtl or lockstep"};
  gpuvp::param<uint64_t> bar0_offset{this, "bar0_offset", 0xf00000, "BAR0 offset of the 256-byte register window", 0, 0xffff00};
  gpuvp::param<sc_core::sc_time> clock{this, "clock", 1_ns, "clock period (RTL clock; cycles of the TLM estimate)", 1_ps, 1_us};
  gpuvp::param<uint64_t> reset_cycles{this, "reset_cycles", 4, "RTL: cycles rst_n is held low at time 0", 1, 1000};
  gpuvp::param<uint64_t> chunk_overhead{this, "chunk_overhead", 4, "TLM estimate: clock cycles per chunk besides the data beats", 0, 1000};
  gpuvp::param<bool> rtl_inject_bug{this, "rtl_inject_bug", false,
                                    "RTL plusarg +copy_inject_bug: the first byte of the second write burst is inverted"};
  gpuvp::param<sc_core::sc_time> shadow_write_latency{this,
                                                      "shadow_write_latency",
                                                      40_ns,
                                                      "lockstep: write delay the TLM model assumes (its writes are compared, not sent)",
                                                      sc_core::SC_ZERO_TIME,
                                                      1_ms};

  explicit copy_engine(sc_core::sc_module_name name);
  ~copy_engine() override;
  sc_core::sc_module& module() override { return *this; }
  std::vector<target_port> targets() override { return {{"regs", &regs, bar0_offset, 0x100, true}}; }
  std::vector<initiator_port> initiators() override;
  std::vector<irq_port> irqs() override { return {{"irq", rtl_ ? &rtl_->irq() : &model_->irq}}; }
  std::vector<std::string> modelled_errors() override;
  void report(std::ostream& os) override;

  copy_tlm* model() { return model_.get(); }
  copy_scoreboard* scoreboard() { return scoreboard_.get(); }

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void rtl_busy_changed();
  std::unique_ptr<copy_tlm> model_;
  std::unique_ptr<copy_rtl> rtl_;
  std::unique_ptr<copy_scoreboard> scoreboard_;
  using socket = tlm_utils::simple_initiator_socket<copy_engine>;
  std::unique_ptr<socket> to_tlm_, to_rtl_;            // regs -> the implementations present
  sc_core::sc_signal<bool> shadow_irq_{"shadow_irq"};  // the TLM model's irq in lock-step (not a PMC line)
};

}  // namespace gpuvp::copy_engine
