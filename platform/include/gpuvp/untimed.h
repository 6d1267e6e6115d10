// SPDX-License-Identifier: Apache-2.0
// An access whose timing another model already gives (the GPU's memory system: the SMs' L2,
// crossbar and DRAM, or a gpu_l2 component's): the hops after it carry, count and translate it,
// but book no link time, queue it nowhere and add only their latency. The interconnect counts
// such transactions in its ports' `untimed` statistic, so that its busy and queueing figures stay
// on the one time line the memory system gives (docs/models/interconnect.md).
#pragma once
#include <tlm>

namespace gpuvp {

struct untimed_ext : tlm::tlm_extension<untimed_ext> {
  tlm::tlm_extension_base* clone() const override { return new untimed_ext(*this); }
  void copy_from(const tlm::tlm_extension_base&) override {}
};

// Attaches a stack extension to `gp` for one call and takes it off again (even on an exception),
// so that the payload never frees it; nothing is attached when `on` is false or gp has one.
class untimed_scope {
 public:
  untimed_scope(tlm::tlm_generic_payload& gp, bool on) : gp_(gp) {
    if (on && !gp.get_extension<untimed_ext>()) {
      gp.set_extension(&ext_);
      attached_ = &ext_;
    }
  }
  ~untimed_scope() {
    if (attached_) gp_.clear_extension(attached_);
  }
  untimed_scope(const untimed_scope&) = delete;
  untimed_scope& operator=(const untimed_scope&) = delete;

 private:
  tlm::tlm_generic_payload& gp_;
  untimed_ext ext_;
  untimed_ext* attached_ = nullptr;
};

}  // namespace gpuvp
