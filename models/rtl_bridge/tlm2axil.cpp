// SPDX-License-Identifier: Apache-2.0
#include "tlm2axil.h"

#include <cstring>

namespace gpuvp::rtl {

tlm2axil::tlm2axil(sc_core::sc_module_name name, rtl_clock& clock, axil_pins& p)
    : transactor(name, clock, p.prefix, p.bus_bytes, true), pins(p) {
  in.register_b_transport(this, &tlm2axil::b_transport);
}

bool tlm2axil::run(transfer& t) {
  t.start = sc_core::sc_time_stamp();
  queue_.push_back(&t);
  clock_.wake();
  wait(t.done);
  return t.resp == resp_okay || t.resp == resp_exokay;
}

void tlm2axil::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  if (refuse_own_master(gp)) return;
  wait(delay);
  delay = sc_core::SC_ZERO_TIME;
  const uint64_t addr = gp.get_address();
  const unsigned len = gp.get_data_length();
  const unsigned bus = pins.bus_bytes;
  const bool one_word = (len == 1 || len == 2 || len == 4 || len == bus) && (addr % bus) + len <= bus && addr % len == 0;
  const bool two_words = !one_word && len == 8 && addr % 8 == 0;  // 32-bit bus
  if ((!one_word && !two_words) || gp.get_streaming_width() < len) {
    gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  const unsigned char* be = gp.get_byte_enable_ptr();
  uint32_t worst = resp_okay;
  for (unsigned w = 0; w < (two_words ? 2u : 1u); ++w) {
    const unsigned n = two_words ? 4 : len, lane0 = unsigned(addr % bus);
    unsigned char* data = gp.get_data_ptr() + 4 * w;
    transfer t;
    t.write = gp.is_write();
    t.addr = uint32_t(addr + 4 * w) & ~(bus - 1);
    for (unsigned i = 0; i < n; ++i)
      if (!be || be[(4 * w + i) % gp.get_byte_enable_length()]) {
        t.strb |= 1u << (lane0 + i);
        t.data |= uint64_t(data[i]) << (8 * (lane0 + i));
      }
    run(t);
    if (!t.write)
      for (unsigned i = 0; i < n; ++i)
        if (t.strb & (1u << (lane0 + i))) data[i] = uint8_t(t.data >> (8 * (lane0 + i)));
    if (t.resp > worst) worst = t.resp;
  }
  gp.set_response_status(to_tlm(worst));
}

void tlm2axil::sample(uint64_t cycle) {
  s_ = sample_pins(pins);
  check_pins(s_, cycle);
}

void tlm2axil::update(uint64_t cycle) {
  if (!queue_.empty()) {
    transfer& t = *queue_.front();
    if (t.write) {
      if (s_.aw.valid && s_.aw.ready) t.aw_done = true;
      if (s_.w.valid && s_.w.ready) t.w_done = true;
      if (s_.b.valid && s_.b.ready) t.resp = uint32_t(s_.b.v[1]), t.finished = true, ++writes;
    } else {
      if (s_.ar.valid && s_.ar.ready) t.addr_done = true;
      if (s_.r.valid && s_.r.ready) t.data = s_.r.v[1], t.resp = uint32_t(s_.r.v[2]), t.finished = true, ++reads;
    }
    if (t.finished) {
      clock_.sync();  // the initiator resumes at the clock's time
      trace(t.write ? "write" : "read", t.start, t.addr, 1, 0, t.resp);
      t.done.notify(sc_core::SC_ZERO_TIME);
      queue_.pop_front();
    }
  }
  const transfer* t = queue_.empty() || clock_.in_reset() ? nullptr : queue_.front();
  pins.awvalid.write(t && t->write && !t->aw_done);
  pins.wvalid.write(t && t->write && !t->w_done);
  pins.arvalid.write(t && !t->write && !t->addr_done);
  if (t) {
    pins.awaddr.write(t->addr);
    pins.araddr.write(t->addr);
    if (pins.wdata_wide)
      pins.wdata_wide->write(t->data);
    else
      pins.wdata.write(uint32_t(t->data));
    pins.wstrb.write(t->strb);
  }
  pins.bready.write(!clock_.in_reset());
  pins.rready.write(!clock_.in_reset());
}

}  // namespace gpuvp::rtl
