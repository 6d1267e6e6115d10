// SPDX-License-Identifier: Apache-2.0
// The common shape of a .traceg instruction line, read in one pass: single-blank-run separated
// fields, hex numbers decoded 16 digits at a time (SSE2; two 8-digit words elsewhere), no message
// built. It declines any line it does not read exactly as the full parser (trace.cpp) would; that
// parser then reads the line and gives its message. Internal to the trace parser.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

namespace gpuvp::sm {

// One instruction line's fields as written (syntax only; the parser checks them against the
// kernel: opcode known, EXIT lanes, mem_width on a memory opcode, the warp's insts count).
struct scanned_inst {
  uint32_t pc, mask;
  uint8_t ndst, nsrc;  // at most 4 each
  uint16_t dst[4], src[4];
  std::string_view opcode;
  uint64_t opcode_head;  // the opcode's first (up to) 8 bytes, zero-extended: its lookup key
  bool memory;           // mem_width > 0: addrs holds the 32 lanes' addresses (0: inactive)
  uint64_t addrs[32];
};

// The run of hex digits (0-9, a-f, A-F) that starts 16 readable bytes: its length (0 to 16) and,
// when not 0, its value. leading_hex uses SSE2 where the host has it, leading_hex_portable plain
// 64-bit arithmetic (the form on other hosts; the tests check that the two agree).
struct hex_run {
  uint64_t value;
  unsigned digits;
};
hex_run leading_hex(const char* p16);
hex_run leading_hex_portable(const char* p16);

// Address format 1 (base + stride), as Accel-Sim's base_stride_decompress: the first active lane
// gets `base`, each following active lane the previous address + `stride`; the run ends at the
// first inactive lane after it (later lanes are left as they are: 0).
void base_stride_lanes(uint32_t mask, uint64_t base, int64_t stride, uint64_t* a);

// Reads lines of the common shape "PC mask nd [Rd..] opcode ns [Rs..] mem_width [format
// addresses] [immediate]" from a copy of the line followed by zero bytes, so that no field's read
// checks for the line's end (the zero after the line ends the last field).
class instruction_scanner {
 public:
  // A trimmed, non-empty line into out (its opcode a view of the copy, valid until the next
  // call); false for anything the full parser would read differently or refuse (out is then
  // partly written).
  bool scan(std::string_view line, scanned_inst& out);

 private:
  std::vector<char> padded_;
};

}  // namespace gpuvp::sm
