// SPDX-License-Identifier: Apache-2.0
// scoreboard: lock-step comparison of the copy engine's TLM model and its RTL (copy.impl=lockstep).
// Both see the same register writes; each memory transaction they issue is recorded in its
// stream (reads, writes) and compared in order within the stream: command, address, length and
// data. The first mismatch is a modelled error naming both transactions, the stream position and
// the simulated time; the simulation stops there. After each copy the destination bytes in memory
// (written by the RTL) are compared with what the TLM model wrote (its final memory effect).
// Statistics: transactions compared, and the copy time of each side (RTL cycle-accurate vs the
// TLM model's estimate).
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>
#include <systemc>
#include <tlm>
#include "gpuvp/stats.h"

namespace gpuvp::copy_engine {

class copy_scoreboard : public sc_core::sc_module {
 public:
  gpuvp::counter compared{this, "compared", "memory transactions compared (TLM model vs RTL)"};
  gpuvp::counter copies{this, "copies", "copies completed by both sides"};
  gpuvp::counter tlm_time_ps{this, "tlm_time_ps", "sum of copy times estimated by the TLM model (ps)"};
  gpuvp::counter rtl_time_ps{this, "rtl_time_ps", "sum of copy times of the RTL, cycle-accurate (ps)"};
  gpuvp::gauge timing_difference{this, "timing_difference", "(TLM time - RTL time) / RTL time, summed over copies",
                                 [this] { return rtl_time_ps ? (double(tlm_time_ps) - double(rtl_time_ps)) / double(rtl_time_ps) : 0.0; }};

  explicit copy_scoreboard(sc_core::sc_module_name name) : sc_module(name) {}
  enum side { tlm_side = 0, rtl_side = 1 };
  void record(side s, const tlm::tlm_generic_payload& gp);
  void go();          // a copy was started (both sides got GO)
  void done(side s);  // one side finished its copy
  // Reads memory (debug) for the final-effect check.
  std::function<bool(uint64_t addr, unsigned char* data, unsigned len)> peek;
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  struct txn {
    bool write;
    uint64_t addr;
    std::vector<unsigned char> data;
    sc_core::sc_time time;
    uint64_t index;  // position in its stream, from 1
  };
  static std::string show(const char* who, const txn& t);
  void compare(int stream);
  void fail(const std::string& m);
  std::deque<txn> q_[2][2];  // [stream: read, write][side]
  uint64_t count_[2][2] = {};
  std::map<uint64_t, unsigned char> tlm_written_;  // this copy's TLM writes (final memory effect)
  sc_core::sc_time go_time_, done_time_[2];
  bool done_[2] = {true, true};
  std::vector<std::string> errors_;
};

}  // namespace gpuvp::copy_engine
