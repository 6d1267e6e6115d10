// SPDX-License-Identifier: Apache-2.0
// RTL bus transactions in the Perfetto trace (--trace, docs/rtl.md): read back from the JSON, every
// RTL block has its track(s), one span per AXI burst / AXI4-Lite transfer, and spans on one track
// never overlap (overlapping transactions go to the lanes "NAME (2)", ...).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include "cli_testing.h"
#include "rtl_testing.h"

namespace {
struct span {
  int64_t start_ps, end_ps;
  std::string name, bus;
};
// Spans by track name, for the tracks whose name starts with `block`.
std::map<std::string, std::vector<span>> rtl_spans(const std::string& file, const std::string& block) {
  std::ifstream f(file);
  const auto j = nlohmann::json::parse(f, nullptr, false);
  std::map<int64_t, std::string> names;
  std::map<std::string, std::vector<span>> by_track;
  if (j.is_discarded()) return by_track;
  const auto& events = j.is_array() ? j : j.value("traceEvents", nlohmann::json::array());
  for (const auto& e : events)
    if (e.value("ph", "") == "M" && e.value("name", "") == "thread_name") {
      const std::string n = e["args"].value("name", "");
      if (n == block || n.rfind(block + " (", 0) == 0) names[e.value("tid", int64_t(0))] = n;
    }
  for (const auto& e : events) {
    if (e.value("ph", "") != "X" || !names.count(e.value("tid", int64_t(0)))) continue;
    const int64_t ts = std::llround(e.value("ts", 0.0) * 1e6), dur = std::llround(e.value("dur", 0.0) * 1e6);
    by_track[names[e["tid"]]].push_back({ts, ts + dur, e.value("name", ""), e["args"].value("bus", "")});
  }
  return by_track;
}
// Spans per track in order of start; each starts at or after the end of the one before.
void expect_no_overlap(std::map<std::string, std::vector<span>>& tracks) {
  for (auto& [track, spans] : tracks) {
    std::sort(spans.begin(), spans.end(), [](const span& a, const span& b) { return a.start_ps < b.start_ps; });
    for (size_t i = 1; i < spans.size(); ++i)
      EXPECT_GE(spans[i].start_ps, spans[i - 1].end_ps) << track << ": span " << i << " overlaps the one before";
  }
}
size_t count(const std::map<std::string, std::vector<span>>& tracks, const std::string& name, const std::string& bus) {
  size_t n = 0;
  for (const auto& [track, spans] : tracks)
    for (const auto& s : spans) n += s.name == name && s.bus == bus;
  return n;
}
uint64_t stat(const nlohmann::json& j, const std::string& key) { return j.value(key, uint64_t(0)); }
}  // namespace

// The RTL copy engine: its register transfers (s_axil) and memory bursts (m_axi) on the track
// "copy.rtl"; one span per burst the transactors counted.
TEST(rtl_spans, rtl_copy_engine_has_a_track_with_its_bursts) {
  NEEDS_RTL();
  const std::string trace = gpuvp::testing::binary_path("rtl_spans_copy.json");
  const std::string stats = gpuvp::testing::binary_path("rtl_spans_copy.stats.json");
  auto r = gpuvp::testing::run_gpuvp({"run", "--workload", "rtl-copy", "--set", "copy.impl=rtl", "--trace", trace, "--stats", stats});
  ASSERT_EQ(r.rc, 0) << r.err;
  auto tracks = rtl_spans(trace, "copy.rtl");
  ASSERT_TRUE(tracks.count("copy.rtl")) << "no track copy.rtl";
  std::ifstream sf(stats);
  const auto s = nlohmann::json::parse(sf, nullptr, false);
  ASSERT_FALSE(s.is_discarded());
  const uint64_t bursts = stat(s, "copy.rtl.mem.bursts");
  EXPECT_GT(bursts, 0u);
  EXPECT_EQ(count(tracks, "read", "m_axi") + count(tracks, "write", "m_axi"), bursts);
  EXPECT_GT(count(tracks, "read", "m_axi"), 0u);
  EXPECT_GT(count(tracks, "write", "m_axi"), 0u);
  EXPECT_EQ(count(tracks, "write", "s_axil"), stat(s, "copy.rtl.regs.writes"));
  EXPECT_EQ(count(tracks, "read", "s_axil"), stat(s, "copy.rtl.regs.reads"));
  expect_no_overlap(tracks);
}

// The RTL SRAM as a platform component: a 300-byte write is three bursts in flight at once
// (16 beats of 8 bytes each at most, 4 IDs): they overlap, so they spread over lanes.
TEST(rtl_spans, rtl_component_overlapping_bursts_use_lanes) {
  NEEDS_RTL();
  const std::string trace = gpuvp::testing::binary_path("rtl_spans_sram.json");
  auto r = gpuvp::testing::run_gpuvp(
      {"qtest", "--set", "components.sram=rtl_sram", "--set", "sram.base=0x300000000", "--set", "sram.size=0x10000", "--trace", trace},
      "write 0x300000000 300 0x" + gpuvp::testing::hex_bytes(300, 9) + "\nread 0x300000000 300\nreadq 0x300000008\n");
  ASSERT_EQ(r.rc, 0) << r.err;
  auto tracks = rtl_spans(trace, "sram");
  ASSERT_TRUE(tracks.count("sram")) << "no track sram";
  EXPECT_TRUE(tracks.count("sram (2)")) << "overlapping bursts on one lane?";
  EXPECT_EQ(count(tracks, "write", "s_axi"), 3u);  // 128 + 128 + 44 bytes
  EXPECT_EQ(count(tracks, "read", "s_axi"), 4u);
  expect_no_overlap(tracks);
}

void gpuvp_register_test_tdma();

// A component with several buses (tests/rtl_bridge/rtl/tdma.sv: an AXI4-Lite control slave, an
// AXI4 master, an AXI4 scratch-RAM slave): one track "dma" for the block, spans of all three buses
// on it, one per transfer or burst the transactors counted (issue #30: a track per RTL component).
TEST(rtl_spans, multi_bus_component_has_spans_on_each_bus) {
  NEEDS_RTL();
  const std::string trace = gpuvp::testing::binary_path("rtl_spans_tdma.json");
  const std::string stats = gpuvp::testing::binary_path("rtl_spans_tdma.stats.json");
  std::filesystem::remove(trace);
  std::filesystem::remove(stats);
  // Copy 36 bytes from 0x1000 to 0x2004 through the control registers, acknowledge DONE, then one
  // quad write and read of the scratch RAM.
  const std::string script = "write 0x1000 36 0x" + gpuvp::testing::hex_bytes(36, 3) +
                             "\nwritel 0x100e10000 0x1000\nwritel 0x100e10004 0\nwritel 0x100e10008 0x2004\nwritel 0x100e1000c 0\n"
                             "writel 0x100e10010 36\nwritel 0x100e10014 1\nclock_step 2000\nreadl 0x100e10018\nwritel 0x100e10018 2\n"
                             "writeq 0x300000008 0x1234\nreadq 0x300000008\n";
  auto r = gpuvp::testing::run_gpuvp({"qtest", "--set", "components.dma=test_tdma", "--set", "dma.s_axil.base=0xe10000", "--set",
                                      "dma.s_axil.size=0x1000", "--set", "dma.s_axil.in_bar0=true", "--set", "dma.s_axi.base=0x300000000",
                                      "--set", "dma.s_axi.size=0x10000", "--trace", trace, "--stats", stats},
                                     script, [] {
#ifdef GPUVP_TEST_RTL
                                       gpuvp_register_test_tdma();
#endif
                                     });
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("OK 0x0000000000001234\n"), std::string::npos) << r.out;
  // Spans name their bus by the IP's own port prefix (S_AXIL_, M_AXI_, S_AXI_) without the '_'.
  auto tracks = rtl_spans(trace, "dma");
  ASSERT_TRUE(tracks.count("dma")) << "no track dma";
  std::ifstream sf(stats);
  const auto s = nlohmann::json::parse(sf, nullptr, false);
  ASSERT_FALSE(s.is_discarded());
  EXPECT_EQ(count(tracks, "write", "S_AXIL"), stat(s, "dma.s_axil.writes"));
  EXPECT_EQ(count(tracks, "read", "S_AXIL"), stat(s, "dma.s_axil.reads"));
  EXPECT_EQ(count(tracks, "write", "S_AXIL"), 7u);  // 6 to program the copy, 1 to acknowledge DONE
  const uint64_t master = stat(s, "dma.m_axi.bursts");
  EXPECT_GT(master, 0u);
  EXPECT_EQ(count(tracks, "read", "M_AXI") + count(tracks, "write", "M_AXI"), master);
  EXPECT_GT(count(tracks, "read", "M_AXI"), 0u);
  EXPECT_GT(count(tracks, "write", "M_AXI"), 0u);
  EXPECT_EQ(count(tracks, "write", "S_AXI"), 1u);
  EXPECT_EQ(count(tracks, "read", "S_AXI"), 1u);
  expect_no_overlap(tracks);
}
