// SPDX-License-Identifier: Apache-2.0
// RTL co-simulation speed, each against a baseline measured in the same run (docs/rtl.md):
//   BM_copy/0 | BM_copy/1   - the copy engine copying 1 MiB (16 copies of 64 KiB through its
//                             registers, interrupts and byte checks: the .copies workload) with
//                             copy.impl=tlm (0) and copy.impl=rtl (1); items = bytes copied, and
//                             for rtl rtl_cycles = RTL clock cycles simulated per wall second
//   BM_bare                 - the baseline of the RTL clock's speed: the same copies on the same
//                             copy engine RTL, Verilated as plain C++ and clocked by a bare loop
//                             (bare_copy.h); items = bytes, rtl_cycles = cycles per wall second
//   BM_idle/0 | BM_idle/1   - the traffic workload without (0) and with (1) an idle RTL SRAM
//                             (rtl_sram mapped at 12 GiB, never accessed); items = transactions
// Each iteration is one whole `gpuvp run` in-process (elaboration included). At the end the
// program prints the rtl/tlm ratio of copy bytes per second, the RTL cycles per second under gpuvp
// against the bare loop's (goal: at least 0.5x), and the idle RTL's relative cost.
#include <benchmark/benchmark.h>

#include <chrono>
#include <ctime>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <nlohmann/json.hpp>
#include "bare_copy.h"
#include "cli.h"
#include "gpuvp/config.h"
#include "gpuvp/registry.h"
#include "gpuvp/trace.h"

namespace {

void fresh_simulation() {
  sc_core::sc_curr_simcontext = new sc_core::sc_simcontext();
  sc_core::sc_default_global_context = sc_core::sc_curr_simcontext;
  gpuvp::config::global().reset();
  gpuvp::logger::global().reset();
  gpuvp::register_all_models();
}

// One `gpuvp run ARGS --stats F`; returns the statistics, or an error text in "error".
nlohmann::json run(std::vector<std::string> args) {
  const std::string stats = "/tmp/gpuvp_bench_rtl_stats.json";
  fresh_simulation();
  args.insert(args.begin(), {"gpuvp", "run"});
  args.insert(args.end(), {"--stats", stats});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  std::istringstream in;
  std::ostringstream out, err;
  const int rc = gpuvp::gpuvp_main(int(argv.size()), argv.data(), in, out, err);
  if (rc != 0) return {{"error", "exit " + std::to_string(rc) + ": " + err.str()}};
  std::ifstream f(stats);
  return nlohmann::json::parse(f, nullptr, false);
}

constexpr unsigned copies = 16, copy_bytes = 64 * 1024;
std::string copy_list() {
  const std::string path = "/tmp/gpuvp_bench_rtl.copies";
  std::ofstream f(path);
  for (unsigned i = 0; i < copies; ++i)  // sources from 1 MiB, destinations from 4 MiB, 64 KiB apart plus a gap
    f << "copy 0x" << std::hex << 0x100000 + i * 0x11000 << " 0x" << 0x400000 + i * 0x11000 << std::dec << " " << copy_bytes << "\n";
  return path;
}

std::map<std::string, double> rates;  // benchmark name -> items per wall second

double rate(uint64_t items, double wall) { return wall > 0 ? double(items) / wall : 0; }
}  // namespace

static void BM_copy(benchmark::State& state) {
  const bool rtl = state.range(0) == 1;
  const std::string list = copy_list();
  uint64_t bytes = 0, cycles = 0;
  double wall = 0, cpu = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    const auto j = run({"--workload", list, "--set", std::string("copy.impl=") + (rtl ? "rtl" : "tlm")});
    wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    cpu += double(std::clock() - c0) / CLOCKS_PER_SEC;
    if (j.is_discarded() || j.contains("error")) {
      state.SkipWithError(j.is_discarded() ? "no statistics" : j["error"].get<std::string>().c_str());
      return;
    }
    bytes += uint64_t(copies) * copy_bytes;
    if (rtl) cycles += j.value("copy.rtl.clk.cycles", uint64_t(0));
  }
  state.SetItemsProcessed(int64_t(bytes));
  state.SetBytesProcessed(int64_t(bytes));
  if (rtl) state.counters["rtl_cycles"] = benchmark::Counter(double(cycles), benchmark::Counter::kIsRate);
  rates[rtl ? "copy_rtl" : "copy_tlm"] = rate(bytes, wall);
  rates[rtl ? "copy_rtl_cpu" : "copy_tlm_cpu"] = rate(bytes, cpu);
  if (rtl) rates["rtl_cycles"] = rate(cycles, wall), rates["rtl_cycles_cpu"] = rate(cycles, cpu);
}
BENCHMARK(BM_copy)->Arg(0)->Arg(1)->Iterations(3)->Unit(benchmark::kMillisecond)->UseRealTime();

static void BM_bare(benchmark::State& state) {
  std::vector<bare_copy_job> jobs;
  for (unsigned i = 0; i < copies; ++i) jobs.push_back({0x100000 + i * 0x11000ull, 0x400000 + i * 0x11000ull, copy_bytes});
  uint64_t cycles = 0;
  double wall = 0, cpu = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    const bare_copy_result r = bare_copy(jobs);
    wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    cpu += double(std::clock() - c0) / CLOCKS_PER_SEC;
    if (!r.error.empty()) {
      state.SkipWithError(r.error.c_str());
      return;
    }
    cycles += r.cycles;
  }
  state.SetItemsProcessed(int64_t(state.iterations() * copies * copy_bytes));
  state.counters["rtl_cycles"] = benchmark::Counter(double(cycles), benchmark::Counter::kIsRate);
  rates["bare_cycles"] = rate(cycles, wall), rates["bare_cycles_cpu"] = rate(cycles, cpu);
}
BENCHMARK(BM_bare)->Iterations(3)->Unit(benchmark::kMillisecond)->UseRealTime();

static void BM_idle(benchmark::State& state) {
  const bool with_rtl = state.range(0) == 1;
  std::vector<std::string> args = {
      "--workload", "traffic", "--set", "traffic.g0.count=20000", "--set", "traffic.g1.count=20000", "--set", "traffic.g2.count=20000"};
  if (with_rtl)
    args.insert(args.end(), {"--set", "components.sram=rtl_sram", "--set", "sram.base=0x300000000", "--set", "sram.size=0x10000"});
  uint64_t transactions = 0, cycles = 0;
  double wall = 0, cpu = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    const auto j = run(args);
    wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    cpu += double(std::clock() - c0) / CLOCKS_PER_SEC;
    if (j.is_discarded() || j.contains("error")) {
      state.SkipWithError(j.is_discarded() ? "no statistics" : j["error"].get<std::string>().c_str());
      return;
    }
    transactions += 60000;
    if (with_rtl) cycles += j.value("sram.clk.cycles", uint64_t(0));
  }
  state.SetItemsProcessed(int64_t(transactions));
  if (with_rtl) state.counters["rtl_cycles"] = double(cycles) / double(state.iterations());  // per run: reset only
  rates[with_rtl ? "idle_rtl" : "idle_none"] = rate(transactions, wall);
  rates[with_rtl ? "idle_rtl_cpu" : "idle_none_cpu"] = rate(transactions, cpu);
}
BENCHMARK(BM_idle)->Arg(0)->Arg(1)->Iterations(10)->Unit(benchmark::kMillisecond)->UseRealTime();

int sc_main(int argc, char** argv) {
  gpuvp::logger::global().reset();
  run({"--workload", "traffic"});  // warm-up: the first run in a process pays for page faults and caches
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
  if (rates.count("copy_rtl") && rates.count("copy_tlm")) {
    std::printf("copy engine bytes per wall second: rtl %.4g, tlm %.4g, rtl/tlm = %.4f\n", rates["copy_rtl"], rates["copy_tlm"],
                ratio(rates["copy_rtl"], rates["copy_tlm"]));
    std::printf("copy engine bytes per CPU second:  rtl %.4g, tlm %.4g, rtl/tlm = %.4f\n", rates["copy_rtl_cpu"], rates["copy_tlm_cpu"],
                ratio(rates["copy_rtl_cpu"], rates["copy_tlm_cpu"]));
    std::printf("RTL cycles per wall second %.4g, per CPU second %.4g\n", rates["rtl_cycles"], rates["rtl_cycles_cpu"]);
  }
  if (rates.count("rtl_cycles") && rates.count("bare_cycles")) {
    std::printf("RTL cycles per wall second: gpuvp %.4g, bare loop %.4g, gpuvp/bare = %.4f (goal >= 0.5)\n", rates["rtl_cycles"],
                rates["bare_cycles"], ratio(rates["rtl_cycles"], rates["bare_cycles"]));
    std::printf("RTL cycles per CPU second:  gpuvp %.4g, bare loop %.4g, gpuvp/bare = %.4f\n", rates["rtl_cycles_cpu"],
                rates["bare_cycles_cpu"], ratio(rates["rtl_cycles_cpu"], rates["bare_cycles_cpu"]));
  }
  if (rates.count("idle_rtl") && rates.count("idle_none")) {
    std::printf("idle RTL SRAM, traffic transactions per wall second: %.4g without, %.4g with: cost %+.1f %%\n", rates["idle_none"],
                rates["idle_rtl"], 100.0 * (ratio(rates["idle_none"], rates["idle_rtl"]) - 1.0));
    std::printf("idle RTL SRAM, traffic transactions per CPU second:  %.4g without, %.4g with: cost %+.1f %%\n", rates["idle_none_cpu"],
                rates["idle_rtl_cpu"], 100.0 * (ratio(rates["idle_none_cpu"], rates["idle_rtl_cpu"]) - 1.0));
  }
  return 0;
}
