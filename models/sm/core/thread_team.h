// SPDX-License-Identifier: Apache-2.0
// A team of host threads that share one pool of work per call: the compute model's SMs are
// stepped in chunks taken from a shared counter, between the serial steps of a cycle (CTA
// distribution, the memory's crossbars). A speed switch only: each chunk has state of its own,
// so the result is the same whichever thread takes it, and with any number of threads.
#pragma once
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <thread>
#include <vector>

namespace gpuvp::sm {

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
