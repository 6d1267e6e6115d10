// SPDX-License-Identifier: Apache-2.0
// The GPU's compute side without SystemC: N SMs, CTA distribution, one kernel at a time.
// The compute engine component steps it inside its SC_THREAD; tests and the benchmark step it
// directly.
#pragma once
#include <algorithm>
#include <atomic>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "gpu_config.h"
#include "ldst_unit.h"
#include "sm_core.h"
#include "thread_team.h"
#include "trace.h"
#include "trace_stream.h"

namespace gpuvp::sm {

struct kernel_result {
  std::string name;
  unsigned id = 0;
  uint64_t cycles = 0;
  sm_stats stats;  // summed over SMs (cycles = kernel cycles)
  mem_stats mem;   // the memory side's counts during the kernel
  double core_mhz = 0;
  // Achieved DRAM bandwidth (GB/s) over the kernel.
  double dram_gbps() const { return cycles && core_mhz > 0 ? double(mem.dram_bytes) * core_mhz / double(cycles) / 1000.0 : 0.0; }
  unsigned sms_used = 0, ctas_per_sm = 0;
  unsigned l1d_kb = 0;  // the L1D size the kernel ran with (adaptive L1D: per kernel)
  double ipc() const { return cycles ? double(stats.warp_insts) / double(cycles) : 0.0; }
  double l1_hit_rate() const {
    uint64_t a = stats.l1_hits + stats.l1_misses;
    return a ? double(stats.l1_hits) / double(a) : 0.0;
  }
};

// The per-kernel lines both `gpuvp sm-run` and the compute engine's report print: first
// "kernel <id> <name>: <cycles> cycles, ...", then the memory statistics under GPGPU-Sim's names.
void print_kernel(std::ostream& os, const kernel_result& r);

class gpu_sim {
 public:
  // num_sms 0: the config's count.
  gpu_sim(const gpu_config& cfg, mem_port* mem, unsigned num_sms = 0);
  // Starts a kernel; throws std::runtime_error if one CTA does not fit an SM. `k` (or the
  // source's kernel) must outlive the run.
  void start(const kernel_trace& k);
  // Starts a kernel whose CTAs `s` hands out as they launch (kernel_trace_stream): each taken
  // when launched, released when it has finished.
  void start(cta_source& s);
  // One core cycle; false once the kernel has finished (then result() is final; while it runs,
  // an SM asleep has its slept cycles counted only when it next runs). Throws
  // std::runtime_error if no SM issued an instruction for `watchdog_cycles` (a deadlock), and
  // the source's trace_error when a CTA it launches, or the rest of the file once the last CTA
  // has finished, is malformed (the kernel stops there).
  bool step();
  bool running() const { return k_ != nullptr && !finished_; }
  kernel_result result() const;
  // Runs a whole kernel, returns its result.
  kernel_result run(const kernel_trace& k);
  uint64_t cycle() const { return cycle_; }
  size_t ctas_done() const { return ctas_done_.load(); }  // of the running kernel (progress lines)
  uint64_t watchdog_cycles = 1u << 20;
  // sm_core::skip_idle for the SMs of the next start(): a speed switch, the statistics are the
  // same either way.
  bool skip_idle_cycles = true;
  // Host threads stepping the SMs of the next start() (1..thread_team::max_threads, capped at
  // the clusters simulated and the host's hardware threads): a speed switch, the statistics are the same either way. Only with a
  // memory that takes concurrent accesses (mem_port::concurrent_access: the gpgpu-sim model) and
  // without on_issue / on_warp; otherwise the SMs run on the calling thread.
  unsigned threads = 1;
  // The threads the running kernel's SMs are stepped on.
  unsigned threads_used() const { return team_ ? team_->size() : 1; }
  // The running kernel's cycles in which the memory ran its next cycle ahead beside the SMs
  // (mem_port::prepare_ahead; several threads only).
  uint64_t memory_ahead_cycles() const { return ahead_cycles_; }
  std::function<void(unsigned sm, unsigned warp, uint16_t opcode, uint64_t cycle)> on_issue;
  // sm_core::on_warp of every SM, with the SM's index (set before start(); may be empty).
  std::function<void(unsigned sm, unsigned slot, unsigned cta, unsigned warp, bool start)> on_warp;

 private:
  const gpu_config& cfg_;
  gpu_config kernel_cfg_;  // cfg_ with the running kernel's L1D ways (adaptive L1D); the SMs' configuration
  mem_port* mem_;
  unsigned num_sms_;
  unsigned cluster_size() const { return std::max(1u, cfg_.cores_per_cluster); }
  unsigned clusters() const { return (num_sms_ + cluster_size() - 1) / cluster_size(); }
  std::vector<std::unique_ptr<sm_core>> sms_;
  const kernel_header* k_ = nullptr;
  cta_source* src_ = nullptr;
  std::unique_ptr<kernel_trace_ctas> own_src_;  // start(const kernel_trace&)
  size_t next_cta_ = 0, cta_count_ = 0;
  std::atomic<size_t> ctas_done_{0};  // counted by the SMs, on their threads
  std::unique_ptr<thread_team> team_;
  // With several threads the SMs are stepped in chunks of whole clusters: chunk c is SMs
  // chunk_end_[c - 1] .. chunk_end_[c] - 1, each thread its own range of chunks first (the same
  // every cycle, so an SM's state stays in one core's cache; owned_chunks).
  static constexpr unsigned chunks_per_thread = 16;
  static constexpr uint32_t rebalance_steps = 1024;  // owned_chunks::rebalance every so many cycles (a power of two)
  std::vector<unsigned> chunk_end_;
  owned_chunks chunks_;
  uint32_t step_number_ = 0;
  uint64_t step_chunk(unsigned c);  // the warp instructions its SMs issued
  // Warp instructions of the CTAs launched so far, and issued so far: while some are left or a
  // CTA is still to launch, no SM finishes the kernel in this cycle, and the memory may run ahead
  // beside the SMs (mem_port::prepare_ahead).
  uint64_t insts_launched_ = 0;
  std::atomic<uint64_t> issued_total_{0};
  uint64_t ahead_cycles_ = 0;
  void plan_threads();
  void launch(unsigned i);  // the next CTA onto SM i
  void step_sms(bool memory_ahead);
  uint64_t step_sm(unsigned i);  // the warp instructions it issued
  uint64_t cycle_ = 0, start_ = 0, launch_wait_ = 0;
  // CTA distribution (gpgpu_sim::issue_block2core): the next cluster to try first, and per
  // cluster the core that took its last CTA (simt_core_cluster::m_cta_issue_next_core).
  unsigned next_cluster_ = 0, ctas_per_sm_ = 0;
  std::vector<unsigned> last_core_;
  bool finished_ = false;
  uint64_t last_progress_cycle_ = 0, last_issued_ = 0;
  std::vector<bool> used_;
  // Whole-SM sleep: the SMs' common local cycle (cycles they have been stepped), and per SM the
  // first local cycle in which it must run (sm_core::sleep_until); the cycles it sleeps through
  // are applied at once (catch_up) before it next runs, takes a CTA or the kernel ends.
  uint64_t sm_now_ = 0, mem_base_ = 0;
  std::vector<uint64_t> wake_;
  void catch_up(unsigned i, uint64_t sm_cycle) { sms_[i]->idle_cycles(sm_cycle - sms_[i]->now()); }
  void catch_up_all() {
    for (unsigned i = 0; i < sms_.size(); ++i) catch_up(i, sm_now_);
  }
  std::vector<l1_tags> l1_;
  mem_stats mem_at_start_;  // per SM; reset at each kernel start when -gpgpu_flush_l1_cache 1
};

}  // namespace gpuvp::sm
