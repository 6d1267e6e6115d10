// SPDX-License-Identifier: Apache-2.0
// PFIFO core: the DMA pusher (dma-pusher.rst): fetch bursts, commands, IB entries, the CACHE.
#include "fifo_core.h"

#include <algorithm>

namespace gpuvp::pfifo {

bool fifo_core::fetch_word(channel& c, uint64_t addr, uint32_t& w, uint64_t& now) {
  if (addr >= c.fetch_addr && addr < c.fetch_addr + 4 * c.fetch.size()) {
    w = c.fetch[(addr - c.fetch_addr) >> 2];
    return true;
  }
  uint64_t n = cfg_.burst_words;
  if (c.dma_put > addr) n = std::min<uint64_t>(n, (c.dma_put - addr) >> 2);
  if (!c.ib_mode && c.dma_limit > addr) n = std::min<uint64_t>(n, (c.dma_limit - addr) >> 2);
  n = std::min<uint64_t>(n, (0x1000 - (addr & 0xfff)) >> 2);  // stay inside the page
  if (n == 0) n = 1;
  c.fetch.resize(n);
  auto read = [&](uint64_t words) {
    if (cfg_.g >= gen::gf100) return bus_.vm(false, c.id, addr, c.fetch.data(), unsigned(words * 4), client::pusher, now);
    return bus_.dma(false, c.id, c.pb_dmaobj, addr, c.fetch.data(), unsigned(words * 4), client::pusher, now, c.pb_bind);
  };
  bool ok = read(n);
  if (!ok && n > 1) {  // find out whether the faulting word is this one
    n = 1;
    c.fetch.resize(1);
    ok = read(1);
  }
  if (!ok) {
    c.fetch.clear();
    return false;
  }
  c.stats.bytes_fetched += n * 4;
  ++c.stats.fetches;
  if (swaps(c))  // once for the burst (none before NV1A)
    for (auto& v : c.fetch) v = __builtin_bswap32(v);
  c.fetch_addr = addr;
  w = c.fetch[0];
  return true;
}

void fifo_core::cache_push(channel& c, uint32_t subc, uint32_t mthd, uint32_t data, bool ni) {
  c.cache.push_back({uint16_t(subc), uint16_t(mthd), data, ni});
  if (c.cache.size() > c.stats.cache_max) c.stats.cache_max = c.cache.size();
}

// A data word of the current command: one method for the CACHE (dropped while SLI masks it off),
// then the next method address by the command's kind.
void fifo_core::pusher_method_data(channel& c, uint32_t word) {
  const gen g = cfg_.g;
  c.data_shadow = word;
  if (g < gen::gf100 && !puller_knows_mthd(g, c.st.mthd)) {
    c.rsvd_shadow = word;
    throw fault{err_type::dma_pusher, pusher_err::invalid_mthd};
  }
  if (!c.sli_enable || c.sli_active) cache_push(c, c.st.subc, c.st.mthd, word, c.st.ni);
  if (c.st.incr_once) {
    c.st.incr_once = false;
    c.st.mthd = (c.st.mthd + 4) & (method_space(g) - 1);
  } else if (!c.st.ni) {
    c.st.mthd = (c.st.mthd + 4) & (method_space(g) - 1);
  }
  --c.st.mcnt;
  ++c.dcount_shadow;
}

// A command header: control flow (jump, call, return), the start of a run of methods, an inline
// method or an SLI mask.
void fifo_core::pusher_command(channel& c, uint32_t word) {
  c.rsvd_shadow = word;
  const command cmd = decode_header(word, {cfg_.g, c.ib_mode, c.sli_enable});
  auto start_methods = [&](uint32_t count, bool ni, bool lenp, bool once, uint64_t& stat) {
    c.st = {cmd.mthd, cmd.subc, count, ni, lenp, once};
    c.dcount_shadow = 0;
    stat += count;
  };
  switch (cmd.kind) {
    case cmd_kind::old_jump:
    case cmd_kind::jump:
      c.dma_get = cmd.target;
      c.fetch.clear();  // control flow drops the prefetched burst: the target is fetched anew
      break;
    case cmd_kind::call:
      if (c.subr_active) throw fault{err_type::dma_pusher, pusher_err::call_subr_active};
      c.subr_return = c.dma_get;
      c.subr_active = true;
      c.dma_get = cmd.target;
      c.fetch.clear();
      break;
    case cmd_kind::ret:
      if (!c.subr_active) throw fault{err_type::dma_pusher, pusher_err::ret_subr_inactive};
      c.dma_get = c.subr_return;
      c.subr_active = false;
      c.fetch.clear();
      break;
    case cmd_kind::increasing:
    case cmd_kind::gf_increasing:
      start_methods(cmd.count, false, false, false, c.stats.methods_inc);
      break;
    case cmd_kind::non_increasing:
    case cmd_kind::gf_non_increasing:
      start_methods(cmd.count, true, false, false, c.stats.methods_ninc);
      break;
    case cmd_kind::gf_increase_once:
      start_methods(cmd.count, true, false, true, c.stats.methods_inc);
      break;
    case cmd_kind::long_non_increasing:  // the count is the next word
      start_methods(0, true, true, false, c.stats.methods_ninc);
      break;
    case cmd_kind::gf_inline:
      if (!c.sli_enable || c.sli_active) cache_push(c, cmd.subc, cmd.mthd, cmd.data, false);
      ++c.stats.methods_inline;
      break;
    case cmd_kind::sli_conditional:
      c.sli_active = (c.sli_mask & cmd.mask) != 0;
      break;
    case cmd_kind::gf_sli_user_mask_store:
      c.user_mask = cmd.mask;
      break;
    case cmd_kind::gf_sli_cond_user_mask:
      c.sli_active = (c.sli_mask & c.user_mask) != 0;
      break;
    case cmd_kind::invalid:
      throw fault{err_type::dma_pusher, pusher_err::invalid_cmd};
  }
}

// The word at dma_get: fetched (a fault leaves dma_get on it), then a long count, a method's data
// or a command header.
void fifo_core::pusher_word(channel& c, uint64_t& now) {
  c.err_pos = c.dma_get;
  c.err_ib = false;
  if (!c.ib_mode && c.dma_get >= c.dma_limit) throw fault{err_type::dma_pusher, pusher_err::mem_fault};
  uint32_t word;
  if (!fetch_word(c, c.dma_get, word, now)) throw fault{err_type::dma_pusher, pusher_err::mem_fault};
  c.dma_get += 4;
  if (!c.nonmain) c.dma_mget = c.dma_get;
  ++c.stats.words;
  if (c.st.lenp) {
    c.st.lenp = false;
    c.st.mcnt = word & 0xffffff;
    c.stats.methods_ninc += c.st.mcnt;
  } else if (c.st.mcnt) {
    pusher_method_data(c, word);
  } else {
    pusher_command(c, word);
  }
}

// The IB entry at ib_get (the pushbuffer segment is done): the next segment's bounds.
void fifo_core::pusher_ib_entry(channel& c, uint64_t& now) {
  c.err_pos = c.ib_address + uint64_t(c.ib_get) * 8;
  c.err_ib = true;
  uint32_t e[2];
  const uint64_t at = c.ib_address + uint64_t(c.ib_get) * 8;
  bool ok = cfg_.g >= gen::gf100 ? bus_.vm(false, c.id, at, e, 8, client::pusher, now)
                                 : bus_.dma(false, c.id, c.pb_dmaobj, at, e, 8, client::pusher, now, c.pb_bind);
  if (!ok) throw fault{err_type::dma_pusher, pusher_err::mem_fault};
  e[0] = swap(c, e[0]);
  e[1] = swap(c, e[1]);
  c.rsvd_shadow = e[0];
  if (++c.ib_get == (uint32_t(1) << c.ib_order)) c.ib_get = 0;
  ++c.stats.ib_entries;
  const ib_entry ib = decode_ib(e[0], e[1]);
  if (!ib.length) {
    c.rsvd_shadow = e[1];
    throw fault{err_type::dma_pusher, pusher_err::ib_empty};
  }
  c.dma_get = ib.address;
  c.dma_put = ib.address + uint64_t(ib.length) * 4;
  c.fetch.clear();  // the segment may have been written since an earlier fetch (GPU-built pushbuffers)
  c.nonmain = ib.nonmain;
  if (!c.nonmain) c.dma_mget = c.dma_get;
}

// The data words of the current command from dma_get on, as far as the fetched burst, the
// command, the CACHE's room and `limit` (the batch's end in time) go: each is pusher_step's
// method data, one step of time each, with dma_get, the shadows and the counts set once.
// Declined (0): a long count, SLI masking, GF100 increase-once, a word not fetched yet, and
// pre-GF100 a method below 0x100 (the pusher checks it against the puller's table).
size_t fifo_core::push_method_run(channel& c, uint64_t& now, uint64_t limit) {
  if (!c.st.mcnt || c.st.lenp || c.st.incr_once || (c.sli_enable && !c.sli_active)) return 0;
  if (c.dma_get < c.fetch_addr || c.dma_get == c.dma_put) return 0;
  const uint64_t first = (c.dma_get - c.fetch_addr) >> 2;
  if (first >= c.fetch.size() || ((c.dma_get - c.fetch_addr) & 3)) return 0;
  uint64_t n = std::min<uint64_t>(c.fetch.size() - first, c.st.mcnt);
  n = std::min<uint64_t>(n, cfg_.cache_depth - c.cache.size());
  if (c.dma_put > c.dma_get) n = std::min<uint64_t>(n, (c.dma_put - c.dma_get) >> 2);
  if (!c.ib_mode) n = c.dma_limit > c.dma_get ? std::min<uint64_t>(n, (c.dma_limit - c.dma_get) >> 2) : 0;
  const uint32_t space = method_space(cfg_.g);
  const bool ni = c.st.ni;
  if (cfg_.g < gen::gf100) {  // stop before the method leaves the engines' range
    if (c.st.mthd < 0x100) return 0;
    if (!ni) n = std::min<uint64_t>(n, (space - c.st.mthd) >> 2);
  }
  // Words that start before `limit`: the first (the batch checked it), then one a word cost apart.
  const uint64_t cost = cfg_.word_cost_ps;
  if (cost) n = std::min<uint64_t>(n, now < limit ? (limit - now - 1) / cost + 1 : 1);
  if (n == 0) return 0;
  const uint32_t* w = c.fetch.data() + first;
  c.st.mthd = c.cache.push_methods(uint16_t(c.st.subc), c.st.mthd, ni, space, w, n);
  now += n * cost;
  c.err_pos = c.dma_get + 4 * (n - 1);
  c.err_ib = false;
  c.dma_get += 4 * n;
  if (!c.nonmain) c.dma_mget = c.dma_get;
  c.stats.words += n;
  c.data_shadow = w[n - 1];
  c.st.mcnt -= uint32_t(n);
  c.dcount_shadow += uint32_t(n);
  if (c.cache.size() > c.stats.cache_max) c.stats.cache_max = c.cache.size();
  bulk_pushed += n;
  return size_t(n);
}

void fifo_core::pusher_step(channel& c, uint64_t& now) {
  now += cfg_.word_cost_ps;  // every step costs time, faulting or not (a spinning channel is busy)
  if (c.dma_get != c.dma_put)
    pusher_word(c, now);
  else if (c.ib_mode && c.ib_get != c.ib_put)
    pusher_ib_entry(c, now);
}

}  // namespace gpuvp::pfifo
