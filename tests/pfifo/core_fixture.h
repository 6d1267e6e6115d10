// SPDX-License-Identifier: Apache-2.0
// A PFIFO core over a flat test memory: DMA objects are resolved from a table, instance memory
// and VM accesses go straight to the memory (VM addresses >= vm_fault_above fault).
#pragma once
#include <cstring>
#include <map>
#include <vector>
#include <gtest/gtest.h>
#include "engines.h"
#include "fifo_core.h"
#include "pb_text.h"

namespace gpuvp::pfifo::test {

struct flat_bus : fifo_bus {
  std::vector<uint8_t> mem = std::vector<uint8_t>(1 << 24);
  struct obj {
    uint64_t base, limit;
  };
  std::map<uint32_t, obj> objs;  // selector -> window
  uint64_t vm_fault_above = 1 << 24;
  uint64_t latency_ps = 100;
  unsigned flushes = 0;

  bool phys(bool write, uint64_t a, void* d, unsigned len, uint64_t& now) {
    if (a + len > mem.size()) return false;
    if (write)
      std::memcpy(&mem[a], d, len);
    else
      std::memcpy(d, &mem[a], len);
    now += latency_ps;
    return true;
  }
  struct dma_rec {
    bool write;
    uint32_t obj, bind;
    client c;
  };
  std::vector<dma_rec> dma_log;  // every DMA-object access: selector, dma_bind, issuer
  bool dma(bool write, unsigned, uint32_t o, uint64_t off, void* d, unsigned len, client c, uint64_t& now, uint32_t bind) override {
    dma_log.push_back({write, o, bind, c});
    auto it = objs.find(o);
    if (it == objs.end() || off + len - 1 > it->second.limit) return false;
    return phys(write, it->second.base + off, d, len, now);
  }
  bool vm(bool write, unsigned, uint64_t va, void* d, unsigned len, client, uint64_t& now) override {
    if (va + len > vm_fault_above) return false;
    return phys(write, va, d, len, now);
  }
  bool inst(bool write, uint64_t a, void* d, unsigned len, uint64_t& now) override { return phys(write, a, d, len, now); }
  void wrcache_flush(uint64_t&) override { ++flushes; }
  uint32_t r32(uint64_t a) const {
    uint32_t v;
    std::memcpy(&v, &mem[a], 4);
    return v;
  }
  uint64_t r64(uint64_t a) const {
    uint64_t v;
    std::memcpy(&v, &mem[a], 8);
    return v;
  }
  void w32(uint64_t a, uint32_t v) { std::memcpy(&mem[a], &v, 4); }
  void words(uint64_t a, const std::vector<uint32_t>& w) { std::memcpy(&mem[a], w.data(), 4 * w.size()); }
};

// Layout used by the tests: pushbuffer DMA object selector 1 covering [0, 16 MiB),
// channel c's instance block at 0x100000 + 0x20000*c, pre-G80 RAMIN at 0x800000.
struct core_env {
  flat_bus bus;
  core_config cfg;
  std::unique_ptr<fifo_core> core;
  std::unique_ptr<recording_engine> gr, ce;
  uint64_t now = 0;
  static constexpr uint64_t pb = 0x10000;

  explicit core_env(gen g, unsigned chans = 4) {
    cfg.g = g;
    cfg.channels = chans;
    cfg.ramin_base = 0x800000;
    cfg.ramht_offset = 0x10000;
    cfg.ramht_size = g >= gen::g80 ? 0x8000 : 0x1000;
    cfg.acquire_retry_ps = 1000000;
    cfg.acquire_timeout_ps = 50000000;
    make_core();
  }
  // (Re)builds the core, its engines and channels from cfg (after a test changed cfg).
  void make_core() {
    const gen g = cfg.g;
    const unsigned chans = cfg.channels;
    core = std::make_unique<fifo_core>(cfg, bus);
    gr = std::make_unique<recording_engine>("gr");
    ce = std::make_unique<recording_engine>("ce");
    core->attach_engine(g >= gen::gf100 ? 0 : 1, gr.get());
    core->attach_engine(g >= gen::gf100 ? 4 : 3, ce.get());
    bus.objs[1] = {0, (1u << 24) - 1};
    for (unsigned c = 0; c < chans; ++c) {
      auto& ch = core->chan(c);
      ch.enabled = true;
      ch.pb_dmaobj = 1;
      ch.inst = 0x100000 + 0x20000 * c;
    }
  }
  // Puts a RAMHT entry the way a driver would (hash, linear probe).
  void ramht_add(unsigned ch, uint32_t handle, unsigned engine, uint32_t addr) {
    const uint64_t base = (cfg.g >= gen::g80 ? core->chan(ch).inst : cfg.ramin_base) + cfg.ramht_offset;
    const unsigned bits = ramht_bits(cfg.ramht_size);
    uint32_t h = ramht_hash(handle, bits, cfg.g >= gen::g80 ? 0 : ch);
    while (bus.r32(base + h * 8) || bus.r32(base + h * 8 + 4)) h = (h + 1) & ((1u << bits) - 1);
    bus.w32(base + h * 8, handle);
    bus.w32(base + h * 8 + 4, ramht_context(cfg.g, engine, addr, ch));
  }
  // Writes the assembled text at pb + 0x1000*ch and sets DMA_PUT (DMA mode).
  uint64_t push(unsigned ch, const std::string& text, uint64_t at = 0) {
    auto w = assemble(text, cfg.g, "test");
    auto& c = core->chan(ch);
    const uint64_t a = at ? at : pb + 0x1000 * ch;
    bus.words(a, w);
    if (!at) {
      c.dma_get = a;
    }
    c.dma_put = a + 4 * w.size();
    core->kick(ch);
    return a;
  }
  // Runs until nothing can progress (advancing time to each wake-up) or `until`.
  void run(uint64_t until = 1000000000) {
    for (;;) {
      uint64_t next = core->run(now, until);
      if (now >= until || next == never || next >= until) return;
      if (next > now) now = next;
    }
  }
  // Runs, acknowledging every latched error; returns the (type, code) pairs seen.
  std::vector<std::pair<err_type, uint32_t>> run_ack() {
    std::vector<std::pair<err_type, uint32_t>> seen;
    run();
    while (!core->errors().empty()) {
      seen.emplace_back(core->errors().front().type, core->errors().front().code);
      core->ack_error();
      run();
    }
    return seen;
  }
};

}  // namespace gpuvp::pfifo::test
