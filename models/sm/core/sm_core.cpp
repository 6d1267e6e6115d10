// SPDX-License-Identifier: Apache-2.0
#include "sm_core.h"

#include "icache.h"
#include "ldst_unit.h"

#include <algorithm>
#include <bit>
#include <queue>
#include <unordered_map>

namespace gpuvp::sm {

namespace {

// Adds v to the entry named n of a per-unit-kind list (appending it if new).
void add_named(std::vector<std::pair<std::string, uint64_t>>& into, const std::string& n, uint64_t v) {
  auto it = std::find_if(into.begin(), into.end(), [&](auto& p) { return p.first == n; });
  if (it == into.end())
    into.push_back({n, v});
  else
    it->second += v;
}
}  // namespace

void sm_stats::merge(const sm_stats& o) {
  cycles = std::max(cycles, o.cycles);
  active_cycles += o.active_cycles;
  warp_insts += o.warp_insts;
  thread_insts += o.thread_insts;
  for (unsigned i = 0; i < unsigned(stall_cause::n); ++i) sched_stalls[i] += o.sched_stalls[i];
  result_bus_stalls += o.result_bus_stalls;
  dispatch_stalls += o.dispatch_stalls;
  bank_conflicts += o.bank_conflicts;
  l1_accesses += o.l1_accesses;
  l1_hits += o.l1_hits;
  l1_pending_hits += o.l1_pending_hits;
  l1_misses += o.l1_misses;
  l1i_accesses += o.l1i_accesses;
  l1i_hits += o.l1i_hits;
  l1i_misses += o.l1i_misses;
  l1i_mshr_hits += o.l1i_mshr_hits;
  l1_write_accesses += o.l1_write_accesses;
  for (unsigned i = 0; i < unsigned(l1_fail::n); ++i) l1_fails[i] += o.l1_fails[i];
  mem_reads += o.mem_reads;
  mem_writes += o.mem_writes;
  smem_accesses += o.smem_accesses;
  smem_bank_conflict_cycles += o.smem_bank_conflict_cycles;
  ctas_done += o.ctas_done;
  for (auto& [n, v] : o.unit_issued) add_named(unit_issued, n, v);
  for (auto& [n, v] : o.unit_active) add_named(unit_active, n, v);
}

// ---- core ------------------------------------------------------------------------------------

unsigned sm_core::max_ctas(const gpu_config& cfg, const kernel_header& k) {
  const unsigned wpc = k.warps_per_cta();
  unsigned n = cfg.max_ctas_per_sm;
  n = std::min(n, cfg.max_threads_per_sm / (wpc * 32));
  // Registers per thread rounded up to a multiple of 4, as GPGPU-Sim's max_cta does.
  const uint64_t regs = ((uint64_t(std::max(1u, k.nregs)) + 3) & ~uint64_t(3)) * wpc * 32;
  n = unsigned(std::min<uint64_t>(n, cfg.registers_per_sm / regs));
  if (k.shmem) n = std::min(n, cfg.shmem_per_sm / k.shmem);
  // GPGPU-Sim runs one CTA anyway; the model still needs its warps to fit the SM's warp slots.
  if (n == 0 && cfg.ignore_resources_limitation && wpc * 32 <= cfg.max_threads_per_sm && cfg.max_ctas_per_sm) n = 1;
  return n;
}

// The ID_OC and OC_EX register sets of unit kind c. A width of 0 (a unit kind without units,
// whose work issues elsewhere: validate) gets an unused set of one.
void sm_core::make_sets(op_class c, unsigned id_oc_w, unsigned oc_ex_w, const std::string& n) {
  id_oc_w = std::max(1u, id_oc_w);
  oc_ex_w = std::max(1u, oc_ex_w);
  sets_.push_back(std::make_unique<register_set>(id_oc_w, "ID_OC_" + n));
  id_oc_[unsigned(c)] = sets_.back().get();
  id_oc_list_.push_back(sets_.back().get());
  sets_.push_back(std::make_unique<register_set>(oc_ex_w, "OC_EX_" + n));
  oc_ex_[unsigned(c)] = sets_.back().get();
}

// `count` pipelined units of kind c, `depth` stages each, fed from its OC_EX set.
void sm_core::add_units(op_class c, unsigned count, unsigned depth, const std::string& n) {
  const bool sc = cfg_.sub_core;
  register_set* port = oc_ex_[unsigned(c)];
  for (unsigned k = 0; k < count; ++k) {
    auto u = std::make_unique<pipelined_unit>(n + "_" + std::to_string(k), &ex_->ex_wb(), depth, std::vector<op_class>{c});
    ex_->add_unit(std::move(u), port, sc ? k % port->size() : 0);
  }
}

// The warp slots, the schedulers' warps and the two-level scheduler's active and pending lists.
void sm_core::init_warps() {
  const gpu_config& cfg = cfg_;
  warps_.resize(cfg.max_threads_per_sm / 32);
  fetchable_.assign((warps_.size() + 63) / 64, 0);
  imiss_.assign(warps_.size(), 0);
  if (!cfg.perfect_icache) {
    icache_ = std::make_unique<inst_cache>(cfg.il1);
    // A non-sectored L1I sends a line miss as one request when the memory takes whole lines.
    if (!cfg.il1.sectored && mem_ && mem_->packet_bytes() >= cfg.il1.line) icache_->request_bytes = cfg.il1.line;
  }
  wregs_.resize(warps_.size());
  ctas_.resize(cfg.max_ctas_per_sm);
  sched_warps_.resize(cfg.num_sched);
  last_issued_.assign(cfg.num_sched, -1);
  sched_live_.assign(cfg.num_sched, 0);
  sched_dirty_.assign(cfg.num_sched, 1);
  sched_cause_.assign(cfg.num_sched, 0);
  sb_blocked_.assign(cfg.num_sched, 0);
  sb_clear_.assign(size_t(cfg.num_sched) * num_op_classes, 0);
  sb_clear_units_.assign(cfg.num_sched, 0);
  sched_bit_.resize(warps_.size());
  for (unsigned w = 0; w < warps_.size(); ++w) sched_bit_[w] = uint8_t(std::min(64u, w / cfg.num_sched));
  last_fetched_ = 0;  // as GPGPU-Sim's create_front_pipeline: the first fetch scans from warp 1
  for (unsigned w = 0; w < warps_.size(); ++w) sched_warps_[w % cfg.num_sched].push_back(w);
  age_order_.resize(cfg.num_sched);
  gto_ = cfg.scheduler == "gto";
  if (cfg.scheduler.rfind("two_level_active", 0) == 0) {
    auto colon = cfg.scheduler.find(':');
    two_level_active_ = colon == std::string::npos ? 6 : unsigned(std::max(1, std::atoi(cfg.scheduler.c_str() + colon + 1)));
    // done_adding_supervised_warps: every supervised slot starts pending, the first N go active.
    tl_active_.resize(cfg.num_sched);
    tl_pending_.resize(cfg.num_sched);
    for (unsigned s = 0; s < cfg.num_sched; ++s) {
      tl_pending_[s].assign(sched_warps_[s].begin(), sched_warps_[s].end());
      while (!tl_pending_[s].empty() && tl_active_[s].size() < two_level_active_) {
        tl_active_[s].push_back(tl_pending_[s].front());
        tl_pending_[s].pop_front();
      }
    }
  }
}

// The execute stage: the register sets, function units and the LDST unit.
void sm_core::build_pipeline(l1_tags* l1) {
  const gpu_config& cfg = cfg_;
  ex_ = std::make_unique<execute_stage>(cfg.widths[EX_WB], cfg.sub_core);
  const auto& W = cfg.widths;
  make_sets(op_class::sp, W[ID_OC_SP], W[OC_EX_SP], "SP");
  make_sets(op_class::dp, W[ID_OC_DP], W[OC_EX_DP], "DP");
  make_sets(op_class::intp, W[ID_OC_INT], W[OC_EX_INT], "INT");
  make_sets(op_class::sfu, W[ID_OC_SFU], W[OC_EX_SFU], "SFU");
  make_sets(op_class::tensor, W[ID_OC_TENSOR_CORE], W[OC_EX_TENSOR_CORE], "TENSOR_CORE");
  make_sets(op_class::mem, W[ID_OC_MEM], W[OC_EX_MEM], "MEM");
  // Without INT (DP) units the SP (SFU) units also run INT (DP) work: deep enough for both.
  add_units(op_class::sp, cfg.num_sp, std::max(cfg.lat_sp.latency, cfg.num_int ? 0 : cfg.lat_int.latency), "SP");
  add_units(op_class::dp, cfg.num_dp, cfg.lat_dp.latency, "DP");
  add_units(op_class::intp, cfg.num_int, cfg.lat_int.latency, "INT");
  add_units(op_class::sfu, cfg.num_sfu, std::max(cfg.lat_sfu.latency, cfg.num_dp ? 0 : cfg.lat_dp.latency), "SFU");
  add_units(op_class::tensor, cfg.num_tensor, cfg.lat_tensor.latency, "TENSOR_CORE");
  for (unsigned n = 1; n <= SPECIALIZED_UNIT_NUM; ++n) {
    const auto& s = cfg.spec[n];
    if (!s.enabled) continue;
    make_sets(spec_class(n), s.id_oc_width, s.oc_ex_width, s.name);
    add_units(spec_class(n), s.num_units, std::max(s.max_latency, s.op.latency), s.name);
  }
  auto l = std::make_unique<ldst_unit>(*this, cfg, l1);
  ldst_ = l.get();
  ex_->add_unit(std::move(l), oc_ex_[unsigned(op_class::mem)], execute_stage::any_slot);
}

// The operand collector units, the register banks and the order of the collectors' input sets.
void sm_core::init_collectors() {
  const gpu_config& cfg = cfg_;
  unsigned ncu = cfg.oc_units_gen
                     ? cfg.oc_units_gen
                     : cfg.oc_units_sp + cfg.oc_units_dp + cfg.oc_units_sfu + cfg.oc_units_int + cfg.oc_units_tensor + cfg.oc_units_mem;
  cus_.resize(std::max(ncu, cfg.num_sched));
  const size_t words = (cus_.size() + 63) / 64;
  cu_free_.assign(words, 0);
  cu_ready_.assign(words, 0);
  sched_cus_.assign(cfg.num_sched * words, 0);
  for (unsigned i = 0; i < cus_.size(); ++i) {
    cus_[i].sched = unsigned(uint64_t(i) * cfg.num_sched / cus_.size());
    cu_free_[i / 64] |= uint64_t(1) << (i % 64);
    sched_cus_[cus_[i].sched * words + i / 64] |= uint64_t(1) << (i % 64);
  }
  bank_reads_.resize(std::max(1u, cfg.reg_banks));
  bank_write_.assign(bank_reads_.size(), 0);
  bank_span_ = cfg.sub_core ? std::max(1u, unsigned(bank_reads_.size()) / cfg.num_sched) : unsigned(bank_reads_.size());
  bank_span_mask_ = (bank_span_ & (bank_span_ - 1)) == 0 ? bank_span_ - 1 : 0;
  bank_sched_stride_ = cfg.sub_core ? bank_span_ : 0;
  // The generic collectors' input sets in GPGPU-Sim's create_exec_pipeline order.
  auto in_set = [&](op_class c) {
    if (register_set* r = id_oc_[unsigned(c)]) oc_order_.push_back(r);
  };
  in_set(op_class::sp);
  in_set(op_class::sfu);
  in_set(op_class::mem);
  if (cfg.num_tensor) in_set(op_class::tensor);
  if (cfg.num_dp) in_set(op_class::dp);
  if (cfg.num_int) in_set(op_class::intp);
  for (unsigned n = 1; n <= SPECIALIZED_UNIT_NUM; ++n) in_set(spec_class(n));
  for (register_set* r : id_oc_list_)  // a set without units of its kind still drains (last)
    if (std::find(oc_order_.begin(), oc_order_.end(), r) == oc_order_.end()) oc_order_.push_back(r);
  for (unsigned c = 0; c < num_op_classes; ++c)
    for (unsigned k = 0; k < oc_order_.size(); ++k)
      if (id_oc_[c] == oc_order_[k]) oc_order_bit_[c] = uint64_t(1) << k;
}

sm_core::sm_core(const gpu_config& cfg, unsigned id, mem_port* mem, l1_tags* l1)
    : cfg_(cfg), id_(id), mem_(mem), decodes_(mem && mem->wants_decodes()) {
  if (!l1) {
    own_l1_ = std::make_unique<l1_tags>();
    l1 = own_l1_.get();
  }
  init_warps();
  build_pipeline(l1);
  init_collectors();
  for (unsigned c = 0; c < num_op_classes; ++c) {
    class_unit_[c] = unit_for_class(op_class(c));
    // Latency by the opcode's class (trace_config::set_latency), whichever unit runs it.
    const op_class cls = op_class(c);
    const bool control = cls == op_class::exit || cls == op_class::barrier || cls == op_class::nop;
    class_lat_[c] = cfg_.latency_of(control || id_oc_[c] ? cls : op_class::intp);
  }
}

sm_core::~sm_core() = default;

bool sm_core::can_take_cta() const {
  unsigned live = 0;
  for (unsigned i = 0; i < cta_limit_; ++i) live += ctas_[i].live;
  return live < cta_limit_;
}

void sm_core::launch_cta(const kernel_header& k, std::shared_ptr<const trace_cta> cta, unsigned cta_index) {
  if (live_ctas_ == 0) {
    cta_limit_ = std::min<unsigned>(max_ctas(cfg_, k), unsigned(ctas_.size()));
    warps_per_cta_ = k.warps_per_cta();
  }
  unsigned slot = 0;
  while (slot < cta_limit_ && ctas_[slot].live) ++slot;
  cta_state& c = ctas_[slot];
  c = cta_state{};
  c.live = true;
  c.index = cta_index;
  c.trace = std::move(cta);
  c.warps = warps_per_cta_;
  const trace_cta& t = *c.trace;
  for (unsigned i = 0; i < warps_per_cta_; ++i) {
    warp_state& w = warps_[slot * warps_per_cta_ + i];
    w = warp_state{};
    wregs_[slot * warps_per_cta_ + i] = warp_regs{};
    w.live = true;
    set_live(slot * warps_per_cta_ + i, true);
    w.cta_slot = uint16_t(slot);
    w.insts = t.warps[i].insts.data();
    w.size = uint32_t(t.warps[i].insts.size());
    const uint64_t threads = std::min<uint64_t>(32, k.block.count() - uint64_t(i) * 32);
    w.lanes_left = threads == 32 ? ~0u : (1u << threads) - 1;
    const unsigned wi = slot * warps_per_cta_ + i;
    age_order_[wi % cfg_.num_sched].push_back(wi);
    live_warps_.push_back(wi);
    refresh_fetchable(wi);
    if (on_warp) on_warp(wi, cta_index, i, true);
  }
  ++live_ctas_;
  core_asleep_ = false;
  std::fill(sched_dirty_.begin(), sched_dirty_.end(), 1);
}

void sm_core::complete(const warp_inst& inst) {
  warp_state& w = warps_[inst.warp];
  warp_regs& r = wregs_[inst.warp];
  for (int d = 0; d < inst.ndst; ++d) {
    r.reserved.reset(inst.dst[d]);  // (a zero register is never reserved: no test needed)
    r.longop.reset(inst.dst[d]);
  }
  --w.pending;
  progress_ = true;
  // A collision may be gone; a clear answer stays clear, and the scheduler's last failed scan
  // saw every other state of this warp (only a refused instruction can change its answer).
  if (w.sb == sb_blocked) {
    sb_refusal_gone(inst.warp);
    sched_dirty_[inst.warp % sched_dirty_.size()] = 1;
  }
  if (w.exited && !w.pending) warp_maybe_done(inst.warp);  // (its first test, without the call)
}

void sm_core::warp_maybe_done(unsigned wi) {
  warp_state& w = warps_[wi];
  if (!w.live || !w.exited || w.pending) return;
  w.live = false;
  set_live(wi, false);
  refresh_fetchable(wi);
  std::fill(sched_dirty_.begin(), sched_dirty_.end(), 1);
  auto& ord = age_order_[wi % cfg_.num_sched];
  ord.erase(std::find(ord.begin(), ord.end(), wi));
  live_warps_.erase(std::find(live_warps_.begin(), live_warps_.end(), wi));
  if (fetch_buf_ == int(wi)) fetch_buf_ = -1;
  cta_state& c = ctas_[w.cta_slot];
  if (on_warp) on_warp(wi, c.index, wi % warps_per_cta_, false);
  if (++c.warps_done == c.warps) {
    c.live = false;
    --live_ctas_;
    ++st_.ctas_done;
    c.trace.reset();
    if (on_cta_done) on_cta_done(c.index);
  }
}

void sm_core::writeback() {
  register_set& wb = ex_->ex_wb();
  for (uint64_t m = wb.slots_mask(); m; m &= m - 1) {  // in slot order
    warp_inst& done = wb.slot(unsigned(__builtin_ctzll(m)));
    progress_ = true;
    // opndcoll_rfu_t::writeback: each destination's bank is allocated for the write, so the
    // first operand-collector step of this cycle cannot read from it (writes have priority).
    for (int d = 0; d < done.ndst; ++d)
      if (!is_zero_reg(done.dst[d])) {
        bank_write_[bank_of(done.dst[d], done.warp, done.sched)] = 1;
        bank_write_any_ = true;
      }
    complete(done);  // (reads the instruction only)
    wb.clear_slot(done);
  }
}

// No collector unit to dispatch, no register read pending, no allocation possible: the checks
// dispatch_ready_cus, allocate_reads and allocate_cus make first.
[[gnu::always_inline]] inline bool sm_core::collector_idle() const {
  const bool dispatch_idle = (dispatch_blocked_ && ex_->port_takes() == ex_takes_seen_) || (cu_ready_.size() == 1 && !cu_ready_[0]);
  return dispatch_idle && reads_.empty() && (!id_oc_held_ || alloc_blocked_);
}

// GPGPU-Sim steps the operand collector reg_file_port_throughput times per cycle; a step with
// nothing to do (collector_idle) only ends its bank write allocations.
void sm_core::read_operands() {
  for (unsigned i = 0, n = std::max(1u, cfg_.reg_port_throughput); i < n; ++i) {
    if (!collector_idle()) {
      collector_step();
      continue;
    }
    alloc_blocked_ = true;  // (as collector_step)
    if (bank_write_any_) std::fill(bank_write_.begin(), bank_write_.end(), 0);
    bank_write_any_ = false;
  }
}

// dispatch_ready_cu: the units whose reads are done, in unit order, move to their OC_EX sets.
[[gnu::always_inline]] inline void sm_core::dispatch_ready_cus() {
  // After a pass every ready unit left waits for its OC_EX slot; only a newly ready unit or an
  // OC_EX slot the execute stage emptied can change that.
  if (dispatch_blocked_ && ex_->port_takes() == ex_takes_seen_) return;
  dispatch_blocked_ = true;
  ex_takes_seen_ = ex_->port_takes();
  const bool sc = cfg_.sub_core;
  for (size_t wd = 0; wd < cu_ready_.size() && cus_busy_; ++wd)
    for (uint64_t m = cu_ready_[wd]; m; m &= m - 1) {
      const unsigned i = unsigned(wd * 64 + unsigned(__builtin_ctzll(m)));
      collector_unit& cu = cus_[i];
      if (cu.out->has_free(sc, cu.sched)) {
        cu.out->move_in(sc, cu.sched, cu.inst);
        cu.busy = false;
        cu_ready_[wd] &= ~(uint64_t(1) << (i % 64));
        cu_free_[wd] |= uint64_t(1) << (i % 64);
        alloc_blocked_ = false;
        --cus_busy_;
        progress_ = true;
      }
    }
}

// allocate_reads: each bank serves one read per step, oldest request first.
[[gnu::always_inline]] inline void sm_core::allocate_reads() {
  if (reads_.empty()) return;
  progress_ = true;
  std::fill(bank_reads_.begin(), bank_reads_.end(), 0);
  size_t keep = 0;
  for (const read_req& r : reads_) {
    if (bank_write_[r.bank]) {
      reads_[keep++] = r;  // the bank writes a result this step
    } else if (bank_reads_[r.bank] == 0) {
      ++bank_reads_[r.bank];
      if (--cus_[r.cu].pending_reads == 0) {
        cu_ready_[r.cu / 64] |= uint64_t(1) << (r.cu % 64);
        dispatch_blocked_ = false;
      }
    } else {
      ++st_.bank_conflicts;
      reads_[keep++] = r;  // stays queued, order kept
    }
  }
  reads_.resize(keep);
}

// allocate_cu (GPGPU-Sim's opndcoll_rfu_t::allocate_cu over the generic in-ports): every
// port visits the ID_OC sets in GPGPU-Sim's port order (SP, SFU, MEM, TENSOR, DP, INT,
// specialized) and takes from each only its OLDEST instruction (lowest uid), into a free
// collector unit of that instruction's scheduler. If that scheduler has no free unit the set
// gives nothing to this port, even when a younger instruction of another sub-core could go
// (head-of-line blocking). The ports repeat this until one pass allocates nothing (the shipped
// configurations have as many in-ports as collector units, so no port limit is reached).
// Within the call units are only taken and a set's oldest changes only when it gives, so a set
// that gave nothing (or is empty) gives nothing in a later pass: each pass visits only the sets
// that gave in the one before, in port order.
[[gnu::always_inline]] inline void sm_core::allocate_cus() {
  if (!id_oc_held_ || alloc_blocked_) return;  // nothing to allocate, or nothing changed since a pass allocated nothing
  uint64_t todo = id_oc_held_;                 // bit k: oc_order_[k] may give
  while (todo) {
    uint64_t gave = 0;
    for (uint64_t m = todo; m; m &= m - 1) {
      const unsigned k = unsigned(__builtin_ctzll(m));
      if (allocate_cu_from(*oc_order_[k])) gave |= uint64_t(1) << k;
    }
    todo = gave & id_oc_held_;
  }
}

// One port's take from ID_OC set `in`: its oldest instruction into the first free collector unit
// (of the instruction's scheduler in sub-core mode), its register reads queued. False if none.
[[gnu::always_inline]] inline bool sm_core::allocate_cu_from(register_set& in) {
  const bool sc = cfg_.sub_core;
  warp_inst* w = in.get_ready();
  const uint64_t* mine = sc ? &sched_cus_[w->sched * cu_free_.size()] : nullptr;  // (sched < num_sched)
  unsigned cu = unsigned(cus_.size());
  for (size_t wd = 0; wd < cu_free_.size(); ++wd)
    if (const uint64_t m = cu_free_[wd] & (mine ? mine[wd] : ~uint64_t(0))) {
      cu = unsigned(wd * 64 + unsigned(__builtin_ctzll(m)));
      break;
    }
  if (cu == cus_.size()) return false;
  collector_unit& c = cus_[cu];
  cu_free_[cu / 64] &= ~(uint64_t(1) << (cu % 64));
  c.busy = true;
  ++cus_busy_;
  c.inst = *w;
  c.out = oc_ex_[unsigned(w->op)];
  c.pending_reads = 0;
  for (int i = 0; i < w->nsrc; ++i) {
    unsigned r = w->src[i];
    if (is_zero_reg(r)) continue;
    bool dup = false;
    for (int j = 0; j < i; ++j) dup |= w->src[j] == r;
    if (dup) continue;
    reads_.push_back({cu, bank_of(r, w->warp, w->sched)});
    ++c.pending_reads;
  }
  if (c.pending_reads == 0) {
    cu_ready_[cu / 64] |= uint64_t(1) << (cu % 64);
    dispatch_blocked_ = false;
  }
  const unsigned freed = unsigned(w - &in.slot(0));
  in.clear_slot(*w);
  if (in.empty()) id_oc_held_ &= ~oc_order_bit_[unsigned(c.inst.op)];
  progress_ = true;
  // An issue port slot is free: in sub-core mode only the schedulers that issue into that
  // slot (scheduler s into slot s % width) see it; otherwise every scheduler. Only one whose
  // last failed scan met a full port (its cause: pipeline) can issue because of it.
  const uint8_t pipeline = uint8_t(stall_cause::pipeline);
  for (size_t s = sc ? freed : 0; s < sched_dirty_.size(); s += sc ? in.size() : 1) sched_dirty_[s] |= sched_cause_[s] == pipeline;
  return true;
}

void sm_core::collector_step() {
  dispatch_ready_cus();
  allocate_reads();
  allocate_cus();
  alloc_blocked_ = true;  // the last pass (if any) allocated nothing
  // process_banks: the write allocations last one step
  if (bank_write_any_) std::fill(bank_write_.begin(), bank_write_.end(), 0);
  bank_write_any_ = false;
}

sm_core::idle_counts sm_core::idle_snapshot() const {
  idle_counts c;
  std::copy(std::begin(st_.sched_stalls), std::end(st_.sched_stalls), c.sched_stalls);
  c.dispatch_stalls = ex_->dispatch_stalls;
  std::copy(std::begin(st_.l1_fails), std::end(st_.l1_fails), c.l1_fails);
  c.ldst_active = ldst_->active_cycles;
  c.l1_made = st_.l1_accesses + st_.smem_accesses;  // stores count in l1_accesses
  return c;
}

// Idle-cycle skip. The core (everything but the LDST unit) sleeps after a cycle in which it
// changed nothing but counters: no writeback, no pipelined unit busy, no issue into any unit,
// no operand-collector work, no scheduler issue, no fetch or decode, no instruction completed.
// While it sleeps its cycles repeat those counts (the schedulers' stall causes) until the LDST
// unit completes an instruction or takes a new one from its issue port, or a CTA arrives. The
// LDST unit sleeps too when its cycle changed nothing but counters (reservation fails, busy
// cycles): nothing due (ldst_unit::next_event_cycle), no instruction prepared, no access made,
// its state_summary() unchanged. Then its cycles repeat those counts until its next event;
// otherwise it runs alone.
void sm_core::cycle() {
  ++cycle_;
  if (!active()) return;  // every warp done means nothing is in flight
  ++st_.active_cycles;
  if (!skip_idle || two_level_active_ ||
      icache_) {  // two_level_active reorders its lists every cycle; the L1I's fills and sends are not events
    full_cycle();
    return;
  }
  const uint64_t next_event = ldst_->next_event_cycle(ldst_ran_);
  if (core_asleep_ && ldst_asleep_ && next_event > cycle_) return idle_cycle();
  const bool ldst_due = next_event <= cycle_;
  ldst_ran_ = cycle_;
  // An instruction issued into the LDST unit last cycle is prepared in this one.
  const bool ldst_fresh = ldst_->issued != ldst_issued_seen_;
  ldst_issued_seen_ = ldst_->issued;
  // Compared only when the LDST unit may fall asleep (end_ldst_cycle: nothing due, nothing fresh).
  const std::array<uint64_t, 3> ldst_state = ldst_due || ldst_fresh ? std::array<uint64_t, 3>{} : ldst_->state_summary();
  // The LDST unit's counts are compared only when it may fall asleep (end_ldst_cycle).
  idle_counts& before = before_;
  if (ldst_due || ldst_fresh)
    std::copy(std::begin(st_.sched_stalls), std::end(st_.sched_stalls), before.sched_stalls);
  else
    before = idle_snapshot();
  progress_ = false;
  if (core_asleep_) {
    // The LDST unit alone (the other units are idle with empty issue ports).
    const bool moved = ex_->execute(true);
    if (!moved && !progress_) {
      // No operand-collector step runs: a bank the LDST write-back took is free again next cycle.
      if (bank_write_any_) std::fill(bank_write_.begin(), bank_write_.end(), 0);
      bank_write_any_ = false;
      for (unsigned i = 0; i < unsigned(stall_cause::n); ++i) st_.sched_stalls[i] += core_delta_[i];
      issue_prio_ = (issue_prio_ + 1) % unsigned(sched_warps_.size());
      end_ldst_cycle(before, ldst_due, ldst_state, ldst_fresh);
      return;
    }
    core_asleep_ = false;
    progress_ = true;
  } else {
    writeback();
    progress_ |= ex_->execute();
  }
  front_end();
  core_asleep_ = !progress_;
  if (core_asleep_)
    for (unsigned i = 0; i < unsigned(stall_cause::n); ++i) core_delta_[i] = st_.sched_stalls[i] - before.sched_stalls[i];
  end_ldst_cycle(before, ldst_due, ldst_state, ldst_fresh);
}

void sm_core::end_ldst_cycle(const idle_counts& before, bool due, const std::array<uint64_t, 3>& state, bool fresh) {
  if (due || fresh) {  // an event or a new instruction: awake (no snapshot needed)
    ldst_asleep_ = false;
    return;
  }
  const idle_counts after = idle_snapshot();
  ldst_asleep_ = after.l1_made == before.l1_made && ldst_->issued == ldst_issued_seen_ && ldst_->state_summary() == state;
  if (!ldst_asleep_) return;
  ldst_delta_.dispatch_stalls = after.dispatch_stalls - before.dispatch_stalls;
  for (unsigned i = 0; i < unsigned(l1_fail::n); ++i) ldst_delta_.l1_fails[i] = after.l1_fails[i] - before.l1_fails[i];
  ldst_delta_.ldst_active = after.ldst_active - before.ldst_active;
}

// Operand collection, issue, fetch and decode, or, when none of them has anything to do (the
// same conditions each stage checks first), only what they would count and step.
void sm_core::front_end() {
  const bool fetch_idle = fetch_buf_ < 0 && fetchable_.size() == 1 && !fetchable_[0];
  if (!collector_idle() || !fetch_idle || std::find(sched_dirty_.begin(), sched_dirty_.end(), 1) != sched_dirty_.end()) {
    read_operands();
    issue();
    fetch_decode();
    return;
  }
  alloc_blocked_ = true;  // (as collector_step)
  if (bank_write_any_) std::fill(bank_write_.begin(), bank_write_.end(), 0);
  bank_write_any_ = false;
  for (uint8_t cause : sched_cause_) ++st_.sched_stalls[cause];  // each scheduler fails again
  issue_prio_ = issue_prio_ + 1 == sched_cause_.size() ? 0 : issue_prio_ + 1;
}

void sm_core::full_cycle() {
  writeback();
  progress_ |= ex_->execute();
  read_operands();
  issue();
  fetch_decode();
}

// A cycle that repeats the last one of the sleeping core and LDST unit: counters only.
void sm_core::idle_cycle() {
  for (unsigned i = 0; i < unsigned(stall_cause::n); ++i) st_.sched_stalls[i] += core_delta_[i];
  ex_->dispatch_stalls += ldst_delta_.dispatch_stalls;
  for (unsigned i = 0; i < unsigned(l1_fail::n); ++i) st_.l1_fails[i] += ldst_delta_.l1_fails[i];
  ldst_->active_cycles += ldst_delta_.ldst_active;
  ex_->idle_cycle();
  issue_prio_ = (issue_prio_ + 1) % unsigned(sched_warps_.size());
}

uint64_t sm_core::sleep_until() const {
  if (!active()) return UINT64_MAX;  // nothing in flight: only a launch wakes it
  if (!skip_idle || two_level_active_ || icache_ || !core_asleep_ || !ldst_asleep_) return cycle_ + 1;
  return std::max(cycle_ + 1, ldst_->next_event_cycle(ldst_ran_));
}

// n cycles of idle_cycle() (or of an SM without warps) in one step.
void sm_core::idle_cycles(uint64_t n) {
  if (n == 0) return;
  cycle_ += n;
  if (!active()) return;
  st_.active_cycles += n;
  for (unsigned i = 0; i < unsigned(stall_cause::n); ++i) st_.sched_stalls[i] += n * core_delta_[i];
  ex_->dispatch_stalls += n * ldst_delta_.dispatch_stalls;
  for (unsigned i = 0; i < unsigned(l1_fail::n); ++i) st_.l1_fails[i] += n * ldst_delta_.l1_fails[i];
  ldst_->active_cycles += n * ldst_delta_.ldst_active;
  ex_->idle_cycle(n);
  issue_prio_ = unsigned((issue_prio_ + n) % sched_warps_.size());
}

// Decode (GPGPU-Sim's shader_core_ctx::decode): the fetch buffer's warp gets its next one or two
// instructions into its instruction buffer.
void sm_core::decode() {
  if (fetch_buf_ < 0) return;
  progress_ = true;
  warp_state& w = warps_[unsigned(fetch_buf_)];
  w.ibuf = uint8_t(std::min(2u, w.size - w.next));
  if (w.next < w.size) __builtin_prefetch(&w.insts[w.next]);  // read at the warp's next issue attempt
  refresh_fetchable(unsigned(fetch_buf_));
  decoded(unsigned(fetch_buf_));
  fetch_buf_ = -1;
}

// Decode and fetch, -gpgpu_inst_fetch_throughput rounds per cycle (GPGPU-Sim runs decode() then
// fetch() that many times, after issue). Each fetch takes, round robin from the warp after the
// last fetched, the first live warp that has not exited and whose instruction buffer is empty
// (the instruction cache always hits: -gpgpu_perfect_inst_const_cache 1) into the one fetch
// buffer, which the next round's decode empties. So with throughput T a warp fetched in rounds
// 0..T-2 can issue in the next cycle; the one fetched in the last round is decoded the next cycle.
void sm_core::fetch_decode() {
  decode();
  // The candidates (fetchable_) in round-robin order from the warp after the last fetched.
  const unsigned n = unsigned(warps_.size());
  const unsigned rounds = cfg_.inst_fetch_throughput;
  fetch_cands_.clear();
  const unsigned start = (last_fetched_ + 1) % n;
  auto scan = [&](unsigned from, unsigned to) {  // set bits in [from, to), ascending
    for (unsigned i = from; i < to && fetch_cands_.size() < rounds;) {
      const unsigned word = i / 64, bit = i % 64;
      uint64_t m = fetchable_[word] >> bit;
      if (!m) {
        i = (word + 1) * 64;
        continue;
      }
      i += unsigned(__builtin_ctzll(m));
      if (i < to) fetch_cands_.push_back({0, i});
      ++i;
    }
  };
  if (icache_) {
    // One fetch a round: a warp whose line has come back first (access_ready: the oldest filled
    // MSHR entry's next warp), else the first candidate probes the L1I; a miss or a reservation
    // fail ends the round without a fetch.
    for (unsigned r = 0; r < rounds; ++r) {
      icache_->apply_fills(cycle_);
      if (fetch_buf_ >= 0) decode();
      if (!icache_->ready.empty()) {
        auto& e = icache_->ready.front();
        const unsigned wi = e.warps.front();
        e.warps.erase(e.warps.begin());
        if (e.warps.empty()) icache_->ready.pop_front();
        imiss_[wi] = 0;
        progress_ = true;
        fetch_buf_ = int(wi);
        refresh_fetchable(wi);
        continue;
      }
      fetch_cands_.clear();
      const unsigned from = (last_fetched_ + 1) % n;
      scan(from, n);
      scan(0, from);
      if (fetch_cands_.empty()) break;
      fetch_icache(fetch_cands_[0].second);
    }
    icache_cycle();
    return;
  }
  if (fetchable_.size() == 1) {  // up to 64 warp slots: the bits from `start` round in one word
    const uint64_t m = fetchable_[0], from = m >> start << start;
    for (uint64_t x = from; x && fetch_cands_.size() < rounds; x &= x - 1) fetch_cands_.push_back({0, unsigned(__builtin_ctzll(x))});
    for (uint64_t x = m & ~from; x && fetch_cands_.size() < rounds; x &= x - 1) fetch_cands_.push_back({0, unsigned(__builtin_ctzll(x))});
  } else {
    scan(start, n);
    scan(0, start);
  }
  for (size_t i = 0; i < fetch_cands_.size(); ++i) {
    progress_ = true;
    fetch_buf_ = int(fetch_cands_[i].second);
    last_fetched_ = fetch_cands_[i].second;
    if (decodes_) fetch_decoded(last_fetched_);
    if (i + 1 < rounds) decode();
  }
}

// shader_core_ctx::fetch makes a mem_fetch for the fetch (then probes the L1I, or not with a
// perfect instruction cache) at the warp's PC + PROGRAM_MEM_START.
void sm_core::fetch_decoded(unsigned wi) {
  const warp_state& w = warps_[wi];
  mem_->decoded(inst_cache::program_mem_start + w.insts[w.next].pc, ldst_);
}

bool sm_core::fetch_icache(unsigned wi) {
  progress_ = true;
  last_fetched_ = wi;
  if (decodes_) fetch_decoded(wi);
  const warp_state& w = warps_[wi];
  const uint64_t addr = inst_cache::program_mem_start + w.insts[w.next].pc;
  const auto r = icache_->access(addr, wi);
  if (r == inst_cache::result::hit) {
    fetch_buf_ = int(wi);
    return true;
  }
  if (r == inst_cache::result::miss) {
    imiss_[wi] = 1;
    refresh_fetchable(wi);
  }
  return false;
}

// m_L1I->cycle(): the miss queue's head goes to the cluster's crossbar input if it has room,
// numbered from the cycle before as the L1D's are.
void sm_core::icache_cycle() {
  if (!icache_->miss_queue.empty() && ldst_->icache_send(icache_->miss_queue.front(), cycle_ - 1)) icache_->miss_queue.pop_front();
}

sm_stats sm_core::stats() const {
  sm_stats s = st_;
  s.cycles = cycle_;
  if (icache_) {
    s.l1i_accesses = icache_->accesses;
    s.l1i_hits = icache_->hits;
    s.l1i_misses = icache_->misses;
    s.l1i_mshr_hits = icache_->mshr_hits;
  }
  s.result_bus_stalls = ex_->result_bus_stalls;
  s.dispatch_stalls = ex_->dispatch_stalls;
  for (unsigned i = 0; i < ex_->num_units(); ++i) {
    auto& u = ex_->unit(i);
    const std::string n = u.name().substr(0, u.name().rfind('_'));  // "SP_3" -> "SP", "LDST"
    add_named(s.unit_issued, n, u.issued);
    add_named(s.unit_active, n, u.active_cycles);
  }
  return s;
}

}  // namespace gpuvp::sm
