// SPDX-License-Identifier: Apache-2.0
#include "copy_engine.h"

void register_copy_workloads();

void gpuvp_register_copy_engine() {
  gpuvp::registry::global().add_component_type("copy_engine", "DMA copy engine: TLM model, Verilated RTL or both in lock-step (copy.impl)",
                                               gpuvp::make_component<gpuvp::copy_engine::copy_engine>);
  register_copy_workloads();
}
