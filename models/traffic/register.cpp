// SPDX-License-Identifier: Apache-2.0
// Registers the traffic component type.
#include "gpuvp/registry.h"
#include "traffic.h"

void gpuvp_register_traffic() {
  gpuvp::registry::global().add_component_type("traffic", "traffic generator: initiators g0..gN-1",
                                               gpuvp::make_component<gpuvp::traffic::traffic>);
}
