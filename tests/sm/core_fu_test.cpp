// SPDX-License-Identifier: Apache-2.0
// Function units, result buses and execute(): expected cycles worked out by hand from
// GPGPU-Sim's function-unit code (shader.h/shader.cc). Cycle c means the c-th call of execute_stage::execute(), from 0.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "core/fu.h"

using namespace gpuvp::sm;

namespace {

warp_inst make_inst(uint64_t uid, op_class op, unsigned lat, unsigned ii) {
  warp_inst w;
  w.valid = true;
  w.uid = uid;
  w.op = op;
  w.latency = lat;
  w.initiation = ii;
  w.dispatch_cycles = ii;  // set when the scheduler issues (warp_inst_t::issue)
  return w;
}

// One or more units fed from their own OC_EX ports; records the cycle each instruction issues
// into its unit and the cycle it reaches EX_WB (then drained, as writeback would).
struct bench {
  execute_stage ex;
  std::vector<std::unique_ptr<register_set>> ports;
  std::vector<std::pair<uint64_t, unsigned>> issued, written;  // uid, cycle
  unsigned cycle = 0;

  explicit bench(unsigned buses) : ex(buses, false) {}
  pipelined_unit* add(op_class op, unsigned depth, unsigned mult = 1) {
    ports.push_back(std::make_unique<register_set>(1, "OC_EX"));
    auto u = std::make_unique<pipelined_unit>("u", &ex.ex_wb(), depth, std::vector<op_class>{op});
    u->set_clock_multiplier(mult);
    auto* raw = u.get();
    ex.add_unit(std::move(u), ports.back().get(), 0);
    return raw;
  }
  void step() {
    std::vector<uint64_t> before;
    for (auto& p : ports) before.push_back(p->has_ready() ? p->get_ready()->uid : ~0ull);
    ex.execute();
    for (size_t i = 0; i < ports.size(); ++i)
      if (before[i] != ~0ull && !ports[i]->has_ready()) issued.push_back({before[i], cycle});
    for (unsigned s = 0; s < ex.ex_wb().size(); ++s) {
      warp_inst& w = ex.ex_wb().slot(s);
      if (!w.empty()) {
        written.push_back({w.uid, cycle});
        ex.ex_wb().clear_slot(w);
      }
    }
    ++cycle;
  }
};

unsigned cycle_of(const std::vector<std::pair<uint64_t, unsigned>>& v, uint64_t uid) {
  for (auto& [u, c] : v)
    if (u == uid) return c;
  return ~0u;
}

// Unit A (SP, latency 6) gets an instruction at cycle 0, unit B (DP, latency 4) one at cycle 2.
void run_a6_then_b4(bench& b) {
  b.add(op_class::sp, 6);
  b.add(op_class::dp, 4);
  warp_inst a = make_inst(1, op_class::sp, 6, 1);
  b.ports[0]->move_in(a);
  for (int i = 0; i < 12; ++i) {
    if (b.cycle == 2) {
      warp_inst w = make_inst(2, op_class::dp, 4, 1);
      b.ports[1]->move_in(w);
    }
    b.step();
  }
}

}  // namespace

TEST(sm_fu, can_issue_needs_empty_dispatch_and_free_latency_bit) {
  register_set ex_wb(1);
  pipelined_unit u("sp", &ex_wb, 8, {op_class::sp});
  register_set port(1);
  warp_inst a = make_inst(1, op_class::sp, 8, 4);
  EXPECT_TRUE(u.can_issue(a));
  EXPECT_FALSE(u.can_issue(make_inst(9, op_class::dp, 8, 4)));  // unsupported op
  port.move_in(a);                                              // issue() takes the instruction from a slot of its source set
  warp_inst& ready = *port.get_ready();
  u.issue(port, ready);
  EXPECT_TRUE(u.occupied().test(8));
  EXPECT_TRUE(ready.empty());
  EXPECT_TRUE(port.empty());
  EXPECT_FALSE(u.can_issue(make_inst(2, op_class::sp, 3, 1)));  // dispatch register busy
}

TEST(sm_fu, latency8_initiation4_issues_every_4_and_writes_back_after_latency) {
  // Each instruction: issue at c sets occupied[8] and dispatch counter 4. cycle() at c+1..c+3
  // counts 4->3->2->1 (delay), at c+4 1->0 -> enters stage 8-4 = 4, dispatch reg free; occupied
  // has shifted 4 times (bit 4), so bit 8 is free and the next one issues at c+4.
  // Stage 4 at c+4 -> 3,2,1,0 at c+5..c+8 -> EX_WB at c+9 (= issue + latency + 1).
  bench b(1);
  b.add(op_class::sp, 8);
  uint64_t next = 1;
  for (int i = 0; i < 40; ++i) {
    if (!b.ports[0]->has_ready() && next <= 5) {
      warp_inst w = make_inst(next++, op_class::sp, 8, 4);
      b.ports[0]->move_in(w);
    }
    b.step();
  }
  for (uint64_t k = 1; k <= 5; ++k) {
    EXPECT_EQ(cycle_of(b.issued, k), 4 * (k - 1)) << "inst " << k;
    EXPECT_EQ(cycle_of(b.written, k), 4 * (k - 1) + 9) << "inst " << k;
  }
  EXPECT_EQ(b.ex.result_bus_stalls, 0u);
  // Every cycle between issues found the unit busy: 3 dispatch stalls per interval, 4 intervals.
  EXPECT_EQ(b.ex.dispatch_stalls, 12u);
}

TEST(sm_fu, pipeline_stages_move_down_one_per_cycle_after_an_idle_gap) {
  // Depth 5, latency 5, ii 2 (pipelined_simd_unit::cycle): issued at c, the dispatch counter
  // counts 2->1 at c+1 (delay), 1->0 at c+2 -> enters stage 5-2 = 3; then stages 2, 1, 0 at
  // c+3..c+5 and EX_WB at c+6 (issue + latency + 1). The second instruction comes after the
  // pipeline stood empty for cycles (no stage moved then): the same path, 9 cycles later.
  bench b(1);
  pipelined_unit* u = b.add(op_class::sp, 5);
  std::vector<int> where;  // per cycle: the occupied stage (-1: none); at most one
  for (int i = 0; i < 20; ++i) {
    if (b.cycle == 0 || b.cycle == 9) {
      warp_inst w = make_inst(b.cycle == 0 ? 1 : 2, op_class::sp, 5, 2);
      b.ports[0]->move_in(w);
    }
    b.step();
    int at = -1;
    for (unsigned s = 0; s < u->depth(); ++s) {
      if (!u->stage(s).empty()) {
        EXPECT_EQ(at, -1) << "two stages occupied at cycle " << b.cycle - 1;
        at = int(s);
      }
    }
    where.push_back(at);
  }
  const std::vector<int> expected = {-1, -1, 3, 2, 1, 0, -1, -1, -1, -1, -1, 3, 2, 1, 0, -1, -1, -1, -1, -1};
  EXPECT_EQ(where, expected);
  EXPECT_EQ(cycle_of(b.written, 1), 6u);
  EXPECT_EQ(cycle_of(b.written, 2), 15u);
}

TEST(sm_fu, fully_pipelined_unit_issues_every_cycle) {
  // latency 4, ii 1: cycle() at c+1 counts 1->0 and moves to stage 3; bit 4 shifted once -> next
  // issues at c+1. Stage 3 at c+1, 0 at c+4, EX_WB at c+5.
  bench b(1);
  b.add(op_class::sp, 4);
  uint64_t next = 1;
  for (int i = 0; i < 20; ++i) {
    if (!b.ports[0]->has_ready() && next <= 4) {
      warp_inst w = make_inst(next++, op_class::sp, 4, 1);
      b.ports[0]->move_in(w);
    }
    b.step();
  }
  for (uint64_t k = 1; k <= 4; ++k) {
    EXPECT_EQ(cycle_of(b.issued, k), k - 1);
    EXPECT_EQ(cycle_of(b.written, k), k - 1 + 5);
  }
}

TEST(sm_fu, one_result_bus_same_writeback_cycle_stalls_the_second_unit) {
  // Unit A (latency 6) and unit B (latency 4), one result bus. A issues at 0: bus bit 6.
  // B's instruction arrives at cycle 2: the bus shifted twice (bit 4) -> test_res_bus(4) = -1,
  // B stalls one cycle (counted). Cycle 3: bit 3, bit 4 free -> B issues at 3.
  // A: EX_WB at 0+6+1 = 7; B: 3+4+1 = 8 (different cycles, as the bus guarantees).
  bench b(1);
  run_a6_then_b4(b);
  EXPECT_EQ(cycle_of(b.issued, 1), 0u);
  EXPECT_EQ(cycle_of(b.issued, 2), 3u);
  EXPECT_EQ(b.ex.result_bus_stalls, 1u);
  EXPECT_EQ(cycle_of(b.written, 1), 7u);
  EXPECT_EQ(cycle_of(b.written, 2), 8u);
}

TEST(sm_fu, two_result_buses_take_both) {
  // Same as above with two buses: test_res_bus(4) finds bus 1 free, B issues at 2, no stall.
  bench b(2);
  run_a6_then_b4(b);
  EXPECT_EQ(cycle_of(b.issued, 2), 2u);
  EXPECT_EQ(b.ex.result_bus_stalls, 0u);
  EXPECT_TRUE(b.ex.test_res_bus(0) == 0);
}

TEST(sm_fu, same_latency_same_cycle_one_bus) {
  // Two units, both latency 4, both ready at 0, one bus: unit 0 takes bit 4; unit 1 stalls
  // (test_res_bus(4) == -1), cycle 1: bit 3 set, bit 4 free -> issues at 1.
  bench b(1);
  b.add(op_class::sp, 4);
  b.add(op_class::intp, 4);
  warp_inst a = make_inst(1, op_class::sp, 4, 1), c = make_inst(2, op_class::intp, 4, 1);
  b.ports[0]->move_in(a);
  b.ports[1]->move_in(c);
  b.step();
  EXPECT_EQ(b.ex.test_res_bus(3), 0);
  EXPECT_EQ(b.ex.test_res_bus(4), -1);
  b.step();
  EXPECT_EQ(cycle_of(b.issued, 1), 0u);
  EXPECT_EQ(cycle_of(b.issued, 2), 1u);
  EXPECT_EQ(b.ex.result_bus_stalls, 1u);
}

TEST(sm_fu, clock_multiplier_2_runs_two_unit_cycles_per_core_cycle) {
  // latency 8, ii 4, multiplier 2: issue at 0. Core cycle 1: cycle() x2 counts 4->3->2;
  // cycle 2: 2->1, then 1->0 -> stage 4, occupied shifted 4 times -> next issues at 2.
  // Stage 4 after cycle 2 -> 2 after cycle 3 -> 0 after cycle 4 -> EX_WB in cycle 5 (issue + 5).
  bench b(1);
  b.add(op_class::sp, 8, 2);
  uint64_t next = 1;
  for (int i = 0; i < 20; ++i) {
    if (!b.ports[0]->has_ready() && next <= 3) {
      warp_inst w = make_inst(next++, op_class::sp, 8, 4);
      b.ports[0]->move_in(w);
    }
    b.step();
  }
  for (uint64_t k = 1; k <= 3; ++k) {
    EXPECT_EQ(cycle_of(b.issued, k), 2 * (k - 1));
    EXPECT_EQ(cycle_of(b.written, k), 2 * (k - 1) + 5);
  }
}

TEST(sm_fu, register_set_get_ready_is_oldest_and_sub_core_slots) {
  register_set r(3);
  warp_inst a = make_inst(7, op_class::sp, 1, 1), c = make_inst(3, op_class::sp, 1, 1);
  r.move_in(a);
  r.move_in(c);
  EXPECT_EQ(r.get_ready()->uid, 3u);
  EXPECT_EQ(r.occupancy(), 2u);
  EXPECT_TRUE(r.has_free(true, 2));
  EXPECT_FALSE(r.has_free(true, 0));
  EXPECT_EQ(r.get_ready(true, 0)->uid, 7u);
  warp_inst d = make_inst(9, op_class::sp, 1, 1);
  EXPECT_THROW(r.move_in(true, 1, d), std::logic_error);
}

TEST(sm_fu, register_set_oldest_follows_moves_and_clears_in_any_uid_order) {
  // get_ready() is the lowest uid among the occupied slots whatever the order of arrival (the
  // set keeps the oldest slot between calls: each insert and clear must keep it right).
  register_set r(4);
  warp_inst a = make_inst(5, op_class::sp, 1, 1), b = make_inst(2, op_class::sp, 1, 1), c = make_inst(9, op_class::sp, 1, 1);
  r.move_in(a);  // slot 0
  EXPECT_EQ(r.get_ready()->uid, 5u);
  r.move_in(b);  // slot 1: older
  r.move_in(c);  // slot 2: younger
  EXPECT_EQ(r.get_ready()->uid, 2u);
  r.clear_slot(*r.get_ready());  // uid 2 leaves slot 1
  EXPECT_EQ(r.get_ready()->uid, 5u);
  warp_inst d = make_inst(1, op_class::sp, 1, 1);
  r.move_in(d);  // slot 1 again, the oldest now
  EXPECT_EQ(r.get_ready()->uid, 1u);
  r.emplace(true, 3, 7).valid = true;  // slot 3, younger than 1
  EXPECT_EQ(r.get_ready()->uid, 1u);
  r.clear_slot(r.slot(0));  // uid 5, not the oldest: 1 stays
  EXPECT_EQ(r.get_ready()->uid, 1u);
  r.clear_slot(r.slot(1));  // uid 1: 7 (slot 3) and 9 (slot 2) left
  EXPECT_EQ(r.get_ready()->uid, 7u);
  EXPECT_EQ(r.occupancy(), 2u);
  r.clear_slot(r.slot(3));
  r.clear_slot(r.slot(2));
  EXPECT_EQ(r.get_ready(), nullptr);
  warp_inst e = make_inst(4, op_class::sp, 1, 1);
  r.move_in(e);
  EXPECT_EQ(r.get_ready()->uid, 4u);
}

TEST(sm_fu, result_bus_bits_survive_the_wrap_of_the_latency_window) {
  // A latency-510 instruction issued at cycle 0 takes bus 0's bit 510; each cycle shifts it down
  // by one (after 505 more cycles it is bit 5) and it writes back at 0 + 510 + 1 = 511. The
  // buses keep MAX_ALU_LATENCY (512) bits, so by then every bit position has been reused once.
  bench b(2);
  b.add(op_class::sp, 510);
  warp_inst a = make_inst(1, op_class::sp, 510, 1);
  b.ports[0]->move_in(a);
  b.step();
  EXPECT_EQ(cycle_of(b.issued, 1), 0u);
  EXPECT_EQ(b.ex.test_res_bus(510), 1);  // bus 0 taken at 510, bus 1 free
  EXPECT_TRUE(b.ex.result_bus(0)[510]);
  EXPECT_EQ(b.ex.result_bus(0).count(), 1u);
  while (b.cycle < 506) b.step();
  EXPECT_EQ(b.ex.test_res_bus(5), 1);
  EXPECT_EQ(b.ex.test_res_bus(4), 0);
  EXPECT_TRUE(b.ex.result_bus(1).none());
  while (b.cycle < 520) b.step();
  EXPECT_EQ(cycle_of(b.written, 1), 511u);
  EXPECT_TRUE(b.ex.result_bus(0).none());
  // After the wrap: a latency-3 instruction at cycle 520 takes bus 0 again, written at 524.
  warp_inst c = make_inst(2, op_class::sp, 3, 1);
  b.ports[0]->move_in(c);
  b.step();
  EXPECT_EQ(b.ex.test_res_bus(3), 1);
  while (b.cycle < 530) b.step();
  EXPECT_EQ(cycle_of(b.issued, 2), 520u);
  EXPECT_EQ(cycle_of(b.written, 2), 524u);
}
