// SPDX-License-Identifier: Apache-2.0
// afuc disassembler (docs/tools/afuc.md) for a5xx, a6xx and a7xx: any firmware file image lists
// without error, and the listing assembles back to the same words (the documented round trip; the
// header word comes back as zero).
#include "afuc_asm.h"
#include "fuzz_common.h"

using namespace gpuvp;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<uint32_t> words = fuzz::as_words(data, size);
  if (words.empty()) return 0;
  const int gen = 5 + int(words.front() % 3);  // the header word is not interpreted otherwise
  cp::disasm_result d;
  fuzz::expect_only<std::exception>("", [&] { d = cp::afuc_disassemble(words, gen); });
  std::vector<uint32_t> again;
  try {
    again = cp::afuc_assemble(d.text, gen, "listing");
  } catch (const std::exception& e) {
    fuzz::finding("the listing does not assemble", e.what());
  }
  // The header word comes back as zero (docs/tools/afuc.md: the listing notes a non-zero one).
  std::vector<uint32_t> expected = words;
  expected[0] = 0;
  if (again != expected) {
    size_t i = 0;
    while (i < expected.size() && i < again.size() && expected[i] == again[i]) ++i;
    char what[160];
    std::snprintf(what, sizeof what, "round trip through the listing changed file word %zu of %zu: 0x%08x -> 0x%08x (%zu words back)", i,
                  expected.size(), i < expected.size() ? expected[i] : 0, i < again.size() ? again[i] : 0, again.size());
    fuzz::finding(what, d.text);
  }
  return 0;
}
