// SPDX-License-Identifier: Apache-2.0
// PFIFO core: error names, the engine interface, channel state, errors and the scheduler.
#include "fifo_core.h"

#include <algorithm>
#include <cstdio>

namespace gpuvp::pfifo {

const char* err_type_name(err_type t) {
  switch (t) {
    case err_type::none:
      return "NONE";
    case err_type::dma_pusher:
      return "DMA_PUSHER";
    case err_type::cache_error:
      return "CACHE_ERROR";
    case err_type::semaphore:
      return "SEMAPHORE";
    case err_type::acquire_timeout:
      return "ACQUIRE_TIMEOUT";
    case err_type::hang:
      return "HANG";
  }
  return "?";
}

std::string err_code_name(gen g, err_type t, uint32_t code) {
  static const char* pusher[] = {"?", "CALL_SUBR_ACTIVE", "INVALID_MTHD", "RET_SUBR_INACTIVE", "INVALID_CMD", "IB_EMPTY", "MEM_FAULT"};
  static const char* cache[] = {"?", "NO_HASH", "EMPTY_SUBCHANNEL", "INVALID_MTHD"};
  static const char* sem_old[] = {"?", "INVALID_OPERAND", "INVALID_STATE", "ADDRESS_TOO_LARGE", "MEM_FAULT"};
  static const char* sem_new[] = {"?", "ADDRESS_UNALIGNED", "INVALID_STATE", "ADDRESS_TOO_LARGE", "MEM_FAULT"};
  switch (t) {
    case err_type::dma_pusher:
      return code <= 6 ? pusher[code] : "?";
    case err_type::cache_error:
      return code <= 3 ? cache[code] : "?";
    case err_type::semaphore:
      return code <= 4 ? (g < gen::g80 ? sem_old : sem_new)[code] : "?";
    case err_type::acquire_timeout:
      return "TIMEOUT";
    case err_type::hang:
      return "INVALID_SEMAPHORE_OPERATION";
    default:
      return "";
  }
}

// ---------------------------------------------------------------- engines
size_t time_ring::upper_bound(uint64_t t) const {
  size_t first = 0, len = count_;
  while (len > 0) {
    const size_t half = len >> 1;
    if (t < (*this)[first + half]) {
      len = half;
    } else {
      first += half + 1;
      len -= half + 1;
    }
  }
  return first;
}

void time_ring::grow() {
  auto bigger = std::make_unique<uint64_t[]>(2 * (mask_ + 1));
  for (size_t i = 0; i < count_; ++i) bigger[i] = (*this)[i];
  buf_ = std::move(bigger);
  mask_ = 2 * mask_ + 1;
  head_ = 0;
}

uint64_t engine::accept_time(uint64_t now) const {
  if (done_.size() < queue_depth) return now;  // fewer queued than the depth, done or not
  const size_t pending = done_.size() - done_.upper_bound(now);
  if (pending < queue_depth) return now;
  return done_[done_.size() - queue_depth];
}

void engine::flush_trace(uint64_t now) {
  if (!batch_methods_ || batch_end_ > now) return;
  if (trace) trace("methods", batch_ch_, batch_start_, batch_end_, batch_methods_);
  batch_methods_ = 0;
}

void engine::channel_switch(unsigned ch, uint64_t now) {
  if (trace) flush_trace(never - 1);
  if (busy_until_ != never) {
    const uint64_t from = std::max(now, busy_until_);
    busy_until_ = from + switch_cost_ps;
    if (trace) trace("switch", ch, from, busy_until_, 0);
  }
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
  if (trace && busy_until_ == never && async_start_ == never) async_start_ = start, async_ch_ = ch;
  if (trace && busy_until_ != never) {
    if (batch_methods_ && (start > batch_end_ || ch != batch_ch_)) flush_trace(never - 1);
    if (!batch_methods_) batch_start_ = start, batch_ch_ = ch;
    ++batch_methods_;
    batch_end_ = busy_until_;
  }
}

// submit() inlined for untraced runs; traced, one submit() at a time (the trace's batches).
size_t engine::submit_run(unsigned ch, const cache_entry* q, size_t n, uint64_t now, uint64_t step) {
  size_t i = 0;
  if (trace) {
    for (; i < n && accept_time(now) <= now; ++i, now += step) submit(ch, q[i].subc, q[i].mthd, q[i].data, now);
    return i;
  }
  for (; i < n && (done_.size() < queue_depth || accept_time(now) <= now); ++i, now += step) {
    while (!done_.empty() && done_.front() <= now) done_.pop_front();
    const cache_entry& e = q[i];
    const uint64_t start = std::max(now, busy_until_);
    busy_until_ = start + execute(ch, e.subc, e.mthd, e.data, start);
    done_.push_back(busy_until_);
  }
  methods += i;
  return i;
}

void engine::finish(uint64_t t) {
  if (async_start_ != never) {
    if (trace) trace("work", async_ch_, async_start_, std::max(t, async_start_), 1);
    async_start_ = never;
  }
  if (busy_until_ == never) busy_until_ = t;
  for (size_t i = 0; i < done_.size(); ++i)
    if (done_[i] == never) done_[i] = t;
  if (wake) wake();
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
  const error_record rec = errors_.front();
  const bool was_pusher = rec.type == err_type::dma_pusher;
  errors_.pop_front();
  auto& c = chans_[ch];
  auto pending = [&](bool pusher) {
    return std::any_of(errors_.begin(), errors_.end(),
                       [&](const error_record& r) { return r.channel == ch && (r.type == err_type::dma_pusher) == pusher; });
  };
  c.pusher_stopped = pending(true);
  c.puller_stopped = pending(false);
  if (was_pusher) {  // the offending command is dropped
    c.st.mcnt = 0;
    c.st.lenp = false;
    // MEM_FAULT left dma_get / ib_get on the offending word / entry: resume after it.
    if (rec.code == pusher_err::mem_fault && rec.ib_entry) {
      if (c.ib_address + uint64_t(c.ib_get) * 8 == rec.position && ++c.ib_get == (uint32_t(1) << c.ib_order)) c.ib_get = 0;
    } else if (rec.code == pusher_err::mem_fault && c.dma_get == rec.position && c.dma_get != c.dma_put) {
      c.dma_get += 4;
      if (!c.nonmain) c.dma_mget = c.dma_get;
    }
  }
}

void fifo_core::raise(channel& c, error_record r, uint64_t now) {
  r.channel = c.id;
  r.time_ps = now;
  ++c.stats.errors;
  ++errors_raised;
  if (log_.size() < log_capacity) log_.push_back(r);
  if (on_error) on_error(r);
  if (r.type == err_type::hang) {
    c.hung = true;
    ++hangs;
    return;  // a hang is silent: the channel just stops (reported at the end)
  }
  if (r.type == err_type::dma_pusher)
    c.pusher_stopped = true;
  else
    c.puller_stopped = true;
  errors_.push_back(r);
  switch (r.type) {
    case err_type::dma_pusher:
      intr |= intr_dma_pusher;
      break;
    case err_type::cache_error:
      intr |= intr_cache_error;
      break;
    case err_type::semaphore:
      intr |= intr_semaphore;
      break;
    case err_type::acquire_timeout:
      intr |= intr_acquire_timeout;
      break;
    default:
      break;
  }
  if (on_intr) on_intr();
}

bool fifo_core::pusher_has_work(const channel& c) const { return c.dma_get != c.dma_put || (c.ib_mode && c.ib_get != c.ib_put); }

bool fifo_core::can_pull(const channel& c) const { return pull_access && !c.puller_stopped && (c.acquire_active || !c.cache.empty()); }

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

bool fifo_core::swaps(const channel& c) const { return cfg_.g >= gen::g80 ? cfg_.pfifo_big_endian : (cfg_.g >= gen::nv1a && c.big_endian); }

uint32_t fifo_core::swap(const channel& c, uint32_t v) const { return swaps(c) ? __builtin_bswap32(v) : v; }

bool fifo_core::sem_big_endian(const channel& c) const { return cfg_.g >= gen::g80 ? cfg_.pfifo_big_endian : c.big_endian; }

// Picks a channel: the current one for its timeslice unless it yielded or blocked, otherwise
// the next runnable one round-robin (the current one if no other is). -1: none can run.
int fifo_core::pick_channel(uint64_t now, bool& slice_over) {
  const unsigned n = unsigned(chans_.size());
  int pick = -1;
  bool cur_ok = current >= 0 && runnable(chans_[current], now);
  slice_over = yield_ || now - slice_start_ >= cfg_.timeslice_ps;
  if (cur_ok && !slice_over) {
    pick = current;
  } else {
    for (unsigned k = 1; k <= n; ++k) {
      unsigned i = (unsigned(current < 0 ? n - 1 : current) + k) % n;
      if (int(i) == current) continue;
      if (runnable(chans_[i], now)) {
        pick = int(i);
        break;
      }
    }
    if (pick < 0 && cur_ok) pick = current;
  }
  yield_ = false;
  return pick;
}

// With no channel runnable: the earliest time a blocked channel with work may go on (never: none).
uint64_t fifo_core::next_unblock(uint64_t now) const {
  uint64_t next = never;
  for (const auto& c : chans_)
    if (c.enabled && !c.hung && c.blocked_until > now && (can_pull(c) || can_push(c))) next = std::min(next, c.blocked_until);
  return next;
}

// Makes channel `pick` current (a new timeslice when it changes or its slice is over) and, with
// RAMFC switching, resident. False: it cannot work now (its RAMFC failed to load, or what RAMFC
// holds leaves it nothing to do).
bool fifo_core::switch_to(int pick, bool slice_over, uint64_t& now) {
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
    if (!ok) return false;
    loaded_ = pick;
    if (!runnable(c, now)) return false;
  }
  return true;
}

// The pusher's batch: up to the CACHE depth of steps without a method pushed, the slice or `until`.
void fifo_core::push_batch(channel& c, uint64_t& now, uint64_t until, uint64_t slice_end) {
  do {
    if (cfg_.bulk_methods && push_method_run(c, now, std::min(until, slice_end))) {
      c.push_idle = 0;
      continue;
    }
    const size_t before = c.cache.size();
    pusher_step(c, now);
    c.push_idle = c.cache.size() > before ? 0 : c.push_idle + 1;
  } while (can_push(c) && now < until && now < slice_end && c.push_idle < cfg_.cache_depth);
}

// A run of CACHE entries from the head for the engine the puller last used: each is
// puller_engine_method's submit, a method_cost apiece, while drain_cache would go on (the
// engines' methods leave its other conditions as they are). Declined (0): before NV4, a channel
// waiting for an engine, an engine on another channel, a method below 0x100, before GF100
// 0x180-0x1fc (a handle for RAMHT), another engine, a full engine queue.
size_t fifo_core::pull_engine_run(channel& c, uint64_t& now, uint64_t slice_end) {
  const unsigned eng = c.last_engine;
  engine* e = engine_at(eng);
  if (cfg_.g < gen::nv4 || c.waiting_engine || !e || eng == software_engine() || e->cur_channel() != int(c.id)) return 0;
  // Methods that start before slice_end: the first, and those j * method_cost after it.
  const uint64_t step = cfg_.method_cost_ps;
  const size_t in_slice = step ? size_t(std::min<uint64_t>((slice_end - now - 1) / step + 1, c.cache.size())) : c.cache.size();
  const bool handles = cfg_.g < gen::gf100;
  size_t n = 0;
  for (; n < in_slice; ++n) {
    const cache_entry& x = c.cache[n];
    if (x.mthd < 0x100 || c.engines[x.subc] != eng || (handles && x.mthd >= 0x180 && x.mthd < 0x200)) break;
  }
  const size_t to_ring_end = std::min(n, c.cache.front_part());  // then on from the ring's start
  size_t done = e->submit_run(c.id, &c.cache.front(), to_ring_end, now, step);
  if (done == to_ring_end && done < n) done += e->submit_run(c.id, &c.cache[done], n - done, now + done * step, step);
  n = done;
  c.cache.pop_front(n);
  now += n * step;
  c.stats.methods_engine += n;
  bulk_pulled += n;
  return n;
}

// Drains the CACHE while the channel can go on. A faulting method is dropped and raised here (its
// entry names it); blocked leaves it at the head for the next try.
void fifo_core::drain_cache(channel& c, uint64_t& now, uint64_t slice_end) {
  while (!c.cache.empty() && c.blocked_until <= now && now < slice_end && !yield_ && !c.acquire_active && !c.hung && !c.puller_stopped) {
    if (cfg_.bulk_methods && pull_engine_run(c, now, slice_end)) continue;
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
      return;
    }
    c.cache.pop_front();
    if (e.mthd < 0x100) ++c.stats.methods_puller;
    now += cfg_.method_cost_ps;
  }
}

// Works on channel c until it blocks, its slice ends, it yields or `until` passes: an acquire's
// retry, the pusher or the puller. A pusher (or acquire) fault is raised with the pusher's latch.
void fifo_core::work_channel(channel& c, uint64_t& now, uint64_t until, uint64_t slice_end) {
  while (now < until && now < slice_end && !yield_ && runnable(c, now)) {
    try {
      if (c.acquire_active && !c.puller_stopped) {
        retry_acquire(c, now);
      } else if (can_push(c) && !(c.push_idle >= cfg_.cache_depth && !c.cache.empty() && !c.puller_stopped)) {
        // The pusher went cache_depth steps without pushing a method (a jump loop): the puller
        // drains the CACHE first (the branch below), as the two run concurrently in hardware.
        push_batch(c, now, until, slice_end);
      } else if (c.puller_stopped || c.cache.empty()) {
        return;
      } else {
        c.push_idle = 0;
        drain_cache(c, now, slice_end);
      }
    } catch (const fault& f) {
      error_record r;
      r.type = f.t;
      r.code = f.code;
      r.word = c.rsvd_shadow;
      r.position = c.err_pos;
      r.ib_entry = c.err_ib;
      raise(c, r, now);
    } catch (const blocked&) {}
  }
}

uint64_t fifo_core::run(uint64_t& now, uint64_t until) {
  if (cfg_.ramfc) housekeeping(now);
  while (now < until) {
    bool slice_over;
    const int pick = pick_channel(now, slice_over);
    if (pick < 0) return next_unblock(now);
    if (!switch_to(pick, slice_over, now)) continue;
    work_channel(chans_[pick], now, until, slice_start_ + cfg_.timeslice_ps);
  }
  return now;
}

}  // namespace gpuvp::pfifo
