// SPDX-License-Identifier: Apache-2.0
// ISS semantics, every instruction and modifier, values worked out by hand from the reference.
#include <algorithm>
#include <cstdio>
#include <deque>
#include <map>

#include <gtest/gtest.h>

#include "afuc_iss.h"
#include "cp_test_util.h"

using namespace gpuvp::cp;

namespace {
struct test_env : afuc_env {
  std::deque<uint32_t> stream;
  std::map<uint32_t, uint32_t> regs, ctrl, pipe;
  std::map<uint64_t, uint32_t> mem;
  std::vector<std::pair<uint32_t, uint32_t>> reg_writes;
  std::vector<uint32_t> memdata_addrs;
  bool secure_ok = false;
  std::string last_error;
  bool pop_data(uint32_t& v) override {
    if (stream.empty()) return false;
    v = stream.front();
    stream.pop_front();
    return true;
  }
  void reg_write(uint32_t& r, uint32_t v, bool) override {
    regs[r] = v;
    reg_writes.push_back({r, v});
    r++;
  }
  uint32_t read_memdata(uint32_t& addr) override {
    memdata_addrs.push_back(addr);
    return regs[addr++];
  }
  uint32_t read_regdata() override { return 0xabcd; }
  void ctrl_write(uint32_t r, uint32_t v) override { ctrl[r] = v; }
  uint32_t ctrl_read(uint32_t r) override { return ctrl[r]; }
  void pipe_write(uint32_t id, uint32_t v) override { pipe[id] = v; }
  uint32_t mem_read(uint64_t a) override { return mem[a]; }
  void mem_write(uint64_t a, uint32_t v) override { mem[a] = v; }
  bool set_secure(uint32_t) override { return secure_ok; }
  void error(const std::string& m) override { last_error = m; }
};

struct cpIssTest : ::testing::Test {
  test_env env;
  afuc_iss iss{6, 4};
  void load(const std::string& src, int gen = 6, unsigned depth = 4) {
    iss = afuc_iss(gen, depth);
    iss.load(cp_test::assemble(src, gen));
    iss.set_env(&env);
  }
};
}  // namespace

TEST(cpAfucAlu, ArithmeticAndCarry) {
  uint32_t c = 0;
  EXPECT_EQ(afuc_iss::alu(afuc_op::add, 0xffffffffu, 2, c), 1u);  // 0x1_00000001
  EXPECT_EQ(c, 1u);
  EXPECT_EQ(afuc_iss::alu(afuc_op::addhi, 5, 6, c), 12u);  // 5 + 6 + carry 1
  EXPECT_EQ(afuc_iss::alu(afuc_op::add, 1, 2, c), 3u);
  EXPECT_EQ(c, 0u);
  // 0x5_00000000 - 1 = 0x4_ffffffff: lo 0 - 1 = 0xffffffff, borrow as carry 0xffffffff
  EXPECT_EQ(afuc_iss::alu(afuc_op::sub, 0, 1, c), 0xffffffffu);
  EXPECT_EQ(c, 0xffffffffu);
  EXPECT_EQ(afuc_iss::alu(afuc_op::subhi, 5, 0, c), 4u);  // 5 - 0 + 0xffffffff
  EXPECT_EQ(afuc_iss::alu(afuc_op::sub, 5, 3, c), 2u);
  EXPECT_EQ(c, 0u);
  EXPECT_EQ(afuc_iss::alu(afuc_op::subhi, 7, 2, c), 5u);
}

TEST(cpAfucAlu, LogicShiftsRotates) {
  uint32_t c = 0;
  EXPECT_EQ(afuc_iss::alu(afuc_op::and_, 0xf0f0, 0x0ff0, c), 0x00f0u);
  EXPECT_EQ(afuc_iss::alu(afuc_op::or_, 0xf0f0, 0x0ff0, c), 0xfff0u);
  EXPECT_EQ(afuc_iss::alu(afuc_op::xor_, 0xf0f0, 0x0ff0, c), 0xff00u);
  EXPECT_EQ(afuc_iss::alu(afuc_op::not_, 0x0000ffff, 0, c), 0xffff0000u);
  EXPECT_EQ(afuc_iss::alu(afuc_op::shl, 0x80000001u, 1, c), 0x00000002u);
  EXPECT_EQ(afuc_iss::alu(afuc_op::shl, 1, 33, c), 2u);  // count mod 32 (documented)
  EXPECT_EQ(afuc_iss::alu(afuc_op::ushr, 0x80000000u, 4, c), 0x08000000u);
  EXPECT_EQ(afuc_iss::alu(afuc_op::ishr, 0x80000000u, 4, c), 0xf8000000u);
  EXPECT_EQ(afuc_iss::alu(afuc_op::ishr, 0x40000000u, 4, c), 0x04000000u);
  EXPECT_EQ(afuc_iss::alu(afuc_op::rot, 0x80000001u, 1, c), 0x00000003u);
  EXPECT_EQ(afuc_iss::alu(afuc_op::rot, 0x12345678u, 8, c), 0x34567812u);
  EXPECT_EQ(afuc_iss::alu(afuc_op::rot, 0x12345678u, 0, c), 0x12345678u);
  // negative count: 64-bit rotate of 0x00000000_80000001 left by 1 = 0x1_00000002 -> low word
  EXPECT_EQ(afuc_iss::alu(afuc_op::rot, 0x80000001u, 0xffffffffu, c), 0x00000002u);
  EXPECT_EQ(afuc_iss::alu(afuc_op::mul8, 0x1234, 0x5678, c), 0x1860u);  // 0x34*0x78 = 52*120 = 6240
  EXPECT_EQ(afuc_iss::alu(afuc_op::min, 0xffffffffu, 1, c), 1u);        // unsigned
  EXPECT_EQ(afuc_iss::alu(afuc_op::max, 0xffffffffu, 1, c), 0xffffffffu);
  EXPECT_EQ(afuc_iss::alu(afuc_op::msb, 0, 0, c), 0u);
  EXPECT_EQ(afuc_iss::alu(afuc_op::msb, 1, 0, c), 0u);
  EXPECT_EQ(afuc_iss::alu(afuc_op::msb, 0x80000000u, 0, c), 31u);
  EXPECT_EQ(afuc_iss::alu(afuc_op::msb, 0x00012345u, 0, c), 16u);
}

TEST(cpAfucAlu, CompareCodes) {
  uint32_t c = 0;
  EXPECT_EQ(afuc_iss::alu(afuc_op::cmp, 5, 3, c), 0x00u);
  EXPECT_EQ(afuc_iss::alu(afuc_op::cmp, 3, 3, c), 0x2bu);
  EXPECT_EQ(afuc_iss::alu(afuc_op::cmp, 3, 5, c), 0x1eu);
  EXPECT_EQ(afuc_iss::alu(afuc_op::cmp, 0xffffffffu, 1, c), 0x00u);  // unsigned
}

TEST_F(cpIssTest, CmpWithBitBranchIsLessOrEqual) {
  // 0x2b = 101011b and 0x1e = 011110b both have bit 1; 0x00 does not: breq b1 = "<=".
  load("mov $02, 0x3\nmov $03, 0x5\ncmp $04, $02, $03\nbreq $04, b1, #+3\nnop\nmov $05, 0x1\nmov $06, 0x1\n");
  iss.run(6);  // 0..4, then 6 (the branch skips 5)
  EXPECT_EQ(iss.reg(4), 0x1eu);
  EXPECT_EQ(iss.reg(5), 0u);
  EXPECT_EQ(iss.reg(6), 1u);
}

TEST_F(cpIssTest, MoveImmediateAndZeroRegister) {
  load("mov $04, 0xdead << 16\nmov $00, 0x5\nadd $01, $00, 0x1\nnot $02, 0x1234\n");
  EXPECT_EQ(iss.run(4), 4u);
  EXPECT_EQ(iss.reg(4), 0xdead0000u);
  EXPECT_EQ(iss.reg(0), 0u);  // writes to $00 are dropped
  EXPECT_EQ(iss.reg(1), 1u);
  EXPECT_EQ(iss.reg(2), 0xffffedcbu);  // ~0x00001234
}

TEST_F(cpIssTest, BranchDelaySlot) {
  load("mov $01, 0x1\njump #+3\nmov $02, 0x2\nmov $03, 0x3\nmov $04, 0x4\n");
  EXPECT_EQ(iss.run(4), 4u);  // pc 0, 1, 2 (delay slot), 4
  EXPECT_EQ(iss.reg(2), 2u);
  EXPECT_EQ(iss.reg(3), 0u);
  EXPECT_EQ(iss.reg(4), 4u);
  EXPECT_EQ(iss.pc(), 5u);
}

TEST_F(cpIssTest, BranchInDelaySlotFirstTaken) {
  load("jump #+3\nbreq $00, 0x1, #+4\nmov $01, 0x1\nmov $02, 0x2\n");
  iss.run(3);  // 0, 1 (not taken), 3
  EXPECT_EQ(iss.reg(1), 0u);
  EXPECT_EQ(iss.reg(2), 2u);
  EXPECT_EQ(iss.st(), afuc_iss::state::running);
}

TEST_F(cpIssTest, BranchInDelaySlotSecondTaken) {
  load("breq $00, 0x1, #+3\njump #+3\nmov $01, 0x1\nmov $02, 0x2\nmov $03, 0x3\n");
  iss.run(4);  // 0 (not taken), 1 (taken to 4), 2 (its delay slot), 4
  EXPECT_EQ(iss.reg(1), 1u);
  EXPECT_EQ(iss.reg(2), 0u);
  EXPECT_EQ(iss.reg(3), 3u);
}

TEST_F(cpIssTest, BothBranchesTakenIsAnError) {
  load("jump #+3\njump #+4\nnop\nnop\nnop\nnop\n");
  iss.run(10);
  EXPECT_EQ(iss.st(), afuc_iss::state::halted);
  EXPECT_EQ(iss.error_message(), "CP microcode error at pc 0x0001 (word 0xc8000004): taken branch in the delay slot of a taken branch");
  EXPECT_EQ(env.last_error, iss.error_message());
}

TEST_F(cpIssTest, BranchForms) {
  // brne imm / breq imm / brne bit / breq bit, each taken and not taken.
  load(
      "mov $01, 0x5\n"
      "brne $01, 0x5, #+2\nadd $02, $02, 0x1\n"    // not taken: $02 += 1 (and delay slot)
      "breq $01, 0x5, #+2\nadd $02, $02, 0x10\n"   // taken; delay slot still runs: $02 += 0x10
      "brne $01, b1, #+2\nadd $02, $02, 0x100\n"   // 5 = 101b: bit 1 clear -> taken
      "breq $01, b1, #+2\nadd $02, $02, 0x1000\n"  // bit 1 clear -> not taken
      "nop\n");
  iss.run(9);
  EXPECT_EQ(iss.reg(2), 0x1111u);
  EXPECT_EQ(iss.pc(), 9u);
}

TEST_F(cpIssTest, CallAndReturnWithDelaySlots) {
  load("call #5\nmov $01, 0x1\nmov $02, 0x2\nnop\nnop\nadd $03, $01, 0x10\nret\nmov $04, 0x4\n");
  EXPECT_EQ(iss.run(6), 6u);  // 0, 1, 5, 6, 7, 2
  EXPECT_EQ(iss.reg(3), 0x11u);
  EXPECT_EQ(iss.reg(4), 4u);
  EXPECT_EQ(iss.reg(2), 2u);
  EXPECT_EQ(iss.pc(), 3u);
  EXPECT_EQ(iss.call_depth_now(), 0u);
}

TEST_F(cpIssTest, SetAndClearBit) {
  // 0xf0 | 1<<1 = 0xf2; then clear b4 of 0xf2 = 0xe2; (rep) with $rem 2 sets b0 twice: 0xe3
  load("mov $01, 0xf0\nsetbit $02, $01, b1\nclrbit $03, $02, b4\nmov $rem, 0x2\n(rep)setbit $03, $03, b0\n");
  iss.run(6);
  EXPECT_EQ(iss.reg(2), 0xf2u);
  EXPECT_EQ(iss.reg(3), 0xe3u);
  EXPECT_EQ(iss.reg(REG_REM), 0u);
}

TEST(cpAfucAlu, RegisterSetBit) {
  uint32_t c = 0;
  // src2 = bit << 1 | value: (9<<1)|1 = 0x13 sets b9 of 0x0f -> 0x20f; (8<<1)|0 = 0x10 clears b8
  EXPECT_EQ(afuc_iss::alu(afuc_op::setbitr, 0x0fu, 0x13u, c), 0x20fu);
  EXPECT_EQ(afuc_iss::alu(afuc_op::setbitr, 0x3ffu, 0x10u, c), 0x2ffu);
  // bits above 5 of src2 are ignored: 0x41 -> bit 0, value 1
  EXPECT_EQ(afuc_iss::alu(afuc_op::setbitr, 0x0u, 0x41u, c), 0x1u);
}

TEST_F(cpIssTest, RegisterAndAbsoluteJumpsHaveDelaySlots) {
  // 0: $05 = 6; 1: jump $05 (delay slot 2 runs) -> 6: jumpa #9 (delay slot 7 runs) -> 9
  load(
      "mov $05, 0x6\njump $05\nmov $01, 0x1\nmov $02, 0x2\nnop\nnop\n"
      "jumpa #9\nmov $03, 0x3\nmov $04, 0x4\nmov $06, 0x6\n");
  EXPECT_EQ(iss.run(6), 6u);  // pcs 0, 1, 2, 6, 7, 9
  EXPECT_EQ(iss.reg(1), 1u);
  EXPECT_EQ(iss.reg(2), 0u);
  EXPECT_EQ(iss.reg(3), 3u);
  EXPECT_EQ(iss.reg(4), 0u);
  EXPECT_EQ(iss.reg(6), 6u);
  EXPECT_EQ(iss.pc(), 10u);
}

TEST_F(cpIssTest, CallDepthOverflowIsAnError) {
  load("call #2\nnop\ncall #4\nnop\ncall #0\nnop\n", 6, 2);
  iss.run(10);
  EXPECT_EQ(iss.st(), afuc_iss::state::halted);
  EXPECT_EQ(iss.error_message(), "CP microcode error at pc 0x0004 (word 0xd4000000): call stack overflow (depth 2)");
}

TEST_F(cpIssTest, ReturnWithEmptyStackIsAnError) {
  load("nop\nret\nnop\n");
  iss.run(10);
  EXPECT_EQ(iss.error_message(), "CP microcode error at pc 0x0001 (word 0xd0000000): ret with an empty call stack");
}

TEST_F(cpIssTest, UndecodableWordStops) {
  load("nop\n[98000011]\n");
  iss.run(10);
  EXPECT_EQ(iss.error_message(), "CP microcode error at pc 0x0001 (word 0x98000011): undecodable instruction");
  load("nop\n");
  iss.run(10);
  EXPECT_EQ(iss.error_message(), "CP microcode error at pc 0x0001 (word 0x00000000): pc outside the microcode image");
}

TEST_F(cpIssTest, RepeatCountsDownRem) {
  load("mov $rem, 0x3\n(rep)add $01, $01, 0x2\nmov $rem, 0x0\n(rep)add $01, $01, 0x100\n");
  EXPECT_EQ(iss.run(6), 6u);  // 1 + 3 iterations + 1 + (rep) with $rem 0 issuing once
  EXPECT_EQ(iss.reg(1), 6u);
  EXPECT_EQ(iss.reg(REG_REM), 0u);
  EXPECT_EQ(iss.pc(), 4u);
}

TEST_F(cpIssTest, RepeatStreamsDataIntoRegisters) {
  env.stream = {10, 20, 30};
  load("mov $rem, 0x3\nmov $addr, 0x100\n(rep)mov $data, $data\n");
  iss.run(5);
  EXPECT_EQ(env.regs[0x100], 10u);
  EXPECT_EQ(env.regs[0x101], 20u);
  EXPECT_EQ(env.regs[0x102], 30u);
  EXPECT_EQ(iss.reg(REG_ADDR), 0x103u);  // auto-increment
  EXPECT_EQ(iss.reg(REG_REM), 0u);
  EXPECT_TRUE(env.stream.empty());
}

TEST_F(cpIssTest, XmovSequence) {
  // $rem = 4, (xmov3)mov $05, $data: $05 = 1 (rem 3); rem = 3, $data = 2 (rem 2);
  // rem = 2, $05 = 3 (rem 1); rem = 1, $data = 4 (rem 0).
  env.stream = {1, 2, 3, 4};
  load("mov $rem, 0x4\nmov $addr, 0x300\n(xmov3)mov $05, $data\n");
  iss.run(3);
  EXPECT_EQ(iss.reg(5), 3u);
  EXPECT_EQ(env.regs[0x300], 2u);
  EXPECT_EQ(env.regs[0x301], 4u);
  EXPECT_EQ(iss.reg(REG_REM), 0u);
}

TEST_F(cpIssTest, RepXmovCopiesExactlyRemDwords) {
  // The real a630 PKT4 handler: (rep)(xmov1)mov $data, $data. With $rem = 1 the instruction's
  // own read leaves $rem 0, so no extra move (documented choice: the reference emulator samples
  // $rem before that read and would read a second dword). With $rem = 3: iteration 1 reads 2
  // dwords (rem 3 -> 1), iteration 2 reads 1 (rem 0, no extra move).
  env.stream = {0x11, 0x99};
  load("mov $rem, 0x1\nmov $addr, 0x500\n(rep)(xmov1)mov $data, $data\n");
  iss.run(3);
  EXPECT_EQ(env.regs[0x500], 0x11u);
  EXPECT_EQ(env.reg_writes.size(), 1u);
  EXPECT_EQ(env.stream.size(), 1u);  // 0x99 is left for the next packet
  env = test_env();
  env.stream = {1, 2, 3, 4};
  load("mov $rem, 0x3\nmov $addr, 0x600\n(rep)(xmov1)mov $data, $data\n");
  iss.run(5);
  EXPECT_EQ(env.reg_writes.size(), 3u);
  EXPECT_EQ(env.regs[0x602], 3u);
  EXPECT_EQ(env.stream.size(), 1u);
  EXPECT_EQ(iss.reg(REG_REM), 0u);
}

TEST_F(cpIssTest, RegisterOffsetFlagsAboveBit17) {
  // "ushr $usraddr, $01, 8" on a masked PKT4 header leaves the register parity in bit 19: a
  // register write (bits 31:24 are zero), not a pipe register.
  load("mov $01, 0x0808 << 16\nor $01, $01, 0x8301\nushr $usraddr, $01, 0x8\nmov $data, $00\n");
  iss.run(4);
  ASSERT_EQ(env.reg_writes.size(), 1u);
  EXPECT_EQ(env.reg_writes[0].first, 0x80883u);  // the environment masks bits 17:0 (the CP does)
  EXPECT_TRUE(env.pipe.empty());
}

TEST_F(cpIssTest, XmovBoundedByRem) {
  // $rem = 1 limits (xmov2) to one extra move: $05 = 9, then $data = $06 once, rem 0.
  load("mov $06, 0x9\nmov $rem, 0x1\nmov $addr, 0x400\n(xmov2)add $05, $00, $06\n");
  iss.run(4);
  EXPECT_EQ(iss.reg(5), 9u);
  ASSERT_EQ(env.reg_writes.size(), 1u);
  EXPECT_EQ(env.reg_writes[0], (std::pair<uint32_t, uint32_t>{0x400, 9}));
  EXPECT_EQ(iss.reg(REG_REM), 0u);
}

TEST_F(cpIssTest, RegisterWritesWithBankBit) {
  // or $addr, $17, REG: bit 11 selects bank 1 -> 0x800 | 0x100
  load("mov $17, 0x800\nmov $03, 0x33\nmov $04, 0x44\nor $addr, $17, 0x100\nmov $data, $03\nmov $data, $04\n");
  iss.run(6);
  EXPECT_EQ(env.regs[0x900], 0x33u);
  EXPECT_EQ(env.regs[0x901], 0x44u);
}

TEST_F(cpIssTest, SpecialSourceRegisters) {
  env.regs[0x120] = 0x77;
  load("mov $addr, 0x120\nmov $01, $memdata\nmov $02, $regdata\nmov $rem, 0x9\nmov $03, $rem\n");
  iss.run(5);
  EXPECT_EQ(iss.reg(1), 0x77u);
  ASSERT_EQ(env.memdata_addrs.size(), 1u);
  EXPECT_EQ(env.memdata_addrs[0], 0x120u);
  EXPECT_EQ(iss.reg(2), 0xabcdu);
  EXPECT_EQ(iss.reg(3), 9u);
}

TEST_F(cpIssTest, PipeRegistersOnA6xx) {
  // $addr >= 0x10000 selects pipe register $addr>>24; each $data write moves to the next
  // (+0x01000000) unless bit 18 is set.
  load(
      "mov $addr, 0x5 << 24\nmov $data, $00\nmov $01, 0x7\nmov $data, $01\n"
      "mov $addr, 0x904 << 16\nmov $data, $01\nmov $data, $01\n");
  iss.run(7);
  EXPECT_EQ(env.pipe[5], 0u);
  EXPECT_EQ(env.pipe[6], 7u);
  EXPECT_EQ(env.pipe[9], 7u);                 // 0x09040000: id 9, b18 set
  EXPECT_EQ(iss.reg(REG_ADDR), 0x09040000u);  // no increment
  EXPECT_TRUE(env.regs.empty());
}

TEST_F(cpIssTest, ControlRegistersAndPreIncrement) {
  load(
      "mov $05, 0x10\nmov $02, 0x42\ncwrite $02, [$05 + 0x4], 0x4\ncread $03, [$05 + 0x0], 0x0\n"
      "cwrite $02, [$05 + 0x1], 0x8\n");
  iss.run(5);
  EXPECT_EQ(env.ctrl[0x14], 0x42u);  // 0x10 + 4
  EXPECT_EQ(iss.reg(5), 0x14u);      // pre-incremented
  EXPECT_EQ(iss.reg(3), 0x42u);
  // a6xx flags 0x8 (bit 15) = swrite (Mesa afuc.xml): the SQE register, not control 0x15
  EXPECT_EQ(env.ctrl.count(0x15), 0u);
  EXPECT_EQ(iss.sqe_reg(0x15), 0x42u);
  EXPECT_EQ(iss.reg(5), 0x14u);  // no increment
  // a5xx: bit 15 belongs to the plain cwrite encoding; flags 0xc = 0x8 | pre-increment
  env.ctrl.clear();
  load("mov $05, 0x10\nmov $02, 0x42\ncwrite $02, [$05 + 0x1], 0x8\ncwrite $02, [$05 + 0x4], 0xc\n", 5);
  iss.run(4);
  EXPECT_EQ(env.ctrl[0x11], 0x42u);
  EXPECT_EQ(env.ctrl[0x14], 0x42u);
  EXPECT_EQ(iss.reg(5), 0x14u);
}

TEST_F(cpIssTest, PacketTableWrite) {
  load(
      "mov $02, 0x10\ncwrite $02, [$00 + @PACKET_TABLE_WRITE_ADDR], 0x0\nmov $03, 0x7\n"
      "cwrite $03, [$00 + @PACKET_TABLE_WRITE], 0x0\nmov $03, 0x9\ncwrite $03, [$00 + @PACKET_TABLE_WRITE], 0x0\n");
  iss.run(6);
  EXPECT_EQ(iss.jumptable(0x10), 7u);
  EXPECT_EQ(iss.jumptable(0x11), 9u);  // write address auto-increments
}

TEST_F(cpIssTest, LoadStoreUseLoadStoreHi) {
  env.ctrl[0x058] = 0x1;  // LOAD_STORE_HI
  env.mem[0x1'0000'1010ull] = 0x5a5a;
  load("mov $05, 0x1000\nload $03, [$05 + 0x10], 0x0\nstore $03, [$05 + 0x20], 0x4\n");
  iss.run(3);
  EXPECT_EQ(iss.reg(3), 0x5a5au);
  EXPECT_EQ(env.mem[0x1'0000'1020ull], 0x5a5au);
  EXPECT_EQ(iss.reg(5), 0x1020u);  // pre-increment
}

TEST_F(cpIssTest, SetSecureSkipsTwoOnSuccess) {
  const char* src = "mov $02, 0x1\nsetsecure $02, #+3\nmov $03, 0x3\nmov $04, 0x4\nmov $05, 0x5\n";
  env.secure_ok = true;
  load(src);
  iss.run(3);  // 0, 1, 4
  EXPECT_EQ(iss.reg(3), 0u);
  EXPECT_EQ(iss.reg(4), 0u);
  EXPECT_EQ(iss.reg(5), 5u);
  env.secure_ok = false;
  load(src);
  iss.run(3);  // 0, 1, 2
  EXPECT_EQ(iss.reg(3), 3u);
}

TEST_F(cpIssTest, PreemptLeaveOutsideAHandlerJumpsAndIretFails) {
  load("preemptleave #3\nmov $01, 0x1\nmov $02, 0x2\nmov $03, 0x3\niret\n");
  iss.run(3);  // 0, 1 (delay slot), 3
  EXPECT_EQ(iss.reg(1), 1u);
  EXPECT_EQ(iss.reg(2), 0u);
  EXPECT_EQ(iss.reg(3), 3u);
  iss.run(1);  // a spurious iret
  EXPECT_EQ(iss.st(), afuc_iss::state::halted);
  EXPECT_EQ(iss.error_message(), "CP microcode error at pc 0x0004 (word 0xd2000000): iret outside an interrupt handler");
}

// Interrupts: the handler runs at the target, iret returns after its delay slot to the
// instruction that was next. Expected values follow the instruction order by hand.
static const char* irq_src = R"(
	mov $01, 0x1
	mov $02, 0x2
	mov $03, 0x3
	nop
handler:
	mov $04, 0x4
	iret
	mov $05, 0x5            ; iret's delay slot
	mov $06, 0x6            ; never reached
)";

TEST_F(cpIssTest, InterruptRunsTheHandlerAndIretReturns) {
  load(irq_src);
  iss.run(1);  // pc 0
  iss.interrupt(4);
  EXPECT_TRUE(iss.irq_pending());
  iss.run(2);  // taken before pc 1: 4, 5 (iret)
  EXPECT_TRUE(iss.in_handler());
  EXPECT_EQ(iss.saved_pc(), 1u);
  EXPECT_EQ(iss.reg(4), 4u);
  iss.run(1);  // 6: the delay slot, then back at 1
  EXPECT_FALSE(iss.in_handler());
  EXPECT_EQ(iss.reg(5), 5u);
  EXPECT_EQ(iss.pc(), 1u);
  EXPECT_EQ(iss.reg(2), 0u);
  iss.run(2);  // 1, 2
  EXPECT_EQ(iss.reg(2), 2u);
  EXPECT_EQ(iss.reg(3), 3u);
  EXPECT_EQ(iss.reg(6), 0u);
  EXPECT_EQ(iss.stats().interrupts, 1u);
  EXPECT_EQ(iss.stats().instructions, 6u);  // 0, 4, 5, 6, 1, 2
}

TEST_F(cpIssTest, InterruptInADelaySlotKeepsThePendingBranch) {
  load(R"(
	jump #target
	mov $01, 0x1            ; the jump's delay slot
	mov $02, 0x2            ; skipped by the jump
	nop
target:
	mov $03, 0x3
	nop
handler:
	mov $04, 0x4
	iret
	nop
)");
  iss.run(1);        // the jump: its delay slot (pc 1) is next
  iss.interrupt(6);  // handler
  iss.run(3);        // 6, 7 (iret), 8 (delay slot): back at 1 with the jump still pending
  EXPECT_EQ(iss.pc(), 1u);
  iss.run(2);  // 1 (the delay slot), then 4: the jump's target
  EXPECT_EQ(iss.reg(1), 1u);
  EXPECT_EQ(iss.reg(2), 0u);
  EXPECT_EQ(iss.reg(3), 3u);
  EXPECT_EQ(iss.reg(4), 4u);
}

TEST_F(cpIssTest, RequestsInsideAHandlerWaitForIret) {
  load(irq_src);
  iss.interrupt(4);
  iss.run(1);        // taken at pc 0: 4
  iss.interrupt(4);  // not nested
  iss.run(2);        // 5 (iret), 6: back to 0 ...
  EXPECT_EQ(iss.stats().interrupts, 1u);
  iss.run(1);  // ... where the waiting request is taken: 4
  EXPECT_EQ(iss.stats().interrupts, 2u);
  EXPECT_TRUE(iss.in_handler());
  EXPECT_EQ(iss.saved_pc(), 0u);
  EXPECT_EQ(iss.reg(1), 0u);  // pc 0 never ran
}

TEST_F(cpIssTest, TakenBranchInTheDelaySlotOfIretIsAnError) {
  load("nop\nnop\niret\njump #0\n");
  iss.interrupt(2);
  iss.run(2);
  EXPECT_EQ(iss.st(), afuc_iss::state::halted);
  EXPECT_NE(iss.error_message().find("taken branch in the delay slot of a taken branch"), std::string::npos);
}

TEST_F(cpIssTest, PreemptLeaveInsideAHandlerFallsThrough) {
  // handler at 2: preemptleave succeeds (no jump to 6), the context is dropped, so the
  // later iret is spurious.
  load("nop\nnop\npreemptleave #6\nmov $01, 0x1\nmov $02, 0x2\niret\nmov $03, 0x3\n");
  iss.interrupt(2);
  iss.run(3);  // 2, 3, 4
  EXPECT_FALSE(iss.in_handler());
  EXPECT_EQ(iss.reg(1), 1u);
  EXPECT_EQ(iss.reg(2), 2u);
  EXPECT_EQ(iss.reg(3), 0u);
  iss.run(1);
  EXPECT_EQ(iss.st(), afuc_iss::state::halted);
}

TEST_F(cpIssTest, StarvedInstructionIsRetriedAfterTheHandler) {
  load("mov $01, $data\nmov $02, 0x2\nhandler:\nmov $04, 0x4\niret\nnop\n");
  iss.run(10);
  EXPECT_EQ(iss.st(), afuc_iss::state::starved);
  iss.interrupt(2);
  iss.resume();
  iss.run(3);  // 2, 3, 4: back at 0, which starves again
  EXPECT_EQ(iss.reg(4), 4u);
  EXPECT_EQ(iss.pc(), 0u);
  EXPECT_EQ(iss.reg(REG_REM), 0u);  // the starved read consumed nothing
  env.stream = {0x1234};
  iss.resume();
  iss.run(2);
  EXPECT_EQ(iss.reg(1), 0x1234u);
  EXPECT_EQ(iss.reg(2), 2u);
}

// SQE registers (a6xx cwrite/cread with flag 0x8 = swrite/sread): SP and STACKn are the return
// stack. The call at 0 pushes 2 (the instruction after its delay slot); sread SP = 1, STACK0 = 2.
// Then swrite STACK0 = 7 makes the ret at 7 return to 7 instead of 2; ctrl stays untouched.
TEST_F(cpIssTest, SqeRegistersAreTheReturnStack) {
  load(R"(
	call #3
	nop
	nop
	cread $02, [$00 + 0x005], 0x8
	cread $03, [$00 + 0x008], 0x8
	mov $04, 0x7
	cwrite $04, [$00 + 0x008], 0x8
	ret
	nop
	mov $05, 0x5
)");
  // 0 call, 1 (delay slot), 3, 4, 5, 6, 7 ret, 8 (delay slot): 8 instructions, then pc = 7
  iss.run(8);
  EXPECT_EQ(iss.reg(2), 1u);
  EXPECT_EQ(iss.reg(3), 2u);
  EXPECT_EQ(iss.pc(), 7u);
  EXPECT_EQ(iss.call_depth_now(), 0u);
  EXPECT_TRUE(env.ctrl.empty());  // no control register was written or read
  EXPECT_EQ(iss.sqe_reg(0x008), 7u);
}

TEST_F(cpIssTest, SqeStackPointerBeyondTheDepthIsAnError) {
  load("mov $02, 0x5\ncwrite $02, [$00 + 0x005], 0x8\n");  // depth 4
  iss.run(2);
  EXPECT_EQ(iss.st(), afuc_iss::state::halted);
  EXPECT_NE(iss.error_message().find("SP 5 beyond the call stack depth 4"), std::string::npos);
}

static const char* dispatch_fw = R"([01000000]
[01000000]
idle:
	waitin
	mov $01, $data
CP_NOP:
	(rep)mov $00, $data
	waitin
	mov $01, $data
PKT4:
	shl $02, $01, 0x6      ; register = header bits 25:8
	ushr $addr, $02, 0xe
	(rep)mov $data, $data
	waitin
	mov $01, $data
)";

TEST_F(cpIssTest, WaitinDispatchesThroughTheJumpTable) {
  iss = afuc_iss(6, 4);
  auto w = afuc_assemble(dispatch_fw, 6, "d.asm");
  iss.load(std::vector<uint32_t>(w.begin() + 1, w.end()));
  iss.set_env(&env);
  env.stream = {pm4_type7(0x10, 2), 0xa, 0xb, pm4_type4(0x883, 2), 0x11, 0x22};
  iss.run(100);
  EXPECT_EQ(iss.st(), afuc_iss::state::starved);
  EXPECT_EQ(env.regs[0x883], 0x11u);
  EXPECT_EQ(env.regs[0x884], 0x22u);
  // PKT4 saw the header with the type bits masked: 0x48088302 & 0x0fffffff
  EXPECT_EQ(iss.reg(1), 0x08088302u);
  EXPECT_EQ(iss.stats().packets, 2u);
  EXPECT_EQ(iss.stats().packets_by_id[0x10], 1u);
  EXPECT_EQ(iss.stats().packets_by_id[4], 1u);
  // starved in the delay slot of waitin: more data resumes there
  EXPECT_EQ(iss.pc(), 11u);
  env.stream = {pm4_type4(0x10, 1), 0x99};
  iss.resume();
  iss.run(100);
  EXPECT_EQ(env.regs[0x10], 0x99u);
  EXPECT_EQ(iss.stats().packets, 3u);
}

TEST_F(cpIssTest, InvalidHeaderStops) {
  iss = afuc_iss(6, 4);
  auto w = afuc_assemble(dispatch_fw, 6, "d.asm");
  iss.load(std::vector<uint32_t>(w.begin() + 1, w.end()));
  iss.set_env(&env);
  env.stream = {pm4_type7(0x10, 0) ^ 0x8000};  // count parity broken
  iss.run(100);
  EXPECT_EQ(iss.st(), afuc_iss::state::halted);
  EXPECT_EQ(iss.error_message(), "CP microcode error at pc 0x0003 (word 0x981f0806): invalid PM4 header 0x70100000");
}

// A (rep) runs its iterations one by one against run()'s budget: with $rem = 0xffffffff a run(100)
// ends after 100 instructions (the mov, then 99 iterations) at the same pc, and the next run()
// goes on where it stopped. (Before, one step ran all 2^32 iterations.)
TEST_F(cpIssTest, RepeatStopsAtTheRunBudgetAndResumes) {
  load("mov $rem, 0xffff << 16\n(rep)add $01, $01, 0x1\n");
  EXPECT_EQ(iss.run(100), 100u);
  EXPECT_EQ(iss.pc(), 1u);
  EXPECT_EQ(iss.reg(1), 99u);
  EXPECT_EQ(iss.reg(REG_REM), 0xffff0000u - 99);
  EXPECT_EQ(iss.run(1000), 1000u);
  EXPECT_EQ(iss.reg(1), 1099u);
  EXPECT_EQ(iss.pc(), 1u);
  EXPECT_EQ(iss.st(), afuc_iss::state::running);
}

// run()'s fast path against step(): random programs of register ALU operations (immediate and
// register forms, $00 as destination), moves, the four branch forms with delay slots (taken into
// each other too: the error case) and loops, mixed with instructions only step() runs (jump,
// setbit bN). The two must agree on every register, the carry, the PC, the count, the state
// and the error, at every budget.
TEST(cpIssFastPath, MatchesStepOnRandomPrograms) {
  static const char* const alu2[] = {"add",  "addhi", "sub", "subhi", "and", "or",  "xor", "shl",
                                     "ushr", "ishr",  "rot", "mul8",  "min", "max", "cmp"};
  uint64_t rng = 0x9e3779b97f4a7c15ull;
  auto next = [&](uint32_t n) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return uint32_t(rng % n);
  };
  auto reg = [&] { return "$0" + std::string(1, "0123456789abc"[next(13)]); };  // $00..$0c
  for (int program = 0; program < 200; ++program) {
    constexpr int length = 40;
    std::string src;
    for (int i = 0; i < length; ++i) {
      char line[96];
      const int left = length - i;
      switch (next(12)) {
        case 0:
        case 1:
        case 2:
          std::snprintf(line, sizeof line, "%s %s, %s, 0x%x\n", alu2[next(15)], reg().c_str(), reg().c_str(),
                        next(3) ? next(8) : next(0x10000));
          break;
        case 3:
        case 4:
          std::snprintf(line, sizeof line, "%s %s, %s, %s\n", alu2[next(15)], reg().c_str(), reg().c_str(), reg().c_str());
          break;
        case 5:
          std::snprintf(line, sizeof line, "%s\n",
                        next(2) ? ("not " + reg() + ", " + reg()).c_str() : ("msb " + reg() + ", " + reg()).c_str());
          break;
        case 6:
          std::snprintf(line, sizeof line, "not %s, 0x%x\n", reg().c_str(), next(0x10000));
          break;
        case 7:
          std::snprintf(line, sizeof line, "mov %s, 0x%x << %u\n", reg().c_str(), next(0x10000), next(17));
          break;
        case 8:
        case 9: {  // forward or backward (a loop while the register changes), never past the end
          const int off = next(3) ? 1 + int(next(uint32_t(std::min(left, 6)))) : -int(next(uint32_t(std::min(i, 6)) + 1));
          std::snprintf(line, sizeof line, "%s %s, %s, #%+d\n", next(2) ? "brne" : "breq", reg().c_str(),
                        next(2) ? ("0x" + std::to_string(next(4))).c_str() : ("b" + std::to_string(next(32))).c_str(), off ? off : 1);
          break;
        }
        case 10:
          std::snprintf(line, sizeof line, "nop\n");
          break;
        default: {  // jump and setbit bN run in step(); setbit with a register is an ALU operation
          const uint32_t k = next(3);
          const std::string text = k == 0   ? "jump #+" + std::to_string(1 + next(uint32_t(std::min(left, 4))))
                                   : k == 1 ? "setbit " + reg() + ", " + reg() + ", b" + std::to_string(next(32))
                                            : "setbit " + reg() + ", " + reg() + ", " + reg();
          std::snprintf(line, sizeof line, "%s\n", text.c_str());
          break;
        }
      }
      src += line;
    }
    const auto image = cp_test::assemble(src, 6);
    for (uint64_t budget : {1ull, 7ull, 64ull, 500ull}) {
      test_env env_run, env_step;
      afuc_iss by_run(6, 4), by_step(6, 4);
      by_run.load(image), by_step.load(image);
      by_run.set_env(&env_run), by_step.set_env(&env_step);
      for (afuc_iss* i : {&by_run, &by_step})
        for (unsigned r = 1; r < 13; ++r) i->set_reg(r, r * 0x11111111u);
      by_run.run(budget);
      while (by_step.st() == afuc_iss::state::running && by_step.stats().instructions < budget) by_step.step();
      SCOPED_TRACE("program " + std::to_string(program) + ", budget " + std::to_string(budget) + ":\n" + src);
      // A taken branch in a taken branch's delay slot halts both; run() leaves that branch uncounted
      // (as it always has: results stay as they were), step() counts it.
      const bool both_taken = by_step.error_message().find("taken branch in the delay slot") != std::string::npos;
      ASSERT_EQ(by_run.stats().instructions + (both_taken ? 1 : 0), by_step.stats().instructions);
      ASSERT_EQ(by_run.pc(), by_step.pc());
      ASSERT_EQ(by_run.carry(), by_step.carry());
      ASSERT_EQ(by_run.st(), by_step.st());
      ASSERT_EQ(by_run.error_message(), by_step.error_message());
      for (unsigned r = 0; r < 32; ++r) ASSERT_EQ(by_run.reg(r), by_step.reg(r)) << "$" << r;
    }
  }
}
