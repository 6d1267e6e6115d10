// SPDX-License-Identifier: Apache-2.0
#include "uat.h"

#include <cstring>
#include <ostream>
#include <sstream>
#include "gpuvp/extension.h"
#include "gpuvp/timing.h"
#include "gpuvp/trace.h"

namespace gpuvp::uat {

struct uat_mmu::view_state {
  view v;
  tlb t;
  std::array<uint64_t, slots * 2> ctx{};  // cached TTBs, slot * 2 + half
  std::array<bool, slots * 2> ctx_valid{};
  param<uint64_t> tlb_entries, tlb_ways, tlb_seed;
  param<std::string> tlb_policy;
  counter hits, misses, walks, faults, stale_hits, evictions, context_reads, entries_invalidated;
  std::array<std::unique_ptr<counter>, 4> tlbis;  // by tlbi_op
  histogram walk_time;
  bool has_stale = false;
  stale_hit first;
  view_state(const std::string& p, view vw)
      : v(vw),
        tlb_entries(p + ".tlb_entries", 64, "entries of this view's TLB (power of two)", 1, 65536),
        tlb_ways(p + ".tlb_ways", 4, "ways per set of this view's TLB (power of two, <= tlb_entries)", 1, 65536),
        tlb_seed(p + ".tlb_seed", 1, "seed of this view's random replacement", 0, ~uint64_t(0)),
        tlb_policy(p + ".tlb_policy", "lru", "replacement of this view's TLB: lru, fifo or random"),
        hits(p + ".hits", "TLB hits"),
        misses(p + ".misses", "TLB misses"),
        walks(p + ".walks", "page-table walks"),
        faults(p + ".faults", "translations that faulted"),
        stale_hits(p + ".stale_hits", "TLB hits whose entry no longer matches memory (detect_stale)"),
        evictions(p + ".evictions", "valid TLB entries replaced"),
        context_reads(p + ".context_reads", "TTBAT entries read"),
        entries_invalidated(p + ".entries_invalidated", "TLB entries dropped by TLBIs"),
        walk_time(p + ".walk_time", "time of each walk", "ps") {
    for (auto op : {tlbi_op::vmalle1os, tlbi_op::aside1os, tlbi_op::vae1os, tlbi_op::rvae1os})
      tlbis[size_t(op)] = std::make_unique<counter>(p + ".tlbi_" + tlbi_name(op), std::string("TLBI ") + tlbi_name(op) + " received");
  }
};

uat_mmu::uat_mmu(sc_core::sc_module_name name) : sc_module(name) {
  cfg_.ttbat = ttbat;
  cfg_.oas_mask = (uint64_t(1) << oas.get()) - 1;
  if (l12_type0.get() == "table")
    cfg_.type0_is_table = true;
  else if (l12_type0.get() == "invalid")
    cfg_.type0_is_table = false;
  else
    throw config_error(l12_type0.path() + ": '" + l12_type0.get() + "' is not table or invalid");
  if (ttbat.get() & 0xf) throw config_error(ttbat.path() + ": " + to_hex(ttbat) + " is not 16-byte aligned");
  asid_mask_ = uint16_t((1u << asid_bits.get()) - 1);
  for (unsigned i = 0; i < view_count; ++i) {
    const view v = view(i);
    auto& s = views_[i] = std::make_unique<view_state>(std::string(this->name()) + "." + view_name(v), v);
    const auto pol = parse_tlb_policy(s->tlb_policy.get());
    if (!pol) throw config_error(s->tlb_policy.path() + ": '" + s->tlb_policy.get() + "' is not lru, fifo or random");
    try {
      s->t.configure(unsigned(s->tlb_entries), unsigned(s->tlb_ways), *pol, s->tlb_seed, asid_mask_);
    } catch (const std::invalid_argument& e) {
      throw config_error(s->tlb_entries.path() + ": " + e.what());
    }
    hints_[i].clock = &s->t.use_clock();
    hints_[i].hits = &s->hits;
    hints_[i].faults = &s->faults;
  }
  gpu.register_b_transport(this, &uat_mmu::b_gpu);
  fw.register_b_transport(this, &uat_mmu::b_fw);
  ppl.register_b_transport(this, &uat_mmu::b_ppl);
  gpu.register_transport_dbg(this, &uat_mmu::dbg_gpu);
  fw.register_transport_dbg(this, &uat_mmu::dbg_fw);
  ppl.register_transport_dbg(this, &uat_mmu::dbg_ppl);
  tlbi_gpu.register_b_transport(this, &uat_mmu::tlbi_gpu_cb);
  tlbi_asc.register_b_transport(this, &uat_mmu::tlbi_asc_cb);
  gpu_out.register_invalidate_direct_mem_ptr(this, &uat_mmu::inval_gpu_dmi);
  asc_out.register_invalidate_direct_mem_ptr(this, &uat_mmu::inval_asc_dmi);
  fault_info.on_write = [this](uint64_t value, uint64_t old) {
    if (fault_info_faulted::get(value)) {  // acknowledge: clear and lower the interrupt
      fault_info.set(0);
      fault_irq.write(false);
    } else {
      fault_info.set(old);
    }
  };
}

uat_mmu::~uat_mmu() = default;

const tlb& uat_mmu::view_tlb(view v) const { return views_[size_t(v)]->t; }
const stale_hit* uat_mmu::first_stale(view v) const { return views_[size_t(v)]->has_stale ? &views_[size_t(v)]->first : nullptr; }

uint64_t uat_mmu::stat(view v, const std::string& n) const {
  const view_state& s = *views_[size_t(v)];
  if (n == "hits") return s.hits;
  if (n == "misses") return s.misses;
  if (n == "walks") return s.walks;
  if (n == "faults") return s.faults;
  if (n == "stale_hits") return s.stale_hits;
  if (n == "evictions") return s.evictions;
  if (n == "entries_invalidated") return s.entries_invalidated;
  if (n == "context_reads") return s.context_reads;
  for (auto op : {tlbi_op::vmalle1os, tlbi_op::aside1os, tlbi_op::vae1os, tlbi_op::rvae1os})
    if (n == std::string("tlbi_") + tlbi_name(op)) return *s.tlbis[size_t(op)];
  return ~uint64_t(0);
}

// ---- table reads ----

bool uat_mmu::read_table(view v, uint64_t addr, uint64_t& value, sc_core::sc_time& delay) {
  port_state& p = port_of(v);
  // Through DMI the read still sends its transaction (dmi_shadow: timed, booked and counted as any
  // other, the memory moving no data), then takes the value from the pointer.
  const uint8_t* ptr = nullptr;
  for (const auto& d : p.dmi)
    if (addr >= d.get_start_address() && addr + 7 <= d.get_end_address()) {
      ptr = d.get_dmi_ptr() + (addr - d.get_start_address());
      break;
    }
  transaction t(tlm::TLM_READ_COMMAND, addr, &value, 8);
  t.ext.dmi_shadow = ptr != nullptr;
  (*p.socket)->b_transport(t.gp, delay);
  if (!t.ok()) {
    ++walk_bus_errors;
    return false;
  }
  if (ptr) {
    std::memcpy(&value, ptr, 8);
    ++walk_dmi_reads;
    return true;
  }
  if (walk_dmi && t.gp.is_dmi_allowed()) {
    transaction q(tlm::TLM_READ_COMMAND, addr, nullptr, 0);
    tlm::tlm_dmi d;
    if ((*p.socket)->get_direct_mem_ptr(q.gp, d) && d.is_read_allowed()) p.dmi.push_back(d);
  }
  return true;
}

bool uat_mmu::read_debug(view v, uint64_t addr, uint64_t& value) {
  transaction t(tlm::TLM_READ_COMMAND, addr, &value, 8);
  t.ext.debug = true;
  return (*port_of(v).socket)->transport_dbg(t.gp) == 8;
}

void uat_mmu::invalidate_dmi(port_state& p, sc_dt::uint64 start, sc_dt::uint64 end) {
  std::erase_if(p.dmi, [&](const tlm::tlm_dmi& d) { return d.get_start_address() <= end && start <= d.get_end_address(); });
}

// ---- translation ----

// The slot's TTB for `half`, from the context cache or the TTBAT (timed). Only valid TTBs are kept,
// so a slot the driver fills later is seen without a TLBI.
bool uat_mmu::context(view_state& s, unsigned slot, unsigned half, sc_core::sc_time& delay, uint64_t& ttb) {
  const unsigned i = slot * 2 + half;
  if (s.ctx_valid[i]) {
    ttb = s.ctx[i];
    return true;
  }
  ++s.context_reads;
  if (!read_table(s.v, ttb_address(cfg_, slot, half), ttb, delay)) return false;
  if (context_cache && ttb_fields::valid(ttb)) s.ctx[i] = ttb, s.ctx_valid[i] = true;
  ++hints_[size_t(s.v)].epoch;  // a slot's hints were made with the TTB it had then
  return true;
}

[[gnu::always_inline]] inline void uat_mmu::hit(view_state& s, unsigned slot, uint64_t va, access_type a, const tlb::entry& e,
                                                translation& t) {
  ++s.hits;
  if (detect_stale) check_stale(s, slot, va, e);
  t.hit = true;
  t.level = 3;
  t.pte = e.pte;
  t.pa = output_address(cfg_, e.pte, va);
  t.f = check_rights(e.rights, a);
  if (!t.ok()) ++s.faults;
}

uat_mmu::translation uat_mmu::translate_slow(view v, unsigned slot, uint64_t va, access_type a, sc_core::sc_time& delay) {
  view_state& s = *views_[size_t(v)];
  translation t;
  delay += hit_latency.get();
  uint64_t ttb = 0;
  if (!context(s, slot, half_of(va), delay, ttb) || !ttb_fields::valid(ttb)) {
    t.f = fault::invalid;
    t.level = 0;
    t.pte = ttb;
    ++s.faults;
    return t;
  }
  const uint64_t vpn = (va >> page_shift) & vpn_mask;
  if (tlb::entry* e = s.t.lookup(vpn, ttb_fields::asid(ttb))) {
    // Without the context cache every access reads the TTB; with detect_stale every hit walks.
    if (context_cache && !detect_stale) {
      hint_table& ht = hints_[size_t(v)];
      ht.h[vpn & (hint_table::count - 1)] = {uint64_t(slot) << 32 | vpn, ht.epoch, e->pte, output_address(cfg_, e->pte, 0),
                                             s.t.stamp_to_touch(e),      e->rights};
    }
    hit(s, slot, va, a, *e, t);
    return t;
  }
  miss(s, slot, va, ttb, a, delay, t);
  if (!t.ok()) ++s.faults;
  return t;
}

void uat_mmu::miss(view_state& s, unsigned slot, uint64_t va, uint64_t ttb, access_type a, sc_core::sc_time& delay, translation& t) {
  ++s.misses;
  ++s.walks;
  const sc_core::sc_time before = delay;
  delay += walk_latency.get();
  const walk_result w = walk_from(cfg_, ttb, va, [&](uint64_t addr, uint64_t& value) { return read_table(s.v, addr, value, delay); });
  s.walk_time.add((delay - before).value() / (1_ps).value());
  if (auto& tr = tracer::global(); tr.enabled())
    tr.span(tr.track(std::string(name()) + "." + view_name(s.v)), "walk", sc_core::sc_time_stamp() + before, delay - before,
            {{"view", view_name(s.v)}, {"slot", slot}, {"va", to_hex(va)}, {"fault", fault_name(w.f)}});
  t.level = w.level;
  t.pte = w.pte;
  if (w.f != fault::none) {
    t.f = w.f;
    return;
  }
  t.pa = output_address(cfg_, w.pte, va);
  const uint8_t r = rights(s.v, w.pte);
  bool evicted = false;
  s.t.insert((va >> page_shift) & vpn_mask, ttb_fields::asid(ttb), w.pte, w.pte_addr, r, evicted);
  ++hints_[size_t(s.v)].epoch;
  if (evicted) ++s.evictions;
  t.f = check_rights(r, a);
}

uat_mmu::translation uat_mmu::translate_debug(view v, unsigned slot, uint64_t va, access_type a) {
  translation t;
  uint64_t ttb = 0;
  if (!read_debug(v, ttb_address(cfg_, slot, half_of(va)), ttb)) return t.f = fault::invalid, t;
  const walk_result w = walk_from(cfg_, ttb, va, [&](uint64_t addr, uint64_t& value) { return read_debug(v, addr, value); });
  t.level = w.level;
  t.pte = w.pte;
  if (w.f != fault::none) return t.f = w.f, t;
  t.pa = output_address(cfg_, w.pte, va);
  t.f = check_rights(rights(v, w.pte), a);
  return t;
}

// A hit is stale when memory now holds another leaf for the page (or none): the bug Asahi Lina's notes chase.
void uat_mmu::check_stale(view_state& s, unsigned slot, uint64_t va, const tlb::entry& e) {
  const translation now = translate_debug(s.v, slot, va, access_type::read);
  const bool mapped = now.level == 3 && now.f != fault::invalid && now.f != fault::access_flag;
  if (mapped && now.pte == e.pte) return;
  ++s.stale_hits;
  if (s.has_stale) return;
  s.has_stale = true;
  s.first = {slot, va, output_address(cfg_, e.pte, va), mapped ? now.pa : 0, e.pte, mapped ? now.pte : 0, sc_core::sc_time_stamp()};
  GPUVP_LOG(this, warning,
            "stale TLB hit in view " << view_name(s.v) << ": slot " << slot << " VA " << to_hex(va) << " -> " << to_hex(s.first.stale_pa)
                                     << ", memory now says " << (mapped ? to_hex(now.pa) : std::string("unmapped")));
}

// ---- TLBI ----

void uat_mmu::apply_tlbi(bool asc_side, tlbi_op op, uint64_t operand) {
  const tlbi_scope sc = decode_tlbi(op, operand);
  for (auto& sp : views_) {
    view_state& s = *sp;
    if ((s.v != view::gpu) != asc_side) continue;
    ++*s.tlbis[size_t(op)];
    ++hints_[size_t(s.v)].epoch;
    s.entries_invalidated += s.t.invalidate(sc);
    for (unsigned i = 0; i < slots * 2; ++i)
      if (s.ctx_valid[i] && (sc.all || (sc.by_asid && ((ttb_fields::asid(s.ctx[i]) ^ sc.asid) & asid_mask_) == 0))) s.ctx_valid[i] = false;
  }
}

void uat_mmu::flush_view(view v) {
  view_state& s = *views_[size_t(v)];
  tlbi_scope all;
  all.all = true;
  s.entries_invalidated += s.t.invalidate(all);
  s.ctx_valid.fill(false);
  ++hints_[size_t(v)].epoch;
}

void uat_mmu::tlbi_transport(bool asc_side, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const tlbi_msg* m = gp.get_extension<tlbi_msg>();
  if (!m) {
    gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  delay += tlbi_latency.get();
  apply_tlbi(asc_side, m->op, m->operand);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void uat_mmu::report(std::ostream& os) {
  bool first = true;
  for (const auto& s : views_) {
    if (s->hits + s->misses == 0 && s->entries_invalidated == 0 && *s->tlbis[0] + *s->tlbis[1] + *s->tlbis[2] + *s->tlbis[3] == 0) continue;
    os << (first ? "" : "; ") << view_name(s->v) << ": hits " << s->hits.value() << ", misses " << s->misses.value() << ", faults "
       << s->faults.value() << ", TLBIs " << (*s->tlbis[0] + *s->tlbis[1] + *s->tlbis[2] + *s->tlbis[3]) << ", entries invalidated "
       << s->entries_invalidated.value();
    if (detect_stale) os << ", stale hits " << s->stale_hits.value();
    if (s->has_stale) os << " (first: " << describe(s->first, s->v) << ")";
    first = false;
  }
  if (first) os << "no translations";
  os << "\n";
}

}  // namespace gpuvp::uat
