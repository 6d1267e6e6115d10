// SPDX-License-Identifier: Apache-2.0
// A team of host threads that share one pool of work per call: the compute model's SMs are
// stepped in chunks (gpu_sim::step_sms: each thread its own range first, then the others'),
// between the serial steps of a cycle (CTA distribution, the memory's crossbars). A speed switch only: each chunk has state of its own,
// so the result is the same whichever thread takes it, and with any number of threads.
#pragma once
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

namespace gpuvp::sm {

// Chunks 0..n-1 of a cycle's work, split into one range per thread: in each step thread g walks
// its own range upwards, then the other ranges from their tops down, each until it meets a
// chunk already claimed (claimed by writing the step's number into the chunk's flag, one cache
// line each). So a chunk is stepped by the same thread step after step unless that thread falls
// behind, and every chunk is claimed once the calling thread (g = 0) returns, whichever workers
// joined (a range is claimed from its bottom by its owner and from its top by the others: a
// claim that fails means the rest of that side is taken).
class owned_chunks {
 public:
  void reset(unsigned chunks) {
    flags_ = std::make_unique<flag[]>(chunks);
    n_ = chunks;
  }
  unsigned size() const { return n_; }
  // f(c) for each chunk c that thread g of `threads` claims in step `step` (never 0 twice in a
  // row: steps count from 1).
  template <class F>
  void run(unsigned g, unsigned threads, uint32_t step, F&& f) {
    auto claim = [&](unsigned c) { return flags_[c].step.exchange(step, std::memory_order_relaxed) != step; };
    auto lo = [&](unsigned t) { return unsigned(uint64_t(t) * n_ / threads); };
    for (unsigned c = lo(g); c < lo(g + 1) && claim(c); ++c) f(c);
    for (unsigned r = 1; r < threads; ++r) {
      const unsigned o = (g + r) % threads;
      for (unsigned c = lo(o + 1); c-- > lo(o) && claim(c);) f(c);
    }
  }

 private:
  struct alignas(64) flag {
    std::atomic<uint32_t> step{0};
  };
  std::unique_ptr<flag[]> flags_;
  unsigned n_ = 0;
};

class thread_team {
 public:
  static constexpr unsigned max_threads = 64;
  // `threads` 2..max_threads: the calling thread and threads - 1 workers.
  explicit thread_team(unsigned threads);
  ~thread_team();
  thread_team(const thread_team&) = delete;
  thread_team& operator=(const thread_team&) = delete;
  unsigned size() const { return unsigned(workers_.size()) + 1; }
  // Calls f(0) on the calling thread and f(g) on each worker g that joins before f(0) returns,
  // and returns when every f has returned. A worker the host has not scheduled in time is not
  // waited for, so f must take its work from a pool the calling thread alone can empty. An
  // exception thrown by f is rethrown here (the lowest group's).
  void share(const std::function<void(unsigned)>& f);

 private:
  void work(unsigned group);
  std::vector<std::thread> workers_;
  const std::function<void(unsigned)>* f_ = nullptr;
  std::atomic<uint32_t> epoch_{0};  // one more for each share()
  // This call's epoch (high half), whether f(0) has returned (bit 31) and the workers that
  // joined (low bits): a worker joins only the open call of the epoch it woke for.
  static constexpr uint64_t closed = uint64_t(1) << 31, joined_mask = closed - 1;
  std::atomic<uint64_t> gate_{0};
  std::atomic<uint32_t> finished_{0};  // workers of this call whose f returned
  // Set by the destructor before the epoch it wakes the workers with; atomic because a worker
  // that woke for an earlier call may test it while the destructor sets it.
  std::atomic<bool> stop_{false};
  std::vector<std::exception_ptr> errors_;  // per group
};

}  // namespace gpuvp::sm
