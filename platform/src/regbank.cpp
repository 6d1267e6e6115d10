// SPDX-License-Identifier: Apache-2.0
#include "gpuvp/regbank.h"

#include <algorithm>
#include <cstring>
#include <sstream>
#include "gpuvp/trace.h"

namespace gpuvp {

reg::reg(register_bank& bank, std::string name, uint64_t offset, unsigned width_bytes, uint64_t reset_value, access policy,
         uint64_t writable_mask)
    : name_(std::move(name)),
      offset_(offset),
      width_(width_bytes),
      reset_(reset_value),
      policy_(policy),
      writable_(writable_mask),
      value_(0) {
  if (width_ != 1 && width_ != 2 && width_ != 4 && width_ != 8)
    throw config_error(std::string(bank.name()) + ": register " + name_ + " has width " + std::to_string(width_) + " (1, 2, 4 or 8 bytes)");
  reset_ &= width_mask();
  writable_ &= width_mask();
  value_ = reset_;
  bank.add(this);
}

register_bank::register_bank(sc_core::sc_module_name name, uint64_t size) : sc_module(name), size_(size) {
  in.register_b_transport(this, &register_bank::b_transport);
  in.register_transport_dbg(this, &register_bank::transport_dbg);
}

void register_bank::add(reg* r) {
  if (r->offset() + r->width() > size_) throw config_error(std::string(name()) + ": register " + r->name() + " lies outside the bank");
  for (reg* o : regs_)
    if (r->offset() < o->offset() + o->width() && o->offset() < r->offset() + r->width())
      throw config_error(std::string(name()) + ": registers " + o->name() + " and " + r->name() + " overlap");
  regs_.insert(std::upper_bound(regs_.begin(), regs_.end(), r, [](const reg* a, const reg* b) { return a->offset() < b->offset(); }), r);
}

void register_bank::reset() {
  for (reg* r : regs_) r->reset();
}

reg* register_bank::find(uint64_t offset) {
  auto it = std::upper_bound(regs_.begin(), regs_.end(), offset, [](uint64_t off, const reg* r) { return off < r->offset(); });
  if (it == regs_.begin()) return nullptr;
  reg* r = *(it - 1);
  return offset < r->offset() + r->width() ? r : nullptr;
}

namespace {
uint64_t apply_policy(access policy, uint64_t old, uint64_t written, uint64_t byte_mask, uint64_t writable) {
  const uint64_t m = byte_mask & writable;
  switch (policy) {
    case access::rw:
    case access::wo:
    case access::rc:
      return (old & ~m) | (written & m);
    case access::w1c:
      return old & ~(written & m);
    case access::w1s:
      return old | (written & m);
    case access::ro:
      return old;
  }
  return old;
}
}  // namespace

// Walks the access register by register; every byte must belong to some register.
bool register_bank::access_bytes(tlm::tlm_generic_payload& gp, sc_core::sc_time* delay, bool debug) {
  const uint64_t addr = gp.get_address();
  const unsigned len = gp.get_data_length();
  unsigned char* data = gp.get_data_ptr();
  const bool is_write = gp.get_command() == tlm::TLM_WRITE_COMMAND;

  // Check the whole access first, so that a bad access has no partial side effects.
  for (uint64_t a = addr; a < addr + len;) {
    reg* r = find(a);
    if (!r) {
      if (!debug) {
        ++errors;
        GPUVP_LOG(this, warning, (is_write ? "write" : "read") << " of " << len << " bytes at unmapped offset 0x" << std::hex << a);
      }
      gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return false;
    }
    a = r->offset() + r->width();
  }
  for (uint64_t a = addr; a < addr + len;) {
    reg* r = find(a);
    const unsigned first = unsigned(a - r->offset());  // first byte of r touched
    const unsigned count = unsigned(std::min<uint64_t>(r->width() - first, addr + len - a));
    unsigned char* bytes = data + (a - addr);
    const uint64_t byte_mask = (count == 8 ? ~uint64_t(0) : ((uint64_t(1) << (8 * count)) - 1)) << (8 * first);
    if (!debug && r->sync && delay) {
      sc_core::wait(*delay);
      *delay = sc_core::SC_ZERO_TIME;
    }
    if (is_write) {
      uint64_t written = 0;
      std::memcpy(reinterpret_cast<unsigned char*>(&written) + first, bytes, count);
      const uint64_t old = r->value_;
      if (debug) {
        r->value_ = (old & ~byte_mask) | (written & byte_mask);  // debugger: raw, no policy
      } else {
        r->value_ = apply_policy(r->policy_, old, written, byte_mask, r->writable_);
        if (r->on_write) r->on_write(r->value_, old);
      }
    } else {
      uint64_t v = 0;
      if (r->policy_ != access::wo) v = r->on_read ? r->on_read() & r->width_mask() : r->value_;
      std::memcpy(bytes, reinterpret_cast<unsigned char*>(&v) + first, count);
      if (r->policy_ == access::rc && !debug) r->value_ &= ~byte_mask;
    }
    a += count;
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  return true;
}

void register_bank::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const unsigned len = gp.get_data_length();
  const bool is_write = gp.get_command() == tlm::TLM_WRITE_COMMAND;
  if (gp.get_command() == tlm::TLM_IGNORE_COMMAND) {
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  if ((len != 1 && len != 2 && len != 4 && len != 8) || gp.get_byte_enable_ptr() || gp.get_streaming_width() < len) {
    ++errors;
    GPUVP_LOG(this, warning,
              "bad access of " << len << " bytes at offset 0x" << std::hex << gp.get_address()
                               << " (registers take 1, 2, 4 or 8 bytes, no byte enables)");
    gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  if (access_bytes(gp, &delay, false)) {
    if (is_write)
      ++writes;
    else
      ++reads;
    delay += is_write ? write_latency.get() : read_latency.get();
    GPUVP_LOG(this, debug, (is_write ? "write" : "read") << " 0x" << std::hex << gp.get_address() << " len " << std::dec << len);
  }
}

unsigned register_bank::transport_dbg(tlm::tlm_generic_payload& gp) {
  const unsigned len = gp.get_data_length();
  if (len == 0 || len > 8) return 0;
  return access_bytes(gp, nullptr, true) ? len : 0;
}

}  // namespace gpuvp
