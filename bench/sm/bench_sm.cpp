// SPDX-License-Identifier: Apache-2.0
// SM model speed: simulated warp instructions per wall second on a compute-bound trace, the
// shape of a speed figure measured with Accel-Sim on this class of machine (80 CTAs x 8 warps x
// 1001 instructions on SM7_QV100, 80 SMs: Accel-Sim ~44 000 warp instructions/s).
// Baselines measured in the same run: parsing the trace, and a plain replay that touches every
// instruction once (no timing) — the floor any trace-driven model pays. The 320-CTA bandwidth
// kernel also runs from its file, read first or while it runs (kernel_trace_stream, as sm-run).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "compute.h"
#include "core/gpu.h"
#include "core/trace.h"
#include "core/trace_stream.h"

using namespace gpuvp::sm;
using namespace gpuvp::gpu_memory;

namespace {

constexpr double accel_sim_warp_insts_per_s = 44000.0;  // reference: 9149 cycles in 14.6 s, 2 cores

const std::string& trace_text() {
  static const std::string text = [] {
    std::vector<std::vector<trace_writer_inst>> warps(8);
    for (unsigned w = 0; w < 8; ++w) {
      for (unsigned i = 0; i < 1000; ++i) warps[w].push_back({"FFMA", {10 + (i % 8)}, {2, 3, 4}, 0, {}, 0xffffffffu});
      warps[w].push_back({"EXIT", {}, {}, 0, {}, 0xffffffffu});
    }
    return write_kernel_trace("ffma_bench", 1, {80, 1, 1}, {256, 1, 1}, 70, 0, 32, warps);
  }();
  return text;
}
const kernel_trace& parsed() {
  static const kernel_trace k = parse_kernel_trace_text(trace_text(), "bench.traceg");
  return k;
}
const gpu_config& qv100() {
  static const gpu_config c = [] {
    gpu_config g = make_gpu_config("QV100", {}, "--gpu");
    g.kernel_launch_latency = 0;
    return g;
  }();
  return c;
}

// The reference's bandwidth-bound kernel (Accel-Sim: 9690 cycles, ~6 600 warp instructions/s):
// 320 CTAs x 8 warps; warp w of CTA c: 16 x (LDG of line (8c+w)*16+i, 6 independent FFMA), then
// 16 FFMA on the loaded registers, EXIT. Written as the tracer writes it (base+stride addresses,
// trailing immediate).
constexpr double accel_sim_bw_warp_insts_per_s = 6600.0;
const std::string& bandwidth_text() {
  static const std::string text = [] {
    std::string t =
        "-kernel name = bw\n-kernel id = 1\n-grid dim = (320,1,1)\n-block dim = (256,1,1)\n-shmem = 0\n-nregs = 64\n"
        "-binary version = 70\n-cuda stream id = 0\n-accelsim tracer version = 5\n-enable lineinfo = 0\n"
        "#traces format = PC mask dest_num reg_dests opcode src_num reg_srcs mem_width [adrrescompress?] [mem_addresses] immediate\n";
    char buf[128];
    for (unsigned c = 0; c < 320; ++c) {
      t += "#BEGIN_TB\nthread block = " + std::to_string(c) + ",0,0\n";
      for (unsigned w = 0; w < 8; ++w) {
        t += "warp = " + std::to_string(w) + "\ninsts = 129\n";
        unsigned pc = 0;
        for (unsigned i = 0; i < 16; ++i) {
          std::snprintf(buf, sizeof buf, "%04x ffffffff 1 R%u LDG.E.32 1 R2 4 1 0x%llx 4 0\n", pc, 10 + i,
                        (unsigned long long)(0x7f4000000000ull + 128ull * ((8 * c + w) * 16 + i)));
          t += buf;
          pc += 16;
          for (unsigned j = 0; j < 6; ++j, pc += 16) {
            std::snprintf(buf, sizeof buf, "%04x ffffffff 1 R%u FFMA 3 R2 R3 R4 0 0\n", pc, 30 + j);
            t += buf;
          }
        }
        for (unsigned i = 0; i < 16; ++i, pc += 16) {
          std::snprintf(buf, sizeof buf, "%04x ffffffff 1 R%u FFMA 3 R%u R3 R4 0 0\n", pc, 40 + i, 10 + i);
          t += buf;
        }
        std::snprintf(buf, sizeof buf, "%04x ffffffff 0 EXIT 0 0 0\n", pc);
        t += buf;
      }
      t += "#END_TB\n";
    }
    return t;
  }();
  return text;
}
const kernel_trace& bandwidth_kernel() {
  static const kernel_trace k = parse_kernel_trace_text(bandwidth_text(), "bandwidth.traceg");
  return k;
}

double g_sim_rate = 0, g_replay_rate = 0, g_bw_rate = 0, g_bw_fixed_rate = 0, g_bw_noskip_rate = 0;
std::map<unsigned, double> g_bw_threads_rate;  // host threads -> rate (gpu_sim::threads > 1)
std::map<unsigned, kernel_result> g_bw_threads_result;
std::map<unsigned, uint64_t> g_bw_threads_ahead;  // host threads -> cycles the memory ran ahead
uint64_t g_bw_cycles = 0;
kernel_result g_bw_result;  // the whole-memory-system run, printed in full (same statistics check)

// The bandwidth kernel on 80 SMs with the whole memory system (memory = "gpgpu-sim") or, as the
// same-run baseline, with memory behind L1 at a fixed latency ("fixed").
// `skip_idle` false: the same run without the SMs' idle-cycle skip (same cycles, every SM cycle
// evaluated in full), the baseline of the skip's gain.
// Each configuration runs bw_runs() times (GPUVP_BENCH_SM_RUNS, 1-20, default 3; 1 for a
// callgrind profile of one run); its figure is the median run's rate. The first run in a process also pays the first
// touch of the memory it allocates (about a tenth of a run here), which the whole-program figure
// below includes.
unsigned bw_runs() {
  static const unsigned n = [] {
    const char* e = std::getenv("GPUVP_BENCH_SM_RUNS");
    if (!e) return 3u;
    char* end = nullptr;
    const long v = std::strtol(e, &end, 10);
    if (end == e || *end != '\0' || v < 1 || v > 20) {
      std::fprintf(stderr, "bench_sm: GPUVP_BENCH_SM_RUNS=%s: expected a whole number of runs, 1-20\n", e);
      std::exit(2);
    }
    return unsigned(v);
  }();
  return n;
}
double median_rate(std::vector<double> r) {
  std::sort(r.begin(), r.end());
  return r[r.size() / 2];
}
void BM_bandwidth_kernel(benchmark::State& st, const char* memory, bool skip_idle, unsigned threads = 1) {
  const kernel_trace& k = bandwidth_kernel();
  uint64_t n = 0, cycles = 0;
  std::vector<double> rates;
  for (auto _ : st) {
    const auto t0 = std::chrono::steady_clock::now();
    auto mem = make_memory(qv100(), memory);
    gpu_sim g(qv100(), mem.get());
    g.skip_idle_cycles = skip_idle;
    g.threads = threads;
    kernel_result r = g.run(k);
    rates.push_back(double(r.stats.warp_insts) / std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    n += r.stats.warp_insts;
    cycles = r.cycles;
    if (threads > 1) {
      g_bw_threads_result[threads] = r;
      g_bw_threads_ahead[threads] = g.memory_ahead_cycles();
    } else if (std::string(memory) != "fixed" && skip_idle)
      g_bw_result = r;
  }
  const double rate = median_rate(rates);
  if (threads > 1)
    g_bw_threads_rate[threads] = rate;
  else
    (std::string(memory) == "fixed" ? g_bw_fixed_rate : skip_idle ? g_bw_rate : g_bw_noskip_rate) = rate;
  if (std::string(memory) != "fixed" && skip_idle && threads == 1) g_bw_cycles = cycles;
  st.counters["warp_insts_per_s"] = benchmark::Counter(double(n), benchmark::Counter::kIsRate);
  st.counters["median_warp_insts_per_s"] = rate;
  st.counters["kernel_cycles"] = double(cycles);
}

// The bandwidth kernel from its file, parse and run timed together: the whole file parsed first
// (parse_kernel_trace), or read while the kernel runs (kernel_trace_stream, as `gpuvp sm-run`).
// Whole-program goal (issue 32): 0.5 s, 100x Accel-Sim's 51 s for this kernel.
double g_file_s[2] = {0, 0};  // [streamed]: seconds per run
std::string g_file_stats[2];
void BM_bandwidth_kernel_file(benchmark::State& st, bool streamed) {
  const std::string path = (std::filesystem::temp_directory_path() / "gpuvp_bench_bandwidth.traceg").string();
  std::ofstream(path) << bandwidth_text();
  uint64_t runs = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (auto _ : st) {
    auto mem = make_memory(qv100(), "gpgpu-sim");
    gpu_sim g(qv100(), mem.get());
    std::ostringstream os;
    if (streamed) {
      kernel_trace_stream s(path);
      g.start(s);
      while (g.step()) {}
      print_kernel(os, g.result());
    } else {
      print_kernel(os, g.run(parse_kernel_trace(path)));
    }
    g_file_stats[streamed] = os.str();
    ++runs;
  }
  g_file_s[streamed] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / double(runs);
  std::filesystem::remove(path);
}

void BM_parse_trace(benchmark::State& st) {
  const std::string& t = trace_text();
  uint64_t n = 0;
  for (auto _ : st) {
    kernel_trace k = parse_kernel_trace_text(t, "bench.traceg");
    n += k.warp_insts;
    benchmark::DoNotOptimize(k.ctas.data());
  }
  st.counters["warp_insts_per_s"] = benchmark::Counter(double(n), benchmark::Counter::kIsRate);
}

// The bandwidth kernel's trace (its LDG and FFMA lines as the tracer writes them), parsed whole.
double g_parse_bw_s = 0;
void BM_parse_bandwidth_trace(benchmark::State& st) {
  const std::string& t = bandwidth_text();
  uint64_t runs = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (auto _ : st) {
    kernel_trace k = parse_kernel_trace_text(t, "bandwidth.traceg");
    benchmark::DoNotOptimize(k.ctas.data());
    ++runs;
  }
  g_parse_bw_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / double(runs);
}

void BM_replay_baseline(benchmark::State& st) {
  const kernel_trace& k = parsed();
  uint64_t n = 0, sum = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (auto _ : st) {
    for (const auto& c : k.ctas)
      for (const auto& w : c.warps)
        for (const auto& i : w.insts) {
          sum += i.dst[0] + unsigned(i.info.cls);
          ++n;
        }
    benchmark::DoNotOptimize(sum);
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  g_replay_rate = double(n) / s;
  st.counters["warp_insts_per_s"] = benchmark::Counter(double(n), benchmark::Counter::kIsRate);
}

void BM_sm_simulate_qv100(benchmark::State& st) {
  const kernel_trace& k = parsed();
  fixed_latency_memory mem(260);
  uint64_t n = 0, cycles = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (auto _ : st) {
    gpu_sim g(qv100(), &mem);
    kernel_result r = g.run(k);
    n += r.stats.warp_insts;
    cycles = r.cycles;
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  g_sim_rate = double(n) / s;
  st.counters["warp_insts_per_s"] = benchmark::Counter(double(n), benchmark::Counter::kIsRate);
  st.counters["kernel_cycles"] = double(cycles);
}

}  // namespace

BENCHMARK(BM_replay_baseline)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_parse_trace)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_parse_bandwidth_trace)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_sm_simulate_qv100)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_bandwidth_kernel, memory_system, "gpgpu-sim", true)->Unit(benchmark::kMillisecond)->Iterations(bw_runs());
BENCHMARK_CAPTURE(BM_bandwidth_kernel, fixed_latency_baseline, "fixed", true)->Unit(benchmark::kMillisecond)->Iterations(bw_runs());
BENCHMARK_CAPTURE(BM_bandwidth_kernel, no_idle_skip_baseline, "gpgpu-sim", false)->Unit(benchmark::kMillisecond)->Iterations(bw_runs());
// The same run with the SMs on 2, 4 and 8 host threads (gpu_sim::threads): same statistics.
BENCHMARK_CAPTURE(BM_bandwidth_kernel, two_host_threads, "gpgpu-sim", true, 2u)->Unit(benchmark::kMillisecond)->Iterations(bw_runs());
BENCHMARK_CAPTURE(BM_bandwidth_kernel, four_host_threads, "gpgpu-sim", true, 4u)->Unit(benchmark::kMillisecond)->Iterations(bw_runs());
BENCHMARK_CAPTURE(BM_bandwidth_kernel, eight_host_threads, "gpgpu-sim", true, 8u)->Unit(benchmark::kMillisecond)->Iterations(bw_runs());
BENCHMARK_CAPTURE(BM_bandwidth_kernel_file, parsed_first, false)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(BM_bandwidth_kernel_file, read_while_running, true)->Unit(benchmark::kMillisecond)->Iterations(3);

// Issue 32's scaling goals: 2 threads on any host, 8 and 16 on a 16-core host.
const char* threads_goal(unsigned threads) {
  return threads == 2 ? ">= 1.85x" : threads == 8 ? ">= 4x on a 16-core host" : threads == 16 ? ">= 6x on a 16-core host" : "none";
}

int sc_main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (g_sim_rate > 0) {
    std::printf("\nSM model: %.0f simulated warp instructions per second\n", g_sim_rate);
    std::printf("  ratio to Accel-Sim's published %.0f/s on this trace shape: %.1fx\n", accel_sim_warp_insts_per_s,
                g_sim_rate / accel_sim_warp_insts_per_s);
    if (g_replay_rate > 0)
      std::printf("  ratio to the plain replay baseline (%.0f/s): %.4f (cost of cycle modelling)\n", g_replay_rate,
                  g_sim_rate / g_replay_rate);
  }
  if (g_bw_rate > 0) {
    std::printf("\nBandwidth kernel (320 CTAs, whole memory system): %llu cycles (Accel-Sim 9690), %.0f warp instructions/s\n",
                (unsigned long long)g_bw_cycles, g_bw_rate);
    std::printf("  ratio to Accel-Sim's %.0f/s: %.1fx (goal, issue 32: 150x on one host thread)\n", accel_sim_bw_warp_insts_per_s,
                g_bw_rate / accel_sim_bw_warp_insts_per_s);
    std::fflush(stdout);
    print_kernel(std::cout, g_bw_result);
    std::cout << std::flush;
    if (g_bw_noskip_rate > 0)
      std::printf("  ratio to the same run without the idle-cycle skip (%.0f/s): %.2f\n", g_bw_noskip_rate, g_bw_rate / g_bw_noskip_rate);
    if (g_bw_fixed_rate > 0)
      std::printf("  ratio to the fixed-latency-memory baseline in this run (%.0f/s): %.3f\n", g_bw_fixed_rate,
                  g_bw_rate / g_bw_fixed_rate);
    for (const auto& [threads, rate] : g_bw_threads_rate) {
      std::ostringstream a, b;
      print_kernel(a, g_bw_result);
      print_kernel(b, g_bw_threads_result[threads]);
      std::printf("  %u host threads: %.0f/s, %.2fx one thread (goal %s), %.1fx Accel-Sim; statistics %s; memory ahead in %llu cycles\n",
                  threads, rate, rate / g_bw_rate, threads_goal(threads), rate / accel_sim_bw_warp_insts_per_s,
                  a.str() == b.str() ? "identical" : "DIFFER", (unsigned long long)g_bw_threads_ahead[threads]);
    }
  }
  if (g_parse_bw_s > 0)
    std::printf(
        "\nBandwidth kernel's trace (%.0f MB) parsed in %.3f s; goal (issue 32): a third of the parser's instructions before "
        "(callgrind, docs/models/sm.md)\n",
        double(bandwidth_text().size()) / 1e6, g_parse_bw_s);
  if (g_file_s[0] > 0 && g_file_s[1] > 0)
    std::printf(
        "\nBandwidth kernel from its file (%.0f MB), read and run: parsed first %.3f s, read while running %.3f s (%.2fx); "
        "statistics %s; goal: the whole program in 0.5 s (100x Accel-Sim's 51 s)\n",
        double(bandwidth_text().size()) / 1e6, g_file_s[0], g_file_s[1], g_file_s[0] / g_file_s[1],
        g_file_stats[0] == g_file_stats[1] ? "identical" : "DIFFER");
  return 0;
}
