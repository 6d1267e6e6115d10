// SPDX-License-Identifier: Apache-2.0
#include "axi2af.h"

#include <ostream>
#include <sstream>
#include "gpuvp/trace.h"

namespace gpuvp::axi2af {

const std::vector<axi2af::poke>& axi2af::pokes_of(const std::string& soc) {
  static const std::vector<poke> t8103 = {{0x030, 0xffffffff, 0x00050014}, {0x034, 0xffffffff, 0x000a003c}, {0x400, 0x400103ff, 0x40010001},
                                          {0x600, 0x01ffffff, 0x01ffffff}, {0x738, 0x01ff01ff, 0x00140034}, {0x798, 0x01ff01ff, 0x0014003c},
                                          {0x800, 0x00000100, 0x00000100}};
  static const std::vector<poke> t8112 = {{0x000, 0x200, 0x200},           {0x034, 0xffffffff, 0x50014},  {0x038, 0xffffffff, 0xa003c},
                                          {0x400, 0xc00103ff, 0xc0010001}, {0x600, 0x1ffffff, 0x1ffffff}, {0x738, 0x1ff01ff, 0x14003c},
                                          {0x798, 0x1ff01ff, 0x14003c},    {0x800, 0x100, 0x100}};
  static const std::vector<poke> none;
  return soc == "t8103" ? t8103 : soc == "t8112" ? t8112 : none;
}

axi2af::axi2af(sc_core::sc_module_name name) : sc_module(name) {
  if (soc.get() != "t8103" && soc.get() != "t8112") throw config_error(soc.path() + ": '" + soc.get() + "' is not t8103 or t8112");
  const auto& list = pokes_of(soc);
  if (tlbi_gate.get() == "all") {
    gate_ = list;
  } else if (tlbi_gate.get() != "none") {
    std::stringstream ss(tlbi_gate.get());
    for (std::string item; std::getline(ss, item, ',');) {
      uint64_t off = 0;
      try {
        off = parse_u64(item);
      } catch (const std::exception&) {
        throw config_error(tlbi_gate.path() + ": '" + item + "' is not an offset (all, none or offsets like 0x400,0x800)");
      }
      bool found = false;
      for (const auto& p : list)
        if (p.offset == off) gate_.push_back(p), found = true;
      if (!found) throw config_error(tlbi_gate.path() + ": " + to_hex(off) + " is not a poke offset of " + soc.get());
    }
  }
  asc_in.register_b_transport(this, &axi2af::b_transport);
  asc_in.register_transport_dbg(this, &axi2af::transport_dbg);
  asc_in.register_get_direct_mem_ptr(this, &axi2af::get_direct_mem_ptr);
  fabric_out.register_invalidate_direct_mem_ptr(this, &axi2af::invalidate);
  dvm_in.register_b_transport(this, &axi2af::dvm);
  ap_in.register_b_transport(this, &axi2af::ap_mmio);
  ap_in.register_transport_dbg(this, &axi2af::ap_dbg);
  if (pokes) apply_pokes();  // m1n1 applies them once at boot (kboot), before the OS runs
}

void axi2af::apply_pokes() {
  for (const auto& p : pokes_of(soc)) {
    reg* r = regs.find(p.offset);
    r->set((r->get() & ~uint64_t(p.clear)) | p.set);
    ++pokes_applied;
  }
}

bool axi2af::tlbi_forwarding() {
  for (const auto& p : gate_) {
    const reg* r = regs.find(p.offset);
    if ((r->get() & p.clear) != p.set) return false;
  }
  return true;
}

void axi2af::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  ++accesses;
  delay += latency.get();
  fabric_out->b_transport(gp, delay);
}

bool axi2af::get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
  if (!fabric_out->get_direct_mem_ptr(gp, dmi)) return false;
  dmi.set_read_latency(dmi.get_read_latency() + latency.get());
  dmi.set_write_latency(dmi.get_write_latency() + latency.get());
  return true;
}

// A TLBI from the fabric: forwarded to the ASC side when the gating pokes are in place, else
// dropped (answered OK: the AP's DSB completes either way; the ASC just never sees it).
void axi2af::dvm(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  if (!tlbi_forwarding()) {
    ++tlbis_dropped;
    GPUVP_LOG(this, debug, "TLBI dropped: configuration pokes not in place");
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  ++tlbis_forwarded;
  delay += tlbi_latency.get();
  dvm_out->b_transport(gp, delay);
}

void axi2af::report(std::ostream& os) {
  os << "pokes " << (pokes_applied ? "applied" : "not applied") << " (" << soc.get() << "), TLBIs forwarded " << tlbis_forwarded.value()
     << ", dropped " << tlbis_dropped.value() << ", ASC accesses " << accesses.value() << "\n";
}

}  // namespace gpuvp::axi2af
