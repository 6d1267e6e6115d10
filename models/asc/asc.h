// SPDX-License-Identifier: Apache-2.0
// asc: the AGX's ASC coprocessor ("gfx-asc"): a core running the host-compiled firmware of
// firmware/asc in its own SystemC thread, its L1 data cache (asc_cache), its mailbox registers
// and its power state. Every firmware access goes through the ASC's UAT views (fw = EL1 firmware,
// ppl = GL1 uPPL; kernel VAs in slot 0, user VAs in the handoff's current slot) and then the cache;
// GPU work goes through the UAT's gpu view. Register offsets follow Apple's ASC mailbox block
// (m1n1 hw/asc.py); the ring layout, command formats and costs are our choice. See docs/models/asc.md.
//
// Sockets:
//   fw_out, ppl_out  initiators to the UAT's fw / ppl views (VA, gpu_ext::vm_context = slot).
//   gpu_out          initiator to the UAT's gpu view (the work command's accesses).
// A launch command runs an Accel-Sim kernel of `launch.kernels` on the compute engine its launch
// port is bound to (sm/launch_port.h; agx.asc.launch.to), whose `out` the agx platform binds to
// the UAT's gpu view: the kernel's accesses carry gpu_ext::vm_context = the command's slot; the
// firmware waits for its completion.
//   cache.in/out     the L1 data cache between the UAT's asc_out and the AXI2AF bridge.
//   regs             the mailbox block (reached from the AP through the AXI2AF bridge):
//                    CPU_CONTROL 0x44 (bit 4 RUN: starts the firmware), KICK 0x8800 (64-bit doorbell,
//                    write-only: TYPE 59:52, KICK 31:0), POWER 0x8810 (read-only: 1 up, 0 deep WFI).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include "asc_cache.h"
#include "asc_fw.h"
#include "gpuvp/config.h"
#include "gpuvp/regbank.h"
#include "gpuvp/stats.h"
#include "launch_port.h"

namespace gpuvp::asc {

class asc_core : public sc_core::sc_module, private ascfw::hal {
 public:
  tlm_utils::simple_initiator_socket<asc_core> fw_out{"fw_out"}, ppl_out{"ppl_out"}, gpu_out{"gpu_out"};
  asc_cache cache{"cache"};

  // --- parameters ---
  param<uint64_t> base{this, "base", 0x206400000ull, "host physical address of the mailbox registers (t8103 gfx-asc)", 0, ~uint64_t(0)};
  param<uint64_t> handoff_va_p{
      this, "handoff_va", 0xffffff8000000000ull, "VA of the handoff area in the firmware's kernel half (our choice)", 0, ~uint64_t(0)};
  param<uint64_t> ring_va_p{this, "ring_va", 0xffffff8000004000ull, "VA of the control page with the rings (our choice)", 0, ~uint64_t(0)};
  param<uint64_t> ring_entries_p{this, "ring_entries", 64, "entries of the command ring and of the event ring", 1, 128};
  param<uint64_t> max_maint_p{this,   "max_maint", 0x1000000, "longest command buffer or maintenance range, bytes (longer: assert)",
                              0x4000, 0x40000000};
  // Bad input (a missing list, a malformed trace) is found at construction: exit 2 before the run.
  sm::launch_port launch{this, "kernelslist.g whose kernels the launch command runs (1-based; empty: none)", true};
  param<bool> invalidate_cmdbuf_p{this, "invalidate_cmdbuf", true, "the firmware invalidates a command buffer's range before reading it"};
  param<sc_core::sc_time> op_cost{this,
                                  "op_cost",
                                  sc_core::sc_time(20, sc_core::SC_NS),
                                  "time of one firmware operation (a command step)",
                                  sc_core::SC_ZERO_TIME,
                                  sc_core::sc_time(1, sc_core::SC_MS)};
  param<sc_core::sc_time> poll_interval{this,
                                        "poll_interval",
                                        sc_core::sc_time(1, sc_core::SC_US),
                                        "time between two polls of a handoff word",
                                        sc_core::sc_time(1, sc_core::SC_NS),
                                        sc_core::sc_time(1, sc_core::SC_MS)};
  param<sc_core::sc_time> idle_timeout{this,
                                       "idle_timeout",
                                       sc_core::sc_time(50, sc_core::SC_US),
                                       "time without a kick before the GPU powers down and the ASC enters deep WFI",
                                       sc_core::sc_time(1, sc_core::SC_NS),
                                       sc_core::sc_time(10, sc_core::SC_SEC)};
  param<sc_core::sc_time> wake_latency{this,
                                       "wake_latency",
                                       sc_core::sc_time(2, sc_core::SC_US),
                                       "time from a kick to the firmware running again after deep WFI",
                                       sc_core::SC_ZERO_TIME,
                                       sc_core::sc_time(1, sc_core::SC_SEC)};

  // --- registers ---
  register_bank regs{"regs", 0x10000};
  reg cpu_control{regs, "CPU_CONTROL", 0x44, 4, 0, access::rw};
  using cpu_control_run = field<4, 1>;  // 0x10, which m1n1 writes to start the coprocessor
  reg kick{regs, "KICK", 0x8800, 8, 0, access::wo};
  reg power{regs, "POWER", 0x8810, 4, 0, access::ro};

  // --- statistics ---
  counter kicks{this, "kicks", "doorbell writes"};
  counter fw_ops{this, "fw_ops", "firmware operations charged"};
  counter fw_accesses{this, "fw_accesses", "firmware loads and stores"};
  counter powerdowns{this, "powerdowns", "entries into deep WFI"};
  counter wakeups{this, "wakeups", "kicks that woke the ASC from deep WFI"};
  counter asserts{this, "asserts", "firmware asserts"};
  counter launches{this, "launches", "kernels the firmware ran on the compute engine"};
  counter kernel_cycles{this, "kernel_cycles", "core cycles of those kernels"};

  // Called on deep WFI to empty the ASC's TLBs (the agx component flushes the fw and ppl views).
  std::function<void()> on_deep_wfi;

  explicit asc_core(sc_core::sc_module_name name);
  ~asc_core() override;
  const std::string& assert_text() const { return assert_; }
  sc_core::sc_time assert_time() const { return assert_at_; }
  bool asserted() const { return !assert_.empty(); }
  bool running() const { return started_; }
  uint64_t commands() const { return fw_.commands(); }
  const std::vector<std::string>& power_log() const { return power_log_; }
  void report(std::ostream& os);

 private:
  void thread();
  bool access(space s, tlm::tlm_command cmd, uint64_t va, void* data, unsigned n, maint_op* m = nullptr);
  // hal
  uint64_t ld(space s, uint64_t va, unsigned size) override;
  void st(space s, uint64_t va, uint64_t value, unsigned size) override;
  void dc(maint m, uint64_t va, uint64_t len) override;
  void op(unsigned n) override;
  void poll() override;
  bool wait_kick(bool with_timeout, uint64_t& value) override;
  uint64_t deep_wfi() override;
  void gpu_work(unsigned slot, uint64_t va, uint32_t len, uint32_t value) override;
  void gpu_launch(unsigned slot, uint32_t kernel) override;
  void set_current_slot(uint32_t slot) override { cur_slot_ = slot; }
  bool invalidate_cmdbuf() const override { return invalidate_cmdbuf_p; }
  uint64_t handoff_va() const override { return handoff_va_p; }
  uint64_t ring_va() const override { return ring_va_p; }
  unsigned ring_entries() const override { return unsigned(ring_entries_p); }
  uint64_t max_maint() const override { return max_maint_p; }

  ascfw::firmware fw_{*this};
  sc_core::sc_event run_ev_, kick_ev_;
  std::vector<uint64_t> kicks_;  // pending doorbell values
  bool started_ = false;
  uint32_t cur_slot_ = 0;
  std::string assert_;
  sc_core::sc_time assert_at_;
  std::vector<std::string> power_log_;
  sc_core::sc_event kernel_done_;
};

}  // namespace gpuvp::asc
