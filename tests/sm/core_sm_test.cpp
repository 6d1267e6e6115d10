// SPDX-License-Identifier: Apache-2.0
// Whole-SM cycle tests on generated traces. Expected cycles are worked out by hand from the
// pipeline the model documents (docs/models/sm.md "Pipeline of one SM"), which is GPGPU-Sim's:
//   CTA launched in cycle 1; fetch/decode run -gpgpu_inst_fetch_throughput (4 in the shipped
//   configs) rounds per cycle after issue, so a warp fetched in round 0 is decoded in round 1 of
//   the same cycle and first issues in cycle 2. The first fetch scans from warp 1 (GPGPU-Sim's
//   m_last_warp_fetched starts at 0). Scheduler issue at t -> collector unit and operand reads at
//   t+1 (two collector steps per cycle, reg_file_port_throughput 2) -> OC_EX at t+2 -> unit issue
//   at t+3 -> dispatch delay of I unit cycles, enters stage L-I -> stage 0 at t+3+L -> EX_WB at
//   t+4+L -> writeback (scoreboard release) at t+5+L, where a dependent issues. EXIT goes to the
//   INT unit with latency 1 / initiation 1; having no source register its collector unit is
//   ready at once and dispatches in the second collector step of t+1, so it writes back at t+5.
//   The kernel's
//   cycle count is the cycle of the last writeback + 1 (gpu_sim_cycle is incremented after the
//   core cycle in which the last warp is reclaimed).
// So a dependent chain costs L+5 cycles per instruction, and N of them take 2 + N*(L+5) + 1.
#include <gtest/gtest.h>

#include "core/gpu.h"
#include "core/gpu_config.h"
#include "core/trace.h"
#include "kernel_builder.h"
#include "paths.h"

using namespace gpuvp::sm;
using gpuvp::gpu_memory::fixed_latency_memory;

namespace {

using gpuvp::sm::testing::shipped;

unsigned binary_version_of(const std::string& name) { return name == "QV100" ? 70 : name == "RTX3070" ? 86 : name == "A100" ? 80 : 90; }

using gpuvp::sm::testing::mem;
using gpuvp::sm::testing::op;

kernel_trace make_kernel(unsigned binver, const std::vector<std::vector<trace_writer_inst>>& warps, unsigned ctas = 1) {
  std::string text = write_kernel_trace("k", 1, {ctas, 1, 1}, {unsigned(warps.size()) * 32, 1, 1}, binver, 0, 32, warps);
  return parse_kernel_trace_text(text, "generated");
}

// QV100 with a fixed (not adaptive) L1D of one set of `ways` ways, and `mshrs` L1 MSHRs (0: the
// configuration's): the small L1s of the reservation-fail tests.
gpu_config one_set_l1(unsigned ways, unsigned mshrs = 0) {
  gpu_config c = shipped("QV100");
  c.adaptive_l1 = false;
  c.l1_sets = 1;
  c.l1_ways = ways;
  if (mshrs) c.l1_mshrs = mshrs;
  return c;
}

kernel_result run1(const gpu_config& c, const kernel_trace& k, uint64_t mem_latency = 100) {
  fixed_latency_memory m(mem_latency);
  gpu_sim g(c, &m, 1);
  return g.run(k);
}

std::vector<trace_writer_inst> chain(const std::string& opcode, unsigned n, unsigned d, std::vector<unsigned> src) {
  std::vector<trace_writer_inst> v(n, op(opcode, {d}, src));
  v.push_back(op("EXIT", {}, {}));
  return v;
}

// n independent instructions: instruction k writes R(d+k) (no RAW, no WAW), then EXIT.
std::vector<trace_writer_inst> indep(const std::string& opcode, unsigned n, unsigned d, std::vector<unsigned> src) {
  std::vector<trace_writer_inst> v;
  for (unsigned k = 0; k < n; ++k) v.push_back(op(opcode, {d + k}, src));
  v.push_back(op("EXIT", {}, {}));
  return v;
}

}  // namespace

TEST(sm_core, shipped_configs_load_with_reference_values) {
  gpu_config q = shipped("QV100");
  EXPECT_EQ(q.num_sms(), 80u);
  EXPECT_EQ(q.widths[EX_WB], 8u);
  EXPECT_TRUE(q.sub_core);
  EXPECT_EQ(q.num_sched, 4u);
  EXPECT_EQ(q.lat_dp.latency, 8u);
  EXPECT_EQ(q.lat_dp.initiation, 4u);
  EXPECT_EQ(q.spec[3].name, "TENSOR");
  EXPECT_EQ(q.spec[3].max_latency, 8u);
  EXPECT_EQ(q.spec[2].op.latency, 200u);
  EXPECT_EQ(q.l1_latency, 20u);
  gpu_config r = shipped("RTX3070");
  EXPECT_EQ(r.num_sms(), 46u);
  EXPECT_EQ(r.max_threads_per_sm, 1536u);
  EXPECT_EQ(r.spec[4].name, "UDP");
  EXPECT_EQ(r.lat_sp.initiation, 1u);
  gpu_config h = shipped("H100");
  EXPECT_EQ(h.spec[5].name, "GMMA");
  EXPECT_EQ(h.spec[5].op.latency, 128u);
  EXPECT_EQ(h.spec[5].op.initiation, 32u);
  EXPECT_EQ(shipped("A100").spec[3].op.initiation, 8u);
}

// The A100, H100 and RTX 3070 files take every option read from one public gpgpusim.config each
// (named in their headers, docs/models/sm.md "Shipped"); values as those files give them:
// SM80_A100 and SM86_RTX3070 of gpgpu-sim/gpgpu-sim_distribution baf2b8f0, SM90_H100 of
// jc19chaoj/accel-sim-framework 0caad296 (gpu-simulator/gpgpu-sim/configs/tested-cfgs).
TEST(sm_core, shipped_files_follow_public_tested_cfgs) {
  auto file = [](const std::string& name) {
    gpu_config c;
    load_config_file(c, sm_config_dir() + "/" + shipped_config_dir(name) + "/gpgpusim.config");
    return c;
  };
  const gpu_config a = file("A100"), h = file("H100"), r = file("RTX3070");
  EXPECT_EQ(a.num_sms(), 108u);
  EXPECT_EQ(a.max_ctas_per_sm, 32u);
  EXPECT_EQ(a.registers_per_sm, 65536u);
  EXPECT_EQ(a.shmem_per_sm, 167936u);  // 164 KB
  EXPECT_EQ(a.smem_latency, 28u);
  EXPECT_EQ(a.scheduler, "lrr");
  EXPECT_EQ(a.reg_banks, 32u);
  EXPECT_EQ(a.kernel_launch_latency, 5000u);
  EXPECT_EQ(h.num_sms(), 132u);
  EXPECT_EQ(h.max_ctas_per_sm, 32u);
  EXPECT_EQ(h.shmem_per_sm, 233472u);  // 228 KB
  EXPECT_EQ(h.smem_latency, 28u);
  EXPECT_EQ(h.l1_latency, 34u);
  EXPECT_EQ(h.scheduler, "lrr");
  EXPECT_EQ(h.reg_banks, 32u);
  EXPECT_EQ(h.kernel_launch_latency, 5000u);
  EXPECT_EQ(h.shmem_options_kb, (std::vector<unsigned>{0, 8, 16, 32, 64, 100, 132, 164, 228}));
  EXPECT_EQ(r.max_ctas_per_sm, 32u);
  EXPECT_EQ(r.max_threads_per_sm, 1536u);
  EXPECT_EQ(r.scheduler, "lrr");
  EXPECT_EQ(r.reg_banks, 8u);
  EXPECT_EQ(r.smem_latency, 29u);
  EXPECT_EQ(r.kernel_launch_latency, 5000u);
  EXPECT_EQ(r.mem.icnt_in_buffer, 512u);
  EXPECT_EQ(r.mem.icnt_out_buffer, 512u);
  EXPECT_EQ(r.mem.dram_bnkgrp_lower_bits, 1u);
  EXPECT_EQ(r.mem.dram_dual_bus, 0u);
}

TEST(sm_core, config_errors_and_unknown_options) {
  gpu_config c;
  load_config_text(c, "# comment\n-gpgpu_foo 3\n-gpgpu_num_sp_units 2 # trailing\n-bar_flag\n", "a.config");
  EXPECT_EQ(c.num_sp, 2u);
  EXPECT_EQ(c.ignored.size(), 2u);
  EXPECT_NE(c.summary().find("2 options ignored"), std::string::npos);
  auto err = [](const std::string& text) {
    gpu_config g;
    try {
      load_config_text(g, text, "b.config");
      g.validate();
    } catch (const config_file_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(err("\n-gpgpu_num_sp_units x4\n"), "b.config:2: -gpgpu_num_sp_units: 'x4' is not an unsigned number");
  EXPECT_NE(err("-gpgpu_pipeline_widths 1,2,3\n").find("b.config:1: -gpgpu_pipeline_widths: expected 11 values"), std::string::npos);
  EXPECT_NE(err("-specialized_unit_3 1,4,8,4,TENSOR\n").find("b.config:1: -specialized_unit_3: expected enabled"), std::string::npos);
  EXPECT_NE(err("-specialized_unit_9 1,4,8,4,4,X\n").find("outside 1..8"), std::string::npos);
  EXPECT_NE(err("-specialized_unit_3 1,4,8,65,4,T\n").find("specialized unit 3: register set width above 64"), std::string::npos);
  EXPECT_NE(err("-trace_opcode_latency_initiation_sp 600,1\n").find("sp latency 600 outside [1, 511]"), std::string::npos);
  EXPECT_NE(err("-gpgpu_scheduler fifo\n").find("unknown scheduler 'fifo'"), std::string::npos);
  EXPECT_NE(err("-gpgpu_scheduler two_level_active:x\n").find("expected two_level_active:N[:0:1]"), std::string::npos);
  EXPECT_NE(err("-gpgpu_scheduler two_level_active:4:2:1\n").find("inner level 2 (only 0, LRR, exists)"), std::string::npos);
  EXPECT_NE(err("-gpgpu_scheduler two_level_active:4:0:0\n").find("outer level 0 (only 1, SRR, exists)"), std::string::npos);
  EXPECT_EQ(err("-gpgpu_scheduler two_level_active:4:0:1\n"), "no error");
  EXPECT_NE(err("-gpgpu_inst_fetch_throughput 0\n").find("-gpgpu_inst_fetch_throughput 0 outside [1, 64]"), std::string::npos);
  EXPECT_NE(err("-gpgpu_max_insn_issue_per_warp 0\n").find("-gpgpu_max_insn_issue_per_warp 0"), std::string::npos);
  EXPECT_EQ(err("-gpgpu_scheduler two_level_active\n"), "no error");  // N = 6, docs "Choices" 6
  EXPECT_NE(err("gpgpu_n_clusters 4\n").find("b.config:1: expected an option"), std::string::npos);
  EXPECT_THROW(load_config_file(c, "/nonexistent.config"), config_file_error);
  // Configurations that would deadlock are refused: sub-core mode with 4 schedulers and widths 4
  // needs 4 units of each kind; MSHRs and shared-memory banks must exist.
  const std::string sub =
      "-gpgpu_sub_core_model 1\n-gpgpu_num_sched_per_core 4\n-gpgpu_pipeline_widths 4,4,4,4,4,4,4,4,4,4,8,4,4\n"
      "-gpgpu_num_sp_units 4\n-gpgpu_num_int_units 4\n-gpgpu_num_sfu_units 4\n";
  EXPECT_NE(err(sub + "-gpgpu_num_dp_units 1\n").find("-gpgpu_num_dp_units: 1 units, need at least 4"), std::string::npos);
  EXPECT_EQ(err(sub + "-gpgpu_num_dp_units 4\n"), "no error");
  EXPECT_NE(err(sub + "-gpgpu_num_dp_units 4\n-specialized_unit_3 1,2,8,4,4,TENSOR\n-trace_opcode_latency_initiation_spec_op_3 2,2\n")
                .find("-specialized_unit_3: 2 units"),
            std::string::npos);
  EXPECT_NE(err("-gpgpu_cache:dl1 S:4:128:64,L:T:m:L:L,A:0:8,16:0,32\n").find("-gpgpu_cache:dl1 MSHR entries: 0 outside [1, 65536]"),
            std::string::npos);
  EXPECT_NE(err("-gpgpu_num_sp_units 0\n").find("-gpgpu_num_sp_units: 0 units, need at least 1"), std::string::npos);
  EXPECT_NE(err("-gpgpu_smem_latency 1\n").find("-gpgpu_smem_latency 1 outside [2, 4096]"), std::string::npos);
  // Adaptive L1D: a unified size that is a whole multiple of the dl1 size (32 KB here), options
  // that leave some L1D.
  const std::string dl1 = "-gpgpu_cache:dl1 S:4:128:64,L:T:m:L:L,A:512:8,16:0,32\n-gpgpu_adaptive_cache_config 1\n";
  EXPECT_EQ(err(dl1 + "-gpgpu_shmem_option 0,96\n-gpgpu_unified_l1d_size 128\n"), "no error");
  EXPECT_NE(err(dl1 + "-gpgpu_shmem_option 0,96\n").find("needs -gpgpu_unified_l1d_size in [1, 4096] KB (got 0)"), std::string::npos);
  EXPECT_NE(err(dl1 + "-gpgpu_shmem_option 0,8\n-gpgpu_unified_l1d_size 48\n").find("48 KB is not a whole multiple"), std::string::npos);
  EXPECT_NE(err(dl1 + "-gpgpu_unified_l1d_size 128\n").find("needs -gpgpu_shmem_option"), std::string::npos);
  EXPECT_NE(err(dl1 + "-gpgpu_shmem_option 128,0\n-gpgpu_unified_l1d_size 128\n").find("128 KB leaves no L1D"), std::string::npos);
  EXPECT_NE(err("-gpgpu_cache:dl1 N:1024:32:32,L:T:m:L:L,A:512:8,16:0,32\n-gpgpu_adaptive_cache_config 1\n"
                "-gpgpu_shmem_option 0\n-gpgpu_unified_l1d_size 4096\n")
                .find("4096 KB is more than 65536 L1D lines"),
            std::string::npos);
}

TEST(sm_core, adaptive_l1_takes_what_shared_memory_leaves) {
  // GPGPU-Sim's adaptive cache configuration: ways = max ways x (1 - option / unified) + 0.5,
  // max ways = dl1 ways x unified / dl1 size. QV100: 64 ways x 128 / 32 = 256.
  gpu_config q = shipped("QV100");
  ASSERT_TRUE(q.adaptive_l1);
  EXPECT_EQ(q.shmem_options_kb, (std::vector<unsigned>{0, 8, 16, 32, 64, 96}));
  EXPECT_EQ(q.l1_ways_for(0), 256u);          // 128 KB
  EXPECT_EQ(q.l1_ways_for(8 * 1024), 240u);   // option 8: 256 x 120/128
  EXPECT_EQ(q.l1_ways_for(40 * 1024), 128u);  // option 64: 64 KB
  EXPECT_EQ(q.l1_ways_for(96 * 1024), 64u);   // option 96: 32 KB
  EXPECT_THROW(q.l1_ways_for(97 * 1024), std::runtime_error);
  // A100: 64 ways x 192 / 32 = 384; option 164: 384 x (1 - 164/192) = 56.0 -> 56.
  gpu_config a = shipped("A100");
  EXPECT_EQ(a.l1_ways_for(0), 384u);
  EXPECT_EQ(a.l1_ways_for(100 * 1024), 56u);
  // RTX 3070: the dl1 is already the unified 128 KB (256 ways).
  EXPECT_EQ(shipped("RTX3070").l1_ways_for(0), 256u);
  // H100: 64 ways x 256 / 32 = 512 (256 KB without shared memory); 90 KB of shared memory takes
  // option 100: 512 x (1 - 100/256) + 0.5 = 312.5 -> 312 ways (option 228 would leave 56).
  const gpu_config h = shipped("H100");
  EXPECT_EQ(h.l1_ways_for(0), 512u);
  EXPECT_EQ(h.l1_ways_for(90 * 1024), 312u);
  // One warp reads 512 lines (one sector each, 64 KB) twice. Without shared memory the L1D is
  // 128 KB: the second pass hits all 512. With a 90 KB shared-memory CTA (option 96) it is
  // 32 KB (4 sets x 64 ways, LRU): each set cycles 128 lines through 64 ways, the second pass
  // misses them all.
  std::vector<trace_writer_inst> w;
  for (unsigned pass = 0; pass < 2; ++pass)
    for (unsigned l = 0; l < 512; ++l) w.push_back(mem("LDG.E", {10 + l % 8}, {4}, 0x100000 + 128ull * l, 0));
  w.push_back(op("EXIT", {}, {}));
  kernel_trace k = make_kernel(70, {w});
  kernel_result big = run1(q, k);
  EXPECT_EQ(big.l1d_kb, 128u);
  EXPECT_EQ(big.stats.l1_misses, 512u);
  EXPECT_EQ(big.stats.l1_hits, 512u);
  k.shmem = 90 * 1024;
  kernel_result small = run1(q, k);
  EXPECT_EQ(small.l1d_kb, 32u);
  EXPECT_EQ(small.stats.l1_misses, 1024u);
  EXPECT_EQ(small.stats.l1_hits, 0u);
  // The shared memory of every CTA an SM holds counts: 4 CTAs of 20 KB on one SM need option 96.
  kernel_trace k4 = make_kernel(70, {{op("EXIT", {}, {})}}, 4);
  k4.shmem = 20 * 1024;
  fixed_latency_memory m(100);
  gpu_sim g(q, &m, 1);
  EXPECT_EQ(g.run(k4).l1d_kb, 32u);
  // Too much shared memory for every option: a clear error naming the kernel.
  gpu_config q2 = q;
  q2.shmem_options_kb = {0, 8};
  k4.shmem = 9 * 1024;
  gpu_sim g2(q2, &m, 4);
  try {
    g2.run(k4);
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("9216 bytes of shared memory per SM, more than the largest -gpgpu_shmem_option (8 KB)"),
              std::string::npos)
        << e.what();
  }
}

TEST(sm_core, dependent_ffma_chain_qv100) {
  // sp 2,2: L+5 = 7 cycles per dependent FFMA. FFMA k issues at 2 + 7k, the last (k = 99) at
  // 695 and writes back at 702. EXIT: the buffer empties at 695, is refilled in that cycle's
  // fetch rounds, EXIT issues at 696 and writes back at 696 + 5 = 701. Kernel: 702 + 1 = 703
  // (Accel-Sim's calibration point: 703).
  gpu_config c = shipped("QV100");
  kernel_result r = run1(c, make_kernel(70, {chain("FFMA", 100, 1, {1, 2, 3})}));
  EXPECT_EQ(r.cycles, 703u);
  EXPECT_EQ(r.stats.warp_insts, 101u);
  EXPECT_EQ(r.stats.result_bus_stalls, 0u);
  // Between FFMA k and k+1 (issue at t and t+7) 6 cycles without issue: 99 * 6 = 594, all on the
  // scoreboard (a refill fetched after an issue is decoded in the same cycle, so the buffer is
  // never empty when the next FFMA could go).
  EXPECT_EQ(r.stats.sched_stalls[unsigned(stall_cause::scoreboard)], 594u);
}

TEST(sm_core, independent_ffma_four_warps_qv100) {
  // 4 warps on 4 sub-cores, 1 SP unit each with initiation 2; FFMA k of a warp writes R(10+k)
  // (the reference's "R(10+i)": a WAW on one register would serialise them, GPGPU-Sim checks
  // WAW). Cycle 1: fetch rounds 0..3 take warps 1, 2, 3, 0 (the scan starts after warp 0);
  // warps 1-3 are decoded in rounds 1-3 and first issue at 2, warp 0 is decoded in cycle 2 and
  // first issues at 3. A warp first issuing at s: unit issues at s+3, s+5, ..., s+3+2*99 (the
  // front end runs ahead through ID_OC, two collector units and OC_EX, so the unit never
  // starves); the last writes back 4 cycles after its unit issue: s+205 = 208 for warp 0. Its
  // EXIT went to the INT unit long before. Kernel: 208 + 1 = 209 (Accel-Sim: 209).
  gpu_config c = shipped("QV100");
  std::vector<std::vector<trace_writer_inst>> w;
  for (unsigned i = 0; i < 4; ++i) w.push_back(indep("FFMA", 100, 10, {2, 3, 4}));
  kernel_result r = run1(c, make_kernel(70, w));
  EXPECT_EQ(r.cycles, 209u);
  EXPECT_EQ(r.stats.warp_insts, 404u);
  EXPECT_GT(r.stats.dispatch_stalls, 0u);  // the unit's initiation interval holds the OC_EX slot
  EXPECT_NEAR(r.ipc(), 404.0 / 209.0, 1e-9);
  // The same 4 warps all writing one register each (R10+w): every FFMA waits for the previous
  // one's writeback (WAW), 7 cycles apart like a RAW chain: warp 0 (first issue 3) ends last,
  // its FFMA 99 issues at 3 + 693 = 696 and writes back at 703; EXIT issues at 697, back at 702.
  std::vector<std::vector<trace_writer_inst>> waw;
  for (unsigned i = 0; i < 4; ++i) waw.push_back(chain("FFMA", 100, 10 + i, {2, 3, 4}));
  EXPECT_EQ(run1(c, make_kernel(70, waw)).cycles, 704u);
}

TEST(sm_core, hmma_on_tensor_unit_each_shipped_config) {
  // 50 dependent HMMA (R8 <- R16 R18 R8) on specialized unit 3: first issue 2, last writeback
  // 2 + 50*(L+5) (EXIT, on the INT unit with latency 1, is back no later), kernel one more:
  // 3 + 50*(L+5) (QV100: 353, Accel-Sim's calibration point). The RTX 3070 file's 8 register
  // banks are 2 per sub-core (GPGPU-Sim's register_bank: (reg + warp) mod 2 in the scheduler's
  // span): R16, R18 and R8 all fall in one bank, and the two collector steps a cycle
  // (-gpgpu_reg_file_port_throughput 2) read one operand of a bank each, so the three reads take
  // 2 cycles instead of 1 (16 or 32 banks: R18 in another bank than R16 and R8): L+6 per HMMA.
  struct expect_t {
    const char* gpu;
    uint64_t cycles;
  };
  for (auto e : {expect_t{"QV100", 3 + 50 * (2 + 5)},     // spec_op_3 2,2
                 expect_t{"RTX3070", 3 + 50 * (32 + 6)},  // 32,32; one bank for all three sources
                 expect_t{"A100", 3 + 50 * (12 + 5)},     // 12,8
                 expect_t{"H100", 3 + 50 * (12 + 5)}}) {  // 12,4
    gpu_config c = shipped(e.gpu);
    kernel_result r = run1(c, make_kernel(binary_version_of(e.gpu), {chain("HMMA.884.F32.F32.STEP0", 50, 8, {16, 18, 8})}));
    EXPECT_EQ(r.cycles, e.cycles) << e.gpu;
    uint64_t tensor_issued = 0;
    for (auto& [n, v] : r.stats.unit_issued)
      if (n == "TENSOR") tensor_issued = v;
    EXPECT_EQ(tensor_issued, 50u) << e.gpu;
  }
}

TEST(sm_core, ldst_unit_stalls_while_sending_lines) {
  // Two independent LDG, each thread on its own 128-byte line (32 lines). LDG#1: issue 2, unit
  // issue 5, lines sent at 6..37 (one L1 access per cycle), dispatch register free at 37 where
  // LDG#2 (issued 3, in OC_EX since 5) issues: dispatch stalls in cycles 6..36 = 31.
  // Misses: each one-sector line enters the miss queue after the L1 latency (20) and is sent
  // then, one per cycle; fill at access + 20 + 100 (memory). LDG#2 lines at 38..69, last back at 189,
  // kernel 189 + 1 = 190.
  gpu_config c = shipped("QV100");
  std::vector<trace_writer_inst> w{mem("LDG.E", {1}, {4}, 0x10000, 128), mem("LDG.E", {2}, {4}, 0x20000, 128), op("EXIT", {}, {})};
  kernel_result r = run1(c, make_kernel(70, {w}));
  EXPECT_EQ(r.stats.dispatch_stalls, 31u);
  EXPECT_EQ(r.stats.l1_misses, 64u);
  EXPECT_EQ(r.stats.mem_reads, 64u);
  EXPECT_EQ(r.cycles, 190u);
}

TEST(sm_core, l1_hit_after_fill_and_mshr_limit) {
  // LDG R1 (one sector: every lane at one address), FFMA R5 <- R1 (waits for the fill), LDG R2
  // same sector: hit.
  gpu_config c = shipped("QV100");
  std::vector<trace_writer_inst> w{mem("LDG.E", {1}, {4}, 0x10000, 0), op("FFMA", {5}, {1, 1, 1}), mem("LDG.E", {2}, {5}, 0x10000, 0),
                                   op("EXIT", {}, {})};
  kernel_result r = run1(c, make_kernel(70, {w}));
  EXPECT_EQ(r.stats.l1_misses, 1u);
  EXPECT_EQ(r.stats.l1_hits, 1u);
  EXPECT_DOUBLE_EQ(r.l1_hit_rate(), 0.5);
  // With one MSHR, the 32-line load stalls on MSHRs: line k can go only after line k-1 filled.
  c.l1_mshrs = 1;
  std::vector<trace_writer_inst> w2{mem("LDG.E", {1}, {4}, 0x10000, 128), op("EXIT", {}, {})};
  kernel_result r2 = run1(c, make_kernel(70, {w2}));
  // Line k's access fails on the MSHR entry in every cycle its predecessor is outstanding.
  EXPECT_GT(r2.stats.l1_fails[unsigned(l1_fail::mshr_entry)], 0u);
  EXPECT_EQ(r2.stats.l1_reservation_fails(), r2.stats.l1_fails[unsigned(l1_fail::mshr_entry)]);
  // All 32 sectors are in L1 bank 0 (128-byte stride): they enter its latency pipeline one per
  // cycle from 6 and the MSHR check is made at its end (stage 0), as GPGPU-Sim's
  // l1_latency_queue does: line 0 misses in 26 (sent in 27); its register is released in 126
  // (the fixed memory's 100 cycles), after the L1 fill in 124 and the write-back stage taking the
  // access in 125 (ldst_unit::writeback -> mshr_table::next_access), which frees the MSHR entry:
  // line 1 (waiting in stage 0, failing every cycle) gets it in 125 ... line 31 misses in
  // 26 + 31*99 = 3095, back at 3195, kernel 3196.
  EXPECT_EQ(r2.cycles, 3196u);
}

TEST(sm_core, coalescing_takes_each_sector_once_whatever_the_lane_order) {
  // One access per 32-byte sector the lanes touch (GPGPU-Sim's sectored coalescing), whatever
  // order the lanes name them in: lanes alternating between two sectors, highest first, make 2
  // L1 accesses (2 misses, 2 reads), as do the same two sectors named lowest first.
  gpu_config c = shipped("QV100");
  auto alternating = [](uint64_t first, uint64_t second) {
    trace_writer_inst m = mem("LDG.E", {1}, {4}, 0, 0);
    for (unsigned t = 0; t < 32; ++t) m.addrs[t] = (t % 2 ? second : first) + 4 * (t / 2 % 8);
    return std::vector<trace_writer_inst>{m, op("EXIT", {}, {})};
  };
  for (const auto& w : {alternating(0x10020, 0x10000), alternating(0x10000, 0x10020)}) {
    kernel_result r = run1(c, make_kernel(70, {w}));
    EXPECT_EQ(r.stats.l1_misses, 2u);
    EXPECT_EQ(r.stats.l1_pending_hits, 0u);
    EXPECT_EQ(r.stats.mem_reads, 2u);
  }
}

TEST(sm_core, l1_line_alloc_fail_while_every_way_waits_for_a_fill) {
  // An L1D of one set and two ways: three LDG of one sector each, to three lines (all in L1 bank
  // 0). The first two miss in 26 and 27 and reserve both ways; the third reaches stage 0 in 28
  // and finds no way without a pending fill (tag_array::probe: all_reserved, LINE_ALLOC_FAIL),
  // every cycle until the first line's fill in 124 (its register released in 126, the fixed
  // memory's 100 after 26): 28..123 = 96 fails. Then it replaces that line (the LRU way that is
  // not reserved) and misses.
  const gpu_config c = one_set_l1(2);
  std::vector<trace_writer_inst> w{mem("LDG.E", {1}, {4}, 0x10000, 0), mem("LDG.E", {2}, {4}, 0x10200, 0),
                                   mem("LDG.E", {3}, {4}, 0x10400, 0), op("EXIT", {}, {})};
  kernel_result r = run1(c, make_kernel(70, {w}));
  EXPECT_EQ(r.stats.l1_misses, 3u);
  EXPECT_EQ(r.stats.l1_fails[unsigned(l1_fail::line_alloc)], 96u);
  EXPECT_EQ(r.stats.l1_reservation_fails(), 96u);
  // LDG 3 sent in 124, its register released in 224: kernel 225.
  EXPECT_EQ(r.cycles, 225u);
}

TEST(sm_core, l1_mshr_entry_fail_turns_line_alloc_when_its_line_is_evicted) {
  // An L1D of one set and one way, one MSHR. P loads sector 0 of line A (L1 bank 0), B sector 1
  // of line A (bank 1), X sector 0 of line C (bank 0, behind P). They reach stage 0 in 26, 27
  // and 28. P misses in 26 (A takes the way, reserved; the MSHR is taken). B finds A present,
  // its sector not valid, no MSHR free: MSHR_ENTRY_FAIL in 27..124. X finds C absent and the
  // only way reserved: LINE_ALLOC_FAIL in 28..123. P's fill in 124 (register released in 126,
  // the fixed memory's 100) frees the way: X fails on the MSHR then (124). In 125 the write-back
  // stage takes P's access, freeing the MSHR: X (bank 0, tried first) misses and evicts A; B,
  // its line gone and the way reserved again, fails LINE_ALLOC now, in 125..222. X's fill in
  // 223 (released 225): B fails on the MSHR (223), misses in 224, released in 324: kernel 325.
  // MSHR_ENTRY: 98 + 1 (B) + 1 (X) = 100; LINE_ALLOC: 98 (B) + 96 (X) = 194.
  const gpu_config c = one_set_l1(1, 1);
  std::vector<trace_writer_inst> w{mem("LDG.E", {1}, {4}, 0x10000, 0), mem("LDG.E", {2}, {4}, 0x10020, 0),
                                   mem("LDG.E", {3}, {4}, 0x10200, 0), op("EXIT", {}, {})};
  kernel_result r = run1(c, make_kernel(70, {w}));
  EXPECT_EQ(r.stats.l1_misses, 3u);
  EXPECT_EQ(r.stats.l1_fails[unsigned(l1_fail::mshr_entry)], 100u);
  EXPECT_EQ(r.stats.l1_fails[unsigned(l1_fail::line_alloc)], 194u);
  EXPECT_EQ(r.stats.l1_reservation_fails(), 294u);
  EXPECT_EQ(r.cycles, 325u);
}

TEST(sm_core, l1_mshr_entry_fail_stays_when_its_line_is_evicted_from_a_set_not_all_reserved) {
  // An L1D of one set and two ways, two MSHRs (the LDST unit counts a repeated failure without
  // trying again until something it depends on changes: an eviction alone is not such a change).
  // P loads sector 0 of line D (L1 bank 0), E sector 0 of line E (bank 0), B sector 1 of line D
  // (bank 1), X sector 0 of line A (bank 0). They reach stage 0 in 26, 27, 28 and 29. P misses
  // in 26 (D takes way 0), E in 27 (way 1: both ways reserved, both MSHRs taken). B finds D
  // present, its sector not valid, no MSHR free: MSHR_ENTRY_FAIL from 28. X finds A absent and
  // both ways reserved: LINE_ALLOC_FAIL in 29..123. P's fill in 124 (register released in 126,
  // the fixed memory's 100) frees way 0: X fails on the MSHR then (124). In 125 the write-back
  // stage takes P's access, freeing its MSHR, and E's fill frees way 1: X (bank 0, first) misses
  // and evicts D, the least recently used way. B, its line gone but way 1 not reserved, still
  // fails on the MSHR (not LINE_ALLOC): 28..125 = 98. In 126 E's access is taken: B misses, D
  // replacing E. X released in 225, B in 226: kernel 227.
  // MSHR_ENTRY: 98 (B) + 1 (X) = 99; LINE_ALLOC: 95 (X).
  const gpu_config c = one_set_l1(2, 2);
  std::vector<trace_writer_inst> w{mem("LDG.E", {1}, {4}, 0x10000, 0), mem("LDG.E", {2}, {4}, 0x10200, 0),
                                   mem("LDG.E", {3}, {4}, 0x10020, 0), mem("LDG.E", {5}, {4}, 0x10400, 0), op("EXIT", {}, {})};
  kernel_result r = run1(c, make_kernel(70, {w}));
  EXPECT_EQ(r.stats.l1_misses, 4u);
  EXPECT_EQ(r.stats.l1_fails[unsigned(l1_fail::mshr_entry)], 99u);
  EXPECT_EQ(r.stats.l1_fails[unsigned(l1_fail::line_alloc)], 95u);
  EXPECT_EQ(r.stats.l1_reservation_fails(), 194u);
  EXPECT_EQ(r.cycles, 227u);
}

TEST(sm_core, l1_mshr_entry_fails_of_several_banks_repeat_until_each_gets_the_freed_entry) {
  // One L1 MSHR. P, Q, R, S load one sector each of four lines, in L1 banks 0, 1, 2 and 3: they
  // reach stage 0 in 26, 27, 28 and 29. P misses in 26 (the MSHR is taken); Q, R and S fail on
  // the MSHR every cycle (the LDST unit counts a repeated failure without trying again while the
  // MSHRs stay full, and stays quiet meanwhile). A miss in m is filled in m + 98, the write-back
  // stage takes it in m + 99, freeing the MSHR, and its register is released in m + 100 (the
  // fixed memory's 100 cycles). The banks are tried in order, so Q (bank 1) misses in 125, R in
  // 224, S in 323, released in 423: kernel 424. MSHR_ENTRY fails: Q 27..124 (98), R 28..223
  // (196), S 29..322 (294) = 588. The same with the idle skip off (every cycle tried in full).
  gpu_config c = shipped("QV100");
  c.l1_mshrs = 1;
  std::vector<trace_writer_inst> w{mem("LDG.E", {1}, {4}, 0x10000, 0), mem("LDG.E", {2}, {4}, 0x10220, 0),
                                   mem("LDG.E", {3}, {4}, 0x10440, 0), mem("LDG.E", {5}, {4}, 0x10660, 0), op("EXIT", {}, {})};
  for (bool skip_idle : {true, false}) {
    fixed_latency_memory m(100);
    gpu_sim g(c, &m, 1);
    g.skip_idle_cycles = skip_idle;
    const kernel_result r = g.run(make_kernel(70, {w}));
    EXPECT_EQ(r.stats.l1_misses, 4u) << "skip_idle " << skip_idle;
    EXPECT_EQ(r.stats.l1_fails[unsigned(l1_fail::mshr_entry)], 588u) << "skip_idle " << skip_idle;
    EXPECT_EQ(r.stats.l1_reservation_fails(), 588u) << "skip_idle " << skip_idle;
    EXPECT_EQ(r.cycles, 424u) << "skip_idle " << skip_idle;
  }
}

TEST(sm_core, l1_load_merges_into_the_mshr_entry_of_an_evicted_line) {
  // An L1D of one set and two ways. Five LDG of sector 0 (L1 bank 0, in one pipeline): A, B, A
  // again, C, A again; they would reach stage 0 in 26..30. A misses in 26 (way 0), B in 27 (way
  // 1), the second A merges into A's MSHR entry in 28 (a pending hit). C finds both ways
  // reserved: LINE_ALLOC_FAIL in 29..123. A's fill in 124 frees way 0: C misses and evicts line A,
  // whose MSHR entry still holds its two loads (the write-back stage takes one a cycle, from 125).
  // The third A reaches stage 0 in 125, as C left it in 124; B's fill (27 + 98) has freed way 1.
  // Line A is not present, but its sector's MSHR entry is (GPGPU-Sim probes the MSHRs by address
  // after the tags): it merges, a pending hit, and is written back after the other two (taken in
  // 127). Had it missed instead, it would take way 1 and its own memory read (released in 225).
  // C, missed in 124, is released in 224: kernel 225.
  const gpu_config c = one_set_l1(2);
  std::vector<trace_writer_inst> w{mem("LDG.E", {1}, {4}, 0x10000, 0), mem("LDG.E", {2}, {4}, 0x10200, 0),
                                   mem("LDG.E", {3}, {4}, 0x10000, 0), mem("LDG.E", {5}, {4}, 0x10400, 0),
                                   mem("LDG.E", {6}, {4}, 0x10000, 0), op("EXIT", {}, {})};
  kernel_result r = run1(c, make_kernel(70, {w}));
  EXPECT_EQ(r.stats.l1_misses, 3u);
  EXPECT_EQ(r.stats.l1_pending_hits, 2u);
  EXPECT_EQ(r.stats.mem_reads, 3u);
  EXPECT_EQ(r.stats.l1_fails[unsigned(l1_fail::line_alloc)], 95u);
  EXPECT_EQ(r.stats.l1_reservation_fails(), 95u);
  EXPECT_EQ(r.cycles, 225u);
}

TEST(sm_core, merged_loads_write_back_one_a_cycle) {
  // Three LDG of one sector (every lane at one address) into R1, R2, R3, then FFMA R5 <- R3: the
  // first misses, the other two merge into its MSHR entry (pending hits). The fill brings all
  // three, but the LDST unit's write-back stage takes one access a cycle (mshr_table::next_access,
  // one m_next_wb): R1 is released when a lone load's register would be, R2 one cycle later, R3
  // two. The same kernel with the LDG into R3 alone misses at the same cycle (it is the first
  // instruction either way), so the FFMA waits exactly 2 cycles more with the merges.
  gpu_config c = shipped("QV100");
  std::vector<trace_writer_inst> merged{mem("LDG.E", {1}, {4}, 0x10000, 0), mem("LDG.E", {2}, {4}, 0x10000, 0),
                                        mem("LDG.E", {3}, {4}, 0x10000, 0), op("FFMA", {5}, {3, 3, 3}), op("EXIT", {}, {})};
  std::vector<trace_writer_inst> alone{mem("LDG.E", {3}, {4}, 0x10000, 0), op("FFMA", {5}, {3, 3, 3}), op("EXIT", {}, {})};
  kernel_result m = run1(c, make_kernel(70, {merged}));
  kernel_result a = run1(c, make_kernel(70, {alone}));
  EXPECT_EQ(m.stats.l1_misses, 1u);
  EXPECT_EQ(m.stats.l1_pending_hits, 2u);
  EXPECT_EQ(a.stats.l1_misses, 1u);
  EXPECT_EQ(m.cycles, a.cycles + 2);
}

TEST(sm_core, writeback_arbiter_shared_memory_and_global_ready_together) {
  // GPGPU-Sim's ldst_unit::writeback: the free write-back stage walks its five clients (shared
  // memory 0, texture 1, constant 2, uncached global 3, L1D 4) from m_writeback_arb, takes the
  // first ready one and moves m_writeback_arb past it (0 at the start). A global load's answer
  // and a shared-memory load are made ready in the same cycle, 58, with the pointer at 0, then
  // (after a lone LDS moved it to 1) in 59.
  // LDG R1 (one sector): issue 2, unit issue 5, its access made in 6 (into the L1 bank pipeline,
  // or past the L1D straight to the crossbar, numbered 5), the dispatch register freed in 6; the
  // LDS, issued 3, unit-issues in 6. Through the L1D: miss in 26, sent in 27 numbered 26; with
  // the fixed memory's L cycles the register would be released in 26 + L: the fill comes in
  // 24 + L, the stage can take it from 25 + L: L = 33 gives 58. Past the L1D the access is
  // numbered 5: L = 54 gives the answer to client 3 in 57, takeable from 58 (21 cycles less).
  // LDS R2, 128-byte stride: conflict degree 32, in the dispatch register 7..38, enters the
  // 20-stage pipeline in 38, takeable from 58. From pointer 0 the stage takes the LDS in 58 and
  // writes R2 back in 59 (a dependent FFMA issues then); the global answer, the only ready client
  // then, is taken in 59 and R1 written back in 60.
  // With a first LDS R3 (stride 4: in the pipeline in 6, taken in 26, written back in 27, the
  // pointer then at 1) everything after it is one cycle later: LDG access in 7, LDS R2 takeable
  // from 59 and the global answer too, with the same L. From pointer 1 the global client (3 or
  // 4) comes before shared memory (0): R1 written back in 60, R2 in 61.
  for (const bool bypass : {false, true}) {
    gpu_config c = shipped("QV100");
    c.gmem_skip_l1d = bypass;
    const uint64_t latency = bypass ? 54 : 33;
    const auto issue_cycles = [&](const std::vector<trace_writer_inst>& w) {
      fixed_latency_memory m(latency);
      gpu_sim g(c, &m, 1);
      std::vector<uint64_t> issued;
      g.on_issue = [&](unsigned, unsigned, uint16_t, uint64_t cycle) { issued.push_back(cycle); };
      g.run(make_kernel(70, {w}));
      return issued;
    };
    const trace_writer_inst ldg = mem("LDG.E", {1}, {4}, 0x10000, 0), lds = mem("LDS", {2}, {4}, 0x0, 128);
    // Pointer at 0: shared memory first. Each FFMA issues in the cycle its source is written back.
    const std::vector<uint64_t> fresh =
        issue_cycles({ldg, lds, op("FFMA", {5}, {2, 2, 2}), op("FFMA", {6}, {1, 1, 1}), op("EXIT", {}, {})});
    ASSERT_EQ(fresh.size(), 5u) << bypass;
    EXPECT_EQ(fresh[2], 59u) << bypass;
    EXPECT_EQ(fresh[3], 60u) << bypass;
    // Pointer at 1: the global answer first.
    const std::vector<uint64_t> moved =
        issue_cycles({mem("LDS", {3}, {4}, 0x0, 4), ldg, lds, op("FFMA", {6}, {1, 1, 1}), op("FFMA", {5}, {2, 2, 2}), op("EXIT", {}, {})});
    ASSERT_EQ(moved.size(), 6u) << bypass;
    EXPECT_EQ(moved[3], 60u) << bypass;
    EXPECT_EQ(moved[4], 61u) << bypass;
  }
}

TEST(sm_core, shared_memory_bank_conflicts) {
  // LDS with a 128-byte stride: all 32 threads hit bank 0 at distinct words: 32 cycles in the
  // dispatch register (issue 2, unit issue 5, done at 5+32 = 37), then into the last of the
  // 20 shared-memory pipeline stages (m_pipeline_reg[smem_latency - 1]), one stage down a cycle:
  // stage 0 at 56; the write-back stage takes it in 57 (client 0) and writes it back in 58, which
  // releases R1: kernel 59.
  gpu_config c = shipped("QV100");
  std::vector<trace_writer_inst> w{mem("LDS", {1}, {4}, 0x0, 128), op("EXIT", {}, {})};
  kernel_result r = run1(c, make_kernel(70, {w}));
  EXPECT_EQ(r.stats.smem_bank_conflict_cycles, 31u);
  EXPECT_EQ(r.cycles, 59u);
  // Conflict-free (stride 4): one cycle -> done at 6, stage 0 at 25, taken in 26, written back
  // in 27, kernel 28 (one cycle more than an L1 hit, whose register is released at stage 0).
  std::vector<trace_writer_inst> w2{mem("LDS", {1}, {4}, 0x0, 4), op("EXIT", {}, {})};
  EXPECT_EQ(run1(c, make_kernel(70, {w2})).cycles, 28u);
  // A shared store is done when it leaves the dispatch register ("stores exit pipeline here"),
  // without the pipeline: STS with the 128-byte stride done at 5+32 = 37, the warp (its EXIT long
  // done) retires then: kernel 38.
  std::vector<trace_writer_inst> w3{mem("STS", {}, {4, 5}, 0x0, 128), op("EXIT", {}, {})};
  EXPECT_EQ(run1(c, make_kernel(70, {w3})).cycles, 38u);
}

TEST(sm_core, cta_occupancy_and_distribution) {
  gpu_config c = shipped("QV100");
  kernel_trace k = make_kernel(70, {chain("FFMA", 10, 1, {1, 2, 3})}, 8);
  EXPECT_EQ(sm_core::max_ctas(c, k), 32u);  // 1-warp CTAs, 32 regs: CTA slots limit
  k.nregs = 255;                            // rounded to 256: 256*32 regs per CTA: 65536/8192 = 8
  EXPECT_EQ(sm_core::max_ctas(c, k), 8u);
  // GPGPU-Sim's max_cta rounds registers per thread up to a multiple of 4: 8-warp CTAs with 50
  // registers count as 52: 65536 / (52 * 256) = 4 CTAs (50 would give 5).
  kernel_trace k8 = make_kernel(70, std::vector<std::vector<trace_writer_inst>>(8, {op("EXIT", {}, {})}));
  k8.nregs = 50;
  EXPECT_EQ(sm_core::max_ctas(c, k8), 4u);
  k8.nregs = 48;
  EXPECT_EQ(sm_core::max_ctas(c, k8), 5u);
  k.shmem = 49152;  // 98304 / 49152 = 2
  EXPECT_EQ(sm_core::max_ctas(c, k), 2u);
  k.shmem = 200000;
  EXPECT_EQ(sm_core::max_ctas(c, k), 0u);
  fixed_latency_memory m(100);
  gpu_sim g(c, &m, 2);
  EXPECT_THROW(g.start(k), std::runtime_error);
  // 8 one-warp CTAs on 2 SMs: each SM runs 4 CTAs concurrently (one per cycle, round robin).
  k.shmem = 0;
  k.nregs = 32;
  kernel_result r = g.run(k);
  EXPECT_EQ(r.sms_used, 2u);
  EXPECT_EQ(r.stats.ctas_done, 8u);
  EXPECT_EQ(r.stats.warp_insts, 8u * 11u);
  // 4 CTAs on 4 SMs: one each, all launched in cycle 1, so the kernel takes what one CTA takes:
  // 10 dependent FFMA = 2 + 10*7 + 1 = 73 cycles.
  gpu_sim g4(c, &m, 4);
  kernel_trace k4 = make_kernel(70, {chain("FFMA", 10, 1, {1, 2, 3})}, 4);
  kernel_result r4 = g4.run(k4);
  EXPECT_EQ(r4.sms_used, 4u);
  EXPECT_EQ(r4.cycles, 73u);
}

TEST(sm_core, barrier_waits_for_all_warps_of_the_cta) {
  // Warp 0: 20 dependent FFMA then BAR; warp 1: BAR at once then FFMA. Both first issue at 2
  // (fetched in rounds 1 and 0 of cycle 1). Warp 0's FFMA k issues at 2 + 7k, FFMA 19 at 135;
  // its BAR (decoded with EXIT in that cycle's refill) issues at 136 and, warp 1 having waited
  // since cycle 2, releases the barrier at once (GPGPU-Sim's warp_reaches_barrier; BAR does not
  // wait for the warp's own writes). In cycle 136 the issue order starts at scheduler
  // (136-1) mod 4 = 3, so scheduler 1 runs after scheduler 0 and warp 1's FFMA issues at 136 too
  // and writes back at 143; the EXITs issue at 137 and write back at 142. Kernel: 144.
  // Scheduler 1 stalls on the barrier in cycles 3..135: 133.
  gpu_config c = shipped("QV100");
  auto w0 = std::vector<trace_writer_inst>(20, op("FFMA", {1}, {1, 2, 3}));
  w0.push_back(op("BAR.SYNC", {}, {}));
  w0.push_back(op("EXIT", {}, {}));
  std::vector<trace_writer_inst> w1{op("BAR.SYNC", {}, {}), op("FFMA", {7}, {2, 3, 4}), op("EXIT", {}, {})};
  kernel_result r = run1(c, make_kernel(70, {w0, w1}));
  EXPECT_EQ(r.cycles, 144u);
  EXPECT_EQ(r.stats.sched_stalls[unsigned(stall_cause::barrier)], 133u);
}

TEST(sm_core, schedulers_lrr_and_two_level_finish_same_work) {
  for (const char* s : {"lrr", "gto", "two_level_active:2"}) {
    gpu_config c = shipped("QV100");
    c.sub_core = false;
    c.num_sched = 2;
    c.scheduler = s;
    std::vector<std::vector<trace_writer_inst>> w;
    for (unsigned i = 0; i < 8; ++i) w.push_back(indep("FFMA", 20, 10, {2, 3, 4}));
    kernel_result r = run1(c, make_kernel(70, w));
    EXPECT_EQ(r.stats.warp_insts, 8u * 21u) << s;
    EXPECT_GT(r.cycles, 80u) << s;  // 160 FFMA over 4 SP units at initiation 2
  }
}

TEST(sm_core, dual_issue_to_different_units) {
  // max_insn_issue_per_warp 2, no sub-cores (ID_OC sets shared, width 4). The buffer holds two
  // decoded instructions at cycle 2. FFMA + IADD3 (SP + INT): both issue in cycle 2. Two FFMAs:
  // with -gpgpu_dual_issue_diff_exec_units 1 the second waits for cycle 3; with 0 both go at 2.
  auto issue_cycles = [](gpu_config c, const std::vector<trace_writer_inst>& w) {
    fixed_latency_memory m(100);
    gpu_sim g(c, &m, 1);
    std::vector<uint64_t> at;
    g.on_issue = [&](unsigned, unsigned, uint16_t, uint64_t cyc) { at.push_back(cyc); };
    g.run(make_kernel(70, {w}));
    return at;
  };
  gpu_config c = shipped("QV100");
  c.sub_core = false;
  c.max_insn_issue_per_warp = 2;
  auto mixed = issue_cycles(c, {op("FFMA", {10}, {2, 3, 4}), op("IADD3", {11}, {2, 3, 4}), op("EXIT", {}, {})});
  ASSERT_EQ(mixed.size(), 3u);
  EXPECT_EQ(mixed[0], 2u);
  EXPECT_EQ(mixed[1], 2u);
  auto same = issue_cycles(c, {op("FFMA", {10}, {2, 3, 4}), op("FFMA", {11}, {2, 3, 4}), op("EXIT", {}, {})});
  EXPECT_EQ(same[0], 2u);
  EXPECT_EQ(same[1], 3u);
  c.dual_issue_diff_exec_units = false;
  auto same2 = issue_cycles(c, {op("FFMA", {10}, {2, 3, 4}), op("FFMA", {11}, {2, 3, 4}), op("EXIT", {}, {})});
  EXPECT_EQ(same2[1], 2u);
}

TEST(sm_core, watchdog_reports_a_deadlock) {
  // A configuration the validator would refuse (sub-core, one DP unit for four scheduler slots),
  // built by hand: warp 1 (scheduler 1) issues DADD into DP slot 1, which no unit serves.
  gpu_config c = shipped("QV100");
  c.num_dp = 1;
  fixed_latency_memory m(100);
  gpu_sim g(c, &m, 1);
  g.watchdog_cycles = 10000;
  kernel_trace k = make_kernel(70, {chain("DADD", 1, 10, {2, 4}), chain("DADD", 1, 10, {2, 4})});
  g.start(k);
  uint64_t n = 0;
  try {
    while (g.step() && ++n < 100000) {}
    FAIL() << "no deadlock reported";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no instruction issued for"), std::string::npos) << e.what();
  }
  EXPECT_LT(n, 20000u);
}

TEST(sm_core, two_level_scheduler_demotes_warps_waiting_on_loads) {
  // GPGPU-Sim's two_level_active_scheduler, worked by hand. One scheduler, no sub-cores, 4 warp
  // slots (128 threads per SM), active set of 2: active [0,1], pending [2,3] (every supervised
  // slot, live or not). One CTA of 3 warps:
  //   w0: LDG R1 <- [R4] (one sector: every lane at one address); FFMA R2 <- R1 R1 R1; EXIT
  //   w1, w2: FFMA R10 <- R2 R3 R4; EXIT
  // Each cycle order_warps first demotes active warps that are waiting (exited, empty slot, at a
  // barrier) or whose next buffered instruction reads a register of a global/local load in
  // flight (a long operation) to the back of pending, then promotes from the front of pending;
  // a warp that issues goes to the back of the active list.
  //  1: nothing decoded yet (all three are decoded in cycle 1's fetch rounds)     idle
  //  2: [0,1]: w0 LDG issues (R1 becomes a long operation)       -> [1,0]
  //  3: w0's next is FFMA reading R1: demoted; 2 promoted [1,2]: w1 FFMA  -> [2,1]
  //  4: w2 FFMA -> [1,2];  5: w1 EXIT -> [2,1];  6: w1 exited, demoted, 3 promoted [2,3]: w2 EXIT
  //  7: [3,2] both demoted (empty slot, exited), 0 and 1 promoted [0,1]: w0 waits on R1  scoreboard
  //  8: [0,1] both demoted, 3 and 2 promoted [3,2]: nothing to issue                      idle
  //  ... alternating: odd cycles scoreboard, even cycles idle, until the load is back:
  //  LDG: issue 2, unit 5, L1 access 6, sent after the L1 latency at 26, back 26 + 100 = 126.
  //  126: [0,1]: w0 no longer waiting, w1 demoted, 3 promoted [0,3]: w0 FFMA (writes back 133)
  //  127: [3,0] -> 3 demoted, 2 promoted [0,2]: w0 EXIT (INT, writes back 127 + 5 = 132)
  //  128..133: idle. Kernel: 133 + 1 = 134.
  // Stalls: scoreboard in cycles 7, 9, ..., 125: 60; idle in 1, 8, 10, ..., 124 (59) and
  // 128..133 (6): 66.
  gpu_config c = shipped("QV100");
  c.sub_core = false;
  c.num_sched = 1;
  c.max_threads_per_sm = 128;
  c.scheduler = "two_level_active:2:0:1";
  std::vector<trace_writer_inst> w0{mem("LDG.E", {1}, {4}, 0x10000, 0), op("FFMA", {2}, {1, 1, 1}), op("EXIT", {}, {})};
  std::vector<trace_writer_inst> w1{op("FFMA", {10}, {2, 3, 4}), op("EXIT", {}, {})};
  kernel_trace k = make_kernel(70, {w0, w1, w1});
  fixed_latency_memory m(100);
  gpu_sim g(c, &m, 1);
  std::vector<std::pair<unsigned, uint64_t>> issues;  // (warp, cycle)
  g.on_issue = [&](unsigned, unsigned w, uint16_t, uint64_t cyc) { issues.push_back({w, cyc}); };
  kernel_result r = g.run(k);
  const std::vector<std::pair<unsigned, uint64_t>> want{{0, 2}, {1, 3}, {2, 4}, {1, 5}, {2, 6}, {0, 126}, {0, 127}};
  EXPECT_EQ(issues, want);
  EXPECT_EQ(r.cycles, 134u);
  EXPECT_EQ(r.stats.sched_stalls[unsigned(stall_cause::scoreboard)], 60u);
  EXPECT_EQ(r.stats.sched_stalls[unsigned(stall_cause::idle)], 66u);
  // Loose round robin over the same trace: w0 stays eligible and w1/w2 issue in slot order; the
  // kernel is still w0's load chain (LDG at 2, data back at 126, FFMA 126 -> 133): 134 cycles.
  c.scheduler = "lrr";
  gpu_sim g2(c, &m, 1);
  issues.clear();
  g2.on_issue = g.on_issue;
  EXPECT_EQ(g2.run(k).cycles, 134u);
  EXPECT_EQ(issues.size(), 7u);
}

TEST(sm_core, fetch_throughput_one_staggers_the_front_end) {
  // -gpgpu_inst_fetch_throughput 1: one decode+fetch round per cycle, so a warp fetched in cycle
  // 1 is decoded in cycle 2 and first issues at 3. The dependent chain of 100 FFMA: FFMA 99 at
  // 3 + 693 = 696, back at 703; EXIT: refill fetched at 696, decoded 697, issued 698, back at
  // 698 + 5 = 703. Kernel 704 (with the shipped throughput 4: 703, where EXIT is back at 701).
  gpu_config c = shipped("QV100");
  c.inst_fetch_throughput = 1;
  EXPECT_EQ(run1(c, make_kernel(70, {chain("FFMA", 100, 1, {1, 2, 3})})).cycles, 704u);
  EXPECT_EQ(shipped("QV100").inst_fetch_throughput, 4u);
}

TEST(sm_core, register_bank_conflicts_in_the_operand_collector) {
  // QV100 sub-core: 16 banks / 4 schedulers = 4 banks per scheduler, bank = (reg + warp) mod 4.
  // FFMA R4 <- R4 R8 R12 (warp 0): all three sources in bank 0, one read per collector step.
  // Issue t; step 2 of t+1 reads R4 (R8, R12 refused: 2 conflicts); t+2 reads R8 (step 1, R12
  // refused: 1) and R12 (step 2); OC_EX t+3; unit t+4; writeback t+4+2+2 = t+8. A dependent
  // chain of 10: 2 + 10*8 + 1 = 83 cycles, 3 conflicts each = 30.
  gpu_config c = shipped("QV100");
  kernel_result r = run1(c, make_kernel(70, {chain("FFMA", 10, 4, {4, 8, 12})}));
  EXPECT_EQ(r.stats.bank_conflicts, 30u);
  EXPECT_EQ(r.cycles, 83u);
  // Sources in three different banks (R4, R5, R6): no conflicts, 2 + 10*7 + 1 = 73.
  kernel_result r2 = run1(c, make_kernel(70, {chain("FFMA", 10, 4, {4, 5, 6})}));
  EXPECT_EQ(r2.stats.bank_conflicts, 0u);
  EXPECT_EQ(r2.cycles, 73u);
}
