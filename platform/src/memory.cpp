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
  for (const arena& a : arenas_) munmap(a.base, a.bytes);
}

uint8_t* sparse_memory::new_page() const {
  // Arenas of up to 64 MiB of address space (no more than the memory needs): reserved, not
  // committed (MAP_NORESERVE), and without transparent huge pages, which would make one touch
  // cost 2 MiB.
  constexpr uint64_t arena_max = uint64_t(64) << 20;
  if (arenas_.empty() || arena_used_ == arenas_.back().bytes) {
    const uint64_t bytes = std::min(arena_max, (size.get() + page_size - 1) & ~(page_size - 1));
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_NOHUGEPAGE
    madvise(p, bytes, MADV_NOHUGEPAGE);  // advice only: a kernel without it still works
#endif
    arenas_.push_back({static_cast<uint8_t*>(p), bytes});
    arena_used_ = 0;
  }
  uint8_t* page = arenas_.back().base + arena_used_;
  arena_used_ += page_size;
  return page;
}

uint8_t* sparse_memory::page(uint64_t page_number, bool allocate) const {
  if (page_number == last_page_) return last_ptr_;
  auto it = pages_.find(page_number);
  if (it == pages_.end()) {
    if (!allocate) return nullptr;
    it = pages_.emplace(page_number, new_page()).first;  // zero until written (anonymous memory)
  }
  last_page_ = page_number;
  last_ptr_ = it->second;
  return last_ptr_;
}

void sparse_memory::load(uint64_t offset, const void* data, uint64_t length) {
  if (offset + length > size || offset + length < offset)
    throw std::out_of_range(std::string(name()) + ": load of " + std::to_string(length) + " bytes at " + to_hex(offset) +
                            " is outside the memory");
  auto* src = static_cast<const uint8_t*>(data);
  while (length) {
    const uint64_t in_page = offset & (page_size - 1);
    const uint64_t n = std::min(length, page_size - in_page);
    std::memcpy(page(offset >> page_bits, true) + in_page, src, n);
    offset += n;
    src += n;
    length -= n;
  }
}

void sparse_memory::fill(uint64_t offset, uint8_t byte, uint64_t length) {
  if (offset + length > size || offset + length < offset) throw std::out_of_range(std::string(name()) + ": fill outside the memory");
  while (length) {
    const uint64_t in_page = offset & (page_size - 1);
    const uint64_t n = std::min(length, page_size - in_page);
    std::memset(page(offset >> page_bits, true) + in_page, byte, n);
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
    if (const uint8_t* p = page(offset >> page_bits, false))
      std::memcpy(dst, p + in_page, n);
    else
      std::memset(dst, 0, n);
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
  if (e && e->dmi_shadow)
    ++dmi_accesses;  // the initiator moves the data through its DMI pointer
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
  // One host page at a time: pages are separate allocations.
  const uint64_t base = addr & ~(page_size - 1);
  d.set_dmi_ptr(page(addr >> page_bits, true));
  d.set_start_address(base);
  d.set_end_address(std::min<uint64_t>(base + page_size, size) - 1);
  d.allow_read_write();
  d.set_read_latency(read_latency.get());
  d.set_write_latency(write_latency.get());
  ++dmi_grants;
  return true;
}

}  // namespace gpuvp
