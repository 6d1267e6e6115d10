// SPDX-License-Identifier: Apache-2.0
// PM4 workload text format and the decoder listing.
#include <gtest/gtest.h>

#include "afuc_iss.h"
#include "cp_regs.h"
#include "pm4.h"

using namespace gpuvp::cp;

TEST(cpPm4Format, PacketsIbsAndExpectations) {
  pm4_program p = pm4_parse(
      "ring 0x2000 dwords 64\n"
      "mem 0x9000 1 2 3   # data\n"
      "ib a 0x5000\n"
      "  PKT4 CP_SCRATCH_REG1 7\n"
      "end\n"
      "PKT4 CP_SCRATCH_REG0 0x11 0x22 ; two registers\n"
      "CP_INDIRECT_BUFFER ib:a\n"
      "CP_MEM_WRITE addr:0x100000000 5\n"
      "pkt7 0x21 1\n"
      "raw 0x70108000\n"
      "expect mem 0x9000 1\n"
      "expect reg CP_SCRATCH_REG0 0x11\n",
      "t.pm4");
  EXPECT_EQ(p.ring_addr, 0x2000u);
  EXPECT_EQ(p.ring_dwords, 64u);
  ASSERT_EQ(p.ibs.size(), 1u);
  EXPECT_EQ(p.ibs[0].words, (std::vector<uint32_t>{pm4_type4(CP_SCRATCH_REG0 + 1, 1), 7}));
  // pkt4(0x883,2): p(2)=~bit2(=1)=0, p(0x883)=1 -> 0x48088302
  const std::vector<uint32_t> ring = {0x48088302u,        0x11, 0x22,       0x70bf8003u, 0x5000, 0, 2,  // ib:a = lo, hi, size
                                      0x703d8003u,        0,    1,          5,                          // addr: splits lo/hi
                                      pm4_type7(0x21, 1), 1,    0x70108000u};
  EXPECT_EQ(p.ring, ring);
  ASSERT_EQ(p.mem.size(), 1u);
  EXPECT_EQ(p.mem[0].words, (std::vector<uint32_t>{1, 2, 3}));
  ASSERT_EQ(p.expects.size(), 2u);
  EXPECT_EQ(p.expects[1].where, 0x883u);
}

// gpuvp's one number parser: `_` separators, 0x hex and 0b binary as everywhere; no sign.
TEST(cpPm4Format, NumbersTakeSeparatorsAsEverywhere) {
  EXPECT_EQ(pm4_parse("CP_MEM_WRITE addr:0x1_0000_0000 5\n", "t.pm4").ring, pm4_parse("CP_MEM_WRITE addr:0x100000000 5\n", "t.pm4").ring);
  EXPECT_EQ(pm4_parse("PKT4 CP_SCRATCH_REG0 0b1_0001 1_000\n", "t.pm4").ring, pm4_parse("PKT4 CP_SCRATCH_REG0 17 1000\n", "t.pm4").ring);
  EXPECT_THROW(pm4_parse("PKT4 CP_SCRATCH_REG0 -1\n", "t.pm4"), pm4_error);
  EXPECT_THROW(pm4_parse("PKT4 CP_SCRATCH_REG0 0x1z\n", "t.pm4"), pm4_error);
}

static std::string parse_error(const std::string& text) {
  try {
    pm4_parse(text, "bad.pm4");
  } catch (const pm4_error& e) {
    return e.what();
  }
  return "";
}

TEST(cpPm4Format, ErrorsNameFileAndLine) {
  EXPECT_EQ(parse_error("CP_NOP\nCP_FROB 1\n"), "bad.pm4:2: unknown packet or directive 'CP_FROB'");
  EXPECT_EQ(parse_error("PKT4 NOT_A_REG 1\n"), "bad.pm4:1: unknown register 'NOT_A_REG'");
  EXPECT_EQ(parse_error("CP_NOP 12z\n"), "bad.pm4:1: bad number '12z'");
  EXPECT_EQ(parse_error("CP_NOP 0x100000000\n"), "bad.pm4:1: value '0x100000000' out of range");
  EXPECT_EQ(parse_error("\nCP_INDIRECT_BUFFER ib:nope\n"), "bad.pm4:2: undefined ib 'nope'");
  EXPECT_EQ(parse_error("ib a 0x100\nCP_NOP\n"), "bad.pm4:3: ib 'a' has no 'end'");
  EXPECT_EQ(parse_error("end\n"), "bad.pm4:1: 'end' without 'ib'");
  EXPECT_EQ(parse_error("ring 0x0 dwords 6\n"), "bad.pm4:1: ring size must be a power of two >= 4 dwords");
  EXPECT_EQ(parse_error("expect nothing\n"), "bad.pm4:1: bad expectation (expect mem ADDR V | reg REG V | dispatches N | irq | fault V)");
  EXPECT_EQ(parse_error("ring 0x0 dwords 4\nCP_NOP 1 2 3 4\n"), "bad.pm4: the ring stream (5 dwords) does not fit the ring (4)");
}

TEST(cpPm4Decode, ListingAndInvalidHeaders) {
  std::string l;
  EXPECT_EQ(pm4_decode({0x48088302u, 0x11, 0x22, 0x70108000u}, l), 0u);
  EXPECT_EQ(l,
            "000000: 48088302  PKT4 CP_SCRATCH_REG0 (2)\n"
            "000004: 00000011    CP_SCRATCH_REG0\n"
            "000008: 00000022    CP_SCRATCH_REG1\n"
            "00000c: 70108000  CP_NOP (0)\n");
  EXPECT_EQ(pm4_decode({0x12345678u, 0x703d8003u, 1}, l), 2u);  // bad header, truncated packet
  EXPECT_NE(l.find("000000: 12345678  invalid header"), std::string::npos);
  EXPECT_NE(l.find("truncated: 2 dword(s) missing"), std::string::npos);
}
