// SPDX-License-Identifier: Apache-2.0
// Assembler / disassembler: labels, jump table, file layout, error messages, round trip.
#include <gtest/gtest.h>

#include "afuc.h"
#include "afuc_asm.h"
#include "cp_test_util.h"

using namespace gpuvp::cp;

static const char* small_fw = R"(; a small a6xx image in Mesa layout
[01000000]          ; version
[01000000]          ; jump-table offset, patched to the instruction count
start:
	mov $01, 0x5
loop:
	sub $01, $01, 0x1
	brne $01, 0x0, #loop
	nop
	waitin
	mov $01, $data
CP_NOP:
	(rep)mov $02, $data  ; skip the payload
	waitin
	mov $01, $data
PKT4:
UNKN5:
	call #sub
	nop
	jump #start
	nop
sub:
	ret
	nop
)";

TEST(cpAfucAsm, FileLayoutLabelsAndJumpTable) {
  auto w = afuc_assemble(small_fw, 6, "small.asm");
  // header + 17 instructions + 0x80 jump-table entries
  ASSERT_EQ(w.size(), 1u + 17u + 128u);
  EXPECT_EQ(w[0], 0u);                // file header
  EXPECT_EQ(w[1], 0x01000000u);       // version literal kept
  EXPECT_EQ(w[2], 0x01000000u | 17);  // low 16 bits = instruction count
  // "brne $01, 0x0, #loop" at pc 4, loop at pc 3: offset -1 -> 0xc0000000|1<<21|0xffff
  EXPECT_EQ(w[1 + 4], 0xc020ffffu);
  // call #sub: sub is pc 15 -> 0xd4000000 | 15
  EXPECT_EQ(w[1 + 11], 0xd400000fu);
  // jump #start at pc 13, start = pc 2: offset -11 = 0xfff5
  EXPECT_EQ(w[1 + 13], 0xc800fff5u);
  const uint32_t* jt = &w[1 + 17];
  EXPECT_EQ(jt[0x10], 8u);  // CP_NOP
  EXPECT_EQ(jt[4], 11u);    // PKT4
  EXPECT_EQ(jt[5], 11u);    // UNKN5
  EXPECT_EQ(jt[0x3d], 0u);  // no handler
}

TEST(cpAfucAsm, DisassemblyReassemblesExactly) {
  auto w = afuc_assemble(small_fw, 6, "small.asm");
  disasm_result d = afuc_disassemble(w, 6);
  EXPECT_EQ(d.unknown_reachable, 0u);
  EXPECT_NE(d.text.find("CP_NOP:"), std::string::npos);
  EXPECT_NE(d.text.find("PKT4:"), std::string::npos);
  EXPECT_NE(d.text.find("(rep)mov $02, $data"), std::string::npos);
  EXPECT_EQ(afuc_assemble(d.text, 6, "dis.asm"), w);
  // and a5xx
  auto w5 = afuc_assemble(small_fw, 5, "s5.asm");
  EXPECT_EQ(afuc_assemble(afuc_disassemble(w5, 5).text, 5, "dis5.asm"), w5);
}

TEST(cpAfucAsm, RawLayoutRoundTrip) {
  // An image without the trailing table disassembles with .nojumptable and comes back as is.
  std::vector<uint32_t> w = {0, 0x12345678u, 0x00000003u, 0x88020883u, 0x98000011u, 0xd8000000u};
  disasm_result d = afuc_disassemble(w, 6);
  EXPECT_NE(d.text.find(".nojumptable"), std::string::npos);
  EXPECT_NE(d.text.find("[98000011]"), std::string::npos);  // undecodable: raw word
  EXPECT_EQ(d.unknown_reachable, 1u);                       // reached from pc 0
  EXPECT_EQ(afuc_assemble(d.text, 6, "raw.asm"), w);
}

TEST(cpAfucAsm, NonCanonicalWordsStayRaw) {
  // waitin with don't-care bits set, and a 2-src ALU with bits 8:5 set, print as [literal].
  std::vector<uint32_t> w = {0, 0x0u, 0x3u, 0xd8000001u, 0x986418e6u};
  disasm_result d = afuc_disassemble(w, 5);
  EXPECT_NE(d.text.find("[d8000001]"), std::string::npos);
  EXPECT_NE(d.text.find("[986418e6]"), std::string::npos);
  EXPECT_EQ(afuc_assemble(d.text, 5, "nc.asm"), w);
}

TEST(cpAfucAsm, BranchOutsideTheImageStaysRaw) {
  // Found by fuzz_afuc_disasm. 0xc640fffd is a5xx breq (opcode 110001) with offset 0xfffd = -3: at
  // pc 2 its target is pc -1, which has no label. It was printed "#-1", which the assembler reads
  // as an offset from pc (target pc 1, word 0xc640ffff). A branch whose target lies outside the
  // image must be listed raw so that the round trip stays exact.
  std::vector<uint32_t> w = {0, 0x0u, 0x0u, 0xc640fffdu};
  disasm_result d = afuc_disassemble(w, 5);
  EXPECT_NE(d.text.find("[c640fffd]"), std::string::npos) << d.text;
  EXPECT_EQ(d.text.find("#-1"), std::string::npos) << d.text;
  EXPECT_EQ(afuc_assemble(d.text, 5, "neg.asm"), w);
  // Offset -1 at pc 2 targets pc 1: an ordinary backward branch, listed with a label.
  std::vector<uint32_t> w2 = {0, 0x0u, 0x0u, 0xc640ffffu};
  disasm_result d2 = afuc_disassemble(w2, 5);
  EXPECT_EQ(d2.text.find("[c640ffff]"), std::string::npos) << d2.text;
  EXPECT_EQ(afuc_assemble(d2.text, 5, "back.asm"), w2);
  // Offset 0x10 at pc 1 of a 3-instruction image: past the end, raw as well.
  std::vector<uint32_t> w3 = {0, 0x0u, 0xc6400010u, 0x0u};
  disasm_result d3 = afuc_disassemble(w3, 5);
  EXPECT_NE(d3.text.find("[c6400010]"), std::string::npos) << d3.text;
  EXPECT_EQ(afuc_assemble(d3.text, 5, "far.asm"), w3);
}

TEST(cpAfucAsm, JumpTableEntryAtTheEndOfTheCodeRoundTrips) {
  // Found by fuzz_afuc_disasm. After the header come 2 + 128 words and instruction 1 (the
  // jump-table offset) is 2, so the table starts at instruction 2; an entry equal to 2 points just
  // past the last code word. Such an entry passed the "entries within the code" check but got no
  // label, so the table came back with 0 there. Its label must follow the last instruction.
  std::vector<uint32_t> w(1 + 2 + 128, 0);
  w[2] = 2;             // jump-table offset = code size
  w[1 + 2 + 0x10] = 2;  // CP_NOP -> end of code
  w[1 + 2 + 4] = 1;     // PKT4 -> instruction 1
  disasm_result d = afuc_disassemble(w, 5);
  EXPECT_EQ(d.text.find(".nojumptable"), std::string::npos) << d.text;
  EXPECT_NE(d.text.find("CP_NOP:\n"), std::string::npos) << d.text;
  EXPECT_EQ(afuc_assemble(d.text, 5, "end.asm"), w);
}

static std::string error_of(const std::string& src, int gen) {
  try {
    afuc_assemble(src, gen, "bad.asm");
  } catch (const asm_error& e) {
    return e.what();
  }
  return "";
}

TEST(cpAfucAsm, ErrorsNameFileAndLine) {
  EXPECT_EQ(error_of(".nojumptable\nnop\n  frob $01\n", 6), "bad.asm:3: unknown instruction 'frob'");
  EXPECT_EQ(error_of(".nojumptable\njump #nowhere\n", 6), "bad.asm:2: undefined label 'nowhere'");
  EXPECT_EQ(error_of(".nojumptable\n(sds1)cread $02, [$00 + 0x1]\n", 6), "bad.asm:2: (sdsN) is allowed only on cwrite");
  EXPECT_EQ(error_of(".nojumptable\nswrite $02, [$00 + %SP]\n", 5), "bad.asm:2: 'swrite' needs a6xx or later");
  EXPECT_EQ(error_of(".nojumptable\ncwrite $02, [$00 + %SP]\n", 6), "bad.asm:2: SQE register '%SP' needs sread/swrite");
  EXPECT_EQ(error_of(".nojumptable\nsread $02, [$00 + %NOPE]\n", 6), "bad.asm:2: unknown SQE register '%NOPE'");
  EXPECT_EQ(error_of(".nojumptable\n(sds4)cwrite $02, [$00 + 0x1]\n", 6), "bad.asm:2: unknown modifier '(sds4)'");
  EXPECT_EQ(error_of(".nojumptable\ncwrite $02, [$00 + 0x1]!!\n", 6), "bad.asm:2: unexpected '!' after 'cwrite'");
  EXPECT_NE(error_of(".nojumptable\nbl #x\nx:\nnop\n", 6).find("bad.asm:2: 'bl' (branch-and-link through $lr) has no encoding"),
            std::string::npos);
  EXPECT_EQ(error_of(".nojumptable\nadd $01, $02, 0x10000\n", 6), "bad.asm:2: immediate 0x10000 out of range");
  EXPECT_EQ(error_of(".nojumptable\nmov $20, $01\n", 6), "bad.asm:2: bad destination register '$20'");
  EXPECT_EQ(error_of(".nojumptable\nsetbit $01, $02, b32\n", 6), "bad.asm:2: bit number out of range");
  EXPECT_EQ(error_of(".nojumptable\nclrbit $01, $02, $03\n", 6), "bad.asm:2: expected a bit number bN or a register in 'clrbit'");
  EXPECT_EQ(error_of(".nojumptable\nsetbit $01, $02, $03\n", 5), "bad.asm:2: setbit with a register bit needs a6xx");
  EXPECT_EQ(error_of(".nojumptable\n(rep)jump $02\n", 6), "bad.asm:2: modifiers are not allowed on 'jump'");
  EXPECT_EQ(error_of(".nojumptable\nmov $01, $addr\nmov $regdata, $01\n", 6), "bad.asm:3: bad destination register '$regdata'");
  EXPECT_EQ(error_of(".nojumptable\nx:\nx:\n", 6), "bad.asm:3: label 'x' defined twice");
  EXPECT_EQ(error_of(".nojumptable\n(xmov1)add $01, $02, 0x3\n", 6), "bad.asm:2: (xmovN) needs a register source");
  EXPECT_EQ(error_of(".nojumptable\n(xmov4)add $01, $02, $03\n", 6), "bad.asm:2: unknown modifier '(xmov4)'");
  EXPECT_EQ(error_of(".nojumptable\nbreq $01, 0x20, #+1\n", 6), "bad.asm:2: branch immediate 0x20 out of range");
  EXPECT_EQ(error_of(".nojumptable\ncwrite $01, [$00 + @NOPE], 0x0\n", 6), "bad.asm:2: unknown control register '@NOPE'");
  EXPECT_EQ(error_of(".nojumptable\nsetsecure $02, #+2\n", 6), "bad.asm:2: setsecure skips to pc+3; its label must be there");
  EXPECT_EQ(error_of("nop\nnop\n", 6), "bad.asm:2: instruction 1 must be a [literal] (it holds the jump-table offset)");
  EXPECT_EQ(error_of(".nojumptable\njump #+40000\n", 6), "bad.asm:2: branch offset out of range");
  EXPECT_EQ(error_of(".nojumptable\nmov $01, 5 6\n", 6), "bad.asm:2: unexpected '6' after 'mov'");
  // Found by fuzz_afuc_asm: a numeric-looking target that is no number, or one beyond 64 bits,
  // let std::stoll's bare invalid_argument/out_of_range escape; bN beyond 64 bits likewise.
  EXPECT_EQ(error_of(".nojumptable\nbreq $05, 0x2, #-ib_too_deep\n", 6), "bad.asm:2: bad branch target '#-ib_too_deep'");
  EXPECT_EQ(error_of(".nojumptable\njump #+1x\n", 6), "bad.asm:2: bad branch target '#+1x'");
  EXPECT_EQ(error_of(".nojumptable\ncall #99999999999999999999\n", 6), "bad.asm:2: bad branch target '#99999999999999999999'");
  EXPECT_EQ(error_of(".nojumptable\nsetbit $01, $02, b99999999999999999999\n", 6), "bad.asm:2: bit number out of range");
  EXPECT_EQ(error_of(".nojumptable\nbrne $01, b99999999999999999999, #+2\n", 6), "bad.asm:2: bit number out of range");
}

// Numbers are gpuvp's (docs/tools/afuc.md): decimal, 0x hex, 0b binary, `_` separators, a leading
// 0 is decimal (not octal). `mov $02, 0x883` is 0x88020883 (movi: [31:27] 10001, DST 2, imm16).
TEST(cpAfucAsm, NumbersTakeTheProjectForms) {
  auto word = [](const std::string& operand) { return afuc_assemble(".nojumptable\nmov $02, " + operand + "\n", 6, "n.asm").at(1); };
  EXPECT_EQ(word("0x883"), 0x88020883u);
  EXPECT_EQ(word("2179"), 0x88020883u);
  EXPECT_EQ(word("0b1000_1000_0011"), 0x88020883u);
  EXPECT_EQ(word("0x8_83"), 0x88020883u);
  EXPECT_EQ(word("0100"), 0x88020064u);  // 100, not octal 64
  // Branch targets: #+N / #-N / #N in the same forms; `jump #-1` is 0xc800ffff.
  EXPECT_EQ(afuc_assemble(".nojumptable\njump #-0b1\n", 6, "n.asm").at(1), 0xc800ffffu);
  EXPECT_EQ(afuc_assemble(".nojumptable\njump #-0x1\n", 6, "n.asm").at(1), 0xc800ffffu);
  EXPECT_EQ(error_of(".nojumptable\nmov $01, 0x1z\n", 6), "bad.asm:2: bad number '0x1z'");
  EXPECT_EQ(error_of(".nojumptable\nmov $01, 0b102\n", 6), "bad.asm:2: bad number '0b102'");
  // Beyond 64 bits: the operand's range check names it.
  EXPECT_EQ(error_of(".nojumptable\nadd $01, $02, 0x1_0000_0000_0000_0000\n", 6),
            "bad.asm:2: immediate 0x1_0000_0000_0000_0000 out of range");
  EXPECT_EQ(error_of(".nojumptable\njump #-0x8000_0000_0000_0000\n", 6), "bad.asm:2: bad branch target '#-0x8000_0000_0000_0000'");
}

// afuc-disasm on an a6xx image without a jump table looks for the table the boot code writes by
// running it under a budget of instructions ((rep) iterations included): a (rep) with $rem =
// 0xffffffff in a 7-word image used to run all 2^32 iterations (50 s). Now the boot scan stops at
// its budget, finds no table and lists the image.
TEST(cpAfucDisasm, RepWithHugeRemEndsTheBootScan) {
  const auto w = afuc_assemble(".nojumptable\nmov $rem, 0xffff << 16\nor $rem, $rem, 0xffff\n(rep)add $01, $01, 0x1\n", 6, "rep.asm");
  disasm_result d = afuc_disassemble(w, 6);
  EXPECT_NE(d.text.find("(rep)add $01, $01, 0x1"), std::string::npos) << d.text;
  EXPECT_NE(d.text.find(".nojumptable"), std::string::npos) << d.text;
}

// Mesa's `@NAME+N` operand: the control register's offset plus N (MEM_READ_ADDR is 0x018 on a6xx,
// Mesa adreno_control_regs.xml). Out of range and malformed offsets are errors.
TEST(cpAfucAsm, ControlRegisterPlusOffset) {
  using cp_test::asm1;
  EXPECT_EQ(asm1("cwrite $02, [$00 + @MEM_READ_ADDR+0x1], 0x0", 6), asm1("cwrite $02, [$00 + 0x019], 0x0", 6));
  EXPECT_EQ(asm1("cread $02, [$03 + @IB1_BASE+4], 0x0", 6), asm1("cread $02, [$03 + 0x014], 0x0", 6));
  EXPECT_THROW(asm1("cwrite $02, [$00 + @MEM_READ_ADDR+0xfff], 0x0", 6), asm_error);
  EXPECT_THROW(asm1("cwrite $02, [$00 + @MEM_READ_ADDR+0xz], 0x0", 6), asm_error);
}

// Jump-table entries come from Mesa's adreno_pm4.xml names, a6xx and a5xx where they differ:
// labels named after packets the old table lacked fill their entries.
TEST(cpAfucAsm, JumpTableFromA6xxAndA5xxPacketNames) {
  const char* src =
      "[00000001]\n[00000000]\nboot:\n\twaitin\n\tmov $01, $data\n"
      "CP_SET_MODE:\n\tnop\nCP_SET_VISIBILITY_OVERRIDE:\n\tnop\nCP_SKIP_IB2_ENABLE_LOCAL:\n\tnop\n"
      "CP_SET_BIN_DATA5:\n\tnop\nCP_REG_WRITE:\n\tnop\nIN_IB_END:\n\tnop\n";
  const std::vector<uint32_t> w6 = afuc_assemble(src, 6, "t.asm");
  const size_t jt = w6.size() - 0x80;  // the jump table closes the image
  // Entries count from the file's first word (two header words before `boot`).
  EXPECT_EQ(w6[jt + 0x63], 4u);
  EXPECT_EQ(w6[jt + 0x64], 5u);
  EXPECT_EQ(w6[jt + 0x23], 6u);
  EXPECT_EQ(w6[jt + 0x2f], 7u);
  EXPECT_EQ(w6[jt + 0x6d], 8u);
  EXPECT_EQ(w6[jt + 0x0a], 9u);
  EXPECT_EQ(pm4_id_name(0x6c, 6), "CP_PREEMPT_DISABLE");
  EXPECT_EQ(pm4_id_name(0x6c, 5), "CP_SET_RENDER_MODE");
  EXPECT_EQ(pm4_id_name(0x25, 5), "CP_SET_STATE");
  EXPECT_EQ(pm4_id_name(0x25, 6), "CP_DRAW_INDX_INDIRECT_IMPLICIT");
  EXPECT_EQ(*pm4_id_by_name("CP_LOAD_STATE4", 5), 0x30u);
  EXPECT_FALSE(pm4_id_by_name("CP_LOAD_STATE4", 6).has_value());
  EXPECT_EQ(pm4_id_name(0x7a, 6), "UNKN122");
}

// a5xx per adreno_pm4.xml's variants: CP_INDIRECT_BUFFER_PFE and CP_YIELD_ENABLE (A5XX) name 0x3f
// and 0x1c as input, while Mesa prints the first name valid for the generation (CP_INDIRECT_BUFFER,
// CP_PREEMPT_ENABLE); a6xx has neither alias.
TEST(AfucAsm, A5xxNamesFollowPm4XmlVariants) {
  EXPECT_EQ(*pm4_id_by_name("CP_INDIRECT_BUFFER_PFE", 5), 0x3fu);
  EXPECT_FALSE(pm4_id_by_name("CP_INDIRECT_BUFFER_PFE", 6).has_value());
  EXPECT_EQ(pm4_id_name(0x3f, 5), "CP_INDIRECT_BUFFER");
  EXPECT_EQ(*pm4_id_by_name("CP_YIELD_ENABLE", 5), 0x1cu);
  EXPECT_FALSE(pm4_id_by_name("CP_YIELD_ENABLE", 6).has_value());
  EXPECT_EQ(pm4_id_name(0x1c, 5), "CP_PREEMPT_ENABLE");
  EXPECT_EQ(pm4_id_name(0x1c, 6), "UNKN28");
  // afuc-asm fills an a5xx jump table from the PFE name.
  const auto w = afuc_assemble("[00000000]\n[00000000]\nCP_INDIRECT_BUFFER_PFE:\n\twaitin\n\tnop\n", 5);
  EXPECT_EQ(w[w.size() - 0x80 + 0x3f], 2u);
}
