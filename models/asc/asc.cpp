// SPDX-License-Identifier: Apache-2.0
#include "asc.h"

#include <ostream>
#include <sstream>
#include "gpuvp/extension.h"
#include "gpuvp/trace.h"

namespace gpuvp::asc {

asc_core::asc_core(sc_core::sc_module_name name) : sc_module(name) {
  SC_HAS_PROCESS(asc_core);
  SC_THREAD(thread);
  kick.sync = true;
  cpu_control.sync = true;
  cpu_control.on_write = [this](uint64_t v, uint64_t) {
    if (cpu_control_run::get(v) && !started_) {
      started_ = true;
      run_ev_.notify(sc_core::SC_ZERO_TIME);
    }
  };
  kick.on_write = [this](uint64_t v, uint64_t) {
    ++kicks;
    kicks_.push_back(v);
    kick_ev_.notify(sc_core::SC_ZERO_TIME);
  };
}

asc_core::~asc_core() = default;

void asc_core::thread() {
  if (!started_) sc_core::wait(run_ev_);
  power = 1;
  power_log_.push_back("ASC started at " + format_time(sc_core::sc_time_stamp()));
  try {
    fw_.run();
  } catch (const ascfw::fw_assert& e) {
    ++asserts;
    assert_ = e.what();
    assert_at_ = sc_core::sc_time_stamp();
    GPUVP_LOG(this, error, "firmware assert: " << assert_ << " at " << format_time(assert_at_));
  }
}

bool asc_core::access(space s, tlm::tlm_command cmd, uint64_t va, void* data, unsigned n, maint_op* m) {
  transaction t(cmd, va, data, n);
  using va_kernel_half = field<39, 1>;  // UAT TTB1: the kernel's half, context 0
  t.ext.vm_context = va_kernel_half::get(va) ? 0 : (cur_slot_ == ascfw::handoff::no_slot ? 0 : cur_slot_);
  asc_maint mx;
  if (m) mx.op = *m, t.gp.set_extension(&mx);
  sc_core::sc_time d = sc_core::SC_ZERO_TIME;
  (s == space::ppl ? ppl_out : fw_out)->b_transport(t.gp, d);
  if (m) t.gp.clear_extension(&mx);
  sc_core::wait(d);
  return t.gp.is_response_ok();
}

uint64_t asc_core::ld(space s, uint64_t va, unsigned size) {
  ++fw_accesses;
  uint64_t v = 0;
  if (!access(s, tlm::TLM_READ_COMMAND, va, &v, size))
    throw ascfw::fw_assert("data abort: " + std::string(s == space::ppl ? "uPPL" : "firmware") + " read of " + to_hex(va));
  return v;
}

void asc_core::st(space s, uint64_t va, uint64_t value, unsigned size) {
  ++fw_accesses;
  if (!access(s, tlm::TLM_WRITE_COMMAND, va, &value, size))
    throw ascfw::fw_assert("data abort: " + std::string(s == space::ppl ? "uPPL" : "firmware") + " write of " + to_hex(va));
}

void asc_core::dc(maint m, uint64_t va, uint64_t len) {
  maint_op op = m == maint::invalidate ? maint_op::invalidate : m == maint::clean ? maint_op::clean : maint_op::clean_invalidate;
  std::vector<uint8_t> scratch(len);  // never touched: maintenance moves no data to the initiator
  if (!access(space::fw, tlm::TLM_IGNORE_COMMAND, va, scratch.data(), unsigned(len), &op))
    throw ascfw::fw_assert("data abort: cache maintenance of " + to_hex(va) + " + " + to_hex(len));
}

void asc_core::op(unsigned n) {
  fw_ops += n;
  sc_core::wait(op_cost.get() * double(n));
}

void asc_core::poll() { sc_core::wait(poll_interval); }

bool asc_core::wait_kick(bool with_timeout, uint64_t& value) {
  if (kicks_.empty()) {
    if (with_timeout)
      sc_core::wait(idle_timeout, kick_ev_);
    else
      sc_core::wait(kick_ev_);
  }
  if (kicks_.empty()) return false;
  value = kicks_.front();
  kicks_.erase(kicks_.begin());
  return true;
}

uint64_t asc_core::deep_wfi() {
  ++powerdowns;
  power = 0;
  sc_core::wait(cache.clean_invalidate_all());  // Lina's notes' "GPU shutdown hack": caches and TLBs emptied
  if (on_deep_wfi) on_deep_wfi();
  power_log_.push_back("power down (deep WFI) at " + format_time(sc_core::sc_time_stamp()));
  GPUVP_LOG(this, info, power_log_.back());
  uint64_t v = 0;
  wait_kick(false, v);
  sc_core::wait(wake_latency);
  ++wakeups;
  power = 1;
  power_log_.push_back("woken by a kick at " + format_time(sc_core::sc_time_stamp()));
  return v;
}

void asc_core::gpu_work(unsigned slot, uint64_t va, uint32_t len, uint32_t value) {
  if (len > max_maint_p) throw ascfw::fw_assert("work of " + to_hex(len) + " bytes too large");
  std::vector<uint32_t> buf((len + 3) / 4, value);
  transaction t(tlm::TLM_WRITE_COMMAND, va, buf.data(), len);
  t.ext.vm_context = slot;
  sc_core::sc_time d = sc_core::SC_ZERO_TIME;
  gpu_out->b_transport(t.gp, d);
  sc_core::wait(d);
  if (!t.gp.is_response_ok()) throw ascfw::fw_assert("GPU fault: work for slot " + std::to_string(slot) + " at " + to_hex(va));
}

void asc_core::gpu_launch(unsigned slot, uint32_t kernel) {
  if (kernel == 0 || kernel > launch.size())
    throw ascfw::fw_assert("launch of kernel " + std::to_string(kernel) + ": not in the kernel list (" + std::to_string(launch.size()) +
                           " kernels)");
  sm::launch_if* ce = launch.engine();
  if (!ce) throw ascfw::fw_assert("launch of kernel " + std::to_string(kernel) + ": no GPU (no compute engine bound)");
  const auto tr = launch.trace(kernel);  // parsed at construction
  sm::mem_sideband sb;
  sb.vm_context = slot;  // the UAT's gpu view translates in this context slot
  const uint64_t errors_before = ce->memory_error_count();
  bool done = false;
  uint64_t cycles = 0;
  ce->submit({tr->grid, tr->block, tr, sb}, [&](const sm::launch_result& r) {
    done = true;
    cycles = r.cycles;
    kernel_done_.notify(sc_core::SC_ZERO_TIME);
  });
  while (!done) sc_core::wait(kernel_done_);
  ++launches;
  kernel_cycles += cycles;
  if (const uint64_t n = ce->memory_error_count() - errors_before)
    throw ascfw::fw_assert("GPU fault: kernel " + std::to_string(kernel) + " (" + tr->name + ") for slot " + std::to_string(slot) + ": " +
                           std::to_string(n) + " faulting memory accesses");
}

void asc_core::report(std::ostream& os) {
  os << "    asc: " << (started_ ? "started" : "not started") << ", " << fw_ops.value() << " firmware operations, " << fw_.commands()
     << " commands, " << kicks.value() << " kicks, " << powerdowns.value() << " power-downs, " << wakeups.value() << " wake-ups, "
     << launches.value() << " kernels (" << kernel_cycles.value() << " cycles)" << (asserted() ? ", ASSERTED" : "") << "\n"
     << "    asc cache: " << cache.hits.value() << " hits, " << cache.misses.value() << " misses, " << cache.writebacks.value()
     << " write-backs, " << cache.invalidations.value() << " invalidations, " << cache.stale_reads.value() << " stale reads, "
     << cache.stale_writebacks.value() << " stale write-backs, " << cache.uncached.value() << " uncached, " << cache.dirty_lines()
     << " dirty lines left\n";
  for (const auto& l : power_log_) os << "    asc power: " << l << "\n";
}

}  // namespace gpuvp::asc
