// SPDX-License-Identifier: Apache-2.0
// `pm4-decode CAPTURE.rd`: the nested listing follows what Mesa's cffdump follows (IB2s one level
// down, CP_SET_DRAW_STATE groups two levels down at the next draw or at once for LOAD_IMMED,
// CP_COND_* bodies in place, --once per render mode). Expected values come from the packet
// layouts written by hand here, from cffdump's reference decode of the dEQP-VK capture (Mesa
// src/freedreno/tests/reference/, `--frame 0 --once`), and from a small independent decoder.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <gtest/gtest.h>

#include "cp_bench.h"
#include "cp_test_util.h"
#include "pm4_walk.h"
#include "rd.h"
#include "rd_writer.h"
#include "testing.h"

using namespace cp_test;
using namespace gpuvp::cp;

namespace {

struct seen {
  uint64_t addr;
  int level;
  std::string name;
  bool operator==(const seen& o) const { return addr == o.addr && level == o.level && name == o.name; }
};
std::ostream& operator<<(std::ostream& os, const seen& s) {
  return os << std::hex << "0x" << s.addr << std::dec << " L" << s.level << " " << s.name;
}
// PKT4 entries are named by their first register, as cffdump's "write REG (reg)".
std::vector<seen> listed(const pm4_walk_result& r) {
  std::vector<seen> v;
  char b[32];
  for (const auto& p : r.packets) {
    std::snprintf(b, sizeof b, "PKT4 %x", p.reg);
    v.push_back({p.addr, p.level, p.type4 ? b : p.name});
  }
  return v;
}

command_result pm4_decode(const std::string& args) {
  return run_command(gpuvp::testing::binary_path("gpuvp") + " pm4-decode " + args + " 2>&1");
}

constexpr uint32_t IB = 0x3f, SDS = 0x43, SET_MARKER = 0x65, DRAW_INDX_OFFSET = 0x38, COND_REG_EXEC = 0x47, WAIT_FOR_IDLE = 0x26;
constexpr uint32_t GMEM = 2, ALL = 7, LOAD_IMMED = 8;
uint32_t group(uint32_t id, uint32_t mask, uint32_t flags, uint32_t count) { return id << 24 | mask << 20 | flags << 16 | count; }

// IB1 at 0x100000 (42 dwords): an IB2 at 0x200000 called in the binning mode, twice in the GMEM
// mode, one IB2 that the capture lacks, draw-state groups at 0x300000 / 0x300010.
rd_writer nested_capture() {
  const std::vector<uint32_t> ib1 = {t4(0x8e07, 1),
                                     0x10000000,  // 0x100000
                                     t7(SET_MARKER, 1),
                                     2,  // 0x100008 RM6_BIN_VISIBILITY: binning
                                     t7(IB, 3),
                                     0x200000,
                                     0,
                                     6,  // 0x100010
                                     t7(SDS, 6),
                                     group(1, GMEM, 0, 2),
                                     0x300000,
                                     0,  // 0x100020: group 1 for GMEM only
                                     group(2, ALL, LOAD_IMMED, 2),
                                     0x300010,
                                     0,  //           group 2 loaded at once
                                     t7(DRAW_INDX_OFFSET, 3),
                                     0,
                                     0,
                                     0,  // 0x10003c: group 1 skipped (binning)
                                     t7(SDS, 3),
                                     group(1, ALL, 0, 2),
                                     0x300000,
                                     0,  // 0x10004c
                                     t7(DRAW_INDX_OFFSET, 3),
                                     0,
                                     0,
                                     0,  // 0x10005c: group 1 loaded before the draw
                                     t7(SET_MARKER, 1),
                                     4,  // 0x10006c RM6_BIN_RENDER_START: GMEM
                                     t7(IB, 3),
                                     0x200000,
                                     0,
                                     6,  // 0x100074: new mode, listed again
                                     t7(IB, 3),
                                     0x200000,
                                     0,
                                     6,  // 0x100084: --once: not again
                                     t7(IB, 3),
                                     0x500000,
                                     0,
                                     4,                                    // 0x100094: not in the capture
                                     t7(WAIT_FOR_IDLE, 0)};                // 0x1000a4
  const std::vector<uint32_t> ib2 = {t7(COND_REG_EXEC, 2), 0x34000000, 2,  // its body: the next 2 dwords
                                     t4(0x88d1, 1),        5,          t7(WAIT_FOR_IDLE, 0)};
  rd_writer w;
  w.gpu_id(630).submit("nested").buffer(0x200000, ib2).buffer(0x300000, {t4(0x9b00, 1), 1, 0, 0, t4(0xa000, 1), 2});
  w.ib_words(0x100000, ib1);
  return w;
}

// The IB2's packets, one level down; the COND_REG_EXEC body (the PKT4) stays in place.
std::vector<seen> ib2_packets() {
  return {{0x200000, 1, "CP_COND_REG_EXEC"}, {0x20000c, 1, "PKT4 88d1"}, {0x200014, 1, "CP_WAIT_FOR_IDLE"}};
}

}  // namespace

TEST(pm4Walk, IbsGroupsAndCondBodiesNestAsCffdump) {
  const rd_capture c = rd_parse(nested_capture().vec(), "nested.rd");
  std::vector<seen> want = {{0x100000, 0, "PKT4 8e07"}, {0x100008, 0, "CP_SET_MARKER"}, {0x100010, 0, "CP_INDIRECT_BUFFER"}};
  for (const auto& s : ib2_packets()) want.push_back(s);
  const std::vector<seen> middle = {{0x100020, 0, "CP_SET_DRAW_STATE"},   {0x300010, 2, "PKT4 a000"},
                                    {0x10003c, 0, "CP_DRAW_INDX_OFFSET"}, {0x10004c, 0, "CP_SET_DRAW_STATE"},
                                    {0x300000, 2, "PKT4 9b00"},           {0x10005c, 0, "CP_DRAW_INDX_OFFSET"},
                                    {0x10006c, 0, "CP_SET_MARKER"},       {0x100074, 0, "CP_INDIRECT_BUFFER"}};
  want.insert(want.end(), middle.begin(), middle.end());
  for (const auto& s : ib2_packets()) want.push_back(s);
  std::vector<seen> once = want;
  once.push_back({0x100084, 0, "CP_INDIRECT_BUFFER"});
  once.push_back({0x100094, 0, "CP_INDIRECT_BUFFER"});
  once.push_back({0x1000a4, 0, "CP_WAIT_FOR_IDLE"});
  const pm4_walk_result r1 = pm4_walk_capture(c, 0, 0, true);
  EXPECT_EQ(listed(r1), once);
  EXPECT_EQ(r1.missing, 1u);  // the IB2 at 0x500000
  EXPECT_EQ(r1.bad, 0u);
  EXPECT_NE(r1.listing.find("draw state group 1 at 0x0000000000300000, 2 dwords, enable_mask 0x2: skipped in this mode"), std::string::npos)
      << r1.listing;
  EXPECT_NE(r1.listing.find("IB at 0x0000000000200000, 6 dwords: listed before for this mode (--once)"), std::string::npos);
  EXPECT_NE(r1.listing.find("not in the capture: 4 dwords at 0x0000000000500000"), std::string::npos);

  // Without --once every call is listed.
  std::vector<seen> all = want;
  all.push_back({0x100084, 0, "CP_INDIRECT_BUFFER"});
  for (const auto& s : ib2_packets()) all.push_back(s);
  all.push_back({0x100094, 0, "CP_INDIRECT_BUFFER"});
  all.push_back({0x1000a4, 0, "CP_WAIT_FOR_IDLE"});
  EXPECT_EQ(listed(pm4_walk_capture(c, 0, 0, false)), all);
}

TEST(pm4Walk, LoopsAndBudgetStop) {
  rd_writer w;  // an IB1 that calls itself
  w.gpu_id(630).submit().ib_words(0x100000, {t7(IB, 3), 0x100000, 0, 4});
  const rd_capture c = rd_parse(w.vec(), "loop.rd");
  const pm4_walk_result deep = pm4_walk_capture(c, 0, 0, false);
  EXPECT_EQ(deep.packets.size(), 17u);  // levels 0..16
  EXPECT_EQ(deep.packets.back().level, 16);
  EXPECT_NE(deep.listing.find("nested deeper than 16 levels, not followed"), std::string::npos);
  // --once: the IB is not listed twice in one mode (the IB1 itself is not recorded, as in cffdump)
  EXPECT_EQ(pm4_walk_capture(c, 0, 0, true).packets.size(), 2u);

  const std::vector<uint32_t> words(64, t7(WAIT_FOR_IDLE, 0));
  pm4_walk_options opt;
  opt.max_packets = 10;
  const pm4_memory mem = [&](uint64_t, uint32_t n) { return std::vector<uint32_t>(words.begin(), words.begin() + n); };
  const pm4_walk_result r = pm4_walk(mem, 0x1000, 64, opt);
  EXPECT_EQ(r.packets.size(), 10u);
  EXPECT_NE(r.listing.find("listing stops after 10 packets, 10 dwords (the budget)"), std::string::npos) << r.listing;
  // A dword budget: an IB far larger than it is fetched only up to the budget.
  opt.max_packets = 1000;
  opt.max_dwords = 20;
  uint32_t asked = 0;
  const pm4_memory big = [&](uint64_t, uint32_t n) {
    asked = n;
    return std::vector<uint32_t>(n, t7(WAIT_FOR_IDLE, 0));
  };
  const pm4_walk_result b = pm4_walk(big, 0x1000, 0xffffffffu, opt);
  EXPECT_EQ(asked, 21u);
  EXPECT_EQ(b.packets.size(), 20u);
  EXPECT_EQ(b.missing, 0u);  // cut by the budget, not missing from the capture
}

TEST(pm4Walk, CommandLine) {
  const std::string f = gpuvp::testing::binary_path("pm4_walk_nested.rd");
  nested_capture().save(f, true);
  command_result r = pm4_decode(f + " --once");
  EXPECT_EQ(r.rc, 0) << r.out;
  char line[96];
  std::snprintf(line, sizeof line, "0000000000200000: %08x    CP_COND_REG_EXEC (2)\n", t7(COND_REG_EXEC, 2));
  EXPECT_NE(r.out.find(line), std::string::npos) << r.out;  // level 1: two spaces deeper
  std::snprintf(line, sizeof line, "0000000000100010: %08x  CP_INDIRECT_BUFFER (3)\n", t7(IB, 3));
  EXPECT_NE(r.out.find(line), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("submit 0 of 1 (\"nested\"), IB1 0 of 1 at 0x0000000000100000, 42 dwords"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 IB(s) or group(s) not (fully) in the capture"), std::string::npos) << r.out;

  EXPECT_EQ(pm4_decode(f + " --submit 1").rc, 2);
  r = pm4_decode(f + " --ib 3");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find("submit 0 has no IB 3 (1 IB1s)"), std::string::npos) << r.out;
  EXPECT_EQ(pm4_decode(gpuvp::testing::binary_path("no_such.rd")).rc, 2);
  r = pm4_decode("--once " + gpuvp::testing::binary_path("x.bin"));
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find("apply to a .rd capture only"), std::string::npos) << r.out;

  rd_writer old;  // a4xx: PM4 type 0/3, not decoded
  old.gpu_id(420).submit().ib_words(0x1000, {0xc0001000});
  old.save(f);
  r = pm4_decode(f);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find("an a4xx capture"), std::string::npos) << r.out;

  rd_writer bad;  // an invalid header in the IB2: exit 1 as for a binary stream
  bad.gpu_id(630).submit().buffer(0x2000, {0x12345678}).ib_words(0x1000, {t7(IB, 3), 0x2000, 0, 1});
  bad.save(f);
  r = pm4_decode(f);
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("0000000000002000: 12345678    invalid header"), std::string::npos) << r.out;

  std::string trunc = nested_capture().bytes;
  trunc.resize(trunc.size() - 3);
  std::ofstream(f, std::ios::binary).write(trunc.data(), std::streamsize(trunc.size()));
  r = pm4_decode(f);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find("past the end of the file"), std::string::npos) << r.out;
}

// --- real captures ----------------------------------------------------------------------------

namespace {
// A small decoder of its own: the packets of one flat stream, no parity checks, no nesting.
std::vector<seen> flat(const rd_capture::submit& s, uint64_t addr, uint32_t dwords, int level) {
  std::vector<seen> v;
  const rd_capture::buffer* b = s.find(addr, 4ull * dwords);
  if (!b) return v;
  auto word = [&](uint32_t i) {
    uint32_t x;
    std::memcpy(&x, b->bytes.data() + (addr - b->addr) + 4 * i, 4);
    return x;
  };
  static const std::map<uint32_t, std::string> names = {{0x26, "CP_WAIT_FOR_IDLE"},
                                                        {0x46, "CP_EVENT_WRITE"},
                                                        {0x43, "CP_SET_DRAW_STATE"},
                                                        {0x2c, "CP_BLIT"},
                                                        {0x1d, "CP_SKIP_IB2_ENABLE_GLOBAL"},
                                                        {0x23, "CP_SKIP_IB2_ENABLE_LOCAL"},
                                                        {0x65, "CP_SET_MARKER"},
                                                        {0x64, "CP_SET_VISIBILITY_OVERRIDE"},
                                                        {0x63, "CP_SET_MODE"},
                                                        {0x3f, "CP_INDIRECT_BUFFER"},
                                                        {0x47, "CP_COND_REG_EXEC"},
                                                        {0x6d, "CP_REG_WRITE"},
                                                        {0x13, "CP_WAIT_FOR_ME"},
                                                        {0x2a, "CP_DRAW_INDIRECT_MULTI"},
                                                        {0x38, "CP_DRAW_INDX_OFFSET"},
                                                        {0x10, "CP_NOP"}};
  for (uint32_t i = 0; i < dwords;) {
    const uint32_t h = word(i);
    char n[32];
    uint32_t count;
    if (h >> 28 == 4) {
      count = h & 0x7f;
      std::snprintf(n, sizeof n, "PKT4 %x", (h >> 8) & 0x3ffff);
    } else if (h >> 28 == 7) {
      count = h & 0x3fff;
      const auto it = names.find((h >> 16) & 0x7f);
      std::snprintf(n, sizeof n, "%s", it == names.end() ? "?" : it->second.c_str());
    } else {
      break;
    }
    v.push_back({addr + 4 * i, level, n});
    i += 1 + count;
  }
  return v;
}
}  // namespace

TEST(pm4WalkReal, DeqpFirstIbAsCffdumpReferenceDecode) {
  const std::string cap = gpuvp::testing::real_data_path("adreno/deqp-vk-indirect-draw-count.rd.gz");
  if (cap.empty()) GTEST_SKIP() << gpuvp::testing::real_data_missing("adreno/deqp-vk-indirect-draw-count.rd.gz");
  const rd_capture c = rd_parse(rd_read_file(cap), cap);
  const pm4_walk_result r = pm4_walk_capture(c, 0, 0, true);
  EXPECT_EQ(r.bad, 0u);
  EXPECT_EQ(r.missing, 0u);
  const std::vector<seen> got = listed(r);
  std::vector<seen> level0, level1, level3;
  for (const auto& s : got) (s.level == 0 ? level0 : s.level == 1 ? level1 : level3).push_back(s);
  // Level 0: the IB1 (cmdstream[0], 265 dwords at 0x1058000) as a flat stream; cffdump's decode
  // has its packets at these addresses, among them the two IB2 calls and the last CP_EVENT_WRITE.
  EXPECT_EQ(level0, flat(c.submits[0], 0x1058000, 265, 0));
  for (const seen& s : {seen{0x10581ec, 0, "CP_SET_DRAW_STATE"}, seen{0x10582dc, 0, "CP_BLIT"}, seen{0x10583b8, 0, "CP_INDIRECT_BUFFER"},
                        seen{0x10583c8, 0, "CP_INDIRECT_BUFFER"}, seen{0x1058410, 0, "CP_EVENT_WRITE"}})
    EXPECT_NE(std::find(level0.begin(), level0.end(), s), level0.end()) << s;
  // Level 1: both IB2s as cffdump lists them (0x115e000, 0xf1 dwords; 0x115c000, 0x1c dwords),
  // CP_COND_REG_EXEC bodies in place.
  const std::vector<seen> want1 = {{0x115e000, 1, "CP_COND_REG_EXEC"},
                                   {0x115e00c, 1, "PKT4 88d1"},
                                   {0x115e018, 1, "PKT4 88d5"},
                                   {0x115e020, 1, "PKT4 88e3"},
                                   {0x115e028, 1, "PKT4 88d7"},
                                   {0x115e03c, 1, "PKT4 88dc"},
                                   {0x115e04c, 1, "PKT4 88d6"},
                                   {0x115e054, 1, "CP_EVENT_WRITE"},
                                   {0x115e05c, 1, "PKT4 88d1"},
                                   {0x115e068, 1, "CP_COND_REG_EXEC"},
                                   {0x115e074, 1, "PKT4 8872"},
                                   {0x115e090, 1, "PKT4 8098"},
                                   {0x115e098, 1, "PKT4 8103"},
                                   {0x115e0b0, 1, "PKT4 8881"},
                                   {0x115e0b8, 1, "PKT4 8822"},
                                   {0x115e0d4, 1, "PKT4 a996"},
                                   {0x115e0dc, 1, "PKT4 8903"},
                                   {0x115e0ec, 1, "PKT4 880f"},
                                   {0x115e0f4, 1, "PKT4 a98a"},
                                   {0x115e0fc, 1, "PKT4 8004"},
                                   {0x115e104, 1, "PKT4 b300"},
                                   {0x115e110, 1, "PKT4 80a2"},
                                   {0x115e11c, 1, "PKT4 8802"},
                                   {0x115e128, 1, "PKT4 88d5"},
                                   {0x115e130, 1, "CP_COND_REG_EXEC"},
                                   {0x115e13c, 1, "CP_REG_WRITE"},
                                   {0x115e14c, 1, "CP_SET_DRAW_STATE"},
                                   {0x115e168, 1, "CP_SET_DRAW_STATE"},
                                   {0x115e238, 1, "PKT4 9803"},
                                   {0x115e240, 1, "CP_WAIT_FOR_ME"},
                                   {0x115e244, 1, "PKT4 9b00"},
                                   {0x115e24c, 1, "CP_SET_DRAW_STATE"},
                                   {0x115e394, 1, "CP_DRAW_INDIRECT_MULTI"},
                                   {0x115c000, 1, "CP_SET_DRAW_STATE"},
                                   {0x115c010, 1, "CP_SKIP_IB2_ENABLE_GLOBAL"},
                                   {0x115c018, 1, "CP_SET_MARKER"},
                                   {0x115c020, 1, "PKT4 88d1"},
                                   {0x115c02c, 1, "PKT4 88d5"},
                                   {0x115c034, 1, "PKT4 88e3"},
                                   {0x115c03c, 1, "PKT4 88d7"},
                                   {0x115c050, 1, "PKT4 88dc"},
                                   {0x115c060, 1, "PKT4 88d6"},
                                   {0x115c068, 1, "CP_EVENT_WRITE"}};
  EXPECT_EQ(level1, want1);
  // Level 3: the draw-state groups loaded before CP_DRAW_INDIRECT_MULTI in GMEM mode (cffdump:
  // groups 0, 3, 4, 6, 7, 8, 19-28; 1 and 5 are binning-only and skipped).
  std::vector<uint64_t> starts;
  for (const auto& s : level3) EXPECT_EQ(s.level, 3) << s;
  for (const char* g : {"group 0 at 0x0000000001054180, 157", "group 3 at 0x000000000115c070, 4", "group 4 at 0x0000000001054620, 19",
                        "group 28 at 0x00000000010547b4, 6"})
    EXPECT_NE(r.listing.find(std::string("draw state ") + g + " dwords"), std::string::npos) << g;
  for (const char* g : {"group 1 at 0x00000000010543f4, 139 dwords, enable_mask 0x1: skipped",
                        "group 5 at 0x000000000105466c, 19 dwords, enable_mask 0x1: skipped"})
    EXPECT_NE(r.listing.find(std::string("draw state ") + g), std::string::npos) << g;
  const std::vector<seen> group4 = {{0x1054620, 3, "PKT4 a013"}, {0x1054628, 3, "PKT4 a090"}, {0x1054634, 3, "PKT4 a0d0"},
                                    {0x105463c, 3, "PKT4 a092"}, {0x1054648, 3, "PKT4 a0d1"}, {0x1054650, 3, "PKT4 a094"},
                                    {0x105465c, 3, "PKT4 a0d2"}, {0x1054664, 3, "PKT4 a000"}};
  const auto at = std::find(level3.begin(), level3.end(), group4[0]);
  ASSERT_NE(at, level3.end());
  EXPECT_EQ(std::vector<seen>(at, at + long(std::min<size_t>(group4.size(), size_t(level3.end() - at)))), group4);
  ASSERT_FALSE(level3.empty());
  EXPECT_EQ(level3.front(), (seen{0x1054180, 3, "PKT4 bb08"}));  // group 0 first, as cffdump
  EXPECT_EQ(level3.back(), (seen{0x10547c4, 3, "PKT4 b304"}));   // group 28 last
  // The groups come between the last CP_SET_DRAW_STATE and the draw.
  const auto draw = std::find(got.begin(), got.end(), seen{0x115e394, 1, "CP_DRAW_INDIRECT_MULTI"});
  ASSERT_NE(draw, got.end());
  EXPECT_EQ(*(draw - 1), level3.back());
}

TEST(pm4WalkReal, ShadowFirstIbNestsEveryIb2) {
  const std::string cap = gpuvp::testing::real_data_path("adreno/shadow.rd.gz");
  if (cap.empty()) GTEST_SKIP() << gpuvp::testing::real_data_missing("adreno/shadow.rd.gz");
  const rd_capture c = rd_parse(rd_read_file(cap), cap);
  const auto& s = c.submits[0];
  const pm4_walk_result r = pm4_walk_capture(c, 0, 0, false);
  EXPECT_EQ(r.bad, 0u);
  const std::vector<seen> got = listed(r);
  std::vector<seen> level0;
  for (const auto& p : got)
    if (p.level == 0) level0.push_back(p);
  EXPECT_EQ(level0, flat(s, s.ibs[0].addr, s.ibs[0].dwords, 0));
  // Each IB2 call is followed by the IB2's own packets one level down.
  unsigned ib2s = 0;
  for (size_t i = 0; i < r.packets.size(); i++) {
    const pm4_listed& p = r.packets[i];
    if (p.level != 0 || p.name != "CP_INDIRECT_BUFFER") continue;
    const rd_capture::buffer* b = s.find(p.addr + 4, 12);
    ASSERT_NE(b, nullptr);
    uint32_t w[3];
    std::memcpy(w, b->bytes.data() + (p.addr + 4 - b->addr), 12);
    std::vector<seen> inner;
    for (size_t j = i + 1; j < got.size() && got[j].level > 0; j++)
      if (got[j].level == 1) inner.push_back(got[j]);
    EXPECT_EQ(inner, flat(s, w[0] | uint64_t(w[1]) << 32, w[2], 1)) << "IB2 called at " << seen{p.addr, 0, p.name};
    ib2s++;
  }
  EXPECT_GT(ib2s, 0u);
}
