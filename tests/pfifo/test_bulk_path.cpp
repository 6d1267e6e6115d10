// SPDX-License-Identifier: Apache-2.0
// PFIFO core: the bulk paths (core_config::bulk_methods: the pusher's runs of fetched data words,
// the puller's runs of methods for one engine) against one method at a time. The same pushbuffers
// through both give every engine the same methods at the same times, and leave the same
// statistics, errors and channel state; the bulk paths must also have taken methods (else the
// comparison proves nothing). The streams mix runs with what the bulk paths decline: puller
// methods, RAMHT-handle methods, engine switches, a full engine queue or CACHE, a slice ending
// mid-run, fetches across a page and faults in the middle of a burst, SLI masking, long counts,
// GF100 increase-once and inline methods, semaphores, several channels.
#include <functional>
#include <sstream>
#include <tuple>
#include "core_fixture.h"

using namespace gpuvp::pfifo;
using gpuvp::pfifo::test::core_env;

namespace {

// "OP SUBC MTHD" followed by n data words first, first + step, ... (a method run in pb-asm).
std::string run_line(const char* op, unsigned subc, uint32_t mthd, unsigned n, uint32_t first, uint32_t step = 1) {
  std::ostringstream os;
  os << op << ' ' << subc << " 0x" << std::hex << mthd;
  for (unsigned i = 0; i < n; ++i) os << " 0x" << first + i * step;
  os << '\n';
  return os.str();
}

// Writes the words at `at` and points channel ch's DMA_GET / DMA_PUT at them.
void place(core_env& e, unsigned ch, uint64_t at, const std::vector<uint32_t>& w) {
  e.bus.words(at, w);
  auto& c = e.core->chan(ch);
  c.dma_get = c.dma_mget = at;
  c.dma_put = at + 4 * w.size();
  e.core->kick(ch);
}
void place(core_env& e, unsigned ch, uint64_t at, const std::string& text) { place(e, ch, at, assemble(text, e.cfg.g, "bulk")); }

// Runs in slices of `slice` ps as the component does, acknowledging each latched error once the
// core has nothing else to do. Returns how many errors were acknowledged.
unsigned drive(core_env& e, uint64_t slice) {
  unsigned acked = 0;
  for (int guard = 0; guard < 1000000; ++guard) {
    const uint64_t next = e.core->run(e.now, e.now + slice);
    if (next != never) {
      e.now = std::max(e.now, next);
      continue;
    }
    if (e.core->errors().empty()) return acked;
    e.core->ack_error();
    ++acked;
  }
  ADD_FAILURE() << "the core did not settle";
  return acked;
}

using engine_log = std::vector<std::tuple<unsigned, unsigned, uint32_t, uint32_t, uint64_t>>;
engine_log log_of(const recording_engine& r) {
  engine_log v;
  for (const auto& l : r.log) v.emplace_back(l.ch, l.subc, l.mthd, l.param, l.time_ps);
  return v;
}
std::vector<uint64_t> stats_of(const channel_stats& s) {
  return {
      s.methods_engine, s.methods_puller, s.methods_inc,     s.methods_ninc,   s.methods_inline,  s.bytes_fetched,     s.fetches,
      s.words,          s.ib_entries,     s.engine_switches, s.engine_wait_ps, s.semaphore_waits, s.semaphore_wait_ps, s.channel_switches,
      s.errors,         s.yields,         s.cache_max,       s.ramfc_switch_ps};
}
std::vector<uint64_t> state_of(const channel& c) {
  return {c.dma_get,
          c.dma_put,
          c.dma_mget,
          c.err_pos,
          c.err_ib,
          c.st.mthd,
          c.st.subc,
          c.st.mcnt,
          c.st.ni,
          c.st.lenp,
          c.st.incr_once,
          c.data_shadow,
          c.rsvd_shadow,
          c.dcount_shadow,
          c.cache.size(),
          c.ref,
          c.last_engine,
          c.pusher_stopped,
          c.puller_stopped,
          c.hung,
          c.ib_get,
          c.subr_active,
          c.blocked_until,
          c.acquire_active,
          c.semaphore_sequence,
          c.waiting_engine,
          c.push_idle};
}
std::vector<std::tuple<unsigned, err_type, uint32_t, uint32_t, uint64_t, bool, uint32_t, uint32_t, uint64_t>> errors_of(
    const fifo_core& f) {
  std::vector<std::tuple<unsigned, err_type, uint32_t, uint32_t, uint64_t, bool, uint32_t, uint32_t, uint64_t>> v;
  for (const auto& r : f.error_log()) v.emplace_back(r.channel, r.type, r.code, r.word, r.position, r.ib_entry, r.subc, r.mthd, r.time_ps);
  return v;
}

struct scenario {
  explicit scenario(gen gen_, unsigned channels_ = 2) : g(gen_), channels(channels_) {}
  gen g;
  unsigned channels;
  std::function<void(core_config&)> configure = [](core_config&) {};
  std::function<void(core_env&)> load;  // engines, objects and pushbuffers
  bool puller_runs = true;              // the puller's bulk path applies (NV4+)
};

struct outcome {
  std::unique_ptr<core_env> env;
  unsigned acked = 0;
};

outcome run_path(const scenario& s, bool bulk, uint64_t slice) {
  outcome o;
  o.env = std::make_unique<core_env>(s.g, s.channels);
  s.configure(o.env->cfg);
  o.env->cfg.bulk_methods = bulk;
  o.env->make_core();
  s.load(*o.env);
  o.acked = drive(*o.env, slice);
  return o;
}

// Both paths over the scenario, in slices of each length; returns the bulk run of the last.
outcome expect_same_results(const scenario& s, std::vector<uint64_t> slices = {5000, 7777, 100000, 1000000000}) {
  outcome last;
  for (const uint64_t slice : slices) {
    SCOPED_TRACE("slice " + std::to_string(slice) + " ps");
    outcome bulk = run_path(s, true, slice), one = run_path(s, false, slice);
    const fifo_core &a = *bulk.env->core, &b = *one.env->core;
    EXPECT_EQ(bulk.env->now, one.env->now);
    EXPECT_EQ(bulk.acked, one.acked);
    EXPECT_EQ(log_of(*bulk.env->gr), log_of(*one.env->gr));
    EXPECT_EQ(log_of(*bulk.env->ce), log_of(*one.env->ce));
    EXPECT_EQ(bulk.env->gr->switches, one.env->gr->switches);
    EXPECT_EQ(bulk.env->ce->switches, one.env->ce->switches);
    EXPECT_EQ(errors_of(a), errors_of(b));
    EXPECT_EQ(std::make_tuple(a.intr, a.errors_raised, a.notify_intrs, a.hangs, a.unknown_methods),
              std::make_tuple(b.intr, b.errors_raised, b.notify_intrs, b.hangs, b.unknown_methods));
    for (unsigned ch = 0; ch < s.channels; ++ch) {
      SCOPED_TRACE("channel " + std::to_string(ch));
      EXPECT_EQ(stats_of(bulk.env->core->chan(ch).stats), stats_of(one.env->core->chan(ch).stats));
      EXPECT_EQ(state_of(bulk.env->core->chan(ch)), state_of(one.env->core->chan(ch)));
    }
    EXPECT_EQ(bulk.env->bus.mem, one.env->bus.mem);  // semaphore releases
    EXPECT_GT(a.bulk_pushed, 0u);
    EXPECT_EQ(a.bulk_pulled > 0, s.puller_runs);
    EXPECT_EQ(b.bulk_pushed + b.bulk_pulled, 0u);
    last = std::move(bulk);
  }
  return last;
}

}  // namespace

// Two channels on G84 sharing both engines in short timeslices: long increasing and
// non-increasing runs into a small CACHE, an engine slower than the puller (its queue fills), a
// second subchannel on the other engine, RAMHT-handle methods, REF_CNT and NOP, and an increasing
// run that wraps past 0x1ffc into OBJECT (CACHE_ERROR NO_HASH) and 0x0004 (pusher INVALID_MTHD).
TEST(pfifo_BulkPath, G84RunsQueuesSwitchesAndErrors) {
  scenario s{gen::g84};
  s.configure = [](core_config& c) {
    c.cache_depth = 48;
    c.timeslice_ps = 150000;
  };
  s.load = [](core_env& e) {
    e.gr->method_cost_ps = 2600;
    e.gr->queue_depth = 5;
    e.ce->method_cost_ps = 500;
    for (unsigned ch = 0; ch < 2; ++ch) {
      e.ramht_add(ch, 0xbeef0001, 1, 0x40);
      e.ramht_add(ch, 0xbeef0003, 3, 0x80);
      const std::string text = "inc 0 OBJECT 0xbeef0001\ninc 1 OBJECT 0xbeef0003\n" + run_line("ninc", 0, 0x104, 600, 0x1000 * ch) +
                               run_line("inc", 0, 0x200, 300, 7) + run_line("inc", 1, 0x300, 50, 9) + run_line("ninc", 0, 0x104, 40, 3) +
                               "inc 0 0x184 0xbeef0003\nnop\ninc 0 REF_CNT 5\n" + run_line("ninc", 1, 0x110, 200, 11) +
                               run_line("inc", 0, 0x1ff0, 6, 0x77) + run_line("ninc", 0, 0x108, 90, 5) + "inc 0 REF_CNT 6\n";
      place(e, ch, 0x40000 + 0x10000 * ch, text);
    }
  };
  const outcome o = expect_same_results(s);
  // Each channel: OBJECT x2, 600 + 300 + 50 + 40 + 1 (0x184) + 200 + 4 (0x1ff0-0x1ffc) + 90 data words for the engines.
  const auto& gr = o.env->gr->log;
  const auto& ce = o.env->ce->log;
  EXPECT_EQ(gr.size() + ce.size(), 2u * (2 + 600 + 300 + 50 + 40 + 1 + 200 + 4 + 90));
  EXPECT_EQ(o.env->core->chan(0).ref, 6u);
  EXPECT_EQ(o.env->core->chan(1).ref, 6u);
  EXPECT_EQ(o.acked, 4u);  // per channel: NO_HASH (OBJECT 0x7b), INVALID_MTHD (0x0004)
}

// A pushbuffer across a page boundary with bursts that straddle it, then a command running past
// the end of the pushbuffer's DMA object: the burst faults, the single-word retry names the word,
// MEM_FAULT is raised in the middle of the run and each acknowledge steps past one word. Channel
// 1 runs into its DMA_LIMIT in the middle of a run.
TEST(pfifo_BulkPath, G84PageCrossingAndFaultsMidBurst) {
  scenario s{gen::g84};
  s.load = [](core_env& e) {
    e.ramht_add(0, 0xbeef0001, 1, 0x40);
    e.ramht_add(1, 0xbeef0001, 1, 0x40);
    const uint64_t at = 0x10fc8;  // 14 words before the page at 0x11000
    auto w = assemble("inc 0 OBJECT 0xbeef0001\n" + run_line("ninc", 0, 0x104, 100, 1) + run_line("inc", 0, 0x400, 500, 2) +
                          run_line("ninc", 0, 0x108, 90, 3),
                      gen::g84, "bulk");
    e.bus.objs[1].limit = at + 4 * (w.size() - 20) - 1;  // the last 20 words are past the object
    place(e, 0, at, w);
    place(e, 1, 0x60000, "inc 0 OBJECT 0xbeef0001\n" + run_line("ninc", 0, 0x10c, 300, 4));
    e.core->chan(1).dma_limit = 0x60000 + 4 * 150;
  };
  const outcome o = expect_same_results(s);
  EXPECT_EQ(o.env->core->chan(0).stats.errors, 20u);  // one MEM_FAULT per word past the object
  EXPECT_GE(o.env->core->chan(1).stats.errors, 1u);
}

// GF100 formats: increasing, non-increasing, increase-once and inline methods, OBJECT binding by
// its parameter, and an increasing run that wraps past 0x3ffc into OBJECT and 0x0004 (the puller
// refuses it: CACHE_ERROR INVALID_MTHD).
TEST(pfifo_BulkPath, Gf100FormatsAndWrap) {
  scenario s{gen::gf100};
  s.configure = [](core_config& c) { c.cache_depth = 100; };
  s.load = [](core_env& e) {
    e.gr->method_cost_ps = 1500;
    const std::string text = "inc 0 OBJECT 0x9039\ninc 1 OBJECT 0x40000\n" + run_line("gf.ninc", 0, 0x104, 400, 1) +
                             run_line("gf.inc", 1, 0x200, 150, 2) + run_line("gf.once", 0, 0x300, 333, 3) + "gf.inline 0 0x400 0x55\n" +
                             run_line("gf.inc", 0, 0x3ff0, 6, 0) + run_line("gf.ninc", 0, 0x3000, 64, 4) + "inc 0 REF_CNT 1\n";
    place(e, 0, 0x40000, text);
    place(e, 1, 0x50000, "inc 0 OBJECT 0x9039\n" + run_line("gf.ninc", 0, 0x104, 500, 5));
  };
  const outcome o = expect_same_results(s);
  EXPECT_EQ(o.env->core->chan(0).ref, 1u);
  EXPECT_EQ(o.env->core->chan(0).stats.methods_inline, 1u);
}

// IB mode with long non-increasing counts over several IB entries; SLI conditionals masking runs
// off and on; a big-endian PFIFO (every word byte-swapped in memory).
TEST(pfifo_BulkPath, G84IbLongCountsSliAndBigEndian) {
  scenario s{gen::g84, 1};
  s.configure = [](core_config& c) { c.pfifo_big_endian = true; };
  s.load = [](core_env& e) {
    e.ramht_add(0, 0xbeef0001, 1, 0x40);
    auto& c = e.core->chan(0);
    c.ib_mode = true;
    c.ib_address = 0x20000;
    c.ib_order = 3;
    c.sli_enable = true;
    c.sli_mask = 1;
    auto swapped = [](std::vector<uint32_t> w) {
      for (auto& v : w) v = __builtin_bswap32(v);
      return w;
    };
    const auto seg0 = assemble("inc 0 OBJECT 0xbeef0001\n" + run_line("lninc", 0, 0x104, 700, 1) + "sli 2\n" +
                                   run_line("ninc", 0, 0x108, 100, 2) + "sli 1\n" + run_line("inc", 0, 0x500, 120, 3),
                               gen::g84, "bulk");
    const auto seg1 = assemble(run_line("lninc", 0, 0x10c, 300, 4) + "inc 0 REF_CNT 2\n", gen::g84, "bulk");
    e.bus.words(0x30000, swapped(seg0));
    e.bus.words(0x38000, swapped(seg1));
    uint32_t w[4];
    encode_ib({0x30000, uint32_t(seg0.size()), false, false, false}, w[0], w[1]);
    encode_ib({0x38000, uint32_t(seg1.size()), false, false, false}, w[2], w[3]);
    e.bus.words(0x20000, swapped({w[0], w[1], w[2], w[3]}));
    c.ib_put = 2;
  };
  const outcome o = expect_same_results(s);
  EXPECT_EQ(o.env->gr->log.size(), 1u + 700 + 120 + 300);  // the SLI-masked run is dropped
  EXPECT_EQ(o.env->core->chan(0).ref, 2u);
}

// Semaphores between runs: channel 0 acquires what channel 1 releases after a long run, both
// yield; pre-NV4 (NV3, the puller's own object contexts: its bulk path declines, the pusher's
// does not) and NV40 streams.
TEST(pfifo_BulkPath, G84SemaphoresAndYields) {
  scenario s{gen::g84};
  s.load = [](core_env& e) {
    e.bus.latency_ps = 1000;  // as in Nv3AndNv40
    e.bus.objs[0x20] = {0x300000, 0xffff};
    for (unsigned ch = 0; ch < 2; ++ch) {
      e.ramht_add(ch, 0x5e4, 0, 0x20);
      e.ramht_add(ch, 0xbeef0001, 1, 0x40);
    }
    place(e, 0, 0x40000,
          "inc 0 OBJECT 0xbeef0001\ninc 0 DMA_SEMAPHORE 0x5e4\ninc 0 SEMAPHORE_OFFSET 0x80\n" + run_line("ninc", 0, 0x104, 200, 1) +
              "inc 0 SEMAPHORE_ACQUIRE 7\n" + run_line("inc", 0, 0x200, 100, 2) + "inc 0 YIELD 0\n" + run_line("ninc", 0, 0x104, 50, 3) +
              "inc 0 REF_CNT 1\n");
    place(e, 1, 0x50000,
          "inc 0 OBJECT 0xbeef0001\ninc 0 DMA_SEMAPHORE 0x5e4\ninc 0 SEMAPHORE_OFFSET 0x80\n" + run_line("ninc", 0, 0x104, 900, 4) +
              "inc 0 YIELD 0\n" + run_line("ninc", 0, 0x104, 900, 5) + "inc 0 SEMAPHORE_RELEASE 7\ninc 0 REF_CNT 2\n");
  };
  const outcome o = expect_same_results(s);
  EXPECT_EQ(o.env->core->chan(0).ref, 1u);
  EXPECT_EQ(o.env->core->chan(1).ref, 2u);
  EXPECT_EQ(o.env->core->chan(0).stats.semaphore_waits, 1u);
}

TEST(pfifo_BulkPath, Nv3AndNv40) {
  for (const gen g : {gen::nv3, gen::nv40}) {
    SCOPED_TRACE(gen_name(g));
    scenario s{g};
    s.configure = [](core_config& c) { c.timeslice_ps = 20000; };  // channels switch in the middle of runs
    s.load = [g](core_env& e) {
      e.bus.latency_ps = 1000;  // every time a whole number of word costs: slices end exactly between steps
      for (unsigned ch = 0; ch < 2; ++ch) {
        e.ramht_add(ch, 0xbeef0001, 1, 0x40);
        const std::string obj = g < gen::nv4 ? "inc 0 0 0xbeef0001\n" : "inc 0 OBJECT 0xbeef0001\n";
        const char* run = g < gen::nv10 ? "inc" : "ninc";
        place(e, ch, 0x40000 + 0x10000 * ch, obj + run_line(run, 0, 0x300, 400, ch) + run_line("inc", 0, 0x400, 300, 7));
      }
    };
    s.puller_runs = g >= gen::nv4;  // before NV4 the puller keeps object contexts itself
    const outcome o = expect_same_results(s);
    EXPECT_EQ(o.env->gr->log.size(), 2u * (1 + 400 + 300));  // per channel: the object, then its methods
  }
}
