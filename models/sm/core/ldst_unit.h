// SPDX-License-Identifier: Apache-2.0
// The LDST unit of one SM: shared memory, and the L1 data cache as GPGPU-Sim's -gpgpu_cache:dl1
// configures it (sectored lines, MSHRs with merging, a miss queue, write-through stores that
// complete when acknowledged). Internal to sm_core.
#pragma once
#include <cstdint>
#include <algorithm>
#include <array>
#include <queue>
#include <vector>

#include "gpuvp/flat_map.h"
#include "fu.h"
#include "gpu_config.h"
#include "sm_core.h"

namespace gpuvp::sm {

class sm_core;

// The tag state of one L1D (kept by gpu_sim so that -gpgpu_flush_l1_cache 0 keeps it across
// kernels). Per line: tag, one bit per 32-byte sector that a load hits (VALID, or MODIFIED and
// readable), one per sector whose fill is pending (GPGPU-Sim's RESERVED sector: such a line is
// not replaced), one per sector a store wrote (MODIFIED) with the bytes it wrote (the lazy
// fetch-on-read write-allocate policy: a sector is readable once all 32 of its bytes are
// written), one per sector that a fill leaves MODIFIED (m_set_modified_on_fill: a store hit it
// while its fill was due, or a load missed it MODIFIED; else a fill makes it VALID), and its
// place in its set's LRU order: a list from the least recently used way (never-used ways first,
// lowest way first, as their equal oldest stamps order them in tag_array::probe) to the most
// recent.
struct l1_tags {
  static constexpr uint32_t none = ~0u;
  std::vector<uint64_t> tag;
  std::vector<uint8_t> valid, reserved, modified, modified_on_fill;
  std::vector<uint32_t> written;         // per line and sector (line * sectors + s): the bytes written
  std::vector<uint32_t> set_reserved;    // per set: its lines with a pending fill
  std::vector<uint32_t> older, newer;    // per line: its neighbours in its set's LRU list
  std::vector<uint32_t> oldest, newest;  // per set: the list's ends
  unsigned ways = 0, sectors = 4;
  // line -> its index in tag (every valid tag; a line is in at most one way): a lookup without
  // the scan of its set's ways.
  sector_map<uint32_t> where;
  void reset(unsigned sets, unsigned ways_per_set, unsigned sectors_per_line) {
    ways = ways_per_set;
    sectors = sectors_per_line;
    const size_t lines = size_t(sets) * ways;
    tag.assign(lines, ~0ull);
    valid.assign(lines, 0);
    reserved.assign(lines, 0);
    modified.assign(lines, 0);
    modified_on_fill.assign(lines, 0);
    written.assign(lines * sectors, 0);
    set_reserved.assign(sets, 0);
    older.resize(lines);
    newer.resize(lines);
    oldest.resize(sets);
    newest.resize(sets);
    for (size_t i = 0; i < lines; ++i) {
      older[i] = i % ways ? uint32_t(i - 1) : none;
      newer[i] = (i + 1) % ways ? uint32_t(i + 1) : none;
    }
    for (unsigned s = 0; s < sets; ++s) {
      oldest[s] = s * ways;
      newest[s] = s * ways + ways - 1;
    }
    where = sector_map<uint32_t>(2 * lines);
  }
  // Line i was used now: the most recent of its set.
  void touch(size_t i) {
    const unsigned s = unsigned(i / ways);
    if (newest[s] == i) return;
    const uint32_t o = older[i], n = newer[i];  // n != none: i is not the newest
    (o == none ? oldest[s] : newer[o]) = n;
    older[n] = o;
    older[i] = newest[s];
    newer[i] = none;
    newer[newest[s]] = uint32_t(i);
    newest[s] = uint32_t(i);
  }
  // tag_array::probe's victim in set s: the least recently used way without a pending fill
  // (none: every way has one).
  uint32_t victim(unsigned s) const {
    if (set_reserved[s] == ways) return none;
    uint32_t i = oldest[s];
    while (reserved[i]) i = newer[i];
    return i;
  }
};

// GPGPU-Sim's cache_reservation_fail_reason values that the L1D can hit.
enum class l1_fail : unsigned { mshr_entry, mshr_merge, miss_queue_full, line_alloc, n };

class ldst_unit : public stallable_unit, public mem_client {
 public:
  ldst_unit(sm_core& core, const gpu_config& cfg, l1_tags* tags);
  bool accepts(op_class op) const override { return op == op_class::mem; }
  bool can_issue(const warp_inst&) const override { return dispatch_reg_.empty(); }
  void issue(register_set& source, warp_inst& ready) override {
    simd_function_unit::issue(source, ready);
    prepared_ = false;
  }
  bool busy() const override {
    // (The memory's outstanding answers first: the common case of a memory-bound kernel.)
    return awaiting_ || in_pipe_ || !dispatch_reg_.empty() || !events_.empty() || !responses_.empty() || !cluster_fifo_.empty() ||
           !miss_queue_.empty() || wb_pending() || !smem_pipe_.empty();
  }
  void cycle() override;
  // For the SM's idle-cycle skip (sm_core::cycle). The earliest SM cycle after `after` (the last
  // cycle cycle() ran) in which cycle() has an event to deliver, a miss-queue request that may
  // leave or an access reaching the end of its L1 bank pipeline (UINT64_MAX: none); accesses that
  // reached it by `after` were tried then.
  uint64_t next_event_cycle(uint64_t after) const {
    // The answer kept by cycle() and mem_done() (no walk over the queues) when asked about the
    // last cycle cycle() ran.
    if (after == ran_) return next_event_;
    if (wb_pending() || bypass_pending() || !responses_.empty() || !cluster_fifo_.empty())
      return after + 1;  // the write-back stage / the bypass send / the response FIFOs work every cycle
    uint64_t t = std::min(events_.empty() ? UINT64_MAX : events_.top().at, std::max(after + 1, smem_ready()));
    if (!miss_queue_.empty()) t = std::min(t, miss_queue_.front().ready);
    return std::min(t, bank_event(after));
  }
  // Sizes of the state cycle() changes without counting an access: equal before and after a
  // cycle that made no access and had nothing due means cycle() changed nothing but counters.
  // Every such state belongs here.
  std::array<uint64_t, 3> state_summary() const {
    return {in_pipe_ | uint64_t(sectors_.size()) << 32,
            conflict_cycles_ | uint64_t(prepared_) << 32 | uint64_t(dispatch_reg_.valid) << 33 | uint64_t(responses_.size()) << 34 |
                uint64_t(cluster_fifo_.size()) << 48,
            events_.size() | uint64_t(miss_queue_.size()) << 32 | uint64_t(smem_pipe_.size()) << 48 | uint64_t(wb_pending()) << 63};
  }
  void mem_done(uint64_t addr, bool write, unsigned tag, uint64_t cycle) override;
  bool reply_fifo_full(uint64_t cycle) const override;
  // The L1I's miss-queue head (a sector read) through this cluster's crossbar input, handed over
  // in `sent` + 1; false: no room this cycle.
  bool icache_send(uint64_t addr, uint64_t sent);
  unsigned icnt_node() const override { return icnt_node_; }

 private:
  enum class ev : uint8_t { done, fill, ack, reply };  // reply: a bypassing load's access (key: slot)
  struct event {
    uint64_t at;
    ev kind;
    uint64_t key;       // slot (done, ack) or sector address (fill)
    uint32_t mshr = 0;  // a fill: its MSHR entry (mshr_pool_ index)
    // A total order (kind breaks a tie of key), so the FIFO and the heap agree on every pair.
    bool operator>(const event& o) const {
      if (at != o.at) return at > o.at;
      return key != o.key ? key > o.key : kind > o.kind;
    }
  };
  // The events by cycle (then key). Most come in that order (the memory answers in the order of
  // its cycles): those in order wait in a FIFO, only the others in a heap.
  class event_queue {
   public:
    bool empty() const { return in_order_.empty() && heap_.empty(); }
    size_t size() const { return in_order_.size() + heap_.size(); }
    const event& top() const {
      if (heap_.empty()) return in_order_.front();
      if (in_order_.empty() || in_order_.front() > heap_.top()) return heap_.top();
      return in_order_.front();
    }
    void pop() {
      if (!heap_.empty() && (in_order_.empty() || in_order_.front() > heap_.top()))
        heap_.pop();
      else
        in_order_.pop_front();
    }
    void push(const event& e) {
      if (in_order_.empty() || !(in_order_.back() > e))
        in_order_.push_back(e);
      else
        heap_.push(e);
    }

   private:
    ring<event> in_order_;
    std::priority_queue<event, std::vector<event>, std::greater<event>> heap_;
  };
  struct inflight {
    warp_inst inst;
    unsigned outstanding = 0;
  };
  struct request {
    uint64_t sector_addr, ready;  // leaves the miss queue at or after `ready`
    bool write;
    unsigned slot;     // store: the instruction to acknowledge; load: its MSHR entry (the memory's tag)
    uint32_t written;  // store: the sector's bytes it writes (bit i: byte i)
  };
  // A sector access in its L1 bank's latency pipeline (GPGPU-Sim's l1_latency_queue).
  struct pipe_entry {
    uint64_t sector, enter;  // sector address / 32; the cycle it entered the pipeline
    unsigned slot;
    uint32_t bytes;  // a store: the sector's bytes it writes (bit i: byte i)
    bool store;
  };
  struct l1_bank {
    ring<pipe_entry> pipe;    // oldest first
    uint64_t left = 0;        // the cycle the last access left stage 0, + 1
    uint64_t placed = ~0ull;  // the cycle an access last entered
    // The cycle the oldest access reaches stage 0 (UINT64_MAX: none): -gpgpu_l1_latency cycles
    // after it entered, and not before the cycle after its predecessor left.
    uint64_t arrival = UINT64_MAX;
    // The oldest access failed for `fail_cause` at generation `fail_gen` (tag_gen_ for an
    // MSHR_ENTRY_FAIL, else l1_gen_) and `fail_pops` miss-queue departures: repeats_fail.
    uint64_t fail_gen = ~0ull, fail_pops = 0;
    unsigned fail_cause = 0;
    // What the oldest access's last try found: its line's tag index (kept while the tag there is
    // still its line; else looked up again) and, for a load, that its sector had no MSHR entry,
    // which stays so while it is the oldest (only an access to that sector, in this bank, makes one).
    uint32_t line_idx = l1_tags::none;
    bool no_mshr = false;
    void pop_front(uint64_t now, unsigned latency) {
      pipe.pop_front();
      left = now + 1;
      arrival = pipe.empty() ? UINT64_MAX : std::max(pipe.front().enter + latency, left);
      fail_gen = ~0ull;
      line_idx = l1_tags::none;
      no_mshr = false;
    }
  };
  // The earliest cycle after `after` in which a bank's oldest access reaches stage 0.
  uint64_t bank_event(uint64_t after) const {
    uint64_t t = UINT64_MAX;
    for (const l1_bank& b : banks_)
      if (b.arrival > after) t = std::min(t, b.arrival);
    return t;
  }
  // ldst_unit::writeback: a load's L1 fill is written back one access a cycle, through the
  // operand collector's register banks.
  bool wb_pending() const { return wb_slot_ != ~0u || filled_head_ != mshr_none || next_global_ != ~0u; }
  // A global access of the dispatch register waits to go past the L1D (-gpgpu_gmem_skip_L1D).
  bool bypass_pending() const { return bypass_ && !sectors_.empty(); }
  void bypass_send(uint64_t now);
  // The cycle the shared-memory pipeline's oldest load can be taken (UINT64_MAX: none): it has
  // gone down the pipeline, and reached stage 0 no earlier than the cycle its predecessor left it.
  uint64_t smem_ready() const { return smem_pipe_.empty() ? UINT64_MAX : std::max(smem_pipe_.front().ready, smem_left_); }
  void writeback();
  // A read whose register the memory releases in `release` (uncontended) fills the L1 two
  // cycles before: the write-back stage takes it the next cycle and writes it back the one after.
  uint64_t fill_cycle(uint64_t release) const { return std::max(core_.cycle_ + 1, release - std::min<uint64_t>(release, 2)); }
  void prepare();
  bool linear_lanes(const warp_inst& w, unsigned width);  // prepare's common case (true: sectors_ made)
  unsigned new_slot(const warp_inst& w);
  // One of the slot's accesses (or its hold) is done; the last completes the instruction.
  void done_one(unsigned slot) {
    if (--slots_[slot].outstanding == 0) complete_slot(slot);
  }
  void complete_slot(unsigned slot);
  size_t find_line(uint64_t line) const {  // index in the tag arrays or SIZE_MAX
    const uint32_t* i = tags_->where.find(line);
    return i ? *i : SIZE_MAX;
  }
  // find_line through the bank's remembered index of its oldest access's line.
  size_t bank_line(l1_bank& b, uint64_t line) {
    if (b.line_idx == l1_tags::none || tags_->tag[b.line_idx] != line) {
      const size_t i = find_line(line);
      b.line_idx = i == SIZE_MAX ? l1_tags::none : uint32_t(i);
    }
    return b.line_idx == l1_tags::none ? SIZE_MAX : b.line_idx;
  }
  size_t allocate_line(uint64_t line);                               // SIZE_MAX: every way of the set has a pending fill
  bool store_access(l1_bank& b, const pipe_entry& a, uint64_t now);  // global_access's store part
  // A bank's oldest access that failed would fail again now for the same cause: nothing it
  // depends on changed since.
  bool repeats_fail(const l1_bank& b) const {
    if (b.fail_cause == unsigned(l1_fail::mshr_entry)) return b.fail_gen == tag_gen_ && mshrs_blocked();
    return b.fail_gen == l1_gen_ && (b.fail_pops == mq_pops_ || b.fail_cause != unsigned(l1_fail::miss_queue_full));
  }
  // A load with no MSHR entry for its sector fails for want of one (after the miss-queue test).
  bool mshrs_blocked() const { return mshrs_used_ >= cfg_.l1_mshrs && miss_queue_.size() + 1 < cfg_.mem.l1.miss_queue; }
  void run_banks(uint64_t now);
  void end_cycle(uint64_t now);  // keeps next_event_cycle's answer and whether the unit is quiet
  void repeat_cycle(uint64_t now);
  // cycle()'s parts, in order: the events due and the response FIFOs, the miss queue's request
  // (when one is ready), the dispatch register.
  bool events_due(uint64_t now) const { return !events_.empty() && events_.top().at <= now; }
  void take_events(uint64_t now);
  void take_response();
  void fill_sector(uint32_t mshr);  // tag_array::fill(index, ...): the index the miss took
  void send_miss(uint64_t now);
  bool shared_step(uint64_t now);
  bool global_step(uint64_t now);
  bool global_access(l1_bank& b, uint64_t now);  // the bank's oldest access; false: reservation fail

  sm_core& core_;
  const gpu_config& cfg_;
  l1_tags* tags_;
  const unsigned icnt_node_;  // this SM's cluster
  unsigned sector_shift_;     // log2 of the sectors in a line (a power of two, gpu_config)
  unsigned bank_mask_ = ~0u;  // L1 banks - 1 when a power of two (~0u: not)
  size_t bank_of(uint64_t sector) const { return bank_mask_ != ~0u ? sector & bank_mask_ : sector % banks_.size(); }
  event_queue events_;
  // The answers (fills, bypassing loads' accesses, store acknowledgements), oldest first: in the
  // cluster's response FIFO, then in the LDST unit's (take_events).
  struct response {
    ev kind;
    uint32_t mshr;  // a fill's MSHR entry
    uint64_t key;
  };
  ring<response> cluster_fifo_, responses_;
  bool serve(const response& r);  // take_response's part: false when r must wait
  // The cycles the memory's answers (mem_done) reach the cluster's FIFO, for those not there yet
  // (in order: the memory answers in the order of its cycles).
  ring<uint64_t> popped_;
  std::vector<inflight> slots_;
  std::vector<unsigned> free_slots_;
  using waiter_list = fifo_pool<unsigned>::list;
  // An MSHR entry: its sector, the waiting slots, oldest first (the first here, the others in
  // waiters_: most entries have one), and, from its miss until its fill, the L1 index (line) the
  // miss took (GPGPU-Sim's extra_mf_fields::m_cache_index), which its fill fills whatever line
  // holds it by then. The entry outlives the fill until its last waiter is taken, so a sector
  // has at most one miss outstanding. Entries live in mshr_pool_ and are passed by index: the
  // miss queue's request and the memory's tag carry it to the fill, the filled list to the
  // write-back stage.
  static constexpr uint32_t mshr_none = ~0u;
  struct mshr_entry {
    uint64_t sector = 0;
    unsigned count = 0, first = 0;
    waiter_list more;
    uint32_t index = l1_tags::none;
    uint32_t next_filled = mshr_none;  // the next entry in the filled list
    uint32_t mapped = mshr_none;       // its place in mshr_at_ (mshr_none: an orphan)
  };
  void add_waiter(mshr_entry& e, unsigned slot) {
    if (e.count++ == 0)
      e.first = slot;
    else
      waiters_.push_back(e.more, slot);
  }
  unsigned take_waiter(mshr_entry& e) {
    const unsigned slot = e.first;
    if (--e.count) e.first = waiters_.pop_front(e.more);
    return slot;
  }
  // The MSHR entry of `sector`, whose line is at tag index `idx` (SIZE_MAX: not present), or
  // nullptr. An entry is found through the tag index and sector of its line (mshr_at_) while the
  // line stays there; one whose line was evicted meanwhile (an orphan, rare: a store took the
  // pending sector, or the fill came, and the line was replaced) through a scan of the orphans.
  mshr_entry* find_mshr(uint64_t sector, size_t idx) {
    if (idx != SIZE_MAX) {
      const uint32_t m = mshr_at_[idx * tags_->sectors + (sector & (tags_->sectors - 1))];
      if (m != mshr_none) return &mshr_pool_[m];
    }
    for (uint32_t m : orphans_)
      if (mshr_pool_[m].sector == sector) return &mshr_pool_[m];
    return nullptr;
  }
  uint32_t new_mshr(uint64_t sector, uint32_t idx);  // a miss's entry, its line at tag index idx
  void erase_mshr(uint32_t m);
  void orphan_mshrs(uint32_t idx);  // the line at tag index idx is evicted
  std::vector<mshr_entry> mshr_pool_;
  std::vector<uint32_t> free_mshrs_, orphans_;
  std::vector<uint32_t> mshr_at_;  // per tag index and sector (idx * sectors + s): its entry or mshr_none
  unsigned mshrs_used_ = 0;
  fifo_pool<unsigned> waiters_;
  ring<request> miss_queue_;
  // The write-back stage (GPGPU-Sim's m_next_wb and the MSHR table's m_current_response): the
  // filled MSHR entries that still hold waiting accesses, oldest fill first (a list through
  // next_filled), and the access being written back (its instruction's slot; ~0u: none) with the
  // destinations that still need a register bank.
  uint32_t filled_head_ = mshr_none, filled_tail_ = mshr_none;
  unsigned wb_slot_ = ~0u;
  uint8_t wb_dsts_ = 0;
  // The write-back stage's clients in GPGPU-Sim's round robin (m_writeback_arb): 0 shared
  // memory, 1 texture, 2 constant, 3 uncached global, 4 L1D; this model has 0 and 4.
  static constexpr unsigned wb_clients = 5, wb_shared = 0, wb_global = 3, wb_l1d = 4;
  // Client 3 (m_next_global): the bypassing load access taken from the response FIFO (its
  // instruction's slot; ~0u: none); the FIFO takes no other until the write-back stage has it.
  unsigned next_global_ = ~0u;
  // mem_done's tag of a bypassing load's access: its slot with this bit (an L1 fill's read is 0).
  static constexpr unsigned bypass_tag = 1u << 31;
  static constexpr unsigned icache_tag = 1u << 30;  // an L1I read's tag
  bool bypass_ = false;                             // the dispatch register's instruction goes past the L1D
  unsigned segment_ = 32;                           // bypass_send's coalescing segment (32: one access per sector)
  unsigned wb_arb_ = 0;
  // Shared-memory loads in their -gpgpu_smem_latency pipeline (m_pipeline_reg), oldest first:
  // the instruction's slot and the cycle the write-back stage can take it from stage 0.
  struct smem_entry {
    unsigned slot;
    uint64_t ready;
  };
  ring<smem_entry> smem_pipe_;
  uint64_t smem_left_ = 0;  // the cycle after the last load left stage 0
  bool prepared_ = false;
  unsigned slot_ = 0;                   // inflight slot of the dispatch register's instruction
  std::vector<uint64_t> sectors_;       // global/local: sector accesses still to make (back = next)
  std::vector<uint32_t> sector_bytes_;  // a store: the bytes it writes in each of sectors_
  std::vector<l1_bank> banks_;          // -gpgpu_l1_banks latency pipelines
  l1_bank* full_bank_ = nullptr;        // the full bank the dispatch register's next access waits for
  unsigned in_pipe_ = 0;                // accesses in them
  unsigned conflict_cycles_ = 0;        // shared: cycles still to spend on bank conflicts
  unsigned awaiting_ = 0;               // accesses the memory answers later (mem_port::pending)
  // Generation of the state an L1 access's outcome depends on (tags, MSHRs, miss queue): counts
  // the successful accesses, fills and MSHR waiters taken (a failed access changes nothing). A
  // miss-queue departure (mq_pops_) only frees a miss-queue entry: it matters only to a
  // MISS_QUEUE_FULL failure.
  // tag_gen_ counts the tag changes that can turn a load's MSHR_ENTRY_FAIL into a hit or a
  // LINE_ALLOC_FAIL: a set's last way reserved, a store, a fill into a line that replaced the
  // miss's. Its sector has no MSHR entry (only its own bank makes one), so with those unchanged
  // it fails so again while the MSHRs are full and the miss queue is not (repeats_fail). A line
  // allocated is not one of them: its sectors are not valid, and a line it evicts (the failing
  // load's, absent again) fails LINE_ALLOC only once its set is all reserved, which counts.
  uint64_t l1_gen_ = 0, mq_pops_ = 0, tag_gen_ = 0;
  unsigned last_fail_ = 0;  // cause of global_access's last failure
  // next_event_cycle(ran_) as of the end of the last cycle() (lowered by mem_done), and the
  // first bank pipeline arrival after ran_.
  uint64_t ran_ = UINT64_MAX, next_event_ = UINT64_MAX, next_bank_ = UINT64_MAX;
  // run_banks' last pass: the fails by cause (16 bits each; at most 32 banks) and whether an
  // access was made. quiet_: the cycles before next_event_ repeat those fails (end_cycle).
  // banks_tag_gen_: tag_gen_ as that pass began.
  uint64_t bank_fails_ = 0, banks_tag_gen_ = 0;
  static_assert(16 * unsigned(l1_fail::n) <= 64, "bank_fails_ holds 16 bits per fail cause");
  bool banks_moved_ = false, quiet_ = false;
};

}  // namespace gpuvp::sm
