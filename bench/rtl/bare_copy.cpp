// SPDX-License-Identifier: Apache-2.0
#include "bare_copy.h"

#include <algorithm>
#include <deque>
#include <memory>
#include "Vcopy_engine_bare.h"
#include "verilated.h"

namespace {

class bare_engine {
 public:
  explicit bare_engine(size_t mem_bytes) : mem_(mem_bytes, 0) {
    ctx_.commandArgs(0, static_cast<const char**>(nullptr));
    m_ = std::make_unique<Vcopy_engine_bare>(&ctx_, "bare");
    m_->rst_n = 0;
    m_->s_axil_bready = 1;
    m_->s_axil_rready = 1;
    for (int i = 0; i < 4; ++i) cycle();  // reset, as gpuvp's 4 reset cycles
    m_->rst_n = 1;
  }
  std::vector<uint8_t>& mem() { return mem_; }
  uint64_t cycles() const { return cycles_; }

  void write_reg(uint32_t addr, uint32_t value) {
    m_->s_axil_awvalid = 1;
    m_->s_axil_wvalid = 1;
    m_->s_axil_awaddr = addr;
    m_->s_axil_wdata = value;
    m_->s_axil_wstrb = 0xf;
    while (!lite_b_) cycle();
    lite_b_ = false;
  }
  // false when the interrupt does not come within `limit` cycles (a broken copy, not a hang).
  bool wait_irq(uint64_t limit) {
    for (uint64_t n = 0; !m_->irq; ++n) {
      if (n == limit) return false;
      cycle();
    }
    return true;
  }

 private:
  struct burst {
    uint64_t addr;
    uint32_t len, id, beat;
  };
  // One clock cycle: settle with clk low, sample the handshakes, rising edge, then this side's
  // registered outputs for the next edge.
  void cycle() {
    auto& m = *m_;
    m.clk = 0;
    m.eval();
    const bool aw = m.m_axi_awvalid && m.m_axi_awready, w = m.m_axi_wvalid && m.m_axi_wready;
    const bool b = m.m_axi_bvalid && m.m_axi_bready, ar = m.m_axi_arvalid && m.m_axi_arready;
    const bool r = m.m_axi_rvalid && m.m_axi_rready;
    const bool law = m.s_axil_awvalid && m.s_axil_awready, lb = m.s_axil_bvalid && m.s_axil_bready;
    const burst new_aw{m.m_axi_awaddr, m.m_axi_awlen, m.m_axi_awid, 0}, new_ar{m.m_axi_araddr, m.m_axi_arlen, m.m_axi_arid, 0};
    const uint64_t wdata = m.m_axi_wdata;
    const uint32_t wstrb = m.m_axi_wstrb;
    m.clk = 1;
    m.eval();
    ++cycles_;
    if (law) m.s_axil_awvalid = 0, m.s_axil_wvalid = 0;
    if (lb) lite_b_ = true;
    if (ar) reads_.push_back(new_ar);
    if (aw) writes_.push_back(new_aw);
    if (r && ++reads_.front().beat > reads_.front().len) reads_.pop_front();
    if (w && !writes_.empty()) {
      burst& x = writes_.front();
      const uint64_t at = x.beat ? (x.addr & ~uint64_t(7)) + 8 * x.beat : x.addr & ~uint64_t(7);
      for (unsigned l = 0; l < 8; ++l)
        if (wstrb >> l & 1) mem_[(at + l) % mem_.size()] = uint8_t(wdata >> (8 * l));
      if (++x.beat > x.len) responses_.push_back(x.id), writes_.pop_front();
    }
    if (b) responses_.pop_front();
    m.m_axi_arready = reads_.size() < 4;
    m.m_axi_awready = writes_.size() < 4;
    m.m_axi_wready = !writes_.empty();
    m.m_axi_bvalid = !responses_.empty();
    m.m_axi_bid = responses_.empty() ? 0 : responses_.front();
    m.m_axi_bresp = 0;
    m.m_axi_rvalid = !reads_.empty();
    if (!reads_.empty()) {
      const burst& x = reads_.front();
      const uint64_t at = (x.addr & ~uint64_t(7)) + 8 * x.beat;
      uint64_t d = 0;
      for (unsigned l = 0; l < 8; ++l) d |= uint64_t(mem_[(at + l) % mem_.size()]) << (8 * l);
      m.m_axi_rdata = d;
      m.m_axi_rid = x.id;
      m.m_axi_rresp = 0;
      m.m_axi_rlast = x.beat == x.len;
    }
  }
  VerilatedContext ctx_;
  std::unique_ptr<Vcopy_engine_bare> m_;
  std::vector<uint8_t> mem_;
  std::deque<burst> reads_, writes_;
  std::deque<uint32_t> responses_;
  bool lite_b_ = false;
  uint64_t cycles_ = 0;
};

bare_copy_result run_copies(const std::vector<bare_copy_job>& jobs) {
  uint64_t top = 0;
  for (const auto& j : jobs) top = std::max({top, j.src + j.len, j.dst + j.len});
  bare_engine e(top + 8);
  bare_copy_result res;
  for (const auto& j : jobs)
    for (uint32_t i = 0; i < j.len; ++i) e.mem()[j.src + i] = uint8_t(i * 7 + j.src);
  const uint64_t reset_cycles = e.cycles();
  for (const auto& j : jobs) {
    e.write_reg(0x00, uint32_t(j.src));
    e.write_reg(0x04, uint32_t(j.src >> 32));
    e.write_reg(0x08, uint32_t(j.dst));
    e.write_reg(0x0c, uint32_t(j.dst >> 32));
    e.write_reg(0x10, j.len);
    e.write_reg(0x14, 3);  // GO, IRQ_EN
    if (!e.wait_irq(uint64_t(j.len) * 16 + 10000)) {
      res.error = "bare loop: no interrupt after a copy of " + std::to_string(j.len) + " bytes";
      return res;
    }
    e.write_reg(0x18, 2);  // acknowledge DONE
  }
  res.cycles = e.cycles() - reset_cycles;
  for (const auto& j : jobs)
    for (uint32_t i = 0; i < j.len && res.error.empty(); ++i)
      if (e.mem()[j.dst + i] != uint8_t(i * 7 + j.src))
        res.error = "bare loop: destination byte " + std::to_string(i) + " of a copy is wrong";
  return res;
}

}  // namespace

bare_copy_result bare_copy(const std::vector<bare_copy_job>& jobs) {
  // The engine's own VerilatedContext becomes Verilated's current one while it lives; the
  // SystemC models of later gpuvp runs must find the process's context again, not a freed one.
  VerilatedContext* const outer = Verilated::threadContextp();
  bare_copy_result res = run_copies(jobs);
  Verilated::threadContextp(outer);
  return res;
}
