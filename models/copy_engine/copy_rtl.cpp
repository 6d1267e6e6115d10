// SPDX-License-Identifier: Apache-2.0
#include "copy_rtl.h"

#include <ostream>
#include "Vcopy_engine.h"
#include "axi.h"
#include "axi2tlm.h"
#include "rtl_clock.h"
#include "rtl_trace.h"
#include "tlm2axil.h"

namespace gpuvp::copy_engine {

namespace {
using namespace gpuvp::rtl;

class copy_rtl_impl : public sc_core::sc_module, public copy_rtl {
 public:
  std::shared_ptr<rtl_trace> trace;  // first: tracing is switched on before the model is built
  rtl_clock clk;
  axil_pins regs_pins{"s_axil"};
  axi4_pins mem_pins{"m_axi"};
  tlm2axil regs{"regs", clk, regs_pins};
  axi2tlm mem_bridge{"mem", clk, mem_pins};
  sc_core::sc_signal<bool> busy_{"busy"};
  Vcopy_engine dut;

  copy_rtl_impl(sc_core::sc_module_name name, const sc_core::sc_time& clock, uint64_t reset_cycles)
      : sc_module(name), trace(rtl_trace::instance()), clk("clk", clock, reset_cycles), dut("rtl") {
    dut.clk(clk.clk);
    dut.rst_n(clk.rst_n);
    GPUVP_BIND_AXIL(dut, s_axil, regs_pins);
    GPUVP_BIND_AXI4(dut, m_axi, mem_pins);
    dut.busy(busy_);
    clk.watch_busy(&busy_);
    trace->add([this](VerilatedFstC* t) { dut.trace(t, 99); });
  }
  tlm::tlm_target_socket<>& regs_socket() override { return regs.in; }
  tlm::tlm_initiator_socket<>& mem() override { return mem_bridge.out; }
  sc_core::sc_out<bool>& irq() override { return dut.irq; }
  const sc_core::sc_signal<bool>& busy() const override { return busy_; }
  std::vector<std::string> errors() const override {
    auto e = regs.errors();
    e.insert(e.end(), mem_bridge.errors().begin(), mem_bridge.errors().end());
    return e;
  }
  void report(std::ostream& os) const override {
    os << clk.cycles.value() << " RTL cycles, " << mem_bridge.bursts.value() << " AXI bursts";
  }
  void observe(std::function<void(const tlm::tlm_generic_payload&)> f) override { mem_bridge.observer = std::move(f); }
};
}  // namespace

std::unique_ptr<copy_rtl> make_copy_rtl(const char* name, const sc_core::sc_time& clock, uint64_t reset_cycles, bool inject_bug) {
  auto rtl = std::make_unique<copy_rtl_impl>(name, clock, reset_cycles);
  if (inject_bug) rtl_trace::add_plusarg("+copy_inject_bug");  // after the trace's reset of the plusargs
  return rtl;
}

}  // namespace gpuvp::copy_engine
