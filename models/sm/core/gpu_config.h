// SPDX-License-Identifier: Apache-2.0
// GPU configuration read straight from Accel-Sim's gpgpusim.config / trace.config option files:
// "-option value" lines, '#' comments. Options the SM model does not use are ignored and counted
// (one summary line); a malformed value of a known option is a config_file_error naming file:line.
#pragma once
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "fu.h"
#include "core/mem_config.h"

namespace gpuvp::sm {

using gpu_memory::cache_config;  // the memory system's options, read from the same files
using gpu_memory::mem_config;

struct config_file_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// -gpgpu_pipeline_widths order.
enum pipe_width : unsigned {
  ID_OC_SP,
  ID_OC_DP,
  ID_OC_INT,
  ID_OC_SFU,
  ID_OC_MEM,
  OC_EX_SP,
  OC_EX_DP,
  OC_EX_INT,
  OC_EX_SFU,
  OC_EX_MEM,
  EX_WB,
  ID_OC_TENSOR_CORE,
  OC_EX_TENSOR_CORE,
  N_PIPELINE_STAGES
};

struct lat_ii {
  unsigned latency = 1, initiation = 1;
};

// -specialized_unit_N enabled,num_units,max_latency,ID_OC width,OC_EX width,NAME
struct spec_unit_cfg {
  bool enabled = false;
  unsigned num_units = 0, max_latency = 1, id_oc_width = 1, oc_ex_width = 1;
  std::string name;
  lat_ii op;  // -trace_opcode_latency_initiation_spec_op_N
};

struct gpu_config {
  // Core and occupancy
  unsigned num_clusters = 80, cores_per_cluster = 1;
  unsigned max_threads_per_sm = 2048, warp_size = 32, max_ctas_per_sm = 32;
  unsigned registers_per_sm = 65536, shmem_per_sm = 98304;
  // Issue and execute
  std::array<unsigned, N_PIPELINE_STAGES> widths{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  unsigned num_sp = 1, num_dp = 1, num_sfu = 1, num_int = 1, num_tensor = 1;
  bool sub_core = false;
  unsigned num_sched = 2;
  std::string scheduler = "gto";  // lrr | gto | two_level_active:N:...
  unsigned max_insn_issue_per_warp = 2;
  unsigned inst_fetch_throughput = 1;  // decode+fetch rounds per cycle (-gpgpu_inst_fetch_throughput)
  bool dual_issue_diff_exec_units = true;
  unsigned reg_banks = 8, reg_port_throughput = 1;
  unsigned oc_units_gen = 0, oc_units_sp = 4, oc_units_dp = 0, oc_units_sfu = 4, oc_units_int = 0, oc_units_tensor = 4, oc_units_mem = 2;
  // Latencies (cycles) and initiation intervals per unit class
  lat_ii lat_int{4, 1}, lat_sp{4, 1}, lat_dp{8, 8}, lat_sfu{20, 8}, lat_tensor{64, 64};
  std::array<spec_unit_cfg, SPECIALIZED_UNIT_NUM + 1> spec{};  // index 1..8
  // Memory side
  double core_mhz = 1132;
  unsigned l1_latency = 20, smem_latency = 20, smem_banks = 32;
  unsigned l1_sets = 4, l1_line = 128, l1_ways = 64, l1_mshrs = 512, l1_mshr_merge = 8;
  // Adaptive L1D (-gpgpu_adaptive_cache_config, -gpgpu_shmem_option in KB, -gpgpu_unified_l1d_size
  // in KB): per kernel the L1D gets what the smallest shared-memory option holding the kernel's
  // resident CTAs' shared memory leaves of the unified size, as ways of the dl1 sets.
  bool adaptive_l1 = false;
  std::vector<unsigned> shmem_options_kb;  // sorted
  unsigned unified_l1d_kb = 0;
  // The L1D ways of a kernel whose resident CTAs use `total_shmem` bytes of shared memory per SM
  // (l1_ways without the adaptive configuration); throws std::runtime_error if no option holds it.
  unsigned l1_ways_for(uint64_t total_shmem) const;
  // -gpgpu_gmem_skip_L1D: global loads and stores bypass the L1D (ldst_unit::memory_cycle's
  // bypassL1D), going to the crossbar one access a cycle; local accesses still use the L1D.
  bool gmem_skip_l1d = false;
  // -gpgpu_ignore_resources_limitation: a kernel whose CTA does not fit an SM's registers or
  // shared memory still runs one CTA per SM (shader_core_config::max_cta returns 1).
  bool ignore_resources_limitation = false;
  // -gpgpu_perfect_inst_const_cache: the instruction cache always hits; else -gpgpu_cache:il1
  // (icache.h). GPGPU-Sim's default is 0 (configs/GPGPUSIM_DEFAULTS), the tested files give 1.
  bool perfect_icache = true;
  cache_config il1{false, 4, 256, 4, 'R', 'f', 'N', 2, 32, 4, 'L'};
  unsigned l2_rop_latency = 160, dram_latency = 100;
  unsigned kernel_launch_latency = 0;
  mem_config mem;  // L1D policies, L2, crossbar, DRAM (mem_config.h)

  // Bookkeeping
  std::vector<std::string> files;
  // Options the model does not read, each once with its last value and where it was given.
  struct unmodelled_option {
    std::string name, value, where;
  };
  std::vector<unmodelled_option> ignored;
  void note_unmodelled(const std::string& name, const std::string& value, const std::string& where);
  // Options not modelled whose value (given, or GPGPU-Sim's default when `defaults_base`) would
  // change timing in Accel-Sim: "-option value (file:line): what differs", one per line.
  std::vector<std::string> unmodelled_timing(bool defaults_base) const;
  bool defaults_base = false;  // loaded over GPGPU-Sim's defaults (no shipped GPU)

  static constexpr unsigned max_sms = 1024;  // largest SM count (-gpgpu_n_clusters x cores_per_cluster)
  unsigned num_sms() const { return num_clusters * cores_per_cluster; }
  lat_ii latency_of(op_class c) const;
  // Throws config_file_error if a latency does not fit MAX_ALU_LATENCY or a width is zero.
  void validate() const;
  // The caches' state their geometry options multiply to, at most state_limit_bytes (else a
  // config_file_error naming the option and the memory needed).
  static constexpr uint64_t state_limit_bytes = 4ull << 30;
  void check_state_size(const std::string& where) const;
  std::string summary() const;          // one line: files, SMs, ignored option count
  std::string unmodelled_list() const;  // "not modelled: -opt value, -opt value, ..." ("" if none)
};

// Applies one option; returns false if the option is unknown (and records it in `ignored`, with
// its value).
bool apply_option(gpu_config& c, const std::string& name, const std::string& value, const std::string& where);
// Whether the model reads option `name` (apply_option knows it), for the bare-option check.
bool option_is_read(const std::string& name);
void load_config_text(gpu_config& c, const std::string& text, const std::string& name);
void load_config_file(gpu_config& c, const std::string& path);
// Shipped configurations "QV100", "RTX3070", ... (docs/models/sm.md): their directory under
// models/sm/configs/ ("" if unknown).
std::string shipped_config_dir(const std::string& name);
std::string shipped_config_names();  // "QV100, RTX3070, ..."
// GPGPU-Sim's defaults of the options the model reads (configs/GPGPUSIM_DEFAULTS, compiled in):
// what Accel-Sim takes for an option its files do not give; the base of files given without a
// shipped GPU name.
const char* gpgpusim_defaults_text();
// A shipped .icnt file (BookSim interconnect) by file name; false when none is shipped by that name.
bool shipped_icnt_text(const std::string& name, std::string& text);
// Builds a gpu_config from a shipped name (given to `gpu_key`) and/or a list of option files, applied over the shipped GPU's, or over GPGPU-Sim's defaults without one. An
// option not modelled whose value changes Accel-Sim's timing is an error unless `allow_unmodelled`.
// Throws gpuvp::config_error (defined in compute.cpp). Also the GPU memory system's configuration.
gpu_config make_gpu_config(const std::string& gpu, const std::vector<std::string>& files, const std::string& gpu_key,
                           bool allow_unmodelled = false);

}  // namespace gpuvp::sm
