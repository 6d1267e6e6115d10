// SPDX-License-Identifier: Apache-2.0
// afuc assembler (Mesa afuc-asm syntax, docs/tools/afuc.md) for a5xx, a6xx and a7xx: errors are
// asm_error "fuzz.asm:LINE: ...". What assembles must disassemble without error.
#include "afuc_asm.h"
#include "fuzz_common.h"

using namespace gpuvp;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = fuzz::as_text(data, size);
  for (int gen : {5, 6, 7}) {
    std::vector<uint32_t> words;
    fuzz::expect_only<cp::asm_error>("fuzz.asm:", [&] { words = cp::afuc_assemble(text, gen, "fuzz.asm"); });
    if (!words.empty()) fuzz::expect_only<std::exception>("", [&] { cp::afuc_disassemble(words, gen); });
  }
  return 0;
}
