// SPDX-License-Identifier: Apache-2.0
// The ASC firmware's behaviour: boot handshake, the command ring, FWCtl, command buffers, power.
#include "asc_fw.h"

#include <cstdio>

namespace gpuvp::ascfw {

namespace {
std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}
}  // namespace

unsigned cmd::size_of(uint32_t id) {
  switch (id & 0x3f) {
    case end:
    case barrier:
      return 8;
    case stamp:
      return 16;
    case write64:
    case work:
    case launch:
      return 24;
    default:
      return 0;
  }
}

// Publishes magic_fw once magic_ap is there, without the lock: m1n1's AP side holds the lock while
// it waits (the reference's "Handoff corrections").
void firmware::boot() {
  while (hld(handoff::magic_ap, 8) != ppl_magic) h_.poll();
  hst(handoff::magic_fw, ppl_magic, 8);
  rst(ring::power, 1, 4);
  rst(ring::fw_status, 1, 4);
  h_.op();
}

void firmware::lock() {
  hst(handoff::lock_fw, 1, 1);
  while (hld(handoff::lock_ap, 1) != 0) {
    if (hld(handoff::turn, 4) != 1) {  // the AP's turn: step back until it hands the turn over
      hst(handoff::lock_fw, 0, 1);
      while (hld(handoff::turn, 4) != 1) h_.poll();
      hst(handoff::lock_fw, 1, 1);
    }
    h_.poll();
  }
}

void firmware::unlock() {
  hst(handoff::turn, 0, 4);
  hst(handoff::lock_fw, 0, 1);
}

void firmware::run() {
  boot();
  for (;;) {
    uint64_t kick = 0;
    if (!h_.wait_kick(true, kick)) {  // idle: the GPU powers down, the ASC enters deep WFI
      rst(ring::power, 0, 4);
      kick = h_.deep_wfi();
      rst(ring::power, 1, 4);
    }
    h_.op();
    if (kick_type(kick) != kick_type_fw_ring || kick_index(kick) != 0) continue;  // not ours: ignored
    serve_ring();
  }
}

void firmware::serve_ring() {
  const unsigned n = h_.ring_entries();
  for (;;) {
    const uint32_t w = uint32_t(rld(ring::cmd_wptr, 4)), r = uint32_t(rld(ring::cmd_rptr, 4));
    if (w == r) return;
    if (w >= n || r >= n)
      throw fw_assert("command ring pointer out of range (wptr " + std::to_string(w) + ", rptr " + std::to_string(r) + ")");
    const uint64_t entry = h_.ring_va() + ring::cmd_base + r * ring::cmd_entry;
    const uint32_t type = uint32_t(h_.ld(hal::space::fw, entry, 4));
    h_.op();
    if (type == ring::type_fwctl)
      fwctl(entry + 8);
    else if (type == ring::type_submit)
      submit(entry + 8);
    else
      throw fw_assert("unknown command ring entry type " + hex(type));
    rst(ring::cmd_rptr, (r + 1) % n, 4);
  }
}

// FWCtl: the uPPL cleans and invalidates the range of flush slot 64 and sets its state to 2.
// unk_10 holds a page count (kernel) or 1 (macOS, for two pages): both accepted, the range comes
// from the handoff.
void firmware::fwctl(uint64_t m) {
  const uint64_t addr = h_.ld(hal::space::fw, m, 8);
  const uint32_t ctx = uint32_t(h_.ld(hal::space::fw, m + 12, 4));
  h_.op();
  const unsigned slot = handoff::fw_slot;
  const uint64_t state = hld(handoff::flush_state(slot), 8);
  if (state != 1)
    throw fw_assert("uPPL: FWCtl for " + hex(addr) + " (context " + hex(ctx) + ") but flush slot 64 is in state " + std::to_string(state));
  const uint64_t base = hld(handoff::flush_addr(slot), 8), size = hld(handoff::flush_size(slot), 8);
  if (size > h_.max_maint()) throw fw_assert("uPPL: flush size " + hex(size) + " too large");
  h_.dc(hal::maint::clean_invalidate, base, size);
  hst(handoff::flush_state(slot), 2, 8);
  event(ring::evt_fwctl, base);
}

void firmware::submit(uint64_t p) {
  const uint64_t cb = h_.ld(hal::space::fw, p, 8);
  const uint32_t len = uint32_t(h_.ld(hal::space::fw, p + 8, 4));
  const uint32_t slot = uint32_t(h_.ld(hal::space::fw, p + 12, 4));
  if (len == 0 || len > h_.max_maint()) throw fw_assert("command buffer length " + hex(len) + " out of range");
  // Command buffers are cached firmware objects written by the AP: invalidate before reading.
  if (h_.invalidate_cmdbuf()) h_.dc(hal::maint::invalidate, cb, len);
  execute(cb, len, slot);
}

void firmware::execute(uint64_t cb, uint32_t len, uint32_t slot) {
  for (uint64_t off = 0; off + 8 <= len;) {
    const uint64_t at = cb + off;
    const uint32_t header = uint32_t(h_.ld(hal::space::fw, at, 4));
    const uint32_t id = header & 0x3f;
    const unsigned size = cmd::size_of(id);
    h_.op();
    ++commands_;
    if (!size) throw fw_assert("unknown SKU command " + hex(id) + " (header " + hex(header) + " at " + hex(at) + ")");
    if (off + size > len) throw fw_assert("command " + hex(id) + " at " + hex(at) + " runs past the buffer end");
    switch (id) {
      case cmd::end:
        return;
      case cmd::barrier:
        break;
      case cmd::stamp: {
        const uint32_t value = uint32_t(h_.ld(hal::space::fw, at + 4, 4));
        stamp(h_.ld(hal::space::fw, at + 8, 8), value, ring::evt_stamp);
        break;
      }
      case cmd::write64:
        h_.st(hal::space::fw, h_.ld(hal::space::fw, at + 8, 8), h_.ld(hal::space::fw, at + 16, 8), 8);
        break;
      case cmd::work:
      case cmd::launch: {
        const uint32_t s = uint32_t(h_.ld(hal::space::fw, at + 4, 4));
        if (s == 0 || s >= 64)
          throw fw_assert(std::string(id == cmd::work ? "work" : "launch") + " for context slot " + std::to_string(s) + " (1..63)");
        if (id == cmd::work) {
          const uint64_t va = h_.ld(hal::space::fw, at + 8, 8);
          const uint32_t n = uint32_t(h_.ld(hal::space::fw, at + 16, 4));
          const uint32_t v = uint32_t(h_.ld(hal::space::fw, at + 20, 4));
          current_slot(s);
          h_.gpu_work(s, va, n, v);
          current_slot(0);
          break;
        }
        const uint32_t kernel = uint32_t(h_.ld(hal::space::fw, at + 8, 4));
        const uint32_t value = uint32_t(h_.ld(hal::space::fw, at + 12, 4));
        const uint64_t sva = h_.ld(hal::space::fw, at + 16, 8);
        current_slot(s);
        h_.gpu_launch(s, kernel);  // the GPU runs the kernel; the firmware waits for its completion
        current_slot(0);
        stamp(sva, value, ring::evt_kernel);
        break;
      }
    }
    (void)slot;
    off += size;
  }
}

void firmware::current_slot(uint32_t s) {
  lock();  // the current slot changes under the handoff lock
  hst(handoff::cur_slot, s, 4);
  h_.set_current_slot(s);
  unlock();
}

// Stamps are uncached u32s: each update must be the previous value + 1 (the real firmware's
// "non-sequential stamp update" assert); then an event of type `evt` carries the value.
void firmware::stamp(uint64_t sva, uint32_t value, uint32_t evt) {
  const uint32_t cur = uint32_t(h_.ld(hal::space::fw, sva, 4));
  if (value != cur + 1)
    throw fw_assert("non-sequential stamp update at " + hex(sva) + ": " + std::to_string(cur) + " -> " + std::to_string(value));
  h_.st(hal::space::fw, sva, value, 4);
  event(evt, value);
}

void firmware::event(uint32_t type, uint64_t value) {
  const unsigned n = h_.ring_entries();
  const uint32_t w = uint32_t(rld(ring::evt_wptr, 4));
  if (w >= n) throw fw_assert("event ring write pointer " + std::to_string(w) + " out of range");
  const uint64_t e = h_.ring_va() + ring::evt_base + w * ring::evt_entry;
  h_.st(hal::space::fw, e, type, 4);
  h_.st(hal::space::fw, e + 8, value, 8);
  rst(ring::evt_wptr, (w + 1) % n, 4);  // a full ring overwrites the oldest event (the AP polls)
}

}  // namespace gpuvp::ascfw
