// SPDX-License-Identifier: Apache-2.0
// afuc assembler and disassembler (Mesa afuc-asm / afuc-disasm syntax) and the firmware file
// layout: word 0 = file header (stripped by the loader), then the instruction image, whose
// word 1 holds the jump-table offset in bits 15:0, then (when the image has one) the 0x80-entry
// packet jump table right after the instructions.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpuvp::cp {

constexpr uint32_t jumptable_entries = 0x80;

struct asm_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Assembles source text into a firmware file image (header word included). Errors throw
// asm_error with "file:line: message".
std::vector<uint32_t> afuc_assemble(const std::string& text, int gen, const std::string& file = "<input>");

// A firmware image split into its parts.
struct afuc_image {
  uint32_t header = 0;
  std::vector<uint32_t> instrs;     // the loaded image (file minus header)
  uint32_t code_size = 0;           // instructions before the jump table
  bool has_jumptable = false;       // Mesa layout: instrs[1]&0xffff + 0x80 == instrs.size()
  std::vector<uint32_t> jumptable;  // 0x80 entries when has_jumptable
};
afuc_image afuc_split(const std::vector<uint32_t>& file_words);

struct disasm_result {
  std::string text;
  uint32_t reachable = 0;          // instructions reachable from entry points and the jump table
  uint32_t unknown_reachable = 0;  // of those, words that decode to no instruction
  std::vector<uint32_t> unknown_pcs;
};
// Disassembles a firmware file (header included). With `verbose`, prefixes PC and word.
disasm_result afuc_disassemble(const std::vector<uint32_t>& file_words, int gen, bool verbose = false);

std::vector<uint32_t> read_words(const std::string& path);  // throws std::runtime_error
void write_words(const std::string& path, const std::vector<uint32_t>& words);

int afuc_asm_main(int argc, char** argv);
int afuc_disasm_main(int argc, char** argv);

}  // namespace gpuvp::cp
