// SPDX-License-Identifier: Apache-2.0
// gpuvp/flat_map.h: the sector map must behave as a map (find / insert / erase, whatever the
// probe runs look like, across growth) and the waiter pool must keep each list's order and reuse
// the nodes it gets back.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <map>
#include <random>
#include <vector>

#include "gpuvp/flat_map.h"

using namespace gpuvp;

TEST(sm_flat_map, sector_map_agrees_with_std_map) {
  sector_map<unsigned> m;  // starts at 16 slots: grows several times
  std::map<uint64_t, unsigned> ref;
  std::mt19937_64 rng(13);
  for (unsigned step = 0; step < 200000; ++step) {
    // Few distinct keys (dense clusters, many erases inside probe runs), sector-like addresses.
    const uint64_t k = 0x7f4000000000ull / 32 + rng() % 512;
    switch (rng() % 3) {
      case 0: {
        auto [v, fresh] = m.try_emplace(k);
        EXPECT_EQ(fresh, ref.count(k) == 0);
        if (fresh) {
          EXPECT_EQ(*v, 0u);  // a new value is default-constructed
        }
        *v = unsigned(step);
        ref[k] = unsigned(step);
        break;
      }
      case 1:
        if (unsigned* v = m.find(k)) {
          ASSERT_TRUE(ref.count(k));
          m.erase(v);
          ref.erase(k);
        } else {
          EXPECT_EQ(ref.count(k), 0u);
        }
        break;
      default: {
        const unsigned* v = m.find(k);
        ASSERT_EQ(v != nullptr, ref.count(k) == 1);
        if (v) {
          EXPECT_EQ(*v, ref[k]);
        }
      }
    }
    ASSERT_EQ(m.size(), ref.size());
  }
  for (auto& [k, v] : ref) {  // every survivor still found with its value
    const unsigned* f = m.find(k);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(*f, v);
  }
  m.clear();
  EXPECT_TRUE(m.empty());
  EXPECT_EQ(m.find(ref.begin()->first), nullptr);
}

TEST(sm_flat_map, fifo_pool_keeps_order_and_reuses_nodes) {
  fifo_pool<unsigned> pool;
  fifo_pool<unsigned>::list a, b;
  for (unsigned i = 0; i < 3; ++i) {
    pool.push_back(a, 10 + i);
    pool.push_back(b, 20 + i);
  }
  EXPECT_EQ(a.count, 3u);
  std::vector<unsigned> out;
  pool.drain(a, out);
  EXPECT_EQ(out, (std::vector<unsigned>{10, 11, 12}));
  EXPECT_EQ(a.count, 0u);
  EXPECT_EQ(a.head, fifo_pool<unsigned>::nil);
  // a's three nodes come back for the next list: b is untouched
  fifo_pool<unsigned>::list c;
  for (unsigned i = 0; i < 4; ++i) pool.push_back(c, 30 + i);
  out.clear();
  pool.drain(b, out);
  EXPECT_EQ(out, (std::vector<unsigned>{20, 21, 22}));
  out.clear();
  pool.drain(c, out);
  EXPECT_EQ(out, (std::vector<unsigned>{30, 31, 32, 33}));
  out.clear();
  pool.drain(c, out);  // an empty list drains to nothing
  EXPECT_TRUE(out.empty());
}

// ring<T> against std::deque over a random mix of pushes, pops and in-order inserts that wraps
// its head round the buffer and grows it several times.
TEST(sm_flat_map, ring_matches_a_deque) {
  ring<uint64_t> r;
  std::deque<uint64_t> ref;
  std::mt19937_64 rng(7);
  for (unsigned step = 0; step < 20000; ++step) {
    const unsigned op = unsigned(rng() % 8);
    if (op < 3 || ref.empty()) {
      r.push_back(step);
      ref.push_back(step);
    } else if (op < 6) {
      ASSERT_EQ(r.front(), ref.front());
      r.pop_front();
      ref.pop_front();
    } else if (op == 6) {  // insert before the last k elements
      const size_t k = size_t(rng() % (ref.size() + 1));
      r.insert(r.end() - ptrdiff_t(k), step);
      ref.insert(ref.end() - ptrdiff_t(k), step);
    } else {
      ASSERT_EQ(r.back(), ref.back());
      r.pop_back();
      ref.pop_back();
    }
    ASSERT_EQ(r.size(), ref.size());
    ASSERT_EQ(r.empty(), ref.empty());
  }
  ASSERT_TRUE(std::equal(r.begin(), r.end(), ref.begin(), ref.end()));
  for (size_t i = 0; i < ref.size(); ++i) ASSERT_EQ(r[i], ref[i]);
  // ordered search through its iterators (as the L2 -> icnt queue's bound uses it)
  ring<unsigned> q;
  for (unsigned v : {1u, 3u, 3u, 5u}) q.push_back(v);
  EXPECT_EQ(std::upper_bound(q.begin(), q.end(), 3u) - q.begin(), 3);
  // a moved-from ring is empty and usable
  ring<unsigned> m = std::move(q);
  EXPECT_EQ(m.size(), 4u);
  EXPECT_TRUE(q.empty());
  q.push_back(9);
  EXPECT_EQ(q.front(), 9u);
  q = std::move(m);
  EXPECT_EQ(q.size(), 4u);
  EXPECT_EQ(q.back(), 5u);
  EXPECT_TRUE(m.empty());
  m.clear();
  m.emplace_back(2u);
  EXPECT_EQ(m.front(), 2u);
}
