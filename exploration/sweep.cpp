// SPDX-License-Identifier: Apache-2.0
// `gpuvp sweep`: runs the points of a sweep specification as separate `gpuvp run` processes,
// locally or on Slurm, and tabulates their metrics (docs/formats/sweep.md, docs/exploration.md).
#include "sweep.h"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <thread>
#include <nlohmann/json.hpp>
#include "cli.h"
#include "gpuvp/config.h"
#include "gpuvp/registry.h"
#include "gpuvp/text.h"
#include "gpuvp/tool_args.h"
#include "run_control.h"
#include "sweep_check.h"
#include "sweep_plot.h"
#include "sweep_results.h"
#include "sweep_run.h"
#include "sweep_slurm.h"
#include "sweep_spec.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace gpuvp::sweep {

namespace {

bool is_workload_name(const std::string& w) { return w == "traffic" || registry::global().find_embedded_workload(w) != nullptr; }

// The most --point-wall-limit: the most gpuvp run's --wall-limit takes (max_time(), in whole seconds).
double max_wall_limit_s() { return std::floor(max_time().to_seconds()); }

// --point-wall-limit S as the point's --wall-limit (with its unit, as gpuvp run reads it).
std::string wall_limit_arg(double s) { return format_number(s) + "s"; }

// Each point's run gets the per-point wall-clock limit as its own --wall-limit: it then ends by
// itself with complete statistics and a modelled error naming the limit (the driver's SIGTERM is
// only a backstop, 30 s later).
commands make_commands(const spec& s, const std::string& out, double wall_limit) {
  commands c;
  for (size_t i = 0; i < s.points.size(); ++i) {
    c.push_back(point_args(s, i, point_dir(out, i, s.points.size()) + "/stats.json"));
    if (wall_limit > 0) c.back().insert(c.back().begin() + 1, {"--wall-limit", wall_limit_arg(wall_limit)});
  }
  return c;
}

// DIR/sweep.json: what --resume, --collect, the Slurm tasks and `gpuvp plot` need, so that none
// of them reads the spec again.
void write_manifest(const std::string& out, const spec& s, const commands& c, double wall_limit, const std::string& backend) {
  json params = json::array(), metrics = json::array();
  for (const auto& p : s.parameters) params.push_back(p.key);
  for (const auto& m : s.metrics) metrics.push_back({{"name", m.name}, {"path", m.path}});
  write_file_atomic((fs::path(out) / "sweep.json").string(), json({{"spec", fs::absolute(s.file).string()},
                                                                   {"spec_sha256", s.sha256},
                                                                   {"backend", backend},
                                                                   {"wall_limit_s", wall_limit},
                                                                   {"parameters", params},
                                                                   {"metrics", metrics},
                                                                   {"points", s.points},
                                                                   {"commands", c}})
                                                                     .dump(1) +
                                                                 "\n");
}

}  // namespace

spec load_manifest(const std::string& out, commands& c, double& wall_limit, std::string& backend) {
  const std::string file = (fs::path(out) / "sweep.json").string();
  std::error_code ec;
  if (!fs::exists(file, ec)) throw config_error(out + ": no sweep here (no sweep.json)");
  namespace jr = json_read;
  const json j = jr::object_file(file, "sweep manifest");
  spec s;
  s.file = jr::text(jr::field(j, "spec", file), "spec", file);
  s.sha256 = jr::text(jr::field(j, "spec_sha256", file), "spec_sha256", file);
  for (const auto& p : jr::texts(jr::field(j, "parameters", file), "parameters", file, max_points)) s.parameters.push_back({p, {}, {}});
  for (const auto& m : jr::array(jr::field(j, "metrics", file), "metrics", file, max_points)) {
    const std::string what = "metrics[" + std::to_string(s.metrics.size()) + "]";
    const std::string path = jr::text(jr::field(m, "path", file), what + ".path", file);
    if (path.size() > max_metric_path)
      throw config_error(file + ": " + what + ".path: longer than " + std::to_string(max_metric_path) + " characters");
    s.metrics.push_back({jr::text(jr::field(m, "name", file), what + ".name", file), path});
  }
  for (const auto& pt : jr::array(jr::field(j, "points", file), "points", file, max_points)) {
    const std::string what = "points[" + std::to_string(s.points.size()) + "]";
    s.points.push_back(jr::texts(pt, what, file, s.parameters.size()));
    if (s.points.back().size() != s.parameters.size())
      throw config_error(file + ": " + what + ": " + std::to_string(s.points.back().size()) + " values for " +
                         std::to_string(s.parameters.size()) + " parameters (a damaged sweep folder?)");
  }
  if (s.points.empty()) throw config_error(file + ": points: empty (a damaged sweep folder?)");
  const json& cs = jr::array(jr::field(j, "commands", file), "commands", file, max_points);
  if (cs.size() != s.points.size())
    throw config_error(file + ": " + std::to_string(cs.size()) + " commands for " + std::to_string(s.points.size()) +
                       " points (a damaged sweep folder?)");
  c.clear();
  for (const auto& cmd : cs) {
    const std::string what = "commands[" + std::to_string(c.size()) + "]";
    c.push_back(jr::texts(cmd, what, file, 100000));
    if (c.back().empty() || c.back()[0] != "run") throw config_error(file + ": " + what + ": expected a `gpuvp run` command line");
  }
  wall_limit = jr::number(jr::field(j, "wall_limit_s", file), "wall_limit_s", file, 0, max_wall_limit_s());
  backend = jr::text(jr::field(j, "backend", file), "backend", file);
  if (backend != "local" && backend != "slurm") throw config_error(file + ": backend: expected local or slurm, not '" + backend + "'");
  return s;
}

namespace {

// Every metric must be in the first point's statistics (when it wrote any).
void check_metrics(const spec& s, const std::string& out) {
  const std::string pdir = point_dir(out, 0, s.points.size());
  const auto stats = load_stats(pdir + "/stats.json");
  if (stats.empty()) {
    std::cerr << "gpuvp sweep: warning: the first point wrote no statistics (see " << pdir << "/log); metrics not checked\n";
    return;
  }
  std::string errors;
  for (const auto& m : s.metrics) {
    if (metric_cell(stats, m.path)) continue;
    errors += "\n  metric " + m.name + ": no statistic '" + m.path + "' in the first point";
    // Hint: statistics sharing the path's first segment.
    const std::string head = m.path.substr(0, m.path.find('.') + 1);
    int shown = 0;
    for (const auto& [k, v] : stats)
      if (k.rfind(head, 0) == 0 && shown++ < 5) errors += (shown == 1 ? " (there are: " : ", ") + k;
    if (shown) errors += shown > 5 ? ", ...)" : ")";
  }
  if (!errors.empty())
    throw config_error(s.file + ": metric paths missing" + errors + "\n  (the statistics are in " + pdir +
                       "/stats.json; fix the spec and continue with --resume)");
}

std::vector<size_t> unfinished(const pool& p, size_t from = 0) {
  std::vector<size_t> ids;
  for (size_t i = from; i < p.total; ++i)
    if (!read_result(point_dir(p.out, i, p.total))) ids.push_back(i);
  return ids;
}

void count_finished(pool& p) {
  p.done = p.failed = 0;
  for (size_t i = 0; i < p.total; ++i)
    if (auto r = read_result(point_dir(p.out, i, p.total))) ++p.done, p.failed += r->exit_code != 0;
}

int finish(pool& p, const spec& s, bool plots) {
  const size_t done = write_tables(p.out, s);
  std::cerr << "gpuvp sweep: " << done << " of " << p.total << " points finished, " << p.failed << " failed: " << p.out << "/results.csv\n";
  if (plots && done == p.total) draw_default_plots(p.out, std::cerr);
  // A point that gpuvp run refused (exit 2: its configuration or input) makes the sweep's exit 2.
  size_t refused = 0;
  for (size_t i = 0; i < p.total; ++i)
    if (auto r = read_result(point_dir(p.out, i, p.total)); r && r->exit_code == exit_usage) ++refused;
  if (refused) {
    std::cerr << "gpuvp sweep: " << refused << " point(s) failed on a configuration or input error (exit 2; see the error "
              << "column of " << p.out << "/results.csv)\n";
    return exit_usage;
  }
  return done == p.total ? exit_ok : exit_modelled_error;
}

int interrupted_exit(pool& p, const spec& s, int sig) {
  write_tables(p.out, s);
  std::cerr << "gpuvp sweep: interrupted; " << p.done << " of " << p.total << " points finished. Continue with: gpuvp sweep " << s.file
            << " --out " << p.out << " --resume\n";
  return 128 + sig;
}

struct sweep_options {
  std::string spec_file, out, backend = "local", collect, worker, batch;
  size_t jobs = std::max(1u, std::thread::hardware_concurrency());
  double wall_limit = 3600;
  long task = -1;
  bool resume = false, dry_run = false, no_wait = false, no_plot = false;
  slurm_options so;
};

void declare_sweep_options(tool_args& args, sweep_options& o) {
  slurm_options& so = o.so;
  args.text("out", o.out, "DIR", "output folder (default: <spec name>-sweep)")
      .number("jobs,j", o.jobs, "N", "points run at a time (local backend; default: the number of cores)", size_t(1), size_t(4096))
      .text("backend", o.backend, "NAME", "local | slurm")
      .flag("resume", o.resume, "continue a sweep in --out: run only the points without a result")
      .flag("dry-run", o.dry_run, "list the points and their commands, run nothing")
      .real("point-wall-limit", o.wall_limit, "S", "wall-clock seconds per point before it is stopped (0: none; default and most: 3600)", 0,
            max_wall_limit_s())
      .flag("no-plot", o.no_plot, "do not draw the default plots at the end")
      .text("partition", so.partition, "P", "slurm: partition")
      .text("time", so.time, "T", "slurm: time limit per array task (sbatch --time)")
      .text("mem", so.mem, "M", "slurm: memory per array task (sbatch --mem)")
      .text("account", so.account, "A", "slurm: account")
      .number("max-array", so.max_array, "N", "slurm: most array tasks per job (more points share tasks; default 1000)", size_t(1),
              size_t(1000000))
      .flag("no-wait", o.no_wait, "slurm: return once submitted; gather with --collect DIR")
      .text("collect", o.collect, "DIR", "wait for and tabulate the sweep in DIR (after --no-wait or an interruption)")
      .positional("SPEC.yaml", o.spec_file, "the sweep specification (docs/formats/sweep.md)", false);
  // The Slurm array tasks' own command line (sweep_slurm.cpp), and the driver's poll interval.
  args.hidden().text("worker", o.worker, "DIR", "").hidden().text("batch", o.batch, "FILE", "");
  args.hidden().number("task", o.task, "N", "", -1l, std::numeric_limits<long>::max());
  args.hidden().real("poll", so.poll_s, "S", "", 0.1, 600);
}

// Returns the exit status of a usage error, or -1.
int check_sweep_options(const tool_args& args, const sweep_options& o) {
  if (o.backend != "local" && o.backend != "slurm") return args.usage_error("--backend " + o.backend + ": expected local or slurm");
  if (o.wall_limit > 0) {  // the range gpuvp run accepts for each point's --wall-limit
    try {
      parse_wall_limit(wall_limit_arg(o.wall_limit));
    } catch (const config_error& e) {
      return args.usage_error("--point-wall-limit " + format_number(o.wall_limit) + ": " + e.what());
    }
  }
  return -1;
}

// --collect DIR: waits for (Slurm) and tabulates the sweep in DIR.
int collect_sweep(pool& p, const sweep_options& o) {
  commands cmds;
  std::string backend = o.backend;  // the manifest's
  p.out = fs::absolute(o.collect).lexically_normal().string();
  const spec s = load_manifest(p.out, cmds, p.wall_limit_s, backend);
  if (backend == "slurm") check_slurm_commands();
  const folder_lock lock(p.out);
  p.total = s.points.size();
  count_finished(p);
  if (backend == "slurm") {
    int sig = 0;
    slurm_wait(p, o.so, sig);
    if (sig) return interrupted_exit(p, s, sig);
    count_finished(p);
  }
  return finish(p, s, !o.no_plot);
}

// --dry-run: the points and their commands.
int print_dry_run(const pool& p, const spec& s, const commands& cmds) {
  std::cout << s.points.size() << " points (" << s.combine << "), output " << p.out << "\n";
  for (size_t i = 0; i < s.points.size(); ++i) {
    std::cout << "point " << i << ":";
    for (size_t k = 0; k < s.parameters.size(); ++k) std::cout << " " << s.parameters[k].key << "=" << s.points[i][k];
    std::cout << "\n  " << shell_quote(p.exe);
    for (const auto& a : cmds[i]) std::cout << " " << shell_quote(a);
    std::cout << "\n";
  }
  return exit_ok;
}

// A sweep already in the output folder is continued only with --resume, and only from the same
// specification.
void check_resume(const std::string& out, const spec& s, bool resume) {
  if (!fs::exists((fs::path(out) / "sweep.json").string())) return;
  if (!resume) throw config_error(out + " already holds a sweep: continue it with --resume, or choose another --out");
  commands old_cmds;
  double old_limit;
  std::string old_backend;
  const spec old = load_manifest(out, old_cmds, old_limit, old_backend);
  if (old.sha256 != s.sha256)
    throw config_error(out + " was made from a different sweep specification (" + old.file + ", sha256 " + old.sha256.substr(0, 12) +
                       "...; " + s.file + " gives " + s.sha256.substr(0, 12) + "...): refusing to resume; choose another --out");
}

// Every point, -j at a time; the first point's statistics must hold every metric (checked when it ends).
int run_local(pool& p, const spec& s, const commands& cmds, bool plots) {
  // The first point's statistics must hold every metric: checked as soon as it has its result,
  // while the other points already run (they are stopped if a metric is missing).
  const bool first_done = read_result(point_dir(p.out, 0, p.total)).has_value();
  if (first_done) check_metrics(s, p.out);
  const int sig = run_points(
      p, unfinished(p), cmds, first_done ? std::function<void()>{} : [&] { check_metrics(s, p.out); });
  if (sig) return interrupted_exit(p, s, sig);
  return finish(p, s, plots);
}

// The same on Slurm: the first point as a job of its own, then the rest as a job array.
int run_slurm(pool& p, const spec& s, const sweep_options& o) {
  int sig = 0;
  if (!read_result(point_dir(p.out, 0, p.total))) {
    const std::string job = slurm_submit(p, {0}, o.so);  // (throws before anything is printed)
    std::cerr << "gpuvp sweep: submitted the first point as job " << job << "\n";
    slurm_wait(p, o.so, sig);
    if (sig) return interrupted_exit(p, s, sig);
  }
  check_metrics(s, p.out);
  const auto rest = unfinished(p);
  if (!rest.empty()) {
    const std::string job = slurm_submit(p, rest, o.so);
    std::cerr << "gpuvp sweep: submitted " << rest.size() << " points as job array " << job << "\n";
    if (o.no_wait) {
      std::cerr << "gpuvp sweep: gather the results with: gpuvp sweep --collect " << p.out << "\n";
      return exit_ok;
    }
    slurm_wait(p, o.so, sig);
    if (sig) return interrupted_exit(p, s, sig);
  }
  count_finished(p);
  return finish(p, s, !o.no_plot);
}

int main_sweep(int argc, char** argv) {
  sweep_options o;
  tool_args args("sweep", "SPEC.yaml [--out DIR] [-j N] [--backend local|slurm] [--resume] [--dry-run] | --collect DIR",
                 "Runs the points of a sweep specification and tabulates their metrics (docs/exploration.md).");
  declare_sweep_options(args, o);
  if (int rc = args.parse(argc, argv); rc >= 0) return rc;
  if (!o.worker.empty()) {
    if (o.task < 0 && std::getenv("SLURM_ARRAY_TASK_ID")) o.task = std::atol(std::getenv("SLURM_ARRAY_TASK_ID"));
    return slurm_worker(o.worker, o.batch, o.task);
  }
  if (int rc = check_sweep_options(args, o); rc >= 0) return rc;

  pool p;
  p.exe = self_exe();
  p.jobs = o.jobs;
  if (!o.collect.empty()) return collect_sweep(p, o);
  if (o.spec_file.empty()) return args.usage_error("missing SPEC.yaml (or --collect DIR)");
  if (o.backend == "slurm") check_slurm_commands();
  const spec s = load_spec(o.spec_file, is_workload_name);
  check_configurations(s);
  const std::string out = o.out.empty() ? fs::path(o.spec_file).stem().string() + "-sweep" : o.out;
  p.out = fs::absolute(out).lexically_normal().string();
  p.total = s.points.size();
  p.wall_limit_s = o.wall_limit;
  const commands cmds = make_commands(s, p.out, o.wall_limit);
  if (o.dry_run) return print_dry_run(p, s, cmds);

  // Locked before the folder is read: a second sweep (a --resume while this one runs) is refused.
  fs::create_directories(p.out);
  const folder_lock lock(p.out);
  check_resume(p.out, s, o.resume);
  fs::create_directories(fs::path(p.out) / "points");
  write_manifest(p.out, s, cmds, o.wall_limit, o.backend);
  count_finished(p);
  return o.backend == "local" ? run_local(p, s, cmds, !o.no_plot) : run_slurm(p, s, o);
}

}  // namespace

}  // namespace gpuvp::sweep

namespace gpuvp {
void register_sweep_commands() {
  static bool done = false;
  if (done) return;
  done = true;
  registry::global().add_tool({"sweep", "run a design-space sweep (SPEC.yaml) locally or on Slurm; tables and plots", sweep::main_sweep});
  registry::global().add_tool({"plot", "plot a sweep's results: gpuvp plot DIR [--x] [--y] [--hue] [--kind]", sweep::main_plot});
}
}  // namespace gpuvp
