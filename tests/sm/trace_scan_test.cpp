// SPDX-License-Identifier: Apache-2.0
// The trace parser's one-pass reading of common instruction lines (core/trace_scan.h) and the
// shortcuts beside it (the opcode slots, lines that repeat): each must give what the full parser
// gives, values worked out by hand from the .traceg format.
#include <gtest/gtest.h>

#include <random>

#include "core/trace.h"
#include "core/trace_scan.h"
#include "kernel_builder.h"

using namespace gpuvp::sm;

namespace {

// The run of hex digits starting 16 bytes, digit by digit.
hex_run leading_hex_reference(const char* p) {
  hex_run r{0, 0};
  for (; r.digits < 16; ++r.digits) {
    const char ch = p[r.digits];
    unsigned d;
    if (ch >= '0' && ch <= '9')
      d = unsigned(ch - '0');
    else if (ch >= 'a' && ch <= 'f')
      d = unsigned(ch - 'a' + 10);
    else if (ch >= 'A' && ch <= 'F')
      d = unsigned(ch - 'A' + 10);
    else
      break;
    r.value = r.value << 4 | d;
  }
  return r;
}

// A kernel of one block of `warps` warps around the given instruction lines per warp.
std::string kernel_text(unsigned threads, const std::vector<std::vector<std::string>>& warps) {
  std::string t = "-kernel name = k\n-kernel id = 1\n-grid dim = (1,1,1)\n-block dim = (" + std::to_string(threads) +
                  ",1,1)\n-binary version = 70\n#BEGIN_TB\nthread block = 0,0,0\n";
  for (unsigned w = 0; w < warps.size(); ++w) {
    t += "warp = " + std::to_string(w) + "\ninsts = " + std::to_string(warps[w].size()) + "\n";
    for (const std::string& l : warps[w]) t += l + "\n";
  }
  return t + "#END_TB\n";
}

std::string error_of(const std::string& text) { return gpuvp::sm::testing::parse_error_of(text, "s.traceg"); }

}  // namespace

TEST(sm_trace_scan, hex_runs_match_a_digit_by_digit_reading) {
  // Every byte value at every position after a run of random digits (both cases), the other
  // bytes random: the run's length and value, in both forms.
  std::mt19937 rng(7);
  const char digits[] = "0123456789abcdefABCDEF";
  for (unsigned at = 0; at < 16; ++at)
    for (unsigned byte = 0; byte < 256; ++byte) {
      char text[16];
      for (unsigned i = 0; i < 16; ++i) text[i] = i < at ? digits[rng() % 22] : char(rng() % 256);
      text[at] = char(byte);
      const hex_run want = leading_hex_reference(text);
      for (const hex_run got : {leading_hex(text), leading_hex_portable(text)}) {
        ASSERT_EQ(got.digits, want.digits) << "at " << at << " byte " << byte;
        if (want.digits) {
          ASSERT_EQ(got.value, want.value) << "at " << at << " byte " << byte;
        }
      }
    }
  // 16 digits: the whole 64 bits.
  const hex_run full = leading_hex("fedcba9876543210");
  EXPECT_EQ(full.digits, 16u);
  EXPECT_EQ(full.value, 0xfedcba9876543210ull);
}

TEST(sm_trace_scan, unusual_spellings_read_as_the_plain_line) {
  // Spellings the tracer does not write (tabs, blank runs, a trailing CR, leading zeros, upper
  // case, "0x" on PC and mask, a 26-digit address, a negative hex immediate), some read in one
  // pass and some the full parser's way, all the same instruction: PC 0x70, mask 0x3, R11 <- R2,
  // UR5, LDG.E.64 (8 bytes a lane), lanes 0 and 1 at 0x7f4000000008 and 0x7f400000000f.
  const std::vector<std::string> lines = {
      "0070 00000003 1 R11 LDG.E.64 2 R2 UR5 8 0 0x7f4000000008 0x7f400000000f",
      "0070\t00000003  1 R11 LDG.E.64 2 R2 UR5 8 0 0x7f4000000008 0x7f400000000f \r",
      "0070 00000003 1 R011 LDG.E.64 2 R2 UR05 8 0 0X7F4000000008 0x7F400000000F",
      "0x70 0x00000003 1 R11 LDG.E.64 2 R2 UR5 8 0 0x000000000000007f4000000008 0x7f400000000f 0",
      "0070 3 1 R11 LDG.E.64 2 R2 UR5 8 0 0x7f4000000008 0x7f400000000f -0x10",
  };
  for (const std::string& l : lines) {
    kernel_trace k = parse_kernel_trace_text(kernel_text(1, {{l, "0080 00000001 0 EXIT 0 0"}}), "s.traceg");
    const trace_inst& in = k.ctas[0].warps[0].insts[0];
    EXPECT_EQ(in.pc, 0x70u) << l;
    EXPECT_EQ(in.mask, 3u) << l;
    EXPECT_EQ(in.ndst, 1) << l;
    EXPECT_EQ(in.dst[0], 11) << l;
    EXPECT_EQ(in.nsrc, 2) << l;
    EXPECT_EQ(in.src[0], 2) << l;
    EXPECT_EQ(in.src[1], 256 + 5) << l;
    EXPECT_EQ(in.width, 8) << l;
    EXPECT_EQ(k.ctas[0].addresses[in.addr_index], 0x7f4000000008ull) << l;
    EXPECT_EQ(k.ctas[0].addresses[in.addr_index + 1], 0x7f400000000full) << l;
    EXPECT_EQ(k.ctas[0].addresses[in.addr_index + 2], 0u) << l;
  }
}

TEST(sm_trace_scan, opcodes_alike_in_their_first_bytes_stay_apart) {
  // Same length, same first 8 bytes: U8 is 1 byte a lane, 64 is 8; each keeps its own index.
  const std::string u8 = "0000 00000001 1 R1 LDG.E.SYS.U8 1 R2 4 0 0x100", b64 = "0010 00000001 1 R1 LDG.E.SYS.64 1 R2 4 0 0x100";
  kernel_trace k = parse_kernel_trace_text(kernel_text(32, {{u8, b64, u8, b64, "0020 ffffffff 0 EXIT 0 0"}}), "s.traceg");
  const auto& in = k.ctas[0].warps[0].insts;
  for (unsigned i = 0; i < 4; ++i) {
    EXPECT_EQ(in[i].width, i % 2 ? 8 : 1) << i;
    EXPECT_EQ(k.opcodes[in[i].opcode], i % 2 ? "LDG.E.SYS.64" : "LDG.E.SYS.U8") << i;
  }
}

TEST(sm_trace_scan, repeated_lines_are_told_apart_by_their_whole_text) {
  // R30, R31, R32: same PC field, length and last 8 bytes (one set of the repeated-line cache,
  // which holds two), taken in turn across warps: each warp's destinations stay 30, 31, 32.
  const std::vector<std::string> w = {"0010 ffffffff 1 R30 FFMA 3 R2 R3 R4 0", "0010 ffffffff 1 R31 FFMA 3 R2 R3 R4 0",
                                      "0010 ffffffff 1 R32 FFMA 3 R2 R3 R4 0", "0020 ffffffff 0 EXIT 0 0"};
  kernel_trace k = parse_kernel_trace_text(kernel_text(128, {w, w, w, w}), "s.traceg");
  for (unsigned warp = 0; warp < 4; ++warp)
    for (unsigned i = 0; i < 3; ++i) EXPECT_EQ(k.ctas[0].warps[warp].insts[i].dst[0], 30 + i) << warp << " " << i;
  // A memory opcode traced without addresses reads no memory, the line repeated or not.
  k = parse_kernel_trace_text(kernel_text(64, {{"0000 ffffffff 1 R1 LDG.E 1 R2 0", "0020 ffffffff 0 EXIT 0 0"},
                                               {"0000 ffffffff 1 R1 LDG.E 1 R2 0", "0020 ffffffff 0 EXIT 0 0"}}),
                              "s.traceg");
  for (unsigned warp = 0; warp < 2; ++warp) {
    EXPECT_EQ(k.ctas[0].warps[warp].insts[0].info.cls, op_class::mem);
    EXPECT_EQ(k.ctas[0].warps[warp].insts[0].info.space, mem_space::none);
    EXPECT_EQ(k.ctas[0].warps[warp].insts[0].width, 0);
  }
}

TEST(sm_trace_scan, repeated_lines_are_still_checked) {
  // A line read before still meets the checks of its own warp: the second EXIT of the same
  // lanes, a line past 'insts =', and EXIT of lanes past the block's 48 threads (warp 1 holds
  // lanes 0-15 only: ffff0000 are not threads).
  const std::string exit_all = "0000 ffffffff 0 EXIT 0 0";
  EXPECT_NE(error_of(kernel_text(32, {{exit_all, exit_all}})).find("s.traceg:11: EXIT of lanes ffffffff that already exited"),
            std::string::npos);
  std::string text = kernel_text(32, {{"0000 ffffffff 0 NOP 0 0", exit_all}});
  text.insert(text.find("#END_TB"), "0000 ffffffff 0 NOP 0 0\n");
  EXPECT_NE(error_of(text).find("s.traceg:12: more instruction lines than 'insts = 2'"), std::string::npos) << error_of(text);
  EXPECT_NE(error_of(kernel_text(48, {{exit_all}, {exit_all}})).find("s.traceg:13: EXIT of lanes ffff0000 that already exited"),
            std::string::npos);
}
