// SPDX-License-Identifier: Apache-2.0
// RTL co-simulation through the gpuvp program: the protocol checker on RTL that breaks each rule
// on purpose, the RTL SRAM behind tlm2axi (qtest), the docs/rtl.md example, FST waveforms.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include "cli.h"
#include "cli_testing.h"
#include "rtl_testing.h"
#include "testing.h"

void gpuvp_register_test_bad_master();
void gpuvp_register_test_bad_slave();
void gpuvp_register_test_extra_port();
void gpuvp_register_test_tdma();
void gpuvp_register_test_tdma128();
void gpuvp_register_example_countdown();

namespace {
using result = gpuvp::testing::cli_result;
// The test RTL component types, registered in each fresh kernel.
void register_test_rtl() {
#ifdef GPUVP_TEST_RTL
  gpuvp_register_test_bad_master();
  gpuvp_register_test_bad_slave();
  gpuvp_register_test_extra_port();
  gpuvp_register_test_tdma();
  gpuvp_register_test_tdma128();
  gpuvp_register_example_countdown();
#endif
}
result run_gpuvp(std::vector<std::string> args, const std::string& input = "") {
  return gpuvp::testing::run_gpuvp(std::move(args), input, register_test_rtl);
}

// The bad master alone on the platform, AWREADY held back 2 cycles so that waiting is visible.
result bad_master(int mode) {
  return run_gpuvp({"run", "--workload", "traffic", "--set", "components.traffic=none", "--set", "components.bad=test_bad_master", "--set",
                    "bad.plusargs=+bad_mode=" + std::to_string(mode), "--set", "bad.mem.ready_delay=2"});
}
const std::vector<std::string> sram_at_12g = {"--set", "components.sram=rtl_sram", "--set", "sram.base=0x300000000",
                                              "--set", "sram.size=0x10000"};
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
  EXPECT_NE(r.err.find("bad.mem: m_axi_awvalid at cycle 6: awvalid fell before awready was high [rule valid_held]"), std::string::npos)
      << r.err;
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
  EXPECT_NE(r.err.find("m_axi_wlast at cycle 8: high on beat 1 of a 2-beat write burst [rule wlast]"), std::string::npos) << r.err;
}

TEST(rtl_checker, burst_across_4k) {
  NEEDS_RTL();
  auto r = bad_master(4);
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("m_axi_awaddr at cycle 7: INCR burst of 2 beats of 8 bytes from 0xff8 ends at 0x1007"), std::string::npos) << r.err;
}

// One qtest session per test: each elaborates a platform with the bad slave (+bad_slave_mode=N).
static std::vector<std::string> bad_slave_args(int mode) {
  return {"--set", "components.bad=test_bad_slave",
          "--set", "bad.base=0x300000000",
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
  auto r = qtest(sram_at_12g, "write 0x300000ffd 300 0x" + bytes +
                                  "\nread 0x300000ffd 300\nwritel 0x300002004 0xdeadbeef\n"
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

// An idle RTL block costs nothing: a gpuvp_add_rtl_component block that nothing reaches runs its
// reset cycles and then its clock sleeps for the whole run (issue #30; the copy engine's own RTL:
// copy_engine.idle_rtl_is_not_clocked). After an access it sleeps again.
TEST(rtl_sram, idle_block_is_not_clocked) {
  NEEDS_RTL();
  const std::string stats = gpuvp::testing::binary_path("rtl_sram_idle_stats.json");
  std::filesystem::remove(stats);
  auto a = sram_at_12g;
  a.insert(a.begin(), {"run", "--workload", "traffic", "--stats", stats});
  auto r = run_gpuvp(a);
  EXPECT_EQ(r.rc, 0) << r.err;
  const auto j = nlohmann::json::parse(gpuvp::testing::slurp(stats));
  EXPECT_EQ(j.value("sram.clk.cycles", uint64_t(99)), 4u);  // sram.reset_cycles only
  EXPECT_EQ(j.value("sram.clk.wakeups", uint64_t(99)), 0u);
  // Past its reset it sleeps; one quad read wakes it, then 1 ms (a million 1 ns cycles) with
  // nothing to do: a few dozen cycles in all, one wake-up.
  r = qtest(sram_at_12g, "clock_step 100\nreadq 0x300000000\nclock_step 1000000\nstats sram.clk\n");
  EXPECT_EQ(r.rc, 0) << r.err;
  const auto at = r.out.find(" sram.clk.cycles=");
  ASSERT_NE(at, std::string::npos) << r.out;
  EXPECT_LT(std::stoull(r.out.substr(at + 17)), 100u) << r.out;
  EXPECT_NE(r.out.find(" sram.clk.wakeups=1"), std::string::npos) << r.out;
}

TEST(rtl_example, countdown_from_docs) {
  NEEDS_RTL();
  // examples/rtl/example.yaml: the countdown at BAR0 + 0xe00000, 10 ns clock. LOAD = 5, start:
  // it expires 5 cycles (50 ns) after the start and raises its PMC line.
  const std::string cfg = gpuvp::testing::source_path("examples/rtl/example.yaml");
  auto r = qtest({"--config", cfg},
                 "irq_intercept\nwritel 0x100e00000 5\nwritel 0x100e00004 1\nclock_step 200\n"
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
  EXPECT_NE(r.err.find("blk: RTL port(s) left unconnected: enable (sc_in); gpuvp connects the clock, the reset, s_axil_*"),
            std::string::npos)
      << r.err;
}

// ---- RTL written the way third-party IP is: tests/rtl_bridge/rtl/tdma.sv (one Verilated top) ----
// Control (AXI4-Lite, 16-bit address) at BAR0 + 0xe10000, scratch RAM (AXI4, 16-bit address,
// 64-bit data, no IDs, no AxPROT) at 12 GiB, the DMA master (32-bit data, 1-bit IDs) on the
// interconnect; active-high reset i_reset.
namespace {
const std::vector<std::string> tdma_args = {"--set", "components.dma=test_tdma",   "--set", "dma.s_axil.base=0xe10000",
                                            "--set", "dma.s_axil.size=0x1000",     "--set", "dma.s_axil.in_bar0=true",
                                            "--set", "dma.s_axi.base=0x300000000", "--set", "dma.s_axi.size=0x10000"};
using gpuvp::testing::hex_bytes;
// Programs a DMA copy of len bytes from src to dst through the control registers.
std::string tdma_copy(uint64_t src, uint64_t dst, unsigned len) {
  char s[400];
  snprintf(s, sizeof s,
           "writel 0x100e10000 0x%llx\nwritel 0x100e10004 0x%llx\nwritel 0x100e10008 0x%llx\nwritel 0x100e1000c 0x%llx\n"
           "writel 0x100e10010 %u\nwritel 0x100e10014 1\n",
           (unsigned long long)(src & 0xffffffff), (unsigned long long)(src >> 32), (unsigned long long)(dst & 0xffffffff),
           (unsigned long long)(dst >> 32), len);
  return s;
}
}  // namespace

// The DMA, programmed through its AXI-Lite registers, copies 36 bytes of system memory through
// the interconnect (32-bit master beats: 9 reads, 9 writes), raises its interrupt and drops it
// when DONE is acknowledged at the block: qtest exits 0.
TEST(rtl_third_party, dma_copies_through_its_registers) {
  NEEDS_RTL();
  const std::string data = hex_bytes(36, 5);
  testing::internal::CaptureStderr();  // the elaboration note goes to the process's stderr
  auto r = qtest(tdma_args, "irq_intercept\nwrite 0x1000 36 0x" + data + "\n" + tdma_copy(0x1000, 0x2004, 36) +
                                "clock_step 2000\nreadl 0x100e10018\nread 0x2004 36\nreadl 0x100e10010\n"
                                "writel 0x100e10018 2\nreadl 0x100e10018\n");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("IRQ raise"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("OK 0x0000000000000002\n"), std::string::npos) << r.out;  // DONE, not BUSY
  EXPECT_NE(r.out.find("OK 0x" + data + "\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("OK 0x0000000000000024\n"), std::string::npos) << r.out;  // LEN read back: 36
  EXPECT_NE(r.out.find("IRQ lower"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("OK 0x0000000000000000\n"), std::string::npos) << r.out;  // STATUS after the acknowledge
  // Optional outputs the master has and gpuvp does not use are listed, not refused.
  const std::string note = testing::internal::GetCapturedStderr();
  EXPECT_NE(note.find("dma: RTL outputs left unread (optional AXI signals): M_AXI_AWCACHE, M_AXI_AWPROT, M_AXI_ARCACHE, "
                      "M_AXI_ARPROT\n"),
            std::string::npos)
      << note;
}

// The same DMA Verilated with a 128-bit master: 64 bytes are 4 read and 4 write bursts of one
// 16-byte beat (AxSIZE 4), each one TLM transaction of 16 bytes; the bytes arrive whole.
TEST(rtl_third_party, dma_with_a_128_bit_master) {
  NEEDS_RTL();
  auto a = tdma_args;
  a[1] = "components.dma=test_tdma128";
  const std::string data = hex_bytes(64, 9);
  auto r = qtest(a, "irq_intercept\nwrite 0x1000 64 0x" + data + "\n" + tdma_copy(0x1000, 0x2010, 64) +
                        "clock_step 2000\nreadl 0x100e10018\nread 0x2010 64\nstats dma.m_axi\nwritel 0x100e10018 2\n");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("OK 0x0000000000000002\n"), std::string::npos) << r.out;  // DONE
  EXPECT_NE(r.out.find("OK 0x" + data + "\n"), std::string::npos) << r.out;
  for (const char* s : {" dma.m_axi.beats=8", " dma.m_axi.bursts=8", " dma.m_axi.transactions=8", " dma.m_axi.violations=0"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
}

// A block's master that reaches the block's own slave would wait on its own clock: refused with
// a message (exit 1) instead of a hang.
TEST(rtl_third_party, own_slave_through_own_master_is_refused) {
  NEEDS_RTL();
  auto r = qtest(tdma_args, tdma_copy(0x1000, 0x300000000, 8) + "clock_step 2000\n");
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("dma.s_axi: reached from a master port of the same RTL block"), std::string::npos) << r.err;
}

// The scratch RAM: 16-bit address (the window's low bits: 4 KiB mirrored), 64-bit data, no IDs
// (one burst in flight per direction), unaligned and byte accesses.
TEST(rtl_third_party, slave_without_ids_and_16_bit_address) {
  NEEDS_RTL();
  const std::string data = hex_bytes(200, 1);
  auto r = qtest(tdma_args, "write 0x300000ff3 200 0x" + data +
                                "\nread 0x300000ff3 200\nwriteb 0x300000002 0xa5\n"
                                "readq 0x300001000\nreadq 0x300000000\n");
  EXPECT_EQ(r.rc, 0) << r.err;
  std::vector<std::string> lines;
  std::istringstream in(r.out);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  ASSERT_EQ(lines.size(), 5u) << r.out;
  // 0x...ff3 + 200 runs into the mirror at 0x000-0x0ba: the bytes read back whole.
  EXPECT_EQ(lines[1], "OK 0x" + data);
  // 0x300001000 is 0x300000000 again (4 KiB mirror seen through a 16-bit address): both show
  // the byte written at +2 (bits 16-23 of the little-endian quad).
  EXPECT_EQ(lines[3], lines[4]);
  EXPECT_EQ(lines[4].substr(5 + 10, 2), "a5") << lines[4];
}

// Several buses: each slave has its own window key; with one bus the keys stay NAME.base.
TEST(rtl_third_party, several_buses_have_their_own_windows) {
  NEEDS_RTL();
  auto a = tdma_args;
  a.insert(a.begin(), {"config", "dump"});
  auto r = run_gpuvp(a);
  EXPECT_EQ(r.rc, 0) << r.err;
  // config dump nests the keys: dma: {s_axil: {base: ...}, s_axi: {lockstep_memory: ...}, m_axi: {check: ...}}
  const auto dma = r.out.find("\ndma:\n");
  ASSERT_NE(dma, std::string::npos) << r.out;
  for (const char* k : {"\n  s_axil:\n", "\n  s_axi:\n", "\n  m_axi:\n", "\n    lockstep_memory: false\n", "\n    base: 0xe10000\n"})
    EXPECT_NE(r.out.find(k, dma), std::string::npos) << k << "\n" << r.out.substr(dma);
  // dma.base belongs to a one-bus component: here it is an unknown key (exit 2).
  a.insert(a.end(), {"--set", "dma.base=0"});
  EXPECT_EQ(run_gpuvp(a).rc, 2);
}

// Lock-step memory: +tdma_ram_bug makes the RAM flip bit 0 of word 3 on reads; the shadow memory
// catches the first read that covers it.
TEST(rtl_third_party, lockstep_memory_catches_a_bad_read) {
  NEEDS_RTL();
  auto a = tdma_args;
  a.insert(a.end(), {"--set", "dma.s_axi.lockstep_memory=true", "--set", "dma.plusargs=+tdma_ram_bug"});
  auto r = qtest(a, "writeq 0x300000010 0x1111\nreadq 0x300000010\nwriteq 0x300000018 0x2222\nreadq 0x300000018\n");
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.out.find("OK 0x0000000000001111\n"), std::string::npos) << r.out;  // word 2: right
  EXPECT_NE(r.err.find("lock-step memory mismatch at"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("read of 8 bytes at offset 0x18: byte at offset 0x18 is 0x23 from the RTL, 0x22 in the TLM shadow memory"),
            std::string::npos)
      << r.err;
  // Without the bug: no mismatch.
  a.pop_back();
  a.push_back("dma.plusargs=");
  EXPECT_EQ(qtest(a, "writeq 0x300000018 0x2222\nreadq 0x300000018\n").rc, 0);
}

// The countdown example exactly as docs/rtl.md runs it: its script, acknowledged at the block.
TEST(rtl_example, example_qtest_exits_0) {
  NEEDS_RTL();
  auto r = qtest({"--config", gpuvp::testing::source_path("examples/rtl/example.yaml"), "--script",
                  gpuvp::testing::source_path("examples/rtl/example.qtest")},
                 "");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("IRQ raise 2\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("IRQ lower 2\n"), std::string::npos) << r.out;
}

// --rtl-trace: the format follows the extension; anything else is refused (exit 2). One run per
// test: under the sanitizers a process may throw no exception after a simulation ran in it (ASan
// takes a freed SystemC coroutine stack for the main thread's), and the refusal throws.
namespace {
const std::string trace_script = tdma_copy(0, 0x2000, 8) + "clock_step 500\nwritel 0x100e10018 2\n";  // copy, acknowledge
std::vector<std::string> with_rtl_trace(const std::string& file) {
  auto a = tdma_args;
  a.insert(a.end(), {"--rtl-trace", file});
  return a;
}
}  // namespace

TEST(rtl_trace, vcd_by_extension) {
  NEEDS_RTL();
  const std::string vcd = gpuvp::testing::binary_path("rtl_trace_test.vcd");
  std::filesystem::remove(vcd);
  EXPECT_EQ(qtest(with_rtl_trace(vcd), trace_script).rc, 0);
  std::ifstream v(vcd);
  std::stringstream text;
  text << v.rdbuf();
  const std::string t = text.str();
  EXPECT_EQ(t.rfind("$version", 0), 0u) << t.substr(0, 200);
  EXPECT_NE(t.find("$enddefinitions"), std::string::npos);
  EXPECT_NE(t.find(" S_AXIL_AWVALID "), std::string::npos);  // the IP's own port names
  EXPECT_NE(t.find("\n#"), std::string::npos);               // value changes
  EXPECT_FALSE(std::filesystem::exists(vcd + ".fst.tmp"));
}

#ifdef GPUVP_TEST_RTL
// The FST reader of gtkwave's fstapi, compiled into Verilator's FST writer (as rtl_trace.cpp uses it).
extern "C" {
void* fstReaderOpen(const char* name);
void fstReaderClose(void* ctx);
int fstReaderProcessHier(void* ctx, FILE* vcd);
void fstReaderSetFacProcessMaskAll(void* ctx);
int fstReaderIterBlocks(void* ctx, void (*cb)(void*, uint64_t, uint32_t, const unsigned char*), void* user, FILE* vcd);
}
#endif

// The .fst is a real FST file: the FST reader (what GTKWave uses) opens it and finds the IP's
// ports in its hierarchy and value changes in its blocks (issue #30: VCD and FST both readable).
TEST(rtl_trace, fst_by_extension) {
  NEEDS_RTL();
  const std::string fst = gpuvp::testing::binary_path("rtl_trace_test.fst");
  std::filesystem::remove(fst);
  EXPECT_EQ(qtest(with_rtl_trace(fst), trace_script).rc, 0);
  std::ifstream f(fst, std::ios::binary);
  char head = 1;
  f.read(&head, 1);
  EXPECT_EQ(head, 0) << "FST files start with a header block (type 0)";
#ifdef GPUVP_TEST_RTL
  void* ctx = fstReaderOpen(fst.c_str());
  ASSERT_NE(ctx, nullptr) << "the FST reader cannot open " << fst;
  const std::string hier = gpuvp::testing::binary_path("rtl_trace_test.fst.hier"),
                    changes = gpuvp::testing::binary_path("rtl_trace_test.fst.changes");
  FILE* h = std::fopen(hier.c_str(), "w");
  FILE* c = std::fopen(changes.c_str(), "w");
  ASSERT_TRUE(h && c);
  fstReaderProcessHier(ctx, h);
  fstReaderSetFacProcessMaskAll(ctx);
  const int blocks = fstReaderIterBlocks(ctx, nullptr, nullptr, c);
  fstReaderClose(ctx);
  std::fclose(h);
  std::fclose(c);
  EXPECT_GT(blocks, 0);
  const std::string defs = gpuvp::testing::slurp(hier), values = gpuvp::testing::slurp(changes);
  EXPECT_NE(defs.find("$scope"), std::string::npos) << defs.substr(0, 400);
  EXPECT_NE(defs.find(" S_AXIL_AWVALID "), std::string::npos) << defs.substr(0, 400);  // the IP's own port names
  EXPECT_NE(defs.find(" M_AXI_ARVALID "), std::string::npos);
  EXPECT_NE(values.find("#"), std::string::npos) << values.substr(0, 400);  // timed value changes
#endif
}

TEST(rtl_trace, other_extensions_are_refused) {
  NEEDS_RTL();
  auto r = qtest(with_rtl_trace(gpuvp::testing::binary_path("rtl_trace_test.txt")), trace_script);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("must end in .fst (FST) or .vcd (VCD)"), std::string::npos) << r.err;
}
