// SPDX-License-Identifier: Apache-2.0
#include "sum_engine.h"

#include <ostream>
#include "gpuvp/config.h"

sum_engine::sum_engine(sc_core::sc_module_name name) : sc_module(name) {
  burst.get();        // read every parameter at elaboration so that a bad value is reported at once
  start.sync = true;  // start at the exact time of the write
  start.on_write = [this](uint64_t v, uint64_t) {
    if ((v & 1) && !(status & status_busy)) {
      status = status_busy;
      start_ev_.notify(sc_core::SC_ZERO_TIME);
    }
  };
  SC_HAS_PROCESS(sum_engine);
  SC_THREAD(thread);
}

void sum_engine::thread() {
  for (;;) {
    sc_core::wait(start_ev_);
    const uint64_t src = (src_hi.get() << 32) | src_lo.get();
    const uint64_t n = len.get();
    uint32_t acc = 0;
    bool ok = n % 4 == 0;
    std::vector<uint8_t> buf(burst);
    for (uint64_t off = 0; ok && off < n; off += buf.size()) {
      const unsigned chunk = unsigned(std::min<uint64_t>(burst, n - off));
      tlm::tlm_generic_payload gp;
      gp.set_command(tlm::TLM_READ_COMMAND);
      gp.set_address(src + off);
      gp.set_data_ptr(buf.data());
      gp.set_data_length(chunk);
      gp.set_streaming_width(chunk);
      gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      dma->b_transport(gp, delay);
      sc_core::wait(delay + add_time.get());
      if (gp.is_response_error()) {
        errors_.push_back(std::string(name()) + ": DMA read at " + gpuvp::to_hex(src + off) + " failed: " + gp.get_response_string());
        ok = false;
        break;
      }
      for (unsigned i = 0; i + 4 <= chunk; i += 4)
        acc += uint32_t(buf[i]) | uint32_t(buf[i + 1]) << 8 | uint32_t(buf[i + 2]) << 16 | uint32_t(buf[i + 3]) << 24;
      bytes += chunk;
    }
    sum = acc;
    status = ok ? status_done : status_error;
    ++jobs;
  }
}

void sum_engine::report(std::ostream& os) { os << jobs << " sums, " << bytes << " bytes read\n"; }  // the platform names us

void register_sum_engine() {
  gpuvp::registry::global().add_component_type("sum_engine", "example DMA device that adds the words of a buffer",
                                               gpuvp::make_component<sum_engine>);
}
