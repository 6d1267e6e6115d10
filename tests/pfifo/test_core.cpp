// SPDX-License-Identifier: Apache-2.0
// PFIFO core: pusher, puller methods per generation, RAMHT, engines, scheduling (semaphores:
// test_core_semaphores.cpp).
// Streams are written in the pb-asm syntax; expected values follow the seed's pseudocode.
#include "core_fixture.h"

using namespace gpuvp::pfifo;
using gpuvp::pfifo::test::core_env;
using errs = std::vector<std::pair<err_type, uint32_t>>;

namespace {
std::vector<uint32_t> params(const recording_engine& e, uint32_t mthd) {
  std::vector<uint32_t> v;
  for (auto& l : e.log)
    if (l.mthd == mthd) v.push_back(l.param);
  return v;
}
}  // namespace

TEST(pfifo_CorePuller, ObjectForwardingAndRamhtTranslation) {
  core_env e(gen::g84);
  e.ramht_add(0, 0xbeef0201, 1, 0x123);  // engine 1 = PGRAPH, object at inst + 0x1230
  e.push(0,
         "inc 0 OBJECT 0xbeef0201\n"
         "inc 0 0x100 0xa 0xb\n"     // 0x100 = 0xa, 0x104 = 0xb
         "ninc 0 0x104 1 2\n"        // 0x104 = 1, 0x104 = 2
         "inc 0 0x184 0xbeef0201\n"  // 0x180..0x1fc: RAMHT -> 0x123
         "inc 0 REF_CNT 7\n");
  e.run();
  ASSERT_TRUE(e.core->errors().empty());
  ASSERT_EQ(e.gr->log.size(), 6u);
  std::vector<std::pair<uint32_t, uint32_t>> got, want = {{0, 0x123}, {0x100, 0xa}, {0x104, 0xb}, {0x104, 1}, {0x104, 2}, {0x184, 0x123}};
  for (auto& l : e.gr->log) got.emplace_back(l.mthd, l.param);
  EXPECT_EQ(got, want);
  auto& c = e.core->chan(0);
  EXPECT_EQ(c.ref, 7u);
  EXPECT_EQ(c.dma_get, c.dma_put);
  EXPECT_EQ(c.stats.bytes_fetched, 4u * 12);  // 12 words
  EXPECT_EQ(c.stats.methods_puller, 2u);      // OBJECT, REF_CNT
  EXPECT_EQ(c.stats.methods_engine, 6u);
  EXPECT_EQ(c.stats.methods_inc, 5u);  // 1 + 2 + 1 + 1
  EXPECT_EQ(c.stats.methods_ninc, 2u);
  EXPECT_EQ(c.engines[0], 1);
}

TEST(pfifo_CorePusher, InvalidCmdLatchesWordAndPositionThenResumes) {
  core_env e(gen::g84);
  const uint64_t at = e.push(0, "word 0xc0000000\ninc 0 REF_CNT 1\n");
  e.run();
  ASSERT_EQ(e.core->errors().size(), 1u);
  const auto r = e.core->errors().front();
  EXPECT_EQ(r.type, err_type::dma_pusher);
  EXPECT_EQ(r.code, pusher_err::invalid_cmd);
  EXPECT_EQ(r.word, 0xc0000000u);
  EXPECT_EQ(r.position, at);
  EXPECT_TRUE(e.core->intr & fifo_core::intr_dma_pusher);
  EXPECT_TRUE(e.core->chan(0).pusher_stopped);
  EXPECT_EQ(e.core->chan(0).ref, 0u);
  e.core->ack_error();
  e.run();
  EXPECT_EQ(e.core->chan(0).ref, 1u);
}

TEST(pfifo_CorePusher, InvalidMthdIsCaughtByThePusher) {
  core_env e(gen::g84);
  const uint64_t at = e.push(0, "inc 0 0x4 5\n");
  e.run();
  ASSERT_EQ(e.core->errors().size(), 1u);
  EXPECT_EQ(e.core->errors().front().code, pusher_err::invalid_mthd);
  EXPECT_EQ(e.core->errors().front().word, 5u);
  EXPECT_EQ(e.core->errors().front().position, at + 4);  // the data word
}

TEST(pfifo_CorePusher, CallReturnAndTheirErrors) {
  core_env e(gen::g84);
  // main: call 0x11000; REF 2.   subroutine: REF 1; ret
  e.push(0, "inc 0 REF_CNT 1\nret\n", 0x11000);
  e.push(0, "call 0x11000\ninc 0 REF_CNT 2\n");
  e.run();
  EXPECT_TRUE(e.core->errors().empty());
  EXPECT_EQ(e.core->chan(0).ref, 2u);
  EXPECT_FALSE(e.core->chan(0).subr_active);

  core_env f(gen::g84);
  f.push(0, "call 0x12000\n", 0x11000);
  f.push(0, "call 0x11000\n");
  f.core->chan(0).dma_put = 0x12000;  // stream continues into the nested call
  f.run();
  ASSERT_EQ(f.core->errors().size(), 1u);
  EXPECT_EQ(f.core->errors().front().code, pusher_err::call_subr_active);
  EXPECT_EQ(f.core->errors().front().position, 0x11000u);

  core_env g(gen::g84);
  g.push(0, "ret\n");
  g.run();
  ASSERT_EQ(g.core->errors().size(), 1u);
  EXPECT_EQ(g.core->errors().front().code, pusher_err::ret_subr_inactive);
}

TEST(pfifo_CorePusher, JumpsAndOldJumps) {
  core_env e(gen::g84);
  e.push(0, "oldjump 0x13000\n", 0x12000);
  e.push(0, "inc 0 REF_CNT 3\n", 0x13000);
  e.push(0, "jump 0x12000\n");
  e.core->chan(0).dma_put = 0x13008;
  e.run();
  EXPECT_TRUE(e.core->errors().empty());
  EXPECT_EQ(e.core->chan(0).ref, 3u);
}

TEST(pfifo_CorePusher, MemFaultPastLimitAndOnVmFault) {
  core_env e(gen::g84);
  const uint64_t at = e.push(0, "inc 0 REF_CNT 1\ninc 0 REF_CNT 2\n");
  e.core->chan(0).dma_limit = at + 8;  // the second command starts at the limit
  e.run();
  ASSERT_EQ(e.core->errors().size(), 1u);
  EXPECT_EQ(e.core->errors().front().code, pusher_err::mem_fault);
  EXPECT_EQ(e.core->errors().front().position, at + 8);
  EXPECT_EQ(e.core->chan(0).ref, 1u);

  core_env f(gen::g84);
  const uint64_t a2 = f.push(0, "inc 0 REF_CNT 1\ninc 0 REF_CNT 2\n");
  f.bus.objs[1].limit = a2 + 7;  // DMA object ends inside the stream: word at a2+8 faults
  f.run();
  ASSERT_EQ(f.core->errors().size(), 1u);
  EXPECT_EQ(f.core->errors().front().code, pusher_err::mem_fault);
  EXPECT_EQ(f.core->errors().front().position, a2 + 8);
}

TEST(pfifo_CorePusher, IbModeEntriesEmptyEntryAndWrap) {
  core_env e(gen::g84);
  auto& c = e.core->chan(0);
  c.ib_mode = true;
  c.ib_address = 0x20000;
  c.ib_order = 2;  // 4 entries
  e.bus.words(0x10000, assemble("inc 0 REF_CNT 1\n", gen::g84, "t"));
  e.bus.words(0x10100, assemble("inc 0 REF_CNT 2\n", gen::g84, "t"));
  uint32_t w0, w1;
  encode_ib({0x10000, 2, false, false, false}, w0, w1);
  e.bus.words(0x20000, {w0, w1, 0, 0});  // entry 1: length 0 -> IB_EMPTY
  encode_ib({0x10100, 2, false, false, false}, w0, w1);
  e.bus.words(0x20010, {w0, w1});
  c.ib_put = 3;
  auto seen = e.run_ack();
  EXPECT_EQ(seen, (errs{{err_type::dma_pusher, pusher_err::ib_empty}}));
  EXPECT_EQ(c.ref, 2u);
  EXPECT_EQ(c.ib_get, 3u);
  // wrap: entry 3 then entry 0 (ib_put = 1 after the wrap at 2^2)
  encode_ib({0x10100, 2, true, false, false}, w0, w1);
  e.bus.words(0x20018, {w0, w1});
  e.bus.words(0x10200, assemble("inc 0 REF_CNT 9\n", gen::g84, "t"));
  encode_ib({0x10200, 2, false, false, false}, w0, w1);
  e.bus.words(0x20000, {w0, w1});
  c.ib_put = 1;
  e.run();
  EXPECT_EQ(c.ib_get, 1u);
  EXPECT_EQ(c.ref, 9u);
  EXPECT_EQ(c.dma_mget, 0x10208u);
}

TEST(pfifo_CorePusher, LongNonIncreasingAndJumpInvalidInIb) {
  core_env e(gen::g84);
  e.ramht_add(0, 0x1, 1, 0x10);
  auto& c = e.core->chan(0);
  c.ib_mode = true;
  c.ib_address = 0x20000;
  c.ib_order = 3;
  auto w = assemble("inc 0 OBJECT 1\nlninc 0 0x104 1 2 3\njump 0x100\n", gen::g84, "t");
  e.bus.words(0x10000, w);
  uint32_t w0, w1;
  encode_ib({0x10000, uint32_t(w.size()), false, false, false}, w0, w1);
  e.bus.words(0x20000, {w0, w1});
  c.ib_put = 1;
  e.run();
  EXPECT_EQ(params(*e.gr, 0x104), (std::vector<uint32_t>{1, 2, 3}));
  ASSERT_EQ(e.core->errors().size(), 1u);
  EXPECT_EQ(e.core->errors().front().code, pusher_err::invalid_cmd);
  EXPECT_EQ(e.core->errors().front().word, 0x00000101u);
}

TEST(pfifo_CorePusher, SliConditional) {
  core_env e(gen::nv40);
  e.ramht_add(0, 0x1, 1, 0x10);
  auto& c = e.core->chan(0);
  c.sli_enable = true;
  c.sli_mask = 1;
  e.push(0, "inc 0 OBJECT 1\nsli 2\ninc 0 0x100 1\nsli 3\ninc 0 0x100 2\n");
  e.run();
  EXPECT_TRUE(e.core->errors().empty());
  EXPECT_EQ(params(*e.gr, 0x100), (std::vector<uint32_t>{2}));
}

TEST(pfifo_CorePuller, NoHashAndSoftwareObjects) {
  core_env e(gen::g84);
  e.ramht_add(0, 0x5000, 0, 0x10);  // engine 0 = SOFTWARE
  e.push(0, "inc 0 OBJECT 0x1234\ninc 1 OBJECT 0x5000\ninc 2 0x100 1\ninc 0 REF_CNT 9\n");
  e.run();
  ASSERT_EQ(e.core->errors().size(), 1u);
  auto r = e.core->errors().front();
  EXPECT_EQ(r.type, err_type::cache_error);
  EXPECT_EQ(r.code, cache_err::no_hash);
  EXPECT_EQ(r.word, 0x1234u);
  EXPECT_TRUE(e.core->intr & fifo_core::intr_cache_error);
  e.core->ack_error();
  e.run();
  ASSERT_EQ(e.core->errors().size(), 1u);
  r = e.core->errors().front();
  EXPECT_EQ(r.code, cache_err::empty_subchannel);
  EXPECT_EQ(r.subc, 1u);
  EXPECT_EQ(r.mthd, 0u);
  e.core->ack_error();  // the host serviced it as a software method
  auto seen = e.run_ack();
  EXPECT_EQ(seen, (errs{{err_type::cache_error, cache_err::empty_subchannel}}));  // unbound subchannel 2
  EXPECT_EQ(e.core->chan(0).ref, 9u);
}

TEST(pfifo_CoreGenerations, MethodGates) {
  {  // REF_CNT is NV10+: on NV4 the pusher rejects it
    core_env e(gen::nv4);
    e.push(0, "inc 0 0x50 1\n");
    EXPECT_EQ(e.run_ack(), (errs{{err_type::dma_pusher, pusher_err::invalid_mthd}}));
  }
  {
    core_env e(gen::nv10);
    e.push(0, "inc 0 REF_CNT 1\ninc 0 0x80 0\ninc 0 0x64 0\n");  // YIELD NV40+, semaphores NV1A+
    EXPECT_EQ(e.run_ack(), (errs{{err_type::dma_pusher, pusher_err::invalid_mthd}, {err_type::dma_pusher, pusher_err::invalid_mthd}}));
    EXPECT_EQ(e.core->chan(0).ref, 1u);
  }
  {
    core_env e(gen::nv40);
    e.push(0, "inc 0 YIELD 0\ninc 0 0x10 0\n");  // new-style semaphore methods are G84+
    EXPECT_EQ(e.run_ack(), (errs{{err_type::dma_pusher, pusher_err::invalid_mthd}}));
    EXPECT_EQ(e.core->chan(0).stats.yields, 1u);
  }
  {
    core_env e(gen::g80);
    e.push(0, "inc 0 0x20 0\n");  // NOTIFY_INTR is G84+
    EXPECT_EQ(e.run_ack(), (errs{{err_type::dma_pusher, pusher_err::invalid_mthd}}));
  }
  {
    core_env e(gen::g84);
    e.push(0, "inc 0 NOTIFY_INTR 0\ninc 0 WRCACHE_FLUSH 0\ninc 0 0x8 0\n");  // NOP is GF100+
    EXPECT_EQ(e.run_ack(), (errs{{err_type::dma_pusher, pusher_err::invalid_mthd}}));
    EXPECT_EQ(e.core->notify_intrs, 1u);
    EXPECT_TRUE(e.core->intr & fifo_core::intr_notify);
    EXPECT_EQ(e.bus.flushes, 1u);
  }
  {
    core_env e(gen::mcp89);
    e.push(0, "inc 0 0x28 0\ninc 0 0x2c 0\n");
    EXPECT_TRUE(e.run_ack().empty());
    EXPECT_EQ(e.core->unknown_methods, 2u);
  }
  {  // GF100: no INVALID_MTHD in the pusher; the puller complains. DMA_SEMAPHORE is gone.
    core_env e(gen::gf100);
    e.push(0, "inc 0 0x60 1\ninc 0 0x4 1\ninc 0 NOP 0\ninc 0 0x70 0\ninc 0 REF_CNT 4\n");
    EXPECT_EQ(e.run_ack(), (errs{{err_type::cache_error, cache_err::invalid_mthd}, {err_type::cache_error, cache_err::invalid_mthd}}));
    EXPECT_EQ(e.core->chan(0).ref, 4u);
  }
}

TEST(pfifo_CoreGenerations, Gf100ObjectFormsAndNewHeaders) {
  core_env e(gen::gf100);
  // OBJECT: bits 0-15 class, bits 16-20 engine (0 = PGRAPH, 0x1f = SOFTWARE)
  e.push(0, "inc 0 OBJECT 0x9039\ngf.once 0 0x100 1 2 3\ngf.inline 0 0x200 5\ngf.inc 0 0x3000 6\ninc 1 OBJECT 0x1f0000\n");
  EXPECT_EQ(e.run_ack(), (errs{{err_type::cache_error, cache_err::empty_subchannel}}));
  std::vector<std::pair<uint32_t, uint32_t>> got, want = {{0, 0x9039}, {0x100, 1}, {0x104, 2}, {0x104, 3}, {0x200, 5}, {0x3000, 6}};
  for (auto& l : e.gr->log) got.emplace_back(l.mthd, l.param);
  EXPECT_EQ(got, want);
}

TEST(pfifo_CoreGenerations, Nv3ContextPath) {
  core_env e(gen::nv3);
  e.ramht_add(0, 0x42, 1, 0x55);  // ctx = engine bit 23 (PGRAPH) | 0x55
  e.ramht_add(0, 0x43, 0, 0x66);  // software object
  e.push(0, "inc 0 OBJECT 0x42\ninc 0 0x100 7\ninc 1 OBJECT 0x42\ninc 0 0x104 8\ninc 2 0x100 1\n");
  EXPECT_EQ(e.run_ack(), (errs{{err_type::cache_error, cache_err::empty_subchannel}}));
  // subc 0 bound (ctx 0x800055 to method 0), 0x100; subc 1 bound; back on subc 0 the puller
  // resends the context through method 0 before 0x104.
  std::vector<std::tuple<unsigned, uint32_t, uint32_t>> got,
      want = {{0, 0, 0x800055}, {0, 0x100, 7}, {1, 0, 0x800055}, {0, 0, 0x800055}, {0, 0x104, 8}};
  for (auto& l : e.gr->log) got.emplace_back(l.subc, l.mthd, l.param);
  EXPECT_EQ(got, want);
  // NV3 has neither non-increasing methods nor the NV11 jump
  core_env f(gen::nv3);
  f.push(0, "word 0x40046104\nword 0x00001001\n");
  EXPECT_EQ(f.run_ack(), (errs{{err_type::dma_pusher, pusher_err::invalid_cmd}, {err_type::dma_pusher, pusher_err::invalid_cmd}}));
}

TEST(pfifo_CoreEngines, SwitchWaitsForTheLastEngineToGoIdle) {
  core_env e(gen::g84);
  e.bus.latency_ps = 0;
  e.gr->method_cost_ps = 50000;
  e.ramht_add(0, 0x1, 1, 0x10);
  e.ramht_add(0, 0x3, 3, 0x20);
  e.push(0, "inc 0 OBJECT 1\ninc 1 OBJECT 3\n");
  e.run();
  ASSERT_EQ(e.gr->log.size(), 1u);
  ASSERT_EQ(e.ce->log.size(), 1u);
  // gr: switch 100 ns then 50 ns -> idle at t0+150 ns; ce switches (100 ns) only then.
  EXPECT_EQ(e.ce->log[0].time_ps - e.gr->log[0].time_ps, 150000u);
  // blocked from t0 + 1 ns (after OBJECT's method cost) to t0 + 150 ns
  EXPECT_EQ(e.core->chan(0).stats.engine_wait_ps, 149000u);
  EXPECT_EQ(e.core->chan(0).stats.engine_switches, 2u);
}

TEST(pfifo_CoreEngines, RefCntWaitsAndQueueFullBlocks) {
  core_env e(gen::g84);
  e.bus.latency_ps = 0;
  e.gr->method_cost_ps = 10000;
  e.gr->queue_depth = 2;
  e.ramht_add(0, 0x1, 1, 0x10);
  e.push(0, "inc 0 OBJECT 1\ninc 0 0x100 1 2 3 4\ninc 0 REF_CNT 5\n");
  e.run();
  ASSERT_EQ(e.gr->log.size(), 5u);
  for (size_t i = 1; i < 5; ++i) EXPECT_EQ(e.gr->log[i].time_ps - e.gr->log[i - 1].time_ps, 10000u);
  EXPECT_EQ(e.core->chan(0).ref, 5u);
  EXPECT_GE(e.now, e.gr->busy_until());  // REF was set only after the engine went idle
  EXPECT_GT(e.core->chan(0).stats.engine_wait_ps, 0u);
}

TEST(pfifo_CoreScheduling, YieldLetsAnotherBusyChannelRun) {
  for (bool yield : {false, true}) {
    core_env e(gen::g84, 2);
    e.ramht_add(0, 0x1, 1, 0x10);
    e.ramht_add(1, 0x1, 1, 0x10);
    e.push(0, std::string("inc 0 OBJECT 1\n") + (yield ? "inc 0 YIELD 0\n" : "") + "inc 0 0x100 1\n");
    e.push(1, "inc 0 OBJECT 1\ninc 0 0x100 2\n");
    e.run();
    EXPECT_EQ(params(*e.gr, 0x100), (yield ? std::vector<uint32_t>{2, 1} : std::vector<uint32_t>{1, 2}));
  }
}

TEST(pfifo_CoreScheduling, TimesliceRoundRobin) {
  core_env e(gen::g84, 2);
  e.cfg.timeslice_ps = 5000;
  e.core = std::make_unique<fifo_core>(e.cfg, e.bus);
  for (unsigned c = 0; c < 2; ++c) {
    auto& ch = e.core->chan(c);
    ch.enabled = true;
    ch.pb_dmaobj = 1;
  }
  std::string s;
  for (int i = 0; i < 20; ++i) s += "inc 0 REF_CNT " + std::to_string(i) + "\n";
  e.push(0, s);
  e.push(1, s);
  e.run();
  EXPECT_EQ(e.core->chan(0).ref, 19u);
  EXPECT_EQ(e.core->chan(1).ref, 19u);
  EXPECT_GE(e.core->chan(0).stats.channel_switches, 2u);
  EXPECT_GE(e.core->chan(1).stats.channel_switches, 2u);
}

TEST(pfifo_CoreEngines, M2mfCopiesThroughDmaObjectsAndNotifies) {
  core_env e(gen::g84);
  m2mf_engine m2mf("m2mf", e.bus, false);
  e.core->attach_engine(3, &m2mf);
  e.bus.objs[0x30] = {0x400000, 0xffff};  // source
  e.bus.objs[0x31] = {0x500000, 0xffff};  // destination
  e.bus.objs[0x32] = {0x600000, 0xff};    // notifier
  e.ramht_add(0, 0x5039, 3, 0x50);
  e.ramht_add(0, 0xa0, 0, 0x30);
  e.ramht_add(0, 0xa1, 0, 0x31);
  e.ramht_add(0, 0xa2, 0, 0x32);
  for (uint32_t i = 0; i < 16; ++i) e.bus.w32(0x400000 + 0x100 + 4 * i, 0xc0de0000 + i);
  e.push(0,
         "inc 0 OBJECT 0x5039\n"
         "inc 0 M2MF.DMA_NOTIFY 0xa2 0xa0 0xa1\n"                     // 0x180, 0x184, 0x188: handles via RAMHT
         "inc 0 M2MF.OFFSET_IN 0x100 0x200 0x20 0x40 0x10 2 0x101\n"  // in, out, pitch in/out, len, count, format
         "inc 0 M2MF.NOTIFY 0\ninc 0 M2MF.BUFFER_NOTIFY 0\ninc 0 REF_CNT 1\n");
  e.run();
  ASSERT_TRUE(e.core->errors().empty());
  // 2 lines of 16 bytes: in 0x100 (pitch 0x20) -> out 0x200 (pitch 0x40)
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(e.bus.r32(0x500200 + 4 * i), 0xc0de0000 + i);
    EXPECT_EQ(e.bus.r32(0x500240 + 4 * i), 0xc0de0008 + i);
  }
  EXPECT_EQ(e.bus.r32(0x500210), 0u);
  EXPECT_EQ(m2mf.bytes_copied, 32u);
  EXPECT_EQ(m2mf.notifies, 1u);
  EXPECT_GT(e.bus.r64(0x600000), 0u);  // notifier timestamp
  EXPECT_EQ(e.bus.r32(0x60000c), 0u);  // status: done
  EXPECT_EQ(e.core->chan(0).ref, 1u);
}

// Every low method on every generation: present ones never give INVALID_MTHD, absent ones do
// (in the pusher before GF100, as CACHE_ERROR(INVALID_MTHD) from the puller on GF100).
// Expected presence: the seed's table, written out again here.
TEST(pfifo_CoreGenerations, EveryLowMethodOnEveryGeneration) {
  // Ranges in envytools' generation order (NV10, NV1A, NV11, ...): `NV1A-` includes NV11.
  struct row {
    uint32_t m;
    gen from, to;
  };  // `to` exclusive; end = past GF100
  const gen end = gen(uint32_t(gen::gf100) + 1);
  const row table[] = {{0x00, gen::nv1, end},   {0x08, gen::gf100, end}, {0x10, gen::g84, end},   {0x14, gen::g84, end},
                       {0x18, gen::g84, end},   {0x1c, gen::g84, end},   {0x20, gen::g84, end},   {0x24, gen::g84, end},
                       {0x28, gen::mcp89, end}, {0x2c, gen::mcp89, end}, {0x50, gen::nv10, end},  {0x60, gen::nv1a, gen::gf100},
                       {0x64, gen::nv1a, end},  {0x68, gen::nv1a, end},  {0x6c, gen::nv1a, end},  {0x70, gen::gf100, end},
                       {0x74, gen::gf100, end}, {0x78, gen::gf100, end}, {0x7c, gen::gf100, end}, {0x80, gen::nv40, end}};
  for (gen g : {gen::nv3, gen::nv4, gen::nv10, gen::nv1a, gen::nv11, gen::nv25, gen::nv40, gen::g80, gen::g84, gen::gt215, gen::mcp89,
                gen::gf100}) {
    for (uint32_t m = 0; m < 0x100; m += 4) {
      bool present = false;
      for (const auto& r : table)
        if (r.m == m && g >= r.from && g < r.to) present = true;
      EXPECT_EQ(puller_knows_mthd(g, m), present) << gen_name(g) << " 0x" << std::hex << m;
      core_env e(g, 1);
      e.push(0, "word " + std::to_string(hdr_inc(0, m, 1)) + " 0\n");
      e.run(2000000);
      bool invalid = false;
      for (const auto& r : e.core->error_log())
        invalid |= (r.type == err_type::dma_pusher && r.code == pusher_err::invalid_mthd) ||
                   (r.type == err_type::cache_error && r.code == cache_err::invalid_mthd);
      EXPECT_EQ(invalid, !present) << gen_name(g) << " 0x" << std::hex << m;
      if (!present && g < gen::gf100) {
        ASSERT_FALSE(e.core->error_log().empty());
        EXPECT_EQ(e.core->error_log()[0].type, err_type::dma_pusher);
      }
    }
  }
}

namespace {
// An asynchronous engine (like the compute class): method 0x300 keeps it busy until finish().
class async_engine : public recording_engine {
 public:
  using engine::finish;
  using recording_engine::recording_engine;

 protected:
  uint64_t execute(unsigned ch, unsigned subc, uint32_t mthd, uint32_t param, uint64_t start) override {
    recording_engine::execute(ch, subc, mthd, param, start);
    if (start == never) return 0;  // queued behind the asynchronous work
    return mthd == 0x300 ? busy_async(start) : method_cost_ps;
  }
};
}  // namespace

TEST(pfifo_CoreEngines, AsynchronousEngineIsBusyUntilFinish) {
  core_env e(gen::g84, 2);
  e.bus.latency_ps = 0;
  async_engine k("compute");
  e.core->attach_engine(2, &k);
  k.wake = [&] { e.core->engine_finished(); };
  e.ramht_add(0, 0x2, 2, 0x40);
  e.ramht_add(1, 0x2, 2, 0x40);
  e.push(0, "inc 0 OBJECT 2\ninc 0 0x300 0\ninc 0 REF_CNT 7\n");
  e.push(1, "inc 0 OBJECT 2\ninc 0 0x104 1\ninc 0 REF_CNT 8\n");
  e.run();
  // Channel 0: OBJECT (engine switch 100 ns, then 1 ns), LAUNCH 1 ns later on the engine: busy
  // until never. REF_CNT waits; channel 1's OBJECT waits too (no switch while busy).
  ASSERT_EQ(k.log.size(), 2u);
  EXPECT_EQ(k.log[1].time_ps - k.log[0].time_ps, 1000u);
  EXPECT_EQ(k.busy_until(), never);
  EXPECT_EQ(k.switches, 1u);
  EXPECT_EQ(k.cur_channel(), 0);
  EXPECT_EQ(e.core->chan(0).ref, 0u);
  EXPECT_EQ(e.core->chan(1).ref, 0u);
  EXPECT_EQ(e.core->chan(0).blocked_until, never);
  EXPECT_EQ(e.core->chan(1).blocked_until, never);
  // The work finishes at 500 ns: REF 7 at once; channel 1 switches the engine (100 ns), its
  // OBJECT runs at 600 ns, 0x104 at 601 ns, and its REF_CNT waits until 602 ns.
  e.now = std::max<uint64_t>(e.now, 500000);
  k.finish(500000);
  EXPECT_EQ(k.busy_until(), 500000u);
  e.run();
  EXPECT_EQ(e.core->chan(0).ref, 7u);
  EXPECT_EQ(e.core->chan(1).ref, 8u);
  ASSERT_EQ(k.log.size(), 4u);
  EXPECT_EQ(k.log[2].ch, 1u);
  EXPECT_EQ(k.log[2].time_ps, 600000u);
  EXPECT_EQ(k.log[3].time_ps, 601000u);
  EXPECT_EQ(k.switches, 2u);
  EXPECT_GE(e.now, 602000u);
  // Channel 0's pusher first takes its 6 words at word_cost (1 ns) each: its OBJECT is pulled at
  // 6 ns (on the engine at 106 ns, after the switch), its REF_CNT at 8 ns. After the finish, the
  // round robin goes on with channel 1 (the last one served), which pulls its OBJECT and 0x104
  // (2 ns) before channel 0's REF_CNT completes at 502 ns: 502 - 8 = 494 ns of engine wait.
  // (The engine now belongs to channel 1, so REF_CNT no longer waits.)
  EXPECT_EQ(k.log[0].time_ps, 106000u);
  EXPECT_EQ(e.core->chan(0).stats.engine_wait_ps, 494000u);
}
