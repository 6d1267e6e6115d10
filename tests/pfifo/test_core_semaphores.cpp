// SPDX-License-Identifier: Apache-2.0
// PFIFO core: semaphores (old style NV1A/NV11/G84, new style G84, GF100 acquire masks and VM
// addresses, acquire retry and timeout). Streams are written in the pb-asm syntax; expected
// values follow the seed's pseudocode.
#include "core_fixture.h"

using namespace gpuvp::pfifo;
using gpuvp::pfifo::test::core_env;
using errs = std::vector<std::pair<err_type, uint32_t>>;

TEST(pfifo_CoreSemaphores, OldStyleG84ErrorsAndSuccess) {
  core_env e(gen::g84);
  e.bus.objs[0x20] = {0x300000, 0xff};
  e.ramht_add(0, 0x5e4, 0, 0x20);
  e.push(0,
         "inc 0 SEMAPHORE_ACQUIRE 1\n"  // no offset yet: INVALID_STATE (2)
         "inc 0 DMA_SEMAPHORE 0x5e4\n"
         "inc 0 SEMAPHORE_OFFSET 0x12\n"     // ADDRESS_UNALIGNED (1)
         "inc 0 SEMAPHORE_OFFSET 0x10000\n"  // ADDRESS_TOO_LARGE (3)
         "inc 0 SEMAPHORE_OFFSET 0x100\n"
         "inc 0 SEMAPHORE_RELEASE 5\n"  // past the DMA object limit 0xff: MEM_FAULT (4)
         "inc 0 SEMAPHORE_OFFSET 0x10\n"
         "inc 0 SEMAPHORE_RELEASE 0x55\n"
         "inc 0 SEMAPHORE_ACQUIRE 0x55\n"
         "inc 0 REF_CNT 1\n");
  EXPECT_EQ(e.run_ack(), (errs{{err_type::semaphore, 2}, {err_type::semaphore, 1}, {err_type::semaphore, 3}, {err_type::semaphore, 4}}));
  EXPECT_EQ(e.bus.r32(0x300010), 0x55u);
  EXPECT_EQ(e.core->chan(0).ref, 1u);
  EXPECT_EQ(e.core->chan(0).stats.semaphore_waits, 0u);
  EXPECT_TRUE(e.core->intr & fifo_core::intr_semaphore);
}

TEST(pfifo_CoreSemaphores, OldStyleNv1aChecksTheDmaObject) {
  core_env e(gen::nv1a);
  const uint64_t ramin = e.cfg.ramin_base;
  // NV4 DMA objects: word0 class | PT_PRESENT bit 12 | rights bits 14-15 (2 = WO); word1 limit; word2 frame
  auto put = [&](uint32_t sel, uint32_t w0) {
    e.bus.words(ramin + sel * 16, {w0, 0xfff, 0x300000 | 3});
    e.bus.objs[sel] = {0x300000, 0xfff};
  };
  put(0x40, 0x00009002);  // class 2, WO, PT present: accepted
  put(0x41, 0x00009003);  // class 3
  put(0x42, 0x00001002);  // RW
  put(0x43, 0x00008002);  // no PT
  for (uint32_t s = 0x40; s <= 0x43; ++s) e.ramht_add(0, 0x100 + s, 0, s);
  e.push(0,
         "inc 0 SEMAPHORE_RELEASE 1\n"  // unbound: INVALID_STATE
         "inc 0 DMA_SEMAPHORE 0x141\ninc 0 DMA_SEMAPHORE 0x142\ninc 0 DMA_SEMAPHORE 0x143\n"
         "inc 0 SEMAPHORE_OFFSET 0x1000\n"  // & ~0xffc: INVALID_OPERAND
         "inc 0 SEMAPHORE_OFFSET 0x2\n"
         "inc 0 DMA_SEMAPHORE 0x140\ninc 0 SEMAPHORE_OFFSET 0x20\n"
         "inc 0 SEMAPHORE_RELEASE 0x77\ninc 0 SEMAPHORE_ACQUIRE 0x77\ninc 0 REF_CNT 3\n");
  EXPECT_EQ(e.run_ack(), (errs{{err_type::semaphore, 2},
                               {err_type::semaphore, 1},
                               {err_type::semaphore, 1},
                               {err_type::semaphore, 1},
                               {err_type::semaphore, 1},
                               {err_type::semaphore, 1}}));
  EXPECT_EQ(e.bus.r32(0x300020), 0x77u);
  EXPECT_EQ(e.core->chan(0).ref, 3u);
  EXPECT_EQ(err_code_name(gen::nv1a, err_type::semaphore, 1), "INVALID_OPERAND");
  EXPECT_EQ(err_code_name(gen::g84, err_type::semaphore, 1), "ADDRESS_UNALIGNED");
}

TEST(pfifo_CoreSemaphores, BigEndianChannelNv1a) {
  core_env e(gen::nv1a);
  e.bus.words(e.cfg.ramin_base + 0x400, {0x00009002, 0xfff, 0x300003});
  e.bus.objs[0x40] = {0x300000, 0xfff};
  e.ramht_add(0, 0x140, 0, 0x40);
  e.core->chan(0).big_endian = true;
  auto w = assemble("inc 0 DMA_SEMAPHORE 0x140\ninc 0 SEMAPHORE_OFFSET 0\ninc 0 SEMAPHORE_RELEASE 0x11223344\n", gen::nv1a, "t");
  for (auto& x : w) x = __builtin_bswap32(x);  // the pushbuffer is big-endian too
  e.bus.words(0x10000, w);
  auto& c = e.core->chan(0);
  c.dma_get = 0x10000;
  c.dma_put = 0x10000 + 4 * w.size();
  e.run();
  EXPECT_TRUE(e.core->errors().empty());
  EXPECT_EQ(e.bus.mem[0x300000], 0x11);
  EXPECT_EQ(e.bus.mem[0x300003], 0x44);
}

// envytools orders the NV10 family NV10, NV15, NV1A, NV11, NV17: the seed's `NV1A-` semaphore
// methods exist on NV11 (its semaphore state is NV11:GF100), not on NV10.
TEST(pfifo_CoreSemaphores, Nv11HasTheOldStyleSemaphoresNv10DoesNot) {
  for (gen g : {gen::nv11, gen::nv10}) {
    core_env e(g);
    e.bus.words(e.cfg.ramin_base + 0x400, {0x00009002, 0xfff, 0x300003});  // class 2, WO, PT present
    e.bus.objs[0x40] = {0x300000, 0xfff};
    e.ramht_add(0, 0x140, 0, 0x40);
    e.bus.w32(0x300010, 0x99);
    // NV10 cannot even encode the names: write the headers as words (inc, subchannel 0, count 1).
    e.push(0, "word " + std::to_string(hdr_inc(0, 0x60, 1)) + " 0x140\nword " + std::to_string(hdr_inc(0, 0x64, 1)) + " 0x10\nword " +
                  std::to_string(hdr_inc(0, 0x6c, 1)) + " 0x55\nword " + std::to_string(hdr_inc(0, 0x68, 1)) + " 0x55\nword " +
                  std::to_string(hdr_inc(0, 0x50, 1)) + " 7\n");
    const auto got = e.run_ack();
    if (g == gen::nv11) {
      EXPECT_TRUE(got.empty()) << got.size();
      EXPECT_EQ(e.bus.r32(0x300010), 0x55u);  // released, then acquired without waiting
      EXPECT_EQ(e.core->chan(0).stats.semaphore_waits, 0u);
    } else {
      // Four methods the NV10 pusher does not know: DMA_PUSHER(INVALID_MTHD) each, and nothing written.
      EXPECT_EQ(got, (errs{{err_type::dma_pusher, pusher_err::invalid_mthd},
                           {err_type::dma_pusher, pusher_err::invalid_mthd},
                           {err_type::dma_pusher, pusher_err::invalid_mthd},
                           {err_type::dma_pusher, pusher_err::invalid_mthd}}));
      EXPECT_EQ(e.bus.r32(0x300010), 0x99u);
    }
    EXPECT_EQ(e.core->chan(0).ref, 7u) << gen_name(g);
  }
}

TEST(pfifo_CoreSemaphores, NewStyleG84) {
  core_env e(gen::g84);
  e.bus.objs[0x20] = {0x300000, 0xffff};
  e.ramht_add(0, 0x5e4, 0, 0x20);
  e.bus.w32(0x300080, 1);
  e.push(0,
         "inc 0 DMA_SEMAPHORE 0x5e4\n"
         "inc 0 SEMAPHORE_ADDRESS_HIGH 0x100\n"  // > 8 bits: ADDRESS_TOO_LARGE (3)
         "inc 0 SEMAPHORE_ADDRESS_LOW 0x42\n"    // ADDRESS_UNALIGNED (1)
         "inc 0 SEMAPHORE_ADDRESS_HIGH 0\ninc 0 SEMAPHORE_ADDRESS_LOW 0x40\n"
         "inc 0 SEMAPHORE_SEQUENCE 0x1234\ninc 0 SEMAPHORE_TRIGGER 2\n"  // WRITE_LONG
         "inc 0 SEMAPHORE_TRIGGER 1\n"                                   // ACQUIRE_EQUAL 0x1234: already done
         "inc 0 SEMAPHORE_ADDRESS_LOW 0x80\ninc 0 SEMAPHORE_SEQUENCE 0xfffffffe\n"
         "inc 0 SEMAPHORE_TRIGGER 4\n"                                       // GEQUAL: (int32)(1 - 0xfffffffe) = 3 >= 0: done
         "inc 0 SEMAPHORE_ADDRESS_LOW 0x10000\ninc 0 SEMAPHORE_TRIGGER 2\n"  // past limit: MEM_FAULT
         "inc 0 REF_CNT 1\n");
  EXPECT_EQ(e.run_ack(), (errs{{err_type::semaphore, 3}, {err_type::semaphore, 1}, {err_type::semaphore, 4}}));
  EXPECT_EQ(e.bus.r32(0x300040), 0x1234u);
  EXPECT_EQ(e.bus.r32(0x300044), 0u);
  const uint64_t ts = e.bus.r64(0x300048);
  EXPECT_GT(ts, 0u);
  EXPECT_LE(ts, e.now / 1000);
  EXPECT_EQ(e.core->chan(0).ref, 1u);
  EXPECT_EQ(e.core->chan(0).stats.semaphore_waits, 0u);
}

TEST(pfifo_CoreSemaphores, InvalidTriggerHangsTheChannel) {
  for (uint32_t op : {0u, 3u, 8u}) {  // 8 & 7 = 0 before GF100
    core_env e(gen::g84);
    e.bus.objs[0x20] = {0x300000, 0xffff};
    e.ramht_add(0, 0x5e4, 0, 0x20);
    e.bus.w32(0x300040, 5);
    e.push(0, "inc 0 DMA_SEMAPHORE 0x5e4\ninc 0 SEMAPHORE_ADDRESS_LOW 0x40\ninc 0 SEMAPHORE_SEQUENCE 6\ninc 0 SEMAPHORE_TRIGGER " +
                  std::to_string(op) + "\ninc 0 REF_CNT 1\n");
    e.run();
    EXPECT_TRUE(e.core->chan(0).hung) << op;
    EXPECT_EQ(e.core->hangs, 1u);
    EXPECT_TRUE(e.core->errors().empty());  // no interrupt: the channel just hangs
    EXPECT_EQ(e.core->intr, 0u);
    ASSERT_EQ(e.core->error_log().size(), 1u);
    EXPECT_EQ(e.core->error_log()[0].type, err_type::hang);
    EXPECT_EQ(e.core->chan(0).ref, 0u);
  }
}

TEST(pfifo_CoreSemaphores, Gf100AcquireMaskAndVmAddresses) {
  core_env e(gen::gf100);
  e.bus.w32(0x300040, 0x6);
  e.push(0,
         "inc 0 SEMAPHORE_ADDRESS_HIGH 0\ninc 0 SEMAPHORE_ADDRESS_LOW 0x300040\n"
         "inc 0 SEMAPHORE_SEQUENCE 0x4\ninc 0 SEMAPHORE_TRIGGER 8\n"  // 6 & 4 != 0: done
         "inc 0 SEMAPHORE_SEQUENCE 0x99\ninc 0 SEMAPHORE_TRIGGER 2\n"
         "inc 0 SEMAPHORE_ACQUIRE 1\n"  // GF100: semaphore_off_val is never set -> INVALID_STATE
         "inc 0 REF_CNT 2\n");
  EXPECT_EQ(e.run_ack(), (errs{{err_type::semaphore, 2}}));
  EXPECT_EQ(e.bus.r32(0x300040), 0x99u);
  EXPECT_EQ(e.core->chan(0).ref, 2u);
}

TEST(pfifo_CoreSemaphores, AcquireRetriedUntilAnotherChannelReleases) {
  core_env e(gen::g84, 2);
  e.bus.objs[0x20] = {0x300000, 0xffff};
  for (unsigned c = 0; c < 2; ++c) e.ramht_add(c, 0x5e4, 0, 0x20);
  e.push(0, "inc 0 DMA_SEMAPHORE 0x5e4\ninc 0 SEMAPHORE_OFFSET 0x80\ninc 0 SEMAPHORE_ACQUIRE 7\ninc 0 REF_CNT 1\n");
  e.push(1, "inc 0 DMA_SEMAPHORE 0x5e4\ninc 0 SEMAPHORE_OFFSET 0x80\ninc 0 SEMAPHORE_RELEASE 7\ninc 0 REF_CNT 2\n");
  e.run();
  EXPECT_TRUE(e.core->errors().empty());
  EXPECT_EQ(e.core->chan(0).ref, 1u);
  EXPECT_EQ(e.core->chan(1).ref, 2u);
  EXPECT_EQ(e.core->chan(0).stats.semaphore_waits, 1u);
  // channel 1 released within the first retry interval (1 us), so the first retry succeeds
  EXPECT_GE(e.core->chan(0).stats.semaphore_wait_ps, 1000000u);
  EXPECT_LT(e.core->chan(0).stats.semaphore_wait_ps, 1100000u);
  EXPECT_GE(e.core->chan(1).stats.channel_switches, 1u);
}

TEST(pfifo_CoreSemaphores, AcquireTimeout) {
  core_env e(gen::g84);
  e.bus.objs[0x20] = {0x300000, 0xffff};
  e.ramht_add(0, 0x5e4, 0, 0x20);
  e.push(0, "inc 0 DMA_SEMAPHORE 0x5e4\ninc 0 SEMAPHORE_OFFSET 0x80\ninc 0 SEMAPHORE_ACQUIRE 7\ninc 0 REF_CNT 1\n");
  e.run();
  ASSERT_EQ(e.core->errors().size(), 1u);
  const auto r = e.core->errors().front();
  EXPECT_EQ(r.type, err_type::acquire_timeout);
  EXPECT_TRUE(e.core->intr & fifo_core::intr_acquire_timeout);
  // timeout 50 us, retries every 1 us (+100 ps read latency each): fires at the 50th retry
  EXPECT_GE(r.time_ps, 50000000u);
  EXPECT_LT(r.time_ps, 51100000u);
  EXPECT_EQ(e.core->chan(0).ref, 0u);
  e.core->ack_error();
  e.run();
  EXPECT_EQ(e.core->chan(0).ref, 1u);
}

TEST(pfifo_CoreSemaphores, SeedLiteralTrigger) {
  // Literal pseudocode: WRITE_LONG only when param == 2, and it writes param (2), not the sequence.
  core_env e(gen::g84);
  e.cfg.seed_literal_trigger = true;
  e.core = std::make_unique<fifo_core>(e.cfg, e.bus);
  auto& c = e.core->chan(0);
  c.enabled = true;
  c.pb_dmaobj = 1;
  c.inst = 0x100000;
  e.bus.objs[0x20] = {0x300000, 0xffff};
  e.ramht_add(0, 0x5e4, 0, 0x20);
  e.push(0,
         "inc 0 DMA_SEMAPHORE 0x5e4\ninc 0 SEMAPHORE_ADDRESS_LOW 0x40\ninc 0 SEMAPHORE_SEQUENCE 0x77\n"
         "inc 0 SEMAPHORE_TRIGGER 2\ninc 0 SEMAPHORE_ADDRESS_LOW 0x80\ninc 0 SEMAPHORE_TRIGGER 0x1002\n"
         "inc 0 REF_CNT 1\n");
  e.run();
  EXPECT_EQ(e.bus.r32(0x300040), 2u);  // param, literally
  // 0x1002: op = 0x1002 & 7 = 2 but param != 2: an "acquire" with op 2 -> invalid combination: hang
  EXPECT_TRUE(c.hung);
  EXPECT_EQ(e.bus.r32(0x300080), 0u);
  EXPECT_EQ(c.ref, 0u);
}

TEST(pfifo_CoreSemaphores, Gf100MaskLiteralHangsDefaultWaits) {
  for (bool literal : {false, true}) {
    core_env e(gen::gf100);
    e.cfg.seed_literal_trigger = literal;
    e.core = std::make_unique<fifo_core>(e.cfg, e.bus);
    auto& c = e.core->chan(0);
    c.enabled = true;
    c.pb_dmaobj = 1;
    e.bus.w32(0x300040, 0x1);
    e.push(0, "inc 0 SEMAPHORE_ADDRESS_LOW 0x300040\ninc 0 SEMAPHORE_SEQUENCE 0x6\ninc 0 SEMAPHORE_TRIGGER 8\ninc 0 REF_CNT 1\n");
    e.run(5000000);  // 5 us: 1 & 6 == 0, nobody releases
    if (literal) {
      EXPECT_TRUE(c.hung);  // 8 & 7 = 0: invalid operation
    } else {
      EXPECT_FALSE(c.hung);
      EXPECT_TRUE(c.acquire_active);
      EXPECT_EQ(c.acquire_mode, 2u);
      e.bus.w32(0x300040, 0x4);  // 4 & 6 != 0: the next retry succeeds
      e.run(20000000);
      EXPECT_EQ(c.ref, 1u);
    }
  }
}

// dma_bind of the semaphore slot: every DMA_SEMAPHORE write bumps it, even with the same object.
// Two DMA_SEMAPHORE 0x5e4 then a RELEASE: the release write carries bind 2 from the puller; a
// pending acquire's retry on G84 comes from the background engine (client::semaphore_bg) with the
// same bind. The pushbuffer reads carry the pushbuffer slot's bind (0: set up directly here).
TEST(pfifo_CoreSemaphores, SemaphoreSlotBindGenerations) {
  core_env e(gen::g84);
  e.bus.objs[0x20] = {0x300000, 0xffff};
  e.ramht_add(0, 0x5e4, 0, 0x20);
  e.push(0,
         "inc 0 DMA_SEMAPHORE 0x5e4\ninc 0 DMA_SEMAPHORE 0x5e4\ninc 0 SEMAPHORE_OFFSET 0x80\n"
         "inc 0 SEMAPHORE_RELEASE 7\ninc 0 SEMAPHORE_ACQUIRE 8\n");
  e.run(3000000);  // the acquire of 8 (memory holds 7) is retried every 1 us
  unsigned releases = 0, retries = 0, pb_reads = 0;
  for (const auto& r : e.bus.dma_log) {
    if (r.obj == 1) {
      ++pb_reads;
      EXPECT_EQ(r.bind, 0u);
      EXPECT_EQ(r.c, client::pusher);
    } else if (r.obj == 0x20 && r.write) {
      ++releases;
      EXPECT_EQ(r.bind, 2u);
      EXPECT_EQ(r.c, client::puller);
    } else if (r.obj == 0x20 && r.c == client::semaphore_bg) {
      ++retries;
      EXPECT_EQ(r.bind, 2u);
    }
  }
  EXPECT_EQ(releases, 1u);
  EXPECT_GE(retries, 2u);
  EXPECT_GE(pb_reads, 1u);
  EXPECT_EQ(e.core->chan(0).sem_bind, 2u);
}
