// SPDX-License-Identifier: Apache-2.0
// rtl_component: a Verilated RTL block as a platform component, as made by the CMake function
// gpuvp_add_rtl_component (cmake/gpuvp_rtl.cmake, docs/rtl.md).
//
// The RTL top's ports follow fixed names:
//   clk, rst_n                         clock and active-low reset (from the `clock` and
//                                      `reset_cycles` parameters; clocked only while busy)
//   s_axi_*   (BUS axi4 SLAVE)         AXI4 slave, 64-bit data, 64-bit address, 4-bit IDs:
//                                      target port "in" through tlm2axi, mapped at [base, base+size)
//   s_axil_*  (BUS axi4lite SLAVE)     AXI4-Lite slave, 32-bit: target port "regs" through tlm2axil
//   m_axi_*   (BUS axi4 MASTER)        AXI4 master: initiator port "mem" through axi2tlm
//   irq       (IRQ)                    level interrupt to the next PMC line
//   busy      (optional output)        high while the block works on its own (keeps the clock on)
// A port gpuvp expects but the top lacks (or misnames) fails at build time (no such member); a
// port of the top that gpuvp does not bind is a configuration error (exit 2) when the component
// is built, naming the port. Parameters of an instance NAME: NAME.clock,
// NAME.reset_cycles, NAME.base, NAME.size, NAME.in_bar0 (slaves), NAME.plusargs.
#pragma once
#include <memory>
#include <sstream>
#include <string>
#include <systemc>
#include "axi.h"
#include "axi2tlm.h"
#include "gpuvp/registry.h"
#include "rtl_clock.h"
#include "rtl_trace.h"
#include "tlm2axi.h"
#include "tlm2axil.h"

namespace gpuvp::rtl {

enum class bus { axi4, axi4lite };

// Splits "+a +b=1" and hands each word to Verilator.
inline void add_plusargs(const std::string& words) {
  std::istringstream in(words);
  for (std::string w; in >> w;) rtl_trace::add_plusarg(w);
}

template <typename V, bus Bus, bool Master, bool Irq>
class rtl_component : public sc_core::sc_module, public component {
  static constexpr bool lite = Bus == bus::axi4lite;
  using pins_t = std::conditional_t<lite, axil_pins, axi4_pins>;
  using bridge_t = std::conditional_t<Master, axi2tlm, std::conditional_t<lite, tlm2axil, tlm2axi>>;

 private:
  std::shared_ptr<rtl_trace> trace_;  // first: tracing is switched on before the model is built

 public:
  param<sc_core::sc_time> clock{this, "clock", sc_core::sc_time(1, sc_core::SC_NS), "RTL clock period",
                                sc_core::sc_time(1, sc_core::SC_PS), sc_core::sc_time(1, sc_core::SC_US)};
  param<uint64_t> reset_cycles{this, "reset_cycles", 4, "cycles rst_n is held low at time 0", 1, 1000};
  param<uint64_t> base{this, "base", 0, "address of the slave port (host physical, or BAR0 offset)"};
  param<uint64_t> size{this, "size", 0x10000, "size of the slave port's window", 1, uint64_t(1) << 40};
  param<bool> in_bar0{this, "in_bar0", false, "map the slave port in BAR0 (base is an offset)"};
  param<std::string> plusargs{this, "plusargs", "", "plusargs for the RTL, space-separated (+name=value)"};

  rtl_clock clk{"clk", clock, reset_cycles};
  pins_t pins{lite ? "s_axil" : Master ? "m_axi" : "s_axi"};
  bridge_t bridge{Master ? "mem" : lite ? "regs" : "in", clk, pins};
  std::unique_ptr<V> dut;

  explicit rtl_component(sc_core::sc_module_name name) : sc_module(name), trace_(rtl_trace::instance()) {
    add_plusargs(plusargs);
    dut = std::make_unique<V>("rtl");
    dut->clk(clk.clk);
    dut->rst_n(clk.rst_n);
    if constexpr (lite) GPUVP_BIND_AXIL(*dut, s_axil, pins);
    else if constexpr (Master) GPUVP_BIND_AXI4(*dut, m_axi, pins);
    else GPUVP_BIND_AXI4(*dut, s_axi, pins);
    if constexpr (requires(V& v) { v.busy; }) {
      dut->busy(busy_);
      clk.watch_busy(&busy_);
    }
    trace_->add([this](VerilatedFstC* t) { dut->trace(t, 99); });
    check_ports();
  }
  sc_core::sc_module& module() override { return *this; }
  std::vector<target_port> targets() override {
    if constexpr (Master) return {};
    else return {{lite ? "regs" : "in", &bridge.in, base, size, in_bar0}};
  }
  std::vector<initiator_port> initiators() override {
    if constexpr (Master) return {{"mem", &bridge.out}};
    else return {};
  }
  std::vector<irq_port> irqs() override {
    if constexpr (Irq) return {{"irq", &dut->irq}};
    else return {};
  }
  std::vector<std::string> modelled_errors() override { return bridge.errors(); }
  void report(std::ostream& os) override {
    os << clk.cycles.value() << " RTL cycles, " << clk.wakeups.value() << " wake-ups\n";
  }

 private:
  sc_core::sc_signal<bool> busy_{"busy"};

  // Every port of the RTL top must be one gpuvp binds: an unknown (unconnected) port is a
  // configuration error naming it, before SystemC's generic "port not bound" at elaboration.
  void check_ports() {
    const sc_core::sc_port_base* irq_port = nullptr;  // bound by the platform to its PMC line later
    if constexpr (Irq) irq_port = &dut->irq;
    std::string unbound;
    for (sc_core::sc_object* o : dut->get_child_objects())
      if (auto* p = dynamic_cast<sc_core::sc_port_base*>(o); p && p != irq_port && p->bind_count() == 0)
        unbound += std::string(unbound.empty() ? "" : ", ") + p->basename() + " (" + p->kind() + ")";
    if (unbound.empty()) return;
    std::string known = "clk, rst_n, ";
    known += lite ? "s_axil_*" : Master ? "m_axi_*" : "s_axi_*";
    if constexpr (Irq) known += ", irq";
    throw config_error(std::string(name()) + ": RTL port(s) left unconnected: " + unbound + "; gpuvp connects " + known +
                       " and an optional busy output (docs/rtl.md, 'Plugging in your own RTL')");
  }
};

template <typename V, bus Bus, bool Master, bool Irq>
void register_rtl_component(const std::string& type, const std::string& description) {
  registry::global().add_component_type(type, description, [](const std::string& name) -> std::unique_ptr<component> {
    return std::make_unique<rtl_component<V, Bus, Master, Irq>>(sc_core::sc_module_name(name.c_str()));
  });
}

}  // namespace gpuvp::rtl
