// SPDX-License-Identifier: Apache-2.0
// The gpuvp program: exit codes, messages, qtest protocol, determinism, config dump round trip,
// and the documentation of every parameter.
#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <tlm_utils/simple_target_socket.h>
#include "cli.h"
#include "run_control.h"
#include "gpuvp/config.h"
#include "gpuvp/progress.h"
#include "gpuvp/registry.h"
#include "cli_testing.h"
#include "testing.h"

using namespace gpuvp;

namespace {
using gpuvp::testing::run_gpuvp;
using result = gpuvp::testing::cli_result;
using gpuvp::testing::slurp;
const std::vector<std::string> small = {"--set", "traffic.g0.count=500", "--set", "traffic.g1.count=300", "--set", "traffic.g2.count=200"};
std::vector<std::string> run_small(std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {"run", "--workload", "traffic"};
  a.insert(a.end(), small.begin(), small.end());
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}
}  // namespace

TEST(cli, version_and_help) {
  auto r = run_gpuvp({"--version"});
  EXPECT_EQ(r.rc, 0);
  EXPECT_EQ(r.out.rfind("gpuvp 0.1.0", 0), 0u);
  r = run_gpuvp({"--help"});
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("qtest"), std::string::npos);
}

TEST(cli, unknown_command_and_option_are_usage_errors) {
  auto r = run_gpuvp({"frobnicate"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("unknown command 'frobnicate'"), std::string::npos);
  r = run_gpuvp({"run", "--no-such-option"});
  EXPECT_EQ(r.rc, 2);
}

TEST(cli, default_run_is_the_embedded_pfifo_scenario) {
  auto r = run_gpuvp({"run"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("embedded workload pfifo-default"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pfifo: generation G84, through mmu.in"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("traffic:"), std::string::npos) << r.out;  // the scenario runs alone
}

TEST(cli, traffic_run_reports_time_speed_and_models) {
  auto r = run_gpuvp(run_small());
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("simulated time:"), std::string::npos);
  EXPECT_NE(r.out.find("simulation speed:"), std::string::npos);
  EXPECT_NE(r.out.find("g0: 500 transactions"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("sysram: 800 transactions"), std::string::npos) << r.out;  // g0 + g1
}

TEST(cli, configuration_errors_exit_2_and_name_the_key) {
  auto r = run_gpuvp(run_small({"--set", "traffic.g0.pattern=zigzag"}));
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("traffic.g0.pattern: 'zigzag' is not sequential, strided or random"), std::string::npos) << r.err;
  r = run_gpuvp(run_small({"--set", "vram.sise=1"}));
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--set vram.sise=1: unknown configuration key 'vram.sise' (did you mean 'vram.size'?)"), std::string::npos) << r.err;
  r = run_gpuvp(run_small({"--set", "components.gpu=warp_drive"}));
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("unknown component type 'warp_drive'"), std::string::npos) << r.err;
  r = run_gpuvp(run_small({"--config", "/nonexistent.yaml"}));
  EXPECT_EQ(r.rc, 2);
  r = run_gpuvp(run_small({"--set", "vram.base=0x100000000"}));  // lands on BAR0
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("overlaps"), std::string::npos) << r.err;
}

TEST(cli, traffic_to_a_hole_is_a_modelled_error) {
  auto r = run_gpuvp(run_small({"--set", "traffic.g0.base=0x300000000"}));
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("g0: 500 transactions answered with an error"), std::string::npos) << r.err;
}

TEST(cli, time_limit_is_a_modelled_error) {
  auto r = run_gpuvp(run_small({"--set", "platform.time_limit=5us"}));
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("time limit of 5 us reached"), std::string::npos) << r.err;
}

TEST(cli, unknown_workload_is_an_input_error) {
  auto r = run_gpuvp({"run", "--workload", "something.unknown"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("something.unknown: no embedded workload of that name and no such file"), std::string::npos) << r.err;
}

TEST(cli, identical_runs_give_identical_statistics) {
  const std::string a = ::testing::TempDir() + "stats_a.json", b = ::testing::TempDir() + "stats_b.json";
  ASSERT_EQ(run_gpuvp(run_small({"--stats", a})).rc, 0);
  ASSERT_EQ(run_gpuvp(run_small({"--stats", b})).rc, 0);
  // Only the run metadata's wall time may differ.
  const std::regex wall("\"wall_s\": [0-9.e+-]+");
  const std::string ja = std::regex_replace(slurp(a), wall, "wall_s"), jb = std::regex_replace(slurp(b), wall, "wall_s");
  EXPECT_GT(ja.size(), 1000u);
  EXPECT_EQ(ja, jb);
  EXPECT_NE(slurp(a).find("\"wall_s\": "), std::string::npos) << "no wall time in the run metadata";
  EXPECT_NE(ja.find("\"interconnect.sysram.queueing\""), std::string::npos);
}

TEST(cli, trace_file_is_chrome_trace_json) {
  const std::string t = ::testing::TempDir() + "trace.json";
  ASSERT_EQ(run_gpuvp(run_small({"--trace", t})).rc, 0);
  const std::string j = slurp(t);
  EXPECT_EQ(j.rfind("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", 0), 0u);
  EXPECT_NE(j.find("\"ph\":\"X\""), std::string::npos);
  EXPECT_NE(j.find("\"thread_name\""), std::string::npos);
  EXPECT_EQ(j.substr(j.size() - 4), "\n]}\n");
}

TEST(cli, vcd_file_holds_the_interrupt_signals) {
  const std::string base = ::testing::TempDir() + "signals";
  ASSERT_EQ(run_gpuvp(run_small({"--vcd", base + ".vcd"})).rc, 0);
  const std::string v = slurp(base + ".vcd");
  EXPECT_NE(v.find("$timescale"), std::string::npos);
  EXPECT_NE(v.find("host_irq"), std::string::npos) << v.substr(0, 400);
}

TEST(cli, debug_log_has_one_line_per_transaction) {
  auto r = run_gpuvp(
      {"run", "--workload", "traffic", "--set", "traffic.initiators=1", "--set", "traffic.g0.count=3", "--log", "interconnect=debug"});
  ASSERT_EQ(r.rc, 0) << r.err;
  size_t lines = 0;
  for (size_t p = 0; (p = r.err.find("debug: interconnect: traffic.g0 -> sysram R ", p)) != std::string::npos; ++p) ++lines;
  EXPECT_EQ(lines, 3u) << r.err;
}

TEST(cli, config_dump_feeds_back_in) {
  auto first = run_gpuvp({"config", "dump"});
  ASSERT_EQ(first.rc, 0) << first.err;
  EXPECT_NE(first.out.find("quantum: 1 us"), std::string::npos);
  const std::string f = ::testing::TempDir() + "dump.yaml";
  std::ofstream(f) << first.out;
  auto second = run_gpuvp({"config", "dump", "--config", f});
  ASSERT_EQ(second.rc, 0) << second.err;
  EXPECT_EQ(first.out, second.out);
}

// Host timing used below: host -> interconnect -> PTIMER costs 1 ns (host port) + 1 ns (ptimer
// port) + 1 cycle of 1 ns (4 bytes on a 32-byte link) = 3 ns before the register is read; the
// register bank adds 1 ns read latency, so the host is at 4 ns after the first read.
TEST(cli, qtest_protocol_answers_line_by_line) {
  const std::string script =
      "readl 0x100009400\n"       // TIME_LOW read at 3 ns
      "clock_step 100\n"          // 4 + 100
      "readl 0x100009400\n"       // 104 + 3 = 107 = 0x6b
      "readl 0x100009410\n"       // TIME_HIGH: latched 0
      "writel 0x100000140 0x5\n"  // PMC INTR_EN
      "readl 0x100000140\n"
      "write 0x1000 4 0x11223344\n"  // bytes in memory order
      "readl 0x1000\n"
      "read 0x1000 4\n"
      "memset 0x2000 3 0xab\n"
      "read 0x2000 4\n"
      "readl 0x300000000\n"
      "writeb 0x0 0x100\n"
      "bogus 1 2\n"
      "clock_set 1000\n"
      "quit\n"
      "readl 0x0\n";  // after quit: not answered
  auto r = run_gpuvp({"qtest", "--set", "components.traffic=none"}, script);
  EXPECT_EQ(r.rc, 0) << r.err;
  const std::string expected =
      "OK 0x0000000000000003\n"
      "OK 104\n"
      "OK 0x000000000000006b\n"
      "OK 0x0000000000000000\n"
      "OK\n"
      "OK 0x0000000000000005\n"
      "OK\n"
      "OK 0x0000000044332211\n"
      "OK 0x11223344\n"
      "OK\n"
      "OK 0xababab00\n"
      "FAIL TLM_ADDRESS_ERROR_RESPONSE\n"
      "FAIL value 0x100 does not fit in 1 bytes\n"
      "FAIL unknown command 'bogus'\n"
      "OK 1000\n"
      "OK\n";
  EXPECT_EQ(r.out, expected);
}

// Parameters of the platforms of the default workload, the traffic workload, a PM4 workload (CP),
// an Accel-Sim workload (compute) and the gpu-memory platform (PLATFORM|WORKLOAD): each is listed
// in docs/configuration.md, with its range.
class cli_docs : public ::testing::TestWithParam<const char*> {};
INSTANTIATE_TEST_SUITE_P(workloads, cli_docs,
                         ::testing::Values("pfifo-default", "traffic", "tests/cp/data/basic.pm4", "tests/sm/data/ffma/kernelslist.g",
                                           "gpu-memory|traffic"));
TEST_P(cli_docs, every_parameter_is_documented_with_its_range) {
  std::string w = GetParam();
  std::vector<std::string> args = {"config", "dump"};
  if (const size_t bar = w.find('|'); bar != std::string::npos) {
    args.insert(args.end(), {"--platform", w.substr(0, bar)});
    w = w.substr(bar + 1);
  }
  args.insert(args.end(), {"--workload", w.find('/') == std::string::npos ? w : gpuvp::testing::source_path(w)});
  auto r = run_gpuvp(args);
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string doc = slurp(gpuvp::testing::source_path("docs/configuration.md"));
  ASSERT_FALSE(doc.empty()) << "docs/configuration.md is missing";
  for (const auto& d : config::global().declarations()) {
    // Per-generator and per-port keys are documented with placeholders (traffic.gN.*, interconnect.PORT.*).
    std::string key = std::regex_replace(d.path, std::regex("^([a-z0-9_]+)\\.([a-z0-9_]+)\\.to$"), "COMPONENT.PORT.to");
    key = std::regex_replace(key, std::regex("^traffic\\.g[0-9]+\\."), "traffic.gN.");
    key = std::regex_replace(key, std::regex("^interconnect\\.[a-z0-9_.]+\\.(latency|width|clock)$"), "interconnect.PORT.$1");
    key = std::regex_replace(key, std::regex("^components\\.[a-z0-9_]+$"), "components.NAME");
    if (key.rfind("sysram.", 0) == 0 || key.rfind("vram.", 0) == 0 || key.rfind("dram.", 0) == 0)
      key = "MEMORY." + key.substr(key.find('.') + 1);
    const size_t row = doc.find("\n| `" + key + "` |");
    if (row == std::string::npos) {
      ADD_FAILURE() << "undocumented parameter " << d.path << " (as " << key << ")";
      continue;
    }
    const std::string line = doc.substr(row + 1, doc.find('\n', row + 1) - row - 1);
    if (!d.min.empty()) {
      // The docs may write integers in hex (addresses, masks): compare values, not spellings.
      auto canon = [](const std::string& t) {
        try {
          return std::to_string(gpuvp::parse_u64(t));
        } catch (const std::exception&) {
          return t;
        }
      };
      bool found = false;
      static const std::regex range_re("\\[([^,\\]]+), ([^\\]]+)\\]");
      for (auto it = std::sregex_iterator(line.begin(), line.end(), range_re); it != std::sregex_iterator(); ++it)
        found |= canon((*it)[1]) == canon(d.min) && canon((*it)[2]) == canon(d.max);
      EXPECT_TRUE(found) << d.path << ": range [" << d.min << ", " << d.max << "] missing from its row: " << line;
    }
  }
}

// --- Robustness (issue 10): bad input is an error naming what and where, runs always end, and
// interrupted runs keep complete results.

namespace {
bool valid_json(const std::string& text) { return nlohmann::json::accept(text); }
std::string temp_dir(const std::string& name) {
  const std::string d = ::testing::TempDir() + name;
  std::filesystem::create_directories(d);
  return d;
}
// A traffic run that would take far longer than any test: 10^12 transactions.
std::vector<std::string> endless(std::vector<std::string> extra, const std::string& time_limit = "3600 s") {
  std::vector<std::string> a = {
      "run",          "--workload", "traffic", "--set", "traffic.initiators=1", "--set", "traffic.g0.count=1000000000000",
      "--time-limit", time_limit};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}
}  // namespace

TEST(cli, a_directory_is_not_an_input_file) {
  const std::string dir = temp_dir("dir_input");
  auto r = run_gpuvp(run_small({"--config", dir}));
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find(dir + ": is a directory, expected a configuration file"), std::string::npos) << r.err;
  const std::string pb = temp_dir("dir_input.pb");  // the extension picks a kind; the file is a directory
  r = run_gpuvp({"run", "--workload", pb});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find(pb + ": is a directory; --workload takes a file or an embedded workload's name"), std::string::npos) << r.err;
  r = run_gpuvp({"qtest", "--script", dir});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find(dir + ": is a directory, expected a qtest script (--script)"), std::string::npos) << r.err;
  r = run_gpuvp({"run", "--workload", "traffic", "--set", "components.cp=cp", "--set", "cp.firmware=" + dir});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("cp.firmware: cannot load CP firmware: " + dir + ": is a directory"), std::string::npos) << r.err;
}

TEST(cli, an_empty_firmware_image_is_an_error) {
  const std::string fw = ::testing::TempDir() + "empty.fw";
  std::ofstream(fw).close();
  auto r = run_gpuvp({"run", "--workload", "traffic", "--set", "components.cp=cp", "--set", "cp.firmware=" + fw});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("cp.firmware: " + fw + ": empty firmware image"), std::string::npos) << r.err;
  ::testing::internal::CaptureStderr();
  r = run_gpuvp({"afuc-disasm", "-g", "6", fw});
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(err.find(fw + ": empty firmware image"), std::string::npos) << err;
}

TEST(cli, bad_output_paths_fail_before_the_run) {
  auto r = run_gpuvp(run_small({"--stats", "/nonexistent/dir/stats.json"}));
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("/nonexistent/dir/stats.json: cannot create the statistics file (--stats)"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("simulated time"), std::string::npos);  // nothing ran
  const std::string dir = temp_dir("dir_output");
  r = run_gpuvp(run_small({"--trace", dir}));
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find(dir + ": is a directory, cannot write the trace file (--trace)"), std::string::npos) << r.err;
}

TEST(cli, yaml_recursion_is_a_configuration_error_naming_the_line) {
  const std::string f = ::testing::TempDir() + "recursive.yaml";
  std::ofstream(f) << "interconnect:\n  x: &a\n    - *a\n";
  auto r = run_gpuvp(run_small({"--config", f}));
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find(f + ":3: alias refers to a node that contains it (recursive alias)"), std::string::npos) << r.err;
}

TEST(cli, counts_sizes_and_times_are_range_checked_naming_the_key) {
  auto r = run_gpuvp(run_small({"--set", "traffic.g0.count=-1"}));
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--set traffic.g0.count=-1: traffic.g0.count: '-1' is not a valid uint"), std::string::npos) << r.err;
  // A clock period of 10^9 s overflowed the router's slot arithmetic (a shift by 64) and hung it.
  r = run_gpuvp(run_small({"--set", "interconnect.clock=1e9 s"}));
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("interconnect.clock: '1e9 s' is longer than gpuvp's largest time, 3600 s"), std::string::npos) << r.err;
  r = run_gpuvp(run_small({"--set", "interconnect.sysram.clock=2 ms"}));
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("interconnect.sysram.clock = 2 ms is out of range [1 ps, 1 ms]"), std::string::npos) << r.err;
  r = run_gpuvp(run_small({"--time-limit", "2 h"}));
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--time-limit: platform.time_limit: '2 h' is not a valid time"), std::string::npos) << r.err;
  r = run_gpuvp(run_small({"--wall-limit", "soon"}));
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--wall-limit soon: "), std::string::npos) << r.err;
}

TEST(cli, time_limit_names_what_is_still_busy) {
  // g0 alone at the default 1 ns links: each 64-byte read crosses the 32-byte link in 2 cycles and
  // 60 ns of sysram latency; 5 us ends well before 10^12 transactions.
  auto r = run_gpuvp(endless({}, "5 us"));
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("error: time limit of 5 us reached before the workload finished; still busy: traffic: g0 ("), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(" of 1000000000000 transactions)"), std::string::npos) << r.err;
}

TEST(cli, wall_limit_ends_a_run_with_complete_results) {
  const std::string stats = ::testing::TempDir() + "wall_stats.json", trace = ::testing::TempDir() + "wall_trace.json";
  auto r = run_gpuvp(endless({"--wall-limit", "0.2", "--stats", stats, "--trace", trace}));
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("error: wall-clock limit of --wall-limit 0.2 reached at simulated "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("still busy: traffic: g0 ("), std::string::npos) << r.err;
  EXPECT_TRUE(valid_json(slurp(stats))) << slurp(stats).substr(0, 200);
  EXPECT_TRUE(valid_json(slurp(trace)));
}

namespace {
// A model that simulates slowly: one event per simulated nanosecond, 0.2 ms of wall time each
// (100 us simulated would take 20 s of wall time).
SC_MODULE(slow_model){SC_CTOR(slow_model){SC_THREAD(loop);
}  // namespace
void loop() {
  for (;;) {
    sc_core::wait(1, sc_core::SC_NS);
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
    while (std::chrono::steady_clock::now() < until) {}
  }
}
}
;
}  // namespace

// Progress lines come every period of wall time whatever the simulated rate, and the wall-clock
// limit ends the run on time: the kernel's slices shrink to what the model simulates in ~50 ms.
TEST(cli, progress_lines_follow_wall_time_at_any_simulated_rate) {
  gpuvp::testing::fresh_simulation();
  slow_model m("slow");
  run_limits limits;
  limits.progress = true;
  limits.progress_period = std::chrono::milliseconds(250);
  limits.wall_limit = std::chrono::duration<double>(2.0);
  std::ostringstream err;
  const auto start = std::chrono::steady_clock::now();
  gpuvp::set_program_start(start);  // the wall limit counts from the program's start
  const run_outcome o = simulate(limits, err);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(o.end, run_end::wall_limit);
  EXPECT_LT(wall, 4.0);  // the limit plus at most one slice (the first: 100 ns simulated, 20 ms)
  const std::string text = err.str();
  size_t lines = 0;
  for (size_t at = text.find("progress: simulated "); at != std::string::npos; at = text.find("progress: simulated ", at + 1)) ++lines;
  EXPECT_GE(lines, 3u) << text;  // about 7 in 2 s
  EXPECT_GT(sc_core::sc_time_stamp(), sc_core::SC_ZERO_TIME);
}

namespace {
// Runs the endless workload and sends `sig` to the process once the simulation runs.
result interrupted_run(int sig, const std::string& stats, const std::string& trace) {
  std::atomic<bool> done{false};
  std::thread sender([&] {
    while (!done && !gpuvp::simulation_running()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (!done) std::raise(sig);
  });
  result r = run_gpuvp(endless({"--wall-limit", "60", "--stats", stats, "--trace", trace}));
  done = true;
  sender.join();
  return r;
}
}  // namespace

TEST(cli, sigint_and_sigterm_end_a_run_with_complete_results_and_their_exit_code) {
  const std::string stats = ::testing::TempDir() + "sig_stats.json", trace = ::testing::TempDir() + "sig_trace.json";
  auto r = interrupted_run(SIGINT, stats, trace);
  EXPECT_EQ(r.rc, 130);  // 128 + SIGINT (2)
  EXPECT_NE(r.err.find("error: interrupted by SIGINT at simulated "), std::string::npos) << r.err;
  EXPECT_TRUE(valid_json(slurp(stats)));
  EXPECT_TRUE(valid_json(slurp(trace)));
  r = interrupted_run(SIGTERM, stats, trace);
  EXPECT_EQ(r.rc, 143);  // 128 + SIGTERM (15)
  EXPECT_NE(r.err.find("error: interrupted by SIGTERM at simulated "), std::string::npos) << r.err;
  EXPECT_TRUE(valid_json(slurp(stats)));
}

TEST(cli, pm4_preload_at_an_unmapped_address_is_an_input_error) {
  // 0x300000000 is past VRAM (0x2_0000_0000 + 1 GiB) in default.yaml: nothing decodes it.
  const std::string f = ::testing::TempDir() + "unmapped.pm4";
  std::ofstream(f) << "# preload into a hole\nmem 0x300000000 0x1 0x2\n";
  auto r = run_gpuvp({"run", "--workload", f});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find(f + ":2: mem at 0x300000000 (8 bytes) is not in mapped memory"), std::string::npos) << r.err;
}

TEST(cli, qtest_rejects_malformed_numbers) {
  auto r = run_gpuvp({"qtest", "--set", "components.traffic=none"},
                     "writel 0x1000 0x1z\nreadl 0x1z\nwrite 0x1000 2 0x1z\nclock_step 99999999999999999999\n");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out,
            "FAIL '0x1z' is not a number (bad digit or suffix 'z'; sizes take k/KiB, M/MiB, G/GiB or T/TiB: 4KiB, 1 MiB)\n"
            "FAIL '0x1z' is not a number (bad digit or suffix 'z'; sizes take k/KiB, M/MiB, G/GiB or T/TiB: 4KiB, 1 MiB)\n"
            "FAIL data 0x1z: 'z' is not a hex digit\n"
            "FAIL '99999999999999999999' does not fit in 64 bits\n");
}

// docs/qtest.md: the session answers every line and exits 0. With a 1 us limit: clock_step 2000
// would pass it (FAIL, time stays 0); clock_set 999 is fine; the PTIMER read then happens at
// 999 + 3 = 1002 ns = 0x3ea (timing of qtest_protocol_answers_line_by_line) and leaves the host at
// 1003 ns, past the limit: later steps and accesses FAIL, other commands still answer.
TEST(cli, qtest_past_the_time_limit_keeps_answering) {
  auto r = run_gpuvp({"qtest", "--set", "components.traffic=none", "--set", "platform.time_limit=1us"},
                     "clock_step 2000\nclock_set 999\nreadl 0x100009400\nclock_step 5\nreadl 0x100009400\n"
                     "stats host.reads\nquit\n");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out,
            "FAIL time limit of 1 us (platform.time_limit) reached: simulated time stays at 0\n"
            "OK 999\n"
            "OK 0x00000000000003ea\n"
            "FAIL time limit of 1 us (platform.time_limit) reached: simulated time stays at 1003\n"
            "FAIL time limit of 1 us (platform.time_limit) reached: simulated time stays at 1003\n"
            "OK host.reads=1\n"
            "OK\n");
}

TEST(cli, sm_run_options_are_range_checked) {
  const std::string list = gpuvp::testing::source_path("tests/sm/data/ffma/kernelslist.g");
  auto sm_run = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "sm-run");
    ::testing::internal::CaptureStderr();
    result r = run_gpuvp(args);
    r.err = ::testing::internal::GetCapturedStderr();
    return r;
  };
  auto r = sm_run({"--sms", "-1", list});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--sms -1: expected a number of SMs from 0 (the configuration's count) to 1024"), std::string::npos) << r.err;
  r = sm_run({"--sms", "4294967296", list});  // 2^32 used to wrap to 0
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--sms 4294967296: more than 1024 SMs"), std::string::npos) << r.err;
  r = sm_run({"--gpu", "", list});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--gpu: empty GPU name"), std::string::npos) << r.err;
  // One line of a gpgpusim.config that asked for 4294967295 SMs per cluster (all the machine's memory).
  const std::string cfg = ::testing::TempDir() + "huge.config";
  std::ofstream(cfg) << "# too many\n-gpgpu_n_cores_per_cluster 4294967295\n";
  r = sm_run({"--config", cfg, list});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find(cfg + ":2: -gpgpu_n_cores_per_cluster: 4294967295 is outside [1, 1024]"), std::string::npos) << r.err;
  std::ofstream(cfg) << "-gpgpu_n_clusters 64\n-gpgpu_n_cores_per_cluster 32\n";
  r = sm_run({"--config", cfg, list});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("-gpgpu_n_clusters 64 x -gpgpu_n_cores_per_cluster 32 is more than 1024 SMs"), std::string::npos) << r.err;
  const std::string dir = temp_dir("dir_smrun");
  r = sm_run({"--config", dir, list});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find(dir + ": is a directory"), std::string::npos) << r.err;
}

// Issue 10: a qtest script file's failed lines are also named FILE:LINE on stderr (the answers on
// stdout stay the protocol's); comments and empty lines count as lines.
TEST(cli, qtest_script_failures_name_file_and_line) {
  const std::string f = ::testing::TempDir() + "lines.qtest";
  std::ofstream(f) << "# comment\nreadl 0x1z\n\nwritel 0x1000 5\nbogus 1\n";
  auto r = run_gpuvp({"qtest", "--set", "components.traffic=none", "--script", f});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out,
            "FAIL '0x1z' is not a number (bad digit or suffix 'z'; sizes take k/KiB, M/MiB, G/GiB or T/TiB: 4KiB, 1 MiB)\nOK\nFAIL unknown "
            "command 'bogus'\n");
  EXPECT_NE(r.err.find(f + ":2: readl 0x1z: FAIL '0x1z' is not a number"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(f + ":5: bogus 1: FAIL unknown command 'bogus'"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(":4:"), std::string::npos) << r.err;
}

// The tools follow the run's exit codes: a file they cannot read or write and a source they cannot
// assemble are input errors (2); a decoder's listing of commands the hardware would fault on is a
// modelled error (1), after the full listing.
TEST(cli, tool_input_errors_exit_2_and_faulting_streams_exit_1) {
  const std::string d = ::testing::TempDir();
  const std::string missing = d + "no_such_input";
  const auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(d + name, std::ios::binary) << bytes;
    return d + name;
  };
  struct tool_case {
    std::vector<std::string> args;
    int rc;
    std::string message;
  };
  const std::string bad_pb = write("bad.txt", "frob 1\n");
  const std::string bad_pm4 = write("bad.pm4", "frob\n");
  const std::string bad_afuc = write("bad.asm", "nop\nfrob\n");
  const std::string odd = write("odd.bin", std::string("\x00\x00\x04", 3));
  // NV04 INC header, subchannel 0, method 0, count 2 (bits 18-28), and no data word.
  const std::string truncated = write("truncated.bin", std::string("\x00\x00\x08\x00", 4));
  // An all-zero dword is no PM4 packet header (types 4 and 7 only).
  const std::string zero = write("zero.bin", std::string(4, '\0'));
  const std::vector<tool_case> cases = {
      {{"pb-asm", missing, "-o", d + "x.bin"}, 2, "cannot open " + missing},
      {{"pb-asm", bad_pb, "-o", d + "x.bin"}, 2, bad_pb + ":1:"},
      {{"pb-decode", missing}, 2, "cannot open " + missing},
      {{"pb-decode", odd}, 2, "size 3 is not a multiple of 4"},
      {{"pb-decode", truncated}, 1, "1 malformed command(s)"},
      {{"pm4-asm", missing, d + "x.bin"}, 2, missing},
      {{"pm4-asm", bad_pm4, d + "x.bin"}, 2, bad_pm4 + ":1"},
      {{"pm4-decode", missing}, 2, missing},
      {{"pm4-decode", zero}, 1, "1 invalid or truncated packet(s)"},
      {{"afuc-asm", "-g", "6", missing, d + "x.fw"}, 2, "cannot open " + missing},
      {{"afuc-asm", "-g", "6", bad_afuc, d + "x.fw"}, 2, bad_afuc + ":2: unknown instruction 'frob'"},
      {{"afuc-disasm", "-g", "6", missing}, 2, missing},
  };
  for (const tool_case& c : cases) {
    ::testing::internal::CaptureStdout();
    ::testing::internal::CaptureStderr();
    const result r = run_gpuvp(c.args);
    const std::string err = r.err + ::testing::internal::GetCapturedStderr();
    ::testing::internal::GetCapturedStdout();
    EXPECT_EQ(r.rc, c.rc) << c.args[0] << " " << c.args[1] << ": " << err;
    EXPECT_NE(err.find(c.message), std::string::npos) << c.args[0] << ": " << err;
  }
  // Assembling into a folder that does not exist is an input error too.
  const std::string good_pb = write("good.txt", "inc 0 0x0000 1\n");
  ::testing::internal::CaptureStderr();
  const result r = run_gpuvp({"pb-asm", good_pb, "-o", "/nonexistent/dir/x.bin"});
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(r.rc, 2) << err;
  EXPECT_NE(err.find("cannot write /nonexistent/dir/x.bin"), std::string::npos) << err;
}

// A target that never answers: its b_transport waits on an event nobody notifies (an RTL slave
// that never raises RVALID, say). The simulation then runs out of activity with the host's access
// still open: a stalled run, exit 1 naming the qtest line, never a silent exit 0.
namespace {
struct never_answering_target : sc_core::sc_module, gpuvp::component {
  tlm_utils::simple_target_socket<never_answering_target> in{"in"};
  sc_core::sc_event never;
  explicit never_answering_target(sc_core::sc_module_name n) : sc_core::sc_module(n) {
    in.register_b_transport(this, &never_answering_target::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload&, sc_core::sc_time&) { sc_core::wait(never); }
  sc_core::sc_module& module() override { return *this; }
  std::vector<target_port> targets() override { return {{"in", &in, 0x300000000ull, 0x1000, false}}; }
};
void register_never_answering() {
  gpuvp::registry::global().add_component_type("never_answering", "test: a target that never answers",
                                               gpuvp::make_component<never_answering_target>);
}
}  // namespace

TEST(cli, qtest_on_a_stalled_simulation_exits_1_naming_the_line) {
  const auto r = run_gpuvp({"qtest", "--set", "components.traffic=none", "--set", "components.stall=never_answering"},
                           "readl 0x100009400\nreadl 0x300000000\nreadl 0x100009400\n", register_never_answering);
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("OK 0x"), std::string::npos) << r.out;  // the first line is answered
  EXPECT_NE(r.err.find("error: simulation stalled at "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("but the host was still answering qtest line stdin:2: readl 0x300000000"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("still busy: host (qtest session not finished)"), std::string::npos) << r.err;
}

// default.yaml sets g0-g2; with fewer initiators the rest are ignored (sweeps over the count need
// that), but a key that is no generator parameter is refused even under a generator beyond it.
TEST(cli, a_generator_beyond_the_count_ignores_parameters_not_typos) {
  auto r = run_gpuvp({"config", "dump", "--workload", "traffic", "--set", "traffic.initiators=1", "--set", "traffic.g9.count=5"});
  EXPECT_EQ(r.rc, 0) << r.err;
  r = run_gpuvp({"config", "dump", "--workload", "traffic", "--set", "traffic.g9.bogus=5"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("--set traffic.g9.bogus=5: unknown configuration key 'traffic.g9.bogus'"), std::string::npos) << r.err;
}

// pfifo.engine_map is a list of ID:KIND: each bad item is a configuration error naming the
// parameter, and a second engine at one id is refused (it used to replace the first silently).
TEST(cli, pfifo_engine_map_errors_name_the_parameter_and_item) {
  const auto bad = [](const std::string& map, const std::string& what) {
    const auto r = run_gpuvp({"run", "--set", "pfifo.engine_map=" + map});
    EXPECT_EQ(r.rc, 2) << map;
    EXPECT_NE(r.err.find("pfifo.engine_map: " + what), std::string::npos) << map << ": " << r.err;
  };
  bad("[1:m2mf, 3:m2mf, 1:record]", "engine id 1 is given twice");
  bad("[1:m2mf, 40:null]", "engine id 40 is not below 32");
  bad("1:m2mf,3:copy", "unknown engine kind 'copy'");
  bad("[auto, 5:null]", "auto stands alone");
  bad("[1m2mf]", "'1m2mf' is not ID:KIND");
}
