// SPDX-License-Identifier: Apache-2.0
// PFIFO core: channel switching through RAMFC (NV4:G80 records, G80:GF100 channel table,
// runlist and unload kick) and the RAMHT set-up.
#include "fifo_core.h"

#include <cstring>

namespace gpuvp::pfifo {

const nv04_ramfc::layout* nv04_ramfc::of(gen g) {
  //                                     size put  get  ref   inst  dcount state fetch engine pull1 dcount_high
  static const layout nv04{32, 0x00, 0x04, -1, 0x08, 0x08, 0x0c, 0x10, 0x14, 0x18, true};
  static const layout nv10{32, 0x00, 0x04, 0x08, 0x0c, 0x0c, 0x10, 0x14, 0x18, 0x1c, true};
  static const layout nv17{64, 0x00, 0x04, 0x08, 0x0c, 0x0c, 0x10, 0x14, 0x18, 0x1c, true};
  static const layout nv40{128, 0x00, 0x04, 0x08, 0x0c, 0x10, 0x14, 0x18, 0x1c, 0x20, false};
  switch (g) {
    case gen::nv4:
      return &nv04;
    case gen::nv10:
    case gen::nv11:
    case gen::nv1a:
      return &nv10;  // nouveau: nv10_fifo (NV1A too)
    case gen::nv25:
      return &nv17;  // nouveau: nv17_fifo (NV17-NV3x)
    case gen::nv40:
      return &nv40;
    default:
      return nullptr;
  }
}

void fifo_core::set_ramht(uint64_t offset, unsigned bits) {
  cfg_.ramht_offset = offset;
  cfg_.ramht_size = 8u << bits;
  for (auto& c : chans_) {
    c.ramht_offset = offset;
    c.ramht_bits = bits;
  }
}

unsigned fifo_core::ramfc_bytes() const {
  if (cfg_.nv04_ramfc) return nv04_ramfc::of(cfg_.g)->size;
  return ramfc::size(cfg_.g);
}

void fifo_core::reset_channel(channel& c) {
  channel n;
  n.id = c.id;
  n.stats = c.stats;
  n.cache.reset(cfg_.cache_depth);
  for (auto& e : n.engines) e = uint8_t(software_engine());
  n.last_engine = uint8_t(software_engine());
  n.ramht_offset = cfg_.ramht_offset;
  n.ramht_bits = ramht_bits(cfg_.ramht_size);
  n.pb_bind = c.pb_bind;
  n.sem_bind = c.sem_bind;
  c = std::move(n);
}

// ---------------------------------------------------------------- RAMFC, channel table, runlist
void fifo_core::bind_channel(unsigned ch, bool enable, uint64_t ramfc_addr, uint32_t desc) {
  channel& c = chans_.at(ch);
  if (ramfc_addr != c.ramfc || desc != c.inst_desc) {  // another channel structure: a new channel
    const bool listed = c.in_runlist;
    reset_channel(c);
    c.in_runlist = listed;
    c.ramfc = ramfc_addr;
    c.inst_desc = desc;
    if (loaded_ == int(ch)) loaded_ = -1;  // its old state is dropped, not saved
  }
  c.enabled = enable;
  if (cfg_.nv04_ramfc) c.in_runlist = true;  // no runlist before G80: MODE alone schedules
  if (enable && loaded_ != int(ch)) c.fresh = true;
}

void fifo_core::request_runlist(uint64_t addr, unsigned count) {
  runlist_addr_ = addr;
  runlist_count_ = count;
  runlist_pending_ = true;
}

void fifo_core::request_unload(uint32_t inst_shr12) {
  unload_inst_ = inst_shr12;
  unload_pending_ = true;
}

void fifo_core::housekeeping(uint64_t& now) {
  if (runlist_pending_) {
    std::vector<uint32_t> ids(runlist_count_);
    if (runlist_count_ && !bus_.inst(false, runlist_addr_, ids.data(), unsigned(4 * ids.size()), now)) {
      ramfc_problems.push_back("runlist at " + hex_string(runlist_addr_) + " is not readable");
      ids.clear();
    }
    for (auto& c : chans_) c.in_runlist = false;
    for (uint32_t id : ids)
      if ((id & 0x7f) < chans_.size()) chans_[id & 0x7f].in_runlist = true;
    runlist_pending_ = false;
  }
  if (unload_pending_) {
    if (loaded_ >= 0 && (chans_[loaded_].inst_desc & 0x3fffffff) == (unload_inst_ & 0x3fffffff)) {
      save_channel(chans_[loaded_], now);
      loaded_ = -1;
    }
    unload_pending_ = false;
  }
}

bool fifo_core::load_channel(channel& c, uint64_t& now) {
  uint32_t f[40] = {};
  const unsigned n = ramfc_bytes();
  if (!bus_.inst(false, c.ramfc, f, n, now)) {
    c.ramfc_bad = true;
    ramfc_problems.push_back("channel " + std::to_string(c.id) + ": RAMFC at " + hex_string(c.ramfc) + " is not readable");
    return false;
  }
  ++ramfc_loads;
  ++c.pb_bind;  // loading writes the pushbuffer slot's selector
  c.fetch.clear();
  // RAMFC as this model saved it: the channel's state (which also holds what RAMFC has no field
  // for: the CACHE, acknowledged errors, acquire times) is current. Otherwise (first load after
  // the channel table enabled it, or the host rewrote RAMFC) every field is taken from RAMFC.
  const bool same = !c.fresh && std::memcmp(f, c.ramfc_raw, n) == 0;
  c.fresh = false;
  if (same) {
    if (on_load) on_load(c.id);
    return true;
  }
  std::memcpy(c.ramfc_raw, f, sizeof f);
  if (cfg_.nv04_ramfc)
    take_nv04(c, f);
  else
    take_nv50(c, f);
  if (on_load) on_load(c.id);
  return true;
}

namespace {
// RAMFC words both layouts share: ENGINE (4 bits per subchannel) and DMA_STATE's low fields
// (0 NONINC, 2-12 METHOD >> 2, 13-15 SUBCHANNEL).
uint32_t engines_word(const channel& c) {
  uint32_t w = 0;
  for (unsigned i = 0; i < 8; ++i) w |= uint32_t(c.engines[i] & 0xf) << (4 * i);
  return w;
}
void take_engines(channel& c, uint32_t w) {
  for (unsigned i = 0; i < 8; ++i) c.engines[i] = uint8_t((w >> (4 * i)) & 0xf);
}
uint32_t dma_state_low(const channel& c) { return uint32_t(c.st.ni) | ((c.st.mthd >> 2) & 0x7ff) << 2 | (c.st.subc & 7) << 13; }
void take_dma_state_low(channel& c, uint32_t st) {
  c.st.ni = st & 1;
  c.st.mthd = ((st >> 2) & 0x7ff) << 2;
  c.st.subc = (st >> 13) & 7;
  c.st.incr_once = false;
}
}  // namespace

// NV4:G80 (nouveau's ramfc tables): DMA_PUT, DMA_GET, REF (NV10+), DMA_INSTANCE | DCOUNT << 16
// (NV40: DCOUNT in its own word), DMA_STATE (0 NONINC, 2-12 METHOD >> 2, 13-15 SUBCHANNEL, 18-28
// METHOD_COUNT), DMA_FETCH (bit 31 big-endian NV11+), ENGINE (4 bits per subchannel), PULL1 (0-3
// the last engine). No DMA_LIMIT (the pushbuffer DMA object's limit faults), no IB, no SLI.
void fifo_core::take_nv04(channel& c, const uint32_t* f) {
  const auto& l = *nv04_ramfc::of(cfg_.g);
  auto w = [&](int off) { return f[off / 4]; };
  if (!c.put_written) c.dma_put = w(l.dma_put);
  c.dma_get = c.dma_mget = w(l.dma_get);
  c.pb_dmaobj = w(l.dma_instance) & 0xffff;
  c.dcount_shadow = l.dcount_high ? w(l.dcount) >> 16 : w(l.dcount);
  const uint32_t st = w(l.dma_state);
  take_dma_state_low(c, st);
  c.st.mcnt = (st >> 18) & 0x7ff;
  c.st.lenp = false;
  if (cfg_.g >= gen::nv1a) c.big_endian = (w(l.dma_fetch) & nv04_ramfc::fetch_big_endian) != 0;
  take_engines(c, w(l.engine));
  c.last_engine = uint8_t(w(l.pull1) & 0xf);
  if (l.ref >= 0) c.ref = w(l.ref);
  c.ib_mode = false;
  c.dma_limit = 0xffffffff;
  c.inst = cfg_.ramin_base;
}

void fifo_core::fill_nv04(const channel& c, uint32_t* f) const {
  const auto& l = *nv04_ramfc::of(cfg_.g);
  auto set = [&](int off, uint32_t v) { f[off / 4] = v; };
  set(l.dma_put, uint32_t(c.dma_put));
  set(l.dma_get, uint32_t(c.dma_get));
  if (l.ref >= 0) set(l.ref, c.ref);
  if (l.dcount_high) {
    set(l.dma_instance, (c.pb_dmaobj & 0xffff) | (c.dcount_shadow & 0xffff) << 16);
  } else {
    set(l.dma_instance, c.pb_dmaobj & 0xffff);
    set(l.dcount, c.dcount_shadow);
  }
  set(l.dma_state, dma_state_low(c) | (c.st.mcnt & 0x7ff) << 18);
  if (cfg_.g >= gen::nv1a)
    set(l.dma_fetch, (f[l.dma_fetch / 4] & ~nv04_ramfc::fetch_big_endian) | (c.big_endian ? nv04_ramfc::fetch_big_endian : 0));
  set(l.engine, engines_word(c));
  set(l.pull1, (f[l.pull1 / 4] & ~0xfu) | (c.last_engine & 0xfu));
}

void fifo_core::take_nv50(channel& c, const uint32_t* f) {
  auto w = [&](uint32_t off) { return f[off / 4]; };
  auto hi = [&](uint32_t off) { return uint64_t(w(off) & 0xff) << 32; };
  c.ib_mode = (w(ramfc::dma_fetch) & ramfc::dma_fetch_ib_enable) != 0;
  c.ib_address = (w(ramfc::ib_address_low) & ~7u) | hi(ramfc::ib_config);
  c.ib_order = (w(ramfc::ib_config) >> 16) & 0x1f;
  const uint32_t ib_mask = (uint32_t(1) << c.ib_order) - 1;
  c.ib_get = w(ramfc::ib_get) & ib_mask;
  c.ib_put = (c.ib_put_written ? c.ib_put : w(ramfc::ib_put)) & ib_mask;
  if (!c.put_written) c.dma_put = w(ramfc::dma_put) | hi(ramfc::dma_put_high);
  c.dma_get = w(ramfc::dma_get) | hi(ramfc::dma_get_high);
  c.dma_mget = w(ramfc::dma_mget) | hi(ramfc::dma_mget_high);
  const uint32_t st = w(ramfc::dma_state);
  take_dma_state_low(c, st);
  c.st.lenp = (st >> 16) & 1;
  c.subr_active = (st >> 17) & 1;
  c.nonmain = (st >> 18) & 1;
  c.st.mcnt = w(ramfc::method_count);
  c.dcount_shadow = w(ramfc::dcount_shadow);
  c.subr_return = w(ramfc::subroutine) & ~3u;
  c.pb_dmaobj = w(ramfc::dma_instance) & 0xffff;
  c.dma_limit = w(ramfc::dma_limit);
  take_engines(c, w(ramfc::engine));
  const uint32_t p1 = w(ramfc::pull1);
  c.last_engine = uint8_t(p1 & 0xf);
  c.acquire_active = (p1 >> 4) & 1;
  c.acquire_source = (p1 >> 5) & 1;
  c.acquire_mode = (p1 >> 7) & 1;
  c.acquire_value = w(ramfc::acquire_value);
  const uint32_t sem = w(ramfc::semaphore);
  c.semaphore_offset = (sem & 0x3fff) << 2;
  c.semaphore_off_val = (sem >> 14) & 1;
  c.dma_semaphore = sem >> 16;
  c.ref = w(ramfc::ref);
  const uint32_t sli = w(ramfc::sli);
  c.sli_mask = sli & 0xfff;
  c.sli_active = (sli >> 28) & 1;
  c.sli_enable = (sli >> 29) & 1;
  c.ramht_offset = uint64_t(w(ramfc::ramht) & 0xffff) << 4;
  c.ramht_bits = ((w(ramfc::ramht) >> 27) & 3) + 9;
  if (cfg_.g >= gen::g84) {
    c.semaphore_address = hi(ramfc::semaphore_address_high) | w(ramfc::semaphore_address_low);
    c.semaphore_sequence = w(ramfc::semaphore_sequence);
    c.inst_desc = w(ramfc::chan_inst) & 0x3fffffff;
  }
  c.inst = desc_address(c.inst_desc, cfg_.vram_base);
}

void fifo_core::save_channel(channel& c, uint64_t& now) {
  uint32_t* f = c.ramfc_raw;
  if (cfg_.nv04_ramfc)
    fill_nv04(c, f);
  else
    fill_nv50(c, f);
  if (!bus_.inst(true, c.ramfc, f, ramfc_bytes(), now)) {
    ramfc_problems.push_back("channel " + std::to_string(c.id) + ": RAMFC at " + hex_string(c.ramfc) + " is not writable");
  }
  ++ramfc_saves;
  c.put_written = c.ib_put_written = false;
}

void fifo_core::fill_nv50(const channel& c, uint32_t* f) const {
  auto set = [&](uint32_t off, uint32_t v) { f[off / 4] = v; };
  set(ramfc::ib_put, c.ib_put);
  set(ramfc::ib_get, c.ib_get);
  set(ramfc::dma_put, uint32_t(c.dma_put));
  set(ramfc::dma_put_high, uint32_t(c.dma_put >> 32) & 0xff);
  set(ramfc::dma_get, uint32_t(c.dma_get));
  set(ramfc::dma_get_high, uint32_t(c.dma_get >> 32) & 0xff);
  set(ramfc::dma_mget, uint32_t(c.dma_mget));
  set(ramfc::dma_mget_high, uint32_t(c.dma_mget >> 32) & 0xff);
  set(ramfc::dma_state, dma_state_low(c) | uint32_t(c.st.lenp) << 16 | uint32_t(c.subr_active) << 17 | uint32_t(c.nonmain) << 18);
  set(ramfc::method_count, c.st.mcnt);
  set(ramfc::dcount_shadow, c.dcount_shadow);
  set(ramfc::dma_fetch, (f[ramfc::dma_fetch / 4] & ~ramfc::dma_fetch_ib_enable) | (c.ib_mode ? ramfc::dma_fetch_ib_enable : 0));
  set(ramfc::subroutine, uint32_t(c.subr_return) & ~3u);
  set(ramfc::dma_instance, c.pb_dmaobj & 0xffff);
  set(ramfc::dma_limit, uint32_t(c.dma_limit));
  set(ramfc::ib_address_low, uint32_t(c.ib_address));
  set(ramfc::ib_config, (f[ramfc::ib_config / 4] & 0xff00) | (uint32_t(c.ib_address >> 32) & 0xff) | c.ib_order << 16);
  set(ramfc::engine, engines_word(c));
  set(ramfc::pull1,
      (c.last_engine & 0xfu) | uint32_t(c.acquire_active) << 4 | uint32_t(c.acquire_source) << 5 | uint32_t(c.acquire_mode & 1) << 7);
  set(ramfc::acquire_timestamp, uint32_t(c.acquire_timestamp / 1000));  // PTIMER ns (written, not read back)
  set(ramfc::acquire_value, c.acquire_value);
  set(ramfc::semaphore, ((c.semaphore_offset >> 2) & 0x3fff) | uint32_t(c.semaphore_off_val) << 14 | (c.dma_semaphore & 0xffff) << 16);
  set(ramfc::ref, c.ref);
  set(ramfc::sli, (c.sli_mask & 0xfff) | uint32_t(c.sli_active) << 28 | uint32_t(c.sli_enable) << 29);
  if (cfg_.g >= gen::g84) {
    set(ramfc::semaphore_address_high, uint32_t(c.semaphore_address >> 32) & 0xff);
    set(ramfc::semaphore_address_low, uint32_t(c.semaphore_address));
    set(ramfc::semaphore_sequence, c.semaphore_sequence);
  }
}

}  // namespace gpuvp::pfifo
