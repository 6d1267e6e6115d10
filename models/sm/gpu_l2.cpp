// SPDX-License-Identifier: Apache-2.0
#include "gpu_l2.h"

#include <cmath>
#include <ostream>
#include <stdexcept>

#include "gpuvp/extension.h"

namespace gpuvp::sm {

gpu_l2_port::gpu_l2_port(sc_core::sc_module_name name) : sc_module(name) {
  in.register_b_transport(this, &gpu_l2_port::b_transport);
  in.register_transport_dbg(this, &gpu_l2_port::transport_dbg);
  in.register_get_direct_mem_ptr(this, &gpu_l2_port::get_dmi);
  out.register_invalidate_direct_mem_ptr(this, &gpu_l2_port::invalidate_dmi);
  if (uint64_t(vram_base) + uint64_t(vram_size) - 1 < uint64_t(vram_base))
    throw config_error(std::string(this->name()) + ": VRAM window [vram_base, vram_base + vram_size) wraps around");
}

// The compute engine is found by name once every component is built; with model true it must
// exist and keep its own memory system (memory gpgpu-sim).
void gpu_l2_port::end_of_elaboration() {
  if (!model) return;
  const std::string who = compute_component;
  compute_ = dynamic_cast<compute_engine*>(sc_core::sc_find_object(who.c_str()));
  if (!compute_)
    throw config_error(std::string(name()) + ".compute_component: no compute component '" + who +
                       "' (gpu_l2 shares its memory system; set " + name() + ".model: false to pass through)");
  mem_ = compute_->shared_memory();
  if (!mem_)
    throw config_error(std::string(name()) + ": " + who + ".memory is not gpgpu-sim (no L2/DRAM model to share; set " +
                       name() + ".model: false to pass through)");
  compute_->attach_engine_path(std::string(name()) + " (" + name() + ".in)");
}

void gpu_l2_port::mem_done(uint64_t, bool, unsigned, uint64_t cycle) {
  --outstanding_;
  last_done_ = std::max(last_done_, cycle);
}

void gpu_l2_port::b_transport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const sc_core::sc_time at = sc_core::sc_time_stamp() + delay;  // when the access leaves the engine
  sc_core::sc_time down = delay;
  out->b_transport(gp, down);
  const uint64_t a = gp.get_address(), len = gp.get_data_length(), base = vram_base;
  const bool in_vram = len && a >= base && a - base < uint64_t(vram_size) && len <= uint64_t(vram_size) - (a - base);
  if (!mem_ || !in_vram || ext_of(gp).debug || !gp.is_response_ok() ||
      (!gp.is_read() && !gp.is_write())) {
    ++passed;
    delay = down;
    return;
  }
  // The first core clock edge at or after `at` in the kernel frame (cycle c at t0 + c period).
  const sc_core::sc_time t0 = compute_->frame_start(), period = compute_->clock_period();
  const uint64_t c = at <= t0 ? 0 : uint64_t(std::ceil((at - t0) / period - 1e-9));
  const bool write = gp.is_write();
  const uint64_t off = a - base;
  last_done_ = c;
  for (uint64_t s = off / 32 * 32; s < off + len; s += 32) {
    ++outstanding_;
    const uint64_t r = mem_->access(s, 32, write, c, this, 0);
    if (r != mem_port::pending) mem_done(s, write, 0, c + r);
    ++sectors;
    if (write) ++write_sectors;
    else ++read_sectors;
  }
  // The memory answers from its clock: run it until every sector is back (its clocked parts move
  // only while requests are queued, so the kernel's own requests are served on the way).
  constexpr uint64_t limit = 1ull << 24;
  for (uint64_t x = c + 1; outstanding_; ++x) {
    if (x - c > limit)
      throw std::runtime_error(std::string(name()) + ": access not answered by the memory system in " +
                               std::to_string(limit) + " core cycles");
    mem_->cycle(x);
  }
  ++accesses;
  busy_cycles += last_done_ - c;
  delay = t0 + period * double(last_done_) - sc_core::sc_time_stamp();
}

unsigned gpu_l2_port::transport_dbg(int, tlm::tlm_generic_payload& gp) { return out->transport_dbg(gp); }

bool gpu_l2_port::get_dmi(int, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& d) { return out->get_direct_mem_ptr(gp, d); }

void gpu_l2_port::invalidate_dmi(sc_dt::uint64 lo, sc_dt::uint64 hi) {
  for (unsigned i = 0; i < in.size(); ++i) in[int(i)]->invalidate_direct_mem_ptr(lo, hi);
}

void gpu_l2_port::report(std::ostream& os) {
  os << "memory path: "
     << (mem_ ? "VRAM [" + std::string(compute_component) + "'s L2 slices, crossbar and DRAM channels]"
              : std::string("pass-through (model false)"))
     << "; " << accesses.value() << " timed accesses (" << read_sectors.value() << " sectors read, "
     << write_sectors.value() << " written, " << busy_cycles.value() << " core cycles), " << passed.value()
     << " passed through\n";
}

}  // namespace gpuvp::sm
