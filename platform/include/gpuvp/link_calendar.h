// SPDX-License-Identifier: Apache-2.0
// The booking calendar of one router link: its busy intervals [start, end) in kernel time units,
// disjoint and never adjacent (merged), remembered back to `horizon` before the latest end booked.
// A transfer takes the first free time at or after its arrival, split over the free gaps where one
// is too short (a link is one server: never two transfers at once).
// The intervals sit in time order in a ring: most bookings extend or follow the last interval
// (inline: no search, no allocation, nothing moved) and forgotten ones fall off the front. An
// arrival before the last interval's start (a temporally decoupled initiator behind the others)
// searches the ring and inserts, moving the intervals on the shorter side by one.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace gpuvp {

class link_calendar {
 public:
  using piece_list = std::vector<std::pair<uint64_t, uint64_t>>;  // (start, length) booked

  explicit link_calendar(uint64_t horizon) : horizon_(horizon), ring_(64) {}

  // Whether an arrival at t lies within the horizon: older ones are not queued (the caller counts
  // them stale and books nothing).
  bool remembers(uint64_t t) const { return !(latest_ > horizon_ && t < latest_ - horizon_); }

  // Books occ > 0 time units at or after t (remembers(t)); returns when the transfer ends. The
  // pieces booked are appended to *pieces when it is given (the trace draws them).
  [[gnu::always_inline]] uint64_t book(uint64_t t, uint64_t occ, piece_list* pieces) {
    // Members in locals: the stores below could alias them (all 64-bit integers).
    interval* const ring = ring_.data();
    const size_t mask = mask_, first = first_, count = count_;
    if (count == 0 || t < ring[(first + count - 1) & mask].start) return book_in_gaps(t, occ, pieces);
    interval& last = ring[(first + count - 1) & mask];  // ends latest
    if (last.end >= t) t = last.end;
    const uint64_t end = t + occ;
    size_t n = count;
    if (last.end == t) {
      last.end = end;
    } else {
      interval& added = ring[(first + n++) & mask];  // room: the ring is never full
      added.start = t;
      added.end = end;
    }
    if (pieces) pieces->emplace_back(t, occ);
    latest_ = end;
    // Forget the intervals ending before the horizon (each is dropped once).
    const uint64_t oldest = end > horizon_ ? end - horizon_ : 0;
    size_t f = first;
    while (n != 0 && ring[f].end < oldest) {
      f = (f + 1) & mask;
      --n;
    }
    first_ = f;
    count_ = n;
    if (n == mask) grow();  // keep one free slot
    return end;
  }

  // Booked time after t still in the calendar.
  uint64_t booked_after(uint64_t t) const;
  size_t intervals() const { return count_; }

 private:
  struct interval {
    uint64_t start, end;
  };
  interval& at(size_t i) { return ring_[(first_ + i) & mask_]; }
  const interval& at(size_t i) const { return ring_[(first_ + i) & mask_]; }
  // The general case: an empty calendar or an arrival before the last interval's start.
  uint64_t book_in_gaps(uint64_t t, uint64_t occ, piece_list* pieces);
  void insert(size_t index, interval i);
  void erase(size_t index);
  void forget_past();
  void grow();

  uint64_t horizon_, latest_ = 0;
  std::vector<interval> ring_;  // size a power of two, never full
  size_t mask_ = 63, first_ = 0, count_ = 0;
};

}  // namespace gpuvp
