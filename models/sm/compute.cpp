// SPDX-License-Identifier: Apache-2.0
#include "compute.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "gpuvp/extension.h"
#include "gpuvp/trace.h"
#include "gpuvp/untimed.h"
#include <nlohmann/json.hpp>

namespace gpuvp::sm {

using gpu_memory::make_memory;
using gpu_memory::memory_config_difference;
using gpu_memory::sm_timed_ext;

gpu_config make_gpu_config(const std::string& gpu, const std::vector<std::string>& files, const std::string& gpu_key,
                           bool allow_unmodelled) {
  gpu_config c;
  try {
    if (gpu.empty() && std::all_of(files.begin(), files.end(), [](const std::string& f) { return f.empty(); }))
      throw config_file_error("no GPU configuration: the GPU name (compute.gpu, sm-run --gpu) is empty and no configuration file is given");
    if (!gpu.empty()) {
      std::string g, t;
      if (!shipped_config_text(gpu, g, t))
        throw config_file_error("unknown shipped GPU configuration '" + gpu + "' given to " + gpu_key +
                                " (shipped: " + shipped_config_names() + ")");
      const std::string dir = "models/sm/configs/" + shipped_config_dir(gpu);
      load_config_text(c, g, dir + "/gpgpusim.config");
      load_config_text(c, t, dir + "/trace.config");
    } else {
      load_config_text(c, gpgpusim_defaults_text(), "GPGPU-Sim defaults");
      c.files.clear();
      c.defaults_base = true;
    }
    for (const auto& f : files)
      if (!f.empty()) load_config_file(c, f);
    c.validate();
    const auto timing = c.unmodelled_timing(c.defaults_base);
    if (!timing.empty() && !allow_unmodelled) {
      std::string msg = "options that change Accel-Sim's timing are not modelled (allow with --allow-unmodelled):";
      for (const auto& t : timing) msg += "\n  " + t;
      throw config_file_error(msg);
    }
  } catch (const config_file_error& e) {
    throw config_error(e.what());
  }
  return c;
}

mem_sideband compute_engine::params_sideband() const {
  return mem_sideband{
      uint32_t(vm_engine.get()), uint32_t(vm_client.get()), uint32_t(dma_slot.get()), 0, uint32_t(vm_context.get()), gpu_ext::none};
}

// One transaction of `bytes` at trace address `addr`, folded into the window, with the side band
// `sb` (user privilege), sent at local offset `d` (updated by the target); `untimed`: timed by the
// GPU's memory system (or free, a memcpy), so the interconnect books no link time for it. An error response is
// counted in mem_errors and, for the first 8, described (`what` names the access).
bool compute_engine::transfer(const mem_sideband& sb, uint64_t addr, unsigned char* data, unsigned bytes, bool write, sc_core::sc_time& d,
                              const char* what, bool untimed) {
  const uint64_t folded = uint64_t(mem_base) + (addr & (uint64_t(mem_size) - 1));
  transaction t(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, folded, data, bytes);
  t.ext.initiator = 0x534d;  // "SM"
  t.ext.vm_engine = sb.vm_engine;
  t.ext.vm_client = sb.vm_client;
  t.ext.dma_slot = sb.dma_slot;
  t.ext.dma_bind = sb.dma_bind;
  t.ext.vm_context = sb.vm_context;
  t.ext.channel = sb.channel;
  t.ext.priv = privilege::user;
  untimed_scope carried(t.gp, untimed);  // the memory system times it: the interconnect books nothing
  sm_timed_ext timed;                    // the memory system the SMs share times them: forwarded untimed
  struct detach {                        // the payload must not free the stack extension, even on an exception
    tlm::tlm_generic_payload& gp;
    sm_timed_ext* e;
    ~detach() {
      if (e) gp.clear_extension(e);
    }
  } guard{t.gp, link_ ? &timed : nullptr};
  if (guard.e) t.gp.set_extension(&timed);
  out->b_transport(t.gp, d);
  if (t.ok()) return true;
  ++mem_errors;
  if (errors_.size() < 8) {
    std::ostringstream os;
    os << what << " of trace address 0x" << std::hex << addr << " (host 0x" << folded << ") answered " << t.gp.get_response_string();
    errors_.push_back(os.str());
  }
  return false;
}

// L1 misses and stores as timed TLM transactions at the SM's current local time.
// With memory gpgpu-sim or fixed, the GPU's own memory model (the same as sm-run's) gives the
// latency and `out` carries the access untimed (translation, errors, data); with memory tlm the
// delay annotated by `out`'s target is the latency.
class compute_engine::tlm_mem : public mem_port {
 public:
  tlm_mem(compute_engine& e, const std::string& kind) : e_(e), buf_(4096) {
    if (kind != "tlm") own_ = make_memory(e.cfg_, kind);
    inner_ = own_.get();
  }
  uint64_t access(uint64_t addr, unsigned bytes, bool write, uint32_t written, uint64_t cycle, mem_client* client, unsigned tag) override {
    if (!deferred_.empty()) {  // SMs on several threads: the transaction after the cycle (sms_stepped)
      deferred_[client->icnt_node()].push_back({addr, bytes, write});
      return inner_->access(addr, bytes, write, written, cycle, client, tag);
    }
    const sc_core::sc_time delay = send(addr, bytes, write);
    if (inner_) return inner_->access(addr, bytes, write, written, cycle, client, tag);
    // The miss does not block the SM: only the latency goes back, local time stays.
    const double cyc = delay / e_.period_;
    return uint64_t(std::ceil(cyc - 1e-9));
  }
  // With the GPU's own timing the transaction only carries the access (no latency comes back), so
  // the SMs may run on several threads: each cluster's transactions are kept in order and sent
  // after the cycle, cluster by cluster -- the order one thread sends them in.
  bool concurrent_access(unsigned nodes) override {
    deferred_.clear();
    if (!inner_ || !inner_->concurrent_access(nodes)) return false;
    deferred_.resize(nodes);
    return true;
  }
  void sms_stepped() override {
    inner_->sms_stepped();
    for (auto& q : deferred_) {
      for (const deferred& a : q) send(a.addr, a.bytes, a.write);
      q.clear();
    }
  }
  bool full(const mem_client* client) const override { return inner_ && inner_->full(client); }
  bool wants_decodes() const override { return inner_ && inner_->wants_decodes(); }
  void decoded(uint64_t addr, const mem_client* client) override { inner_->decoded(addr, client); }
  mem_stats stats() const override { return inner_ ? inner_->stats() : mem_stats{}; }
  void cycle(uint64_t c) override {
    if (inner_) inner_->cycle(c);
  }
  // Not with a memory system other engines reach between the SMs' cycles (a gpu_l2 link).
  bool prepare_ahead(uint64_t c) override { return inner_ && !link_ && inner_->prepare_ahead(c); }
  void run_ahead(uint64_t c) override { inner_->run_ahead(c); }
  void kernel_start(uint64_t c) override {
    if (link_) link_->kernel_frame(e_.frame_t0_);
    if (inner_) inner_->kernel_start(c);
  }
  void memcpy_to_device(uint64_t a, uint64_t n) override {
    if (inner_) inner_->memcpy_to_device(a, n);
  }
  std::string describe() const override {
    return inner_ ? inner_->describe() : "the platform's memory path: the delay annotated by compute.out's target";
  }
  memory_system* shared() { return dynamic_cast<memory_system*>(inner_); }
  const mem_port* own() const { return own_.get(); }
  bool own_timing() const { return inner_ != nullptr; }
  gpu_memory_if* link() const { return link_; }
  // From now on the SMs use the memory system of `l`; their own is dropped.
  void use(gpu_memory_if& l) {
    link_ = &l;
    inner_ = &l.memory();
    own_.reset();
  }

 private:
  compute_engine& e_;
  std::vector<unsigned char> buf_;
  std::unique_ptr<mem_port> own_;  // built from compute's configuration
  mem_port* inner_ = nullptr;      // own_, the link's memory, or nullptr (memory tlm)
  gpu_memory_if* link_ = nullptr;
  // The access as a transaction through compute.out at the SM's local time; its annotated delay.
  sc_core::sc_time send(uint64_t addr, unsigned bytes, bool write) {
    if (bytes > buf_.size()) buf_.resize(bytes);
    sc_core::sc_time d = e_.lt_.offset();
    const sc_core::sc_time before = d;
    e_.transfer(e_.cur_, addr, buf_.data(), bytes, write, d, write ? "write" : "read", inner_ != nullptr);
    if (write)
      ++e_.mem_writes;
    else
      ++e_.mem_reads;
    return d - before;
  }
  struct deferred {
    uint64_t addr;
    unsigned bytes;
    bool write;
  };
  std::vector<std::vector<deferred>> deferred_;  // per cluster, while the SMs run on several threads
};

// Trace spans of one kernel's CTAs and sampled warps, made only when tracing: gpu_sim's on_warp
// and on_issue come here, in the cycle (gpu_sim::cycle) the event happens in.
class compute_engine::span_recorder {
 public:
  span_recorder(compute_engine& e, const kernel_trace& k, unsigned number, const gpu_sim& g, sc_core::sc_time t0)
      : e_(e),
        k_(k),
        number_(number),
        g_(g),
        t0_(t0),
        wpc_(std::max(1u, k.warps_per_cta())),
        sample_(e.trace_warp_sample),
        issue_every_(e.trace_warps) {}

  void on_warp(unsigned sm, unsigned slot, unsigned cta, unsigned warp, bool start) {
    per_sm& s = sm_(sm);
    const unsigned cs = slot / wpc_;
    grow(s, slot, cs);
    const uint64_t c = g_.cycle();
    if (start) {
      if (warp == 0) s.ctas[cs] = {c, 0};
      s.warps[slot] = sample_ && s.launched++ % sample_ == 0 ? c : none;
      return;
    }
    if (s.warps[slot] != none) {
      tracer::global().span(warp_track(sm, slot), "warp", begin_of(s.warps[slot]), end_of(c) - begin_of(s.warps[slot]),
                            {{"kernel", number_}, {"cta", cta}, {"warp", warp}});
      s.warps[slot] = none;
    }
    if (++s.ctas[cs].warps_done == wpc_) {
      if (!s.cta_tracks[cs])
        s.cta_tracks[cs] = tracer::global().track(std::string(e_.name()) + ".sm" + std::to_string(sm) + ".cta" + std::to_string(cs));
      tracer::global().span(s.cta_tracks[cs], "cta", begin_of(s.ctas[cs].start), end_of(c) - begin_of(s.ctas[cs].start),
                            {{"kernel", number_}, {"cta", cta}});
    }
  }
  // trace_warps: one span per instruction issued by every N-th warp slot of SM 0.
  void on_issue(unsigned sm, unsigned slot, uint16_t op) {
    if (sm != 0 || slot % issue_every_) return;
    grow(sm_(sm), slot, slot / wpc_);
    const uint64_t c = g_.cycle();
    tracer::global().span(warp_track(sm, slot), k_.opcodes[op].c_str(), begin_of(c), e_.period_);
  }

 private:
  static constexpr uint64_t none = ~0ull;
  struct cta_open {
    uint64_t start = 0;
    unsigned warps_done = 0;
  };
  struct per_sm {
    uint64_t launched = 0;        // warps launched on the SM (sampling)
    std::vector<uint64_t> warps;  // per warp slot: sampled warp's start cycle, or none
    std::vector<cta_open> ctas;   // per CTA slot
    std::vector<uint32_t> warp_tracks, cta_tracks;
  };
  per_sm& sm_(unsigned sm) {
    if (sm >= sms_.size()) sms_.resize(sm + 1);
    return sms_[sm];
  }
  static void grow(per_sm& s, unsigned slot, unsigned cs) {
    if (slot >= s.warps.size()) s.warps.resize(slot + 1, none), s.warp_tracks.resize(slot + 1, 0);
    if (cs >= s.ctas.size()) s.ctas.resize(cs + 1), s.cta_tracks.resize(cs + 1, 0);
  }
  uint32_t warp_track(unsigned sm, unsigned slot) {
    uint32_t& t = sms_[sm].warp_tracks[slot];
    if (!t) t = tracer::global().track(std::string(e_.name()) + ".sm" + std::to_string(sm) + ".warp" + std::to_string(slot));
    return t;
  }
  // Cycle c (gpu_sim counts from 1) covers [t0 + (c-1) period, t0 + c period).
  sc_core::sc_time begin_of(uint64_t c) const { return t0_ + e_.period_ * double(c ? c - 1 : 0); }
  sc_core::sc_time end_of(uint64_t c) const { return t0_ + e_.period_ * double(c); }

  compute_engine& e_;
  const kernel_trace& k_;
  const unsigned number_;  // the launch's number (compute_engine::busy)
  const gpu_sim& g_;
  const sc_core::sc_time t0_;
  const unsigned wpc_;
  const uint64_t sample_, issue_every_;
  std::vector<per_sm> sms_;
};

compute_engine::compute_engine(sc_core::sc_module_name name)
    : sc_module(name), cfg_(make_gpu_config(gpu, config_files, std::string(this->name()) + ".gpu")) {
  const std::string kind = memory;
  if (kind != "gpgpu-sim" && kind != "fixed" && kind != "tlm")
    throw config_error(std::string(this->name()) + ".memory: '" + kind + "' (gpgpu-sim, fixed or tlm)");
  mem_ = std::make_unique<tlm_mem>(*this, kind);
  if (uint64_t(mem_size) & (uint64_t(mem_size) - 1)) throw config_error(std::string(this->name()) + ".mem_size must be a power of two");
  if (launch_latency >= 0) cfg_.kernel_launch_latency = unsigned(int64_t(launch_latency));
  period_ = sc_core::sc_time(1e3 / cfg_.core_mhz, sc_core::SC_NS);
  GPUVP_LOG(this, info, cfg_.summary());
  GPUVP_LOG(this, info, "memory: " + mem_->describe());  // the report adds the other engines' path
  launch_export.bind(*this);
  SC_HAS_PROCESS(compute_engine);
  SC_THREAD(thread);
}

compute_engine::~compute_engine() = default;

void compute_engine::submit(kernel_launch k, std::function<void(const launch_result&)> on_done) {
  launch(std::move(k), [done = std::move(on_done)](const kernel_result& r) {
    if (done) done({r.cycles});
  });
}

void compute_engine::launch(kernel_launch k, std::function<void(const kernel_result&)> on_done) {
  if (!k.trace) throw std::invalid_argument(std::string(name()) + ": launch without a trace");
  const dim3 &g = k.trace->grid, &b = k.trace->block;
  if (g.x != k.grid.x || g.y != k.grid.y || g.z != k.grid.z || b.x != k.block.x || b.y != k.block.y || b.z != k.block.z)
    throw std::invalid_argument(std::string(name()) + ": launch grid/block do not match trace " + k.trace->file);
  queue_.push_back({std::move(k), std::move(on_done)});
  queued_.notify(sc_core::SC_ZERO_TIME);
}

// Starts k on g and runs its cycles; false (the error recorded) when the start fails or the
// deadlock watchdog stops it. The cycle loop: local time advances a cycle at a time; the quantum
// keeper decides when to yield to the SystemC kernel.
bool compute_engine::run_kernel(gpu_sim& g, const kernel_trace& k, kernel_result& r) {
  try {
    g.start(k);
  } catch (const std::exception& e) {
    errors_.push_back(e.what());
    return false;
  }
  bool ok = true;
  uint64_t advanced = 0;
  try {
    while (g.step()) {
      lt_.advance(period_);
      ++advanced;
    }
  } catch (const std::exception& e) {  // the deadlock watchdog
    errors_.push_back(e.what());
    ok = false;
  }
  r = g.result();
  if (r.cycles > advanced) lt_.advance(period_ * double(r.cycles - advanced));
  return ok;
}

// The kernel's span on the engine's trace track (r.id: its number), and the flow from its launch.
void compute_engine::trace_kernel(const pending& p, const kernel_trace& k, const kernel_result& r, bool ok, const sc_core::sc_time& t0) {
  auto& tr = tracer::global();
  if (!track_) track_ = tr.track(name());
  const sc_core::sc_time dur = ok ? period_ * double(r.cycles) : lt_.now() - t0;
  tr.span(track_, ok ? k.name.c_str() : "kernel (error)", t0, dur,
          {{"kernel", r.id}, {"name", k.name}, {"cycles", r.cycles}, {"ctas", k.ctas.size()}});
  tr.flow_in(p.k.flow, track_, t0 + dur / 2.0);
}

// A completed kernel's figures added to the engine's statistics.
void compute_engine::count_kernel(const kernel_result& r) {
  ++kernels;
  cycles += r.cycles;
  warp_insts += r.stats.warp_insts;
  result_bus_stalls += r.stats.result_bus_stalls;
  dispatch_stalls += r.stats.dispatch_stalls;
  stall_scoreboard += r.stats.sched_stalls[unsigned(stall_cause::scoreboard)];
  stall_pipeline += r.stats.sched_stalls[unsigned(stall_cause::pipeline)];
  stall_barrier += r.stats.sched_stalls[unsigned(stall_cause::barrier)];
  stall_idle += r.stats.sched_stalls[unsigned(stall_cause::idle)];
  l1_hits += r.stats.l1_hits;
  l1_misses += r.stats.l1_misses;
  l1_reservation_fails += r.stats.l1_reservation_fails();
  dram_reads += r.mem.dram_reads;
  dram_writes += r.mem.dram_writes;
}

void compute_engine::thread() {
  for (;;) {
    while (queue_.empty()) sc_core::wait(queued_);
    pending p = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    const kernel_trace& k = *p.k.trace;
    if (p.k.sideband) {
      cur_ = *p.k.sideband;
      ++sideband_kernels;
    } else {
      cur_ = params_sideband();
    }
    gpu_sim g(cfg_, mem_.get(), unsigned(uint64_t(sms)));
    g.threads = unsigned(uint64_t(sim_threads));
    const unsigned number = p.k.number ? p.k.number : k.id;  // kernel_launch::number
    running_number_ = number;
    running_ = &g;
    running_ctas_ = k.ctas.size();
    auto& tr = tracer::global();
    const sc_core::sc_time t0 = lt_.now();
    frame_t0_ = t0;                        // g.start() restarts the memory's time frame at core cycle 0
    std::unique_ptr<span_recorder> spans;  // only when tracing: no hook costs anything otherwise
    if (tr.enabled()) {
      spans = std::make_unique<span_recorder>(*this, k, number, g, t0);
      g.on_warp = [&spans](unsigned sm, unsigned slot, unsigned cta, unsigned warp, bool start) {
        spans->on_warp(sm, slot, cta, warp, start);
      };
      if (trace_warps) g.on_issue = [&spans](unsigned sm, unsigned warp, uint16_t op, uint64_t) { spans->on_issue(sm, warp, op); };
    }
    kernel_result r;
    const bool ok = run_kernel(g, k, r);
    r.id = number;
    running_ = nullptr;
    if (tr.enabled()) trace_kernel(p, k, r, ok, t0);
    lt_.sync();
    if (ok) {
      count_kernel(r);
      results_.push_back(r);
      write_results();
    }
    busy_ = false;
    if (p.done) p.done(r);
    kernel_done.notify(sc_core::SC_ZERO_TIME);
  }
}

std::vector<std::string> compute_engine::busy() {
  if (idle()) return {};
  std::string s = "kernel " + std::to_string(running_number_) + " running";
  if (running_ && running_->running())
    s += " (cycle " + std::to_string(running_->cycle()) + ", CTAs " + std::to_string(running_->ctas_done()) + " of " +
         std::to_string(running_ctas_) + " done)";
  return {s + "; " + std::to_string(kernels.value()) + " completed, " + std::to_string(queue_.size()) + " queued"};
}

double compute_engine::running_fraction() const {
  return running_ && running_ctas_ ? double(running_->ctas_done()) / double(running_ctas_) : 0.0;
}

bool compute_engine::memcpy_to_device(uint64_t addr, uint64_t bytes) {
  ++memcpys;
  memcpy_bytes += bytes;
  memcpy_sectors += (bytes + 31) / 32;
  mem_->memcpy_to_device(addr, bytes);
  if (!memcpy_fill || bytes == 0) return true;
  const mem_sideband sb = params_sideband();
  const uint64_t line = cfg_.l1_line;
  std::vector<unsigned char> zeros(line, 0);
  bool ok = true;
  for (uint64_t a = addr / line * line; a < addr + bytes; a += line) {
    // The part of this line inside the range (the first and last lines may be partial).
    const uint64_t lo = std::max(a, addr), hi = std::min(a + line, addr + bytes);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;  // Accel-Sim charges no cycles for a memcpy
    ok &= transfer(sb, lo, zeros.data(), unsigned(hi - lo), true, d, "MemcpyHtoD write", true);
    ++memcpy_writes;
  }
  return ok;
}

namespace {
// Function units of one kind per SM (for utilisation).
unsigned units_of(const gpu_config& c, const std::string& n) {
  if (n == "SP") return c.num_sp;
  if (n == "DP") return c.num_dp;
  if (n == "INT") return c.num_int;
  if (n == "SFU") return c.num_sfu;
  if (n == "TENSOR_CORE") return c.num_tensor;
  if (n == "LDST") return 1;
  for (unsigned i = 1; i <= SPECIALIZED_UNIT_NUM; ++i)
    if (c.spec[i].enabled && c.spec[i].name == n) return c.spec[i].num_units;
  return 1;
}
// Busy unit-cycles of entry i of a kernel's unit_active over (cycles x units of that kind x SMs
// used), in percent.
double utilisation(const gpu_config& c, const kernel_result& r, size_t i) {
  const auto& [name, busy] = r.stats.unit_active[i];
  const double denom = double(r.cycles) * units_of(c, name) * std::max(1u, r.sms_used);
  return denom > 0 ? 100.0 * double(busy) / denom : 0.0;
}
}  // namespace

void compute_engine::report(std::ostream& os) {
  os << cfg_.summary() << "\n"
     << "memory: " << memory_path() << "\n";
  if (memcpys)
    os << "    memcpy: " << memcpys.value() << " MemcpyHtoD, " << memcpy_bytes.value() << " bytes, " << memcpy_sectors.value()
       << " sectors (no cycles)" << (memcpy_fill ? ", zero-filled" : "") << "\n";
  for (const auto& r : results_) {
    const auto& s = r.stats;
    print_kernel(os, r);
    os << "  " << r.sms_used << " SMs x " << r.ctas_per_sm << " CTAs; unit utilisation:" << std::fixed;
    for (size_t i = 0; i < s.unit_active.size(); ++i)
      os << " " << s.unit_active[i].first << " " << std::setprecision(1) << utilisation(cfg_, r, i) << " %";
    os << "\n  stalls: result bus " << s.result_bus_stalls << ", dispatch " << s.dispatch_stalls << ", scheduler scoreboard "
       << s.sched_stalls[unsigned(stall_cause::scoreboard)] << " / pipeline " << s.sched_stalls[unsigned(stall_cause::pipeline)]
       << " / barrier " << s.sched_stalls[unsigned(stall_cause::barrier)] << " / idle " << s.sched_stalls[unsigned(stall_cause::idle)]
       << ", L1 reservation fails " << s.l1_reservation_fails() << ", register-bank conflicts " << s.bank_conflicts << "\n"
       << std::defaultfloat;
  }
}

namespace {
// `v` to the 6 significant digits the report prints.
double six_digits(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return std::strtod(text, nullptr);
}
}  // namespace

// One object per kernel, one line each (nlohmann-json); rates and percentages to 6 significant
// digits, as the report prints them.
void compute_engine::write_results() const {
  if (std::string(results_file).empty()) return;
  std::ofstream f{results_file.get()};
  f << "[\n";
  for (size_t i = 0; i < results_.size(); ++i) {
    const auto& r = results_[i];
    const auto& s = r.stats;
    nlohmann::ordered_json j{{"kernel", r.id},
                             {"name", r.name},
                             {"cycles", r.cycles},
                             {"warp_insts", s.warp_insts},
                             {"ipc", six_digits(r.ipc())},
                             {"l1_hit_rate", six_digits(r.l1_hit_rate())},
                             {"result_bus_stalls", s.result_bus_stalls},
                             {"dispatch_stalls", s.dispatch_stalls},
                             {"stall_scoreboard", s.sched_stalls[unsigned(stall_cause::scoreboard)]},
                             {"stall_pipeline", s.sched_stalls[unsigned(stall_cause::pipeline)]},
                             {"stall_barrier", s.sched_stalls[unsigned(stall_cause::barrier)]},
                             {"stall_idle", s.sched_stalls[unsigned(stall_cause::idle)]},
                             {"bank_conflicts", s.bank_conflicts},
                             {"l1_accesses", s.l1_accesses},
                             {"l1_pending_hits", s.l1_pending_hits},
                             {"l1_reservation_fails", s.l1_reservation_fails()},
                             {"l2_accesses", r.mem.l2_accesses},
                             {"l2_hits", r.mem.l2_hits},
                             {"l2_misses", r.mem.l2_misses},
                             {"dram_reads", r.mem.dram_reads},
                             {"dram_writes", r.mem.dram_writes}};
    auto& issued = j["unit_issued"] = nlohmann::ordered_json::object();
    for (const auto& [unit, count] : s.unit_issued) issued[unit] = count;
    auto& busy = j["unit_utilisation_pct"] = nlohmann::ordered_json::object();
    for (size_t u = 0; u < s.unit_active.size(); ++u) busy[s.unit_active[u].first] = six_digits(utilisation(cfg_, r, u));
    f << "  " << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << (i + 1 < results_.size() ? "," : "") << "\n";
  }
  f << "]\n";
}

std::vector<std::string> compute_engine::modelled_errors() { return errors_; }

memory_system* compute_engine::shared_memory() { return mem_->shared(); }

std::string compute_engine::memory_owner() const { return link_ ? link_->owner() : std::string(); }

// The memory system `l2` is bound to (gpu_memory_port.h), checked before any process runs.
void compute_engine::start_of_simulation() {
  if (l2.size() == 0) return;
  gpu_memory_if* l = l2[0];
  const std::string kind = memory;
  if (!l->owns_memory()) return;  // gpu_l2.model false: a plain wire, the SMs keep their own
  const std::string me = name(), it = l->owner();
  if (kind != "gpgpu-sim")
    throw config_error(me + ".memory is " + kind + ", but " + me + ".l2 is bound to " + it + ".sms, a GPU memory system: set " + me +
                       ".memory: gpgpu-sim to use it, or unbind " + me + ".l2 (with memory tlm, " + me + ".out to " + it +
                       ".in times the SMs as an engine)");
  std::string diff = memory_config_difference(cfg_, l->config());
  if (diff.empty() && mem_->own() && mem_->own()->describe() != l->memory().describe())
    diff = "memory system \"" + mem_->own()->describe() + "\" vs \"" + l->memory().describe() + "\"";
  if (!diff.empty())
    throw config_error(me + ".l2 is bound to " + it +
                       ".sms, whose memory system the SMs would use, but the GPU "
                       "configurations differ (" +
                       me + ".gpu / config_files vs " + it + ".gpu / config_files): " + diff);
  l->attach_sms(me);
  mem_->use(*l);
  link_ = l;
  GPUVP_LOG(this, info, "memory: " + mem_->describe() + ", owned by " + it + " (bound to " + me + ".l2)");
}

std::string compute_engine::memory_path() const {
  std::string s = mem_->describe();
  if (!mem_->own_timing()) return s + "; other engines (copy engine, PFIFO, CP, host): the same path (the interconnect and its targets)";
  if (const gpu_memory_if* l = mem_->link()) {
    const std::string it = l->owner();
    return s + ", owned by " + it + " (bound to " + name() + ".l2); other engines (copy engine, PFIFO, CP, host): " + "VRAM through " + it +
           " (" + it +
           ".in) into this memory system where bound to it (contending with the SMs), "
           "else through the interconnect, bypassing it";
  }
  return s + " of " + name() +
         "'s own; other engines (copy engine, PFIFO, CP, host): VRAM through the interconnect "
         "(or a gpu_l2 component's memory system), bypassing this memory system (no contention with the SMs)";
}

}  // namespace gpuvp::sm
