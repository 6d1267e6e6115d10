// SPDX-License-Identifier: Apache-2.0
// Registers the ptimer component type.
#include "gpuvp/registry.h"
#include "ptimer.h"

void gpuvp_register_ptimer() {
  gpuvp::registry::global().add_component_type("ptimer", "PTIMER nanosecond timer (BAR0 0x9000)",
                                               gpuvp::make_component<gpuvp::ptimer::ptimer>);
}
