// CP_EXEC_CS on the SM compute engine (models/sm): the dispatch port launches the n-th kernel of
// cp.compute_kernels with grid = NGROUPS from the payload; the CP keeps parsing while the kernel
// runs and CP_EVENT_WRITE waits for every kernel launched before it. Without a compute
// component the port only records (test_cp_model.cpp, ExecCsGoesToTheDispatchPort).
#include <functional>
#include <memory>

#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>

#include "compute.h"
#include "cp.h"
#include "gpuvp/config.h"
#include "gpuvp/extension.h"
#include "gpuvp/memory.h"
#include "pm4.h"
#include "testing.h"

using namespace gpuvp;
using namespace gpuvp::cp;

namespace {
constexpr uint64_t ring_base = 0x10000;
constexpr uint64_t ts_addr = 0x20000;

struct cs_bench : sc_core::sc_module {
  sparse_memory mem{"mem"};
  sparse_memory vram{"vram"};
  cp_model cp{"cp"};
  sm::compute_engine compute{"compute"};
  sc_core::sc_signal<bool> irq_sig{"irq_sig"};
  tlm_utils::simple_initiator_socket<cs_bench> host{"host"};
  std::function<void(cs_bench&)> script;
  uint32_t wptr = 0;

  SC_HAS_PROCESS(cs_bench);
  cs_bench(sc_core::sc_module_name n, std::function<void(cs_bench&)> s) : sc_module(n), script(std::move(s)) {
    cp.mem.bind(mem.in);
    compute.out.bind(vram.in);
    host.bind(cp.regs.in);
    cp.irq(irq_sig);
    SC_THREAD(run);
  }
  void run() {
    write_reg(CP_RB_BASE, uint32_t(ring_base));
    write_reg(CP_RB_BASE_HI, 0);
    write_reg(CP_RB_CNTL, 10);
    script(*this);
    sc_core::sc_stop();
  }
  void write_reg(uint32_t r, uint32_t v) {
    transaction t(tlm::TLM_WRITE_COMMAND, 4ull * r, &v, 4);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    host->b_transport(t.gp, d);
    wait(d);
  }
  uint32_t read_reg(uint32_t r) {
    uint32_t v = 0;
    transaction t(tlm::TLM_READ_COMMAND, 4ull * r, &v, 4);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    host->b_transport(t.gp, d);
    wait(d);
    return v;
  }
  void submit(const std::vector<uint32_t>& words) {
    for (uint32_t w : words) mem.write32(ring_base + 4ull * wptr++, w);
    write_reg(CP_RB_WPTR, wptr);
  }
  // Steps in 10 ns until cond() holds or `limit` passes.
  bool until(const std::function<bool()>& cond, sc_core::sc_time limit = sc_core::sc_time(1, sc_core::SC_MS)) {
    const sc_core::sc_time end = sc_core::sc_time_stamp() + limit;
    while (sc_core::sc_time_stamp() < end) {
      if (cond()) return true;
      wait(sc_core::sc_time(10, sc_core::SC_NS));
    }
    return cond();
  }
};

struct cpCompute : gpuvp::testing::sim_test {
  std::unique_ptr<cs_bench> b;
  void run(std::function<void(cs_bench&)> script) {
    config::global().set("bench.cp.compute_component", "bench.compute", "test");
    config::global().set("bench.cp.compute_kernels", CP_SM_DATA_DIR "/ffma/kernelslist.g", "test");
    config::global().set("bench.compute.sms", "1", "test");
    // 20000 core cycles of launch latency keep the kernel running while the CP goes on.
    config::global().set("bench.compute.launch_latency", "20000", "test");
    b = std::make_unique<cs_bench>("bench", std::move(script));
    sc_core::sc_start();
  }
};
uint32_t t7(uint32_t op, uint32_t n) { return pm4_type7(op, n); }
uint32_t t4(uint32_t reg, uint32_t n) { return pm4_type4(reg, n); }
}  // namespace

TEST_F(cpCompute, ExecCsRunsTheKernelAndEventWriteWaitsForIt) {
  run([](cs_bench& b) {
    // CP_EXEC_CS {0, NGROUPS 1,1,1} (the ffma trace's grid), then a PKT4 the CP runs at once.
    b.submit({t7(0x33, 4), 0, 1, 1, 1, t4(CP_SCRATCH_REG0, 1), 0x42});
    ASSERT_TRUE(b.until([&] { return b.read_reg(CP_SCRATCH_REG0) == 0x42; }));
    EXPECT_EQ(b.compute.kernels.value(), 0u);  // the CP continued while the kernel runs
    EXPECT_EQ(b.cp.cs_launched.value(), 1u);
    EXPECT_FALSE(b.cp.idle());                 // a launched kernel keeps the CP busy
    // CP_EVENT_WRITE {TIMESTAMP | IRQ | event 4, addr lo, hi, 0x77}: written after the kernel.
    b.submit({t7(0x46, 4), 0xc0000004u, uint32_t(ts_addr), 0, 0x77});
    ASSERT_TRUE(b.until([&] { return b.mem.read32(ts_addr) == 0x77; }));
    EXPECT_EQ(b.compute.kernels.value(), 1u);  // the timestamp landed after kernel_done
    ASSERT_TRUE(b.until([&] { return b.cp.idle(); }));
    EXPECT_EQ(b.read_reg(CP_INT_STATUS) & INT_EVENT, INT_EVENT);
  });
  ASSERT_EQ(b->cp.dispatches().size(), 1u);
  EXPECT_TRUE(b->cp.dispatches()[0].launched);
  EXPECT_EQ(b->cp.cs_completed.value(), 1u);
  EXPECT_EQ(b->cp.stall_compute.value(), 1u);
  EXPECT_EQ(b->compute.warp_insts.value(), 6u);  // the ffma trace: one warp, 6 instructions
  EXPECT_TRUE(b->cp.modelled_errors().empty());
}

TEST_F(cpCompute, GridMismatchIsACpFault) {
  run([](cs_bench& b) {
    b.submit({t7(0x33, 4), 0, 2, 1, 1});  // NGROUPS 2 x 1 x 1, the trace has 1 x 1 x 1
    ASSERT_TRUE(b.until([&] { return b.cp.idle(); }));
    EXPECT_EQ(b.read_reg(CP_HW_FAULT), 6u);  // FAULT_COMPUTE | dispatch #0 << 8
    EXPECT_EQ(b.read_reg(CP_INT_STATUS) & INT_ERROR, INT_ERROR);
  });
  EXPECT_FALSE(b->cp.dispatches()[0].launched);
  EXPECT_EQ(b->compute.kernels.value(), 0u);
  ASSERT_EQ(b->cp.modelled_errors().size(), 1u);
  EXPECT_NE(b->cp.modelled_errors()[0].find("CP_EXEC_CS #0"), std::string::npos);
  EXPECT_NE(b->cp.modelled_errors()[0].find("do not match"), std::string::npos);
}

TEST_F(cpCompute, MoreDispatchesThanKernelsIsACpFault) {
  run([](cs_bench& b) {
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
