// SPDX-License-Identifier: Apache-2.0
// Memory-mapped register banks. A model declares its registers as members, each with name,
// offset, width, reset value and access policy, so its header reads like a datasheet:
//
//   register_bank regs{"regs", 0x1000};                   // target socket regs.in, 4 KiB window
//   reg time_low{regs, "TIME_LOW", 0x400, 4, 0, access::ro};
//
// Behaviour hooks: on_read computes a value on read; on_write sees the value after the access
// policy was applied. A register with sync=true makes the bank synchronise the initiator's
// quantum (wait for the annotated delay) before the hook runs, for side effects on other models.
// Accesses may be partial (a byte of a 32-bit register) or span several adjacent registers.
// Unmapped bytes answer TLM_ADDRESS_ERROR_RESPONSE; a length other than 1, 2, 4 or 8, byte
// enables or a streaming width below the length answer TLM_BURST_ERROR_RESPONSE; both are logged
// with the module name and offset.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>
#include "gpuvp/config.h"
#include "gpuvp/field.h"
#include "gpuvp/stats.h"
#include "gpuvp/timing.h"

namespace gpuvp {

enum class access {
  rw,   // read/write
  ro,   // read-only: writes are ignored (and counted)
  wo,   // write-only: reads return 0
  w1c,  // write 1 to clear
  w1s,  // write 1 to set
  rc,   // read clears
};

class register_bank;

class reg {
 public:
  reg(register_bank& bank, std::string name, uint64_t offset, unsigned width_bytes, uint64_t reset_value, access policy = access::rw,
      uint64_t writable_mask = ~uint64_t(0));
  reg(const reg&) = delete;
  reg& operator=(const reg&) = delete;

  const std::string& name() const { return name_; }
  uint64_t offset() const { return offset_; }
  unsigned width() const { return width_; }
  uint64_t reset_value() const { return reset_; }
  access policy() const { return policy_; }

  // Direct access for the owning model (no hooks, no policy).
  uint64_t get() const { return value_; }
  void set(uint64_t v) { value_ = v & width_mask(); }
  operator uint64_t() const { return value_; }
  reg& operator=(uint64_t v) {
    set(v);
    return *this;
  }
  void reset() { value_ = reset_; }
  uint64_t width_mask() const { return width_ == 8 ? ~uint64_t(0) : ((uint64_t(1) << (8 * width_)) - 1); }

  std::function<uint64_t()> on_read;                           // value seen by the initiator
  std::function<void(uint64_t value, uint64_t old)> on_write;  // after the policy was applied
  bool sync = false;

 private:
  friend class register_bank;
  std::string name_;
  uint64_t offset_;
  unsigned width_;
  uint64_t reset_;
  access policy_;
  uint64_t writable_;
  uint64_t value_;
};

class register_bank : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<register_bank> in{"in"};

  param<sc_core::sc_time> read_latency{this, "read_latency", 1_ns, "latency of a register read", sc_core::SC_ZERO_TIME, 1_s};
  param<sc_core::sc_time> write_latency{this, "write_latency", 1_ns, "latency of a register write", sc_core::SC_ZERO_TIME, 1_s};

  counter reads{this, "reads", "register reads"};
  counter writes{this, "writes", "register writes"};
  counter errors{this, "errors", "accesses answered with an error response"};

  register_bank(sc_core::sc_module_name name, uint64_t size);
  uint64_t size() const { return size_; }
  void reset();  // every register to its reset value
  reg* find(uint64_t offset);
  const std::vector<reg*>& registers() const { return regs_; }

  // The access itself, also usable without a socket (tests, debuggers).
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& gp);

 private:
  friend class reg;
  void add(reg* r);
  bool access_bytes(tlm::tlm_generic_payload& gp, sc_core::sc_time* delay, bool debug);
  uint64_t size_;
  std::vector<reg*> regs_;  // sorted by offset
};

}  // namespace gpuvp
