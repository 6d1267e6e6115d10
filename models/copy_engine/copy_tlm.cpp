// SPDX-License-Identifier: Apache-2.0
#include "copy_tlm.h"

#include <algorithm>
#include <vector>
#include "gpuvp/extension.h"
#include "gpuvp/timing.h"
#include "gpuvp/trace.h"

namespace gpuvp::copy_engine {

using namespace copy_engine_regs;

copy_tlm::copy_tlm(sc_core::sc_module_name name, const sc_core::sc_time& clock, uint64_t chunk_overhead)
    : sc_module(name), clock_(clock), overhead_(chunk_overhead) {
  SC_HAS_PROCESS(copy_tlm);
  SC_THREAD(thread);
  SC_METHOD(update_irq);
  ctrl.sync = true;  // GO starts the copy at the writer's local time
  sensitive << irq_changed_;
  status.on_read = [this] { return status.get() | (busy_ ? status_busy : 0); };
  status.on_write = [this](uint64_t, uint64_t) { irq_changed_.notify(sc_core::SC_ZERO_TIME); };
  ctrl.on_write = [this](uint64_t v, uint64_t) {
    ctrl = v & ctrl_irq_en;  // GO reads 0
    if ((v & ctrl_go) && !busy_) {
      busy_ = true;
      go_.notify(sc_core::SC_ZERO_TIME);
    }
    irq_changed_.notify(sc_core::SC_ZERO_TIME);
  };
}

void copy_tlm::update_irq() { irq.write((status & (status_done | status_error)) && (ctrl & ctrl_irq_en)); }

bool copy_tlm::transfer(tlm::tlm_command cmd, uint64_t addr, unsigned char* data, unsigned n, sc_core::sc_time& t) {
  gpuvp::transaction tr(cmd, addr, data, n);
  if (shadow_ && cmd == tlm::TLM_WRITE_COMMAND) {
    tr.gp.set_response_status(tlm::TLM_OK_RESPONSE);
    t += shadow_write_latency_;
  } else {
    // Trace: an arrow from the copy's span (strictly inside it) to the access's span.
    if (auto& trc = gpuvp::tracer::global(); trc.enabled()) {
      if (!track_) track_ = trc.track(name());
      tr.ext.flow = trc.flow_out(track_, std::max(sc_core::sc_time_stamp() + t, started_ + 1_ns));
    }
    mem->b_transport(tr.gp, t);
  }
  if (observer) observer(tr.gp);
  return tr.gp.is_response_ok();
}

void copy_tlm::thread() {
  std::vector<unsigned char> buf;
  for (;;) {
    wait(go_);
    const sc_core::sc_time started = started_ = sc_core::sc_time_stamp();
    gpuvp::local_time lt;
    uint64_t src = (src_hi.get() << 32) | src_lo.get(), dst = (dst_hi.get() << 32) | dst_lo.get();
    uint64_t rem = len.get();
    bool ok = true;
    while (rem && ok) {
      const uint64_t max_bytes = max_beats * 8;
      const uint64_t chunk = std::min({rem, max_bytes - src % 8, max_bytes - dst % 8, 4096 - src % 4096, 4096 - dst % 4096});
      const unsigned rbeats = unsigned((src % 8 + chunk + 7) / 8), wbeats = unsigned((dst % 8 + chunk + 7) / 8);
      buf.assign(rbeats * 8 - src % 8, 0);
      // As in the RTL, the chunk is written even after a read error, then the copy stops.
      ok = transfer(tlm::TLM_READ_COMMAND, src, buf.data(), unsigned(buf.size()), lt.offset());
      lt.update();
      ok = transfer(tlm::TLM_WRITE_COMMAND, dst, buf.data(), unsigned(chunk), lt.offset()) && ok;
      lt.update();
      lt.advance(clock_ * double(rbeats + wbeats + overhead_));
      ++chunks;
      src += chunk, dst += chunk, rem -= chunk;
      bytes += chunk;
    }
    lt.sync();
    if (auto& tr = gpuvp::tracer::global(); tr.enabled())
      tr.span(track_ ? track_ : (track_ = tr.track(name())), ok ? "copy" : "copy (error)", started, sc_core::sc_time_stamp() - started,
              {{"src", gpuvp::to_hex((src_hi.get() << 32) | src_lo.get())},
               {"dst", gpuvp::to_hex((dst_hi.get() << 32) | dst_lo.get())},
               {"len", len.get()}});
    busy_ = false;
    status = status | (ok ? status_done : status_error);
    ++copies;
    irq_changed_.notify(sc_core::SC_ZERO_TIME);
    if (on_done) on_done();
  }
}

}  // namespace gpuvp::copy_engine
