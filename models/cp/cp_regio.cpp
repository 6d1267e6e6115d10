// SPDX-License-Identifier: Apache-2.0
// The microcontroller's register side: GPU register writes ($addr/$data), $memdata and $regdata
// reads, the control registers (cread/cwrite) and the CP timestamp.
#include <cstdio>

#include "cp_uc.h"

namespace gpuvp::cp {

namespace {
std::string hex32(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}
// PM4 opcode of a header as the handlers see it ($01, type bits masked for PKT4).
uint32_t opcode_of(uint32_t h) { return pm4_header_type::get(h) == 7 ? uint32_t(pm4_header_opcode::get(h)) : 4; }
}  // namespace

void command_processor::uc::reg_write(uint32_t& addr, uint32_t v, bool) {
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

uint32_t command_processor::uc::read_memdata(uint32_t& addr) {
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

uint32_t command_processor::uc::read_regdata() {
  const uint32_t a = ctrl[CTRL_REG_READ_ADDR];
  ctrl[CTRL_REG_READ_ADDR] = a + 1;
  if (ctrl[CTRL_REG_READ_DWORDS]) ctrl[CTRL_REG_READ_DWORDS]--;
  return m.reg_read(a & 0x3ffff);
}

bool command_processor::uc::kept_as_stored(uint32_t r) const {
  switch (r) {
    case CTRL_REG_WRITE_ADDR:
    case CTRL_REG_READ_DWORDS:
    case CTRL_REG_READ_ADDR:
    case CTRL_LOAD_STORE_HI:
    case CTRL_PREEMPT_TRIGGER:
    case CTRL_SECURE_MODE:
    case CTRL_THREAD_SYNC:
    case CTRL_REG_READ_TEST_RESULT:
      return true;
    default:
      return r >= mem_read_base() && r <= mem_read_base() + 2;
  }
}

// IBn_DWORDS written: start indirect buffer n at the address in IBn_BASE/_HI.
void command_processor::uc::start_ib(unsigned n, uint32_t r, uint32_t dwords) {
  if (role == me) return;  // fetch belongs to the PFP on a5xx
  if (level != n - 1) {
    m.fault(FAULT_IB_NESTING, n, m.name() + std::string(": IB") + std::to_string(n) + " started at IB level " + std::to_string(level));
    return;
  }
  ib_level& L = ib[n];
  L.addr = ctrl[r - 2] | uint64_t(ctrl[r - 1]) << 32;
  L.remaining = dwords;
  L.buf.clear();
  level = n;
  (n == 1 ? m.ib1_base : m.ib2_base) = uint32_t(L.addr);
  (n == 1 ? m.ib1_base_hi : m.ib2_base_hi) = uint32_t(L.addr >> 32);
  update_ib_regs();
}

// GPUVP_CS_LAUNCH: the dispatch words gathered so far go to the compute engine, at this
// microcontroller's time, with a trace arrow from this unit's span to the kernel's.
void command_processor::uc::launch_cs() {
  catch_up();
  lt.sync();
  if (auto& tr = tracer::global(); tr.enabled()) {
    if (!track) track = tr.track(std::string(m.name()) + "." + tag);
    m.exec_cs(std::move(cs_words), tr.flow_out(track, sc_core::sc_time_stamp() + sc_core::sc_time(1, sc_core::SC_NS)));
  } else {
    m.exec_cs(std::move(cs_words));
  }
  cs_words.clear();
}

// GPUVP_STALL: wait n cycles (at least one), then let the others run: a poll must see their progress.
void command_processor::uc::stall(uint32_t n) {
  catch_up();
  const uint64_t c = n ? n : 1;
  cycles += c;
  ++m.stall_poll;
  lt.advance(m.clock.get() * double(c));
  lt.sync();
}

void command_processor::uc::ctrl_write(uint32_t r, uint32_t v) {
  r &= 0xfff;
  ctrl[r] = v;
  const uint32_t ibb = ib_ctrl_base();
  if (r >= ibb && r < ibb + 8 && (r - ibb) % 4 == 2) return start_ib((r - ibb) / 4 + 1, r, v);  // IBn_DWORDS
  if (gen() >= 6 && r == CTRL_REG_WRITE) {  // a register write at REG_WRITE_ADDR, which advances
    const uint32_t a = ctrl[CTRL_REG_WRITE_ADDR];
    m.reg_write(uint32_t(reg_write_addr_register::get(a)), v);
    ctrl[CTRL_REG_WRITE_ADDR] = uint32_t(reg_write_addr_register::set(a, a + 1));
    return;
  }
  switch (r) {
    case GPUVP_RAISE_IRQ:
      m.raise(v);
      break;
    case GPUVP_SECURE_REFUSED:
      m.fault(FAULT_SECURE, uint32_t(secure_mode_on::get(v)),
              m.name() + std::string(": secure mode switch to ") + (secure_mode_on::get(v) ? "secure" : "non-secure") + " refused");
      break;
    case CTRL_PREEMPT_TRIGGER:  // the SQE preempts itself
      if (preempt_trigger_start::get(v) && gen() >= 6) request_preempt(true);
      break;
    case GPUVP_CS_WORD:
      cs_words.push_back(v);
      break;
    case GPUVP_CS_LAUNCH:
      launch_cs();
      break;
    case GPUVP_STALL:
      stall(v);
      break;
    case GPUVP_EVENT_RECORD:  // CP_EVENT_WRITE: the event completes after every kernel launched before it
      ++m.events;
      if (m.cs_outstanding_) block(m.cs_done_ev_, m.stall_compute, [this] { return m.cs_outstanding_ == 0; });
      break;
    case GPUVP_UNKNOWN_OPCODE:
      m.fault(FAULT_UNKNOWN_OPCODE, opcode_of(v),
              m.name() + std::string(": unknown PM4 opcode ") + hex32(opcode_of(v)) + " (header " + hex32(v) + ")");
      break;
    case GPUVP_MALFORMED:
      m.fault(FAULT_MALFORMED, opcode_of(v),
              m.name() + std::string(": malformed PM4 packet, opcode ") + pm4_id_name(opcode_of(v), gen()) + " (header " + hex32(v) + ")");
      break;
    case CTRL_PACKET_TABLE_WRITE_ADDR:
    case CTRL_PACKET_TABLE_WRITE:
      break;  // in the ISS
    case GPUVP_PACKET_NOOP:
      ++m.packets_noop;
      break;
    case GPUVP_MEQ_PUSH:
      meq_push(v);
      break;
    default:
      if (!kept_as_stored(r)) m.unmodelled_ctrl_.insert(r);  // stored, no behaviour: listed for the report
      break;
  }
}

uint32_t command_processor::uc::ctrl_read(uint32_t r) {
  r &= 0xfff;
  if (r == CTRL_IB_LEVEL) return level;
  if (r == GPUVP_TIMESTAMP_LO) {  // 64-bit timestamp in cycles, low dword; latches the high
    const uint64_t t = timestamp();
    ts_high = uint32_t(t >> 32);
    return uint32_t(t);
  }
  if (r == GPUVP_TIMESTAMP_HI) return ts_high;
  if (!kept_as_stored(r)) m.unmodelled_ctrl_.insert(r);
  return ctrl[r];
}

uint64_t command_processor::uc::timestamp() {
  catch_up();
  return uint64_t(lt.now() / m.clock.get());
}

}  // namespace gpuvp::cp
