// SPDX-License-Identifier: Apache-2.0
#include "rtl_clock.h"

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

void rtl_clock::edge() {
  const uint64_t cycle = this->cycle();
  for (auto* c : parts_) c->sample(cycle);
  if (model_)
    model_->eval(true, reset_done_);
  else
    clk.write(true);
  wait(half_);
  if (!model_) clk.write(false);
  ++cycles;
  if (!reset_done_ && cycles >= reset_cycles_) {
    rst_n.write(true);
    rst.write(false);
    reset_done_ = true;
  }
  for (auto* c : parts_) c->update(cycle);
  if (model_) model_->eval(false, reset_done_);
  // update() may have waited in a TLM target: go on at the next edge of the grid.
  const uint64_t p = period_.value();
  const uint64_t next = (sc_core::sc_time_stamp().value() / p + 1) * p;
  wait(sc_core::sc_time::from_value(next - sc_core::sc_time_stamp().value()));
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
