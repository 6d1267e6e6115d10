// SPDX-License-Identifier: Apache-2.0
// The command line as a user meets it: errors that lead to the fix (a key of another platform,
// an unknown workload, units), output files that cannot be written, empty option values, the
// report's first line and its wall time, and kernels numbered in launch order.
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include "cli_testing.h"
#include "gpuvp/config.h"
#include "testing.h"

using namespace gpuvp;
using gpuvp::testing::run_gpuvp;
using gpuvp::testing::slurp;

namespace {
const std::vector<std::string> small_traffic = {
    "run", "--workload", "traffic", "--set", "traffic.g0.count=50", "--set", "traffic.g1.count=30", "--set", "traffic.g2.count=20"};
std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& extra) {
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}
bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }
}  // namespace

// Under the sanitizers (preset ci) a test process may throw no exception once a simulation has
// run in it: ASan then takes a freed SystemC coroutine stack for the main thread's and reports
// false stack errors. So each test below runs at most one simulation, and runs it last.

// Issue #29 item 11: /dev/full takes the open but no byte; every output file's failed write is an
// error naming the file, and the run (which succeeded) exits 2.
TEST(cli_output, a_stats_write_that_fails_is_an_error_naming_the_file) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
  auto r = run_gpuvp(with(small_traffic, {"--quiet", "--stats", "/dev/full"}));
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(has(r.err, "/dev/full: writing the statistics file failed")) << r.err;
}

TEST(cli_output, a_trace_write_that_fails_is_an_error_naming_the_file) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
  auto r = run_gpuvp(with(small_traffic, {"--quiet", "--trace", "/dev/full"}));
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(has(r.err, "error: /dev/full: writing the trace file (--trace) failed")) << r.err;
}

TEST(cli_output, a_vcd_write_that_fails_is_an_error_naming_the_file) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
  // --vcd appends .vcd to a name without it: /dev/full.vcd cannot be created (checked first);
  // a name that has it is written as given.
  const std::string link = ::testing::TempDir() + "full.vcd";
  std::filesystem::remove(link);
  std::filesystem::create_symlink("/dev/full", link);
  auto r = run_gpuvp(with(small_traffic, {"--quiet", "--vcd", link}));
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(has(r.err, link + ": writing the VCD file (--vcd) failed")) << r.err;
  std::filesystem::remove(link);
}

TEST(cli_output, a_vcd_that_can_be_written_holds_the_signals) {
  const std::string vcd = ::testing::TempDir() + "ux_irq.vcd";
  std::filesystem::remove(vcd);
  auto r = run_gpuvp(with(small_traffic, {"--quiet", "--vcd", vcd}));
  EXPECT_EQ(r.rc, 0) << r.err;
  const std::string text = slurp(vcd);
  EXPECT_TRUE(has(text, "$enddefinitions")) << text.substr(0, 300);
}

// Issue #29 item 12: an empty value is refused like --stats ''.
TEST(cli_output, empty_option_values_are_usage_errors) {
  for (const char* opt : {"--vcd", "--time-limit", "--quantum", "--wall-limit", "--workload"}) {
    auto r = run_gpuvp({"run", opt, ""});
    EXPECT_EQ(r.rc, 2) << opt;
    EXPECT_TRUE(has(r.err, std::string(opt) + ": empty value")) << opt << ": " << r.err;
  }
}

// Issue #29 item 14: 0.5 ps would be rounded to 1 ps.
TEST(cli_units, times_off_the_resolution_are_refused_and_errors_list_the_units) {
  auto r = run_gpuvp(with(small_traffic, {"--set", "interconnect.clock=0.5ps"}));
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(has(r.err, "'0.5ps' is not a whole number of the time resolution, 1 ps")) << r.err;
  r = run_gpuvp(with(small_traffic, {"--set", "interconnect.clock=2 parsecs"}));
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(has(r.err, "a time is a number and a unit: fs, ps, ns, us, ms, s")) << r.err;
  r = run_gpuvp(with(small_traffic, {"--set", "traffic.g0.range=4 MiBs"}));
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(has(r.err, "k/KiB, M/MiB, G/GiB or T/TiB")) << r.err;
}

TEST(cli_units, a_time_with_a_fraction_of_a_nanosecond_runs) {
  auto r = run_gpuvp(with(small_traffic, {"--set", "interconnect.clock=1.5 ns"}));  // 1500 ps: fine
  EXPECT_EQ(r.rc, 0) << r.err;
}

TEST(cli_units, a_size_with_its_suffix_runs) {
  auto r = run_gpuvp(with(small_traffic, {"--set", "traffic.g0.range=4MiB", "--quiet"}));
  EXPECT_EQ(r.rc, 0) << r.err;
}

TEST(cli_units, a_bare_time_limit_or_wall_limit_says_the_unit_applied) {
  auto r = run_gpuvp(with(small_traffic, {"--quiet", "--time-limit", "900000", "--wall-limit", "600"}));
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(has(r.err, "note: --time-limit 900000 is read as 900000 ns")) << r.err;
  EXPECT_TRUE(has(r.err, "note: --wall-limit 600 is read as 600 s")) << r.err;
}

TEST(cli_units, limits_with_units_print_no_note_and_a_wrong_unit_lists_the_units) {
  auto r = run_gpuvp(with(small_traffic, {"--quiet", "--time-limit", "1 ms", "--wall-limit", "10 min"}));
  EXPECT_EQ(r.rc, 2);  // min is no unit: the error lists the ones there are
  EXPECT_TRUE(has(r.err, "fs, ps, ns, us, ms, s")) << r.err;
  r = run_gpuvp(with(small_traffic, {"--quiet", "--time-limit", "1 ms", "--wall-limit", "600 s"}));
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_FALSE(has(r.err, "note:")) << r.err;
}

TEST(cli_errors, a_key_of_a_component_on_another_platform_says_where_it_lives) {
  auto r = run_gpuvp(with(small_traffic, {"--set", "compute.sms=4"}));
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(has(r.err,
                  "unknown configuration key 'compute.sms'; compute.sms is a parameter of the compute component "
                  "(type compute), which this platform does not have: it is on platform gpu-memory"))
      << r.err;
  EXPECT_TRUE(has(r.err, "components: {compute: compute}")) << r.err;
  r = run_gpuvp({"config", "dump", "--set", "agx.asc.op_cost=1 ns"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(has(r.err, "platform agx (--platform agx)")) << r.err;
  // A typo inside a component this platform has keeps the edit-distance hint alone.
  r = run_gpuvp(with(small_traffic, {"--set", "vram.sise=1"}));
  EXPECT_TRUE(has(r.err, "(did you mean 'vram.size'?)")) << r.err;
  EXPECT_FALSE(has(r.err, "is a parameter of")) << r.err;
}

TEST(cli_errors, config_dump_all_lists_every_platform_and_addresses_in_hex) {
  auto r = run_gpuvp({"config", "dump", "--all"});
  EXPECT_EQ(r.rc, 0) << r.err;
  for (const char* p : {"# platform default\n", "# platform gpu-memory\n", "# platform agx\n"}) EXPECT_TRUE(has(r.out, p)) << p;
  // compute.sms exists on gpu-memory only: its section has the compute component.
  const size_t gm = r.out.find("# platform gpu-memory\n");
  const size_t next = r.out.find("# platform ", gm + 1);
  const std::string section = r.out.substr(gm, next == std::string::npos ? std::string::npos : next - gm);
  EXPECT_TRUE(has(section, "\ncompute:\n")) << section.substr(0, 500);
  EXPECT_TRUE(has(section, "\n  sms: 0\n")) << section.substr(0, 500);
  // VRAM at 8 GiB, as default.yaml and the docs write it.
  r = run_gpuvp({"config", "dump"});
  EXPECT_TRUE(has(r.out, "base: 0x200000000\n")) << r.out.substr(0, 800);
  EXPECT_FALSE(has(r.out, "8589934592")) << r.out.substr(0, 800);
  EXPECT_EQ(run_gpuvp({"config", "dump", "--all", "--platform", "agx"}).rc, 2);
}

TEST(cli_errors, an_unknown_workload_lists_what_there_is_and_the_closest_name) {
  auto r = run_gpuvp({"run", "--workload", "trafic"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(has(r.err, "trafic: no embedded workload of that name and no such file (did you mean 'traffic'?)")) << r.err;
  EXPECT_TRUE(has(r.err, "embedded workloads (gpuvp --help describes them): traffic")) << r.err;
  EXPECT_TRUE(has(r.err, "accel-sim: ")) << r.err;  // the file kinds, with their descriptions
  r = run_gpuvp({"run", "--workload", "pfifo_default"});
  EXPECT_TRUE(has(r.err, "(did you mean 'pfifo-default'?)")) << r.err;
  r = run_gpuvp({"run", "--workload", ::testing::TempDir()});
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(has(r.err, ": is a directory; --workload takes a file or an embedded workload's name")) << r.err;
  EXPECT_TRUE(has(r.err, "workload files, by kind:")) << r.err;
}

TEST(cli_report, the_first_line_names_the_platform_and_every_setting_and_the_wall_time_has_its_parts) {
  const std::string cfg = ::testing::TempDir() + "ux_cfg.yaml";
  std::ofstream(cfg) << "vram:\n  read_latency: 31 ns\n";
  auto r = run_gpuvp(with(small_traffic, {"--config", cfg, "--quantum", "2 us"}));
  EXPECT_EQ(r.rc, 0) << r.err;
  const std::string first = r.out.substr(0, r.out.find('\n'));
  EXPECT_EQ(first, "gpuvp run: traffic generators (embedded) on platform default --config " + cfg +
                       " --quantum 2 us --set traffic.g0.count=50 --set traffic.g1.count=30 --set traffic.g2.count=20");
  EXPECT_TRUE(std::regex_search(r.out, std::regex("wall time: [0-9.]+ s from the program's start \\(set-up [0-9.]+ s, "
                                                  "simulation [0-9.]+ s\\)")))
      << r.out;
}

// A list naming one trace three times runs kernels 1, 2 and 3 (Accel-Sim numbers launches), and
// the counts agree.
TEST(cli_report, kernels_are_numbered_in_launch_order) {
  const std::string dir = ::testing::TempDir() + "ux_three/";
  std::filesystem::create_directories(dir);
  const std::string trace = gpuvp::testing::source_path("examples/sweeps/sm-trace/kernel-1.traceg");
  std::ofstream(dir + "kernelslist.g") << trace << "\n" << trace << "\n" << trace << "\n";
  auto r = run_gpuvp({"run", "--workload", dir + "kernelslist.g", "--set", "compute.sms=4"});
  EXPECT_EQ(r.rc, 0) << r.err;
  for (const char* k : {"kernel 1 _Z10fma_streamPfS_:", "kernel 2 _Z10fma_streamPfS_:", "kernel 3 _Z10fma_streamPfS_:"})
    EXPECT_TRUE(has(r.out, k)) << k << "\n" << r.out;
  // The report of the SMs' memory traffic: carried by the interconnect, timed by the GPU's memory.
  EXPECT_TRUE(has(r.out, "of them timed by the GPU's memory system, carried here untimed")) << r.out;
}
