// SPDX-License-Identifier: Apache-2.0
// The six embedded AGX scenarios, both ways: by default each fails as the seed describes (exit 1,
// the firmware's assert text and the first stale access named), and exactly one --set fixes it.
#include <fstream>
#include <regex>
#include <sstream>
#include <gtest/gtest.h>
#include "cli.h"
#include "gpuvp/config.h"
#include "cli_testing.h"
#include "testing.h"

namespace {
using gpuvp::testing::run_gpuvp;
using result = gpuvp::testing::cli_result;
result scenario(const std::string& name, const std::string& set = "") {
  std::vector<std::string> a = {"run", "--platform", "agx", "--workload", name};
  if (!set.empty()) a.push_back("--set"), a.push_back(set);
  return run_gpuvp(a);
}
bool has(const result& r, const std::string& s) { return r.err.find(s) != std::string::npos; }

struct case_ {
  std::string name, fix, assert_text, stale;
};
// The remapped command buffer is at 0xffffffa00c428000 (slot 0, kernel half, fw view); the freed
// page is 0x42-filled, so its first word 0x42424242 reads as SKU command 0x42 & 0x3f = 0x2.
const std::vector<case_> cases = {
    {"agx-hv-tlbi", "agx.hv.tlbi_passthrough=true", "unknown SKU command 0x2 (header 0x42424242 at 0xffffffa00c428000)",
     "first stale TLB access: view fw slot 0 VA 0xffffffa00c428000 used PA"},
    {"agx-axi2af", "agx.axi2af.pokes=true", "unknown SKU command 0x2", "first stale TLB access: view fw slot 0 VA 0xffffffa00c428000"},
    {"agx-rvae-end", "agx.driver.tlbi_range_fix=true", "unknown SKU command 0x2",
     "first stale TLB access: view fw slot 0 VA 0xffffffa00c428000"},
    {"agx-powerdown", "agx.driver.wait_powerdown=true", "unknown SKU command 0x2",
     "first stale TLB access: view fw slot 0 VA 0xffffffa00c428000"},
    // The stale line still holds "stamp 1" where the barrier now is.
    {"agx-no-inval", "agx.asc.invalidate_cmdbuf=true", "non-sequential stamp update at 0xffffffa000100000: 1 -> 1",
     "first stale cache read: view fw slot 0 VA 0xffffffa00c428000"},
    // The freed page's next owner: the ASC's stale dirty line written back over it at deep WFI.
    {"agx-cached-unmap", "agx.driver.unmap_dance=true", "", "first stale write-back: view fw slot 0 VA 0xffffffa00c430000 PA "},
};
}  // namespace

class agx_scenarios : public ::testing::TestWithParam<case_> {};

TEST_P(agx_scenarios, fails_by_default_as_the_seed_describes) {
  const auto& c = GetParam();
  const result r = scenario(c.name);
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  if (!c.assert_text.empty()) {
    EXPECT_TRUE(has(r, "firmware assert: \"" + c.assert_text)) << r.err;
    EXPECT_TRUE(has(r, "ASC firmware assert: " + c.assert_text)) << r.err;
  }
  EXPECT_TRUE(has(r, c.stale)) << r.err;
}

TEST_P(agx_scenarios, passes_with_its_one_fix) {
  const auto& c = GetParam();
  const result r = scenario(c.name, c.fix);
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_EQ(r.err.find("stale"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("0 stale reads"), std::string::npos) << r.out;
}

INSTANTIATE_TEST_SUITE_P(all, agx_scenarios, ::testing::ValuesIn(cases), [](const auto& info) {
  std::string n = info.param.name;
  for (auto& ch : n)
    if (ch == '-') ch = '_';
  return n;
});

// agx-cached-unmap, both halves of the damage: the firmware's store never reaches the object
// (DRAM keeps the zeroes of the allocation), and once the page is reused for the AP's 0x5678 the
// ASC's deep WFI writes the old line (0x1234) back over it; one stale write-back. (The fixed half:
// agx_scenarios.passes_with_its_one_fix/agx_cached_unmap.)
TEST(agx_cached_unmap, the_lost_store_and_the_stale_line_over_the_reused_page) {
  const result r = scenario("agx-cached-unmap");
  EXPECT_TRUE(has(r, "memory of obj + 0x0 (PA 0x9")) << r.err;
  EXPECT_TRUE(has(r, "holds 0x0, expected 0x1234 (the ASC's cache still holds dirty lines)")) << r.err;
  EXPECT_TRUE(has(r, "memory of data + 0x0 (PA 0x9")) << r.err;
  EXPECT_TRUE(has(r, "holds 0x1234, expected 0x5678")) << r.err;
  EXPECT_TRUE(has(r, "(1 stale write-backs)")) << r.err;
  // One page throughout: the object's, the reused one's and the written-back line's PA are the same.
  auto pa_after = [&](const std::string& what) {
    std::smatch m;
    return std::regex_search(r.err, m, std::regex(what + "(0x[0-9a-f]+)")) ? m[1].str() : std::string("none");
  };
  EXPECT_NE(pa_after("memory of obj \\+ 0x0 \\(PA "), "none") << r.err;
  EXPECT_EQ(pa_after("memory of obj \\+ 0x0 \\(PA "), pa_after("memory of data \\+ 0x0 \\(PA "));
  EXPECT_EQ(pa_after("memory of obj \\+ 0x0 \\(PA "), pa_after("first stale write-back: view fw slot 0 VA 0xffffffa00c430000 PA "));
  EXPECT_NE(r.out.find("1 power-downs"), std::string::npos) << r.out;
}

// Without --platform an AGX scenario selects the agx platform itself (the embedded one by name,
// a .agx file by its kind); another --platform is an input error that says which one it needs.
// One run per test (a process each under ctest).
TEST(agx_scenario_cli, a_scenario_selects_the_agx_platform) {
  const result r = run_gpuvp({"run", "--workload", "agx-no-inval", "--set", "agx.asc.invalidate_cmdbuf=true"});
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("gpuvp run: embedded workload agx-no-inval"), std::string::npos) << r.out;
}

TEST(agx_scenario_cli, a_broken_scenario_without_platform_fails_as_on_agx) {
  const result broken = run_gpuvp({"run", "--workload", "agx-hv-tlbi"});
  EXPECT_EQ(broken.rc, 1) << broken.err;
  EXPECT_TRUE(has(broken, "unknown SKU command 0x2")) << broken.err;
}

TEST(agx_scenario_cli, an_agx_file_selects_the_agx_platform) {
  const std::string file = ::testing::TempDir() + "/boot_only.agx";
  std::ofstream(file) << "boot\n";
  const result r = run_gpuvp({"run", "--workload", file});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("asc: started"), std::string::npos) << r.out;
}

TEST(agx_scenario_cli, config_dump_of_a_scenario_shows_the_agx_platform) {
  const result dump = run_gpuvp({"config", "dump", "--workload", "agx-hv-tlbi"});
  EXPECT_EQ(dump.rc, 0) << dump.err;
  EXPECT_NE(dump.out.find("stage2: true"), std::string::npos) << dump.out;
}

TEST(agx_scenario_cli, another_platform_is_an_input_error) {
  const result r = run_gpuvp({"run", "--platform", "default", "--workload", "agx-hv-tlbi"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_TRUE(has(r, "agx-hv-tlbi: agx-scenario workloads run on --platform agx, not --platform default")) << r.err;
}

// Every ASC and driver parameter has a row in docs/configuration.md with the code's range.
TEST(agx_scenario_cli, asc_and_driver_parameters_are_documented_with_their_ranges) {
  const result r = run_gpuvp({"config", "dump", "--platform", "agx"});
  ASSERT_EQ(r.rc, 0) << r.err;
  std::ifstream f(gpuvp::testing::source_path("docs/configuration.md"));
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string doc = ss.str();
  auto canon = [](const std::string& t) {
    try {
      return std::to_string(gpuvp::parse_u64(t));
    } catch (const std::exception&) {
      return t;
    }
  };
  unsigned checked = 0;
  for (const auto& d : gpuvp::config::global().declarations()) {
    if (d.path.rfind("agx.asc.", 0) != 0 && d.path.rfind("agx.driver.", 0) != 0) continue;
    const size_t row = doc.find("\n| `" + d.path + "` |");
    ASSERT_NE(row, std::string::npos) << "undocumented parameter " << d.path;
    ++checked;
    if (d.min.empty()) continue;
    const std::string line = doc.substr(row + 1, doc.find('\n', row + 1) - row - 1);
    static const std::regex range_re("\\[([^,\\]]+), ([^\\]]+)\\]");
    bool found = false;
    for (auto it = std::sregex_iterator(line.begin(), line.end(), range_re); it != std::sregex_iterator(); ++it)
      found |= canon((*it)[1]) == canon(d.min) && canon((*it)[2]) == canon(d.max);
    EXPECT_TRUE(found) << d.path << ": range [" << d.min << ", " << d.max << "] missing from its row: " << line;
  }
  EXPECT_GE(checked, 20u);
}
