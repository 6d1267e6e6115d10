// SPDX-License-Identifier: Apache-2.0
// axi2af: the AXI2AF bridge (AXI to Apple Fabric) between the ASC coprocessor and the SoC fabric
// (t8103 at 0x2_0500_0000). It carries the ASC side's memory traffic to the fabric and the AP's
// TLBI broadcasts to the ASC side, the latter only once its configuration "pokes" (m1n1
// src/tunables_static.c) are applied. See docs/models/axi2af.md.
//
// Sockets:
//   regs       the bridge's registers (the poke offsets; 32-bit read/write, reset 0).
//   asc_in     target (unmapped): ASC-side accesses (the ASC's UAT views), passed to fabric_out
//              with `latency` added; DMI and debug accesses pass through, DMI invalidations back.
//   fabric_out initiator to the SoC fabric (the interconnect).
//   dvm_in     target: TLBI messages from the fabric (payload with a uat::tlbi_msg extension).
//   dvm_out    initiator: TLBIs forwarded to the ASC side (its UAT's tlbi_asc), or dropped.
//   ap_in      target: the AP's accesses to the ASC's registers (mailbox, doorbell), passed to
//              mmio_out with `latency` added.
//   mmio_out   initiator: to the ASC's register block.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include "gpuvp/config.h"
#include "gpuvp/regbank.h"
#include "gpuvp/stats.h"

namespace gpuvp::axi2af {

class axi2af : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<axi2af> asc_in{"asc_in"};
  tlm_utils::simple_initiator_socket<axi2af> fabric_out{"fabric_out"};
  tlm_utils::simple_target_socket<axi2af> dvm_in{"dvm_in"};
  tlm_utils::simple_initiator_socket<axi2af> dvm_out{"dvm_out"};
  tlm_utils::simple_target_socket<axi2af> ap_in{"ap_in"};
  tlm_utils::simple_initiator_socket<axi2af> mmio_out{"mmio_out"};

  // One read-modify-write of the boot sequence: v = (v & ~clear) | set.
  struct poke {
    uint64_t offset;
    uint32_t clear, set;
  };
  // m1n1's static tunables for /arm-io/sgx (t8103 = M1, t8112 = M2), offsets from the bridge base.
  static const std::vector<poke>& pokes_of(const std::string& soc);

  // --- parameters ---
  param<uint64_t> base{this, "base", 0x205000000ull, "host physical address of the bridge's registers", 0, ~uint64_t(0)};
  param<std::string> soc{this, "soc", "t8103", "whose poke list boot applies: t8103 (M1) or t8112 (M2)"};
  param<bool> pokes{this, "pokes", true, "boot applies the configuration pokes (m1n1 does; without them no TLBI reaches the ASC)"};
  param<std::string> tlbi_gate{this, "tlbi_gate", "all",
                               "which pokes must be in place to forward TLBIs: all, none, or offsets (0x400,0x800)"};
  param<sc_core::sc_time> latency{this,
                                  "latency",
                                  sc_core::sc_time(4, sc_core::SC_NS),
                                  "added to each ASC access crossing the bridge",
                                  sc_core::SC_ZERO_TIME,
                                  sc_core::sc_time(1, sc_core::SC_SEC)};
  param<sc_core::sc_time> tlbi_latency{this,
                                       "tlbi_latency",
                                       sc_core::sc_time(4, sc_core::SC_NS),
                                       "added to each TLBI forwarded to the ASC side",
                                       sc_core::SC_ZERO_TIME,
                                       sc_core::sc_time(1, sc_core::SC_SEC)};

  // --- registers: every offset of the t8103 and t8112 lists ---
  register_bank regs{"regs", 0x4000};
  reg r000{regs, "CFG_000", 0x000, 4, 0}, r030{regs, "CFG_030", 0x030, 4, 0}, r034{regs, "CFG_034", 0x034, 4, 0},
      r038{regs, "CFG_038", 0x038, 4, 0}, r400{regs, "CFG_400", 0x400, 4, 0}, r600{regs, "CFG_600", 0x600, 4, 0},
      r738{regs, "CFG_738", 0x738, 4, 0}, r798{regs, "CFG_798", 0x798, 4, 0}, r800{regs, "CFG_800", 0x800, 4, 0};

  // --- statistics ---
  counter accesses{this, "accesses", "ASC accesses carried to the fabric"};
  counter mmio{this, "mmio", "AP accesses carried to the ASC's registers"};
  counter tlbis_forwarded{this, "tlbis_forwarded", "TLBIs forwarded to the ASC side"};
  counter tlbis_dropped{this, "tlbis_dropped", "TLBIs dropped because the gating pokes are not in place"};
  counter pokes_applied{this, "pokes_applied", "poke read-modify-writes applied at boot"};

  explicit axi2af(sc_core::sc_module_name name);
  // Applies the SoC's pokes to the registers (boot does it when `pokes` is set).
  void apply_pokes();
  // Whether the gating pokes are in place now (registers hold (v & clear) == set).
  bool tlbi_forwarding();
  void report(std::ostream& os);

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& gp) { return fabric_out->transport_dbg(gp); }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
  void invalidate(sc_dt::uint64 start, sc_dt::uint64 end) { asc_in->invalidate_direct_mem_ptr(start, end); }
  void dvm(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void ap_mmio(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    ++mmio;
    delay += latency.get();
    mmio_out->b_transport(gp, delay);
  }
  unsigned ap_dbg(tlm::tlm_generic_payload& gp) { return mmio_out->transport_dbg(gp); }
  std::vector<poke> gate_;  // the pokes that gate TLBI forwarding
};

}  // namespace gpuvp::axi2af
