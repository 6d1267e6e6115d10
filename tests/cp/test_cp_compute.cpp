// SPDX-License-Identifier: Apache-2.0
// CP_EXEC_CS on the SM compute engine (models/sm): the dispatch port launches the n-th kernel of
// cp.launch.kernels with grid = NGROUPS from the payload; the CP keeps parsing while the kernel
// runs and CP_EVENT_WRITE waits for every kernel launched before it. Without a compute
// component the port only records (test_cp_model.cpp, ExecCsGoesToTheDispatchPort).
#include <functional>
#include <memory>

#include <gtest/gtest.h>

#include "cp_bench.h"
#include "gpuvp/config.h"
#include "testing.h"

using namespace gpuvp;
using namespace gpuvp::cp;

using namespace cp_test;

namespace {
constexpr uint64_t ts_addr = 0x20000;

struct cpCompute : gpuvp::testing::sim_test {
  std::unique_ptr<cp_bench> b;
  void run(std::function<void(cp_bench&)> script) {
    config::global().set("bench.cp.launch.kernels", CP_SM_DATA_DIR "/ffma/kernelslist.g", "test");
    config::global().set("bench.compute.sms", "1", "test");
    // 20000 core cycles of launch latency keep the kernel running while the CP goes on.
    config::global().set("bench.compute.launch_latency", "20000", "test");
    b = std::make_unique<cp_bench>("bench", std::move(script), true);
    sc_core::sc_start();
  }
};
}  // namespace

TEST_F(cpCompute, ExecCsRunsTheKernelAndEventWriteWaitsForIt) {
  run([](cp_bench& b) {
    // CP_EXEC_CS {0, NGROUPS 1,1,1} (the ffma trace's grid), then a PKT4 the CP runs at once.
    b.submit({t7(0x33, 4), 0, 1, 1, 1, t4(CP_SCRATCH_REG0, 1), 0x42});
    ASSERT_TRUE(b.until([&] { return b.read_reg(CP_SCRATCH_REG0) == 0x42; }));
    EXPECT_EQ(b.compute->kernels.value(), 0u);  // the CP continued while the kernel runs
    EXPECT_EQ(b.cp.cs_launched.value(), 1u);
    EXPECT_FALSE(b.cp.idle());  // a launched kernel keeps the CP busy
    // CP_EVENT_WRITE {TIMESTAMP | IRQ | event 4, addr lo, hi, 0x77}: written after the kernel.
    b.submit({t7(0x46, 4), 0x80000004u, uint32_t(ts_addr), 0, 0x77});  // IRQ, the value (no TIMESTAMP)
    ASSERT_TRUE(b.until([&] { return b.mem.read32(ts_addr) == 0x77; }));
    EXPECT_EQ(b.compute->kernels.value(), 1u);  // the timestamp landed after kernel_done
    ASSERT_TRUE(b.until([&] { return b.cp.idle(); }));
    EXPECT_EQ(b.read_reg(CP_INT_STATUS) & INT_EVENT, INT_EVENT);
  });
  ASSERT_EQ(b->cp.dispatches().size(), 1u);
  EXPECT_TRUE(b->cp.dispatches()[0].launched);
  EXPECT_EQ(b->cp.cs_completed.value(), 1u);
  EXPECT_EQ(b->cp.stall_compute.value(), 1u);
  EXPECT_EQ(b->compute->warp_insts.value(), 6u);  // the ffma trace: one warp, 6 instructions
  EXPECT_TRUE(b->cp.modelled_errors().empty());
}

TEST_F(cpCompute, GridMismatchIsACpFault) {
  run([](cp_bench& b) {
    b.submit({t7(0x33, 4), 0, 2, 1, 1});  // NGROUPS 2 x 1 x 1, the trace has 1 x 1 x 1
    ASSERT_TRUE(b.until([&] { return b.cp.idle(); }));
    EXPECT_EQ(b.read_reg(CP_HW_FAULT), 6u);  // FAULT_COMPUTE | dispatch #0 << 8
    EXPECT_EQ(b.read_reg(CP_INT_STATUS) & INT_ERROR, INT_ERROR);
  });
  EXPECT_FALSE(b->cp.dispatches()[0].launched);
  EXPECT_EQ(b->compute->kernels.value(), 0u);
  ASSERT_EQ(b->cp.modelled_errors().size(), 1u);
  EXPECT_NE(b->cp.modelled_errors()[0].find("CP_EXEC_CS #0"), std::string::npos);
  EXPECT_NE(b->cp.modelled_errors()[0].find("do not match"), std::string::npos);
}

TEST_F(cpCompute, MoreDispatchesThanKernelsIsACpFault) {
  run([](cp_bench& b) {
    // ffma's kernelslist has one kernel: the second CP_EXEC_CS has none (detail 1 = dispatch #1).
    b.submit({t7(0x33, 4), 0, 1, 1, 1, t7(0x33, 4), 0, 1, 1, 1});
    ASSERT_TRUE(b.until([&] { return b.cp.idle(); }));
    EXPECT_EQ(b.read_reg(CP_HW_FAULT), 0x106u);
  });
  EXPECT_EQ(b->cp.cs_launched.value(), 1u);
  EXPECT_EQ(b->cp.cs_completed.value(), 1u);
  ASSERT_EQ(b->cp.modelled_errors().size(), 1u);
  EXPECT_NE(b->cp.modelled_errors()[0].find("no kernel 2"), std::string::npos);
}

TEST_F(cpCompute, A5xxMeLaunchesThroughTheMeq) {
  // The PFP forwards CP_EXEC_CS and CP_EVENT_WRITE through the MEQ; the ME runs the same handlers.
  config::global().set("bench.cp.generation", "5", "test");
  run([](cp_bench& b) {
    b.submit({t7(0x33, 4), 0, 1, 1, 1, t7(0x46, 4), 0x4u, uint32_t(ts_addr), 0, 0x55});
    ASSERT_TRUE(b.until([&] { return b.mem.read32(ts_addr) == 0x55; }));
    EXPECT_EQ(b.compute->kernels.value(), 1u);
  });
  EXPECT_EQ(b->cp.cs_completed.value(), 1u);
  EXPECT_EQ(b->cp.stall_compute.value(), 1u);
  EXPECT_TRUE(b->cp.modelled_errors().empty());
}
