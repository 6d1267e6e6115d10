// SPDX-License-Identifier: Apache-2.0
// How a compute engine finds the GPU memory system (a gpu_l2 component) through its `out` socket,
// without knowing its name (docs/models/gpu-memory.md, "One memory system in the platform").
//
// Discovery: before the simulation starts (start_of_simulation) the compute engine sends one
// debug transaction of length 0 at its mem_base out of `out`, carrying a gpu_memory_probe
// extension. A gpu_l2 component that owns a memory system (model true) answers by setting
// `found` and does not forward it; every other hop ignores the extension (an interconnect
// forwards it by address, a memory copies 0 bytes). No answer: the compute engine keeps the
// memory system it built from its own configuration.
// Use: once attached, the compute engine's SMs call the owner's gpu_memory directly (same calls,
// same cycles as with a memory of their own) and mark the transactions they still send out of
// `out` (data, translation, errors) with sm_timed_ext, which the owner forwards untimed.
#pragma once
#include <string>
#include <systemc>
#include <tlm>

#include "core/gpu_config.h"
#include "core/memsys.h"

namespace gpuvp::sm {

// What the owner of a GPU memory system offers to the SMs that find it.
class gpu_memory_link {
 public:
  virtual std::string owner() const = 0;            // the component's name ("gpu_l2")
  virtual const gpu_config& config() const = 0;     // the configuration the memory was built from
  virtual gpu_memory& memory() = 0;
  // The SMs of compute engine `who` use memory() from now on. Throws config_error if another
  // compute engine already did (one GPU's SMs per memory system).
  virtual void attach_sms(const std::string& who) = 0;
  // A kernel of the attached SMs starts at SystemC time t0: core cycle 0 of the memory's time
  // frame (gpu_memory::kernel_start restarts its timing then).
  virtual void kernel_frame(sc_core::sc_time t0) = 0;

 protected:
  ~gpu_memory_link() = default;
};

// "Is there a GPU memory system downstream?" (a debug transaction; see above).
struct gpu_memory_probe : tlm::tlm_extension<gpu_memory_probe> {
  gpu_memory_link* found = nullptr;
  tlm::tlm_extension_base* clone() const override { return new gpu_memory_probe(*this); }
  void copy_from(const tlm::tlm_extension_base& o) override { found = static_cast<const gpu_memory_probe&>(o).found; }
};

// On an attached SM's access: already timed by the memory system, forward it untimed.
struct sm_timed_ext : tlm::tlm_extension<sm_timed_ext> {
  tlm::tlm_extension_base* clone() const override { return new sm_timed_ext(*this); }
  void copy_from(const tlm::tlm_extension_base&) override {}
};

// The first option in which two GPU configurations give different memory systems (clock
// domains, L2, crossbar, address mapping, DRAM; not the SM or L1 options), as
// "-option A vs B"; empty when they give the same one.
std::string memory_config_difference(const gpu_config& a, const gpu_config& b);

}  // namespace gpuvp::sm
