// SPDX-License-Identifier: Apache-2.0
// .pb workload text (docs/formats/pushbuffer.md) and the pb-asm assembler: errors are
// std::runtime_error "fuzz.pb:LINE: ..." and asm_error "fuzz.pb:LINE: ...".
#include "fuzz_common.h"
#include "pb_text.h"
#include "workload.h"

using namespace gpuvp;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = fuzz::as_text(data, size);
  fuzz::expect_only<std::runtime_error>("fuzz.pb:", [&] { pfifo::parse_pb_workload(text, "fuzz.pb"); });
  // pb-asm assembles the same command syntax for one generation per run.
  for (pfifo::gen g : {pfifo::gen::nv4, pfifo::gen::nv40, pfifo::gen::g84, pfifo::gen::gf100})
    fuzz::expect_only<pfifo::asm_error>("fuzz.pb:", [&] { pfifo::assemble(text, g, "fuzz.pb"); });
  return 0;
}
