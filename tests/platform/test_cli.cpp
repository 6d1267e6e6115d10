// The gpuvp program: exit codes, messages, qtest protocol, determinism, config dump round trip,
// and the documentation of every parameter.
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <gtest/gtest.h>
#include "cli.h"
#include "gpuvp/config.h"
#include "testing.h"

using namespace gpuvp;

namespace {
struct result {
  int rc;
  std::string out, err;
};
result run_gpuvp(std::vector<std::string> args, const std::string& input = "") {
  gpuvp::testing::fresh_simulation();
  args.insert(args.begin(), "gpuvp");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  std::istringstream in(input);
  std::ostringstream out, err;
  const int rc = gpuvp_main(int(argv.size()), argv.data(), in, out, err);
  return {rc, out.str(), err.str()};
}
std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
const std::vector<std::string> small = {"--set", "traffic.g0.count=500", "--set", "traffic.g1.count=300",
                                        "--set", "traffic.g2.count=200"};
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
  EXPECT_NE(r.err.find("--set vram.sise=1: unknown configuration key 'vram.sise' (did you mean 'vram.size'?)"),
            std::string::npos) << r.err;
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
  EXPECT_NE(r.err.find("something.unknown: no workload kind recognises this file"), std::string::npos) << r.err;
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
  auto r = run_gpuvp({"run", "--workload", "traffic", "--set", "traffic.initiators=1", "--set", "traffic.g0.count=3",
                      "--log", "interconnect=debug"});
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
      "readl 0x100009400\n"          // TIME_LOW read at 3 ns
      "clock_step 100\n"             // 4 + 100
      "readl 0x100009400\n"          // 104 + 3 = 107 = 0x6b
      "readl 0x100009410\n"          // TIME_HIGH: latched 0
      "writel 0x100000140 0x5\n"     // PMC INTR_EN
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

// Parameters of the platforms of the default workload and of the traffic workload.
class cli_docs : public ::testing::TestWithParam<const char*> {};
INSTANTIATE_TEST_SUITE_P(workloads, cli_docs, ::testing::Values("pfifo-default", "traffic"));
TEST_P(cli_docs, every_parameter_is_documented) {
  auto r = run_gpuvp({"config", "dump", "--workload", GetParam()});
  ASSERT_EQ(r.rc, 0) << r.err;
  // A parameter is documented in docs/configuration.md or on its model's page under docs/models/.
  std::string doc = slurp(gpuvp::testing::source_path("docs/configuration.md"));
  ASSERT_FALSE(doc.empty()) << "docs/configuration.md is missing";
  for (const auto& entry : std::filesystem::directory_iterator(gpuvp::testing::source_path("docs/models")))
    doc += slurp(entry.path().string());
  for (const auto& d : config::global().declarations()) {
    // Per-generator and per-port keys are documented with placeholders (traffic.gN.*, interconnect.PORT.*).
    std::string key = std::regex_replace(d.path, std::regex("^([a-z0-9_]+)\\.([a-z0-9_]+)\\.to$"), "COMPONENT.PORT.to");
    key = std::regex_replace(key, std::regex("^traffic\\.g[0-9]+\\."), "traffic.gN.");
    key = std::regex_replace(key, std::regex("^interconnect\\.[a-z0-9_.]+\\.(latency|width|clock)$"), "interconnect.PORT.$1");
    key = std::regex_replace(key, std::regex("^components\\.[a-z0-9_]+$"), "components.NAME");
    if (key.rfind("sysram.", 0) == 0 || key.rfind("vram.", 0) == 0) key = "MEMORY." + key.substr(key.find('.') + 1);
    EXPECT_NE(doc.find("`" + key + "`"), std::string::npos) << "undocumented parameter " << d.path << " (as " << key << ")";
  }
}
