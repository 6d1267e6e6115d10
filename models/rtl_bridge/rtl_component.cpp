// SPDX-License-Identifier: Apache-2.0
#include "rtl_component.h"

namespace gpuvp::rtl {

transactor& rtl_block::bus::x() const {
  if (to_axi) return *to_axi;
  if (to_axil) return *to_axil;
  return *from_axi;
}

rtl_block::rtl_block(sc_core::sc_module_name name, const block_spec& spec, build_fn build)
    : sc_module(name), trace_(rtl_trace::instance()) {
  add_plusargs(plusargs);
  const std::string me = this->name();
  buses_.reserve(spec.buses.size());
  for (const bus_spec& s : spec.buses) {
    bus& b = buses_.emplace_back();
    b.spec = s;
    if (s.lite) {
      b.al = std::make_unique<axil_pins>(s.prefix, s.data_bytes);
      b.to_axil = std::make_unique<tlm2axil>(s.port, clk, *b.al);
    } else {
      b.a4 = std::make_unique<axi4_pins>(s.prefix, s.data_bytes);
      if (s.master)
        b.from_axi = std::make_unique<axi2tlm>(s.port, clk, *b.a4, s.data_bytes);
      else
        b.to_axi = std::make_unique<tlm2axi>(s.port, clk, *b.a4, s.data_bytes, s.id_bits);
    }
    if (s.master) continue;
    const std::string at = spec.single_window ? me : me + "." + s.name;
    b.base = std::make_unique<param<uint64_t>>(
        at + ".base", 0,
        "address of the slave port " + std::string(s.prefix) + " (host physical, or BAR0 offset; the RTL sees the low address bits)");
    b.size = std::make_unique<param<uint64_t>>(at + ".size", 0x10000, "size of the slave port's window", 1, uint64_t(1) << 40);
    b.in_bar0 = std::make_unique<param<bool>>(at + ".in_bar0", false, "map the slave port in BAR0 (base is an offset)");
    if (b.to_axi) {
      b.lockstep_memory = std::make_unique<param<bool>>(at + ".lockstep_memory", false,
                                                        "the slave is a memory: compare every read with a TLM shadow memory");
      if (*b.lockstep_memory) b.to_axi->enable_lockstep_memory();
    }
  }
  dut_ = build(*this);
  check_ports(spec);
  if (!unread_.empty()) {
    std::string list;
    for (const auto& u : unread_) list += (list.empty() ? "" : ", ") + u;
    std::cerr << "gpuvp: note: " << me << ": RTL outputs left unread (optional AXI signals): " << list << "\n";
  }
}

std::vector<component::target_port> rtl_block::targets() {
  std::vector<target_port> t;
  for (const bus& b : buses_) {
    if (b.to_axi) t.push_back({b.spec.port, &b.to_axi->in, *b.base, *b.size, *b.in_bar0});
    if (b.to_axil) t.push_back({b.spec.port, &b.to_axil->in, *b.base, *b.size, *b.in_bar0});
  }
  return t;
}

std::vector<component::initiator_port> rtl_block::initiators() {
  std::vector<initiator_port> i;
  for (const bus& b : buses_)
    if (b.from_axi) i.push_back({b.spec.port, &b.from_axi->out});
  return i;
}

std::vector<component::irq_port> rtl_block::irqs() {
  std::vector<irq_port> v;
  for (auto* p : irq_ports_) v.push_back({p->basename(), p});
  return v;
}

std::vector<std::string> rtl_block::modelled_errors() {
  std::vector<std::string> all;
  for (const bus& b : buses_) {
    all.insert(all.end(), b.x().errors().begin(), b.x().errors().end());
    if (b.to_axi) all.insert(all.end(), b.to_axi->lockstep_errors().begin(), b.to_axi->lockstep_errors().end());
  }
  return all;
}

void rtl_block::report(std::ostream& os) { os << clk.cycles.value() << " RTL cycles, " << clk.wakeups.value() << " wake-ups\n"; }

// Every port of the RTL top must be one gpuvp binds: an unknown (unconnected) port is a
// configuration error naming it, before SystemC's generic "port not bound" at elaboration.
void rtl_block::check_ports(const block_spec& spec) {
  std::string unbound;
  for (sc_core::sc_object* o : dut_->get_child_objects()) {
    auto* p = dynamic_cast<sc_core::sc_port_base*>(o);
    if (!p || p->bind_count() != 0) continue;
    bool is_irq = false;  // bound by the platform to its PMC line later
    for (auto* i : irq_ports_) is_irq |= static_cast<sc_core::sc_port_base*>(i) == p;
    if (!is_irq) unbound += std::string(unbound.empty() ? "" : ", ") + p->basename() + " (" + p->kind() + ")";
  }
  if (unbound.empty()) return;
  std::string known = "the clock, the reset";
  for (const auto& b : spec.buses) known += std::string(", ") + b.prefix + "_*";
  for (auto* i : irq_ports_) known += std::string(", ") + i->basename();
  throw config_error(std::string(name()) + ": RTL port(s) left unconnected: " + unbound + "; gpuvp connects " + known +
                     ", the optional BUSY output and TIE-offs (docs/rtl.md, 'Plugging in your own RTL')");
}

void register_rtl_block(const block_spec& spec, build_fn build) {
  std::string what;
  for (const auto& b : spec.buses)
    what += std::string(what.empty() ? "" : ", ") + b.prefix + (b.lite ? " AXI4-Lite" : " AXI4") + (b.master ? " master" : " slave");
  registry::global().add_component_type(spec.type, std::string("RTL block ") + spec.top + " (Verilated; " + what + ")",
                                        [&spec, build](const std::string& name) -> std::unique_ptr<component> {
                                          return std::make_unique<rtl_block>(sc_core::sc_module_name(name.c_str()), spec, build);
                                        });
}

}  // namespace gpuvp::rtl
