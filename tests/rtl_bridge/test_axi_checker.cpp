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
std::string only(const axi_checker& c) { return c.violations().size() == 1 ? c.violations()[0] : "(" + std::to_string(c.violations().size()) + " violations)"; }
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
    EXPECT_NE(only(c).find("m_axi_araddr at cycle 2: araddr changed from 0x1000 to 0x1008 while arvalid was high and arready low [rule stable_payload]"), std::string::npos) << only(c);
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
    EXPECT_NE(only(c).find("s_axi_bid at cycle 3: write response ID 4 matches no outstanding write [rule bid]"), std::string::npos) << only(c);
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
