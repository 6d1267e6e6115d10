// SPDX-License-Identifier: Apache-2.0
#include "gpuvp/platform.h"

#include <ostream>
#include <sstream>
#include <tlm_utils/tlm_quantumkeeper.h>
#include "gpuvp/host.h"
#include "gpuvp/memory.h"
#include "gpuvp/stats.h"
#include "gpuvp/trace.h"

namespace gpuvp {

namespace {
// A sparse memory mapped at `base` on the interconnect.
class memory_component : public sparse_memory, public component {
 public:
  param<uint64_t> base{this, "base", 0, "host physical address of the memory", 0, ~uint64_t(0)};
  explicit memory_component(sc_core::sc_module_name name) : sparse_memory(name) {}
  sc_core::sc_module& module() override { return *this; }
  std::vector<target_port> targets() override { return {{"in", &in, base, size}}; }
  void report(std::ostream& os) override {
    os << "reads " << reads.value() << ", writes " << writes.value() << ", bytes read " << bytes_read.value() << ", bytes written "
       << bytes_written.value() << ", pages " << pages_allocated.value() << "\n";
  }
};

void register_builtin_types() {
  registry::global().add_component_type("memory", "sparse memory (DRAM) mapped on the interconnect", make_component<memory_component>);
}
}  // namespace

platform::platform() {
  register_builtin_types();
  if (quantum.get() == sc_core::SC_ZERO_TIME) throw config_error("platform.quantum: must be greater than 0");
  tlm::tlm_global_quantum::instance().set(quantum);

  router_ = std::make_unique<router>("interconnect");
  pmc_ = std::make_unique<irq_controller>("pmc");
  host_ = std::make_unique<host>("host", *this);
  log_suppressed_ =
      std::make_unique<gauge>("log.suppressed_lines", "log lines not written: identical messages beyond the logger's repeat limit",
                              [] { return double(logger::global().suppressed()); });

  auto& cfg = config::global();
  for (const auto& name : cfg.children("components")) {
    const auto* s = cfg.find("components." + name);
    if (!s) throw config_error("components." + name + ": expected a component type");
    cfg.declare({"components." + name, "string", "", "type of component '" + name + "' (none removes it)", s->value, "", ""});
    if (s->value == "none") {
      cfg.ignore_prefix(name);
      continue;
    }
    const auto& types = registry::global().component_types();
    auto it = types.find(s->value);
    if (it == types.end()) {
      std::string known;
      for (const auto& [t, d] : types) known += " " + t;
      throw config_error(s->origin + ": components." + name + ": unknown component type '" + s->value + "' (known:" + known + ")");
    }
    components_[name] = it->second.second(name);
    order_.push_back(name);
    types_[name] = s->value;
  }
  connect();
}

platform::~platform() = default;

component* platform::find(const std::string& name) {
  auto it = components_.find(name);
  return it == components_.end() ? nullptr : it->second.get();
}

int platform::irq_line(const std::string& name) const {
  auto it = irq_lines_.find(name);
  return it == irq_lines_.end() ? -1 : it->second;
}

namespace {
// Binds through the initiator's own bind(), so that multi sockets register the binding.
void bind(tlm::tlm_initiator_socket<>& initiator, tlm::tlm_base_target_socket_b<>& target) { initiator.bind(target); }
}  // namespace

void platform::connect() {
  router& r = *router_;
  unsigned next_in = 0, next_out = 0;

  host_->out.bind(r.in);
  r.name_input(next_in++, "host");
  r.out.bind(pmc_->regs.in);
  r.map(next_out++, bar0_base, 0x1000, "pmc");

  std::map<std::string, tlm::tlm_base_target_socket_b<>*> unmapped;
  for (const auto& name : order_)
    for (const auto& t : components_[name]->targets()) {
      if (t.size == 0) {
        unmapped[name + "." + t.name] = t.socket;
        continue;
      }
      uint64_t base = t.base;
      if (t.in_bar0) {
        if (t.base + t.size > bar0_size)
          throw config_error(name + "." + t.name + ": BAR0 window [" + to_hex(t.base) + ", " + to_hex(t.base + t.size) +
                             ") lies outside BAR0 (size " + to_hex(bar0_size) + ")");
        base += bar0_base;
      }
      r.out.bind(*t.socket);
      r.map(next_out++, base, t.size, t.name == "in" || t.name == "regs" ? name : name + "." + t.name);
    }
  for (const auto& name : order_)
    for (const auto& i : components_[name]->initiators()) {
      // Each initiator may be redirected in configuration: "<component>.<port>.to".
      param<std::string> to(name + "." + i.name + ".to", i.to,
                            "where initiator " + name + "." + i.name + " is bound (interconnect or component.port)");
      const std::string where = to.get() == "auto" ? resolve_auto(i.auto_to) : to.get();
      if (i.bound) i.bound(where);
      if (where == "interconnect") {
        bind(*i.socket, r.in);
        r.name_input(next_in++, name + "." + i.name);
      } else {
        auto it = unmapped.find(where);
        if (it == unmapped.end()) throw config_error(to.path() + ": no unmapped target port '" + where + "' (components' size-0 ports)");
        bind(*i.socket, *it->second);
      }
    }

  // Interface ports: "<component>.<port>.to: <component>.<export>".
  std::map<std::string, component::interface_export> exports;
  for (const auto& name : order_)
    for (const auto& e : components_[name]->interface_exports()) exports.emplace(name + "." + e.name, e);
  for (const auto& name : order_)
    for (auto& i : components_[name]->interface_ports()) bind_interface(name, i, exports);

  // Interrupts: component outputs -> signals -> PMC lines; unused lines read a constant low.
  unsigned line = 0;
  for (const auto& name : order_)
    for (const auto& q : components_[name]->irqs()) {
      if (line == irq_controller::max_lines)
        throw config_error("more than " + std::to_string(irq_controller::max_lines) + " interrupt lines");
      auto sig = std::make_unique<irq_signal>((name + "_" + q.name).c_str());
      q.port->bind(*sig);
      pmc_->lines[line].bind(*sig);
      pmc_->line_names[line] = name + "." + q.name;
      irq_lines_[name + "." + q.name] = int(line);
      irq_signals_.push_back(std::move(sig));
      ++line;
    }
  idle_line_ = std::make_unique<irq_signal>("irq_unused");
  for (; line < irq_controller::max_lines; ++line) pmc_->lines[line].bind(*idle_line_);
  host_irq_ = std::make_unique<irq_signal>("host_irq");
  pmc_->host_irq.bind(*host_irq_);
  host_->irq.bind(*host_irq_);
}

std::string platform::resolve_auto(const std::string& type_port) const {
  const auto dot = type_port.find('.');
  if (dot != std::string::npos)
    for (auto it = order_.rbegin(); it != order_.rend(); ++it)
      if (types_.at(*it) == type_port.substr(0, dot)) return *it + type_port.substr(dot);
  return "interconnect";
}

void platform::bind_interface(const std::string& name, component::interface_port& i,
                              const std::map<std::string, component::interface_export>& exports) {
  const std::string port = name + "." + i.name;
  // A default target this platform lacks leaves the port unbound: the parameter says `none`, so
  // that a configuration dump loads back.
  const bool default_absent = !i.to.empty() && !exports.count(i.to);
  param<std::string> to(port + ".to", default_absent ? "none" : i.to,
                        "where interface port " + port + " (" + i.interface + ") is bound (component.export; none: unbound" +
                            (default_absent ? "; default " + i.to + ", absent here)" : ")"));
  const bool none = to.get().empty() || to.get() == "none";
  const auto* set = config::global().find(to.path());
  const std::string at = (set ? set->origin + ": " : "") + to.path() + ": ";  // where it was set
  std::string known;
  for (const auto& [n, e] : exports) known += " " + n + " (" + e.interface + ")";
  if (known.empty()) known = " none";
  if (!none) {
    auto it = exports.find(to.get());
    if (it == exports.end())
      throw config_error(at + port + " (" + i.interface + ") is bound to '" + to.get() + "', which no component exports (exports:" + known +
                         ")");
    if (!i.bind(*it->second.exp))
      throw config_error(at + port + " needs " + i.interface + ", but " + to.get() + " is " + it->second.interface);
    return;
  }
  if (i.needed) {
    const bool defaulted = default_absent && !set;
    throw config_error(at + port + " is unbound (" + (defaulted ? "no export '" + i.to + "'" : "none") + ") but " + i.why_needed +
                       ": bind it to an export of " + i.interface + " (exports:" + known + ")");
  }
}

bool platform::mapped(uint64_t addr, uint64_t len) const {
  if (len == 0) return true;
  if (addr + len - 1 < addr) return false;  // wraps
  uint64_t at = addr;
  const uint64_t last = addr + len - 1;
  for (const auto& w : router_->windows())  // sorted by base: walk the covered run
    if (w.base <= at && at - w.base < w.size) {
      if (last - w.base < w.size) return true;
      at = w.base + w.size;
    }
  return false;
}

bool platform::debug_read(uint64_t addr, void* data, unsigned len) {
  tlm::tlm_generic_payload gp;
  gp.set_command(tlm::TLM_READ_COMMAND);
  gp.set_address(addr);
  gp.set_data_ptr(static_cast<unsigned char*>(data));
  gp.set_data_length(len);
  gp.set_streaming_width(len);
  return router_->transport_dbg(0, gp) == len;
}

bool platform::debug_write(uint64_t addr, const void* data, unsigned len) {
  tlm::tlm_generic_payload gp;
  gp.set_command(tlm::TLM_WRITE_COMMAND);
  gp.set_address(addr);
  gp.set_data_ptr(static_cast<unsigned char*>(const_cast<void*>(data)));
  gp.set_data_length(len);
  gp.set_streaming_width(len);
  return router_->transport_dbg(0, gp) == len;
}

void platform::trace_signals(sc_core::sc_trace_file* f) {
  for (const auto& [name, line] : irq_lines_) sc_core::sc_trace(f, *irq_signals_[line], "irq." + name);
  sc_core::sc_trace(f, *host_irq_, "host_irq");
}

void platform::report(std::ostream& os) {
  for (const auto& name : order_) {
    std::ostringstream body;
    components_[name]->report(body);
    if (!body.str().empty()) os << "  " << name << ": " << body.str();
  }
}

std::vector<std::string> platform::busy() {
  std::vector<std::string> out;
  for (const auto& name : order_)
    for (auto& b : components_[name]->busy()) out.push_back(b.rfind(name + ": ", 0) == 0 ? b : name + ": " + b);
  return out;
}

std::vector<std::string> platform::modelled_errors() {
  std::vector<std::string> errors;
  for (const auto& name : order_)
    for (auto& e : components_[name]->modelled_errors())  // prefixed with the component, once
      errors.push_back(e.rfind(name + ": ", 0) == 0 ? e : name + ": " + e);
  // A line acknowledged at its source (level low again) was handled, even if INTR still holds it.
  const uint32_t pending = uint32_t(pmc_->intr.get() & pmc_->intr_en.get() & pmc_->levels());
  if (fail_on_pending_irq && pending)
    for (unsigned i = 0; i < irq_controller::max_lines; ++i)
      if (pending & (1u << i)) errors.push_back("unhandled interrupt on line " + std::to_string(i) + " (" + pmc_->line_names[i] + ")");
  return errors;
}

}  // namespace gpuvp
