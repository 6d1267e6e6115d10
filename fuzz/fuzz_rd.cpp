// SPDX-License-Identifier: Apache-2.0
// Mesa .rd captures (gzipped or not): the decompressor and the section parser. rd_error names the
// origin and the file offset; every buffer and IB it returns lies inside the input.
#include "fuzz_common.h"
#include "rd.h"

using namespace gpuvp;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::expect_only<cp::rd_error>("fuzz.rd: ", [&] {
    const std::vector<uint8_t> bytes = cp::rd_decompress(fuzz::as_text(data, size), "fuzz.rd");
    const cp::rd_capture c = cp::rd_parse(bytes, "fuzz.rd");
    uint64_t total = 0;
    for (const auto& s : c.submits)
      for (const auto& b : s.buffers) total += b.bytes.size();
    if (total > bytes.size()) fuzz::finding("buffers larger than the capture", std::to_string(total));
  });
  return 0;
}
