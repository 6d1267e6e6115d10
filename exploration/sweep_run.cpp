// SPDX-License-Identifier: Apache-2.0
#include "sweep_run.h"

#include <chrono>
#include <climits>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <cstdio>
#include <exception>
#include <functional>
#include <fcntl.h>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <systemc>
#include "cli.h"
#include "gpuvp/config.h"
#include "gpuvp/trace.h"
#include "sweep_results.h"

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

namespace gpuvp::sweep {

std::string self_exe() {
  std::error_code ec;
  const auto p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("gpuvp") : p.string();
}

std::string host_name() {
  char buf[HOST_NAME_MAX + 1] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

namespace {

// The child's set-up, in both ways of starting a point: its own process group (a Ctrl-C in the
// terminal reaches the driver only, which then stops the points it runs), dies with the driver
// (PR_SET_PDEATHSIG, so a killed sweep leaves no orphans), stdin from /dev/null, stdout and
// stderr to `log` (null: the driver's), the driver's signal handlers and mask undone. Only
// system calls on what the parent prepared: it also runs between vfork and exec.
bool prepare_child(const char* log, const sigset_t& old_mask, pid_t parent) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) return false;
  const int null = open("/dev/null", O_RDONLY);
  if (null < 0) return false;
  dup2(null, 0);
  if (log) {
    const int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return false;
    dup2(fd, 1);
    dup2(fd, 2);
  }
  // A handler of the driver must not run here (the child's handlers are its own copy).
  for (int sig = 1; sig < NSIG; ++sig) {
    struct sigaction sa {};
    if (sigaction(sig, nullptr, &sa) == 0 && sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN) {
      sa.sa_handler = SIG_DFL;
      sa.sa_flags = 0;
      sigaction(sig, &sa, nullptr);
    }
  }
  sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  return true;
}

// The child of spawn() between vfork and exec: it shares the driver's memory, so it never returns.
[[noreturn]] void exec_child(char* const* argv, const char* log, const std::string& failed, const sigset_t& old_mask, pid_t parent) {
  if (!prepare_child(log, old_mask, parent)) _exit(127);
  execvp(argv[0], argv);
  [[maybe_unused]] const ssize_t n = write(2, failed.data(), failed.size());
  _exit(127);
}

// The forked child of spawn_here(): `gpuvp ARGS` run in this copy of the driver, from the state a
// new process of the program starts in (a new SystemC context; the configuration, the log and the
// trace writer empty), then ended without the driver's exit handlers. Output is flushed first,
// as a process's exit would.
[[noreturn]] void run_child_here(std::vector<char*>& argv, const char* log, const sigset_t& old_mask, pid_t parent) {
  if (!prepare_child(log, old_mask, parent)) _exit(127);
  close_range(3, ~0u, 0);  // the driver's files (its folder lock among them), as an exec closes them
  config::global().reset();
  logger::global().reset();
  tracer::global() = tracer{};
  sc_core::sc_curr_simcontext = sc_core::sc_default_global_context = new sc_core::sc_simcontext();
  const int rc = gpuvp_main(int(argv.size()) - 1, argv.data(), std::cin, std::cout, std::cerr);
  tracer::global().close();
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  _exit(rc);
}

// Whether the driver has one thread (a fork copies only the calling thread; with more, a point
// could inherit a lock another thread held).
bool single_threaded() {
  std::error_code ec;
  size_t n = 0;
  for (auto it = fs::directory_iterator("/proc/self/task", ec); !ec && it != fs::directory_iterator(); it.increment(ec)) ++n;
  return !ec && n == 1;
}

// vfork + exec with output to `log`: vfork rather than fork, as fork copies the driver's page
// tables and then takes a copy-on-write fault for each page either process writes.
pid_t spawn(const std::vector<std::string>& argv, const std::string& log, const sigset_t& old_mask) {
  std::vector<char*> a;
  for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
  a.push_back(nullptr);
  const std::string failed = "gpuvp sweep: cannot execute " + argv[0] + "\n";
  const pid_t parent = getpid();
  sigset_t all, before;
  sigfillset(&all);
  sigprocmask(SIG_SETMASK, &all, &before);  // nothing is delivered to the child before it is ready
  const pid_t pid = vfork();
  if (pid == 0) exec_child(a.data(), log.empty() ? nullptr : log.c_str(), failed, old_mask, parent);
  sigprocmask(SIG_SETMASK, &before, nullptr);
  return pid;
}

// A point of this program (`gpuvp run ...`) in a forked copy of the driver rather than a new
// process of it: the program's start (loading it and SystemC, about half of a short point's CPU
// time) is not paid again per point; the copy-on-write faults of the fork are a few dozen. Falls
// back to spawn() when the driver has other threads.
pid_t spawn_here(const std::vector<std::string>& argv, const std::string& log, const sigset_t& old_mask) {
  if (!single_threaded()) return spawn(argv, log, old_mask);
  std::vector<char*> a;
  for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
  a.push_back(nullptr);
  std::cout.flush();  // or the child would write the driver's pending output again
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t parent = getpid();
  sigset_t all, before;
  sigfillset(&all);
  sigprocmask(SIG_SETMASK, &all, &before);
  const pid_t pid = fork();
  if (pid == 0) run_child_here(a, log.empty() ? nullptr : log.c_str(), old_mask, parent);
  sigprocmask(SIG_SETMASK, &before, nullptr);
  return pid;
}

std::string duration(double s) {
  std::ostringstream os;
  const long t = long(s + 0.5);
  if (t >= 3600)
    os << t / 3600 << "h" << (t % 3600) / 60 << "m";
  else if (t >= 60)
    os << t / 60 << "m" << t % 60 << "s";
  else
    os << t << "s";
  return os.str();
}

struct running {
  size_t id;
  clock_type::time_point start, term_at;
  bool term_sent = false, kill_sent = false, over_limit = false;
};

// Blocks SIGCHLD/SIGINT/SIGTERM for the duration of a pool and restores the mask afterwards.
struct signal_guard {
  sigset_t set, old;
  signal_guard() {
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_BLOCK, &set, &old);
  }
  ~signal_guard() {
    // Drop pending SIGCHLDs of reaped children, then restore.
    timespec zero{0, 0};
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    while (sigtimedwait(&chld, nullptr, &zero) > 0) {}
    sigprocmask(SIG_SETMASK, &old, nullptr);
  }
};

}  // namespace

int run_to_file(const std::vector<std::string>& argv, const std::string& log) {
  sigset_t cur;
  sigprocmask(SIG_SETMASK, nullptr, &cur);
  const pid_t pid = spawn(argv, log, cur);
  if (pid < 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

folder_lock::folder_lock(const std::string& dir) {
  const std::string path = (fs::path(dir) / "sweep.lock").string();
  fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw config_error(path + ": cannot create the sweep's lock file: " + std::strerror(errno));
  if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    char buf[32] = {};
    const ssize_t n = pread(fd_, buf, sizeof buf - 1, 0);
    std::string pid = n > 0 ? std::string(buf, size_t(n)) : std::string("unknown");
    while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
    close(fd_);
    fd_ = -1;
    throw config_error(dir + " is in use by another gpuvp sweep (process " + pid + "): wait for it to end, or choose another --out");
  }
  const std::string me = std::to_string(getpid()) + "\n";
  if (ftruncate(fd_, 0) != 0 || pwrite(fd_, me.data(), me.size(), 0) != ssize_t(me.size()))
    throw config_error(path + ": cannot write the sweep's lock file: " + std::strerror(errno));
}

folder_lock::~folder_lock() {
  if (fd_ >= 0) close(fd_);  // releases the lock; the file stays (another sweep may hold it already)
}

namespace {

// The points of one run_points call as child processes, at most p.jobs at a time: started,
// reaped, stopped at the wall-clock limit or on SIGINT/SIGTERM, with a progress line.
struct point_runner {
  pool& p;
  const std::vector<size_t>& ids;
  const commands& cmds;
  const std::function<void()>& after_first;  // when point 0 has its result
  std::exception_ptr failed_check;           // what after_first threw: every point stopped
  signal_guard guard;
  const bool tty = isatty(2);
  std::map<pid_t, running> live;
  size_t next = 0;
  int interrupted = 0;
  const clock_type::time_point t0 = clock_type::now();
  clock_type::time_point last_print = t0 - std::chrono::hours(1);
  const size_t done_before;
  std::string last_line;

  point_runner(pool& p_, const std::vector<size_t>& ids_, const commands& cmds_, const std::function<void()>& after_first_)
      : p(p_), ids(ids_), cmds(cmds_), after_first(after_first_), done_before(p_.done) {}

  bool stopping() const { return interrupted || failed_check; }

  int run() {
    while (next < ids.size() || !live.empty()) {
      while (!stopping() && live.size() < p.jobs && next < ids.size()) start(ids[next++]);
      if (stopping() && next < ids.size()) next = ids.size();
      print(false);
      take_signal();
      reap();
      enforce_limits();
    }
    print(true);
    if (p.progress && tty) std::cerr << "\n";
    if (failed_check) std::rethrow_exception(failed_check);
    return interrupted;
  }

  void print(bool force) {
    if (!p.progress) return;
    const auto now = clock_type::now();
    if (!force && !tty && now - last_print < std::chrono::seconds(10)) return;
    std::ostringstream os;
    os << "sweep: " << p.done << "/" << p.total << " done, " << live.size() << " running, " << p.failed << " failed";
    const size_t here = p.done - done_before, left = ids.size() - here;
    if (here > 0 && left > 0) {
      const double per = std::chrono::duration<double>(now - t0).count() / double(here);
      os << ", about " << duration(per * double(left)) << " left";
    }
    if (os.str() == last_line && !force) return;
    last_line = os.str();
    last_print = now;
    if (tty)
      std::cerr << "\r\033[K" << last_line << std::flush;
    else
      std::cerr << last_line << "\n";
  }

  void start(size_t id) {
    const std::string pdir = point_dir(p.out, id, p.total);
    fs::create_directories(pdir);
    std::error_code ec;
    fs::remove(pdir + "/stats.json", ec);  // a stale file of an interrupted attempt
    std::vector<std::string> argv = {p.exe};
    argv.insert(argv.end(), cmds[id].begin(), cmds[id].end());
    const pid_t pid = argv[0] == self_exe() ? spawn_here(argv, pdir + "/log", guard.old) : spawn(argv, pdir + "/log", guard.old);
    if (pid < 0) throw std::runtime_error("cannot start a process (fork failed)");
    live[pid] = {id, clock_type::now(), {}};
  }

  // Waits up to 200 ms for SIGINT/SIGTERM (or a child's end); the first one stops every point.
  void take_signal() {
    timespec wait{0, 200 * 1000 * 1000};
    const int sig = sigtimedwait(&guard.set, nullptr, &wait);
    if ((sig == SIGINT || sig == SIGTERM) && !interrupted) {
      interrupted = sig;
      for (auto& [cpid, r] : live) kill(cpid, SIGTERM), r.term_sent = true, r.term_at = clock_type::now();
    }
  }

  // The points that ended: their results written.
  void reap() {
    int status = 0;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
      auto it = live.find(pid);
      if (it == live.end()) continue;
      const running r = it->second;
      live.erase(it);
      if (stopping() && !r.over_limit) continue;  // stopped by us: no result, --resume reruns it
      const bool sig_end = WIFSIGNALED(status);
      const int code = sig_end ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
      // Stopped from outside (not by the wall limit): not an outcome of the point.
      if (!r.over_limit && ((sig_end && (WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGTERM)) || code == 130 || code == 143))
        continue;
      const std::string pdir = point_dir(p.out, r.id, p.total);
      point_result res;
      res.exit_code = code;
      res.wall_s = std::chrono::duration<double>(clock_type::now() - r.start).count();
      res.host = host_name();
      res.error = r.over_limit ? "wall-clock limit of " + duration(p.wall_limit_s) + " per point passed by 30 s (stopped by the sweep)"
                               : explain_failure(pdir, code, sig_end ? WTERMSIG(status) : 0);
      write_result(pdir, res);
      ++p.done;
      if (code != 0) ++p.failed;
      if (r.id == 0 && after_first) check_first();
    }
  }

  // after_first on point 0's result; if it throws, the running points are stopped (no result:
  // --resume runs them again) and no other starts.
  void check_first() {
    try {
      after_first();
    } catch (...) {
      failed_check = std::current_exception();
      for (auto& [cpid, r] : live) kill(cpid, SIGTERM), r.term_sent = true, r.term_at = clock_type::now();
    }
  }

  // Wall-clock limit per point; SIGKILL for stragglers (also after an interruption).
  void enforce_limits() {
    const auto now = clock_type::now();
    for (auto& [cpid, r] : live) {
      const double age = std::chrono::duration<double>(now - r.start).count();
      if (!r.term_sent && p.wall_limit_s > 0 && age > p.wall_limit_s + 30) {
        kill(cpid, SIGTERM);
        r.term_sent = r.over_limit = true;
        r.term_at = now;
      }
      if (r.term_sent && !r.kill_sent && now - r.term_at > std::chrono::seconds(10)) kill(cpid, SIGKILL), r.kill_sent = true;
    }
  }
};

}  // namespace

int run_points(pool& p, const std::vector<size_t>& ids, const commands& cmds, const std::function<void()>& after_first) {
  point_runner runner(p, ids, cmds, after_first);
  return runner.run();
}

}  // namespace gpuvp::sweep
