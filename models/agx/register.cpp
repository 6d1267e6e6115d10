// SPDX-License-Identifier: Apache-2.0
// Registers the agx component type, the embedded agx platform and the .agx scenario workload kind.
#include "agx.h"
#include "agx_scenario.h"
#include "embedded/agx_platform_yaml.h"
#include "gpuvp/registry.h"

void gpuvp_register_agx() {
  auto& r = gpuvp::registry::global();
  r.add_component_type("agx", "Apple AGX (M1): UAT shared by GPU and ASC, sgx registers, AXI2AF bridge, AP TLBIs",
                       gpuvp::make_component<gpuvp::agx::agx_soc>);
  r.add_platform({"agx", "Apple M1-like: AP, fabric, 8 GiB DRAM at 0x8_0000_0000, GPU UAT, AXI2AF bridge, ASC side", agx_platform_yaml});
  gpuvp::agx_scenario::register_kind();
}
