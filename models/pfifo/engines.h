// SPDX-License-Identifier: Apache-2.0
// Engines behind the puller (engine interface in fifo_core.h): a recording engine for tests and
// workloads, and the copy engine with the NV50 M2MF class methods (0x5039) that copies through
// PFIFO's memory bus (DMA objects, i.e. the MMU on G80+). The SOFTWARE engine is not an object:
// the puller raises CACHE_ERROR(EMPTY_SUBCHANNEL) for it.
#pragma once
#include <cstdint>
#include <vector>
#include "fifo_core.h"

namespace gpuvp::pfifo {

// Remembers every method it receives, with its channel and start time.
class recording_engine : public engine {
 public:
  struct entry {
    unsigned ch, subc;
    uint32_t mthd, param;
    uint64_t time_ps;
  };
  using engine::engine;
  std::vector<entry> log;

 protected:
  uint64_t execute(unsigned ch, unsigned subc, uint32_t mthd, uint32_t param, uint64_t start) override {
    log.push_back({ch, subc, mthd, param, start});
    return method_cost_ps;
  }
};

// Accepts and counts methods, no effect (benchmarks).
class null_engine : public engine {
 public:
  using engine::engine;

 protected:
  uint64_t execute(unsigned, unsigned, uint32_t, uint32_t, uint64_t) override { return method_cost_ps; }
};

// Memory-to-memory copy (NV50 M2MF subset): DMA_NOTIFY 0x180, DMA_BUFFER_IN 0x184,
// DMA_BUFFER_OUT 0x188, OFFSET_IN_HIGH 0x238, OFFSET_OUT_HIGH 0x23c, NOTIFY 0x104,
// OFFSET_IN 0x30c, OFFSET_OUT 0x310, PITCH_IN 0x314, PITCH_OUT 0x318, LINE_LENGTH_IN 0x31c,
// LINE_COUNT 0x320, FORMAT 0x324, BUFFER_NOTIFY 0x328 (starts the copy). Tiling is not modelled.
class m2mf_engine : public engine {
 public:
  // `as` says whose accesses these are (client::engine = PGRAPH's M2MF, client::copy_engine = PCOPY).
  m2mf_engine(std::string name, fifo_bus& bus, bool gf100, client as = client::engine)
      : engine(std::move(name)), bus_(bus), gf100_(gf100), as_(as) {}
  uint64_t bytes_per_ns = 16;  // copy bandwidth
  uint64_t copies = 0, bytes_copied = 0, faults = 0, notifies = 0;

  struct state {
    uint32_t dma_notify = 0, dma_in = 0, dma_out = 0, notify = 0, format = 0;
    uint64_t offset_in = 0, offset_out = 0;
    uint32_t pitch_in = 0, pitch_out = 0, line_length = 0, line_count = 0;
    bool notify_armed = false;
    // DMA slots 6 BUFFER_NOTIFY, 4 BUFFER_IN, 5 BUFFER_OUT (nv50-vm.rst): selector-rewrite
    // generations, bumped by every write of the selector method (sent as gpu_ext::dma_bind).
    uint32_t bind_notify = 0, bind_in = 0, bind_out = 0;
  };
  state& channel_state(unsigned ch) {
    if (st_.size() <= ch) st_.resize(ch + 1);
    return st_[ch];
  }

 protected:
  uint64_t execute(unsigned ch, unsigned subc, uint32_t mthd, uint32_t param, uint64_t start) override;

 private:
  bool access(bool write, unsigned ch, uint32_t obj, uint32_t bind, uint64_t off, void* data, unsigned len, uint64_t& t);
  fifo_bus& bus_;
  bool gf100_;
  client as_;
  std::vector<state> st_;
};

}  // namespace gpuvp::pfifo
