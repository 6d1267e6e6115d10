// SPDX-License-Identifier: Apache-2.0
// Global accesses past the L1D (-gpgpu_gmem_skip_L1D 1, ldst_unit::memory_cycle's bypassL1D) and
// GPGPU-Sim's perf_memcpy_to_gpu, which keeps 32 bits of the copied range's addresses.
#include <gtest/gtest.h>

#include "core/gpu.h"
#include "core/gpu_config.h"
#include "core/memsys.h"
#include "core/trace.h"
#include "kernel_builder.h"
#include "paths.h"

using namespace gpuvp::sm;
using gpuvp::sm::testing::mem;
using gpuvp::sm::testing::op;

namespace {

constexpr uint64_t GBASE = 0x7f4000000000ull;

kernel_trace make(const std::vector<std::vector<trace_writer_inst>>& warps) {
  return parse_kernel_trace_text(write_kernel_trace("k", 1, {1, 1, 1}, {unsigned(warps.size()) * 32, 1, 1}, 70, 0, 32, warps),
                                 "generated");
}

kernel_result run_fixed(const gpu_config& c, const kernel_trace& k) {
  fixed_latency_memory m(100);
  gpu_sim g(c, &m, 1);
  return g.run(k);
}

}  // namespace

TEST(sm_bypass, option_read_and_not_listed_as_unmodelled) {
  gpu_config c = gpuvp::sm::testing::shipped("QV100");
  EXPECT_FALSE(c.gmem_skip_l1d);
  load_config_text(c, "-gpgpu_gmem_skip_L1D 1\n", "o.config");
  EXPECT_TRUE(c.gmem_skip_l1d);
  EXPECT_EQ(c.unmodelled_list().find("skip_L1D"), std::string::npos) << c.unmodelled_list();
  for (const auto& t : c.unmodelled_timing(false)) EXPECT_EQ(t.find("skip_L1D"), std::string::npos) << t;
  try {
    load_config_text(c, "-gpgpu_gmem_skip_L1D maybe\n", "o.config");
    FAIL() << "a bad value is accepted";
  } catch (const config_file_error& e) {
    EXPECT_NE(std::string(e.what()).find("o.config:1"), std::string::npos) << e.what();
  }
}

// The two stores of sm_memory.store_burst_fills_the_miss_queue (two lines, 4 sectors each, memory
// 100 cycles away) past the L1D. There STG1's sectors made their L1 accesses after the 20-cycle
// L1 pipeline, in 26, and left the miss queue the cycles after; the memory numbers a request from
// the cycle before it is handed over (the L1 access's), so STG1's were 26..29, STG2's 30..33,
// last ack 133, kernel 134. Here STG1 enters the LDST unit in 6 as there and hands a sector a
// cycle straight to the crossbar in 6..9 (numbered 5..8); STG2, taken into the dispatch register
// freed in 9, in 10..13 (9..12): 21 cycles earlier (the L1 pipeline and the miss queue's cycle),
// last ack 112, kernel 113. The L1D sees none of them (no access, no miss-queue entry, so no
// MISS_QUEUE_FULL fails).
TEST(sm_bypass, stores_go_to_the_crossbar_one_sector_a_cycle) {
  gpu_config c = gpuvp::sm::testing::shipped("QV100");
  c.mem.l1.miss_queue = 4;
  c.gmem_skip_l1d = true;
  std::vector<trace_writer_inst> v{mem("STG.E.32", {}, {6, 7}, GBASE, 4), mem("STG.E.32", {}, {8, 9}, GBASE + 128, 4),
                                   op("EXIT", {}, {})};
  kernel_result r = run_fixed(c, make({v}));
  EXPECT_EQ(r.stats.mem_writes, 8u);
  EXPECT_EQ(r.stats.l1_accesses, 0u);
  EXPECT_EQ(r.stats.l1_write_accesses, 0u);
  EXPECT_EQ(r.stats.l1_reservation_fails(), 0u);
  EXPECT_EQ(r.cycles, 113u);
}

// One load of a line (4 sectors) and an FFMA on it. Through the L1D the sectors reach stage 0
// of their bank pipelines 20 cycles after they entered (6 -> 26), miss, and leave the miss queue
// the cycle after (27..30); past the L1D the LDST unit hands them to the crossbar itself in 6..9,
// 21 cycles earlier. The replies then take the same path into the write-back stage (client 3, uncached
// global, instead of client 4, the L1D), one a cycle: the kernel ends 21 cycles sooner, with no
// L1D access. A second run shows the L1D kept nothing: the load misses it again (no fill).
TEST(sm_bypass, loads_skip_the_l1d_tags_and_mshrs) {
  gpu_config c = gpuvp::sm::testing::shipped("QV100");
  std::vector<trace_writer_inst> v{mem("LDG.E.32", {10}, {2}, GBASE, 4), op("FFMA", {11}, {10, 3, 4}), op("EXIT", {}, {})};
  const kernel_result through = run_fixed(c, make({v}));
  EXPECT_EQ(through.stats.l1_misses, 4u);
  c.gmem_skip_l1d = true;
  const kernel_result past = run_fixed(c, make({v}));
  EXPECT_EQ(past.stats.l1_accesses, 0u);
  EXPECT_EQ(past.stats.mem_reads, 4u);
  EXPECT_EQ(past.cycles + 21, through.cycles);
}

// Only global accesses go past the L1D: a local load (LDL) still misses it and fills it.
TEST(sm_bypass, local_loads_still_use_the_l1d) {
  gpu_config c = gpuvp::sm::testing::shipped("QV100");
  c.gmem_skip_l1d = true;
  std::vector<trace_writer_inst> v{mem("LDL", {10}, {2}, 0x1000, 4), mem("LDG.E.32", {12}, {2}, GBASE, 4),
                                   op("FFMA", {11}, {10, 12, 4}), op("EXIT", {}, {})};
  const kernel_result r = run_fixed(c, make({v}));
  EXPECT_EQ(r.stats.l1_misses, 4u);  // the LDL's 4 sectors
  EXPECT_EQ(r.stats.mem_reads, 8u);
}

// perf_memcpy_to_gpu holds each sector's address in a 32-bit unsigned: a copy to 4 GiB + X
// fills the L2 lines of X. A read of the copied address then misses the L2 (and goes to DRAM);
// a read of X hits.
TEST(sm_bypass, memcpy_fills_the_l2_at_the_address_modulo_4_gib) {
  const gpu_config c = gpuvp::sm::testing::shipped("QV100");
  struct port final : mem_client {
    void mem_done(uint64_t, bool, unsigned, uint64_t) override { ++done; }
    unsigned icnt_node() const override { return 0; }
    unsigned done = 0;
  } p;
  gpu_memory m(c);
  m.memcpy_to_device(0x140000000ull, 32);
  m.access(0x140000000ull, 4, false, mem_port::whole_sector, 0, &p, 0);
  m.access(0x40000000ull, 4, false, mem_port::whole_sector, 1, &p, 1);
  for (uint64_t cyc = 0; cyc < 2000 && p.done < 2; ++cyc) m.cycle(cyc);
  EXPECT_EQ(p.done, 2u);
  EXPECT_EQ(m.stats().l2_misses, 1u);
  EXPECT_EQ(m.stats().l2_hits, 1u);
  EXPECT_EQ(m.stats().dram_reads, 1u);
}
