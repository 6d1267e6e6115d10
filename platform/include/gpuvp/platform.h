// SPDX-License-Identifier: Apache-2.0
// The platform assembled from configuration: the interconnect ("interconnect"), the interrupt
// aggregator ("pmc"), the host initiator ("host") and every component listed under
// `components:`. Mapped target ports go on the interconnect, initiator ports are bound where their
// `to` says, interrupt outputs go to the aggregator lines in order of creation.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>
#include <systemc>
#include "gpuvp/config.h"
#include "gpuvp/irq.h"
#include "gpuvp/registry.h"
#include "gpuvp/router.h"
#include "gpuvp/timing.h"

namespace gpuvp {

class host;
class gauge;

// The embedded default configuration (platform/default.yaml, compiled in).
const std::string& default_platform_yaml();

class platform {
 public:
  // Builds everything from config::global(); throws config_error on bad configuration.
  platform();
  ~platform();

  param<sc_core::sc_time> quantum{"platform.quantum", 1_us, "global quantum of temporal decoupling", 1_ps, 1_s};
  param<sc_core::sc_time> time_limit{"platform.time_limit", 1_s, "simulated time after which a run stops with an error", 1_ns, max_time()};
  param<uint64_t> bar0_base{"platform.bar0_base", 0x100000000ull, "host physical address of BAR0 (MMIO)", 0, ~uint64_t(0)};
  param<uint64_t> bar0_size{"platform.bar0_size", 0x1000000ull, "size of BAR0", 0x1000, uint64_t(1) << 40};
  param<bool> fail_on_pending_irq{"platform.fail_on_pending_irq", true,
                                  "an interrupt still pending at the end of a run is a modelled error"};

  router& interconnect() { return *router_; }
  irq_controller& pmc() { return *pmc_; }
  host& host_initiator() { return *host_; }
  component* find(const std::string& name);
  template <typename T>
  T* find_as(const std::string& name) {
    return dynamic_cast<T*>(find(name));
  }
  template <typename T>
  std::vector<T*> all_of() {
    std::vector<T*> v;
    for (auto& [n, c] : components_)
      if (auto* t = dynamic_cast<T*>(c.get())) v.push_back(t);
    return v;
  }
  const std::vector<std::string>& component_names() const { return order_; }
  // Interrupt line number of "<component>.<irq>" (-1 if none).
  int irq_line(const std::string& name) const;

  // True if every byte of [addr, addr + len) lies in a window of the interconnect (elaborated).
  bool mapped(uint64_t addr, uint64_t len) const;
  // Host-physical debug access through the interconnect's transport_dbg.
  bool debug_read(uint64_t addr, void* data, unsigned len);
  bool debug_write(uint64_t addr, const void* data, unsigned len);

  void report(std::ostream& os);
  // Adds the interrupt lines (and the host interrupt) to a VCD file.
  void trace_signals(sc_core::sc_trace_file* f);
  std::vector<std::string> modelled_errors();
  // What the components report as still in progress ("pfifo: channel 3 ..."), for limit messages.
  std::vector<std::string> busy();

 private:
  std::unique_ptr<router> router_;
  std::unique_ptr<irq_controller> pmc_;
  std::unique_ptr<host> host_;
  std::map<std::string, std::unique_ptr<component>> components_;
  std::vector<std::string> order_;
  std::map<std::string, std::string> types_;  // component name -> type
  void build_component(const std::string& name, const std::string& type);
  void connect();
  std::string resolve_auto(const std::string& type_port) const;  // initiator_port::auto_to
  void bind_interface(const std::string& name, component::interface_port& port,
                      const std::map<std::string, component::interface_export>& exports);
  // Interrupt lines may be driven from any process of their model (the thread whose access
  // faulted, a method, a register hook called from the host thread): many writers.
  using irq_signal = sc_core::sc_signal<bool, sc_core::SC_MANY_WRITERS>;
  std::vector<std::unique_ptr<irq_signal>> irq_signals_;
  std::unique_ptr<irq_signal> host_irq_, idle_line_;
  std::map<std::string, int> irq_lines_;
  std::unique_ptr<gauge> log_suppressed_;  // log.suppressed_lines (gpuvp/trace.h's repeat limit)
};

}  // namespace gpuvp
