// The LDST unit of one SM: shared memory, and the L1 data cache as GPGPU-Sim's -gpgpu_cache:dl1
// configures it (sectored lines, MSHRs with merging, a miss queue, write-through stores that
// complete when acknowledged). Internal to sm_core.
#pragma once
#include <cstdint>
#include <algorithm>
#include <deque>
#include <queue>
#include <unordered_map>
#include <vector>

#include "fu.h"
#include "gpu_config.h"
#include "sm_core.h"

namespace gpuvp::sm {

class sm_core;

// The tag state of one L1D (kept by gpu_sim so that -gpgpu_flush_l1_cache 0 keeps it across
// kernels). Per line: tag, LRU stamp and one valid bit per 32-byte sector.
struct l1_tags {
  std::vector<uint64_t> tag, lru;
  std::vector<uint8_t> valid;
  uint64_t stamp = 0;
  void reset(unsigned lines) {
    tag.assign(lines, ~0ull);
    lru.assign(lines, 0);
    valid.assign(lines, 0);
    stamp = 0;
  }
};

// GPGPU-Sim's cache_reservation_fail_reason values that the L1D can hit.
enum class l1_fail : unsigned { mshr_entry, mshr_merge, miss_queue_full, n };

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
    return !dispatch_reg_.empty() || !events_.empty() || !miss_queue_.empty() || awaiting_;
  }
  void cycle() override;
  // Earliest SM cycle in which cycle() has an event to deliver or a miss-queue request that may
  // leave (UINT64_MAX: none). The SM's idle-cycle skip wakes up then.
  uint64_t next_event_cycle() const {
    uint64_t t = events_.empty() ? UINT64_MAX : events_.top().at;
    if (!miss_queue_.empty()) t = std::min(t, miss_queue_.front().ready);
    return t;
  }
  void mem_done(uint64_t addr, bool write, unsigned tag, uint64_t cycle) override;

 private:
  enum class ev : uint8_t { done, fill, ack };
  struct event {
    uint64_t at;
    ev kind;
    uint64_t key;  // slot (done, ack) or sector address (fill)
    bool operator>(const event& o) const { return at != o.at ? at > o.at : key > o.key; }
  };
  struct inflight {
    warp_inst inst;
    unsigned outstanding = 0;
  };
  struct line_access {
    uint64_t line;
    uint8_t sectors;  // bit s: sector s of the line is touched
  };
  struct request {
    uint64_t sector_addr, ready;  // leaves the miss queue at or after `ready`
    bool write;
    unsigned slot;                // store: the instruction to acknowledge
  };
  void prepare();
  unsigned new_slot(const warp_inst& w);
  void done_one(unsigned slot);
  size_t queued_at(uint64_t now) const;
  size_t find_line(uint64_t line) const;  // index in the tag arrays or SIZE_MAX
  size_t allocate_line(uint64_t line);
  bool global_access(const line_access& a, bool store, uint64_t now);  // false: reservation fail

  sm_core& core_;
  const gpu_config& cfg_;
  l1_tags* tags_;
  std::priority_queue<event, std::vector<event>, std::greater<event>> events_;
  std::vector<inflight> slots_;
  std::vector<unsigned> free_slots_;
  std::unordered_map<uint64_t, std::vector<unsigned>> mshrs_;  // sector address -> waiting slots
  std::deque<request> miss_queue_;
  bool prepared_ = false;
  unsigned slot_ = 0;                  // inflight slot of the dispatch register's instruction
  std::vector<line_access> lines_;     // global/local: line accesses still to make (back = next)
  unsigned conflict_cycles_ = 0;       // shared: cycles still to spend on bank conflicts
  unsigned awaiting_ = 0;              // accesses the memory answers later (mem_port::pending)
};

}  // namespace gpuvp::sm
