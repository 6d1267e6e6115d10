// SPDX-License-Identifier: Apache-2.0
// -network_mode 1 (booksim_fly.h): cycles worked out by hand from BookSim's code (GPGPU-Sim's
// intersim2: GPUTrafficManager::_Step, Channel's one-cycle delay, IQRouter's stages with
// routing_delay 0, vc_alloc_delay 1, sw_alloc_delay 1, crossbar delay 1, internal_speedup 2 or 1,
// the iSLIP allocator) and the BookSim options the model checks.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "core/booksim_fly.h"
#include "core/gpu_config.h"
#include "core/mem_config.h"

using gpuvp::gpu_memory::booksim_fly;

namespace {
struct run {
  booksim_fly<int> net;
  std::vector<std::tuple<unsigned, int, uint64_t>> out;  // dest, packet, first cycle poppable
  explicit run(unsigned vc_buf = 64, unsigned speedup = 2) { net.init(8, vc_buf, speedup); }
  void cycles(uint64_t from, uint64_t to) {
    for (uint64_t c = from; c <= to; ++c)
      net.step(
          c, [](unsigned) { return true; }, [&](unsigned d, int p, uint64_t t) { out.emplace_back(d, p, t); });
  }
};
}  // namespace

// Injected in cycle 10: the router receives it at 12 (channel written after the network's
// ReadInputs of 10, latency 1), VC allocation in step 24 and switch allocation in step 25 (the
// two internal steps of 12), crossbar in 26 (cycle 13, sent on the ejection channel), read by
// the traffic manager at 15 into the boundary buffer: popped in 16, five cycles after the local
// crossbar's 11.
TEST(booksim_fly, zero_load_packet_is_poppable_six_cycles_after_injection) {
  run r;
  ASSERT_TRUE(r.net.can_inject(0, 10));
  r.net.inject(0, 5, 1, 1, 10);
  EXPECT_FALSE(r.net.can_inject(0, 10));  // one flit a cycle
  EXPECT_TRUE(r.net.can_inject(0, 11));
  r.cycles(10, 11);
  EXPECT_TRUE(r.out.empty());
  r.cycles(12, 12);
  ASSERT_EQ(r.out.size(), 1u);
  EXPECT_EQ(r.out[0], std::make_tuple(5u, 1, uint64_t(16)));
  EXPECT_TRUE(r.net.empty());
}

// Two inputs for one output in the same cycle: iSLIP's grant pointer (0) picks node 1 in step 24;
// the output VC is held until the switch allocation of step 25, so node 2 gets it in step 26
// (popped 16, 17). The pointer is then past node 2 (3): of nodes 1 and 3, node 3 goes first.
TEST(booksim_fly, one_output_takes_a_packet_a_cycle_in_islip_order) {
  run r;
  r.net.inject(1, 0, 10, 1, 10);
  r.net.inject(2, 0, 20, 1, 10);
  r.cycles(10, 14);
  ASSERT_EQ(r.out.size(), 2u);
  EXPECT_EQ(r.out[0], std::make_tuple(0u, 10, uint64_t(16)));
  EXPECT_EQ(r.out[1], std::make_tuple(0u, 20, uint64_t(17)));
  r.net.inject(1, 0, 11, 1, 20);
  r.net.inject(3, 0, 31, 1, 20);
  r.cycles(15, 24);
  ASSERT_EQ(r.out.size(), 4u);
  EXPECT_EQ(r.out[2], std::make_tuple(0u, 31, uint64_t(26)));
  EXPECT_EQ(r.out[3], std::make_tuple(0u, 11, uint64_t(27)));
}

// One input's packets to different outputs, injected in 10 and 11: the second arrives at 13 and
// requests VC allocation in step 26, the step after the first one's switch allocation (25):
// popped 16 and 17.
TEST(booksim_fly, an_input_sends_one_packet_a_cycle) {
  run r;
  r.net.inject(3, 4, 1, 1, 10);
  r.net.inject(3, 6, 2, 1, 11);
  r.cycles(10, 14);
  ASSERT_EQ(r.out.size(), 2u);
  EXPECT_EQ(r.out[0], std::make_tuple(4u, 1, uint64_t(16)));
  EXPECT_EQ(r.out[1], std::make_tuple(6u, 2, uint64_t(17)));
}

// The router's input buffer of vc_buf_size flits: with 2, a third flit waits for a credit, which
// comes back two cycles after a flit leaves the buffer (switch allocation in cycle 12 -> 14).
TEST(booksim_fly, injection_waits_for_the_routers_buffer_credits) {
  run r(2);
  r.net.inject(0, 1, 1, 1, 10);
  r.net.inject(0, 1, 2, 1, 11);
  EXPECT_FALSE(r.net.can_inject(0, 12));
  r.cycles(10, 13);
  EXPECT_FALSE(r.net.can_inject(0, 13));
  EXPECT_TRUE(r.net.can_inject(0, 14));
}

// The BookSim options -network_mode 1 needs: another value (or BookSim's default where the
// file has none) names the key; too few nodes are refused too. internal_speedup 1, input_speedup 2
// (one VC: no effect) and packets of several flits are modelled.
TEST(booksim_fly, options_other_than_the_modelled_ones_are_refused) {
  const std::string dir = ::testing::TempDir();
  const std::string good =
      "topology = fly;\nk = 52;\nn = 1;\nrouting_function = dest_tag;\nnum_vcs = 1;\nvc_buf_size = 64;\nuse_map = 0;\n"
      "routing_delay = 0;\ninternal_speedup = 2.0;\nflit_size = 40;\n";
  auto error = [&](const std::string& body, unsigned nodes) {
    const std::string path = dir + "b.icnt";
    FILE* f = std::fopen(path.c_str(), "w");
    std::fputs(body.c_str(), f);
    std::fclose(f);
    gpuvp::gpu_memory::mem_config m;
    m.icnt_file = path;
    try {
      gpuvp::gpu_memory::load_icnt_file(m, path);
      gpuvp::gpu_memory::validate_booksim(m, m.icnt_file_k, "x.config");
      if (nodes) gpuvp::gpu_memory::validate_booksim(m, nodes, "x.config");
    } catch (const gpuvp::sm::config_file_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error(good, 0), "no error");
  EXPECT_NE(error(good + "num_vcs = 2;\n", 0).find("num_vcs = 2 is not modelled by -network_mode 1 (needs 1)"), std::string::npos);
  EXPECT_NE(error(good + "topology = mesh;\n", 0).find("topology = mesh is not modelled"), std::string::npos);
  EXPECT_NE(error(good + "internal_speedup = 1.5;\n", 0).find("internal_speedup = 1.5 is not modelled"), std::string::npos);
  EXPECT_NE(error(good + "output_speedup = 2;\n", 0).find("output_speedup = 2 is not modelled"), std::string::npos);
  EXPECT_EQ(error(good + "internal_speedup = 1.0;\ninput_speedup = 2;\nflit_size = 32;\n", 0), "no error");
  // Not in the file: BookSim's routing_delay default 1 (a routing stage the model lacks).
  std::string no_rd = good;
  no_rd.erase(no_rd.find("routing_delay = 0;\n"), 19);
  EXPECT_NE(error(no_rd, 0).find("routing_delay = 1 is not modelled"), std::string::npos);
  EXPECT_NE(error(good, 53).find("k = 52 nodes, fewer than the 53 clusters and sub-partitions"), std::string::npos);
}

// internal_speedup 1: one router step a cycle. Injected in 10, at the router in 12: VC allocation
// in step 12, switch 13, crossbar 14 (sent in 14), read by the traffic manager at 16: popped in
// 17, one cycle later than with two steps a cycle.
TEST(booksim_fly, one_router_step_a_cycle_adds_a_cycle_at_zero_load) {
  run r(64, 1);
  r.net.inject(0, 5, 1, 1, 10);
  r.cycles(10, 20);
  ASSERT_EQ(r.out.size(), 1u);
  EXPECT_EQ(r.out[0], std::make_tuple(5u, 1, uint64_t(17)));
}

// A packet of two flits (flit_size 32: a read reply of 40 bytes). Head injected in 10, body in
// 11. Two steps a cycle: head VC 24, switch 25, crossbar 26 (cycle 13, sent in 13); body at the
// router in 13, switch 26, crossbar 27 (cycle 13), but the output sends one flit a cycle: 14,
// popped in 17. One step a cycle: head VC 12, switch 13, crossbar 14; body switch 14 (the step
// after the head's), crossbar 15: popped in 18.
TEST(booksim_fly, a_packet_of_two_flits_is_poppable_when_its_tail_is) {
  for (unsigned speedup : {2u, 1u}) {
    run r(64, speedup);
    r.net.inject(0, 5, 1, 2, 10);
    EXPECT_FALSE(r.net.can_inject(0, 11));  // the body flit is still to be injected
    r.cycles(10, 11);
    EXPECT_TRUE(r.net.can_inject(0, 12));
    r.cycles(12, 20);
    ASSERT_EQ(r.out.size(), 1u);
    EXPECT_EQ(r.out[0], std::make_tuple(5u, 1, uint64_t(speedup == 2 ? 17 : 18))) << speedup;
    EXPECT_TRUE(r.net.empty());
  }
}

// The output VC is the packet's until its tail wins the switch: a second input's one-flit packet
// for the same output, at the router in the same cycle, waits. Node 1's two-flit packet wins VC
// allocation in step 24 (iSLIP pointer 0), its tail the switch in 26 (it arrives in cycle 13):
// node 2 gets the VC in 27, switch 28, crossbar 29 (cycle 14), sent in 15 (after node 1's tail
// in 14): popped in 17 and 18.
TEST(booksim_fly, a_packet_holds_its_output_until_its_tail_passes) {
  run r;
  r.net.inject(1, 0, 10, 2, 10);
  r.net.inject(2, 0, 20, 1, 10);
  r.cycles(10, 20);
  ASSERT_EQ(r.out.size(), 2u);
  EXPECT_EQ(r.out[0], std::make_tuple(0u, 10, uint64_t(17)));
  EXPECT_EQ(r.out[1], std::make_tuple(0u, 20, uint64_t(18)));
}

// Body flits need credits too: with a router buffer of one flit, the body waits for the head's
// credit (switch in step 25, cycle 12: back in 14), is injected in 14, at the router in 16
// (step 32), switch 32, crossbar 33 (cycle 16): popped in 19.
TEST(booksim_fly, body_flits_wait_for_credits) {
  run r(1);
  r.net.inject(0, 5, 1, 2, 10);
  r.cycles(10, 25);
  ASSERT_EQ(r.out.size(), 1u);
  EXPECT_EQ(r.out[0], std::make_tuple(5u, 1, uint64_t(19)));
}

// The values the router is built with, as read from the file: internal_speedup (BookSim's default
// 1.0 where absent) and input_buffer_size (0 or absent: 9 flits, InterconnectInterface's).
TEST(booksim_fly, file_values_reach_the_configuration) {
  const std::string path = ::testing::TempDir() + "v.icnt";
  auto read = [&](const std::string& body) {
    FILE* f = std::fopen(path.c_str(), "w");
    std::fputs(body.c_str(), f);
    std::fclose(f);
    gpuvp::gpu_memory::mem_config m;
    gpuvp::gpu_memory::load_icnt_file(m, path);
    return m;
  };
  EXPECT_EQ(read("flit_size = 40;\n").icnt_file_internal_speedup, 1u);
  EXPECT_EQ(read("internal_speedup = 2.0;\n").icnt_file_internal_speedup, 2u);
  EXPECT_EQ(read("internal_speedup = 1.0;\n").icnt_file_internal_speedup, 1u);
  EXPECT_EQ(read("flit_size = 40;\n").icnt_file_input_buffer, 9u);
  EXPECT_EQ(read("input_buffer_size = 0;\n").icnt_file_input_buffer, 9u);
  EXPECT_EQ(read("input_buffer_size = 256;\n").icnt_file_input_buffer, 256u);
}
