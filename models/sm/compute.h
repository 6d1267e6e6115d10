// SPDX-License-Identifier: Apache-2.0
// Compute engine (component type "compute"): the GPU's SMs running Accel-Sim traces. Parameters,
// statistics, memory paths and trace tracks: docs/models/sm.md.
//
// Launch: a launcher's launch_port binds to the export `<compute>.launch` (launch_port.h);
// launch_if::submit queues a kernel whose CTAs go to `sms` SMs by GPGPU-Sim's occupancy rules. One
// SC_THREAD runs the SM cycle loop on the configuration's core clock, synchronising with the kernel
// only at quantum boundaries, and reports completion through the callback and `kernel_done`.
// Memory: L1 misses and stores leave `out` as reads and writes of one line (trace addresses folded
// into [mem_base, mem_base + mem_size)), timed by `memory`: the engine's own GPU memory system, or
// with `l2` bound (`compute.l2.to: gpu_l2.sms`, gpu_memory_port.h) the shared one.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>

#include "core/gpu.h"
#include "core/memsys.h"
#include "core/gpu_config.h"
#include "core/trace.h"
#include "gpu_memory_port.h"  // models/gpu_memory
#include "gpuvp/config.h"
#include "gpuvp/extension.h"
#include "gpuvp/registry.h"
#include "gpuvp/stats.h"
#include "gpuvp/timing.h"
#include "launch_port.h"

namespace gpuvp::sm {

using gpu_memory::gpu_memory_if;  // the GPU memory system (models/gpu_memory)
using gpu_memory::gpu_memory_interface;
using gpu_memory::memory_system;

// The embedded shipped configurations: gpgpusim.config and trace.config texts of "QV100",
// "RTX3070", "A100", "H100"; false if the name is unknown.
bool shipped_config_text(const std::string& name, std::string& gpgpusim, std::string& trace);

class compute_engine : public sc_core::sc_module, public component, public launch_if {
 public:
  tlm_utils::simple_initiator_socket<compute_engine> out{"out"};
  // The GPU memory system the SMs share with other engines (gpu_l2.sms); unbound: their own.
  sc_core::sc_port<gpu_memory_if, 1, sc_core::SC_ZERO_OR_MORE_BOUND> l2{"l2"};
  // What launchers' launch ports bind to (`cp.launch.to: compute.launch`); bound to this engine.
  sc_core::sc_export<launch_if> launch_export{"launch"};

  param<std::string> gpu{this, "gpu", "QV100",
                         "shipped GPU configuration: QV100, GV100, TITANV, TITANX, RTX2060, RTX2060_S, RTX3070, A100 or H100"};
  param<std::vector<std::string>> config_files{this,
                                               "config_files",
                                               {},
                                               "Accel-Sim option files read after the shipped configuration, in order "
                                               "(a YAML list; in --set also a,b)"};
  param<uint64_t> sms{this, "sms", 0, "number of SMs (0: the configuration's count)", 0, 1024};
  param<int64_t> launch_latency{this, "launch_latency",
                                0,    "kernel launch latency in core cycles (-1: the configuration's -gpgpu_kernel_launch_latency)",
                                -1,   1 << 30};
  param<std::string> memory{this, "memory", "gpgpu-sim",
                            "timing of L1 misses and stores: gpgpu-sim (the GPU's L2 slices, crossbar and DRAM channels, "
                            "as sm-run, or those of the gpu_l2 component `out` reaches; `out` carries the accesses untimed), fixed (L2 ROP "
                            "+ DRAM latency), tlm (the "
                            "delay `out`'s target annotates)"};
  param<uint64_t> mem_base{this, "mem_base", 0x200000000ull, "host physical base of the window trace addresses fold into", 0, ~uint64_t(0)};
  param<uint64_t> mem_size{this, "mem_size", 1ull << 30, "size of that window (a power of two)", 4096, 1ull << 40};
  param<uint64_t> vm_engine{this, "vm_engine", gpu_ext::none, "gpu_ext vm_engine of the SM's memory accesses (none: 0xffffffff)",
                            0,    0xffffffff};
  param<uint64_t> vm_client{this, "vm_client", gpu_ext::none, "gpu_ext vm_client of the SM's memory accesses", 0, 0xffffffff};
  param<uint64_t> dma_slot{this, "dma_slot", gpu_ext::none, "gpu_ext dma_slot (DMA object selector) of the SM's memory accesses",
                           0,    0xffffffff};
  param<uint64_t> vm_context{this, "vm_context", gpu_ext::none, "gpu_ext vm_context (channel descriptor) of the SM's memory accesses",
                             0,    ~uint64_t(0)};
  param<uint64_t> trace_warps{
      this, "trace_warps", 0, "Perfetto spans (one per issued instruction) for every N-th warp slot of SM 0 (0: none)", 0, 1 << 20};
  param<uint64_t> trace_warp_sample{this, "trace_warp_sample",
                                    16,   "Perfetto span (start to end) for the first and every N-th warp launched on each SM (0: none)",
                                    0,    1 << 20};
  param<uint64_t> sim_threads{this, "sim_threads", 1, "host threads stepping the SMs (a speed switch: same results; one while tracing)", 1,
                              64};
  param<std::string> results_file{this, "results_file", "", "JSON file with one object per kernel (empty: none)"};
  param<bool> memcpy_fill{this, "memcpy_fill", false, "MemcpyHtoD commands also write their range (zeros) through out, in zero cycles"};

  counter kernels{this, "kernels", "kernels completed"};
  counter cycles{this, "cycles", "core cycles of all kernels"};
  counter warp_insts{this, "warp_insts", "warp instructions issued"};
  counter result_bus_stalls{this, "result_bus_stalls", "issues to a function unit stalled for a result bus"};
  counter dispatch_stalls{this, "dispatch_stalls", "cycles an OC_EX instruction waited for a busy unit"};
  counter stall_scoreboard{this, "stall_scoreboard", "scheduler cycles without issue: scoreboard (RAW)"};
  counter stall_pipeline{this, "stall_pipeline", "scheduler cycles without issue: ID_OC register set full"};
  counter stall_barrier{this, "stall_barrier", "scheduler cycles without issue: warps at a barrier"};
  counter stall_idle{this, "stall_idle", "scheduler cycles without issue: no ready warp"};
  counter l1_hits{this, "l1_hits", "L1 data cache sector hits"};
  counter l1_misses{this, "l1_misses", "L1 data cache sector misses"};
  counter l1_reservation_fails{this, "l1_reservation_fails", "L1 accesses retried: no MSHR, merge limit, miss queue full"};
  counter mem_reads{this, "mem_reads", "sector reads sent to the memory side"};
  counter mem_writes{this, "mem_writes", "sector writes sent to the memory side"};
  counter dram_reads{this, "dram_reads", "DRAM sector reads (memory gpgpu-sim)"};
  counter dram_writes{this, "dram_writes", "DRAM sector writes (memory gpgpu-sim)"};
  counter mem_errors{this, "mem_errors", "memory transactions answered with an error"};
  counter sideband_kernels{this, "sideband_kernels", "kernels whose accesses carried the launch's own side band"};
  counter memcpys{this, "memcpys", "MemcpyHtoD commands performed"};
  counter memcpy_bytes{this, "memcpy_bytes", "bytes of the MemcpyHtoD commands"};
  counter memcpy_sectors{this, "memcpy_sectors", "32-byte sectors Accel-Sim would mark present in L2 for them"};
  counter memcpy_writes{this, "memcpy_writes", "line writes sent for them (memcpy_fill)"};
  gauge ipc{this, "ipc", "warp instructions per core cycle over all kernels",
            [this] { return cycles ? double(warp_insts) / double(cycles) : 0.0; }};
  gauge l1_hit_rate{this, "l1_hit_rate", "L1 hits / (hits + misses)", [this] {
                      uint64_t a = l1_hits + l1_misses;
                      return a ? double(l1_hits) / double(a) : 0.0;
                    }};
  sc_core::sc_event kernel_done;

  explicit compute_engine(sc_core::sc_module_name name);
  ~compute_engine() override;

  // Queues a kernel. Throws std::invalid_argument if grid/block do not match the trace.
  void launch(kernel_launch k, std::function<void(const kernel_result&)> on_done = {});
  // The launch port's interface (launch_port.h): launch() for a launcher in another model.
  void submit(kernel_launch k, std::function<void(const launch_result&)> on_done) override;
  size_t modelled_error_count() const override { return errors_.size(); }
  uint64_t memory_error_count() const override { return mem_errors.value(); }
  bool idle() const { return queue_.empty() && !busy_; }
  // A `MemcpyHtoD,addr,bytes` command. Accel-Sim's trace mode calls perf_memcpy_to_gpu, which with
  // -gpgpu_perf_sim_memcpy 1 marks each 32-byte sector of [addr, addr + bytes) present in L2
  // (force_l2_tag_update) in zero cycles and moves no data (traces carry none). There is no L2
  // here: the command is counted (memcpys, memcpy_bytes, memcpy_sectors = ceil(bytes / 32)) and
  // takes no time; with memcpy_fill it also writes zeros over the range through `out` (L1-line
  // writes at the folded addresses, the params' side band, no time charged). Returns false if a
  // write was answered with an error (a modelled error, like a kernel's).
  bool memcpy_to_device(uint64_t addr, uint64_t bytes);
  const std::vector<kernel_result>& results() const { return results_; }
  const gpu_config& config() const { return cfg_; }
  sc_core::sc_time clock_period() const { return period_; }
  // The report's "memory:" line: the SMs' memory path (mem_port::describe; whose memory system
  // it is) and the path of the other engines' VRAM accesses (copy engine, PFIFO, CP, host).
  std::string memory_path() const;
  // The memory_system the SMs use (memory gpgpu-sim): their own, or that of the gpu_l2 component
  // `l2` is bound to; nullptr with memory fixed or tlm.
  memory_system* shared_memory();
  // The component whose memory system the SMs use (`l2`'s binding); empty: their own (or memory
  // fixed / tlm).
  std::string memory_owner() const;
  // SystemC time of core cycle 0 of the running (or last) kernel's memory time frame (0 before
  // the first kernel): memory_system's cycles count from there.
  sc_core::sc_time frame_start() const { return frame_t0_; }

  sc_core::sc_module& module() override { return *this; }
  // Bound to the interconnect; the platform's `compute.out.to` redirects it (e.g. to mmu.in).
  std::vector<initiator_port> initiators() override { return {{"out", &out, "interconnect"}}; }
  std::vector<interface_port> interface_ports() override { return {interface_port_of("l2", l2, gpu_memory_interface)}; }
  std::vector<interface_export> interface_exports() override { return {{"launch", launch_interface, &launch_export}}; }
  void report(std::ostream& os) override;
  void start_of_simulation() override;
  std::vector<std::string> modelled_errors() override;
  // "kernel 10 running (cycle 5000, CTAs 120 of 640 done); 9 completed, 0 queued" (the running
  // kernel's number: kernel_launch::number).
  std::vector<std::string> busy() override;
  // The running kernel's CTAs done / its CTAs (0 when none runs), for an estimate of the time left.
  double running_fraction() const;

 private:
  class tlm_mem;
  class span_recorder;
  void thread();
  mem_sideband params_sideband() const;
  bool transfer(const mem_sideband& sb, uint64_t addr, unsigned char* data, unsigned bytes, bool write, sc_core::sc_time& d,
                const char* what, bool untimed);
  void write_results() const;

  gpu_config cfg_;
  sc_core::sc_time period_;
  std::unique_ptr<tlm_mem> mem_;
  local_time lt_;
  struct pending {
    kernel_launch k;
    std::function<void(const kernel_result&)> done;
  };
  // thread()'s parts
  bool run_kernel(gpu_sim& g, const kernel_trace& k, kernel_result& r);
  void trace_kernel(const pending& p, const kernel_trace& k, const kernel_result& r, bool ok, const sc_core::sc_time& t0);
  void count_kernel(const kernel_result& r);
  std::deque<pending> queue_;
  sc_core::sc_event queued_;
  bool busy_ = false;
  mem_sideband cur_;  // side band of the running kernel's accesses
  std::vector<kernel_result> results_;
  std::vector<std::string> errors_;
  uint32_t track_ = 0;                // trace track of the kernels (0: not made yet)
  unsigned running_number_ = 0;       // the running kernel's number (kernel_launch::number)
  const gpu_sim* running_ = nullptr;  // the running kernel's simulation (progress lines)
  size_t running_ctas_ = 0;           // and its CTAs
  sc_core::sc_time frame_t0_ = sc_core::SC_ZERO_TIME;
  gpu_memory_if* link_ = nullptr;  // the memory system's owner bound to `l2`, if it owns one
};

}  // namespace gpuvp::sm
