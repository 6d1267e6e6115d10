// SPDX-License-Identifier: Apache-2.0
#include "copy_engine.h"

#include <ostream>
#include "gpuvp/extension.h"

namespace gpuvp::copy_engine {

copy_engine::copy_engine(sc_core::sc_module_name name) : sc_module(name) {
  const std::string& kind = impl.get();
  if (kind != "tlm" && kind != "rtl" && kind != "lockstep")
    throw gpuvp::config_error(impl.path() + ": '" + kind + "' is not tlm, rtl or lockstep");
  if (kind != "tlm") {
    rtl_ = make_copy_rtl("rtl", clock, reset_cycles, rtl_inject_bug);
    if (!rtl_)
      throw gpuvp::config_error(impl.path() + ": '" + kind +
                                "' needs the RTL parts, but this gpuvp was built without Verilator (GPUVP_RTL off)");
  } else if (rtl_inject_bug) {
    throw gpuvp::config_error(rtl_inject_bug.path() + ": needs " + impl.path() + " rtl or lockstep");
  }
  if (kind != "rtl") model_ = std::make_unique<copy_tlm>("tlm", clock, chunk_overhead);
  if (kind == "lockstep") {
    scoreboard_ = std::make_unique<copy_scoreboard>("lockstep");
    model_->set_shadow(shadow_write_latency);
    model_->irq.bind(shadow_irq_);
    model_->observer = [this](const tlm::tlm_generic_payload& gp) { scoreboard_->record(copy_scoreboard::tlm_side, gp); };
    model_->on_done = [this] { scoreboard_->done(copy_scoreboard::tlm_side); };
    rtl_->observe([this](const tlm::tlm_generic_payload& gp) { scoreboard_->record(copy_scoreboard::rtl_side, gp); });
    scoreboard_->peek = [this](uint64_t addr, unsigned char* data, unsigned len) {
      gpuvp::transaction t(tlm::TLM_READ_COMMAND, addr, data, len);
      return rtl_->mem()->transport_dbg(t.gp) == len;
    };
    SC_HAS_PROCESS(copy_engine);
    SC_METHOD(rtl_busy_changed);
    sensitive << rtl_->busy();
    dont_initialize();
  }
  regs.register_b_transport(this, &copy_engine::b_transport);
  if (model_) (to_tlm_ = std::make_unique<socket>("to_tlm"))->bind(model_->regs.in);
  if (rtl_) (to_rtl_ = std::make_unique<socket>("to_rtl"))->bind(rtl_->regs_socket());
}

copy_engine::~copy_engine() = default;

std::vector<gpuvp::component::initiator_port> copy_engine::initiators() {
  if (!rtl_) return {{"mem", &model_->mem}};
  if (!model_) return {{"mem", &rtl_->mem()}};
  return {{"mem", &rtl_->mem()}, {"tlm_mem", &model_->mem}};
}

void copy_engine::rtl_busy_changed() {
  if (!rtl_->busy().read()) scoreboard_->done(copy_scoreboard::rtl_side);
}

void copy_engine::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  if (!rtl_) return (*to_tlm_)->b_transport(gp, delay);
  if (!model_) return (*to_rtl_)->b_transport(gp, delay);
  // Lock-step: both see the write at the same time; reads are answered by the RTL.
  wait(delay);
  delay = sc_core::SC_ZERO_TIME;
  if (gp.is_write()) {
    const bool go =
        gp.get_address() == copy_engine_regs::ctrl && gp.get_data_length() >= 1 && (gp.get_data_ptr()[0] & copy_engine_regs::ctrl_go);
    if (go) scoreboard_->go();
    sc_core::sc_time ignored;
    (*to_tlm_)->b_transport(gp, ignored);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  }
  (*to_rtl_)->b_transport(gp, delay);
}

std::vector<std::string> copy_engine::modelled_errors() {
  std::vector<std::string> e;
  if (rtl_) e = rtl_->errors();
  if (scoreboard_) e.insert(e.end(), scoreboard_->errors().begin(), scoreboard_->errors().end());
  return e;
}

void copy_engine::report(std::ostream& os) {
  os << "impl " << impl.get();
  if (model_) os << ", TLM: " << model_->copies.value() << " copies, " << model_->bytes.value() << " bytes";
  if (rtl_) {
    os << ", RTL: ";
    rtl_->report(os);
  }
  if (scoreboard_) {
    os << ", lock-step: " << scoreboard_->compared.value() << " transactions compared, TLM/RTL copy time "
       << (scoreboard_->rtl_time_ps ? double(scoreboard_->tlm_time_ps) / double(scoreboard_->rtl_time_ps) : 0.0);
  }
  os << "\n";
}

}  // namespace gpuvp::copy_engine
