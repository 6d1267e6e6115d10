// SPDX-License-Identifier: Apache-2.0
// PFIFO core: the puller (envytools puller.rst): RAMHT and FIFO objects, engine submission and
// the special methods other than the semaphores (fifo_semaphore.cpp).
#include "fifo_core.h"

namespace gpuvp::pfifo {

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

// Pre-NV4: objects' contexts live in the puller, which hands PGRAPH (engine 1 here) the context
// of a subchannel before its methods; method 0 (the object) is the only one below 0x100.
void fifo_core::puller_step_pre_nv4(channel& c, unsigned subc, uint32_t mthd, uint32_t param, uint64_t& now) {
  const unsigned pgraph = 1;
  engine* pg = engine_at(pgraph);
  ramht_result r;
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
}

// NV4+ methods 0x100 and up go to the subchannel's engine, once the previous engine is idle
// (0x180-0x1fc before GF100 carry a handle: the object's address goes instead).
void fifo_core::puller_engine_method(channel& c, unsigned subc, uint32_t mthd, uint32_t param, uint64_t& now) {
  if (cfg_.g < gen::gf100 && mthd >= 0x180 && mthd < 0x200) {
    ramht_result r;
    if (!ramht_lookup(c.id, param, r, now)) throw fault{err_type::cache_error, cache_err::no_hash};
    param = r.addr;
  }
  const unsigned eng = c.engines[subc];
  if (eng != c.last_engine) wait_engine_idle(c, c.last_engine, now);
  if (eng == software_engine()) throw fault{err_type::cache_error, cache_err::empty_subchannel};
  submit(c, eng, subc, mthd, param, now);
  c.last_engine = uint8_t(eng);
}

// OBJECT binds the subchannel to an engine: the RAMHT entry's (GF100: the parameter's bits 16-20).
void fifo_core::puller_object(channel& c, unsigned subc, uint32_t param, uint64_t& now) {
  unsigned eng;
  uint32_t eparam;
  if (cfg_.g >= gen::gf100) {
    eparam = param & 0xffff;
    eng = (param >> 16) & 0x1f;
  } else {
    ramht_result r;
    if (!ramht_lookup(c.id, param, r, now)) throw fault{err_type::cache_error, cache_err::no_hash};
    eng = r.engine;
    eparam = r.addr & 0xffff;
  }
  if (eng != c.last_engine) wait_engine_idle(c, c.last_engine, now);
  if (eng == software_engine()) throw fault{err_type::cache_error, cache_err::empty_subchannel};
  submit(c, eng, subc, 0, eparam, now);
  c.last_engine = c.engines[subc] = uint8_t(eng);
}

// The puller's own methods below 0x100 (NV4+): the puller executes them itself.
void fifo_core::puller_special_method(channel& c, unsigned subc, uint32_t mthd, uint32_t param, uint64_t& now) {
  if (!puller_knows_mthd(cfg_.g, mthd)) throw fault{err_type::cache_error, cache_err::invalid_mthd};
  switch (mthd) {
    case 0x0000:  // OBJECT
      puller_object(c, subc, param, now);
      return;
    case 0x0008:  // NOP
      return;
    case 0x0010:
    case 0x0014:
    case 0x0018:
    case 0x001c:  // new-style semaphores
    case 0x0060:
    case 0x0064:
    case 0x0068:
    case 0x006c:  // old-style semaphores
      semaphore_method(c, subc, mthd, param, now);
      return;
    case 0x0020:  // NOTIFY_INTR
      ++notify_intrs;
      intr |= intr_notify;
      if (on_intr) on_intr();
      return;
    case 0x0024:  // WRCACHE_FLUSH
      ++wrcache_flushes;
      bus_.wrcache_flush(now);
      return;
    case 0x0028:
    case 0x002c:
    case 0x0070:
    case 0x0074:
    case 0x0078:
    case 0x007c:
      ++unknown_methods;  // "???" in envytools' puller.rst: accepted, no modelled effect
      return;
    case 0x0050:  // REF_CNT
      wait_engine_idle(c, c.last_engine, now);
      if (c.waiting_engine) {
        c.waiting_engine = false;
        c.stats.engine_wait_ps += now - c.wait_start;
      }
      c.ref = param;
      return;
    case 0x0080:  // YIELD
      ++c.stats.yields;
      yield_ = true;
      return;
    default:
      throw fault{err_type::cache_error, cache_err::invalid_mthd};
  }
}

void fifo_core::puller_step(channel& c, const cache_entry& e, uint64_t& now) {
  if (cfg_.g < gen::nv4)
    puller_step_pre_nv4(c, e.subc, e.mthd, e.data, now);
  else if (e.mthd >= 0x100)
    puller_engine_method(c, e.subc, e.mthd, e.data, now);
  else
    puller_special_method(c, e.subc, e.mthd, e.data, now);
}

}  // namespace gpuvp::pfifo
