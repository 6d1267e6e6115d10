// SPDX-License-Identifier: Apache-2.0
// Long runs, for every command that simulates (gpuvp run, gpuvp sm-run): Ctrl-C / SIGTERM as a
// request to stop between steps (the command then prints what it has and exits 128 + signal), a
// progress line on stderr, and the wall clock counted from the program's start.
#pragma once
#include <chrono>
#include <iosfwd>
#include <string>

namespace gpuvp {

class platform;

// A workload that can say how far it is (gpuvp run's progress line; others show the components'
// busy() lines): what is done ("kernels 9 of 60 done, ...") and the fraction of the work done, in
// [0, 1] (negative: unknown, no estimate of the time left). Called between simulation slices.
class progress_reporter {
 public:
  struct info {
    std::string text;
    double fraction = -1;
  };
  virtual info progress(platform& p) = 0;

 protected:
  ~progress_reporter() = default;
};

// The wall-clock origin of the program: set by the command-line entry (gpuvp_main) when it
// starts, so that wall time, speed and --wall-limit include set-up (elaboration, trace parsing).
// Before that it is the first call's time.
std::chrono::steady_clock::time_point program_start();
void set_program_start(std::chrono::steady_clock::time_point t);
double seconds_since_program_start();

// Handlers for one run: the first SIGINT/SIGTERM sets the pending signal (SA_RESETHAND: a second
// one terminates the process the default way, for a run stuck inside one step). The previous
// handlers come back on destruction.
class interrupt_scope {
 public:
  interrupt_scope();
  ~interrupt_scope();
  interrupt_scope(const interrupt_scope&) = delete;
  interrupt_scope& operator=(const interrupt_scope&) = delete;
  static int pending();  // the signal received, 0 if none (async-signal-safe flag)
  static bool active();  // a scope is installed (tests wait for it before raising a signal)
};

// "SIGINT", "SIGTERM".
const char* signal_name(int sig);

// One progress line. On a terminal it rewrites itself in place (every second, "\r...\033[K"),
// and finish() clears it; elsewhere (a log file, a pipe) it prints a new line every `period`.
class progress_line {
 public:
  progress_line(std::ostream& os, bool terminal, std::chrono::duration<double> period = std::chrono::seconds(10));
  // Prints `text` when a line is due.
  void update(const std::string& text);
  bool due() const;
  void finish();
  ~progress_line() { finish(); }

 private:
  std::ostream& os_;
  bool terminal_, shown_ = false;
  std::chrono::duration<double> period_;
  std::chrono::steady_clock::time_point last_;
};

// True when `os` is std::cerr and standard error is a terminal.
bool is_terminal(const std::ostream& os);

// "about 2 min 10 s left" from the seconds spent on the work so far and the fraction of it done;
// empty when the fraction is unknown (outside (0, 1]) or too small to tell (under 0.1 %).
std::string time_left(double elapsed_s, double fraction);

}  // namespace gpuvp
