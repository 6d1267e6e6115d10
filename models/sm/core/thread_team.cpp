// SPDX-License-Identifier: Apache-2.0
#include "thread_team.h"

#include <stdexcept>
#include <string>

namespace gpuvp::sm {
namespace {
// Waits until `a` differs from `old`: a spin of up to ~0.4 ms first (a cycle's serial memory
// step and its chunks take tens of microseconds; a futex sleep and wake-up each cycle cost more
// than the threads gain: measured 0.6-0.9x with a ~25 us spin on 2 cores, 1.2-1.5x with this),
// then the futex wait of std::atomic::wait.
template <class T>
void wait_while(const std::atomic<T>& a, T old) {
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
    throw std::invalid_argument("thread_team: " + std::to_string(threads) + " threads outside [2, " + std::to_string(max_threads) + "]");
  for (unsigned g = 1; g < threads; ++g) workers_.emplace_back([this, g] { work(g); });
}

thread_team::~thread_team() {
  stop_.store(true, std::memory_order_relaxed);  // published by the epoch's release
  epoch_.fetch_add(1, std::memory_order_release);
  epoch_.notify_all();
  for (auto& t : workers_) t.join();
}

void thread_team::share(const std::function<void(unsigned)>& f) {
  f_ = &f;
  for (auto& e : errors_) e = nullptr;
  finished_.store(0, std::memory_order_relaxed);
  const uint32_t e = epoch_.load(std::memory_order_relaxed) + 1;
  gate_.store(uint64_t(e) << 32, std::memory_order_relaxed);
  epoch_.store(e, std::memory_order_release);  // publishes f_, the gate and the state f reads
  epoch_.notify_all();
  try {
    f(0);
  } catch (...) {
    errors_[0] = std::current_exception();
  }
  // Closed: a worker that has not joined yet stays out; those that did are waited for.
  const uint32_t joined = uint32_t(gate_.fetch_or(closed, std::memory_order_acq_rel) & joined_mask);
  for (uint32_t done = finished_.load(std::memory_order_acquire); done != joined; done = finished_.load(std::memory_order_acquire))
    wait_while(finished_, done);
  for (auto& x : errors_)
    if (x) std::rethrow_exception(x);
}

void thread_team::work(unsigned group) {
  uint32_t seen = 0;
  for (;;) {
    wait_while(epoch_, seen);
    seen = epoch_.load(std::memory_order_acquire);
    if (stop_.load(std::memory_order_relaxed)) return;  // true after the destructor's epoch (acquired above)
    // Join the call of epoch `seen` if it is still open.
    uint64_t g = gate_.load(std::memory_order_acquire);
    bool in = false;
    while (uint32_t(g >> 32) == seen && !(g & closed))
      if (gate_.compare_exchange_weak(g, g + 1, std::memory_order_acq_rel)) {
        in = true;
        break;
      }
    if (!in) continue;
    try {
      (*f_)(group);
    } catch (...) {
      errors_[group] = std::current_exception();
    }
    finished_.fetch_add(1, std::memory_order_acq_rel);
    finished_.notify_one();
  }
}

}  // namespace gpuvp::sm
