// SPDX-License-Identifier: Apache-2.0
// The GPU's memory system as a platform component (type "gpu_l2"): GPGPU-Sim's L2 slices,
// crossbar and DRAM channels (core/memsys.h, as `gpuvp sm-run`), built from its own GPU
// configuration (`gpu`, `config_files`, as compute's). Opt-in: the `gpu-memory` platform.
//   in   target (unmapped, several initiators): forwarded to `out`; a non-debug access inside
//        [vram_base, + vram_size) answered OK is timed by the memory system, sector by sector
//        (one timed already by other SMs' memory system: passed on, a modelled error).
//   out  initiator: to the interconnect (default) or `gpu_l2.out.to`.
//   sms  export (gpu_memory_port.h): a compute engine's `l2` port binds here (`compute.l2.to:
//        gpu_l2.sms`); its SMs then use this memory system and their accesses pass untimed.
// Timing, statistics and limits: docs/models/gpu_memory.md, "Other engines"; parameters:
// docs/configuration.md.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>

#include "core/gpu_config.h"
#include "core/memsys.h"
#include "gpu_memory_port.h"
#include "gpuvp/config.h"
#include "gpuvp/registry.h"
#include "gpuvp/stats.h"

namespace gpuvp::gpu_memory {

class gpu_l2_port : public sc_core::sc_module, public component, public gpu_memory_if, private mem_client {
 public:
  tlm_utils::multi_passthrough_target_socket<gpu_l2_port, 32, tlm::tlm_base_protocol_types, 0, sc_core::SC_ZERO_OR_MORE_BOUND> in{"in"};
  tlm_utils::simple_initiator_socket<gpu_l2_port> out{"out"};
  sc_core::sc_export<gpu_memory_if> sms{"sms"};  // bound to this component

  param<bool> model{this, "model", true, "own the GPU's L2/crossbar/DRAM model and time VRAM accesses by it (false: pass through)"};
  param<std::string> gpu{
      this, "gpu", "QV100",
      "shipped GPU configuration of the memory system: QV100, GV100, TITANV, TITANX, RTX2060, RTX2060_S, RTX3070, A100 or H100"};
  param<std::vector<std::string>> config_files{this,
                                               "config_files",
                                               {},
                                               "Accel-Sim option files read after the shipped configuration, in order "
                                               "(a YAML list; in --set also a,b)"};
  param<uint64_t> vram_base{this, "vram_base", 0x200000000ull, "host physical address of VRAM offset 0", 0, ~uint64_t(0)};
  param<uint64_t> vram_size{this, "vram_size", 1ull << 30, "size of the VRAM window timed by the memory system", 4096, 1ull << 40};

  counter accesses{this, "accesses", "accesses timed by the GPU's memory system"};
  counter sectors{this, "sectors", "32-byte sectors of those accesses"};
  counter read_sectors{this, "read_sectors", "sectors read"};
  counter write_sectors{this, "write_sectors", "sectors written"};
  counter passed{this, "passed", "accesses forwarded untimed (outside VRAM, debug, errors, model false)"};
  counter sm_forwarded{this, "sm_forwarded", "the attached SMs' accesses, forwarded (timed by the compute engine)"};
  counter busy_cycles{this, "busy_cycles", "core cycles of the timed accesses, summed"};
  gauge l2_accesses{this, "l2_accesses", "L2 sector accesses, SMs and engines (GPGPU-Sim L2_total_cache_accesses)",
                    [this] { return double(mem_stats_().l2_accesses); }};
  gauge l2_hits{this, "l2_hits", "L2 sector hits (L2_total_cache_hits)", [this] { return double(mem_stats_().l2_hits); }};
  gauge l2_pending_hits{this, "l2_pending_hits", "L2 hits on a pending fill (L2_total_cache_pending_hits)",
                        [this] { return double(mem_stats_().l2_pending_hits); }};
  gauge l2_misses{this, "l2_misses", "L2 sector misses (L2_total_cache_misses)", [this] { return double(mem_stats_().l2_misses); }};
  gauge l2_writes{this, "l2_writes", "L2 sector writes", [this] { return double(mem_stats_().l2_writes); }};
  gauge l2_reservation_fails{this, "l2_reservation_fails",
                             "L2 accesses failed for an MSHR, a merge slot or a way (L2_total_cache_reservation_fails)",
                             [this] { return double(mem_stats_().l2_reservation_fails); }};
  gauge l2_queue_stalls{this, "l2_queue_stalls", "cycles an L2 made no access on a full L2 -> DRAM or L2 -> icnt queue",
                        [this] { return double(mem_stats_().l2_queue_stalls); }};
  gauge dram_reads{this, "dram_reads", "DRAM sector reads (total dram reads)", [this] { return double(mem_stats_().dram_reads); }};
  gauge dram_writes{this, "dram_writes", "DRAM sector writes (total dram writes)", [this] { return double(mem_stats_().dram_writes); }};
  gauge dram_row_hits{this, "dram_row_hits", "DRAM accesses to the open row", [this] { return double(mem_stats_().dram_row_hits); }};
  gauge dram_bytes{this, "dram_bytes", "bytes moved by the DRAM channels (32 per sector)",
                   [this] { return double(mem_stats_().dram_bytes); }};
  gauge row_buffer_locality{this, "row_buffer_locality", "DRAM row hits / DRAM accesses (row_buffer_locality)",
                            [this] { return mem_stats_().row_buffer_locality(); }};

  explicit gpu_l2_port(sc_core::sc_module_name name);
  ~gpu_l2_port() override;

  sc_core::sc_module& module() override { return *this; }
  std::vector<target_port> targets() override { return {{"in", &in, 0, 0}}; }
  std::vector<initiator_port> initiators() override { return {{"out", &out, "interconnect"}}; }
  std::vector<interface_export> interface_exports() override { return {{"sms", gpu_memory_interface, &sms}}; }
  void report(std::ostream& os) override;
  std::vector<std::string> modelled_errors() override { return errors_; }

  // gpu_memory_if
  std::string owner() const override { return name(); }
  bool owns_memory() const override { return bool(mem_); }
  const gpu_config& config() const override { return cfg_; }
  memory_system& memory() override { return *mem_; }
  void attach_sms(const std::string& who) override;
  void kernel_frame(sc_core::sc_time t0) override { frame_t0_ = t0; }

  const std::string& attached_sms() const { return sms_; }  // empty: no compute engine bound

 private:
  void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned transport_dbg(int id, tlm::tlm_generic_payload& gp);
  bool get_dmi(int id, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& d);
  void invalidate_dmi(sc_dt::uint64 lo, sc_dt::uint64 hi);
  void mem_done(uint64_t addr, bool write, unsigned tag, uint64_t cycle) override;
  mem_stats mem_stats_() const { return mem_ ? mem_->stats() : mem_stats{}; }

  gpu_config cfg_;
  std::unique_ptr<memory_system> mem_;
  sc_core::sc_time period_;
  sc_core::sc_time frame_t0_ = sc_core::SC_ZERO_TIME;
  std::string sms_;  // the bound compute engine
  std::vector<std::string> errors_;
  unsigned outstanding_ = 0;
  uint64_t last_done_ = 0;
};

}  // namespace gpuvp::gpu_memory
