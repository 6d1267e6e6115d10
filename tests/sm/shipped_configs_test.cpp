// SPDX-License-Identifier: Apache-2.0
// The Accel-Sim tested configurations shipped as --gpu names (docs/models/sm.md, "Shipped
// configurations"): each loads, and its option list is the public file's. The expected values
// below are written from accel-sim's gpgpu-sim_distribution configs/tested-cfgs/<GPU>/
// gpgpusim.config and accel-sim-framework's trace.config (the commits the shipped files name).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "compute.h"
#include "core/gpu.h"
#include "core/gpu_config.h"
#include "core/memsys.h"
#include "gpuvp/config.h"
#include "kernel_builder.h"

using namespace gpuvp::sm;
using namespace gpuvp::gpu_memory;

namespace {

using options = std::map<std::string, std::string>;

// "-option value" lines of an option file; a quoted value over two lines is joined with one space.
// `not_in_file` gets the options whose line says "[not in file]".
options parse(const std::string& text, options* not_in_file = nullptr) {
  options out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const bool marked = line.find("[not in file]") != std::string::npos;
    if (auto h = line.find('#'); h != std::string::npos) line.erase(h);
    std::istringstream ls(line);
    std::string opt, val, more;
    if (!(ls >> opt)) continue;
    while (ls >> more) val += (val.empty() ? "" : " ") + more;
    if (std::count(val.begin(), val.end(), '"') == 1) {
      std::string next;
      std::getline(in, next);
      std::istringstream ns(next);
      while (ns >> more) val += " " + more;
    }
    (marked && not_in_file ? *not_in_file : out)[opt] = val;
  }
  return out;
}

// What the Volta files (GV100, TITANV) share with each other.
options volta_common() {
  return {{"-gpgpu_n_sub_partition_per_mchannel", "2"},
          {"-gpgpu_shader_registers", "65536"},
          {"-gpgpu_shader_core_pipeline", "2048:32"},
          {"-gpgpu_shader_cta", "32"},
          {"-gpgpu_pipeline_widths", "4,4,4,4,4,4,4,4,4,4,8,4,4"},
          {"-gpgpu_num_sp_units", "4"},
          {"-gpgpu_num_sfu_units", "4"},
          {"-gpgpu_num_dp_units", "4"},
          {"-gpgpu_num_int_units", "4"},
          {"-gpgpu_num_tensor_core_units", "4"},
          {"-gpgpu_sub_core_model", "1"},
          {"-gpgpu_operand_collector_num_units_gen", "8"},
          {"-gpgpu_operand_collector_num_in_ports_gen", "8"},
          {"-gpgpu_operand_collector_num_out_ports_gen", "8"},
          {"-gpgpu_reg_file_port_throughput", "2"},
          {"-gpgpu_shmem_num_banks", "32"},
          {"-gpgpu_num_sched_per_core", "4"},
          {"-gpgpu_scheduler", "lrr"},
          {"-gpgpu_max_insn_issue_per_warp", "1"},
          {"-gpgpu_dual_issue_diff_exec_units", "1"},
          {"-gpgpu_adaptive_cache_config", "1"},
          {"-gpgpu_shmem_option", "0,8,16,32,64,96"},
          {"-gpgpu_unified_l1d_size", "128"},
          {"-gpgpu_l1_banks", "4"},
          {"-gpgpu_cache:dl1", "S:4:128:64,L:T:m:L:L,A:512:8,16:0,32"},
          {"-gpgpu_l1_latency", "20"},
          {"-gpgpu_gmem_skip_L1D", "0"},
          {"-gpgpu_flush_l1_cache", "1"},
          {"-gpgpu_n_cluster_ejection_buffer_size", "32"},
          {"-gpgpu_shmem_size", "98304"},
          {"-gpgpu_smem_latency", "20"},
          {"-gpgpu_cache:dl2", "S:32:128:24,L:B:m:L:P,A:192:4,32:0,32"},
          {"-gpgpu_cache:dl2_texture_only", "0"},
          {"-gpgpu_dram_partition_queues", "64:64:64:64"},
          {"-gpgpu_memory_partition_indexing", "2"},
          {"-gpgpu_cache:il1", "N:64:128:16,L:R:f:N:L,S:2:48,4"},
          {"-gpgpu_inst_fetch_throughput", "4"},
          {"-gpgpu_perfect_inst_const_cache", "1"},
          {"-network_mode", "2"},
          {"-icnt_in_buffer_limit", "512"},
          {"-icnt_out_buffer_limit", "512"},
          {"-icnt_subnets", "2"},
          {"-icnt_flit_size", "40"},
          {"-icnt_arbiter_algo", "1"},
          {"-gpgpu_l2_rop_latency", "160"},
          {"-dram_latency", "100"},
          {"-gpgpu_dram_scheduler", "1"},
          {"-gpgpu_frfcfs_dram_sched_queue_size", "64"},
          {"-gpgpu_dram_return_queue_size", "192"},
          {"-gpgpu_n_mem_per_ctrlr", "1"},
          {"-gpgpu_dram_buswidth", "16"},
          {"-gpgpu_dram_burst_length", "2"},
          {"-dram_data_command_freq_ratio", "2"},
          {"-gpgpu_mem_addr_mapping", "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCB.CCCSSSSS"},
          {"-gpgpu_dram_timing_opt", "\"nbk=16:CCD=1:RRD=3:RCD=12:RAS=28:RP=12:RC=40: CL=12:WL=2:CDLR=3:WR=10:nbkgrp=4:CCDL=2:RTPL=3\""},
          {"-dram_dual_bus_interface", "1"},
          {"-dram_bnkgrp_indexing_policy", "1"}};
}

options turing_common() {
  return {{"-gpgpu_kernel_launch_latency", "5000"},
          {"-gpgpu_n_cores_per_cluster", "1"},
          {"-gpgpu_n_sub_partition_per_mchannel", "2"},
          {"-gpgpu_shader_registers", "65536"},
          {"-gpgpu_shader_core_pipeline", "1024:32"},
          {"-gpgpu_num_sp_units", "4"},
          {"-gpgpu_num_sfu_units", "4"},
          {"-gpgpu_num_int_units", "4"},
          {"-gpgpu_num_tensor_core_units", "4"},
          {"-gpgpu_sub_core_model", "1"},
          {"-gpgpu_operand_collector_num_units_gen", "8"},
          {"-gpgpu_operand_collector_num_in_ports_gen", "8"},
          {"-gpgpu_operand_collector_num_out_ports_gen", "8"},
          {"-gpgpu_reg_file_port_throughput", "2"},
          {"-gpgpu_num_sched_per_core", "4"},
          {"-gpgpu_scheduler", "lrr"},
          {"-gpgpu_max_insn_issue_per_warp", "1"},
          {"-gpgpu_dual_issue_diff_exec_units", "1"},
          {"-gpgpu_l1_banks", "4"},
          {"-gpgpu_gmem_skip_L1D", "0"},
          {"-gpgpu_flush_l1_cache", "1"},
          {"-gpgpu_n_cluster_ejection_buffer_size", "32"},
          {"-gpgpu_shmem_size", "65536"},
          {"-gpgpu_shmem_num_banks", "32"},
          {"-gpgpu_cache:dl2", "S:64:128:16,L:B:m:L:P,A:192:4,32:0,32"},
          {"-gpgpu_cache:dl2_texture_only", "0"},
          {"-gpgpu_dram_partition_queues", "64:64:64:64"},
          {"-gpgpu_memory_partition_indexing", "0"},
          {"-gpgpu_cache:il1", "N:64:128:16,L:R:f:N:L,S:2:48,4"},
          {"-gpgpu_inst_fetch_throughput", "4"},
          {"-gpgpu_perfect_inst_const_cache", "1"},
          {"-network_mode", "2"},
          {"-icnt_in_buffer_limit", "512"},
          {"-icnt_out_buffer_limit", "512"},
          {"-icnt_subnets", "2"},
          {"-icnt_flit_size", "40"},
          {"-icnt_arbiter_algo", "1"},
          {"-gpgpu_dram_scheduler", "1"},
          {"-gpgpu_frfcfs_dram_sched_queue_size", "64"},
          {"-gpgpu_dram_return_queue_size", "192"},
          {"-gpgpu_n_mem_per_ctrlr", "1"},
          {"-gpgpu_dram_buswidth", "2"},
          {"-gpgpu_dram_burst_length", "16"},
          {"-dram_data_command_freq_ratio", "4"},
          {"-gpgpu_mem_addr_mapping", "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSS"},
          {"-dram_bnk_indexing_policy", "0"},
          {"-dram_bnkgrp_indexing_policy", "1"}};
}

options merged(options a, const options& b) {
  for (const auto& [k, v] : b) a[k] = v;
  return a;
}

struct shipped_case {
  const char* name;
  options gpgpusim, trace;
  const char* unmodelled;  // the one option listed as changing timing, or ""
};

std::vector<shipped_case> cases() {
  const options volta_trace = {{"-trace_opcode_latency_initiation_int", "2,2"}, {"-trace_opcode_latency_initiation_sp", "2,2"},
                               {"-trace_opcode_latency_initiation_dp", "8,4"},  {"-trace_opcode_latency_initiation_sfu", "20,8"},
                               {"-specialized_unit_1", "1,4,4,4,4,BRA"},        {"-trace_opcode_latency_initiation_spec_op_1", "4,4"},
                               {"-specialized_unit_2", "1,4,200,4,4,TEX"},      {"-trace_opcode_latency_initiation_spec_op_2", "200,4"},
                               {"-specialized_unit_3", "1,4,8,4,4,TENSOR"}};
  const options turing_trace = {{"-trace_opcode_latency_initiation_int", "2,2"},         {"-trace_opcode_latency_initiation_sp", "2,2"},
                                {"-trace_opcode_latency_initiation_dp", "64,64"},        {"-trace_opcode_latency_initiation_sfu", "21,8"},
                                {"-trace_opcode_latency_initiation_tensor", "16,16"},    {"-specialized_unit_1", "1,4,4,4,4,BRA"},
                                {"-trace_opcode_latency_initiation_spec_op_1", "4,4"},   {"-specialized_unit_2", "1,4,200,4,4,TEX"},
                                {"-trace_opcode_latency_initiation_spec_op_2", "200,4"}, {"-specialized_unit_3", "1,4,16,4,4,TENSOR"},
                                {"-trace_opcode_latency_initiation_spec_op_3", "16,16"}, {"-specialized_unit_4", "1,4,4,4,4,UDP"},
                                {"-trace_opcode_latency_initiation_spec_op_4", "4,1"}};
  return {
      {"GV100",
       merged(volta_common(), {{"-gpgpu_kernel_launch_latency", "5000"},
                               {"-gpgpu_TB_launch_latency", "0"},
                               {"-gpgpu_n_clusters", "80"},
                               {"-gpgpu_n_cores_per_cluster", "1"},
                               {"-gpgpu_n_mem", "32"},
                               {"-gpgpu_clock_domains", "1447.0:1447.0:1447.0:850.0"},
                               {"-gpgpu_num_reg_banks", "16"},
                               {"-dram_bnk_indexing_policy", "0"}}),
       merged(volta_trace, {{"-trace_opcode_latency_initiation_tensor", "2,2"}, {"-trace_opcode_latency_initiation_spec_op_3", "2,2"}}),
       ""},
      {"TITANV",
       merged(volta_common(), {{"-gpgpu_n_clusters", "40"},
                               {"-gpgpu_n_cores_per_cluster", "2"},
                               {"-gpgpu_n_mem", "24"},
                               {"-gpgpu_clock_domains", "1200.0:1200.0:1200.0:850.0"},
                               {"-gpgpu_num_reg_banks", "8"},
                               {"-dram_bnk_indexing_policy", "1"},
                               {"-dram_seperate_write_queue_enable", "1"}}),
       merged(volta_trace, {{"-trace_opcode_latency_initiation_tensor", "8,4"}, {"-trace_opcode_latency_initiation_spec_op_3", "8,4"}}),
       "-dram_seperate_write_queue_enable"},
      {"RTX2060",
       merged(turing_common(),
              {{"-gpgpu_TB_launch_latency", "0"},
               {"-gpgpu_n_clusters", "30"},
               {"-gpgpu_n_mem", "12"},
               {"-gpgpu_clock_domains", "1365:1365:1365:3500.5"},
               {"-gpgpu_shader_cta", "16"},
               {"-gpgpu_pipeline_widths", "4,4,4,4,4,4,4,4,4,4,8,4,4"},
               {"-gpgpu_num_dp_units", "4"},
               {"-gpgpu_num_reg_banks", "8"},
               {"-gpgpu_adaptive_cache_config", "1"},
               {"-gpgpu_shmem_option", "32,64"},
               {"-gpgpu_unified_l1d_size", "96"},
               {"-gpgpu_cache:dl1", "S:4:128:64,L:T:m:L:L,A:256:32,16:0,32"},
               {"-gpgpu_l1_latency", "32"},
               {"-gpgpu_smem_latency", "30"},
               {"-gpgpu_l2_rop_latency", "194"},
               {"-dram_latency", "96"},
               {"-gpgpu_dram_timing_opt", "nbk=16:CCD=4:RRD=12:RCD=24:RAS=55:RP=24:RC=78:CL=24:WL=8:CDLR=10:WR=24:nbkgrp=4:CCDL=6:RTPL=4"},
               {"-dram_dual_bus_interface", "0"}}),
       turing_trace, ""},
      {"RTX2060_S",
       merged(turing_common(), {{"-gpgpu_n_clusters", "34"},
                                {"-gpgpu_n_mem", "16"},
                                {"-gpgpu_clock_domains", "1905.0:1905.0:1905.0:3500.0"},
                                {"-gpgpu_shader_cta", "32"},
                                {"-gpgpu_pipeline_widths", "4,0,4,4,4,4,0,4,4,4,8,4,4"},
                                {"-gpgpu_num_reg_banks", "16"},
                                {"-gpgpu_adaptive_cache_config", "0"},
                                {"-gpgpu_cache:dl1", "S:1:128:512,L:L:s:N:L,A:256:8,16:0,32"},
                                {"-gpgpu_l1_latency", "20"},
                                {"-gpgpu_smem_latency", "20"},
                                {"-gpgpu_l2_rop_latency", "160"},
                                {"-dram_latency", "100"},
                                {"-gpgpu_dram_timing_opt",
                                 "\"nbk=16:CCD=4:RRD=10:RCD=20:RAS=50:RP=20:RC=62: CL=20:WL=8:CDLR=9:WR=20:nbkgrp=4:CCDL=4:RTPL=4\""}}),
       turing_trace, ""},
      {"TITANX",
       {{"-gpgpu_ignore_resources_limitation", "1"},
        {"-gpgpu_kernel_launch_latency", "5000"},
        {"-gpgpu_n_clusters", "28"},
        {"-gpgpu_n_cores_per_cluster", "1"},
        {"-gpgpu_n_mem", "12"},
        {"-gpgpu_n_sub_partition_per_mchannel", "2"},
        {"-gpgpu_clock_domains", "1417.0:1417.0:1417.0:2500.0"},
        {"-gpgpu_shader_registers", "65536"},
        {"-gpgpu_shader_core_pipeline", "2048:32"},
        {"-gpgpu_shader_cta", "32"},
        {"-gpgpu_pipeline_widths", "4,0,0,4,4,4,0,0,4,4,8"},
        {"-gpgpu_num_sp_units", "4"},
        {"-gpgpu_num_sfu_units", "4"},
        {"-gpgpu_sub_core_model", "1"},
        {"-gpgpu_operand_collector_num_units_gen", "8"},
        {"-gpgpu_operand_collector_num_in_ports_gen", "8"},
        {"-gpgpu_operand_collector_num_out_ports_gen", "8"},
        {"-gpgpu_num_reg_banks", "16"},
        {"-gpgpu_reg_file_port_throughput", "2"},
        {"-gpgpu_shmem_num_banks", "32"},
        {"-gpgpu_num_sched_per_core", "4"},
        {"-gpgpu_scheduler", "gto"},
        {"-gpgpu_max_insn_issue_per_warp", "2"},
        {"-gpgpu_dual_issue_diff_exec_units", "1"},
        {"-gpgpu_l1_banks", "2"},
        {"-gpgpu_cache:dl1", "S:4:128:96,L:L:s:N:L,A:256:8,16:0,32"},
        {"-gpgpu_shmem_size", "98304"},
        {"-gpgpu_gmem_skip_L1D", "1"},
        {"-icnt_flit_size", "40"},
        {"-gpgpu_n_cluster_ejection_buffer_size", "32"},
        {"-gpgpu_l1_latency", "82"},
        {"-gpgpu_smem_latency", "24"},
        {"-gpgpu_flush_l1_cache", "1"},
        {"-gpgpu_cache:dl2", "S:64:128:16,L:B:m:L:P,A:256:64,16:0,32"},
        {"-gpgpu_cache:dl2_texture_only", "0"},
        {"-gpgpu_dram_partition_queues", "32:32:32:32"},
        {"-gpgpu_memory_partition_indexing", "4"},
        {"-gpgpu_cache:il1", "N:8:128:4,L:R:f:N:L,S:2:48,4"},
        {"-gpgpu_inst_fetch_throughput", "8"},
        {"-gpgpu_perfect_inst_const_cache", "1"},
        {"-network_mode", "1"},
        {"-inter_config_file", "config_pascal_islip.icnt"},
        {"-gpgpu_l2_rop_latency", "120"},
        {"-dram_latency", "100"},
        {"-gpgpu_dram_scheduler", "1"},
        {"-gpgpu_frfcfs_dram_sched_queue_size", "64"},
        {"-gpgpu_dram_return_queue_size", "64"},
        {"-gpgpu_n_mem_per_ctrlr", "1"},
        {"-gpgpu_dram_buswidth", "4"},
        {"-gpgpu_dram_burst_length", "8"},
        {"-dram_data_command_freq_ratio", "4"},
        {"-gpgpu_mem_addr_mapping", "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSS"},
        {"-gpgpu_dram_timing_opt", "\"nbk=16:CCD=2:RRD=8:RCD=16:RAS=37:RP=16:RC=52: CL=16:WL=6:CDLR=7:WR=16:nbkgrp=4:CCDL=4:RTPL=3\""},
        {"-dram_bnk_indexing_policy", "0"},
        {"-dram_bnkgrp_indexing_policy", "1"}},
       {{"-trace_opcode_latency_initiation_int", "4,1"},
        {"-trace_opcode_latency_initiation_sp", "4,1"},
        {"-trace_opcode_latency_initiation_dp", "20,8"},
        {"-trace_opcode_latency_initiation_sfu", "20,4"}},
       ""},
  };
}

}  // namespace

// Every option of the shipped file is the public file's value, or marked [not in file] with
// GPGPU-Sim's default; every public value the model reads is there.
TEST(sm_shipped_configs, option_lists_are_the_public_files) {
  const options defaults = parse(gpgpusim_defaults_text());
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    std::string g, t;
    ASSERT_TRUE(shipped_config_text(c.name, g, t));
    for (const auto& [file, want] : {std::pair{&g, &c.gpgpusim}, std::pair{&t, &c.trace}}) {
      options marked;
      const options got = parse(*file, &marked);
      EXPECT_EQ(got, *want);
      for (const auto& [k, v] : marked) {
        EXPECT_EQ(want->count(k), 0u) << k << " is in the public file";
        ASSERT_EQ(defaults.count(k), 1u) << k;
        EXPECT_EQ(v, defaults.at(k)) << k;
      }
    }
  }
}

// Each loads; one whose public file gives an option the model does not implement is refused
// without --allow-unmodelled, naming that option, and runs with it.
TEST(sm_shipped_configs, load_and_name_what_is_not_modelled) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    if (*c.unmodelled) {
      try {
        make_gpu_config(c.name, {}, "--gpu");
        ADD_FAILURE() << "loaded without --allow-unmodelled";
      } catch (const gpuvp::config_error& e) {
        EXPECT_NE(std::string(e.what()).find(std::string("\n  ") + c.unmodelled + " "), std::string::npos) << e.what();
      }
    }
    const gpu_config cfg = make_gpu_config(c.name, {}, "--gpu", true);
    const auto timing = cfg.unmodelled_timing(false);
    EXPECT_EQ(timing.size(), *c.unmodelled ? 1u : 0u);
    const options& o = c.gpgpusim;
    unsigned clusters = 0, per = 0, mem = 0;
    std::sscanf(o.at("-gpgpu_n_clusters").c_str(), "%u", &clusters);
    std::sscanf(o.at("-gpgpu_n_cores_per_cluster").c_str(), "%u", &per);
    std::sscanf(o.at("-gpgpu_n_mem").c_str(), "%u", &mem);
    EXPECT_EQ(cfg.num_sms(), clusters * per);
    EXPECT_EQ(cfg.mem.n_mem, mem);
    EXPECT_DOUBLE_EQ(cfg.core_mhz, std::stod(o.at("-gpgpu_clock_domains")));
  }
  // Figures worked out from the public files.
  const gpu_config titanv = make_gpu_config("TITANV", {}, "--gpu", true), titanx = make_gpu_config("TITANX", {}, "--gpu");
  const gpu_config r = make_gpu_config("RTX2060", {}, "--gpu"), rs = make_gpu_config("RTX2060_S", {}, "--gpu");
  EXPECT_EQ(titanv.num_sms(), 80u);             // 40 clusters x 2
  EXPECT_EQ(titanv.kernel_launch_latency, 0u);  // the file gives none: GPGPU-Sim's default
  EXPECT_EQ(titanv.mem.dram_bnk_xor_row, 1u);
  EXPECT_EQ(titanx.mem.network_mode, 1u);
  EXPECT_EQ(titanx.mem.partition_indexing, 4u);        // random sub-partitions, modelled
  EXPECT_EQ(titanx.mem.icnt_file_input_buffer, 256u);  // config_pascal_islip.icnt
  EXPECT_EQ(titanx.mem.icnt_file_ejection_buffer, 64u);
  EXPECT_TRUE(titanx.gmem_skip_l1d);
  EXPECT_TRUE(titanx.ignore_resources_limitation);
  EXPECT_EQ(titanx.num_dp + titanx.num_int + titanx.num_tensor, 0u);
  EXPECT_EQ(titanx.lat_sfu.latency, 20u);
  EXPECT_EQ(titanx.lat_sfu.initiation, 4u);
  EXPECT_EQ(r.max_threads_per_sm, 1024u);
  EXPECT_EQ(r.max_ctas_per_sm, 16u);
  EXPECT_EQ(r.mem.l2.sets, 64u);
  EXPECT_EQ(r.mem.dram.RCD, 24u);
  EXPECT_EQ(r.l1_ways_for(0), 128u);  // 96 KB unified - 32 KB shared (the smallest option) = 64 KB = 4 sets x 128 B x 128 ways
  EXPECT_EQ(rs.l1_sets, 1u);
  EXPECT_EQ(rs.l1_ways, 512u);
  EXPECT_EQ(rs.num_dp, 0u);  // not in the file: GPGPU-Sim's default, DP on the SFUs
}

// -dram_bnk_indexing_policy 1 (TITANV): the DRAM bank is the decoded bank XOR the row's low four
// bits; the sub-partition keeps the decoded bank. Mapping RBBBCCCB.CCCSSSSS over dramid@8 with 24
// channels: local address 1 << 15 (row 1, bank 0, channel 0) is address (128 x 24) << 8.
TEST(sm_shipped_configs, bank_xor_row_indexing) {
  gpu_config x = make_gpu_config("TITANV", {}, "--gpu", true);
  gpu_config plain = x;
  plain.mem.dram_bnk_xor_row = 0;
  memory_system mx(x), mp(plain);
  const uint64_t addr = (128ull * 24) << 8;
  EXPECT_EQ(mp.decode(addr).row, 1u);
  EXPECT_EQ(mp.decode(addr).bank, 0u);
  EXPECT_EQ(mx.decode(addr).bank, 1u);
  EXPECT_EQ(mx.decode(addr).sub_partition, mp.decode(addr).sub_partition);
  // Row 5, bank 3 (bits 8 and 12 of the local address): 3 ^ 5 = 6.
  const uint64_t local = (5ull << 15) | (1ull << 8) | (1ull << 12);
  const uint64_t addr2 = (((local >> 8) * 24) << 8) | (local & 0xff);
  EXPECT_EQ(mp.decode(addr2).bank, 3u);
  EXPECT_EQ(mx.decode(addr2).bank, 6u);
  try {
    load_config_text(x, "-dram_bnk_indexing_policy 2\n", "b.config");
    ADD_FAILURE() << "policy 2 (IPOLY) taken";
  } catch (const config_file_error& e) {
    EXPECT_NE(std::string(e.what()).find("b.config:1: -dram_bnk_indexing_policy: 2 outside [0, 1]"), std::string::npos) << e.what();
  }
}

// -gpgpu_ignore_resources_limitation (TITANX): a CTA needing more registers than an SM has runs
// one per SM (GPGPU-Sim's max_cta returns 1) instead of being refused.
TEST(sm_shipped_configs, ignore_resources_limitation_runs_one_cta) {
  using gpuvp::sm::testing::op;
  const std::string text = write_kernel_trace("big", 1, {2, 1, 1}, {1024, 1, 1}, 61, 0, 255,
                                              std::vector<std::vector<trace_writer_inst>>(32, {op("EXIT", {}, {})}));
  const kernel_trace k = parse_kernel_trace_text(text, "big.traceg");
  gpu_config c = make_gpu_config("TITANX", {}, "--gpu", true);
  EXPECT_EQ(sm_core::max_ctas(c, k), 1u);  // 1024 threads x 256 registers > 65536
  c.ignore_resources_limitation = false;
  EXPECT_EQ(sm_core::max_ctas(c, k), 0u);
}

// CTAs go out as gpgpu_sim::issue_block2core gives them: one per cluster per cycle, clusters in
// turn, the first CTA of a cluster to its core 0. TITANV has two SMs per cluster: three CTAs land
// on SMs 0, 2 and 4 (clusters 0, 1, 2), not on SMs 0, 1, 2.
TEST(sm_shipped_configs, ctas_spread_over_clusters_first) {
  using gpuvp::sm::testing::op;
  const std::string text =
      write_kernel_trace("three", 1, {3, 1, 1}, {32, 1, 1}, 70, 0, 16, {{op("FFMA", {4}, {2, 3, 5}), op("EXIT", {}, {})}});
  const kernel_trace k = parse_kernel_trace_text(text, "three.traceg");
  gpu_config c = make_gpu_config("TITANV", {}, "--gpu", true);
  auto m = make_memory(c, "fixed");
  gpu_sim g(c, m.get(), 0);
  std::vector<unsigned> sms;
  g.on_warp = [&](unsigned sm, unsigned, unsigned, unsigned, bool start) {
    if (start) sms.push_back(sm);
  };
  g.start(k);
  while (g.step()) {}
  EXPECT_EQ(sms, (std::vector<unsigned>{0, 2, 4}));
}
