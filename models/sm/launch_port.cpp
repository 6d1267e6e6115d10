// SPDX-License-Identifier: Apache-2.0
#include "launch_port.h"

#include <stdexcept>

namespace gpuvp::sm {

launch_port::launch_port(const sc_core::sc_object* owner, const std::string& use, bool parse_all)
    : kernels(owner, "launch.kernels", "", use) {
  if (kernels.get().empty()) return;
  try {
    for (const auto& e : parse_kernelslist(kernels).entries)
      if (e.is_kernel) paths_.push_back(e.trace_path);
    traces_.resize(paths_.size());
    if (parse_all)
      for (size_t i = 1; i <= paths_.size(); ++i) trace(i);
  } catch (const std::exception& e) {
    throw config_error(kernels.path() + ": " + e.what());
  }
}

component::interface_port launch_port::port(const std::string& name) {
  return {name,
          launch_interface,
          "compute.launch",
          [this](sc_core::sc_export_base& e) {
            auto* x = dynamic_cast<sc_core::sc_export<launch_if>*>(&e);
            if (x) engine_ = dynamic_cast<launch_if*>(x->get_interface());
            return x != nullptr;
          },
          !kernels.get().empty(),
          kernels.path() + " is set"};
}

std::shared_ptr<const kernel_trace> launch_port::trace(size_t number) {
  if (number == 0 || number > paths_.size()) throw std::out_of_range("launch_port::trace: no kernel " + std::to_string(number));
  auto& t = traces_[number - 1];
  if (!t) t = std::make_shared<const kernel_trace>(parse_kernel_trace(paths_[number - 1]));
  return t;
}

}  // namespace gpuvp::sm
