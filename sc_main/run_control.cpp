// SPDX-License-Identifier: Apache-2.0
#include "run_control.h"

#include <atomic>
#include <cctype>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <mutex>
#include <ostream>
#include <sstream>
#include <thread>
#include "gpuvp/config.h"

namespace gpuvp {

namespace {
std::atomic<int> pending_signal{0};
std::atomic<bool> running{false};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs a lock-free flag");

extern "C" void on_signal(int sig) { pending_signal.store(sig); }

// Handlers for one run: the first SIGINT/SIGTERM asks the loop to stop (SA_RESETHAND: a second
// one terminates the process the default way, for a run stuck inside one slice).
class signal_scope {
 public:
  signal_scope() {
    pending_signal.store(0);
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
    running.store(true);
  }
  ~signal_scope() {
    running.store(false);
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

// The last resort for a model that never returns to the kernel loop (a zero-time livelock inside
// one slice): after the wall limit plus a grace period, say so and exit 1. The slices normally
// end long before; this thread then just ends with the run.
class hard_watchdog {
 public:
  explicit hard_watchdog(std::chrono::duration<double> limit) {
    thread_ = std::thread([this, limit] {
      std::unique_lock<std::mutex> lock(m_);
      const auto deadline = std::chrono::steady_clock::now() +
                            std::chrono::duration_cast<std::chrono::steady_clock::duration>(limit + grace);
      if (cv_.wait_until(lock, deadline, [this] { return done_; })) return;
      std::fprintf(stderr,
                   "gpuvp: error: wall-clock limit passed and the simulation did not return to the kernel loop "
                   "within %d s more (a model is stuck in zero simulated time); exiting\n",
                   int(grace.count()));
      std::fflush(stderr);
      std::_Exit(1);
    });
  }
  ~hard_watchdog() {
    {
      std::lock_guard<std::mutex> lock(m_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  static constexpr std::chrono::seconds grace{10};
  std::mutex m_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};
}  // namespace

bool simulation_running() { return running.load(); }

std::string human_time(const sc_core::sc_time& t) {
  std::ostringstream os;
  const double s = t.to_seconds();
  if (s >= 1) os << std::fixed << std::setprecision(3) << s << " s";
  else if (s >= 1e-3) os << std::fixed << std::setprecision(3) << s * 1e3 << " ms";
  else if (s >= 1e-6) os << std::fixed << std::setprecision(3) << s * 1e6 << " us";
  else os << std::fixed << std::setprecision(3) << s * 1e9 << " ns";
  return os.str();
}

std::chrono::duration<double> parse_wall_limit(const std::string& text) {
  // The time syntax of configuration values, with seconds as the unit of a bare number.
  std::string t = text;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
  const bool bare = !t.empty() && (std::isdigit(static_cast<unsigned char>(t.back())) || t.back() == '.');
  sc_core::sc_time v;
  try {
    v = parse_time(bare ? t + " s" : t);
  } catch (const std::exception& e) {
    throw config_error("--wall-limit " + text + ": " + e.what());
  }
  if (v == sc_core::SC_ZERO_TIME) throw config_error("--wall-limit " + text + ": must be greater than 0");
  return std::chrono::duration<double>(v.to_seconds());
}

run_outcome simulate(const run_limits& limits, std::ostream& err) {
  using clock = std::chrono::steady_clock;
  run_outcome o;
  const auto wall_start = clock::now();
  auto last_progress = wall_start;
  const sc_core::sc_time limit = limits.time_limit;
  // Slice length in simulated time, adapted so that one slice takes about 50 ms of wall time.
  sc_core::sc_time slice(100, sc_core::SC_NS);
  const sc_core::sc_time min_slice(1, sc_core::SC_NS), max_slice(10, sc_core::SC_MS);
  signal_scope signals;
  std::optional<hard_watchdog> watchdog;
  if (limits.wall_limit) watchdog.emplace(*limits.wall_limit);
  auto finish = [&](run_end e) {
    o.end = e;
    o.signal = e == run_end::signal ? pending_signal.load() : 0;
    o.wall_seconds = std::chrono::duration<double>(clock::now() - wall_start).count();
    return o;
  };
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  while (sc_core::sc_get_status() != sc_core::SC_STOPPED && sc_core::sc_pending_activity()) {
    if (pending_signal.load()) return finish(run_end::signal);
    if (limits.wall_limit && clock::now() - wall_start > *limits.wall_limit) return finish(run_end::wall_limit);
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const sc_core::sc_time next = sc_core::sc_time_to_pending_activity();
    if (now > limit || next > limit - now) return finish(run_end::time_limit);
    // At least up to the next event: a starving slice would not advance time at all.
    const auto slice_start = clock::now();
    sc_core::sc_start(std::max(next, std::min(slice, limit - now)), sc_core::SC_EXIT_ON_STARVATION);
    const auto after = clock::now();
    if (after - slice_start > std::chrono::milliseconds(100) && slice > min_slice) slice = std::max(min_slice, slice / 4);
    else if (after - slice_start < std::chrono::milliseconds(20) && slice < max_slice) slice = std::min(max_slice, slice * 2);
    if (limits.progress && after - last_progress >= limits.progress_period) {
      last_progress = after;
      err << "progress: simulated " << human_time(sc_core::sc_time_stamp()) << ", wall "
          << std::chrono::duration_cast<std::chrono::seconds>(last_progress - wall_start).count() << " s\n";
    }
  }
  if (pending_signal.load()) return finish(run_end::signal);
  return finish(run_end::finished);
}

}  // namespace gpuvp
