// SPDX-License-Identifier: Apache-2.0
#include "gpu.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>

namespace gpuvp::sm {

gpu_sim::gpu_sim(const gpu_config& cfg, mem_port* mem, unsigned num_sms)
    : cfg_(cfg), mem_(mem), num_sms_(num_sms ? num_sms : cfg.num_sms()) {}

void gpu_sim::start(const kernel_trace& k) {
  for (const trace_cta& c : k.ctas)
    for (const trace_warp& w : c.warps)
      if (w.insts.size() > UINT32_MAX)
        throw std::runtime_error(k.file + ": kernel " + k.name + ": a warp of " + std::to_string(w.insts.size()) +
                                 " instructions (at most 4294967295)");
  auto s = std::make_unique<kernel_trace_ctas>(k);
  start(*s);
  own_src_ = std::move(s);
}

void gpu_sim::start(cta_source& src) {
  const kernel_header& k = src.header();
  const uint64_t ctas = src.cta_count();
  ctas_per_sm_ = sm_core::max_ctas(cfg_, k);
  if (ctas_per_sm_ == 0)
    throw std::runtime_error(k.file + ": kernel " + k.name + ": one CTA (" + std::to_string(k.block.count()) + " threads, " +
                             std::to_string(k.nregs) + " registers/thread, " + std::to_string(k.shmem) + " B shared) does not fit an SM");
  // Fresh SMs per kernel: each kernel's statistics start from zero. The L1D contents survive
  // only without -gpgpu_flush_l1_cache (the L2 behind mem_ keeps its own) and while its size
  // stays.
  sms_.clear();
  // Adaptive L1D: the shared memory of the CTAs an SM holds at once, as GPGPU-Sim's max_cta
  // counts them (no more than the kernel's CTAs spread over the SMs).
  uint64_t resident = ctas_per_sm_;
  if (ctas < resident * num_sms_) resident = (ctas + num_sms_ - 1) / num_sms_;
  kernel_cfg_ = cfg_;
  try {
    kernel_cfg_.l1_ways = cfg_.l1_ways_for(uint64_t(k.shmem) * resident);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(k.file + ": kernel " + k.name + ": " + e.what());
  }
  wake_.assign(num_sms_, 0);
  sm_now_ = 0;
  mem_base_ = cycle_;
  if (l1_.size() != num_sms_ || cfg_.mem.flush_l1) l1_.assign(num_sms_, l1_tags{});
  for (unsigned i = 0; i < num_sms_; ++i) {
    sms_.push_back(std::make_unique<sm_core>(kernel_cfg_, i, mem_, &l1_[i]));
    sms_.back()->on_cta_done = [this](unsigned) { ++ctas_done_; };
    sms_.back()->set_mem_base(cycle_);
    sms_.back()->skip_idle = skip_idle_cycles;
    sms_.back()->set_wake_slot(&wake_[i]);
    if (on_issue) sms_.back()->on_issue = on_issue;
    if (on_warp)
      sms_.back()->on_warp = [this, i](unsigned slot, unsigned cta, unsigned warp, bool start) { on_warp(i, slot, cta, warp, start); };
  }
  used_.assign(num_sms_, false);
  insts_launched_ = 0;
  issued_total_ = 0;
  ahead_cycles_ = 0;
  plan_threads();
  mem_->kernel_start(cycle_);
  mem_at_start_ = mem_->stats();
  own_src_.reset();
  src_ = &src;
  k_ = &k;
  cta_count_ = ctas;
  next_cta_ = ctas_done_ = 0;
  next_cluster_ = 0;
  last_core_.assign(clusters(), cluster_size() - 1);  // the first CTA of a cluster goes to its core 0
  start_ = cycle_;
  launch_wait_ = cfg_.kernel_launch_latency;
  finished_ = false;
  last_progress_cycle_ = cycle_;
  last_issued_ = 0;
}

bool gpu_sim::step() {
  if (!running()) return false;
  ++cycle_;
  if (launch_wait_) {
    --launch_wait_;
    return true;
  }
  // Distribute CTAs (gpgpu_sim::issue_block2core): every cluster, round robin from the one after
  // the last that took a CTA, gives at most one CTA a cycle to the first of its cores, round
  // robin after the one that took its last, that can take it.
  const unsigned first = next_cluster_, per = cluster_size();
  for (unsigned n = 0; n < clusters() && next_cta_ < cta_count_; ++n) {
    const unsigned c = (first + n) % clusters();
    for (unsigned j = 0; j < per; ++j) {
      const unsigned core = (last_core_[c] + 1 + j) % per, i = c * per + core;
      if (i >= num_sms_ || !(sms_[i]->can_take_cta() || !sms_[i]->active())) continue;
      launch(i);
      used_[i] = true;
      last_core_[c] = core;
      next_cluster_ = (c + 1) % clusters();
      break;
    }
  }
  // The memory side first, in the cycle the SMs are about to run (their accesses' clock).
  ++sm_now_;
  if (!sms_.empty()) mem_->cycle(sm_now_ + mem_base_);
  // The memory's next cycle runs ahead beside this one's SMs only when this step surely ends
  // with the kernel still running: an instruction is left to issue (so no warp finishes the
  // kernel now) and the watchdog does not look this cycle.
  const bool ahead = team_ && !sms_.empty() && (next_cta_ < cta_count_ || issued_total_ < insts_launched_) && (cycle_ & 0xfff) != 0 &&
                     mem_->prepare_ahead(sm_now_ + 1 + mem_base_);
  ahead_cycles_ += ahead;
  step_sms(ahead);
  // The kernel is done in the cycle its last warp writes back (GPGPU-Sim reclaims it in that
  // cycle's fetch); like gpu_sim_cycle, which gpgpu_sim::cycle() increments after the core cycle,
  // the count includes that cycle's increment.
  if (ctas_done_ == cta_count_) {
    if (ahead) throw std::logic_error("gpu_sim: the kernel finished while the memory ran ahead");
    catch_up_all();
    finished_ = true;
    ++cycle_;
    src_->check_end();  // a malformed rest of the file fails the kernel
  }
  if ((cycle_ & 0xfff) == 0) {  // progress watchdog, checked every 4096 cycles
    uint64_t issued = 0;
    for (auto& s : sms_) issued += s->issued();
    if (issued != last_issued_) {
      last_issued_ = issued;
      last_progress_cycle_ = cycle_;
    } else if (cycle_ - last_progress_cycle_ > watchdog_cycles) {
      catch_up_all();
      finished_ = true;
      throw std::runtime_error(k_->file + ": kernel " + k_->name + ": no instruction issued for " +
                               std::to_string(cycle_ - last_progress_cycle_) + " cycles (deadlock)");
    }
  }
  return !finished_;
}

// The next CTA onto SM i (its slept cycles applied first). A CTA the source cannot give (a
// malformed trace) ends the kernel where it is.
void gpu_sim::launch(unsigned i) {
  std::shared_ptr<const trace_cta> cta;
  try {
    cta = src_->take(next_cta_);
  } catch (...) {
    catch_up_all();
    finished_ = true;
    throw;
  }
  catch_up(i, sm_now_);
  wake_[i] = 0;
  const unsigned wpc = k_->warps_per_cta();
  for (size_t w = 0; w < cta->warps.size() && w < wpc; ++w) insts_launched_ += cta->warps[w].insts.size();
  sms_[i]->launch_cta(*k_, std::move(cta), unsigned(next_cta_++));
}

// Threads for the SMs: chunks of whole clusters (a cluster's SMs share its crossbar input, so
// one thread steps them in order), four per thread for balance; one thread when the memory or a
// hook needs the SMs in order.
void gpu_sim::plan_threads() {
  if (threads < 1 || threads > thread_team::max_threads)
    throw std::invalid_argument("gpu_sim: threads " + std::to_string(threads) + " outside [1, " + std::to_string(thread_team::max_threads) +
                                "]");
  const unsigned per_cluster = std::max(1u, cfg_.cores_per_cluster);
  const unsigned clusters = (num_sms_ + per_cluster - 1) / per_cluster;
  // More threads than the host runs at once would only wait for each other (each spins).
  const unsigned host = std::max(1u, std::thread::hardware_concurrency());
  unsigned n = std::min({threads, clusters, host});
  if (n > 1 && (on_issue || on_warp || !mem_->concurrent_access(clusters))) n = 1;
  if (n < 2)
    team_.reset();
  else if (!team_ || team_->size() != n)
    team_ = std::make_unique<thread_team>(n);
  chunk_end_.clear();
  const unsigned chunks = std::min(clusters, chunks_per_thread * n);
  for (unsigned c = 1; c <= chunks; ++c) chunk_end_.push_back(std::min(num_sms_, unsigned(uint64_t(clusters) * c / chunks) * per_cluster));
  chunks_.reset(chunks, n);
  step_number_ = 0;
}

// Every SM's cycle: in SM order on this thread, or chunk by chunk on the threads (an SM touches
// only its own state and its cluster's crossbar input); with `memory_ahead` the calling thread
// first runs the memory's next cycle ahead (mem_port::run_ahead), which touches neither.
void gpu_sim::step_sms(bool memory_ahead) {
  if (!team_) {
    uint64_t issued = 0;
    for (unsigned i = 0; i < sms_.size(); ++i) issued += step_sm(i);
    issued_total_ += issued;
    return;
  }
  const uint32_t step = ++step_number_;  // 1 first after plan_threads(), then differs from the last
  if ((step & (rebalance_steps - 1)) == 0) chunks_.rebalance();
  team_->share([this, memory_ahead, step](unsigned g) {
    if (memory_ahead && g == 0) mem_->run_ahead(sm_now_ + 1 + mem_base_);
    uint64_t issued = 0;
    chunks_.run(g, step, [&](unsigned c) { issued += step_chunk(c); });
    issued_total_.fetch_add(issued, std::memory_order_relaxed);
  });
  mem_->sms_stepped();
}

uint64_t gpu_sim::step_chunk(unsigned c) {
  uint64_t issued = 0;
  for (unsigned i = c ? chunk_end_[c - 1] : 0; i < chunk_end_[c]; ++i) issued += step_sm(i);
  return issued;
}

// SM i's cycle sm_now_, unless it sleeps through it (its state is not even read).
uint64_t gpu_sim::step_sm(unsigned i) {
  if (wake_[i] > sm_now_) return 0;
  catch_up(i, sm_now_ - 1);
  sm_core& s = *sms_[i];
  const uint64_t before = s.issued();
  s.cycle();
  wake_[i] = s.sleep_until();
  return s.issued() - before;
}

kernel_result gpu_sim::result() const {
  kernel_result r;
  if (!k_) return r;
  r.name = k_->name;
  r.id = k_->id;
  r.cycles = cycle_ - start_;
  for (auto& s : sms_) r.stats.merge(s->stats());
  r.stats.cycles = r.cycles;
  r.mem = mem_->stats() - mem_at_start_;
  r.core_mhz = cfg_.core_mhz;
  for (bool u : used_) r.sms_used += u;
  r.ctas_per_sm = ctas_per_sm_;
  r.l1d_kb = unsigned(uint64_t(kernel_cfg_.l1_sets) * kernel_cfg_.l1_line * kernel_cfg_.l1_ways / 1024);
  return r;
}

void print_kernel(std::ostream& os, const kernel_result& r) {
  const sm_stats& s = r.stats;
  const mem_stats& m = r.mem;
  auto pct = [](uint64_t a, uint64_t b) { return b ? 100.0 * double(a) / double(b) : 0.0; };
  char buf[160];
  std::snprintf(buf, sizeof buf, "kernel %u %s: %llu cycles, %llu warp instructions, IPC %.3f\n", r.id, r.name.c_str(),
                (unsigned long long)r.cycles, (unsigned long long)s.warp_insts, r.ipc());
  os << buf;
  os << "  gpu_sim_insn " << s.thread_insts << " (thread instructions)\n";
  os << "  L1D_total_cache_accesses " << s.l1_accesses << ", hits " << s.l1_hits << ", pending_hits " << s.l1_pending_hits << ", misses "
     << s.l1_misses << ", write sectors " << s.l1_write_accesses << ", reservation_fails " << s.l1_reservation_fails()
     << " (MSHR_ENRTY_FAIL " << s.l1_fails[unsigned(l1_fail::mshr_entry)] << ", MSHR_MERGE_ENRTY_FAIL "
     << s.l1_fails[unsigned(l1_fail::mshr_merge)] << ", MISS_QUEUE_FULL " << s.l1_fails[unsigned(l1_fail::miss_queue_full)]
     << ", LINE_ALLOC_FAIL " << s.l1_fails[unsigned(l1_fail::line_alloc)] << "), size " << r.l1d_kb << " KB\n";
  if (s.l1i_accesses)
    os << "  L1I_total_cache_accesses " << s.l1i_accesses << ", hits " << s.l1i_hits << ", misses " << s.l1i_misses << " (MSHR_HIT "
       << s.l1i_mshr_hits << ")\n";
  os << "  L2_total_cache_accesses " << m.l2_accesses << " (writes " << m.l2_writes << "), hits " << m.l2_hits << ", pending_hits "
     << m.l2_pending_hits << ", misses " << m.l2_misses << ", reservation_fails " << m.l2_reservation_fails << " (MSHR_ENRTY_FAIL "
     << m.l2_fail_mshr_entry << ", MSHR_MERGE_ENRTY_FAIL " << m.l2_fail_mshr_merge << ", LINE_ALLOC_FAIL " << m.l2_fail_line_alloc
     << "), cycles without an access on a full queue " << m.l2_queue_stalls << "\n";
  std::snprintf(buf, sizeof buf, "  total dram reads %llu, total dram writes %llu, row_buffer_locality %.1f %%, bandwidth %.1f GB/s\n",
                (unsigned long long)m.dram_reads, (unsigned long long)m.dram_writes, pct(m.dram_row_hits, m.dram_requests), r.dram_gbps());
  os << buf;
}

kernel_result gpu_sim::run(const kernel_trace& k) {
  start(k);
  while (step()) {}
  return result();
}

}  // namespace gpuvp::sm
