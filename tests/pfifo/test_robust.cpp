// SPDX-License-Identifier: Apache-2.0
// Runaway channels stay bounded: a pushbuffer loop costs simulated time on every step, an
// acknowledged MEM_FAULT resumes past the offending word, a channel that keeps faulting keeps a
// bounded record. Expected values are worked out from dma-pusher.rst in the comments.
#include <algorithm>
#include <gtest/gtest.h>
#include "core_fixture.h"

using namespace gpuvp::pfifo;
using namespace gpuvp::pfifo::test;

namespace {
using errs = std::vector<std::pair<err_type, uint32_t>>;
}

// `jump A` at A: dma_get returns to A forever. Every step costs word_cost (1000 ps) plus a
// fresh fetch (the jump drops the prefetched burst; the test bus charges 100 ps), so the run
// reaches `until` with the channel still busy, one fetch per word.
TEST(pfifo_CoreHang, JumpToItselfAdvancesTimeAndStaysBusy) {
  core_env e(gen::g84, 1);
  const uint64_t a = core_env::pb;
  e.push(0, "jump " + std::to_string(a) + "\n");
  e.run(1100000);  // 1.1 us: 1000 steps of 1100 ps
  const auto& c = e.core->chan(0);
  EXPECT_EQ(e.now, 1100000u);
  EXPECT_EQ(c.stats.words, 1000u);
  EXPECT_EQ(c.stats.fetches, c.stats.words);  // no free re-read of a cached burst
  EXPECT_NE(c.dma_get, c.dma_put);            // busy: the loop never reaches DMA_PUT
  EXPECT_TRUE(e.core->errors().empty());
}

// A cycle of jumps through two blocks (NV4 old jumps): the same, two words per turn.
TEST(pfifo_CoreHang, CycleOfOldJumpsAdvancesTime) {
  core_env e(gen::nv4, 1);
  e.push(0, "oldjump 0x13000\n", 0x12000);
  e.push(0, "oldjump 0x12000\n", 0x13000);
  auto& c = e.core->chan(0);
  c.dma_get = 0x12000;
  c.dma_put = 0x20000;
  e.core->kick(0);
  e.run(2200000);  // 2000 steps of 1100 ps
  EXPECT_EQ(c.stats.words, 2000u);
  EXPECT_EQ(c.stats.fetches, 2000u);
  EXPECT_EQ(e.now, 2200000u);
}

// dma-pusher.rst: `dma_get >= dma_limit` throws MEM_FAULT before dma_get advances. Acknowledging
// resumes at the next word (docs/models/pfifo.md): the two words at and past the limit (the second
// command's header and data) fault once each, then DMA_GET reaches DMA_PUT.
TEST(pfifo_CoreHang, AcknowledgedMemFaultAtTheLimitResumesPastTheWord) {
  core_env e(gen::g84, 1);
  const uint64_t at = e.push(0, "inc 0 REF_CNT 1\ninc 0 REF_CNT 2\n");
  auto& c = e.core->chan(0);
  c.dma_limit = at + 8;
  EXPECT_EQ(e.run_ack(), (errs{{err_type::dma_pusher, pusher_err::mem_fault}, {err_type::dma_pusher, pusher_err::mem_fault}}));
  ASSERT_EQ(e.core->error_log().size(), 2u);
  EXPECT_EQ(e.core->error_log()[0].position, at + 8);
  EXPECT_EQ(e.core->error_log()[1].position, at + 12);
  EXPECT_EQ(c.dma_get, c.dma_put);
  EXPECT_EQ(c.ref, 1u);
}

// An IB entry that cannot be read (IB past the DMA object): MEM_FAULT before ib_get advances;
// the acknowledge skips that entry. Two unreadable entries: two faults, then IB_GET == IB_PUT.
TEST(pfifo_CoreHang, AcknowledgedIbEntryMemFaultSkipsTheEntry) {
  core_env e(gen::g84, 1);
  auto& c = e.core->chan(0);
  c.ib_mode = true;
  c.ib_address = 0x2000000;  // past the test DMA object (16 MiB)
  c.ib_order = 4;
  c.ib_put = 2;
  EXPECT_EQ(e.run_ack(), (errs{{err_type::dma_pusher, pusher_err::mem_fault}, {err_type::dma_pusher, pusher_err::mem_fault}}));
  EXPECT_EQ(e.core->error_log()[1].position, 0x2000008u);
  EXPECT_TRUE(e.core->error_log()[1].ib_entry);
  EXPECT_EQ(c.ib_get, 2u);
}

// 6000 words past the limit: 6000 faults, all acknowledged; the core keeps the first
// log_capacity records and counts the rest.
TEST(pfifo_CoreHang, KeepsFaultingWithBoundedState) {
  core_env e(gen::g84, 1);
  auto& c = e.core->chan(0);
  c.dma_get = c.dma_mget = core_env::pb;
  c.dma_put = core_env::pb + 4 * 6000;
  c.dma_limit = core_env::pb;
  EXPECT_EQ(e.run_ack().size(), 6000u);
  EXPECT_EQ(e.core->errors_raised, 6000u);
  EXPECT_EQ(e.core->error_log().size(), fifo_core::log_capacity);
  EXPECT_TRUE(e.core->errors().empty());
  EXPECT_EQ(c.stats.errors, 6000u);
}
