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
    if (t > latest_) {  // after everything booked: a new interval
      add_last(t, occ);
      if (count_ == mask_) make_room();  // keep a free slot for insert()
    } else if (t >= last_start_) {       // queue behind the last interval, extending it
      t = latest_;
      latest_ = t + occ;
      ring_[(first_ + count_ - 1) & mask_].end = latest_;
    } else {
      return book_in_gaps(t, occ, pieces);  // also when empty and t is 0 (last_start_ max)
    }
    if (pieces) pieces->emplace_back(t, occ);
    return latest_;
  }
  // The router's common case, without a call: an arrival after everything booked (so remembered)
  // while the ring has room; append() then books as book() would.
  bool can_append(uint64_t t) const { return t > latest_ && count_ + 1 < mask_; }
  uint64_t append(uint64_t t, uint64_t occ) {
    add_last(t, occ);
    return latest_;
  }

  // Booked time after t still in the calendar.
  uint64_t booked_after(uint64_t t) const;
  // Intervals remembered.
  size_t intervals() const;

 private:
  struct interval {
    uint64_t start, end;
  };
  void add_last(uint64_t t, uint64_t occ) {  // t > latest_, a free slot after the last
    ring_[(first_ + count_) & mask_] = {t, t + occ};
    last_start_ = t;
    latest_ = t + occ;
    ++count_;
  }
  interval& at(size_t i) { return ring_[(first_ + i) & mask_]; }
  const interval& at(size_t i) const { return ring_[(first_ + i) & mask_]; }
  // The general case: an empty calendar or an arrival before the last interval's start.
  uint64_t book_in_gaps(uint64_t t, uint64_t occ, piece_list* pieces);
  void insert(size_t index, interval i);
  void erase(size_t index);
  // Intervals ending before the horizon are forgotten lazily (the fast path drops none): when the
  // ring is full and before any search, so that what the calendar answers is the same.
  uint64_t oldest() const { return latest_ > horizon_ ? latest_ - horizon_ : 0; }
  void forget_past();
  void make_room();
  void grow();

  uint64_t horizon_, latest_ = 0;
  uint64_t last_start_ = ~uint64_t(0);  // the last interval's start; max when there is none
  std::vector<interval> ring_;          // size a power of two, never full
  size_t mask_ = 63, first_ = 0, count_ = 0;
};

}  // namespace gpuvp
