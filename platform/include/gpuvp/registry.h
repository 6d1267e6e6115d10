// SPDX-License-Identifier: Apache-2.0
// How models plug into the platform and into the gpuvp program.
//
// - A component is a top-level model instance created from configuration
//   (`components: {mmu: mmu_nv50}` makes a component named "mmu" of type "mmu_nv50").
//   It exposes target sockets to map on the interconnect (BAR0 blocks, memories), initiator
//   sockets and fast-path interface ports to bind (to the interconnect, another component's
//   target socket or interface export), interrupt outputs, qtest commands, and a report.
// - A tool is a `gpuvp <name> ...` subcommand (assemblers, decoders).
// - A workload kind runs a workload file (`gpuvp run --workload F`) on the platform.
// Each model folder defines `void gpuvp_register_<model>()` that registers its kinds here.
#pragma once
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>
#include <systemc>
#include <tlm>

namespace gpuvp {

class platform;

class component {
 public:
  virtual ~component() = default;
  virtual sc_core::sc_module& module() = 0;

  // A target socket (simple or multi). With size > 0 it is mapped at [base, base+size) on the
  // interconnect: a host physical address, or an offset in BAR0 when in_bar0 is set (register
  // blocks at the offsets the public documentation gives). With size 0 it is only reachable by binding an
  // initiator to "<component>.<name>" (use a multi_passthrough_target_socket if several bind).
  struct target_port {
    std::string name;
    tlm::tlm_base_target_socket_b<>* socket;
    uint64_t base = 0, size = 0;
    bool in_bar0 = false;
  };
  // An initiator socket, bound to `to`: "interconnect" or "<component>.<target_port>", or "auto":
  // "<last-listed component of type T>.<port>" for `auto_to` = "T.<port>" if the platform has one, else
  // the interconnect. `bound`, if set, is told where the platform bound it.
  struct initiator_port {
    std::string name;
    tlm::tlm_initiator_socket<>* socket;
    std::string to = "interconnect";
    std::string auto_to = "";
    std::function<void(const std::string& to)> bound = nullptr;
  };
  struct irq_port {
    std::string name;
    sc_core::sc_out<bool>* port;
  };
  // A port to another component's C++ interface (not TLM: called directly), bound like an
  // initiator by configuration "<component>.<name>.to: <component>.<export>" (default `to`; "" or
  // "none": unbound). `interface` names it in messages. Errors at elaboration: an export of another
  // interface; a name set in configuration that no component exports; unbound while `needed`.
  // A default `to` that the platform lacks leaves the port unbound. Make one with interface_port_of.
  struct interface_port {
    std::string name, interface, to;
    std::function<bool(sc_core::sc_export_base&)> bind;  // false: the export has another interface
    bool needed = false;
    std::string why_needed;  // the setting that needs it ("cp.launch.kernels is set")
  };
  // What an interface port binds to: an sc_export bound to its implementation.
  struct interface_export {
    std::string name, interface;
    sc_core::sc_export_base* exp;
  };
  virtual std::vector<target_port> targets() { return {}; }
  virtual std::vector<initiator_port> initiators() { return {}; }
  virtual std::vector<irq_port> irqs() { return {}; }
  virtual std::vector<interface_port> interface_ports() { return {}; }
  virtual std::vector<interface_export> interface_exports() { return {}; }

  // A qtest line this component understands (words[0] is the command). Return true and set
  // reply ("OK ..." / "FAIL ...") if handled.
  virtual bool qtest(const std::vector<std::string>& words, std::string& reply) { return false; }
  // Main figures for the end-of-run report. The platform writes "  NAME: " before them, so they
  // do not repeat the component's name.
  virtual void report(std::ostream& os) {}
  // Modelled errors seen during the run (faults, unhandled interrupts): non-empty makes exit 1.
  virtual std::vector<std::string> modelled_errors() { return {}; }
  // What is still in progress (a busy channel, a running kernel), one short phrase each: named
  // when a run is stopped by the time or wall-clock limit. Empty: idle, or the model cannot say.
  virtual std::vector<std::string> busy() { return {}; }
};

// The interface_port entry of `port` (an sc_port<IF> that may stay unbound), bound by default to `to`.
template <class IF, int N, sc_core::sc_port_policy P>
component::interface_port interface_port_of(const std::string& name, sc_core::sc_port<IF, N, P>& port, const std::string& interface,
                                            const std::string& to = "") {
  return {name,
          interface,
          to,
          [&port](sc_core::sc_export_base& e) {
            auto* x = dynamic_cast<sc_core::sc_export<IF>*>(&e);
            if (x) port.bind(*x);
            return x != nullptr;
          },
          false,
          ""};
}

using component_factory = std::function<std::unique_ptr<component>(const std::string& name)>;

// Wraps a module type M (constructible from a name) as a component; override the hooks by
// specialising, or derive from both sc_module and component directly.
template <typename M>
std::unique_ptr<component> make_component(const std::string& name) {
  return std::make_unique<M>(sc_core::sc_module_name(name.c_str()));
}

// The host's view of the platform while a workload runs (called from the host SC_THREAD).
class host_port {
 public:
  virtual ~host_port() = default;
  // Timed accesses at host physical addresses; false on an error response.
  virtual bool read(uint64_t addr, void* data, unsigned len) = 0;
  virtual bool write(uint64_t addr, const void* data, unsigned len) = 0;
  uint32_t read32(uint64_t addr) {
    uint32_t v = 0;
    read(addr, &v, 4);
    return v;
  }
  bool write32(uint64_t addr, uint32_t v) { return write(addr, &v, 4); }
  // Backdoor (untimed, debug) access for loading images and checking results.
  virtual bool peek(uint64_t addr, void* data, unsigned len) = 0;
  virtual bool poke(uint64_t addr, const void* data, unsigned len) = 0;
  virtual void wait(const sc_core::sc_time& t) = 0;
  // Waits until the host interrupt is raised or the timeout passes; true if raised.
  virtual bool wait_irq(const sc_core::sc_time& timeout) = 0;
};

class workload {
 public:
  virtual ~workload() = default;
  // Runs in the host thread: load memory, program registers, wait for completion.
  virtual void run(platform& p, host_port& host) = 0;
  // Before the simulation, on the elaborated platform: input that cannot run there (memory
  // preloads at unmapped addresses) throws config_error naming file:line.
  virtual void validate(platform& p) {}
  // After the simulation: check expectations. Messages for failures go to `os`;
  // return the number of failed expectations.
  virtual int check(platform& p, std::ostream& os) { return 0; }
};

struct workload_kind {
  std::string name, description;
  std::function<bool(const std::string& path)> matches;  // e.g. by extension
  std::string platform_yaml;                             // configuration overlay applied before the user's (may be "")
  // The embedded platform this kind runs on ("": any, the default unless --platform): chosen when
  // --platform is not given; another --platform is an input error.
  std::string platform;
  std::function<std::unique_ptr<workload>(const std::string& path)> load;  // throws on bad input
  // Optional overlay computed from the workload's text (e.g. its GPU generation), applied after
  // platform_yaml and before the user's configuration.
  std::function<std::string(const std::string& text)> overlay_for;
  // Parses a workload from text (needed for embedded workloads); `origin` names it in messages.
  std::function<std::unique_ptr<workload>(const std::string& text, const std::string& origin)> parse;
};

// A workload compiled into the program, run by name: `gpuvp run --workload NAME`.
struct embedded_workload {
  std::string name, description, kind;  // kind: a workload_kind name
  std::string text;
};

// A platform configuration compiled into the program, selected with `--platform NAME` instead of
// the embedded default.yaml ("default").
struct embedded_platform {
  std::string name, description, yaml;
};

struct tool {
  std::string name, summary;
  std::function<int(int argc, char** argv)> main;  // argv[0] is the tool name; exit code
};

class registry {
 public:
  static registry& global();
  void add_component_type(const std::string& type, const std::string& description, component_factory f);
  void add_tool(tool t);
  void add_workload_kind(workload_kind k);
  void add_embedded_workload(embedded_workload w);
  const embedded_workload* find_embedded_workload(const std::string& name) const;
  const std::vector<embedded_workload>& embedded_workloads() const { return embedded_; }
  void add_platform(embedded_platform p);
  const embedded_platform* find_platform(const std::string& name) const;
  const std::vector<embedded_platform>& platforms() const { return platforms_; }

  const std::map<std::string, std::pair<std::string, component_factory>>& component_types() const { return types_; }
  const std::vector<tool>& tools() const { return tools_; }
  const std::vector<workload_kind>& workload_kinds() const { return workloads_; }
  const tool* find_tool(const std::string& name) const;
  const workload_kind* find_workload_kind(const std::string& path_or_name) const;

 private:
  std::map<std::string, std::pair<std::string, component_factory>> types_;
  std::vector<tool> tools_;
  std::vector<workload_kind> workloads_;
  std::vector<embedded_workload> embedded_;
  std::vector<embedded_platform> platforms_;
};

// Calls every model's gpuvp_register_<model>() once (generated at build time).
void register_all_models();

}  // namespace gpuvp
