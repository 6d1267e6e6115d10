// SPDX-License-Identifier: Apache-2.0
// Accel-Sim traces (docs/formats/accel-sim-traces.md): a kernel-N.traceg and a kernelslist.g.
// Errors are trace_error "fuzz.traceg:LINE: ..." / "kernelslist.g:LINE: ...".
#include "core/trace.h"
#include "fuzz_common.h"

using namespace gpuvp;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = fuzz::as_text(data, size);
  fuzz::expect_only<sm::trace_error>("fuzz.traceg:", [&] { sm::parse_kernel_trace_text(text, "fuzz.traceg"); });
  // The directory does not exist: kernelslist entries are resolved, not opened.
  fuzz::expect_only<sm::trace_error>("kernelslist.g:",
                                     [&] { sm::parse_kernelslist_text(text, "kernelslist.g", "/nonexistent-gpuvp-fuzz"); });
  return 0;
}
