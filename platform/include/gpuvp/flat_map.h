// SPDX-License-Identifier: Apache-2.0
// Flat containers for hot paths (the SMs' and the GPU memory system's queues and maps):
// - sector_map<V>: a hash map from a 64-bit key (a sector address; never ~0) to V, open
//   addressing with linear probing in a power-of-two table (load <= 1/2), backward-shift erase
//   (no tombstones). No iteration: results cannot depend on the hashing.
// - fifo_pool<T>: FIFO lists of T (MSHR waiters) sharing one node vector with a free list, so
//   adding and dropping waiters does not allocate once the pool has grown.
// - ring<T>: a FIFO queue in one power-of-two vector (the model's queues and pipelines): size()
//   is a load (std::deque's walks its node pointers, and the queues' bounds ask it every cycle).
//   Unlike std::deque, a push may move every element: hold no reference across one.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <utility>
#include <vector>

namespace gpuvp {

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
    if (l.tail == nil)
      l.head = n;
    else
      nodes_[l.tail].next = n;
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

template <class T>
class ring {
  template <class R, class V>
  struct iter {
    using iterator_category = std::random_access_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = V*;
    using reference = V&;
    R* r = nullptr;
    size_t i = 0;
    V& operator*() const { return (*r)[i]; }
    V* operator->() const { return &(*r)[i]; }
    V& operator[](difference_type d) const { return (*r)[size_t(difference_type(i) + d)]; }
    iter& operator++() { return ++i, *this; }
    iter& operator--() { return --i, *this; }
    iter operator++(int) { return {r, i++}; }
    iter operator--(int) { return {r, i--}; }
    iter& operator+=(difference_type d) { return i = size_t(difference_type(i) + d), *this; }
    iter& operator-=(difference_type d) { return i = size_t(difference_type(i) - d), *this; }
    friend iter operator+(iter a, difference_type d) { return a += d; }
    friend iter operator+(difference_type d, iter a) { return a += d; }
    friend iter operator-(iter a, difference_type d) { return a -= d; }
    friend difference_type operator-(const iter& a, const iter& b) { return difference_type(a.i) - difference_type(b.i); }
    friend bool operator==(const iter& a, const iter& b) { return a.i == b.i; }
    friend auto operator<=>(const iter& a, const iter& b) { return a.i <=> b.i; }
  };

 public:
  using value_type = T;
  using iterator = iter<ring, T>;
  using const_iterator = iter<const ring, const T>;
  ring() = default;
  ring(const ring&) = default;
  ring& operator=(const ring&) = default;
  ring(ring&& o) noexcept : buf_(std::move(o.buf_)), head_(o.head_), n_(o.n_), mask_(o.mask_) {
    o.buf_.clear(), o.head_ = o.n_ = o.mask_ = 0;
  }
  ring& operator=(ring&& o) noexcept {
    buf_.swap(o.buf_);
    std::swap(head_, o.head_);
    std::swap(n_, o.n_);
    std::swap(mask_, o.mask_);
    o.clear();
    return *this;
  }
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  T& operator[](size_t i) { return buf_[(head_ + i) & mask_]; }
  const T& operator[](size_t i) const { return buf_[(head_ + i) & mask_]; }
  T& front() { return buf_[head_]; }
  const T& front() const { return buf_[head_]; }
  T& back() { return (*this)[n_ - 1]; }
  const T& back() const { return (*this)[n_ - 1]; }
  void push_back(const T& v) {
    if (n_ == buf_.size()) grow();
    buf_[(head_ + n_) & mask_] = v;
    ++n_;
  }
  template <class... A>
  T& emplace_back(A&&... a) {
    if (n_ == buf_.size()) grow();
    T& x = buf_[(head_ + n_) & mask_];
    x = T{std::forward<A>(a)...};
    ++n_;
    return x;
  }
  // Inserts v before pos (the elements from pos on move back by one: cheap near the end).
  template <class It>
  iterator insert(It pos, const T& v) {
    const size_t at = pos.i;
    push_back(v);
    for (size_t i = n_ - 1; i > at; --i) (*this)[i] = std::move((*this)[i - 1]);
    (*this)[at] = v;
    return {this, at};
  }
  void pop_front() {
    head_ = (head_ + 1) & mask_;
    --n_;
  }
  void pop_back() { --n_; }
  void clear() { head_ = n_ = 0; }
  iterator begin() { return {this, 0}; }
  iterator end() { return {this, n_}; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, n_}; }

 private:
  void grow() {
    std::vector<T> b(std::max<size_t>(16, 2 * buf_.size()));
    for (size_t i = 0; i < n_; ++i) b[i] = std::move((*this)[i]);
    buf_.swap(b);
    head_ = 0;
    mask_ = buf_.size() - 1;
  }
  std::vector<T> buf_;
  size_t head_ = 0, n_ = 0, mask_ = 0;
};

}  // namespace gpuvp
