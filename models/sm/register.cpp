// SPDX-License-Identifier: Apache-2.0
// Registers the "compute" component type, the `sm-run` tool and the "accel-sim" workload kind
// (`gpuvp run --workload path/to/kernelslist.g`).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <ostream>
#include <systemc>

#include "compute.h"
#include "gpuvp/config.h"
#include "gpuvp/platform.h"
#include "gpuvp/progress.h"
#include "gpuvp/registry.h"
#include "gpuvp/tool_args.h"
#include "core/mem_log.h"
#include "core/memsys.h"
#include "core/trace_stream.h"

namespace gpuvp::sm {

using gpu_memory::make_memory;
using gpu_memory::mem_event_log;
namespace {

// Runs every kernel of a kernelslist.g in order on the platform's compute engine. The traces are
// parsed when the workload is loaded, so a malformed one fails before the simulation starts.
// MemcpyHtoD lines go to compute_engine::memcpy_to_device in list order (Accel-Sim's
// perf_memcpy_to_gpu: no data, no cycles); MemcpyDtoH lines (no Accel-Sim command) are skipped.
class accelsim_workload : public workload, public progress_reporter {
 public:
  explicit accelsim_workload(const std::string& path) : list_(parse_kernelslist(path)) {
    for (const auto& e : list_.entries)
      if (e.is_kernel) kernels_.push_back(std::make_shared<const kernel_trace>(parse_kernel_trace(e.trace_path)));
  }
  void run(platform& p, host_port& host) override {
    auto engines = p.all_of<compute_engine>();
    if (engines.empty()) {
      problem_ = "no compute engine component in the platform (components: {compute: compute})";
      return;
    }
    compute_engine& e = *engines.front();
    size_t k = 0;  // kernels_ holds the list's kernels in order
    for (const auto& entry : list_.entries) {
      if (entry.is_kernel) {
        const auto& t = kernels_[k++];
        kernel_launch l{t->grid, t->block, t};
        l.number = unsigned(k);  // launches numbered in list order
        e.launch(std::move(l));
        while (!e.idle()) sc_core::wait(e.kernel_done);
      } else if (entry.copy.to_device) {
        e.memcpy_to_device(entry.copy.addr, entry.copy.size);
      }
    }
  }
  // "kernels 9 of 60 done, 1 running; CTAs 1234 of 3840 done"; the fraction is that of the CTAs.
  info progress(platform& p) override {
    auto engines = p.all_of<compute_engine>();
    if (engines.empty()) return {};
    const compute_engine& e = *engines.front();
    size_t total = 0, done = 0;
    for (size_t i = 0; i < kernels_.size(); ++i) {
      total += kernels_[i]->ctas.size();
      if (i < e.results().size()) done += kernels_[i]->ctas.size();
    }
    const bool running = !e.idle();
    if (running && e.results().size() < kernels_.size())
      done += size_t(std::llround(e.running_fraction() * double(kernels_[e.results().size()]->ctas.size())));
    return {"kernels " + std::to_string(e.results().size()) + " of " + std::to_string(kernels_.size()) + " done, " + (running ? "1" : "0") +
                " running; CTAs " + std::to_string(done) + " of " + std::to_string(total) + " done",
            total ? double(done) / double(total) : -1.0};
  }
  int check(platform& p, std::ostream& os) override {
    if (!problem_.empty()) {
      os << list_.file << ": " << problem_ << "\n";
      return 1;
    }
    // Counted now, not when run() returned: an interrupted run says how far it came.
    auto engines = p.all_of<compute_engine>();
    const size_t done = engines.empty() ? 0 : engines.front()->results().size();
    if (done != kernels_.size()) {
      os << list_.file << ": " << done << " of " << kernels_.size() << " kernels completed\n";
      return 1;
    }
    return 0;
  }

 private:
  kernelslist list_;
  std::vector<std::shared_ptr<const kernel_trace>> kernels_;
  std::string problem_;
};

// The memory statistics per L2 sub-partition and DRAM channel of one kernel (the counts since
// `before`), in the columns of Accel-Sim's per-bank / per-channel calibration files.
struct memory_unit_counts {
  std::vector<std::array<uint64_t, 5>> l2;
  std::vector<std::array<uint64_t, 6>> dram;  // activates, precharges, reads, writes, row hits, requests scheduled
  explicit memory_unit_counts(const memory_system& m) : l2(m.l2_bank_stats()) {
    for (const auto& c : m.channels()) dram.push_back({c.activates, c.precharges, c.reads, c.writes, c.row_hits, c.scheduled});
  }
};
void write_unit_stats(std::ostream& os, const memory_system& m, const memory_unit_counts& before) {
  const memory_unit_counts now(m);
  os << "# l2_per_bank\nsub_partition,access,miss,pending_hits,reservation_fails\n";
  for (size_t i = 0; i < now.l2.size(); ++i) {
    uint64_t d[5];
    for (unsigned k = 0; k < 5; ++k) d[k] = now.l2[i][k] - before.l2[i][k];
    os << i << "," << d[0] + d[1] + d[2] + d[4] << "," << d[2] + d[4] << "," << d[1] << "," << d[3] << "\n";
  }
  os << "# dram_per_channel\nchannel,n_act,n_pre,n_rd,n_write,row_hits,Row_Buffer_Locality,mrqq_max\n";
  for (size_t i = 0; i < now.dram.size(); ++i) {
    uint64_t d[6];
    for (unsigned k = 0; k < 6; ++k) d[k] = now.dram[i][k] - before.dram[i][k];
    char loc[32];  // row hits per request (a non-sectored L2's line request has several reads)
    std::snprintf(loc, sizeof loc, "%.6f", d[5] ? double(d[4]) / double(d[5]) : 0.0);
    os << i << "," << d[0] << "," << d[1] << "," << d[2] << "," << d[3] << "," << d[4] << "," << loc << "," << m.channels()[i].queue_max
       << "\n";
  }
}

// The options of `gpuvp sm-run`.
struct sm_run_options {
  std::string gpu = "QV100", list, memory = "gpgpu-sim", sms_text, mem_log_path;
  std::vector<std::string> config_files;
  long long launch = 0, threads = 1;
  bool allow_unmodelled = false;
  unsigned sms = 0;  // from sms_text
};

// Reads and checks the options; returns the exit status to end with (help, a usage error), or -1.
int parse_sm_run_options(int argc, char** argv, sm_run_options& o) {
  tool_args args("sm-run",
                 "[--gpu NAME] [--config FILE]... [--sms N] [--launch-latency N] [--memory gpgpu-sim|fixed] "
                 "[--threads N] [--allow-unmodelled] kernelslist.g",
                 "Runs an Accel-Sim kernelslist.g on the SM model alone (no platform), one block of lines per kernel.");
  args.text("gpu", o.gpu, "NAME", "shipped GPU configuration: " + shipped_config_names() + " (default QV100 without --config)")
      .texts("config", o.config_files, "FILE",
             "Accel-Sim option file applied over the GPU's, or over GPGPU-Sim's defaults without --gpu (in order)")
      .text("sms", o.sms_text, "N", "SMs to simulate (default 0: the configuration's count)")
      .number("launch-latency", o.launch, "N", "kernel launch latency in cycles (default 0; -1: the configuration's)", -1ll, 1ll << 30)
      .text("memory", o.memory, "M", "memory timing: gpgpu-sim (default) or fixed")
      .flag("allow-unmodelled", o.allow_unmodelled,
            "run although an option not modelled would change Accel-Sim's timing (listed as a warning)")
      .text("mem-log", o.mem_log_path, "FILE",
            "write every sector request's memory events and per-L2-bank / per-DRAM-channel statistics to FILE "
            "(CSV, docs/models/gpu_memory.md; --memory gpgpu-sim, --threads 1)")
      .number("threads", o.threads, "N", "host threads stepping the SMs (default 1; a speed switch: same results)", 1ll,
              (long long)thread_team::max_threads)
      .positional("kernelslist.g", o.list, "the Accel-Sim kernel list");
  if (int rc = args.parse(argc, argv); rc >= 0) return rc;
  if (args.given("gpu") && o.gpu.empty()) return args.usage_error("--gpu: empty GPU name (" + shipped_config_names() + ")");
  // Accel-Sim's files as they are: without --gpu they apply over GPGPU-Sim's defaults, as in
  // Accel-Sim, not over a shipped GPU.
  if (!args.given("gpu") && !o.config_files.empty()) o.gpu.clear();
  for (const auto& f : o.config_files) check_input_file(f, "gpgpusim.config file (--config)");
  if (args.given("sms")) {
    uint64_t n = 0;
    try {
      n = parse_u64(o.sms_text);
    } catch (const std::exception&) {
      return args.usage_error("--sms " + o.sms_text + ": expected a number of SMs from 0 (the configuration's count) to " +
                              std::to_string(gpu_config::max_sms));
    }
    if (n > gpu_config::max_sms)
      return args.usage_error("--sms " + o.sms_text + ": more than " + std::to_string(gpu_config::max_sms) + " SMs");
    o.sms = unsigned(n);
  }
  if (o.memory != "gpgpu-sim" && o.memory != "fixed") return args.usage_error("--memory " + o.memory + ": expected gpgpu-sim or fixed");
  if (args.given("mem-log")) {
    if (o.mem_log_path.empty()) return args.usage_error("--mem-log: empty file name");
    if (o.memory != "gpgpu-sim") return args.usage_error("--mem-log needs --memory gpgpu-sim (the fixed-latency memory has no events)");
    if (o.threads != 1) return args.usage_error("--mem-log needs --threads 1 (the events are recorded on one thread)");
  }
  return -1;
}

// The GPU configuration of the options, printed with what it leaves unmodelled.
gpu_config sm_run_config(const sm_run_options& o) {
  gpu_config cfg = make_gpu_config(o.gpu, o.config_files, "--gpu", o.allow_unmodelled);
  if (o.launch >= 0) cfg.kernel_launch_latency = unsigned(o.launch);  // as compute.launch_latency
  std::cout << cfg.summary() << "\n";
  if (!cfg.ignored.empty()) std::cout << cfg.unmodelled_list() << "\n";
  for (const auto& t : cfg.unmodelled_timing(cfg.defaults_base)) std::cerr << "warning: not modelled, changes timing: " << t << "\n";
  return cfg;
}

// The kernel list's entries run in order on the GPU, with the progress line on stderr and, with
// --mem-log, each kernel's memory events and unit statistics.
struct sm_run_loop {
  gpu_sim& g;
  mem_port& mem;
  memory_system* gm;  // with --mem-log
  mem_event_log& events;
  std::ofstream& mem_log;
  const std::string& mem_log_path;
  progress_line line{std::cerr, is_terminal(std::cerr)};
  size_t kernels_total = 0, kernels_done = 0, ctas_total = 0, ctas_before = 0;
  std::chrono::steady_clock::time_point sim_start;

  sm_run_loop(gpu_sim& g_, mem_port& mem_, memory_system* gm_, mem_event_log& events_, std::ofstream& mem_log_,
              const std::string& mem_log_path_)
      : g(g_), mem(mem_), gm(gm_), events(events_), mem_log(mem_log_), mem_log_path(mem_log_path_) {}

  int run(const kernelslist& kl) {
    for (const auto& e : kl.entries)
      if (e.is_kernel) ++kernels_total;
    sim_start = std::chrono::steady_clock::now();
    for (const auto& e : kl.entries) {
      if (!e.is_kernel) {
        if (e.copy.to_device) copy_to_device(e.copy);
        continue;
      }
      if (int rc = run_kernel(e); rc >= 0) return rc;
    }
    wall_line();
    return 0;
  }
  void wall_line() const {
    const double wall = seconds_since_program_start();
    const double setup = std::chrono::duration<double>(sim_start - program_start()).count();
    std::cout << "wall time: " << std::fixed << std::setprecision(3) << wall << " s from the program's start (set-up " << setup
              << " s, simulation " << wall - setup << " s)\n"
              << std::defaultfloat;
  }
  // Accel-Sim's perf_memcpy_to_gpu: L2 sectors marked present, no cycles.
  void copy_to_device(const memcpy_cmd& c) {
    mem.memcpy_to_device(c.addr, c.size);
    std::cout << "memcpy HtoD 0x" << std::hex << c.addr << std::dec << " " << c.size << " bytes: " << (c.size + 31) / 32
              << " sectors, no cycles\n";
  }
  // Runs one kernel and prints its figures; returns the exit status of an interrupted run, or -1.
  // The trace is read while the kernel runs (kernel_trace_stream): its header first, each CTA
  // when the kernel is about to launch it.
  int run_kernel(const kernelslist::entry& e) {
    kernel_trace_stream k(e.trace_path);
    std::unique_ptr<memory_unit_counts> counts_before;
    if (mem_log.is_open()) counts_before = std::make_unique<memory_unit_counts>(*gm);
    ctas_total = ctas_before + k.cta_count();  // the later kernels' traces are not read yet
    const auto t0 = std::chrono::steady_clock::now();
    g.start(k);
    const int sig = step(k);
    kernel_result r = g.result();
    r.id = unsigned(kernels_done + 1);  // launches numbered in list order, as the platform's compute engine
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    line.finish();
    if (sig) return interrupted(sig, r, k);
    if (mem_log.is_open()) {
      events.flush(mem_log, r.id, k.header().name);
      write_unit_stats(mem_log, *gm, *counts_before);
      if (!mem_log.flush()) throw std::runtime_error("--mem-log " + mem_log_path + ": write failed");
    }
    ++kernels_done;
    ctas_before = ctas_total;
    print_kernel(std::cout, r);
    std::cout << "  simulation speed " << (s > 0 ? double(r.stats.warp_insts) / s : 0.0) << " warp instructions/s\n";
    return -1;
  }
  // Steps the started kernel to its end; returns the signal that stopped it, or 0. A malformed
  // part of the trace found while it runs stops it: its trace_error, saying where it stopped.
  int step(const kernel_trace_stream& k) {
    const uint64_t c0 = g.cycle();  // gpu_sim counts cycles across kernels
    int sig = 0;
    try {
      sig = step_until_done(k, c0);
    } catch (const trace_error& e) {
      line.finish();
      throw trace_error(std::string(e.what()) + " (the simulation stopped there: kernel " + std::to_string(kernels_done + 1) +
                        " at cycle " + std::to_string(g.cycle() - c0) + ", CTAs " + std::to_string(g.ctas_done()) + " of " +
                        std::to_string(k.cta_count()) + " done)");
    }
    return sig;
  }
  int step_until_done(const kernel_trace_stream& k, uint64_t c0) {
    int sig = 0;
    while (g.step()) {
      if ((g.cycle() & 1023) != 0) continue;
      if ((sig = interrupt_scope::pending())) break;
      if (!line.due()) continue;
      const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - sim_start).count();
      // The fraction: kernels done plus the running one's share of CTAs.
      const double f = (double(kernels_done) + double(g.ctas_done()) / double(std::max<uint64_t>(1, k.cta_count()))) /
                       double(std::max<size_t>(1, kernels_total));
      const std::string left = time_left(spent, f);
      line.update("progress: kernels " + std::to_string(kernels_done) + " of " + std::to_string(kernels_total) +
                  " done, 1 running (cycle " + std::to_string(g.cycle() - c0) + ", CTAs " + std::to_string(g.ctas_done()) + " of " +
                  std::to_string(k.cta_count()) + " done); CTAs " + std::to_string(ctas_before + g.ctas_done()) + " done so far" +
                  (left.empty() ? "" : "; " + left));
    }
    return sig;
  }
  // The running kernel's figures so far, the kernels completed and the wall time; 128 + the signal.
  int interrupted(int sig, const kernel_result& r, const kernel_trace_stream& k) {
    std::cout << "interrupted by " << signal_name(sig) << " in kernel " << r.id << " at cycle " << r.cycles << " (CTAs " << g.ctas_done()
              << " of " << k.cta_count() << " done); its figures so far:\n";
    print_kernel(std::cout, r);
    std::cout << kernels_done << " of " << kernels_total << " kernels completed\n";
    wall_line();
    std::cerr << "gpuvp sm-run: error: interrupted by " << signal_name(sig) << "\n";
    return 128 + sig;
  }
};

// `gpuvp sm-run [--gpu NAME] [--config FILE]... [--sms N] [--launch-latency N] [--memory M] [--threads N]
// [--mem-log FILE] kernelslist.g`: the SM model alone (no SystemC platform), one block of lines per kernel.
int sm_run_main(int argc, char** argv) {
  sm_run_options o;
  if (int rc = parse_sm_run_options(argc, argv, o); rc >= 0) return rc;
  check_input_file(o.list, "kernelslist.g file");
  gpu_config cfg = sm_run_config(o);
  kernelslist kl = parse_kernelslist(o.list);
  std::unique_ptr<mem_port> mem = make_memory(cfg, o.memory);
  // --mem-log: at most mem_log_limit events a kernel (the rest counted on the file's last line).
  constexpr uint64_t mem_log_limit = 4000000;
  mem_event_log events(mem_log_limit);
  std::ofstream mem_log;
  auto* gm = dynamic_cast<memory_system*>(mem.get());
  if (!o.mem_log_path.empty()) {
    mem_log.open(o.mem_log_path);
    if (!mem_log) throw config_error("--mem-log " + o.mem_log_path + ": cannot open the file for writing");
    mem_log << "event,cycle,unit,addr,f5,f6,f7\n";
    gm->set_event_log(&events);
  }
  // Ctrl-C / SIGTERM stop the cycle loop: the running kernel's figures so far are printed, then
  // the wall time, and the exit code is 128 + the signal. A progress line on stderr meanwhile.
  interrupt_scope signals;
  std::cout << "memory: " << mem->describe() << std::endl;  // flushed: from here on Ctrl-C is ours
  gpu_sim g(cfg, mem.get(), o.sms);
  g.threads = unsigned(o.threads);
  sm_run_loop loop(g, *mem, gm, events, mem_log, o.mem_log_path);
  return loop.run(kl);
}

}  // namespace
}  // namespace gpuvp::sm

void gpuvp_register_sm() {
  using namespace gpuvp;
  auto& r = registry::global();
  r.add_component_type("compute", "SM compute engine running Accel-Sim traces (GPGPU-Sim function units)",
                       [](const std::string& name) { return make_component<sm::compute_engine>(name); });
  r.add_tool({"sm-run", "run an Accel-Sim kernelslist.g on the SM model alone (no platform)", [](int argc, char** argv) {
                try {
                  return sm::sm_run_main(argc, argv);
                } catch (const config_error& e) {  // usage, options and input files: exit 2
                  std::cerr << "gpuvp sm-run: error: " << e.what() << "\n";
                  return 2;
                } catch (const std::invalid_argument& e) {
                  std::cerr << "gpuvp sm-run: error: " << e.what() << "\n";
                  return 2;
                } catch (const std::exception& e) {
                  std::cerr << "gpuvp sm-run: error: " << e.what() << "\n";
                  return 1;
                }
              }});
  gpuvp::workload_kind k;
  k.name = "accel-sim";
  k.description = "Accel-Sim kernelslist.g with post-processed .traceg kernels";
  k.matches = [](const std::string& path) { return path.ends_with(".g"); };
  k.platform_yaml = "components:\n  compute: compute\n  traffic: none\n";  // the kernel runs alone
  k.load = [](const std::string& path) { return std::make_unique<sm::accelsim_workload>(path); };
  r.add_workload_kind(std::move(k));
}
