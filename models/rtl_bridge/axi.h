// SPDX-License-Identifier: Apache-2.0
// AXI4 and AXI4-Lite pin bundles as SystemC signals, with the types Verilator gives the ports of
// a SystemC model (1 bit: bool, 2-32 bits: uint32_t, 33-64 bits: uint64_t), so an RTL top binds
// to them directly. Data buses are 64 bits (AXI4) and 32 bits (AXI4-Lite); addresses 64 and 32
// bits; IDs 4 bits. Signal names are the AXI names with a prefix ("m_axi_awvalid"), which is how
// they appear in messages and waveforms.
#pragma once
#include <cstdint>
#include <string>
#include <systemc>

namespace gpuvp::rtl {

// AXI4 encodings (AMBA AXI and ACE Protocol Specification, ARM IHI 0022, A3.4 and A3.4.4).
enum burst_type : uint32_t { burst_fixed = 0, burst_incr = 1, burst_wrap = 2 };
enum resp_code : uint32_t { resp_okay = 0, resp_exokay = 1, resp_slverr = 2, resp_decerr = 3 };
constexpr unsigned axi4_bus_bytes = 8;   // 64-bit data bus
constexpr unsigned axil_bus_bytes = 4;   // 32-bit data bus
constexpr unsigned axi4_max_beats = 256;  // AxLEN is 8 bits
constexpr unsigned axi4_id_count = 16;    // 4-bit IDs

template <typename T> using sig = sc_core::sc_signal<T>;

struct axi4_pins {
  explicit axi4_pins(const std::string& p)
      : awvalid((p + "_awvalid").c_str()), awready((p + "_awready").c_str()), awid((p + "_awid").c_str()),
        awaddr((p + "_awaddr").c_str()), awlen((p + "_awlen").c_str()), awsize((p + "_awsize").c_str()),
        awburst((p + "_awburst").c_str()), wvalid((p + "_wvalid").c_str()), wready((p + "_wready").c_str()),
        wdata((p + "_wdata").c_str()), wstrb((p + "_wstrb").c_str()), wlast((p + "_wlast").c_str()),
        bvalid((p + "_bvalid").c_str()), bready((p + "_bready").c_str()), bid((p + "_bid").c_str()),
        bresp((p + "_bresp").c_str()), arvalid((p + "_arvalid").c_str()), arready((p + "_arready").c_str()),
        arid((p + "_arid").c_str()), araddr((p + "_araddr").c_str()), arlen((p + "_arlen").c_str()),
        arsize((p + "_arsize").c_str()), arburst((p + "_arburst").c_str()), rvalid((p + "_rvalid").c_str()),
        rready((p + "_rready").c_str()), rid((p + "_rid").c_str()), rdata((p + "_rdata").c_str()),
        rresp((p + "_rresp").c_str()), rlast((p + "_rlast").c_str()), prefix(p) {}
  sig<bool> awvalid, awready; sig<uint32_t> awid; sig<uint64_t> awaddr; sig<uint32_t> awlen, awsize, awburst;
  sig<bool> wvalid, wready; sig<uint64_t> wdata; sig<uint32_t> wstrb; sig<bool> wlast;
  sig<bool> bvalid, bready; sig<uint32_t> bid, bresp;
  sig<bool> arvalid, arready; sig<uint32_t> arid; sig<uint64_t> araddr; sig<uint32_t> arlen, arsize, arburst;
  sig<bool> rvalid, rready; sig<uint32_t> rid; sig<uint64_t> rdata; sig<uint32_t> rresp; sig<bool> rlast;
  std::string prefix;
};

struct axil_pins {
  explicit axil_pins(const std::string& p)
      : awvalid((p + "_awvalid").c_str()), awready((p + "_awready").c_str()), awaddr((p + "_awaddr").c_str()),
        wvalid((p + "_wvalid").c_str()), wready((p + "_wready").c_str()), wdata((p + "_wdata").c_str()),
        wstrb((p + "_wstrb").c_str()), bvalid((p + "_bvalid").c_str()), bready((p + "_bready").c_str()),
        bresp((p + "_bresp").c_str()), arvalid((p + "_arvalid").c_str()), arready((p + "_arready").c_str()),
        araddr((p + "_araddr").c_str()), rvalid((p + "_rvalid").c_str()), rready((p + "_rready").c_str()),
        rdata((p + "_rdata").c_str()), rresp((p + "_rresp").c_str()), prefix(p) {}
  sig<bool> awvalid, awready; sig<uint32_t> awaddr;
  sig<bool> wvalid, wready; sig<uint32_t> wdata, wstrb;
  sig<bool> bvalid, bready; sig<uint32_t> bresp;
  sig<bool> arvalid, arready; sig<uint32_t> araddr;
  sig<bool> rvalid, rready; sig<uint32_t> rdata, rresp;
  std::string prefix;
};

// Binding helpers: an RTL top's ports follow the names s_axi_* / m_axi_* / s_axil_* (docs/rtl.md).
#define GPUVP_BIND_AXI4(dut, pfx, pins)                                                                   \
  do {                                                                                                    \
    (dut).pfx##_awvalid(pins.awvalid); (dut).pfx##_awready(pins.awready); (dut).pfx##_awid(pins.awid);    \
    (dut).pfx##_awaddr(pins.awaddr); (dut).pfx##_awlen(pins.awlen); (dut).pfx##_awsize(pins.awsize);      \
    (dut).pfx##_awburst(pins.awburst); (dut).pfx##_wvalid(pins.wvalid); (dut).pfx##_wready(pins.wready);  \
    (dut).pfx##_wdata(pins.wdata); (dut).pfx##_wstrb(pins.wstrb); (dut).pfx##_wlast(pins.wlast);          \
    (dut).pfx##_bvalid(pins.bvalid); (dut).pfx##_bready(pins.bready); (dut).pfx##_bid(pins.bid);          \
    (dut).pfx##_bresp(pins.bresp); (dut).pfx##_arvalid(pins.arvalid); (dut).pfx##_arready(pins.arready);  \
    (dut).pfx##_arid(pins.arid); (dut).pfx##_araddr(pins.araddr); (dut).pfx##_arlen(pins.arlen);          \
    (dut).pfx##_arsize(pins.arsize); (dut).pfx##_arburst(pins.arburst); (dut).pfx##_rvalid(pins.rvalid);  \
    (dut).pfx##_rready(pins.rready); (dut).pfx##_rid(pins.rid); (dut).pfx##_rdata(pins.rdata);            \
    (dut).pfx##_rresp(pins.rresp); (dut).pfx##_rlast(pins.rlast);                                         \
  } while (0)

#define GPUVP_BIND_AXIL(dut, pfx, pins)                                                                   \
  do {                                                                                                    \
    (dut).pfx##_awvalid(pins.awvalid); (dut).pfx##_awready(pins.awready); (dut).pfx##_awaddr(pins.awaddr); \
    (dut).pfx##_wvalid(pins.wvalid); (dut).pfx##_wready(pins.wready); (dut).pfx##_wdata(pins.wdata);      \
    (dut).pfx##_wstrb(pins.wstrb); (dut).pfx##_bvalid(pins.bvalid); (dut).pfx##_bready(pins.bready);      \
    (dut).pfx##_bresp(pins.bresp); (dut).pfx##_arvalid(pins.arvalid); (dut).pfx##_arready(pins.arready);  \
    (dut).pfx##_araddr(pins.araddr); (dut).pfx##_rvalid(pins.rvalid); (dut).pfx##_rready(pins.rready);    \
    (dut).pfx##_rdata(pins.rdata); (dut).pfx##_rresp(pins.rresp);                                         \
  } while (0)

}  // namespace gpuvp::rtl
