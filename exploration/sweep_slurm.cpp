// SPDX-License-Identifier: Apache-2.0
#include "sweep_slurm.h"

#include <csignal>
#include <cstdlib>
#include <unistd.h>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <nlohmann/json.hpp>
#include "gpuvp/config.h"
#include "gpuvp/text.h"
#include "sweep_results.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace gpuvp::sweep {

namespace {

std::string slurm_dir(const pool& p) { return (fs::path(p.out) / "slurm").string(); }

// DIR/slurm/jobs.json: [{job, batch, ids, resubmission}], checked (a damaged one is named).
json load_jobs(const pool& p) {
  const std::string file = slurm_dir(p) + "/jobs.json";
  std::error_code ec;
  if (!fs::exists(file, ec)) return json::array();
  const json j = json::parse(read_file(file), nullptr, false);
  namespace jr = json_read;
  if (j.is_discarded()) throw config_error(file + ": not readable JSON (a damaged sweep folder?)");
  for (const auto& e : jr::array(j, "jobs", file, max_points)) {
    const std::string job = jr::text(jr::field(e, "job", file), "job", file);
    if (job.empty() || job.find_first_not_of("0123456789") != std::string::npos)
      throw config_error(file + ": job: expected a Slurm job id, not '" + job + "' (a damaged sweep folder?)");
    for (const auto& id : jr::array(jr::field(e, "ids", file), "ids", file, max_points)) jr::integer(id, "ids", file, p.total - 1);
  }
  return j;
}

// "text" on one line: a Slurm command's output in a message.
std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

bool on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string d; std::getline(dirs, d, ':');)
    if (!d.empty() && access((fs::path(d) / name).c_str(), X_OK) == 0) return true;
  return false;
}

// Runs a Slurm command; its output (stdout and stderr) in `text`.
int slurm_command(const pool& p, std::vector<std::string> argv, std::string& text) {
  const std::string log = slurm_dir(p) + "/command-" + std::to_string(getpid()) + ".log";
  const int rc = run_to_file(argv, log);
  text = read_file(log);
  fs::remove(log);
  return rc;
}

std::string quote(const std::string& w) { return shell_quote(w, true); }

// Whether job `id` still has tasks in the queue; throws after a minute of failing squeue calls.
bool in_queue(const pool& p, const std::string& id, int& failures) {
  std::string text;
  const int rc = slurm_command(p, {"squeue", "-h", "-o", "%i", "-j", id}, text);
  if (rc == 0) {
    failures = 0;
    return text.find_first_not_of(" \n") != std::string::npos;
  }
  if (text.find("Invalid job id") != std::string::npos) return false;  // long gone from the controller
  if (++failures > 30)
    throw config_error("squeue keeps failing (" + one_line(text) + "); gather later with gpuvp sweep --collect " + p.out);
  return true;
}

// sacct's view of a job's tasks that did not complete (empty where accounting is off).
std::string sacct_failures(const pool& p, const std::string& id) {
  std::string text, out;
  if (slurm_command(p, {"sacct", "-n", "-P", "-X", "-j", id, "-o", "JobID,State,NodeList"}, text) != 0) return "";
  std::istringstream is(text);
  for (std::string line; std::getline(is, line);)
    if (!line.empty() && line.find("|COMPLETED|") == std::string::npos) out += "  " + line + "\n";
  return out;
}

// Sleeps poll_s, or less when SIGINT/SIGTERM arrives (returned).
int nap(double s) {
  sigset_t set, old;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigprocmask(SIG_BLOCK, &set, &old);
  timespec t{time_t(s), long((s - double(time_t(s))) * 1e9)};
  const int sig = sigtimedwait(&set, nullptr, &t);
  sigprocmask(SIG_SETMASK, &old, nullptr);
  return sig > 0 ? sig : 0;
}

}  // namespace

void check_slurm_commands() {
  for (const char* c : {"sbatch", "squeue"})
    if (!on_path(c))
      throw config_error(std::string("--backend slurm: ") + c +
                         " is not on the PATH (run the sweep where Slurm's commands are, or use --backend local)");
}

std::string slurm_submit(const pool& p, const std::vector<size_t>& ids, const slurm_options& o) {
  fs::create_directories(slurm_dir(p));
  json jobs = load_jobs(p);
  const std::string tag = std::to_string(jobs.size());
  // Points per task: as few as the array size allows, consecutive points together.
  const size_t chunk = (ids.size() + o.max_array - 1) / o.max_array;
  json tasks = json::array();
  for (size_t i = 0; i < ids.size(); i += chunk)
    tasks.push_back(std::vector<size_t>(ids.begin() + long(i), ids.begin() + long(std::min(ids.size(), i + chunk))));
  const std::string base = slurm_dir(p) + "/batch-" + tag;
  write_file_atomic(base + ".json", json({{"tasks", tasks}}).dump() + "\n");
  write_file_atomic(base + ".sh", "#!/bin/sh\n# gpuvp sweep: one array task runs the points listed in batch-" + tag +
                                      ".json under its index.\nexec " + quote(p.exe) + " sweep --worker " + quote(p.out) + " --batch " +
                                      tag + "\n");
  std::vector<std::string> argv = {"sbatch",
                                   "--parsable",
                                   "--job-name=gpuvp-sweep",
                                   "--array=0-" + std::to_string(tasks.size() - 1),
                                   "--output=" + base + "-%a.out",
                                   "--chdir=" + p.out};
  if (!o.partition.empty()) argv.push_back("--partition=" + o.partition);
  if (!o.time.empty()) argv.push_back("--time=" + o.time);
  if (!o.mem.empty()) argv.push_back("--mem=" + o.mem);
  if (!o.account.empty()) argv.push_back("--account=" + o.account);
  argv.push_back(base + ".sh");
  std::string text;
  const int rc = slurm_command(p, argv, text);
  const std::string id = text.substr(0, text.find_first_of(";\n"));
  if (rc != 0 || id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
    throw config_error("sbatch failed (exit " + std::to_string(rc) + "): " + one_line(text) +
                       " (is the cluster reachable? the sweep folder is kept: --resume continues it)");
  // A point goes back to Slurm once: the batches after the first submission of a point.
  bool again = false;
  for (const auto& j : jobs)
    for (size_t id0 : j["ids"].get<std::vector<size_t>>())
      if (id0 == ids.front()) again = true;
  jobs.push_back({{"job", id}, {"batch", tag}, {"ids", ids}, {"resubmission", again}});
  write_file_atomic(slurm_dir(p) + "/jobs.json", jobs.dump(1) + "\n");
  return id;
}

std::vector<size_t> slurm_wait(pool& p, const slurm_options& o, int& interrupted) {
  interrupted = 0;
  int failures = 0;
  for (;;) {
    const json jobs = load_jobs(p);
    bool active = false;
    for (const auto& j : jobs) active = in_queue(p, j["job"].get<std::string>(), failures) || active;
    if (active) {
      if ((interrupted = nap(o.poll_s))) return {};
      continue;
    }
    // Every job has left the queue: points without a result lost their task (node failure,
    // time limit, cancellation). Each goes back once.
    std::map<size_t, int> submissions;
    for (const auto& j : jobs)
      for (size_t id : j["ids"].get<std::vector<size_t>>()) ++submissions[id];
    std::vector<size_t> retry, lost;
    std::string why;
    for (const auto& [id, n] : submissions)
      if (!read_result(point_dir(p.out, id, p.total))) (n < 2 ? retry : lost).push_back(id);
    if (!retry.empty() || !lost.empty())
      for (const auto& j : jobs) why += sacct_failures(p, j["job"].get<std::string>());
    if (!retry.empty()) {
      std::cerr << "gpuvp sweep: " << retry.size() << " point(s) lost their Slurm task; re-submitting them once\n" << why;
      const std::string job = slurm_submit(p, retry, o);
      std::cerr << "gpuvp sweep: re-submitted as job " << job << "\n";
      continue;
    }
    if (!lost.empty())
      std::cerr << "gpuvp sweep: " << lost.size() << " point(s) have no result after a re-submission (see " << slurm_dir(p)
                << "/batch-*.out); continue later with gpuvp sweep --collect or --resume\n"
                << why;
    return lost;
  }
}

int slurm_worker(const std::string& out, const std::string& batch, long task) {
  pool p;
  commands cmds;
  std::string backend;
  p.out = out;
  const spec s = load_manifest(out, cmds, p.wall_limit_s, backend);
  p.exe = self_exe();
  p.total = s.points.size();
  p.progress = false;
  if (batch.empty() || batch.find_first_not_of("0123456789") != std::string::npos)
    throw config_error("--batch " + batch + ": expected a batch number");
  const std::string file = slurm_dir(p) + "/batch-" + batch + ".json";
  namespace jr = json_read;
  const json b = jr::object_file(file, "Slurm batch");
  const json& tasks = jr::array(jr::field(b, "tasks", file), "tasks", file, max_points);
  if (task < 0 || size_t(task) >= tasks.size()) throw config_error(out + ": batch " + batch + " has no task " + std::to_string(task));
  std::vector<size_t> ids;
  for (const auto& id : jr::array(tasks[size_t(task)], "tasks", file, max_points))
    if (const size_t i = jr::integer(id, "tasks", file, p.total - 1); !read_result(point_dir(out, i, p.total))) ids.push_back(i);
  const int sig = run_points(p, ids, cmds);
  return sig ? 128 + sig : 0;
}

}  // namespace gpuvp::sweep
