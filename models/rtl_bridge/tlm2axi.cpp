// SPDX-License-Identifier: Apache-2.0
#include "tlm2axi.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace gpuvp::rtl {

tlm2axi::tlm2axi(sc_core::sc_module_name name, rtl_clock& clock, axi4_pins& p, unsigned bus_bytes, unsigned id_bits)
    : transactor(name, clock, p.prefix, bus_bytes, false),
      pins(p),
      bus_bytes_(bus_bytes),
      size_log2_(unsigned(__builtin_ctz(bus_bytes))),
      id_count_(id_bits >= 4 ? axi4_id_count : 1u << id_bits) {
  in.register_b_transport(this, &tlm2axi::b_transport);
}

void tlm2axi::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  if (refuse_own_master(gp)) return;
  wait(delay);  // the request reaches the pins at the initiator's local time
  delay = sc_core::SC_ZERO_TIME;
  ++transactions;
  const unsigned len = gp.get_data_length(), sw = gp.get_streaming_width();
  if (len == 0) {
    gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }
  if (sw < len && ((sw != 1 && sw != 2 && sw != 4 && sw != 8) || sw > bus_bytes_ || gp.get_address() % sw || len % sw)) {
    gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  job j;
  j.gp = &gp;
  split(j);
  clock_.wake();
  wait(j.done);
  gp.set_response_status(to_tlm(j.resp));
  if (lockstep_ && gp.is_response_ok()) shadow(gp);
}

void tlm2axi::shadow(const tlm::tlm_generic_payload& gp) {
  const unsigned char* be = gp.get_byte_enable_ptr();
  const unsigned len = gp.get_data_length(), sw = gp.get_streaming_width();
  for (unsigned i = 0; i < len; ++i) {
    if (be && !be[i % gp.get_byte_enable_length()]) continue;
    const uint64_t a = gp.get_address() + i % sw;  // streaming: the same bytes again
    const uint8_t v = gp.get_data_ptr()[i];
    if (gp.is_write()) {
      shadow_[a] = v;
      continue;
    }
    auto it = shadow_.find(a);
    if (it == shadow_.end() || it->second == v || !lockstep_errors_.empty()) continue;
    char m[200];
    std::snprintf(m, sizeof m,
                  "lock-step memory mismatch at %s: read of %u bytes at offset 0x%llx: byte at offset 0x%llx is 0x%02x from the RTL, "
                  "0x%02x in the TLM shadow memory (the last value written)",
                  format_time(sc_core::sc_time_stamp()).c_str(), len, (unsigned long long)gp.get_address(), (unsigned long long)a, v,
                  it->second);
    lockstep_errors_.push_back(m);
    sc_core::sc_stop();
  }
}

// Cuts the transaction into bursts and lays out, for each beat, which byte lane maps to which
// byte of the payload (-1: lane not part of the transfer).
void tlm2axi::split(job& j) {
  auto& gp = *j.gp;
  const uint64_t base = gp.get_address();
  const unsigned len = gp.get_data_length(), sw = gp.get_streaming_width();
  const bool write = gp.is_write();
  const unsigned char* be = gp.get_byte_enable_ptr();
  const unsigned be_len = gp.get_byte_enable_length();
  auto enabled = [&](unsigned off) { return !be || be[off % be_len] != 0; };
  auto start = [&](uint64_t addr, uint32_t size, uint32_t type) {
    auto b = std::make_unique<burst>();
    b->owner = &j;
    b->write = write;
    b->addr = addr;
    b->size = size;
    b->type = type;
    return b;
  };
  // Lanes [lo, lo + n) of the beat carry the payload's bytes from offset off on.
  auto put = [&](lane_map& m, unsigned lo, unsigned n, unsigned off) {
    m.lane_lo = uint8_t(lo);
    m.lane_hi = uint8_t(lo + n);
    m.offset = int64_t(off) - lo;
    for (unsigned l = lo; l < lo + n; ++l)
      if (write && enabled(off + l - lo)) {
        m.strb |= 1u << l;
        m.data.set_lane(l, gp.get_data_ptr()[off + l - lo]);
      }
  };
  if (sw < len) {  // FIXED: every beat at the same address, sw bytes wide
    const unsigned lane0 = base % bus_bytes_, n = len / sw;
    for (unsigned k = 0; k < n;) {
      auto b = start(base, __builtin_ctz(sw), burst_fixed);
      for (unsigned i = 0; i < 16 && k < n; ++i, ++k) {
        lane_map m;
        put(m, lane0, sw, k * sw);
        b->beat.push_back(m);
      }
      b->len = b->beat.size() - 1;
      waiting_.push_back(std::move(b));
      ++j.left;
    }
    return;
  }
  const uint64_t end = base + len;
  for (uint64_t a = base; a < end;) {
    const uint64_t beat0 = a & ~uint64_t(bus_bytes_ - 1);
    const uint64_t stop = std::min({end, (a | 0xfff) + 1, beat0 + max_burst_beats * bus_bytes_});
    auto b = start(a, size_log2_, burst_incr);
    for (uint64_t bb = beat0; bb < stop; bb += bus_bytes_) {
      lane_map m;
      const uint64_t lo = std::max(bb, a), hi = std::min(bb + bus_bytes_, stop);
      put(m, unsigned(lo - bb), unsigned(hi - lo), unsigned(lo - base));
      b->beat.push_back(m);
    }
    b->len = b->beat.size() - 1;
    waiting_.push_back(std::move(b));
    ++j.left;
    a = stop;
  }
}

bool tlm2axi::active() const {
  return !waiting_.empty() || !aw_.empty() || !w_.empty() || !ar_.empty() || !writes_.empty() || !reads_.empty();
}

void tlm2axi::sample(uint64_t cycle) {
  const axi_sample s = sample_pins(pins);
  check_pins(s, cycle);
  aw_fire_ = s.aw.valid && s.aw.ready;
  w_fire_ = s.w.valid && s.w.ready;
  b_fire_ = s.b.valid && s.b.ready;
  ar_fire_ = s.ar.valid && s.ar.ready;
  r_fire_ = s.r.valid && s.r.ready;
  bid_ = uint32_t(s.b.v[0]);
  bresp_ = uint32_t(s.b.v[1]);
  rid_ = uint32_t(s.r.v[0]);
  if (r_fire_) rdata_ = rdata_of(pins);
  rresp_ = uint32_t(s.r.v[2]);
}

void tlm2axi::finish(burst& b, uint32_t resp) {
  clock_.sync();  // the initiator resumes at the clock's time
  trace(b.write ? "write" : "read", b.issued, b.addr, unsigned(b.beat.size()), b.id, std::max(resp, b.resp));
  job& j = *b.owner;
  if (resp > j.resp && resp != resp_exokay) j.resp = resp;
  if (--j.left == 0) j.done.notify(sc_core::SC_ZERO_TIME);
}

// The write channels' handshakes of the cycle: an accepted address queues its data beats, an
// accepted beat advances its burst, a response completes the burst with that ID.
void tlm2axi::retire_writes() {
  if (aw_fire_) {
    w_.push_back(aw_.front());
    aw_.pop_front();
  }
  if (w_fire_ && !w_.empty()) {
    ++beats;
    if (++w_.front()->next == w_.front()->beat.size()) w_.pop_front();
  }
  if (b_fire_) {
    auto it = writes_.find(bid_);
    if (it != writes_.end()) {           // an unknown ID is the checker's to report
      std::erase(w_, it->second.get());  // a response before the last beat (the checker saw it)
      finish(*it->second, bresp_);
      writes_.erase(it);
    }
  }
}

// The read channels' handshakes of the cycle: an accepted address leaves the pins, a data beat
// fills its lanes of the payload (byte enables respected) and the last one completes the burst.
void tlm2axi::retire_reads() {
  if (ar_fire_) ar_.pop_front();
  if (!r_fire_) return;
  auto it = reads_.find(rid_);
  if (it == reads_.end()) return;
  burst& b = *it->second;
  ++beats;
  if (b.next < b.beat.size()) {
    const lane_map& m = b.beat[b.next++];
    auto& gp = *b.owner->gp;
    const unsigned char* be = gp.get_byte_enable_ptr();
    for (unsigned l = m.lane_lo; l < m.lane_hi; ++l) {
      const uint64_t off = uint64_t(m.offset + l);
      if (!be || be[off % gp.get_byte_enable_length()]) gp.get_data_ptr()[off] = rdata_.lane(l);
    }
  }
  if (rresp_ > b.owner->resp) b.owner->resp = rresp_;
  if (rresp_ > b.resp && rresp_ != resp_exokay) b.resp = rresp_;
  if (b.next == b.beat.size()) {
    finish(b, resp_okay);
    reads_.erase(it);
  }
}

// Issues waiting bursts that can have an ID: the lowest free one, while fewer than
// max_outstanding (and the slave's ID count) are in flight in their direction.
void tlm2axi::issue_waiting() {
  while (!waiting_.empty() && !clock_.in_reset()) {
    auto& inflight = waiting_.front()->write ? writes_ : reads_;
    if (inflight.size() >= std::min<uint64_t>(max_outstanding, id_count_)) break;
    uint32_t id = 0;
    while (inflight.count(id)) ++id;
    burst* b = waiting_.front().get();
    b->id = id;
    b->issued = clock_.now();
    (b->write ? aw_ : ar_).push_back(b);
    inflight[id] = std::move(waiting_.front());
    waiting_.pop_front();
    ++bursts;
  }
}

// Drives the pins for the next cycle from the heads of the address and data queues.
void tlm2axi::drive_pins() {
  pins.awvalid.write(!aw_.empty());
  if (!aw_.empty()) {
    const burst& b = *aw_.front();
    pins.awid.write(b.id);
    pins.awaddr.write(b.addr);
    pins.awlen.write(b.len);
    pins.awsize.write(b.size);
    pins.awburst.write(b.type);
  }
  pins.wvalid.write(!w_.empty());
  if (!w_.empty()) {
    const burst& b = *w_.front();
    drive_wdata(pins, b.beat[b.next].data);
    pins.wstrb.write(b.beat[b.next].strb);
    pins.wlast.write(b.next + 1 == b.beat.size());
  }
  pins.arvalid.write(!ar_.empty());
  if (!ar_.empty()) {
    const burst& b = *ar_.front();
    pins.arid.write(b.id);
    pins.araddr.write(b.addr);
    pins.arlen.write(b.len);
    pins.arsize.write(b.size);
    pins.arburst.write(b.type);
  }
  pins.bready.write(!clock_.in_reset());
  pins.rready.write(!clock_.in_reset());
}

void tlm2axi::update(uint64_t cycle) {
  retire_writes();
  retire_reads();
  issue_waiting();
  drive_pins();
}

}  // namespace gpuvp::rtl
