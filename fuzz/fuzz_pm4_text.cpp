// SPDX-License-Identifier: Apache-2.0
// .pm4 workload text (docs/formats/pm4.md): errors are pm4_error "fuzz.pm4:LINE: ...".
#include "fuzz_common.h"
#include "pm4.h"

using namespace gpuvp;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::expect_only<cp::pm4_error>("fuzz.pm4:", [&] { cp::pm4_parse(fuzz::as_text(data, size), "fuzz.pm4"); });
  return 0;
}
