// SPDX-License-Identifier: Apache-2.0
#include "gpuvp/memory.h"

#include <cstring>
#include <fstream>
#include <algorithm>
#include <new>
#include <stdexcept>
#include <sys/mman.h>
#include "gpuvp/extension.h"
#include "gpuvp/text.h"
#include "gpuvp/trace.h"

namespace gpuvp {

sparse_memory::sparse_memory(sc_core::sc_module_name name) : sc_module(name) {
  in.register_b_transport(this, &sparse_memory::b_transport);
  in.register_transport_dbg(this, &sparse_memory::transport_dbg);
  in.register_get_direct_mem_ptr(this, &sparse_memory::get_direct_mem_ptr);
}

sparse_memory::~sparse_memory() {
  for (uint8_t* a : arenas_) munmap(a, uint64_t(block_size) << arena_bits);
}

uint32_t sparse_memory::allocate_units(uint64_t n, uint64_t align) const {
  // Arenas are reserved, not committed (MAP_NORESERVE), and without transparent huge pages, which
  // would make one touch cost 2 MiB. Units skipped for alignment are never touched: they cost
  // address space only.
  constexpr uint64_t arena_units = uint64_t(1) << arena_bits;
  uint64_t start = (arena_used_ + align - 1) & ~(align - 1);
  if (arenas_.empty() || start + n > arena_units) {
    if (arenas_.size() >= (uint64_t(1) << (32 - arena_bits))) throw std::bad_alloc();  // unit indices are 32 bits
    const uint64_t bytes = uint64_t(block_size) << arena_bits;
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_NOHUGEPAGE
    madvise(p, bytes, MADV_NOHUGEPAGE);  // advice only: a kernel without it still works
#endif
    arenas_.push_back(static_cast<uint8_t*>(p));
    start = arenas_.size() == 1 ? align : 0;  // unit 0 of the first arena stands for "none"
  }
  arena_used_ = start + n;
  units_used_ += n;
  return uint32_t(((arenas_.size() - 1) << arena_bits) + start);
}

sparse_memory::page_entry* sparse_memory::entry(uint64_t page_number, bool allocate) const {
  if (page_number == last_page_) return last_entry_;
  auto it = pages_.find(page_number);
  if (it == pages_.end()) {
    if (!allocate) return nullptr;
    // A new page starts as an empty block table (fresh anonymous memory: every index 0).
    const uint64_t table_units = blocks_per_page * sizeof(uint32_t) / block_size;
    it = pages_.emplace(page_number, page_entry{nullptr, reinterpret_cast<uint32_t*>(unit(allocate_units(table_units, 1)))}).first;
  }
  last_page_ = page_number;
  last_entry_ = &it->second;
  return last_entry_;
}

uint8_t* sparse_memory::dense_page(uint64_t page_number) const {
  page_entry* p = entry(page_number, true);
  if (!p->dense) {
    // Aligned to 64 KiB in its arena, so the page covers exactly 16 host pages.
    uint8_t* dense = unit(allocate_units(blocks_per_page, blocks_per_page));
    for (uint64_t b = 0; b < blocks_per_page; ++b)
      if (p->table[b]) std::memcpy(dense + b * block_size, unit(p->table[b]), block_size);
    p->dense = dense;  // the table and its blocks are not used again
    p->table = nullptr;
    span_length_ = 0;  // it may have been one of those blocks
  }
  return p->dense;
}

void sparse_memory::write_in_page(page_entry& p, uint64_t page_base, uint64_t in_page, const uint8_t* src, uint64_t n) {
  if (p.dense) {
    std::memcpy(p.dense + in_page, src, n);
    remember_span(page_base, page_size, p.dense);
    return;
  }
  while (n) {
    const uint64_t in_block = in_page & (block_size - 1);
    const uint64_t m = std::min(n, block_size - in_block);
    uint32_t& index = p.table[in_page >> block_bits];
    if (!index) index = allocate_units(1, 1);
    std::memcpy(unit(index) + in_block, src, m);
    remember_span(page_base + in_page - in_block, block_size, unit(index));
    in_page += m;
    src += m;
    n -= m;
  }
}

void sparse_memory::read_in_page(const page_entry* p, uint64_t page_base, uint64_t in_page, uint8_t* dst, uint64_t n) const {
  if (!p) {
    std::memset(dst, 0, n);
  } else if (p->dense) {
    std::memcpy(dst, p->dense + in_page, n);
    remember_span(page_base, page_size, p->dense);
  } else {
    while (n) {
      const uint64_t in_block = in_page & (block_size - 1);
      const uint64_t m = std::min(n, block_size - in_block);
      if (const uint32_t index = p->table[in_page >> block_bits]) {
        std::memcpy(dst, unit(index) + in_block, m);
        remember_span(page_base + in_page - in_block, block_size, unit(index));
      } else
        std::memset(dst, 0, m);
      in_page += m;
      dst += m;
      n -= m;
    }
  }
}

void sparse_memory::load(uint64_t offset, const void* data, uint64_t length) {
  if (offset + length > size || offset + length < offset)
    throw std::out_of_range(std::string(name()) + ": load of " + std::to_string(length) + " bytes at " + to_hex(offset) +
                            " is outside the memory");
  auto* src = static_cast<const uint8_t*>(data);
  while (length) {
    const uint64_t in_page = offset & (page_size - 1);
    const uint64_t n = std::min(length, page_size - in_page);
    write_in_page(*entry(offset >> page_bits, true), offset - in_page, in_page, src, n);
    offset += n;
    src += n;
    length -= n;
  }
}

void sparse_memory::fill(uint64_t offset, uint8_t byte, uint64_t length) {
  if (offset + length > size || offset + length < offset) throw std::out_of_range(std::string(name()) + ": fill outside the memory");
  uint8_t pattern[block_size];
  std::memset(pattern, byte, sizeof pattern);
  while (length) {
    const uint64_t n = std::min(length, block_size - (offset & (block_size - 1)));  // never beyond a block or page
    write_in_page(*entry(offset >> page_bits, true), offset & ~(page_size - 1), offset & (page_size - 1), pattern, n);
    offset += n;
    length -= n;
  }
}

void sparse_memory::peek(uint64_t offset, void* data, uint64_t length) const {
  if (offset + length > size || offset + length < offset)
    throw std::out_of_range(std::string(name()) + ": read of " + std::to_string(length) + " bytes at " + to_hex(offset) +
                            " is outside the memory");
  auto* dst = static_cast<uint8_t*>(data);
  while (length) {
    const uint64_t in_page = offset & (page_size - 1);
    const uint64_t n = std::min(length, page_size - in_page);
    read_in_page(entry(offset >> page_bits, false), offset - in_page, in_page, dst, n);
    offset += n;
    dst += n;
    length -= n;
  }
}

void sparse_memory::load_file(const std::string& file, uint64_t offset) {
  const auto bytes = read_whole_file(file);
  if (!bytes) throw std::runtime_error(file + ": cannot open");
  load(offset, bytes->data(), bytes->size());
}

void sparse_memory::revoke_dmi() { in->invalidate_direct_mem_ptr(0, ~sc_dt::uint64(0)); }

bool sparse_memory::copy(tlm::tlm_generic_payload& gp) {
  const uint64_t addr = gp.get_address();
  const uint64_t len = gp.get_data_length();
  if (addr + len > size || addr + len < addr || gp.get_byte_enable_ptr() || gp.get_streaming_width() < len) {
    gp.set_response_status(gp.get_byte_enable_ptr() || gp.get_streaming_width() < len ? tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE
                                                                                      : tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return false;
  }
  const gpu_ext* e = gp.get_extension<gpu_ext>();
  const uint64_t in_span = addr - span_base_;
  if (e && e->dmi_shadow)
    ++dmi_accesses;  // the initiator moves the data through its DMI pointer
  else if (len == 0)
    ;  // nothing to move (and the data pointer of an empty access may be null)
  else if (in_span < span_length_ && len <= span_length_ - in_span && gp.is_write())
    std::memcpy(span_host_ + in_span, gp.get_data_ptr(), len);  // inside the last block or page: no look-up
  else if (in_span < span_length_ && len <= span_length_ - in_span && gp.is_read())
    std::memcpy(gp.get_data_ptr(), span_host_ + in_span, len);
  else if (gp.is_write())
    load(addr, gp.get_data_ptr(), len);
  else if (gp.is_read())
    peek(addr, gp.get_data_ptr(), len);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  return true;
}

void sparse_memory::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  if (!copy(gp)) {
    ++errors;
    GPUVP_LOG(this, warning,
              "access of " << gp.get_data_length() << " bytes at 0x" << std::hex << gp.get_address() << " is outside the memory (size 0x"
                           << size.get() << ")");
    return;
  }
  if (gp.is_write()) {
    ++writes;
    bytes_written += gp.get_data_length();
    delay += write_latency.get();
  } else if (gp.is_read()) {
    ++reads;
    bytes_read += gp.get_data_length();
    delay += read_latency.get();
  }
  if (dmi) gp.set_dmi_allowed(true);
}

unsigned sparse_memory::transport_dbg(tlm::tlm_generic_payload& gp) { return copy(gp) ? gp.get_data_length() : 0; }

bool sparse_memory::get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& d) {
  const uint64_t addr = gp.get_address();
  if (!dmi || addr >= size) return false;
  // One page at a time (pages are separate allocations), in its contiguous form from now on.
  const uint64_t base = addr & ~(page_size - 1);
  d.set_dmi_ptr(dense_page(addr >> page_bits));
  d.set_start_address(base);
  d.set_end_address(std::min<uint64_t>(base + page_size, size) - 1);
  d.allow_read_write();
  d.set_read_latency(read_latency.get());
  d.set_write_latency(write_latency.get());
  ++dmi_grants;
  return true;
}

}  // namespace gpuvp
