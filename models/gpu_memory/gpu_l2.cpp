// SPDX-License-Identifier: Apache-2.0
#include "gpu_l2.h"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "gpuvp/extension.h"
#include "gpuvp/trace.h"
#include "gpuvp/untimed.h"

namespace gpuvp::gpu_memory {

gpu_l2_port::gpu_l2_port(sc_core::sc_module_name name) : sc_module(name) {
  in.register_b_transport(this, &gpu_l2_port::b_transport);
  in.register_transport_dbg(this, &gpu_l2_port::transport_dbg);
  in.register_get_direct_mem_ptr(this, &gpu_l2_port::get_dmi);
  out.register_invalidate_direct_mem_ptr(this, &gpu_l2_port::invalidate_dmi);
  sms.bind(*this);
  if (uint64_t(vram_base) + uint64_t(vram_size) - 1 < uint64_t(vram_base))
    throw config_error(std::string(this->name()) + ": VRAM window [vram_base, vram_base + vram_size) wraps around");
  if (!model) return;
  try {
    cfg_ = sm::make_gpu_config(gpu, config_files, std::string(this->name()) + ".gpu");
  } catch (const config_error& e) {
    throw config_error(std::string(this->name()) + ".gpu / " + this->name() + ".config_files: " + e.what());
  }
  mem_ = std::make_unique<memory_system>(cfg_);
  period_ = sc_core::sc_time(1e3 / cfg_.core_mhz, sc_core::SC_NS);
  GPUVP_LOG(this, info, "memory: " + mem_->describe());
}

gpu_l2_port::~gpu_l2_port() = default;

void gpu_l2_port::attach_sms(const std::string& who) {
  if (!sms_.empty() && sms_ != who)
    throw config_error(std::string(name()) + ": compute engines " + sms_ + " and " + who + " are both bound to " + name() +
                       ".sms; one GPU's SMs per memory system (give " + who + " a gpu_l2 of its own)");
  sms_ = who;
  GPUVP_LOG(this, info, "the SMs of " + who + " use this memory system");
}

void gpu_l2_port::mem_done(uint64_t, bool, unsigned, uint64_t cycle) {
  --outstanding_;
  last_done_ = std::max(last_done_, cycle);
}

void gpu_l2_port::b_transport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const sc_core::sc_time at = sc_core::sc_time_stamp() + delay;  // when the access leaves the engine
  const uint64_t a = gp.get_address(), len = gp.get_data_length(), base = vram_base;
  const bool in_vram = len && a >= base && a - base < uint64_t(vram_size) && len <= uint64_t(vram_size) - (a - base);
  const bool sm = gp.get_extension<sm_timed_ext>() != nullptr;
  // Timed already by a memory system of its own (SMs whose l2 port is not bound here): timing it
  // again would count it twice.
  const bool timed_elsewhere = !sm && gp.get_extension<untimed_ext>() != nullptr;
  if (timed_elsewhere && mem_ && errors_.empty())
    errors_.push_back("an access timed by another GPU memory system reached " + std::string(name()) + ".in (initiator " +
                      to_hex(ext_of(gp).initiator) + "): a compute engine whose out reaches " + name() + " needs its l2 port bound to " +
                      name() + ".sms");
  const bool timed_here = !sm && !timed_elsewhere && mem_ && in_vram && !ext_of(gp).debug && (gp.is_read() || gp.is_write());
  sc_core::sc_time down = delay;
  {
    untimed_scope carried(gp, timed_here);  // timed here: the hops behind only carry it, as the SMs' accesses
    out->b_transport(gp, down);
  }
  if (sm) {
    ++sm_forwarded;
    delay = down;
    return;
  }
  if (!timed_here || !gp.is_response_ok()) {
    ++passed;
    delay = down;
    return;
  }
  // The first core clock edge at or after `at` in the kernel frame (cycle c at t0 + c period).
  const sc_core::sc_time t0 = frame_t0_;
  const uint64_t c = at <= t0 ? 0 : uint64_t(std::ceil((at - t0) / period_ - 1e-9));
  const bool write = gp.is_write();
  const uint64_t off = a - base;
  last_done_ = c;
  for (uint64_t s = off / 32 * 32; s < off + len; s += 32) {
    ++outstanding_;
    // A write's bytes in this sector: the first and last sectors of an unaligned range are
    // written in part (the L2 keeps such a sector unreadable until a read fetches it).
    const uint64_t lo = std::max(s, off), hi = std::min(s + 32, off + len);
    const uint32_t written = mem_port::written_bytes(unsigned(lo - s), unsigned(hi - lo));
    const uint64_t r = mem_->access(s, 32, write, written, c, this, 0);
    if (r != mem_port::pending) mem_done(s, write, 0, c + r);
    ++sectors;
    if (write)
      ++write_sectors;
    else
      ++read_sectors;
  }
  // The memory answers from its clock: run it until every sector is back (its clocked parts move
  // only while requests are queued, so the kernel's own requests are served on the way).
  constexpr uint64_t limit = 1ull << 24;
  for (uint64_t x = c + 1; outstanding_; ++x) {
    if (x - c > limit)
      throw std::runtime_error(std::string(name()) + ": access not answered by the memory system in " + std::to_string(limit) +
                               " core cycles");
    mem_->cycle(x);
  }
  ++accesses;
  busy_cycles += last_done_ - c;
  delay = t0 + period_ * double(last_done_) - sc_core::sc_time_stamp();
}

unsigned gpu_l2_port::transport_dbg(int, tlm::tlm_generic_payload& gp) { return out->transport_dbg(gp); }

bool gpu_l2_port::get_dmi(int, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& d) { return out->get_direct_mem_ptr(gp, d); }

void gpu_l2_port::invalidate_dmi(sc_dt::uint64 lo, sc_dt::uint64 hi) {
  for (unsigned i = 0; i < in.size(); ++i) in[int(i)]->invalidate_direct_mem_ptr(lo, hi);
}

void gpu_l2_port::report(std::ostream& os) {
  const mem_stats s = mem_stats_();
  os << "memory path: ";
  if (!mem_) {
    os << "pass-through (model false)";
  } else {
    os << "VRAM [" << name() << "'s L2 slices, crossbar and DRAM channels: " << mem_->describe() << "], "
       << (sms_.empty() ? std::string("no SMs attached (no compute engine's l2 port is bound to " + std::string(name()) + ".sms)")
                        : "shared with the SMs of " + sms_);
  }
  os << "; " << accesses.value() << " timed accesses (" << read_sectors.value() << " sectors read, " << write_sectors.value()
     << " written, " << busy_cycles.value() << " core cycles), " << passed.value() << " passed through, " << sm_forwarded.value()
     << " SM accesses forwarded\n";
  if (mem_) {
    std::ostringstream rbl;
    rbl.precision(3);
    rbl << s.row_buffer_locality();
    os << "    memory system (SMs and engines): L2 " << s.l2_accesses << " accesses, " << s.l2_hits << " hits, " << s.l2_pending_hits
       << " pending hits, " << s.l2_misses << " misses, " << s.l2_reservation_fails << " reservation fails, " << s.l2_queue_stalls
       << " cycles stalled on a full queue; DRAM " << s.dram_reads << " reads, " << s.dram_writes << " writes, row-buffer locality "
       << rbl.str() << "\n";
  }
}

namespace {
template <class T>
std::string str(const T& v) {
  std::ostringstream os;
  os << v;
  return os.str();
}
std::string cache_text(const cache_config& c) {
  return std::string(c.sectored ? "S" : "N") + ":" + str(c.sets) + ":" + str(c.line) + ":" + str(c.ways) + "," + c.write_policy + ":" +
         c.alloc_policy + ":" + c.write_alloc + ",mshr " + str(c.mshrs) + ":" + str(c.mshr_merge) + ",mq " + str(c.miss_queue);
}
std::string timing_text(const dram_timing& t) {
  return "nbk=" + str(t.nbk) + " CCD=" + str(t.CCD) + " RRD=" + str(t.RRD) + " RCD=" + str(t.RCD) + " RAS=" + str(t.RAS) +
         " RP=" + str(t.RP) + " RC=" + str(t.RC) + " CL=" + str(t.CL) + " WL=" + str(t.WL) + " CDLR=" + str(t.CDLR) + " WR=" + str(t.WR) +
         " nbkgrp=" + str(t.nbkgrp) + " CCDL=" + str(t.CCDL) + " RTPL=" + str(t.RTPL);
}

// The memory options of one configuration, as (option, value text), in a fixed order.
std::vector<std::pair<const char*, std::string>> memory_options(const gpu_config& c) {
  const mem_config& m = c.mem;
  auto hex = [](uint64_t v) {
    std::ostringstream os;
    os << "0x" << std::hex << v;
    return os.str();
  };
  return {
      {"-gpgpu_clock_domains", str(c.core_mhz) + ":" + str(m.icnt_mhz) + ":" + str(m.l2_mhz) + ":" + str(m.dram_mhz)},
      {"-gpgpu_l2_rop_latency", str(c.l2_rop_latency)},
      {"-dram_latency", str(c.dram_latency)},
      {"-gpgpu_cache:dl2", cache_text(m.l2)},
      {"-gpgpu_n_mem", str(m.n_mem)},
      {"-gpgpu_n_sub_partition_per_mchannel", str(m.sub_per_channel)},
      {"-gpgpu_dram_timing_opt", timing_text(m.dram)},
      {"-gpgpu_dram_buswidth", str(m.dram_buswidth)},
      {"-gpgpu_dram_burst_length", str(m.dram_burst_length)},
      {"-dram_data_command_freq_ratio", str(m.dram_cmd_ratio)},
      {"-gpgpu_frfcfs_dram_sched_queue_size", str(m.frfcfs_queue)},
      {"-gpgpu_dram_return_queue_size", str(m.dram_return_queue)},
      {"-gpgpu_dram_scheduler", str(m.dram_scheduler)},
      {"-dram_dual_bus_interface", str(m.dram_dual_bus)},
      {"-dram_bnkgrp_indexing_policy", str(m.dram_bnkgrp_lower_bits)},
      {"-gpgpu_dram_partition_queues",
       str(m.icnt_l2_queue) + ":" + str(m.l2_dram_queue) + ":" + str(m.dram_l2_queue) + ":" + str(m.l2_icnt_queue)},
      {"-network_mode", str(m.network_mode)},
      {"-icnt_in_buffer_limit", str(m.icnt_in_buffer)},
      {"-icnt_out_buffer_limit", str(m.icnt_out_buffer)},
      {"-icnt_subnets", str(m.icnt_subnets)},
      {"-icnt_arbiter_algo", str(m.icnt_arbiter)},
      {"-icnt_flit_size", str(m.flit_size)},
      {"-inter_config_file", m.icnt_file + " (flit " + str(m.icnt_file_flit_size) + ", buffers " + str(m.icnt_file_input_buffer) + "/" +
                                 str(m.icnt_file_ejection_buffer) + ", subnets " + str(m.icnt_file_subnets) + ")"},
      {"-gpgpu_memory_partition_indexing", str(m.partition_indexing)},
      {"-gpgpu_mem_addr_mapping", "dramid@" + str(m.mem_addr_dramid_bit) + " bank " + hex(m.bank_mask) + " row " + hex(m.row_mask)},
  };
}
}  // namespace

std::string memory_config_difference(const gpu_config& a, const gpu_config& b) {
  const auto va = memory_options(a), vb = memory_options(b);
  for (size_t i = 0; i < va.size(); ++i)
    if (va[i].second != vb[i].second) return std::string(va[i].first) + " " + va[i].second + " vs " + vb[i].second;
  return {};
}

}  // namespace gpuvp::gpu_memory
