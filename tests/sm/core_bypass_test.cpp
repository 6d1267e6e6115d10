// SPDX-License-Identifier: Apache-2.0
// Global accesses past the L1D (-gpgpu_gmem_skip_L1D 1, ldst_unit::memory_cycle's bypassL1D) and
// GPGPU-Sim's perf_memcpy_to_gpu, which keeps 32 bits of the copied range's addresses.
#include <gtest/gtest.h>

#include <sstream>

#include "core/gpu.h"
#include "core/gpu_config.h"
#include "core/mem_log.h"
#include "core/memsys.h"
#include "core/trace.h"
#include "kernel_builder.h"
#include "paths.h"

using namespace gpuvp::sm;
using namespace gpuvp::gpu_memory;
using gpuvp::sm::testing::mem;
using gpuvp::sm::testing::op;

namespace {

constexpr uint64_t GBASE = 0x7f4000000000ull;

kernel_trace make(const std::vector<std::vector<trace_writer_inst>>& warps) {
  return parse_kernel_trace_text(write_kernel_trace("k", 1, {1, 1, 1}, {unsigned(warps.size()) * 32, 1, 1}, 70, 0, 32, warps), "generated");
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
  std::vector<trace_writer_inst> v{mem("STG.E.32", {}, {6, 7}, GBASE, 4), mem("STG.E.32", {}, {8, 9}, GBASE + 128, 4), op("EXIT", {}, {})};
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

// The LDST unit's response FIFO gives the answers of loads past the L1D to the write-back stage
// (client 3, m_next_global, one a cycle) in the order they came, as GPGPU-Sim's m_response_fifo.
// One warp loads line A (the LDST unit's first instruction) then line B; the memory answers B's
// four sectors in cycle 300 and A's in 301. B's four are taken first, one a cycle, then A's: the
// FFMA on B's register issues 4 cycles before the FFMA on A's. (The model before re-queued a
// waiting answer with those due the next cycle by instruction slot: A's, the lower slot, then
// overtook B's last three and the two FFMAs issued back to back; on TITAN X's ldg_hide_3cta that
// was 827 cycles instead of Accel-Sim's 822, test sm_mem_log.calibration_kernels_on_titanx.)
TEST(sm_bypass, load_answers_leave_the_response_fifo_in_their_order) {
  gpu_config c = gpuvp::sm::testing::shipped("QV100");
  c.gmem_skip_l1d = true;
  struct timed_memory final : mem_port {
    uint64_t access(uint64_t addr, unsigned, bool, uint32_t, uint64_t cycle, mem_client*, unsigned) override {
      return (addr < GBASE + 128 ? 301 : 300) - cycle;  // line A at GBASE, B after it
    }
  } m;
  const std::vector<trace_writer_inst> v{mem("LDG.E.32", {10}, {2}, GBASE, 4), mem("LDG.E.32", {11}, {2}, GBASE + 128, 4),
                                         op("FFMA", {12}, {11, 3, 4}), op("FFMA", {13}, {10, 3, 4}), op("EXIT", {}, {})};
  gpu_sim g(c, &m, 1);
  std::vector<uint64_t> issued;
  g.on_issue = [&](unsigned, unsigned, uint16_t, uint64_t cycle) { issued.push_back(cycle); };
  const kernel_result r = g.run(make({v}));
  EXPECT_EQ(r.stats.mem_reads, 8u);
  ASSERT_EQ(issued.size(), 5u);
  EXPECT_GT(issued[2], 300u);
  EXPECT_EQ(issued[3], issued[2] + 4);
}

// A store's acknowledgement waits in the LDST unit's response FIFO behind the answers that came
// before it (GPGPU-Sim's ldst_unit::cycle takes m_response_fifo's head only, one a cycle; an
// acknowledgement whenever it is the head). Warp 1 loads a line past the L1D; its four answers
// reach the LDST unit in cycle 300. Warp 0 stores a word elsewhere, acknowledged in 301, and
// exits. 300: answer 1 into client 3 (m_next_global); 301: the write-back stage takes it, answer
// 2 into client 3, the acknowledgement queues behind answers 3 and 4; 302 and 303: answers 3 and
// 4 into client 3; 304: the acknowledgement: warp 0 ends 3 cycles later than when the answers
// come after its acknowledgement (310), which is then taken as it arrives.
TEST(sm_bypass, store_ack_waits_behind_load_answers_in_the_response_fifo) {
  gpu_config c = gpuvp::sm::testing::shipped("QV100");
  c.gmem_skip_l1d = true;
  struct timed_memory final : mem_port {
    uint64_t loads_at = 0;
    uint64_t access(uint64_t, unsigned, bool write, uint32_t, uint64_t cycle, mem_client*, unsigned) override {
      return (write ? 301 : loads_at + 2) - cycle;  // a read's answer reaches the LDST unit 2 cycles before its release
    }
  };
  const std::vector<trace_writer_inst> store{mem("STG.E.32", {}, {2, 6}, GBASE + 4096, 4, 1u), op("EXIT", {}, {})};
  const std::vector<trace_writer_inst> load{mem("LDG.E.32", {10}, {2}, GBASE, 4), op("EXIT", {}, {})};
  const auto warp0_end = [&](uint64_t loads_at) {
    timed_memory m;
    m.loads_at = loads_at;
    gpu_sim g(c, &m, 1);
    uint64_t end = 0;
    g.on_warp = [&](unsigned, unsigned, unsigned, unsigned warp, bool start) {
      if (!start && warp == 0) end = g.cycle();
    };
    const kernel_result r = g.run(make({store, load}));
    EXPECT_EQ(r.stats.mem_reads, 4u);
    EXPECT_EQ(r.stats.mem_writes, 1u);
    return end;
  };
  const uint64_t behind = warp0_end(300), alone = warp0_end(310);
  EXPECT_GT(alone, 300u);
  EXPECT_EQ(behind, alone + 3);
}

// Only global accesses go past the L1D: a local load (LDL) still misses it and fills it.
TEST(sm_bypass, local_loads_still_use_the_l1d) {
  gpu_config c = gpuvp::sm::testing::shipped("QV100");
  c.gmem_skip_l1d = true;
  std::vector<trace_writer_inst> v{mem("LDL", {10}, {2}, 0x1000, 4), mem("LDG.E.32", {12}, {2}, GBASE, 4), op("FFMA", {11}, {10, 12, 4}),
                                   op("EXIT", {}, {})};
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
  memory_system m(c);
  m.memcpy_to_device(0x140000000ull, 32);
  m.access(0x140000000ull, 4, false, mem_port::whole_sector, 0, &p, 0);
  m.access(0x40000000ull, 4, false, mem_port::whole_sector, 1, &p, 1);
  for (uint64_t cyc = 0; cyc < 2000 && p.done < 2; ++cyc) m.cycle(cyc);
  EXPECT_EQ(p.done, 2u);
  EXPECT_EQ(m.stats().l2_misses, 1u);
  EXPECT_EQ(m.stats().l2_hits, 1u);
  EXPECT_EQ(m.stats().dram_reads, 1u);
}

// -gpgpu_perfect_inst_const_cache 0 with an L1I of 8 sets x 128-byte lines (-gpgpu_cache:il1
// N:8:128:4,L:R:f:N:L,A:2:48,4, the GTX 1080 file's). One warp of 20 IMADs and EXIT at PCs 0,
// 16, ..., 320 (the trace writer's 16-byte steps): each fetch takes two instructions into the
// instruction buffer, so the warp fetches at PCs 0, 32, ..., 320: 11 fetches, 4 in line 0, 4 in
// line 1, 3 in line 2. The first fetch in each line misses (its 4 sectors go to the memory, 100
// cycles away), the warp waits, and the filled entry hands it its fetch without a new access; the
// other 8 fetches hit. The three misses come one after the other (the warp fetches line 1 only
// once it has issued line 0's instructions), so with the memory 100 cycles further away the
// kernel takes exactly 300 cycles more; with a perfect instruction cache it does not depend on it.
TEST(sm_icache, fetch_misses_once_per_line) {
  gpu_config c = gpuvp::sm::testing::shipped("QV100");
  std::vector<trace_writer_inst> v;
  for (unsigned i = 0; i < 20; ++i) v.push_back(op("IMAD", {20 + i}, {2, 3}));
  v.push_back(op("EXIT", {}, {}));
  const kernel_result perfect = run_fixed(c, make({v}));
  EXPECT_EQ(perfect.stats.l1i_accesses, 0u);
  load_config_text(c, "-gpgpu_perfect_inst_const_cache 0\n-gpgpu_cache:il1 N:8:128:4,L:R:f:N:L,A:2:48,4\n", "il1.config");
  fixed_latency_memory m(100), far(200);
  gpu_sim g(c, &m, 1), g_far(c, &far, 1);
  const kernel_result r = g.run(make({v})), r_far = g_far.run(make({v}));
  EXPECT_EQ(r.stats.l1i_accesses, 11u);
  EXPECT_EQ(r.stats.l1i_hits, 8u);
  EXPECT_EQ(r.stats.l1i_misses, 3u);
  EXPECT_EQ(r.stats.l1i_mshr_hits, 0u);
  EXPECT_EQ(m.accesses, 12u);  // 3 lines x 4 sectors
  EXPECT_EQ(r_far.cycles, r.cycles + 300);
  EXPECT_GT(r.cycles, perfect.cycles + 3 * 50);  // each miss costs at least half the memory latency
  EXPECT_EQ(r.stats.warp_insts, 21u);
}

// Two warps fetch line 0 together: the first misses, the second merges into its MSHR entry
// (MSHR_HIT, counted among the misses as GPGPU-Sim counts INST_ACC_R); one line request.
TEST(sm_icache, second_warp_merges_into_the_pending_line) {
  gpu_config c = gpuvp::sm::testing::shipped("QV100");
  load_config_text(c, "-gpgpu_perfect_inst_const_cache 0\n-gpgpu_cache:il1 N:8:128:4,L:R:f:N:L,A:2:48,4\n", "il1.config");
  std::vector<trace_writer_inst> v{op("IMAD", {20}, {2, 3}), op("EXIT", {}, {})};
  fixed_latency_memory m(100);
  gpu_sim g(c, &m, 1);
  const kernel_result r = g.run(make({v, v}));
  EXPECT_EQ(r.stats.l1i_accesses, 2u);
  EXPECT_EQ(r.stats.l1i_misses, 2u);
  EXPECT_EQ(r.stats.l1i_mshr_hits, 1u);
  EXPECT_EQ(m.accesses, 4u);
}

// Past the L1D into a non-sectored L2 (QV100 with -gpgpu_cache:dl2 N:...): one access per
// coalesced segment, as GPGPU-Sim's memory_coalescing_arch with segments of 128 bytes for 4-byte
// accesses, reduced by memory_coalescing_arch_reduce_and_send: 32 lanes x 4 bytes of one line:
// 128; lanes 0-3 at the line's byte 64: the upper half, then its lower quarter, 32; lanes 0-15
// from the line's start: the lower half, 64; 32 lanes 8 bytes apart over two lines: two of 128;
// a store of lanes 0-7 at byte 32: 32. Five reads and a write, each one L2 access (five lines
// missed, each read from the DRAM in 4 bursts; the lazy fetch-on-read write fetches nothing).
// Into the sectored L2 of the shipped file the same kernel sends a sector each: 4 + 1 + 2 + 8
// reads and 1 write.
TEST(sm_bypass, segments_into_a_non_sectored_l2) {
  gpu_config c = gpuvp::sm::testing::shipped("QV100");
  c.gmem_skip_l1d = true;
  const kernel_trace k = make({{mem("LDG.E.32", {10}, {2}, GBASE, 4), mem("LDG.E.32", {11}, {2}, GBASE + 128 + 64, 4, 0xfu),
                                mem("LDG.E.32", {12}, {2}, GBASE + 256, 4, 0xffffu), mem("LDG.E.32", {13}, {2}, GBASE + 384, 8),
                                mem("STG.E.32", {}, {2, 10}, GBASE + 1024 + 32, 4, 0xffu), op("EXIT", {}, {})}});
  {
    memory_system m(c);
    gpu_sim g(c, &m, 1);
    const kernel_result r = g.run(k);
    EXPECT_EQ(r.stats.mem_reads, 15u);
    EXPECT_EQ(r.stats.mem_writes, 1u);
  }
  c.mem.l2.sectored = false;
  memory_system m(c);
  mem_event_log log(1000);
  m.set_event_log(&log);
  gpu_sim g(c, &m, 1);
  const kernel_result r = g.run(k);
  // The accesses' addresses as they enter the crossbar, in order (the reduced segments' starts;
  // the two lines of the 8-byte load the higher first).
  std::ostringstream os;
  log.flush(os, 1, "k");
  std::vector<uint64_t> inj;
  std::istringstream is(os.str());
  for (std::string line; std::getline(is, line);)
    if (line.rfind("INJ,", 0) == 0) inj.push_back(std::stoull(line.substr(line.find(',', line.find(',', 4) + 1) + 1), nullptr, 16));
  EXPECT_EQ(inj, (std::vector<uint64_t>{GBASE, GBASE + 192, GBASE + 256, GBASE + 512, GBASE + 384, GBASE + 1056}));
  EXPECT_EQ(r.stats.mem_reads, 5u);
  EXPECT_EQ(r.stats.mem_writes, 1u);
  EXPECT_EQ(r.mem.l2_accesses, 6u);
  EXPECT_EQ(r.mem.l2_misses, 6u);
  EXPECT_EQ(r.mem.dram_reads, 20u);
  EXPECT_EQ(r.mem.dram_writes, 0u);
}
