// SPDX-License-Identifier: Apache-2.0
// rtl_block: a Verilated RTL block as a platform component, as made by the CMake function
// gpuvp_add_rtl_component (cmake/gpuvp_rtl.cmake, docs/rtl.md).
//
// The call names the top's ports: CLOCK, RESET (active high or low), any number of BUS ports
// (AXI4 slave, AXI4-Lite slave, AXI4 master, each by its prefix), IRQ outputs, an optional BUSY
// output and TIE-offs. rtl_ports.py reads the top's real ports from Verilator and generates the
// binding (build_fn); this class owns the clock, one transactor per bus and the adapters:
//   - a port whose type differs from the transactor's pin (a 16-bit address, a 32-bit data bus,
//     a 1-bit ID) goes through a pin_cast: addresses keep their low bits, data sits in the low
//     byte lanes (the transactor knows the bus width);
//   - optional AXI inputs the IP has (AxPROT, AxCACHE, AxLOCK, AxQOS, AxREGION, *USER) are tied
//     to 0; optional outputs are left unread and listed at elaboration;
//   - a port nobody claimed is a configuration error (exit 2) naming it.
// Parameters of an instance NAME: NAME.clock, NAME.reset_cycles, NAME.plusargs; with one bus
// NAME.base, NAME.size, NAME.in_bar0 (slave), with several NAME.<bus>.base/size/in_bar0 per slave
// (<bus>: the prefix, lower case, without the trailing '_'), and for AXI4 slaves
// NAME[.<bus>].lockstep_memory (tlm2axi.h: reads compared with a TLM shadow memory).
#pragma once
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>
#include <systemc>
#include "axi.h"
#include "axi2tlm.h"
#include "gpuvp/registry.h"
#include "gpuvp/text.h"
#include "rtl_clock.h"
#include "rtl_trace.h"
#include "tlm2axi.h"
#include "tlm2axil.h"

namespace gpuvp::rtl {

// Splits "+a +b=1" and hands each word to Verilator.
inline void add_plusargs(const std::string& words) {
  for (const std::string& w : split_words(words)) rtl_trace::add_plusarg(w);
}

struct bus_spec {
  const char* name;    // lower-case prefix without '_': the YAML key NAME.<name>.*
  const char* prefix;  // the ports' prefix without '_', as in messages and waveforms
  const char* port;    // target / initiator port (and transactor) name
  bool lite, master;
  unsigned data_bytes, addr_bits, id_bits;
};
struct block_spec {
  const char* type;
  const char* top;
  bool reset_active_high;
  bool single_window;  // one bus: its window is NAME.base / NAME.size
  std::vector<bus_spec> buses;
};

// Copies one signal into another of another type whenever it changes (width adaptation).
template <typename To, typename From>
class pin_cast : public sc_core::sc_module {
 public:
  pin_cast(sc_core::sc_module_name n, const sc_core::sc_signal<From>& from, sc_core::sc_signal<To>& to)
      : sc_module(n), from_(from), to_(to) {
    SC_HAS_PROCESS(pin_cast);
    SC_METHOD(copy);
    sensitive << from_;
  }

 private:
  void copy() { to_.write(static_cast<To>(from_.read())); }
  const sc_core::sc_signal<From>& from_;
  sc_core::sc_signal<To>& to_;
};

class rtl_block;
using build_fn = std::unique_ptr<sc_core::sc_module> (*)(rtl_block&);

class rtl_block : public sc_core::sc_module, public component {
  std::shared_ptr<rtl_trace> trace_;  // first: tracing is switched on before the model is built

 public:
  param<sc_core::sc_time> clock{this,
                                "clock",
                                sc_core::sc_time(1, sc_core::SC_NS),
                                "RTL clock period",
                                sc_core::sc_time(1, sc_core::SC_PS),
                                sc_core::sc_time(1, sc_core::SC_US)};
  param<uint64_t> reset_cycles{this, "reset_cycles", 4, "cycles the reset is held at time 0", 1, 1000};
  param<std::string> plusargs{this, "plusargs", "", "plusargs for the RTL, space-separated (+name=value)"};

  rtl_clock clk{"clk", clock, reset_cycles};

  rtl_block(sc_core::sc_module_name name, const block_spec& spec, build_fn build);
  sc_core::sc_module& module() override { return *this; }
  std::vector<target_port> targets() override;
  std::vector<initiator_port> initiators() override;
  std::vector<irq_port> irqs() override;
  std::vector<std::string> modelled_errors() override;
  void report(std::ostream& os) override;
  const std::vector<std::string>& unread_outputs() const { return unread_; }

  // --- used by the generated build function ---
  axi4_pins& axi4_bus(size_t bus) { return *buses_.at(bus).a4; }
  axil_pins& axil_bus(size_t bus) { return *buses_.at(bus).al; }
  template <typename T, typename U>
  void wire(sc_core::sc_in<T>& port, sc_core::sc_signal<U>& ours) {
    if constexpr (std::is_same_v<T, U>) {
      port(ours);
    } else {
      auto& s = own(new sc_core::sc_signal<T>(sc_core::sc_gen_unique_name(port.basename())));
      own(new pin_cast<T, U>(sc_core::sc_gen_unique_name("cast"), ours, s));
      port(s);
    }
  }
  template <typename T, typename U>
  void wire(sc_core::sc_out<T>& port, sc_core::sc_signal<U>& ours) {
    if constexpr (std::is_same_v<T, U>) {
      port(ours);
    } else {
      auto& s = own(new sc_core::sc_signal<T>(sc_core::sc_gen_unique_name(port.basename())));
      own(new pin_cast<U, T>(sc_core::sc_gen_unique_name("cast"), s, ours));
      port(s);
    }
  }
  template <typename T>
  void tie(sc_core::sc_in<T>& port, uint64_t value) {
    T v{};
    if constexpr (std::is_arithmetic_v<T>)
      v = static_cast<T>(value);
    else
      v = value;
    port(own(new sc_core::sc_signal<T>(sc_core::sc_gen_unique_name(port.basename()), v)));
  }
  template <typename T>
  void unread(sc_core::sc_out<T>& port) {
    port(own(new sc_core::sc_signal<T>(sc_core::sc_gen_unique_name(port.basename()))));
    unread_.push_back(port.basename());
  }
  void irq(sc_core::sc_out<bool>& port) { irq_ports_.push_back(&port); }
  void busy(sc_core::sc_out<bool>& port) {
    port(busy_);
    clk.watch_busy(&busy_);
  }
  void traced(std::function<void(VerilatedFstC*)> f) { trace_->add(std::move(f)); }

 private:
  struct bus {
    bus_spec spec;
    std::unique_ptr<axi4_pins> a4;
    std::unique_ptr<axil_pins> al;
    std::unique_ptr<tlm2axi> to_axi;
    std::unique_ptr<tlm2axil> to_axil;
    std::unique_ptr<axi2tlm> from_axi;
    std::unique_ptr<param<uint64_t>> base, size;
    std::unique_ptr<param<bool>> in_bar0, lockstep_memory;
    transactor& x() const;
  };
  template <typename T>
  T& own(T* object) {
    owned_.emplace_back(std::shared_ptr<T>(object));
    return *object;
  }
  void check_ports(const block_spec& spec);
  std::vector<bus> buses_;
  std::unique_ptr<sc_core::sc_module> dut_;
  std::vector<sc_core::sc_out<bool>*> irq_ports_;
  std::vector<std::string> unread_;
  std::vector<std::shared_ptr<void>> owned_;  // adapters' signals and casts
  sc_core::sc_signal<bool> busy_{"busy"};
};

// Registers the component type spec.type (components: {x: <type>} in YAML).
void register_rtl_block(const block_spec& spec, build_fn build);

}  // namespace gpuvp::rtl
