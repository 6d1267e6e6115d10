// SPDX-License-Identifier: Apache-2.0
// sm-run --mem-log: the memory system's hand-offs of every sector request (INJ, L2, DQ, ACT, RD,
// RSP), one CSV line each in the columns of Accel-Sim's calibration event files
// (event,cycle,unit,addr,f5,f6,f7; cycle = gpu_sim_cycle of the running kernel). Kept per kernel
// (at most `limit`, the rest counted) and written sorted by cycle, stably (one cycle's events in
// the order the model made them). Single-threaded only. The fields of each kind:
// docs/models/gpu_memory.md, "Event log".
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

namespace gpuvp::gpu_memory {

class mem_event_log {
 public:
  enum kind : uint8_t { INJ, L2, DQ, ACT, RD, RSP };
  explicit mem_event_log(uint64_t limit) : limit_(limit) {}
  void add(kind k, uint64_t cycle, unsigned unit, uint64_t addr, uint64_t f5, uint64_t f6, uint64_t f7 = 0) {
    if (ev_.size() >= limit_) {
      ++dropped_;
      return;
    }
    ev_.push_back({cycle, addr, f5, f6, f7, unit, k});
  }
  // Writes the kernel's events (sorted by cycle) after a "# kernel N name" line, and forgets them.
  void flush(std::ostream& os, unsigned kernel, const std::string& name) {
    std::stable_sort(ev_.begin(), ev_.end(), [](const event& a, const event& b) { return a.cycle < b.cycle; });
    os << "# kernel " << kernel << " " << name << "\n";
    static const char* const names[] = {"INJ", "L2", "DQ", "ACT", "RD", "RSP"};
    char line[160];
    for (const event& e : ev_) {
      const unsigned long long c = e.cycle, a = e.addr, f5 = e.f5, f6 = e.f6, f7 = e.f7;
      switch (e.k) {
        case INJ:
          std::snprintf(line, sizeof line, "%s,%llu,%u,%llx,%llx,%llu,%llu\n", names[e.k], c, e.unit, a, f5, f6, f7);
          break;
        case L2:
          std::snprintf(line, sizeof line, "%s,%llu,%u,%llx,%llx,%llu,\n", names[e.k], c, e.unit, a, f5, f6);
          break;
        case ACT:
          std::snprintf(line, sizeof line, "%s,%llu,%u,%llu,%llu,%llu,\n", names[e.k], c, e.unit, f5, f6, f7);
          break;
        case RSP:
          std::snprintf(line, sizeof line, "%s,%llu,%u,%llx,%llx,,\n", names[e.k], c, e.unit, a, f5);
          break;
        default:
          std::snprintf(line, sizeof line, "%s,%llu,%u,%llx,%llu,%llu,\n", names[e.k], c, e.unit, a, f5, f6);
          break;
      }
      os << line;
    }
    if (dropped_) os << "# " << dropped_ << " more events not logged (limit " << limit_ << " a kernel)\n";
    ev_.clear();
    dropped_ = 0;
  }
  uint64_t size() const { return ev_.size(); }

 private:
  struct event {
    uint64_t cycle, addr, f5, f6, f7;
    unsigned unit;
    kind k;
  };
  uint64_t limit_, dropped_ = 0;
  std::vector<event> ev_;
};

}  // namespace gpuvp::gpu_memory
