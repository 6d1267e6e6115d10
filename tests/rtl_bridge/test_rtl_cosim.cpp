// SPDX-License-Identifier: Apache-2.0
// RTL co-simulation through the gpuvp program: the protocol checker on RTL that breaks each rule
// on purpose, the RTL SRAM behind tlm2axi (qtest), the docs/rtl.md example, FST waveforms.
#include <filesystem>
#include <sstream>
#include <gtest/gtest.h>
#include "cli.h"
#include "cli_testing.h"
#include "testing.h"

void gpuvp_register_test_bad_master();
void gpuvp_register_test_bad_slave();
void gpuvp_register_test_extra_port();

namespace {
using result = gpuvp::testing::cli_result;
// The test RTL component types, registered in each fresh kernel.
void register_test_rtl() {
#ifdef GPUVP_TEST_RTL
  gpuvp_register_test_bad_master();
  gpuvp_register_test_bad_slave();
  gpuvp_register_test_extra_port();
#endif
}
result run_gpuvp(std::vector<std::string> args, const std::string& input = "") {
  return gpuvp::testing::run_gpuvp(std::move(args), input, register_test_rtl);
}
#ifdef GPUVP_TEST_RTL
#define NEEDS_RTL()
#else
#define NEEDS_RTL() GTEST_SKIP() << "built without Verilator (GPUVP_RTL off): RTL co-simulation not available"
#endif

// The bad master alone on the platform, AWREADY held back 2 cycles so that waiting is visible.
result bad_master(int mode) {
  return run_gpuvp({"run", "--workload", "traffic", "--set", "components.traffic=none", "--set",
                    "components.bad=test_bad_master", "--set", "bad.plusargs=+bad_mode=" + std::to_string(mode), "--set",
                    "bad.mem.ready_delay=2"});
}
const std::vector<std::string> sram_at_12g = {"--set", "components.sram=rtl_sram", "--set", "sram.base=0x300000000", "--set",
                                              "sram.size=0x10000"};
result qtest(std::vector<std::string> args, const std::string& script) {
  args.insert(args.begin(), "qtest");
  return run_gpuvp(args, script);
}
}  // namespace

TEST(rtl_checker, correct_master_passes) {
  NEEDS_RTL();
  auto r = bad_master(0);
  EXPECT_EQ(r.rc, 0) << r.err;
}

// Cycle numbers: rst_n is low for edges 0-3; the master leaves START at edge 4 and shows AWVALID
// from edge 5 on; with ready_delay 2 AWREADY rises after two waiting edges (5, 6), so the AW
// handshake is at edge 7 and the first W beat at edge 8.
TEST(rtl_checker, valid_dropped_before_ready) {
  NEEDS_RTL();
  auto r = bad_master(1);  // AWVALID at edge 5 without AWREADY, low at edge 6
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("bad.mem: m_axi_awvalid at cycle 6: awvalid fell before awready was high [rule valid_held]"),
            std::string::npos) << r.err;
}

TEST(rtl_checker, payload_changed_while_valid) {
  NEEDS_RTL();
  auto r = bad_master(2);  // AWADDR 0x1000 at edge 5, 0x1008 at edge 6
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("m_axi_awaddr at cycle 6: awaddr changed from 0x1000 to 0x1008"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[rule stable_payload]"), std::string::npos) << r.err;
}

TEST(rtl_checker, wlast_on_the_wrong_beat) {
  NEEDS_RTL();
  auto r = bad_master(3);
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("m_axi_wlast at cycle 8: high on beat 1 of a 2-beat write burst [rule wlast]"), std::string::npos)
      << r.err;
}

TEST(rtl_checker, burst_across_4k) {
  NEEDS_RTL();
  auto r = bad_master(4);
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("m_axi_awaddr at cycle 7: INCR burst of 2 beats of 8 bytes from 0xff8 ends at 0x1007"),
            std::string::npos) << r.err;
}

// One qtest session per test: each elaborates a platform with the bad slave (+bad_slave_mode=N).
static std::vector<std::string> bad_slave_args(int mode) {
  return {"--set", "components.bad=test_bad_slave", "--set", "bad.base=0x300000000",
          "--set", "bad.plusargs=+bad_slave_mode=" + std::to_string(mode)};
}

TEST(rtl_checker, a_well_behaved_slave_passes) {
  NEEDS_RTL();
  auto r = qtest(bad_slave_args(0), "readq 0x300000010\nwriteq 0x300000000 0x5\n");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "OK 0x0000000000000010\nOK\n");  // the slave returns the beat's address
}

TEST(rtl_checker, write_response_ids_must_match) {
  NEEDS_RTL();
  auto r = qtest(bad_slave_args(1), "writeq 0x300000000 0x5\n");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("bad.in: s_axi_bid at cycle"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("write response ID 1 matches no outstanding write [rule bid]"), std::string::npos) << r.err;
}

TEST(rtl_checker, read_response_ids_must_match) {
  NEEDS_RTL();
  auto r = qtest(bad_slave_args(2), "readq 0x300000000\n");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("read data ID 1 matches no outstanding read [rule rid]"), std::string::npos) << r.err;
}

TEST(rtl_sram, qtest_reads_and_writes_reach_it) {
  NEEDS_RTL();
  // 300 bytes from 0x...0ffd: unaligned, several bursts (16 beats = 128 bytes at most) and a 4 KiB
  // crossing at 0x1000; byte, long and quad accesses.
  std::string bytes;
  for (int i = 0; i < 300; ++i) {
    char b[3];
    snprintf(b, sizeof b, "%02x", (i * 7 + 1) & 0xff);
    bytes += b;
  }
  auto r = qtest(sram_at_12g, "write 0x300000ffd 300 0x" + bytes + "\nread 0x300000ffd 300\nwritel 0x300002004 0xdeadbeef\n"
                              "readq 0x300002000\nwriteb 0x300002001 0x5a\nreadl 0x300002000\n");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "OK\nOK 0x" + bytes + "\nOK\nOK 0xdeadbeef00000000\nOK\nOK 0x0000000000005a00\n");
}

TEST(rtl_sram, wait_states_cost_cycles) {
  NEEDS_RTL();
  // A quad read: AR handshake, WAIT cycles, the R beat. 10 more wait states = 10 more ns at 1 GHz.
  auto t = [&](const std::string& ws) {
    auto a = sram_at_12g;
    a.insert(a.end(), {"--set", "sram.plusargs=+sram_wait_states=" + ws});
    auto r = qtest(a, "clock_step 100\nreadq 0x300000000\nclock_step 0\n");
    EXPECT_EQ(r.rc, 0) << r.err;
    return r.out;
  };
  const std::string w2 = t("2"), w12 = t("12");
  const uint64_t n2 = std::stoull(w2.substr(w2.rfind("OK ") + 3)), n12 = std::stoull(w12.substr(w12.rfind("OK ") + 3));
  EXPECT_EQ(n12 - n2, 10u) << w2 << w12;
}

TEST(rtl_example, countdown_from_docs) {
  NEEDS_RTL();
  // examples/rtl/example.yaml: the countdown at BAR0 + 0xe00000, 10 ns clock. LOAD = 5, start:
  // it expires 5 cycles (50 ns) after the start and raises its PMC line.
  const std::string cfg = gpuvp::testing::source_path("examples/rtl/example.yaml");
  auto r = qtest({"--config", cfg}, "irq_intercept\nwritel 0x100e00000 5\nwritel 0x100e00004 1\nclock_step 200\n"
                                    "readl 0x100e00008\nwritel 0x100e00008 2\nreadl 0x100e00008\nwritel 0x100000100 0xffffffff\n");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("IRQ raise"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("OK 0x0000000000000002\n"), std::string::npos) << r.out;  // EXPIRED, not running
  EXPECT_NE(r.out.find("IRQ lower"), std::string::npos) << r.out;
}

TEST(rtl_trace, rtl_copy_writes_an_fst) {
  NEEDS_RTL();
  const std::string f = gpuvp::testing::binary_path("rtl_copy_test.fst");
  std::filesystem::remove(f);
  auto r = run_gpuvp({"run", "--workload", "rtl-copy", "--set", "copy.impl=rtl", "--rtl-trace", f});
  EXPECT_EQ(r.rc, 0) << r.err;
  ASSERT_TRUE(std::filesystem::exists(f));
  EXPECT_GT(std::filesystem::file_size(f), 1000u);
}

// An RTL top with a port gpuvp does not bind (`input enable`) is refused when the component is
// built, naming the instance and the port, before anything runs: a configuration error, exit 2.
TEST(rtl_component, unconnected_port_is_named) {
  NEEDS_RTL();
  auto r = run_gpuvp({"run", "--workload", "traffic", "--set", "components.blk=test_extra_port", "--set", "blk.base=0x300000000"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("blk: RTL port(s) left unconnected: enable (sc_in); gpuvp connects clk, rst_n, s_axil_*"),
            std::string::npos) << r.err;
}
