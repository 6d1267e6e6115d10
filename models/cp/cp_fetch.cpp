// SPDX-License-Identifier: Apache-2.0
// The microcontroller's memory side: transactions at its local time, the CP_ME_NRT data port,
// packet fetch from the ring and IB1/IB2 (with DMI), and the a5xx MEQ between PFP and ME.
#include <cstring>

#include "cp_uc.h"

namespace gpuvp::cp {

bool command_processor::uc::access(tlm::tlm_command cmd, uint64_t addr, void* data, unsigned len, sc_core::sc_time* delay,
                                   bool dmi_shadow) {
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
            m.name() + std::string(": ") + tag + " bus error " + (cmd == tlm::TLM_READ_COMMAND ? "reading " : "writing ") + to_hex(addr));
    iss.halt("bus error at " + to_hex(addr));
    return false;
  }
  return true;
}

uint64_t command_processor::uc::nrt_next() {
  const uint64_t a = m.nrt_addr_lo.get() | m.nrt_addr_hi.get() << 32;
  m.nrt_addr_lo = uint32_t(a + 4);
  m.nrt_addr_hi = uint32_t((a + 4) >> 32);
  return a;
}

uint32_t command_processor::uc::mem_read32(uint64_t addr) {
  uint32_t v = 0;
  ++m.mem_reads;
  access(tlm::TLM_READ_COMMAND, addr, &v, 4);
  return v;
}

void command_processor::uc::mem_write32(uint64_t addr, uint32_t v) {
  ++m.mem_writes;
  access(tlm::TLM_WRITE_COMMAND, addr, &v, 4);
}

bool command_processor::uc::fetch(uint64_t addr, unsigned n, std::deque<uint32_t>& out) {
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

void command_processor::uc::update_ib_regs() {
  m.ib1_rem = level >= 1 ? ib[1].remaining + ib[1].buf.size() : 0;
  m.ib2_rem = level >= 2 ? ib[2].remaining + ib[2].buf.size() : 0;
}

bool command_processor::uc::pop_data(uint32_t& v) {
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
    block(m.wptr_ev_, m.stall_data,
          [this, size] { return uint32_t(m.rb_wptr.get()) % size != ring_fetch || ring_dwords() != size || preempt_due(); });
  }
}

void command_processor::uc::meq_push(uint32_t v) {
  if (m.meq_.size() >= m.meq_depth) block(m.meq_pop_ev_, m.stall_meq_full, [this] { return m.meq_.size() < m.meq_depth; });
  m.meq_.push_back(v);
  m.meq_occupancy.add(m.meq_.size());
  m.meq_push_ev_.notify(sc_core::SC_ZERO_TIME);
}

}  // namespace gpuvp::cp
