// SPDX-License-Identifier: Apache-2.0
// A real NVBit trace (Pascal GTX 1080, binary version 61, romnn/microgpusim's vectoradd) run
// with the Accel-Sim configuration it was simulated with, as the files are: `sm-run --config
// gpgpusim.config --config gpgpusim.trace.config kernelslist.g` (the icnt file found next to the
// config). Accel-Sim's log gives gpu_sim_insn 10516, NVBit and the card's profiler 344 warp
// instructions. Skipped without ../shared.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpuvp/registry.h"
#include "testing.h"

namespace {

struct sm_run_result {
  int rc;
  std::string out, err;
};

sm_run_result sm_run(std::vector<std::string> args) {
  gpuvp::testing::fresh_simulation();
  const gpuvp::tool* t = gpuvp::registry::global().find_tool("sm-run");
  args.insert(args.begin(), "sm-run");
  std::vector<char*> argv;
  for (auto& x : args) argv.push_back(x.data());
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int rc = t->main(int(argv.size()), argv.data());
  std::string out = ::testing::internal::GetCapturedStdout();
  return {rc, out, ::testing::internal::GetCapturedStderr()};
}

const char* const gtx1080 = "nvbit/vectoradd-gtx1080";

}  // namespace

TEST(sm_real_trace, gtx1080_vectoradd_needs_allow_unmodelled_and_counts_instructions) {
  const std::string dir = gpuvp::testing::real_data_path(gtx1080);
  if (dir.empty()) GTEST_SKIP() << gpuvp::testing::real_data_missing(gtx1080);
  const std::vector<std::string> files = {"--config", dir + "/gpgpusim.config", "--config", dir + "/gpgpusim.trace.config"};
  // The file leaves the instruction cache real (-gpgpu_perfect_inst_const_cache defaults to 0):
  // not modelled, so the run is refused naming it, unless allowed. Its global accesses go past the
  // L1D (-gpgpu_gmem_skip_L1D 1, modelled).
  std::vector<std::string> args = files;
  args.push_back(dir + "/kernelslist.g");
  sm_run_result r = sm_run(args);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("-gpgpu_perfect_inst_const_cache 0 (GPGPU-Sim's default)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("-gpgpu_gmem_skip_L1D"), std::string::npos) << r.err;

  args.insert(args.begin(), "--allow-unmodelled");
  r = sm_run(args);
  ASSERT_EQ(r.rc, 0) << r.err;
  // The unmodelled options are listed once each, with their values.
  EXPECT_NE(r.out.find("-gpgpu_cache:il1 N:8:128:4,L:R:f:N:L,A:2:48,4"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("-gpgpu_cache:il1", r.out.find("-gpgpu_cache:il1") + 1), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("-gpgpu_gmem_skip_L1D"), std::string::npos) << r.out;
  // As in Accel-Sim's log: no L1D access (the loads and stores go past it), and every L2 access
  // misses (perf_memcpy_to_gpu filled the L2 at the copies' addresses modulo 4 GiB, not at the
  // kernel's 0x7f2b2d5xxxxx).
  EXPECT_NE(r.out.find("L1D_total_cache_accesses 0,"), std::string::npos) << r.out;
  const std::string l2 = r.out.substr(std::min(r.out.size(), r.out.find("L2_total_cache_accesses")));
  EXPECT_NE(l2.find(", hits 0, pending_hits 0, misses "), std::string::npos) << r.out;
  // 32 warps: warps 0-3 run 23 instructions, 4-31 nine: 4*23 + 28*9 = 344 warp instructions
  // (NVBit's total_insts, the card's inst_executed); Accel-Sim's gpu_sim_insn 10516 thread
  // instructions (zero-mask EXITs count none, the partial-mask tail warp its lanes).
  EXPECT_NE(r.out.find("kernel 1 _Z6vecAddIfEvPT_S1_S1_i: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" cycles, 344 warp instructions"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gpu_sim_insn 10516 "), std::string::npos) << r.out;
}
