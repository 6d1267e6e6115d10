// SPDX-License-Identifier: Apache-2.0
// Side-band data that travels with a TLM generic payload through the platform, the way the
// hardware carries it beside the address: who asked, on behalf of which VM engine/client/DMA slot
// and channel, in which address space, with which privilege and cache attribute.
#pragma once
#include <cstdint>
#include <tlm>

namespace gpuvp {

enum class privilege : uint8_t { user, supervisor };
enum class cache_attr : uint8_t { cached, uncached, device };

struct gpu_ext : tlm::tlm_extension<gpu_ext> {
  static constexpr uint32_t none = 0xffffffffu;

  uint32_t initiator = 0;      // platform-wide initiator id (stats, traces)
  uint32_t vm_engine = none;   // NV50 VM engine id (nv50-vm.rst "VM engines")
  uint32_t vm_client = none;   // NV50 VM client id
  uint32_t dma_slot = none;    // DMA object slot / selector of the access
  uint32_t dma_bind = 0;       // bumped each time the engine rewrites that slot's selector
                               // (nv50-vm.rst: rewriting the selector flushes the cached object)
  uint32_t channel = none;     // PFIFO channel id
  uint32_t vm_context = none;  // NV50 channel descriptor; AGX UAT context slot
  uint32_t asid = none;        // ASID (AGX) where it differs from the context slot
  privilege priv = privilege::supervisor;
  cache_attr cache = cache_attr::cached;
  bool debug = false;       // debugger access: no side effects, no timing
  bool dmi_shadow = false;  // the initiator moves the data through a DMI pointer: this
                            // transaction carries only the access's timing and statistics
                            // (every hop times, counts and translates it as usual; the memory
                            // that granted the pointer moves no data)
  uint64_t flow = 0;        // trace flow arrow this access ends (tracer::flow_out; 0: none):
                            // the interconnect ends it on the access's span

  tlm::tlm_extension_base* clone() const override { return new gpu_ext(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override { *this = static_cast<const gpu_ext&>(other); }
};

// The extension of a payload, or a default one when the initiator attached none.
inline const gpu_ext& ext_of(const tlm::tlm_generic_payload& gp) {
  static const gpu_ext defaults{};
  const gpu_ext* e = gp.get_extension<gpu_ext>();
  return e ? *e : defaults;
}

// A payload with its extension for one blocking transaction. The extension is owned here and
// detached on destruction, so a stack transaction needs no memory manager.
struct transaction {
  tlm::tlm_generic_payload gp;
  gpu_ext ext;

  transaction() { gp.set_extension(&ext); }
  transaction(tlm::tlm_command cmd, uint64_t addr, void* data, unsigned len) : transaction() { set(cmd, addr, data, len); }
  ~transaction() { gp.clear_extension(&ext); }
  transaction(const transaction&) = delete;
  transaction& operator=(const transaction&) = delete;

  void set(tlm::tlm_command cmd, uint64_t addr, void* data, unsigned len) {
    gp.set_command(cmd);
    gp.set_address(addr);
    gp.set_data_ptr(static_cast<unsigned char*>(data));
    gp.set_data_length(len);
    gp.set_streaming_width(len);
    gp.set_byte_enable_ptr(nullptr);
    gp.set_byte_enable_length(0);
    gp.set_dmi_allowed(false);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  }
  bool ok() const { return gp.is_response_ok(); }
};

}  // namespace gpuvp
