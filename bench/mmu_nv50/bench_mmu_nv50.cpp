// SPDX-License-Identifier: Apache-2.0
// Translations per second of the NV50 MMU: TLB hits and page-table walks, through the direct API
// and through the TLM socket, against baselines measured in the same run (a hash-map page lookup,
// and a linear pass-through access of the same socket path). Goal: a TLB hit costs <= 5 ns.
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <benchmark/benchmark.h>
#include "../ratio_reporter.h"
#include <tlm_utils/simple_initiator_socket.h>
#include "gpuvp/config.h"
#include "gpuvp/extension.h"
#include "gpuvp/memory.h"
#include "mmu_nv50.h"
#include "nv50_vm.h"

using namespace gpuvp;
using namespace gpuvp::mmu_nv50;

namespace {

constexpr uint64_t vram = 0x200000000;
constexpr uint32_t chan = 0x100;
constexpr uint64_t pages = 32;  // fits a 64-entry TLB

struct engine_port : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<engine_port> out{"out"};
  tlm_utils::simple_initiator_socket<engine_port> bar0{"bar0"};  // the host's BAR0 path to the registers
  explicit engine_port(sc_core::sc_module_name n) : sc_module(n) {}
};

struct platform_fixture {
  std::unique_ptr<mmu_nv50::mmu_nv50> mmu;
  std::unique_ptr<sparse_memory> mem;
  std::unique_ptr<engine_port> eng;
  sc_core::sc_signal<bool> irq{"irq"};
  platform_fixture() {
    config::global().set("mem.size", "16 GiB", "bench");
    mmu = std::make_unique<mmu_nv50::mmu_nv50>("mmu");
    mem = std::make_unique<sparse_memory>("mem");
    eng = std::make_unique<engine_port>("eng");
    mmu->out.bind(mem->in);
    eng->out.bind(mmu->in);
    eng->bar0.bind(mmu->regs.in);
    mmu->fault_irq.bind(irq);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // end of elaboration: the multi socket's callbacks
    const uint32_t paged[6] = {0x7fc0003d, 0xffffffff, 0, 0xff000000, 0, 0};
    mem->load(vram + 0x100020, paged, sizeof paged);
    const uint64_t pde = 0x00200003;
    mem->load(vram + 0x100200, &pde, 8);
    for (uint64_t i = 0; i < 4096; ++i) {
      const uint64_t pte = 0xa0000001ull + (i << 12);
      mem->load(vram + 0x200000 + i * 8, &pte, 8);
    }
  }
};

platform_fixture& fx() {
  static platform_fixture f;
  return f;
}

// Baseline: the cheapest software page lookup, a hash map from page number to frame.
void BM_baseline_hashmap_lookup(benchmark::State& s) {
  std::unordered_map<uint64_t, uint64_t> m;
  for (uint64_t i = 0; i < pages; ++i) m[i] = 0xa0000000 + (i << 12);
  uint64_t va = 0, sum = 0;
  for (auto _ : s) {
    sum += m.find(va >> 12)->second + (va & 0xfff);
    va = (va + 0x1040) & ((pages << 12) - 1);
  }
  benchmark::DoNotOptimize(sum);
}

void BM_tlb_lookup_hit(benchmark::State& s) {
  tlb t;
  t.configure(64, 4, tlb_policy::lru);
  for (uint64_t i = 0; i < pages; ++i) {
    pte p;
    p.present = true;
    p.address = 0xa0000000 + (i << 12);
    t.insert(chan, i << 12, p, 12);
  }
  uint64_t va = 0, sum = 0;
  for (auto _ : s) {
    sum += t.lookup(chan, va)->p.address;
    va = (va + 0x1040) & ((pages << 12) - 1);
  }
  benchmark::DoNotOptimize(sum);
}

// The MMU's direct API on TLB hits (DMA object cached, limit check, TLB, attributes, checks),
// over the 32 resident pages with `step`: 0x1040 changes page every time, 64 streams through them.
void translate_hits(benchmark::State& s, uint32_t eng, uint64_t step) {
  auto& f = fx();
  vm_access a{eng, client::pfifo_read, chan, 2, 0, false, false};
  sc_core::sc_time d;
  for (uint64_t i = 0; i < pages; ++i) {
    a.address = i << 12;
    f.mmu->translate(a, d);
  }
  uint64_t va = 0;  // the loop variable in a register, as in the baseline
  for (auto _ : s) {
    a.address = va;
    translation t = f.mmu->translate(a, d);
    benchmark::DoNotOptimize(t);  // the whole result is materialised, as a caller would use it
    va = (va + step) & ((pages << 12) - 1);
  }
}
void BM_mmu_translate_hit(benchmark::State& s) { translate_hits(s, engine::pfifo, 0x1040); }
void BM_mmu_translate_hit_stream(benchmark::State& s) { translate_hits(s, engine::bar, 64); }

// The direct API on a walk every time: the engine's TLB is flushed before each translation.
void BM_mmu_translate_walk(benchmark::State& s) {
  auto& f = fx();
  vm_access a{engine::pgraph, client::dispatch, chan, 2, 0, false, false};
  sc_core::sc_time d;
  uint64_t sum = 0;
  for (auto _ : s) {
    f.mmu->flush_engine(engine::pgraph);
    sum += f.mmu->translate(a, d).r.linear;
    a.address = (a.address + 0x1040) & ((4096ull << 12) - 1);
  }
  benchmark::DoNotOptimize(sum);
}

// The pure core with a map-backed memory (no TLB): every call reads DMA object, PDE and PTE.
void BM_core_translate_walk(benchmark::State& s) {
  std::map<uint64_t, uint32_t> words;
  const uint32_t paged[6] = {0x7fc0003d, 0xffffffff, 0, 0xff000000, 0, 0};
  for (int i = 0; i < 6; ++i) words[0x100020 + 4 * i] = paged[i];
  words[0x100200] = 0x00200003;
  for (uint64_t i = 0; i < pages; ++i) words[0x200000 + i * 8] = uint32_t(0xa0000001 + (i << 12));
  const read_fn rd = [&](target, uint64_t a, void* data, unsigned len) {
    auto* w = static_cast<uint32_t*>(data);
    for (unsigned i = 0; i < len / 4; ++i) {
      auto it = words.find(a + 4 * i);
      w[i] = it == words.end() ? 0 : it->second;
    }
    return true;
  };
  options o;
  vm_access a{engine::pgraph, client::dispatch, chan, 2, 0, false, false};
  uint64_t sum = 0;
  for (auto _ : s) {
    sum += translate(o, a, rd).r.linear;
    a.address = (a.address + 0x1040) & ((pages << 12) - 1);
  }
  benchmark::DoNotOptimize(sum);
}

// Through the sockets: a linear (pass-through) access is the baseline of a translated one.
void socket_access(benchmark::State& s, uint32_t selector) {
  auto& f = fx();
  uint32_t data = 0;
  transaction t(tlm::TLM_READ_COMMAND, 0, &data, 4);
  t.ext.vm_engine = engine::bar;
  t.ext.vm_client = client::pfifo_read;
  t.ext.vm_context = chan;
  t.ext.dma_slot = selector;
  uint64_t addr = 0;
  for (auto _ : s) {
    t.set(tlm::TLM_READ_COMMAND, selector == gpu_ext::none ? vram + 0xa0000000 + addr : addr, &data, 4);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    f.eng->out->b_transport(t.gp, d);
    addr = (addr + 0x1040) & ((pages << 12) - 1);
  }
  benchmark::DoNotOptimize(data);
}
void BM_socket_linear_baseline(benchmark::State& s) { socket_access(s, gpu_ext::none); }
void BM_socket_translated_hit(benchmark::State& s) { socket_access(s, 2); }

BENCHMARK(BM_baseline_hashmap_lookup);
BENCHMARK(BM_tlb_lookup_hit);
BENCHMARK(BM_mmu_translate_hit);
BENCHMARK(BM_mmu_translate_hit_stream);
BENCHMARK(BM_mmu_translate_walk);
BENCHMARK(BM_core_translate_walk);
BENCHMARK(BM_socket_linear_baseline);
BENCHMARK(BM_socket_translated_hit);

}  // namespace

int sc_main(int argc, char** argv) {
  bench::initialize_steady(argc, argv);
  bench::ratio_reporter rep([](bench::ratio_reporter& r) {
    r.time_ratio("BM_tlb_lookup_hit", "BM_baseline_hashmap_lookup");
    r.time_ratio("BM_mmu_translate_hit", "BM_baseline_hashmap_lookup");
    r.time_ratio("BM_mmu_translate_hit_stream", "BM_baseline_hashmap_lookup");
    r.time_ratio("BM_mmu_translate_walk", "BM_mmu_translate_hit");
    r.time_ratio("BM_core_translate_walk", "BM_baseline_hashmap_lookup");
    r.time_ratio("BM_socket_translated_hit", "BM_socket_linear_baseline");
    for (const char* b : {"BM_mmu_translate_hit", "BM_mmu_translate_hit_stream", "BM_mmu_translate_walk"})
      if (r.has(b)) std::printf("  %-44s %.1f M translations/s\n", b, 1e3 / r.time(b));
    r.time_goal("TLB hit, random pages", "BM_mmu_translate_hit", 5);
    r.time_goal("TLB hit, streaming pages", "BM_mmu_translate_hit_stream", 5);
  });
  benchmark::RunSpecifiedBenchmarks(&rep);
  benchmark::Shutdown();
  return 0;
}
