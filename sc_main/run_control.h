// SPDX-License-Identifier: Apache-2.0
// How a run ends: by itself, at the simulated time limit, at the wall-clock limit, or on SIGINT /
// SIGTERM. Wall time counts from the program's start (set-up included). The kernel runs in slices; between slices the loop checks the limits and the signal
// flag, so every way of ending leaves the kernel paused and the CLI can still write complete
// --stats and --trace files. The slice length adapts to the simulated rate (each slice takes about
// 50 ms of wall time, between 1 ns and 10 ms simulated), so progress lines and the wall-clock
// limit are on time whether a workload simulates a second per second or a microsecond per
// minute. Where sc_start returns changes nothing simulated.
#pragma once
#include <chrono>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <systemc>

namespace gpuvp {

class platform;

enum class run_end { finished, time_limit, wall_limit, signal };

struct run_outcome {
  run_end end = run_end::finished;
  int signal = 0;            // SIGINT or SIGTERM when end == signal
  double wall_seconds = 0;   // from the program's start (program_start(), gpuvp/progress.h)
  double setup_seconds = 0;  // of those, before the simulation started (elaboration, parsing)
  double sim_seconds() const { return wall_seconds - setup_seconds; }
};

struct run_limits {
  sc_core::sc_time time_limit = sc_core::sc_max_time();     // simulated
  std::optional<std::chrono::duration<double>> wall_limit;  // from the program's start; off unless set
  bool progress = true;  // a progress line (gpuvp/progress.h): every progress_period, or in place on a terminal
  bool terminal = false;
  std::chrono::duration<double> progress_period{10.0};
  // What the line says after the simulated time and wall time: the workload's progress; its
  // fraction done (negative: unknown) gives the estimate of the time left.
  std::function<std::string(double& fraction)> describe;
};

// Runs the elaborated platform until it ends (see run_end). Installs SIGINT/SIGTERM handlers for
// the duration (a second signal kills the process the default way). An exception a model throws
// during the run (SC_REPORT_ERROR) propagates after the handlers are restored.
run_outcome simulate(const run_limits& limits, std::ostream& err);

// True while simulate() runs (tests wait for it before raising a signal).
bool simulation_running();

// Parses a --wall-limit value ("30 s", "2 ms", "1.5"; a bare number is seconds: `bare` says so,
// for the note that names the unit applied).
std::chrono::duration<double> parse_wall_limit(const std::string& text, bool* bare = nullptr);

// "1.234 ms": a readable simulated time.
std::string human_time(const sc_core::sc_time& t);

}  // namespace gpuvp
