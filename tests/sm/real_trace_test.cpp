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

TEST(sm_real_trace, gtx1080_vectoradd_as_the_files_give_it) {
  const std::string dir = gpuvp::testing::real_data_path(gtx1080);
  if (dir.empty()) GTEST_SKIP() << gpuvp::testing::real_data_missing(gtx1080);
  // The file leaves the instruction cache real (-gpgpu_perfect_inst_const_cache defaults to 0,
  // -gpgpu_cache:il1 N:8:128:4) and sends global accesses past the L1D (-gpgpu_gmem_skip_L1D 1):
  // both modelled, so the run needs no --allow-unmodelled.
  sm_run_result r = sm_run({"--config", dir + "/gpgpusim.config", "--config", dir + "/gpgpusim.trace.config", dir + "/kernelslist.g"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.find("-gpgpu_gmem_skip_L1D"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("-gpgpu_perfect_inst_const_cache"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("-gpgpu_cache:il1"), std::string::npos) << r.out;
  // 32 warps: warps 0-3 run 23 instructions, 4-31 nine: 4*23 + 28*9 = 344 warp instructions
  // (NVBit's total_insts, the card's inst_executed); Accel-Sim's gpu_sim_insn 10516 thread
  // instructions (zero-mask EXITs count none, the partial-mask tail warp its lanes).
  EXPECT_NE(r.out.find("kernel 1 _Z6vecAddIfEvPT_S1_S1_i: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" cycles, 344 warp instructions"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gpu_sim_insn 10516 "), std::string::npos) << r.out;
  // As in Accel-Sim's log: the L1I's INST_ACC_R 188 accesses, 152 hits, 36 misses of which 34
  // MSHR hits (the code's two 128-byte lines, 0xF0000000 + PC 0x08..0xf0, each missed once and
  // merged by the other warps); no L1D access; every L2 access a miss (perf_memcpy_to_gpu filled
  // the copies' addresses modulo 4 GiB, not the kernel's 0x7f2b2d5xxxxx).
  EXPECT_NE(r.out.find("L1I_total_cache_accesses 188, hits 152, misses 36 (MSHR_HIT 34)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("L1D_total_cache_accesses 0,"), std::string::npos) << r.out;
  // Accel-Sim's L2: 14 accesses, all misses (the two code lines, the 8 loads' and 4 stores'
  // coalesced segments: this file's L2 is not sectored, so each is one access of its line); the
  // DRAM: 56 reads (14 lines x 4 bursts: 10 read misses and the 4 write-allocate reads of
  // -gpgpu_cache:dl2 ...W...) and 13 writes (the stores, 3 x 128 bytes + 1 x 32, sent to the DRAM
  // by wr_miss_wa_naive). docs/models/gpu_memory.md, "Non-sectored L2".
  EXPECT_NE(r.out.find("L2_total_cache_accesses 14 (writes 4), hits 0, pending_hits 0, misses 14,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("total dram reads 56, total dram writes 13,"), std::string::npos) << r.out;
  // Accel-Sim's gpu_sim_cycle: 1282, exactly, since the memory side moves this file's
  // non-sectored lines as GPGPU-Sim does (1223 before, with 32-byte sectors and no DRAM write;
  // 1192 when first written, 1099 after the DRAM idle-skip fix, 1223 with the file's BookSim
  // router timed).
  const size_t at = r.out.find("_Z6vecAddIfEvPT_S1_S1_i: ");
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(std::stoul(r.out.substr(at + 25)), 1282ul) << r.out;
}
