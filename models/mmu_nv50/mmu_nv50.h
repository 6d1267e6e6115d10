// SPDX-License-Identifier: Apache-2.0
// mmu_nv50: the NV50 MMU as a translating TLM component between the GPU's engines and the
// interconnect (nv50-vm.rst). See docs/models/mmu_nv50.md.
//
// Sockets:
//   in     target (unmapped, multi): engines bind "mmu.in". An access carries gpu_ext vm_engine,
//          vm_client, dma_slot (= DMA object selector), dma_bind (the slot's selector-rewrite
//          generation), vm_context (= 30-bit channel descriptor), channel and priv; its address is
//          the offset within the DMA object. dma_slot == gpu_ext::none is a linear access: the
//          address is a host physical address, passed on.
//          DMI (grant_dmi): get_direct_mem_ptr translates the address with the request's gpu_ext
//          and grants a region in the LOGICAL address space (DMA object offsets) of that one page
//          or contig block. CONTRACT: a region is valid only for the side band it was asked with
//          (vm_engine, vm_client, dma_slot, dma_bind, vm_context, priv); an initiator keeps it
//          together with that side band and uses it for nothing else. Every invalidation from
//          mmu.in covers the whole address space: drop every region obtained from it.
//   out    initiator to the interconnect: translated accesses, DMA object and page-table reads.
//   regs   BAR0 0x100000-0x101fff: TLB flush and fault registers.
//   fault  interrupt output, high while a fault is latched in FAULT_STATUS.
// Translated linear addresses go to VRAM at vram_base + (linear & 0xffffffff), SYSRAM at linear.
#pragma once
#include <array>
#include <cstddef>
#include <cstring>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include "gpuvp/config.h"
#include "gpuvp/extension.h"
#include "gpuvp/regbank.h"
#include "gpuvp/registry.h"
#include "gpuvp/stats.h"
#include "gpuvp/timing.h"
#include "nv50_tlb.h"
#include "nv50_vm.h"

namespace gpuvp::mmu_nv50 {

class mmu_nv50 : public sc_core::sc_module, public gpuvp::component {
 public:
  tlm_utils::multi_passthrough_target_socket<mmu_nv50, 32, tlm::tlm_base_protocol_types, 0, sc_core::SC_ZERO_OR_MORE_BOUND> in{"in"};
  tlm_utils::simple_initiator_socket<mmu_nv50> out{"out"};
  sc_core::sc_out<bool> fault_irq{"fault"};

  // --- parameters ---
  gpuvp::param<std::string> gpu{this, "generation", "G84", "GPU generation: NV50, G84 (G86..G200, MCP77/79), GT215 (GT216/218), MCP89"};
  gpuvp::param<uint64_t> vram_base{this, "vram_base", 0x200000000, "host physical address of VRAM linear address 0", 0, ~uint64_t(0)};
  gpuvp::param<uint64_t> tlb_entries{this, "tlb_entries", 64, "entries per engine TLB (power of two)", 1, 65536};
  gpuvp::param<uint64_t> tlb_ways{this, "tlb_ways", 4, "ways per TLB set (power of two, <= tlb_entries)", 1, 65536};
  gpuvp::param<std::string> tlb_policy{this, "tlb_policy", "lru", "TLB replacement: lru, fifo or random"};
  gpuvp::param<uint64_t> tlb_seed{this, "tlb_seed", 1, "seed of the random replacement policy", 0, ~uint64_t(0)};
  gpuvp::param<sc_core::sc_time> hit_latency{
      this, "hit_latency", 1_ns, "added to every translated access (TLB lookup)", sc_core::SC_ZERO_TIME, 1_s};
  gpuvp::param<sc_core::sc_time> miss_latency{
      this, "miss_latency", 2_ns, "added on a TLB miss, besides the walk's own memory reads", sc_core::SC_ZERO_TIME, 1_s};
  gpuvp::param<sc_core::sc_time> flush_latency{
      this, "flush_latency", 200_ns, "time from a TLB flush write until TLB_FLUSH bit 0 reads 0", sc_core::SC_ZERO_TIME, 1_s};
  gpuvp::param<bool> dmaobj_cache{this, "dmaobj_cache", true, "engines keep their most recently bound DMA object (per engine and client)"};
  gpuvp::param<std::string> pde_bit4{this, "pde_bit4", "ignore",
                                     "PDE bit 4 (undocumented: ??? in envytools): ignore, or fault RESERVED_BITS"};
  gpuvp::param<std::string> pte_bits12{this, "pte_bits12", "ignore",
                                       "PTE bits 1-2 (undocumented: ??? in envytools): ignore, or fault RESERVED_BITS"};
  gpuvp::param<bool> user_super_dmaobj_faults{this, "user_super_dmaobj_faults", true,
                                              "a user access through a supervisor DMA object (word 0 bit 31) faults SUPERVISOR"};
  gpuvp::param<bool> comp_vram_only{this, "comp_vram_only", true, "compression is forced to none on SYSRAM targets"};
  gpuvp::param<bool> limit_inclusive{this, "limit_inclusive", false,
                                     "DMA object limit is the last valid byte (nouveau) instead of envytools' base+addr >= limit fault"};
  gpuvp::param<bool> check_engine{this, "check_engine", true, "an engine id absent on this generation faults INVALID_ENGINE"};
  gpuvp::param<bool> grant_dmi{this, "grant_dmi", true,
                               "grant DMI on in: translated pages in DMA object offsets, linear accesses as downstream"};

  // --- registers (BAR0 0x100000 + offset) ---
  gpuvp::register_bank regs{"regs", 0x2000};
  gpuvp::reg tlb_flush{regs, "TLB_FLUSH", 0xc80, 4, 0, gpuvp::access::rw, 0x000f0001};  // 0: trigger/busy, 16-19: engine
  gpuvp::reg fault_status{regs, "FAULT_STATUS",     0xc90, 4,
                          0,    gpuvp::access::w1c, 0x3};  // 0 pending (W1C), 1 overflow, 8-15 reason, 16 write, 17 user, 18 paged
  gpuvp::reg fault_source{regs, "FAULT_SOURCE", 0xc94, 4, 0, gpuvp::access::ro};      // 0-3 engine, 8-15 client
  gpuvp::reg fault_selector{regs, "FAULT_SELECTOR", 0xc98, 4, 0, gpuvp::access::ro};  // DMA object selector
  gpuvp::reg fault_channel{regs, "FAULT_CHANNEL", 0xc9c, 4, 0, gpuvp::access::ro};    // PFIFO channel id
  gpuvp::reg fault_chandesc{regs, "FAULT_CHANDESC", 0xca0, 4, 0, gpuvp::access::ro};  // 30-bit channel descriptor
  gpuvp::reg fault_addr_lo{regs, "FAULT_ADDR_LO", 0xca4, 4, 0, gpuvp::access::ro};    // logical address 0-31
  gpuvp::reg fault_addr_hi{regs, "FAULT_ADDR_HI", 0xca8, 4, 0, gpuvp::access::ro};    // logical address 32-63
  // Register bit fields (gpuvp::field<lsb, width>).
  using tlb_flush_trigger = gpuvp::field<0, 1>;  // write 1: flush; reads 1 while busy
  using tlb_flush_engine = gpuvp::field<16, 4>;
  using fault_pending = gpuvp::field<0, 1>;
  using fault_overflow = gpuvp::field<1, 1>;
  using fault_reason = gpuvp::field<8, 8>;
  using fault_write = gpuvp::field<16, 1>;
  using fault_user = gpuvp::field<17, 1>;
  using fault_paged = gpuvp::field<18, 1>;
  using fault_source_engine = gpuvp::field<0, 4>;
  using fault_source_client = gpuvp::field<8, 8>;
  gpuvp::reg fault_count{regs, "FAULT_COUNT", 0xcac, 4, 0, gpuvp::access::ro};  // faults since reset (saturates)

  static constexpr uint64_t bar0_offset = 0x100000;

  // --- statistics (per engine ones are "<engine>.hits" etc., for engines of the generation) ---
  // translations and dmaobj_hits are read from plain counts (translations_ is also the TLBs'
  // LRU clock): the micro-TLB hit then updates one word for both.
  gpuvp::gauge translations{this, "translations", "translated accesses (all engines)",
                            [this] { return double(translations_ - grant_translations_); }};
  gpuvp::counter linear_accesses{this, "linear_accesses", "untranslated (dma_slot none) accesses passed through"};
  gpuvp::counter flushes{this, "flushes", "TLB flushes through TLB_FLUSH"};
  gpuvp::counter dmaobj_loads{this, "dmaobj_loads", "DMA objects read from memory"};
  gpuvp::gauge dmaobj_hits{this, "dmaobj_hits", "accesses that used the engine's cached DMA object",
                           [this] { return double(translations_ - grant_translations_ - dmaobj_misses_); }};
  gpuvp::counter evictions{this, "evictions", "valid TLB entries replaced"};
  gpuvp::counter walk_dmi_reads{this, "walk_dmi_reads", "DMA object/page-table reads done through DMI"};
  gpuvp::counter faults{this, "faults", "faults (all kinds)"};
  gpuvp::counter dmi_grants{this, "dmi_grants", "DMI regions granted on in"};
  gpuvp::counter dmi_invalidations{this, "dmi_invalidations", "invalidations of all regions granted on in"};

  explicit mmu_nv50(sc_core::sc_module_name name);
  ~mmu_nv50() override;

  // component
  sc_core::sc_module& module() override { return *this; }
  std::vector<target_port> targets() override;
  std::vector<initiator_port> initiators() override { return {{"out", &out, "interconnect"}}; }
  std::vector<irq_port> irqs() override { return {{"fault", &fault_irq}}; }
  bool qtest(const std::vector<std::string>& words, std::string& reply) override;
  void report(std::ostream& os) override;
  std::vector<std::string> modelled_errors() override;

  // Direct API (tests, PFIFO): translate through the engine's TLB, timed (delay accumulates the
  // walk). Latches no fault registers; b_transport does.
  [[gnu::always_inline]] translation translate(const vm_access& a, sc_core::sc_time& delay) {
    const micro_entry* m = micro_find(a);
    return m ? micro_hit(*m, a, delay) : translate_slow(a, delay);  // each builds the result in place
  }
  // Stateless translation with debug (untimed) memory reads: no TLB, no statistics.
  translation translate_debug(const vm_access& a);
  // Host physical address of a linear address.
  uint64_t host_address(target t, uint64_t linear) const;
  // Drops an engine's TLB entries and cached DMA objects at once (no busy time).
  void flush_engine(uint32_t engine);
  // A DMA slot was rebound: the engine/client's cached DMA object is dropped (accesses through
  // the socket do this themselves when gpu_ext::dma_bind changes).
  void rebind(uint32_t engine, uint32_t client);
  const tlb& engine_tlb(uint32_t engine) const { return tlbs_.at(engine & 0xf); }
  uint64_t fault_count_of(fault f) const;

  void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned transport_dbg(int id, tlm::tlm_generic_payload& gp);
  bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);

 private:
  struct engine_stats;
  // Micro-TLB (simulation speed only): direct-mapped by logical page, keyed on (channel, selector,
  // engine, client, bind), it holds a TLB hit's result for a whole block so that a repeated hit
  // skips the DMA object check, the set search and the attribute merge. It answers only while
  // nothing flushed, evicted a TLB entry, or dropped or reloaded a DMA object since it was filled
  // (epoch_), so it always gives what the TLB would, with the same timing and statistics.
  struct alignas(64) micro_entry {
    uint64_t who = ~uint64_t(0);  // engine | client << 32 (all ones: empty), as in vm_access
    uint64_t where = 0;           // chandesc | selector << 32, as in vm_access
    uint64_t bind_epoch = 0;      // dma_bind << 32 | epoch_ (32 bits) when filled
    uint16_t deny = 0;            // check_access outcome: 0x0001 writes, 0x0100 user accesses take the slow path
    uint8_t shift = 12, order = 0;
    uint64_t lo = 0, len = 0;      // logical first bytes in the block and within the limit: address - lo < len
    uint64_t end = 0;              // one past the last logical byte within the DMA object's limit
    uint64_t base = 0, vbase = 0;  // DMA object base; the block's first virtual address
    uint64_t* stamp = nullptr;     // the TLB entry's LRU stamp (nullptr: not LRU), as tlb::touch
    result r0;                     // the result at vbase
  };
  struct cached_dmaobj {
    bool valid = false;
    uint32_t chandesc = 0, selector = 0, bind = 0;
    dmaobj d;
  };
  static constexpr unsigned micro_entries = 256;
  static constexpr unsigned clients = 32;

  // The micro-TLB compares the access's fields as they lie in vm_access (engine, client;
  // chandesc, selector; write, user), eight and two bytes at a time.
  static uint64_t load64(const void* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  static uint16_t load16(const void* p) {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  static unsigned micro_index(const vm_access& a) { return unsigned(((a.address >> 12) + (a.engine << 4)) & (micro_entries - 1)); }
  // The micro entry that answers `a` (inline: the fast path), or nullptr.
  const micro_entry* micro_find(const vm_access& a) const;
  // The TLB hit it serves, with all the effects of one.
  translation micro_hit(const micro_entry& m, const vm_access& a, sc_core::sc_time& delay);
  // Everything else: the DMA object, the TLB, the walk, fault counting.
  translation translate_slow(const vm_access& a, sc_core::sc_time& delay);
  // The whole translation without counting its fault (translate() counts it, a DMI request not).
  void translate_uncounted(const vm_access& a, sc_core::sc_time& delay, translation& t);
  bool mem_read(target t, uint64_t linear, void* data, unsigned len, sc_core::sc_time& delay);
  bool mem_read_debug(target t, uint64_t linear, void* data, unsigned len);
  void lookup_or_walk(const vm_access& a, const dmaobj& d, sc_core::sc_time& delay, translation& t);
  void fill_micro(const vm_access& a, const dmaobj& d, const tlb::entry* e, const translation& t);
  void count_fault(fault f);
  void drop_micro() {
    if (uint32_t(++epoch_) == 0) {  // 32 bits are kept in the entries: never meet an old value
      micro_.fill(micro_entry{});
      epoch_ = 1;
    }
  }
  void invalidate_dmi(sc_dt::uint64 start, sc_dt::uint64 end);
  // Drops every DMI region granted on `in` (when engine `engine`, or any with gpuvp::gpu_ext::none,
  // holds one): a TLB entry, DMA object or downstream region behind it may have changed.
  void invalidate_grants(uint32_t engine);
  void forward(tlm::tlm_generic_payload& gp, const gpuvp::gpu_ext& e, sc_core::sc_time& delay);
  void latch_fault(const gpuvp::gpu_ext& e, uint64_t address, bool write, bool paged, fault f);
  static void answer_fault(tlm::tlm_generic_payload& gp, fault f);

  options opt_;
  read_fn timed_read_;  // mem_read into *walk_delay_ (built once)
  sc_core::sc_time* walk_delay_ = nullptr;
  uint32_t engine_mask_ = 0;  // engines accepted (all 16 when check_engine is off)
  std::array<tlb, engine::count> tlbs_;
  std::array<std::unique_ptr<engine_stats>, engine::count> estats_;
  std::vector<std::unique_ptr<gpuvp::counter>> fault_kinds_;  // by fault code
  std::vector<cached_dmaobj> dmaobjs_;                        // engine * clients + client
  std::array<micro_entry, micro_entries> micro_{};
  uint64_t translations_ = 0;                   // translations so far; the engines' TLBs stamp with it (LRU/FIFO clock)
  uint64_t dmaobj_misses_ = 0;                  // translations that used no cached DMA object
  uint64_t grant_translations_ = 0;             // translations_ made by DMI grants (not in the statistics)
  std::array<uint64_t, engine::count> hits_{};  // TLB hits per engine (<engine>.hits)
  uint64_t epoch_ = 1;                          // bumped when micro entries become void (drop_micro)
  std::vector<tlm::tlm_dmi> dmi_;               // regions granted to the walker
  uint32_t dmi_engines_ = 0;                    // engines holding regions granted on in (bit 16: linear)
  sc_core::sc_time flush_done_ = sc_core::SC_ZERO_TIME;
  std::vector<std::string> fault_log_;  // first faults, for modelled_errors
};

[[gnu::always_inline]] inline const mmu_nv50::micro_entry* mmu_nv50::micro_find(const vm_access& a) const {
  static_assert(offsetof(vm_access, client) == offsetof(vm_access, engine) + 4 &&
                    offsetof(vm_access, selector) == offsetof(vm_access, chandesc) + 4 &&
                    offsetof(vm_access, user) == offsetof(vm_access, write) + 1,
                "micro-TLB field loads");
  const micro_entry& m = micro_[micro_index(a)];
  // An engine id >= 16 never matches: entries are only filled for valid engines.
  if (m.who != load64(&a.engine) || m.where != load64(&a.chandesc) || m.bind_epoch != (uint64_t(a.bind) << 32 | uint32_t(epoch_)) ||
      a.address - m.lo >= m.len || a.address + a.size > m.end || (load16(&a.write) & m.deny))
    return nullptr;
  return &m;
}

// The micro-TLB hit: exactly what the slow path does on a TLB hit (delay, counters, LRU touch,
// result), from the copy of the block's result.
[[gnu::always_inline]] inline translation mmu_nv50::micro_hit(const micro_entry& m, const vm_access& a, sc_core::sc_time& delay) {
  delay += hit_latency.get();
  const uint64_t now = ++translations_;  // also counts the DMA object hit (dmaobj_hits)
  if (m.stamp) *m.stamp = now;           // tlb::touch
  ++hits_[a.engine & 0xf];
  const uint64_t virt = m.base + a.address, boff = virt - m.vbase;
  translation t{m.r0, virt, m.shift, m.order, fault::none, true};
  t.r.linear = (m.r0.linear + boff) & 0xffffffffffull;
  if (m.r0.comp != comp_mode::none) t.r.tag = uint16_t((m.r0.tag + (boff >> 16) * (m.r0.comp == comp_mode::dbl ? 2 : 1)) & 0xfff);
  return t;
}

}  // namespace gpuvp::mmu_nv50
