// SPDX-License-Identifier: Apache-2.0
// Translations per second of the AGX UAT on the agx platform: TLB hits (goal <= 5 ns, like the
// NV50 MMU) and page-table walks (TLB misses: table reads through DMI), against a baseline
// measured in the same run (a hash-map page lookup), and a debug walk (notlb, stale detection).
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <benchmark/benchmark.h>
#include "../ratio_reporter.h"
#include "agx.h"
#include "gpuvp/config.h"
#include "gpuvp/memory.h"
#include "gpuvp/platform.h"
#include "gpuvp/registry.h"

void gpuvp_register_agx();

using namespace gpuvp;
using gpuvp::uat::access_type;
using gpuvp::uat::view;

namespace {

constexpr uint64_t pages = 32;  // fits a 64-entry TLB
constexpr uint64_t va0 = 0x1500000000ull;

// The agx platform with slot 1 mapping `pages` pages from va0 (L1 0x800100000, L2, L3), and the
// fw view's TLB cut to one entry so that alternating pages always walk.
struct platform_fixture {
  std::unique_ptr<platform> p;
  agx::agx_soc* agx = nullptr;
  platform_fixture() {
    gpuvp_register_agx();
    auto& cfg = config::global();
    cfg.load_yaml_text(registry::global().find_platform("agx")->yaml, "agx.yaml");
    cfg.set("agx.uat.fw.tlb_entries", "1", "bench");
    cfg.set("agx.uat.fw.tlb_ways", "1", "bench");
    p = std::make_unique<platform>();
    agx = p->find_as<agx::agx_soc>("agx");
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    auto* dram = dynamic_cast<sparse_memory*>(p->find("dram"));
    auto store = [&](uint64_t a, uint64_t v) { dram->load(a - 0x800000000ull, &v, 8); };
    store(0x9fff74000ull + 16, uint64_t(1) << 48 | 0x800100000ull | 1);
    store(0x800100000ull + 1 * 8, 0x800104003ull);
    store(0x800104000ull + 0x280 * 8, 0x800108003ull);
    for (uint64_t i = 0; i < pages; ++i) store(0x800108000ull + i * 8, 0x00E0000900000C0Bull + (i << 14));
  }
};

platform_fixture& fx() {
  static platform_fixture f;
  return f;
}

void BM_baseline_hashmap_lookup(benchmark::State& s) {
  std::unordered_map<uint64_t, uint64_t> m;
  for (uint64_t i = 0; i < pages; ++i) m[i] = 0x900000000ull + (i << 14);
  uint64_t va = 0, sum = 0;
  for (auto _ : s) {
    sum += m.find(va >> 14)->second + (va & 0x3fff);
    va = (va + 0x4040) & ((pages << 14) - 1);
  }
  benchmark::DoNotOptimize(sum);
}

// gpu view, slot 1: every access hits once the first pass filled the TLB.
void BM_uat_translate_hit(benchmark::State& s) {
  auto& f = fx();
  sc_core::sc_time d;
  uint64_t off = 0, sum = 0;
  for (auto _ : s) {
    sum += f.agx->uat.translate(view::gpu, 1, va0 + off, access_type::read, d).pa;
    off = (off + 0x4040) & ((pages << 14) - 1);
  }
  benchmark::DoNotOptimize(sum);
  s.counters["hits"] = double(f.agx->uat.stat(view::gpu, "hits"));
}

// fw view with a one-entry TLB, alternating two pages: every access walks (L1, L2, L3 through DMI;
// the TTB from the context cache).
void BM_uat_translate_walk(benchmark::State& s) {
  auto& f = fx();
  sc_core::sc_time d;
  uint64_t i = 0, sum = 0;
  for (auto _ : s) sum += f.agx->uat.translate(view::fw, 1, va0 + ((i++ & 1) << 14), access_type::read, d).pa;
  benchmark::DoNotOptimize(sum);
  s.counters["walks"] = double(f.agx->uat.stat(view::fw, "walks"));
}

// A walk of memory with debug reads (the notlb path and stale detection's comparison).
void BM_uat_debug_walk(benchmark::State& s) {
  auto& f = fx();
  uint64_t off = 0, sum = 0;
  for (auto _ : s) {
    sum += f.agx->uat.translate_debug(view::ppl, 1, va0 + off, access_type::read).pa;
    off = (off + 0x4040) & ((pages << 14) - 1);
  }
  benchmark::DoNotOptimize(sum);
}

BENCHMARK(BM_baseline_hashmap_lookup);
BENCHMARK(BM_uat_translate_hit);
BENCHMARK(BM_uat_translate_walk);
BENCHMARK(BM_uat_debug_walk);

}  // namespace

int sc_main(int argc, char** argv) {
  bench::initialize_steady(argc, argv);
  bench::ratio_reporter rep([](bench::ratio_reporter& r) {
    r.time_ratio("BM_uat_translate_hit", "BM_baseline_hashmap_lookup", 1.5);
    r.time_ratio("BM_uat_translate_walk", "BM_uat_translate_hit");
    r.time_ratio("BM_uat_debug_walk", "BM_uat_translate_hit");
    r.time_goal("TLB hit", "BM_uat_translate_hit", 5);
  });
  benchmark::RunSpecifiedBenchmarks(&rep);
  benchmark::Shutdown();
  return 0;
}
