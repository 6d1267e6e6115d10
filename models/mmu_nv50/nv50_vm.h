// SPDX-License-Identifier: Apache-2.0
// NV50 virtual memory: the pure translation core (no SystemC), after nv50-vm.rst.
//
// logical address (channel descriptor, DMA object selector, 40-bit offset)
//   -> DMA object (base/limit, attribute overrides)
//   -> [paged objects] virtual address -> PDE -> PTE
//   -> linear address + target + attributes, or a fault kind.
//
// Memory is read through a callback (target, linear address, bytes), so the same core serves the
// SystemC MMU (timed reads over the interconnect), tests (a plain map) and other models.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace gpuvp::mmu_nv50 {

// GPU generation, as far as the VM cares: NV50 channel layout; G84+ layout and encryption;
// GT215+ medium pages, PCOPY and PDAEMON; MCP89 PVCOMP.
enum class generation : uint8_t { nv50, g84, gt215, mcp89 };
// Accepts family and chip names: NV50/G80, G84 G86 G92 G94 G96 G98 G200 MCP77 MCP79, GT215
// GT216 GT218, MCP89 (case-insensitive). nullopt for anything else.
std::optional<generation> parse_generation(std::string_view name);

// Target specifier of a linear address (channel descriptor, DMA object, PDE, PTE).
enum class target : uint8_t { vram = 0, invalid = 1, sysram_snoop = 2, sysram_nosnoop = 3 };
const char* target_name(target t);

enum class comp_mode : uint8_t { none = 0, single = 1, dbl = 2 };

// envytools' VM engines (nv50-vm-engine) and clients (nv50-vm-client).
namespace engine {
constexpr uint32_t pgraph = 0x0, pvp = 0x1, peephole = 0x4, pfifo = 0x5, bar = 0x6, pme = 0x7, pvcomp = 0x7, pmpeg = 0x8, pppp = 0x8,
                   pbsp = 0x9, pvld = 0x9, pcrypt = 0xa, pcounter = 0xb, pfifo_bg = 0xc, pcopy = 0xd, pdaemon = 0xe;
constexpr uint32_t count = 16;  // bits 16-19 of the flush register
}  // namespace engine
namespace client {
constexpr uint32_t strmout = 0x00, dispatch = 0x03, pfifo_write = 0x04, ccache = 0x05, pvpe = 0x06, clipid = 0x07, pfifo_read = 0x08,
                   vfetch = 0x09, texture = 0x0a, prop = 0x0b, pvp2 = 0x0c, pbsp = 0x0d, pcrypt = 0x0e, pcounter = 0x0f, pdaemon = 0x11,
                   pcopy = 0x13, pvcomp = 0x14;
}  // namespace client
// Whether a VM engine id exists on a generation (nv50-vm.rst's engine list with its gates).
bool engine_exists(generation g, uint32_t engine_id);

// Fault kinds. The first seven are the issue's; the others are this model's choices for cases
// envytools' nv50-vm.rst leaves open (documented in docs/models/mmu_nv50.md). The value is the reason code
// latched in FAULT_STATUS bits 8-15.
enum class fault : uint8_t {
  none = 0,
  null_dmaobj = 1,      // selector 0
  dmaobj_limit = 2,     // base + address >= limit
  pde_not_present = 3,  // PDE bits 0-1 = 0
  pte_not_present = 4,  // PTE bit 0 = 0
  pt_limit = 5,         // small-page index beyond the PDE's page table size
  read_only = 6,        // write to a read-only page/object
  supervisor = 7,       // user access to a supervisor-only page/object
  invalid_target = 8,   // target specifier 1 ("invalid, do not use") anywhere in the walk
  page_size = 9,        // medium pages (PDE size 2) before GT215
  mem_error = 10,       // the DMA object, PDE or PTE read got an error response
  invalid_engine = 11,  // VM engine id that does not exist on this generation
  reserved_bits = 12,   // PDE bit 4 / PTE bits 1-2 set while the policy says to fault
};
const char* fault_name(fault f);  // "NULL_DMAOBJ", ...

// Word 0..5 of a DMA object, every field decoded (raw field values, no policy applied).
struct dmaobj {
  uint16_t cls = 0;           // w0 0-15
  uint8_t target = 0;         // w0 16-17: 0 paged VM, 1 VRAM, 2 SYSRAM_SNOOP, 3 SYSRAM_NOSNOOP
  uint8_t ro = 0;             // w0 18-19: 0 from PT, 1 read-only, 2 read-write
  uint8_t super = 0;          // w0 20-21: 0 from PT, 1 user-supervisor, 2 supervisor-only
  uint8_t storage = 0;        // w0 22-28: 0x7f from PT
  uint8_t comp = 0;           // w0 29-30: 0 none, 1 SINGLE, 2 DOUBLE, 3 from PT
  bool super_object = false;  // w0 31
  uint64_t limit = 0;         // w1 | w3 24-31 << 32
  uint64_t base = 0;          // w2 | w3 0-7 << 32
  uint16_t base_tag = 0;      // w4 0-11
  uint16_t limit_tag = 0;     // w4 16-27
  uint32_t comp_base = 0;     // w5 0-15 << 16
  uint8_t pcycle = 0;         // w5 16-17: 0 from PT, 1 short, 2 long
  uint8_t enc = 0;            // w5 18-19 [G84+]: 0 no, 1 yes, 2 from PT (always 0 on NV50)
  bool paged() const { return target == 0; }
};
dmaobj decode_dmaobj(const uint32_t w[6], generation g);

struct pde {
  uint8_t size = 0;      // w0 0-1: 0 not present, 1 large, 2 medium, 3 small
  uint8_t target = 0;    // w0 2-3
  bool bit4 = false;     // w0 4 (???)
  uint8_t pt_size = 0;   // w0 5-6: small-page table size code
  uint64_t address = 0;  // w0 12-31 | w1 0-7 << 32
  unsigned page_shift() const { return size == 1 ? 16 : size == 2 ? 14 : 12; }
  // Entries of the page table: small pages 0x20000 >> {0,2,3,4}; medium 0x8000; large 0x2000.
  uint32_t entries() const;
};
pde decode_pde(uint64_t raw);

struct pte {
  bool present = false;  // bit 0
  uint8_t bits12 = 0;    // bits 1-2 (???)
  bool ro = false;       // bit 3
  uint8_t target = 0;    // bits 4-5
  bool super = false;    // bit 6
  uint8_t order = 0;     // bits 7-9: log2 pages of the contig block
  uint64_t address = 0;  // bits 12/14/16-31 by page size | bits 32-39
  uint8_t storage = 0;   // bits 40-46
  uint8_t comp = 0;      // bits 47-48
  uint16_t tag = 0;      // bits 49-60
  uint8_t pcycle = 0;    // bit 61: 0 short, 1 long
  bool enc = false;      // bit 62 [G84+]
};
pte decode_pte(uint64_t raw, unsigned page_shift, generation g);

// Policies for what envytools' nv50-vm.rst leaves open ("???", "todo"). Defaults are documented in the
// model page; the SystemC module exposes each as a param.
enum class reserved_policy : uint8_t { ignore, fault };
struct options {
  generation gen = generation::g84;
  reserved_policy pde_bit4 = reserved_policy::ignore;    // PDE bit 4
  reserved_policy pte_bits12 = reserved_policy::ignore;  // PTE bits 1-2
  bool user_super_dmaobj_faults = true;                  // a user access through a supervisor DMA object faults
  bool comp_vram_only = true;                            // compression forced to none on a SYSRAM target
  bool limit_inclusive = false;                          // nv50-vm.rst: >= limit faults; nouveau writes limit = end - 1
  bool check_engine = true;                              // an engine id absent on `gen` faults INVALID_ENGINE
};

// Everything a successful translation gives (nv50-vm.rst's list).
struct result {
  uint64_t linear = 0;  // 40-bit linear address
  target tgt = target::vram;
  bool ro = false;
  bool super = false;
  uint8_t storage = 0;
  comp_mode comp = comp_mode::none;
  uint16_t tag = 0;    // compression tag cell (0 when comp is none)
  uint8_t pcycle = 0;  // 0 short, 1 long
  bool enc = false;
};

struct vm_access {
  uint32_t engine = 0, client = 0;
  uint32_t chandesc = 0;  // 30 bits: 0-27 structure address bits 12-39, 28-29 target
  uint32_t selector = 0;  // DMA object selector (16 bits)
  uint64_t address = 0;   // logical address (offset within the DMA object)
  bool write = false;
  bool user = false;  // user access (false: supervisor)
  uint32_t size = 1;  // bytes: the last byte is limit-checked too
  uint32_t bind = 0;  // selector-rewrite generation of the DMA slot (gpu_ext::dma_bind): a
                      // different value makes the MMU reload its cached DMA object
};

struct translation {
  result r;
  // Informative (also on faults, where known): virtual address, page shift, contig order.
  uint64_t virt = 0;
  unsigned page_shift = 0, order = 0;
  fault f = fault::none;  // after the wide fields: the struct packs into 48 bytes
  bool paged = false;
  bool ok() const { return f == fault::none; }
};

// Reads `len` bytes (little-endian memory) at a linear address of a target; false on error.
using read_fn = std::function<bool(target t, uint64_t linear, void* data, unsigned len)>;

// Channel structure: base linear address and target from a descriptor; page directory offset.
inline uint64_t channel_base(uint32_t chandesc) { return uint64_t(chandesc & 0x0fffffffu) << 12; }
inline target channel_target(uint32_t chandesc) { return target((chandesc >> 28) & 3); }
inline uint64_t page_directory_offset(generation g) { return g == generation::nv50 ? 0x1400 : 0x200; }

// --- The stages, usable separately (the TLB layer caches between them) ---

// Reads and decodes the DMA object of `selector` (no selector-0 check). Fault on read error or
// an invalid channel target.
fault read_dmaobj(const options& o, uint32_t chandesc, uint32_t selector, const read_fn& rd, dmaobj& out);
// Page-table walk of a virtual address: PDE then PTE. On success `p` is the PTE, `shift` the page
// size; `pde_out` the PDE (for statistics and qtest).
fault walk(const options& o, uint32_t chandesc, uint64_t virt, const read_fn& rd, pte& p, unsigned& shift, pde* pde_out = nullptr);
// Linear address and attributes from an unpaged object.
result unpaged_result(const options& o, const dmaobj& d, uint64_t linear);

// The small stages are inline: a TLB hit runs apply_limit, paged_result and check_access.
namespace detail {
constexpr uint64_t mask40 = (uint64_t(1) << 40) - 1;
inline comp_mode comp_of(uint8_t v) { return v == 1 ? comp_mode::single : v == 2 ? comp_mode::dbl : comp_mode::none; }
// Compression is only meaningful on VRAM (nv50-vm.rst: "Can only be used on VRAM").
inline void finish_comp(const options& o, result& r) {
  if (r.comp == comp_mode::none || (o.comp_vram_only && r.tgt != target::vram)) {
    r.comp = comp_mode::none;
    r.tag = 0;
  }
}
}  // namespace detail

// Base/limit check of the access's first and last byte: the virtual (paged) or linear (unpaged)
// address of the first byte, or DMAOBJ_LIMIT.
inline fault apply_limit(const options& o, const dmaobj& d, uint64_t address, uint32_t size, uint64_t& out) {
  const uint64_t a = d.base + address;  // compare before masking: a wrap is over the limit too
  const uint64_t last = a + (size ? size - 1 : 0);
  const bool over = a < d.base || last < a || (o.limit_inclusive ? last > d.limit : last >= d.limit);
  if (over) return fault::dmaobj_limit;
  out = a & detail::mask40;
  return fault::none;
}

// Linear address and attributes from a paged object and the PTE of its page (contig aware).
inline void paged_result(const options& o, const dmaobj& d, const pte& p, unsigned shift, uint64_t virt, result& r) {
  const uint64_t block_offset = virt & ((uint64_t(1) << (shift + p.order)) - 1);
  r.linear = (p.address + block_offset) & detail::mask40;
  r.tgt = target(p.target);
  r.ro = d.ro == 1 ? true : d.ro == 2 ? false : p.ro;
  r.super = d.super == 1 ? false : d.super == 2 ? true : p.super;
  r.storage = d.storage == 0x7f ? p.storage : d.storage;
  r.comp = detail::comp_of(d.comp == 3 ? p.comp : d.comp);
  // Contig blocks carry the tag of their first page; cells follow at one (SINGLE) or two
  // (DOUBLE) per 0x10000 bytes.
  r.tag = uint16_t((p.tag + (block_offset >> 16) * (r.comp == comp_mode::dbl ? 2 : 1)) & 0xfff);
  r.pcycle = d.pcycle == 1 ? 0 : d.pcycle == 2 ? 1 : p.pcycle;
  r.enc = d.enc == 1 ? true : d.enc == 0 ? false : p.enc;
  detail::finish_comp(o, r);
}

// User/supervisor and read-only checks on a result.
inline fault check_access(const options& o, const dmaobj& d, const result& r, bool write, bool user) {
  if (user && (r.super || (o.user_super_dmaobj_faults && d.super_object))) return fault::supervisor;
  if (write && r.ro) return fault::read_only;
  return fault::none;
}

// The whole translation, stateless (no TLB).
translation translate(const options& o, const vm_access& a, const read_fn& rd);

}  // namespace gpuvp::mmu_nv50
