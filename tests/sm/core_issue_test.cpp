// SPDX-License-Identifier: Apache-2.0
// The issue stage's kept answers: a warp whose scoreboard collision stands is skipped by the
// scheduler's scan (sm_core's sb_blocked_ mask) and a cycle whose front end has nothing to do
// only counts each scheduler's last stall cause (sm_core::front_end). Both must count the stall
// causes GPGPU-Sim's scheduler_unit::cycle counts and let the warp go once its register is written.
// Cycles are worked out as in core_sm_test.cpp's header (QV100: a dependent FFMA chain costs
// L+5 = 7 cycles an instruction, EXIT writes back 5 cycles after its issue, warp w on scheduler w % 4).
#include <gtest/gtest.h>

#include "core/gpu.h"
#include "core/gpu_config.h"
#include "core/trace.h"
#include "kernel_builder.h"

using namespace gpuvp::sm;
using gpuvp::gpu_memory::fixed_latency_memory;
using gpuvp::sm::testing::op;
using gpuvp::sm::testing::shipped;

namespace {

kernel_result run_warps(const std::vector<std::vector<trace_writer_inst>>& warps, bool skip_idle) {
  std::string text = write_kernel_trace("k", 1, {1, 1, 1}, {unsigned(warps.size()) * 32, 1, 1}, 70, 0, 32, warps);
  const kernel_trace k = parse_kernel_trace_text(text, "generated");
  const gpu_config c = shipped("QV100");  // gpu_sim keeps a reference
  fixed_latency_memory m(100);
  gpu_sim g(c, &m, 1);
  g.skip_idle_cycles = skip_idle;
  return g.run(k);
}

}  // namespace

TEST(sm_issue, refused_warp_skipped_until_its_write_back) {
  // Five warps: warp 0 a chain of 10 dependent FFMA (R1 <- R1 R2 R3) then EXIT, warps 1-4 an EXIT
  // each; warps 0 and 4 share scheduler 0. Cycle 1: the fetch rounds take warps 1, 2, 3, 4 (the
  // scan starts after warp 0), 1-3 decoded at once, 4 left in the fetch buffer. Cycle 2: warps
  // 1-3 issue their EXIT; decode of warp 4, then warp 0 (the only candidate) fetched and decoded.
  // Cycle 3: scheduler 0 issues FFMA 0 of warp 0 (LRR from its first warp); cycle 4: warp 4's
  // EXIT (LRR from the warp after 0), back at 9. FFMA k at 3 + 7k, FFMA 9 at 66, back at 73;
  // EXIT at 67. Kernel: 73 + 1 = 74 cycles, 15 instructions.
  // Scheduler 0 stalls on the scoreboard in the 6 cycles between FFMA k and k+1 (k = 0..8), but
  // for cycle 4 (warp 4 issues): 53. In cycle 9 warp 4 ends, every scheduler rescans, and warp 0,
  // still refused (its FFMA 0 is back at 10), is skipped but counts: scoreboard, not idle. The
  // other schedulers' warps have no registers: no scoreboard stall there.
  std::vector<std::vector<trace_writer_inst>> warps(5, {op("EXIT", {}, {})});
  warps[0] = std::vector<trace_writer_inst>(10, op("FFMA", {1}, {1, 2, 3}));
  warps[0].push_back(op("EXIT", {}, {}));
  for (bool skip_idle : {true, false}) {
    const kernel_result r = run_warps(warps, skip_idle);
    EXPECT_EQ(r.cycles, 74u) << "skip_idle " << skip_idle;
    EXPECT_EQ(r.stats.warp_insts, 15u);
    EXPECT_EQ(r.stats.sched_stalls[unsigned(stall_cause::scoreboard)], 53u) << "skip_idle " << skip_idle;
    EXPECT_EQ(r.stats.sched_stalls[unsigned(stall_cause::pipeline)], 0u);
    EXPECT_EQ(r.stats.sched_stalls[unsigned(stall_cause::barrier)], 0u);
  }
}

TEST(sm_issue, scheduler_settled_after_issue_counts_pipeline_stalls) {
  // One warp: nine DADD without registers (DP: latency 8, initiation 4; no operand reads, no
  // scoreboard) then EXIT. Scheduler 0 issues DADD 0-4 in cycles 2-6 (each leaves ID_OC in the next
  // cycle's first collector step; two collector units and the OC_EX slot hold three more). DP unit
  // 0 takes DADD k in cycle 4 + 4k (its dispatch register is busy for the initiation interval), so
  // from then on a freed ID_OC slot lets DADD k issue in cycle 4k - 12 (5-8 in 8, 12, 16, 20) and
  // the warp's buffered instruction waits three cycles with its port slot taken: pipeline stalls in
  // cycle 7 and in 9-11, 13-15, 17-19. EXIT issues in 21 (INT port); DADD 8, taken in 36, writes
  // back in 46, so the kernel takes 47 cycles. Scheduler 0: 10 pipeline stalls, idle in cycle 1
  // and 22-46 (26); schedulers 1-3 idle in all 46 cycles (138). The DP unit refuses the OC_EX
  // instruction 3 cycles between takes: 8 x 3 dispatch stalls. The issue stage settles a scheduler
  // right after it issues (its warps asked at once, the cause kept until a port slot frees), so
  // these counts check that shortcut against the scan a cycle-by-cycle scheduler would make.
  std::vector<std::vector<trace_writer_inst>> warps(1, std::vector<trace_writer_inst>(9, op("DADD", {}, {})));
  warps[0].push_back(op("EXIT", {}, {}));
  for (bool skip_idle : {true, false}) {
    const kernel_result r = run_warps(warps, skip_idle);
    EXPECT_EQ(r.cycles, 47u) << "skip_idle " << skip_idle;
    EXPECT_EQ(r.stats.warp_insts, 10u);
    EXPECT_EQ(r.stats.sched_stalls[unsigned(stall_cause::pipeline)], 10u) << "skip_idle " << skip_idle;
    EXPECT_EQ(r.stats.sched_stalls[unsigned(stall_cause::idle)], 164u) << "skip_idle " << skip_idle;
    EXPECT_EQ(r.stats.sched_stalls[unsigned(stall_cause::scoreboard)], 0u);
    EXPECT_EQ(r.stats.dispatch_stalls, 24u) << "skip_idle " << skip_idle;
  }
}
