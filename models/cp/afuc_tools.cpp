// SPDX-License-Identifier: Apache-2.0
// The afuc command-line tools: `gpuvp afuc-asm` and `gpuvp afuc-disasm` (docs/tools/afuc.md), on
// the project's one argument parser (gpuvp/tool_args.h).
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "afuc_asm.h"
#include "gpuvp/text.h"
#include "gpuvp/tool_args.h"

namespace gpuvp::cp {

// The generation option (-g): 5 (a5xx), 6 (a6xx) or 7 (a7xx); anything else is a usage error.
static int parse_gen(const tool_args& args, const std::string& s) {
  if (s == "5" || s == "6" || s == "7") return s[0] - '0';
  return args.usage_error(s.empty() ? "missing -g 5|6|7" : "-g " + s + ": expected 5, 6 or 7"), 0;
}

int afuc_asm_main(int argc, char** argv) {
  std::string g, in, out;
  tool_args args("afuc-asm", "-g 5|6|7 IN.asm OUT.fw", "Assembles afuc microcode (docs/tools/afuc.md).");
  args.text(",g", g, "5|6|7", "GPU generation: 5 (a5xx), 6 (a6xx) or 7 (a7xx); required")
      .positional("IN.asm", in, "the assembly source")
      .positional("OUT.fw", out, "the firmware image to write");
  if (int rc = args.parse(argc, argv); rc >= 0) return rc;
  const int gen = parse_gen(args, g);
  if (gen == 0) return 2;
  const std::vector<std::string> files = {in, out};
  try {
    const auto text = read_whole_file(files[0]);
    if (!text) throw std::runtime_error("cannot open " + files[0]);
    write_words(files[1], afuc_assemble(*text, gen, files[0]));
  } catch (const std::exception& e) {
    std::cerr << "afuc-asm: " << e.what() << "\n";
    return 2;  // the source or a file: an input error
  }
  return 0;
}

int afuc_disasm_main(int argc, char** argv) {
  std::string g, in;
  bool verbose = false;
  tool_args args("afuc-disasm", "-g 5|6|7 [-v] IN.fw", "Disassembles afuc microcode (docs/tools/afuc.md).");
  args.text(",g", g, "5|6|7", "GPU generation: 5 (a5xx), 6 (a6xx) or 7 (a7xx); required")
      .flag(",v", verbose, "verbose: every word with its pc and encoding")
      .positional("IN.fw", in, "the firmware image");
  if (int rc = args.parse(argc, argv); rc >= 0) return rc;
  const int gen = parse_gen(args, g);
  if (gen == 0) return 2;
  const std::vector<std::string> files = {in};
  try {
    const std::vector<uint32_t> words = read_words(files[0]);
    if (words.empty()) {
      std::cerr << "afuc-disasm: " << files[0] << ": empty firmware image (expected a header word and microcode)\n";
      return 2;
    }
    disasm_result r = afuc_disassemble(words, gen, verbose);
    std::cout << r.text;
    if (r.unknown_reachable) {
      std::cerr << "afuc-disasm: " << files[0] << ": " << r.unknown_reachable << " reachable words do not decode (first at pc 0x"
                << std::hex << r.unknown_pcs[0] << ")\n";
      return 1;
    }
  } catch (const std::exception& e) {
    std::cerr << "afuc-disasm: " << e.what() << "\n";
    return 2;  // the image cannot be read: an input error
  }
  return 0;
}

}  // namespace gpuvp::cp
