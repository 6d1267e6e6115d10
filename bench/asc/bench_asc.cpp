// SPDX-License-Identifier: Apache-2.0
// The ASC's speed: cached accesses per second through its L1 data cache (hits with and without
// stale detection, misses with evictions) against a baseline in the same run (the same reads sent
// straight to the memory model), and firmware operations per second: the firmware on the agx
// platform (SystemC thread, UAT views, cache) against the same firmware on a plain C++ hal (the
// baseline: what the firmware code itself costs).
#include <array>
#include <ctime>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <benchmark/benchmark.h>
#include "agx.h"
#include "agx_scenario.h"
#include "asc_cache.h"
#include "asc_fw.h"
#include "gpuvp/config.h"
#include "gpuvp/extension.h"
#include "gpuvp/host.h"
#include "gpuvp/memory.h"
#include "gpuvp/platform.h"
#include "gpuvp/registry.h"

void gpuvp_register_agx();

using namespace gpuvp;

namespace {

// --- cache: a standalone cache on a sparse memory, driven like the UAT drives it ---
struct cache_bench : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<cache_bench> out{"out"}, checked{"checked"}, raw{"raw"};
  asc::asc_cache cache{"cache"}, cache2{"cache2"};  // stale detection off / on
  sparse_memory mem{"mem"}, mem2{"mem2"}, mem3{"mem3"};
  explicit cache_bench(sc_core::sc_module_name n) : sc_module(n) {
    out.bind(cache.in);
    cache.out.bind(mem.in);
    checked.bind(cache2.in);
    cache2.out.bind(mem3.in);
    raw.bind(mem2.in);
  }
};
cache_bench* cb = nullptr;
constexpr uint64_t pte_normal = 0x00C0000000000443ull & ~uint64_t(7 << 2);

uint64_t read_via(tlm_utils::simple_initiator_socket<cache_bench>& s, uint64_t pa, bool xlat) {
  uint64_t v = 0;
  transaction t(tlm::TLM_READ_COMMAND, pa, &v, 8);
  uat::xlat_ext x;
  x.pte = pte_normal;
  x.va = pa;
  if (xlat) t.gp.set_extension(&x);
  sc_core::sc_time d;
  s->b_transport(t.gp, d);
  if (xlat) t.gp.clear_extension(&x);
  return v;
}

void BM_baseline_memory_read(benchmark::State& s) {
  uint64_t a = 0, sum = 0;
  for (auto _ : s) sum += read_via(cb->raw, a, false), a = (a + 72) & 0x3fff;
  benchmark::DoNotOptimize(sum);
}
void BM_cached_read_hit(benchmark::State& s) {
  uint64_t a = 0, sum = 0;
  for (auto _ : s) sum += read_via(cb->out, a, true), a = (a + 72) & 0x3fff;  // 16 KiB: fits the cache
  benchmark::DoNotOptimize(sum);
}
void BM_cached_read_hit_stale_check(benchmark::State& s) {
  uint64_t a = 0, sum = 0;
  for (auto _ : s) sum += read_via(cb->checked, a, true), a = (a + 72) & 0x3fff;
  benchmark::DoNotOptimize(sum);
}
void BM_cached_read_miss(benchmark::State& s) {
  uint64_t a = 0, sum = 0;
  for (auto _ : s) sum += read_via(cb->out, 0x100000 + a, true), a = (a + 64) & 0xfffff;  // 1 MiB: always misses
  benchmark::DoNotOptimize(sum);
}
BENCHMARK(BM_baseline_memory_read);
BENCHMARK(BM_cached_read_hit);
BENCHMARK(BM_cached_read_hit_stale_check);
BENCHMARK(BM_cached_read_miss);

// --- firmware on a plain C++ hal: flat pages, no time, a fixed number of kicks ---
struct stop {};
class plain_hal : public ascfw::hal {
 public:
  unsigned kicks_left = 0, barriers = 64;
  uint64_t ops = 0;
  uint8_t* at(uint64_t va) { return pages_[va >> 14].data() + (va & 0x3fff); }
  uint64_t ld(space, uint64_t va, unsigned n) override {
    uint64_t v = 0;
    std::memcpy(&v, at(va), n);
    return v;
  }
  void st(space, uint64_t va, uint64_t v, unsigned n) override { std::memcpy(at(va), &v, n); }
  void dc(maint, uint64_t, uint64_t) override {}
  void op(unsigned n) override { ops += n; }
  void poll() override {}
  bool wait_kick(bool, uint64_t& v) override {
    if (!kicks_left--) throw stop{};
    // One submit entry of a command buffer with `barriers` barriers and END.
    st(space::fw, ring_va() + ascfw::ring::cmd_wptr, 1, 4);
    st(space::fw, ring_va() + ascfw::ring::cmd_rptr, 0, 4);
    const uint64_t e = ring_va() + ascfw::ring::cmd_base;
    st(space::fw, e, ascfw::ring::type_submit, 4);
    st(space::fw, e + 8, cbuf, 8);
    st(space::fw, e + 16, (barriers + 1) * 8, 4);
    v = ascfw::make_kick(ascfw::kick_type_fw_ring, 0);
    return true;
  }
  uint64_t deep_wfi() override { return 0; }
  void gpu_work(unsigned, uint64_t, uint32_t, uint32_t) override {}
  void gpu_launch(unsigned, uint32_t) override {}
  void set_current_slot(uint32_t) override {}
  bool invalidate_cmdbuf() const override { return true; }
  uint64_t handoff_va() const override { return 0x10000; }
  uint64_t ring_va() const override { return 0x20000; }
  unsigned ring_entries() const override { return 64; }
  uint64_t max_maint() const override { return 1 << 24; }
  static constexpr uint64_t cbuf = 0x40000;
  void prepare() {
    st(space::ppl, handoff_va(), ascfw::ppl_magic, 8);
    for (unsigned i = 0; i < barriers; ++i) st(space::fw, cbuf + i * 8, ascfw::cmd::barrier, 4);
    st(space::fw, cbuf + barriers * 8, ascfw::cmd::end, 4);
  }

 private:
  std::unordered_map<uint64_t, std::array<uint8_t, 0x4000>> pages_;
};

void BM_firmware_plain_hal(benchmark::State& s) {
  plain_hal h;
  h.prepare();
  for (auto _ : s) {
    h.kicks_left = 100;
    ascfw::firmware fw(h);
    try {
      fw.run();
    } catch (const stop&) {}
  }
  s.counters["fw_ops/s"] = benchmark::Counter(double(h.ops), benchmark::Counter::kIsRate);
  s.SetItemsProcessed(int64_t(h.ops));
}
BENCHMARK(BM_firmware_plain_hal);

// --- firmware on the platform: a scenario of `batches` submissions of 64 barriers + a stamp ---
double platform_fw_ops_per_s(unsigned batches, double& sim_us, uint64_t& ops) {
  auto& cfg = config::global();
  cfg.load_yaml_text(registry::global().find_platform("agx")->yaml, "agx.yaml");
  std::string text = "boot\nalloc stamps 1\nmap stamps 0xffffffa000100000 uncached fw\nalloc cb 1\nmap cb 0xffffffa00c428000 cached fw\n";
  for (unsigned b = 1; b <= batches; ++b) {
    for (unsigned i = 0; i < 64; ++i) text += "cmd cb " + std::to_string(i * 8) + " barrier\n";
    text += "cmd cb 512 stamp " + std::to_string(b) + " stamps\ncmd cb 528 end\nsubmit cb 0 0x4000\nwait-stamp stamps 0 " +
            std::to_string(b) + "\n";
  }
  cfg.load_yaml_text(agx_scenario::overlay(text), "bench");
  cfg.set("agx.uat.detect_stale", "false", "bench");
  auto p = std::make_unique<platform>();
  auto* agx = p->find_as<agx::agx_soc>("agx");
  auto w = agx_scenario::parse(text, "bench");
  p->host_initiator().run_workload(w.get());
  const std::clock_t t0 = std::clock();  // CPU time, as the benchmarks below report
  while (!p->host_initiator().finished()) sc_core::sc_start(sc_core::sc_time(10, sc_core::SC_US));
  const double wall = double(std::clock() - t0) / CLOCKS_PER_SEC;
  sim_us = sc_core::sc_time_stamp().to_seconds() * 1e6;
  ops = agx->asc.fw_ops.value();
  return double(ops) / wall;
}

class ratio_reporter : public benchmark::ConsoleReporter {
 public:
  double platform_ops = 0;
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const auto& r : runs)
      if (r.run_type == Run::RT_Iteration) {
        ns_[r.run_name.function_name] = r.GetAdjustedCPUTime();
        if (r.counters.count("fw_ops/s")) plain_ops_ = r.counters.at("fw_ops/s");
      }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    auto ratio = [&](const char* a, const char* b) {
      if (ns_.count(a) && ns_.count(b) && ns_[b] > 0)
        std::printf("  %-32s %8.2f ns = %6.2fx %s (%.1f M accesses/s)\n", a, ns_[a], ns_[a] / ns_[b], b, 1e3 / ns_[a]);
    };
    std::printf("\nratios (same run):\n");
    ratio("BM_cached_read_hit", "BM_baseline_memory_read");
    ratio("BM_cached_read_hit_stale_check", "BM_baseline_memory_read");
    ratio("BM_cached_read_miss", "BM_baseline_memory_read");
    if (plain_ops_ > 0 && platform_ops > 0)
      std::printf("  firmware on the platform: %.3f M ops/s = 1/%.0f of the plain-hal baseline (%.1f M ops/s)\n", platform_ops / 1e6,
                  plain_ops_ / platform_ops, plain_ops_ / 1e6);
  }

 private:
  std::map<std::string, double> ns_;
  double plain_ops_ = 0;
};

}  // namespace

int sc_main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  gpuvp_register_agx();
  // The platform run first (it owns the simulation); the cache modules are elaborated with it.
  config::global().set("bench.cache.detect_stale", "false", "bench");
  config::global().set("bench.cache2.detect_stale", "true", "bench");
  cache_bench bench("bench");
  cb = &bench;
  double sim_us = 0;
  uint64_t ops = 0;
  const double platform_ops = platform_fw_ops_per_s(200, sim_us, ops);
  std::printf("firmware on the agx platform: %llu ops in %.1f simulated us, %.3f M ops per CPU second\n",
              static_cast<unsigned long long>(ops), sim_us, platform_ops / 1e6);
  ratio_reporter rep;
  rep.platform_ops = platform_ops;
  benchmark::RunSpecifiedBenchmarks(&rep);
  benchmark::Shutdown();
  return 0;
}
