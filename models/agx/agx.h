// SPDX-License-Identifier: Apache-2.0
// agx: the Apple AGX side of an M1-like SoC (t8103) as one platform component: the GPU's UAT with
// its sgx register block, the AXI2AF bridge to the ASC coprocessor, the AP's TLBI (DVM) port and
// the hypervisor that may drop or pass on TLBIs. The `agx` embedded platform (`--platform agx`)
// puts it beside 8 GiB of DRAM. See docs/architecture.md ("AGX platform") and docs/models/uat.md.
//
// Ports (platform names):
//   agx.sgx      mapped at sgx_base (16 MiB): the UAT's registers (FAULT_INFO +0x17030).
//   agx.axi2af   mapped at axi2af.base: the bridge's registers.
//   agx.gpu      unmapped target: GPU engines' accesses (UAT gpu view; gpu_ext::vm_context = slot).
//   agx.fw, agx.ppl  unmapped targets: the ASC's accesses in its EL1 / GL1 views; their traffic and
//                walks cross the AXI2AF bridge (an ASC component binds here).
//   agx.asc      mapped at asc.base (64 KiB): the ASC's mailbox registers, through the bridge.
//   agx.gpu_out, agx.axi2af_out  initiators to the fabric (GPU side, bridge).
// Inside: the ASC (models/asc) issues its firmware's accesses on the UAT's fw / ppl views and its
// work on the gpu view; the UAT's asc_out goes through the ASC's L1 data cache to the bridge.
//   agx.fault    interrupt: FAULT_INFO holds a fault.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include "asc.h"
#include "axi2af.h"
#include "gpuvp/config.h"
#include "gpuvp/registry.h"
#include "gpuvp/stats.h"
#include "uat.h"

namespace gpuvp::agx {

// The AP's side of TLBI broadcasts: a DVM message to every listener through the fabric.
struct agx_ap : sc_core::sc_module {
  tlm_utils::multi_passthrough_initiator_socket<agx_ap> dvm{"dvm"};
  param<bool> stage2{this, "stage2", false, "the AP runs at EL1 under a hypervisor's stage-2 translation: its TLBIs do not broadcast"};
  param<sc_core::sc_time> dvm_latency{this,
                                      "dvm_latency",
                                      sc_core::sc_time(20, sc_core::SC_NS),
                                      "fabric time of a TLBI from the AP to each listener",
                                      sc_core::SC_ZERO_TIME,
                                      sc_core::sc_time(1, sc_core::SC_SEC)};
  counter tlbis{this, "tlbis", "TLBIs issued"};
  counter tlbis_dropped{this, "tlbis_dropped", "TLBIs that did not broadcast (stage 2 without passthrough)"};
  explicit agx_ap(sc_core::sc_module_name n) : sc_module(n) {}
};

// m1n1's hypervisor: with tlbi_passthrough it traps the guest's TLBIs and re-issues them as the host.
struct agx_hv : sc_core::sc_module {
  param<bool> tlbi_passthrough{this, "tlbi_passthrough", false, "trap the guest's TLBIs and re-issue them (m1n1's fix)"};
  param<sc_core::sc_time> trap_latency{this,
                                       "trap_latency",
                                       sc_core::sc_time(500, sc_core::SC_NS),
                                       "cost of trapping and re-issuing one TLBI",
                                       sc_core::SC_ZERO_TIME,
                                       sc_core::sc_time(1, sc_core::SC_SEC)};
  counter tlbis_passed{this, "tlbis_passed", "trapped TLBIs re-issued"};
  explicit agx_hv(sc_core::sc_module_name n) : sc_module(n) {}
};

// The AP driver's choices that the AGX scenarios (docs/formats/agx.md) switch: each one is a fix
// of a bug Asahi Lina's notes describe (defaults: the buggy behaviour).
struct agx_driver : sc_core::sc_module {
  param<bool> tlbi_range_fix{this, "tlbi_range_fix", false,
                             "range TLBIs start at the range's first page (false: at its end, the macOS bug in Asahi Lina's notes)"};
  param<bool> unmap_dance{this, "unmap_dance", false,
                          "unmapping a cached firmware buffer does the flush dance (remap uncached, TLBI, flush slot 64, FWCtl)"};
  param<bool> wait_powerdown{
      this, "wait_powerdown", false,
      "after each batch the driver waits for the ASC to power down (the \"GPU shutdown hack\" of Asahi Lina's notes)"};
  param<sc_core::sc_time> timeout{this,
                                  "timeout",
                                  sc_core::sc_time(1, sc_core::SC_MS),
                                  "longest wait of a scenario step (stamp, flush state, power-down)",
                                  sc_core::sc_time(1, sc_core::SC_US),
                                  sc_core::sc_time(1, sc_core::SC_SEC)};
  explicit agx_driver(sc_core::sc_module_name n) : sc_module(n) {}
};

class agx_soc : public sc_core::sc_module, public component {
 public:
  param<uint64_t> sgx_base{this, "sgx_base", 0x204000000ull, "host physical address of the GPU's registers (sgx, 16 MiB)", 0, ~uint64_t(0)};
  uat::uat_mmu uat{"uat"};
  axi2af::axi2af bridge{"axi2af"};
  agx_ap ap{"ap"};
  agx_hv hv{"hv"};
  asc::asc_core asc{"asc"};
  agx_driver driver{"driver"};

  explicit agx_soc(sc_core::sc_module_name name);

  // Issues a TLBI from the AP (call from a SystemC thread: the host's). Waits until every listener
  // has applied it (the DSB after it), or not at all when dropped; returns the time it took.
  sc_core::sc_time tlbi(uat::tlbi_op op, uint64_t operand);

  // component
  sc_core::sc_module& module() override { return *this; }
  std::vector<target_port> targets() override;
  std::vector<initiator_port> initiators() override;
  // The ASC's kernel-launch port (agx.asc.launch.to, sm/launch_port.h).
  std::vector<interface_port> interface_ports() override { return {asc.launch.port("asc.launch")}; }
  std::vector<irq_port> irqs() override { return {{"fault", &uat.fault_irq}}; }
  bool qtest(const std::vector<std::string>& words, std::string& reply) override;
  void report(std::ostream& os) override;
  std::vector<std::string> modelled_errors() override;
};

}  // namespace gpuvp::agx
