// SPDX-License-Identifier: Apache-2.0
// A real NVBit trace (Pascal GTX 1080, binary version 61, romnn/microgpusim's vectoradd) run
// with the Accel-Sim configuration it was simulated with, as the files are: `sm-run --config
// gpgpusim.config --config gpgpusim.trace.config kernelslist.g` (the icnt file found next to the
// config). Accel-Sim's log gives gpu_sim_insn 10516, NVBit and the card's profiler 344 warp
// instructions. Skipped without ../shared.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "sm_run.h"
#include "testing.h"

namespace {

using gpuvp::sm::testing::sm_run;
using gpuvp::sm::testing::sm_run_result;

const char* const gtx1080 = "nvbit/vectoradd-gtx1080";

// One DRAM channel's counts as Accel-Sim's log prints them (dram_t::print) and as the
// `--mem-log` file's dram_per_channel table gives them.
struct channel_counts {
  unsigned long long act = 0, pre = 0, rd = 0, wr = 0;
  std::string locality;  // Row_Buffer_Locality, "%.6f" (Accel-Sim: -nan for a channel without requests)
};

// The value of `key=` in a line of `key=value` pairs.
unsigned long long field(const std::string& line, const std::string& key) {
  const size_t at = line.find(" " + key + "=");
  EXPECT_NE(at, std::string::npos) << key << " in " << line;
  return at == std::string::npos ? 0 : std::stoull(line.substr(at + key.size() + 2));
}

// DRAM[i]'s block: its n_act, n_pre, n_rd + n_rd_L2_A (write-allocate reads are reads too),
// n_write, and its Row_Buffer_Locality line.
std::map<unsigned, channel_counts> accel_sim_channels(const std::string& log) {
  std::map<unsigned, channel_counts> out;
  std::ifstream f(log);
  std::string line;
  int ch = -1;
  while (std::getline(f, line)) {
    if (line.rfind("DRAM[", 0) == 0) {
      ch = std::stoi(line.substr(5));
    } else if (ch >= 0 && line.rfind("n_cmd=", 0) == 0) {
      channel_counts& c = out[unsigned(ch)];
      c.act = field(line, "n_act");
      c.pre = field(line, "n_pre");
      c.rd = field(line, "n_rd") + field(line, "n_rd_L2_A");
      c.wr = field(line, "n_write");
    } else if (ch >= 0 && line.rfind("Row_Buffer_Locality = ", 0) == 0) {
      out[unsigned(ch)].locality = line.substr(22);
      ch = -1;
    }
  }
  return out;
}

// The `--mem-log` file's dram_per_channel table (channel,n_act,n_pre,n_rd,n_write,row_hits,Row_Buffer_Locality,mrqq_max).
std::map<unsigned, channel_counts> mem_log_channels(const std::string& file) {
  std::map<unsigned, channel_counts> out;
  std::ifstream f(file);
  std::string line;
  bool table = false;
  while (std::getline(f, line)) {
    if (line == "# dram_per_channel") {
      std::getline(f, line);  // the header
      table = true;
      continue;
    }
    if (!table || line.empty() || line[0] == '#') continue;
    std::vector<std::string> col;
    std::istringstream in(line);
    for (std::string x; std::getline(in, x, ',');) col.push_back(x);
    if (col.size() < 7) continue;
    out[unsigned(std::stoul(col[0]))] = {std::stoull(col[1]), std::stoull(col[2]), std::stoull(col[3]), std::stoull(col[4]), col[6]};
  }
  return out;
}

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

// Each DRAM channel of the same run against Accel-Sim's log: activates, precharges, reads, writes
// and the row-buffer locality. GPGPU-Sim's locality is hits_num / access_num, both counted when
// frfcfs_scheduler::schedule hands a request to its bank. Channel 4 ends the kernel with the
// second of its two write-allocate line reads still in its bank (one of its four bursts done:
// n_rd_L2_A 5), so its 2 row hits are over 4 requests: 0.5 (0.667 over the 3 requests
// completed). Channels 6 and 7 have no request (Accel-Sim: -nan, gpuvp 0).
TEST(sm_real_trace, gtx1080_vectoradd_dram_channels_as_accel_sims_log) {
  const std::string dir = gpuvp::testing::real_data_path(gtx1080);
  if (dir.empty()) GTEST_SKIP() << gpuvp::testing::real_data_missing(gtx1080);
  const std::string file = ::testing::TempDir() + "/gtx1080_vectoradd_mem_log.csv";
  sm_run_result r =
      sm_run({"--config", dir + "/gpgpusim.config", "--config", dir + "/gpgpusim.trace.config", "--mem-log", file, dir + "/kernelslist.g"});
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::map<unsigned, channel_counts> want = accel_sim_channels(dir + "/accelsim_log.txt"), got = mem_log_channels(file);
  ASSERT_EQ(want.size(), 8u);
  ASSERT_EQ(got.size(), 8u);
  EXPECT_EQ(want.at(4).locality, "0.500000");
  for (const auto& [ch, w] : want) {
    const channel_counts& g = got.at(ch);
    EXPECT_EQ(g.act, w.act) << "channel " << ch;
    EXPECT_EQ(g.pre, w.pre) << "channel " << ch;
    EXPECT_EQ(g.rd, w.rd) << "channel " << ch;
    EXPECT_EQ(g.wr, w.wr) << "channel " << ch;
    EXPECT_EQ(g.locality, w.locality == "-nan" ? "0.000000" : w.locality) << "channel " << ch;
  }
}
