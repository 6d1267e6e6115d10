// SPDX-License-Identifier: Apache-2.0
// sm-run --mem-log (core/mem_log.h): the six hand-offs of every sector request, checked against
// Accel-Sim's event timeline of the calibration kernel ldg_coal_6warp (SM7_QV100, launch latency 0:
// 1 CTA x 6 warps, each 8 x {LDG.E.32 of its own 128-byte line, FFMA using it}); the expected lines
// are lines of Accel-Sim's ldg_coal_6warp_events.csv, its cycles 2691.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>
#include <vector>

#include "core/gpu.h"
#include "core/mem_log.h"
#include "core/memsys.h"
#include "gpuvp/registry.h"
#include "kernel_builder.h"
#include "testing.h"

using namespace gpuvp::sm;
using namespace gpuvp::gpu_memory;
using gpuvp::sm::testing::mem;
using gpuvp::sm::testing::op;

namespace {

kernel_trace ldg_coal_6warp() {
  std::vector<std::vector<trace_writer_inst>> warps;
  for (unsigned w = 0; w < 6; ++w) {
    std::vector<trace_writer_inst> v;
    for (unsigned i = 0; i < 8; ++i) {
      v.push_back(mem("LDG.E.32", {10 + i}, {2}, 0x7f4000003200ull + 0x400ull * w + 0x80ull * i, 4));
      v.push_back(op("FFMA", {40 + i}, {10 + i, 3, 4}));
    }
    v.push_back(op("EXIT", {}, {}));
    warps.push_back(v);
  }
  return parse_kernel_trace_text(write_kernel_trace("ldg_coal_6warp", 1, {1, 1, 1}, {192, 1, 1}, 70, 0, 64, warps),
                                 "ldg_coal_6warp.traceg");
}

struct logged {
  uint64_t cycles;
  std::string text;
  uint64_t l2_misses = 0, dram_reads = 0, activates = 0;
};

logged run(uint64_t limit) {
  const gpu_config c = gpuvp::sm::testing::shipped("QV100");
  const kernel_trace k = ldg_coal_6warp();
  auto m = make_memory(c, "gpgpu-sim");
  auto* gm = dynamic_cast<memory_system*>(m.get());
  mem_event_log log(limit);
  gm->set_event_log(&log);
  gpu_sim g(c, m.get(), 0);
  g.start(k);
  while (g.step()) {}
  std::ostringstream os;
  log.flush(os, 1, k.name);
  logged out{g.result().cycles, os.str()};
  for (const auto& s : gm->l2_bank_stats()) out.l2_misses += s[2];
  for (const auto& ch : gm->channels()) {
    out.dram_reads += ch.reads;
    out.activates += ch.activates;
  }
  return out;
}

size_t count(const std::string& text, const std::string& prefix) {
  size_t n = 0;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) n += l.rfind(prefix, 0) == 0;
  return n;
}

}  // namespace

TEST(sm_mem_log, events_are_accel_sims_on_ldg_coal_6warp) {
  const logged r = run(1000000);
  EXPECT_EQ(r.cycles, 2691u);
  EXPECT_EQ(r.text.rfind("# kernel 1 ldg_coal_6warp\n", 0), 0u);
  for (const char* kind : {"INJ,", "L2,", "DQ,", "RD,", "RSP,"}) EXPECT_EQ(count(r.text, kind), 192u) << kind;
  EXPECT_EQ(count(r.text, "ACT,"), 24u);
  EXPECT_EQ(r.l2_misses, 192u);
  EXPECT_EQ(r.dram_reads, 192u);
  EXPECT_EQ(r.activates, 24u);
  // Lines of Accel-Sim's timeline: the first request's six hand-offs, the fourth sector of the
  // first line of channel 7 (queued at 315: a channel that skipped idle cycles past a later push
  // delayed it to 409 before), and the last reply.
  for (const char* line :
       {"INJ,27,0,7f4000003600,1,45,0\n", "L2,190,45,7f4000003600,1,2,\n", "DQ,292,22,7f4000003600,1,0,\n", "ACT,293,22,1,0,0,\n",
        "RD,309,22,7f4000003600,1,0,\n", "RSP,330,0,7f4000003600,1,,\n", "DQ,315,7,7f4000004660,0,0,\n", "RD,333,7,7f4000004660,0,0,\n",
        "RSP,355,0,7f4000004660,8,,\n", "RSP,2680,0,7f40000045e0,8,,\n"})
    EXPECT_NE(r.text.find(line), std::string::npos) << line;
  // Sorted by cycle.
  uint64_t last = 0;
  std::istringstream in(r.text);
  for (std::string l; std::getline(in, l);) {
    if (l.empty() || l[0] == '#') continue;
    const uint64_t c = std::stoull(l.substr(l.find(',') + 1));
    EXPECT_LE(last, c) << l;
    last = c;
  }
}

TEST(sm_mem_log, bounded_per_kernel) {
  const logged r = run(10);
  EXPECT_EQ(count(r.text, "INJ,") + count(r.text, "L2,") + count(r.text, "DQ,") + count(r.text, "ACT,") + count(r.text, "RD,") +
                count(r.text, "RSP,"),
            10u);
  EXPECT_NE(r.text.find("# 974 more events not logged (limit 10 a kernel)\n"), std::string::npos) << r.text;  // 6 x 192 + 24 - 10
}

// The option's errors (usage errors, exit 2) before anything runs, then one run writing the file.
TEST(sm_mem_log, sm_run_option) {
  gpuvp::testing::fresh_simulation();
  const gpuvp::tool* t = gpuvp::registry::global().find_tool("sm-run");
  ASSERT_NE(t, nullptr);
  const std::string list = sm_data_dir() + "/ffma/kernelslist.g";
  auto main_of = [&](std::vector<std::string> args) {
    std::vector<char*> argv;
    for (auto& x : args) argv.push_back(x.data());
    ::testing::internal::CaptureStderr();
    ::testing::internal::CaptureStdout();
    const int rc = t->main(int(argv.size()), argv.data());
    ::testing::internal::GetCapturedStdout();
    return std::pair{rc, ::testing::internal::GetCapturedStderr()};
  };
  const std::string dir = ::testing::TempDir();
  auto [rc1, e1] = main_of({"sm-run", "--mem-log", "", list});
  EXPECT_EQ(rc1, 2);
  EXPECT_NE(e1.find("--mem-log: empty file name"), std::string::npos) << e1;
  auto [rc2, e2] = main_of({"sm-run", "--mem-log", dir + "/m.csv", "--threads", "2", list});
  EXPECT_EQ(rc2, 2);
  EXPECT_NE(e2.find("--mem-log needs --threads 1"), std::string::npos) << e2;
  auto [rc3, e3] = main_of({"sm-run", "--mem-log", dir + "/m.csv", "--memory", "fixed", list});
  EXPECT_EQ(rc3, 2);
  EXPECT_NE(e3.find("--mem-log needs --memory gpgpu-sim"), std::string::npos) << e3;
  auto [rc4, e4] = main_of({"sm-run", "--mem-log", dir + "/no/such/folder/m.csv", list});
  EXPECT_EQ(rc4, 2);
  EXPECT_NE(e4.find("cannot open the file for writing"), std::string::npos) << e4;
  const std::string file = dir + "/sm_mem_log_option.csv";
  auto [rc5, e5] = main_of({"sm-run", "--gpu", "A100", "--sms", "1", "--mem-log", file, list});
  ASSERT_EQ(rc5, 0) << e5;
  std::ifstream f(file);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string text = ss.str();
  EXPECT_EQ(text.rfind("event,cycle,unit,addr,f5,f6,f7\n# kernel 1 _Z9ffma_testPf\n", 0), 0u) << text.substr(0, 200);
  EXPECT_NE(text.find("# l2_per_bank\nsub_partition,access,miss,pending_hits,reservation_fails\n0,"), std::string::npos);
  EXPECT_NE(text.find("# dram_per_channel\nchannel,n_act,n_pre,n_rd,n_write,row_hits,Row_Buffer_Locality,mrqq_max\n0,"), std::string::npos);
}

// The same kernel on Accel-Sim's other tested configurations (launch latency 0): Accel-Sim's
// cycles from the calibration set's table (the DRAM idle-skip fix made each exact).
TEST(sm_mem_log, ldg_coal_6warp_cycles_on_every_tested_configuration) {
  const kernel_trace k = ldg_coal_6warp();
  for (const auto& [gpu, cycles] : std::vector<std::pair<const char*, uint64_t>>{
           {"QV100", 2691}, {"GV100", 2774}, {"TITANV", 2715}, {"RTX2060", 2962}, {"RTX3070", 4186}}) {
    const gpu_config c = gpuvp::sm::testing::shipped(gpu);  // (TITANV's unmodelled write queue: no writes here)
    auto m = make_memory(c, "gpgpu-sim");
    gpu_sim g(c, m.get(), 0);
    g.start(k);
    while (g.step()) {}
    EXPECT_EQ(g.result().cycles, cycles) << gpu;
  }
}

// The multi-warp calibration kernels ldg_stride128_3warp (1 CTA x 3 warps, each 4 x {LDG.E.32
// with a lane stride of 128 bytes: 32 sectors, FFMA}) and ldg_hide_3cta (3 CTAs x 8 warps, each
// 16 x {LDG of its own line, 6 independent FFMA}, then 16 FFMA): their traces and Accel-Sim's
// event timelines (SM7_QV100, launch latency 0) from the Accel-Sim calibration set kept beside
// the checkout (../shared/reference/accel-sim-calibration, or $GPUVP_CALIBRATION_DIR); skipped
// when it is absent. Every event of Accel-Sim's timeline, cycle by cycle (the events of one
// cycle compared as a set: the model's order within a cycle is its own), and Accel-Sim's cycles
// (1603, 879). The first differences were the reply crossbar's iSLIP order (memsys_xbar.cpp).
namespace {

std::string calibration_dir() {
  std::vector<std::string> candidates;
  if (const char* d = std::getenv("GPUVP_CALIBRATION_DIR")) candidates.push_back(d);
  const std::string src = gpuvp::testing::source_path("");
  for (const char* up : {"../shared", "../../shared"}) candidates.push_back(src + up + "/reference/accel-sim-calibration");
  for (const auto& c : candidates)
    if (std::filesystem::exists(c + "/README.md")) return c;
  return "";
}

// Event lines (no comments, no header, no tables), sorted within each cycle.
std::vector<std::string> timeline(const std::string& text) {
  std::vector<std::pair<uint64_t, std::string>> v;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    const size_t c = l.find(',');
    if (l.empty() || l[0] == '#' || c == std::string::npos) continue;
    const std::string kind = l.substr(0, c);
    if (kind != "INJ" && kind != "L2" && kind != "DQ" && kind != "ACT" && kind != "RD" && kind != "RSP") continue;
    v.emplace_back(std::stoull(l.substr(c + 1)), l);
  }
  std::sort(v.begin(), v.end());
  std::vector<std::string> out;
  for (auto& e : v) out.push_back(std::move(e.second));
  return out;
}

void expect_accel_sims_timeline(const std::string& kernel, uint64_t cycles, size_t events) {
  const std::string dir = calibration_dir();
  if (dir.empty())
    GTEST_SKIP() << "Accel-Sim calibration set not found beside the checkout (../shared/reference/accel-sim-calibration; "
                    "set GPUVP_CALIBRATION_DIR to its folder)";
  const gpuvp::testing::command_result ref = gpuvp::testing::run_command("gzip -dc '" + dir + "/" + kernel + "_events.csv.gz'");
  ASSERT_EQ(ref.rc, 0) << "gzip -dc " << kernel << "_events.csv.gz";
  const kernel_trace k = parse_kernel_trace(dir + "/kernels/" + kernel + "/kernel-1.traceg");
  const gpu_config c = gpuvp::sm::testing::shipped("QV100");
  auto m = make_memory(c, "gpgpu-sim");
  mem_event_log log(1000000);
  dynamic_cast<memory_system*>(m.get())->set_event_log(&log);
  gpu_sim g(c, m.get(), 0);
  g.start(k);
  while (g.step()) {}
  std::ostringstream os;
  log.flush(os, 1, k.name);
  EXPECT_EQ(g.result().cycles, cycles);
  const std::vector<std::string> want = timeline(ref.out), got = timeline(os.str());
  EXPECT_EQ(want.size(), events);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << "event " << i << " of " << kernel;
}

}  // namespace

TEST(sm_mem_log, events_are_accel_sims_on_ldg_stride128_3warp) { expect_accel_sims_timeline("ldg_stride128_3warp", 1603, 1984); }

TEST(sm_mem_log, events_are_accel_sims_on_ldg_hide_3cta) { expect_accel_sims_timeline("ldg_hide_3cta", 879, 7744); }

// The same two kernels on Accel-Sim's other tested configurations (launch latency 0): Accel-Sim's
// cycles from the calibration set's table. (SM6_TITANX: the next test.)
TEST(sm_mem_log, multi_warp_kernels_cycles_on_the_tested_configurations) {
  const std::string dir = calibration_dir();
  if (dir.empty()) GTEST_SKIP() << "Accel-Sim calibration set not found beside the checkout (set GPUVP_CALIBRATION_DIR)";
  struct row {
    const char* gpu;
    uint64_t stride128, hide;
  };
  for (const row& r : {row{"QV100", 1603, 879}, row{"GV100", 1662, 888}, row{"TITANV", 1508, 893}, row{"RTX2060", 1610, 1016},
                       row{"RTX3070", 2234, 1117}}) {
    const gpu_config c = gpuvp::sm::testing::shipped(r.gpu);
    for (const auto& [kernel, cycles] : {std::pair{"ldg_stride128_3warp", r.stride128}, std::pair{"ldg_hide_3cta", r.hide}}) {
      const kernel_trace k = parse_kernel_trace(dir + "/kernels/" + kernel + "/kernel-1.traceg");  // (start keeps a reference)
      auto m = make_memory(c, "gpgpu-sim");
      gpu_sim g(c, m.get(), 0);
      g.start(k);
      while (g.step()) {}
      EXPECT_EQ(g.result().cycles, cycles) << r.gpu << " " << kernel;
    }
  }
}

// SM6_TITANX on the three calibration kernels (their traces: the instruction fetches' addresses
// draw sub-partitions too), Accel-Sim's cycles 2204, 1248 and 822 from the calibration set's
// table. Its random sub-partitions (-gpgpu_memory_partition_indexing 4), its BookSim crossbar
// (-network_mode 1, config_pascal_islip.icnt: booksim_fly.h) and its loads past the L1D
// (-gpgpu_gmem_skip_L1D 1) are modelled. ldg_hide_3cta's replies queue in the LDST unit's
// response FIFO behind a write-back stage held by register-bank conflicts: taken in the order
// they came, as GPGPU-Sim's FIFO gives them, the kernel takes 822 cycles; taken by instruction
// slot (the model before) it took 827.
TEST(sm_mem_log, calibration_kernels_on_titanx) {
  const std::string dir = calibration_dir();
  if (dir.empty()) GTEST_SKIP() << "Accel-Sim calibration set not found beside the checkout (set GPUVP_CALIBRATION_DIR)";
  const gpu_config c = gpuvp::sm::testing::shipped("TITANX");
  ASSERT_TRUE(c.unmodelled_timing(false).empty());
  for (const auto& [kernel, cycles] :
       std::vector<std::pair<const char*, uint64_t>>{{"ldg_coal_6warp", 2204}, {"ldg_stride128_3warp", 1248}, {"ldg_hide_3cta", 822}}) {
    const kernel_trace k = parse_kernel_trace(dir + "/kernels/" + kernel + "/kernel-1.traceg");
    auto m = make_memory(c, "gpgpu-sim");
    gpu_sim g(c, m.get(), 0);
    g.start(k);
    while (g.step()) {}
    EXPECT_EQ(g.result().cycles, cycles) << kernel;
  }
}

// Accel-Sim's bandwidth kernel (320 CTAs x 8 warps, the warp program of ldg_hide_3cta, CTA c's
// lines at 0x7f4000000000 + 0x4000 c: kernel_builder.h's bandwidth_kernel_text) on QV100: its
// 9690 cycles, every one of the 888 011 events of Accel-Sim's timeline (accelsim_hide320_events,
// addresses there with 0x, ACT with an empty address column) and each channel's activates,
// precharges, reads and row-buffer locality from its per-channel file.
TEST(sm_mem_log, events_are_accel_sims_on_the_320_cta_kernel) {
  const std::string dir = calibration_dir();
  if (dir.empty()) GTEST_SKIP() << "Accel-Sim calibration set not found beside the checkout (set GPUVP_CALIBRATION_DIR)";
  const gpuvp::testing::command_result ref = gpuvp::testing::run_command(
      "gzip -dc '" + dir + "/accelsim_hide320_events.csv.gz' | sed -e 's/,0x/,/' -e 's/^ACT,\\([0-9]*\\),\\([0-9]*\\),,/ACT,\\1,\\2,/'");
  ASSERT_EQ(ref.rc, 0);
  const kernel_trace k = parse_kernel_trace_text(gpuvp::sm::testing::bandwidth_kernel_text(320, 70), "bandwidth");
  const gpu_config c = gpuvp::sm::testing::shipped("QV100");
  auto m = make_memory(c, "gpgpu-sim");
  auto* gm = dynamic_cast<memory_system*>(m.get());
  mem_event_log log(4000000);
  gm->set_event_log(&log);
  gpu_sim g(c, m.get(), 0);
  g.start(k);
  while (g.step()) {}
  EXPECT_EQ(g.result().cycles, 9690u);
  std::ostringstream os;
  log.flush(os, 1, k.name);
  std::vector<std::string> want = timeline(ref.out), got = timeline(os.str());
  for (auto& l : want)  // Accel-Sim's ACT lines have one field less after the shift
    if (l.rfind("ACT,", 0) == 0) l += ",";
  EXPECT_EQ(want.size(), 888011u);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << "event " << i;
  // Per channel: channel,n_cmd,n_nop,n_act,n_pre,n_req,n_rd,n_write,...,Row_Buffer_Locality (12th)
  std::ifstream f(dir + "/accelsim_hide320_dram_per_channel.csv");
  std::string line;
  std::getline(f, line);
  size_t n = 0;
  while (std::getline(f, line)) {
    std::vector<std::string> col;
    std::istringstream in(line);
    for (std::string x; std::getline(in, x, ',');) col.push_back(x);
    ASSERT_GE(col.size(), 12u) << line;
    const auto& ch = gm->channels().at(std::stoul(col[0]));
    EXPECT_EQ(ch.activates, std::stoull(col[3])) << line;
    EXPECT_EQ(ch.precharges, std::stoull(col[4])) << line;
    EXPECT_EQ(ch.reads, std::stoull(col[6])) << line;
    // n_req: every request pushed was scheduled to its bank by the kernel's end (access_num)
    EXPECT_EQ(ch.scheduled, std::stoull(col[5])) << line;
    EXPECT_NEAR(double(ch.row_hits) / double(ch.scheduled), std::stod(col[11]), 1e-6) << line;
    ++n;
  }
  EXPECT_EQ(n, 32u);
}
