// SPDX-License-Identifier: Apache-2.0
// AGX scenarios (docs/formats/agx.md) with bad operands: every operand is checked when the file is
// read, with file:line and exit 2 (issue 29 items 4, 10, 18). Limits worked out from the format:
// 16 KiB pages, 64 TTBAT slots, u32 command fields, u8 fill bytes, u16 FWCtl page counts.
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include "agx_scenario.h"
#include "cli_testing.h"
#include "gpuvp/config.h"

namespace {
using gpuvp::testing::run_gpuvp;

std::string parse_error(const std::string& text) {
  try {
    gpuvp::agx_scenario::parse(text, "x.agx");
  } catch (const gpuvp::config_error& e) {
    return e.what();
  }
  return "(accepted)";
}
const std::string one = "boot\nalloc b 1\n";  // b: 0x4000 bytes
const std::string two = "boot\nalloc b 2\n";  // b: 0x8000 bytes, two separate pages
}  // namespace

TEST(agx_scenario_input, slots_bytes_and_u32_fields_are_range_checked) {
  EXPECT_EQ(parse_error(one + "map b 0x10000 uncached gpu slot 64\n"), "x.agx:3: map: slot 64 is out of range [0, 0x3f]");
  // 2^32 once wrapped to slot 0.
  EXPECT_EQ(parse_error(one + "map b 0x10000 uncached gpu slot 4294967296\n"), "x.agx:3: map: slot 4294967296 is out of range [0, 0x3f]");
  EXPECT_EQ(parse_error(one + "map b 0x10000 uncached gpu slot 63\n"), "(accepted)");
  EXPECT_EQ(parse_error(one + "fill b 256\n"), "x.agx:3: fill: BYTE 256 is out of range [0, 0xff]");
  EXPECT_EQ(parse_error(one + "fill b 255\n"), "(accepted)");
  EXPECT_EQ(parse_error(one + "write b 0 0x100000000 u32\n"), "x.agx:3: write: VALUE 0x100000000 is out of range [0, 0xffffffff]");
  EXPECT_EQ(parse_error(one + "cmd b 0 stamp 0x100000000 b\n"), "x.agx:3: cmd: operand 0x100000000 is out of range [0, 0xffffffff]");
  EXPECT_EQ(parse_error(one + "cmd b 0 raw 0x1ffffffff\n"), "x.agx:3: cmd: operand 0x1ffffffff is out of range [0, 0xffffffff]");
  EXPECT_EQ(parse_error(one + "wait-stamp b 0 0x100000000\n"), "x.agx:3: wait-stamp: VALUE 0x100000000 is out of range [0, 0xffffffff]");
  EXPECT_EQ(parse_error(one + "submit b 0 0x4000 0x100000000\n"), "x.agx:3: submit: SLOT 0x100000000 is out of range [0, 0xffffffff]");
  EXPECT_EQ(parse_error(one + "expect-event 0 0x100000000 1\n"), "x.agx:3: expect-event: TYPE 0x100000000 is out of range [0, 0xffffffff]");
  // wait NS: at most gpuvp's largest time, 1 hour = 3.6e12 ns.
  EXPECT_EQ(parse_error("boot\nwait 3600000000001\n"), "x.agx:2: wait: NS 3600000000001 is out of range [0, 0x34630b8a000]");
  EXPECT_EQ(parse_error(one + "alloc c 0\n"), "x.agx:3: alloc c: PAGES must be at least 1");
}

TEST(agx_scenario_input, buffer_offsets_stay_inside_the_buffer_and_one_page) {
  // An 8-byte write at 0x3ffc of a one-page buffer ends 4 bytes past it.
  EXPECT_EQ(parse_error(one + "write b 0x3ffc 1\n"), "x.agx:3: write: 8 bytes at offset 0x3ffc lie outside b (0x4000 bytes)");
  EXPECT_EQ(parse_error(one + "write b 0x3ffc 1 u32\n"), "(accepted)");
  EXPECT_EQ(parse_error(one + "write b 0x4000 1 u32\n"), "x.agx:3: write: 4 bytes at offset 0x4000 lie outside b (0x4000 bytes)");
  // In a two-page buffer the same write is inside, but its pages are not contiguous in DRAM.
  EXPECT_EQ(parse_error(two + "write b 0x3ffc 1\n"),
            "x.agx:3: write: 8 bytes at offset 0x3ffc cross a 16 KiB page boundary of b (its pages are not contiguous)");
  EXPECT_EQ(parse_error(one + "wait-stamp b 0x4000 1\n"), "x.agx:3: wait-stamp: 4 bytes at offset 0x4000 lie outside b (0x4000 bytes)");
  EXPECT_EQ(parse_error(one + "expect-mem b 0x3ff9 0\n"), "x.agx:3: expect-mem: 8 bytes at offset 0x3ff9 lie outside b (0x4000 bytes)");
  // A stamp command is 16 bytes: at 0x3ff0 it fits exactly, at 0x3ff8 it does not.
  EXPECT_EQ(parse_error(one + "cmd b 0x3ff0 stamp 1 b\n"), "(accepted)");
  EXPECT_EQ(parse_error(one + "cmd b 0x3ff8 stamp 1 b\n"), "x.agx:3: cmd: 16 bytes at offset 0x3ff8 lie outside b (0x4000 bytes)");
  EXPECT_EQ(parse_error(one + "submit b 0x4000\n"), "x.agx:3: submit: offset 0x4000 lies outside b (0x4000 bytes)");
  // A freed buffer has no bytes left.
  EXPECT_EQ(parse_error(one + "free b\nwrite b 0 1\n"), "x.agx:4: write: 8 bytes at offset 0 lie outside b (0x0 bytes)");
}

TEST(agx_scenario_input, mappings_stay_in_one_half_of_the_address_space) {
  EXPECT_EQ(parse_error(one + "map b 0x10001 uncached gpu\n"), "x.agx:3: map: VA 0x10001 is not 16 KiB aligned");
  // Bits above 39 that are not all ones would alias a user VA.
  EXPECT_EQ(parse_error(one + "map b 0x1000000000000 uncached gpu\n"),
            "x.agx:3: map: VA 0x1000000000000 is neither a user VA (below 0x8000000000) nor a kernel VA (from 0xffffff8000000000)");
  // The last user page is 0x7fffffc000: one page fits there, two do not.
  EXPECT_EQ(parse_error(one + "map b 0x7fffffc000 uncached gpu\n"), "(accepted)");
  EXPECT_EQ(parse_error(two + "map b 0x7fffffc000 uncached gpu\n"),
            "x.agx:3: map: b's 2 pages from VA 0x7fffffc000 run past the end of the user half");
  EXPECT_EQ(parse_error(two + "map b 0xffffffffffffc000 cached fw\n"),
            "x.agx:3: map: b's 2 pages from VA 0xffffffffffffc000 run past the end of the kernel half");
}

TEST(agx_scenario_input, huge_allocations_are_refused_when_read) {
  // 2^32 pages once took 24 s and 3.9 GB before a bad_alloc.
  EXPECT_EQ(parse_error("boot\nalloc big 4294967296\n"),
            "x.agx:2: alloc big 4294967296: more pages than any DRAM holds (4194304 pages of 16 KiB in all)");
  // FWCtl counts pages in a u16.
  EXPECT_EQ(parse_error("boot\nalloc b 65536\nfwctl b\n"), "x.agx:3: fwctl: b has 65536 pages; a FWCtl message counts at most 65535");
}

// On the agx platform the driver's heap runs from 0x9_0000_0000 to the handoff area at
// 0x9_fff4_c000: 0xfff4c000 / 0x4000 = 262099 pages. Boot takes the control page and at most 10
// table pages, so 262100 more pages cannot fit; the run is refused before it starts (exit 2).
TEST(agx_scenario_input, allocations_beyond_the_dram_heap_are_refused_before_the_run) {
  const std::string file = ::testing::TempDir() + "/huge.agx";
  std::ofstream(file) << "boot\nalloc big 262100\n";
  const auto r = run_gpuvp({"run", "--workload", file});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find(file + ":2: the scenario's pages (with their page tables) need up to 262111 pages of 16 KiB from 0x900000000; "
                              "the DRAM there holds 262099 below 0x9fff4c000"),
            std::string::npos)
      << r.err;
}

// A `set` line's error names the scenario's own line (it once named line 4 of a generated YAML).
TEST(agx_scenario_input, set_line_errors_name_the_scenarios_line) {
  const std::string file = ::testing::TempDir() + "/set.agx";
  std::ofstream(file) << "boot\nset agx.asc.frobnicate 1\n";
  const auto r = run_gpuvp({"run", "--workload", file});
  EXPECT_EQ(r.rc, 2) << r.err;
  const size_t at = r.err.find(file + " (platform settings):2: ");
  ASSERT_NE(at, std::string::npos) << r.err;
  const std::string line = r.err.substr(at);
  EXPECT_NE(line.substr(0, line.find('\n')).find("'agx.asc.frobnicate'"), std::string::npos) << r.err;
}

TEST(agx_scenario_input, a_key_set_twice_is_refused_naming_both_lines) {
  const std::string file = ::testing::TempDir() + "/twice.agx";
  std::ofstream(file) << "set agx.driver.unmap_dance true\nboot\nset agx.driver.unmap_dance false\n";
  const auto r = run_gpuvp({"run", "--workload", file});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find(file + " (platform settings):3: duplicate key 'agx.driver.unmap_dance' (first given on line 1)"), std::string::npos)
      << r.err;
}

// A large buffer costs no host memory until used: fresh pages are zero in the sparse DRAM already
// (zeroing them by stores once took 20 s and 1 GiB of host memory for `alloc b 65536`). 65536
// pages of 16 KiB are 16384 host pages of 64 KiB; mapped, they need only their 8 B PTEs:
// 65536 * 8 B = 512 KiB of leaf tables = 8 host pages, plus a few for the other tables, the
// handoff area and the TTBAT.
TEST(agx_scenario_input, a_large_buffer_costs_no_host_memory_until_used) {
  const std::string file = ::testing::TempDir() + "/large.agx", stats = ::testing::TempDir() + "/large.json";
  std::ofstream(file) << "boot\nalloc b 65536\nmap b 0x4000000000 uncached gpu slot 1\nwrite b 0x3fffff8 7\nexpect-mem b 0x3fffff8 7\n"
                         "expect-mem b 0 0\n";
  const auto r = run_gpuvp({"run", "--workload", file, "--stats", stats});
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto j = nlohmann::json::parse(gpuvp::testing::slurp(stats));
  const double pages = j.at("dram.pages_allocated").get<double>();
  EXPECT_GE(pages, 8);
  EXPECT_LE(pages, 32) << "host pages of 64 KiB";
}
