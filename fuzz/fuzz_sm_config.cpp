// SPDX-License-Identifier: Apache-2.0
// GPGPU-Sim gpgpusim.config option files as the SM model reads them: errors are
// config_file_error "fuzz.config:LINE: ..." (validate(): "fuzz.config...").
#include "core/gpu_config.h"
#include "fuzz_common.h"

using namespace gpuvp;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::expect_only<sm::config_file_error>("", [&] {
    sm::gpu_config c;
    sm::load_config_text(c, fuzz::as_text(data, size), "fuzz.config");
    c.validate();
    (void)c.summary();
  });
  return 0;
}
