// SPDX-License-Identifier: Apache-2.0
// Time literals (10_ns is sc_time(10, SC_NS)) and temporal decoupling for initiators: a thin
// wrapper over tlm_utils::tlm_quantumkeeper that takes the global quantum from the platform and
// counts synchronisations.
#pragma once
#include <systemc>
#include <tlm_utils/tlm_quantumkeeper.h>

namespace gpuvp {

inline sc_core::sc_time operator""_ps(unsigned long long v) { return sc_core::sc_time(double(v), sc_core::SC_PS); }
inline sc_core::sc_time operator""_ns(unsigned long long v) { return sc_core::sc_time(double(v), sc_core::SC_NS); }
inline sc_core::sc_time operator""_us(unsigned long long v) { return sc_core::sc_time(double(v), sc_core::SC_US); }
inline sc_core::sc_time operator""_ms(unsigned long long v) { return sc_core::sc_time(double(v), sc_core::SC_MS); }
inline sc_core::sc_time operator""_s(unsigned long long v) { return sc_core::sc_time(double(v), sc_core::SC_SEC); }

// The simulated time up to which the kernel runs without its caller stepping in (gpuvp run sets
// its time limit here; zero when nobody says): a model that computes ahead of the kernel's time
// (rtl_clock) keeps what others can see at or before it.
inline sc_core::sc_time& run_horizon() {
  static sc_core::sc_time t;
  return t;
}

class local_time {
 public:
  local_time() { keeper_.reset(); }
  // Time annotated on the next transaction (pass by reference to b_transport).
  sc_core::sc_time& offset() {
    offset_ = keeper_.get_local_time();
    return offset_;
  }
  // After a transaction: take back the annotated delay.
  void update() {
    keeper_.set(offset_);
    if (keeper_.need_sync()) sync();
  }
  void advance(const sc_core::sc_time& t) {
    keeper_.inc(t);
    if (keeper_.need_sync()) sync();
  }
  void sync() {
    keeper_.sync();
    ++syncs_;
  }
  sc_core::sc_time now() const { return keeper_.get_current_time(); }
  uint64_t syncs() const { return syncs_; }

 private:
  tlm_utils::tlm_quantumkeeper keeper_;
  sc_core::sc_time offset_;
  uint64_t syncs_ = 0;
};

}  // namespace gpuvp
