// SPDX-License-Identifier: Apache-2.0
// The AXI protocol checker on synthetic pin samples (no RTL needed): every rule fires on the
// sequence that breaks it and stays quiet on a legal one.
#include <gtest/gtest.h>
#include "axi_checker.h"

using gpuvp::rtl::axi_checker;
using gpuvp::rtl::axi_sample;

namespace {
axi_sample::channel addr(bool valid, bool ready, uint64_t id, uint64_t a, uint64_t len, uint64_t size = 3, uint64_t burst = 1) {
  return {valid, ready, {id, a, len, size, burst}};
}
std::string only(const axi_checker& c) {
  return c.violations().size() == 1 ? c.violations()[0] : "(" + std::to_string(c.violations().size()) + " violations)";
}
}  // namespace

TEST(axi_checker, legal_write_and_read_are_quiet) {
  axi_checker c("t", "m_axi", 8, false);
  axi_sample s;
  s.aw = addr(true, false, 1, 0x1000, 1);
  c.check(s, 1);
  s.aw = addr(true, true, 1, 0x1000, 1);  // held and stable until READY
  c.check(s, 2);
  s = {};
  s.w = {true, true, {0x11, 0xff, 0}};
  c.check(s, 3);
  s.w = {true, true, {0x22, 0xff, 1}};
  c.check(s, 4);
  s = {};
  s.b = {true, true, {1, 0}};
  s.ar = addr(true, true, 2, 0x2000, 0);
  c.check(s, 5);
  s = {};
  s.r = {true, true, {2, 0x33, 0, 1}};
  c.check(s, 6);
  EXPECT_TRUE(c.violations().empty()) << c.violations()[0];
}

TEST(axi_checker, each_rule) {
  {
    axi_checker c("t", "m_axi", 8, false);
    axi_sample s;
    s.aw = addr(true, false, 0, 0x1000, 0);
    c.check(s, 7);
    s.aw.valid = false;
    c.check(s, 8);
    EXPECT_EQ(only(c), "AXI protocol violation on t: m_axi_awvalid at cycle 8: awvalid fell before awready was high [rule valid_held]");
  }
  {
    axi_checker c("t", "m_axi", 8, false);
    axi_sample s;
    s.ar = addr(true, false, 0, 0x1000, 0);
    c.check(s, 1);
    s.ar.v[1] = 0x1008;
    c.check(s, 2);
    EXPECT_NE(
        only(c).find(
            "m_axi_araddr at cycle 2: araddr changed from 0x1000 to 0x1008 while arvalid was high and arready low [rule stable_payload]"),
        std::string::npos)
        << only(c);
  }
  {
    axi_checker c("t", "m_axi", 8, false);
    axi_sample s;
    s.aw = addr(true, true, 0, 0x1000, 1);  // 2 beats
    c.check(s, 1);
    s = {};
    s.w = {true, true, {0, 0xff, 1}};  // WLAST on beat 1 of 2
    c.check(s, 2);
    EXPECT_NE(only(c).find("m_axi_wlast at cycle 2: high on beat 1 of a 2-beat write burst [rule wlast]"), std::string::npos) << only(c);
  }
  {
    axi_checker c("t", "m_axi", 8, false);
    axi_sample s;
    s.aw = addr(true, true, 0, 0xff8, 1);  // 0xff8 + 2 * 8 - 1 = 0x1007
    c.check(s, 3);
    EXPECT_NE(only(c).find("from 0xff8 ends at 0x1007, across a 4 KiB boundary [rule 4k_boundary]"), std::string::npos) << only(c);
  }
  {
    axi_checker c("t", "s_axi", 8, false);
    axi_sample s;
    s.aw = addr(true, true, 3, 0x0, 0);
    c.check(s, 1);
    s = {};
    s.w = {true, true, {0, 0xff, 1}};
    c.check(s, 2);
    s = {};
    s.b = {true, true, {4, 0}};
    c.check(s, 3);
    EXPECT_NE(only(c).find("s_axi_bid at cycle 3: write response ID 4 matches no outstanding write [rule bid]"), std::string::npos)
        << only(c);
  }
  {
    axi_checker c("t", "s_axi", 8, false);
    axi_sample s;
    s.r = {true, true, {5, 0, 0, 1}};
    c.check(s, 9);
    EXPECT_NE(only(c).find("s_axi_rid at cycle 9: read data ID 5 matches no outstanding read [rule rid]"), std::string::npos) << only(c);
  }
  {
    axi_checker c("t", "m_axi", 8, false);
    axi_sample s;
    s.ar = addr(true, true, 0, 0x0, 0, 4);  // 16-byte beats on an 8-byte bus
    c.check(s, 1);
    EXPECT_NE(only(c).find("[rule size]"), std::string::npos) << only(c);
  }
}

// WRAP and FIXED address rules (A3.4.1): a WRAP burst has 2, 4, 8 or 16 beats and starts at an
// address aligned to its size; a FIXED burst has 1 to 16 beats. Neither is subject to the INCR
// 4 KiB check (a WRAP burst stays inside its aligned (len+1)*size window).
TEST(axi_checker, wrap_and_fixed_bursts) {
  auto one = [](uint64_t a, uint64_t len, uint64_t size, uint64_t burst) {
    axi_checker c("t", "m_axi", 8, false);
    axi_sample s;
    s.ar = addr(true, true, 0, a, len, size, burst);
    c.check(s, 4);
    return c.violations().empty() ? std::string() : only(c);
  };
  const uint64_t wrap = 2, fixed = 0;
  for (uint64_t len : {1, 3, 7, 15}) EXPECT_EQ(one(0xff8, len, 3, wrap), "") << len;  // inside its aligned window below 0x1000
  EXPECT_EQ(one(0x1006, 3, 1, wrap), "");                                             // 2-byte beats, 2-aligned
  EXPECT_EQ(one(0x1000, 2, 3, wrap),
            "AXI protocol violation on t: m_axi_arlen at cycle 4: WRAP burst needs 2, 4, 8 or 16 beats and an address aligned to the size "
            "[rule wrap_len]");
  EXPECT_NE(one(0x1000, 0, 3, wrap).find("[rule wrap_len]"), std::string::npos);   // 1 beat
  EXPECT_NE(one(0x1000, 31, 3, wrap).find("[rule wrap_len]"), std::string::npos);  // 32 beats
  EXPECT_NE(one(0x1004, 3, 3, wrap).find("[rule wrap_len]"), std::string::npos);   // 8-byte beats at 4 mod 8
  EXPECT_EQ(one(0xffc, 15, 2, fixed), "");                                         // 16 beats at one address, however near 4 KiB
  EXPECT_EQ(one(0xffc, 16, 2, fixed),
            "AXI protocol violation on t: m_axi_arlen at cycle 4: FIXED burst of 17 beats; at most 16 [rule fixed_len]");
  EXPECT_NE(one(0x0, 0, 2, 3).find("reserved burst type 3 [rule burst]"), std::string::npos);
}

// RLAST (A3.4.1, A2.6): high on the ARLEN+1-th beat of a read burst and only there.
TEST(axi_checker, rlast_on_the_wrong_beat) {
  auto run = [](uint64_t last_on_first, uint64_t last_on_second) {
    axi_checker c("t", "s_axi", 8, false);
    axi_sample s;
    s.ar = addr(true, true, 1, 0x100, 1);  // 2 beats
    c.check(s, 1);
    s = {};
    s.r = {true, true, {1, 0, 0, last_on_first}};
    c.check(s, 2);
    s.r = {true, true, {1, 0, 0, last_on_second}};
    c.check(s, 3);
    return c.violations();
  };
  EXPECT_TRUE(run(0, 1).empty());
  const auto early = run(1, 1);
  ASSERT_FALSE(early.empty());
  EXPECT_NE(early[0].find("s_axi_rlast at cycle 2: high before the last beat"), std::string::npos) << early[0];
  EXPECT_NE(early[0].find("[rule rlast]"), std::string::npos) << early[0];
  const auto missing = run(0, 0);
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_NE(missing[0].find("s_axi_rlast at cycle 3: low on the last beat"), std::string::npos) << missing[0];
}

// On a 32-bit bus (a third-party block's DATA_WIDTH=32) 8-byte beats are too wide (A3.4.1).
TEST(axi_checker, size_follows_the_bus_width) {
  axi_checker c("t", "m_axi", 4, false);
  axi_sample s;
  s.aw = addr(true, true, 0, 0x0, 0, 2);  // 4-byte beats: fine
  c.check(s, 1);
  EXPECT_TRUE(c.violations().empty());
  s.aw = addr(true, true, 1, 0x8, 0, 3);
  c.check(s, 2);
  EXPECT_NE(only(c).find("m_axi_awsize at cycle 2"), std::string::npos) << only(c);
  EXPECT_NE(only(c).find("4-byte data bus [rule size]"), std::string::npos) << only(c);
}
