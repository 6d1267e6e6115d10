// SPDX-License-Identifier: Apache-2.0
#include "agx.h"

#include <algorithm>
#include <ostream>
#include "agx_scenario.h"
#include "gpuvp/extension.h"
#include "gpuvp/trace.h"

namespace gpuvp::agx {

agx_soc::agx_soc(sc_core::sc_module_name name) : sc_module(name) {
  ap.dvm.bind(uat.tlbi_gpu);   // the GPU listens on the fabric
  ap.dvm.bind(bridge.dvm_in);  // the ASC through the bridge
  bridge.dvm_out.bind(uat.tlbi_asc);
  uat.asc_out.bind(asc.cache.in);  // the ASC's traffic and walks: its L1 cache, then the bridge
  asc.cache.out.bind(bridge.asc_in);
  asc.fw_out.bind(uat.fw);
  asc.ppl_out.bind(uat.ppl);
  asc.gpu_out.bind(uat.gpu);
  bridge.mmio_out.bind(asc.regs.in);
  asc.cache.mapping = [this](unsigned v, unsigned slot, uint64_t va) {
    const auto t = uat.translate_debug(uat::view(v), slot, va, uat::access_type::read);
    return t.ok() ? t.pa : ~uint64_t(0);
  };
  asc.on_deep_wfi = [this] {
    uat.flush_view(uat::view::fw);
    uat.flush_view(uat::view::ppl);
  };
}

std::vector<component::target_port> agx_soc::targets() {
  return {{"sgx", &uat.regs.in, sgx_base, uat.regs.size()},
          {"axi2af", &bridge.regs.in, bridge.base, bridge.regs.size()},
          {"asc", &bridge.ap_in, asc.base, asc.regs.size()},
          {"gpu", &uat.gpu},
          {"fw", &uat.fw},
          {"ppl", &uat.ppl}};
}

std::vector<component::initiator_port> agx_soc::initiators() {
  return {{"gpu_out", &uat.gpu_out, "interconnect"}, {"axi2af_out", &bridge.fabric_out, "interconnect"}};
}

sc_core::sc_time agx_soc::tlbi(uat::tlbi_op op, uint64_t operand) {
  ++ap.tlbis;
  sc_core::sc_time start = ap.dvm_latency.get();
  if (ap.stage2) {
    if (!hv.tlbi_passthrough) {  // the bug of Asahi Lina's notes: under stage 2 a TLBI stays in the AP
      ++ap.tlbis_dropped;
      GPUVP_LOG(this, debug, "TLBI " << uat::tlbi_name(op) << " " << to_hex(operand) << " not broadcast (stage 2)");
      return sc_core::SC_ZERO_TIME;
    }
    ++hv.tlbis_passed;
    start += hv.trap_latency.get();
  }
  sc_core::sc_time done = sc_core::SC_ZERO_TIME;
  for (unsigned i = 0; i < unsigned(ap.dvm.size()); ++i) {
    uint64_t value = operand;
    transaction t(tlm::TLM_WRITE_COMMAND, 0, &value, 8);
    uat::tlbi_msg m;
    m.op = op;
    m.operand = operand;
    t.gp.set_extension(&m);
    sc_core::sc_time d = start;
    ap.dvm[i]->b_transport(t.gp, d);
    t.gp.clear_extension(&m);
    done = std::max(done, d);
  }
  if (sc_core::sc_get_current_process_handle().proc_kind() == sc_core::SC_THREAD_PROC_) sc_core::wait(done);
  return done;
}

bool agx_soc::qtest(const std::vector<std::string>& w, std::string& reply) {
  sc_core::sc_time d = sc_core::SC_ZERO_TIME;
  if (uat.qtest(w, reply, d)) {
    if (sc_core::sc_get_current_process_handle().proc_kind() == sc_core::SC_THREAD_PROC_) sc_core::wait(d);
    return true;
  }
  if (w.empty() || w[0] != "tlbi") return false;
  const auto op = w.size() >= 2 ? uat::parse_tlbi_op(w[1]) : std::nullopt;
  // vmalle1os takes no operand (refused, not ignored); the others take exactly one.
  const size_t operands = op && *op == uat::tlbi_op::vmalle1os ? 0 : 1;
  if (!op || w.size() != 2 + operands) {
    reply = "FAIL usage: tlbi vmalle1os | tlbi aside1os|vae1os|rvae1os VALUE";
    return true;
  }
  uint64_t value = 0;
  try {
    if (w.size() == 3) value = parse_u64(w[2]);
  } catch (const std::exception&) {
    reply = "FAIL tlbi: bad operand '" + w[2] + "'";
    return true;
  }
  tlbi(*op, value);
  reply = "OK";
  return true;
}

void agx_soc::report(std::ostream& os) {
  os << "UAT ";
  uat.report(os);
  os << "    axi2af: ";
  bridge.report(os);
  os << "    AP TLBIs " << ap.tlbis.value() << " (" << ap.tlbis_dropped.value() << " not broadcast under stage 2, "
     << hv.tlbis_passed.value() << " passed on by the hypervisor)\n";
  asc.report(os);
}

std::vector<std::string> agx_soc::modelled_errors() {
  auto errors = uat.modelled_errors();
  if (asc.asserted()) errors.push_back("ASC firmware assert: " + asc.assert_text() + " (at " + format_time(asc.assert_time()) + ")");
  return errors;
}

}  // namespace gpuvp::agx
