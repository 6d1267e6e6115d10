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
  // The file leaves the instruction cache real (-gpgpu_perfect_inst_const_cache defaults to 0) and
  // sends global accesses past the L1D (-gpgpu_gmem_skip_L1D 1): neither is modelled, so the run
  // is refused naming both, unless allowed.
  std::vector<std::string> args = files;
  args.push_back(dir + "/kernelslist.g");
  sm_run_result r = sm_run(args);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("-gpgpu_perfect_inst_const_cache 0 (GPGPU-Sim's default)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("-gpgpu_gmem_skip_L1D 1 (" + dir + "/gpgpusim.config:"), std::string::npos) << r.err;

  args.insert(args.begin(), "--allow-unmodelled");
  r = sm_run(args);
  ASSERT_EQ(r.rc, 0) << r.err;
  // The unmodelled options are listed once each, with their values.
  EXPECT_NE(r.out.find("-gpgpu_gmem_skip_L1D 1"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("-gpgpu_gmem_skip_L1D", r.out.find("-gpgpu_gmem_skip_L1D") + 1), std::string::npos) << r.out;
  // 32 warps: warps 0-3 run 23 instructions, 4-31 nine: 4*23 + 28*9 = 344 warp instructions
  // (NVBit's total_insts, the card's inst_executed); Accel-Sim's gpu_sim_insn 10516 thread
  // instructions (zero-mask EXITs count none, the partial-mask tail warp its lanes).
  EXPECT_NE(r.out.find("kernel 1 _Z6vecAddIfEvPT_S1_S1_i: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" cycles, 344 warp instructions"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gpu_sim_insn 10516 "), std::string::npos) << r.out;
}
