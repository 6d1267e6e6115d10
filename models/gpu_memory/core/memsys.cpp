// SPDX-License-Identifier: Apache-2.0
#include "memsys.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <iomanip>
#include <stdexcept>
#include <sstream>

namespace gpuvp::gpu_memory {
namespace {
// gpgpu_sim::cycle()'s hand-offs in core cycles (interconnect and L2 at the core clock):
// - a request queued in an L1 miss queue by the L1 access of cycle s (the `cycle` access() is
//   given; the miss queue sends it in s + 1 at the earliest, as baseline_cache::cycle runs before
//   L1_latency_queue_cycle) is in the crossbar's input buffer after s + 1, may be moved to the
//   sub-partition's output buffer by the interconnect step of s + 2 and popped by the
//   sub-partition in s + 3 at the earliest;
constexpr uint64_t request_cycles = 3;
// - an answer entering the L2 -> icnt queue in cycle q is pushed into the reply crossbar and
//   moved to the cluster's output buffer in q + 1 at the earliest, popped into the cluster's
//   response FIFO in a later cycle p (simt_core_cluster::icnt_cycle; q + 2 without contention),
//   handed to the LDST unit and filled into the L1 in p + 1, taken by ldst_unit::writeback in
//   p + 2, which releases the register in p + 3: a dependent instruction issues in that cycle;
constexpr uint64_t reply_cycles = 3;
// - a store's acknowledgement is consumed by the LDST unit in p + 1 (store_ack).
constexpr uint64_t ack_cycles = 1;
}  // namespace

// The bank-mask bits that pick the sub-partition (addrdec's sub_partition_id_mask): the lowest
// log2(-gpgpu_n_sub_partition_per_mchannel) bits of the bank mask.
static uint64_t sub_partition_bits(const mem_config& m) {
  uint64_t mask = 0, bank = m.bank_mask;
  for (unsigned n = 1; n < m.sub_per_channel && bank; n *= 2) {
    mask |= bank & ~(bank - 1);
    bank &= bank - 1;
  }
  return mask;
}

// The runs of adjacent mask bits, low bits first: the bits of v the mask selects, packed to the
// bottom, are the runs' bits one after the other.
memory_system::bit_runs::bit_runs(uint64_t mask) {
  unsigned k = 0;
  while (mask) {
    const unsigned lo = unsigned(__builtin_ctzll(mask));
    const uint64_t run = mask >> lo;
    const unsigned len = ~run ? unsigned(__builtin_ctzll(~run)) : 64;
    const uint64_t bits = len == 64 ? ~0ull : (uint64_t(1) << len) - 1;
    r[n++] = {uint8_t(lo), uint8_t(k), bits};
    k += len;
    mask &= ~(bits << lo);
  }
}

memory_system::memory_system(const gpu_config& cfg)
    : cfg_(cfg),
      m_(cfg.mem),
      line_mode_(!cfg.mem.l2.sectored),
      bank_runs_(m_.bank_mask),
      row_runs_(m_.row_mask),
      part_runs_(~sub_partition_bits(m_)),
      clock_(cfg.core_mhz, cfg.mem.icnt_mhz, cfg.mem.l2_mhz, cfg.mem.dram_mhz),
      rop_(uint64_t(std::ceil(double(cfg.l2_rop_latency) * cfg.core_mhz / cfg.mem.l2_mhz - 1e-9))) {
  const unsigned sps = m_.sub_partitions();
  init_decode();
  random_ = m_.partition_indexing == 4;
  // (dramid@N has N >= 5, a channel at most 8 sub-partitions)
  chunk_shift_ = m_.mem_addr_dramid_bit - unsigned(std::countr_zero(m_.sub_per_channel));
  port_of(cfg.num_clusters - 1);  // the configured clusters' ports (more appear when a client names them)
  if (m_.network_mode == 1) {
    req_net_.init(m_.icnt_file_k, m_.icnt_file_vc_buf, m_.icnt_file_internal_speedup);
    rep_net_.init(m_.icnt_file_k, m_.icnt_file_vc_buf, m_.icnt_file_internal_speedup);
  }
  next_node_.assign(sps, 0);

  sp_.resize(sps);
  sp_stats_.assign(sps, {});
  l2_.resize(size_t(sps) * m_.l2.sets * m_.l2.ways);
  l2_tag_.assign(l2_.size(), ~0ull);
  l2_written_.assign(l2_.size(), {0, 0, 0, 0});
  l2_lru_.assign(l2_.size(), 0);
  // The DRAM latency queue holds a request -dram_latency core cycles (gpu_sim_cycle at DRAM edges).
  ch_.reserve(m_.n_mem);
  for (unsigned i = 0; i < m_.n_mem; ++i) ch_.emplace_back(m_, m_.sub_per_channel, cfg.dram_latency, &clock_);
}

// One sector from the L2 access in core cycle `cycle`: into the L2's miss queue, in the next
// cycle into the L2 -> DRAM queue of `a`'s sub-partition (l2_cache::cycle runs before the access
// step of memory_sub_partition::cache_cycle), poppable from the first DRAM edge after that L2
// step: gpu_sim_cycle >= cycle + 2.
// `bytes`: the request's data size (dram_req_t's nbytes), moved one DRAM atom (bus width x burst
// length, 32 bytes or more) per column command: a sector one, a non-sectored L2's line several.
// The DRAM reads and writes count column commands (GPGPU-Sim's n_rd / n_write).
void memory_system::dram_push(const dram_address& a, bool write, uint64_t cycle, uint64_t sector, unsigned bytes, bool answered) {
  const unsigned atom = m_.dram_buswidth * m_.dram_burst_length;
  const unsigned bursts = std::max(1u, (bytes + atom - 1) / atom);
  ch_[a.channel].push({clock_.first_edge(cycle + 2), a.row, a.bank, write, sector, 0, bursts, answered},
                      a.sub_partition % m_.sub_per_channel);
  ++dram_queued_;
  (write ? st_.dram_writes : st_.dram_reads) += bursts;
  st_.dram_bytes += bytes;
}

// Runs the channels to DRAM cycle `until`. A read's data (dram_t's rwq, CL cycles, then its
// return queue) enters the DRAM -> L2 queue at the edge after its last beat (data_end) when that
// has room and is filled into L2 in the L2 step of that edge's gpu_sim_cycle, one a cycle per
// sub-partition (dram_channel::leave_return_queue: `fill`; l2_fill then). Between kernels
// (drop_waiters) the fill is made at once and nobody is answered.
void memory_system::run_dram(uint64_t until, bool drop_waiters) {
  for (unsigned ci = 0; ci < ch_.size(); ++ci) {
    dram_channel& c = ch_[ci];
    if (!c.due(until)) continue;
    done_.clear();
    c.run(until, done_);
    for (const dram_done& d : done_) {
      --dram_queued_;
      const unsigned sp = ci * m_.sub_per_channel + d.sub;  // as dram_push queued it
      if (d.write) {
        // A write acknowledged from the DRAM: memory_sub_partition::cache_cycle moves it from the
        // DRAM -> L2 queue (it waits for no fill) into the L2 -> icnt queue in that L2 step.
        if (!d.answered) continue;
        auto a = acks_.find(d.token);
        if (a == acks_.end()) continue;
        if (!drop_waiters) answer(sp, d.fill, a->second);
        acks_.erase(a);
        continue;
      }
      if (!drop_waiters) {
        fill_due(sp, d.fill, d.token);
        continue;
      }
      l2_drop(d.token, true);
    }
  }
}

// As gpgpu_sim::cycle(): the DRAM edges up to this core cycle's call (gpu_sim_cycle <= now; a
// tie runs before the L2 step), then the L2 step. An L2 miss served by now enters its L2 -> DRAM
// queue at an edge of gpu_sim_cycle >= now + 2, which the channel has not run yet.
void memory_system::cycle(uint64_t cycle) {
  if (random_) draw_sm_decodes();  // those of the SMs' last cycle (when sms_stepped did not)
  const bool ahead = ahead_ == cycle;
  ahead_ = ~0ull;
  if (!dram_queued_ && !l2_queued_ && !xbar_queued_ && !replies_queued_ && !l2_ready_ && !fills_due_) return;
  const uint64_t now = cycle - std::min(cycle, base_);
  if (replies_queued_) {
    deliver_replies(now);
    if (!ahead) push_replies(now);
  }
  if (!ahead) run_memory(now);
  if (xbar_queued_) advance(now);  // what it moves reaches the L2 after now
  if (replies_queued_) reply_advance(now);
}

bool memory_system::prepare_ahead(uint64_t cycle) {
  // With random sub-partitions an L2 write-back decodes a chunk that a sector access of the same
  // line drew before, unless a chunk is smaller than a line: then the L2 step could draw, and
  // running it beside the SMs would change the order of draws.
  if (random_ && (uint64_t(1) << chunk_shift_) < m_.l2.line) return false;
  ahead_ = cycle;
  const uint64_t now = cycle - std::min(cycle, base_);
  if (replies_queued_) push_replies(now);
  return dram_queued_ || l2_queued_ || l2_ready_ || fills_due_;
}

void memory_system::run_ahead(uint64_t cycle) { run_memory(cycle - std::min(cycle, base_)); }

void memory_system::run_memory(uint64_t now) {
  if (dram_queued_) {
    const uint64_t e = clock_.first_edge(now + 1);
    if (e) run_dram(e - 1, false);
  }
  if (l2_queued_ || l2_ready_ || fills_due_)
    run_l2(now);
  else
    l2_stepped_ = std::max(l2_stepped_, now + 1);  // (a fill the DRAM makes known is never in a cycle passed over)
}

// The sub-partitions' L2 steps of the cycles from the first not stepped yet up to `now` (one
// per call while cycle() is called every cycle; none for a cycle already stepped). Cycles with
// nothing queued, no access ready to leave and no fill due are passed over.
void memory_system::run_l2(uint64_t now) {
  for (uint64_t c = l2_stepped_; c <= now; ++c) {
    if (!l2_queued_ && !l2_ready_) {  // only fills due: on to the first
      if (next_due_ <= c) next_due_ = first_due();
      if (next_due_ > now) break;
      c = std::max(c, next_due_);
    }
    for (unsigned sp = 0; sp < sp_.size(); ++sp) {
      const sub_partition& P = sp_[sp];
      if (!P.req.empty() || !P.ready.empty() || (!P.due.empty() && P.due.front().t <= c))
        step_sub_partition(sp, c);  // else it has nothing to do
    }
    l2_stepped_ = c + 1;
  }
  l2_stepped_ = std::max(l2_stepped_, now + 1);
}

// gpgpu_sim::cycle's L2 step for sub-partition sp in cycle c: the pop of the crossbar's output
// buffer into the ROP delay queue (one packet a cycle), only while the icnt -> L2 queue (-gpgpu_dram_partition_queues' first field) has room for the
// four sectors a request may split into (memory_sub_partition::full(SECTOR_CHUNCK_SIZE):
// fifo_pipeline::is_avilable_size, length + 4 - 1 >= limit is full; the ROP queue itself is not
// bounded), then memory_sub_partition::cache_cycle: a ready MSHR entry's next access leaves
// (l2_next_access), the DRAM -> L2 queue's head is filled into L2 (l2_fill), one L2 access of the
// icnt -> L2 queue's head (in order; a stalled access is tried again in the next cycle), and at
// its end the move of the ROP queue's head whose -gpgpu_l2_rop_latency is over into the
// icnt -> L2 queue if that is not full.
void memory_system::step_sub_partition(unsigned sp, uint64_t c) {
  sub_partition& P = sp_[sp];
  const size_t limit = m_.icnt_l2_queue;
  if (P.xout_size() && P.req[P.in + P.rop].t <= c && P.in + 3 < limit) {
    P.req[P.in + P.rop].t = c + rop_;
    ++P.rop;
  }
  if (!P.ready.empty()) l2_next_access(sp, c);
  if (!P.due.empty() && P.due.front().t <= c) {
    const uint64_t key = P.due.front().key;
    P.due.pop_front();
    if (!--fills_due_) next_due_ = ~0ull;  // (else it stays a lower bound: run_l2)
    l2_fill(sp, key, c);
  }
  if (P.in && P.req.front().t <= c) {
    const l2_request& r = P.req.front();
    // A full L2 -> DRAM queue (l2_queues_admit's test after an MSHR stall's) stalls the access
    // again: counted here without the access's other work.
    if (!P.mshr_stall && ch_[r.a.channel].l2_queue(r.a.sub_partition % m_.sub_per_channel) >= m_.l2_dram_queue) {
      ++st_.l2_queue_stalls;
      P.l2_free = std::max(P.l2_free, c + 1);  // (l2_retry)
    } else if (l2_access(sp, r, c, false)) {
      P.req.pop_front();
      --P.in;
      --l2_queued_;
    }
  }
  if (P.rop && P.req[P.in].t <= c && P.in < limit) {
    P.req[P.in].t = c + 1;
    ++P.in;
    --P.rop;
  }
}

// Between kernels: every request still queued is served in order, nobody answered and nothing
// stalled.
void memory_system::drain_l2() {
  for (unsigned sp = 0; sp < sp_.size(); ++sp) {
    sub_partition& P = sp_[sp];
    for (const l2_request& r : P.req) l2_access(sp, r, ~0ull, true);  // the icnt -> L2 queue's, the ROP queue's, the output buffer's
    P.req.clear();
    P.in = P.rop = 0;
  }
  l2_queued_ = 0;
}

// A request entered a sub-partition's queues, which cannot move it before cycle t (nor a fill
// come before then, with no read in the DRAM).
void memory_system::l2_queued(uint64_t t) {
  if (!l2_queued_++ && !l2_ready_ && !fills_due_ && !dram_queued_) l2_stepped_ = std::max(l2_stepped_, t);
}

// The cycle of the first fill due (~0: none).
uint64_t memory_system::first_due() const {
  uint64_t t = ~0ull;
  for (const sub_partition& P : sp_)
    if (!P.due.empty()) t = std::min(t, P.due.front().t);
  return t;
}

mem_stats memory_system::stats() const {
  mem_stats s = st_;
  for (const dram_channel& c : ch_) {
    s.dram_row_hits += c.row_hits;
    s.dram_requests += c.scheduled;
  }
  return s;
}

// An SM's sector request, sent from its L1's miss queue in core cycle `cycle`: it enters its
// cluster's crossbar input buffer (request_cycles above) and moves on when the crossbar grants it
// (advance, grant); cycle() runs the crossbar.
void memory_system::set_event_log(mem_event_log* log) {
  log_ = log;
  for (unsigned i = 0; i < ch_.size(); ++i) {
    ch_[i].log = log;
    ch_[i].log_id = i;
  }
}

uint64_t memory_system::access(uint64_t addr, unsigned bytes, bool write, uint32_t written, uint64_t cycle, mem_client* client,
                               unsigned tag) {
  const uint64_t sent = cycle - std::min(cycle, base_);                             // core cycles since the kernel started
  bytes = line_mode_ ? std::clamp(bytes, 1u, m_.l2.line) : mem_port::sector_bytes;  // (sectored: every access a sector's packet)
  const unsigned node = client ? client->icnt_node() : ~0u;
  if (random_ && node != ~0u) {
    // An SM's: decoded with its other decodes of this cycle, in order (draw_sm_decodes).
    const unsigned port = port_of(node);
    sm_decodes_[port].push_back({addr, true});
    xin_[port].push_back(
        {sent + request_cycles - 1, 0, {0, addr, client, tag, write ? written : mem_port::whole_sector, write, {}, bytes}});
    xbar_queued_.fetch_add(1, std::memory_order_relaxed);
    return pending;
  }
  if (random_) draw_sm_decodes();  // (the SMs' came first)
  const dram_address a = decode(addr);
  const unsigned sp = a.sub_partition;
  if (node == ~0u) {
    // Another engine (gpu_l2): no crossbar input of its own (GPGPU-Sim has no such client; one
    // port would take a 16 KiB access 512 cycles to inject), it enters at the sub-partition's
    // output as an uncontended request would.
    // In the output buffer from sent + request_cycles, after the crossbar's packets granted
    // before then (granted in cycle g, they are there from g + 1).
    sub_partition& P = sp_[sp];
    const uint64_t t = sent + request_cycles;
    const auto xout = P.req.begin() + ptrdiff_t(P.in + P.rop);
    auto it = P.req.end();
    while (it != xout && std::prev(it)->t > t) --it;
    P.req.insert(it, {t, addr, client, tag, write ? written : mem_port::whole_sector, write, a, bytes});
    l2_queued(t);
    return pending;
  }
  // (Logged in the cycle after: the L1's miss queue gives its head to the crossbar then.)
  if (log_) log_->add(mem_event_log::INJ, sent + 1, node, addr & ~uint64_t(31), 1u << (addr % m_.l2.line / 32 % 4), sp, write ? 4 : 0);
  xin_[port_of(node)].push_back(
      {sent + request_cycles - 1, sp, {0, addr, client, tag, write ? written : mem_port::whole_sector, write, a, bytes}});
  xbar_queued_.fetch_add(1, std::memory_order_relaxed);
  return pending;
}

// An answer enters sub-partition sp's L2 -> icnt queue in cycle q (answers of one cycle in the
// order they come).
void memory_system::answer(unsigned sp, uint64_t q, reply a) {
  const unsigned node = a.client ? a.client->icnt_node() : ~0u;
  if (node == ~0u) {  // another engine: answered as without contention
    if (a.client) a.client->mem_done(a.addr, a.write, a.tag, base_ + q + 2 + (a.write ? ack_cycles : reply_cycles));
    return;
  }
  sub_partition& P = sp_[sp];
  auto it = P.rep.end();
  const auto out = P.out_begin();
  while (it != out && std::prev(it)->q > q) --it;
  a.q = q;
  a.port = node + 1 < xin_.size() ? node : port_of(node);  // (a port seen before: its own)
  if (it == P.rep.end())
    P.rep.push_back(a);
  else
    P.rep.insert(it, a);
  ++replies_queued_;
}

// gpgpu_sim::cycle()'s reply steps before the L2 step of cycle `now`. First each cluster takes
// one answer from its output buffer of the reply crossbar (simt_core_cluster::icnt_cycle, into
// its response FIFO), which reaches the LDST unit in the next cycle: a store's acknowledgement is
// consumed there (now + 1), a read fills the L1 then, ldst_unit::writeback takes it in now + 2 and
// releases the register in now + 3.
void memory_system::deliver_replies(uint64_t now) {
  for (auto& o : rout_) {
    if (o.empty()) continue;
    const reply r = o.front();
    if (r.t > now) continue;                               // (-network_mode 1: not in the boundary buffer yet)
    if (r.client->reply_fifo_full(base_ + now)) continue;  // the cluster's response FIFO holds its bound
    o.pop_front();
    --replies_queued_;
    if (log_) log_->add(mem_event_log::RSP, now, r.client->icnt_node(), r.addr & ~uint64_t(31), 1u << (r.addr % m_.l2.line / 32 % 4), 0);
    r.client->mem_done(r.addr, r.write, r.tag, base_ + now + (r.write ? ack_cycles : reply_cycles));
  }
}

// Then each sub-partition pushes the head of its L2 -> icnt queue (queued in an earlier cycle)
// into its input buffer of the reply crossbar if that has room (icnt_has_buffer:
// -icnt_in_buffer_limit packets).
void memory_system::push_replies(uint64_t now) {
  const size_t room = in_buffer();
  for (sub_partition& P : sp_)
    if (P.out_size() && P.rep[P.rin].q < now && P.rin < room) ++P.rin;
}

void memory_system::kernel_start(uint64_t gpu_cycle) {
  if (random_) draw_sm_decodes();
  ahead_ = ~0ull;              // (set only if the last kernel was abandoned: an error thrown by an SM)
  if (m_.network_mode == 1) {  // requests in the network first (injected before those queued)
    req_net_.drain([&](unsigned, const xbar_packet& p) { sp_[p.sp].req.push_back(p.r); });
    rep_net_.drain([](unsigned, const reply&) {});
  }
  for (auto& q : xin_) {  // requests nobody waits for any more
    for (const xbar_packet& p : q) sp_[p.sp].req.push_back(p.r);
    q.clear();
  }
  xbar_queued_ = 0;
  for (auto& o : rout_) o.clear();
  for (sub_partition& P : sp_) {
    P.rep.clear();
    P.rin = 0;
  }
  replies_queued_ = 0;
  // Fills due and accesses still to leave the L2: the fills are made, nobody is answered.
  // (Those still in the DRAM: run_dram below.)
  for (sub_partition& P : sp_) {
    for (const uint64_t key : P.ready) l2_drop(key, false);
    for (const due_fill& d : P.due) l2_drop(d.key, true);
    P.due.clear();
    P.ready.clear();
  }
  fills_due_ = l2_ready_ = 0;
  next_due_ = ~0ull;
  drain_l2();
  run_dram(~0ull, true);  // write-backs still queued
  fills_.clear();
  acks_.clear();
  fill_waiters_.clear();
  base_ = gpu_cycle;
  l2_stepped_ = 0;
  for (sub_partition& P : sp_) {
    P.l2_free = 0;
    P.mshrs = 0;
    P.mshr_stall = false;
  }
  for (auto& l : l2_) {  // every fill is in: a sector written while it was due is readable
    std::fill(std::begin(l.ready), std::end(l.ready), 0);
    l.unreadable &= uint8_t(~l.early);
    l.early = 0;
  }
  for (auto& c : ch_) c.reset_timing();
}

void memory_system::memcpy_to_device(uint64_t addr, uint64_t bytes) {
  if (random_) draw_sm_decodes();
  for (sub_partition& P : sp_) P.mshr_stall = false;  // a stalled miss may be a hit now
  // gpgpu_sim::perf_memcpy_to_gpu: one sector per 32 bytes from the start, its address held in
  // a 32-bit unsigned (wr_addr): above 4 GiB the L2 gets the truncated address's tag, and the
  // kernel's accesses to the real address miss.
  for (uint64_t counter = 0; counter < bytes; counter += 32) {
    const uint64_t s = uint32_t(addr + counter) / 32 * 32;
    const unsigned sp = decode(s).sub_partition;
    const uint64_t line = s / m_.l2.line;
    l2_line* victim = nullptr;
    l2_line* l = l2_find(sp, line, victim, ~0ull);
    if (!l) {
      l = victim;
      *l = l2_line{};
      l2_tag_[size_t(l - l2_.data())] = line;
      l2_written_[size_t(l - l2_.data())] = {0, 0, 0, 0};
    }
    l2_lru_[size_t(l - l2_.data())] = ++stamp_;
    const uint8_t bit = uint8_t(1u << sector_of(s));
    l->valid |= bit;
    l->unreadable &= uint8_t(~bit);  // the copied data is there: a read hits
  }
}

std::string memory_system::describe() const {
  std::ostringstream os;
  os << "GPGPU-Sim memory system: " << m_.n_mem << " DRAM channels x " << m_.sub_per_channel << " L2 slices ("
     << m_.l2.sets * m_.l2.ways * m_.l2.line / 1024 << " KiB each), crossbar " << m_.icnt_mhz << " MHz, L2 " << m_.l2_mhz << " MHz, DRAM "
     << m_.dram_mhz << " MHz x " << m_.dram_buswidth << " B x " << m_.dram_cmd_ratio << " (" << std::fixed << std::setprecision(1)
     << double(m_.n_mem) * m_.dram_buswidth * m_.dram_cmd_ratio * m_.dram_mhz / 1000.0 << " GB/s peak)";
  return os.str();
}

std::unique_ptr<mem_port> make_memory(const gpu_config& cfg, const std::string& kind) {
  if (kind == "gpgpu-sim") return std::make_unique<memory_system>(cfg);
  if (kind == "fixed") return std::make_unique<fixed_latency_memory>(cfg.l2_rop_latency + cfg.dram_latency);
  throw std::invalid_argument("memory model '" + kind + "' (gpgpu-sim or fixed)");
}

}  // namespace gpuvp::gpu_memory
