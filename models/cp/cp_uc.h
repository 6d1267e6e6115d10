// SPDX-License-Identifier: Apache-2.0
// The CP's microcontroller (command_processor::uc), private to models/cp: its ISS, its environment and its
// thread. The member functions live by responsibility: cp.cpp (time accounting, preemption, the
// thread), cp_fetch.cpp (memory access, ring / IB / MEQ packet data), cp_regio.cpp (GPU and
// control registers, $memdata / $regdata), cp_event_pipe.cpp (the a6xx pipe registers).
#pragma once
#include <array>
#include <deque>
#include <string>
#include <vector>

#include "cp.h"
#include "gpuvp/extension.h"
#include "gpuvp/trace.h"

namespace gpuvp::cp {

// One microcontroller: the ISS, its environment (ROQ or MEQ input, control registers, GPU
// register and memory access) and its thread.
struct command_processor::uc : afuc_env {
  enum role_t { sqe, pfp, me };
  struct ib_level {
    uint64_t addr = 0;       // next fetch address
    uint32_t remaining = 0;  // dwords not fetched yet
    std::deque<uint32_t> buf;
  };

  command_processor& m;
  role_t role;
  const char* tag;
  afuc_iss iss;
  local_time lt;
  std::vector<uint32_t> ctrl = std::vector<uint32_t>(0x1000, 0);
  uint64_t accounted = 0, packets_seen = 0, irqs_seen = 0;
  std::array<uint64_t, 128> by_id_seen{};
  bool waiting = false;
  counter instructions, cycles;
  // ROQ state (SQE / PFP)
  unsigned level = 0;
  ib_level ib[3];
  std::deque<uint32_t> ring_buf;
  uint32_t ring_fetch = 0;  // dword index of the next ring fetch
  std::vector<uint32_t> cs_words;

  uc(command_processor& model, role_t r, const std::vector<uint32_t>& image)
      : m(model),
        role(r),
        tag(r == sqe   ? "sqe"
            : r == pfp ? "pfp"
                       : "me"),
        iss(int(model.generation.get()), unsigned(model.call_depth.get())),
        instructions(&model, std::string(tag) + ".instructions", std::string("instructions retired by the ") + tag),
        cycles(&model, std::string(tag) + ".cycles", std::string("cycles of the ") + tag + " (instructions and poll delays)") {
    iss.load(image);
    iss.set_env(this);
    iss.set_headers_from_pfp(r == me);
    ctrl[0] = uint32_t(model.ctrl0.get());
  }

  int gen() const { return iss.gen(); }
  uint32_t ib_ctrl_base() const { return gen() >= 6 ? 0x010 : 0x0b0; }
  uint32_t mem_read_base() const { return gen() >= 6 ? 0x018 : 0x0b8; }

  // Accounts the instructions executed since the last call as local time.
  void catch_up();

  // Waits for `ev` until ready() holds. The check after the sync matters: an event notified
  // while this thread was catching up with its local time would otherwise be lost.
  // Trace: the unit's track shows "busy" spans (microcode running, with the packets it took) and
  // "wait" spans (blocked, with the reason) back to back.
  template <typename F>
  void block(sc_core::sc_event& ev, counter& why, F ready) {
    catch_up();
    ++why;
    waiting = true;
    lt.sync();
    auto& tr = tracer::global();
    const sc_core::sc_time blocked = sc_core::sc_time_stamp();
    if (tr.enabled() && !track) track = tr.track(std::string(m.name()) + "." + tag);
    if (tr.enabled() && blocked > busy_since)
      tr.span(track, "busy", busy_since, blocked - busy_since, "\"packets\":" + std::to_string(packets_seen - busy_packets));
    while (!ready()) sc_core::wait(ev);
    waiting = false;
    busy_since = sc_core::sc_time_stamp();
    busy_packets = packets_seen;
    if (tr.enabled() && busy_since > blocked) {
      const char* reason = &why == &m.stall_data       ? "packet data"
                           : &why == &m.stall_compute  ? "compute dispatch"
                           : &why == &m.stall_meq_full ? "MEQ full"
                                                       : "MEQ empty";
      tr.span(track, "wait", blocked, busy_since - blocked, std::string("\"for\":\"") + reason + "\"");
    }
  }
  sc_core::sc_time busy_since = sc_core::SC_ZERO_TIME;
  uint64_t busy_packets = 0;
  uint32_t track = 0;

  // One b_transport at the local time; `delay` (if given) receives the delay it annotated;
  // dmi_shadow: the caller moves the data through a DMI pointer.
  bool access(tlm::tlm_command cmd, uint64_t addr, void* data, unsigned len, sc_core::sc_time* delay = nullptr, bool dmi_shadow = false);

  // The CP_ME_NRT / NRT pipe address: returned, then advanced by one dword.
  uint64_t nrt_next();

  uint32_t mem_read32(uint64_t addr);
  void mem_write32(uint64_t addr, uint32_t v);

  // 8 << BUFSZ bytes; BUFSZ is capped at 28 (1 GiB) so the size stays a 32-bit dword count.
  uint32_t ring_dwords() const { return 2u << std::min<uint64_t>(m.rb_cntl.get() & 0x1f, 28); }

  bool fetch(uint64_t addr, unsigned n, std::deque<uint32_t>& out);

  bool preempt_due() const { return iss.irq_pending() && !iss.in_handler(); }

  // Preemption request: the handler is PREEMPT_INSTR (SQE register 0x004), or jump-table entry
  // 15 while that is 0 (Mesa: "initialized to entry 15 of the jump table at bootup").
  void request_preempt(bool from_sqe = false);

  bool set_secure(uint32_t v) override;

  void update_ib_regs();

  bool pop_data(uint32_t& v) override;

  // a5xx PFP -> ME: a dword into the MEQ; a full MEQ stalls the PFP.
  void meq_push(uint32_t v);

  // addr bits 17:0 are the register; bits above are flags (kept across the increment).
  void reg_write(uint32_t& addr, uint32_t v, bool) override;

  uint32_t read_memdata(uint32_t& addr) override;

  uint32_t read_regdata() override;

  // Control registers whose stored value is all the behaviour they need (not reported as
  // unmodelled): REG_WRITE_ADDR, REG_READ_DWORDS/_ADDR, LOAD_STORE_HI, PREEMPT_TRIGGER,
  // SECURE_MODE, THREAD_SYNC, REG_READ_TEST_RESULT and MEM_READ_ADDR/_HI/_DWORDS.
  bool kept_as_stored(uint32_t r) const;

  void ctrl_write(uint32_t r, uint32_t v) override;
  void start_ib(unsigned n, uint32_t dwords_reg, uint32_t dwords);
  void launch_cs();
  void stall(uint32_t cycles);

  uint32_t ctrl_read(uint32_t r) override;

  // The CP timestamp: this microcontroller's local time in clock cycles.
  uint64_t timestamp();
  uint32_t ts_high = 0;

  // a6xx pipe registers (Mesa adreno_pipe_regs.xml): NRT_ADDR 0xa0/0xa1 and NRT_DATA 0xa2 replace
  // CP_ME_NRT; the event pipe EVENT_CMD 0xe7, EVENT_TS_ADDR 0xe8/0xe9, EVENT_TS_CTRL 0xea
  // (TIMESTAMP bit 1, INTERRUPT bit 2) and EVENT_TS_DATA 0xeb: the event happens at once (no
  // pipeline behind the CP), so its write goes to memory when the firmware gives it: the
  // timestamp when CTRL says TIMESTAMP, else EVENT_TS_DATA. The others are counted only.
  uint64_t ev_addr = 0;
  uint32_t ev_ctrl = 0;
  void pipe_write(uint32_t id, uint32_t v) override;

  uint32_t mem_read(uint64_t a) override { return mem_read32(a); }
  void mem_write(uint64_t a, uint32_t v) override { mem_write32(a, v); }

  void error(const std::string& msg) override;

  void thread();
};

}  // namespace gpuvp::cp
