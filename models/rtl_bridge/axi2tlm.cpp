// SPDX-License-Identifier: Apache-2.0
#include "axi2tlm.h"

#include <algorithm>
#include "gpuvp/extension.h"

namespace gpuvp::rtl {

axi2tlm::axi2tlm(sc_core::sc_module_name name, rtl_clock& clock, axi4_pins& p, unsigned bus_bytes)
    : transactor(name, clock, p.prefix, bus_bytes, false), pins(p), bus_bytes_(bus_bytes) {}

// Address of each beat (AXI4 A3.4.1).
std::vector<uint64_t> axi2tlm::beat_addresses(const request& r) const {
  std::vector<uint64_t> a(r.len + 1);
  const uint64_t bytes = uint64_t(1) << r.size, span = bytes * (r.len + 1);
  uint64_t addr = r.addr;
  for (auto& x : a) {
    x = addr;
    if (r.type == burst_fixed) continue;
    const uint64_t next = (addr & ~(bytes - 1)) + bytes;
    const uint64_t lower = r.addr & ~(span - 1);
    addr = r.type == burst_wrap && next >= lower + span ? lower : next;
  }
  return a;
}

uint32_t axi2tlm::transport(tlm::tlm_command cmd, uint64_t addr, unsigned char* data, unsigned len, sc_core::sc_time& delay) {
  clock_.sync();  // the target sees the request at the clock's time
  transaction t(cmd, addr, data, len);
  out->b_transport(t.gp, delay);
  ++transactions;
  if (observer) observer(t.gp);
  return to_axi(t.gp.get_response_status());
}

void axi2tlm::do_read(request& r) {
  const auto addrs = beat_addresses(r);
  const uint64_t bytes = uint64_t(1) << r.size;
  std::vector<unsigned char> buf;
  sc_core::sc_time delay;
  r.data.assign(addrs.size(), beat_data{});
  // Byte range of each beat: from its address to the end of its size-aligned container.
  for (size_t i = 0; i < addrs.size();) {
    size_t j = i;
    uint64_t lo = addrs[i], hi = (addrs[i] & ~(bytes - 1)) + bytes;
    while (r.type != burst_fixed && j + 1 < addrs.size() && addrs[j + 1] == hi) hi = (addrs[++j] & ~(bytes - 1)) + bytes;
    buf.assign(hi - lo, 0);
    const uint32_t resp = transport(tlm::TLM_READ_COMMAND, lo, buf.data(), unsigned(hi - lo), delay);
    r.resp = std::max(r.resp, resp);
    for (size_t k = i; k <= j; ++k) {
      const uint64_t beat_lo = addrs[k], beat_hi = (addrs[k] & ~(bytes - 1)) + bytes;
      for (uint64_t a = beat_lo; a < beat_hi; ++a) r.data[k].set_lane(unsigned(a % bus_bytes_), buf[a - lo]);
    }
    i = j + 1;
  }
  r.done = true;
  r.ready_cycle = clock_.cycle() + 1 + clock_.cycles_for(delay);
}

void axi2tlm::do_write(request& r) {
  const auto addrs = beat_addresses(r);
  const uint64_t bytes = uint64_t(1) << r.size;
  sc_core::sc_time delay;
  uint32_t resp = resp_okay;
  std::vector<unsigned char> run;
  uint64_t run_addr = 0;
  auto flush = [&] {
    if (!run.empty()) resp = std::max(resp, transport(tlm::TLM_WRITE_COMMAND, run_addr, run.data(), unsigned(run.size()), delay));
    run.clear();
  };
  for (size_t k = 0; k < addrs.size() && k < r.data.size(); ++k) {
    const uint64_t lo = addrs[k], hi = (addrs[k] & ~(bytes - 1)) + bytes;
    for (uint64_t a = lo; a < hi; ++a) {
      const unsigned lane = unsigned(a % bus_bytes_);
      if (!(r.strb[k] & (1u << lane))) {
        flush();
        continue;
      }
      if (!run.empty() && run_addr + run.size() != a) flush();
      if (run.empty()) run_addr = a;
      run.push_back(r.data[k].lane(lane));
    }
    if (r.type == burst_fixed) flush();
  }
  flush();
  b_.push_back({r.id, resp, clock_.cycle() + 1 + clock_.cycles_for(delay), r.addr, r.len + 1, r.accepted});
}

void axi2tlm::sample(uint64_t cycle) {
  s_ = sample_pins(pins);
  check_pins(s_, cycle);
  if (s_.w.valid && s_.w.ready) wdata_ = wdata_of(pins);
}

void axi2tlm::update(uint64_t cycle) {
  const axi_sample& s = s_;
  auto take = [this](const axi_sample::channel& c) {
    request r;
    r.id = uint32_t(c.v[0]), r.len = uint32_t(c.v[2]), r.size = uint32_t(c.v[3]), r.type = uint32_t(c.v[4]), r.addr = c.v[1];
    r.accepted = clock_.now();
    return r;
  };
  if (s.ar.valid && s.ar.ready)
    ar_.push_back(take(s.ar)), ++bursts, ar_wait_ = 0;
  else if (s.ar.valid)
    ++ar_wait_;
  if (s.aw.valid && s.aw.ready)
    aw_.push_back(take(s.aw)), ++bursts, aw_wait_ = 0;
  else if (s.aw.valid)
    ++aw_wait_;
  if (s.w.valid && s.w.ready && !aw_.empty()) {
    request& w = aw_.front();
    w.data.push_back(wdata_);
    w.strb.push_back(uint32_t(s.w.v[1]));
    ++beats;
    if (s.w.v[2] || w.data.size() == w.len + 1u) {  // WLAST (or the beat count: the checker reports a mismatch)
      do_write(w);
      aw_.pop_front();
    }
  }
  if (s.b.valid && s.b.ready && !b_.empty()) {
    const response& b = b_.front();
    trace("write", b.accepted, b.addr, b.beats, b.id, b.resp);
    b_.pop_front();
  }
  if (s.r.valid && s.r.ready && !ar_.empty()) {
    ++beats;
    request& q = ar_.front();
    if (++q.next == q.len + 1u) {
      trace("read", q.accepted, q.addr, q.len + 1, q.id, q.resp);
      ar_.pop_front();
    }
  }
  if (!ar_.empty() && !ar_.front().done) do_read(ar_.front());

  const bool run = !clock_.in_reset();
  pins.arready.write(run && ar_.size() < max_outstanding && (ar_wait_ >= ready_delay || ready_delay == 0));
  pins.awready.write(run && aw_.size() < max_outstanding && (aw_wait_ >= ready_delay || ready_delay == 0));
  pins.wready.write(run && !aw_.empty());
  const uint64_t now = clock_.cycle() + 1;  // the edge these values are sampled at
  const bool b = run && !b_.empty() && now >= b_.front().ready_cycle;
  pins.bvalid.write(b);
  if (b) pins.bid.write(b_.front().id), pins.bresp.write(b_.front().resp);
  const bool r = run && !ar_.empty() && ar_.front().done && now >= ar_.front().ready_cycle;
  pins.rvalid.write(r);
  if (r) {
    const request& q = ar_.front();
    pins.rid.write(q.id);
    drive_rdata(pins, q.data[q.next]);
    pins.rresp.write(q.resp);
    pins.rlast.write(q.next == q.len);
  }
}

}  // namespace gpuvp::rtl
