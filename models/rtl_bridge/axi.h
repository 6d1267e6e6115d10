// SPDX-License-Identifier: Apache-2.0
// AXI4 and AXI4-Lite pin bundles as SystemC signals (or plain values: pin below), with the types Verilator gives the ports of
// a SystemC model (1 bit: bool, 2-32 bits: uint32_t, 33-64 bits: uint64_t, wider: sc_bv<N>), so an
// RTL top binds to them directly. Data: `wdata`/`rdata` are 64 bits (AXI4) and 32 bits (AXI4-Lite);
// a wider bus (AXI4 128 or 256 bits, AXI4-Lite 64 bits) carries its data on the twins
// `wdata_wide`/`rdata_wide` instead, made only for such a bus. Addresses 64 and 32 bits; IDs 4
// bits. Signal names are the AXI names with a prefix ("m_axi_awvalid"), which is how they appear
// in messages and waveforms.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <systemc>

namespace gpuvp::rtl {

// AXI4 encodings (AMBA AXI and ACE Protocol Specification, ARM IHI 0022, A3.4 and A3.4.4).
enum burst_type : uint32_t { burst_fixed = 0, burst_incr = 1, burst_wrap = 2 };
enum resp_code : uint32_t { resp_okay = 0, resp_exokay = 1, resp_slverr = 2, resp_decerr = 3 };
constexpr unsigned axi4_bus_bytes = 8;       // 64-bit data bus
constexpr unsigned axil_bus_bytes = 4;       // 32-bit data bus
constexpr unsigned axi4_max_bus_bytes = 32;  // 256-bit data bus, the widest the transactors take
constexpr unsigned axil_max_bus_bytes = 8;   // 64-bit AXI4-Lite
constexpr unsigned axi4_max_beats = 256;     // AxLEN is 8 bits
constexpr unsigned axi4_id_count = 16;       // 4-bit IDs

// A pin: an sc_signal (a SystemC model's port binds to it), or, once made direct, a plain value
// that reads what was last written at once (no update phase, no events): the pins of a Verilated
// model that rtl_clock evaluates itself (rtl_clock::drive), copied to and from its fields there.
template <typename T>
class pin final : public sc_core::sc_signal<T> {
 public:
  explicit pin(const char* name) : sc_core::sc_signal<T>(name) {}
  const T& read() const override {
    if (direct_) [[likely]]
      return value_;
    return signal_read();
  }
  void write(const T& v) override {
    if (direct_) [[likely]]
      value_ = v;
    else
      signal_write(v);
  }
  void make_direct() { direct_ = true; }

 private:
  [[gnu::noinline]] const T& signal_read() const { return sc_core::sc_signal<T>::read(); }
  [[gnu::noinline]] void signal_write(const T& v) { sc_core::sc_signal<T>::write(v); }
  bool direct_ = false;
  T value_{};
};
template <typename T>
using sig = pin<T>;
using wide_data = sc_dt::sc_bv<8 * axi4_max_bus_bytes>;  // byte lane i: bits 8i..8i+7

struct axi4_pins {
  // bus_bytes: 4, 8, 16 or 32 (16 and 32 use wdata_wide/rdata_wide).
  explicit axi4_pins(const std::string& p, unsigned bus_bytes = axi4_bus_bytes)
      : awvalid((p + "_awvalid").c_str()),
        awready((p + "_awready").c_str()),
        awid((p + "_awid").c_str()),
        awaddr((p + "_awaddr").c_str()),
        awlen((p + "_awlen").c_str()),
        awsize((p + "_awsize").c_str()),
        awburst((p + "_awburst").c_str()),
        wvalid((p + "_wvalid").c_str()),
        wready((p + "_wready").c_str()),
        wdata((p + "_wdata").c_str()),
        wstrb((p + "_wstrb").c_str()),
        wlast((p + "_wlast").c_str()),
        bvalid((p + "_bvalid").c_str()),
        bready((p + "_bready").c_str()),
        bid((p + "_bid").c_str()),
        bresp((p + "_bresp").c_str()),
        arvalid((p + "_arvalid").c_str()),
        arready((p + "_arready").c_str()),
        arid((p + "_arid").c_str()),
        araddr((p + "_araddr").c_str()),
        arlen((p + "_arlen").c_str()),
        arsize((p + "_arsize").c_str()),
        arburst((p + "_arburst").c_str()),
        rvalid((p + "_rvalid").c_str()),
        rready((p + "_rready").c_str()),
        rid((p + "_rid").c_str()),
        rdata((p + "_rdata").c_str()),
        rresp((p + "_rresp").c_str()),
        rlast((p + "_rlast").c_str()),
        prefix(p),
        bus_bytes(bus_bytes) {
    if (bus_bytes > 8) {
      wdata_wide = std::make_unique<sig<wide_data>>((p + "_wdata_wide").c_str());
      rdata_wide = std::make_unique<sig<wide_data>>((p + "_rdata_wide").c_str());
    }
  }
  sig<bool> awvalid, awready;
  sig<uint32_t> awid;
  sig<uint64_t> awaddr;
  sig<uint32_t> awlen, awsize, awburst;
  sig<bool> wvalid, wready;
  sig<uint64_t> wdata;
  sig<uint32_t> wstrb;
  sig<bool> wlast;
  sig<bool> bvalid, bready;
  sig<uint32_t> bid, bresp;
  sig<bool> arvalid, arready;
  sig<uint32_t> arid;
  sig<uint64_t> araddr;
  sig<uint32_t> arlen, arsize, arburst;
  sig<bool> rvalid, rready;
  sig<uint32_t> rid;
  sig<uint64_t> rdata;
  sig<uint32_t> rresp;
  sig<bool> rlast;
  std::string prefix;
  unsigned bus_bytes;
  std::unique_ptr<sig<wide_data>> wdata_wide, rdata_wide;  // buses over 64 bits only
  // Every pin a plain value (pin::make_direct): for a model rtl_clock evaluates itself.
  void make_direct() {
    for (auto* p : {&awvalid, &awready, &wvalid, &wready, &wlast, &bvalid, &bready, &arvalid, &arready, &rvalid, &rready, &rlast})
      p->make_direct();
    for (auto* p : {&awid, &awlen, &awsize, &awburst, &wstrb, &bid, &bresp, &arid, &arlen, &arsize, &arburst, &rid, &rresp})
      p->make_direct();
    for (auto* p : {&awaddr, &wdata, &araddr, &rdata}) p->make_direct();
    if (wdata_wide) wdata_wide->make_direct(), rdata_wide->make_direct();
  }
};

struct axil_pins {
  // bus_bytes: 4 or 8 (8 uses wdata_wide/rdata_wide).
  explicit axil_pins(const std::string& p, unsigned bus_bytes = axil_bus_bytes)
      : awvalid((p + "_awvalid").c_str()),
        awready((p + "_awready").c_str()),
        awaddr((p + "_awaddr").c_str()),
        wvalid((p + "_wvalid").c_str()),
        wready((p + "_wready").c_str()),
        wdata((p + "_wdata").c_str()),
        wstrb((p + "_wstrb").c_str()),
        bvalid((p + "_bvalid").c_str()),
        bready((p + "_bready").c_str()),
        bresp((p + "_bresp").c_str()),
        arvalid((p + "_arvalid").c_str()),
        arready((p + "_arready").c_str()),
        araddr((p + "_araddr").c_str()),
        rvalid((p + "_rvalid").c_str()),
        rready((p + "_rready").c_str()),
        rdata((p + "_rdata").c_str()),
        rresp((p + "_rresp").c_str()),
        prefix(p),
        bus_bytes(bus_bytes) {
    if (bus_bytes > 4) {
      wdata_wide = std::make_unique<sig<uint64_t>>((p + "_wdata_wide").c_str());
      rdata_wide = std::make_unique<sig<uint64_t>>((p + "_rdata_wide").c_str());
    }
  }
  sig<bool> awvalid, awready;
  sig<uint32_t> awaddr;
  sig<bool> wvalid, wready;
  sig<uint32_t> wdata, wstrb;
  sig<bool> bvalid, bready;
  sig<uint32_t> bresp;
  sig<bool> arvalid, arready;
  sig<uint32_t> araddr;
  sig<bool> rvalid, rready;
  sig<uint32_t> rdata, rresp;
  std::string prefix;
  unsigned bus_bytes;
  std::unique_ptr<sig<uint64_t>> wdata_wide, rdata_wide;  // 64-bit AXI4-Lite only
  // Every pin a plain value (pin::make_direct): for a model rtl_clock evaluates itself.
  void make_direct() {
    for (auto* p : {&awvalid, &awready, &wvalid, &wready, &bvalid, &bready, &arvalid, &arready, &rvalid, &rready}) p->make_direct();
    for (auto* p : {&awaddr, &wdata, &wstrb, &bresp, &araddr, &rdata, &rresp}) p->make_direct();
    if (wdata_wide) wdata_wide->make_direct(), rdata_wide->make_direct();
  }
};

// One data beat of any width: byte lane i is bits 8(i%8).. of word[i/8].
struct beat_data {
  uint64_t word[axi4_max_bus_bytes / 8] = {};
  uint8_t lane(unsigned i) const { return uint8_t(word[i / 8] >> (8 * (i % 8))); }
  void set_lane(unsigned i, uint8_t v) { word[i / 8] |= uint64_t(v) << (8 * (i % 8)); }
  // The bits above 64, folded into one word (the checker's stable-payload rule compares it).
  uint64_t upper_fold() const { return word[1] ^ (word[2] << 1 | word[2] >> 63) ^ (word[3] << 2 | word[3] >> 62); }
};
inline beat_data from_wide(const wide_data& v) {
  beat_data b;
  for (unsigned i = 0; i < axi4_max_bus_bytes / 8; ++i) b.word[i] = uint64_t(v.get_word(2 * i)) | uint64_t(v.get_word(2 * i + 1)) << 32;
  return b;
}
inline wide_data to_wide(const beat_data& b) {
  wide_data v;
  for (unsigned i = 0; i < axi4_max_bus_bytes / 8; ++i) {
    v.set_word(2 * i, sc_dt::sc_digit(b.word[i]));
    v.set_word(2 * i + 1, sc_dt::sc_digit(b.word[i] >> 32));
  }
  return v;
}
// Data of the W / R channel as a beat, whatever the bus width, and driving it.
inline beat_data wdata_of(const axi4_pins& p) {
  if (p.wdata_wide) return from_wide(p.wdata_wide->read());
  beat_data b;
  b.word[0] = p.wdata.read();
  return b;
}
inline beat_data rdata_of(const axi4_pins& p) {
  if (p.rdata_wide) return from_wide(p.rdata_wide->read());
  beat_data b;
  b.word[0] = p.rdata.read();
  return b;
}
inline void drive_wdata(axi4_pins& p, const beat_data& b) {
  if (p.wdata_wide)
    p.wdata_wide->write(to_wide(b));
  else
    p.wdata.write(b.word[0]);
}
inline void drive_rdata(axi4_pins& p, const beat_data& b) {
  if (p.rdata_wide)
    p.rdata_wide->write(to_wide(b));
  else
    p.rdata.write(b.word[0]);
}

// Binding helpers: an RTL top's ports follow the names s_axi_* / m_axi_* / s_axil_* (docs/rtl.md).
#define GPUVP_BIND_AXI4(dut, pfx, pins) \
  do {                                  \
    (dut).pfx##_awvalid(pins.awvalid);  \
    (dut).pfx##_awready(pins.awready);  \
    (dut).pfx##_awid(pins.awid);        \
    (dut).pfx##_awaddr(pins.awaddr);    \
    (dut).pfx##_awlen(pins.awlen);      \
    (dut).pfx##_awsize(pins.awsize);    \
    (dut).pfx##_awburst(pins.awburst);  \
    (dut).pfx##_wvalid(pins.wvalid);    \
    (dut).pfx##_wready(pins.wready);    \
    (dut).pfx##_wdata(pins.wdata);      \
    (dut).pfx##_wstrb(pins.wstrb);      \
    (dut).pfx##_wlast(pins.wlast);      \
    (dut).pfx##_bvalid(pins.bvalid);    \
    (dut).pfx##_bready(pins.bready);    \
    (dut).pfx##_bid(pins.bid);          \
    (dut).pfx##_bresp(pins.bresp);      \
    (dut).pfx##_arvalid(pins.arvalid);  \
    (dut).pfx##_arready(pins.arready);  \
    (dut).pfx##_arid(pins.arid);        \
    (dut).pfx##_araddr(pins.araddr);    \
    (dut).pfx##_arlen(pins.arlen);      \
    (dut).pfx##_arsize(pins.arsize);    \
    (dut).pfx##_arburst(pins.arburst);  \
    (dut).pfx##_rvalid(pins.rvalid);    \
    (dut).pfx##_rready(pins.rready);    \
    (dut).pfx##_rid(pins.rid);          \
    (dut).pfx##_rdata(pins.rdata);      \
    (dut).pfx##_rresp(pins.rresp);      \
    (dut).pfx##_rlast(pins.rlast);      \
  } while (0)

#define GPUVP_BIND_AXIL(dut, pfx, pins) \
  do {                                  \
    (dut).pfx##_awvalid(pins.awvalid);  \
    (dut).pfx##_awready(pins.awready);  \
    (dut).pfx##_awaddr(pins.awaddr);    \
    (dut).pfx##_wvalid(pins.wvalid);    \
    (dut).pfx##_wready(pins.wready);    \
    (dut).pfx##_wdata(pins.wdata);      \
    (dut).pfx##_wstrb(pins.wstrb);      \
    (dut).pfx##_bvalid(pins.bvalid);    \
    (dut).pfx##_bready(pins.bready);    \
    (dut).pfx##_bresp(pins.bresp);      \
    (dut).pfx##_arvalid(pins.arvalid);  \
    (dut).pfx##_arready(pins.arready);  \
    (dut).pfx##_araddr(pins.araddr);    \
    (dut).pfx##_rvalid(pins.rvalid);    \
    (dut).pfx##_rready(pins.rready);    \
    (dut).pfx##_rdata(pins.rdata);      \
    (dut).pfx##_rresp(pins.rresp);      \
  } while (0)

}  // namespace gpuvp::rtl
