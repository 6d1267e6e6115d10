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

// The copy engine's RTL as a plain C++ model (no SystemC) that its clock evaluates directly:
// the transactors' pins are plain values copied to and from the model's fields at each edge.
class copy_rtl_impl : public sc_core::sc_module, public copy_rtl, public direct_model {
 public:
  std::shared_ptr<rtl_trace> trace;  // first: tracing is switched on before the model is built
  rtl_clock clk;
  axil_pins regs_pins{"s_axil"};
  axi4_pins mem_pins{"m_axi"};
  tlm2axil regs{"regs", clk, regs_pins};
  axi2tlm mem_bridge{"mem", clk, mem_pins};
  sc_core::sc_signal<bool> busy_{"busy"};
  sc_core::sc_out<bool> irq_{"irq"};
  Vcopy_engine dut;

  copy_rtl_impl(sc_core::sc_module_name name, const sc_core::sc_time& clock, uint64_t reset_cycles)
      : sc_module(name), trace(rtl_trace::instance()), clk("clk", clock, reset_cycles), dut((std::string(this->name()) + ".rtl").c_str()) {
    regs_pins.make_direct();
    mem_pins.make_direct();
    clk.drive(this, trace->file.get().empty() && trace->early_rise);
    clk.watch_busy(&busy_);
    trace->add([this](VerilatedFstC* t) { dut.trace(t, 99); });
  }
  // The inputs from the pins (masked to the ports' widths, as a SystemC model reads them), the
  // evaluation, the outputs to the pins; irq and busy are signals, written when they change.
  void eval(bool clock, bool rst_n) override {
    Vcopy_engine& m = dut;
    m.clk = clock;
    m.rst_n = rst_n;
    if (clock) {  // the inputs are as at the falling edge: only update() changes them
      m.eval();
      outputs();
      return;
    }
    const axil_pins& l = regs_pins;
    m.s_axil_awvalid = l.awvalid.read(), m.s_axil_awaddr = l.awaddr.read();
    m.s_axil_wvalid = l.wvalid.read(), m.s_axil_wdata = l.wdata.read(), m.s_axil_wstrb = l.wstrb.read() & 0xf;
    m.s_axil_bready = l.bready.read();
    m.s_axil_arvalid = l.arvalid.read(), m.s_axil_araddr = l.araddr.read();
    m.s_axil_rready = l.rready.read();
    const axi4_pins& a = mem_pins;
    m.m_axi_awready = a.awready.read(), m.m_axi_wready = a.wready.read(), m.m_axi_arready = a.arready.read();
    m.m_axi_bvalid = a.bvalid.read(), m.m_axi_bid = a.bid.read() & 0xf, m.m_axi_bresp = a.bresp.read() & 3;
    m.m_axi_rvalid = a.rvalid.read(), m.m_axi_rid = a.rid.read() & 0xf, m.m_axi_rdata = a.rdata.read();
    m.m_axi_rresp = a.rresp.read() & 3, m.m_axi_rlast = a.rlast.read();
    m.eval();
    outputs();
  }
  void outputs() {
    const Vcopy_engine& m = dut;
    axil_pins& lo = regs_pins;
    lo.awready.write(m.s_axil_awready), lo.wready.write(m.s_axil_wready), lo.arready.write(m.s_axil_arready);
    lo.bvalid.write(m.s_axil_bvalid), lo.bresp.write(m.s_axil_bresp);
    lo.rvalid.write(m.s_axil_rvalid), lo.rdata.write(m.s_axil_rdata), lo.rresp.write(m.s_axil_rresp);
    axi4_pins& ao = mem_pins;
    ao.awvalid.write(m.m_axi_awvalid), ao.awid.write(m.m_axi_awid), ao.awaddr.write(m.m_axi_awaddr), ao.awlen.write(m.m_axi_awlen);
    ao.awsize.write(m.m_axi_awsize), ao.awburst.write(m.m_axi_awburst);
    ao.wvalid.write(m.m_axi_wvalid), ao.wdata.write(m.m_axi_wdata), ao.wstrb.write(m.m_axi_wstrb), ao.wlast.write(m.m_axi_wlast);
    ao.bready.write(m.m_axi_bready);
    ao.arvalid.write(m.m_axi_arvalid), ao.arid.write(m.m_axi_arid), ao.araddr.write(m.m_axi_araddr), ao.arlen.write(m.m_axi_arlen);
    ao.arsize.write(m.m_axi_arsize), ao.arburst.write(m.m_axi_arburst);
    ao.rready.write(m.m_axi_rready);
    if (bool(m.irq) == irq_value_ && bool(m.busy) == busy_value_) return;
    clk.sync();  // signals change at the clock's time (it may run ahead: rtl_clock.cpp)
    if (bool(m.irq) != irq_value_) irq_value_ = m.irq, irq_->write(irq_value_);
    if (bool(m.busy) != busy_value_) busy_value_ = m.busy, busy_.write(busy_value_);
  }
  tlm::tlm_target_socket<>& regs_socket() override { return regs.in; }
  tlm::tlm_initiator_socket<>& mem() override { return mem_bridge.out; }
  sc_core::sc_out<bool>& irq() override { return irq_; }
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

 private:
  bool irq_value_ = false, busy_value_ = false;
};
}  // namespace

std::unique_ptr<copy_rtl> make_copy_rtl(const char* name, const sc_core::sc_time& clock, uint64_t reset_cycles, bool inject_bug) {
  auto rtl = std::make_unique<copy_rtl_impl>(name, clock, reset_cycles);
  if (inject_bug) rtl_trace::add_plusarg("+copy_inject_bug");  // after the trace's reset of the plusargs
  return rtl;
}

}  // namespace gpuvp::copy_engine
