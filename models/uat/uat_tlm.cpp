// SPDX-License-Identifier: Apache-2.0
// The UAT's sockets (translated accesses, debug accesses), fault latching, qtest and reports.
#include <algorithm>
#include <ostream>
#include <sstream>
#include "gpuvp/extension.h"
#include "gpuvp/page_split.h"
#include "gpuvp/trace.h"
#include "uat.h"

namespace gpuvp::uat {

namespace {
void answer_fault(tlm::tlm_generic_payload& gp, fault f) {
  // An unmapped page is an address error; a mapped page the view may not use, a command error.
  gp.set_response_status(f == fault::invalid || f == fault::access_flag ? tlm::TLM_ADDRESS_ERROR_RESPONSE
                                                                        : tlm::TLM_COMMAND_ERROR_RESPONSE);
}
// The bytes of `left` that lie in the page of `va`.
unsigned in_page(uint64_t va, unsigned left) { return unsigned(std::min<uint64_t>(left, page_size - (va & (page_size - 1)))); }
}  // namespace

void uat_mmu::latch(view v, unsigned slot, uint64_t va, bool write, const translation& t, uint32_t unit) {
  if (fault_log_.size() < 16) {
    std::ostringstream os;
    os << "UAT fault " << fault_name(t.f) << " level " << t.level << " view " << view_name(v) << " slot " << slot << " VA " << to_hex(va)
       << (write ? " write" : " read") << " at " << format_time(sc_core::sc_time_stamp());
    fault_log_.push_back(os.str());
    GPUVP_LOG(this, warning, fault_log_.back());
  }
  if (v != view::gpu && !latch_asc_faults) return;
  if (fault_info_faulted::get(fault_info.get())) {  // the first fault stays until acknowledged
    ++faults_lost;
    return;
  }
  ++faults_latched;
  fault_info = fault_info_addr::put(va >> 6) | fault_info_context::put(slot) | fault_info_unit::put(unit) | fault_info_level::put(t.level) |
               fault_info_read::put(!write) | fault_info_reason::put(uint64_t(t.f)) | fault_info_faulted::put(1);
  fault_irq.write(true);
}

// One request per 16 KiB page, each translated on its own as the hardware would issue them.
void uat_mmu::b_transport(view v, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const gpu_ext& e = ext_of(gp);
  if (e.vm_context >= slots) {
    ++bad_slot;
    GPUVP_LOG(this, warning, "access in view " << view_name(v) << " with context slot " << e.vm_context << " (0..63)");
    gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }
  const uint64_t addr = gp.get_address();
  const unsigned len = gp.get_data_length();
  if (gp.get_streaming_width() < len || (gp.get_byte_enable_ptr() && (addr & (page_size - 1)) + len > page_size)) {
    gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  const bool write = gp.is_write();
  sc_core::sc_time scratch = sc_core::SC_ZERO_TIME;
  sc_core::sc_time& d = e.debug ? scratch : delay;
  auto& out = *port_of(v).socket;
  gp.set_dmi_allowed(false);
  xlat_ext x;
  x.view = uint8_t(v);
  x.slot = e.vm_context;
  xlat_ext* const prev = gp.set_extension(&x);
  auto piece = [&](unsigned done) -> std::optional<page_piece> {
    const uint64_t va = addr + done;
    const auto a = write ? access_type::write : access_type::read;
    const translation t = e.debug ? translate_debug(v, e.vm_context, va, a) : translate(v, e.vm_context, va, a, d);
    if (!t.ok()) {
      if (!e.debug) latch(v, e.vm_context, va, write, t, e.vm_client == gpu_ext::none ? 0 : e.vm_client);
      answer_fault(gp, t.f);
      return std::nullopt;
    }
    x.pte = t.pte;
    x.va = va;
    return page_piece{t.pa, in_page(va, len - done)};
  };
  transport_by_page(gp, false, piece, [&](tlm::tlm_generic_payload& p) { out->b_transport(p, d); });
  if (prev)
    gp.set_extension(prev);
  else
    gp.clear_extension(&x);
  gp.set_streaming_width(len);
  gp.set_dmi_allowed(false);
}

unsigned uat_mmu::transport_dbg(view v, tlm::tlm_generic_payload& gp) {
  const gpu_ext& e = ext_of(gp);
  if (e.vm_context >= slots) return 0;
  const uint64_t addr = gp.get_address();
  const unsigned len = gp.get_data_length();
  const auto a = gp.is_write() ? access_type::write : access_type::read;
  auto piece = [&](unsigned done) -> std::optional<page_piece> {
    const uint64_t va = addr + done;
    const translation t = translate_debug(v, e.vm_context, va, a);
    if (!t.ok()) return std::nullopt;
    return page_piece{t.pa, in_page(va, len - done)};
  };
  return debug_by_page(gp, piece, [&](tlm::tlm_generic_payload& p) { return (*port_of(v).socket)->transport_dbg(p); });
}

bool uat_mmu::qtest(const std::vector<std::string>& w, std::string& reply, sc_core::sc_time& delay) {
  if (w.size() < 2 || w[0] != "uat") return false;
  static const char* usage = "FAIL usage: uat translate SLOT VA r|w|x gpu|fw|ppl [notlb]";
  if (w[1] != "translate" || w.size() < 6 || w.size() > 7) return reply = usage, true;
  uint64_t slot = 0, va = 0;
  try {
    slot = parse_u64(w[2]);
    va = parse_u64(w[3]);
  } catch (const std::exception&) {
    return reply = "FAIL uat translate: bad number in '" + w[2] + " " + w[3] + "'", true;
  }
  if (slot >= slots) return reply = "FAIL uat translate: slot " + w[2] + " is outside 0..63", true;
  access_type a;
  if (w[4] == "r")
    a = access_type::read;
  else if (w[4] == "w")
    a = access_type::write;
  else if (w[4] == "x")
    a = access_type::execute;
  else
    return reply = "FAIL uat translate: access must be r, w or x, not '" + w[4] + "'", true;
  const auto v = parse_view(w[5]);
  if (!v) return reply = "FAIL uat translate: view must be gpu, fw or ppl, not '" + w[5] + "'", true;
  if (w.size() == 7 && w[6] != "notlb") return reply = "FAIL uat translate: unknown option '" + w[6] + "' (notlb)", true;
  const translation t = w.size() == 7 ? translate_debug(*v, unsigned(slot), va, a) : translate(*v, unsigned(slot), va, a, delay);
  std::ostringstream os;
  if (!t.ok()) {
    os << "OK fault=" << fault_name(t.f) << " level=" << t.level;
  } else {
    os << "OK pa=" << to_hex(t.pa) << " attr=" << pte_fields::attr(t.pte) << " ap=" << pte_fields::ap(t.pte)
       << " uxn=" << pte_fields::uxn(t.pte) << " pxn=" << pte_fields::pxn(t.pte) << " level=" << t.level;
  }
  reply = os.str();
  return true;
}

// A fault still latched at the end was not handled. Stale hits are reported, not errors: a
// scenario decides whether they matter.
std::vector<std::string> uat_mmu::modelled_errors() {
  std::vector<std::string> errors;
  if (fault_info_faulted::get(fault_info.get())) {
    errors.push_back("UAT fault still latched in FAULT_INFO at the end of the run (" + to_hex(fault_info.get()) + ")");
    errors.insert(errors.end(), fault_log_.begin(), fault_log_.end());
  }
  return errors;
}

std::string describe(const stale_hit& s, view v) {
  std::ostringstream os;
  os << "view " << view_name(v) << " slot " << s.slot << " VA " << to_hex(s.va) << " used PA " << to_hex(s.stale_pa) << " (PTE "
     << to_hex(s.stale_pte) << "), memory maps " << (s.current_pte ? "PA " + to_hex(s.current_pa) : std::string("nothing")) << " (at "
     << format_time(s.when) << ")";
  return os.str();
}

}  // namespace gpuvp::uat
