// Registers the "compute" component type and the "accel-sim" workload kind
// (`gpuvp run --workload path/to/kernelslist.g`).
#include <memory>
#include <ostream>
#include <systemc>

#include "compute.h"
#include "gpuvp/platform.h"
#include "gpuvp/registry.h"

namespace gpuvp::sm {
namespace {

// Runs every kernel of a kernelslist.g in order on the platform's compute engine. The traces are
// parsed when the workload is loaded, so a malformed one fails before the simulation starts.
// Memcpy lines carry no data in the traces: they are listed but not simulated.
class accelsim_workload : public workload {
 public:
  explicit accelsim_workload(const std::string& path) : list_(parse_kernelslist(path)) {
    for (const auto& e : list_.entries)
      if (e.is_kernel) kernels_.push_back(std::make_shared<const kernel_trace>(parse_kernel_trace(e.trace_path)));
  }
  void run(platform& p, host_port& host) override {
    auto engines = p.all_of<compute_engine>();
    if (engines.empty()) {
      problem_ = "no compute engine component in the platform (components: {compute: compute})";
      return;
    }
    compute_engine& e = *engines.front();
    for (const auto& k : kernels_) {
      e.launch({k->grid, k->block, k});
      while (!e.idle()) sc_core::wait(e.kernel_done);
    }
    done_ = e.results().size();
  }
  int check(platform& p, std::ostream& os) override {
    if (!problem_.empty()) {
      os << list_.file << ": " << problem_ << "\n";
      return 1;
    }
    if (done_ != kernels_.size()) {
      os << list_.file << ": " << done_ << " of " << kernels_.size() << " kernels completed\n";
      return 1;
    }
    return 0;
  }

 private:
  kernelslist list_;
  std::vector<std::shared_ptr<const kernel_trace>> kernels_;
  size_t done_ = 0;
  std::string problem_;
};

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace
}  // namespace gpuvp::sm

void gpuvp_register_sm() {
  using namespace gpuvp;
  auto& r = registry::global();
  r.add_component_type("compute", "SM compute engine running Accel-Sim traces (GPGPU-Sim function units)",
                       [](const std::string& name) { return make_component<sm::compute_engine>(name); });
  r.add_workload_kind({"accel-sim", "Accel-Sim kernelslist.g with post-processed .traceg kernels",
                       [](const std::string& path) { return sm::ends_with(path, ".g"); },
                       "components:\n  compute: compute\n",
                       [](const std::string& path) { return std::make_unique<sm::accelsim_workload>(path); }});
}
