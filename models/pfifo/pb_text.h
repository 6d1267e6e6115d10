// SPDX-License-Identifier: Apache-2.0
// Text form of pushbuffers (docs/formats/pushbuffer.md, "commands"): the assembler behind
// `gpuvp pb-asm` and the workload format, and the listing behind `gpuvp pb-decode`.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>
#include "pushbuf.h"

namespace gpuvp::pfifo {

struct asm_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Assembles one command line ("inc 0 0x50 1", "gf.inline 1 REF_CNT 5", "word 0x1234", "jump 0x100")
// and appends its words. Throws asm_error (message without location) on bad input.
void assemble_line(const std::string& line, gen g, std::vector<uint32_t>& out);
// Assembles a whole text; errors name "<origin>:<line>".
std::vector<uint32_t> assemble(const std::string& text, gen g, const std::string& origin);

// Method number from a name (puller method names for g, M2MF names) or a number.
uint32_t parse_method(const std::string& token, gen g);

struct listing_mode {
  gen g = gen::g84;
  bool ib = false;
  bool sli_enable = false;
  uint64_t base = 0;  // address of the first word
};
// Readable listing: one line per word with address, word, command kind, subchannel, method
// name and data. Malformed input (truncated commands, invalid commands) is listed, not fatal;
// `errors` counts them.
std::string decode_listing(const std::vector<uint32_t>& words, const listing_mode& m, unsigned* errors = nullptr);

// Tool entry points (argv[0] is the tool name).
int pb_asm_main(int argc, char** argv);
int pb_decode_main(int argc, char** argv);

}  // namespace gpuvp::pfifo
