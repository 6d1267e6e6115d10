// SPDX-License-Identifier: Apache-2.0
// Instruction encodings worked out by hand from the isaspec bit tables
// (docs/tools/afuc.md): [31:27] opcode, 26 rep, [25:21] SRC1/SHIFT/OFFSET, [20:16] SRC2/DST,
// [15:11] DST (2-src), [10:9] XMOV, [4:0] ALU op; control [15:12] flags [11:0] imm;
// flow [31:26] opcode, [15:0] signed offset.
#include <gtest/gtest.h>

#include "afuc.h"
#include "afuc_iss.h"
#include "cp_test_util.h"

using namespace gpuvp::cp;
using cp_test::asm1;

// The reference's sample encodings, each re-derived from the tables:
TEST(cpAfucEncoding, ReferenceSamplesMatchTheTables) {
  // movi 10001<<27 = 0x88000000 | DST 2<<16 = 0x20000 | imm 0x883
  EXPECT_EQ(asm1("mov $02, 0x883", 6), 0x88020883u);
  // 0x88000000 | SHIFT 16<<21 = 0x02000000 | DST 4<<16 = 0x40000 | 0xdead
  EXPECT_EQ(asm1("mov $04, 0xdead << 16", 6), 0x8a04dead);
  // 10011<<27 = 0x98000000 | SRC1 3<<21 = 0x600000 | SRC2 4<<16 = 0x40000 | DST 3<<11 = 0x1800 | or 6
  EXPECT_EQ(asm1("or $03, $03, $04", 6), 0x98641806u);
  // or $01, $00, $data: SRC2 0x1f<<16 = 0x1f0000 | DST 1<<11 = 0x800 | 6
  EXPECT_EQ(asm1("mov $01, $data", 6), 0x981f0806u);
  // add imm: 00001<<27 = 0x08000000 | SRC1 $regdata 0x1e<<21 = 0x03c00000 | DST 2<<16 | 0x42
  EXPECT_EQ(asm1("add $02, $regdata, 0x42", 6), 0x0bc20042u);
  // cwrite 10101<<27 = 0xa8000000 | SRC 2<<16 | FLAGS 8<<12 = 0x8000 | 0x0b0
  EXPECT_EQ(asm1("cwrite $02, [$00 + 0x0b0], 0x8", 5), 0xa80280b0u);
  // jump = brne $00, b0: 110010<<26 = 0xc8000000 | offset -1 = 0xffff
  EXPECT_EQ(asm1("jump #-1", 6), 0xc800ffffu);
  EXPECT_EQ(asm1("waitin", 6), 0xd8000000u);  // 110110<<26
  EXPECT_EQ(asm1("ret", 6), 0xd0000000u);     // 110100<<26
}

TEST(cpAfucEncoding, AluForms) {
  // sub $05,$06,$07: 0x98000000 | 6<<21 = 0xc00000 | 7<<16 = 0x70000 | 5<<11 = 0x2800 | 3
  EXPECT_EQ(asm1("sub $05, $06, $07", 6), 0x98c72803u);
  // (rep)(xmov3)mov $data,$data: 0x98000000 | rep 0x04000000 | 0x1f<<16 | 0x1f<<11 = 0xf800 | 3<<9 = 0x600 | 6
  EXPECT_EQ(asm1("(rep)(xmov3)mov $data, $data", 6), 0x9c1ffe06u);
  // not $03,$04 (1-src: SRC1 in 20:16): 0x98000000 | 4<<16 | 3<<11 = 0x1800 | 8
  EXPECT_EQ(asm1("not $03, $04", 6), 0x98041808u);
  // not $03,0x1234: 01000<<27 = 0x40000000 | 3<<16 | 0x1234
  EXPECT_EQ(asm1("not $03, 0x1234", 6), 0x40031234u);
  // msb $05,$06: 0x98000000 | 6<<16 = 0x60000 | 5<<11 = 0x2800 | 0x14
  EXPECT_EQ(asm1("msb $05, $06", 6), 0x98062814u);
  // cmp $04,$02,0x10: 10000<<27 = 0x80000000 | 2<<21 = 0x400000 | 4<<16 | 0x10
  EXPECT_EQ(asm1("cmp $04, $02, 0x10", 6), 0x80440010u);
  // each ALU op in the immediate form: op<<27 | DST 1<<16 | imm 1
  const char* names[] = {"add", "addhi", "sub",  "subhi", "and",  "or",  "xor", "not",
                         "shl", "ushr",  "ishr", "rot",   "mul8", "min", "max", "cmp"};
  for (uint32_t op = 1; op <= 0x10; op++) {
    std::string line = std::string(names[op - 1]) + (op == 8 ? " $01, 0x1" : " $01, $00, 0x1");
    EXPECT_EQ(asm1(line, 5), op << 27 | 0x10001u) << line;
    // and the 2-src form: 0x98000000 | SRC1 2<<21 = 0x400000 | SRC2 3<<16 | DST 1<<11 | op
    std::string l2 = std::string(names[op - 1]) + (op == 8 ? " $01, $03" : " $01, $02, $03");
    EXPECT_EQ(asm1(l2, 5), (op == 8 ? 0x98030800u : 0x98430800u) | op) << l2;
  }
}

TEST(cpAfucEncoding, MoveImmediateShiftChoice) {
  // 0x12340000 = 0x91a0 << 13: the smallest shift that fits imm16 is chosen.
  // 0x88000000 | 13<<21 = 0x01a00000 | 5<<16 | 0x91a0
  EXPECT_EQ(asm1("mov $05, 0x12340000", 6), 0x89a591a0u);
  EXPECT_THROW(asm1("mov $05, 0x12345", 6), asm_error);  // odd and > 16 bits
}

TEST(cpAfucEncoding, ControlForms) {
  // cread a5xx 10110<<27 = 0xb0000000 | OFFSET 5<<21 = 0xa00000 | DST 3<<16 | FLAGS 4<<12 | 0xb2
  EXPECT_EQ(asm1("cread $03, [$05 + 0x0b2], 0x4", 5), 0xb0a340b2u);
  // cread a6xx 10111<<27 = 0xb8000000
  EXPECT_EQ(asm1("cread $03, [$05 + 0x0b2], 0x4", 6), 0xb8a340b2u);
  // load a6xx 10110<<27 = 0xb0000000 | 5<<21 | 3<<16 | 0x10
  EXPECT_EQ(asm1("load $03, [$05 + 0x10], 0x0", 6), 0xb0a30010u);
  // store a6xx 10100<<27 = 0xa0000000 | OFFSET 5<<21 | SRC 3<<16 | 4<<12 | 0x10
  EXPECT_EQ(asm1("store $03, [$05 + 0x10], 0x4", 6), 0xa0a34010u);
  EXPECT_THROW(asm1("store $03, [$05 + 0x10], 0x4", 5), asm_error);
  EXPECT_THROW(asm1("load $03, [$05 + 0x10], 0x4", 5), asm_error);
  // @NAME control registers: a6xx PACKET_TABLE_WRITE = 0x061
  EXPECT_EQ(asm1("cwrite $02, [$00 + @PACKET_TABLE_WRITE], 0x0", 6), 0xa8020061u);
}

TEST(cpAfucEncoding, FlowForms) {
  // breq bit: 110011<<26 = 0xcc000000 | 4<<21 = 0x800000 | b1 1<<16 | +5
  EXPECT_EQ(asm1("breq $04, b1, #+5", 6), 0xcc810005u);
  // brne imm: 110000<<26 = 0xc0000000 | 2<<21 = 0x400000 | 3<<16 | -2 = 0xfffe
  EXPECT_EQ(asm1("brne $02, 0x3, #-2", 6), 0xc043fffeu);
  // breq imm 110001<<26 = 0xc4000000; brne bit 110010<<26 = 0xc8000000
  EXPECT_EQ(asm1("breq $00, 0x0, #+1", 6), 0xc4000001u);
  EXPECT_EQ(asm1("brne $01, b31, #+1", 6), 0xc83f0001u);                     // 1<<21 | 31<<16
  EXPECT_EQ(asm1("call #0x123", 6), 0xd4000123u);                            // 110101<<26
  EXPECT_EQ(asm1("iret", 6), 0xd2000000u);                                   // ret | bit 25
  EXPECT_EQ(asm1("preemptleave #0x40", 6), 0xe0000040u);                     // 111000<<26
  EXPECT_EQ(cp_test::assemble("setsecure $02, #+3", 6).at(0), 0xec000000u);  // 111011<<26
  EXPECT_EQ(asm1("nop", 5), 0x00000000u);
  EXPECT_EQ(asm1("nop", 6), 0x01000000u);  // a6xx nop: bit 24
  EXPECT_EQ(asm1("(rep)nop", 6), 0x05000000u);
}

TEST(cpAfucDecode, RejectsWordsOutsideTheTables) {
  EXPECT_FALSE(afuc_decode(0x98000011u, 6));  // ALU sub-op 0x11
  EXPECT_FALSE(afuc_decode(0x98000012u, 5));  // ALU sub-op 0x12 (register setbit) is a6xx only
  EXPECT_FALSE(afuc_decode(0x98000013u, 6));  // ALU sub-op 0x13
  EXPECT_FALSE(afuc_decode(0x98000015u, 6));  // ALU sub-op 0x15
  EXPECT_FALSE(afuc_decode(0xe8000000u, 6));  // flow opcode 111010
  EXPECT_FALSE(afuc_decode(0xfc000000u, 6));  // flow opcode 111111
  EXPECT_FALSE(afuc_decode(0xb8000000u, 5));  // a6xx cread on a5xx
  EXPECT_FALSE(afuc_decode(0xa0000000u, 5));  // store on a5xx
  auto p = afuc_decode(0x00000000u, 6);       // all-zero on a6xx: not the nop pattern, payload
  ASSERT_TRUE(p);
  EXPECT_EQ(p->op, afuc_op::payload);
  EXPECT_EQ(afuc_decode(0x00000000u, 5)->op, afuc_op::nop);
}

TEST(cpAfucDecode, FieldsAndText) {
  auto in = afuc_decode(0x98641806u, 6);
  ASSERT_TRUE(in);
  EXPECT_EQ(in->op, afuc_op::or_);
  EXPECT_EQ(in->src1, 3);
  EXPECT_EQ(in->src2, 4);
  EXPECT_EQ(in->dst, 3);
  EXPECT_EQ(afuc_format(*in, 6, 0), "or $03, $03, $04");
  EXPECT_EQ(afuc_format(*afuc_decode(0x981f0806u, 6), 6, 0), "mov $01, $data");
  EXPECT_EQ(afuc_format(*afuc_decode(0x8a04dead, 6), 6, 0), "mov $04, 0xdead << 16");
  // a5xx cwrite has bit 15 set in Mesa's afuc.xml: the current syntax prints no flags
  EXPECT_EQ(afuc_format(*afuc_decode(0xa80280b0u, 5), 5, 0), "cwrite $02, [$00 + @IB1_BASE]");
  EXPECT_EQ(afuc_format(*afuc_decode(0xc800ffffu, 6), 6, 7), "jump #6");  // 7 + (-1)
  EXPECT_EQ(afuc_format(*afuc_decode(0x9c1ffe06u, 6), 6, 0), "(rep)(xmov3)mov $data, $data");
  // destination 0x1d prints as $addr, source 0x1d as $memdata
  EXPECT_EQ(afuc_format(*afuc_decode(0x981de806u, 6), 6, 0), "mov $addr, $memdata");
  // every word with a decoding re-encodes to itself when the don't-care bits are clear
  for (uint32_t w : {0x98641806u, 0x0bc20042u, 0xa80280b0u, 0xc800ffffu, 0xd8000000u, 0xd0000000u, 0xd2000000u, 0xd4000123u, 0xe0000040u,
                     0xec000000u, 0xb8a340b2u, 0x40031234u})
    EXPECT_EQ(afuc_encode(*afuc_decode(w, 6), 6), w) << std::hex << w;
}

// Encodings found in the Debian firmware (issue 5 follow-up), worked from the tables:
// setbit/clrbit 10010 [25:21] SRC [20:16] DST [5:1] BIT [0] 1=set; jump $reg 110111 [25:21] SRC;
// jumpa 111001 [25:0] absolute target.
TEST(cpAfucEncoding, SetClearBitAndRegisterJumps) {
  // 10010<<27 = 0x90000000 | SRC 0<<21 | DST 2<<16 = 0x20000 | BIT 0<<1 | set 1 -> 0x90020001
  EXPECT_EQ(asm1("setbit $02, $00, b0", 6), 0x90020001u);
  // 0x90000000 | SRC 0x12<<21 = 0x02400000 | DST 0x12<<16 = 0x120000 | 17<<1 = 0x22 | 1 -> 0x92520023
  EXPECT_EQ(asm1("setbit $12, $12, b17", 6), 0x92520023u);
  // clrbit $02, $02, b30: 0x90000000 | 2<<21 = 0x400000 | 2<<16 = 0x20000 | 30<<1 = 0x3c | 0
  EXPECT_EQ(asm1("clrbit $02, $02, b30", 6), 0x9042003cu);
  // (rep) bit 26: 0x94000000 | 1<<21 = 0x200000 | 1<<16 | 31<<1 = 0x3e | 1
  EXPECT_EQ(asm1("(rep)setbit $01, $01, b31", 5), 0x9421003fu);
  // jump $02: 110111<<26 = 0xdc000000 | 2<<21 = 0x400000
  EXPECT_EQ(asm1("jump $02", 5), 0xdc400000u);
  EXPECT_EQ(asm1("jumpr $05", 6), 0xdca00000u);  // 5<<21 = 0xa00000
  // jumpa #0x9e6: 111001<<26 = 0xe4000000 | 0x9e6
  EXPECT_EQ(asm1("jumpa #0x9e6", 5), 0xe40009e6u);
  EXPECT_EQ(afuc_format(*afuc_decode(0x92520023u, 6), 6, 0), "setbit $12, $12, b17");
  EXPECT_EQ(afuc_format(*afuc_decode(0x90c60000u, 6), 6, 0), "clrbit $06, $06, b0");
  EXPECT_EQ(afuc_format(*afuc_decode(0xdca00000u, 6), 6, 0), "jump $05");
  EXPECT_EQ(afuc_format(*afuc_decode(0xe40009e6u, 5), 5, 0), "jumpa #2534");
  // register setbit (a6xx 2-src sub-op 0x12): 0x98000000 | SRC1 0x14<<21 = 0x02800000 |
  // SRC2 3<<16 = 0x30000 | DST 0x14<<11 = 0xa000 | 0x12 -> 0x9a83a012 (a660 firmware word)
  EXPECT_EQ(asm1("setbit $14, $14, $03", 6), 0x9a83a012u);
  EXPECT_EQ(afuc_format(*afuc_decode(0x9a83a012u, 6), 6, 0), "setbit $14, $14, $03");
  // bits 15:6 of setbit are unused: such a word decodes but does not re-encode to itself,
  // so the disassembler lists it as a raw word.
  EXPECT_EQ(afuc_decode(0x90020041u, 6)->op, afuc_op::setbit);
  EXPECT_NE(afuc_encode(*afuc_decode(0x90020041u, 6), 6), 0x90020041u);
}

TEST(cpPm4Header, ParityVectors) {
  // p(v) = (~0x6996 >> fold4(v)) & 1; 0x6996 = 0110 1001 1001 0110b
  // pkt7(0x30,11): p(11)=~bit11(=1)=0, fold(0x30)=3 -> ~bit3(=0)=1 -> 0x70000000|0x30<<16|1<<23|11
  EXPECT_EQ(pm4_type7(0x30, 11), 0x70b0000bu);
  // pkt7(CP_NOP,0): p(0)=1 -> 1<<15; fold(0x10)=1 -> ~bit1(=1)=0
  EXPECT_EQ(pm4_type7(0x10, 0), 0x70108000u);
  // pkt7(CP_MEM_WRITE 0x3d,3): p(3)=~bit3=1; fold(0x3d)=3^d=e -> ~bit14(=1)=0
  EXPECT_EQ(pm4_type7(0x3d, 3), 0x703d8003u);
  // pkt7(CP_INDIRECT_BUFFER 0x3f,3): fold=3^f=c -> ~bit12(=0)=1 -> 1<<23
  EXPECT_EQ(pm4_type7(0x3f, 3), 0x70bf8003u);
  // pkt7(CP_EVENT_WRITE 0x46,4): p(4)=~bit4(=1)=0; fold=4^6=2 -> ~bit2(=1)=0
  EXPECT_EQ(pm4_type7(0x46, 4), 0x70460004u);
  // pkt4(0x883,1): p(1)=~bit1=0; fold(0x883)=8^8^3=3 -> 1<<27; 0x883<<8 = 0x88300
  EXPECT_EQ(pm4_type4(0x883, 1), 0x48088301u);
  pm4_header h;
  ASSERT_TRUE(pm4_decode_header(0x48088301u, h));
  EXPECT_TRUE(h.type4);
  EXPECT_EQ(h.reg, 0x883u);
  EXPECT_EQ(h.count, 1u);
  ASSERT_TRUE(pm4_decode_header(0x70b0000bu, h));
  EXPECT_EQ(h.id, 0x30u);
  EXPECT_EQ(h.count, 11u);
  EXPECT_FALSE(pm4_decode_header(0x70b0000bu ^ 0x8000u, h));      // count parity flipped
  EXPECT_FALSE(pm4_decode_header(0x70b0000bu ^ 0x800000u, h));    // opcode parity flipped
  EXPECT_FALSE(pm4_decode_header(0x48088301u ^ 0x80u, h));        // type4 count parity
  EXPECT_FALSE(pm4_decode_header(0x48088301u ^ 0x08000000u, h));  // type4 reg parity
  EXPECT_FALSE(pm4_decode_header(0x80000000u, h));                // type2: not handled
  EXPECT_FALSE(pm4_decode_header(0x71108000u, h));                // type7 bits 27:24 != 0
}

// Mesa's current control syntax (afuc.xml #control/#cwrite/swrite/sread): bit 14 `!`
// pre-increment, bits 13:12 `(sdsN)` on cwrite, bit 15 sread/swrite on a6xx (SQE registers
// %NAME), every cwrite/cread bit 15 on a5xx. Each word worked out from those fields.
TEST(cpAfucEncoding, CurrentMesaControlSyntax) {
  // swrite: 10101<<27 = 0xa8000000 | SRC 4<<16 = 0x40000 | bit15 0x8000 | STACK0 0x008
  EXPECT_EQ(asm1("swrite $04, [$00 + %STACK0]", 6), 0xa8048008u);
  // sread: 10111<<27 = 0xb8000000 | DST 2<<16 | 0x8000 | SP 0x005
  EXPECT_EQ(asm1("sread $02, [$00 + %SP]", 6), 0xb8028005u);
  // (sds2): bits 13:12 = 2 -> 0x2000; DRAW_STATE_SET 0x04a
  EXPECT_EQ(asm1("(sds2)cwrite $02, [$00 + @DRAW_STATE_SET]", 6), 0xa802204au);
  // `!`: bit 14 = 0x4000; OFFSET 5<<21 = 0xa00000
  EXPECT_EQ(asm1("cwrite $02, [$05 + 0x004]!", 6), 0xa8a24004u);
  EXPECT_EQ(asm1("load $03, [$05 + 0x10]!", 6), 0xb0a34010u);  // 10110: load on a6xx
  // a5xx cread 10110 | bit15 | bit14 = 0xc000
  EXPECT_EQ(asm1("cread $03, [$05 + 0x0b2]!", 5), 0xb0a3c0b2u);
  EXPECT_EQ(asm1("cwrite $02, [$00 + 0x0b0]", 5), 0xa80280b0u);
  // the older `, flags` spelling stays the same word
  EXPECT_EQ(asm1("cwrite $02, [$05 + 0x004]!", 6), asm1("cwrite $02, [$05 + 0x4], 0x4", 6));
  EXPECT_EQ(asm1("swrite $04, [$00 + %STACK0]", 6), asm1("cwrite $04, [$00 + 0x008], 0x8", 6));
  EXPECT_EQ(asm1("sread $02, [$01 + %SP+2]", 6), asm1("sread $02, [$01 + 0x007]", 6));
  // and the disassembler prints the current syntax
  EXPECT_EQ(afuc_format(*afuc_decode(0xa8048008u, 6), 6, 0), "swrite $04, [$00 + %STACK0]");
  EXPECT_EQ(afuc_format(*afuc_decode(0xb8028005u, 6), 6, 0), "sread $02, [$00 + %SP]");
  EXPECT_EQ(afuc_format(*afuc_decode(0xa802204au, 6), 6, 0), "(sds2)cwrite $02, [$00 + @DRAW_STATE_SET]");
  EXPECT_EQ(afuc_format(*afuc_decode(0xa8a24004u, 6), 6, 0), "cwrite $02, [$05 + 0x004]!");
  EXPECT_EQ(afuc_format(*afuc_decode(0xb0a34010u, 6), 6, 0), "load $03, [$05 + 0x10]!");
  EXPECT_EQ(afuc_format(*afuc_decode(0xb0a3c0b2u, 5), 5, 0), "cread $03, [$05 + 0x0b2]!");
  EXPECT_EQ(afuc_format(*afuc_decode(0x04000000u | 0xa8a24004u, 6), 6, 0), "(rep)cwrite $02, [$05 + 0x004]!");
  // what the current syntax cannot say keeps the `, flags` form: a5xx without bit 15, a6xx
  // cread with bits 13:12, sds together with bit 15
  EXPECT_EQ(afuc_format(*afuc_decode(0xa80200b0u, 5), 5, 0), "cwrite $02, [$00 + @IB1_BASE], 0x0");
  EXPECT_EQ(afuc_format(*afuc_decode(0xb8021001u, 6), 6, 0), "cread $02, [$00 + @RB_RPTR], 0x1");
  EXPECT_EQ(afuc_format(*afuc_decode(0xa802b004u, 6), 6, 0), "cwrite $02, [$00 + @PREEMPT_INSTR], 0xb");
  for (uint32_t w : {0xa8048008u, 0xb8028005u, 0xa802204au, 0xa8a24004u, 0xb8021001u, 0xa802b004u})
    EXPECT_EQ(asm1(afuc_format(*afuc_decode(w, 6), 6, 0), 6), w) << std::hex << w;
}
