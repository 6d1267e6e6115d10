#include "sweep_plot.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <vector>
#include "cli.h"
#include "sweep_run.h"

namespace fs = std::filesystem;

namespace gpuvp::sweep {

namespace {

// The plot script: $GPUVP_PLOT_SCRIPT, next to the program (build/../tools), or in the sources.
std::string plot_script() {
  if (const char* e = std::getenv("GPUVP_PLOT_SCRIPT")) return e;
  const fs::path near = fs::path(self_exe()).parent_path() / ".." / "tools" / "gpuvp_plot.py";
  if (fs::exists(near)) return near.lexically_normal().string();
  return GPUVP_SOURCE_DIR "/tools/gpuvp_plot.py";
}

// A Python 3 with matplotlib: $GPUVP_PYTHON, python3 on the PATH, or Debian's /usr/bin/python3
// (python3-matplotlib) when the first python3 lacks it (a virtualenv, pyenv).
std::string python() {
  if (const char* e = std::getenv("GPUVP_PYTHON")) return e;
  for (const char* p : {"python3", "/usr/bin/python3"})
    if (run_to_file({p, "-c", "import matplotlib"}, "/dev/null") == 0) return p;
  return "";
}

int run_script(std::vector<std::string> args, std::ostream& err) {
  const std::string py = python();
  if (py.empty()) {
    err << "gpuvp plot: no python3 with matplotlib found (install python3-matplotlib, or set GPUVP_PYTHON)\n";
    return exit_usage;
  }
  args.insert(args.begin(), {py, plot_script()});
  return run_to_file(args, "");
}

}  // namespace

int main_plot(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const int rc = run_script(args, std::cerr);
  return rc < 0 || rc > 2 ? exit_usage : rc;
}

void draw_default_plots(const std::string& out, std::ostream& err) {
  if (run_script({out}, err) != 0) err << "gpuvp sweep: warning: plots not drawn (see above); retry with gpuvp plot " << out << "\n";
}

}  // namespace gpuvp::sweep
