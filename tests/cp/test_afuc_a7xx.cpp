// SPDX-License-Identifier: Apache-2.0
// a7xx (-g 7) encodings, worked out by hand from the gen-7 bitsets of Mesa's isaspec afuc.xml
// (docs/tools/afuc.md): ALU sub-ops renumbered (bic 0x09, min 0x0a, max 0x0b, mul8 0x0c, cmp 0x0d,
// shl 0x12, ushr 0x13, ishr 0x14, rot 0x15, setbit 0x16, msb 0x19), movi primary 01110, shifts with
// an imm12 under primary 10010 selected by [15:12] (2..5), setbit/clrbit [15:12] = 6, ubfx 7,
// bfi 8 ([4:0] LO, [9:5] HI); control and flow as a6xx.
#include <gtest/gtest.h>

#include "afuc.h"
#include "afuc_asm.h"
#include "afuc_iss.h"
#include "cp_test_util.h"

using namespace gpuvp::cp;
using cp_test::asm1;

TEST(cpAfucA7xx, EncodingsFromTheGen7Tables) {
  // 10011<<27 = 0x98000000 | SRC1 3<<21 = 0x600000 | SRC2 4<<16 = 0x40000 | DST 2<<11 = 0x1000
  EXPECT_EQ(asm1("bic $02, $03, $04", 7), 0x98641009u);
  EXPECT_EQ(asm1("shl $02, $03, $04", 7), 0x98641012u);
  EXPECT_EQ(asm1("shl $02, $03, $04", 6), 0x98641009u);  // the a6xx shl word is a7xx bic
  EXPECT_EQ(asm1("setbit $02, $03, $04", 7), 0x98641016u);
  // msb: SRC 3<<16 = 0x30000 | DST 2<<11 | 0x19
  EXPECT_EQ(asm1("msb $02, $03", 7), 0x98031019u);
  // 10010<<27 = 0x90000000 | SRC 0x600000 | DST 0x20000 | sel<<12 | imm12
  EXPECT_EQ(asm1("shl $02, $03, 0x5", 7), 0x90622005u);
  EXPECT_EQ(asm1("rot $02, $03, 0xfff", 7), 0x90625fffu);
  EXPECT_EQ(asm1("setbit $02, $03, b5", 7), 0x9062600bu);  // 6<<12 | 5<<1 | 1
  EXPECT_EQ(asm1("setbit $02, $03, b5", 6), 0x9062000bu);
  EXPECT_EQ(asm1("clrbit $02, $03, b5", 7), 0x9062600au);
  EXPECT_EQ(asm1("ubfx $02, $03, b4, b7", 7), 0x906270e4u);  // 7<<12 | HI 7<<5 | LO 4
  EXPECT_EQ(asm1("bfi $02, $03, b0, b15", 7), 0x906281e0u);  // 8<<12 | 15<<5
  // imm16 forms: primary = the a7xx code
  EXPECT_EQ(asm1("min $02, $03, 0x10", 7), 0x50620010u);  // 01010<<27
  EXPECT_EQ(asm1("cmp $02, $03, 0x1", 7), 0x68620001u);   // 01101<<27
  EXPECT_EQ(asm1("add $02, $03, 0x1", 7), 0x08620001u);   // unchanged
  EXPECT_EQ(asm1("mov $02, 0x883", 7), 0x70020883u);      // movi 01110<<27
  // control, flow and nop as a6xx
  EXPECT_EQ(asm1("cwrite $02, [$00 + 0x0b0]", 7), 0xa80200b0u);
  EXPECT_EQ(asm1("waitin", 7), 0xd8000000u);
  EXPECT_EQ(asm1("nop", 7), 0x01000000u);
}

TEST(cpAfucA7xx, DecodeDependsOnTheGeneration) {
  EXPECT_EQ(afuc_decode(0x98641009u, 6)->op, afuc_op::shl);
  EXPECT_EQ(afuc_decode(0x98641009u, 7)->op, afuc_op::bic);
  EXPECT_EQ(afuc_decode(0x50620010u, 6)->op, afuc_op::ushr);
  EXPECT_EQ(afuc_decode(0x50620010u, 7)->op, afuc_op::min);
  EXPECT_FALSE(afuc_decode(0x88020883u, 7));  // a6xx movi primary 10001: nothing on a7xx
  EXPECT_FALSE(afuc_decode(0x80620001u, 7));  // a6xx cmp-immediate primary 10000
  EXPECT_FALSE(afuc_decode(0x90620005u, 7));  // 10010 with [15:12] = 0
  EXPECT_FALSE(afuc_decode(0x98641011u, 6));  // sub-op 0x11: no a6xx ALU op
  EXPECT_EQ(afuc_format(*afuc_decode(0x906270e4u, 7), 7, 0), "ubfx $02, $03, b4, b7");
  EXPECT_EQ(afuc_format(*afuc_decode(0x90622005u, 7), 7, 0), "shl $02, $03, 0x5");
  EXPECT_EQ(afuc_format(*afuc_decode(0x98641009u, 7), 7, 0), "bic $02, $03, $04");
}

TEST(cpAfucA7xx, ErrorsNameTheGeneration) {
  auto err = [](const std::string& src, int gen) {
    try {
      afuc_assemble(".nojumptable\n" + src + "\n", gen, "t.asm");
    } catch (const asm_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(err("bic $02, $03, $04", 6), "t.asm:2: bic needs a7xx");
  EXPECT_EQ(err("ubfx $02, $03, b0, b3", 6), "t.asm:2: ubfx/bfi need a7xx");
  EXPECT_EQ(err("shl $02, $03, 0x1000", 7), "t.asm:2: a7xx shift immediate does not fit 12 bits");
  EXPECT_EQ(err("ubfx $02, $03, b5, b3", 7), "t.asm:2: 'ubfx': low bit above high bit");
  EXPECT_EQ(err("nop", 8), "t.asm: unsupported generation 8");
}

// Assemble, disassemble, assemble again: the same words, with a jump table named by packets.
TEST(cpAfucA7xx, RoundTrip) {
  const std::string src =
      "[01000000]\n[00000000]\nboot:\n\tmov $02, 0x12340000\n\tshl $03, $02, 0x4\n\tbic $04, $03, $02\n"
      "\tubfx $05, $04, b4, b11\n\tbfi $05, $02, b0, b3\n\tsetbit $06, $05, b31\n\tmsb $07, $06\n"
      "\tswrite $07, [$00 + %SP]\n\t(sds1)cwrite $02, [$00 + @DRAW_STATE_SET]\nCP_NOP:\n\twaitin\n"
      "\tmov $01, $data\n";
  const std::vector<uint32_t> w = afuc_assemble(src, 7);
  const disasm_result d = afuc_disassemble(w, 7);
  EXPECT_EQ(d.unknown_reachable, 0u);
  EXPECT_NE(d.text.find("ubfx $05, $04, b4, b11"), std::string::npos) << d.text;
  EXPECT_NE(d.text.find("CP_NOP:"), std::string::npos) << d.text;
  EXPECT_EQ(afuc_assemble(d.text, 7), w) << d.text;
}

namespace {
struct null_env : afuc_env {
  bool pop_data(uint32_t&) override { return false; }
  void reg_write(uint32_t& a, uint32_t, bool) override { a++; }
  uint32_t read_memdata(uint32_t& a) override { return a++ * 0; }
  uint32_t read_regdata() override { return 0; }
  void ctrl_write(uint32_t, uint32_t) override {}
  uint32_t ctrl_read(uint32_t) override { return 0; }
};
}  // namespace

// The ISS runs the a7xx ALU (Mesa emu.c semantics): bic = a & ~b; ubfx = SRC[HI:LO];
// bfi ORs SRC[HI-LO:0] << LO into DST.
TEST(cpAfucA7xx, IssExecutesTheNewAluOps) {
  afuc_iss iss(7);
  null_env env;
  iss.load(
      cp_test::assemble("mov $02, 0xf0f0\nbic $03, $02, 0x00ff\nubfx $04, $02, b4, b11\nmov $05, 0x1\n"
                        "bfi $05, $02, b8, b15\nshl $06, $02, 0x4\nmin $07, $02, 0x10\nwaitin\nnop\n",
                        7));
  iss.set_env(&env);
  iss.run(8);
  EXPECT_EQ(iss.reg(3), 0xf000u);  // 0xf0f0 & ~0xff
  EXPECT_EQ(iss.reg(4), 0x0fu);    // bits 11:4 of 0xf0f0 = 0x0f
  EXPECT_EQ(iss.reg(5), 0xf001u);  // 1 | (0xf0f0 & 0xff) << 8
  EXPECT_EQ(iss.reg(6), 0xf0f00u);
  EXPECT_EQ(iss.reg(7), 0x10u);
}

// Every generation: pseudo-random words (a fixed LCG) listed and assembled back give the same
// words, as the fuzz harness fuzz_afuc_disasm checks at length.
TEST(cpAfucA7xx, RandomWordsRoundTripInEveryGeneration) {
  for (int gen = 5; gen <= 7; gen++) {
    std::vector<uint32_t> w{0, 0x01000000u, 0};
    uint32_t x = 0x2545f491u + uint32_t(gen);
    for (int k = 0; k < 4000; k++) {
      x = x * 1664525u + 1013904223u;
      w.push_back(x);
    }
    const disasm_result d = afuc_disassemble(w, gen);
    std::vector<uint32_t> again;
    ASSERT_NO_THROW(again = afuc_assemble(d.text, gen)) << gen;
    EXPECT_EQ(again, w) << "gen " << gen;
  }
}
