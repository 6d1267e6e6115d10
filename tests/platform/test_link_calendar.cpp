// SPDX-License-Identifier: Apache-2.0
// The router's booking calendar against a brute-force model: one flag per time unit (busy or
// free). A transfer of `occ` units arriving at t takes the first `occ` free units at or after t;
// its pieces are the runs of units it took. The calendar remembers the maximal busy runs that end
// at or after latest - horizon (latest: the last end booked); an arrival before that is not
// booked. Random arrivals around the calendar's end (temporally decoupled initiators) and far
// behind it cover the ring's insertions at both ends, merges, growth and forgetting.
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>
#include <gtest/gtest.h>
#include "gpuvp/link_calendar.h"

using gpuvp::link_calendar;

namespace {
struct unit_model {
  explicit unit_model(uint64_t horizon) : horizon(horizon) {}
  uint64_t horizon, latest = 0;
  std::vector<bool> busy;
  bool remembers(uint64_t t) const { return !(latest > horizon && t < latest - horizon); }
  uint64_t book(uint64_t t, uint64_t occ, link_calendar::piece_list& pieces) {
    uint64_t end = t;
    for (; occ; ++t) {
      if (t >= busy.size()) busy.resize(t + 1024, false);
      if (busy[t]) continue;
      busy[t] = true;
      if (!pieces.empty() && pieces.back().first + pieces.back().second == t)
        ++pieces.back().second;
      else
        pieces.emplace_back(t, 1);
      --occ;
      end = t + 1;
    }
    latest = std::max(latest, end);
    return end;
  }
  // Busy units at or after t in the runs still remembered, and how many such runs there are.
  uint64_t booked_after(uint64_t t, size_t* runs = nullptr) const {
    const uint64_t oldest = latest > horizon ? latest - horizon : 0;
    uint64_t sum = 0;
    size_t remembered = 0;
    for (uint64_t u = 0; u < busy.size();) {
      if (!busy[u]) {
        ++u;
        continue;
      }
      uint64_t run_end = u;
      while (run_end < busy.size() && busy[run_end]) ++run_end;
      if (run_end >= oldest) {
        ++remembered;
        for (uint64_t k = std::max(u, t); k < run_end; ++k) ++sum;
      }
      u = run_end;
    }
    if (runs) *runs = remembered;
    return sum;
  }
};

// Books the same random arrivals in both: each up to `ahead` after the latest end booked or up to
// `behind` before it (a decoupled initiator behind the others), `occ` of 1 to max_occ units.
void compare_with_model(uint64_t horizon, uint64_t ahead, uint64_t behind, uint64_t max_occ, unsigned seed) {
  link_calendar cal(horizon);
  unit_model model(horizon);
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 3000; ++i) {
    const uint64_t back = rng() % (behind + 1);
    const uint64_t t = model.latest + rng() % (ahead + 1) - std::min(back, model.latest);
    const uint64_t occ = 1 + rng() % max_occ;
    ASSERT_EQ(cal.remembers(t), model.remembers(t)) << "arrival " << i << " at " << t;
    if (!model.remembers(t)) continue;
    link_calendar::piece_list got, want;
    const uint64_t end = cal.book(t, occ, &got);
    ASSERT_EQ(end, model.book(t, occ, want)) << "arrival " << i << " at " << t << " for " << occ;
    ASSERT_EQ(got, want) << "arrival " << i;
    if (i % 53 == 0) {
      const uint64_t probe = model.latest - std::min<uint64_t>(rng() % (2 * horizon), model.latest);
      size_t runs = 0;
      ASSERT_EQ(cal.booked_after(probe), model.booked_after(probe, &runs)) << "after " << probe << ", arrival " << i;
      ASSERT_EQ(cal.intervals(), runs) << "arrival " << i;
    }
  }
}
}  // namespace

TEST(link_calendar, an_arrival_after_the_last_transfer_queues_behind_it_or_starts_at_once) {
  link_calendar cal(1000);
  link_calendar::piece_list pieces;
  EXPECT_EQ(cal.book(10, 5, &pieces), 15u);  // free: at once
  EXPECT_EQ(cal.book(12, 4, &pieces), 19u);  // 10..15 busy: waits 3, then 4
  EXPECT_EQ(cal.book(30, 2, &pieces), 32u);  // after a gap
  EXPECT_EQ(pieces, (link_calendar::piece_list{{10, 5}, {15, 4}, {30, 2}}));
  EXPECT_EQ(cal.intervals(), 2u);  // 10..19 merged, 30..32
  EXPECT_EQ(cal.booked_after(0), 11u);
  EXPECT_EQ(cal.booked_after(18), 3u);
}

TEST(link_calendar, an_earlier_arrival_is_split_over_the_free_gaps) {
  link_calendar cal(1000);
  link_calendar::piece_list pieces;
  cal.book(10, 2, nullptr);  // 10..12
  cal.book(14, 2, nullptr);  // 14..16
  cal.book(20, 2, nullptr);  // 20..22
  // 9 units from 8: 8..10, 12..14, 16..20, then 22..23.
  EXPECT_EQ(cal.book(8, 9, &pieces), 23u);
  EXPECT_EQ(pieces, (link_calendar::piece_list{{8, 2}, {12, 2}, {16, 4}, {22, 1}}));
  EXPECT_EQ(cal.intervals(), 1u);  // 8..23, all merged
  EXPECT_EQ(cal.booked_after(0), 15u);
}

TEST(link_calendar, what_lies_beyond_the_horizon_is_forgotten_and_not_queued) {
  link_calendar cal(100);
  cal.book(0, 10, nullptr);    // 0..10
  cal.book(200, 10, nullptr);  // latest 210: remembered from 110 on
  EXPECT_FALSE(cal.remembers(109));
  EXPECT_TRUE(cal.remembers(110));
  EXPECT_EQ(cal.intervals(), 1u);       // 0..10 ended before 110
  EXPECT_EQ(cal.booked_after(0), 10u);  // only 200..210
}

TEST(link_calendar, matches_a_unit_by_unit_model_around_the_end) {
  for (unsigned seed = 1; seed <= 4; ++seed) compare_with_model(256, 12, 30, 3, seed);
}

TEST(link_calendar, matches_a_unit_by_unit_model_far_behind_the_end_and_across_the_horizon) {
  for (unsigned seed = 1; seed <= 4; ++seed) compare_with_model(512, 8, 600, 4, seed);
}

TEST(link_calendar, matches_a_unit_by_unit_model_with_a_backlog_longer_than_the_horizon) {
  compare_with_model(64, 0, 200, 30, 7);  // arrivals at or before the end: one long busy run
}

TEST(link_calendar, an_insertion_after_the_ring_fills_up_keeps_every_interval) {
  // 63 transfers apart fill the first ring (64 slots) up to its last free slot; one between two of
  // them and one after the last then need room (regression: the fast path once left no free slot
  // for the insertion, which then overwrote the oldest interval).
  link_calendar cal(1 << 20);
  for (uint64_t k = 1; k <= 63; ++k) cal.book(10 * k, 1, nullptr);
  EXPECT_EQ(cal.book(15, 1, nullptr), 16u);
  EXPECT_EQ(cal.book(1000, 1, nullptr), 1001u);
  EXPECT_EQ(cal.intervals(), 65u);
  EXPECT_EQ(cal.booked_after(0), 65u);
  EXPECT_EQ(cal.book(10, 1, nullptr), 12u);  // the oldest, 10..11, still booked
}

TEST(link_calendar, append_takes_only_an_arrival_after_everything_booked_while_the_ring_has_room) {
  link_calendar cal(1 << 20);
  EXPECT_FALSE(cal.can_append(0));  // empty: 0 is not after the latest end (0)
  EXPECT_TRUE(cal.can_append(1));
  EXPECT_EQ(cal.append(10, 5), 15u);
  EXPECT_FALSE(cal.can_append(15));  // would touch 10..15: book() extends it
  EXPECT_FALSE(cal.can_append(12));
  // 61 more intervals make 62 of the ring's 64 slots: the 63rd would leave no free slot for an
  // insertion, so append declines it and book() makes room.
  for (uint64_t k = 2; k <= 62; ++k) {
    ASSERT_TRUE(cal.can_append(10 * k)) << k;
    cal.append(10 * k, 1);
  }
  EXPECT_FALSE(cal.can_append(1000));
  EXPECT_EQ(cal.book(1000, 1, nullptr), 1001u);
  EXPECT_TRUE(cal.can_append(1010));  // the ring grew
  // What append booked is booked: 5 + 61 + 1 units; 7 arriving at 11 wait for 10..15, take
  // 15..20, pass 20..21 and end at 23.
  EXPECT_EQ(cal.intervals(), 63u);
  EXPECT_EQ(cal.booked_after(0), 67u);
  link_calendar::piece_list pieces;
  EXPECT_EQ(cal.book(11, 7, &pieces), 23u);
  EXPECT_EQ(pieces, (link_calendar::piece_list{{15, 5}, {21, 2}}));
}
