#include "gpu.h"

#include <stdexcept>

namespace gpuvp::sm {

gpu_sim::gpu_sim(const gpu_config& cfg, mem_port* mem, unsigned num_sms)
    : cfg_(cfg), mem_(mem), num_sms_(num_sms ? num_sms : cfg.num_sms()) {}

void gpu_sim::start(const kernel_trace& k) {
  ctas_per_sm_ = sm_core::max_ctas(cfg_, k);
  if (ctas_per_sm_ == 0)
    throw std::runtime_error(k.file + ": kernel " + k.name + ": one CTA (" + std::to_string(k.block.count()) +
                             " threads, " + std::to_string(k.nregs) + " registers/thread, " +
                             std::to_string(k.shmem) + " B shared) does not fit an SM");
  // Fresh SMs per kernel: each kernel's statistics start from zero.
  sms_.clear();
  for (unsigned i = 0; i < num_sms_; ++i) {
    sms_.push_back(std::make_unique<sm_core>(cfg_, i, mem_));
    sms_.back()->on_cta_done = [this](unsigned) { ++ctas_done_; };
    if (on_issue) sms_.back()->on_issue = on_issue;
  }
  used_.assign(num_sms_, false);
  k_ = &k;
  next_cta_ = ctas_done_ = 0;
  next_sm_ = 0;
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
  // Distribute CTAs: one per SM per cycle, round robin from where the last cycle stopped.
  const unsigned first = next_sm_;
  for (unsigned n = 0; n < num_sms_ && next_cta_ < k_->ctas.size(); ++n) {
    unsigned i = (first + n) % num_sms_;
    if (sms_[i]->can_take_cta() || !sms_[i]->active()) {
      sms_[i]->launch_cta(*k_, unsigned(next_cta_++));
      used_[i] = true;
      next_sm_ = (i + 1) % num_sms_;
    }
  }
  for (auto& s : sms_) s->cycle();
  // The kernel is done in the cycle its last warp writes back (GPGPU-Sim reclaims it in that
  // cycle's fetch); like gpu_sim_cycle, which gpgpu_sim::cycle() increments after the core cycle,
  // the count includes that cycle's increment.
  if (ctas_done_ == k_->ctas.size()) {
    finished_ = true;
    ++cycle_;
  }
  if ((cycle_ & 0xfff) == 0) {  // progress watchdog, checked every 4096 cycles
    uint64_t issued = 0;
    for (auto& s : sms_) issued += s->issued();
    if (issued != last_issued_) {
      last_issued_ = issued;
      last_progress_cycle_ = cycle_;
    } else if (cycle_ - last_progress_cycle_ > watchdog_cycles) {
      finished_ = true;
      throw std::runtime_error(k_->file + ": kernel " + k_->name + ": no instruction issued for " +
                               std::to_string(cycle_ - last_progress_cycle_) + " cycles (deadlock)");
    }
  }
  return !finished_;
}

kernel_result gpu_sim::result() const {
  kernel_result r;
  if (!k_) return r;
  r.name = k_->name;
  r.id = k_->id;
  r.cycles = cycle_ - start_;
  for (auto& s : sms_) r.stats.merge(s->stats());
  r.stats.cycles = r.cycles;
  for (bool u : used_) r.sms_used += u;
  r.ctas_per_sm = ctas_per_sm_;
  return r;
}

kernel_result gpu_sim::run(const kernel_trace& k) {
  start(k);
  while (step()) {
  }
  return result();
}

}  // namespace gpuvp::sm
