// SPDX-License-Identifier: Apache-2.0
// Every option of every gpuvp command reaches its effect. `option_effect_tests` names, for each
// option that a command's --help prints, the test that shows the option changing the output the
// way its help line says; cli_options.every_option_has_an_effect_test fails on an option without
// a row, a row whose option no --help prints any more, and a row naming a test that does not exist.
// The tests here run the built program (build/gpuvp) as a user does, one process per run, so a
// test may compare several runs (the in-process runner allows one simulation per test under ASan).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>
#include <sys/wait.h>
#include <unistd.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include "cli_testing.h"
#include "testing.h"

namespace fs = std::filesystem;
using gpuvp::testing::binary_path;
using gpuvp::testing::slurp;
using gpuvp::testing::source_path;

namespace {

// command, option as --help prints it first ("-q", "--set"), "FILE: suite.test" (a gtest TEST in
// FILE, or a Python unittest method "FILE: Class.test_name").
struct option_row {
  const char *command, *option, *test;
};
const char* const self = "tests/platform/test_cli_options.cpp";
const option_row option_effect_tests[] = {
    {"run", "--platform", "tests/platform/test_cli_options.cpp: run_options.platform_elaborates_that_platform"},
    {"run", "--config", "tests/platform/test_cli_options.cpp: run_options.config_file_values_apply"},
    {"run", "--set", "tests/platform/test_cli_options.cpp: run_options.set_overrides_a_parameter"},
    {"run", "--workload", "tests/platform/test_cli_options.cpp: run_options.workload_chooses_what_runs"},
    {"run", "--stats", "tests/platform/test_cli_options.cpp: run_options.stats_file_agrees_with_the_report"},
    {"run", "--trace", "tests/platform/test_cli_options.cpp: run_options.trace_holds_the_generators_spans"},
    {"run", "--vcd", "tests/platform/test_cli.cpp: cli.vcd_file_holds_the_interrupt_signals"},
    {"run", "--rtl-trace", "tests/rtl_bridge/test_rtl_cosim.cpp: rtl_trace.rtl_copy_writes_an_fst"},
    {"run", "--quantum", "tests/platform/test_cli_options.cpp: run_options.quantum_is_the_reported_quantum"},
    {"run", "--time-limit", "tests/platform/test_cli_options.cpp: run_options.time_limit_stops_the_run"},
    {"run", "--wall-limit", "tests/platform/test_cli.cpp: cli.wall_limit_ends_a_run_with_complete_results"},
    {"run", "--log", "tests/platform/test_cli_options.cpp: run_options.log_debug_lists_each_transaction"},
    {"run", "-q", "tests/platform/test_cli_options.cpp: run_options.quiet_prints_no_report"},
    {"qtest", "--platform", "tests/platform/test_cli_options.cpp: qtest_options.platform_and_workload_choose_the_platform"},
    {"qtest", "--config", "tests/platform/test_cli_options.cpp: qtest_options.config_and_set_change_the_latency"},
    {"qtest", "--set", "tests/platform/test_cli_options.cpp: qtest_options.config_and_set_change_the_latency"},
    {"qtest", "--workload", "tests/platform/test_cli_options.cpp: qtest_options.platform_and_workload_choose_the_platform"},
    {"qtest", "--stats", "tests/platform/test_cli_options.cpp: qtest_options.output_files_record_the_session"},
    {"qtest", "--trace", "tests/platform/test_cli_options.cpp: qtest_options.output_files_record_the_session"},
    {"qtest", "--vcd", "tests/platform/test_cli_options.cpp: qtest_options.output_files_record_the_session"},
    {"qtest", "--rtl-trace", "tests/platform/test_cli_options.cpp: qtest_options.rtl_trace_writes_the_rtl_blocks_waves"},
    {"qtest", "--quantum", "tests/platform/test_cli_options.cpp: qtest_options.output_files_record_the_session"},
    {"qtest", "--time-limit", "tests/platform/test_cli_options.cpp: qtest_options.time_limit_fails_a_step_past_it"},
    {"qtest", "--log", "tests/platform/test_cli_options.cpp: qtest_options.output_files_record_the_session"},
    {"qtest", "--script", "tests/platform/test_cli_options.cpp: qtest_options.script_replaces_standard_input"},
    {"config dump", "--platform", "tests/platform/test_cli_options.cpp: config_options.each_option_shows_in_the_dump"},
    {"config dump", "--config", "tests/platform/test_cli_options.cpp: config_options.each_option_shows_in_the_dump"},
    {"config dump", "--set", "tests/platform/test_cli_options.cpp: config_options.each_option_shows_in_the_dump"},
    {"config dump", "--workload", "tests/platform/test_cli_options.cpp: config_options.each_option_shows_in_the_dump"},
    {"config dump", "--rtl-trace", "tests/platform/test_cli_options.cpp: config_options.rtl_trace_shows_in_the_dump"},
    {"config dump", "--quantum", "tests/platform/test_cli_options.cpp: config_options.each_option_shows_in_the_dump"},
    {"config dump", "--time-limit", "tests/platform/test_cli_options.cpp: config_options.each_option_shows_in_the_dump"},
    {"config dump", "--describe", "tests/platform/test_cli_options.cpp: config_options.each_option_shows_in_the_dump"},
    {"config dump", "--all", "tests/platform/test_cli_ux.cpp: cli_errors.config_dump_all_lists_every_platform_and_addresses_in_hex"},
    {"sm-run", "--gpu", "tests/platform/test_cli_options.cpp: sm_run_options.gpu_config_launch_latency_and_memory"},
    {"sm-run", "--config", "tests/platform/test_cli_options.cpp: sm_run_options.gpu_config_launch_latency_and_memory"},
    {"sm-run", "--sms", "tests/platform/test_cli_options.cpp: sm_run_options.fewer_sms_take_more_cycles"},
    {"sm-run", "--launch-latency", "tests/platform/test_cli_options.cpp: sm_run_options.gpu_config_launch_latency_and_memory"},
    {"sm-run", "--allow-unmodelled", "tests/platform/test_cli_options.cpp: sm_run_options.gpu_config_launch_latency_and_memory"},
    {"sm-run", "--mem-log", "tests/gpu_memory/mem_log_test.cpp: sm_mem_log.sm_run_option"},
    {"pm4-decode", "--submit", "tests/cp/test_pm4_walk.cpp: pm4Walk.CommandLine"},
    {"pm4-decode", "--ib", "tests/cp/test_pm4_walk.cpp: pm4Walk.CommandLine"},
    {"pm4-decode", "--once", "tests/cp/test_pm4_walk.cpp: pm4Walk.IbsGroupsAndCondBodiesNestAsCffdump"},
    {"sm-run", "--memory", "tests/platform/test_cli_options.cpp: sm_run_options.gpu_config_launch_latency_and_memory"},
    // A speed switch: its effect is the same results on more host threads.
    {"sm-run", "--threads", "tests/sm/test_compute.cpp: sm_cli.run_and_sm_run_agree_on_the_memory_kernels"},
    {"sweep", "--out", "tests/platform/test_cli_options.cpp: sweep_options.out_and_no_plot"},
    // Points run at a time: the same results for any count.
    {"sweep", "-j", "tests/sweep/test_sweep_cli.cpp: sweep_cli.grid_results_are_identical_for_any_job_count"},
    {"sweep", "--backend", "tests/platform/test_cli_options.cpp: sweep_options.slurm_options_reach_sbatch"},
    {"sweep", "--resume", "tests/sweep/test_sweep_cli.cpp: sweep_cli.killed_sweep_resumes_to_the_same_results"},
    {"sweep", "--dry-run", "tests/sweep/test_sweep_cli.cpp: sweep_cli.dry_run_lists_points_and_commands_and_runs_nothing"},
    {"sweep", "--point-wall-limit", "tests/sweep/test_sweep_cli.cpp: sweep_cli.point_wall_limit_has_the_range_of_the_points_wall_limit"},
    {"sweep", "--no-plot", "tests/platform/test_cli_options.cpp: sweep_options.out_and_no_plot"},
    {"sweep", "--partition", "tests/platform/test_cli_options.cpp: sweep_options.slurm_options_reach_sbatch"},
    {"sweep", "--time", "tests/platform/test_cli_options.cpp: sweep_options.slurm_options_reach_sbatch"},
    {"sweep", "--mem", "tests/platform/test_cli_options.cpp: sweep_options.slurm_options_reach_sbatch"},
    {"sweep", "--account", "tests/platform/test_cli_options.cpp: sweep_options.slurm_options_reach_sbatch"},
    {"sweep", "--max-array", "tests/platform/test_cli_options.cpp: sweep_options.slurm_options_reach_sbatch"},
    {"sweep", "--no-wait", "tests/platform/test_cli_options.cpp: sweep_options.slurm_options_reach_sbatch"},
    {"sweep", "--collect", "tests/platform/test_cli_options.cpp: sweep_options.slurm_options_reach_sbatch"},
    {"plot", "--x", "tests/sweep/test_plot.py: EveryOptionReachesItsEffect.test_x_and_y"},
    {"plot", "--y", "tests/sweep/test_plot.py: EveryOptionReachesItsEffect.test_x_and_y"},
    {"plot", "--hue", "tests/sweep/test_plot.py: EveryOptionReachesItsEffect.test_hue_and_kind_bar"},
    {"plot", "--kind", "tests/sweep/test_plot.py: EveryOptionReachesItsEffect.test_kind_heatmap_as_in_the_docs"},
    {"plot", "--maximize", "tests/sweep/test_plot.py: EveryOptionReachesItsEffect.test_kind_pareto_and_maximize"},
    {"afuc-asm", "-g", "tests/platform/test_cli_options.cpp: tool_options.afuc_generation_and_verbose"},
    {"afuc-disasm", "-g", "tests/platform/test_cli_options.cpp: tool_options.afuc_generation_and_verbose"},
    {"afuc-disasm", "-v", "tests/platform/test_cli_options.cpp: tool_options.afuc_generation_and_verbose"},
    {"pb-asm", "--gen", "tests/platform/test_cli_options.cpp: tool_options.pushbuffer_generation_output_ib_sli_base"},
    {"pb-asm", "-o", "tests/platform/test_cli_options.cpp: tool_options.pushbuffer_generation_output_ib_sli_base"},
    {"pb-decode", "--gen", "tests/platform/test_cli_options.cpp: tool_options.pushbuffer_generation_output_ib_sli_base"},
    {"pb-decode", "--ib", "tests/platform/test_cli_options.cpp: tool_options.pushbuffer_generation_output_ib_sli_base"},
    {"pb-decode", "--sli", "tests/platform/test_cli_options.cpp: tool_options.pushbuffer_generation_output_ib_sli_base"},
    {"pb-decode", "--base", "tests/platform/test_cli_options.cpp: tool_options.pushbuffer_generation_output_ib_sli_base"},
};

struct result {
  int rc;
  std::string out, err;
};
std::string scratch(const std::string& name) {
  const std::string d = ::testing::TempDir() + "cli-options-" + name + "-" + std::to_string(::getpid());
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}
// build/gpuvp ARGS (a shell word list: quote values with spaces) in `dir`, `input` on stdin.
result program(const std::string& args, const std::string& dir = ::testing::TempDir(), const std::string& input = "",
               const std::string& env = "") {
  static int runs = 0;
  // Per process: ctest runs each test in a process of its own, two at a time.
  const std::string base = ::testing::TempDir() + "cli-options-" + std::to_string(::getpid()) + "-run" + std::to_string(++runs);
  std::ofstream(base + ".in") << input;
  const std::string cmd =
      "cd '" + dir + "' && " + env + " '" + binary_path("gpuvp") + "' " + args + " <" + base + ".in >" + base + ".out 2>" + base + ".err";
  const int st = std::system(cmd.c_str());
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, slurp(base + ".out"), slurp(base + ".err")};
}
bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }
nlohmann::json stats(const std::string& path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f, nullptr, false);
}
std::string write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}
const std::string small = "--workload traffic --set traffic.g0.count=50 --set traffic.g1.count=30 --set traffic.g2.count=20";
// The cycles of `kernel N NAME: C cycles` lines, in order.
std::vector<long> kernel_cycles(const std::string& out) {
  std::vector<long> c;
  static const std::regex line(R"(^kernel \d+ \S+: (\d+) cycles)", std::regex::multiline);
  for (std::sregex_iterator i(out.begin(), out.end(), line), e; i != e; ++i) c.push_back(std::stol((*i)[1]));
  return c;
}

// The options a --help text lists: "  --set PATH=VALUE  ...", "  -q [ --quiet ]  ...", "  -g 5|6  ...".
std::vector<std::string> options_of(const std::string& help) {
  std::vector<std::string> found;
  bool in_options = false;
  std::istringstream lines(help);
  for (std::string l; std::getline(lines, l);) {
    if (l == "options:") in_options = true;
    static const std::regex option(R"(^  (--?[\w-]+)( |$))");
    std::smatch m;
    if (in_options && std::regex_search(l, m, option) && m[1] != "-h" && m[1] != "--help") found.push_back(m[1]);
  }
  return found;
}

}  // namespace

TEST(cli_options, every_option_has_an_effect_test) {
  // The commands: run, qtest, config dump and every tool `gpuvp --help` lists.
  const result top = program("--help");
  ASSERT_EQ(top.rc, 0) << top.err;
  std::vector<std::string> commands{"run", "qtest", "config dump"};
  bool tools = false;
  std::istringstream lines(top.out);
  for (std::string l; std::getline(lines, l);) {
    if (!l.empty() && l[0] != ' ')
      tools = l == "tools:";
    else if (tools && l.size() > 2)
      commands.push_back(l.substr(2, l.find(' ', 2) - 2));
  }
  ASSERT_GE(commands.size(), 10u) << top.out;
  std::set<std::pair<std::string, std::string>> listed;
  for (const auto& c : commands) {
    const result h = program(c + " --help");
    ASSERT_EQ(h.rc, 0) << c << ": " << h.err;
    for (const auto& o : options_of(h.out)) listed.insert({c, o});
  }
  std::set<std::pair<std::string, std::string>> rows;
  for (const auto& r : option_effect_tests) {
    rows.insert({r.command, r.option});
    EXPECT_TRUE(listed.count({r.command, r.option}))
        << "gpuvp " << r.command << " --help lists no " << r.option << ": remove its row from option_effect_tests";
    // The named test exists in the named file.
    const std::string t = r.test;
    const size_t colon = t.find(": "), dot = t.find('.', colon);
    ASSERT_TRUE(colon != std::string::npos && dot != std::string::npos) << t;
    const std::string file = t.substr(0, colon), suite = t.substr(colon + 2, dot - colon - 2), name = t.substr(dot + 1);
    const std::string text = slurp(source_path(file));
    const bool found = file.ends_with(".py") ? has(text, "class " + suite + "(") && has(text, "def " + name + "(self")
                                             : std::regex_search(text, std::regex("TEST(_F)?\\(" + suite + ",\\s*" + name + "\\)"));
    EXPECT_TRUE(found) << "gpuvp " << r.command << " " << r.option << ": no test " << suite << "." << name << " in " << file;
  }
  for (const auto& [c, o] : listed)
    EXPECT_TRUE(rows.count({c, o})) << "gpuvp " << c << " " << o
                                    << " has no test showing its effect: add one and its row to option_effect_tests in " << self;
}

// --- gpuvp run -------------------------------------------------------------------------------

TEST(run_options, platform_elaborates_that_platform) {
  const std::string d = scratch("run-platform");
  const result base = program("run " + small + " --stats base.json", d);
  const result gm = program("run --platform gpu-memory " + small + " --stats gm.json", d);
  ASSERT_EQ(base.rc, 0) << base.err;
  ASSERT_EQ(gm.rc, 0) << gm.err;
  EXPECT_TRUE(has(base.out, " on platform default")) << base.out;
  EXPECT_TRUE(has(gm.out, " on platform gpu-memory")) << gm.out;
  // The gpu-memory platform adds the GPU's memory system (gpu_l2) that default.yaml does not have.
  EXPECT_TRUE(stats(d + "/gm.json").contains("gpu_l2.accesses")) << gm.out;
  EXPECT_FALSE(stats(d + "/base.json").contains("gpu_l2.accesses"));
}

TEST(run_options, config_file_values_apply) {
  const std::string d = scratch("run-config");
  write(d + "/seven.yaml", "traffic:\n  g0:\n    count: 7\n");
  const result r = program("run --workload traffic --config seven.yaml --stats s.json", d);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(stats(d + "/s.json")["traffic.g0.transactions"], 7);
  EXPECT_TRUE(has(r.out, "g0: 7 transactions")) << r.out;
}

TEST(run_options, set_overrides_a_parameter) {
  const std::string d = scratch("run-set");
  // The later --set wins over the earlier one (50 in `small`).
  const result r = program("run " + small + " --set traffic.g0.count=7 --stats s.json", d);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(stats(d + "/s.json")["traffic.g0.transactions"], 7);
  EXPECT_EQ(stats(d + "/s.json")["traffic.g1.transactions"], 30);
}

TEST(run_options, workload_chooses_what_runs) {
  const std::string d = scratch("run-workload");
  const result r = program("run --workload rtl-copy --stats s.json", d);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.rfind("gpuvp run: embedded workload rtl-copy (", 0), 0u) << r.out;
  const auto s = stats(d + "/s.json");
  EXPECT_EQ(s["run"]["workload"], "rtl-copy");
  EXPECT_EQ(s.value("traffic.g0.transactions", -1), -1);  // no traffic generators ran
}

TEST(run_options, stats_file_agrees_with_the_report) {
  const std::string d = scratch("run-stats");
  const result r = program("run " + small + " --stats s.json", d);
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto s = stats(d + "/s.json");
  ASSERT_FALSE(s.is_discarded()) << slurp(d + "/s.json");
  EXPECT_EQ(s["traffic.g0.transactions"], 50);
  EXPECT_EQ(s["traffic.g2.transactions"], 20);
  // The simulated time the report prints (in us, 3 decimals) is the file's sim_time_ps.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(simulated time: ([0-9.]+) us)"))) << r.out;
  EXPECT_NEAR(std::stod(m[1]) * 1e6, s["run"]["sim_time_ps"].get<double>(), 500.0);
}

TEST(run_options, trace_holds_the_generators_spans) {
  const std::string d = scratch("run-trace");
  const result r = program("run " + small + " --trace t.json", d);
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto t = stats(d + "/t.json");
  ASSERT_FALSE(t.is_discarded());
  const auto& events = t.is_array() ? t : t["traceEvents"];
  size_t spans = 0;
  for (const auto& e : events) spans += e.value("ph", "") == "X" ? 1 : 0;
  EXPECT_GE(spans, 100u) << "100 transactions, at least one span each";
}

TEST(run_options, quantum_is_the_reported_quantum) {
  const std::string d = scratch("run-quantum");
  const result base = program("run " + small, d), r = program("run " + small + " --quantum 10ns --stats s.json", d);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(has(base.out, "(quantum 1 us)")) << base.out;
  EXPECT_TRUE(has(r.out, "(quantum 10 ns)")) << r.out;
  EXPECT_EQ(stats(d + "/s.json")["run"]["quantum_ps"], 10000);
}

TEST(run_options, time_limit_stops_the_run) {
  // The small traffic run takes 3.2 us of simulated time: a 1 us limit ends it, modelled error.
  const result base = program("run " + small), r = program("run " + small + " --time-limit '1 us'");
  EXPECT_EQ(base.rc, 0) << base.err;
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_TRUE(has(r.err, "error: time limit of 1 us reached before the workload finished")) << r.err;
}

TEST(run_options, log_debug_lists_each_transaction) {
  const result base = program("run " + small), r = program("run " + small + " --log interconnect=debug");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_FALSE(has(base.err, "debug:")) << base.err;
  size_t lines = 0;
  for (size_t p = 0; (p = r.err.find("debug: interconnect: traffic.g2 -> ", p)) != std::string::npos; ++p) ++lines;
  EXPECT_EQ(lines, 20u) << r.err.substr(0, 2000);
}

TEST(run_options, quiet_prints_no_report) {
  const result base = program("run " + small), r = program("run " + small + " -q");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(has(base.out, "simulated time")) << base.out;
  EXPECT_EQ(r.out, "");
}

// --- gpuvp qtest -----------------------------------------------------------------------------

namespace {
// Two PTIMER reads around a 100 ns step; the step's answer is the simulated time after it.
const std::string two_reads = "readl 0x100009400\nclock_step 100\nreadl 0x100009400\n";
long step_answer(const std::string& out) {
  std::smatch m;
  return std::regex_search(out, m, std::regex(R"(OK (\d+)\n)")) ? std::stol(m[1]) : -1;
}
}  // namespace

TEST(qtest_options, script_replaces_standard_input) {
  const std::string d = scratch("qtest-script");
  write(d + "/s.qtest", two_reads);
  const result from_stdin = program("qtest", d, two_reads), from_file = program("qtest --script s.qtest", d), none = program("qtest", d);
  ASSERT_EQ(from_file.rc, 0) << from_file.err;
  EXPECT_EQ(from_file.out, from_stdin.out);
  EXPECT_EQ(std::count(from_file.out.begin(), from_file.out.end(), '\n'), 3) << from_file.out;
  EXPECT_EQ(none.out, "");  // no script, empty input: no answer
}

TEST(qtest_options, config_and_set_change_the_latency) {
  const std::string d = scratch("qtest-config");
  write(d + "/slow.yaml", "ptimer:\n  regs:\n    read_latency: 7 ns\n");
  const long base = step_answer(program("qtest", d, two_reads).out);
  const long by_file = step_answer(program("qtest --config slow.yaml", d, two_reads).out);
  const long by_set = step_answer(program("qtest --set 'ptimer.regs.read_latency=7 ns'", d, two_reads).out);
  ASSERT_GT(base, 100);
  // The first read before the step takes 7 ns instead of the default 1 ns.
  EXPECT_EQ(by_file, base + 6);
  EXPECT_EQ(by_set, base + 6);
}

TEST(qtest_options, platform_and_workload_choose_the_platform) {
  const std::string d = scratch("qtest-platform");
  const std::string step = "clock_step 100\n";
  ASSERT_EQ(program("qtest --stats base.json", d, step).rc, 0);
  ASSERT_EQ(program("qtest --platform agx --stats agx.json", d, step).rc, 0);
  const result w = program("qtest --workload '" + source_path("models/agx/scenarios/agx-no-inval.agx") + "' --stats w.json", d, step);
  ASSERT_EQ(w.rc, 0) << w.err;
  EXPECT_FALSE(stats(d + "/base.json").contains("agx.asc.asserts"));
  EXPECT_TRUE(stats(d + "/agx.json").contains("agx.asc.asserts"));
  EXPECT_TRUE(stats(d + "/w.json").contains("agx.asc.asserts"));  // an AGX scenario runs on the agx platform
}

TEST(qtest_options, output_files_record_the_session) {
  const std::string d = scratch("qtest-outputs");
  const result r = program("qtest --stats s.json --trace t.json --vcd v.vcd --quantum 10ns --log ptimer=debug", d, two_reads);
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto s = stats(d + "/s.json");
  EXPECT_EQ(s["host.reads"], 2);
  EXPECT_EQ(s["ptimer.regs.reads"], 2);
  EXPECT_EQ(s["run"]["quantum_ps"], 10000);
  EXPECT_FALSE(stats(d + "/t.json").is_discarded()) << slurp(d + "/t.json").substr(0, 300);
  EXPECT_TRUE(has(slurp(d + "/v.vcd"), "$enddefinitions"));
  size_t reads = 0;
  for (size_t p = 0; (p = r.err.find("debug: ptimer.regs: read 0x400", p)) != std::string::npos; ++p) ++reads;
  EXPECT_EQ(reads, 2u) << r.err;
  EXPECT_FALSE(has(program("qtest", d, two_reads).err, "debug:"));
}

TEST(qtest_options, time_limit_fails_a_step_past_it) {
  const std::string step = "clock_step 5000\n";
  EXPECT_EQ(program("qtest", ::testing::TempDir(), step).out, "OK 5000\n");
  const result r = program("qtest --time-limit '1 us'", ::testing::TempDir(), step);
  EXPECT_EQ(r.rc, 0) << r.err;  // the session goes on; the step is refused
  EXPECT_EQ(r.out.rfind("FAIL time limit of 1 us", 0), 0u) << r.out;
}

TEST(qtest_options, rtl_trace_writes_the_rtl_blocks_waves) {
  const std::string d = scratch("qtest-rtl");
  const std::string rtl = "--workload rtl-copy --set copy.impl=rtl";
  const result probe = program("qtest " + rtl, d, "clock_step 1000\n");
  if (probe.rc != 0) GTEST_SKIP() << "this build has no RTL copy engine: " << probe.err;
  const result r = program("qtest " + rtl + " --rtl-trace w.fst", d, "clock_step 1000\n");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_GT(fs::file_size(d + "/w.fst"), 0u);
  EXPECT_FALSE(fs::exists(d + "/w.vcd"));
}

// --- gpuvp config dump -----------------------------------------------------------------------

TEST(config_options, each_option_shows_in_the_dump) {
  const std::string d = scratch("config");
  const std::string base = program("config dump", d).out;
  ASSERT_TRUE(has(base, "quantum: 1 us")) << base;
  EXPECT_FALSE(has(base, "\nagx:"));
  EXPECT_TRUE(has(program("config dump --platform agx", d).out, "\nagx:"));
  EXPECT_TRUE(has(program("config dump --workload '" + source_path("models/agx/scenarios/agx-no-inval.agx") + "'", d).out, "\nagx:"));
  EXPECT_TRUE(has(program("config dump --quantum 10ns", d).out, "quantum: 10 ns"));
  EXPECT_TRUE(has(program("config dump --time-limit '2 ms'", d).out, "time_limit: 2 ms"));
  write(d + "/seven.yaml", "traffic:\n  g0:\n    count: 7777\n");
  const std::string traffic = program("config dump --workload traffic", d).out;
  ASSERT_TRUE(has(traffic, "\ntraffic:\n")) << traffic;  // --workload traffic: the generators' section
  EXPECT_FALSE(has(base, "\ntraffic:\n"));
  EXPECT_FALSE(has(traffic, "count: 7777"));
  EXPECT_TRUE(has(program("config dump --workload traffic --config seven.yaml", d).out, "count: 7777"));
  EXPECT_TRUE(has(program("config dump --workload traffic --set traffic.g0.count=7777", d).out, "count: 7777"));
  // --describe: each parameter's help as a comment (platform.quantum's, as docs/configuration.md has it).
  EXPECT_FALSE(has(base, "global quantum of temporal decoupling"));
  EXPECT_TRUE(has(program("config dump --describe", d).out, "global quantum of temporal decoupling"));
}

TEST(config_options, rtl_trace_shows_in_the_dump) {
  const std::string rtl = "config dump --workload rtl-copy --set copy.impl=rtl";
  const result base = program(rtl);
  if (base.rc != 0) GTEST_SKIP() << "this build has no RTL copy engine: " << base.err;
  const result r = program(rtl + " --rtl-trace w.fst");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(has(r.out, "trace: w.fst")) << r.out;
  EXPECT_FALSE(has(base.out, "trace: w.fst"));
}

// Options that run nothing in config dump, or cannot act in qtest, are not offered (issue 33).
TEST(config_options, options_without_an_effect_are_refused) {
  for (const char* o : {"--stats s.json", "--trace t.json", "--vcd v", "--wall-limit '5 s'", "--log debug", "-q"}) {
    const result r = program(std::string("config dump ") + o);
    EXPECT_EQ(r.rc, 2) << o;
    EXPECT_TRUE(has(r.err, "unrecognised option") || has(r.err, "unrecognized option")) << o << ": " << r.err;
  }
  for (const char* o : {"--wall-limit '5 s'", "-q"}) EXPECT_EQ(program(std::string("qtest ") + o).rc, 2) << o;
}

// --- gpuvp sm-run ----------------------------------------------------------------------------

TEST(sm_run_options, gpu_config_launch_latency_and_memory) {
  const std::string d = scratch("sm-run");
  const std::string list = "'" + source_path("tests/sm/data/ffma/kernelslist.g") + "'";
  const result base = program("sm-run " + list, d);
  ASSERT_EQ(base.rc, 0) << base.err;
  const auto cycles = kernel_cycles(base.out);
  ASSERT_EQ(cycles.size(), 1u) << base.out;
  EXPECT_TRUE(has(base.out, "SM7_QV100") && has(base.out, "(80 SMs")) << base.out;
  const result a100 = program("sm-run --gpu A100 " + list, d);
  EXPECT_TRUE(has(a100.out, "SM80_A100") && has(a100.out, "(108 SMs")) << a100.out;
  write(d + "/20sms.config", "-gpgpu_n_clusters 20\n");
  EXPECT_TRUE(has(program("sm-run --gpu QV100 --config 20sms.config " + list, d).out, "(20 SMs")) << "--config";
  // The launch latency is added to the kernel's cycles.
  EXPECT_EQ(kernel_cycles(program("sm-run --launch-latency 100 " + list, d).out), std::vector<long>{cycles[0] + 100});
  const result fixed = program("sm-run --memory fixed " + list, d);
  EXPECT_TRUE(has(fixed.out, "memory: fixed latency memory")) << fixed.out;
  EXPECT_FALSE(has(base.out, "memory: fixed latency memory"));
  // An option that changes Accel-Sim's timing and is not modelled: refused, or run with a warning.
  write(d + "/ideal.config", "-l2_ideal 1\n");
  const result refused = program("sm-run --gpu QV100 --config ideal.config " + list, d);
  EXPECT_EQ(refused.rc, 2);
  EXPECT_TRUE(has(refused.err, "(allow with --allow-unmodelled)")) << refused.err;
  const result allowed = program("sm-run --gpu QV100 --config ideal.config --allow-unmodelled " + list, d);
  EXPECT_EQ(allowed.rc, 0) << allowed.err;
  EXPECT_TRUE(has(allowed.out + allowed.err, "-l2_ideal 1")) << allowed.out << allowed.err;
  EXPECT_EQ(kernel_cycles(allowed.out).size(), 1u);
}

TEST(sm_run_options, fewer_sms_take_more_cycles) {
  // 8 CTAs: on one SM they run one after another, on four side by side.
  const std::string list = "'" + source_path("examples/sweeps/sm-trace/kernelslist.g") + "'";
  const auto one = kernel_cycles(program("sm-run --sms 1 " + list).out), four = kernel_cycles(program("sm-run --sms 4 " + list).out);
  ASSERT_EQ(one.size(), four.size());
  ASSERT_FALSE(one.empty());
  long sum1 = 0, sum4 = 0;
  for (size_t i = 0; i < one.size(); ++i) sum1 += one[i], sum4 += four[i];
  EXPECT_GT(sum1, sum4 + sum4 / 4);
}

// --- gpuvp sweep -----------------------------------------------------------------------------

namespace {
const std::string three_points =
    "workload: traffic\nset:\n  traffic.g0.count: 20\n  traffic.g1.count: 10\n  traffic.g2.count: 10\n"
    "parameters:\n  interconnect.width: [8, 16, 32]\nmetrics:\n  sim: run.sim_time_ps\n";
size_t rows(const std::string& csv) { return size_t(std::count(csv.begin(), csv.end(), '\n')); }
}  // namespace

TEST(sweep_options, out_and_no_plot) {
  const std::string d = scratch("sweep-out");
  write(d + "/w.yaml", three_points);
  const result r = program("sweep w.yaml --out elsewhere -j 1", d);
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_EQ(rows(slurp(d + "/elsewhere/results.csv")), 4u);
  EXPECT_FALSE(fs::exists(d + "/w-sweep"));  // the default folder
  // Without --no-plot the plots are drawn (or, without matplotlib, the sweep says they were not).
  EXPECT_TRUE(fs::exists(d + "/elsewhere/plots") || has(r.err, "plots not drawn")) << r.err;
  const result n = program("sweep w.yaml --out np -j 1 --no-plot", d);
  ASSERT_EQ(n.rc, 0) << n.err;
  EXPECT_EQ(rows(slurp(d + "/np/results.csv")), 4u);
  EXPECT_FALSE(fs::exists(d + "/np/plots"));
  EXPECT_FALSE(has(n.err, "plot")) << n.err;
}

// A stand-in Slurm: sbatch records its arguments and runs each array task at once (as a cluster
// with free nodes would), squeue reports an empty queue.
TEST(sweep_options, slurm_options_reach_sbatch) {
  const std::string d = scratch("sweep-slurm");
  write(d + "/w.yaml", three_points);
  fs::create_directories(d + "/bin");
  write(
      d + "/bin/sbatch",
      "#!/bin/sh\necho \"$@\" >>\"" + d +
          "/sbatch.log\"\nfor a; do script=$a; done\n"
          "range=$(for a; do case $a in --array=*) echo ${a#--array=};; esac; done)\n"
          "[ -n \"$NO_RUN\" ] || for i in $(seq ${range%-*} ${range#*-}); do SLURM_ARRAY_TASK_ID=$i sh \"$script\" >/dev/null 2>&1; done\n"
          "echo 42\n");
  write(d + "/bin/squeue", "#!/bin/sh\nexit 0\n");
  for (const char* c : {"sbatch", "squeue"}) fs::permissions(d + "/bin/" + c, fs::perms::owner_all);
  const std::string path = "PATH='" + d + "/bin':\"$PATH\"";
  const result r = program(
      "sweep w.yaml --out s --backend slurm --partition PQ --time 7:00 --mem 3G --account ACC --max-array 1 "
      "--poll 0.1 --no-plot",
      d, "", path);
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_EQ(rows(slurp(d + "/s/results.csv")), 4u);
  const std::string log = slurp(d + "/sbatch.log");
  // The first point alone, then the other two in one array task (--max-array 1).
  EXPECT_EQ(rows(log), 2u) << log;
  EXPECT_TRUE(has(log, "--array=0-0 ")) << log;
  EXPECT_FALSE(has(log, "--array=0-1")) << log;
  for (const char* o : {"--partition=PQ", "--time=7:00", "--mem=3G", "--account=ACC"}) EXPECT_TRUE(has(log, o)) << o << ": " << log;
  // --no-wait returns once the rest is submitted (here: not run); --collect gathers the results.
  fs::remove(d + "/sbatch.log");
  const result nw = program("sweep w.yaml --out nw --backend slurm --no-wait --poll 0.1 --no-plot", d, "", path);
  ASSERT_EQ(nw.rc, 0) << nw.err;
  EXPECT_TRUE(has(nw.err, "gather the results with: gpuvp sweep --collect ")) << nw.err;
  EXPECT_FALSE(fs::exists(d + "/nw/results.csv"));
  const result c = program("sweep --collect nw --backend slurm --poll 0.1 --no-plot", d, "", path);
  ASSERT_EQ(c.rc, 0) << c.out << c.err;
  EXPECT_EQ(rows(slurp(d + "/nw/results.csv")), 4u);
}

// --- the tools -------------------------------------------------------------------------------

TEST(tool_options, afuc_generation_and_verbose) {
  const std::string d = scratch("afuc");
  write(d + "/a.asm", "nop\n[00000003]\nmov $01, 0x5\nwaitin\nnop\n");
  ASSERT_EQ(program("afuc-asm -g 6 a.asm a6.fw", d).rc, 0);
  ASSERT_EQ(program("afuc-asm -g 5 a.asm a5.fw", d).rc, 0);
  EXPECT_NE(slurp(d + "/a5.fw"), slurp(d + "/a6.fw"));
  const result d6 = program("afuc-disasm -g 6 a6.fw", d), d5 = program("afuc-disasm -g 5 a5.fw", d),
               v = program("afuc-disasm -g 6 -v a6.fw", d);
  EXPECT_TRUE(has(d6.out, "; a6xx microcode") && has(d6.out, "\tmov $01, 0x5\n")) << d6.out;
  EXPECT_TRUE(has(d5.out, "; a5xx microcode")) << d5.out;
  // -v: each word with its pc and encoding (mov $01, 0x5 at pc 2).
  EXPECT_FALSE(has(d6.out, "0002: "));
  EXPECT_TRUE(std::regex_search(v.out, std::regex(R"(0002: [0-9a-f]{8}  mov \$01, 0x5)"))) << v.out;
  // -g 7: a7xx moved movi to primary opcode 01110 (0x70010005 instead of a6xx 0x88010005).
  ASSERT_EQ(program("afuc-asm -g 7 a.asm a7.fw", d).rc, 0);
  EXPECT_EQ(slurp(d + "/a7.fw").substr(12, 4), std::string("\x05\x00\x01\x70", 4));
  const result d7 = program("afuc-disasm -g 7 a7.fw", d);
  EXPECT_TRUE(has(d7.out, "; a7xx microcode") && has(d7.out, "\tmov $01, 0x5\n")) << d7.out;
  const result g8 = program("afuc-asm -g 8 a.asm a8.fw", d);
  EXPECT_EQ(g8.rc, 2);
  EXPECT_TRUE(has(g8.err, "expected 5, 6 or 7")) << g8.err;
}

TEST(tool_options, pushbuffer_generation_output_ib_sli_base) {
  const std::string d = scratch("pb");
  write(d + "/n.txt", "ninc 1 M2MF.DMA_BUFFER_IN 0xbeef\n");
  // -o: the words go to that file. NINC is 0x40000000 | count << 18 | subc << 13 | method.
  ASSERT_EQ(program("pb-asm n.txt -o n.bin", d).rc, 0);
  EXPECT_EQ(slurp(d + "/n.bin"), std::string("\x84\x21\x04\x40\xef\xbe\x00\x00", 8));
  // --gen: non-increasing methods came with NV10.
  const result nv4 = program("pb-asm --gen NV4 n.txt -o n4.bin", d);
  EXPECT_EQ(nv4.rc, 2);
  EXPECT_TRUE(has(nv4.err, "non-increasing methods need NV10+")) << nv4.err;
  EXPECT_EQ(program("pb-decode n.bin", d).rc, 0);
  EXPECT_TRUE(has(program("pb-decode --gen NV4 n.bin", d).out, "INVALID"));
  // --base: the first word's address.
  EXPECT_EQ(program("pb-decode n.bin", d).out.rfind("0x0000000000  0x40042184  NINC", 0), 0u);
  EXPECT_EQ(program("pb-decode --base 0x2000000 n.bin", d).out.rfind("0x0002000000  0x40042184  NINC", 0), 0u);
  // --ib: an IB-mode stream has no CALL; --sli: the SLI conditional command is decoded.
  write(d + "/c.txt", "sli 0x1\ncall 0x1000\n");
  ASSERT_EQ(program("pb-asm c.txt -o c.bin", d).rc, 0);
  const result plain = program("pb-decode --sli c.bin", d), ib = program("pb-decode --sli --ib c.bin", d),
               nosli = program("pb-decode c.bin", d);
  EXPECT_TRUE(has(plain.out, "SLI_COND mask 0x001") && has(plain.out, "CALL 0x00001000")) << plain.out;
  EXPECT_TRUE(has(ib.out, "0x00001002  INVALID")) << ib.out;
  EXPECT_TRUE(has(nosli.out, "0x00010010  INVALID")) << nosli.out;
}
