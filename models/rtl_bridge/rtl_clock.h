// SPDX-License-Identifier: Apache-2.0
// rtl_clock: the clock and reset of one RTL block, run only while the block has work.
//
// Each cycle the clock thread lets every transactor sample the settled pins, raises clk (posedge
// logic), and half a period later lowers clk and lets every transactor drive new pin values, which
// settle in delta cycles before the next rising edge. The clock runs while a transactor is active
// or the RTL's `busy` output is high, and sleeps otherwise (an idle block costs nothing); edges lie
// on a fixed grid from time 0, so cycle numbers are reproducible. Reset is held active for the first
// `reset_cycles` rising edges. With --trace each bus transaction is a span on the block's track,
// overlapping ones on further lanes "NAME (2)", ... (docs/rtl.md).
// A plain C++ model (direct_model) is evaluated by the clock itself instead of through the clk
// signal, and then the clock may run ahead of the kernel's time (rtl_clock.cpp, "Running ahead").
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include <systemc>
#include "gpuvp/stats.h"
#include "gpuvp/trace.h"

namespace gpuvp::rtl {

// A transactor (or checker) that takes part in every clock cycle.
class clocked {
 public:
  virtual ~clocked() = default;
  virtual void sample(uint64_t cycle) = 0;  // before the rising edge: pins are settled
  virtual void update(uint64_t cycle) = 0;  // after the edge: advance, drive the pins
  virtual bool active() const = 0;          // needs the clock
};

// A Verilated model without SystemC (gpuvp_verilate ... PLAIN_CXX) that the clock evaluates
// itself: eval() sets the model's clock and reset inputs, copies the other inputs from its pins
// (made direct: axi.h, pin), evaluates and copies the outputs back. No signal, delta cycle or
// process of the model's own per edge: the clock's two timed waits a cycle are all the kernel sees.
class direct_model {
 public:
  virtual ~direct_model() = default;
  virtual void eval(bool clk, bool rst_n) = 0;
};

class rtl_clock : public sc_core::sc_module {
 public:
  sc_core::sc_signal<bool> clk{"clk"}, rst_n{"rst_n"}, rst{"rst", true};

  counter cycles{this, "cycles", "RTL clock cycles simulated (only while the RTL has work)"};
  counter wakeups{this, "wakeups", "times the clock started again after sleeping"};

  rtl_clock(sc_core::sc_module_name name, const sc_core::sc_time& period, uint64_t reset_cycles);
  void add(clocked* c) { parts_.push_back(c); }
  // The RTL's busy output (optional): high keeps the clock running.
  void watch_busy(const sc_core::sc_signal_in_if<bool>* busy) { busy_ = busy; }
  // Evaluate `m` at each edge instead of driving the clk / rst_n signals (set before the
  // simulation starts). The model is evaluated once at time 0 with the clock low and reset active.
  // early: the clock may run ahead of the kernel's time (rtl_clock.cpp, "Running ahead"); never
  // with waveforms, which would show the edges early. Results are the same either way.
  void drive(direct_model* m, bool early) { model_ = m, early_ = early; }
  // Called in the clock's thread before anything other processes can see (a TLM call, an event,
  // a signal write, a stop): when the clock runs ahead, waits for its own time first.
  void sync();
  // The clock's time: the kernel's, or ahead of it while the clock thread computes ahead.
  sc_core::sc_time now() const { return ahead_ ? sc_core::sc_time::from_value(time_) : sc_core::sc_time_stamp(); }
  // Edges made ahead of the kernel's time (host speed only: not a statistic).
  uint64_t ahead_edges() const { return ahead_edges_; }
  // Work arrived (called by a transactor from any process).
  void wake() { wake_.notify(sc_core::SC_ZERO_TIME); }
  const sc_core::sc_time& period() const { return period_; }
  // Index of the current (or last) rising edge: now() / period.
  uint64_t cycle() const { return now().value() / period_.value(); }
  // Cycles (rounded up) that cover a TLM annotated delay.
  uint64_t cycles_for(const sc_core::sc_time& t) const;
  bool in_reset() const { return !reset_done_; }
  // True in the clock's own thread (a transactor's update() calling out through TLM): a slave
  // transactor reached from there would wait for edges the blocked thread cannot make.
  bool in_clock_thread() const { return sc_core::sc_get_current_process_handle() == thread_; }
  // A bus transaction from `start` to now as a trace span (nothing when tracing is off).
  void trace_span(const char* what, const sc_core::sc_time& start, const trace_args& args);

 private:
  void thread();
  void edge();
  void rise(uint64_t cycle);
  void fall(uint64_t cycle);
  bool may_run_ahead_to(uint64_t t);
  void go_to(uint64_t t);
  bool needed() const;
  void wait_for_grid();
  sc_core::sc_time period_, half_;
  uint64_t reset_cycles_;
  bool reset_done_ = false;
  const sc_core::sc_signal_in_if<bool>* busy_ = nullptr;
  direct_model* model_ = nullptr;
  bool early_ = false, ahead_ = false;
  uint64_t time_ = 0;   // the clock's time while ahead_
  uint64_t limit_ = 0;  // while ahead_: the kernel's next activity (exclusive)
  uint64_t ahead_edges_ = 0;
  std::vector<clocked*> parts_;
  sc_core::sc_event wake_;
  sc_core::sc_process_handle thread_;
  struct lane {
    uint32_t track;
    sc_core::sc_time end;
  };
  std::vector<lane> lanes_;  // trace tracks of the block, with the end of their last span
};

}  // namespace gpuvp::rtl
