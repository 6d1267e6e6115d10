// SPDX-License-Identifier: Apache-2.0
#include "gpuvp/link_calendar.h"

#include <algorithm>

namespace gpuvp {

uint64_t link_calendar::book_in_gaps(uint64_t t, uint64_t occ, piece_list* pieces) {
  forget_past();  // search only what is remembered
  // The first interval starting after t; the one before it, if it holds t, pushes the start to its
  // end (intervals never touch).
  size_t lo = 0, hi = count_;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (at(mid).start <= t)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t next = lo;
  if (next != 0 && at(next - 1).end > t) t = at(next - 1).end;
  uint64_t end = t;
  while (occ) {
    // Free from t up to the next interval's start: take what fits, merging with the neighbours.
    const uint64_t gap = next == count_ ? ~uint64_t(0) - t : at(next).start - t;
    const uint64_t chunk = std::min(occ, gap);
    if (pieces) pieces->emplace_back(t, chunk);
    size_t cur;
    if (next != 0 && at(next - 1).end == t) {
      cur = next - 1;
      at(cur).end = t + chunk;
    } else {
      insert(next, interval{t, t + chunk});
      cur = next++;
    }
    if (next != count_ && at(cur).end == at(next).start) {  // the gap is full: continue after next
      at(cur).end = at(next).end;
      erase(next);
    }
    occ -= chunk;
    end = t + chunk;
    t = at(cur).end;
  }
  latest_ = std::max(latest_, end);
  forget_past();
  last_start_ = at(count_ - 1).start;
  return end;
}

// insert and erase move the intervals on the shorter side: the ring's front moves as well as its end.
void link_calendar::insert(size_t index, interval i) {
  if (index < count_ / 2) {
    first_ = (first_ - 1) & mask_;  // logical k now names the old k - 1
    for (size_t k = 0; k < index; ++k) at(k) = at(k + 1);
  } else {
    for (size_t k = count_; k > index; --k) at(k) = at(k - 1);
  }
  at(index) = i;
  if (++count_ == mask_) grow();  // keep one free slot
}

void link_calendar::erase(size_t index) {
  if (index < count_ / 2) {
    for (size_t k = index; k > 0; --k) at(k) = at(k - 1);
    first_ = (first_ + 1) & mask_;
  } else {
    for (size_t k = index; k + 1 < count_; ++k) at(k) = at(k + 1);
  }
  --count_;
}

// The ends increase along the ring (the intervals are disjoint and in order): a binary search finds
// the first one still remembered (a full ring may hold hundreds to forget).
void link_calendar::forget_past() {
  const uint64_t oldest = this->oldest();
  if (count_ == 0 || at(0).end >= oldest) return;
  size_t lo = 1, hi = count_;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (at(mid).end < oldest)
      lo = mid + 1;
    else
      hi = mid;
  }
  first_ = (first_ + lo) & mask_;
  count_ -= lo;
}

// Called with one free slot left: forgetting makes room, or growing leaves half of the ring free.
void link_calendar::make_room() {
  forget_past();
  if (count_ > mask_ / 2) grow();
}

void link_calendar::grow() {
  std::vector<interval> bigger(ring_.size() * 2);
  for (size_t k = 0; k < count_; ++k) bigger[k] = at(k);
  ring_.swap(bigger);
  mask_ = ring_.size() - 1;
  first_ = 0;
}

// Both walk back from the latest interval over those remembered (the front may hold forgotten ones).
uint64_t link_calendar::booked_after(uint64_t t) const {
  const uint64_t oldest = this->oldest();
  uint64_t sum = 0;
  for (size_t k = count_; k-- > 0 && at(k).end > t && at(k).end >= oldest;) sum += at(k).end - std::max(at(k).start, t);
  return sum;
}

size_t link_calendar::intervals() const {
  const uint64_t oldest = this->oldest();
  size_t n = 0;
  while (n < count_ && at(count_ - 1 - n).end >= oldest) ++n;
  return n;
}

}  // namespace gpuvp
