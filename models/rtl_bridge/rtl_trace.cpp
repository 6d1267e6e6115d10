// SPDX-License-Identifier: Apache-2.0
#include "rtl_trace.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <verilated.h>
#include <verilated_fst_sc.h>

// The FST reader of gtkwave's fstapi, compiled into Verilator's FST writer (verilated_fst_c.cpp).
extern "C" {
void* fstReaderOpen(const char* name);
void fstReaderClose(void* ctx);
signed char fstReaderGetTimescale(void* ctx);
int fstReaderProcessHier(void* ctx, FILE* vcd);
void fstReaderSetFacProcessMaskAll(void* ctx);
int fstReaderIterBlocks(void* ctx, void (*cb)(void*, uint64_t, uint32_t, const unsigned char*), void* user, FILE* vcd);
}

namespace gpuvp::rtl {
namespace {
bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// FST -> VCD, as gtkwave's fst2vcd does: header, hierarchy, then every value change.
bool fst_to_vcd(const std::string& fst, const std::string& vcd) {
  void* ctx = fstReaderOpen(fst.c_str());
  if (!ctx) return false;
  FILE* out = std::fopen(vcd.c_str(), "w");
  if (!out) {
    fstReaderClose(ctx);
    return false;
  }
  const int exp = fstReaderGetTimescale(ctx);  // 10^exp seconds per tick
  static const char* units[] = {"s", "ms", "us", "ns", "ps", "fs"};
  const int unit = std::clamp((2 - exp) / 3, 0, 5);  // -12 -> ps, -10 -> 100 ps
  long mult = 1;
  for (int e = exp + 3 * unit; e > 0; --e) mult *= 10;
  std::fprintf(out, "$version gpuvp --rtl-trace (from Verilator's FST) $end\n$timescale %ld%s $end\n", mult, units[unit]);
  fstReaderProcessHier(ctx, out);
  fstReaderSetFacProcessMaskAll(ctx);
  fstReaderIterBlocks(ctx, nullptr, nullptr, out);
  fstReaderClose(ctx);
  return std::fclose(out) == 0;
}
}  // namespace

rtl_trace::rtl_trace(sc_core::sc_module_name name) : sc_module(name) {
  const std::string& f = file.get();
  if (!f.empty() && !ends_with(f, ".fst") && !ends_with(f, ".vcd"))
    throw config_error("rtl.trace (--rtl-trace): '" + f + "' must end in .fst (FST) or .vcd (VCD)");
  fst_file_ = ends_with(f, ".vcd") ? f + ".fst.tmp" : f;
  if (!f.empty()) Verilated::traceEverOn(true);  // before any model is built
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
  fst_->open(fst_file_.c_str());
  if (!fst_->isOpen()) throw config_error("rtl.trace: cannot create " + fst_file_);
}

void rtl_trace::close() {
  if (!fst_ || !fst_->isOpen()) return;
  fst_->close();
  if (fst_file_ != file.get()) {
    if (!fst_to_vcd(fst_file_, file.get())) std::fprintf(stderr, "gpuvp: rtl.trace: cannot write %s\n", file.get().c_str());
    std::error_code ec;
    std::filesystem::remove(fst_file_, ec);
  }
}

}  // namespace gpuvp::rtl
