// SPDX-License-Identifier: Apache-2.0
// One DRAM channel as GPGPU-Sim's dram.cc / dram_sched.cc / memory_partition_unit::dram_cycle
// model it, advanced in DRAM command cycles only while it holds requests: the per-sub-partition
// L2 -> DRAM queues, the latency queue (-dram_latency), the FR-FCFS (or FIFO) scheduler, the bank
// state machines under the -gpgpu_dram_timing_opt constraints, the read data delay line (`rwq`)
// and the return queue into the DRAM -> L2 queues. Internal to memory_system. Queue sizes, command
// rules and their order: docs/models/gpu_memory.md, "Memory side".
#pragma once
#include <cstdint>
#include <vector>

#include "gpuvp/flat_map.h"
#include "mem_log.h"
#include "mem_config.h"

namespace gpuvp::gpu_memory {

// GPGPU-Sim's clock domains (gpgpu_sim::next_clock_domain): each domain's time is a double summed
// period by period from 0 at the kernel's start (reinit_clock_domains); a call of
// gpgpu_sim::cycle() ticks every domain whose time is the smallest (ties tick together, the DRAM
// step before the L2 and core steps), and gpu_sim_cycle counts the core ticks of earlier calls.
// Reproduced with the same doubles, so that the DRAM edges fall between the same core cycles as
// in GPGPU-Sim (ties included). Grown lazily, one entry per DRAM edge (4 bytes).
class clock_domains {
 public:
  clock_domains(double core_mhz, double icnt_mhz, double l2_mhz, double dram_mhz);
  // gpu_sim_cycle during DRAM edge j (edge 0 is at time 0).
  uint64_t core_at(uint64_t j) {
    while (g_.size() <= j) grow();
    return g_[j];
  }
  // The first DRAM edge whose gpu_sim_cycle is at least c (from the table when grown that far).
  uint64_t first_edge(uint64_t c) { return !g_.empty() && g_.back() >= c && c < first_.size() ? first_[c] : first_edge_grown(c); }

 private:
  uint64_t first_edge_grown(uint64_t c);
  void grow();
  double core_p_, icnt_p_, l2_p_, dram_p_;
  double core_t_ = 0, icnt_t_ = 0, l2_t_ = 0, dram_t_ = 0;
  uint64_t cores_ = 0;
  std::vector<uint32_t> g_;
  std::vector<uint32_t> first_;  // first_[c]: first_edge(c) for c <= g_.back() (kept by grow)
};

struct dram_request {
  uint64_t arrive = 0;  // DRAM cycle it reaches its L2 -> DRAM queue
  uint64_t row = 0;
  unsigned bank = 0;
  bool write = false;
  uint64_t token = 0;  // the caller's
  unsigned sub = 0;    // its sub-partition (set by push)
  // Column commands it takes: its bytes (dram_req_t's nbytes) over the DRAM atom, bus width x
  // burst length, one atom per RD / WR (a non-sectored L2's 128-byte line: 4 with 32-byte
  // atoms); the data of the last completes it.
  unsigned bursts = 1;
  // A write whose acknowledgement comes back from the DRAM (a non-sectored L2's write-allocate
  // 'W' write, data_cache::wr_miss_wa_naive): like a read it enters the return queue and the
  // DRAM -> L2 queue (dram_t::cycle returns every write that is no L1 / L2 write-back).
  bool answered = false;
};

// A column command's data: the last beat's DRAM cycle.
struct dram_done {
  uint64_t token, data_end;
  bool write;
  unsigned sub;       // the request's sub-partition in the channel (as pushed)
  bool answered;      // dram_request::answered
  uint64_t fill = 0;  // a read: the core cycle whose L2 step takes it from the DRAM -> L2 queue
};

class dram_channel {
 public:
  // `subs` L2 -> DRAM queues (the channel's sub-partitions). Without a clock, a request popped
  // from one in DRAM cycle k reaches the scheduler in cycle k + latency; with one,
  // memory_partition_unit::dram_cycle's latency queue: popped at DRAM edge k, it leaves at the
  // first edge whose gpu_sim_cycle is at least gpu_sim_cycle(k) + `latency` core cycles
  // (-dram_latency) and reaches the scheduler at the next edge (dram_t::push, then
  // dram_t::cycle).
  explicit dram_channel(const mem_config& m, unsigned subs = 1, unsigned latency = 0, clock_domains* clock = nullptr);
  // Queues a request in sub-partition `sub`'s L2 -> DRAM queue; one arriving before the
  // channel's next cycle arrives then.
  void push(dram_request r, unsigned sub = 0);
  bool empty() const { return queued_ == 0; }
  // run(until) has a cycle to run: requests queued and cycle `until` not run yet.
  bool due(uint64_t until) const { return queued_ && now_ <= until; }
  // Requests in sub-partition `sub`'s L2 -> DRAM queue (the L2 stalls when it is full).
  size_t l2_queue(unsigned sub) const { return l2q_[sub].size(); }
  // Runs DRAM cycles up to and including `until` (only while requests are queued) and appends
  // the requests whose column command issued.
  void run(uint64_t until, std::vector<dram_done>& out);
  // Between kernels (the channel is empty): timing restarts at cycle 0, open rows stay.
  void reset_timing();
  uint64_t row_hits = 0, activates = 0, precharges = 0;
  // Read and write column commands, and the most requests the scheduler held (mrqq_max);
  // requests a bank took from the scheduler (a request of several atoms is one): GPGPU-Sim's
  // access_num, counted by frfcfs_scheduler::schedule, so a request still in its bank at the end
  // counts; row_hits is its hits_num (Row_Buffer_Locality = hits_num / access_num).
  uint64_t reads = 0, writes = 0, queue_max = 0, scheduled = 0;
  // sm-run --mem-log: this channel's DQ, ACT and RD events, as channel `log_id` (nullptr: none).
  mem_event_log* log = nullptr;
  unsigned log_id = 0;
  // DRAM cycles in which the full return queue held the rwq delay line (dram_t::cycle took no
  // data from it), and cycles in which a full rwq refused a column command to a bank whose
  // request's row was open (GPGPU-Sim's rwq_limit cause). Counted, not reported.
  uint64_t return_queue_stalls = 0, rwq_full_cycles = 0;

 private:
  struct bank {
    uint64_t row = ~0ull;  // curr_row (kept after a precharge)
    bool active = false, serving_row = false;
    uint64_t serve_row = 0;           // FR-FCFS: the row whose requests this bank drains (m_last_row)
    std::vector<dram_request> queue;  // scheduler queue, oldest first
    bool has_mrq = false;
    dram_request mrq;
    uint64_t rcd = 0, rcdwr = 0, ras = 0, rc = 0, rp = 0, wtp = 0, rtp = 0;  // earliest cycles
    unsigned group = 0;                                                      // its bank group (dram_channel::group)
  };
  void cycle(uint64_t k, std::vector<dram_done>& out);
  // cycle's parts, in its order: credits back, the latency queue's head into the scheduler, a
  // request to a bank (FR-FCFS or FIFO), then one from the L2 -> DRAM queues.
  void return_credits(uint64_t k);
  void accept_arrival(uint64_t k);
  bool frfcfs_take(unsigned bank);
  void frfcfs_schedule();
  void fifo_schedule();
  void issue_from_l2(uint64_t k);
  void commands(uint64_t k, std::vector<dram_done>& out);
  bool col_command(unsigned j, uint64_t k, std::vector<dram_done>& out);
  bool row_command(unsigned j, uint64_t k);
  unsigned group(unsigned b) const;

  const mem_config& m_;
  const dram_timing& T_;
  unsigned burst_, tRTW_, tWTR_, tWTP_, tRCDWR_;
  std::vector<bank> bk_;
  std::vector<uint64_t> ccdl_, rtpl_;    // per bank group
  std::vector<ring<dram_request>> l2q_;  // per sub-partition L2 -> DRAM queue, by arrival
  ring<dram_request> arrivals_;          // DRAM latency queue (arrive: the cycle it leaves)
  unsigned latency_, last_sub_;
  clock_domains* clock_;  // last_sub_: the sub-partition served last (arbitration)
  // memory_partition_unit::arbitration_metadata: one private credit per sub-partition, a shared
  // pool (limit 0: no limit).
  std::vector<unsigned> private_;
  uint64_t shared_ = 0, shared_limit_ = 0;
  ring<std::pair<uint64_t, unsigned>> credit_returns_;  // (DRAM cycle, sub-partition), in order
  // The return queue and the DRAM -> L2 queues (-gpgpu_dram_partition_queues' third field): per
  // sub-partition its reads as (DRAM cycle it enters, core cycle whose L2 step takes it), both
  // rising; the next DRAM cycle the return queue may give a read (one a cycle, head first).
  std::vector<ring<std::pair<uint64_t, uint64_t>>> dram_l2_;
  uint64_t last_leave_ = 0;
  uint64_t leave_return_queue(uint64_t k, uint64_t ready, unsigned sub, uint64_t& fill);
  bool dram_l2_full(unsigned sub, uint64_t k);
  // dram_t's rwq (fifo_pipeline of minimum length CL, or WL after a write, and maximum CL + 1)
  // and its return queue (-gpgpu_dram_return_queue_size entries, 1024 for 0). Each DRAM cycle
  // dram_t::cycle pops the rwq's head (data or padding) unless the return queue is full after
  // dram_cycle's move of that edge; a column command's data goes behind the last data, at least
  // L = CL (WL) pops later. So the data's pop is kept in "pops": v(e) = e - (held cycles up to
  // e), the data of a column command in cycle k pops at the unheld edge whose v is
  // max(v(k) + L, the previous data's + burst), and without a held cycle that is the edge itself.
  // The edges up to horizon_ are settled: a cycle is held while the return queue holds
  // return_queue_size_ reads; a read enters it when it pops and leaves it at its
  // leave_return_queue edge (retq_, rising); every data ahead of a new column command has been
  // placed, so the edges up to its pop are settled when it issues.
  unsigned return_queue_size_;
  uint64_t horizon_ = 0, held_ = 0, held_base_ = 0;  // held_: held cycles up to horizon_
  ring<std::pair<uint64_t, uint64_t>> held_runs_;    // held cycles [first, last], after held_base_
  ring<uint64_t> retq_;                              // leave edges of the reads in the return queue
  uint64_t last_data_ = 0;                           // v of the last data placed (+1; 0: none)
  void settle(uint64_t e);
  uint64_t pops(uint64_t k);   // v(k), k <= horizon_, k not decreasing between calls
  uint64_t place(uint64_t d);  // the edge the data of v = d pops, settling up to it
  bool rwq_full(uint64_t k);
  bool col_ok_ = true;  // the rwq takes a column command this cycle
  uint64_t now_ = 0;    // next cycle to run
  uint64_t rrd_ = 0, ccd_ = 0, rtw_ = 0, wtr_ = 0;
  bool last_write_ = false;
  unsigned prio_ = 0, pending_ = 0, in_banks_ = 0, queued_ = 0;
  // With up to 64 banks, bit b: bank b holds a request (has_mrq) / has scheduler requests
  // queued: the per-cycle bank scans visit only those banks, in the same order.
  // open_mask_: the banks among mrq_mask_ whose request's row is open (active, same row): only
  // they can take a column command and none of them a row command.
  uint64_t mrq_mask_ = 0, queue_mask_ = 0, open_mask_ = 0;
  void set_open(unsigned j) {
    const bank& B = bk_[j];
    const uint64_t b = uint64_t(1) << j;
    open_mask_ = B.has_mrq && B.active && B.row == B.mrq.row ? open_mask_ | b : open_mask_ & ~b;
  }
  bool masked_ = true;
  bool frfcfs_ = true;       // -gpgpu_dram_scheduler 1
  unsigned room_ = 0;        // the scheduler's size (dram_t::full)
  ring<dram_request> fifo_;  // -gpgpu_dram_scheduler 0
};

}  // namespace gpuvp::gpu_memory
