// SPDX-License-Identifier: Apache-2.0
// gpuvp._gpuvp: the gpuvp command line in forked child processes.
//
// SystemC elaborates one platform per process and cannot be reset, so every simulation runs in a
// child forked from the Python process; the parent never elaborates anything and stays pristine,
// so a script may run as many simulations as it likes, one after the other or side by side.
// - run_cli(args) runs `gpuvp <args>` to the end and returns (exit code, stdout, stderr,
//   simulated ns).
// - Session(args) runs `gpuvp qtest <args>` with its standard input and output on pipes and sends
//   one command line at a time (docs/qtest.md). python/gpuvp/__init__.py builds the API on these.
#include <pybind11/pybind11.h>  // first: Python.h sets feature macros
#include <pybind11/stl.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <dirent.h>
#include <ext/stdio_filebuf.h>
#include <istream>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>
#include <systemc>
#include "gpuvp/main.h"

namespace py = pybind11;

namespace {

// Closes every descriptor the child inherited except 0-2 and `keep` (pipes of other sessions
// would otherwise stay open in this child and hide their end of file).
void close_inherited(const std::vector<int>& keep) {
  std::vector<int> fds;
  if (DIR* d = opendir("/proc/self/fd")) {
    const int own = dirfd(d);
    while (dirent* e = readdir(d)) {
      const int fd = std::atoi(e->d_name);
      if (e->d_name[0] != '.' && fd > 2 && fd != own) fds.push_back(fd);
    }
    closedir(d);
  }
  for (int fd : fds) {
    bool kept = false;
    for (int k : keep) kept = kept || k == fd;
    if (!kept) close(fd);
  }
}

bool write_all(int fd, const void* data, size_t n) {
  auto* p = static_cast<const char*>(data);
  while (n) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= size_t(w);
  }
  return true;
}

std::string read_all(int fd) {
  std::string s;
  char buf[65536];
  for (;;) {
    const ssize_t r = ::read(fd, buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    s.append(buf, size_t(r));
  }
  return s;
}

void write_string(int fd, const std::string& s) {
  const uint64_t n = s.size();
  write_all(fd, &n, sizeof n);
  write_all(fd, s.data(), s.size());
}

std::string take_string(const std::string& blob, size_t& pos) {
  uint64_t n = 0;
  if (pos + sizeof n > blob.size()) throw std::runtime_error("gpuvp: truncated reply from the simulation process");
  std::memcpy(&n, blob.data() + pos, sizeof n);
  pos += sizeof n;
  if (pos + n > blob.size()) throw std::runtime_error("gpuvp: truncated reply from the simulation process");
  std::string s = blob.substr(pos, n);
  pos += n;
  return s;
}

std::vector<char*> make_argv(std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return argv;
}

// Exit status of a child as a shell would give it (128 + signal when killed).
int exit_status(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

std::string describe_status(int rc) {
  return rc > 128 ? "the simulation process died of signal " + std::to_string(rc - 128)
                  : "the simulation process exited with status " + std::to_string(rc);
}

// Runs `gpuvp args...` in a child; returns (exit code, stdout, stderr, simulated time in ns).
py::tuple run_cli(std::vector<std::string> args) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error(std::string("gpuvp: pipe: ") + std::strerror(errno));
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("gpuvp: fork: ") + std::strerror(errno));
  if (pid == 0) {
    close(fds[0]);
    close_inherited({fds[1]});
    std::istringstream in;
    std::ostringstream out, err;
    args.insert(args.begin(), "gpuvp");
    auto argv = make_argv(args);
    int rc = 2;
    try {
      rc = gpuvp::main(int(args.size()), argv.data(), in, out, err);
    } catch (const std::exception& e) {
      err << "gpuvp: error: " << e.what() << "\n";
    }
    const uint64_t ns = sc_core::sc_time_stamp().value() / sc_core::sc_time(1, sc_core::SC_NS).value();
    const int64_t code = rc;
    write_all(fds[1], &code, sizeof code);
    write_all(fds[1], &ns, sizeof ns);
    write_string(fds[1], out.str());
    write_string(fds[1], err.str());
    close(fds[1]);
    std::fflush(nullptr);
    _exit(rc);
  }
  close(fds[1]);
  std::string blob;
  int status;
  {
    py::gil_scoped_release unlocked;
    blob = read_all(fds[0]);
    close(fds[0]);
    status = exit_status(pid);
  }
  if (blob.size() < 16) throw std::runtime_error("gpuvp: " + describe_status(status) + " before it reported");
  int64_t code = 0;
  uint64_t ns = 0;
  std::memcpy(&code, blob.data(), 8);
  std::memcpy(&ns, blob.data() + 8, 8);
  size_t pos = 16;
  std::string out = take_string(blob, pos);
  std::string err = take_string(blob, pos);
  return py::make_tuple(int(code), py::bytes(out), py::bytes(err), ns);
}

// Raised by a command when the child has gone (the Python side then reads close()).
struct session_ended : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// `gpuvp qtest args...` in a child, one command line at a time.
class session {
 public:
  explicit session(std::vector<std::string> args) {
    int cmd[2], reply[2], err[2];
    if (pipe(cmd) != 0 || pipe(reply) != 0 || pipe(err) != 0)
      throw std::runtime_error(std::string("gpuvp: pipe: ") + std::strerror(errno));
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error(std::string("gpuvp: fork: ") + std::strerror(errno));
    if (pid_ == 0) {
      ::close(cmd[1]);
      ::close(reply[0]);
      ::close(err[0]);
      close_inherited({cmd[0], reply[1], err[1]});
      signal(SIGPIPE, SIG_IGN);
      int rc = 2;
      std::ostringstream errs;
      {
        __gnu_cxx::stdio_filebuf<char> inbuf(cmd[0], std::ios::in), outbuf(reply[1], std::ios::out);
        std::istream in(&inbuf);
        std::ostream out(&outbuf);
        args.insert(args.begin(), {"gpuvp", "qtest"});
        auto argv = make_argv(args);
        try {
          rc = gpuvp::main(int(args.size()), argv.data(), in, out, errs);
        } catch (const std::exception& e) {
          errs << "gpuvp: error: " << e.what() << "\n";
        }
        out.flush();
      }  // closes the command and reply pipes: the parent sees the end of the replies
      const std::string text = errs.str();
      write_all(err[1], text.data(), text.size());
      ::close(err[1]);
      std::fflush(nullptr);
      _exit(rc);
    }
    ::close(cmd[0]);
    ::close(reply[1]);
    ::close(err[1]);
    cmd_ = cmd[1];
    reply_ = reply[0];
    err_ = err[0];
  }
  ~session() { finish(); }

  // Sends one line; returns the reply line ("" for an empty line or a comment, which qtest skips
  // without an answer: host::thread). Asynchronous "IRQ ..." lines that come before it are
  // kept for irqs(). Raises EOFError when the simulation process has ended.
  std::string command(const std::string& line) {
    if (line.find('\n') != std::string::npos) throw py::value_error("gpuvp: a command is one line");
    if (pid_ <= 0) throw py::value_error("gpuvp: the session is closed");
    if (line.empty() || line[0] == '#') return "";  // qtest skips these without an answer
    py::gil_scoped_release unlocked;
    const std::string text = line + "\n";
    if (!write_all(cmd_, text.data(), text.size())) throw_ended();
    for (;;) {
      std::string reply;
      if (!read_line(reply)) throw_ended();
      if (reply.rfind("IRQ ", 0) == 0) {
        irqs_.push_back(reply);
        continue;
      }
      return reply;
    }
  }

  std::vector<std::string> take_irqs() { return std::exchange(irqs_, {}); }

  // Ends the session (the child sees the end of its input) and returns (exit code, stderr).
  py::tuple close() {
    {
      py::gil_scoped_release unlocked;
      finish();
    }
    return py::make_tuple(rc_, py::bytes(err_text_));
  }
  bool alive() const { return pid_ > 0; }

 private:
  pid_t pid_ = -1;
  int cmd_ = -1, reply_ = -1, err_ = -1, rc_ = -1;
  std::string buffered_, err_text_;
  std::vector<std::string> irqs_;

  bool read_line(std::string& line) {
    for (;;) {
      const size_t nl = buffered_.find('\n');
      if (nl != std::string::npos) {
        line = buffered_.substr(0, nl);
        buffered_.erase(0, nl + 1);
        return true;
      }
      char buf[65536];
      const ssize_t r = ::read(reply_, buf, sizeof buf);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return false;
      buffered_.append(buf, size_t(r));
    }
  }
  void finish() {
    if (pid_ <= 0) return;
    ::close(cmd_);
    std::string rest;
    while (read_line(rest)) {}
    ::close(reply_);
    err_text_ = read_all(err_);
    ::close(err_);
    rc_ = exit_status(pid_);
    pid_ = -1;
  }
  [[noreturn]] void throw_ended() {
    finish();
    throw session_ended("the simulation process has ended");
  }
};

}  // namespace

// libsystemc's main() calls sc_main. The module never calls that main, but Python loads modules
// with RTLD_NOW, so the symbol must resolve when the module is loaded.
__attribute__((visibility("default"))) int sc_main(int, char**) { return 2; }

PYBIND11_MODULE(_gpuvp, m) {
  m.doc() = "gpuvp simulations in child processes (use the gpuvp package, not this module)";
  m.def("run_cli", &run_cli, py::arg("args"),
        "Runs `gpuvp ARGS...` in a child process: (exit code, stdout, stderr, simulated ns).");
  py::register_exception<session_ended>(m, "SessionEnded", PyExc_EOFError);
  py::class_<session>(m, "QtestSession")
      .def(py::init<std::vector<std::string>>(), py::arg("args"))
      .def("command", &session::command, py::arg("line"))
      .def("take_irqs", &session::take_irqs)
      .def("close", &session::close)
      .def_property_readonly("alive", &session::alive);
}
