// SPDX-License-Identifier: Apache-2.0
// PFIFO throughput: methods per second from a pushbuffer in memory, through the pusher (timed
// burst fetches over the router), the CACHE and the puller, to an engine, with LT timing.
// Baselines in the same run: the router's bare 4-byte transaction rate to the same memory, and
// the PFIFO core alone over a flat in-process bus (no TLM). After the table: each lane's methods/s
// as a ratio to the router's bare rate (goal through the MMU with DMI: >= 1x).
#include <benchmark/benchmark.h>
#include <cstdio>
#include <string>
#include <cstring>
#include <memory>
#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>
#include "engines.h"
#include "fifo_core.h"
#include "gpuvp/config.h"
#include "gpuvp/extension.h"
#include "gpuvp/memory.h"
#include "gpuvp/router.h"
#include "pb_text.h"
#include "mmu_nv50.h"
#include "pfifo.h"
#include "../ratio_reporter.h"

using namespace gpuvp;

namespace {

constexpr uint64_t vram_base = 0x200000000ull;
constexpr uint64_t pb = 0x100000;               // VRAM linear (the flat lane's pushbuffer)
constexpr uint32_t methods_per_run = 1u << 20;  // 1 Mi methods in 2047-word non-increasing commands

struct host_stub : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<host_stub> regs{"regs"}, userd{"userd"};
  explicit host_stub(sc_core::sc_module_name n) : sc_core::sc_module(n) {}
  void wr(tlm_utils::simple_initiator_socket<host_stub>& s, uint64_t a, uint32_t v) {
    transaction t(tlm::TLM_WRITE_COMMAND, a, &v, 4);
    sc_core::sc_time d;
    s->b_transport(t.gp, d);
  }
};

// One PFIFO component with its host, a G84 channel 1 set up through RAMFC, and its pushbuffer of
// methods_per_run methods, all in VRAM [base, base + 16 MiB).
struct lane {
  std::unique_ptr<gpuvp::pfifo::pfifo> pf;
  std::unique_ptr<host_stub> host;
  std::unique_ptr<sc_core::sc_signal<bool>> irq;
  uint64_t inst = 0, ramfc = 0, pb = 0, runlist = 0;
  uint32_t words = 0;
  static constexpr unsigned chid = 1;

  lane(const std::string& name, uint64_t base, sparse_memory& vram) {
    inst = base + 0x10000;
    ramfc = inst + 0x5400;
    pb = base + 0x100000;
    pf = std::make_unique<gpuvp::pfifo::pfifo>(name.c_str());
    host = std::make_unique<host_stub>((name + "_host").c_str());
    irq = std::make_unique<sc_core::sc_signal<bool>>((name + "_irq").c_str());
    host->regs.bind(pf->regs.in);
    host->userd.bind(pf->userd);
    pf->irq.bind(*irq);
    // Pushbuffer: bind subchannel 0 to engine 1 through RAMHT, then 2047-word non-increasing commands.
    std::vector<uint32_t> w;
    w.push_back(pfifo::hdr_inc(0, 0, 1));
    w.push_back(0xbeef0001);
    for (uint32_t left = methods_per_run; left;) {
      const uint32_t n = std::min<uint32_t>(left, 2047);
      w.push_back(pfifo::hdr_ninc(0, 0x104, n));
      for (uint32_t i = 0; i < n; ++i) w.push_back(i);
      left -= n;
    }
    words = uint32_t(w.size());
    vram.load(pb, w.data(), 4 * w.size());
    // Channel structure: pushbuffer DMA object (selector 1, all VRAM, unpaged) and RAMHT.
    const uint32_t dmaobj[6] = {0x3d | 1u << 16 | 2u << 18, 0x40000000, 0, 0, 0, 0};  // VRAM, RW, limit 1 GiB
    vram.load(inst + 0x10, dmaobj, sizeof dmaobj);
    const uint32_t h = pfifo::ramht_hash(0xbeef0001, pfifo::ramht_bits(0x8000), 0);
    const uint32_t ent[2] = {0xbeef0001, pfifo::ramht_context(pfifo::gen::g84, 1, 0x40, 0)};
    vram.load(inst + 0x10000 + h * 8, ent, 8);
    // RAMFC as nouveau writes a G84 DMA channel (DMA_INSTANCE = selector 1, RAMHT 32 KiB at
    // instance + 0x10000, CHAN_INST), runlist {1} at base + 0x8000.
    const uint32_t zero[0x9c / 4] = {};
    vram.load(ramfc, zero, sizeof zero);
    auto w32 = [&](uint64_t a, uint32_t v) { vram.load(a, &v, 4); };
    w32(ramfc + 0x3c, 0x003f6078);
    w32(ramfc + 0x48, 1);
    w32(ramfc + 0x4c, 0xffffffff);
    w32(ramfc + 0x80, 3u << 27 | 4u << 24 | 0x10000 >> 4);
    w32(ramfc + 0x98, uint32_t(inst >> 12));
    w32(base + 0x8000, chid);
    runlist = base + 0x8000;
  }
  void start() {
    host->wr(host->regs, 0x12f4, uint32_t(runlist >> 12));  // PLAYLIST
    host->wr(host->regs, 0x12ec, 1);                        // PLAYLIST_LEN
    host->wr(host->regs, 0x1200, 1);                        // PUSH0
    host->wr(host->regs, 0x1250, 1);                        // PULL0
    host->wr(host->regs, 0x500, 1);                         // CACHES
  }
  // One run of the whole pushbuffer: the channel unloaded (KICK_CHANNEL), RAMFC DMA_GET = start,
  // the channel (re)enabled, USERD DMA_PUT = end, simulate until idle.
  void once(sparse_memory& vram) {
    host->wr(host->regs, 0x12fc, uint32_t(inst >> 12));
    sc_core::sc_start();
    const uint32_t start[4] = {uint32_t(pb), 0, uint32_t(pb), 0};  // DMA_PUT, DMA_PUT_HIGH, DMA_GET, DMA_GET_HIGH
    vram.load(ramfc + 0x08, start, sizeof start);
    host->wr(host->regs, 0x600 + 4 * chid, 0x80000000u | uint32_t(ramfc >> 8));
    host->wr(host->userd, chid * 0x2000 + 0x40, uint32_t(pb + 4 * words));
    sc_core::sc_start();
  }
};

// Three lanes on one router and VRAM: flat addressing (`pfifo`), through mmu_nv50 with DMI
// (`pfifo_mmu`) and through it without DMI (`pfifo_mmu_nodmi`).
struct rig {
  std::unique_ptr<router> r;
  std::unique_ptr<sparse_memory> vram;
  std::unique_ptr<mmu_nv50::mmu_nv50> mmu;
  sc_core::sc_signal<bool> mmu_irq{"mmu_irq"};
  struct reg_host : sc_core::sc_module {  // binds the MMU's register socket (unused here)
    tlm_utils::simple_initiator_socket<reg_host> out{"out"};
    explicit reg_host(sc_core::sc_module_name n) : sc_core::sc_module(n) {}
  };
  std::unique_ptr<reg_host> mmu_host;
  std::unique_ptr<lane> flat, via_mmu, via_mmu_nodmi;

  rig() {
    auto& cfg = config::global();
    for (const char* n : {"pfifo", "pfifo_mmu", "pfifo_mmu_nodmi"}) {
      const std::string p = n;
      cfg.set(p + ".engine_map", "1:null", "bench");
      cfg.set(p + ".engine_method_cost", "0", "bench");
      cfg.set(p + ".method_cost", "1 ns", "bench");
    }
    cfg.set("pfifo.memory_target", "interconnect", "bench");  // auto would take the MMU's path on G84: every access faulted
    cfg.set("pfifo_mmu.memory_target", "mmu.in", "bench");
    cfg.set("pfifo_mmu_nodmi.memory_target", "mmu.in", "bench");
    cfg.set("pfifo_mmu_nodmi.use_dmi", "false", "bench");
    cfg.set("vram.read_latency", "20 ns", "bench");
    r = std::make_unique<router>("interconnect");
    vram = std::make_unique<sparse_memory>("vram");
    mmu = std::make_unique<mmu_nv50::mmu_nv50>("mmu");
    flat = std::make_unique<lane>("pfifo", 0, *vram);
    via_mmu = std::make_unique<lane>("pfifo_mmu", 0x1000000, *vram);
    via_mmu_nodmi = std::make_unique<lane>("pfifo_mmu_nodmi", 0x2000000, *vram);
    flat->pf->mem.bind(r->in);
    mmu->out.bind(r->in);
    via_mmu->pf->mem.bind(mmu->in);
    via_mmu_nodmi->pf->mem.bind(mmu->in);
    mmu->fault_irq.bind(mmu_irq);
    mmu_host = std::make_unique<reg_host>("mmu_host");
    mmu_host->out.bind(mmu->regs.in);
    r->out.bind(vram->in);
    r->name_input(0, "pfifo");
    r->name_input(1, "mmu");
    r->map(0, vram_base, uint64_t(1) << 30, "vram");
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    for (lane* l : {flat.get(), via_mmu.get(), via_mmu_nodmi.get()}) l->start();
  }
};

rig& the_rig() {
  static rig r;
  return r;
}

void run_lane(benchmark::State& state, lane& l) {
  rig& r = the_rig();
  auto* e = l.pf->engine_at(1);
  const uint64_t before = e->methods;
  const sc_core::sc_time t0 = sc_core::sc_time_stamp();
  for (auto _ : state) l.once(*r.vram);
  const uint64_t methods = e->methods - before;
  state.counters["methods_per_s"] = benchmark::Counter(double(methods), benchmark::Counter::kIsRate);
  state.counters["sim_ns_per_method"] = (sc_core::sc_time_stamp() - t0).to_seconds() * 1e9 / double(methods);
  state.counters["dmi_accesses"] = double(l.pf->dmi_accesses.value());
}

void BM_pfifo_methods_lt(benchmark::State& state) { run_lane(state, *the_rig().flat); }
BENCHMARK(BM_pfifo_methods_lt)->Unit(benchmark::kMillisecond)->Iterations(5);
void BM_pfifo_methods_lt_mmu_dmi(benchmark::State& state) { run_lane(state, *the_rig().via_mmu); }
BENCHMARK(BM_pfifo_methods_lt_mmu_dmi)->Unit(benchmark::kMillisecond)->Iterations(5);
void BM_pfifo_methods_lt_mmu_no_dmi(benchmark::State& state) { run_lane(state, *the_rig().via_mmu_nodmi); }
BENCHMARK(BM_pfifo_methods_lt_mmu_no_dmi)->Unit(benchmark::kMillisecond)->Iterations(5);

// Baseline: bare 4-byte reads through the router to the same memory, back to back.
void BM_router_bare_transactions(benchmark::State& state) {
  rig& r = the_rig();
  uint32_t v = 0;
  uint64_t n = 0;
  transaction t(tlm::TLM_READ_COMMAND, 0, &v, 4);
  sc_core::sc_time d;
  for (auto _ : state) {
    for (int i = 0; i < 1024; ++i) {
      t.set(tlm::TLM_READ_COMMAND, vram_base + pb + 4 * (i & 255), &v, 4);
      d = sc_core::SC_ZERO_TIME;
      r.r->b_transport(0, t.gp, d);
      ++n;
    }
  }
  benchmark::DoNotOptimize(v);
  state.counters["transactions_per_s"] = benchmark::Counter(double(n), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_router_bare_transactions);

// Reference: the PFIFO core alone over an in-process flat bus (no TLM, no SystemC).
struct flat_bus : pfifo::fifo_bus {
  std::vector<uint8_t> mem = std::vector<uint8_t>(16 << 20);
  bool dma(bool w, unsigned, uint32_t, uint64_t off, void* d, unsigned len, pfifo::client, uint64_t& now, uint32_t) override {
    return phys(w, off, d, len, now);
  }
  bool vm(bool w, unsigned, uint64_t a, void* d, unsigned len, pfifo::client, uint64_t& now) override { return phys(w, a, d, len, now); }
  bool inst(bool w, uint64_t a, void* d, unsigned len, uint64_t& now) override { return phys(w, a, d, len, now); }
  bool phys(bool w, uint64_t a, void* d, unsigned len, uint64_t& now) {
    if (a + len > mem.size()) return false;
    if (w)
      std::memcpy(&mem[a], d, len);
    else
      std::memcpy(d, &mem[a], len);
    now += 20000;
    return true;
  }
};

void BM_pfifo_core_only(benchmark::State& state) {
  flat_bus bus;
  pfifo::core_config cfg;
  cfg.g = pfifo::gen::gf100;  // no RAMHT needed: OBJECT takes engine+class
  cfg.channels = 1;
  pfifo::fifo_core core(cfg, bus);
  pfifo::null_engine eng("null");
  eng.method_cost_ps = 0;
  core.attach_engine(0, &eng);
  std::vector<uint32_t> w = {pfifo::hdr_inc(0, 0, 1), 0x9039};
  for (uint32_t left = methods_per_run; left;) {
    const uint32_t n = std::min<uint32_t>(left, 2047);
    w.push_back(pfifo::hdr_ninc(0, 0x104, n));
    for (uint32_t i = 0; i < n; ++i) w.push_back(i);
    left -= n;
  }
  std::memcpy(&bus.mem[0x1000], w.data(), 4 * w.size());
  auto& c = core.chan(0);
  c.enabled = true;
  c.pb_dmaobj = 1;
  uint64_t now = 0;
  for (auto _ : state) {
    c.dma_get = 0x1000;
    c.dma_put = 0x1000 + 4 * w.size();
    core.kick(0);
    for (uint64_t next; (next = core.run(now, pfifo::never)) != pfifo::never;) now = std::max(now, next);
  }
  state.counters["methods_per_s"] = benchmark::Counter(double(eng.methods), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_pfifo_core_only)->Unit(benchmark::kMillisecond)->Iterations(5);

}  // namespace

int sc_main(int argc, char** argv) {
  bench::initialize_steady(argc, argv);
  bench::ratio_reporter rep([](bench::ratio_reporter& r) {
    const double bare = r.counter("BM_router_bare_transactions", "transactions_per_s");
    for (const char* lane : {"BM_pfifo_methods_lt/iterations:5", "BM_pfifo_methods_lt_mmu_dmi/iterations:5",
                             "BM_pfifo_methods_lt_mmu_no_dmi/iterations:5", "BM_pfifo_core_only/iterations:5"}) {
      const double m = r.counter(lane, "methods_per_s");
      if (m <= 0 || bare <= 0) continue;
      char v[96];
      std::snprintf(v, sizeof v, "%.3g methods/s = %.2fx router's bare rate", m, m / bare);
      if (std::string(lane).find("mmu_dmi") != std::string::npos)
        bench::ratio_reporter::figure(lane, v, ">= 1x", m / bare >= 1);
      else
        std::printf("  %-44s %s\n", lane, v);
    }
  });
  benchmark::RunSpecifiedBenchmarks(&rep);
  benchmark::Shutdown();
  return 0;
}
