// SPDX-License-Identifier: Apache-2.0
// Registers the "gpu_l2" component type and the "gpu-memory" platform.
#include "embedded/gpu_memory_platform_yaml.h"
#include "gpu_l2.h"
#include "gpuvp/registry.h"

void gpuvp_register_gpu_memory() {
  using namespace gpuvp;
  auto& r = registry::global();
  r.add_component_type("gpu_l2", "the GPU's memory system (L2 slices, crossbar, DRAM channels) for the SMs and engines bound to it",
                       [](const std::string& name) { return make_component<gpu_memory::gpu_l2_port>(name); });
  r.add_platform({"gpu-memory", "default platform + compute engine, copy engine and a VRAM stream sharing the GPU's memory system (gpu_l2)",
                  gpu_memory_platform_yaml});
}
