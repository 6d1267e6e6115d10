// SPDX-License-Identifier: Apache-2.0
// One SM (GPGPU-Sim's shader_core_ctx), trace driven: per cycle writeback, execute, operand
// collection, issue (the order GPGPU-Sim's cycle() uses, so a stage sees last cycle's state of the
// stage after it). Warp schedulers (LRR, GTO, two-level), a scoreboard on destination registers,
// an operand collector with register-bank conflicts, the execute stage of fu.h, and an LDST unit
// with shared memory and an L1 data cache whose misses go out through a mem_port.
// Pure C++; the SystemC compute engine (compute.h) drives it.
#pragma once
#include <array>
#include <bitset>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/mem_port.h"  // the GPU memory system's port (models/gpu_memory)
#include "fu.h"
#include "gpu_config.h"
#include "trace.h"

namespace gpuvp::sm {

using gpu_memory::mem_client;  // the memory system's port (models/gpu_memory/core/mem_port.h)
using gpu_memory::mem_port;
using gpu_memory::mem_stats;

// Scheduler stall causes (per scheduler per cycle without an issue).
enum class stall_cause : unsigned { idle, scoreboard, pipeline, barrier, n };

struct sm_stats {
  uint64_t cycles = 0, active_cycles = 0, warp_insts = 0, thread_insts = 0;
  uint64_t sched_stalls[unsigned(stall_cause::n)] = {};
  uint64_t result_bus_stalls = 0, dispatch_stalls = 0, bank_conflicts = 0;
  // L1D, per 32-byte sector as GPGPU-Sim counts (cache_stats::get_sub_stats): accesses, loads
  // and stores alike, = hits + pending hits + misses; reservation fails per cause (l1_fail); the
  // store sectors among the accesses (written through).
  uint64_t l1_accesses = 0, l1_hits = 0, l1_pending_hits = 0, l1_misses = 0, l1_write_accesses = 0;
  uint64_t l1_fails[4] = {};               // by l1_fail cause
  uint64_t mem_reads = 0, mem_writes = 0;  // requests sent to the memory side (sectors; segments or lines into a non-sectored L2)
  uint64_t l1_reservation_fails() const { return l1_fails[0] + l1_fails[1] + l1_fails[2] + l1_fails[3]; }
  uint64_t smem_accesses = 0, smem_bank_conflict_cycles = 0;
  // L1I (-gpgpu_perfect_inst_const_cache 0): fetch accesses = hits + misses; misses include the
  // MSHR hits (merged into a pending line), as GPGPU-Sim counts INST_ACC_R.
  uint64_t l1i_accesses = 0, l1i_hits = 0, l1i_misses = 0, l1i_mshr_hits = 0;
  uint64_t ctas_done = 0;
  std::vector<std::pair<std::string, uint64_t>> unit_issued, unit_active;  // per unit name
  void merge(const sm_stats& o);
};

class ldst_unit;
struct l1_tags;
struct inst_cache;

class sm_core {
 public:
  // `l1`: the L1D tag state to use (kept across kernels by gpu_sim); null: the SM's own.
  sm_core(const gpu_config& cfg, unsigned id, mem_port* mem, l1_tags* l1 = nullptr);
  ~sm_core();
  sm_core(const sm_core&) = delete;
  sm_core& operator=(const sm_core&) = delete;

  // CTAs of `k` this SM can hold at once (threads, registers, shared memory, CTA slots); 0 if
  // one CTA does not fit (the caller reports it).
  static unsigned max_ctas(const gpu_config& cfg, const kernel_header& k);
  bool can_take_cta() const;
  // CTA `cta_index` of kernel `k`, held until its last warp has finished.
  void launch_cta(const kernel_header& k, std::shared_ptr<const trace_cta> cta, unsigned cta_index);
  void cycle();
  bool active() const { return live_ctas_ > 0; }
  uint64_t now() const { return cycle_; }
  // The GPU cycle of this SM's cycle 0: memory-side requests carry GPU cycles, so that the
  // memory system (which outlives kernels) sees one time line.
  void set_mem_base(uint64_t gpu_cycle) { mem_base_ = gpu_cycle; }
  uint64_t mem_base() const { return mem_base_; }
  unsigned id() const { return id_; }
  sm_stats stats() const;
  // Monotonic count of issued instructions (progress watchdog).
  uint64_t issued() const { return st_.warp_insts; }
  // Called with (cta_index) when a CTA finishes.
  std::function<void(unsigned)> on_cta_done;
  // Idle-cycle skip (on by default; gpu_sim::skip_idle_cycles): after a cycle in which nothing
  // but counters changed (every warp waiting on the scoreboard or a barrier, pipelines empty, the
  // LDST unit idle or retrying an access that failed for want of an MSHR), the following cycles
  // only repeat those counts until the LDST unit has an event due or a CTA is launched. The
  // statistics are the same either way (tests/sm/core_exact_test.cpp).
  bool skip_idle = true;
  // Whole-SM sleep (gpu_sim): after cycle(), the next cycle in which cycle() must run; the
  // cycles before it only repeat the last cycle's counts (the idle-cycle skip with the LDST unit
  // asleep too, or no warp at all), unless the memory answers an access first (it lowers
  // *wake_slot through wake_by) or a CTA arrives (the caller wakes it). idle_cycles(n) applies n
  // such cycles at once, exactly as n calls of cycle() would.
  uint64_t sleep_until() const;
  void idle_cycles(uint64_t n);
  void set_wake_slot(uint64_t* slot) { wake_slot_ = slot; }
  void wake_by(uint64_t sm_cycle) {
    if (wake_slot_ && *wake_slot_ > sm_cycle) *wake_slot_ = sm_cycle;
  }
  // Called when a warp issues an instruction (sampled Perfetto spans), may be empty.
  std::function<void(unsigned sm, unsigned warp, uint16_t opcode, uint64_t cycle)> on_issue;
  // Called when a warp starts (its CTA's launch) or ends (its last instruction wrote back), may be
  // empty (Perfetto spans): warp slot, CTA index, warp within the CTA, start or end.
  std::function<void(unsigned slot, unsigned cta, unsigned warp, bool start)> on_warp;

 private:
  friend class ldst_unit;
  enum : uint8_t { sb_unknown, sb_blocked, sb_clear };
  struct warp_state {
    // 32 bytes, two to a cache line: every issue scan reads them.
    bool live = false, exited = false, at_barrier = false;
    // The scoreboard's answer for the instruction at `next` (checkCollision), kept until it can
    // change: a collision until one of the warp's instructions writes back, no collision until
    // the warp issues. `unit`: that instruction's unit, known once the answer is.
    uint8_t sb = sb_unknown;
    op_class unit = op_class::intp;
    uint8_t ibuf = 0;  // decoded instructions ready to issue (instruction buffer, at most 2)
    uint16_t cta_slot = 0;
    uint32_t pending = 0;  // issued instructions not yet written back (the warp ends at 0 once exited)
    uint32_t next = 0;
    uint32_t size = 0;  // its trace's instruction count (checked at launch to fit)
    // Lanes that have not executed an EXIT yet (shd_warp_t's active threads): its threads in the
    // block at launch; an EXIT clears its active lanes, the warp is done at 0 (functional_done).
    uint32_t lanes_left = 0;
    const trace_inst* insts = nullptr;  // its trace's instructions
  };
  // Per warp slot, apart from warp_state so that issue scans touch little memory.
  struct warp_regs {
    // Scoreboard: R0-R255, UR0-UR255 with a pending write. A bit, not a count: an instruction
    // never issues while one of its destinations is reserved, so only one instruction (its
    // destinations all set and released together) holds a register. One cache line per warp.
    std::bitset<512> reserved;
    std::bitset<512> longop;  // registers a global/local load in flight will write (Scoreboard::longopregs)
  };
  struct cta_state {
    bool live = false;
    unsigned index = 0, warps = 0, warps_done = 0, at_barrier = 0, exited = 0;
    std::shared_ptr<const trace_cta> trace;  // released when the CTA finishes (its addresses, instructions)
  };
  struct collector_unit {
    // The fields every collector step scans first (one cache line with the start of inst).
    bool busy = false;
    unsigned sched = 0;
    unsigned pending_reads = 0;
    register_set* out = nullptr;
    warp_inst inst;
  };
  struct read_req {
    unsigned cu, bank;
  };

  // The counters a repeated idle cycle adds (see skip_idle).
  struct idle_counts {
    uint64_t sched_stalls[unsigned(stall_cause::n)] = {};
    uint64_t dispatch_stalls = 0, l1_fails[4] = {}, ldst_active = 0;
    uint64_t l1_made = 0;  // L1 accesses (loads and stores) and shared accesses made (snapshot only)
  };
  // The constructor's parts
  void init_warps();
  void build_pipeline(l1_tags* l1);
  void init_collectors();
  void make_sets(op_class c, unsigned id_oc_w, unsigned oc_ex_w, const std::string& n);
  void add_units(op_class c, unsigned count, unsigned depth, const std::string& n);
  idle_counts idle_snapshot() const;
  void full_cycle();
  void front_end();
  void end_ldst_cycle(const idle_counts& before, bool due, const std::array<uint64_t, 3>& state, bool fresh);
  void idle_cycle();
  void writeback();
  void read_operands();
  void collector_step();
  bool collector_idle() const;  // a collector step would only end its bank write allocations
  void dispatch_ready_cus();    // collector_step's parts, in order
  void allocate_reads();
  void allocate_cus();
  bool allocate_cu_from(register_set& in);
  void fetch_decode();
  void fetch_decoded(unsigned wi);  // mem_port::decoded of warp wi's instruction fetch
  // fetchable_ bit of warp wi: live, not exited, instruction buffer empty, instructions left, no
  // instruction-cache miss pending (inline: every issue and decode asks it).
  void refresh_fetchable(unsigned wi) {
    const warp_state& w = warps_[wi];
    const uint64_t bit = uint64_t(1) << (wi % 64);
    if (w.live && !w.exited && w.ibuf == 0 && w.next < w.size && !imiss_[wi])
      fetchable_[wi / 64] |= bit;
    else
      fetchable_[wi / 64] &= ~bit;
  }
  void decode();
  bool fetch_icache(unsigned wi);  // shader_core_ctx::fetch through the L1I: true if it fetched
  void icache_cycle();             // the L1I's miss queue: one request a cycle
  op_class unit_for_class(op_class cls) const;
  op_class unit_for(op_class cls) const { return class_unit_[unsigned(cls)]; }
  void release_barrier_if_complete(unsigned cta_slot);
  void issue();
  void decoded(unsigned wi);  // warp wi's instruction buffer was filled: its scheduler's scan may change
  unsigned ask_scoreboard(unsigned wi, unsigned sched);
  void settle_after_issue(unsigned sched);
  void two_level_order(unsigned sched);
  bool two_level_waiting(unsigned wi) const;
  bool try_issue(unsigned sched, unsigned w, unsigned& blocked);
  void issue_one(register_set* port, unsigned sched, unsigned wi, op_class unit);
  struct issue_scan {  // what a scheduler's failed attempts saw, for its stall cause
    bool scoreboard = false, pipeline = false, barrier = false;
  };
  bool attempt_issue(unsigned sched, unsigned w, issue_scan& scan);
  // try_issue's parts
  void end_of_trace(unsigned wi);
  bool scoreboard_hazard(unsigned wi, const trace_inst& ti) const;
  void build_issued(register_set* port, unsigned sched, unsigned wi, op_class unit, const trace_inst& ti);
  void issued_exit(warp_state& w, uint32_t mask);
  void issued_barrier(warp_state& w);
  void complete(const warp_inst& inst);  // writeback of one instruction
  void warp_maybe_done(unsigned w);
  unsigned bank_of(unsigned reg, unsigned warp, unsigned sched) const {
    const unsigned bank = reg + warp;  // GPGPU-Sim's register_bank: warp id skews the bank
    // bank_span_ banks per scheduler in sub-core mode, else all of them (a power of two: a mask)
    const unsigned in_span = bank_span_mask_ ? bank & bank_span_mask_ : bank % bank_span_;
    return in_span + sched * bank_sched_stride_;
  }

  const gpu_config& cfg_;
  unsigned id_;
  mem_port* mem_;
  bool decodes_ = false;  // the memory wants every mem_fetch's address (mem_port::wants_decodes)
  uint64_t cycle_ = 0, uid_ = 0, mem_base_ = 0;
  std::vector<warp_state> warps_;
  std::vector<warp_regs> wregs_;
  std::vector<cta_state> ctas_;
  unsigned live_ctas_ = 0, warps_per_cta_ = 0;
  std::vector<std::vector<unsigned>> sched_warps_;  // warps supervised by each scheduler
  std::vector<int> last_issued_;                    // per scheduler, warp (GTO greedy / LRR start)
  // Per scheduler, bit k: its warp k (slot k * num_sched + s) is live (up to 64 warps each).
  std::vector<uint64_t> sched_live_;
  void set_live(unsigned wi, bool live) {
    const unsigned k = wi / unsigned(sched_live_.size());
    if (k >= 64) return;
    const uint64_t bit = uint64_t(1) << k;
    uint64_t& m = sched_live_[wi % sched_live_.size()];
    m = live ? m | bit : m & ~bit;
  }
  // Per scheduler, bit k as in sched_live_: its warps whose kept scoreboard answer (warp_state::sb)
  // is a collision, and per scheduler and unit kind (s * num_op_classes + unit) those whose answer
  // is clear for an instruction of that unit. An issue scan skips them when the answer stands
  // (and the unit's issue port is full): they would only add their stall cause.
  std::vector<uint64_t> sb_blocked_, sb_clear_;
  std::vector<uint32_t> sb_clear_units_;  // per scheduler: bit u set while sb_clear_ of unit u is non-zero
  std::vector<uint8_t> sched_bit_;        // per warp slot: its bit k (wi / num_sched), 64 if none
  // warp_state::sb's changes with the masks: unknown -> blocked, unknown -> clear (its unit set),
  // clear -> unknown (it issued), blocked -> unknown (a write-back). A warp that finishes has an
  // unknown answer (it issued its EXIT or ran out of instructions since it was last asked).
  void sb_refused(unsigned wi) {
    warps_[wi].sb = sb_blocked;
    if (const unsigned k = sched_bit_[wi]; k < 64) sb_blocked_[wi - k * sb_blocked_.size()] |= uint64_t(1) << k;
  }
  void sb_cleared(unsigned wi) {
    warp_state& w = warps_[wi];
    w.sb = sb_clear;
    if (const unsigned k = sched_bit_[wi]; k < 64) {
      const size_t s = wi - k * sb_blocked_.size();
      sb_clear_[s * num_op_classes + unsigned(w.unit)] |= uint64_t(1) << k;
      sb_clear_units_[s] |= uint32_t(1) << unsigned(w.unit);
    }
  }
  void sb_clear_taken(unsigned wi) {
    warp_state& w = warps_[wi];
    w.sb = sb_unknown;
    if (const unsigned k = sched_bit_[wi]; k < 64) {
      const size_t s = wi - k * sb_blocked_.size();
      uint64_t& m = sb_clear_[s * num_op_classes + unsigned(w.unit)];
      m &= ~(uint64_t(1) << k);
      if (!m) sb_clear_units_[s] &= ~(uint32_t(1) << unsigned(w.unit));
    }
  }
  void sb_refusal_gone(unsigned wi) {
    warps_[wi].sb = sb_unknown;
    if (const unsigned k = sched_bit_[wi]; k < 64) sb_blocked_[wi - k * sb_blocked_.size()] &= ~(uint64_t(1) << k);
  }
  // Per scheduler: 0 when nothing it looks at (its warps' scoreboard answers, instruction
  // buffers, barriers, liveness, the issue ports) changed since it last failed to issue, so it
  // fails again for the same cause (sched_cause_) without a scan.
  std::vector<uint8_t> sched_dirty_, sched_cause_;
  unsigned last_fetched_ = 0;  // GPGPU-Sim's m_last_warp_fetched (0 at start: the first fetch scans from warp 1)
  int fetch_buf_ = -1;         // warp whose fetch waits in the fetch buffer for decode (-1: empty)
  unsigned issue_prio_ = 0;    // scheduler that runs first this cycle (rotates every cycle)
  std::vector<std::pair<unsigned, unsigned>> fetch_cands_;  // scratch: (round-robin distance, warp)
  // Per scheduler: live warps, oldest first (GTO).
  std::vector<std::vector<unsigned>> age_order_;
  std::vector<unsigned> live_warps_;    // all live warps
  std::vector<uint64_t> fetchable_;     // bit per warp slot: a fetch candidate (refresh_fetchable)
  std::unique_ptr<inst_cache> icache_;  // null: -gpgpu_perfect_inst_const_cache 1
  std::vector<uint8_t> imiss_;          // per warp slot: its fetch waits for an L1I fill (imiss_pending)
  // two_level_active: per scheduler the active list (GPGPU-Sim's m_next_cycle_prioritized_warps)
  // and the pending queue, over all the scheduler's warp slots, live or not.
  std::vector<std::vector<unsigned>> tl_active_;
  std::vector<std::deque<unsigned>> tl_pending_;
  bool gto_ = false;
  std::vector<std::unique_ptr<register_set>> sets_;  // owns all ID_OC / OC_EX sets
  register_set* id_oc_[num_op_classes] = {};
  register_set* oc_ex_[num_op_classes] = {};
  op_class class_unit_[num_op_classes] = {};  // per opcode class: unit_for_class
  lat_ii class_lat_[num_op_classes] = {};     // per opcode class: latency and initiation interval
  std::vector<register_set*> id_oc_list_;
  std::vector<collector_unit> cus_;
  std::vector<read_req> reads_;  // pending register reads, oldest first
  std::unique_ptr<execute_stage> ex_;
  ldst_unit* ldst_ = nullptr;
  std::unique_ptr<l1_tags> own_l1_;
  std::vector<unsigned> bank_reads_;  // scratch
  unsigned bank_span_ = 1;            // register banks a warp's registers spread over (bank_of)
  unsigned bank_span_mask_ = 0;       // bank_span_ - 1 when a power of two above 1, else 0 (a division)
  unsigned bank_sched_stride_ = 0;    // bank_span_ in sub-core mode (a scheduler's first bank), else 0
  std::vector<uint8_t> bank_write_;   // banks allocated to a write-back this step
  bool bank_write_any_ = false;       // some bank_write_ entry is set
  unsigned cus_busy_ = 0;             // collector units busy
  // Bit i of word i / 64: cus_[i] is free / busy with all its reads done; per scheduler, its
  // units (sched_cus_[s * words + word]).
  std::vector<uint64_t> cu_free_, cu_ready_, sched_cus_;
  // Bit k: the ID_OC set oc_order_[k] (a collectors' input) holds an instruction; per unit kind,
  // its ID_OC set's bit.
  uint64_t id_oc_held_ = 0, oc_order_bit_[num_op_classes] = {};
  // allocate_cu's last pass allocated nothing and neither the ID_OC sets nor the free collector
  // units changed since: a pass would allocate nothing again.
  bool alloc_blocked_ = false;
  std::vector<register_set*> oc_order_;  // ID_OC sets in allocate_cu order
  // dispatch_ready_cu's last pass left every ready unit waiting for its OC_EX slot, and no unit
  // became ready since; ex_takes_seen_: the execute stage's port_takes() then.
  bool dispatch_blocked_ = false;
  uint64_t ex_takes_seen_ = 0;
  sm_stats st_;
  bool progress_ = false;     // the cycle changed state beyond counters (skip_idle)
  bool core_asleep_ = false;  // the core repeats core_delta_ (see cycle())
  bool ldst_asleep_ = false;  // the LDST unit repeats ldst_delta_ until its next event
  uint64_t core_delta_[unsigned(stall_cause::n)] = {};
  idle_counts ldst_delta_;
  idle_counts before_;             // cycle()'s counts at its start (a member: no per-cycle initialisation)
  uint64_t ldst_ran_ = 0;          // the last cycle the LDST unit's cycle ran (not repeated)
  uint64_t ldst_issued_seen_ = 0;  // LDST issue count at the start of the last evaluated cycle
  unsigned two_level_active_ = 0;  // 0: not two-level
  unsigned cta_limit_ = 0;         // CTAs of the running kernel per SM
  uint64_t* wake_slot_ = nullptr;  // see sleep_until
};

}  // namespace gpuvp::sm
