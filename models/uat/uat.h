// SPDX-License-Identifier: Apache-2.0
// uat: the Apple AGX MMU ("UAT") as a translating TLM module, shared by the GPU and the ASC
// coprocessor: one set of page tables (TTBAT + 16 KiB-granule tables in DRAM) read through three
// views (gpu, fw = ASC EL1, ppl = ASC GL1), each with its own ASID-tagged TLB. See docs/models/uat.md.
//
// Sockets:
//   gpu, fw, ppl  targets (unmapped, multi): accesses at a VA of context slot gpu_ext::vm_context,
//                 translated in that view. The gpu view's accesses and walks go out on gpu_out (the
//                 SoC fabric), the fw/ppl views' on asc_out (the AXI2AF bridge). A denied access
//                 answers a TLM error; a gpu-view fault is latched in FAULT_INFO and raises `fault`.
//                 No DMI is granted on them (translations may go stale: every access translates).
//   tlbi_gpu      target: TLBI broadcast messages (payload with a uat::tlbi_msg extension) for the
//                 GPU's TLB; tlbi_asc: the same for the ASC's (fw, ppl) TLBs, through the bridge.
//   gpu_out, asc_out  initiators: translated accesses and table reads (DMI where granted).
//   regs          the sgx register block (16 MiB): FAULT_INFO at 0x17030.
//   fault         interrupt output, high while FAULT_INFO holds a fault.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include "gpuvp/config.h"
#include "gpuvp/regbank.h"
#include "gpuvp/stats.h"
#include "gpuvp/timing.h"
#include "uat_format.h"
#include "uat_tlb.h"

namespace gpuvp::uat {

// A TLBI as it travels from the AP to the listeners (payload: an 8-byte write of the operand).
struct tlbi_msg : tlm::tlm_extension<tlbi_msg> {
  tlbi_op op = tlbi_op::vmalle1os;
  uint64_t operand = 0;
  tlm::tlm_extension_base* clone() const override { return new tlbi_msg(*this); }
  void copy_from(const tlm::tlm_extension_base& o) override { *this = static_cast<const tlbi_msg&>(o); }
};

// Attached by the UAT to each translated access it passes on (never to its own table reads): the
// leaf descriptor used, so a cache behind it can apply AttrIndex (0 Normal = cached).
struct xlat_ext : tlm::tlm_extension<xlat_ext> {
  uint64_t pte = 0, va = 0;
  unsigned slot = 0;
  uint8_t view = 0;  // uat::view
  tlm::tlm_extension_base* clone() const override { return new xlat_ext(*this); }
  void copy_from(const tlm::tlm_extension_base& o) override { *this = static_cast<const xlat_ext&>(o); }
};

// The first TLB hit on a translation that no longer matches memory, per view.
struct stale_hit {
  unsigned slot = 0;
  uint64_t va = 0, stale_pa = 0, current_pa = 0;  // current_pa 0: the page is no longer mapped
  uint64_t stale_pte = 0, current_pte = 0;
  sc_core::sc_time when;
};

// "view fw slot 0 VA 0x... used PA 0x... (PTE 0x...), memory maps PA 0x... (at 1 us)".
std::string describe(const stale_hit& s, view v);

class uat_mmu : public sc_core::sc_module {
  using target = tlm_utils::multi_passthrough_target_socket<uat_mmu, 32, tlm::tlm_base_protocol_types, 0, sc_core::SC_ZERO_OR_MORE_BOUND>;

 public:
  target gpu{"gpu"}, fw{"fw"}, ppl{"ppl"};
  tlm_utils::simple_target_socket<uat_mmu> tlbi_gpu{"tlbi_gpu"}, tlbi_asc{"tlbi_asc"};
  tlm_utils::simple_initiator_socket<uat_mmu> gpu_out{"gpu_out"}, asc_out{"asc_out"};
  sc_core::sc_out<bool> fault_irq{"fault"};

  // --- parameters ---
  param<uint64_t> ttbat{this, "ttbat", 0x9fff74000ull, "host physical address of the TTBAT (64 slots x {TTB0, TTB1})", 0, ~uint64_t(0)};
  param<uint64_t> handoff{this, "handoff", 0x9fff4c000ull, "host physical address of the uPPL handoff area (our choice)", 0, ~uint64_t(0)};
  param<uint64_t> oas{this, "oas", 40, "output address size in bits (t8103: 40)", 36, 48};
  param<uint64_t> asid_bits{this, "asid_bits", 8, "ASID bits the TLBs compare (Asahi Lina's notes: 8; the fields are 16 bits wide)", 1, 16};
  param<std::string> l12_type0{this, "l12_type0", "table",
                               "a VALID L1/L2 descriptor with TYPE = 0: table (m1n1's walker) or invalid (the kernel's)"};
  param<bool> detect_stale{this, "detect_stale", false, "check every TLB hit against a debug walk and count stale hits (slow)"};
  param<bool> context_cache{this, "context_cache", true,
                            "keep each slot's valid TTBs once read (dropped by vmalle1os and aside1os of their ASID)"};
  param<bool> latch_asc_faults{this, "latch_asc_faults", false, "fw/ppl view faults are latched in the sgx FAULT_INFO too"};
  param<bool> walk_dmi{this, "walk_dmi", true, "read tables through DMI where the memory grants it"};
  param<sc_core::sc_time> hit_latency{this, "hit_latency", 1_ns, "added to every translation (TLB lookup)", sc_core::SC_ZERO_TIME, 1_s};
  param<sc_core::sc_time> walk_latency{this, "walk_latency", 2_ns, "added per walk, besides its table reads", sc_core::SC_ZERO_TIME, 1_s};
  param<sc_core::sc_time> tlbi_latency{this, "tlbi_latency", 10_ns, "time a listener takes to apply a TLBI", sc_core::SC_ZERO_TIME, 1_s};

  // --- registers (sgx block) ---
  register_bank regs{"regs", 0x1000000};
  // ADDR 63:30 (VA >> 6), SIDEBAND 29:23, CONTEXT 22:17, UNIT 16:9, LEVEL 8:7, READ 4, REASON 3:1,
  // FAULTED 0. Writing 1 to bit 0 clears it (our choice).
  reg fault_info{regs, "FAULT_INFO", 0x17030, 8, 0, access::rw};
  using fault_info_faulted = field<0, 1>;
  using fault_info_reason = field<1, 3>;  // the fault enum
  using fault_info_read = field<4, 1>;
  using fault_info_level = field<7, 2>;
  using fault_info_unit = field<9, 8>;
  using fault_info_context = field<17, 6>;  // the slot
  using fault_info_addr = field<30, 34>;    // VA[39:6]

  // --- statistics (per view: "<view>.hits" etc.) ---
  counter faults_latched{this, "faults_latched", "faults latched in FAULT_INFO"};
  counter faults_lost{this, "faults_lost", "faults not latched because FAULT_INFO already held one"};
  counter bad_slot{this, "bad_slot", "accesses with a context slot outside 0..63"};
  counter walk_dmi_reads{this, "walk_dmi_reads", "table reads done through DMI"};
  counter walk_bus_errors{this, "walk_bus_errors", "table reads answered with an error (walk ends as invalid)"};

  struct translation {
    fault f = fault::none;
    unsigned level = 0;
    uint64_t pa = 0, pte = 0;
    bool hit = false;
    bool ok() const { return f == fault::none; }
  };

  explicit uat_mmu(sc_core::sc_module_name name);
  ~uat_mmu() override;

  // Through the view's TLB (fills it; timed: delay accumulates the lookup and any walk); counts
  // statistics, latches nothing. Call from a SystemC thread (walk reads are b_transport calls).
  // Inline: a hit the hint table answers; everything else in translate_slow.
  [[gnu::always_inline]] translation translate(view v, unsigned slot, uint64_t va, access_type a, sc_core::sc_time& delay) {
    hint_table& ht = hints_[size_t(v)];
    const uint64_t page = (va >> page_shift) & vpn_mask;
    const hint& h = ht.h[page & (hint_table::count - 1)];
    if (h.key != (uint64_t(slot) << 32 | page) || h.epoch != ht.epoch) return translate_slow(v, slot, va, a, delay);
    delay += hit_latency.get();
    if (h.stamp) *h.stamp = ++*ht.clock;  // tlb::touch
    ++*ht.hits;
    translation t;
    t.hit = true;
    t.level = 3;
    t.pte = h.pte;
    t.pa = h.pa | (va & (page_size - 1));
    if (!(h.rights & right_needed(a))) t.f = check_rights(h.rights, a), ++*ht.faults;
    return t;
  }
  // A walk of memory only (debug reads, no TLB, no statistics).
  translation translate_debug(view v, unsigned slot, uint64_t va, access_type a);
  // Applies a TLBI to the views of a side (tlbi_gpu: gpu; tlbi_asc: fw and ppl).
  void apply_tlbi(bool asc_side, tlbi_op op, uint64_t operand);
  // Empties a view's TLB and context cache (e.g. the ASC's deep WFI).
  void flush_view(view v);
  const tlb& view_tlb(view v) const;
  // The first stale hit of a view, if any (detect_stale).
  const stale_hit* first_stale(view v) const;
  uint64_t stat(view v, const std::string& name) const;  // "hits", "misses", ... (tests, reports)

  // "uat translate SLOT VA r|w|x gpu|fw|ppl [notlb]": sets reply; delay gets the access's time.
  bool qtest(const std::vector<std::string>& words, std::string& reply, sc_core::sc_time& delay);
  void report(std::ostream& os);
  std::vector<std::string> modelled_errors();

 private:
  struct view_state;
  struct port_state {
    tlm_utils::simple_initiator_socket<uat_mmu>* socket;
    std::vector<tlm::tlm_dmi> dmi;
  };
  void b_transport(view v, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void b_gpu(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& d) { b_transport(view::gpu, gp, d); }
  void b_fw(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& d) { b_transport(view::fw, gp, d); }
  void b_ppl(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& d) { b_transport(view::ppl, gp, d); }
  unsigned dbg_gpu(int, tlm::tlm_generic_payload& gp) { return transport_dbg(view::gpu, gp); }
  unsigned dbg_fw(int, tlm::tlm_generic_payload& gp) { return transport_dbg(view::fw, gp); }
  unsigned dbg_ppl(int, tlm::tlm_generic_payload& gp) { return transport_dbg(view::ppl, gp); }
  void tlbi_gpu_cb(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) { tlbi_transport(false, gp, d); }
  void tlbi_asc_cb(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) { tlbi_transport(true, gp, d); }
  void inval_gpu_dmi(sc_dt::uint64 s, sc_dt::uint64 e) { invalidate_dmi(gpu_port_, s, e); }
  void inval_asc_dmi(sc_dt::uint64 s, sc_dt::uint64 e) { invalidate_dmi(asc_port_, s, e); }
  unsigned transport_dbg(view v, tlm::tlm_generic_payload& gp);
  void tlbi_transport(bool asc_side, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  port_state& port_of(view v) { return v == view::gpu ? gpu_port_ : asc_port_; }
  translation translate_slow(view v, unsigned slot, uint64_t va, access_type a, sc_core::sc_time& delay);
  // Hints (simulation speed only): direct-mapped by page, per view, a copy of the TLB entry a
  // (slot, page) hit last time. Valid only while nothing was inserted, invalidated or re-read
  // since (epoch), so a hint always gives what lookup() would find, and the hit has the same
  // effects (LRU stamp, counters). Not filled with detect_stale or without the context cache.
  struct hint {
    uint64_t key = ~uint64_t(0), epoch = 0;  // slot << 32 | page
    uint64_t pte = 0, pa = 0;                // the leaf; its output address without the page offset
    uint64_t* stamp = nullptr;               // the TLB entry's LRU stamp (nullptr: not LRU)
    uint8_t rights = 0;
  };
  struct hint_table {
    static constexpr unsigned count = 64;
    std::array<hint, count> h{};
    uint64_t epoch = 1;
    uint64_t* clock = nullptr;  // the TLB's use clock
    counter* hits = nullptr;
    counter* faults = nullptr;
  };

  bool read_table(view v, uint64_t addr, uint64_t& value, sc_core::sc_time& delay);
  bool read_debug(view v, uint64_t addr, uint64_t& value);
  bool context(view_state& s, unsigned slot, unsigned half, sc_core::sc_time& delay, uint64_t& ttb);
  void hit(view_state& s, unsigned slot, uint64_t va, access_type a, const tlb::entry& e, translation& t);
  void miss(view_state& s, unsigned slot, uint64_t va, uint64_t ttb, access_type a, sc_core::sc_time& delay, translation& t);
  void check_stale(view_state& s, unsigned slot, uint64_t va, const tlb::entry& e);
  void latch(view v, unsigned slot, uint64_t va, bool write, const translation& t, uint32_t unit);
  void invalidate_dmi(port_state& p, sc_dt::uint64 start, sc_dt::uint64 end);

  walk_config cfg_;
  uint16_t asid_mask_ = 0xff;
  std::array<std::unique_ptr<view_state>, view_count> views_;
  std::array<hint_table, view_count> hints_;
  port_state gpu_port_{&gpu_out, {}}, asc_port_{&asc_out, {}};
  std::vector<std::string> fault_log_;
};

}  // namespace gpuvp::uat
