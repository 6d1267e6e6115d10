// SPDX-License-Identifier: Apache-2.0
// Runs sweep points as separate `gpuvp run` processes, a bounded number at a time, writing
// each finished point's result.json atomically. Used by the local backend and by the Slurm
// array tasks (one process at a time there).
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace gpuvp::sweep {

struct pool {
  std::string exe;              // this program (/proc/self/exe)
  std::string out;              // the sweep folder (absolute)
  size_t total = 0;             // points in the sweep (ids, progress)
  size_t jobs = 1;              // processes at a time
  double wall_limit_s = 0;      // per point (the run's own --wall-limit); 0: none. SIGTERM 30 s past it, SIGKILL 10 s later
  bool progress = true;         // progress line on stderr
  size_t done = 0, failed = 0;  // finished so far (also those of an earlier run)
};

// The command line of point i (after the program name).
using commands = std::vector<std::vector<std::string>>;

// Runs the given points; returns 0, or the signal (SIGINT/SIGTERM) that interrupted it (running
// points are then stopped and left without a result, so --resume runs them again). after_first,
// if given, runs once point 0 has its result; what it throws stops the running points the same
// way (no other starts) and is thrown again once they have ended.
int run_points(pool& p, const std::vector<size_t>& ids, const commands& cmds, const std::function<void()>& after_first = {});

// An exclusive lock on a sweep folder (DIR/sweep.lock holding the owner's process id), held
// until destroyed or the process ends. A second sweep on the folder gets a config_error naming
// the first one's process id.
class folder_lock {
 public:
  explicit folder_lock(const std::string& dir);
  ~folder_lock();
  folder_lock(const folder_lock&) = delete;
  folder_lock& operator=(const folder_lock&) = delete;

 private:
  int fd_ = -1;
};

// Path of the running program.
std::string self_exe();
// This machine's host name.
std::string host_name();
// Runs argv (argv[0] is the program, found on the PATH) with stdout+stderr to log (empty: ours); returns the exit code (128+N
// for signal N, -1 when it could not start).
int run_to_file(const std::vector<std::string>& argv, const std::string& log);

}  // namespace gpuvp::sweep
