// SPDX-License-Identifier: Apache-2.0
// The copy engine through the gpuvp program: the rtl-copy workload with impl tlm, rtl and
// lockstep, the injected RTL bug caught by the scoreboard, error responses and configuration errors.
#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>
#include <gtest/gtest.h>
#include "cli.h"
#include "cli_testing.h"
#include "testing.h"

namespace {
using gpuvp::testing::run_gpuvp;
using result = gpuvp::testing::cli_result;
result run_copy(const std::string& impl, std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {"run", "--workload", "rtl-copy", "--set", "copy.impl=" + impl};
  a.insert(a.end(), extra.begin(), extra.end());
  return run_gpuvp(a);
}
#ifdef GPUVP_TEST_RTL
#define NEEDS_RTL()
#else
#define NEEDS_RTL() GTEST_SKIP() << "built without Verilator (GPUVP_RTL off): RTL co-simulation not available"
#endif
// Chunks of the embedded rtl-copy workload, worked out by hand from the chunk rule (at most 16
// beats of 8 bytes and no 4 KiB crossing for both the read and the write):
//   64 aligned: 1; 45 from %8=3 to %8=5: 1; 1024 aligned: 8 x 128;
//   777 from 0x12007 to 0x22003: 121, then 124 x 5 (alternating 4-byte offsets), then 36: 7;
//   256 from 0x13f80 to 0x23fa0: 96 (to dst 0x24000), 32 (to src 0x14000), 128: 3.
constexpr int chunks = 1 + 1 + 8 + 7 + 3;
}  // namespace

TEST(copy_engine, tlm_runs_rtl_copy) {
  auto r = run_copy("tlm");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("impl tlm, TLM: 5 copies, 2166 bytes"), std::string::npos) << r.out;  // 64+45+1024+777+256
}

TEST(copy_engine, rtl_runs_rtl_copy) {
  NEEDS_RTL();
  auto r = run_copy("rtl");
  EXPECT_EQ(r.rc, 0) << r.err;
  // One read and one write burst per chunk.
  EXPECT_NE(r.out.find(std::to_string(2 * chunks) + " AXI bursts"), std::string::npos) << r.out;
}

TEST(copy_engine, lockstep_matches) {
  NEEDS_RTL();
  auto r = run_copy("lockstep");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("lock-step: " + std::to_string(2 * chunks) + " transactions compared"), std::string::npos) << r.out;
}

TEST(copy_engine, lockstep_catches_the_injected_bug) {
  NEEDS_RTL();
  auto r = run_copy("lockstep", {"--set", "copy.rtl_inject_bug=true"});
  EXPECT_EQ(r.rc, 1) << r.err;
  // The bug inverts the first byte of the second write burst since reset: copy 2 (45 bytes,
  // one burst) to 0x20205. Its first byte is the pattern at source 0x10103:
  // (0x10103 * 131 + 0x101 * 7 + 3) & 0xff = (8619145 + 1799 + 3) mod 256 = 0x93; inverted 0x6c.
  EXPECT_NE(r.err.find("lock-step mismatch"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("data differ from byte 0 (address 0x20205)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("TLM write #2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("45 bytes at 0x20205: 93"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("RTL write #2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("45 bytes at 0x20205: 6c"), std::string::npos) << r.err;
}

TEST(copy_engine, rtl_bug_shows_in_memory_without_lockstep) {
  NEEDS_RTL();
  auto r = run_copy("rtl", {"--set", "copy.rtl_inject_bug=true"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("byte at 0x20205 is 0x6c, expected 0x93"), std::string::npos) << r.err;
}

// A source no target decodes: DECERR on the read, the copy stops with STATUS.ERROR (0x4) in both.
TEST(copy_engine, error_response_sets_error_status) {
  const std::string path = gpuvp::testing::binary_path("copy_error_test.copies");
  std::ofstream(path) << "copy 0x180000000 0x20000 16\n";
  for (const char* impl : {"tlm", "rtl"}) {
#ifndef GPUVP_TEST_RTL
    if (std::string(impl) == "rtl") continue;
#endif
    auto r = run_gpuvp({"run", "--workload", path, "--set", std::string("copy.impl=") + impl});
    EXPECT_EQ(r.rc, 1) << impl;
    EXPECT_NE(r.err.find("STATUS 0x4 after the interrupt, expected 0x2"), std::string::npos) << impl << ": " << r.err;
  }
}

TEST(copy_engine, configuration_errors) {
  auto r = run_copy("verilog");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("copy.impl: 'verilog' is not tlm, rtl or lockstep"), std::string::npos) << r.err;
  r = run_copy("tlm", {"--set", "copy.rtl_inject_bug=true"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("copy.rtl_inject_bug: needs copy.impl rtl or lockstep"), std::string::npos) << r.err;
#ifndef GPUVP_TEST_RTL
  r = run_copy("rtl");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("built without Verilator"), std::string::npos) << r.err;
#endif
}

TEST(copy_engine, bad_workload_lines) {
  const std::string path = gpuvp::testing::binary_path("copy_bad_test.copies");
  std::ofstream(path) << "copy 0x1000 0x2000\n";
  auto r = run_gpuvp({"run", "--workload", path});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("copy_bad_test.copies:1: expected 'copy SRC DST LEN'"), std::string::npos) << r.err;
  std::ofstream(path) << "copy 0x1000 0x1010 64\n";
  r = run_gpuvp({"run", "--workload", path});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("overlap"), std::string::npos) << r.err;
}

// An RTL block with no work is not clocked: only its reset cycles are simulated.
TEST(copy_engine, idle_rtl_is_not_clocked) {
  NEEDS_RTL();
  const std::string stats = gpuvp::testing::binary_path("copy_idle_stats.json");
  auto r = run_gpuvp({"run", "--workload", "traffic", "--set", "components.copy=copy_engine", "--set", "copy.impl=rtl", "--set",
                      "traffic.g0.count=200", "--set", "traffic.g1.count=200", "--set", "traffic.g2.count=200", "--stats", stats});
  EXPECT_EQ(r.rc, 0) << r.err;
  std::ifstream f(stats);
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_NE(ss.str().find("\"copy.rtl.clk.cycles\": 4"), std::string::npos) << ss.str().substr(0, 2000);
}

namespace {
// The trace's events (one a line), sorted: runs in one process may write a track's name record
// at another place in the file; every event and its time must be the same.
std::string sorted_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l.substr(0, l.find_last_not_of(',') + 1));
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}
}  // namespace

// rtl.early_rise is a host-speed switch: the copy engine's RTL clock running ahead of the kernel
// (rtl_clock.cpp) gives the same statistics, cycle for cycle, as the clock that waits for every
// edge: RTL alone, lock-step (every RTL write compared with the TLM model's, at its time) and
// lock-step with the injected bug (the run stops at the same mismatch, after the same cycles).
// With --trace the Perfetto spans (RTL bursts, TLM copies, interconnect) are the same too.
TEST(copy_engine, rtl_clock_running_ahead_changes_no_result) {
  NEEDS_RTL();
  const std::regex host("\"(wall_s|config_sha256)\": [^,\n]+");  // the run's own metadata
  const std::vector<std::vector<std::string>> runs = {
      {"copy.impl=rtl"}, {"copy.impl=lockstep"}, {"copy.impl=lockstep", "copy.rtl_inject_bug=true"}};
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& sets = runs[i];
    std::string stats[2], trace[2];
    int rc[2] = {-1, -1};
    for (int early = 0; early < 2; ++early) {
      const std::string name = "early_rise_" + std::to_string(i) + "_" + std::to_string(early);
      const std::string s = gpuvp::testing::binary_path(name + ".json"), t = gpuvp::testing::binary_path(name + ".trace.json");
      std::vector<std::string> a = {
          "run", "--workload", "rtl-copy", "--stats", s, "--set", early ? "rtl.early_rise=true" : "rtl.early_rise=false"};
      for (const auto& x : sets) a.insert(a.end(), {"--set", x});
      if (sets.size() == 1) a.insert(a.end(), {"--trace", t});
      rc[early] = run_gpuvp(a).rc;
      stats[early] = std::regex_replace(gpuvp::testing::slurp(s), host, "");
      if (sets.size() == 1) trace[early] = sorted_lines(gpuvp::testing::slurp(t));
    }
    EXPECT_EQ(rc[0], sets.size() == 2 ? 1 : 0) << sets.back();
    EXPECT_EQ(rc[0], rc[1]) << sets.back();
    EXPECT_NE(stats[0].find("\"copy.rtl.clk.cycles\""), std::string::npos) << sets.back();
    EXPECT_EQ(stats[0], stats[1]) << sets.back();
    EXPECT_EQ(trace[0], trace[1]) << sets.back();
  }
}
