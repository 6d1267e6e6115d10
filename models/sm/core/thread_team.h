// SPDX-License-Identifier: Apache-2.0
// A team of host threads that share one pool of work per call: the compute model's SMs are
// stepped in chunks (gpu_sim::step_sms: each thread its own range first, then the others'),
// between the serial steps of a cycle (CTA distribution, the memory's crossbars). A speed switch
// only: each chunk has state of its own, so the result is the same whichever thread takes it,
// and with any number of threads.
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
// claim that fails means the rest of that side is taken). rebalance() sizes the ranges by the
// chunks each thread claimed since the last call (the calling thread also runs the memory's
// next cycle, so it steps fewer SMs), so that the owners rarely change.
class owned_chunks {
 public:
  // `chunks` chunks in equal ranges for `threads` threads.
  void reset(unsigned chunks, unsigned threads) {
    flags_ = std::make_unique<flag[]>(chunks);
    taken_ = std::make_unique<counter[]>(threads);
    n_ = chunks;
    lo_.resize(threads + 1);
    for (unsigned t = 0; t <= threads; ++t) lo_[t] = unsigned(uint64_t(t) * chunks / threads);
  }
  // Thread t's range: chunks lo(t) .. lo(t + 1) - 1.
  unsigned lo(unsigned t) const { return lo_[t]; }
  // f(c) for each chunk c that thread g claims in step `step`: a number other than the previous
  // step's (the flags hold it) and, first after reset(), other than 0.
  template <class F>
  void run(unsigned g, uint32_t step, F&& f) {
    const unsigned threads = unsigned(lo_.size() - 1);
    uint64_t n = 0;
    auto claim = [&](unsigned c) {
      if (flags_[c].step.exchange(step, std::memory_order_relaxed) == step) return false;
      ++n;
      return true;
    };
    for (unsigned c = lo_[g]; c < lo_[g + 1] && claim(c); ++c) f(c);
    for (unsigned r = 1; r < threads; ++r) {
      const unsigned o = (g + r) % threads;
      for (unsigned c = lo_[o + 1]; c-- > lo_[o] && claim(c);) f(c);
    }
    taken_[g].v += n;
  }
  // Between steps: each thread's range in proportion to the chunks it claimed since the last call
  // (unchanged if none were).
  void rebalance() {
    const unsigned threads = unsigned(lo_.size() - 1);
    uint64_t total = 0;
    for (unsigned t = 0; t < threads; ++t) total += taken_[t].v;
    if (!total) return;
    uint64_t sum = 0;
    for (unsigned t = 0; t < threads; ++t) {
      lo_[t] = unsigned((sum * n_ + total / 2) / total);
      sum += taken_[t].v;
      taken_[t].v = 0;
    }
    lo_[threads] = n_;
  }

 private:
  struct alignas(64) flag {
    std::atomic<uint32_t> step{0};
  };
  struct alignas(64) counter {
    uint64_t v = 0;  // written by its thread only, read between steps
  };
  std::unique_ptr<flag[]> flags_;
  std::unique_ptr<counter[]> taken_;
  std::vector<unsigned> lo_;
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
