// SPDX-License-Identifier: Apache-2.0
#include "gpuvp/progress.h"

#include <atomic>
#include <cmath>
#include <csignal>
#include <iostream>
#include <unistd.h>

namespace gpuvp {

namespace {
std::atomic<int> pending_signal{0};
std::atomic<bool> scope_active{false};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs a lock-free flag");
extern "C" void on_signal(int sig) { pending_signal.store(sig); }
struct sigaction old_int {
}, old_term{};

std::chrono::steady_clock::time_point& start_time() {
  static std::chrono::steady_clock::time_point t = std::chrono::steady_clock::now();
  return t;
}
}  // namespace

std::chrono::steady_clock::time_point program_start() { return start_time(); }
void set_program_start(std::chrono::steady_clock::time_point t) { start_time() = t; }
double seconds_since_program_start() { return std::chrono::duration<double>(std::chrono::steady_clock::now() - program_start()).count(); }

interrupt_scope::interrupt_scope() {
  pending_signal.store(0);
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  scope_active.store(true);
}

interrupt_scope::~interrupt_scope() {
  scope_active.store(false);
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
}

int interrupt_scope::pending() { return pending_signal.load(); }
bool interrupt_scope::active() { return scope_active.load(); }

const char* signal_name(int sig) { return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal"; }

progress_line::progress_line(std::ostream& os, bool terminal, std::chrono::duration<double> period)
    : os_(os), terminal_(terminal), period_(terminal ? std::chrono::seconds(1) : period), last_(std::chrono::steady_clock::now()) {}

bool progress_line::due() const { return std::chrono::steady_clock::now() - last_ >= period_; }

void progress_line::update(const std::string& text) {
  if (!due()) return;
  last_ = std::chrono::steady_clock::now();
  if (terminal_)
    os_ << "\r" << text << "\033[K" << std::flush;
  else
    os_ << text << "\n" << std::flush;
  shown_ = true;
}

void progress_line::finish() {
  if (terminal_ && shown_) os_ << "\r\033[K" << std::flush;
  shown_ = false;
}

bool is_terminal(const std::ostream& os) { return &os == &std::cerr && ::isatty(STDERR_FILENO); }

std::string time_left(double elapsed_s, double fraction) {
  if (!(fraction >= 0.001 && fraction <= 1.0) || elapsed_s <= 0) return "";
  const double left = elapsed_s * (1.0 - fraction) / fraction;
  const long s = std::lround(left);
  std::string t = "about ";
  if (s >= 3600)
    t += std::to_string(s / 3600) + " h " + std::to_string(s % 3600 / 60) + " min";
  else if (s >= 60)
    t += std::to_string(s / 60) + " min " + std::to_string(s % 60) + " s";
  else
    t += std::to_string(s) + " s";
  return t + " left";
}

}  // namespace gpuvp
