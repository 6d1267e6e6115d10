// SPDX-License-Identifier: Apache-2.0
#include "rtl_trace.h"

#include <verilated.h>
#include <verilated_fst_sc.h>

namespace gpuvp::rtl {

rtl_trace::rtl_trace(sc_core::sc_module_name name) : sc_module(name) {
  if (!file.get().empty()) Verilated::traceEverOn(true);  // before any model is built
  // A fresh set of plusargs for this platform ($test$plusargs needs commandArgs to be called; the
  // RTL reads them at its first evaluation, when the simulation starts).
  const char* argv[] = {"gpuvp"};
  Verilated::commandArgs(1, argv);
}

rtl_trace::~rtl_trace() { close(); }

std::shared_ptr<rtl_trace> rtl_trace::instance() {
  static std::weak_ptr<rtl_trace> current;
  if (auto p = current.lock()) return p;
  auto p = std::make_shared<rtl_trace>("rtl_trace");
  current = p;
  return p;
}

void rtl_trace::add_plusarg(const std::string& arg) {
  const char* argv[] = {arg.c_str()};
  Verilated::commandArgsAdd(1, argv);
}

void rtl_trace::start_of_simulation() {
  if (file.get().empty() || models_.empty()) return;
  fst_ = new VerilatedFstSc;
  for (auto& m : models_) m(fst_);
  fst_->open(file.get().c_str());
  if (!fst_->isOpen()) throw config_error("rtl.trace: cannot create " + file.get());
}

void rtl_trace::close() {
  if (fst_) fst_->close();
}

}  // namespace gpuvp::rtl
