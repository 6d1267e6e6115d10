// SPDX-License-Identifier: Apache-2.0
// tlm2axi at the pins, against a behavioural AXI4 slave written in C++ (no RTL needed): how TLM
// transactions become bursts (INCR split at the burst length and at 4 KiB, FIXED from the
// streaming width), WSTRB from byte enables, several outstanding IDs answered out of order, and
// SLVERR/DECERR as TLM responses. Expected values are worked out from the AXI4 rules (ARM IHI
// 0022, A3.4.1 burst addressing, A3.4.3 strobes, A5 IDs, A3.4.4 responses), not from the code.
#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <gtest/gtest.h>
#include "axi.h"
#include "gpuvp/config.h"
#include "rtl_clock.h"
#include "testing.h"
#include "tlm2axi.h"

using namespace gpuvp::rtl;

namespace {

// Memory bytes before any write: a pattern of the address.
uint8_t pattern(uint64_t a) { return uint8_t(a * 7 + 3); }

// An AXI4 slave (64-bit data): always ready; bursts are served from a byte map. The response of
// a burst depends on its address: [0x4000, 0x5000) SLVERR, [0x5000, 0x6000) DECERR, else OKAY.
// A burst's response becomes due 100 - 32 * ID cycles after its address handshake (reads) or its
// last W beat (writes), and the due burst that arrived last goes first: bursts issued back to back
// with IDs 0..3 are answered 3, 2, 1, 0.
struct fake_slave : clocked {
  struct req {
    uint32_t id;
    uint64_t addr;
    uint32_t len, size, burst;
    uint64_t cycle = 0;
    unsigned beat = 0;
  };
  axi4_pins& p;
  std::map<uint64_t, uint8_t> mem;
  std::vector<req> aws, ars;                      // address handshakes, in order
  std::vector<std::pair<uint64_t, uint32_t>> ws;  // W beats: data, strobe
  std::vector<bool> wlast;
  std::vector<uint32_t> b_order, r_order;  // IDs in the order of B responses / first R beats
  std::deque<req> w_open;                  // AW seen, W beats still coming
  std::vector<req> b_wait, r_wait;         // waiting for their response
  size_t max_writes = 0, max_reads = 0;    // most bursts outstanding at once
  bool b_busy = false, r_busy = false;
  req b_cur{}, r_cur{};
  uint64_t now = 0;

  explicit fake_slave(axi4_pins& pins) : p(pins) {}
  uint8_t byte(uint64_t a) const {
    auto it = mem.find(a);
    return it == mem.end() ? pattern(a) : it->second;
  }
  static uint32_t resp_of(uint64_t a) {
    return a >= 0x5000 && a < 0x6000 ? resp_decerr : a >= 0x4000 && a < 0x5000 ? resp_slverr : resp_okay;
  }
  // Address of beat i (A3.4.1): FIXED stays; INCR steps from the aligned start.
  static uint64_t beat_addr(const req& r, unsigned i) {
    const uint64_t n = uint64_t(1) << r.size;
    return r.burst == burst_fixed || i == 0 ? r.addr : (r.addr & ~(n - 1)) + i * n;
  }
  bool active() const override { return false; }  // the transactor keeps the clock running
  void sample(uint64_t cycle) override {
    now = cycle;
    if (p.awvalid.read() && p.awready.read()) {
      req r{p.awid.read(), p.awaddr.read(), p.awlen.read(), p.awsize.read(), p.awburst.read(), cycle};
      aws.push_back(r);
      w_open.push_back(r);
    }
    if (p.wvalid.read() && p.wready.read() && !w_open.empty()) {
      req& r = w_open.front();
      const uint64_t data = p.wdata.read();
      const uint32_t strb = p.wstrb.read();
      ws.emplace_back(data, strb);
      wlast.push_back(p.wlast.read());
      const uint64_t line = beat_addr(r, r.beat) & ~uint64_t(7);
      for (unsigned l = 0; l < 8; ++l)
        if (strb >> l & 1) mem[line + l] = uint8_t(data >> (8 * l));
      if (++r.beat == r.len + 1) {
        r.cycle = cycle;
        b_wait.push_back(r);
        w_open.pop_front();
      }
    }
    if (p.bvalid.read() && p.bready.read()) b_busy = false;
    if (p.arvalid.read() && p.arready.read()) {
      req r{p.arid.read(), p.araddr.read(), p.arlen.read(), p.arsize.read(), p.arburst.read(), cycle};
      ars.push_back(r);
      r_wait.push_back(r);
    }
    if (p.rvalid.read() && p.rready.read() && ++r_cur.beat == r_cur.len + 1) r_busy = false;
    max_writes = std::max(max_writes, w_open.size() + b_wait.size() + (b_busy ? 1 : 0));
    max_reads = std::max(max_reads, r_wait.size() + (r_busy ? 1 : 0));
  }
  // The last-arrived burst whose response is due, taken out of `v`.
  bool take(std::vector<req>& v, req& out) {
    for (size_t i = v.size(); i-- > 0;)
      if (now >= v[i].cycle + 100 - 32 * v[i].id) {
        out = v[i];
        v.erase(v.begin() + long(i));
        return true;
      }
    return false;
  }
  void update(uint64_t) override {
    p.awready.write(true);
    p.wready.write(true);
    p.arready.write(true);
    if (!b_busy && take(b_wait, b_cur)) {
      b_busy = true;
      b_order.push_back(b_cur.id);
    }
    p.bvalid.write(b_busy);
    p.bid.write(b_cur.id);
    p.bresp.write(resp_of(b_cur.addr));
    if (!r_busy && take(r_wait, r_cur)) {
      r_busy = true;
      r_cur.beat = 0;
      r_order.push_back(r_cur.id);
    }
    p.rvalid.write(r_busy);
    if (r_busy) {
      const uint64_t line = beat_addr(r_cur, r_cur.beat) & ~uint64_t(7);
      uint64_t d = 0;
      for (unsigned l = 0; l < 8; ++l) d |= uint64_t(byte(line + l)) << (8 * l);
      p.rid.write(r_cur.id);
      p.rdata.write(d);
      p.rresp.write(resp_of(r_cur.addr));
      p.rlast.write(r_cur.beat == r_cur.len);
    }
  }
};

struct bench : sc_core::sc_module {
  rtl_clock clk{"clk", sc_core::sc_time(1, sc_core::SC_NS), 2};
  axi4_pins pins{"m_axi"};
  tlm2axi bridge{"bridge", clk, pins};
  fake_slave slave{pins};
  gpuvp::testing::test_initiator ini{"ini"};
  explicit bench(sc_core::sc_module_name n) : sc_module(n) {
    clk.add(&slave);
    ini.out.bind(bridge.in);
  }
};

class tlm2axi_pins : public gpuvp::testing::sim_test {
 protected:
  std::unique_ptr<bench> b;
  void make(unsigned max_beats = 16, unsigned outstanding = 4) {
    auto& c = gpuvp::config::global();
    c.set("t.bridge.max_burst_beats", std::to_string(max_beats), "test");
    c.set("t.bridge.max_outstanding", std::to_string(outstanding), "test");
    b = std::make_unique<bench>("t");
  }
  // Runs `body` as a thread until the simulation has nothing left to do.
  void run(std::function<void()> body) {
    sc_core::sc_spawn(std::move(body));
    sc_core::sc_start();
    EXPECT_TRUE(b->bridge.errors().empty()) << b->bridge.errors()[0];
  }
  tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, unsigned len, unsigned sw = 0,
                                  const std::vector<uint8_t>& be = {}) {
    tlm::tlm_generic_payload gp;
    gp.set_command(cmd);
    gp.set_address(addr);
    gp.set_data_ptr(data);
    gp.set_data_length(len);
    gp.set_streaming_width(sw ? sw : len);
    if (!be.empty()) {
      gp.set_byte_enable_ptr(const_cast<uint8_t*>(be.data()));
      gp.set_byte_enable_length(unsigned(be.size()));
    }
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    b->ini.out->b_transport(gp, d);
    return gp.get_response_status();
  }
};

}  // namespace

// 300 bytes written from 0xffd with at most 16 beats (128 bytes) a burst. AXI4 INCR bursts may
// not cross 4 KiB (A3.4.1), so the first burst ends at 0x1000: one beat at 0xffd, lanes 5..7
// (WSTRB 0xe0). Then 0x1000 and 0x1080 with 16 beats each, and 0x1100 up to the last byte at
// 0x1128: 6 beats, the last with lane 0 only (WSTRB 0x01). 1 + 16 + 16 + 6 = 39 beats.
TEST_F(tlm2axi_pins, long_incr_is_split_at_the_burst_length_and_4k) {
  make(16, 4);
  std::vector<uint8_t> data(300), back(300, 0);
  for (unsigned i = 0; i < 300; ++i) data[i] = uint8_t(0xa0 + i);
  tlm::tlm_response_status w{}, r{};
  run([&] {
    w = access(tlm::TLM_WRITE_COMMAND, 0xffd, data.data(), 300);
    r = access(tlm::TLM_READ_COMMAND, 0xffd, back.data(), 300);
  });
  EXPECT_EQ(w, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(r, tlm::TLM_OK_RESPONSE);
  const auto& aw = b->slave.aws;
  ASSERT_EQ(aw.size(), 4u);
  const uint64_t addr[] = {0xffd, 0x1000, 0x1080, 0x1100};
  const uint32_t len[] = {0, 15, 15, 5};
  for (unsigned i = 0; i < 4; ++i) {
    EXPECT_EQ(aw[i].addr, addr[i]) << i;
    EXPECT_EQ(aw[i].len, len[i]) << i;
    EXPECT_EQ(aw[i].size, 3u);
    EXPECT_EQ(aw[i].burst, uint32_t(burst_incr));
    const uint64_t last = (aw[i].addr & ~uint64_t(7)) + 8 * (aw[i].len + 1) - 1;
    EXPECT_EQ(aw[i].addr >> 12, last >> 12) << "burst " << i << " crosses 4 KiB";
  }
  ASSERT_EQ(b->slave.ws.size(), 39u);
  EXPECT_EQ(b->slave.ws.front().second, 0xe0u);
  EXPECT_EQ(b->slave.ws.front().first >> 40, 0xa2a1a0u);  // lanes 5, 6, 7: bytes 0, 1, 2
  EXPECT_EQ(b->slave.ws.back().second, 0x01u);
  EXPECT_EQ(b->slave.ws.back().first & 0xff, uint64_t(uint8_t(0xa0 + 299)));
  for (unsigned i = 1; i + 1 < 39; ++i) EXPECT_EQ(b->slave.ws[i].second, 0xffu) << i;
  // WLAST on beats 0, 16, 32 and 38 (the last of each burst) only.
  for (unsigned i = 0; i < 39; ++i) EXPECT_EQ(b->slave.wlast[i], i == 0 || i == 16 || i == 32 || i == 38) << i;
  EXPECT_EQ(b->slave.mem.size(), 300u);
  EXPECT_EQ(back, data);
  ASSERT_EQ(b->slave.ars.size(), 4u);
  for (unsigned i = 0; i < 4; ++i) EXPECT_EQ(b->slave.ars[i].addr, addr[i]);
  EXPECT_EQ(b->bridge.bursts.value(), 8u);
  EXPECT_EQ(b->bridge.beats.value(), 78u);
}

// With max_burst_beats 256 (the AXI4 maximum), 8 KiB from 0x800 is still cut at the 4 KiB lines:
// 0x800 (256 beats = 2 KiB, the length limit), 0x1000 (256), 0x1800 (256), 0x2000 (256).
// From 0xf00 it is 0xf00 (32 beats, to 4 KiB), 0x1000, 0x1800, 0x2000 (256 each) and 0x2800
// (the remaining 8192 - 256 - 3 * 2048 = 1792 bytes: 224 beats).
TEST_F(tlm2axi_pins, longest_bursts_still_stop_at_4k) {
  make(256, 4);
  std::vector<uint8_t> data(8192, 0x5a);
  run([&] {
    EXPECT_EQ(access(tlm::TLM_WRITE_COMMAND, 0x800, data.data(), 8192), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(access(tlm::TLM_WRITE_COMMAND, 0xf00, data.data(), 8192), tlm::TLM_OK_RESPONSE);
  });
  const auto& aw = b->slave.aws;
  ASSERT_EQ(aw.size(), 9u);
  const uint64_t addr[] = {0x800, 0x1000, 0x1800, 0x2000, 0xf00, 0x1000, 0x1800, 0x2000, 0x2800};
  const uint32_t len[] = {255, 255, 255, 255, 31, 255, 255, 255, 223};
  for (unsigned i = 0; i < 9; ++i) {
    EXPECT_EQ(aw[i].addr, addr[i]) << i;
    EXPECT_EQ(aw[i].len, len[i]) << i;
  }
}

// Byte enables become WSTRB (A3.4.3): pattern ff 00 ff 00 (repeated over 16 bytes) enables the
// even bytes, lanes 0, 2, 4, 6: WSTRB 0x55 on both beats; the odd bytes keep their old value.
// A read with 00 ff fills only the odd bytes of the buffer.
TEST_F(tlm2axi_pins, byte_enables_become_strobes) {
  make();
  std::vector<uint8_t> data(16), back(16, 0xee);
  for (unsigned i = 0; i < 16; ++i) data[i] = uint8_t(0x10 + i);
  run([&] {
    EXPECT_EQ(access(tlm::TLM_WRITE_COMMAND, 0x100, data.data(), 16, 0, {0xff, 0x00, 0xff, 0x00}), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(access(tlm::TLM_READ_COMMAND, 0x100, back.data(), 16, 0, {0x00, 0xff}), tlm::TLM_OK_RESPONSE);
  });
  ASSERT_EQ(b->slave.ws.size(), 2u);
  EXPECT_EQ(b->slave.ws[0].second, 0x55u);
  EXPECT_EQ(b->slave.ws[1].second, 0x55u);
  for (unsigned i = 0; i < 16; ++i) {
    EXPECT_EQ(b->slave.byte(0x100 + i), i % 2 ? pattern(0x100 + i) : data[i]) << i;
    EXPECT_EQ(back[i], i % 2 ? pattern(0x100 + i) : 0xee) << i;
  }
}

// FIXED bursts from a streaming width below the length (A3.4.1: every beat at the same address,
// AxSIZE = the width, at most 16 beats). 16 bytes of width 4 at 0x204: one burst, AWSIZE 2,
// AWLEN 3, lanes 4..7 (WSTRB 0xf0) on every beat. 40 bytes of width 2 read at 0x102: 20 beats,
// so two bursts (16 and 4 beats), each beat returning the two bytes at 0x102.
TEST_F(tlm2axi_pins, streaming_width_gives_fixed_bursts) {
  make();
  std::vector<uint8_t> data(16), back(40, 0);
  for (unsigned i = 0; i < 16; ++i) data[i] = uint8_t(i + 1);
  run([&] {
    EXPECT_EQ(access(tlm::TLM_WRITE_COMMAND, 0x204, data.data(), 16, 4), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(access(tlm::TLM_READ_COMMAND, 0x102, back.data(), 40, 2), tlm::TLM_OK_RESPONSE);
  });
  ASSERT_EQ(b->slave.aws.size(), 1u);
  EXPECT_EQ(b->slave.aws[0].addr, 0x204u);
  EXPECT_EQ(b->slave.aws[0].len, 3u);
  EXPECT_EQ(b->slave.aws[0].size, 2u);
  EXPECT_EQ(b->slave.aws[0].burst, uint32_t(burst_fixed));
  ASSERT_EQ(b->slave.ws.size(), 4u);
  for (unsigned k = 0; k < 4; ++k) {
    EXPECT_EQ(b->slave.ws[k].second, 0xf0u) << k;
    EXPECT_EQ(uint32_t(b->slave.ws[k].first >> 32),
              uint32_t(data[4 * k] | data[4 * k + 1] << 8 | data[4 * k + 2] << 16 | data[4 * k + 3] << 24))
        << k;
  }
  EXPECT_EQ(b->slave.byte(0x204), 13);  // the last beat wins at a FIFO-like address
  ASSERT_EQ(b->slave.ars.size(), 2u);
  EXPECT_EQ(b->slave.ars[0].len, 15u);
  EXPECT_EQ(b->slave.ars[1].len, 3u);
  for (const auto& r : b->slave.ars) {
    EXPECT_EQ(r.addr, 0x102u);
    EXPECT_EQ(r.size, 1u);
    EXPECT_EQ(r.burst, uint32_t(burst_fixed));
  }
  for (unsigned i = 0; i < 40; ++i) EXPECT_EQ(back[i], pattern(0x102 + i % 2)) << i;
}

// What AXI cannot carry is refused before the pins: a width that is not a power of two up to the
// bus, a FIXED address not aligned to its width, a length not a multiple of the width; zero length.
TEST_F(tlm2axi_pins, streaming_widths_axi_cannot_carry_are_burst_errors) {
  make();
  uint8_t d[16] = {};
  run([&] {
    EXPECT_EQ(access(tlm::TLM_WRITE_COMMAND, 0x300, d, 12, 3), tlm::TLM_BURST_ERROR_RESPONSE);
    EXPECT_EQ(access(tlm::TLM_WRITE_COMMAND, 0x302, d, 16, 4), tlm::TLM_BURST_ERROR_RESPONSE);
    EXPECT_EQ(access(tlm::TLM_READ_COMMAND, 0x300, d, 10, 4), tlm::TLM_BURST_ERROR_RESPONSE);
    EXPECT_EQ(access(tlm::TLM_READ_COMMAND, 0x300, d, 12, 6), tlm::TLM_BURST_ERROR_RESPONSE);
    EXPECT_EQ(access(tlm::TLM_READ_COMMAND, 0x300, d, 0), tlm::TLM_GENERIC_ERROR_RESPONSE);
  });
  EXPECT_TRUE(b->slave.aws.empty());
  EXPECT_TRUE(b->slave.ars.empty());
}

// One 512-byte transaction is four 128-byte bursts. With max_outstanding 4 all four are in flight
// at once with IDs 0, 1, 2, 3 (A5: distinct IDs may complete out of order); the slave answers
// 3, 2, 1, 0 and the data still lands in the right place. With max_outstanding 2 at most two are
// in flight, with IDs 0 and 1 only.
TEST_F(tlm2axi_pins, several_outstanding_ids_complete_out_of_order) {
  make(16, 4);
  std::vector<uint8_t> data(512), back(512, 0);
  for (unsigned i = 0; i < 512; ++i) data[i] = uint8_t(i ^ 0x5c);
  run([&] {
    EXPECT_EQ(access(tlm::TLM_WRITE_COMMAND, 0x2000, data.data(), 512), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(access(tlm::TLM_READ_COMMAND, 0x2000, back.data(), 512), tlm::TLM_OK_RESPONSE);
  });
  EXPECT_EQ(back, data);
  ASSERT_EQ(b->slave.aws.size(), 4u);
  for (unsigned i = 0; i < 4; ++i) {
    EXPECT_EQ(b->slave.aws[i].id, i);
    EXPECT_EQ(b->slave.ars[i].id, i);
  }
  EXPECT_EQ(b->slave.max_writes, 4u);
  EXPECT_EQ(b->slave.max_reads, 4u);
  EXPECT_EQ(b->slave.b_order, (std::vector<uint32_t>{3, 2, 1, 0}));
  EXPECT_EQ(b->slave.r_order, (std::vector<uint32_t>{3, 2, 1, 0}));
}

TEST_F(tlm2axi_pins, outstanding_bursts_are_bounded_by_max_outstanding) {
  make(16, 2);
  std::vector<uint8_t> data(512, 0x33), back(512, 0);
  run([&] {
    EXPECT_EQ(access(tlm::TLM_WRITE_COMMAND, 0x2000, data.data(), 512), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(access(tlm::TLM_READ_COMMAND, 0x2000, back.data(), 512), tlm::TLM_OK_RESPONSE);
  });
  EXPECT_EQ(back, data);
  EXPECT_EQ(b->slave.max_writes, 2u);
  EXPECT_EQ(b->slave.max_reads, 2u);
  for (const auto& r : b->slave.aws) EXPECT_LT(r.id, 2u);
  for (const auto& r : b->slave.ars) EXPECT_LT(r.id, 2u);
}

// Two initiators at once: their bursts are in flight together under different IDs.
TEST_F(tlm2axi_pins, concurrent_initiators_share_the_ids) {
  make(16, 4);
  std::vector<uint8_t> a(8), c(8);
  tlm::tlm_response_status ra{}, rc{};
  sc_core::sc_spawn([&] { ra = access(tlm::TLM_READ_COMMAND, 0x40, a.data(), 8); });
  run([&] { rc = access(tlm::TLM_READ_COMMAND, 0x80, c.data(), 8); });
  EXPECT_EQ(ra, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(rc, tlm::TLM_OK_RESPONSE);
  ASSERT_EQ(b->slave.ars.size(), 2u);
  EXPECT_NE(b->slave.ars[0].id, b->slave.ars[1].id);
  EXPECT_EQ(b->slave.max_reads, 2u);
  for (unsigned i = 0; i < 8; ++i) {
    EXPECT_EQ(a[i], pattern(0x40 + i));
    EXPECT_EQ(c[i], pattern(0x80 + i));
  }
}

// Responses (A3.4.4): SLVERR -> TLM_GENERIC_ERROR_RESPONSE, DECERR -> TLM_ADDRESS_ERROR_RESPONSE.
// A transaction whose bursts get different responses takes the worst: 0x4f80..0x507f is a SLVERR
// burst (to 0x5000) and a DECERR burst: TLM_ADDRESS_ERROR_RESPONSE; 0x3f80..0x407f is OKAY then
// SLVERR: TLM_GENERIC_ERROR_RESPONSE.
TEST_F(tlm2axi_pins, slverr_and_decerr_map_to_tlm_responses) {
  make();
  std::vector<uint8_t> d(256, 1);
  run([&] {
    EXPECT_EQ(access(tlm::TLM_READ_COMMAND, 0x4000, d.data(), 8), tlm::TLM_GENERIC_ERROR_RESPONSE);
    EXPECT_EQ(access(tlm::TLM_WRITE_COMMAND, 0x4008, d.data(), 8), tlm::TLM_GENERIC_ERROR_RESPONSE);
    EXPECT_EQ(access(tlm::TLM_READ_COMMAND, 0x5000, d.data(), 8), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(access(tlm::TLM_WRITE_COMMAND, 0x5ff8, d.data(), 8), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(access(tlm::TLM_READ_COMMAND, 0x4f80, d.data(), 256), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(access(tlm::TLM_WRITE_COMMAND, 0x4f80, d.data(), 256), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(access(tlm::TLM_READ_COMMAND, 0x3f80, d.data(), 256), tlm::TLM_GENERIC_ERROR_RESPONSE);
    EXPECT_EQ(access(tlm::TLM_WRITE_COMMAND, 0x3f80, d.data(), 256), tlm::TLM_GENERIC_ERROR_RESPONSE);
    EXPECT_EQ(access(tlm::TLM_READ_COMMAND, 0x6000, d.data(), 8), tlm::TLM_OK_RESPONSE);
  });
}
