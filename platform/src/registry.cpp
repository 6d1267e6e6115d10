// SPDX-License-Identifier: Apache-2.0
#include "gpuvp/registry.h"

#include <algorithm>

namespace gpuvp {

registry& registry::global() {
  static registry instance;
  return instance;
}

void registry::add_component_type(const std::string& type, const std::string& description, component_factory f) {
  types_[type] = {description, std::move(f)};
}

void registry::add_tool(tool t) {
  std::erase_if(tools_, [&](const tool& x) { return x.name == t.name; });
  tools_.push_back(std::move(t));
  std::sort(tools_.begin(), tools_.end(), [](const tool& a, const tool& b) { return a.name < b.name; });
}

void registry::add_workload_kind(workload_kind k) {
  std::erase_if(workloads_, [&](const workload_kind& x) { return x.name == k.name; });
  workloads_.push_back(std::move(k));
}

void registry::add_embedded_workload(embedded_workload w) {
  std::erase_if(embedded_, [&](const embedded_workload& x) { return x.name == w.name; });
  embedded_.push_back(std::move(w));
}

const embedded_workload* registry::find_embedded_workload(const std::string& name) const {
  for (const auto& w : embedded_)
    if (w.name == name) return &w;
  return nullptr;
}

void registry::add_platform(embedded_platform p) {
  std::erase_if(platforms_, [&](const embedded_platform& x) { return x.name == p.name; });
  platforms_.push_back(std::move(p));
}

const embedded_platform* registry::find_platform(const std::string& name) const {
  for (const auto& p : platforms_)
    if (p.name == name) return &p;
  return nullptr;
}

const tool* registry::find_tool(const std::string& name) const {
  for (const auto& t : tools_)
    if (t.name == name) return &t;
  return nullptr;
}

const workload_kind* registry::find_workload_kind(const std::string& path_or_name) const {
  for (const auto& k : workloads_)
    if (k.name == path_or_name) return &k;
  for (const auto& k : workloads_)
    if (k.matches && k.matches(path_or_name)) return &k;
  return nullptr;
}

}  // namespace gpuvp
