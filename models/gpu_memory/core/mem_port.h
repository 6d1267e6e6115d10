// SPDX-License-Identifier: Apache-2.0
// The port of the GPU's memory system that the SMs' L1 data caches use (plain C++): an access
// per 32-byte sector, answered at once (a latency) or later through mem_client::mem_done, the
// memory clocked once per core cycle before the SMs. Implemented by memory_system (core/memsys.h:
// GPGPU-Sim's crossbar, L2 slices and DRAM channels), fixed_latency_memory and the compute
// engine's TLM adapter (models/sm/compute.cpp). docs/models/gpu_memory.md.
#pragma once
#include <cstdint>
#include <string>

namespace gpuvp::gpu_memory {

// Per-kernel memory statistics, named after GPGPU-Sim's.
struct mem_stats {
  uint64_t l2_accesses = 0, l2_hits = 0, l2_pending_hits = 0, l2_misses = 0, l2_writes = 0;
  uint64_t dram_reads = 0, dram_writes = 0, dram_row_hits = 0, dram_bytes = 0;
  // L2 accesses that failed and stalled the input (L2_total_cache_reservation_fails), by
  // GPGPU-Sim's cause: no MSHR entry, no merge slot, no way without a pending fill.
  uint64_t l2_reservation_fails = 0, l2_fail_mshr_entry = 0, l2_fail_mshr_merge = 0, l2_fail_line_alloc = 0;
  // Cycles the L2 made no access because its L2 -> DRAM or L2 -> icnt queue was full
  // (memory_sub_partition::cache_cycle does not try then: not reservation fails).
  uint64_t l2_queue_stalls = 0;
  // DRAM requests a bank took from its scheduler (GPGPU-Sim's access_num; dram_reads /
  // dram_writes count column commands: with a non-sectored L2 a line's request takes several);
  // row hits are per request.
  uint64_t dram_requests = 0;
  mem_stats operator-(const mem_stats& o) const {
    return {l2_accesses - o.l2_accesses,
            l2_hits - o.l2_hits,
            l2_pending_hits - o.l2_pending_hits,
            l2_misses - o.l2_misses,
            l2_writes - o.l2_writes,
            dram_reads - o.dram_reads,
            dram_writes - o.dram_writes,
            dram_row_hits - o.dram_row_hits,
            dram_bytes - o.dram_bytes,
            l2_reservation_fails - o.l2_reservation_fails,
            l2_fail_mshr_entry - o.l2_fail_mshr_entry,
            l2_fail_mshr_merge - o.l2_fail_mshr_merge,
            l2_fail_line_alloc - o.l2_fail_line_alloc,
            l2_queue_stalls - o.l2_queue_stalls,
            dram_requests - o.dram_requests};
  }
  double row_buffer_locality() const { return dram_requests ? double(dram_row_hits) / double(dram_requests) : 0.0; }
};

// Where L1 misses and stores go. Returns the latency in core cycles until the data is back
// (reads) or the write is accepted; `cycle` is the SM's current cycle.
// Who gets an access's completion when the memory answers later (mem_port::pending).
class mem_client {
 public:
  // The access of `addr` that `tag` names completes in memory cycle `cycle` (>= the current one).
  virtual void mem_done(uint64_t addr, bool write, unsigned tag, uint64_t cycle) = 0;
  // The crossbar input the client's requests enter (its SIMT cluster); ~0u: one input of its
  // own, after the clusters' (another engine).
  virtual unsigned icnt_node() const { return ~0u; }
  // Its cluster's response FIFO is full in memory cycle `cycle`: the cluster pops no answer from
  // the reply crossbar (simt_core_cluster::icnt_cycle), which holds it. Asked before the cycle's
  // SM step.
  virtual bool reply_fifo_full(uint64_t) const { return false; }

 protected:
  ~mem_client() = default;
};

// Memory behind the L1s. `cycle` counts core cycles since the memory's construction (each SM's
// local cycle + its set_mem_base).
class mem_port {
 public:
  static constexpr uint64_t pending = ~0ull;
  static constexpr uint32_t whole_sector = ~0u;  // a write's byte mask: all 32 bytes of its sector
  static constexpr unsigned sector_bytes = 32;
  // A write's byte mask for bytes [first, first + count) of one sector (bit i: byte i).
  static constexpr uint32_t written_bytes(unsigned first, unsigned count) {
    return count >= sector_bytes ? whole_sector : ((uint32_t(1) << count) - 1) << first;
  }
  virtual ~mem_port() = default;
  // One access: the core cycles until its data / acknowledgement is back, or `pending`: the
  // memory calls client->mem_done(addr, write, tag, ...) from a later cycle(). `written`: the
  // bytes a write writes in the 32-byte sector of `addr` (bit i: byte addr / 32 * 32 + i;
  // GPGPU-Sim's mem_fetch byte mask), whole_sector for reads.
  virtual uint64_t access(uint64_t addr, unsigned bytes, bool write, uint32_t written, uint64_t cycle, mem_client* client,
                          unsigned tag) = 0;
  // The most bytes one access may carry (within one aligned block of that size): a 32-byte
  // sector, or a whole line where the memory's L2 is not sectored (memory_system).
  virtual unsigned packet_bytes() const { return sector_bytes; }
  // The client may not send now: its way in has no room (GPGPU-Sim's icnt_has_buffer).
  virtual bool full(const mem_client* /*client*/) const { return false; }
  // GPGPU-Sim decodes the address of every mem_fetch it makes (addrdec_tlx, from the mem_fetch
  // constructor), also of those that never reach the memory: an instruction fetch (hit or miss,
  // or with a perfect instruction cache), an L1D access entering its bank's latency queue (a hit,
  // or one that meets a bank conflict). A memory whose channel mapping depends on the order of
  // those decodes (-gpgpu_memory_partition_indexing 4) says so here, and the SMs then report each
  // one through decoded() in their cycle, in order with their access() calls (access() is a decode
  // too); from several host threads as access() (concurrent_access).
  virtual bool wants_decodes() const { return false; }
  virtual void decoded(uint64_t /*addr*/, const mem_client* /*client*/) {}
  // Called once per core cycle before the SMs' (same `cycle` as their accesses of that cycle):
  // the memory advances its clocked parts and delivers completions. Free when nothing is queued.
  virtual void cycle(uint64_t /*cycle*/) {}
  virtual mem_stats stats() const { return {}; }  // memory-side counts since construction
  virtual void kernel_start(uint64_t /*gpu_cycle*/) {}
  virtual void memcpy_to_device(uint64_t, uint64_t) {}
  // Whether access() may be called from several host threads at once for clients of different
  // crossbar nodes below `nodes` (one node's accesses all from one thread, in order); a memory
  // that can prepares for it here.
  virtual bool concurrent_access(unsigned /*nodes*/) { return false; }
  // After each cycle's SM steps when they ran on several threads (concurrent_access said yes):
  // work the memory deferred from access() is done here, on the calling thread.
  virtual void sms_stepped() {}
  // Running ahead (a speed switch, same results): right after cycle(c - 1), the memory may do
  // the part of cycle(c) that does not depend on the SMs' cycle c - 1 (nor they on it), so that
  // run_ahead(c) can run on another host thread while the SMs step. prepare_ahead(c) does the
  // serial share on the calling thread and says whether run_ahead(c) has work; when it returns
  // true, run_ahead(c) must follow before cycle(c), which then does only the rest. Only while no
  // other engine reaches the memory before cycle(c).
  virtual bool prepare_ahead(uint64_t /*cycle*/) { return false; }
  virtual void run_ahead(uint64_t /*cycle*/) {}
  virtual std::string describe() const { return "memory behind L1"; }
};

// Memory behind L1 at a fixed latency (L2 ROP latency + DRAM latency from the config).
class fixed_latency_memory : public mem_port {
 public:
  explicit fixed_latency_memory(uint64_t latency) : latency_(latency) {}
  uint64_t access(uint64_t, unsigned, bool, uint32_t, uint64_t, mem_client*, unsigned) override {
    ++accesses;
    return latency_;
  }
  std::string describe() const override { return "fixed latency memory (" + std::to_string(latency_) + " core cycles after L1)"; }
  uint64_t accesses = 0;

 private:
  uint64_t latency_;
};

}  // namespace gpuvp::gpu_memory
