#include "fifo_core.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace gpuvp::pfifo {

const char* err_type_name(err_type t) {
  switch (t) {
    case err_type::none: return "NONE";
    case err_type::dma_pusher: return "DMA_PUSHER";
    case err_type::cache_error: return "CACHE_ERROR";
    case err_type::semaphore: return "SEMAPHORE";
    case err_type::acquire_timeout: return "ACQUIRE_TIMEOUT";
    case err_type::hang: return "HANG";
  }
  return "?";
}

std::string err_code_name(gen g, err_type t, uint32_t code) {
  static const char* pusher[] = {"?", "CALL_SUBR_ACTIVE", "INVALID_MTHD", "RET_SUBR_INACTIVE", "INVALID_CMD", "IB_EMPTY", "MEM_FAULT"};
  static const char* cache[] = {"?", "NO_HASH", "EMPTY_SUBCHANNEL", "INVALID_MTHD"};
  static const char* sem_old[] = {"?", "INVALID_OPERAND", "INVALID_STATE", "ADDRESS_TOO_LARGE", "MEM_FAULT"};
  static const char* sem_new[] = {"?", "ADDRESS_UNALIGNED", "INVALID_STATE", "ADDRESS_TOO_LARGE", "MEM_FAULT"};
  switch (t) {
    case err_type::dma_pusher: return code <= 6 ? pusher[code] : "?";
    case err_type::cache_error: return code <= 3 ? cache[code] : "?";
    case err_type::semaphore: return code <= 4 ? (g < gen::g80 ? sem_old : sem_new)[code] : "?";
    case err_type::acquire_timeout: return "TIMEOUT";
    case err_type::hang: return "INVALID_SEMAPHORE_OPERATION";
    default: return "";
  }
}

// ---------------------------------------------------------------- engines
uint64_t engine::accept_time(uint64_t now) const {
  if (done_.size() < queue_depth) return now;  // fewer queued than the depth, done or not
  auto first_pending = std::upper_bound(done_.begin(), done_.end(), now);
  size_t pending = size_t(done_.end() - first_pending);
  if (pending < queue_depth) return now;
  return done_[done_.size() - queue_depth];
}

void engine::channel_switch(unsigned ch, uint64_t now) {
  if (busy_until_ != never) busy_until_ = std::max(now, busy_until_) + switch_cost_ps;
  cur_channel_ = int(ch);
  ++switches;
  on_switch(ch);
}

void engine::submit(unsigned ch, unsigned subc, uint32_t mthd, uint32_t param, uint64_t now) {
  while (!done_.empty() && done_.front() <= now) done_.pop_front();
  uint64_t start = std::max(now, busy_until_);
  busy_until_ = start + execute(ch, subc, mthd, param, start);
  done_.push_back(busy_until_);
  ++methods;
}

void engine::finish(uint64_t t) {
  if (busy_until_ == never) busy_until_ = t;
  for (auto& d : done_)
    if (d == never) d = t;
  if (wake) wake();
}

// ---------------------------------------------------------------- RAMHT, DMA objects
unsigned ramht_bits(uint32_t size_bytes) {
  unsigned bits = 0;
  while ((uint64_t(1) << bits) < size_bytes / 8) ++bits;
  return bits;
}

uint32_t ramht_hash(uint32_t handle, unsigned bits, unsigned chid) {
  uint32_t hash = 0;
  const uint32_t mask = (uint32_t(1) << bits) - 1;
  while (handle) {
    hash ^= handle & mask;
    handle = bits >= 32 ? 0 : handle >> bits;
  }
  if (bits >= 4) hash ^= chid << (bits - 4);
  return hash & mask;
}

uint32_t ramht_context(gen g, unsigned engine, uint32_t addr, unsigned chid) {
  if (g < gen::nv4) return 0x80000000u | (chid & 0x7f) << 24 | (engine ? 0x800000u : 0) | (addr & 0x7fffff);
  if (g < gen::nv40) return 0x80000000u | (chid & 0x7f) << 24 | (engine & 3) << 16 | (addr & 0xffff);
  if (g < gen::g80) return (chid & 0xff) << 23 | (engine & 7) << 20 | (addr & 0xfffff);
  return (engine & 0xf) << 20 | (addr & 0xfffff);
}

uint32_t object_class(gen g, uint32_t w0) {
  if (g < gen::nv25) return w0 & 0xff;
  if (g < gen::nv40) return w0 & 0xfff;
  return w0 & 0xffff;
}

dma_object parse_nv4_dmaobj(gen g, const uint32_t w[3]) {
  dma_object o;
  // The NV4 DMA object keeps its flags at bits 12+, so its class is read with at most 12 bits
  // even on NV40, where other FIFO objects have 16-bit classes.
  o.cls = object_class(g < gen::nv40 ? g : gen::nv25, w[0]);
  o.pt_present = (w[0] >> 12) & 1;
  o.rights = (w[0] >> 14) & 3;
  o.target = (w[0] >> 16) & 3;
  o.base = (w[2] & 0xfffff000u) | (w[0] >> 20);
  o.limit = w[1];
  return o;
}

dma_object parse_g80_dmaobj(const uint32_t w[6]) {
  dma_object o;
  o.cls = w[0] & 0xffff;
  o.target = (w[0] >> 16) & 3;
  o.rights = (w[0] >> 18) & 3;
  o.pt_present = true;
  o.limit = uint64_t(w[3] >> 24) << 32 | w[1];
  o.base = uint64_t(w[3] & 0xff) << 32 | w[2];
  return o;
}

// ---------------------------------------------------------------- core
std::string hex_string(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

fifo_core::fifo_core(const core_config& cfg, fifo_bus& bus) : cfg_(cfg), bus_(bus), chans_(cfg.channels) {
  for (unsigned i = 0; i < chans_.size(); ++i) {
    chans_[i].id = i;
    reset_channel(chans_[i]);
  }
  if (ramfc_switching()) reassign = push_access = pull_access = false;  // the driver enables them (nouveau's fifo init)
}

const nv04_ramfc::layout* nv04_ramfc::of(gen g) {
  //                                     size put  get  ref   inst  dcount state fetch engine pull1 dcount_high
  static const layout nv04{32, 0x00, 0x04, -1, 0x08, 0x08, 0x0c, 0x10, 0x14, 0x18, true};
  static const layout nv10{32, 0x00, 0x04, 0x08, 0x0c, 0x0c, 0x10, 0x14, 0x18, 0x1c, true};
  static const layout nv17{64, 0x00, 0x04, 0x08, 0x0c, 0x0c, 0x10, 0x14, 0x18, 0x1c, true};
  static const layout nv40{128, 0x00, 0x04, 0x08, 0x0c, 0x10, 0x14, 0x18, 0x1c, 0x20, false};
  switch (g) {
    case gen::nv4: return &nv04;
    case gen::nv10: case gen::nv11: case gen::nv1a: return &nv10;  // nouveau: nv10_fifo (NV1A too)
    case gen::nv25: return &nv17;                                   // nouveau: nv17_fifo (NV17-NV3x)
    case gen::nv40: return &nv40;
    default: return nullptr;
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
  if (cfg_.nv04_ramfc) take_nv04(c, f);
  else take_nv50(c, f);
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
uint32_t dma_state_low(const channel& c) {
  return uint32_t(c.st.ni) | ((c.st.mthd >> 2) & 0x7ff) << 2 | (c.st.subc & 7) << 13;
}
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
  if (cfg_.g >= gen::nv11) c.big_endian = (w(l.dma_fetch) & nv04_ramfc::fetch_big_endian) != 0;
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
  if (cfg_.g >= gen::nv11)
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
  if (cfg_.nv04_ramfc) fill_nv04(c, f);
  else fill_nv50(c, f);
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
  set(ramfc::pull1, (c.last_engine & 0xfu) | uint32_t(c.acquire_active) << 4 | uint32_t(c.acquire_source) << 5 |
                        uint32_t(c.acquire_mode & 1) << 7);
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

void fifo_core::attach_engine(unsigned id, engine* e) {
  if (engines_.size() <= id) engines_.resize(id + 1, nullptr);
  engines_[id] = e;
}

void fifo_core::kick(unsigned ch) {
  auto& c = chans_.at(ch);
  c.fetch.clear();  // the host may have rewritten pushbuffer memory
}

void fifo_core::engine_finished() {
  for (auto& c : chans_)
    if (c.blocked_until == never) c.blocked_until = 0;
}

void fifo_core::ack_error() {
  if (errors_.empty()) return;
  const unsigned ch = errors_.front().channel;
  const bool was_pusher = errors_.front().type == err_type::dma_pusher;
  errors_.pop_front();
  auto& c = chans_[ch];
  auto pending = [&](bool pusher) {
    return std::any_of(errors_.begin(), errors_.end(), [&](const error_record& r) {
      return r.channel == ch && (r.type == err_type::dma_pusher) == pusher;
    });
  };
  c.pusher_stopped = pending(true);
  c.puller_stopped = pending(false);
  if (was_pusher) {  // the offending command is dropped
    c.st.mcnt = 0;
    c.st.lenp = false;
  }
}

void fifo_core::raise(channel& c, error_record r, uint64_t now) {
  r.channel = c.id;
  r.time_ps = now;
  ++c.stats.errors;
  log_.push_back(r);
  if (r.type == err_type::hang) {
    c.hung = true;
    ++hangs;
    return;  // a hang is silent: the channel just stops (reported at the end)
  }
  if (r.type == err_type::dma_pusher) c.pusher_stopped = true;
  else c.puller_stopped = true;
  errors_.push_back(r);
  switch (r.type) {
    case err_type::dma_pusher: intr |= intr_dma_pusher; break;
    case err_type::cache_error: intr |= intr_cache_error; break;
    case err_type::semaphore: intr |= intr_semaphore; break;
    case err_type::acquire_timeout: intr |= intr_acquire_timeout; break;
    default: break;
  }
  if (on_intr) on_intr();
}

bool fifo_core::pusher_has_work(const channel& c) const {
  return c.dma_get != c.dma_put || (c.ib_mode && c.ib_get != c.ib_put);
}

bool fifo_core::can_pull(const channel& c) const {
  return pull_access && !c.puller_stopped && (c.acquire_active || !c.cache.empty());
}

bool fifo_core::can_push(const channel& c) const {
  return push_access && !c.pusher_stopped && c.cache.size() < cfg_.cache_depth && pusher_has_work(c);
}

bool fifo_core::runnable(const channel& c, uint64_t now) const {
  if (!c.enabled || c.hung || c.blocked_until > now) return false;
  if (ramfc_switching()) {
    if (!reassign || !c.in_runlist || c.ramfc_bad) return false;
    if (c.fresh && loaded_ != int(c.id)) return true;  // load it to see what RAMFC holds
  }
  return can_pull(c) || can_push(c);
}

uint32_t fifo_core::swap(const channel& c, uint32_t v) const {
  bool be = cfg_.g >= gen::g80 ? cfg_.pfifo_big_endian : (cfg_.g >= gen::nv11 && c.big_endian);
  return be ? __builtin_bswap32(v) : v;
}

bool fifo_core::sem_big_endian(const channel& c) const {
  return cfg_.g >= gen::g80 ? cfg_.pfifo_big_endian : c.big_endian;
}

uint64_t fifo_core::run(uint64_t& now, uint64_t until) {
  const unsigned n = unsigned(chans_.size());
  if (cfg_.ramfc) housekeeping(now);
  while (now < until) {
    // Pick a channel: stay on the current one for its timeslice unless it yielded or blocked.
    int pick = -1;
    bool cur_ok = current >= 0 && runnable(chans_[current], now);
    bool slice_over = yield_ || now - slice_start_ >= cfg_.timeslice_ps;
    if (cur_ok && !slice_over) {
      pick = current;
    } else {
      for (unsigned k = 1; k <= n; ++k) {
        unsigned i = (unsigned(current < 0 ? n - 1 : current) + k) % n;
        if (int(i) == current) continue;
        if (runnable(chans_[i], now)) { pick = int(i); break; }
      }
      if (pick < 0 && cur_ok) pick = current;
    }
    yield_ = false;
    if (pick < 0) {
      uint64_t next = never;
      for (const auto& c : chans_)
        if (c.enabled && !c.hung && c.blocked_until > now && (can_pull(c) || can_push(c)))
          next = std::min(next, c.blocked_until);
      return next;
    }
    if (pick != current || slice_over) {
      if (pick != current) ++chans_[pick].stats.channel_switches;
      current = pick;
      slice_start_ = now;
    }
    channel& c = chans_[pick];
    if (ramfc_switching() && loaded_ != pick) {  // channel switch: save the resident channel, load this one
      const uint64_t t0 = now;
      if (loaded_ >= 0) save_channel(chans_[loaded_], now);
      loaded_ = -1;
      const bool ok = load_channel(c, now);
      c.stats.ramfc_switch_ps += now - t0;
      if (c.waiting_engine) c.wait_start += now - t0;  // PFIFO's own switch time is not engine wait
      if (!ok) continue;
      loaded_ = pick;
      if (!runnable(c, now)) continue;
    }
    const uint64_t slice_end = slice_start_ + cfg_.timeslice_ps;
    // Work on this channel until it blocks, its slice ends, it yields or `until` passes.
    while (now < until && now < slice_end && !yield_ && runnable(c, now)) {
      try {
        if (c.acquire_active && !c.puller_stopped) {
          retry_acquire(c, now);
        } else if (can_push(c)) {
          do pusher_step(c, now);  // batch: up to the CACHE depth
          while (can_push(c));
        } else if (c.puller_stopped || c.cache.empty()) {
          break;
        } else {
          // Drain the CACHE while the channel can go on.
          while (!c.cache.empty() && c.blocked_until <= now && now < slice_end && !yield_ && !c.acquire_active && !c.hung &&
                 !c.puller_stopped) {
            const cache_entry e = c.cache.front();
            try {
              puller_step(c, e, now);
            } catch (const fault& f) {
              c.cache.pop_front();
              error_record r;
              r.type = f.t;
              r.code = f.code;
              r.word = e.data;
              r.subc = e.subc;
              r.mthd = e.mthd;
              raise(c, r, now);
              break;
            }
            c.cache.pop_front();
            if (e.mthd < 0x100) ++c.stats.methods_puller;
            now += cfg_.method_cost_ps;
          }
        }
      } catch (const fault& f) {
        error_record r;
        r.type = f.t;
        r.code = f.code;
        r.word = c.rsvd_shadow;
        r.position = c.err_pos;
        raise(c, r, now);
      } catch (const blocked&) {
      }
    }
  }
  return now;
}

// ---------------------------------------------------------------- pusher
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
    if (cfg_.g >= gen::gf100)
      return bus_.vm(false, c.id, addr, c.fetch.data(), unsigned(words * 4), client::pusher, now);
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
  for (auto& v : c.fetch) v = (cfg_.g >= gen::nv11) ? swap(c, v) : v;
  c.fetch_addr = addr;
  w = c.fetch[0];
  return true;
}

void fifo_core::cache_push(channel& c, uint32_t subc, uint32_t mthd, uint32_t data, bool ni) {
  c.cache.push_back({uint16_t(subc), uint16_t(mthd), data, ni});
  if (c.cache.size() > c.stats.cache_max) c.stats.cache_max = c.cache.size();
}

void fifo_core::pusher_step(channel& c, uint64_t& now) {
  const gen g = cfg_.g;
  if (c.dma_get != c.dma_put) {
    c.err_pos = c.dma_get;
    if (!c.ib_mode && c.dma_get >= c.dma_limit) throw fault{err_type::dma_pusher, pusher_err::mem_fault};
    uint32_t word;
    if (!fetch_word(c, c.dma_get, word, now)) throw fault{err_type::dma_pusher, pusher_err::mem_fault};
    c.dma_get += 4;
    if (!c.nonmain) c.dma_mget = c.dma_get;
    ++c.stats.words;
    now += cfg_.word_cost_ps;
    if (c.st.lenp) {
      c.st.lenp = false;
      c.st.mcnt = word & 0xffffff;
      c.stats.methods_ninc += c.st.mcnt;
    } else if (c.st.mcnt) {
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
    } else {
      c.rsvd_shadow = word;
      const command cmd = decode_header(word, {g, c.ib_mode, c.sli_enable});
      auto start_methods = [&](uint32_t count, bool ni, bool lenp, bool once, uint64_t& stat) {
        c.st = {cmd.mthd, cmd.subc, count, ni, lenp, once};
        c.dcount_shadow = 0;
        stat += count;
      };
      switch (cmd.kind) {
        case cmd_kind::old_jump:
        case cmd_kind::jump:
          c.dma_get = cmd.target;
          break;
        case cmd_kind::call:
          if (c.subr_active) throw fault{err_type::dma_pusher, pusher_err::call_subr_active};
          c.subr_return = c.dma_get;
          c.subr_active = true;
          c.dma_get = cmd.target;
          break;
        case cmd_kind::ret:
          if (!c.subr_active) throw fault{err_type::dma_pusher, pusher_err::ret_subr_inactive};
          c.dma_get = c.subr_return;
          c.subr_active = false;
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
  } else if (c.ib_mode && c.ib_get != c.ib_put) {
    c.err_pos = c.ib_address + uint64_t(c.ib_get) * 8;
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
}

// ---------------------------------------------------------------- RAMHT lookup
bool fifo_core::ramht_lookup(unsigned ch, uint32_t handle, ramht_result& r, uint64_t& now) {
  const gen g = cfg_.g;
  if (g >= gen::gf100) return false;
  const uint64_t base = (g >= gen::g80 ? chans_[ch].inst : cfg_.ramin_base) + chans_[ch].ramht_offset;
  const unsigned bits = chans_[ch].ramht_bits;
  const uint32_t entries = uint32_t(1) << bits;
  const uint32_t h = ramht_hash(handle, bits, g >= gen::g80 ? 0 : ch);
  for (uint32_t i = 0; i < entries; ++i) {
    const uint32_t idx = (h + i) & (entries - 1);
    uint32_t e[2];
    if (!bus_.inst(false, base + uint64_t(idx) * 8, e, 8, now)) return false;
    if (e[0] == 0 && e[1] == 0) return false;  // free entry ends the probe
    if (e[0] != handle) continue;
    const uint32_t ctx = e[1];
    if (g < gen::nv4) {
      if (!(ctx >> 31) || ((ctx >> 24) & 0x7f) != ch) continue;
      r.ctx = ctx & 0xffffff;
      r.engine = (ctx >> 23) & 1;
      r.addr = ctx & 0xffff;
    } else if (g < gen::nv40) {
      if (!(ctx >> 31) || ((ctx >> 24) & 0x7f) != ch) continue;
      r.ctx = ctx;
      r.engine = (ctx >> 16) & 3;
      r.addr = ctx & 0xffff;
    } else if (g < gen::g80) {
      if (((ctx >> 23) & 0xff) != ch) continue;
      r.ctx = ctx;
      r.engine = (ctx >> 20) & 7;
      r.addr = ctx & 0xfffff;
    } else {
      r.ctx = ctx;
      r.engine = (ctx >> 20) & 0xf;
      r.addr = ctx & 0xfffff;
    }
    return true;
  }
  return false;
}

// ---------------------------------------------------------------- puller
void fifo_core::wait_engine_idle(channel& c, unsigned eng, uint64_t now) {
  engine* e = engine_at(eng);
  if (e && e->cur_channel() == int(c.id) && !e->idle(now)) {
    if (!c.waiting_engine) {
      c.waiting_engine = true;
      c.wait_start = now;
    }
    c.blocked_until = e->busy_until();
    throw blocked{};
  }
}

void fifo_core::submit(channel& c, unsigned eng, unsigned subc, uint32_t mthd, uint32_t param, uint64_t& now) {
  engine* e = engine_at(eng);
  if (!e) throw fault{err_type::cache_error, cache_err::empty_subchannel};  // no such engine: like SOFTWARE
  if (e->cur_channel() != int(c.id)) {
    if (e->busy_until() == never) {  // an asynchronous engine switches channels only once idle
      if (!c.waiting_engine) {
        c.waiting_engine = true;
        c.wait_start = now;
      }
      c.blocked_until = never;
      throw blocked{};
    }
    e->channel_switch(c.id, now);
    ++c.stats.engine_switches;
  }
  const uint64_t t = e->accept_time(now);
  if (t > now) {
    if (!c.waiting_engine) {
      c.waiting_engine = true;
      c.wait_start = now;
    }
    c.blocked_until = t;
    throw blocked{};
  }
  if (c.waiting_engine) {
    c.waiting_engine = false;
    c.stats.engine_wait_ps += now - c.wait_start;
  }
  e->submit(c.id, subc, mthd, param, now);
  ++c.stats.methods_engine;
}

bool fifo_core::sem_read(channel& c, bool use_offset, uint32_t& w, client cl, uint64_t& now) {
  bool ok;
  if (use_offset)
    ok = bus_.dma(false, c.id, c.dma_semaphore, c.semaphore_offset, &w, 4, cl, now, c.sem_bind);
  else if (cfg_.g < gen::gf100)
    ok = bus_.dma(false, c.id, c.dma_semaphore, c.semaphore_address, &w, 4, cl, now, c.sem_bind);
  else
    ok = bus_.vm(false, c.id, c.semaphore_address, &w, 4, cl, now);
  if (ok && sem_big_endian(c)) w = __builtin_bswap32(w);
  return ok;
}

bool fifo_core::sem_write(channel& c, uint64_t addr, const void* data, unsigned len, uint64_t& now) {
  if (cfg_.g < gen::gf100)
    return bus_.dma(true, c.id, c.dma_semaphore, addr, const_cast<void*>(data), len, client::puller, now, c.sem_bind);
  return bus_.vm(true, c.id, addr, const_cast<void*>(data), len, client::puller, now);
}

void fifo_core::retry_acquire(channel& c, uint64_t& now) {
  const client cl = cfg_.g >= gen::g84 ? client::semaphore_bg : client::puller;
  uint32_t w = 0;
  if (!sem_read(c, !c.acquire_source, w, cl, now)) {
    c.acquire_active = false;
    throw fault{err_type::semaphore, sem_err::mem_fault};
  }
  bool done = c.acquire_mode == 0 ? w == c.acquire_value
            : c.acquire_mode == 1 ? int32_t(w - c.acquire_value) >= 0
                                  : (w & c.acquire_value) != 0;
  if (done) {
    c.acquire_active = false;
    c.stats.semaphore_wait_ps += now - c.acquire_timestamp;
    return;
  }
  if (now - c.acquire_timestamp >= cfg_.acquire_timeout_ps) {
    c.acquire_active = false;
    c.stats.semaphore_wait_ps += now - c.acquire_timestamp;
    throw fault{err_type::acquire_timeout, 0};
  }
  c.blocked_until = now + cfg_.acquire_retry_ps;
}

void fifo_core::puller_step(channel& c, const cache_entry& e, uint64_t& now) {
  const gen g = cfg_.g;
  const unsigned subc = e.subc;
  const uint32_t mthd = e.mthd;
  uint32_t param = e.data;
  const unsigned sw = software_engine();
  ramht_result r;

  if (g < gen::nv4) {
    // Pre-NV4: objects' contexts live in the puller; PGRAPH is engine 1 here.
    const unsigned pgraph = 1;
    engine* pg = engine_at(pgraph);
    auto wait_pgraph_idle = [&] {
      if (pg && !pg->idle(now)) {
        c.blocked_until = pg->busy_until();
        throw blocked{};
      }
    };
    if (mthd == 0) {
      if (!ramht_lookup(c.id, param, r, now)) throw fault{err_type::cache_error, cache_err::no_hash};
      const uint32_t newctx = r.ctx & 0xffffff;
      if (newctx & 0x800000) {
        submit(c, pgraph, subc, 0, newctx, now);
        c.ctx[subc] = newctx;
        c.last_subc = subc;
      } else {
        wait_pgraph_idle();
        throw fault{err_type::cache_error, cache_err::empty_subchannel};
      }
      return;
    }
    if (mthd < 0x100) throw fault{err_type::cache_error, cache_err::invalid_mthd};
    if (subc != c.last_subc) {
      if (c.ctx[subc] & 0x800000) {
        submit(c, pgraph, subc, 0, c.ctx[subc], now);
        c.last_subc = subc;
      } else {
        wait_pgraph_idle();
        throw fault{err_type::cache_error, cache_err::empty_subchannel};
      }
    }
    if (c.ctx[subc] & 0x800000) {
      submit(c, pgraph, subc, mthd, param, now);
    } else {
      wait_pgraph_idle();
      throw fault{err_type::cache_error, cache_err::empty_subchannel};
    }
    return;
  }

  if (mthd >= 0x100) {
    if (g < gen::gf100 && mthd >= 0x180 && mthd < 0x200) {
      if (!ramht_lookup(c.id, param, r, now)) throw fault{err_type::cache_error, cache_err::no_hash};
      param = r.addr;
    }
    const unsigned eng = c.engines[subc];
    if (eng != c.last_engine) wait_engine_idle(c, c.last_engine, now);
    if (eng == sw) throw fault{err_type::cache_error, cache_err::empty_subchannel};
    submit(c, eng, subc, mthd, param, now);
    c.last_engine = uint8_t(eng);
    return;
  }

  if (!puller_knows_mthd(g, mthd)) throw fault{err_type::cache_error, cache_err::invalid_mthd};
  switch (mthd) {
    case 0x0000: {  // OBJECT
      unsigned eng;
      uint32_t eparam;
      if (g >= gen::gf100) {
        eparam = param & 0xffff;
        eng = (param >> 16) & 0x1f;
      } else {
        if (!ramht_lookup(c.id, param, r, now)) throw fault{err_type::cache_error, cache_err::no_hash};
        eng = r.engine;
        eparam = r.addr & 0xffff;
      }
      if (eng != c.last_engine) wait_engine_idle(c, c.last_engine, now);
      if (eng == sw) throw fault{err_type::cache_error, cache_err::empty_subchannel};
      submit(c, eng, subc, 0, eparam, now);
      c.last_engine = c.engines[subc] = uint8_t(eng);
      return;
    }
    case 0x0008:  // NOP
      return;
    case 0x0010:  // SEMAPHORE_ADDRESS_HIGH
      if (param & 0xffffff00) throw fault{err_type::semaphore, sem_err::address_too_large};
      c.semaphore_address = (c.semaphore_address & 0xffffffffull) | uint64_t(param) << 32;
      return;
    case 0x0014:  // SEMAPHORE_ADDRESS_LOW
      if (param & 3) throw fault{err_type::semaphore, sem_err::address_unaligned};
      c.semaphore_address = (c.semaphore_address & ~0xffffffffull) | param;
      return;
    case 0x0018:  // SEMAPHORE_SEQUENCE
      c.semaphore_sequence = param;
      return;
    case 0x001c: {  // SEMAPHORE_TRIGGER
      const bool literal = cfg_.seed_literal_trigger;
      const uint32_t op = (!literal && g >= gen::gf100) ? (param & 0xf) : (param & 7);
      const uint64_t timestamp = now / 1000;  // PTIMER counts nanoseconds
      const bool release = literal ? param == 2 : op == 2;
      if (release) {
        uint32_t v = literal ? param : c.semaphore_sequence;
        uint32_t zero = 0;
        uint64_t ts = timestamp;
        if (sem_big_endian(c)) {
          v = __builtin_bswap32(v);
          ts = __builtin_bswap64(ts);
        }
        if (!sem_write(c, c.semaphore_address + 0x0, &v, 4, now) ||
            !sem_write(c, c.semaphore_address + 0x4, &zero, 4, now) ||
            !sem_write(c, c.semaphore_address + 0x8, &ts, 8, now))
          throw fault{err_type::semaphore, sem_err::mem_fault};
        return;
      }
      uint32_t word;
      if (!sem_read(c, false, word, client::puller, now)) throw fault{err_type::semaphore, sem_err::mem_fault};
      const uint32_t seq = c.semaphore_sequence;
      if ((op == 1 && word == seq) || (op == 4 && int32_t(word - seq) >= 0) || (op == 8 && (word & seq))) return;
      c.acquire_source = true;
      c.acquire_value = seq;
      c.acquire_timestamp = now;
      if (op == 1 || op == 4 || (op == 8 && !literal && g >= gen::gf100)) {
        c.acquire_active = true;
        c.acquire_mode = op == 1 ? 0 : op == 4 ? 1 : 2;
        c.blocked_until = now + cfg_.acquire_retry_ps;
        ++c.stats.semaphore_waits;
      } else {
        error_record h;
        h.type = err_type::hang;
        h.word = param;
        h.subc = subc;
        h.mthd = mthd;
        raise(c, h, now);
      }
      return;
    }
    case 0x0020:  // NOTIFY_INTR
      ++notify_intrs;
      intr |= intr_notify;
      if (on_intr) on_intr();
      return;
    case 0x0024:  // WRCACHE_FLUSH
      ++wrcache_flushes;
      bus_.wrcache_flush(now);
      return;
    case 0x0028: case 0x002c: case 0x0070: case 0x0074: case 0x0078: case 0x007c:
      ++unknown_methods;  // "???" in the seed: accepted, no modelled effect
      return;
    case 0x0050:  // REF_CNT
      wait_engine_idle(c, c.last_engine, now);
      if (c.waiting_engine) {
        c.waiting_engine = false;
        c.stats.engine_wait_ps += now - c.wait_start;
      }
      c.ref = param;
      return;
    case 0x0060: {  // DMA_SEMAPHORE
      if (!ramht_lookup(c.id, param, r, now)) throw fault{err_type::cache_error, cache_err::no_hash};
      const uint32_t obj = r.addr;
      if (g < gen::g80) {
        uint32_t w[3] = {};
        if (!bus_.inst(false, cfg_.ramin_base + uint64_t(obj) * 16, w, 12, now))
          throw fault{err_type::semaphore, sem_err::invalid_operand};
        const dma_object o = parse_nv4_dmaobj(g, w);
        if (o.cls != 2) throw fault{err_type::semaphore, sem_err::invalid_operand};
        if (o.rights != 2) throw fault{err_type::semaphore, sem_err::invalid_operand};  // WO
        if (!o.pt_present) throw fault{err_type::semaphore, sem_err::invalid_operand};
      }
      c.dma_semaphore = obj;
      ++c.sem_bind;  // every selector write, even of the same object (nv50-vm.rst)
      return;
    }
    case 0x0064:  // SEMAPHORE_OFFSET
      if (g < gen::g80) {
        if (param & ~0xffcu) throw fault{err_type::semaphore, sem_err::invalid_operand};
        c.semaphore_offset = param;
      } else if (g < gen::gf100) {
        if (param & 3) throw fault{err_type::semaphore, sem_err::address_unaligned};
        if (param & 0xffff0000) throw fault{err_type::semaphore, sem_err::address_too_large};
        c.semaphore_offset = param;
        c.semaphore_off_val = true;
      } else {
        c.semaphore_address = (c.semaphore_address & ~0xffffffffull) | param;
      }
      return;
    case 0x0068:    // SEMAPHORE_ACQUIRE
    case 0x006c: {  // SEMAPHORE_RELEASE
      if (g < gen::g80 && !c.dma_semaphore) throw fault{err_type::semaphore, sem_err::invalid_state};
      if (g >= gen::g80 && !c.semaphore_off_val) throw fault{err_type::semaphore, sem_err::invalid_state};
      if (mthd == 0x6c) {
        uint32_t v = sem_big_endian(c) ? __builtin_bswap32(param) : param;
        if (!bus_.dma(true, c.id, c.dma_semaphore, c.semaphore_offset, &v, 4, client::puller, now, c.sem_bind))
          throw fault{err_type::semaphore, sem_err::mem_fault};
        return;
      }
      uint32_t word;
      if (!sem_read(c, true, word, client::puller, now)) throw fault{err_type::semaphore, sem_err::mem_fault};
      if (word == param) return;
      c.acquire_active = true;
      c.acquire_value = param;
      c.acquire_timestamp = now;
      c.blocked_until = now + cfg_.acquire_retry_ps;
      ++c.stats.semaphore_waits;
      if (g >= gen::g80) {
        c.acquire_mode = 0;
        c.acquire_source = false;
      }
      return;
    }
    case 0x0080:  // YIELD
      ++c.stats.yields;
      yield_ = true;
      return;
    default:
      throw fault{err_type::cache_error, cache_err::invalid_mthd};
  }
}

}  // namespace gpuvp::pfifo
