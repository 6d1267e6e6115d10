// SPDX-License-Identifier: Apache-2.0
#include "fu.h"

#include <algorithm>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace gpuvp::sm {

const char* op_class_name(op_class c) {
  static const char* names[num_op_classes] = {"SP",    "DP",    "SFU",   "INT",   "TENSOR", "MEM",  "SPEC1", "SPEC2", "SPEC3",
                                              "SPEC4", "SPEC5", "SPEC6", "SPEC7", "SPEC8",  "EXIT", "BAR",   "NOP"};
  return names[unsigned(c)];
}

// ---- register_set ----------------------------------------------------------------------------

register_set::register_set(unsigned width, std::string name) : width_(width), regs_(width), name_(std::move(name)) {
  if (width == 0 || width > 64) throw std::invalid_argument("register set " + name_ + ": width must be 1-64");
}
void register_set::fail_full() const { throw std::logic_error("register set " + name_ + " full or slot busy on move_in"); }
unsigned register_set::oldest() const {
  unsigned best = unsigned(__builtin_ctzll(mask_));
  for (uint64_t m = mask_ & (mask_ - 1); m; m &= m - 1) {
    const unsigned i = unsigned(__builtin_ctzll(m));
    if (regs_[i].uid < regs_[best].uid) best = i;
  }
  return best;
}
void register_set::move_out_to(warp_inst& dst) {
  warp_inst* r = get_ready();
  dst = *r;
  clear_slot(*r);
}
void register_set::move_out_to(bool sub_core, unsigned slot, warp_inst& dst) {
  warp_inst* r = get_ready(sub_core, slot);
  dst = *r;
  clear_slot(*r);
}

// ---- units -----------------------------------------------------------------------------------

pipelined_unit::pipelined_unit(std::string name, register_set* result_port, unsigned max_latency, std::vector<op_class> supported)
    : simd_function_unit(std::move(name)), result_port_(result_port), stages_(std::max(1u, max_latency)), depth_(unsigned(stages_.size())) {
  for (op_class c : supported) supported_ |= uint32_t(1) << unsigned(c);
}

bool pipelined_unit::accepts(op_class op) const { return supported_ >> unsigned(op) & 1; }

void pipelined_unit::cycle() { step(); }

// ---- execute stage ---------------------------------------------------------------------------

execute_stage::execute_stage(unsigned ex_wb_width, bool sub_core)
    : buses_(std::max(1u, ex_wb_width)), ex_wb_(std::max(1u, ex_wb_width), "EX_WB"), sub_core_(sub_core) {}

void execute_stage::add_unit(std::unique_ptr<simd_function_unit> u, register_set* issue_port, unsigned sub_core_slot) {
  const bool own = sub_core_ && sub_core_slot != any_slot;
  if (u->stallable()) stallable_.push_back(unsigned(units_.size()));
  const bool stallable = u->stallable();
  uint32_t accepts = 0;
  for (unsigned c = 0; c < num_op_classes; ++c)
    if (u->accepts(op_class(c))) accepts |= uint32_t(1) << c;
  pipelined_unit* pipe = dynamic_cast<pipelined_unit*>(u.get());
  units_.push_back({std::move(u), issue_port, sub_core_slot, own, own ? sub_core_slot % issue_port->size() : 0, accepts, stallable, pipe});
  const unsigned i = unsigned(units_.size() - 1);
  if (i >= 64) {
    masked_ = false;
    return;
  }
  set_awake(i, units_.back().quiet);
  auto p = std::find_if(ports_.begin(), ports_.end(), [&](const port_units& x) { return x.port == issue_port; });
  if (p == ports_.end()) {  // (at most 64: a unit each)
    issue_port->watch(&ports_held_, uint64_t(1) << ports_.size());
    p = ports_.insert(ports_.end(), {issue_port, 0});
  }
  p->units |= uint64_t(1) << i;
}

int execute_stage::test_res_bus(unsigned latency) const { return buses_.first_free(latency); }

std::bitset<MAX_ALU_LATENCY> execute_stage::result_bus(unsigned i) const {
  std::bitset<MAX_ALU_LATENCY> r;
  for (unsigned k = 0; k < MAX_ALU_LATENCY; ++k) r[k] = buses_.test(i, k);
  return r;
}

bool execute_stage::execute(bool stallable_only) {
  bool moved = false;
  buses_.shift();
  if (stallable_only) {
    for (unsigned i : stallable_) {
      moved |= step(units_[i]);
      if (masked_) set_awake(i, units_[i].quiet);
    }
  } else if (masked_) {
    uint64_t visit = awake_;
    for (uint64_t m = ports_held_; m; m &= m - 1) visit |= ports_[unsigned(__builtin_ctzll(m))].units;
    for (; visit; visit &= visit - 1) {
      const unsigned i = unsigned(__builtin_ctzll(visit));
      entry& e = units_[i];
      // A quiet unit whose slot is empty (another unit's slot of the port is taken) would return
      // at once; its awake bit is already clear (awake_ is !quiet after every step).
      if (e.quiet && !(e.own_slot ? e.port->slots_mask() >> e.index & 1 : e.port->has_ready())) continue;
      moved |= step(e);
      set_awake(i, e.quiet);
    }
  } else {
    for (auto& e : units_) moved |= step(e);
  }
  return moved;
}

// One unit's part of execute(): its cycle(s), then an issue from its port. True when the cycle
// counts as moved (see execute()). Unit: pipelined_unit (final: direct calls) or the base.
template <class Unit>
bool execute_stage::step_unit(entry& e, Unit& fu) {
  constexpr bool pipelined = std::is_same_v<Unit, pipelined_unit>;
  warp_inst* ready = e.own_slot ? e.port->ready_at(e.index) : e.port->get_ready();
  if (e.quiet && !ready) return false;  // nothing in flight and nothing to take: cycle() is a no-op
  bool moved = false;
  if (!e.quiet) {
    moved = !e.stallable;
    for (unsigned c = 0, m = fu.clock_multiplier(); c < m; ++c) {
      if constexpr (pipelined)
        fu.step();
      else
        fu.cycle();
    }
  }
  e.quiet = !fu.busy() && fu.occupied_none();  // quiescent()
  if (!ready || !(e.accepts >> unsigned(ready->op) & 1)) return moved;
  // (a pipelined unit's accepts() is e.accepts, just tested)
  if (!(pipelined ? fu.simd_function_unit::can_issue(*ready) : fu.can_issue(*ready))) {
    ++dispatch_stalls;
    return moved;
  }
  if (!e.stallable) {
    // Trace latencies are checked against MAX_ALU_LATENCY when the configuration is read.
    const int bus = buses_.first_free(ready->latency);
    if (bus < 0) {
      ++result_bus_stalls;
      return true;
    }
    buses_.set(unsigned(bus), ready->latency);
  }
  if constexpr (pipelined)
    fu.take(*e.port, *ready);
  else
    fu.issue(*e.port, *ready);
  ++port_takes_;
  e.quiet = false;
  return true;
}

void execute_stage::idle_cycle(uint64_t n) {
  buses_.shift(n);
  if (masked_) {
    for (uint64_t m = awake_; m; m &= m - 1) {
      const unsigned i = unsigned(__builtin_ctzll(m));
      entry& e = units_[i];
      e.fu->shift_occupied(n * e.fu->clock_multiplier());
      e.quiet = e.fu->quiescent();
      set_awake(i, e.quiet);
    }
    return;
  }
  for (auto& e : units_) {
    if (e.quiet) continue;
    e.fu->shift_occupied(n * e.fu->clock_multiplier());
    e.quiet = e.fu->quiescent();
  }
}

bool execute_stage::busy() const {
  if (ex_wb_.has_ready()) return true;
  return std::any_of(units_.begin(), units_.end(), [](const entry& e) { return e.fu->busy(); });
}

}  // namespace gpuvp::sm
