// SPDX-License-Identifier: Apache-2.0
// GPU memory port for engines that are not SMs (component type "gpu_l2"): copy engine, PFIFO, CP
// or a traffic generator reach VRAM through the GPU's L2 slices, crossbar and DRAM channels, the
// very gpu_memory object the compute engine's SMs use (memory gpgpu-sim), so that their traffic
// and the kernels' contend for the same crossbar ports, L2 tag ports, MSHRs and DRAM banks.
// Opt-in: the component exists only where configured, and the engines bind to it
// (`copy_engine.mem.to: gpu_l2.in`, `cp.mem.to: gpu_l2.in`, or `mmu.out.to: gpu_l2.in` behind a
// translation).
//
// Sockets:
//   in   target (unmapped, several initiators may bind): the engines' accesses, with host physical
//        addresses. Each is forwarded unchanged to `out` (data, errors, translation downstream);
//        the interconnect still books its links. An access inside [vram_base, vram_base +
//        vram_size) that is not a debug access and is answered OK is then timed by the GPU's
//        memory system: its 32-byte sectors (VRAM offset = address - vram_base) enter the
//        crossbar at the first core clock edge at or after sc_time_stamp() + delay, in the time
//        frame of the compute engine's running (or last) kernel, and the delay becomes the time
//        until the last sector's data (read) or acknowledgement (write) is back: the downstream
//        delay is replaced (as the compute engine's own accesses are), the upstream one kept.
//        Accesses outside the window, debug accesses and errors keep the downstream delay.
//        DMI requests and debug transport pass through (DMI shadow transactions are timed).
//   out  initiator: to the interconnect (default) or `gpu_l2.out.to`.
//
// Parameters:
//   model              bool, true: time VRAM accesses by the GPU's memory system; false: pass
//                      through untouched (exactly as if the engines were bound to the interconnect)
//   compute_component  string, "compute": the compute engine whose memory (gpgpu-sim) is shared
//   vram_base          [0, 2^64-1], 0x200000000: host physical address of VRAM offset 0
//   vram_size          [4096, 2^40], 1 GiB: size of the VRAM window
//
// Statistics: accesses (timed by the memory system), sectors, read_sectors, write_sectors,
// passed (forwarded untimed: outside the window, debug, errors or model off), busy_cycles (core
// cycles summed over timed accesses). report(): one line with the memory path and these counts.
//
// Limits: the engine's sector addresses are VRAM offsets, the SMs' are the trace's CUDA virtual
// addresses, so they share channels, slices and banks by decode but never hit each other's L2
// lines. Time: an engine and a kernel are each ahead of SystemC time by up to one quantum; their
// accesses meet in the memory in the order the threads run (see docs/models/gpu-memory.md).
#pragma once
#include <cstdint>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>

#include "compute.h"
#include "gpuvp/config.h"
#include "gpuvp/registry.h"
#include "gpuvp/stats.h"

namespace gpuvp::sm {

class gpu_l2_port : public sc_core::sc_module, public component, private mem_client {
 public:
  tlm_utils::multi_passthrough_target_socket<gpu_l2_port, 32, tlm::tlm_base_protocol_types, 0, sc_core::SC_ZERO_OR_MORE_BOUND> in{"in"};
  tlm_utils::simple_initiator_socket<gpu_l2_port> out{"out"};

  param<bool> model{this, "model", true, "time VRAM accesses by the GPU's L2/crossbar/DRAM model (false: pass through)"};
  param<std::string> compute_component{this, "compute_component", "compute",
                                       "compute engine (memory gpgpu-sim) whose memory system is shared"};
  param<uint64_t> vram_base{this, "vram_base", 0x200000000ull, "host physical address of VRAM offset 0", 0, ~uint64_t(0)};
  param<uint64_t> vram_size{this, "vram_size", 1ull << 30, "size of the VRAM window timed by the memory system", 4096, 1ull << 40};

  counter accesses{this, "accesses", "accesses timed by the GPU's memory system"};
  counter sectors{this, "sectors", "32-byte sectors of those accesses"};
  counter read_sectors{this, "read_sectors", "sectors read"};
  counter write_sectors{this, "write_sectors", "sectors written"};
  counter passed{this, "passed", "accesses forwarded untimed (outside VRAM, debug, errors, model false)"};
  counter busy_cycles{this, "busy_cycles", "core cycles of the timed accesses, summed"};

  explicit gpu_l2_port(sc_core::sc_module_name name);
  void end_of_elaboration() override;

  sc_core::sc_module& module() override { return *this; }
  std::vector<target_port> targets() override { return {{"in", &in, 0, 0}}; }
  std::vector<initiator_port> initiators() override { return {{"out", &out, "interconnect"}}; }
  void report(std::ostream& os) override;

 private:
  void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned transport_dbg(int id, tlm::tlm_generic_payload& gp);
  bool get_dmi(int id, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& d);
  void invalidate_dmi(sc_dt::uint64 lo, sc_dt::uint64 hi);
  void mem_done(uint64_t addr, bool write, unsigned tag, uint64_t cycle) override;

  compute_engine* compute_ = nullptr;
  gpu_memory* mem_ = nullptr;
  unsigned outstanding_ = 0;
  uint64_t last_done_ = 0;
};

}  // namespace gpuvp::sm
