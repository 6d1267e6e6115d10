// SPDX-License-Identifier: Apache-2.0
// Width adaptation of the transactors (docs/rtl.md): one AXI4 RAM top (tests/rtl_bridge/rtl/wram.sv)
// Verilated with 32-, 128- and 256-bit data and 32- or 20-bit addresses, and an AXI4-Lite register
// file (rtl/wlite.sv) with 64-bit data. Every access is checked against what was written (the
// same qtest answers at every width), the beat counts against the bus width, and the AXI checker
// and the lock-step shadow memory watch every run (a violation or mismatch is exit 1). One
// simulation per test (tests/support/cli_testing.h: in-process runs under ASan).
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include "cli_testing.h"
#include "rtl_testing.h"

void gpuvp_register_test_wram32();
void gpuvp_register_test_wram128();
void gpuvp_register_test_wram256();
void gpuvp_register_test_wlite64();

namespace {
using gpuvp::testing::hex_bytes;
void register_width_rtl() {
#ifdef GPUVP_TEST_RTL
  gpuvp_register_test_wram32();
  gpuvp_register_test_wram128();
  gpuvp_register_test_wram256();
  gpuvp_register_test_wlite64();
#endif
}
gpuvp::testing::cli_result qtest(const std::string& type, const std::string& script, bool lite = false) {
  // An 8 GiB window at 16 GiB: offsets above 4 GiB reach the RTL with their high bits cut off.
  std::vector<std::string> a = {
      "qtest", "--set", "components.ram=" + type, "--set", "ram.base=0x400000000", "--set", "ram.size=0x200000000"};
  if (!lite) a.insert(a.end(), {"--set", "ram.lockstep_memory=true"});
  return gpuvp::testing::run_gpuvp(a, script, register_width_rtl);
}
std::vector<std::string> lines(const std::string& out) {
  std::vector<std::string> v;
  std::string l;
  for (char c : out) {
    if (c != '\n')
      l += c;
    else
      v.push_back(l), l.clear();
  }
  return v;
}

// The same session at every data width. wram answers SLVERR for a start address with a bit above
// 12 set, and keeps 8 KiB below.
void same_answers_at_every_width(const std::string& type) {
  const std::string data = hex_bytes(300, 3);
  auto r = qtest(type,
                 // 300 bytes from 0xff3: unaligned start and end, the 4 KiB boundary at 0x1000.
                 "write 0x400000ff3 300 0x" + data +
                     "\nread 0x400000ff3 300\n"
                     // Partial accesses inside one bus word, read back at other sizes (little endian).
                     "writeq 0x400000108 0x1122334455667788\nwriteb 0x40000010a 0xa5\nreadq 0x400000108\n"
                     "readl 0x40000010c\nreadw 0x40000010a\n"
                     // Bit 13 (0x2000) and bit 16 arrive: SLVERR.
                     "writel 0x400002000 0x1\nreadq 0x400010000\n"
                     // Bit 32 (offset 0x100000108) is cut off by a 32- or 20-bit address: 0x108.
                     "readq 0x500000108\n"
                     "stats ram.s_axi.violations\n");
  EXPECT_EQ(r.rc, 0) << r.err;
  const auto l = lines(r.out);
  ASSERT_EQ(l.size(), 11u) << r.out;
  EXPECT_EQ(l[0], "OK");
  EXPECT_EQ(l[1], "OK 0x" + data);
  EXPECT_EQ(l[4], "OK 0x1122334455a57788");
  EXPECT_EQ(l[5], "OK 0x0000000011223344");
  EXPECT_EQ(l[6], "OK 0x00000000000055a5");
  EXPECT_EQ(l[7].substr(0, 4), "FAIL") << l[7];
  EXPECT_EQ(l[8].substr(0, 4), "FAIL") << l[8];
  EXPECT_EQ(l[9], "OK 0x1122334455a57788");
  EXPECT_EQ(l[10], "OK ram.s_axi.violations=0");
}

// 64 aligned bytes written and read back: one burst each way of 64 / bus bytes beats.
void beats_follow_the_bus_width(const std::string& type, unsigned bus_bytes) {
  const std::string data = hex_bytes(64, 7);
  auto r = qtest(type, "write 0x400000200 64 0x" + data + "\nread 0x400000200 64\nstats ram.s_axi.b\n");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("OK 0x" + data + "\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" ram.s_axi.beats=" + std::to_string(2 * 64 / bus_bytes)), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" ram.s_axi.bursts=2"), std::string::npos) << r.out;
}
}  // namespace

TEST(rtl_widths, axi4_128_bit_data_32_bit_address) {
  NEEDS_RTL();
  same_answers_at_every_width("test_wram128");
}

TEST(rtl_widths, axi4_128_bit_beats) {
  NEEDS_RTL();
  beats_follow_the_bus_width("test_wram128", 16);
}

TEST(rtl_widths, axi4_32_bit_data_32_bit_address) {
  NEEDS_RTL();
  same_answers_at_every_width("test_wram32");
}

TEST(rtl_widths, axi4_32_bit_beats) {
  NEEDS_RTL();
  beats_follow_the_bus_width("test_wram32", 4);
}

TEST(rtl_widths, axi4_256_bit_data_20_bit_address) {
  NEEDS_RTL();
  same_answers_at_every_width("test_wram256");
}

TEST(rtl_widths, axi4_256_bit_beats) {
  NEEDS_RTL();
  beats_follow_the_bus_width("test_wram256", 32);
}

// 256 bytes across a 4 KiB boundary on a 256-bit bus: the bursts stop at 0x1000 (the checker's
// 4k_boundary rule would stop the run) and the bytes come back whole.
TEST(rtl_widths, axi4_256_bit_bursts_split_at_4k) {
  NEEDS_RTL();
  const std::string data = hex_bytes(256, 11);
  auto r = qtest("test_wram256", "write 0x400000f90 256 0x" + data + "\nread 0x400000f90 256\nstats ram.s_axi.b\n");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("OK 0x" + data + "\n"), std::string::npos) << r.out;
  // 0xf90-0x1000: 4 beats (the first partial), 0x1000-0x1090: 5 beats (the last partial); twice.
  EXPECT_NE(r.out.find(" ram.s_axi.beats=18"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" ram.s_axi.bursts=4"), std::string::npos) << r.out;
}

// AXI4-Lite at 64 bits: a quad is one transfer (two on a 32-bit bus), narrower accesses set the
// right WSTRB lanes of the 64-bit word; registers mirror every 256 bytes.
TEST(rtl_widths, axil_64_bit_data) {
  NEEDS_RTL();
  auto r = qtest("test_wlite64",
                 "writeq 0x400000008 0x0123456789abcdef\nreadq 0x400000008\nwritel 0x40000000c 0xdeadbeef\n"
                 "readq 0x400000008\nwriteb 0x400000009 0x5a\nreadl 0x400000008\nreadw 0x40000000e\n"
                 "readq 0x400000108\nstats ram.s_axil\n",
                 true);
  EXPECT_EQ(r.rc, 0) << r.err;
  const auto l = lines(r.out);
  ASSERT_EQ(l.size(), 9u) << r.out;
  EXPECT_EQ(l[1], "OK 0x0123456789abcdef");
  EXPECT_EQ(l[3], "OK 0xdeadbeef89abcdef");
  EXPECT_EQ(l[5], "OK 0x0000000089ab5aef");
  EXPECT_EQ(l[6], "OK 0x000000000000dead");
  EXPECT_EQ(l[7], "OK 0xdeadbeef89ab5aef");  // 0x108: register 1 again
  EXPECT_NE(l[8].find(" ram.s_axil.writes=3"), std::string::npos) << l[8];
  EXPECT_NE(l[8].find(" ram.s_axil.reads=5"), std::string::npos) << l[8];
  EXPECT_NE(l[8].find(" ram.s_axil.violations=0"), std::string::npos) << l[8];
}

// A misaligned or too long AXI4-Lite access is refused without reaching the pins.
TEST(rtl_widths, axil_64_bit_refuses_what_spans_two_words) {
  NEEDS_RTL();
  auto r = qtest("test_wlite64", "readl 0x400000006\nread 0x400000000 16\nstats ram.s_axil.reads\n", true);
  const auto l = lines(r.out);
  ASSERT_EQ(l.size(), 3u) << r.out;
  EXPECT_EQ(l[0].substr(0, 4), "FAIL") << l[0];
  EXPECT_EQ(l[1].substr(0, 4), "FAIL") << l[1];
  EXPECT_EQ(l[2], "OK ram.s_axil.reads=0");
}
