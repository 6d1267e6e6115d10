// SPDX-License-Identifier: Apache-2.0
#include "cp.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <sstream>

#include "afuc_asm.h"
#include "compute.h"
#include "gpuvp/extension.h"
#include "gpuvp/trace.h"

#ifndef GPUVP_CP_FIRMWARE_DIR
#define GPUVP_CP_FIRMWARE_DIR "firmware/cp"
#endif

namespace gpuvp::cp {

namespace {
// gpuvp's own firmware: the build tree's, or once installed (the build tree gone) the copy in
// <prefix>/share/gpuvp/firmware/cp next to <prefix>/bin (cmake/install.cmake).
std::string firmware_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(GPUVP_CP_FIRMWARE_DIR, ec)) return GPUVP_CP_FIRMWARE_DIR;
  const fs::path installed = fs::read_symlink("/proc/self/exe", ec).parent_path().parent_path() / "share/gpuvp/firmware/cp";
  return !ec && fs::is_directory(installed, ec) ? installed.string() : GPUVP_CP_FIRMWARE_DIR;
}
std::string hex32(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}
// PM4 opcode of a header as the handlers see it ($01, type bits masked for PKT4).
uint32_t opcode_of(uint32_t h) { return (h & 0xf0000000u) == 0x70000000u ? (h >> 16) & 0x7f : 4; }
}  // namespace

// One microcontroller: the ISS, its environment (ROQ or MEQ input, control registers, GPU
// register and memory access) and its thread.
struct cp_model::uc : afuc_env {
  enum role_t { sqe, pfp, me };
  struct ib_level {
    uint64_t addr = 0;       // next fetch address
    uint32_t remaining = 0;  // dwords not fetched yet
    std::deque<uint32_t> buf;
  };

  cp_model& m;
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

  uc(cp_model& model, role_t r, const std::vector<uint32_t>& image)
      : m(model), role(r), tag(r == sqe ? "sqe" : r == pfp ? "pfp" : "me"),
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
  void catch_up() {
    const uint64_t n = iss.stats().instructions - accounted;
    if (n) {
      accounted += n;
      instructions += n;
      cycles += n * m.cycles_per_instr;
      lt.advance(m.clock.get() * double(n * m.cycles_per_instr));
    }
    const auto& st = iss.stats();
    if (st.interrupts != irqs_seen) {  // handler entered: the request is acknowledged (STOP clears)
      m.preemptions += st.interrupts - irqs_seen;
      irqs_seen = st.interrupts;
      m.ctx_switch_cntl = m.ctx_switch_cntl.get() & ~uint64_t(1);
    }
    if (st.packets != packets_seen) {
      // IN_IB_END dispatches are the CP's own, not the stream's packets (cp.ib_ends counts them).
      const uint64_t internal = gen() >= 6 ? st.packets_by_id[PM4_IN_IB_END] - by_id_seen[PM4_IN_IB_END] : 0;
      if (role != pfp) m.packets += st.packets - packets_seen - internal;  // the ME executes them
      packets_seen = st.packets;
      for (unsigned id = 0; id < 128; id++) {
        if (st.packets_by_id[id] == by_id_seen[id]) continue;
        const uint64_t d = st.packets_by_id[id] - by_id_seen[id];
        by_id_seen[id] = st.packets_by_id[id];
        if (role == pfp || (id == PM4_IN_IB_END && gen() >= 6)) continue;  // the ME executes them; internal
        m.by_opcode_[id] += d;
        auto& c = m.opcode_counters_[id];
        if (!c) c = std::make_unique<counter>(&m, "packets." + pm4_id_name(id, gen()), "packets of this opcode");
        *c += d;
      }
    }
  }

  // Waits for `ev` until ready() holds. The check after the sync matters: an event notified
  // while this thread was catching up with its local time would otherwise be lost.
  template <typename F>
  // Trace: the unit's track shows "busy" spans (microcode running, with the packets it took) and
  // "wait" spans (blocked, with the reason) back to back.
  void block(sc_core::sc_event& ev, counter& why, F ready) {
    catch_up();
    ++why;
    waiting = true;
    lt.sync();
    auto& tr = tracer::global();
    const sc_core::sc_time blocked = sc_core::sc_time_stamp();
    if (tr.enabled() && !track) track = tr.track(std::string(m.name()) + "." + tag);
    if (tr.enabled() && blocked > busy_since)
      tr.span(track, "busy", busy_since, blocked - busy_since,
              "\"packets\":" + std::to_string(packets_seen - busy_packets));
    while (!ready()) sc_core::wait(ev);
    waiting = false;
    busy_since = sc_core::sc_time_stamp();
    busy_packets = packets_seen;
    if (tr.enabled() && busy_since > blocked) {
      const char* reason = &why == &m.stall_data      ? "packet data"
                           : &why == &m.stall_compute ? "compute dispatch"
                           : &why == &m.stall_meq_full ? "MEQ full"
                                                       : "MEQ empty";
      tr.span(track, "wait", blocked, busy_since - blocked,
              std::string("\"for\":\"") + reason + "\"");
    }
  }
  sc_core::sc_time busy_since = sc_core::SC_ZERO_TIME;
  uint64_t busy_packets = 0;
  uint32_t track = 0;

  // One b_transport at the local time; `delay` (if given) receives the delay it annotated;
  // dmi_shadow: the caller moves the data through a DMI pointer.
  bool access(tlm::tlm_command cmd, uint64_t addr, void* data, unsigned len, sc_core::sc_time* delay = nullptr,
              bool dmi_shadow = false) {
    catch_up();
    transaction t(cmd, addr, data, len);
    t.ext.dmi_shadow = dmi_shadow;
    sc_core::sc_time& offset = lt.offset();
    const sc_core::sc_time before = offset;
    m.mem->b_transport(t.gp, offset);
    if (delay) *delay = offset - before;
    lt.update();
    if (t.gp.is_dmi_allowed()) m.dmi_hint_ = true;
    if (!t.ok()) {
      m.fault(FAULT_BUS, uint32_t(addr >> 2),
              m.name() + std::string(": ") + tag + " bus error " +
                  (cmd == tlm::TLM_READ_COMMAND ? "reading " : "writing ") + to_hex(addr));
      iss.halt("bus error at " + to_hex(addr));
      return false;
    }
    return true;
  }

  // The CP_ME_NRT / NRT pipe address: returned, then advanced by one dword.
  uint64_t nrt_next() {
    const uint64_t a = m.nrt_addr_lo.get() | m.nrt_addr_hi.get() << 32;
    m.nrt_addr_lo = uint32_t(a + 4);
    m.nrt_addr_hi = uint32_t((a + 4) >> 32);
    return a;
  }

  uint32_t mem_read32(uint64_t addr) {
    uint32_t v = 0;
    ++m.mem_reads;
    access(tlm::TLM_READ_COMMAND, addr, &v, 4);
    return v;
  }
  void mem_write32(uint64_t addr, uint32_t v) {
    ++m.mem_writes;
    access(tlm::TLM_WRITE_COMMAND, addr, &v, 4);
  }

  // 8 << BUFSZ bytes; BUFSZ is capped at 28 (1 GiB) so the size stays a 32-bit dword count.
  uint32_t ring_dwords() const { return 2u << std::min<uint64_t>(m.rb_cntl.get() & 0x1f, 28); }

  bool fetch(uint64_t addr, unsigned n, std::deque<uint32_t>& out) {
    ++m.fetches;
    m.fetched += n;
    // Through DMI the burst still sends its transaction (dmi_shadow: timed, booked and counted as
    // any other, the memory moving no data), so fetch_dmi changes no time and no statistic other
    // than dmi_fetches; the data then comes through the pointer.
    const uint8_t* p = m.dmi_read_ptr(addr, 4 * n);
    std::vector<uint32_t> tmp(n);
    if (!access(tlm::TLM_READ_COMMAND, addr, tmp.data(), 4 * n, nullptr, p != nullptr)) return false;
    if (p) {
      ++m.dmi_fetches;
      std::memcpy(tmp.data(), p, 4 * n);
    }
    out.insert(out.end(), tmp.begin(), tmp.end());
    return true;
  }

  bool preempt_due() const { return iss.irq_pending() && !iss.in_handler(); }

  // Preemption request: the handler is PREEMPT_INSTR (SQE register 0x004), or jump-table entry
  // 15 while that is 0 (Mesa: "initialized to entry 15 of the jump table at bootup").
  void request_preempt(bool from_sqe = false) {
    ++m.preempt_requests;
    ctrl[CTRL_PREEMPT_TRIGGER] = from_sqe;  // Mesa: "reads return 1 if SQE triggered preemption"
    const uint32_t pi = iss.sqe_reg(SQE_PREEMPT_INSTR);
    iss.interrupt(pi ? pi : iss.jumptable(15));
    m.wptr_ev_.notify(sc_core::SC_ZERO_TIME);  // wakes a wait for packet data
  }

  bool set_secure(uint32_t v) override {
    if (!m.secure_switch) {
      ++m.secure_refused;
      return false;
    }
    m.secure_ = v & 1;
    ctrl[CTRL_SECURE_MODE] = v & 1;
    ++m.secure_switches;
    return true;
  }

  void update_ib_regs() {
    m.ib1_rem = level >= 1 ? ib[1].remaining + ib[1].buf.size() : 0;
    m.ib2_rem = level >= 2 ? ib[2].remaining + ib[2].buf.size() : 0;
  }

  bool pop_data(uint32_t& v) override {
    for (;;) {
      if (iss.st() == afuc_iss::state::halted) return false;
      if (preempt_due()) return false;  // starve: the ISS takes the interrupt, then retries
      if (role == me) {
        if (!m.meq_.empty()) {
          v = m.meq_.front();
          m.meq_.pop_front();
          m.meq_pop_ev_.notify(sc_core::SC_ZERO_TIME);
          return true;
        }
        block(m.meq_push_ev_, m.stall_meq_empty, [this] { return !m.meq_.empty(); });
        continue;
      }
      if (level > 0) {
        ib_level& L = ib[level];
        if (L.buf.empty() && L.remaining) {
          const unsigned n = unsigned(std::min<uint64_t>(L.remaining, m.fetch_burst));
          if (!fetch(L.addr, n, L.buf)) return false;
          L.addr += 4ull * n;
          L.remaining -= n;
        }
        if (!L.buf.empty()) {
          v = L.buf.front();
          L.buf.pop_front();
          update_ib_regs();
          return true;
        }
        level--;  // this IB is done: back to its parent
        update_ib_regs();
        if (gen() >= 6 || role == pfp) {
          // The SQE (a5xx: the PFP) runs IN_IB_END (jump-table entry 0x0a, Mesa adreno_pm4.xml:
          // "called when ROQ is empty, returns from an IB") before the parent's next packet: the
          // real firmware keeps its own IB level there.
          ++m.ib_ends;
          v = pm4_type7(PM4_IN_IB_END, 0);
          return true;
        }
        continue;
      }
      const uint32_t size = ring_dwords();
      if (!ring_buf.empty()) {
        v = ring_buf.front();
        ring_buf.pop_front();
        m.rb_rptr = (m.rb_rptr.get() + 1) % size;
        return true;
      }
      const uint32_t wptr = uint32_t(m.rb_wptr.get()) % size;
      if (ring_fetch != wptr) {
        const uint32_t avail = wptr > ring_fetch ? wptr - ring_fetch : size - ring_fetch;
        const unsigned n = unsigned(std::min<uint64_t>(avail, m.fetch_burst));
        const uint64_t base = m.rb_base.get() | m.rb_base_hi.get() << 32;
        if (!fetch(base + 4ull * ring_fetch, n, ring_buf)) return false;
        ring_fetch = (ring_fetch + n) % size;
        continue;
      }
      block(m.wptr_ev_, m.stall_data, [this, size] {
        return uint32_t(m.rb_wptr.get()) % size != ring_fetch || ring_dwords() != size || preempt_due();
      });
    }
  }

  // addr bits 17:0 are the register; bits above are flags (kept across the increment).
  // a5xx PFP -> ME: a dword into the MEQ; a full MEQ stalls the PFP.
  void meq_push(uint32_t v) {
    if (m.meq_.size() >= m.meq_depth)
      block(m.meq_pop_ev_, m.stall_meq_full, [this] { return m.meq_.size() < m.meq_depth; });
    m.meq_.push_back(v);
    m.meq_occupancy.add(m.meq_.size());
    m.meq_push_ev_.notify(sc_core::SC_ZERO_TIME);
  }

  void reg_write(uint32_t& addr, uint32_t v, bool) override {
    if (role == pfp) {  // the a5xx PFP's register-write port ($addr/$data) feeds the ME (real firmware)
      meq_push(v);
      return;
    }
    if (gen() >= 6 && (addr & (1u << 20))) {
      // A register-protection read test (Mesa adreno_control_regs.xml, REG_READ_TEST_RESULT: the
      // register | bit 20, then the count to $data): the model protects nothing, so the result
      // is READY (bit 0) without VIOLATION (bit 2) at once.
      ctrl[CTRL_REG_READ_TEST_RESULT] = 1;
      return;
    }
    if ((addr & 0x3ffff) == CP_ME_NRT_DATA) {  // memory data port: the address register advances instead
      mem_write32(nrt_next(), v);
      return;
    }
    m.reg_write(addr & 0x3ffff, v);
    addr++;
  }

  uint32_t read_memdata(uint32_t& addr) override {
    const uint32_t mb = mem_read_base();
    if (ctrl[mb + 2] > 0) {  // MEM_READ_ADDR / MEM_READ_DWORDS stream
      const uint64_t a = ctrl[mb] | uint64_t(ctrl[mb + 1]) << 32;
      ctrl[mb + 2]--;
      ctrl[mb] = uint32_t(a + 4);
      ctrl[mb + 1] = uint32_t((a + 4) >> 32);
      return mem_read32(a);
    }
    if ((addr & 0x3ffff) == CP_ME_NRT_DATA) {
      return mem_read32(nrt_next());
    }
    return m.reg_read(addr++ & 0x3ffff);
  }

  uint32_t read_regdata() override {
    const uint32_t a = ctrl[0x027];  // REG_READ_ADDR
    ctrl[0x027] = a + 1;
    if (ctrl[0x026]) ctrl[0x026]--;
    return m.reg_read(a & 0x3ffff);
  }

  // Control registers whose stored value is all the behaviour they need (not reported as
  // unmodelled): REG_WRITE_ADDR, REG_READ_DWORDS/_ADDR, LOAD_STORE_HI, PREEMPT_TRIGGER,
  // SECURE_MODE, THREAD_SYNC, REG_READ_TEST_RESULT and MEM_READ_ADDR/_HI/_DWORDS.
  bool kept_as_stored(uint32_t r) const {
    switch (r) {
      case 0x024: case 0x026: case 0x027: case 0x058:
      case CTRL_PREEMPT_TRIGGER: case CTRL_SECURE_MODE: case CTRL_THREAD_SYNC: case CTRL_REG_READ_TEST_RESULT: return true;
      default: return r >= mem_read_base() && r <= mem_read_base() + 2;
    }
  }

  void ctrl_write(uint32_t r, uint32_t v) override {
    r &= 0xfff;
    ctrl[r] = v;
    const uint32_t ibb = ib_ctrl_base();
    if (r >= ibb && r < ibb + 8 && (r - ibb) % 4 == 2) {  // IBn_DWORDS: start the indirect buffer
      const unsigned n = (r - ibb) / 4 + 1;
      if (role == me) return;  // fetch belongs to the PFP on a5xx
      if (level != n - 1) {
        m.fault(FAULT_IB_NESTING, n, m.name() + std::string(": IB") + std::to_string(n) +
                                          " started at IB level " + std::to_string(level));
        return;
      }
      ib_level& L = ib[n];
      L.addr = ctrl[r - 2] | uint64_t(ctrl[r - 1]) << 32;
      L.remaining = v;
      L.buf.clear();
      level = n;
      (n == 1 ? m.ib1_base : m.ib2_base) = uint32_t(L.addr);
      (n == 1 ? m.ib1_base_hi : m.ib2_base_hi) = uint32_t(L.addr >> 32);
      update_ib_regs();
      return;
    }
    if (gen() >= 6 && r == 0x025) {  // REG_WRITE: a register write at REG_WRITE_ADDR, which advances
      const uint32_t a = ctrl[0x024];
      m.reg_write(a & 0xffff, v);
      ctrl[0x024] = (a & 0xffff0000u) | ((a + 1) & 0xffff);
      return;
    }
    switch (r) {
      case 0x0f1: m.raise(v); break;
      case 0x0f9:
        m.fault(FAULT_SECURE, v & 1, m.name() + std::string(": secure mode switch to ") + (v & 1 ? "secure" : "non-secure") + " refused");
        break;
      case CTRL_PREEMPT_TRIGGER:  // the SQE preempts itself
        if ((v & 1) && gen() >= 6) request_preempt(true);
        break;
      case 0x0f2: cs_words.push_back(v); break;
      case 0x0f3:
        catch_up();
        lt.sync();  // the kernel starts at this microcontroller's time
        if (auto& tr = tracer::global(); tr.enabled()) {  // an arrow from this unit's span to the kernel's
          if (!track) track = tr.track(std::string(m.name()) + "." + tag);
          m.exec_cs(std::move(cs_words), tr.flow_out(track, sc_core::sc_time_stamp() + sc_core::sc_time(1, sc_core::SC_NS)));
        } else {
          m.exec_cs(std::move(cs_words));
        }
        cs_words.clear();
        break;
      case 0x0f4: {
        catch_up();
        const uint64_t c = v ? v : 1;
        cycles += c;
        ++m.stall_poll;
        lt.advance(m.clock.get() * double(c));
        lt.sync();  // a poll must see the progress of the others
        break;
      }
      case 0x0f5:  // CP_EVENT_WRITE: the event completes after every kernel launched before it
        ++m.events;
        if (m.cs_outstanding_)
          block(m.cs_done_ev_, m.stall_compute, [this] { return m.cs_outstanding_ == 0; });
        break;
      case 0x0f6:
        m.fault(FAULT_UNKNOWN_OPCODE, opcode_of(v),
                m.name() + std::string(": unknown PM4 opcode ") + hex32(opcode_of(v)) + " (header " + hex32(v) + ")");
        break;
      case 0x0f7:
        m.fault(FAULT_MALFORMED, opcode_of(v),
                m.name() + std::string(": malformed PM4 packet, opcode ") + pm4_id_name(opcode_of(v), gen()) +
                    " (header " + hex32(v) + ")");
        break;
      case 0x060: case 0x061: break;  // PACKET_TABLE_WRITE_ADDR / PACKET_TABLE_WRITE (in the ISS)
      case 0x0fa: ++m.packets_noop; break;  // gpuvp firmware: a packet without effect in the model
      case 0x0f8:  // PFP -> MEQ (gpuvp firmware)
        meq_push(v);
        break;
      default:
        if (!kept_as_stored(r)) m.unmodelled_ctrl_.insert(r);  // stored, no behaviour: listed for the report
        break;
    }
  }

  uint32_t ctrl_read(uint32_t r) override {
    r &= 0xfff;
    if (r == 0x054) return level;  // IB_LEVEL
    if (r == 0x0fb) {  // gpuvp firmware: 64-bit timestamp in cycles, low dword; latches the high
      const uint64_t t = timestamp();
      ts_high = uint32_t(t >> 32);
      return uint32_t(t);
    }
    if (r == 0x0fc) return ts_high;
    if (!kept_as_stored(r)) m.unmodelled_ctrl_.insert(r);
    return ctrl[r];
  }

  // The CP timestamp: this microcontroller's local time in clock cycles.
  uint64_t timestamp() {
    catch_up();
    return uint64_t(lt.now() / m.clock.get());
  }
  uint32_t ts_high = 0;

  // a6xx pipe registers (Mesa adreno_pipe_regs.xml): NRT_ADDR 0xa0/0xa1 and NRT_DATA 0xa2 replace
  // CP_ME_NRT; the event pipe EVENT_CMD 0xe7, EVENT_TS_ADDR 0xe8/0xe9, EVENT_TS_CTRL 0xea
  // (TIMESTAMP bit 1, INTERRUPT bit 2) and EVENT_TS_DATA 0xeb: the event happens at once (no
  // pipeline behind the CP), so its write goes to memory when the firmware gives it: the
  // timestamp when CTRL says TIMESTAMP, else EVENT_TS_DATA. The others are counted only.
  uint64_t ev_addr = 0;
  uint32_t ev_ctrl = 0;
  void pipe_write(uint32_t id, uint32_t v) override {
    switch (id) {
      case 0xa0: m.nrt_addr_lo = v; return;
      case 0xa1: m.nrt_addr_hi = v; return;
      case 0xa2: mem_write32(nrt_next(), v); return;
      case 0xe7:
        ++m.pipe_events;
        ++m.events;
        if (m.cs_outstanding_)  // the event completes after every kernel launched before it
          block(m.cs_done_ev_, m.stall_compute, [this] { return m.cs_outstanding_ == 0; });
        return;
      case 0xe8: ev_addr = (ev_addr & ~uint64_t(0xffffffffu)) | v; return;
      case 0xe9: ev_addr = (ev_addr & 0xffffffffu) | uint64_t(v) << 32; return;
      case 0xea:
        ev_ctrl = v;
        if (v & 2) {  // TIMESTAMP: 64 bits
          const uint64_t t = timestamp();
          ++m.pipe_ts_writes;
          mem_write32(ev_addr, uint32_t(t));
          mem_write32(ev_addr + 4, uint32_t(t >> 32));
        }
        if (v & 4) m.raise(INT_EVENT);
        return;
      case 0xeb:
        if (!(ev_ctrl & 2)) {
          ++m.pipe_ts_writes;
          mem_write32(ev_addr, v);
        }
        return;
      default: ++m.pipe_other; return;
    }
  }

  uint32_t mem_read(uint64_t a) override { return mem_read32(a); }
  void mem_write(uint64_t a, uint32_t v) override { mem_write32(a, v); }

  void error(const std::string& msg) override {
    m.fault(FAULT_MICROCODE, iss.pc(), m.name() + std::string(".") + tag + ": " + msg);
  }

  void thread() {
    if (!m.autostart) {  // wait for CP_SQE_CNTL bit 0
      waiting = true;
      while (!(m.sqe_cntl.get() & 1)) sc_core::wait(m.start_ev_);
      waiting = false;
    }
    for (;;) {
      iss.run(m.batch);
      catch_up();
      if (iss.st() == afuc_iss::state::halted) {
        waiting = true;
        lt.sync();
        sc_core::wait(m.never_);
      }
      iss.resume();
    }
  }
};

cp_model::cp_model(sc_core::sc_module_name name) : sc_module(name) {
  for (unsigned i = 0; i < scratch.size(); i++)
    scratch[i] = std::make_unique<reg>(regs, "CP_SCRATCH_REG" + std::to_string(i), 4 * (CP_SCRATCH_REG0 + i), 4, 0);
  rb_wptr.sync = true;
  mem.register_invalidate_direct_mem_ptr(this, &cp_model::invalidate_dmi);
  sqe_cntl.on_write = [this](uint64_t, uint64_t) { start_ev_.notify(sc_core::SC_ZERO_TIME); };
  rb_wptr.on_write = [this](uint64_t, uint64_t) { wptr_ev_.notify(sc_core::SC_ZERO_TIME); };
  int_status.on_write = [this](uint64_t, uint64_t) { irq_ev_.notify(sc_core::SC_ZERO_TIME); };
  int_en.on_write = [this](uint64_t, uint64_t) { irq_ev_.notify(sc_core::SC_ZERO_TIME); };
  ctx_switch_cntl.on_write = [this](uint64_t v, uint64_t) {
    if ((v & 1) && generation == 6) request_preempt();  // a6xx preemption (a5xx: stored only)
  };

  if (!compute_kernels.get().empty()) {
    try {
      for (const auto& e : sm::parse_kernelslist(compute_kernels).entries)
        if (e.is_kernel) kernel_paths_.push_back(e.trace_path);
    } catch (const std::exception& e) {
      throw config_error(compute_kernels.path() + ": " + e.what());
    }
  }

  const std::string dir = firmware_dir();
  if (generation == 6) {
    ucs_.push_back(std::make_unique<uc>(*this, uc::sqe, load_fw(firmware, dir + "/sqe.fw")));
  } else {
    ucs_.push_back(std::make_unique<uc>(*this, uc::pfp, load_fw(pfp_firmware, dir + "/pfp5.fw")));
    ucs_.push_back(std::make_unique<uc>(*this, uc::me, load_fw(firmware, dir + "/me5.fw")));
  }
  for (auto& u : ucs_) {
    uc* p = u.get();
    sc_core::sc_spawn_options o;
    sc_core::sc_spawn([p] { p->thread(); }, (std::string(p->tag) + "_thread").c_str(), &o);
  }
  SC_HAS_PROCESS(cp_model);
  SC_METHOD(drive_irq);
  sensitive << irq_ev_;
  dont_initialize();
}

cp_model::~cp_model() = default;

std::vector<uint32_t> cp_model::load_fw(const std::string& path, const std::string& fallback) {
  const std::string file = path.empty() ? fallback : path;
  // Name the key that chose the file (cp.firmware / cp.pfp_firmware), or the built-in image.
  const std::string key = path.empty() ? std::string(name()) + ": built-in firmware"
                          : &path == &firmware.get() ? firmware.path() : pfp_firmware.path();
  std::vector<uint32_t> w;
  try {
    w = read_words(file);
  } catch (const std::exception& e) {
    throw config_error(key + ": cannot load CP firmware: " + e.what());
  }
  if (w.empty()) throw config_error(key + ": " + file + ": empty firmware image (expected a header word and microcode)");
  if (w.size() < 3) throw config_error(key + ": CP firmware " + file + " is too short (" + std::to_string(w.size()) + " words)");
  return std::vector<uint32_t>(w.begin() + 1, w.end());  // drop the file header
}

uint32_t cp_model::reg_read(uint32_t r) {
  if (uint64_t(r) * 4 >= window_size) return 0;
  if (reg* R = regs.find(uint64_t(r) * 4)) return uint32_t(R->get());
  auto it = other_regs_.find(r);
  return it == other_regs_.end() ? 0 : it->second;
}

void cp_model::reg_write(uint32_t r, uint32_t v) {
  if (uint64_t(r) * 4 >= window_size) {
    fault(FAULT_BUS, r, std::string(name()) + ": firmware write to register " + to_hex(r) + " outside the GPU register file");
    return;
  }
  if (r == CP_LPAC_SQE_CNTL && lpac_boot_ack && generation == 6) {
    // No LPAC in the model: do what Mesa's emulator does for its boot code, which sets
    // THREAD_SYNC bit 1 (the SQE's boot code waits for it after setting bit 0).
    ucs_[0]->ctrl[CTRL_THREAD_SYNC] |= 2u;
  }
  written_[r] = v;
  if (reg* R = regs.find(uint64_t(r) * 4)) {
    R->set(v);
    if (R == &rb_wptr) wptr_ev_.notify(sc_core::SC_ZERO_TIME);
    if (R == &int_status || R == &int_en) irq_ev_.notify(sc_core::SC_ZERO_TIME);
    return;
  }
  other_regs_[r] = v;
}

uint32_t cp_model::gpu_reg(uint32_t r) const { return const_cast<cp_model*>(this)->reg_read(r); }

void cp_model::raise(uint32_t bits) {
  int_status = int_status.get() | bits;
  ++interrupts;
  irq_ev_.notify(sc_core::SC_ZERO_TIME);
}

void cp_model::fault(uint32_t cause, uint32_t detail, const std::string& msg) {
  if (hw_fault.get() == 0) hw_fault = cause | detail << 8;
  if (errors_.empty()) ib1_rem_at_fault_ = uint32_t(ib1_rem.get());
  errors_.push_back(msg);
  GPUVP_LOG(this, error, msg);
  raise(INT_ERROR);
}

void cp_model::drive_irq() { irq.write((int_status.get() & int_en.get()) != 0); }

const afuc_iss& cp_model::iss(unsigned i) const { return ucs_.at(i)->iss; }
unsigned cp_model::num_ucs() const { return unsigned(ucs_.size()); }

bool cp_model::idle() const {
  for (auto& u : ucs_)
    if (!u->waiting) return false;
  return meq_.empty() && cs_outstanding_ == 0;
}

sm::compute_engine* cp_model::compute_target() {
  if (!compute_looked_up_) {  // after elaboration: the component may be built after the CP
    compute_looked_up_ = true;
    compute_ = dynamic_cast<sm::compute_engine*>(sc_core::sc_find_object(compute_component.get().c_str()));
  }
  return compute_;
}

void cp_model::exec_cs(std::vector<uint32_t> words, uint64_t flow) {
  const size_t n = dispatches_.size();  // this dispatch's index
  dispatches_.push_back({words, false});
  sm::compute_engine* ce = compute_target();
  if (!ce || kernel_paths_.empty()) return;  // the recording sink
  auto fail = [&](const std::string& why) {
    fault(FAULT_COMPUTE, uint32_t(n), std::string(name()) + ": CP_EXEC_CS #" + std::to_string(n) + ": " + why);
  };
  if (words.size() != 4) return fail("payload has " + std::to_string(words.size()) + " dwords, expected 4");
  if (n >= kernel_paths_.size())
    return fail("no kernel " + std::to_string(n + 1) + " in " + compute_kernels.get() + " (" +
                std::to_string(kernel_paths_.size()) + " kernels)");
  std::shared_ptr<const sm::kernel_trace> k;
  try {
    k = std::make_shared<const sm::kernel_trace>(sm::parse_kernel_trace(kernel_paths_[n]));
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  const sm::dim3 grid{words[1], words[2], words[3]};
  try {
    ce->launch({grid, k->block, k, std::nullopt, flow}, [this](const sm::kernel_result&) {
      --cs_outstanding_;
      ++cs_completed;
      cs_done_ev_.notify(sc_core::SC_ZERO_TIME);
    });
  } catch (const std::invalid_argument& e) {
    return fail(e.what());
  }
  ++cs_outstanding_;
  ++cs_launched;
  dispatches_.back().launched = true;
}

const uint8_t* cp_model::dmi_read_ptr(uint64_t addr, unsigned len) {
  if (!fetch_dmi) return nullptr;
  auto covers = [&] {
    return dmi_valid_ && dmi_.is_read_allowed() && addr >= dmi_.get_start_address() &&
           addr + len - 1 <= dmi_.get_end_address();
  };
  if (!covers() && dmi_hint_) {
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(addr);
    gp.set_data_length(len);
    tlm::tlm_dmi d;
    if (mem->get_direct_mem_ptr(gp, d)) {
      dmi_ = d;
      dmi_valid_ = true;
    } else {
      dmi_hint_ = false;  // until a b_transport says DMI is allowed
    }
  }
  return covers() ? dmi_.get_dmi_ptr() + (addr - dmi_.get_start_address()) : nullptr;
}

void cp_model::invalidate_dmi(sc_dt::uint64 start, sc_dt::uint64 end) {
  if (dmi_valid_ && start <= dmi_.get_end_address() && end >= dmi_.get_start_address()) dmi_valid_ = false;
}

void cp_model::request_preempt() { ucs_.at(0)->request_preempt(); }

std::string cp_model::iss_position() const {
  std::string s;
  for (auto& u : ucs_) s += (s.empty() ? "" : ", ") + std::string(u->tag) + " pc " + to_hex(u->iss.pc());
  return s;
}

bool cp_model::halted() const {
  for (auto& u : ucs_)
    if (u->iss.st() == afuc_iss::state::halted) return true;
  return false;
}

bool cp_model::qtest(const std::vector<std::string>& words, std::string& reply) {
  if (words.empty() || words[0] != "cp_status") return false;
  std::ostringstream os;
  os << "OK";
  for (auto& u : ucs_) {
    os << " " << u->tag << "_pc=" << to_hex(u->iss.pc()) << " " << u->tag << "_state="
       << (u->iss.st() == afuc_iss::state::halted ? "halted" : u->waiting ? "waiting" : "running");
  }
  os << " packets=" << packets.value() << " dispatches=" << dispatches_.size();
  reply = os.str();
  return true;
}

void cp_model::report(std::ostream& os) {
  // One line: "sqe 198 instr 198 cycles, 15 packets (PKT4 3, ...), 1 dispatches, stalls ..."
  for (auto& u : ucs_) {
    u->catch_up();
    os << u->tag << " " << u->instructions.value() << " instr " << u->cycles.value() << " cycles, ";
  }
  os << packets.value() << " packets (";
  bool first = true;
  for (auto& [id, n] : by_opcode_) {
    os << (first ? "" : ", ") << pm4_id_name(id, int(generation.get())) << " " << n;
    first = false;
  }
  os << "), " << dispatches_.size() << " compute dispatches (" << cs_launched.value() << " launched, "
     << cs_completed.value() << " completed), stalls: data " << stall_data.value() << ", compute " << stall_compute.value()
     << ", poll " << stall_poll.value();
  if (ucs_.size() > 1)
    os << ", meq full " << stall_meq_full.value() << ", meq empty " << stall_meq_empty.value();
  os << "\n";
}

}  // namespace gpuvp::cp
