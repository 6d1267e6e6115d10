// SPDX-License-Identifier: Apache-2.0
#include "dram.h"

#include <algorithm>

namespace gpuvp::gpu_memory {

namespace {
// Calls f(b) for the set bits b of m from bit `from` (< 64) upward, then from bit 0, until f
// returns true; returns whether one did.
template <class F>
bool visit_from(uint64_t m, unsigned from, F f) {
  const uint64_t hi = m >> from << from;
  for (uint64_t x = hi; x; x &= x - 1)
    if (f(unsigned(__builtin_ctzll(x)))) return true;
  for (uint64_t x = m & ~hi; x; x &= x - 1)
    if (f(unsigned(__builtin_ctzll(x)))) return true;
  return false;
}
}  // namespace

clock_domains::clock_domains(double core_mhz, double icnt_mhz, double l2_mhz, double dram_mhz)
    : core_p_(1 / (core_mhz * 1000000)),
      icnt_p_(1 / (icnt_mhz * 1000000)),
      l2_p_(1 / (l2_mhz * 1000000)),
      dram_p_(1 / (dram_mhz * 1000000)) {}

// One call of gpgpu_sim::cycle() after another (next_clock_domain's comparisons) until a DRAM
// edge has ticked.
void clock_domains::grow() {
  for (;;) {
    double smallest = std::min({core_t_, icnt_t_, dram_t_});
    bool dram = false, core = false;
    if (l2_t_ <= smallest) {
      smallest = l2_t_;
      l2_t_ += l2_p_;
    }
    if (icnt_t_ <= smallest) icnt_t_ += icnt_p_;
    if (dram_t_ <= smallest) {
      dram = true;
      dram_t_ += dram_p_;
    }
    if (core_t_ <= smallest) {
      core = true;
      core_t_ += core_p_;
    }
    if (dram) {
      g_.push_back(uint32_t(std::min<uint64_t>(cores_, UINT32_MAX)));
      // The core cycles up to this edge's that no earlier edge reached have it as first edge.
      while (first_.size() <= g_.back() && first_.size() < (uint64_t(1) << 24)) first_.push_back(uint32_t(g_.size() - 1));
    }
    if (core) ++cores_;
    if (dram) return;
  }
}

uint64_t clock_domains::first_edge_grown(uint64_t c) {
  while (g_.empty() || g_.back() < c) grow();
  if (c < first_.size()) return first_[c];
  return uint64_t(std::lower_bound(g_.begin(), g_.end(), c) - g_.begin());
}

dram_channel::dram_channel(const mem_config& m, unsigned subs, unsigned latency, clock_domains* clock)
    : m_(m),
      T_(m.dram),
      l2q_(std::max(1u, subs)),
      latency_(latency),
      last_sub_(std::max(1u, subs) - 1),
      clock_(clock),
      return_queue_size_(m.dram_return_queue ? m.dram_return_queue : 1024) {
  // memory_partition_unit's arbitration credits: one private credit per sub-partition and a
  // shared pool of scheduler queue + return queue - (sub-partitions - 1); no limit when either
  // queue is unbounded (0).
  private_.assign(l2q_.size(), 0);
  dram_l2_.resize(l2q_.size());
  const uint64_t pool = uint64_t(m.frfcfs_queue) + m.dram_return_queue + 1;
  if (m.frfcfs_queue && m.dram_return_queue && pool > l2q_.size()) shared_limit_ = pool - l2q_.size();
  // dram.cc's derived constraints (in command cycles): a burst holds the data bus BL/ratio
  // cycles; read -> write, write -> read, write -> precharge; a write's column command may come
  // WL + 1 cycles before tRCD ends.
  burst_ = std::max(1u, m.dram_burst_length / m.dram_cmd_ratio);
  tRTW_ = T_.CL + burst_ + 2 > T_.WL ? T_.CL + burst_ + 2 - T_.WL : 0;
  tWTR_ = T_.WL + burst_ + T_.CDLR;
  tWTP_ = T_.WL + burst_ + T_.WR;
  tRCDWR_ = T_.RCD > T_.WL + 1 ? T_.RCD - (T_.WL + 1) : 0;
  bk_.resize(T_.nbk);
  for (unsigned b = 0; b < T_.nbk; ++b) bk_[b].group = group(b);
  masked_ = T_.nbk <= 64;
  // The scheduler is full (dram_t::full): FR-FCFS at the configured size (0 unbounded), FIFO at
  // mrqq's 2 entries.
  frfcfs_ = m.dram_scheduler == 1;
  room_ = frfcfs_ ? (m.frfcfs_queue ? m.frfcfs_queue : ~0u) : 2u;
  ccdl_.assign(T_.nbkgrp, 0);
  rtpl_.assign(T_.nbkgrp, 0);
}

// -dram_bnkgrp_indexing_policy: 0 the bank number's higher bits, 1 its lower bits.
unsigned dram_channel::group(unsigned b) const { return m_.dram_bnkgrp_lower_bits ? b % T_.nbkgrp : b / (T_.nbk / T_.nbkgrp); }

void dram_channel::push(dram_request r, unsigned sub) {
  r.arrive = std::max(r.arrive, now_);
  r.sub = sub;
  auto& q = l2q_[sub];
  auto it = q.end();
  while (it != q.begin() && std::prev(it)->arrive > r.arrive) --it;
  if (it == q.end())
    q.push_back(r);
  else
    q.insert(it, r);
  ++queued_;
}

void dram_channel::run(uint64_t until, std::vector<dram_done>& out) {
  while (queued_ && now_ <= until) {
    if (pending_ == 0 && in_banks_ == 0) {  // only queued requests: skip to the first that can move
      uint64_t next = arrivals_.empty() ? ~0ull : arrivals_.front().arrive;
      for (const auto& q : l2q_)
        if (!q.empty()) next = std::min(next, q.front().arrive);
      // No further than `until` + 1: a request pushed later may still arrive before `next`
      // (skipping on to `next` delayed it to there; mem-log's first difference on ldg_coal_6warp).
      if (next > until) {
        now_ = std::max(now_, until + 1);
        break;
      }
      now_ = std::max(now_, next);
    }
    cycle(now_++, out);
  }
}

// One DRAM cycle (dram_t::cycle with what gpgpu_sim::cycle does around it).
void dram_channel::cycle(uint64_t k, std::vector<dram_done>& out) {
  if (!credit_returns_.empty() && credit_returns_.front().first <= k) return_credits(k);
  // One request per cycle from the latency queue into the scheduler while it has room.
  if (!arrivals_.empty() && arrivals_.front().arrive <= k && pending_ < room_) accept_arrival(k);
  // The scheduler hands one request to a bank without one (FR-FCFS: none while every bank with
  // queued requests holds one).
  if (pending_) {
    if (!frfcfs_)
      fifo_schedule();
    else if (!masked_ || queue_mask_ & ~mrq_mask_)
      frfcfs_schedule();
  }
  if (in_banks_) commands(k, out);
  if (pending_ < room_) issue_from_l2(k);
}

// dram_cycle() first moves the oldest read whose data is out of the return queue into the
// DRAM -> L2 queue, giving its credit back.
void dram_channel::return_credits(uint64_t k) {
  while (!credit_returns_.empty() && credit_returns_.front().first <= k) {
    const unsigned s = credit_returns_.front().second;
    credit_returns_.pop_front();
    if (private_[s])
      --private_[s];
    else if (shared_)
      --shared_;
  }
}

// The latency queue's head enters the scheduler.
void dram_channel::accept_arrival(uint64_t k) {
  const dram_request& r = arrivals_.front();  // (popped at the end: no copy of its own)
  ++pending_;
  queue_max = std::max<uint64_t>(queue_max, pending_);
  // dram_t::push ran at the edge before (the latency queue's pop, then dram_t::cycle's move).
  if (log) log->add(mem_event_log::DQ, clock_ && k ? clock_->core_at(k - 1) : k, log_id, r.write ? 0 : r.token * 32, r.bank, r.row);
  if (frfcfs_) {
    bk_[r.bank].queue.push_back(r);
    if (masked_) queue_mask_ |= uint64_t(1) << r.bank;
  } else {
    fifo_.push_back(r);
  }
  arrivals_.pop_front();
}

// frfcfs_scheduler::schedule for bank b, if it has no request and a queued one: keep draining the
// row being served; else the requests of the bank's current row; else the oldest request's row.
// The current row is the bank's curr_row, row 0 before its first activate (dram_t's banks are
// calloc'ed): a bank never activated serves its row-0 requests first, and they count as row hits.
bool dram_channel::frfcfs_take(unsigned b) {
  bank& B = bk_[b];
  if (B.has_mrq || B.queue.empty()) return false;
  const uint64_t current = B.row == ~0ull ? 0 : B.row;
  if (!B.serving_row) {
    B.serve_row = B.queue.front().row;
    for (const dram_request& q : B.queue)
      if (q.row == current) {
        B.serve_row = current;
        break;
      }
    B.serving_row = true;
  }
  // The first request of that row, and whether another follows it (none comes before it).
  const auto of_row = [&](const dram_request& q) { return q.row == B.serve_row; };
  const auto it = std::find_if(B.queue.begin(), B.queue.end(), of_row);
  B.serving_row = std::any_of(it + 1, B.queue.end(), of_row);
  B.mrq = *it;
  B.queue.erase(it);
  if (B.mrq.row == current) ++row_hits;
  ++scheduled;
  B.has_mrq = true;
  if (masked_) {
    mrq_mask_ |= uint64_t(1) << b;
    set_open(b);
    if (B.queue.empty()) queue_mask_ &= ~(uint64_t(1) << b);
  }
  --pending_;
  ++in_banks_;
  prio_ = (prio_ + 1) % T_.nbk;
  return true;
}

// FR-FCFS: the first bank from the priority pointer that takes a request.
void dram_channel::frfcfs_schedule() {
  if (masked_) {
    visit_from(queue_mask_ & ~mrq_mask_, prio_, [&](unsigned b) { return frfcfs_take(b); });
  } else {
    for (unsigned i = 0; i < T_.nbk; ++i)
      if (frfcfs_take((i + prio_) % T_.nbk)) break;
  }
}

// FIFO: the oldest request, when its bank has none. (Its row hits and requests are counted as
// FR-FCFS's; GPGPU-Sim's scheduler_fifo counts neither, its Row_Buffer_Locality is -nan.)
void dram_channel::fifo_schedule() {
  if (bk_[fifo_.front().bank].has_mrq) return;
  bank& B = bk_[fifo_.front().bank];
  B.mrq = fifo_.front();
  fifo_.pop_front();
  if (B.mrq.row == B.row) ++row_hits;
  ++scheduled;
  B.has_mrq = true;
  if (masked_) {
    mrq_mask_ |= uint64_t(1) << (&B - bk_.data());
    set_open(unsigned(&B - bk_.data()));
  }
  --pending_;
  ++in_banks_;
}

// After dram_t::cycle, one request from the sub-partitions' L2 -> DRAM queues (round robin from
// the one after the last served) into the latency queue (the scheduler has room: dram_t::full);
// a sub-partition whose credits are spent or whose DRAM -> L2 queue is full is passed over
// (can_issue_to_dram); it reaches the scheduler `latency_` cycles later.
void dram_channel::issue_from_l2(uint64_t k) {
  const unsigned n = unsigned(l2q_.size());
  for (unsigned p = 0; p < n; ++p) {
    const unsigned s = (last_sub_ + 1 + p) % n;
    if (l2q_[s].empty() || l2q_[s].front().arrive > k) continue;
    if (private_[s] >= 1 && shared_limit_ && shared_ >= shared_limit_) continue;  // no credit
    if (dram_l2_full(s, k)) continue;                                             // its DRAM -> L2 queue is full
    dram_request r = l2q_[s].front();
    l2q_[s].pop_front();
    r.arrive = clock_ ? std::max(k, clock_->first_edge(clock_->core_at(k) + latency_)) + 1 : k + latency_;
    arrivals_.push_back(r);
    if (private_[s] < 1)
      ++private_[s];
    else
      ++shared_;
    last_sub_ = s;
    break;
  }
}

// Column and row commands of one DRAM cycle, banks tried from prio.
void dram_channel::commands(uint64_t k, std::vector<dram_done>& out) {
  const unsigned nbk = T_.nbk;
  bool col = false, row = false;
  col_ok_ = !last_data_ || !rwq_full(k);  // (no data placed yet: empty)
  if (!col_ok_) {
    bool open = masked_ && open_mask_;
    for (unsigned j = 0; !masked_ && j < nbk && !open; ++j) open = bk_[j].has_mrq && bk_[j].active && bk_[j].row == bk_[j].mrq.row;
    if (open) ++rwq_full_cycles;
  }
  if (masked_) {  // the banks without a request (has_mrq) would refuse both commands
    if (m_.dram_dual_bus) {
      // Before tCCD has passed, or while the rwq is full, every column command waits
      // (col_command's bank-independent tests).
      if (k >= ccd_ && col_ok_)
        visit_from(open_mask_, prio_, [&](unsigned j) {
          const bank& B = bk_[j];  // col_command's per-bank timing tests first, without the call
          if (k < ccdl_[B.group] || (B.mrq.write ? k < B.rcdwr || k < rtw_ : k < B.rcd || k < wtr_)) return false;
          return col_command(j, k, out);
        });
      visit_from(mrq_mask_ & ~open_mask_, prio_, [&](unsigned j) {
        const bank& B = bk_[j];  // row_command's per-bank timing tests first, without the call
        if (B.active ? k < B.ras || k < B.wtp || k < B.rtp || k < rtpl_[B.group] : k < rrd_ || k < B.rp || k < B.rc) return false;
        return row_command(j, k);
      });
    } else {
      visit_from(mrq_mask_, prio_, [&](unsigned j) { return col_command(j, k, out) || row_command(j, k); });
    }
    return;
  }
  if (m_.dram_dual_bus) {
    for (unsigned i = 0; i < nbk && !col; ++i) col = col_command((i + prio_) % nbk, k, out);
    for (unsigned i = 0; i < nbk && !row; ++i) row = row_command((i + prio_) % nbk, k);
  } else {
    for (unsigned i = 0; i < nbk && !col && !row; ++i) {
      const unsigned j = (i + prio_) % nbk;
      col = col_command(j, k, out);
      if (!col) row = row_command(j, k);
    }
  }
}

bool dram_channel::col_command(unsigned j, uint64_t k, std::vector<dram_done>& out) {
  bank& B = bk_[j];
  if (!B.has_mrq || !B.active || B.row != B.mrq.row || !col_ok_) return false;
  const unsigned g = B.group;
  if (k < ccd_ || k < ccdl_[g]) return false;
  unsigned latency;
  if (!B.mrq.write) {
    if (k < B.rcd || k < wtr_) return false;
    rtw_ = k + tRTW_;
    B.rtp = k + burst_;
    rtpl_[g] = k + T_.RTPL;
    latency = T_.CL;
  } else {
    if (k < B.rcdwr || k < rtw_) return false;
    wtr_ = k + tWTR_;
    B.wtp = k + tWTP_;
    latency = T_.WL;
  }
  ccd_ = k + T_.CCD;
  ccdl_[g] = k + T_.CCDL;
  ++(B.mrq.write ? writes : reads);
  if (log && !B.mrq.write) log->add(mem_event_log::RD, clock_ ? clock_->core_at(k) : k, log_id, B.mrq.token * 32, j, B.mrq.row);
  // Into the rwq: CL (WL) pops from now, behind the data already in it; popped at `data`.
  settle(k);
  // One pop of the delay line delivers the access (dram_t::cycle: its 32-byte atom, BL x bus
  // width, checked to hold a sector), whatever BL / ratio the data bus takes; after the last
  // data placed (last_data_ is its pop + 1).
  const uint64_t slot = std::max(pops(k) + latency, last_data_);
  last_data_ = slot + 1;
  const uint64_t data = place(slot);
  // dram_t::issue_col_command: the bank keeps the request until txbytes reaches nbytes, one
  // atom per column command; only the last atom's data completes it (dram_t::cycle's dqbytes).
  if (B.mrq.bursts > 1) {
    --B.mrq.bursts;
    return true;
  }
  uint64_t fill = 0;
  // The credit comes back with the data: a read's when it leaves the return queue for the
  // DRAM -> L2 queue (dram_cycle, the edge after its last beat at the earliest), a write's when
  // dram_t::cycle takes it from its data pipeline (memory_partition_unit::set_done).
  // (An answered write goes the reads' way: dram_t::cycle returns it, memory_partition_unit::
  // dram_cycle moves it into the DRAM -> L2 queue and gives its credit back then.)
  const bool returned = !B.mrq.write || B.mrq.answered;
  const uint64_t back = returned ? leave_return_queue(k, data + 1, B.mrq.sub, fill) : data;
  if (returned) retq_.push_back(back);  // in the return queue from `data` to `back`
  out.push_back({B.mrq.token, data + 1, B.mrq.write, B.mrq.sub, B.mrq.answered, fill});
  auto it = credit_returns_.end();
  while (it != credit_returns_.begin() && std::prev(it)->first > back) --it;
  credit_returns_.insert(it, {back, B.mrq.sub});
  B.has_mrq = false;
  if (masked_) {
    mrq_mask_ &= ~(uint64_t(1) << j);
    open_mask_ &= ~(uint64_t(1) << j);
  }
  --in_banks_;
  --queued_;
  return true;
}

bool dram_channel::row_command(unsigned j, uint64_t k) {
  bank& B = bk_[j];
  if (!B.has_mrq) return false;
  if (!B.active) {
    if (k < rrd_ || k < B.rp || k < B.rc) return false;
    if (log)  // GPGPU-Sim's bank starts at row 0
      log->add(mem_event_log::ACT, clock_ ? clock_->core_at(k) : k, log_id, 0, j, B.mrq.row, B.row == ~0ull ? 0 : B.row);
    B.row = B.mrq.row;  // activate
    B.active = true;
    if (masked_) set_open(j);
    rrd_ = k + T_.RRD;
    B.rcd = k + T_.RCD;
    B.rcdwr = k + tRCDWR_;
    B.ras = k + T_.RAS;
    B.rc = k + T_.RC;
    ++activates;
  } else {
    if (B.row == B.mrq.row || k < B.ras || k < B.wtp || k < B.rtp || k < rtpl_[B.group]) return false;
    B.active = false;  // precharge
    if (masked_) set_open(j);
    B.rp = k + T_.RP;
    ++precharges;
  }
  prio_ = (j + 1) % T_.nbk;
  return true;
}

// A read whose data is in the return queue after its last beat (DRAM cycle `ready`; decided by
// the column command of cycle k < ready): memory_partition_unit::dram_cycle moves the queue's
// head (one a DRAM cycle, in order: a head that waits holds back the reads behind it) into its
// sub-partition's DRAM -> L2 queue at the first edge from `ready` on that finds room there
// (-gpgpu_dram_partition_queues' third field; fifo_pipeline::full: length >= limit).
// memory_sub_partition::cache_cycle takes that queue's head into the L2 (the fill port: one a
// cycle) in each L2 step, so at an edge of gpu_sim_cycle g the queue holds the reads that
// entered by then whose L2 step is g or later (the L2 step of g runs after the edge), and a read
// entering at that edge is taken in the L2 step of g, or after the reads ahead of it. Returns
// the edge it leaves the return queue (its credit's return); `fill` gets its L2 step.
uint64_t dram_channel::leave_return_queue(uint64_t k, uint64_t ready, unsigned sub, uint64_t& fill) {
  auto core = [&](uint64_t e) { return clock_ ? clock_->core_at(e) : e; };
  auto& q = dram_l2_[sub];
  const uint64_t now = core(k);
  while (!q.empty() && q.front().second < now) q.pop_front();  // taken by L2 steps before k
  uint64_t e = std::max(ready, last_leave_);
  uint64_t g = core(e);
  // Every read queued entered before e; those taken by the L2 steps before g have left.
  auto first = [&] {
    return size_t(std::lower_bound(q.begin(), q.end(), g, [](const auto& x, uint64_t v) { return x.second < v; }) - q.begin());
  };
  size_t i = first();
  if (q.size() - i >= m_.dram_l2_queue) {  // full: wait for the L2 step that makes room
    const uint64_t c = q[q.size() - m_.dram_l2_queue].second + 1;
    e = std::max(e, clock_ ? clock_->first_edge(c) : c);
    g = core(e);
    i = first();
  }
  fill = i == q.size() ? g : std::max(g, q.back().second + 1);
  q.emplace_back(e, fill);
  last_leave_ = e + 1;
  return e;
}

// The sub-partition's DRAM -> L2 queue is full at DRAM cycle k, after dram_cycle's move of that
// edge (can_issue_to_dram: no request of it goes to the DRAM then).
bool dram_channel::dram_l2_full(unsigned sub, uint64_t k) {
  auto& q = dram_l2_[sub];
  if (q.size() < m_.dram_l2_queue) return false;
  const uint64_t now = clock_ ? clock_->core_at(k) : k;
  while (!q.empty() && q.front().second < now) q.pop_front();
  size_t in = 0;
  for (const auto& x : q)
    if (x.first <= k)
      ++in;
    else
      break;
  return in >= m_.dram_l2_queue;
}

// The return queue's bound (dram_t::cycle: no rwq pop while returnq->full()). Settles the DRAM
// edges after horizon_ up to e: every read in the return queue entered by horizon_ (retq_: their
// leave edges, rising), so an edge x is held while return_queue_size_ or more of them leave after
// x: the edges before the return_queue_size_-th last leave.
void dram_channel::settle(uint64_t e) {
  if (e <= horizon_) return;
  while (!retq_.empty() && retq_.front() <= horizon_) retq_.pop_front();
  if (retq_.size() >= return_queue_size_) {
    const uint64_t last = std::min(e, retq_[retq_.size() - return_queue_size_] - 1);
    if (last > horizon_) {
      if (!held_runs_.empty() && held_runs_.back().second == horizon_)
        held_runs_.back().second = last;
      else
        held_runs_.emplace_back(horizon_ + 1, last);
      held_ += last - horizon_;
      return_queue_stalls += last - horizon_;
    }
  }
  horizon_ = e;
}

// The rwq pops up to edge k (k <= horizon_): k minus the held edges up to k.
uint64_t dram_channel::pops(uint64_t k) {
  while (!held_runs_.empty() && held_runs_.front().second < k) {
    held_base_ += held_runs_.front().second - held_runs_.front().first + 1;
    held_runs_.pop_front();
  }
  uint64_t h = held_base_;
  for (const auto& r : held_runs_) {
    if (r.first > k) break;
    h += std::min(r.second, k) - r.first + 1;
  }
  return k - h;
}

// The edge whose pop takes the data of pop count d: after horizon_ the held edges come first (no
// read enters the return queue before this data), then one pop an edge. (d <= the pops up to
// horizon_ only with CL or WL 0: popped in the cycle it was pushed, as the model had it.)
uint64_t dram_channel::place(uint64_t d) {
  const uint64_t v = horizon_ - held_;
  if (d <= v) return horizon_;
  while (!retq_.empty() && retq_.front() <= horizon_) retq_.pop_front();
  uint64_t start = horizon_;
  if (retq_.size() >= return_queue_size_) start = std::max(start, retq_[retq_.size() - return_queue_size_] - 1);
  const uint64_t e = start + (d - v);
  settle(e);
  return e;
}

// fifo_pipeline::full: the rwq holds CL + 1 entries (its data up to the last one and the padding
// before it) after cycle k's pop. Its minimum length (CL, or WL after a write) is below that in
// every configuration GPGPU-Sim accepts (WL > CL would overfill it).
bool dram_channel::rwq_full(uint64_t k) {
  if (!last_data_) return false;
  if (k > horizon_) settle(k);
  return last_data_ - 1 >= (held_runs_.empty() ? k - held_base_ : pops(k)) + T_.CL + 1;  // (no held run: pops without the call)
}

void dram_channel::reset_timing() {
  horizon_ = held_ = held_base_ = last_data_ = 0;
  held_runs_.clear();
  retq_.clear();
  col_ok_ = true;
  for (auto& q : dram_l2_) q.clear();
  last_leave_ = 0;
  now_ = rrd_ = ccd_ = rtw_ = wtr_ = 0;
  std::fill(private_.begin(), private_.end(), 0);
  shared_ = 0;
  credit_returns_.clear();
  std::fill(ccdl_.begin(), ccdl_.end(), 0);
  std::fill(rtpl_.begin(), rtpl_.end(), 0);
  for (bank& B : bk_) B.rcd = B.rcdwr = B.ras = B.rc = B.rp = B.wtp = B.rtp = 0;
}

}  // namespace gpuvp::gpu_memory
