// SPDX-License-Identifier: Apache-2.0
// The SM's issue stage: each scheduler's warp order (lrr, gto, two-level) and the issue of a
// warp's next instructions into the ID_OC register sets (GPGPU-Sim's scheduler_unit::cycle).
// Part of sm_core (sm_core.h).
#include "sm_core.h"

#include <algorithm>
#include <cstring>

namespace gpuvp::sm {

namespace {
bool is_control(op_class c) { return c == op_class::exit || c == op_class::barrier || c == op_class::nop; }
// GPGPU-Sim's exec_unit_type_t for -gpgpu_dual_issue_diff_exec_units: all specialized units are
// one type.
unsigned exec_kind(op_class unit) {
  return unit >= op_class::spec1 && unit <= op_class::spec8 ? unsigned(op_class::spec1) : unsigned(unit);
}
}  // namespace

// The unit an instruction of class `cls` issues to (scheduler_unit::cycle): EXIT/BAR/NOP-class
// (EXIT_OPS, BARRIER_OP, ALU_OP in Accel-Sim) and opcodes of a specialized unit the
// configuration does not enable go to the INT unit; without INT units (Fermi, Pascal) INT work
// goes to the SP units, without DP units DP work to the SFUs.
op_class sm_core::unit_for_class(op_class cls) const {
  op_class u = is_control(cls) || !id_oc_[unsigned(cls)] ? op_class::intp : cls;
  if (u == op_class::intp && cfg_.num_int == 0) u = op_class::sp;
  if (u == op_class::dp && cfg_.num_dp == 0) u = op_class::sfu;
  return u;
}

void sm_core::release_barrier_if_complete(unsigned slot) {
  cta_state& c = ctas_[slot];
  if (!c.at_barrier || c.at_barrier < c.warps - c.exited) return;
  c.at_barrier = 0;
  for (unsigned i = 0; i < c.warps; ++i) warps_[slot * warps_per_cta_ + i].at_barrier = false;
  std::fill(sched_dirty_.begin(), sched_dirty_.end(), 1);
}

// A warp whose trace ends without an EXIT ends at its last instruction.
void sm_core::end_of_trace(unsigned wi) {
  warp_state& w = warps_[wi];
  progress_ = true;
  std::fill(sched_dirty_.begin(), sched_dirty_.end(), 1);
  w.exited = true;
  ++ctas_[w.cta_slot].exited;
  release_barrier_if_complete(w.cta_slot);
  warp_maybe_done(wi);
}

// Scoreboard (GPGPU-Sim's checkCollision): no source or destination may have a pending
// write (RAW and WAW). The zero registers are never reserved (build_issued), so they need no test.
[[gnu::always_inline]] inline bool sm_core::scoreboard_hazard(unsigned wi, const trace_inst& ti) const {
  bool hazard = false;
  const auto& reserved = wregs_[wi].reserved;
  for (int i = 0; i < ti.nsrc; ++i) hazard |= reserved[ti.src[i]];
  for (int i = 0; i < ti.ndst; ++i) hazard |= reserved[ti.dst[i]];
  return hazard;
}

// The issued instruction ti of warp wi, for `unit`, in its ID_OC slot of `port`; its destinations
// reserved on the scoreboard.
[[gnu::always_inline]] inline void sm_core::build_issued(register_set* port, unsigned sched, unsigned wi, op_class unit,
                                                         const trace_inst& ti) {
  warp_state& w = warps_[wi];
  const op_class cls = ti.info.cls;
  // Built in its ID_OC slot, every field set.
  warp_inst& in = port->emplace(cfg_.sub_core, sched, ++uid_);
  id_oc_held_ |= oc_order_bit_[unsigned(unit)];
  alloc_blocked_ = false;
  in.valid = true;
  in.op = unit;
  in.opcode = ti.opcode;
  const lat_ii l = class_lat_[unsigned(cls)];
  in.latency = l.latency;
  in.initiation = l.initiation;
  in.dispatch_cycles = l.initiation;
  in.warp = uint16_t(wi);
  in.sched = uint16_t(sched);
  in.active_mask = ti.mask;
  in.ndst = int8_t(ti.ndst);
  in.nsrc = int8_t(ti.nsrc);
  std::memcpy(in.dst, ti.dst, sizeof in.dst);
  std::memcpy(in.src, ti.src, sizeof in.src);
  in.space = ti.info.space;
  in.store = ti.info.store;
  in.width = ti.width;
  in.addrs = ti.width ? &ctas_[w.cta_slot].trace->addresses[ti.addr_index] : nullptr;
  for (int i = 0; i < ti.ndst; ++i)
    if (!is_zero_reg(ti.dst[i])) wregs_[wi].reserved.set(ti.dst[i]);
  ++w.pending;
  // Scoreboard::reserveRegisters marks the destinations of global/local loads as long operations.
  if (in.op == op_class::mem && !in.store && (in.space == mem_space::global || in.space == mem_space::local))
    for (int i = 0; i < ti.ndst; ++i)
      if (!is_zero_reg(ti.dst[i])) wregs_[wi].longop.set(ti.dst[i]);
}

// trace_shader_core_ctx::checkExecutionStatusAndUpdate: only the EXIT's active lanes are
// done; once all are (functional_done) the warp issues no more and ends when everything
// wrote back. A zero-mask (predicated-off) EXIT changes nothing.
void sm_core::issued_exit(warp_state& w, uint32_t mask) {
  w.lanes_left &= ~mask;
  if (w.lanes_left == 0) {
    w.exited = true;
    ++ctas_[w.cta_slot].exited;
    release_barrier_if_complete(w.cta_slot);
  }
}

// A barrier: the warp waits until every live warp of the CTA arrived.
void sm_core::issued_barrier(warp_state& w) {
  w.at_barrier = true;
  ++ctas_[w.cta_slot].at_barrier;
  release_barrier_if_complete(w.cta_slot);
}

// Warp wi's buffered instruction, clear on the scoreboard, into its free slot of `port`.
[[gnu::always_inline]] inline void sm_core::issue_one(register_set* port, unsigned sched, unsigned wi, op_class unit) {
  warp_state& w = warps_[wi];
  const trace_inst& ti = w.insts[w.next];
  const op_class cls = ti.info.cls;
  build_issued(port, sched, wi, unit, ti);
  progress_ = true;
  ++w.next;
  --w.ibuf;
  sb_clear_taken(wi);
  ++st_.warp_insts;
  st_.thread_insts += std::popcount(ti.mask);
  if (on_issue) on_issue(id_, wi, ti.opcode, cycle_);
  if (cls == op_class::exit)
    issued_exit(w, ti.mask);
  else if (cls == op_class::barrier)
    issued_barrier(w);
}

// Issues up to max_insn_issue_per_warp instructions of warp w (GPGPU-Sim's scheduler_unit::cycle
// inner loop); returns whether it issued, and reports in `blocked` why it stopped before the
// first one.
bool sm_core::try_issue(unsigned sched, unsigned wi, unsigned& blocked) {
  warp_state& w = warps_[wi];
  unsigned issued = 0, prev_kind = ~0u;
  blocked = unsigned(stall_cause::idle);
  while (issued < cfg_.max_insn_issue_per_warp && !w.exited && !w.at_barrier) {
    if (w.next >= w.size) {  // trace without EXIT: the warp ends here
      end_of_trace(wi);
      break;
    }
    if (w.ibuf == 0) break;    // instruction buffer empty: waiting for fetch/decode
    if (w.sb == sb_blocked) {  // nothing wrote back since the scoreboard last refused this instruction
      if (!issued) blocked = unsigned(stall_cause::scoreboard);
      break;
    }
    if (w.sb == sb_unknown) {
      const trace_inst& ti = w.insts[w.next];
      const op_class cls = ti.info.cls;
      w.unit = unit_for(cls);
      if (issued && cfg_.dual_issue_diff_exec_units && exec_kind(w.unit) == prev_kind) break;
      const bool hazard = scoreboard_hazard(wi, ti);
      if (hazard)
        sb_refused(wi);
      else
        sb_cleared(wi);
      if (hazard) {
        if (!issued) blocked = unsigned(stall_cause::scoreboard);
        break;
      }
    } else if (issued && cfg_.dual_issue_diff_exec_units && exec_kind(w.unit) == prev_kind) {
      break;
    }
    const op_class unit = w.unit;
    register_set* port = id_oc_[unsigned(unit)];
    if (!port->has_free(cfg_.sub_core, sched)) {
      if (!issued) blocked = unsigned(stall_cause::pipeline);
      break;
    }
    issue_one(port, sched, wi, unit);
    ++issued;
    prev_kind = exec_kind(unit);
  }
  if (issued || w.exited) refresh_fetchable(wi);  // nothing else here changes its fetch state
  if (issued) blocked = unsigned(stall_cause::n);
  return issued > 0;
}

namespace {
// scheduler_unit::cycle's precedence of the stall causes of a scan that issued nothing: a ready
// warp with no free pipeline, else a scoreboard refusal, else a barrier wait, else idle.
unsigned cause_rank(unsigned cause) {
  constexpr unsigned rank[unsigned(stall_cause::n)] = {0, 2, 3, 1};  // idle, scoreboard, pipeline, barrier
  return rank[cause];
}
}  // namespace

// Asks the scoreboard about warp wi's buffered instruction now, as a scan would (the answer is
// kept), and returns the scan's verdict for it: n when it can issue (clear and its issue-port
// slot free), else its stall cause (scoreboard or pipeline).
unsigned sm_core::ask_scoreboard(unsigned wi, unsigned s) {
  warp_state& w = warps_[wi];
  const trace_inst& ti = w.insts[w.next];
  w.unit = unit_for(ti.info.cls);
  if (scoreboard_hazard(wi, ti)) {
    sb_refused(wi);
    return unsigned(stall_cause::scoreboard);
  }
  sb_cleared(wi);
  return id_oc_[unsigned(w.unit)]->has_free(cfg_.sub_core, s) ? unsigned(stall_cause::n) : unsigned(stall_cause::pipeline);
}

// Warp wi's instruction buffer was just filled. A scheduler whose last scan failed and saw nothing
// change since fails again unless this warp can issue: when it is refused or its issue-port slot
// is taken, only the scheduler's cause changes, to the stronger of its own and the warp's, as a
// scan would find.
void sm_core::decoded(unsigned wi) {
  const unsigned s = wi % unsigned(sched_dirty_.size());
  if (sched_dirty_[s]) return;
  const warp_state& w = warps_[wi];
  if (two_level_active_ || sched_bit_[wi] >= 64 || !w.live || w.exited || w.at_barrier || w.sb != sb_unknown || w.ibuf == 0) {
    sched_dirty_[s] = 1;
    return;
  }
  const unsigned why = ask_scoreboard(wi, s);
  if (why == unsigned(stall_cause::n))
    sched_dirty_[s] = 1;  // it can issue
  else if (cause_rank(why) > cause_rank(sched_cause_[s]))
    sched_cause_[s] = uint8_t(why);
}

// Scheduler s has just issued. Its next scan would fail unless a warp can issue by then: every
// warp's answer is made known now (the ones a scan would ask: buffered, not at a barrier), and if
// none can issue the scheduler is left clean with the cause that scan would count. What could
// change that before the scan marks it dirty again (a write-back ending a refusal, a freed issue
// port slot while its cause is pipeline, a decode that lets a warp issue, a barrier, a launch, a
// warp's end), as after a failed scan.
void sm_core::settle_after_issue(unsigned s) {
  const unsigned nsched = unsigned(sched_dirty_.size());
  uint64_t clear = 0;
  for (uint32_t u = sb_clear_units_[s]; u; u &= u - 1) {
    const unsigned unit = unsigned(__builtin_ctz(u));
    if (id_oc_[unit]->has_free(cfg_.sub_core, s)) return;  // a warp clear for it can issue
    clear |= sb_clear_[s * num_op_classes + unit];
  }
  bool pipeline = clear != 0, barrier = false;
  for (uint64_t m = sched_live_[s] & ~sb_blocked_[s] & ~clear; m; m &= m - 1) {  // answers not known yet
    const unsigned wi = unsigned(__builtin_ctzll(m)) * nsched + s;
    const warp_state& w = warps_[wi];
    if (w.exited) continue;  // (a scan passes it by)
    if (w.at_barrier) {
      barrier = true;
      continue;
    }
    if (w.next >= w.size) return;  // its trace ends: the scan ends the warp
    if (w.ibuf == 0) continue;     // waits for fetch
    const unsigned why = ask_scoreboard(wi, s);
    if (why == unsigned(stall_cause::n)) return;
    pipeline |= why == unsigned(stall_cause::pipeline);
  }
  const stall_cause c = pipeline                                 ? stall_cause::pipeline
                        : (sb_blocked_[s] & sched_live_[s]) != 0 ? stall_cause::scoreboard
                        : barrier                                ? stall_cause::barrier
                                                                 : stall_cause::idle;
  sched_cause_[s] = uint8_t(c);
  sched_dirty_[s] = 0;
}

// One warp's turn in a scheduler's scan; the common stalls answer without try_issue (nothing
// changes, no trace read): the scoreboard refused the buffered instruction and nothing wrote back
// since, the instruction buffer waits for fetch, or a clear instruction's issue port is full.
[[gnu::always_inline]] inline bool sm_core::attempt_issue(unsigned s, unsigned wi, issue_scan& scan) {
  warp_state& w = warps_[wi];
  if (!w.live || w.exited) return false;
  if (w.at_barrier) {
    scan.barrier = true;
    return false;
  }
  if (w.next < w.size) {
    if (w.ibuf == 0) return false;
    if (w.sb == sb_blocked) {
      scan.scoreboard = true;
      return false;
    }
    if (w.sb == sb_clear) {
      register_set* port = id_oc_[unsigned(w.unit)];
      if (!port->has_free(cfg_.sub_core, s)) {
        scan.pipeline = true;  // its issue port slot is taken
        return false;
      }
      if (cfg_.max_insn_issue_per_warp == 1) {  // try_issue's one round, its checks all made
        issue_one(port, s, wi, w.unit);
        refresh_fetchable(wi);
        last_issued_[s] = int(wi);
        return true;
      }
    }
  }
  unsigned why;
  if (try_issue(s, wi, why)) {
    last_issued_[s] = int(wi);
    return true;
  }
  scan.scoreboard |= why == unsigned(stall_cause::scoreboard);
  scan.pipeline |= why == unsigned(stall_cause::pipeline);
  return false;
}

void sm_core::issue() {
  // GPGPU-Sim's shader_core_ctx::issue: the scheduler that runs first rotates every cycle.
  const unsigned nsched = unsigned(sched_warps_.size());
  for (unsigned i = 0, s = issue_prio_; i < nsched; ++i, s = s + 1 == nsched ? 0 : s + 1) {
    if (!sched_dirty_[s]) {  // nothing it looks at changed since it last failed to issue
      ++st_.sched_stalls[sched_cause_[s]];
      continue;
    }
    const auto& mine = sched_warps_[s];
    const unsigned n = unsigned(mine.size());
    issue_scan scan;
    bool done = false;
    auto attempt = [&](unsigned wi) __attribute__((always_inline)) { return attempt_issue(s, wi, scan); };
    // Warps that would fail without a change (kept collision; clear, but the port is full) are
    // not tried; a scan that issues nothing adds their causes at the end (it visits every warp).
    const uint64_t stands = n <= 64 && !two_level_active_ ? ~uint64_t(0) : 0;
    const uint64_t refused = sb_blocked_[s] & stands;
    uint64_t port_full = 0;
    for (uint32_t u = sb_clear_units_[s] & uint32_t(stands); u; u &= u - 1) {
      const unsigned unit = unsigned(__builtin_ctz(u));
      if (!id_oc_[unit]->has_free(cfg_.sub_core, s)) port_full |= sb_clear_[s * num_op_classes + unit];
    }
    const uint64_t skip = refused | port_full;
    if (gto_) {
      // greedy: the last issued warp first, then the oldest
      if (last_issued_[s] >= 0) done = attempt(unsigned(last_issued_[s]));
      if (!done)
        for (unsigned wi : age_order_[s])
          if (int(wi) != last_issued_[s] && !(skip >> (sched_bit_[wi] & 63) & 1) && (done = attempt(wi))) break;
    } else if (two_level_active_) {
      // two_level_active (GPGPU-Sim): order_warps demotes and promotes, then the active list is
      // tried in order; the warp that issues goes to the back (do_on_warp_issued, inner LRR).
      two_level_order(s);
      auto& act = tl_active_[s];
      for (size_t k = 0; k < act.size() && !done; ++k)
        if (warps_[act[k]].live && (done = attempt(act[k]))) std::rotate(act.begin(), act.begin() + ptrdiff_t(k) + 1, act.end());
    } else {
      // lrr: loose round robin from the warp after the last issued (mine[k] is warp
      // k * num_sched + s: the last issued warp's place is its index / num_sched)
      unsigned at = last_issued_[s] >= 0 ? unsigned(last_issued_[s]) / nsched + 1 : 0;
      if (n <= 64) {  // the live warps' bits from `at` round, without touching the others
        const uint64_t live = sched_live_[s];
        const uint64_t from = at >= n ? live : live >> at << at;
        for (uint64_t m = from & ~skip; m && !done; m &= m - 1) done = attempt(unsigned(__builtin_ctzll(m)) * nsched + s);
        for (uint64_t m = live & ~from & ~skip; m && !done; m &= m - 1) done = attempt(unsigned(__builtin_ctzll(m)) * nsched + s);
      }
      for (unsigned k = 0; n > 64 && k < n && !done; ++k, ++at) {
        if (at >= n) at -= n;
        unsigned wi = mine[at];
        if (warps_[wi].live) done = attempt(wi);
      }
    }
    if (done && stands) settle_after_issue(s);
    if (!done) {
      scan.scoreboard |= (refused & sched_live_[s]) != 0;
      scan.pipeline |= (port_full & sched_live_[s]) != 0;
      // scheduler_unit::cycle's order: no valid instruction (idle; here barrier waits apart),
      // else none past the scoreboard (scoreboard), else ready but no free pipeline (pipeline).
      stall_cause c = scan.pipeline     ? stall_cause::pipeline
                      : scan.scoreboard ? stall_cause::scoreboard
                      : scan.barrier    ? stall_cause::barrier
                                        : stall_cause::idle;
      ++st_.sched_stalls[unsigned(c)];
      sched_cause_[s] = uint8_t(c);
      sched_dirty_[s] = two_level_active_ != 0;  // two-level reorders its lists every cycle
    }
  }
  issue_prio_ = (issue_prio_ + 1) % nsched;
}

// two_level_active_scheduler::order_warps: a warp of the active list is demoted to the back of the
// pending queue when it is waiting (exited or an empty slot, or at a barrier) or when its next
// buffered instruction reads a register a global/local load has yet to write; then the front of
// the pending queue is promoted until the active list holds N again (outer level SRR).
bool sm_core::two_level_waiting(unsigned wi) const {
  const warp_state& w = warps_[wi];
  if (!w.live || w.exited || w.at_barrier) return true;
  if (w.ibuf == 0) return false;
  const trace_inst& ti = w.insts[w.next];
  for (int i = 0; i < ti.nsrc; ++i)
    if (!is_zero_reg(ti.src[i]) && wregs_[wi].longop.test(ti.src[i])) return true;
  return false;
}

void sm_core::two_level_order(unsigned s) {
  auto& act = tl_active_[s];
  auto& pend = tl_pending_[s];
  size_t keep = 0;
  for (size_t k = 0; k < act.size(); ++k) {
    if (two_level_waiting(act[k]))
      pend.push_back(act[k]);
    else
      act[keep++] = act[k];
  }
  act.resize(keep);
  while (act.size() < two_level_active_ && !pend.empty()) {
    act.push_back(pend.front());
    pend.pop_front();
  }
}

}  // namespace gpuvp::sm
