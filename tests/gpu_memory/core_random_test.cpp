// SPDX-License-Identifier: Apache-2.0
// -gpgpu_memory_partition_indexing 4 (GPGPU-Sim addrdec.cc's RANDOM, SM6_TITANX): glibc's rand()
// sequence without process state (glibc_rand), the sub-partition drawn per chunk at its first
// decode, the SMs' decodes drawn in SM order, and the same results on any number of host threads.
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>
#include <vector>

#include "core/glibc_rand.h"
#include "core/gpu.h"
#include "core/gpu_config.h"
#include "core/memsys.h"
#include "core/trace.h"
#include "kernel_builder.h"
#include "paths.h"

using namespace gpuvp::sm;
using namespace gpuvp::gpu_memory;

namespace {
// The host is GNU libc: its srand / rand are the reference sequence.
std::vector<uint32_t> host_rand(unsigned seed, unsigned n) {
  std::srand(seed);
  std::vector<uint32_t> v(n);
  for (auto& x : v) x = uint32_t(std::rand());
  return v;
}

std::vector<uint32_t> model_rand(unsigned seed, unsigned n) {
  glibc_rand r(seed);
  std::vector<uint32_t> v(n);
  for (auto& x : v) x = r.next();
  return v;
}

struct cluster_port final : mem_client {
  explicit cluster_port(unsigned n) : node(n) {}
  void mem_done(uint64_t, bool, unsigned, uint64_t) override { ++answers; }
  unsigned icnt_node() const override { return node; }
  unsigned node;
  unsigned answers = 0;
};
}  // namespace

TEST(sm_random_indexing, glibc_rand_is_the_hosts_rand) {
  // seed 0 is seed 1 in glibc; 0x80000000 and ~0 are negative as the generator's signed word.
  for (unsigned seed : {1u, 0u, 2u, 12345u, 0x80000000u, 0xffffffffu})
    EXPECT_EQ(model_rand(seed, 5000), host_rand(seed, 5000)) << "seed " << seed;
  // The well-known first values of srand(1): the sequence GPGPU-Sim's addrdec starts.
  const auto first = model_rand(1, 3);
  EXPECT_EQ(first, (std::vector<uint32_t>{1804289383u, 846930886u, 1681692777u}));
  // A reseed starts over; every value is at most RAND_MAX.
  glibc_rand r(7);
  r.next();
  r.reseed(1);
  EXPECT_EQ(r.next(), 1804289383u);
  for (uint32_t v : model_rand(3, 1000)) EXPECT_LE(v, glibc_rand::max);
}

// SM6_TITANX: 12 channels x 2 sub-partitions, dramid@8: a chunk is 2^(8 - 1) = 128 bytes, its
// sub-partition rand() % 24 (srand(1)) at its first decode; channel = sub-partition / 2; bank and
// row those of the consecutive decode.
TEST(sm_random_indexing, first_decode_of_a_chunk_draws_its_sub_partition) {
  gpu_config c = gpuvp::sm::testing::shipped("TITANX");
  ASSERT_EQ(c.mem.partition_indexing, 4u);
  ASSERT_EQ(c.mem.sub_partitions(), 24u);
  memory_system m(c);
  EXPECT_TRUE(m.wants_decodes());
  gpu_config c0 = c;
  c0.mem.partition_indexing = 0;
  memory_system consecutive(c0);
  EXPECT_FALSE(consecutive.wants_decodes());
  const auto r = host_rand(1, 4);
  const uint64_t a[] = {0x7f4000003200, 0x7f4000000080, 0xf0000000, 0x7f4000003280};
  for (unsigned i = 0; i < 4; ++i) {
    const dram_address d = m.decode(a[i] + 4), x = consecutive.decode(a[i] + 4);
    EXPECT_EQ(d.sub_partition, r[i] % 24) << i;
    EXPECT_EQ(d.channel, r[i] % 24 / 2) << i;
    EXPECT_EQ(d.bank, x.bank) << i;
    EXPECT_EQ(d.row, x.row) << i;
  }
  // Another address of a decoded chunk draws nothing: the next chunk gets the fifth value.
  EXPECT_EQ(m.decode(0x7f4000003200 + 127).sub_partition, r[0] % 24);
  EXPECT_EQ(m.decode(0x7f4000000000).sub_partition, host_rand(1, 5)[4] % 24);
}

// GPGPU-Sim's cores make their mem_fetches in core order within a cycle; the SMs report theirs
// (an instruction fetch, a sector access) from their own threads, in any order across nodes: the
// draws follow the node order, each node's in its order, and an access's packet goes to the
// sub-partition drawn for it.
TEST(sm_random_indexing, sm_decodes_are_drawn_in_sm_order) {
  const gpu_config c = gpuvp::sm::testing::shipped("TITANX");
  memory_system m(c);
  cluster_port n0(0), n3(3);
  const uint64_t fetch = 0xf0000000, line3 = 0x7f4000010000, line0a = 0x7f4000020000, line0b = 0x7f4000030000;
  m.cycle(0);
  // Node 3 first on the host: a fetch, then a read. Node 0: a read, a fetch of node 3's chunk, a read.
  m.decoded(fetch, &n3);
  EXPECT_EQ(m.access(line3, 32, false, mem_port::whole_sector, 0, &n3, 0), mem_port::pending);
  EXPECT_EQ(m.access(line0a, 32, false, mem_port::whole_sector, 0, &n0, 0), mem_port::pending);
  m.decoded(fetch + 16, &n0);
  EXPECT_EQ(m.access(line0b, 32, false, mem_port::whole_sector, 0, &n0, 1), mem_port::pending);
  m.sms_stepped();
  // Node 0's chunks first (line0a, the fetch chunk, line0b), then node 3's new one (line3).
  const auto r = host_rand(1, 4);
  EXPECT_EQ(m.decode(line0a).sub_partition, r[0] % 24);
  EXPECT_EQ(m.decode(fetch).sub_partition, r[1] % 24);
  EXPECT_EQ(m.decode(line0b).sub_partition, r[2] % 24);
  EXPECT_EQ(m.decode(line3).sub_partition, r[3] % 24);
  // The reads reach the L2 slices drawn for them (misses there), and are answered.
  for (uint64_t cyc = 1; cyc < 2000 && n0.answers + n3.answers < 3; ++cyc) m.cycle(cyc);
  EXPECT_EQ(n0.answers, 2u);
  EXPECT_EQ(n3.answers, 1u);
  std::vector<uint64_t> misses(24, 0);
  for (unsigned i : {0u, 2u, 3u}) ++misses[r[i] % 24];
  for (unsigned sp = 0; sp < 24; ++sp) EXPECT_EQ(m.l2_bank_stats()[sp][2], misses[sp]) << "sub-partition " << sp;
}

// The draws depend on the order of decodes only: the SMs on several host threads (and the memory
// running ahead beside them) give the same kernel, statistics and L2 slices.
TEST(sm_random_indexing, host_threads_agree) {
  const gpu_config c = gpuvp::sm::testing::shipped("TITANX");
  const kernel_trace k = parse_kernel_trace_text(gpuvp::sm::testing::bandwidth_kernel_text(40, 70), "bandwidth");
  auto run = [&](unsigned threads) {
    auto m = make_memory(c, "gpgpu-sim");
    gpu_sim g(c, m.get(), 0);
    g.threads = threads;
    const kernel_result r = g.run(k);
    std::ostringstream os;
    print_kernel(os, r);
    for (const auto& b : dynamic_cast<memory_system&>(*m).l2_bank_stats()) os << b[0] << "," << b[1] << "," << b[2] << "," << b[3] << ";";
    return std::pair{os.str(), g.threads_used()};
  };
  const auto one = run(1), two = run(2);
  EXPECT_EQ(one.second, 1u);
  EXPECT_EQ(two.first, one.first);
}
