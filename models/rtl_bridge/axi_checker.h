// SPDX-License-Identifier: Apache-2.0
// axi_checker: an AXI4 / AXI4-Lite protocol checker on one transactor's pins, sampled at every
// rising edge (ARM IHI 0022, A3.2-A3.4). Rules, each reported with its name:
//   valid_held     once VALID is high it stays high until the READY handshake (A3.2.1)
//   stable_payload the channel's payload does not change while VALID is high and READY is low
//   wlast          WLAST is high on the last beat of a write burst (AWLEN + 1) and only there
//   rlast          RLAST is high on the last beat of a read burst (ARLEN + 1) and only there
//   4k_boundary    an INCR burst does not cross a 4 KiB boundary (A3.4.1)
//   size           AxSIZE is not wider than the data bus
//   wrap_len       a WRAP burst has 2, 4, 8 or 16 beats and a size-aligned address
//   fixed_len      a FIXED burst has at most 16 beats (A3.4.1)
//   bid / rid      a response ID matches an outstanding request ID
// A violation is a message naming the instance, the signal, the cycle (rising edge index) and the
// rule; the owner turns it into a modelled error. The checker checks both directions, so it also
// guards the transactor itself.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>
#include "axi.h"

namespace gpuvp::rtl {

// Channel values at one rising edge. Payload slots: AW/AR: id addr len size burst;
// W: data strb last data_upper; B: id resp; R: id data resp last data_upper (data: the low 64
// bits; data_upper: the bits above, folded, on buses over 64 bits).
struct axi_sample {
  struct channel {
    bool valid = false, ready = false;
    uint64_t v[5] = {};
  };
  channel aw, w, b, ar, r;
};

axi_sample sample_pins(const axi4_pins& p);
axi_sample sample_pins(const axil_pins& p);  // ids 0, len 0, last 1, size log2(bus), burst INCR

class axi_checker {
 public:
  // where: instance name for messages; prefix: the pins' prefix ("m_axi"); bus_bytes: data bus.
  axi_checker(std::string where, std::string prefix, unsigned bus_bytes, bool lite);
  void check(const axi_sample& s, uint64_t cycle);
  const std::vector<std::string>& violations() const { return violations_; }
  // Called on each violation (the transactor stops the simulation when asked to).
  std::function<void(const std::string&)> on_violation;

 private:
  void fail(uint64_t cycle, const std::string& signal, const std::string& rule, const std::string& what);
  void check_address(const axi_sample::channel& a, const char* ch, uint64_t cycle);
  std::string where_, prefix_;
  unsigned bus_bytes_;
  bool lite_;
  axi_sample prev_;
  bool have_prev_ = false;
  std::deque<uint64_t> w_lens_;                 // AWLEN of write bursts whose data is still due
  uint64_t w_beat_ = 0;                         // beats of the current write burst so far
  std::map<uint64_t, unsigned> b_ids_;          // outstanding write IDs -> count
  std::map<uint64_t, std::deque<uint64_t>> r_;  // outstanding read ID -> remaining beats per burst
  std::vector<std::string> violations_;
};

}  // namespace gpuvp::rtl
