// SPDX-License-Identifier: Apache-2.0
// PFIFO core: semaphores (envytools puller.rst): the old-style (NV1A-) and new-style (G84-)
// methods, acquires and their background retries.
#include "fifo_core.h"

namespace gpuvp::pfifo {

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
  bool done = c.acquire_mode == 0   ? w == c.acquire_value
              : c.acquire_mode == 1 ? int32_t(w - c.acquire_value) >= 0
                                    : (w & c.acquire_value) != 0;
  if (done) {
    c.acquire_active = false;
    c.stats.semaphore_wait_ps += now - c.acquire_timestamp;
    if (on_semaphore_wait) on_semaphore_wait(c.id, c.acquire_timestamp, now, true);
    return;
  }
  if (now - c.acquire_timestamp >= cfg_.acquire_timeout_ps) {
    c.acquire_active = false;
    c.stats.semaphore_wait_ps += now - c.acquire_timestamp;
    if (on_semaphore_wait) on_semaphore_wait(c.id, c.acquire_timestamp, now, false);
    throw fault{err_type::acquire_timeout, 0};
  }
  c.blocked_until = now + cfg_.acquire_retry_ps;
}

// SEMAPHORE_TRIGGER (new-style): a release writes the sequence and a timestamp; an acquire that is
// not met at once waits (retry_acquire), any other operation hangs the channel (puller.rst).
void fifo_core::semaphore_trigger(channel& c, unsigned subc, uint32_t mthd, uint32_t param, uint64_t& now) {
  const gen g = cfg_.g;
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
    if (!sem_write(c, c.semaphore_address + 0x0, &v, 4, now) || !sem_write(c, c.semaphore_address + 0x4, &zero, 4, now) ||
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
}

// DMA_SEMAPHORE: the handle's object becomes the semaphore's DMA object (pre-G80 it must be a
// write-only DMA object with its page table present).
void fifo_core::semaphore_dma_object(channel& c, uint32_t param, uint64_t& now) {
  const gen g = cfg_.g;
  ramht_result r;
  if (!ramht_lookup(c.id, param, r, now)) throw fault{err_type::cache_error, cache_err::no_hash};
  const uint32_t obj = r.addr;
  if (g < gen::g80) {
    uint32_t w[3] = {};
    if (!bus_.inst(false, cfg_.ramin_base + uint64_t(obj) * 16, w, 12, now)) throw fault{err_type::semaphore, sem_err::invalid_operand};
    const dma_object o = parse_nv4_dmaobj(g, w);
    if (o.cls != 2) throw fault{err_type::semaphore, sem_err::invalid_operand};
    if (o.rights != 2) throw fault{err_type::semaphore, sem_err::invalid_operand};  // WO
    if (!o.pt_present) throw fault{err_type::semaphore, sem_err::invalid_operand};
  }
  c.dma_semaphore = obj;
  ++c.sem_bind;  // every selector write, even of the same object (nv50-vm.rst)
}

// Old-style SEMAPHORE_ACQUIRE / SEMAPHORE_RELEASE at DMA_SEMAPHORE + SEMAPHORE_OFFSET: a release
// writes the parameter; an acquire that is not met at once waits for an equal value.
void fifo_core::semaphore_acquire_release(channel& c, uint32_t mthd, uint32_t param, uint64_t& now) {
  const gen g = cfg_.g;
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
}

void fifo_core::semaphore_method(channel& c, unsigned subc, uint32_t mthd, uint32_t param, uint64_t& now) {
  const gen g = cfg_.g;
  switch (mthd) {
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
    case 0x001c:  // SEMAPHORE_TRIGGER
      semaphore_trigger(c, subc, mthd, param, now);
      return;
    case 0x0060:  // DMA_SEMAPHORE
      semaphore_dma_object(c, param, now);
      return;
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
    case 0x0068:  // SEMAPHORE_ACQUIRE
    case 0x006c:  // SEMAPHORE_RELEASE
      semaphore_acquire_release(c, mthd, param, now);
      return;
    default:
      return;
  }
}

}  // namespace gpuvp::pfifo
