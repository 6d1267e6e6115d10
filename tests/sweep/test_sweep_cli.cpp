// SPDX-License-Identifier: Apache-2.0
// `gpuvp sweep` end to end: each test runs build/gpuvp as a user would (the sweep starts its
// points as separate processes of that program) on tiny traffic workloads.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>
#include <gtest/gtest.h>

namespace fs = std::filesystem;

namespace {
std::string env(const char* n, const char* def) { return std::getenv(n) ? std::getenv(n) : def; }
const std::string gpuvp = env("GPUVP_BINARY_DIR", GPUVP_BINARY_DIR_FALLBACK) + "/gpuvp";
const std::string data = env("GPUVP_SOURCE_DIR", GPUVP_SOURCE_DIR_FALLBACK) + "/tests/sweep/data";

struct result {
  int rc;
  std::string out;  // stdout and stderr
};
result sh(const std::string& args0) {
  const bool command = args0.rfind("sweep ", 0) == 0 || args0.rfind("run ", 0) == 0 || args0.rfind("config ", 0) == 0;
  const std::string args = command ? args0 : "sweep " + args0;
  result r;
  FILE* p = popen((gpuvp + " " + args + " 2>&1").c_str(), "r");
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = pclose(p);
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}
std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
// A fresh folder for one test.
std::string scratch(const std::string& name) {
  const std::string d = ::testing::TempDir() + "sweep-" + name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}
std::string write(const std::string& dir, const std::string& text) {
  const std::string f = dir + "/spec.yaml";
  std::ofstream(f) << text;
  return f;
}
const std::string small = "workload: traffic\nset:\n  traffic.g0.count: 60\n  traffic.g1.count: 30\n  traffic.g2.count: 20\n";
size_t lines(const std::string& s) { return size_t(std::count(s.begin(), s.end(), '\n')); }
}  // namespace

TEST(sweep_cli, grid_results_are_identical_for_any_job_count) {
  const std::string d = scratch("grid");
  auto a = sh(data + "/grid3x3.yaml --out " + d + "/a -j 2 --no-plot");
  ASSERT_EQ(a.rc, 0) << a.out;
  auto b = sh(data + "/grid3x3.yaml --out " + d + "/b -j 1 --no-plot");
  ASSERT_EQ(b.rc, 0) << b.out;
  const std::string csv = slurp(d + "/a/results.csv");
  EXPECT_EQ(csv, slurp(d + "/b/results.csv"));
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "point,interconnect.width,platform.quantum,sim_time,sysram_busy,transactions,exit_code,error");
  EXPECT_EQ(lines(csv), 10u);
  // Row 4 is the middle of the grid (width 16, quantum 1us). interconnect.*.transactions sums
  // the windows: sysram carries g0 + g1 = 90, vram g2 = 20, so 110 in every point.
  std::istringstream rows(csv);
  std::string row;
  for (int i = 0; i <= 5; ++i) std::getline(rows, row);
  EXPECT_EQ(row.rfind("4,16,1us,", 0), 0u) << row;
  EXPECT_NE(row.find(",110,0,"), std::string::npos) << row;
  EXPECT_EQ(lines(slurp(d + "/a/timing.csv")), 10u);
  EXPECT_TRUE(fs::exists(d + "/a/points/0008/stats.json"));
  EXPECT_TRUE(fs::exists(d + "/a/points/0008/log"));
  EXPECT_NE(slurp(d + "/a/points/0008/stats.json").find("\"config_sha256\""), std::string::npos);
}

TEST(sweep_cli, run_metadata_hashes_the_configuration_as_config_dump_prints_it) {
  const std::string d = scratch("meta");
  const std::string sets = " --workload traffic --set traffic.g0.count=60 --set traffic.g1.count=30 --set traffic.g2.count=20";
  ASSERT_EQ(sh("run" + sets + " --set platform.quantum=10us -q --stats " + d + "/s.json").rc, 0);
  auto dump = sh("config dump" + sets + " --set platform.quantum=10us");
  ASSERT_EQ(dump.rc, 0) << dump.out;
  std::ofstream(d + "/dump.yaml") << dump.out;
  FILE* p = popen(("sha256sum " + d + "/dump.yaml").c_str(), "r");
  char hex[65] = {};
  ASSERT_EQ(fread(hex, 1, 64, p), 64u);
  pclose(p);
  const std::string j = slurp(d + "/s.json");
  EXPECT_EQ(j.rfind("{\n  \"run\": {\n    \"version\": \"", 0), 0u) << j.substr(0, 200);
  EXPECT_NE(j.find("\"config_sha256\": \"" + std::string(hex) + "\""), std::string::npos) << j.substr(0, 600);
  EXPECT_NE(j.find("\"quantum_ps\": 10000000,"), std::string::npos);  // 10 us in ps
  EXPECT_NE(j.find("\"workload\": \"traffic\""), std::string::npos);
  EXPECT_NE(j.find("\"exit_code\": 0,"), std::string::npos);
  EXPECT_NE(j.find("\"errors\": []"), std::string::npos);
  EXPECT_NE(j.find("\"sim_time_ps\": "), std::string::npos);
}

TEST(sweep_cli, dry_run_lists_points_and_commands_and_runs_nothing) {
  const std::string d = scratch("dry");
  auto r = sh(data + "/grid3x3.yaml --out " + d + "/o --dry-run");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("9 points (grid)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("point 8: interconnect.width=32 platform.quantum=10us"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" run --wall-limit 3600s --workload traffic --set traffic.g0.count=60"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--set platform.quantum=10us --stats " + d + "/o/points/0008/stats.json"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(d + "/o"));
}

TEST(sweep_cli, unknown_spec_key_is_named_before_anything_runs) {
  const std::string d = scratch("key");
  auto r = sh(write(d, small + "paramters:\n  interconnect.width: [8]\n") + " --out " + d + "/o");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find("spec.yaml:6: sweep specification: unknown key 'paramters'"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(d + "/o"));
}

TEST(sweep_cli, unknown_parameter_is_named_before_any_point_runs) {
  const std::string d = scratch("param");
  auto r = sh(write(d, small + "parameters:\n  interconnect.widht: [8, 16]\n") + " --out " + d + "/o");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find("unknown configuration key 'interconnect.widht' (did you mean 'interconnect.width'?)"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(d + "/o/points/0000/result.json"));
}

TEST(sweep_cli, missing_metric_is_named_after_the_first_point_only) {
  const std::string d = scratch("metric");
  auto r = sh(write(d, small + "parameters:\n  interconnect.width: [8, 16]\nmetrics:\n  busy: interconnect.sysram.bsuy\n") + " --out " + d +
              "/o --no-plot -j 1");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find("metric busy: no statistic 'interconnect.sysram.bsuy' in the first point"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(d + "/o/points/0000/result.json"));
  EXPECT_FALSE(fs::exists(d + "/o/points/0001"));
}

// With -j 3 the other points start beside the first; its missing metric stops them (no result,
// so --resume runs them again after the spec is fixed) long before they would have ended.
TEST(sweep_cli, missing_metric_stops_the_points_running_beside_the_first) {
  const std::string d = scratch("metric3");
  const std::string spec = write(d,
                                 "workload: traffic\nparameters:\n  traffic.g0.count: [20, 400000000, 400000000]\n"
                                 "metrics:\n  busy: interconnect.sysram.bsuy\n");
  const auto t0 = std::chrono::steady_clock::now();
  auto r = sh(spec + " --out " + d + "/o --no-plot -j 3");
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("metric busy: no statistic 'interconnect.sysram.bsuy' in the first point"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(d + "/o/points/0000/result.json"));
  EXPECT_TRUE(fs::exists(d + "/o/points/0001/log"));  // it started beside the first
  EXPECT_FALSE(fs::exists(d + "/o/points/0001/result.json"));
  EXPECT_FALSE(fs::exists(d + "/o/points/0002/result.json"));
  EXPECT_LT(took, 20.0) << "the long points were not stopped";
}

TEST(sweep_cli, failed_points_are_recorded_and_the_sweep_goes_on) {
  const std::string d = scratch("fail");
  // Point 1 sends g0 to a hole in the address map (modelled error, exit 1); the others succeed.
  // (A configuration error is refused before anything runs: every_bad_parameter_value_is_named...)
  auto r = sh(write(d, small + "parameters:\n  traffic.g0.base: ['0x0', '0x300000000', '0x0']\n  interconnect.width: [32, 32, 16]\n"
                               "combine: zip\n") +
              " --out " + d + "/o --no-plot");
  ASSERT_EQ(r.rc, 0) << r.out;
  std::istringstream rows(slurp(d + "/o/results.csv"));
  std::string header, p0, p1, p2;
  std::getline(rows, header), std::getline(rows, p0), std::getline(rows, p1), std::getline(rows, p2);
  EXPECT_NE(p0.find(",0,"), std::string::npos) << p0;
  EXPECT_NE(p1.find(",1,traffic: g0: 60 transactions answered with an error"), std::string::npos) << p1;
  EXPECT_EQ(p2.substr(p2.size() - 3), ",0,") << p2;
  EXPECT_NE(r.out.find("3 of 3 points finished, 1 failed"), std::string::npos) << r.out;
}

// The text of a run's statistics or log without its host figures (wall time, host speed) and
// without AddressSanitizer's notice that it cannot follow SystemC's thread stacks in a forked
// child (sanitized builds only: sanitizers/issues/189).
std::string simulated_only(const std::string& text) {
  std::istringstream in(text);
  std::string out;
  for (std::string l; std::getline(in, l);) {
    if (l.find("ASan is ignoring requested __asan_handle_no_return") != std::string::npos) {
      std::getline(in, l), std::getline(in, l);  // "False positive error reports may follow", "For details see ..."
      continue;
    }
    if (l.find("wall_s") == std::string::npos && l.find("wall time") == std::string::npos &&
        l.find("simulation speed") == std::string::npos && l.find("\"host_") == std::string::npos)
      out += l + "\n";
  }
  return out;
}

// Points run in a forked copy of the driver, after its configuration check elaborated other
// configurations in the same program: each point's statistics and log are those of the same
// `gpuvp run` as a process of its own (its command from --dry-run), on workloads of several
// models, a point that ends in a modelled error included.
TEST(sweep_cli, a_point_gives_what_the_same_gpuvp_run_gives_alone) {
  const std::string d = scratch("alone");
  const std::vector<std::string> specs = {
      small + "parameters:\n  traffic.g0.base: ['0x0', '0x300000000']\n  interconnect.width: [32, 16]\ncombine: zip\n",
      "workload: agx-axi2af\nparameters:\n  platform.quantum: [1us, 100ns]\n",
      "workload: pfifo-default\nparameters:\n  platform.quantum: [1us, 10us]\n"};
  for (size_t k = 0; k < specs.size(); ++k) {
    const std::string dir = d + "/" + std::to_string(k);
    fs::create_directories(dir);
    const std::string spec = write(dir, specs[k]);
    auto r = sh(spec + " --out " + dir + "/o --no-plot");
    ASSERT_EQ(r.rc, 0) << r.out;
    auto dry = sh(spec + " --out " + dir + "/o --dry-run");
    ASSERT_EQ(dry.rc, 0) << dry.out;
    std::istringstream lines_in(dry.out);
    size_t point = 0;
    for (std::string l; std::getline(lines_in, l);) {
      const size_t at = l.find(" run ");
      if (l.rfind("  ", 0) != 0 || at == std::string::npos) continue;
      // The same command with its statistics elsewhere.
      std::string cmd = l.substr(at + 1);
      const std::string pdir = dir + "/o/points/000" + std::to_string(point);
      const size_t stats = cmd.find(pdir + "/stats.json");
      ASSERT_NE(stats, std::string::npos) << cmd;
      cmd.replace(stats, pdir.size() + 11, dir + "/alone.json");
      auto alone = sh(cmd);
      EXPECT_EQ(simulated_only(slurp(dir + "/alone.json")), simulated_only(slurp(pdir + "/stats.json"))) << cmd;
      EXPECT_EQ(simulated_only(alone.out), simulated_only(slurp(pdir + "/log"))) << cmd;
      EXPECT_EQ(std::to_string(alone.rc), slurp(pdir + "/result.json").substr(slurp(pdir + "/result.json").find("\"exit_code\": ") + 13, 1))
          << cmd;
      ++point;
    }
    EXPECT_EQ(point, 2u) << dry.out;
  }
}

TEST(sweep_cli, resume_refuses_another_spec_and_an_existing_folder_without_resume) {
  const std::string d = scratch("resume");
  const std::string spec = write(d, small + "parameters:\n  interconnect.width: [8, 16]\n");
  ASSERT_EQ(sh(spec + " --out " + d + "/o --no-plot").rc, 0);
  auto again = sh(spec + " --out " + d + "/o --no-plot");
  EXPECT_EQ(again.rc, 2);
  EXPECT_NE(again.out.find("already holds a sweep: continue it with --resume"), std::string::npos) << again.out;
  auto same = sh(spec + " --out " + d + "/o --no-plot --resume");
  EXPECT_EQ(same.rc, 0) << same.out;
  write(d, small + "parameters:\n  interconnect.width: [8, 32]\n");
  auto other = sh(spec + " --out " + d + "/o --no-plot --resume");
  EXPECT_EQ(other.rc, 2);
  EXPECT_NE(other.out.find("was made from a different sweep specification"), std::string::npos) << other.out;
}

TEST(sweep_cli, killed_sweep_resumes_to_the_same_results) {
  const std::string d = scratch("kill");
  ASSERT_EQ(sh(data + "/grid3x3.yaml --out " + d + "/whole -j 2 --no-plot").rc, 0);
  // Start the same sweep, SIGKILL the driver once three points have finished (its running
  // points die with it), then resume.
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string out = d + "/cut", spec = data + "/grid3x3.yaml", log = d + "/cut.log";
    freopen(log.c_str(), "w", stderr);
    execl(gpuvp.c_str(), gpuvp.c_str(), "sweep", spec.c_str(), "--out", out.c_str(), "-j", "2", "--no-plot", (char*)nullptr);
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!fs::exists(d + "/cut/points/0002/result.json") && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  ASSERT_TRUE(fs::exists(d + "/cut/points/0002/result.json"));
  EXPECT_FALSE(fs::exists(d + "/cut/points/0008/result.json")) << "the sweep finished before it was killed";
  auto r = sh(data + "/grid3x3.yaml --out " + d + "/cut -j 2 --no-plot --resume");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(slurp(d + "/cut/results.csv"), slurp(d + "/whole/results.csv"));
}

TEST(sweep_cli, collect_tabulates_a_folder_and_bad_options_are_usage_errors) {
  const std::string d = scratch("collect");
  ASSERT_EQ(sh(write(d, small + "parameters:\n  interconnect.width: [8]\n") + " --out " + d + "/o --no-plot").rc, 0);
  fs::remove(d + "/o/results.csv");
  auto r = sh("sweep --collect " + d + "/o --no-plot");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(lines(slurp(d + "/o/results.csv")), 2u);
  EXPECT_EQ(sh("sweep --collect " + d + "/nothing").rc, 2);
  EXPECT_EQ(sh("sweep " + data + "/grid3x3.yaml -j 0").rc, 2);
  EXPECT_EQ(sh("sweep " + data + "/grid3x3.yaml --backend cloud").rc, 2);
}

// Issue 14: path values (the workload, `config`, and `set`/parameter values naming files, such as
// compute.config_files) are found relative to the spec's folder, so a spec runs from any
// directory. The shipped SM example runs from a scratch directory: every point succeeds and the
// two schedulers' option files reached the runs; the CSV shows the values as written.
TEST(sweep_cli, file_values_resolve_relative_to_the_spec_from_any_directory) {
  const std::string d = scratch("paths");
  const std::string src = env("GPUVP_SOURCE_DIR", GPUVP_SOURCE_DIR_FALLBACK);
  fs::create_directories(d + "/elsewhere");
  auto r = sh("sweep " + src + "/examples/sweeps/sm-scheduler.yaml --out " + d + "/o -j 2 --no-plot");
  // sh() runs from the test's directory; run again from a directory holding nothing of the spec.
  FILE* p =
      popen(("cd " + d + "/elsewhere && " + gpuvp + " sweep " + src + "/examples/sweeps/sm-scheduler.yaml --out ../o2 -j 2 --no-plot 2>&1")
                .c_str(),
            "r");
  std::string out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  ASSERT_EQ(pclose(p), 0) << out;
  ASSERT_EQ(r.rc, 0) << r.out;
  const std::string csv = slurp(d + "/o2/results.csv");
  EXPECT_EQ(csv, slurp(d + "/o/results.csv"));
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "point,compute.sms,compute.config_files,cycles,ipc,exit_code,error");
  EXPECT_EQ(lines(csv), 9u);
  EXPECT_NE(csv.find("\n7,8,sched-gto.config,"), std::string::npos) << csv;
  std::istringstream rows(csv);
  std::string row;
  std::getline(rows, row);
  while (std::getline(rows, row)) EXPECT_EQ(row.substr(row.size() - 3), ",0,") << row;  // exit 0, no error
  // The points' commands carry the absolute option file.
  const std::string manifest = slurp(d + "/o2/sweep.json");
  EXPECT_NE(manifest.find("compute.config_files=" + fs::path(src + "/examples/sweeps/sched-gto.config").lexically_normal().string()),
            std::string::npos)
      << manifest;
}

// Issue 29 items 2 and 16: a damaged sweep.json or result.json is named with the field (it was a
// SIGSEGV without `parameters`, and a bare nlohmann type_error for a wrongly typed value).
TEST(sweep_cli, damaged_sweep_folders_are_named_with_file_and_field) {
  const std::string d = scratch("damaged");
  ASSERT_EQ(sh(write(d, small + "parameters:\n  interconnect.width: [8, 16]\n") + " --out " + d + "/o --no-plot").rc, 0);
  const std::string manifest = slurp(d + "/o/sweep.json");
  auto edit = [&](const std::string& from, const std::string& to) {
    std::string m = manifest;
    const size_t at = m.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) m.replace(at, from.size(), to);
    std::ofstream(d + "/o/sweep.json") << m;
  };
  edit("\"parameters\"", "\"parameterz\"");
  auto r = sh("sweep --collect " + d + "/o --no-plot");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find(d + "/o/sweep.json: 'parameters' is missing"), std::string::npos) << r.out;
  edit("\"metrics\"", "\"metricz\"");
  r = sh("sweep --collect " + d + "/o --no-plot");
  EXPECT_NE(r.out.find(d + "/o/sweep.json: 'metrics' is missing"), std::string::npos) << r.out;
  edit("\"wall_limit_s\": 3600.0", "\"wall_limit_s\": \"3600\"");
  r = sh("sweep --collect " + d + "/o --no-plot");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find(d + "/o/sweep.json: wall_limit_s: expected a number in [0, 3600]"), std::string::npos) << r.out;
  edit("\"backend\": \"local\"", "\"backend\": \"cloud\"");
  r = sh("sweep --collect " + d + "/o --no-plot");
  EXPECT_NE(r.out.find("backend: expected local or slurm, not 'cloud'"), std::string::npos) << r.out;
  std::ofstream(d + "/o/sweep.json") << manifest;
  std::ofstream(d + "/o/points/0001/result.json") << "{\"exit_code\": \"0\", \"error\": \"\", \"wall_s\": 1, \"host\": \"h\"}\n";
  r = sh("sweep --collect " + d + "/o --no-plot");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find(d + "/o/points/0001/result.json: exit_code: expected an integer in [0, 255] (a damaged sweep folder?); delete it "
                           "to run the point again"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("json.exception"), std::string::npos) << r.out;
}

// Issue 29 item 9: a second sweep on a folder in use is refused with the first one's process id.
// The test holds the lock itself, as a running sweep does.
TEST(sweep_cli, a_folder_in_use_is_refused_with_the_owners_process_id) {
  const std::string d = scratch("lock");
  const std::string spec = write(d, small + "parameters:\n  interconnect.width: [8]\n");
  ASSERT_EQ(sh(spec + " --out " + d + "/o --no-plot").rc, 0);
  const int fd = open((d + "/o/sweep.lock").c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(flock(fd, LOCK_EX | LOCK_NB), 0);
  const std::string pid = std::to_string(getpid());
  ASSERT_EQ(ftruncate(fd, 0), 0);
  ASSERT_EQ(pwrite(fd, pid.data(), pid.size(), 0), ssize_t(pid.size()));
  auto r = sh(spec + " --out " + d + "/o --no-plot --resume");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find(d + "/o is in use by another gpuvp sweep (process " + pid + ")"), std::string::npos) << r.out;
  r = sh("sweep --collect " + d + "/o --no-plot");
  EXPECT_EQ(r.rc, 2);
  close(fd);  // released: the resume goes ahead
  r = sh(spec + " --out " + d + "/o --no-plot --resume");
  EXPECT_EQ(r.rc, 0) << r.out;
}

// Issue 29 item 8: the per-point limit has gpuvp run's --wall-limit range (it accepted 7200, and
// every point then failed with exit 2).
TEST(sweep_cli, point_wall_limit_has_the_range_of_the_points_wall_limit) {
  auto r = sh(data + "/grid3x3.yaml --point-wall-limit 7200 --dry-run");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find("--point-wall-limit"), std::string::npos) << r.out;
  r = sh(data + "/grid3x3.yaml --point-wall-limit 3600 --dry-run");
  EXPECT_EQ(r.rc, 0) << r.out;
  r = sh(data + "/grid3x3.yaml --point-wall-limit 0.5 --dry-run");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find(" run --wall-limit 0.5s --workload traffic"), std::string::npos) << r.out;
}

// Issue 33: every distinct value of every parameter is checked before anything runs, and every
// bad one is named (a bad third value once ran, failed its points and the sweep exited 0).
TEST(sweep_cli, every_bad_parameter_value_is_named_before_anything_runs) {
  const std::string d = scratch("values");
  // interconnect.width lies in [1, 4096]: 0 and 5000 are out of range, 8 and 16 are fine.
  auto r = sh(write(d, small + "parameters:\n  interconnect.width: [8, 16, 0, 5000]\n  platform.quantum: [1us, 10us, 1h]\n") + " --out " +
              d + "/o --no-plot");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("3 configurations of the sweep cannot run"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  interconnect.width=0:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  interconnect.width=5000:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  platform.quantum=1h:"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("interconnect.width=16:"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(d + "/o"));
  // --dry-run checks the same.
  EXPECT_EQ(sh(d + "/spec.yaml --dry-run").rc, 2);
  // A value that is no time gets the forms a time takes, once (the quoted message carries them).
  r = sh(write(d, small + "parameters:\n  platform.quantum: [1us, 3parsecs]\n") + " --dry-run");
  EXPECT_EQ(r.rc, 2) << r.out;
  const std::string forms = "a time is a number and a unit";
  const size_t first = r.out.find(forms);
  EXPECT_NE(first, std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(forms, first + 1), std::string::npos) << r.out;
}

// Issue 33: a sweep with a point that gpuvp run refused (exit 2) exits 2.
TEST(sweep_cli, a_point_refused_with_exit_2_makes_the_sweep_exit_2) {
  const std::string d = scratch("exit2");
  ASSERT_EQ(sh(write(d, small + "parameters:\n  interconnect.width: [8, 16]\n") + " --out " + d + "/o --no-plot").rc, 0);
  std::ofstream(d + "/o/points/0001/result.json") << "{\"exit_code\": 2, \"error\": \"bad\", \"wall_s\": 0.1, \"host\": \"h\"}\n";
  auto r = sh("sweep --collect " + d + "/o --no-plot");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("1 point(s) failed on a configuration or input error (exit 2"), std::string::npos) << r.out;
}

// Issue 33: --backend slurm without Slurm prints one clean error and writes nothing.
TEST(sweep_cli, slurm_without_a_cluster_is_one_clean_error) {
  const std::string d = scratch("noslurm");
  const std::string spec = write(d, small + "parameters:\n  interconnect.width: [8]\n");
  // An empty PATH: no sbatch anywhere.
  FILE* p = popen(("PATH=" + d + "/bin " + gpuvp + " sweep " + spec + " --out " + d + "/o --backend slurm 2>&1").c_str(), "r");
  std::string out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  EXPECT_EQ(WEXITSTATUS(pclose(p)), 2) << out;
  EXPECT_EQ(out,
            "gpuvp: configuration error: --backend slurm: sbatch is not on the PATH (run the sweep where Slurm's commands are, or use "
            "--backend local)\n");
  EXPECT_FALSE(fs::exists(d + "/o"));
  // An sbatch that cannot reach the controller (as Slurm prints it): its message on the error's line.
  fs::create_directories(d + "/bin");
  for (const char* c : {"sbatch", "squeue"}) {
    std::ofstream(d + "/bin/" + c) << "#!/bin/sh\necho 'sbatch: error: Batch job submission failed: Unable to contact slurm controller "
                                      "(connect failure)' >&2\nexit 1\n";
    fs::permissions(d + "/bin/" + c, fs::perms::owner_all);
  }
  p = popen(("PATH=" + d + "/bin:$PATH " + gpuvp + " sweep " + spec + " --out " + d + "/o --backend slurm 2>&1").c_str(), "r");
  out.clear();
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  EXPECT_EQ(WEXITSTATUS(pclose(p)), 2) << out;
  EXPECT_EQ(
      out,
      "gpuvp: configuration error: sbatch failed (exit 1): sbatch: error: Batch job submission failed: Unable to contact slurm controller "
      "(connect failure) (is the cluster reachable? the sweep folder is kept: --resume continues it)\n");
}
