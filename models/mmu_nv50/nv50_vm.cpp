// SPDX-License-Identifier: Apache-2.0
#include "nv50_vm.h"
#include <algorithm>
#include <array>
#include <cctype>

namespace gpuvp::mmu_nv50 {

namespace {

std::string upper(std::string_view s) {
  std::string u(s);
  for (auto& c : u) c = char(std::toupper(static_cast<unsigned char>(c)));
  return u;
}

bool at_least(generation g, generation min) { return uint8_t(g) >= uint8_t(min); }

constexpr std::array<const char*, 13> fault_names = {"NONE",      "NULL_DMAOBJ",    "DMAOBJ_LIMIT", "PDE_NOT_PRESENT", "PTE_NOT_PRESENT",
                                                     "PT_LIMIT",  "READ_ONLY",      "SUPERVISOR",   "INVALID_TARGET",  "PAGE_SIZE",
                                                     "MEM_ERROR", "INVALID_ENGINE", "RESERVED_BITS"};
}  // namespace

std::optional<generation> parse_generation(std::string_view name) {
  const std::string n = upper(name);
  if (n == "NV50" || n == "G80") return generation::nv50;
  for (const char* g : {"G84", "G86", "G92", "G94", "G96", "G98", "G200", "MCP77", "MCP79"})
    if (n == g) return generation::g84;
  for (const char* g : {"GT215", "GT216", "GT218"})
    if (n == g) return generation::gt215;
  if (n == "MCP89") return generation::mcp89;
  return std::nullopt;
}

const char* target_name(target t) {
  switch (t) {
    case target::vram:
      return "VRAM";
    case target::invalid:
      return "INVALID";
    case target::sysram_snoop:
      return "SYSRAM_SNOOP";
    case target::sysram_nosnoop:
      return "SYSRAM_NOSNOOP";
  }
  return "?";
}

const char* fault_name(fault f) {
  const auto i = size_t(f);
  return i < fault_names.size() ? fault_names[i] : "?";
}

bool engine_exists(generation g, uint32_t e) {
  switch (e) {
    case engine::pgraph:
    case engine::pvp:
    case engine::peephole:
    case engine::pfifo:
    case engine::bar:
    case engine::pmpeg:
      return true;
    case 0x7:  // PME on the original NV50 (VP1), PVCOMP on MCP89
      return g == generation::nv50 || g == generation::mcp89;
    case engine::pbsp:
    case engine::pcrypt:
    case engine::pcounter:
    case engine::pfifo_bg:
      return at_least(g, generation::g84);
    case engine::pcopy:
    case engine::pdaemon:
      return at_least(g, generation::gt215);
    default:
      return false;
  }
}

dmaobj decode_dmaobj(const uint32_t w[6], generation g) {
  dmaobj d;
  d.cls = uint16_t(w[0] & 0xffff);
  d.target = uint8_t((w[0] >> 16) & 3);
  d.ro = uint8_t((w[0] >> 18) & 3);
  d.super = uint8_t((w[0] >> 20) & 3);
  d.storage = uint8_t((w[0] >> 22) & 0x7f);
  d.comp = uint8_t((w[0] >> 29) & 3);
  d.super_object = (w[0] >> 31) & 1;
  d.limit = uint64_t(w[1]) | uint64_t(w[3] >> 24) << 32;
  d.base = uint64_t(w[2]) | uint64_t(w[3] & 0xff) << 32;
  d.base_tag = uint16_t(w[4] & 0xfff);
  d.limit_tag = uint16_t((w[4] >> 16) & 0xfff);
  d.comp_base = (w[5] & 0xffff) << 16;
  d.pcycle = uint8_t((w[5] >> 16) & 3);
  d.enc = at_least(g, generation::g84) ? uint8_t((w[5] >> 18) & 3) : 0;
  return d;
}

uint32_t pde::entries() const {
  if (size == 1) return 0x2000;
  if (size == 2) return 0x8000;
  static constexpr uint32_t small[4] = {0x20000, 0x8000, 0x4000, 0x2000};
  return small[pt_size & 3];
}

pde decode_pde(uint64_t raw) {
  pde p;
  p.size = uint8_t(raw & 3);
  p.target = uint8_t((raw >> 2) & 3);
  p.bit4 = (raw >> 4) & 1;
  p.pt_size = uint8_t((raw >> 5) & 3);
  p.address = (raw & 0xfffff000u) | ((raw >> 32) & 0xff) << 32;
  return p;
}

pte decode_pte(uint64_t raw, unsigned page_shift, generation g) {
  pte p;
  p.present = raw & 1;
  p.bits12 = uint8_t((raw >> 1) & 3);
  p.ro = (raw >> 3) & 1;
  p.target = uint8_t((raw >> 4) & 3);
  p.super = (raw >> 6) & 1;
  p.order = uint8_t((raw >> 7) & 7);
  const uint64_t low_mask = 0xffffffffu & ~((uint64_t(1) << page_shift) - 1);
  p.address = (raw & low_mask) | ((raw >> 32) & 0xff) << 32;
  p.storage = uint8_t((raw >> 40) & 0x7f);
  p.comp = uint8_t((raw >> 47) & 3);
  p.tag = uint16_t((raw >> 49) & 0xfff);
  p.pcycle = uint8_t((raw >> 61) & 1);
  p.enc = at_least(g, generation::g84) && ((raw >> 62) & 1);
  return p;
}

fault read_dmaobj(const options& o, uint32_t chandesc, uint32_t selector, const read_fn& rd, dmaobj& out) {
  const target t = channel_target(chandesc);
  if (t == target::invalid) return fault::invalid_target;
  uint32_t w[6];
  const uint64_t addr = channel_base(chandesc) + (uint64_t(selector & 0xffff) << 4);
  if (!rd(t, addr, w, sizeof w)) return fault::mem_error;
  out = decode_dmaobj(w, o.gen);
  return fault::none;
}

fault walk(const options& o, uint32_t chandesc, uint64_t virt, const read_fn& rd, pte& p, unsigned& shift, pde* pde_out) {
  const target ct = channel_target(chandesc);
  if (ct == target::invalid) return fault::invalid_target;
  const uint64_t pde_addr = channel_base(chandesc) + page_directory_offset(o.gen) + ((virt >> 29) & 0x7ff) * 8;
  uint64_t raw = 0;
  if (!rd(ct, pde_addr, &raw, 8)) return fault::mem_error;
  const pde d = decode_pde(raw);
  if (pde_out) *pde_out = d;
  if (d.size == 0) return fault::pde_not_present;
  if (d.size == 2 && !at_least(o.gen, generation::gt215)) return fault::page_size;
  if (d.bit4 && o.pde_bit4 == reserved_policy::fault) return fault::reserved_bits;
  if (target(d.target) == target::invalid) return fault::invalid_target;
  shift = d.page_shift();
  const uint64_t index = (virt & 0x1fffffff) >> shift;
  if (index >= d.entries()) return fault::pt_limit;
  if (!rd(target(d.target), d.address + index * 8, &raw, 8)) return fault::mem_error;
  p = decode_pte(raw, shift, o.gen);
  if (!p.present) return fault::pte_not_present;
  if (p.bits12 && o.pte_bits12 == reserved_policy::fault) return fault::reserved_bits;
  if (target(p.target) == target::invalid) return fault::invalid_target;
  return fault::none;
}

result unpaged_result(const options& o, const dmaobj& d, uint64_t linear) {
  result r;
  r.linear = linear;
  // DMA object targets: 1 VRAM, 2 SYSRAM_SNOOP, 3 SYSRAM_NOSNOOP (0 is "paged").
  r.tgt = d.target == 1 ? target::vram : target(d.target);
  // "From page tables" values (and the undefined 3s) have no page table to come from: they
  // give the permissive default (read-write, user, storage 0, no compression, short, clear).
  r.ro = d.ro == 1;
  r.super = d.super == 2;
  r.storage = d.storage == 0x7f ? 0 : d.storage;
  r.comp = detail::comp_of(d.comp);
  r.pcycle = d.pcycle == 2 ? 1 : 0;
  r.enc = d.enc == 1;
  if (r.comp != comp_mode::none && r.tgt == target::vram) {
    // nv50-vm.rst's four steps, on the 32-bit VRAM linear address (high 8 bits ignored).
    const uint64_t vram = linear & 0xffffffffu;
    if (vram < d.comp_base) {
      r.comp = comp_mode::none;
    } else {
      const uint64_t t = ((vram - d.comp_base) >> 16) + d.base_tag;
      if (t <= d.limit_tag)
        r.tag = uint16_t(t);
      else
        r.comp = comp_mode::none;
    }
  }
  detail::finish_comp(o, r);
  return r;
}

translation translate(const options& o, const vm_access& a, const read_fn& rd) {
  translation t;
  if (o.check_engine && !engine_exists(o.gen, a.engine)) {
    t.f = fault::invalid_engine;
    return t;
  }
  if ((a.selector & 0xffff) == 0) {
    t.f = fault::null_dmaobj;
    return t;
  }
  dmaobj d;
  if ((t.f = read_dmaobj(o, a.chandesc, a.selector, rd, d)) != fault::none) return t;
  if ((t.f = apply_limit(o, d, a.address, a.size, t.virt)) != fault::none) return t;
  t.paged = d.paged();
  if (t.paged) {
    pte p;
    if ((t.f = walk(o, a.chandesc, t.virt, rd, p, t.page_shift)) != fault::none) return t;
    t.order = p.order;
    paged_result(o, d, p, t.page_shift, t.virt, t.r);
  } else {
    t.r = unpaged_result(o, d, t.virt);
  }
  t.f = check_access(o, d, t.r, a.write, a.user);
  return t;
}

}  // namespace gpuvp::mmu_nv50
