// SPDX-License-Identifier: Apache-2.0
// The GPU's memory system as a platform component (type "gpu_l2"): the L2 slices, the crossbar
// and the DRAM channels of GPGPU-Sim (core/memsys.h, the very model `gpuvp sm-run` uses), built
// from this component's own GPU configuration (`gpu`, `config_files`, as compute's). It sits
// between the GPU's initiators and the interconnect; models reach it only through sockets:
//   - a compute engine whose `out` is bound here (`compute.out.to: gpu_l2.in`) finds it through
//     that socket (gpu_mem_link.h: a probe extension on a debug transaction) and its SMs' L1
//     misses and stores use this memory system instead of one of their own;
//   - other engines (copy engine, PFIFO, CP, traffic) bound here (`copy.mem.to: gpu_l2.in`,
//     `cp.mem.to: gpu_l2.in`, `mmu.out.to: gpu_l2.in`) have their VRAM accesses timed by it, so
//     that they and the kernels contend for the crossbar ports, L2 tag ports, MSHRs and banks.
// Opt-in: in the `gpu-memory` platform (models/sm/gpu-memory.yaml) or added by configuration.
//
// Sockets:
//   in   target (unmapped, several initiators may bind): accesses with host physical addresses.
//        Each is forwarded to `out` (data, errors, translation downstream); one this component
//        times (below) or the SMs' goes with an untimed_ext (gpuvp/untimed.h), so the interconnect carries
//        and counts it without booking its links (one time line: the memory system's). Then:
//        - an attached compute engine's access (sm_timed_ext) keeps the downstream delay: the
//          SMs take their latency from the memory system directly;
//        - another access inside [vram_base, vram_base + vram_size) that is not a debug access
//          and is answered OK is timed by the memory system: its 32-byte sectors (VRAM offset =
//          address - vram_base; a write's first and last sectors with the bytes it covers, so a
//          partly written sector stays unreadable in L2) enter the crossbar at the first core clock edge at or after
//          sc_time_stamp() + delay, in the time frame of the attached compute engine's running
//          (or last) kernel (SystemC time 0 when no kernel has run), and the delay becomes the
//          time until the last sector's data (read) or acknowledgement (write) is back: the
//          downstream delay is replaced, the upstream one kept;
//        - outside the window, debug accesses and errors keep the downstream delay.
//        A debug transaction carrying gpu_memory_probe is answered here (model true) and not
//        forwarded. DMI requests and other debug transport pass through.
//   out  initiator: to the interconnect (default) or `gpu_l2.out.to`.
//
// Parameters:
//   model         bool, true: own and use the memory system; false: a plain wire (answers no
//                 probe, times nothing: exactly as if everything were bound to the interconnect)
//   gpu           string, "QV100": shipped GPU configuration (docs/models/sm.md, "Shipped")
//   config_files  string, "": comma-separated Accel-Sim option files read after it
//   vram_base     [0, 2^64-1], 0x200000000: host physical address of VRAM offset 0
//   vram_size     [4096, 2^40], 1 GiB: size of the VRAM window
// A compute engine that finds this component must have the same memory options (clock domains,
// L2, crossbar, address mapping, DRAM): otherwise the run stops before it starts (exit 2) with
// the differing option.
//
// Statistics: accesses (timed here), sectors, read_sectors, write_sectors, passed (forwarded
// untimed: outside the window, debug, errors or model false), sm_forwarded (the attached SMs'
// accesses, timed by the compute engine), busy_cycles (core cycles summed over timed accesses);
// the memory system's totals, SMs and engines together, GPGPU-Sim's names in the descriptions:
// l2_accesses, l2_hits, l2_pending_hits, l2_misses, l2_writes, l2_reservation_fails, l2_queue_stalls,
// dram_reads, dram_writes, dram_row_hits, dram_bytes, row_buffer_locality. report(): one line with the
// memory path (which SMs share it) and these counts.
//
// Limits: an engine's sector addresses are VRAM offsets, the SMs' are the trace's CUDA virtual
// addresses, so they share channels, slices and banks by decode but never hit each other's L2
// lines. Time: an engine and a kernel are each ahead of SystemC time by up to one quantum; their
// accesses meet in the memory in the order the threads run (see docs/models/gpu-memory.md).
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
#include "gpu_mem_link.h"
#include "gpuvp/config.h"
#include "gpuvp/registry.h"
#include "gpuvp/stats.h"

namespace gpuvp::sm {

class gpu_l2_port : public sc_core::sc_module, public component, public gpu_memory_link, private mem_client {
 public:
  tlm_utils::multi_passthrough_target_socket<gpu_l2_port, 32, tlm::tlm_base_protocol_types, 0, sc_core::SC_ZERO_OR_MORE_BOUND> in{"in"};
  tlm_utils::simple_initiator_socket<gpu_l2_port> out{"out"};

  param<bool> model{this, "model", true, "own the GPU's L2/crossbar/DRAM model and time VRAM accesses by it (false: pass through)"};
  param<std::string> gpu{this, "gpu", "QV100", "shipped GPU configuration of the memory system: QV100, GV100, TITANV, TITANX, RTX2060, RTX2060_S, RTX3070, A100 or H100"};
  param<std::string> config_files{this, "config_files", "",
                                  "comma-separated Accel-Sim option files read after the shipped configuration"};
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
  gauge l2_reservation_fails{this, "l2_reservation_fails", "L2 accesses failed for an MSHR, a merge slot or a way (L2_total_cache_reservation_fails)",
                             [this] { return double(mem_stats_().l2_reservation_fails); }};
  gauge l2_queue_stalls{this, "l2_queue_stalls", "cycles an L2 made no access on a full L2 -> DRAM or L2 -> icnt queue",
                        [this] { return double(mem_stats_().l2_queue_stalls); }};
  gauge dram_reads{this, "dram_reads", "DRAM sector reads (total dram reads)", [this] { return double(mem_stats_().dram_reads); }};
  gauge dram_writes{this, "dram_writes", "DRAM sector writes (total dram writes)", [this] { return double(mem_stats_().dram_writes); }};
  gauge dram_row_hits{this, "dram_row_hits", "DRAM accesses to the open row", [this] { return double(mem_stats_().dram_row_hits); }};
  gauge dram_bytes{this, "dram_bytes", "bytes moved by the DRAM channels (32 per sector)", [this] { return double(mem_stats_().dram_bytes); }};
  gauge row_buffer_locality{this, "row_buffer_locality", "DRAM row hits / DRAM accesses (row_buffer_locality)",
                            [this] { return mem_stats_().row_buffer_locality(); }};

  explicit gpu_l2_port(sc_core::sc_module_name name);
  ~gpu_l2_port() override;

  sc_core::sc_module& module() override { return *this; }
  std::vector<target_port> targets() override { return {{"in", &in, 0, 0}}; }
  std::vector<initiator_port> initiators() override { return {{"out", &out, "interconnect"}}; }
  void report(std::ostream& os) override;

  // gpu_memory_link
  std::string owner() const override { return name(); }
  const gpu_config& config() const override { return cfg_; }
  gpu_memory& memory() override { return *mem_; }
  void attach_sms(const std::string& who) override;
  void kernel_frame(sc_core::sc_time t0) override { frame_t0_ = t0; }

  bool owns_memory() const { return bool(mem_); }
  const std::string& attached_sms() const { return sms_; }  // empty: no compute engine found it

 private:
  void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned transport_dbg(int id, tlm::tlm_generic_payload& gp);
  bool get_dmi(int id, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& d);
  void invalidate_dmi(sc_dt::uint64 lo, sc_dt::uint64 hi);
  void mem_done(uint64_t addr, bool write, unsigned tag, uint64_t cycle) override;
  mem_stats mem_stats_() const { return mem_ ? mem_->stats() : mem_stats{}; }

  gpu_config cfg_;
  std::unique_ptr<gpu_memory> mem_;
  sc_core::sc_time period_;
  sc_core::sc_time frame_t0_ = sc_core::SC_ZERO_TIME;
  std::string sms_;  // the attached compute engine
  unsigned outstanding_ = 0;
  uint64_t last_done_ = 0;
};

}  // namespace gpuvp::sm
