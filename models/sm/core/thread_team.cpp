// SPDX-License-Identifier: Apache-2.0
#include "thread_team.h"

#include <stdexcept>
#include <string>

namespace gpuvp::sm {
namespace {
// Waits until `a` differs from `old`: a spin of up to ~0.4 ms first (a cycle's serial memory
// step and its groups take tens of microseconds; a futex sleep and wake-up each cycle cost more
// than the threads gain: measured 0.6-0.9x with a ~25 us spin on 2 cores, 1.2-1.5x with this),
// then the futex wait of std::atomic::wait.
void wait_while(const std::atomic<uint32_t>& a, uint32_t old) {
  for (unsigned i = 0; i < 16384; ++i) {
    if (a.load(std::memory_order_acquire) != old) return;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
  while (a.load(std::memory_order_acquire) == old) a.wait(old, std::memory_order_acquire);
}
}  // namespace

thread_team::thread_team(unsigned threads) : errors_(threads) {
  if (threads < 2 || threads > max_threads)
    throw std::invalid_argument("thread_team: " + std::to_string(threads) + " threads outside [2, " +
                                std::to_string(max_threads) + "]");
  for (unsigned g = 1; g < threads; ++g) workers_.emplace_back([this, g] { work(g); });
}

thread_team::~thread_team() {
  stop_ = true;
  epoch_.fetch_add(1, std::memory_order_release);
  epoch_.notify_all();
  for (auto& t : workers_) t.join();
}

void thread_team::run(const std::function<void(unsigned)>& f) {
  f_ = &f;
  for (auto& e : errors_) e = nullptr;
  pending_.store(uint32_t(workers_.size()), std::memory_order_relaxed);
  epoch_.fetch_add(1, std::memory_order_release);  // publishes f_ and the state the groups read
  epoch_.notify_all();
  try {
    f(0);
  } catch (...) {
    errors_[0] = std::current_exception();
  }
  for (uint32_t left = pending_.load(std::memory_order_acquire); left; left = pending_.load(std::memory_order_acquire))
    wait_while(pending_, left);
  for (auto& e : errors_)
    if (e) std::rethrow_exception(e);
}

void thread_team::work(unsigned group) {
  uint32_t seen = 0;
  for (;;) {
    wait_while(epoch_, seen);
    seen = epoch_.load(std::memory_order_acquire);
    if (stop_) return;
    try {
      (*f_)(group);
    } catch (...) {
      errors_[group] = std::current_exception();
    }
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) pending_.notify_one();
  }
}

}  // namespace gpuvp::sm
