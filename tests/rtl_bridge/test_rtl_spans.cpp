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
