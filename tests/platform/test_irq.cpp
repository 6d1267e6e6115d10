// SPDX-License-Identifier: Apache-2.0
// Interrupt aggregator (PMC): edge latching, W1C acknowledge, enable mask, host line.
#include <gtest/gtest.h>
#include "gpuvp/extension.h"
#include "gpuvp/irq.h"
#include "testing.h"

using namespace gpuvp;

namespace {
struct irq_fixture : gpuvp::testing::sim_test {
  irq_controller pmc{"pmc"};
  gpuvp::testing::test_initiator cpu{"cpu"};
  sc_core::sc_signal<bool> src0{"src0"}, src1{"src1"}, idle{"idle"}, host{"host"};
  std::vector<std::pair<unsigned, bool>> seen;
  irq_fixture() {
    pmc.lines[0].bind(src0);
    pmc.lines[1].bind(src1);
    for (unsigned i = 2; i < irq_controller::max_lines; ++i) pmc.lines[i].bind(idle);
    pmc.host_irq.bind(host);
    cpu.out.bind(pmc.regs.in);
    pmc.observer = [this](unsigned l, bool v) { seen.emplace_back(l, v); };
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
  uint32_t rd(uint64_t off) { return cpu.read32(off); }
  void wr(uint64_t off, uint32_t v) {
    cpu.write32(off, v);
    // The hook notifies the PMC's output process (one delta), which drives host_irq (one more).
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
  void drive(sc_core::sc_signal<bool>& s, bool v) {
    s.write(v);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
};
}  // namespace

TEST_F(irq_fixture, pulse_is_latched_until_acknowledged) {
  drive(src1, true);
  drive(src1, false);  // a pulse
  EXPECT_EQ(rd(0x100), 0x2u);
  EXPECT_EQ(rd(0x104), 0x0u);  // level is low again
  EXPECT_TRUE(host.read());
  wr(0x100, 0x2);  // W1C
  EXPECT_EQ(rd(0x100), 0x0u);
  EXPECT_FALSE(host.read());
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], std::make_pair(1u, true));
  EXPECT_EQ(seen[1], std::make_pair(1u, false));
}

TEST_F(irq_fixture, level_still_high_is_latched_again_after_ack) {
  drive(src0, true);
  wr(0x100, 0x1);
  EXPECT_EQ(rd(0x100), 0x1u);
  EXPECT_EQ(rd(0x104), 0x1u);
}

TEST_F(irq_fixture, enable_mask_gates_the_host_line) {
  wr(0x140, 0x0);
  drive(src0, true);
  EXPECT_EQ(rd(0x100), 0x1u);
  EXPECT_FALSE(host.read());
  wr(0x140, 0x1);
  EXPECT_TRUE(host.read());
  EXPECT_EQ(pmc.raised.value(), 1u);
}
