// SPDX-License-Identifier: Apache-2.0
// Binary pushbuffers: the header decoder, IB entries and the pb-decode listing, for the
// generation and mode chosen by the first input word. Malformed words are listed, never fatal.
#include "fuzz_common.h"
#include "pb_text.h"
#include "pushbuf.h"

using namespace gpuvp;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const pfifo::gen gens[] = {pfifo::gen::nv1,   pfifo::gen::nv3,   pfifo::gen::nv4,  pfifo::gen::nv10, pfifo::gen::nv11,
                                    pfifo::gen::nv1a,  pfifo::gen::nv25,  pfifo::gen::nv40, pfifo::gen::g80,  pfifo::gen::g84,
                                    pfifo::gen::gt215, pfifo::gen::mcp89, pfifo::gen::gf100};
  std::vector<uint32_t> words = fuzz::as_words(data, size);
  if (words.empty()) return 0;
  const uint32_t mode = words.front();
  words.erase(words.begin());
  pfifo::listing_mode m;
  m.g = gens[(mode & 0xff) % std::size(gens)];
  m.ib = mode >> 8 & 1;
  m.sli_enable = mode >> 9 & 1;
  m.base = uint64_t(mode >> 10) << 2;
  fuzz::expect_only<std::exception>("", [&] {
    unsigned errors = 0;
    (void)pfifo::decode_listing(words, m, &errors);
    for (size_t i = 0; i + 1 < words.size(); i += 2) {
      // IB entries: encoding what was decoded gives the same words back (ignoring unused bits).
      const pfifo::ib_entry e = pfifo::decode_ib(words[i], words[i + 1]);
      uint32_t w0, w1;
      pfifo::encode_ib(e, w0, w1);
      if (pfifo::decode_ib(w0, w1).address != e.address || pfifo::decode_ib(w0, w1).length != e.length)
        fuzz::finding("IB entry does not survive encode(decode())", std::to_string(i));
    }
  });
  return 0;
}
