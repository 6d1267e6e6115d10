// SPDX-License-Identifier: Apache-2.0
// asc_cache: the ASC's L1 data cache. Physically indexed and tagged, write-back, write-allocate,
// LRU, and not coherent with the AP: the AP's stores to DRAM do not touch it and its dirty lines
// stay invisible until cleaned. It sits behind the ASC's UAT views (fw, ppl): the leaf PTE's
// AttrIndex (uat::xlat_ext) decides per access: 0 (Normal) cached, anything else (Device, Shared =
// uncached) straight to the fabric. Geometry and latencies are our choice. See docs/models/asc.md.
//
// Sockets:
//   in   target: translated ASC accesses from the UAT (asc_out). Without an xlat_ext (table walks)
//        or with AttrIndex != 0: passed on uncached. An access carrying an asc_maint extension is a
//        maintenance operation on its (page-sized, translated) range instead: no data moves to the
//        initiator. DMI and debug accesses pass through (debug reads see DRAM, not the cache).
//        A dirty line remembers the view, slot and VA of the store that dirtied it: with
//        detect_stale and `mapping` set, a write-back (eviction or clean) of a line whose VA no
//        longer maps its PA is a stale write-back (the line overwrites the page's next owner).
//   out  initiator: to the AXI2AF bridge (line fills, write-backs, uncached accesses).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include "gpuvp/config.h"
#include "gpuvp/stats.h"

namespace gpuvp::asc {

enum class maint_op : uint8_t { invalidate, clean, clean_invalidate };

// Marks a transaction as cache maintenance by VA (the UAT translates it like an access).
struct asc_maint : tlm::tlm_extension<asc_maint> {
  maint_op op = maint_op::invalidate;
  tlm::tlm_extension_base* clone() const override { return new asc_maint(*this); }
  void copy_from(const tlm::tlm_extension_base& o) override { *this = static_cast<const asc_maint&>(o); }
};

// A cached read hit on a clean line whose bytes differ from DRAM at that moment, or a write-back
// of a dirty line whose VA no longer maps its PA (va, slot, view: the store that dirtied it).
struct stale_read {
  uint64_t va = 0, pa = 0;
  unsigned slot = 0, view = 0;
  sc_core::sc_time when;
};

class asc_cache : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<asc_cache> in{"in"};
  tlm_utils::simple_initiator_socket<asc_cache> out{"out"};

  // --- parameters ---
  param<uint64_t> line_size{this, "line_size", 64, "bytes per line (a power of two)", 16, 256};
  param<uint64_t> sets{this, "sets", 64, "sets (a power of two)", 1, 4096};
  param<uint64_t> ways{this, "ways", 4, "lines per set (LRU)", 1, 16};
  param<bool> enabled{this, "enabled", true, "cache Normal (AttrIndex 0) accesses; false: every access uncached"};
  param<bool> detect_stale{this, "detect_stale", true, "compare every clean read hit with DRAM and count stale reads"};
  param<sc_core::sc_time> hit_latency{this,
                                      "hit_latency",
                                      sc_core::sc_time(1, sc_core::SC_NS),
                                      "time of a hit (and of the lookup of a miss)",
                                      sc_core::SC_ZERO_TIME,
                                      sc_core::sc_time(1, sc_core::SC_MS)};
  param<sc_core::sc_time> maint_latency{this,
                                        "maint_latency",
                                        sc_core::sc_time(1, sc_core::SC_NS),
                                        "time per line of a maintenance operation, besides write-backs",
                                        sc_core::SC_ZERO_TIME,
                                        sc_core::sc_time(1, sc_core::SC_MS)};

  // --- statistics ---
  counter hits{this, "hits", "cached accesses that hit"};
  counter misses{this, "misses", "cached accesses that missed (line fills)"};
  counter writebacks{this, "writebacks", "dirty lines written back (evictions and cleans)"};
  counter invalidations{this, "invalidations", "valid lines dropped by maintenance"};
  counter dirty_dropped{this, "dirty_dropped", "dirty lines dropped by a plain invalidate (their data lost)"};
  counter uncached{this, "uncached", "accesses passed on uncached"};
  counter stale_reads{this, "stale_reads", "cached reads of a clean line that differed from DRAM"};
  counter stale_writebacks{this, "stale_writebacks", "write-backs of a dirty line whose VA no longer maps its PA"};
  counter maint_ops{this, "maint_ops", "maintenance operations (per page-sized piece)"};

  explicit asc_cache(sc_core::sc_module_name name);
  void end_of_elaboration() override;

  // Maintenance by physical range; returns the time taken (call from a thread: write-backs are
  // b_transport calls).
  sc_core::sc_time maintain(maint_op op, uint64_t pa, uint64_t len);
  sc_core::sc_time clean_invalidate_all();
  unsigned dirty_lines() const;
  bool holds(uint64_t pa, bool* dirty = nullptr) const;  // tests
  const stale_read* first_stale() const { return stale_count_ ? &first_stale_ : nullptr; }
  const stale_read* first_stale_writeback() const { return stale_wb_count_ ? &first_stale_wb_ : nullptr; }
  // The PA that (view, slot, va) maps now, or ~0 if none (a debug walk; set by the agx component).
  std::function<uint64_t(unsigned view, unsigned slot, uint64_t va)> mapping;

 private:
  struct line {
    uint64_t tag = 0;  // line address
    bool valid = false, dirty = false;
    uint64_t lru = 0;
    std::vector<uint8_t> data;
    uint64_t wva = 0;  // VA (line-aligned) of the store that dirtied the line, and its slot, view
    unsigned wslot = 0, wview = 0;
  };
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& gp) { return out->transport_dbg(gp); }
  bool get_dmi(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& d) { return out->get_direct_mem_ptr(gp, d); }
  void invalidate_dmi(sc_dt::uint64 s, sc_dt::uint64 e) { in->invalidate_direct_mem_ptr(s, e); }
  line* find(uint64_t line_addr);
  line& fill(uint64_t line_addr, sc_core::sc_time& delay, bool& ok);
  bool write_back(line& l, sc_core::sc_time& delay);
  bool bus(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, unsigned len, sc_core::sc_time& delay);
  void maintain_line(line& l, maint_op op, sc_core::sc_time& delay);

  std::vector<line> lines_;  // sets * ways
  uint64_t line_bytes_ = 64, set_mask_ = 63, tick_ = 0;
  unsigned ways_ = 4;
  uint64_t stale_count_ = 0, stale_wb_count_ = 0;
  stale_read first_stale_, first_stale_wb_;
};

}  // namespace gpuvp::asc
