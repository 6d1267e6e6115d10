// SPDX-License-Identifier: Apache-2.0
#include "run_control.h"

#include <algorithm>
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
#include "gpuvp/progress.h"
#include "gpuvp/timing.h"

namespace gpuvp {

namespace {
// The last resort for a model that never returns to the kernel loop (a zero-time livelock inside
// one slice): after the wall limit plus a grace period, say so and exit 1. The slices normally
// end long before; this thread then just ends with the run.
class hard_watchdog {
 public:
  explicit hard_watchdog(std::chrono::duration<double> limit) {
    thread_ = std::thread([this, limit] {
      std::unique_lock<std::mutex> lock(m_);
      const auto deadline =
          std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(limit + grace);
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

bool simulation_running() { return interrupt_scope::active(); }

std::string human_time(const sc_core::sc_time& t) {
  std::ostringstream os;
  const double s = t.to_seconds();
  if (s >= 1)
    os << std::fixed << std::setprecision(3) << s << " s";
  else if (s >= 1e-3)
    os << std::fixed << std::setprecision(3) << s * 1e3 << " ms";
  else if (s >= 1e-6)
    os << std::fixed << std::setprecision(3) << s * 1e6 << " us";
  else
    os << std::fixed << std::setprecision(3) << s * 1e9 << " ns";
  return os.str();
}

std::chrono::duration<double> parse_wall_limit(const std::string& text, bool* bare_number) {
  // The time syntax of configuration values, with seconds as the unit of a bare number.
  std::string t = text;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
  const bool bare = !t.empty() && (std::isdigit(static_cast<unsigned char>(t.back())) || t.back() == '.');
  if (bare_number) *bare_number = bare;
  if (t.empty()) throw config_error("--wall-limit: empty; give a time with a unit (30 s, 500 ms; units fs, ps, ns, us, ms, s)");
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
  const auto started = program_start();
  const auto sim_start = clock::now();
  o.setup_seconds = std::chrono::duration<double>(sim_start - started).count();
  const sc_core::sc_time limit = limits.time_limit;
  // Slice length in simulated time, adapted so that one slice takes about 50 ms of wall time.
  sc_core::sc_time slice(100, sc_core::SC_NS);
  const sc_core::sc_time min_slice(1, sc_core::SC_NS), max_slice(10, sc_core::SC_MS);
  interrupt_scope signals;
  std::optional<hard_watchdog> watchdog;
  if (limits.wall_limit) {
    const std::chrono::duration<double> left = *limits.wall_limit - (sim_start - started);
    watchdog.emplace(std::max(left, std::chrono::duration<double>(0)));
  }
  progress_line line(err, limits.terminal, limits.progress_period);
  struct horizon_scope {  // the loop below steps in only past the time limit
    explicit horizon_scope(const sc_core::sc_time& t) { run_horizon() = t; }
    ~horizon_scope() { run_horizon() = sc_core::SC_ZERO_TIME; }
  } horizon(limit);
  auto finish = [&](run_end e) {
    line.finish();
    o.end = e;
    o.signal = e == run_end::signal ? interrupt_scope::pending() : 0;
    o.wall_seconds = std::chrono::duration<double>(clock::now() - started).count();
    return o;
  };
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  while (sc_core::sc_get_status() != sc_core::SC_STOPPED && sc_core::sc_pending_activity()) {
    if (interrupt_scope::pending()) return finish(run_end::signal);
    if (limits.wall_limit && clock::now() - started > *limits.wall_limit) return finish(run_end::wall_limit);
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const sc_core::sc_time next = sc_core::sc_time_to_pending_activity();
    if (now > limit || next > limit - now) return finish(run_end::time_limit);
    // At least up to the next event: a starving slice would not advance time at all.
    const auto slice_start = clock::now();
    sc_core::sc_start(std::max(next, std::min(slice, limit - now)), sc_core::SC_EXIT_ON_STARVATION);
    const auto after = clock::now();
    if (after - slice_start > std::chrono::milliseconds(100) && slice > min_slice)
      slice = std::max(min_slice, slice / 4);
    else if (after - slice_start < std::chrono::milliseconds(20) && slice < max_slice)
      slice = std::min(max_slice, slice * 2);
    if (limits.progress && line.due()) {
      double fraction = -1;
      const std::string what = limits.describe ? limits.describe(fraction) : std::string();
      const double spent = std::chrono::duration<double>(after - sim_start).count();
      const std::string left = time_left(spent, fraction);
      line.update("progress: simulated " + human_time(sc_core::sc_time_stamp()) + ", wall " +
                  std::to_string(std::chrono::duration_cast<std::chrono::seconds>(after - started).count()) + " s" +
                  (what.empty() ? "" : "; " + what) + (left.empty() ? "" : "; " + left));
    }
  }
  if (interrupt_scope::pending()) return finish(run_end::signal);
  return finish(run_end::finished);
}

}  // namespace gpuvp
