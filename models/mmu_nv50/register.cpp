// SPDX-License-Identifier: Apache-2.0
// Registers the mmu_nv50 component type.
#include "gpuvp/registry.h"
#include "mmu_nv50.h"

void gpuvp_register_mmu_nv50() {
  gpuvp::registry::global().add_component_type("mmu_nv50", "NV50 MMU: DMA objects, page tables, per-engine TLBs (BAR0 0x100000)",
                                               gpuvp::make_component<gpuvp::mmu_nv50::mmu_nv50>);
}
