// SPDX-License-Identifier: Apache-2.0
#include "asc_cache.h"

#include <algorithm>
#include <cstring>
#include "gpuvp/extension.h"
#include "uat.h"

namespace gpuvp::asc {

asc_cache::asc_cache(sc_core::sc_module_name name) : sc_module(name) {
  in.register_b_transport(this, &asc_cache::b_transport);
  in.register_transport_dbg(this, &asc_cache::transport_dbg);
  in.register_get_direct_mem_ptr(this, &asc_cache::get_dmi);
  out.register_invalidate_direct_mem_ptr(this, &asc_cache::invalidate_dmi);
}

void asc_cache::end_of_elaboration() {
  auto pow2 = [](uint64_t v) { return v && !(v & (v - 1)); };
  if (!pow2(line_size))
    throw config_error(std::string(name()) + ".line_size must be a power of two, not " + std::to_string(line_size.get()));
  if (!pow2(sets)) throw config_error(std::string(name()) + ".sets must be a power of two, not " + std::to_string(sets.get()));
  line_bytes_ = line_size;
  set_mask_ = sets - 1;
  ways_ = unsigned(ways);
  lines_.assign(sets * ways, line{});
  for (auto& l : lines_) l.data.assign(line_bytes_, 0);
}

bool asc_cache::bus(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, unsigned len, sc_core::sc_time& delay) {
  transaction t(cmd, addr, data, len);
  out->b_transport(t.gp, delay);
  return t.gp.is_response_ok();
}

asc_cache::line* asc_cache::find(uint64_t la) {
  const uint64_t set = (la / line_bytes_) & set_mask_;
  for (unsigned w = 0; w < ways_; ++w) {
    line& l = lines_[set * ways_ + w];
    if (l.valid && l.tag == la) return &l;
  }
  return nullptr;
}

bool asc_cache::write_back(line& l, sc_core::sc_time& delay) {
  if (!l.valid || !l.dirty) return true;
  ++writebacks;
  l.dirty = false;
  if (detect_stale && mapping && mapping(l.wview, l.wslot, l.wva) != l.tag) {
    if (stale_wb_count_++ == 0) first_stale_wb_ = {l.wva, l.tag, l.wslot, l.wview, sc_core::sc_time_stamp() + delay};
    ++stale_writebacks;
  }
  return bus(tlm::TLM_WRITE_COMMAND, l.tag, l.data.data(), unsigned(line_bytes_), delay);
}

asc_cache::line& asc_cache::fill(uint64_t la, sc_core::sc_time& delay, bool& ok) {
  const uint64_t set = (la / line_bytes_) & set_mask_;
  line* victim = &lines_[set * ways_];
  for (unsigned w = 0; w < ways_; ++w) {
    line& l = lines_[set * ways_ + w];
    if (!l.valid) {
      victim = &l;
      break;
    }
    if (l.lru < victim->lru) victim = &l;
  }
  ok = write_back(*victim, delay);
  victim->valid = false;
  ++misses;
  if (ok) ok = bus(tlm::TLM_READ_COMMAND, la, victim->data.data(), unsigned(line_bytes_), delay);
  if (ok) victim->valid = true, victim->dirty = false, victim->tag = la;
  return *victim;
}

void asc_cache::maintain_line(line& l, maint_op op, sc_core::sc_time& delay) {
  delay += maint_latency.get();
  if (op != maint_op::invalidate) write_back(l, delay);
  if (op != maint_op::clean) {
    if (l.dirty) ++dirty_dropped;  // DC IVAC semantics: dirty data discarded
    ++invalidations;
    l.valid = l.dirty = false;
  }
}

void asc_cache::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const auto* x = gp.get_extension<uat::xlat_ext>();
  const uint64_t addr = gp.get_address();
  const unsigned len = gp.get_data_length();
  if (const auto* m = gp.get_extension<asc_maint>()) {
    ++maint_ops;
    delay += maintain(m->op, addr, len);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  if (!x || !enabled || uat::pte_fields::attr(x->pte) != 0 || gp.get_byte_enable_ptr()) {
    ++uncached;
    out->b_transport(gp, delay);
    return;
  }
  unsigned char* data = gp.get_data_ptr();
  const bool write = gp.is_write();
  for (unsigned done = 0; done < len;) {
    const uint64_t a = addr + done, la = a & ~(line_bytes_ - 1);
    const unsigned chunk = unsigned(std::min<uint64_t>(len - done, la + line_bytes_ - a));
    delay += hit_latency.get();
    line* l = find(la);
    if (l) {
      ++hits;
      if (!write && detect_stale && !l->dirty) {
        std::vector<uint8_t> mem(line_bytes_);
        transaction t(tlm::TLM_READ_COMMAND, la, mem.data(), unsigned(line_bytes_));
        t.ext.debug = true;
        if (out->transport_dbg(t.gp) == line_bytes_ && std::memcmp(mem.data(), l->data.data(), line_bytes_) != 0) {
          if (stale_count_++ == 0) first_stale_ = {x->va + (a - addr), a, x->slot, x->view, sc_core::sc_time_stamp() + delay};
          ++stale_reads;
        }
      }
    } else {
      bool ok = true;
      l = &fill(la, delay, ok);
      if (!ok) {
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
      }
    }
    l->lru = ++tick_;
    if (write) {
      std::memcpy(l->data.data() + (a - la), data + done, chunk);
      l->dirty = true;
      l->wva = x->va + (la - addr), l->wslot = x->slot, l->wview = x->view;
    } else
      std::memcpy(data + done, l->data.data() + (a - la), chunk);
    done += chunk;
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

sc_core::sc_time asc_cache::maintain(maint_op op, uint64_t pa, uint64_t len) {
  sc_core::sc_time d = sc_core::SC_ZERO_TIME;
  if (!len) return d;
  for (uint64_t la = pa & ~(line_bytes_ - 1); la < pa + len; la += line_bytes_) {
    if (line* l = find(la))
      maintain_line(*l, op, d);
    else
      d += maint_latency.get();
  }
  return d;
}

sc_core::sc_time asc_cache::clean_invalidate_all() {
  sc_core::sc_time d = sc_core::SC_ZERO_TIME;
  for (auto& l : lines_)
    if (l.valid) maintain_line(l, maint_op::clean_invalidate, d);
  return d;
}

unsigned asc_cache::dirty_lines() const {
  return unsigned(std::count_if(lines_.begin(), lines_.end(), [](const line& l) { return l.valid && l.dirty; }));
}

bool asc_cache::holds(uint64_t pa, bool* dirty) const {
  const uint64_t la = pa & ~(line_bytes_ - 1);
  const uint64_t set = (la / line_bytes_) & set_mask_;
  for (unsigned w = 0; w < ways_; ++w) {
    const line& l = lines_[set * ways_ + w];
    if (l.valid && l.tag == la) {
      if (dirty) *dirty = l.dirty;
      return true;
    }
  }
  return false;
}

}  // namespace gpuvp::asc
