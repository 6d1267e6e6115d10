// SPDX-License-Identifier: Apache-2.0
// The UAT (Apple AGX MMU) formats as pure C++: TTBAT entries, table and page descriptors, the
// permission tables of the three views, the page-table walk and the TLBI operands. Facts from
// Asahi Linux and m1n1 (hw/uat.py, pgtable.rs, mem.rs); see docs/models/uat.md.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>
#include "gpuvp/field.h"

namespace gpuvp::uat {

// The three readers of the same tables: the GPU, the ASC's normal firmware (EL1), the uPPL (GL1).
enum class view : uint8_t { gpu = 0, fw = 1, ppl = 2 };
constexpr unsigned view_count = 3;
const char* view_name(view v);
std::optional<view> parse_view(std::string_view name);  // "gpu", "fw", "ppl"

enum class access_type : uint8_t { read, write, execute };
// Rights as a mask.
constexpr uint8_t right_r = 1, right_w = 2, right_x = 4;

// FAULT_INFO REASON codes (m1n1 hw/agx.py); none = no fault.
enum class fault : uint8_t { invalid = 0, access_flag = 1, write_only = 2, read_only = 3, no_access = 4, none = 7 };
const char* fault_name(fault f);

constexpr unsigned slots = 64;       // TTBAT entries (UAT_NUM_CTX)
constexpr unsigned page_shift = 14;  // 16 KiB granule
constexpr uint64_t page_size = uint64_t(1) << page_shift;
constexpr unsigned va_bits = 40;                                            // M1/M2: VA[39] picks TTB0/TTB1, bits 63:40 ignored
constexpr uint64_t vpn_mask = (uint64_t(1) << (va_bits - page_shift)) - 1;  // VA[39:14]

// Descriptor fields (uat.py PTE): VALID 0, TYPE 1, AttrIndex 4:2, AP 7:6, SH 9:8, AF 10, nG 11,
// output address 47:14, PXN 53, UXN 54, OS 55.
struct pte_fields {
  using valid_bit = field<0, 1>;
  using type_bit = field<1, 1>;
  using attr_index = field<2, 3>;
  using ap_bits = field<6, 2>;
  using sh_bits = field<8, 2>;
  using af_bit = field<10, 1>;
  using ng_bit = field<11, 1>;
  using output_address = field<14, 34>;
  using pxn_bit = field<53, 1>;
  using uxn_bit = field<54, 1>;
  using os_bit = field<55, 1>;
  static bool valid(uint64_t d) { return valid_bit::get(d); }
  static bool type(uint64_t d) { return type_bit::get(d); }
  static unsigned attr(uint64_t d) { return unsigned(attr_index::get(d)); }
  static unsigned ap(uint64_t d) { return unsigned(ap_bits::get(d)); }
  static unsigned sh(uint64_t d) { return unsigned(sh_bits::get(d)); }
  static bool af(uint64_t d) { return af_bit::get(d); }
  static bool ng(uint64_t d) { return ng_bit::get(d); }
  static bool pxn(uint64_t d) { return pxn_bit::get(d); }
  static bool uxn(uint64_t d) { return uxn_bit::get(d); }
  static bool os(uint64_t d) { return os_bit::get(d); }
  static constexpr uint64_t address_mask = output_address::mask;
};
// TTBAT entry (uat.py TTBR): ASID 63:48, table base 47:1, VALID 0.
struct ttb_fields {
  using valid_bit = field<0, 1>;
  using base = field<1, 47>;
  using asid_bits = field<48, 16>;
  static bool valid(uint64_t t) { return valid_bit::get(t); }
  static uint16_t asid(uint64_t t) { return uint16_t(asid_bits::get(t)); }
  static constexpr uint64_t base_mask = base::mask;
};
// The table index each level takes from a VA: L1 38:36, L2 35:25, L3 24:14 (16 KiB granule).
using va_l1_index = field<36, 3>;
using va_l2_index = field<25, 11>;
using va_l3_index = field<14, 11>;

// The rights `pte` grants in `v` (uat.py PTE.access_gpu / access_fw; m1n1's "-?" read as
// write-only, as the kernel's FW_GPU_WO).
uint8_t rights(view v, uint64_t pte);
// The fault of an access with `r` rights: none, no_access, read_only or write_only. A write where
// only reading is allowed is read_only, a read where only writing is allowed write_only (the names
// of FAULT_INFO's reasons); anything else denied, execute included, no_access. Inline: every
// translation calls it.
inline uint8_t right_needed(access_type a) { return a == access_type::read ? right_r : a == access_type::write ? right_w : right_x; }
inline fault check_rights(uint8_t r, access_type a) {
  if (r & right_needed(a)) return fault::none;
  if (a == access_type::write && (r & right_r)) return fault::read_only;
  if (a == access_type::read && (r & right_w)) return fault::write_only;
  return fault::no_access;
}

struct walk_config {
  uint64_t ttbat = 0x9fff74000ull;
  uint64_t oas_mask = (uint64_t(1) << 40) - 1;  // output address size (t8103: 40 bits)
  bool type0_is_table = true;                   // L1/L2 VALID with TYPE = 0: a table (m1n1) or invalid (kernel)
};

// A walk's outcome. Levels count from the top: 0 = TTBAT entry, 1 = L1, 2 = L2, 3 = leaf.
struct walk_result {
  fault f = fault::none;
  unsigned level = 0;      // where it ended (3 for a page)
  uint64_t ttb = 0;        // the TTBAT entry used
  uint64_t pte = 0;        // the leaf descriptor (valid page) or the invalid descriptor
  uint64_t pte_addr = 0;   // where that descriptor was read
  bool bus_error = false;  // a table read failed (reported as invalid at that level)
};

using va_half = field<39, 1>;  // 0: TTB0 (user), 1: TTB1 (kernel)
inline unsigned half_of(uint64_t va) { return unsigned(va_half::get(va)); }
inline uint64_t ttb_address(const walk_config& c, unsigned slot, unsigned half) { return c.ttbat + slot * 16 + half * 8; }
inline uint64_t output_address(const walk_config& c, uint64_t pte, uint64_t va) {
  return (pte & pte_fields::address_mask & c.oas_mask) | (va & (page_size - 1));
}

// Walks from a TTBAT entry already read. read64(addr, value&) -> bool (false: bus error).
template <typename Read>
walk_result walk_from(const walk_config& c, uint64_t ttb, uint64_t va, Read&& read64) {
  walk_result r;
  r.ttb = ttb;
  if (!ttb_fields::valid(ttb)) return r.f = fault::invalid, r.level = 0, r.pte = ttb, r;
  uint64_t table = ttb & ttb_fields::base_mask & c.oas_mask;
  const uint64_t index[3] = {va_l1_index::get(va), va_l2_index::get(va), va_l3_index::get(va)};
  for (unsigned level = 1; level <= 3; ++level) {
    const uint64_t addr = table + index[level - 1] * 8;
    uint64_t d = 0;
    r.level = level;
    r.pte_addr = addr;
    if (!read64(addr, d)) return r.bus_error = true, r.f = fault::invalid, r;
    r.pte = d;
    const bool page_or_table = pte_fields::valid(d) && (pte_fields::type(d) || (level < 3 && c.type0_is_table));
    if (!page_or_table) return r.f = fault::invalid, r;
    table = d & pte_fields::address_mask & c.oas_mask;
  }
  r.f = pte_fields::af(r.pte) ? fault::none : fault::access_flag;
  return r;
}

// The TLBI instructions the AP broadcasts (outer shareable), with operands as mem.rs and
// m1n1 sysreg.TLBI_RVA encode them.
enum class tlbi_op : uint8_t { vmalle1os, aside1os, vae1os, rvae1os };
const char* tlbi_name(tlbi_op op);
std::optional<tlbi_op> parse_tlbi_op(std::string_view name);

// What a TLBI covers, in UAT pages (VA[39:14], modulo 2^26).
struct tlbi_scope {
  bool all = false;      // vmalle1os
  bool by_asid = false;  // aside1os: the ASID's non-global entries
  uint16_t asid = 0;     // operand bits 63:48
  uint64_t first = 0;    // first UAT page (vae1os, rvae1os)
  uint64_t pages = 0;    // pages covered (0: none, e.g. a reserved TG)
};
tlbi_scope decode_tlbi(tlbi_op op, uint64_t operand);
// TLBI operand fields (Arm ARM TLBI VAE1OS / RVAE1OS): ASID 63:48; vae1os VA[55:12] in 43:0;
// rvae1os TG 47:46, SCALE 45:44, NUM 43:39, TTL 38:37, BaseADDR 36:0 (in TG units).
struct tlbi_operand {
  using asid = field<48, 16>;
  using va_page = field<0, 44>;
  using tg = field<46, 2>;
  using scale = field<44, 2>;
  using num = field<39, 5>;
  using base = field<0, 37>;
};

}  // namespace gpuvp::uat
