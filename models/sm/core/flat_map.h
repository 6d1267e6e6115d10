// SPDX-License-Identifier: Apache-2.0
// Flat containers for the memory model's hot paths (internal to the SM model):
// - sector_map<V>: a hash map from a 64-bit key (a sector address; never ~0) to V, open
//   addressing with linear probing in a power-of-two table (load <= 1/2), backward-shift erase
//   (no tombstones). No iteration: results cannot depend on the hashing.
// - fifo_pool<T>: FIFO lists of T (MSHR waiters) sharing one node vector with a free list, so
//   adding and dropping waiters does not allocate once the pool has grown.
#pragma once
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace gpuvp::sm {

template <class V>
class sector_map {
 public:
  static constexpr uint64_t empty_key = ~0ull;
  sector_map() { rebuild(16); }
  explicit sector_map(size_t capacity) { rebuild(capacity); }
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  // The value of `k`, or nullptr. Valid until the next try_emplace or erase.
  V* find(uint64_t k) {
    for (size_t i = index(k);; i = (i + 1) & mask_) {
      if (keys_[i] == k) return &vals_[i];
      if (keys_[i] == empty_key) return nullptr;
    }
  }
  // The value of `k` (default-constructed if new) and whether it is new.
  std::pair<V*, bool> try_emplace(uint64_t k) {
    if (2 * (n_ + 1) > keys_.size()) grow();
    size_t i = index(k);
    for (; keys_[i] != empty_key; i = (i + 1) & mask_)
      if (keys_[i] == k) return {&vals_[i], false};
    keys_[i] = k;
    vals_[i] = V{};
    ++n_;
    return {&vals_[i], true};
  }
  // Removes `k`, which must be present (v: its value from find / try_emplace).
  void erase(V* v) {
    size_t i = size_t(v - vals_.data());
    // Backward-shift deletion: later entries of the probe run move into the hole when their home
    // slot is not in (hole, their slot].
    for (size_t j = (i + 1) & mask_; keys_[j] != empty_key; j = (j + 1) & mask_) {
      const size_t home = index(keys_[j]);
      if (((j - home) & mask_) >= ((j - i) & mask_)) {
        keys_[i] = keys_[j];
        vals_[i] = std::move(vals_[j]);
        i = j;
      }
    }
    keys_[i] = empty_key;
    --n_;
  }
  void clear() {
    std::fill(keys_.begin(), keys_.end(), empty_key);
    n_ = 0;
  }

 private:
  size_t index(uint64_t k) const { return size_t((k * 0x9e3779b97f4a7c15ull) >> shift_); }
  void rebuild(size_t capacity) {
    size_t c = 16;
    unsigned bits = 4;
    while (c < capacity) {
      c <<= 1;
      ++bits;
    }
    keys_.assign(c, empty_key);
    vals_.assign(c, V{});
    mask_ = c - 1;
    shift_ = 64 - bits;
    n_ = 0;
  }
  void grow() {
    std::vector<uint64_t> keys = std::move(keys_);
    std::vector<V> vals = std::move(vals_);
    rebuild(keys.size() * 2);
    for (size_t i = 0; i < keys.size(); ++i)
      if (keys[i] != empty_key) *try_emplace(keys[i]).first = std::move(vals[i]);
  }
  std::vector<uint64_t> keys_;
  std::vector<V> vals_;
  size_t mask_ = 0, n_ = 0;
  unsigned shift_ = 0;
};

template <class T>
class fifo_pool {
 public:
  static constexpr uint32_t nil = ~0u;
  struct list {
    uint32_t head = nil, tail = nil, count = 0;
  };
  void push_back(list& l, const T& v) {
    uint32_t n;
    if (free_ != nil) {
      n = free_;
      free_ = nodes_[n].next;
    } else {
      n = uint32_t(nodes_.size());
      nodes_.emplace_back();
    }
    nodes_[n] = {v, nil};
    if (l.tail == nil) l.head = n;
    else nodes_[l.tail].next = n;
    l.tail = n;
    ++l.count;
  }
  // Appends l's values in order to `out`, then gives its nodes back; l becomes empty.
  template <class Out>
  void drain(list& l, Out& out) {
    for (uint32_t n = l.head; n != nil;) {
      out.push_back(nodes_[n].v);
      const uint32_t next = nodes_[n].next;
      nodes_[n].next = free_;
      free_ = n;
      n = next;
    }
    l = list{};
  }
  // Removes and returns l's first value (l must not be empty).
  T pop_front(list& l) {
    const uint32_t n = l.head;
    const T v = nodes_[n].v;
    l.head = nodes_[n].next;
    if (l.head == nil) l.tail = nil;
    nodes_[n].next = free_;
    free_ = n;
    --l.count;
    return v;
  }
  void clear() {
    nodes_.clear();
    free_ = nil;
  }

 private:
  struct node {
    T v;
    uint32_t next;
  };
  std::vector<node> nodes_;
  uint32_t free_ = nil;
};

}  // namespace gpuvp::sm
