// SPDX-License-Identifier: Apache-2.0
#include "rtl_clock.h"

#include "gpuvp/timing.h"
#include "gpuvp/trace.h"

namespace gpuvp::rtl {

rtl_clock::rtl_clock(sc_core::sc_module_name name, const sc_core::sc_time& period, uint64_t reset_cycles)
    : sc_module(name), period_(period), half_(period / 2), reset_cycles_(reset_cycles) {
  SC_HAS_PROCESS(rtl_clock);
  SC_THREAD(thread);
  thread_ = sc_core::sc_get_current_process_handle();
}

uint64_t rtl_clock::cycles_for(const sc_core::sc_time& t) const {
  const uint64_t p = period_.value();
  return (t.value() + p - 1) / p;
}

bool rtl_clock::needed() const {
  if (busy_ && busy_->read()) return true;
  for (auto* c : parts_)
    if (c->active()) return true;
  return false;
}

void rtl_clock::trace_span(const char* what, const sc_core::sc_time& start, const trace_args& args) {
  auto& tr = tracer::global();
  if (!tr.enabled()) return;
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  size_t i = 0;
  while (i < lanes_.size() && lanes_[i].end > start) ++i;
  if (i == lanes_.size()) {
    const sc_core::sc_object* block = get_parent_object();
    const std::string owner = block ? block->name() : name();
    lanes_.push_back({tr.track(i ? owner + " (" + std::to_string(i + 1) + ")" : owner), now});
  }
  lanes_[i].end = now;
  tr.span(lanes_[i].track, what, start, now - start, args);
}

void rtl_clock::wait_for_grid() {
  const uint64_t p = period_.value(), now = sc_core::sc_time_stamp().value();
  const uint64_t next = (now + p - 1) / p * p;
  if (next > now) wait(sc_core::sc_time::from_value(next - now));
}

// The rising edge of `cycle`: the transactors sample the settled pins, the RTL sees clk rise.
void rtl_clock::rise(uint64_t cycle) {
  for (auto* c : parts_) c->sample(cycle);
  if (model_)
    model_->eval(true, reset_done_);
  else
    clk.write(true);
}

// Half a period later: the transactors advance and drive new pin values, the RTL sees clk fall.
void rtl_clock::fall(uint64_t cycle) {
  if (!model_) clk.write(false);
  ++cycles;
  if (!reset_done_ && cycles >= reset_cycles_) {
    sync();
    rst_n.write(true);
    rst.write(false);
    reset_done_ = true;
  }
  for (auto* c : parts_) c->update(cycle);
  if (model_) model_->eval(false, reset_done_);
}

// Running ahead. A direct model's edges need the kernel only for what other processes can see,
// so the clock may make them before their time, its own time (now()) ahead of the kernel's:
//   - only while no other process has activity up to that time (sc_time_to_pending_activity, taken
//     when the clock last caught up; nothing else runs while it computes, so nothing new appears),
//     so nobody could have touched the transactors' queues in between;
//   - a falling edge (transactors' update) only up to run_horizon(): past it the caller of
//     sc_start may stop the run, and the edge must not have happened; a rising edge (sampling the
//     pins, evaluating the model) only changes what the next falling edge reads;
//   - what others can see waits for its own time first (sync()): a TLM call out of a transactor, a
//     finished transaction, a trace span, a signal write (irq, busy, reset), a protocol violation.
// No waveforms (they would show edges early). Results are the same with rtl.early_rise off.
bool rtl_clock::may_run_ahead_to(uint64_t t) {
  if (sc_core::sc_get_curr_simcontext()->sim_status() != sc_core::SC_SIM_OK) return false;  // sc_stop(): no edge after it
  if (!ahead_) {
    const uint64_t now = sc_core::sc_time_stamp().value();
    limit_ = now + sc_core::sc_time_to_pending_activity().value();  // max_time - now when idle: no overflow
  }
  return t < limit_;
}

void rtl_clock::sync() {
  if (!ahead_) return;
  ahead_ = false;
  const uint64_t now = sc_core::sc_time_stamp().value();
  if (time_ > now) wait(sc_core::sc_time::from_value(time_ - now));
}

void rtl_clock::go_to(uint64_t t) {
  const uint64_t now = sc_core::sc_time_stamp().value();
  if (t > now) wait(sc_core::sc_time::from_value(t - now));
}

void rtl_clock::edge() {
  uint64_t cycle = this->cycle();
  rise(cycle);
  wait(half_);
  for (;;) {
    fall(cycle);
    // update() may have waited in a TLM target: go on at the next edge of the grid.
    const uint64_t p = period_.value(), now = this->now().value();
    const uint64_t next = (now / p + 1) * p, fall_at = next + half_.value();
    if (!early_ || (reset_done_ && !needed()) || !may_run_ahead_to(fall_at)) {
      sync();
      go_to(next);
      return;
    }
    cycle = next / p;
    time_ = next, ahead_ = true;
    rise(cycle);
    if (ahead_ && fall_at <= run_horizon().value()) {
      time_ = fall_at;
      ++ahead_edges_;
      continue;
    }
    sync();
    go_to(fall_at);
  }
}

void rtl_clock::thread() {
  if (model_) model_->eval(false, false);  // as a SystemC model's first evaluation at time 0
  while (!reset_done_) edge();
  for (;;) {
    if (!needed()) {
      wait(wake_);
      ++wakeups;
      wait_for_grid();
      continue;
    }
    edge();
  }
}

}  // namespace gpuvp::rtl
