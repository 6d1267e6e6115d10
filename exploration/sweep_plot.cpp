// SPDX-License-Identifier: Apache-2.0
#include "sweep_plot.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <vector>
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
  std::string looked;
  const std::string script = plot_script(looked);
  if (script.empty()) {
    err << "gpuvp plot: the plot script gpuvp_plot.py is not installed (looked for " << looked << "; set GPUVP_PLOT_SCRIPT to its path)\n";
    return exit_usage;
  }
  args.insert(args.begin(), {py, script});
  return run_to_file(args, "");
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
