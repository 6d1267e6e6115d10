// SPDX-License-Identifier: Apache-2.0
// An MMU's access that spans several pages (or blocks) goes out as one request per page, each
// translated on its own, as the hardware issues them. These loops serve both MMUs (mmu_nv50,
// uat): the model translates, these cut the payload into pieces, send them and put the payload
// back as it came.
#pragma once
#include <cstdint>
#include <optional>
#include <tlm>

namespace gpuvp {

// Where a translated piece goes and how many bytes of the access it covers.
struct page_piece {
  uint64_t address = 0;
  unsigned length = 0;
};

namespace page_split_detail {
struct saved_payload {
  tlm::tlm_generic_payload& gp;
  const uint64_t address = gp.get_address();
  unsigned char* const data = gp.get_data_ptr();
  const unsigned length = gp.get_data_length();
  void piece(const page_piece& p, unsigned done) {
    gp.set_address(p.address);
    gp.set_data_ptr(data + done);
    gp.set_data_length(p.length);
  }
  void restore() {
    gp.set_address(address);
    gp.set_data_ptr(data);
    gp.set_data_length(length);
  }
};
}  // namespace page_split_detail

// b_transport piece by piece. translate(done) gives the piece from byte `done` on, or nullopt to
// stop (it has set gp's response); send(gp) forwards it. Stops at the first failed piece. A
// streaming access (one address repeated) keeps its streaming width; else each piece's width is
// its length. The payload's address, data, length and streaming width are restored.
template <class Translate, class Send>
void transport_by_page(tlm::tlm_generic_payload& gp, bool streaming, Translate&& translate, Send&& send) {
  page_split_detail::saved_payload saved{gp};
  const unsigned width = gp.get_streaming_width();
  for (unsigned done = 0; done < saved.length;) {
    const std::optional<page_piece> p = translate(done);
    if (!p) break;
    saved.piece(*p, done);
    if (!streaming) gp.set_streaming_width(p->length);
    send(gp);
    if (!gp.is_response_ok()) break;
    done += p->length;
  }
  saved.restore();
  gp.set_streaming_width(width);
}

// transport_dbg piece by piece, without side effects: send(gp) returns the bytes one piece moved;
// a short piece or an untranslated one ends it. Returns the bytes moved in all.
template <class Translate, class Send>
unsigned debug_by_page(tlm::tlm_generic_payload& gp, Translate&& translate, Send&& send) {
  page_split_detail::saved_payload saved{gp};
  unsigned done = 0;
  while (done < saved.length) {
    const std::optional<page_piece> p = translate(done);
    if (!p) break;
    saved.piece(*p, done);
    const unsigned n = send(gp);
    done += n;
    if (n < p->length) break;
  }
  saved.restore();
  return done;
}

}  // namespace gpuvp
