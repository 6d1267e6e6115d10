// SPDX-License-Identifier: Apache-2.0
// EXIT as Accel-Sim's trace_shader_core_ctx::checkExecutionStatusAndUpdate: an EXIT marks only
// its active lanes done; the warp issues until every lane of it exited (functional_done), then
// ends once its instructions wrote back. And one kernel of every trace generation, parsed and run.
// Cycles are worked out as in core_sm_test.cpp's header (QV100: one instruction per warp per
// cycle, a dependent FFMA chain costs L+5 = 7 cycles an instruction, a 10-FFMA chain alone runs
// 2 + 10*7 + 1 = 73 cycles, EXIT writes back 5 cycles after its issue).
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

trace_writer_inst masked(trace_writer_inst i, uint32_t mask) {
  i.mask = mask;
  return i;
}

// `n` dependent FFMA on R1 with active mask `mask`.
std::vector<trace_writer_inst> ffma_chain(unsigned n, uint32_t mask) {
  return std::vector<trace_writer_inst>(n, masked(op("FFMA", {1}, {1, 2, 3}), mask));
}

kernel_result run(const std::vector<std::vector<trace_writer_inst>>& warps, unsigned threads, unsigned binver = 70,
                  const std::string& gpu = "QV100") {
  const kernel_trace k = parse_kernel_trace_text(write_kernel_trace("k", 1, {1, 1, 1}, {threads, 1, 1}, binver, 0, 32, warps), "t.traceg");
  const gpu_config c = shipped(gpu);  // gpu_sim keeps a reference
  fixed_latency_memory m(100);
  gpu_sim g(c, &m, 1);
  return g.run(k);
}

}  // namespace

TEST(sm_exit, zero_mask_exit_does_not_end_the_warp) {
  // A predicated-off EXIT (mask 0, as NVBit traces every warp of a tensor-core kernel with one)
  // retires no lane: the warp goes on. It takes cycle 2's issue slot, so the chain shifts by one
  // cycle: 73 + 1 = 74. Its thread instructions: none.
  auto w = ffma_chain(10, ~0u);
  w.insert(w.begin(), masked(op("EXIT", {}, {}), 0));
  w.push_back(op("EXIT", {}, {}));
  kernel_result r = run({w}, 32);
  EXPECT_EQ(r.stats.warp_insts, 12u);
  EXPECT_EQ(r.stats.thread_insts, 11u * 32);
  EXPECT_EQ(r.cycles, 74u);
}

TEST(sm_exit, partial_masks_exit_lanes_at_different_instructions) {
  // A tail warp: lanes 4-31 exit first (fffffff0), lanes 0-3 run 10 FFMA and exit (0000000f).
  // Same timing as above (the first EXIT is issued in cycle 2); 28 + 10*4 + 4 thread instructions.
  auto w = ffma_chain(10, 0xfu);
  w.insert(w.begin(), masked(op("EXIT", {}, {}), 0xfffffff0u));
  w.push_back(masked(op("EXIT", {}, {}), 0xfu));
  kernel_result r = run({w}, 32);
  EXPECT_EQ(r.stats.warp_insts, 12u);
  EXPECT_EQ(r.stats.thread_insts, 28u + 40 + 4);
  EXPECT_EQ(r.cycles, 74u);
}

TEST(sm_exit, warp_ends_once_every_lane_exited_and_issues_nothing_after) {
  // All 32 lanes exit at the first EXIT: the instructions after it are never issued (the warp is
  // functional_done), whatever the trace holds.
  auto w = ffma_chain(10, ~0u);
  w.insert(w.begin(), op("EXIT", {}, {}));
  kernel_result r = run({w}, 32);
  EXPECT_EQ(r.stats.warp_insts, 1u);
  // EXIT issues in cycle 2 and writes back in 7: 8 cycles.
  EXPECT_EQ(r.cycles, 8u);
}

TEST(sm_exit, partial_warp_ends_when_its_threads_exited) {
  // A 48-thread block: warp 1 has lanes 0-15 only; an EXIT of those ends it (GPGPU-Sim's
  // init_warps counts the missing lanes as completed). Warp 0 splits its exit in two.
  std::vector<trace_writer_inst> w0 = {masked(op("EXIT", {}, {}), 0x0000ffffu), masked(op("EXIT", {}, {}), 0xffff0000u)};
  std::vector<trace_writer_inst> w1 = {masked(op("EXIT", {}, {}), 0x0000ffffu), op("FFMA", {1}, {1, 2, 3})};
  kernel_result r = run({w0, w1}, 48);
  EXPECT_EQ(r.stats.warp_insts, 3u);  // warp 1's FFMA after its last lane exited is not issued
  EXPECT_EQ(r.stats.thread_insts, 16u + 16 + 16);
  EXPECT_EQ(r.stats.ctas_done, 1u);
}

TEST(sm_exit, exit_of_a_lane_outside_the_block_is_refused) {
  // shd_warp_t::set_completed asserts the lane is an active thread: a trace error here.
  const std::string text = write_kernel_trace("k", 1, {1, 1, 1}, {48, 1, 1}, 70, 0, 32, {{op("EXIT", {}, {})}, {op("EXIT", {}, {})}});
  try {
    parse_kernel_trace_text(text, "t.traceg");
    FAIL() << "accepted";
  } catch (const trace_error& e) {
    EXPECT_NE(std::string(e.what()).find("EXIT of lanes ffff0000 that already exited or are not threads of the block"), std::string::npos)
        << e.what();
  }
}

TEST(sm_generations, one_kernel_per_trace_version_parses_and_runs) {
  // Each generation's kernel uses an opcode only its map has, in a 10-long dependent chain on R1
  // then EXIT, run on QV100. An SP chain (FFMA, latency 2: L+5 = 7) takes 2 + 10*7 + 1 = 73
  // cycles; an INT chain runs as Volta's IADD3 chain, INT latency 2 as SP's but its initiation
  // interval 2 also holds the EXIT behind the last instruction on the same INT unit.
  struct gen {
    unsigned version;
    const char* opcode;
    op_class cls;
  };
  auto chain_cycles = [](unsigned version, const char* opcode, op_class cls) {
    std::vector<trace_writer_inst> w(10, op(opcode, {1}, {1, 2}));
    w.push_back(op("EXIT", {}, {}));
    const kernel_trace k = parse_kernel_trace_text(write_kernel_trace("k", 1, {1, 1, 1}, {32, 1, 1}, version, 0, 32, {w}), "t.traceg");
    EXPECT_EQ(k.ctas[0].warps[0].insts[0].info.cls, cls);
    const gpu_config c = shipped("QV100");  // gpu_sim keeps a reference
    fixed_latency_memory m(100);
    gpu_sim s(c, &m, 1);
    kernel_result r = s.run(k);
    EXPECT_EQ(r.stats.warp_insts, 11u);
    return r.cycles;
  };
  EXPECT_EQ(chain_cycles(70, "FFMA", op_class::sp), 73u);
  const uint64_t volta_int = chain_cycles(70, "IADD3", op_class::intp);
  EXPECT_GT(volta_int, 73u);
  for (const gen& g :
       {gen{35, "ISUB", op_class::intp}, gen{60, "XMAD", op_class::intp}, gen{61, "XMAD.MRG", op_class::intp},
        gen{75, "UIADD3", op_class::intp}, gen{80, "I2FP.F32.S32", op_class::intp}, gen{86, "I2FP.F32.S32", op_class::intp}}) {
    SCOPED_TRACE(g.version);
    EXPECT_EQ(chain_cycles(g.version, g.opcode, g.cls), volta_int);
  }
}
