// SPDX-License-Identifier: Apache-2.0
// rtl_trace: the Verilator side of the RTL co-simulation, shared by every RTL block.
//   - Waveforms of the RTL blocks: `gpuvp run --rtl-trace waves.fst|waves.vcd` (key rtl.trace),
//     the format chosen by the extension (any other is a configuration error, exit 2). Every
//     Verilated model registers here; the file is opened at the start of the simulation (after
//     elaboration, as Verilator requires) and closed at its end. The models are built with FST
//     tracing only (Verilator 5.006 compiles one format per model), so a .vcd is written as FST
//     beside it (FILE.fst.tmp) and converted with the FST reader Verilator ships when it closes. The AXI pins appear under the
//     RTL's port names (s_axi_*, m_axi_*, s_axil_*) inside each block's scope; GTKWave opens it.
//   - Plusargs: `add_plusarg("+copy_inject_bug")` during elaboration (after instance()). Verilator keeps
//     plusargs per process (one VerilatedContext), so they reach every RTL block of the run.
// Only built when GPUVP_RTL is on (it needs Verilator's headers).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>
#include <systemc>
#include "gpuvp/config.h"

class VerilatedFstC;
class VerilatedFstSc;

namespace gpuvp::rtl {

class rtl_trace : public sc_core::sc_module {
 public:
  param<std::string> file{"rtl.trace", "", "waveform file of the RTL blocks (.fst or .vcd), '' for none (--rtl-trace)"};
  // A host-speed switch of the clocks that evaluate their model directly (rtl_clock::drive):
  // results are the same either way.
  param<bool> early_rise{"rtl.early_rise", true,
                         "let an RTL clock that evaluates its model directly make edges ahead of the kernel's time while nothing "
                         "else can tell (host speed only)"};

  // The one instance, shared by the RTL blocks that hold it: the first creates it (a child module
  // "rtl_trace" of that block), it goes when the last lets go (with the platform).
  static std::shared_ptr<rtl_trace> instance();
  // Registers a Verilated model for tracing: add([&m](VerilatedFstC* t) { m.trace(t, 99); }).
  void add(std::function<void(VerilatedFstC*)> trace_model) { models_.push_back(std::move(trace_model)); }
  static void add_plusarg(const std::string& arg);
  void close();
  explicit rtl_trace(sc_core::sc_module_name name);
  ~rtl_trace() override;

 private:
  void start_of_simulation() override;
  void end_of_simulation() override { close(); }
  std::vector<std::function<void(VerilatedFstC*)>> models_;
  VerilatedFstSc* fst_ = nullptr;
  std::string fst_file_;  // what the FST writer writes (file, or a temporary for .vcd)
};

}  // namespace gpuvp::rtl
