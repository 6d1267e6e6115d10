// SPDX-License-Identifier: Apache-2.0
// copy_rtl: the Verilated copy engine (rtl/copy_engine/copy_engine.sv) with its transactors:
// registers through tlm2axil (s_axil_*), memory through axi2tlm (m_axi_*), irq and busy pins.
// make_copy_rtl returns nullptr when gpuvp was built without the RTL parts (GPUVP_RTL off).
#pragma once
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>
#include <systemc>
#include <tlm>

namespace gpuvp::copy_engine {

class copy_rtl {
 public:
  virtual ~copy_rtl() = default;
  virtual tlm::tlm_target_socket<>& regs_socket() = 0;  // registers (AXI4-Lite transactor)
  virtual tlm::tlm_initiator_socket<>& mem() = 0;
  virtual sc_core::sc_out<bool>& irq() = 0;
  virtual const sc_core::sc_signal<bool>& busy() const = 0;
  virtual std::vector<std::string> errors() const = 0;  // AXI protocol violations
  virtual void report(std::ostream& os) const = 0;
  // Sees each memory transaction of the RTL as the transactor issued it.
  virtual void observe(std::function<void(const tlm::tlm_generic_payload&)> f) = 0;
};

// name: child module name; inject_bug adds the plusarg +copy_inject_bug.
std::unique_ptr<copy_rtl> make_copy_rtl(const char* name, const sc_core::sc_time& clock, uint64_t reset_cycles, bool inject_bug);

}  // namespace gpuvp::copy_engine
