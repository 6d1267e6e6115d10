// SPDX-License-Identifier: Apache-2.0
// Options of GPGPU-Sim's memory system (L1D policies, L2 slices, crossbar, DRAM channels) read
// from gpgpusim.config, each with a checked range. Kept apart from gpu_config.cpp's SM options.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace gpuvp::gpu_memory {

// -gpgpu_cache:dlN <S|N>:sets:line:ways,repl:write:alloc:write_alloc:set_index,mshr:entries:merge,
// miss_queue:result_fifo,data_port_width
struct cache_config {
  bool sectored = true;
  unsigned sets = 4, line = 128, ways = 64;
  char write_policy = 'T';  // T write-through, B write-back (R read-only, W write-evict, L local-WB/global-WT)
  char alloc_policy = 'm';  // m on miss, f on fill, s streaming
  char write_alloc = 'L';   // N no, W write-allocate, F fetch-on-write, L lazy fetch-on-read
  unsigned mshrs = 512, mshr_merge = 8, miss_queue = 16;
  // Set index function (cache_config::set_index): L linear, P IPOLY hash, X bitwise XOR of the
  // higher bits (H Fermi hash, C custom: read; the L2 model refuses them).
  char set_index = 'L';
  unsigned sectors() const { return sectored ? line / 32 : 1; }
};

// -gpgpu_dram_timing_opt (DRAM command-clock cycles)
struct dram_timing {
  unsigned nbk = 16, CCD = 1, RRD = 3, RCD = 12, RAS = 28, RP = 12, RC = 40, CL = 12, WL = 2, CDLR = 3, WR = 10, nbkgrp = 4, CCDL = 2,
           RTPL = 3;
};

struct mem_config {
  cache_config l1;  // the -gpgpu_cache:dl1 policies (geometry also in gpu_config's l1_* fields)
  cache_config l2{true, 32, 128, 24, 'B', 'm', 'L', 192, 4, 32, 'P'};
  bool flush_l1 = true;                                   // -gpgpu_flush_l1_cache
  unsigned l1_banks = 1;                                  // -gpgpu_l1_banks (sector s goes to bank s mod banks)
  unsigned n_mem = 32, sub_per_channel = 2;               // -gpgpu_n_mem, -gpgpu_n_sub_partition_per_mchannel
  double icnt_mhz = 1132, l2_mhz = 1132, dram_mhz = 850;  // -gpgpu_clock_domains fields 2-4
  dram_timing dram;
  unsigned dram_buswidth = 16, dram_burst_length = 2, dram_cmd_ratio = 2;  // bytes, beats, data/command
  // -gpgpu_frfcfs_dram_sched_queue_size (0: unbounded), -gpgpu_dram_return_queue_size (0: 1024
  // entries, as dram_t sizes it); either 0: no credit limit in the channel's arbitration.
  unsigned frfcfs_queue = 64, dram_return_queue = 192;
  // The reply side's buffers in front of the LDST unit: -gpgpu_n_cluster_ejection_buffer_size (the
  // cluster's response FIFO, simt_core_cluster::icnt_cycle) and -gpgpu_n_ldst_response_buffer_size
  // (ldst_unit's response FIFO); GPGPU-Sim's defaults 8 and 2. They bind only behind loads that
  // bypass the L1D (docs/models/gpu_memory.md, the reply crossbar).
  unsigned cluster_ejection_buffer = 8, ldst_response_buffer = 2;
  // -gpgpu_dram_scheduler (0 FIFO, 1 FR-FCFS), -dram_dual_bus_interface (one row and one column
  // command per cycle), -dram_bnkgrp_indexing_policy (0: bank group from the bank's higher bits,
  // 1: from its lower bits), -dram_bnk_indexing_policy (0: the decoded bank, 1: the bank XOR the
  // row's low bits, dram_req_t's BITWISE_XORING_BK_INDEX; the sub-partition keeps the decoded
  // bank); GPGPU-Sim's defaults.
  unsigned dram_scheduler = 1, dram_dual_bus = 0, dram_bnkgrp_lower_bits = 0, dram_bnk_xor_row = 0;
  // -gpgpu_dram_partition_queues icnt->L2 : L2->DRAM : DRAM->L2 : L2->icnt entries per
  // sub-partition (GPGPU-Sim's default 8:8:8:8). The model bounds icnt -> L2 (the crossbar is
  // popped only with room for 4), L2 -> DRAM and L2 -> icnt (the L2 stalls while either is full)
  // and DRAM -> L2 (the return queue's head waits, the arbitration passes the sub-partition over).
  unsigned icnt_l2_queue = 8, l2_dram_queue = 8, dram_l2_queue = 8, l2_icnt_queue = 8;
  // Interconnect: -network_mode (1 BookSim/intersim with -inter_config_file, 2 GPGPU-Sim's local
  // crossbar), -icnt_in_buffer_limit / -icnt_out_buffer_limit (local crossbar packets),
  // -icnt_subnets, -icnt_arbiter_algo (0 round robin, 1 iSLIP), -icnt_flit_size.
  unsigned network_mode = 2, icnt_in_buffer = 64, icnt_out_buffer = 64, icnt_subnets = 2, icnt_arbiter = 1;
  unsigned flit_size = 40;
  // -inter_config_file (relative to the option file's folder) and the keys the model reads from it.
  std::string icnt_file;
  // input_buffer_size 0 or absent: 9 flits (InterconnectInterface::CreateInterconnect).
  unsigned icnt_file_flit_size = 0, icnt_file_input_buffer = 9, icnt_file_ejection_buffer = 0, icnt_file_subnets = 0;
  // BookSim keys -network_mode 1 times (booksim_fly.h), BookSim's / intersim2's defaults where
  // the file has no value: k (nodes of the one-stage fly), vc_buf_size (router input buffer
  // flits per VC, also the credits of an ejection channel), boundary_buffer_size (packets).
  // internal_speedup (router steps per cycle: 1.0 or 2.0 modelled).
  unsigned icnt_file_k = 8, icnt_file_vc_buf = 8, icnt_file_boundary_buffer = 16, icnt_file_internal_speedup = 1;
  // The BookSim keys whose value -network_mode 1 needs as booksim_fly.h models it ("key=value",
  // as read; missing keys take BookSim's default): checked by validate.
  std::vector<std::string> icnt_file_timing;
  // -gpgpu_memory_partition_indexing: 0 consecutive, 1 bitwise XOR, 2 IPOLY hash, 4 random
  // (addrdec.cc; 3, PAE, is refused)
  unsigned partition_indexing = 0;
  // -gpgpu_mem_addr_mapping "dramid@N;mask": channel bits inserted at bit N; the mask's B and R
  // bits (of the address with the channel bits taken out) give bank and row.
  unsigned mem_addr_dramid_bit = 8;
  uint64_t bank_mask = 0x7100, row_mask = 0xfff8000;
  unsigned sub_partitions() const { return n_mem * sub_per_channel; }
};

// Applies a memory-system option; false if `name` is not one. Throws config_file_error naming
// `where` and the option for a malformed or out-of-range value.
bool apply_mem_option(mem_config& m, const std::string& name, const std::string& value, const std::string& where);
// The policy fields of a -gpgpu_cache:dlN value (the geometry too, checked).
void parse_cache_config(cache_config& c, const std::string& name, const std::string& value, const std::string& where);
void validate(const mem_config& m, const std::string& where);
// Reads an -inter_config_file (BookSim "key = value;" lines, // comments) into m's icnt_file_*
// fields. Throws config_file_error naming file:line for a malformed line or value.
void load_icnt_file(mem_config& m, const std::string& path);
// -network_mode 1: the file's BookSim options must be those booksim_fly.h models (k at least
// `nodes`, clusters + sub-partitions); throws config_file_error naming the key otherwise.
void validate_booksim(const mem_config& m, unsigned nodes, const std::string& where);
// Interconnect, L2 and DRAM clocks from the -gpgpu_clock_domains fields (core:icnt:l2:dram).
void set_memory_clocks(mem_config& m, const std::vector<std::string>& fields, const std::string& name, const std::string& where);

}  // namespace gpuvp::gpu_memory
