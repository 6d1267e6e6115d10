// SPDX-License-Identifier: Apache-2.0
// A team of host threads that runs one function per group and waits for all of them: the
// compute model's SMs are stepped in groups, one group a thread, between the serial steps of a
// cycle (CTA distribution, the memory side). A speed switch only: the caller gives each group
// state of its own, so the result is the same with any number of threads.
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
  // Calls f(g) for every group g < size(), group 0 on the calling thread, and returns when all
  // have returned; an exception thrown by f is rethrown here (the lowest group's).
  void run(const std::function<void(unsigned)>& f);

 private:
  void work(unsigned group);
  std::vector<std::thread> workers_;
  const std::function<void(unsigned)>* f_ = nullptr;
  std::atomic<uint32_t> epoch_{0};    // one more for each run()
  std::atomic<uint32_t> pending_{0};  // workers still running this epoch's f
  bool stop_ = false;
  std::vector<std::exception_ptr> errors_;  // per group
};

}  // namespace gpuvp::sm
