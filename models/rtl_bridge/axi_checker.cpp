// SPDX-License-Identifier: Apache-2.0
#include "axi_checker.h"

#include <sstream>

namespace gpuvp::rtl {

namespace {
const char* const payload_names[5][5] = {
    {"awid", "awaddr", "awlen", "awsize", "awburst"},
    {"wdata", "wstrb", "wlast", "wdata_upper", ""},  // _upper: bits above 64, folded (axi.h)
    {"bid", "bresp", "", "", ""},
    {"arid", "araddr", "arlen", "arsize", "arburst"},
    {"rid", "rdata", "rresp", "rlast", "rdata_upper"},
};
const char* const channel_names[5] = {"aw", "w", "b", "ar", "r"};
}  // namespace

axi_sample sample_pins(const axi4_pins& p) {
  axi_sample s;
  s.aw = {p.awvalid.read(), p.awready.read(), {p.awid.read(), p.awaddr.read(), p.awlen.read(), p.awsize.read(), p.awburst.read()}};
  const beat_data w = wdata_of(p), r = rdata_of(p);
  s.w = {p.wvalid.read(), p.wready.read(), {w.word[0], p.wstrb.read(), p.wlast.read(), w.upper_fold(), 0}};
  s.b = {p.bvalid.read(), p.bready.read(), {p.bid.read(), p.bresp.read(), 0, 0, 0}};
  s.ar = {p.arvalid.read(), p.arready.read(), {p.arid.read(), p.araddr.read(), p.arlen.read(), p.arsize.read(), p.arburst.read()}};
  s.r = {p.rvalid.read(), p.rready.read(), {p.rid.read(), r.word[0], p.rresp.read(), p.rlast.read(), r.upper_fold()}};
  return s;
}

axi_sample sample_pins(const axil_pins& p) {
  axi_sample s;
  const uint64_t size = p.bus_bytes == 8 ? 3 : 2;
  s.aw = {p.awvalid.read(), p.awready.read(), {0, p.awaddr.read(), 0, size, burst_incr}};
  const uint64_t wdata = p.wdata_wide ? p.wdata_wide->read() : p.wdata.read();
  const uint64_t rdata = p.rdata_wide ? p.rdata_wide->read() : p.rdata.read();
  s.w = {p.wvalid.read(), p.wready.read(), {wdata, p.wstrb.read(), 1, 0, 0}};
  s.b = {p.bvalid.read(), p.bready.read(), {0, p.bresp.read(), 0, 0, 0}};
  s.ar = {p.arvalid.read(), p.arready.read(), {0, p.araddr.read(), 0, size, burst_incr}};
  s.r = {p.rvalid.read(), p.rready.read(), {0, rdata, p.rresp.read(), 1, 0}};
  return s;
}

axi_checker::axi_checker(std::string where, std::string prefix, unsigned bus_bytes, bool lite)
    : where_(std::move(where)), prefix_(std::move(prefix)), bus_bytes_(bus_bytes), lite_(lite) {}

void axi_checker::fail(uint64_t cycle, const std::string& signal, const std::string& rule, const std::string& what) {
  std::ostringstream m;
  m << "AXI protocol violation on " << where_ << ": " << prefix_ << "_" << signal << " at cycle " << cycle << ": " << what << " [rule "
    << rule << "]";
  violations_.push_back(m.str());
  if (on_violation) on_violation(violations_.back());
}

void axi_checker::check_address(const axi_sample::channel& a, const char* ch, uint64_t cycle) {
  const uint64_t addr = a.v[1], len = a.v[2], size = a.v[3], burst = a.v[4];
  const std::string c = ch;
  if ((uint64_t(1) << size) > bus_bytes_) {
    fail(cycle, c + "size", "size",
         c + "size " + std::to_string(size) + " (" + std::to_string(1u << size) + " bytes) is wider than the " +
             std::to_string(bus_bytes_) + "-byte data bus");
    return;
  }
  const uint64_t bytes = uint64_t(1) << size;
  if (burst == burst_incr) {
    const uint64_t last = (addr & ~(bytes - 1)) + (len + 1) * bytes - 1;
    if ((addr >> 12) != (last >> 12)) {
      std::ostringstream m;
      m << "INCR burst of " << len + 1 << " beats of " << bytes << " bytes from 0x" << std::hex << addr << " ends at 0x" << last
        << ", across a 4 KiB boundary";
      fail(cycle, c + "addr", "4k_boundary", m.str());
    }
  } else if (burst == burst_wrap) {
    if ((len != 1 && len != 3 && len != 7 && len != 15) || (addr & (bytes - 1)))
      fail(cycle, c + "len", "wrap_len", "WRAP burst needs 2, 4, 8 or 16 beats and an address aligned to the size");
  } else if (burst == burst_fixed) {
    if (len > 15) fail(cycle, c + "len", "fixed_len", "FIXED burst of " + std::to_string(len + 1) + " beats; at most 16");
  } else {
    fail(cycle, c + "burst", "burst", "reserved burst type 3");
  }
}

void axi_checker::check(const axi_sample& s, uint64_t cycle) {
  const axi_sample::channel* now[5] = {&s.aw, &s.w, &s.b, &s.ar, &s.r};
  const axi_sample::channel* was[5] = {&prev_.aw, &prev_.w, &prev_.b, &prev_.ar, &prev_.r};
  if (have_prev_)
    for (int c = 0; c < 5; ++c) {
      if (!was[c]->valid || was[c]->ready) continue;  // no pending transfer at the last edge
      const std::string ch = channel_names[c];
      if (!now[c]->valid) {
        fail(cycle, ch + "valid", "valid_held", ch + "valid fell before " + ch + "ready was high");
        continue;
      }
      for (int i = 0; i < 5; ++i)
        if (*payload_names[c][i] && now[c]->v[i] != was[c]->v[i]) {
          std::ostringstream m;
          m << payload_names[c][i] << " changed from 0x" << std::hex << was[c]->v[i] << " to 0x" << now[c]->v[i] << " while " << ch
            << "valid was high and " << ch << "ready low";
          fail(cycle, payload_names[c][i], "stable_payload", m.str());
          break;
        }
    }
  prev_ = s;
  have_prev_ = true;

  if (s.aw.valid && s.aw.ready) {
    if (!lite_) check_address(s.aw, "aw", cycle);
    w_lens_.push_back(s.aw.v[2]);
    ++b_ids_[s.aw.v[0]];
  }
  if (s.w.valid && s.w.ready && !lite_) {
    if (!w_lens_.empty()) {
      const bool last_due = w_beat_ == w_lens_.front();
      if (bool(s.w.v[2]) != last_due)
        fail(cycle, "wlast", "wlast",
             std::string(last_due ? "low" : "high") + " on beat " + std::to_string(w_beat_ + 1) + " of a " +
                 std::to_string(w_lens_.front() + 1) + "-beat write burst");
      if (s.w.v[2] || last_due) {
        w_lens_.pop_front();
        w_beat_ = 0;
      } else {
        ++w_beat_;
      }
    }
  } else if (s.w.valid && s.w.ready && !w_lens_.empty()) {
    w_lens_.pop_front();
  }
  if (s.b.valid && s.b.ready) {
    auto it = b_ids_.find(s.b.v[0]);
    if (it == b_ids_.end()) {
      fail(cycle, "bid", "bid", "write response ID " + std::to_string(s.b.v[0]) + " matches no outstanding write");
    } else if (--it->second == 0) {
      b_ids_.erase(it);
    }
  }
  if (s.ar.valid && s.ar.ready) {
    if (!lite_) check_address(s.ar, "ar", cycle);
    r_[s.ar.v[0]].push_back(s.ar.v[2] + 1);
  }
  if (s.r.valid && s.r.ready) {
    auto it = r_.find(s.r.v[0]);
    if (it == r_.end()) {
      fail(cycle, "rid", "rid", "read data ID " + std::to_string(s.r.v[0]) + " matches no outstanding read");
    } else {
      uint64_t& left = it->second.front();
      const bool last_due = left == 1;
      if (!lite_ && bool(s.r.v[3]) != last_due)
        fail(cycle, "rlast", "rlast", std::string(last_due ? "low on the last beat" : "high before the last beat") + " of a read burst");
      if (--left == 0 || s.r.v[3]) {
        it->second.pop_front();
        if (it->second.empty()) r_.erase(it);
      }
    }
  }
}

}  // namespace gpuvp::rtl
