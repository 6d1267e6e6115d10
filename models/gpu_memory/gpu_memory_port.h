// SPDX-License-Identifier: Apache-2.0
// The GPU memory system's port for the compute engine's SMs (docs/models/gpu_memory.md, "One
// memory system in the platform"): a fast-path interface that a gpu_l2 component exports as
// `sms` and a compute engine's `l2` port binds to in configuration (`compute.l2.to: gpu_l2.sms`).
// Bound, the SMs call the owner's memory_system directly (the same calls and cycles as with a memory
// of their own) and mark the transactions they still send out of `out` (data, translation,
// errors) with sm_timed_ext, which the owner forwards untimed. The per-sector interface the SMs'
// L1s use is core/mem_port.h.
#pragma once
#include <string>
#include <systemc>
#include <tlm>

#include "core/gpu_config.h"
#include "core/memsys.h"

namespace gpuvp::gpu_memory {

using sm::config_file_error;  // the GPU configuration the SMs and the memory system share (models/sm)
using sm::gpu_config;

// What the owner of a GPU memory system offers to the SMs bound to it.
class gpu_memory_if : public virtual sc_core::sc_interface {
 public:
  virtual std::string owner() const = 0;         // the component's name ("gpu_l2")
  virtual bool owns_memory() const = 0;          // false: a plain wire (gpu_l2.model false)
  virtual const gpu_config& config() const = 0;  // the configuration the memory was built from
  virtual memory_system& memory() = 0;           // only when owns_memory()
  // The SMs of compute engine `who` use memory() from now on. Throws config_error if another
  // compute engine already did (one GPU's SMs per memory system).
  virtual void attach_sms(const std::string& who) = 0;
  // A kernel of the attached SMs starts at SystemC time t0: core cycle 0 of the memory's time
  // frame (memory_system::kernel_start restarts its timing then).
  virtual void kernel_frame(sc_core::sc_time t0) = 0;
};

// The interface's name in configuration messages (component::interface_port).
inline constexpr const char* gpu_memory_interface = "gpu memory system (gpu_memory_if)";

// On an attached SM's access: already timed by the memory system, forward it untimed.
struct sm_timed_ext : tlm::tlm_extension<sm_timed_ext> {
  tlm::tlm_extension_base* clone() const override { return new sm_timed_ext(*this); }
  void copy_from(const tlm::tlm_extension_base&) override {}
};

// The first option in which two GPU configurations give different memory systems (clock
// domains, L2, crossbar, address mapping, DRAM; not the SM or L1 options), as
// "-option A vs B"; empty when they give the same one.
std::string memory_config_difference(const gpu_config& a, const gpu_config& b);

}  // namespace gpuvp::gpu_memory
