// SPDX-License-Identifier: Apache-2.0
#include "sweep_plot.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <vector>
#include <unistd.h>
#include "cli.h"
#include "gpuvp/tool_args.h"
#include "sweep_run.h"

namespace fs = std::filesystem;

namespace gpuvp::sweep {

namespace {

// The plot script: $GPUVP_PLOT_SCRIPT; installed, <prefix>/share/gpuvp beside <prefix>/bin; in the
// build tree, beside the program (a link to tools/); for a copy of the program elsewhere, the
// configured installation's. Never the source tree: an installed gpuvp must not
// depend on it. Empty when none exists; `looked` lists the places tried.
std::string plot_script(std::string& looked) {
  if (const char* e = std::getenv("GPUVP_PLOT_SCRIPT")) return e;
  const fs::path exe_dir = fs::path(self_exe()).parent_path();
  for (const fs::path& p : {exe_dir / ".." / "share" / "gpuvp" / "gpuvp_plot.py", exe_dir / "gpuvp_plot.py",
                            fs::path(GPUVP_INSTALL_DATADIR) / "gpuvp_plot.py"}) {
    const fs::path normal = p.lexically_normal();
    std::error_code ec;
    if (fs::is_regular_file(normal, ec)) return normal.string();
    looked += (looked.empty() ? "" : ", ") + normal.string();
  }
  return "";
}

// A Python 3 with matplotlib: $GPUVP_PYTHON, python3 on the PATH, or Debian's /usr/bin/python3
// (python3-matplotlib) when the first python3 lacks it (a virtualenv, pyenv). Used only to name
// the missing piece when the plot script is not installed.
std::string python() {
  if (const char* e = std::getenv("GPUVP_PYTHON")) return e;
  for (const char* p : {"python3", "/usr/bin/python3"})
    if (run_to_file({p, "-c", "import matplotlib"}, "/dev/null") == 0) return p;
  return "";
}

// Whether `name` (a path, or a program found on the PATH as execvp finds it) can be executed.
bool executable(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  const std::string dirs = std::string(path ? path : "/usr/local/bin:/usr/bin:/bin") + ":";
  for (size_t at = 0, c; (c = dirs.find(':', at)) != std::string::npos; at = c + 1) {
    const std::string dir = c > at ? dirs.substr(at, c - at) : ".";
    if (access((dir + "/" + name).c_str(), X_OK) == 0) return true;
  }
  return false;
}

// Runs the plot script on the Python that python() would choose, starting Python once for each
// Python tried: the script itself says that its Python has no matplotlib (exit 3, nothing
// printed), where asking each Python beforehand (`python3 -c "import matplotlib"`) would start
// Python and matplotlib a second time, about 0.6 s of CPU per sweep. $GPUVP_PYTHON is run as
// it is, without the question.
int run_script(std::vector<std::string> args, std::ostream& err) {
  std::string looked;
  const std::string script = plot_script(looked);
  if (script.empty()) {
    if (python().empty())
      err << "gpuvp plot: no python3 with matplotlib found (install python3-matplotlib, or set GPUVP_PYTHON)\n";
    else
      err << "gpuvp plot: the plot script gpuvp_plot.py is not installed (looked for " << looked
          << "; set GPUVP_PLOT_SCRIPT to its path)\n";
    return exit_usage;
  }
  if (const char* e = std::getenv("GPUVP_PYTHON")) {
    args.insert(args.begin(), {e, script});
    return run_to_file(args, "");
  }
  args.insert(args.begin(), {"", script, "--exit-3-without-matplotlib"});
  for (const char* py : {"python3", "/usr/bin/python3"}) {
    if (!executable(py)) continue;
    args[0] = py;
    const int rc = run_to_file(args, "");
    if (rc >= 0 && rc <= 2) return rc;  // the script's own answer: drawn, its fault, a usage error
    // Otherwise no matplotlib there (3), or that Python could not run the script at all.
  }
  err << "gpuvp plot: no python3 with matplotlib found (install python3-matplotlib, or set GPUVP_PYTHON)\n";
  return exit_usage;
}

}  // namespace

// The options are checked here (gpuvp's one parser); the script gets them spelt out again.
int main_plot(int argc, char** argv) {
  std::string dir, x, y, hue, kind;
  std::vector<std::string> maximize;
  tool_args a("plot", "DIR [--x COLUMN] [--y METRIC] [--hue PARAMETER] [--kind line|bar|heatmap|pareto] [--maximize METRIC]...",
              "Plots a sweep's results: DIR/plots/<y>-vs-<x>.png and .svg, DIR/report.html (docs/exploration.md).");
  a.text("x", x, "COLUMN", "parameter (or metric, for pareto) on the x axis; default: the first parameter")
      .text("y", y, "METRIC", "metric on the y axis; default: every metric, one plot each")
      .text("hue", hue, "PARAMETER", "parameter drawn as separate lines/bars; default: the second parameter")
      .text("kind", kind, "KIND", "line (default for a numeric x), bar (default otherwise), heatmap or pareto")
      .texts("maximize", maximize, "METRIC", "pareto: this metric is better when larger")
      .positional("DIR", dir, "the sweep's output folder (its results.csv)");
  if (int rc = a.parse(argc, argv); rc >= 0) return rc;
  if (a.given("kind") && kind != "line" && kind != "bar" && kind != "heatmap" && kind != "pareto")
    return a.usage_error("--kind " + kind + ": expected line, bar, heatmap or pareto");
  std::vector<std::string> args;
  for (const auto& [name, value] : {std::pair{"--x", &x}, {"--y", &y}, {"--hue", &hue}, {"--kind", &kind}})
    if (a.given(name + 2)) args.insert(args.end(), {name, *value});
  for (const auto& m : maximize) args.insert(args.end(), {"--maximize", m});
  args.insert(args.end(), {"--", dir});
  const int rc = run_script(args, std::cerr);
  return rc < 0 || rc > 2 ? exit_usage : rc;
}

void draw_default_plots(const std::string& out, std::ostream& err) {
  if (run_script({out}, err) != 0) err << "gpuvp sweep: warning: plots not drawn (see above); retry with gpuvp plot " << out << "\n";
}

}  // namespace gpuvp::sweep
