// SPDX-License-Identifier: Apache-2.0
// Sparse memory: page-granular allocation, so a 1 TiB address space costs only the pages that
// were written. Untouched pages read as zero. A page lives in one of two forms. Until an initiator
// asks for DMI it is a table of 256-byte blocks, each allocated on its first write and packed in
// touch order, so host memory follows the bytes touched even when the accesses are scattered (a
// 4 KiB host page holds 16 blocks). On its first DMI grant the page becomes one contiguous 64 KiB
// host page (its blocks copied in) and stays so for the memory's life, as does the DMI pointer.
// Both forms are carved from arenas of anonymous memory (mmap): the kernel zeroes each 4 KiB host
// page on its first touch, so nothing is cleared up front. Grants DMI per page (host pointer plus
// latencies) and can revoke it; backdoor load/peek for images and tests. An access made through a
// DMI pointer still sends its transaction (gpu_ext::dmi_shadow): timed and counted as any other,
// the data not copied here.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>
#include "gpuvp/config.h"
#include "gpuvp/stats.h"
#include "gpuvp/timing.h"

namespace gpuvp {

class sparse_memory : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<sparse_memory> in{"in"};

  param<uint64_t> size{this, "size", uint64_t(1) << 30, "bytes of address space", 1, uint64_t(1) << 48};
  param<sc_core::sc_time> read_latency{this, "read_latency", 20_ns, "latency of a read", sc_core::SC_ZERO_TIME, 1_s};
  param<sc_core::sc_time> write_latency{this, "write_latency", 20_ns, "latency of a write", sc_core::SC_ZERO_TIME, 1_s};
  param<bool> dmi{this, "dmi", true, "grant DMI (direct host pointers) to initiators"};

  counter reads{this, "reads", "read transactions"};
  counter writes{this, "writes", "write transactions"};
  counter bytes_read{this, "bytes_read", "bytes read"};
  counter bytes_written{this, "bytes_written", "bytes written"};
  counter dmi_grants{this, "dmi_grants", "DMI regions granted"};
  counter dmi_accesses{this, "dmi_accesses", "accesses whose data moved through a DMI pointer (counted in reads/writes too)"};
  counter errors{this, "errors", "accesses outside the memory"};
  gauge pages_allocated{this, "pages_allocated", "host pages allocated (64 KiB each)", [this] { return double(pages_.size()); }};

  static constexpr uint64_t page_bits = 16;
  static constexpr uint64_t page_size = uint64_t(1) << page_bits;

  explicit sparse_memory(sc_core::sc_module_name name);
  ~sparse_memory() override;

  // Backdoor access (no timing, no statistics). Throws std::out_of_range outside the memory.
  void load(uint64_t offset, const void* data, uint64_t length);
  void peek(uint64_t offset, void* data, uint64_t length) const;
  void fill(uint64_t offset, uint8_t byte, uint64_t length);
  void load_file(const std::string& file, uint64_t offset);  // throws std::runtime_error
  uint32_t read32(uint64_t offset) const {
    uint32_t v;
    peek(offset, &v, 4);
    return v;
  }
  void write32(uint64_t offset, uint32_t v) { load(offset, &v, 4); }

  // Bytes of host storage handed out (blocks, block tables and contiguous pages; each 4 KiB host
  // page of them becomes resident on its first touch). Not a statistic: the host's cost.
  uint64_t host_bytes() const { return units_used_ << block_bits; }

  // Withdraws every DMI pointer handed out (initiators fall back to b_transport).
  void revoke_dmi();

  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& gp);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);

 private:
  // Host storage: 256-byte units carved in order from arenas of 2^18 units (64 MiB of address
  // space each, reserved, not committed). Unit index 0 means "none".
  static constexpr uint64_t block_bits = 8;
  static constexpr uint64_t block_size = uint64_t(1) << block_bits;
  static constexpr uint64_t blocks_per_page = page_size / block_size;
  static constexpr uint64_t arena_bits = 18;
  struct page_entry {
    uint8_t* dense = nullptr;   // the contiguous 64 KiB page, once DMI was granted
    uint32_t* table = nullptr;  // else: unit index of each block (0: never written, reads zero)
  };
  uint8_t* unit(uint32_t index) const { return arenas_[index >> arena_bits] + (uint64_t(index & ((1u << arena_bits) - 1)) << block_bits); }
  uint32_t allocate_units(uint64_t n, uint64_t align) const;  // zeroed (fresh anonymous memory)
  page_entry* entry(uint64_t page_number, bool allocate) const;
  uint8_t* dense_page(uint64_t page_number) const;  // the page in its contiguous form (made so if needed)
  // Copies within one page: to it (allocating blocks) or from it (absent blocks read zero).
  void write_in_page(page_entry& p, uint64_t page_base, uint64_t in_page, const uint8_t* src, uint64_t n);
  void read_in_page(const page_entry* p, uint64_t page_base, uint64_t in_page, uint8_t* dst, uint64_t n) const;
  // The last contiguous host storage an access went through (a block, or a contiguous page):
  // accesses that fall inside it again copy at once. Forgotten when a page changes form.
  void remember_span(uint64_t base, uint64_t length, uint8_t* host) const {
    span_base_ = base;
    span_length_ = length;
    span_host_ = host;
  }
  bool copy(tlm::tlm_generic_payload& gp);
  mutable std::unordered_map<uint64_t, page_entry> pages_;  // nodes stay put: entries may be cached
  mutable std::vector<uint8_t*> arenas_;
  mutable uint64_t arena_used_ = 0;  // units of the last arena handed out
  mutable uint64_t units_used_ = 0;  // units handed out in all arenas
  mutable uint64_t last_page_ = ~uint64_t(0);
  mutable page_entry* last_entry_ = nullptr;
  mutable uint64_t span_base_ = 0;
  mutable uint64_t span_length_ = 0;  // 0: none
  mutable uint8_t* span_host_ = nullptr;
};

}  // namespace gpuvp
