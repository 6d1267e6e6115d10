// SPDX-License-Identifier: Apache-2.0
// The L2's MSHR entries and fills as GPGPU-Sim keeps them (gpu-cache.cc: mshr_table::mark_ready,
// next_access, full; baseline_cache::fill; tag_array::fill(index, ...); l2cache.cc:
// memory_sub_partition::cache_cycle), driven at the memory's port with QV100's shipped
// configuration. The timelines build on sm_memory's single_dependent_miss and
// l2_mshr_limit_stalls_the_l2_input (core_mem_test.cpp): a read cluster 0 sends in cycle s
// reaches the L2 in s + 164; sector 0 of GBASE's line, missing in 190, is filled into L2 in 327;
// sector 1, missing in 191, in 329. An answer that enters the L2 -> icnt queue in cycle q is
// pushed into the reply crossbar in q + 1 at the earliest, one a cycle, and is back at the
// cluster 4 cycles after its push (a hit in L2 cycle a: back in a + 5); a write is acknowledged
// 3 cycles after its L2 access.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/gpu_config.h"
#include "core/mem_log.h"
#include "core/memsys.h"
#include "kernel_builder.h"

using namespace gpuvp::sm;
using namespace gpuvp::gpu_memory;

namespace {

constexpr uint64_t GBASE = 0x7f4000000000ull;

// The first line from 1 GiB on (below 4 GiB: perf_memcpy_to_gpu keeps 32 address bits) in
// sub-partition sp, or with `in` false in another one.
uint64_t line_in(memory_system& m, unsigned sp, bool in = true) {
  uint64_t a = 0x40000000;
  while ((m.decode(a).sub_partition == sp) != in) a += 128;
  return a;
}

// The event log's L2 access lines, each cut after its cycle ("L2,190").
std::vector<std::string> l2_accesses(mem_event_log& log) {
  std::ostringstream os;
  log.flush(os, 1, "k");
  std::vector<std::string> l2;
  std::istringstream in(os.str());
  for (std::string line; std::getline(in, line);)
    if (line.rfind("L2,", 0) == 0) l2.push_back(line.substr(0, line.find(',', 3)));
  return l2;
}

// A client that records the cycle each tag is answered in: cluster 0 at crossbar node 0, or
// another engine (node ~0u: no crossbar; answered 5 cycles after its answer leaves the L2,
// without entering the L2 -> icnt queue).
struct recorder final : mem_client {
  explicit recorder(unsigned n) : node(n) {}
  void mem_done(uint64_t, bool, unsigned tag, uint64_t cycle) override { done.at(tag) = cycle; }
  unsigned icnt_node() const override { return node; }
  unsigned node;
  std::vector<uint64_t> done = std::vector<uint64_t>(8, 0);
};

struct send {
  uint64_t cycle, addr;
  bool write = false;
  uint32_t written = mem_port::whole_sector;
  bool by_engine = false;  // sent by another engine, not cluster 0
};

// Sends each access (tag: its index) in its cycle and runs the memory to cycle `until`.
std::vector<uint64_t> drive(memory_system& m, const std::vector<send>& sends, uint64_t until) {
  recorder p(0), engine(~0u);
  for (uint64_t cyc = 0; cyc < until; ++cyc) {
    m.cycle(cyc);
    for (unsigned i = 0; i < sends.size(); ++i)
      if (sends[i].cycle == cyc) {
        recorder* client = sends[i].by_engine ? &engine : &p;
        EXPECT_EQ(m.access(sends[i].addr, 32, sends[i].write, sends[i].written, cyc, client, i), mem_port::pending) << i;
      }
  }
  std::vector<uint64_t> done(sends.size());
  for (unsigned i = 0; i < sends.size(); ++i) done[i] = (sends[i].by_engine ? engine : p).done[i];
  return done;
}

}  // namespace

// One ready list per L2 (mshr_table::m_current_response). Sector 0 misses in 190 and two reads
// merge into it in 192 and 193; sector 1 misses in 191 and two reads merge in 194 and 195 (pending
// hits). Sector 0's fill (327) makes its entry ready: its accesses leave in 328, 329, 330
// (next_access, one a cycle from the cycle after the fill, the first step of cache_cycle).
// Sector 1's fill comes in 329, while sector 0's are still leaving: its entry waits behind, its
// accesses leave in 331, 332, 333. A hit on another line of the same L2, at the L2 in 331 (sent
// in 167), enters the L2 -> icnt queue in 331 after sector 1's first (which left in that cycle's
// first step). The queue hands one a cycle to the crossbar from 329: s0 s0 s0 s1 hit s1 s1, back
// 4 cycles later. (Leaving one a cycle from the cycle after its own fill, sector 1's second
// would enter the queue in 331 before the hit and be back first, in 337.)
TEST(sm_memory, l2_fill_during_an_earlier_fills_departures_waits_behind_them) {
  const gpu_config c = gpuvp::sm::testing::shipped("QV100");
  memory_system m(c);
  const uint64_t hit = line_in(m, m.decode(GBASE).sub_partition);
  m.memcpy_to_device(hit, 32);
  const std::vector<uint64_t> done =
      drive(m, {{26, GBASE}, {27, GBASE + 32}, {28, GBASE}, {29, GBASE}, {30, GBASE + 32}, {31, GBASE + 32}, {167, hit}}, 500);
  EXPECT_EQ(done, (std::vector<uint64_t>{333, 336, 334, 335, 338, 339, 337}));
  const mem_stats s = m.stats();
  EXPECT_EQ(s.l2_misses, 2u);
  EXPECT_EQ(s.l2_pending_hits, 4u);
  EXPECT_EQ(s.l2_hits, 1u);
  EXPECT_EQ(s.dram_reads, 2u);
  EXPECT_EQ(s.l2_reservation_fails, 0u);
}

// An MSHR entry is freed when its last access has left (next_access releases it), and entries
// whose fill is in still count (mshr_table::full). Two entries (-gpgpu_cache:dl2 A:2): sector 0
// (miss 190, merges 192 and 193) and sector 1 (miss 191, merge 194). Sector 2 reaches the L2 in
// 195 and fails for want of an entry (MSHR_ENRTY_FAIL) until sector 0's last access has left, in
// 330's first step: fails 195..329 (135), a miss in 330. Sector 3 is next (the input in order):
// sector 1's accesses leave behind sector 0's, in 331 and 332, so it fails in 331 and misses in
// 332: 136 fails. (Freed at its fill + its 2 accesses, 331, sector 1's entry would take sector 3
// at once: 135.) The answers leave as in the test above: back in 333, 334, 335 and 336, 337.
TEST(sm_memory, l2_mshr_entry_is_held_until_its_last_access_has_left) {
  gpu_config c = gpuvp::sm::testing::shipped("QV100");
  c.mem.l2.mshrs = 2;
  memory_system m(c);
  const std::vector<uint64_t> done =
      drive(m, {{26, GBASE}, {27, GBASE + 32}, {28, GBASE}, {29, GBASE}, {30, GBASE + 32}, {31, GBASE + 64}, {32, GBASE + 96}}, 800);
  EXPECT_EQ(std::vector<uint64_t>(done.begin(), done.begin() + 5), (std::vector<uint64_t>{333, 336, 334, 335, 337}));
  EXPECT_GT(done[5], 335u);  // sectors 2 and 3: their own DRAM reads
  EXPECT_GT(done[6], done[5]);
  const mem_stats s = m.stats();
  EXPECT_EQ(s.l2_fail_mshr_entry, 136u);
  EXPECT_EQ(s.l2_reservation_fails, 136u);
  EXPECT_EQ(s.l2_misses, 4u);
  EXPECT_EQ(s.l2_pending_hits, 3u);
  EXPECT_EQ(s.dram_reads, 4u);
}

// A fill goes to the L2 index its miss took (baseline_cache::fill: tag_array::fill(index, ...)),
// whatever line holds it by then. One L2 set of one way (one channel, one sub-partition). Line
// A's sector 0 misses in 190 (filled in 327); a whole-sector write to it in 191 is HIT_RESERVED:
// the sector is MODIFIED from now (its fill still due), so A's line is no longer reserved
// (is_reserved_line). A 4-byte write to line B in 192 is a MISS that replaces A (A's MODIFIED
// sector written back: one DRAM write) and leaves B's sector 0 MODIFIED but unreadable
// (lazy fetch-on-read). A's fill in 327 then fills that index, B's line: its sector 0 becomes
// VALID (B's allocation cleared m_set_modified_on_fill), so it is no longer dirty. A's read is
// answered with its fill (back 333). A read of B in 364 (sent 200) hits: back 369. A read of line
// C in 464 (sent 300) misses and replaces B, which is clean: no write-back. (Filling only a line
// still present, B's read would be a SECTOR_MISS with its own DRAM read, and B's eviction a
// second DRAM write.)
TEST(sm_memory, l2_fill_goes_to_the_index_its_miss_took) {
  gpu_config c = gpuvp::sm::testing::shipped("QV100");
  c.mem.n_mem = 1;
  c.mem.sub_per_channel = 1;
  c.mem.partition_indexing = 0;
  c.mem.l2.sets = 1;
  c.mem.l2.ways = 1;
  memory_system m(c);
  const uint64_t A = GBASE, B = GBASE + 128, C = GBASE + 256;
  const std::vector<uint64_t> done = drive(m, {{26, A}, {27, A, true}, {28, B, true, 0xfu}, {200, B}, {300, C}}, 900);
  EXPECT_EQ(std::vector<uint64_t>(done.begin(), done.begin() + 4), (std::vector<uint64_t>{333, 194, 195, 369}));
  EXPECT_GT(done[4], 469u);  // C: from the DRAM
  const mem_stats s = m.stats();
  EXPECT_EQ(s.l2_accesses, 5u);
  EXPECT_EQ(s.l2_writes, 2u);
  EXPECT_EQ(s.l2_misses, 3u);        // A's read, B's write, C's read
  EXPECT_EQ(s.l2_pending_hits, 1u);  // A's write
  EXPECT_EQ(s.l2_hits, 1u);          // B's read
  EXPECT_EQ(s.dram_reads, 2u);
  EXPECT_EQ(s.dram_writes, 1u);  // A's sector; B's was clean
}

// A full L2 -> icnt queue holds the ready list's next access back (l2cache.cc
// memory_sub_partition::cache_cycle: next_access only while !m_L2_icnt_queue->full()). That
// queue holds one answer (-gpgpu_dram_partition_queues' fourth field 1) and the reply
// crossbar's input buffer one packet (-icnt_in_buffer_limit 1), so an answer stays in the queue
// while the one before it waits for the crossbar (icnt_has_buffer). The held access is another
// engine's, answered 5 cycles after it leaves without entering the queue: a cluster's answer
// would wait in the same queue and buffer either way, and be back in the same cycle. Sector 0 of
// GBASE misses in 190; a read of cluster 0 merges in 192 and the engine's in 194 (sent 30: its
// request enters the sub-partition directly, ahead of a cluster's granted after it). The fill is
// in 327. A hit in GBASE's sub-partition at its L2 in 200 is back in 205: its grant moves the
// iSLIP pointer of the crossbar's output to cluster 0 past that sub-partition. A hit in another
// sub-partition at its L2 in 328 (sent 164) enters its queue in 328. 328: the miss's answer a0
// leaves. 329: a0 and the hit are pushed into their input buffers; the merge's answer a1 leaves
// (a0 moved on); the output grants the first input from its pointer on: the hit, back 333; a0
// waits. 330: a1 cannot be pushed (a0 fills the input buffer), so the queue is full: the
// engine's access is held; a0 is granted. 331: a1 is pushed and granted; the engine's access
// leaves: back 336. a0 is back 334, a1 335. (Leaving in 330 regardless of the full queue, the
// engine's access would be back in 335.)
TEST(sm_memory, l2_full_icnt_queue_holds_the_next_access_back) {
  gpu_config c = gpuvp::sm::testing::shipped("QV100");
  c.mem.l2_icnt_queue = 1;
  c.mem.icnt_in_buffer = 1;
  memory_system m(c);
  const unsigned sp = m.decode(GBASE).sub_partition;
  const uint64_t same = line_in(m, sp), other = line_in(m, sp, false);
  m.memcpy_to_device(same, 32);
  m.memcpy_to_device(other, 32);
  const send by_engine{30, GBASE, false, mem_port::whole_sector, true};
  const std::vector<uint64_t> done = drive(m, {{26, GBASE}, {28, GBASE}, by_engine, {36, same}, {164, other}}, 500);
  EXPECT_EQ(done, (std::vector<uint64_t>{334, 335, 336, 205, 333}));
  const mem_stats s = m.stats();
  EXPECT_EQ(s.l2_misses, 1u);
  EXPECT_EQ(s.l2_pending_hits, 2u);
  EXPECT_EQ(s.l2_hits, 2u);
  EXPECT_EQ(s.l2_queue_stalls, 0u);
  EXPECT_EQ(s.dram_reads, 1u);
}

// An access whose L2 -> DRAM queue is full is not made (memory_sub_partition::cache_cycle: no
// data_cache::access, no reservation fail) and is tried again each cycle; the cycle it is made in
// is the L2 access's (its --mem-log L2 event). A queue of one entry (-gpgpu_dram_partition_queues
// 64:1:64:64): sectors 0..3 of GBASE's line, sent in 26..29, reach the L2 in 190..193. Sector 0
// misses in 190; its request leaves the queue at DRAM edge 144 (gpu_sim_cycle 192: edge j's is
// j x 1132 / 850 rounded up), before the L2 step of 192. Sector 1 is not tried in 191 (full) and
// misses in 192: poppable from the first edge of gpu_sim_cycle >= 194, edge 145 (193.1 -> 194).
// Sector 2 waits behind it (one access a cycle), finds the queue full in 193, misses in 194:
// edge 147 (195.8 -> 196; edge 146 is 194.4 -> 195). Sector 3 finds it full in 195 and misses
// in 196. (Plenty of DRAM credits: a private one, then a shared pool of 64 + 192 + 1 - 2.)
TEST(sm_memory, l2_full_dram_queue_holds_the_access_until_the_dram_takes_its_head) {
  gpu_config c = gpuvp::sm::testing::shipped("QV100");
  c.mem.l2_dram_queue = 1;
  memory_system m(c);
  mem_event_log log(100);
  m.set_event_log(&log);
  drive(m, {{26, GBASE}, {27, GBASE + 32}, {28, GBASE + 64}, {29, GBASE + 96}}, 200);
  const mem_stats s = m.stats();
  EXPECT_EQ(s.l2_misses, 4u);
  EXPECT_EQ(s.l2_queue_stalls, 3u);  // 191, 193, 195
  EXPECT_EQ(s.l2_reservation_fails, 0u);
  EXPECT_EQ(l2_accesses(log), (std::vector<std::string>{"L2,190", "L2,192", "L2,194", "L2,196"}));
}

// A long stall on a full L2 -> DRAM queue is counted in each cycle, and the requests behind it
// move on meanwhile (a shortcut that passed over such a sub-partition's steps until the queue
// had room, tried in speed round 6, had to count each cycle and notice a packet arriving; it
// did not pay and was left out: docs/models/gpu_memory.md, "Benchmark"). One-entry L2 -> DRAM queue, and the DRAM takes from it only with a credit: a scheduler
// of 1 and a return queue of 1 leave a shared pool of 1 + 1 + 1 - 2 = 1 beside each
// sub-partition's private credit. Sectors 0..3 of GBASE's line reach the L2 in 190..193, as in
// the test above: sector 0 misses in 190 (popped at edge 144, gpu_sim_cycle 192, on the private
// credit), sector 1 in 192 (popped at edge 145, 194, on the shared one), sector 2 in 194; its
// request has no credit, so sector 3 waits from 195 until sector 0's read leaves the return queue
// (column 232, out at 245: its fill in 327, as in l2_mshr_limit_stalls_the_l2_input) and gives
// its credit back: sector 2's request goes at edge 245, and sector 3 misses in 327. Stalls: 191,
// 193, 195..326: 134. A hit on another line of the sub-partition is sent in 200 and is in the
// crossbar's output buffer from 203 (sector 3's request has left at edge 247 with sector 1's
// credit when it reaches the L2). With an icnt -> L2 queue of 8 it goes into the ROP queue at
// once (160 cycles), into the icnt -> L2 queue at 363: L2 access in 364. With one of 4 (the least
// accepted: a request leaves the output buffer only while that queue is empty, as four sectors
// must fit) it waits until sector 3 has gone: ROP queue 328, icnt -> L2 queue 488, access 489.
TEST(sm_memory, l2_long_dram_queue_stall_is_counted_each_cycle) {
  auto run = [](unsigned icnt_l2_queue) {
    gpu_config c = gpuvp::sm::testing::shipped("QV100");
    c.mem.l2_dram_queue = 1;
    c.mem.icnt_l2_queue = icnt_l2_queue;
    c.mem.frfcfs_queue = 1;
    c.mem.dram_return_queue = 1;
    memory_system m(c);
    const unsigned sp = m.decode(GBASE).sub_partition;
    const uint64_t same = line_in(m, sp);
    m.memcpy_to_device(same, 32);
    mem_event_log log(100);
    m.set_event_log(&log);
    drive(m, {{26, GBASE}, {27, GBASE + 32}, {28, GBASE + 64}, {29, GBASE + 96}, {200, same}}, 600);
    const mem_stats s = m.stats();
    EXPECT_EQ(s.l2_misses, 4u);
    EXPECT_EQ(s.l2_hits, 1u);
    EXPECT_EQ(s.l2_queue_stalls, 134u) << icnt_l2_queue;
    return l2_accesses(log);
  };
  using v = std::vector<std::string>;
  EXPECT_EQ(run(8), (v{"L2,190", "L2,192", "L2,194", "L2,327", "L2,364"}));
  EXPECT_EQ(run(4), (v{"L2,190", "L2,192", "L2,194", "L2,327", "L2,489"}));
}
