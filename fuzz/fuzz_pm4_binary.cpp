// SPDX-License-Identifier: Apache-2.0
// Binary PM4 streams: the pm4-decode listing. Invalid headers are counted, never fatal.
#include "fuzz_common.h"
#include "pm4.h"

using namespace gpuvp;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<uint32_t> words = fuzz::as_words(data, size);
  std::string listing;
  unsigned bad = 0;
  fuzz::expect_only<std::exception>("", [&] { bad = cp::pm4_decode(words, listing, 0x100000); });
  if (bad > words.size()) fuzz::finding("more invalid headers than words", std::to_string(bad));
  return 0;
}
