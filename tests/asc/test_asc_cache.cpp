// SPDX-License-Identifier: Apache-2.0
// The ASC's L1 data cache driven through its sockets: a test initiator (standing in for the UAT,
// attaching the leaf PTE as uat::xlat_ext) on `in`, a sparse memory (DRAM) on `out`. Expected
// values worked out from the geometry: line 64 bytes; set = (PA / 64) % sets; LRU within a set.
#include <cstring>
#include <gtest/gtest.h>
#include "asc_cache.h"
#include "gpuvp/config.h"
#include "gpuvp/extension.h"
#include "gpuvp/memory.h"
#include "testing.h"
#include "uat.h"

using namespace gpuvp;
using asc::asc_cache;
using asc::maint_op;

namespace {
constexpr uint64_t normal = 0x00C0000000000443ull & ~uint64_t(7 << 2);             // AttrIndex 0 (Normal, cached)
constexpr uint64_t shared = (0x00C0000000000443ull & ~uint64_t(7 << 2)) | 2 << 2;  // AttrIndex 2 (uncached)

struct cache_test : gpuvp::testing::sim_test {
  std::unique_ptr<asc_cache> cache;
  std::unique_ptr<sparse_memory> mem;
  std::unique_ptr<gpuvp::testing::test_initiator> ini;
  void build(uint64_t sets = 64, uint64_t ways = 4) {
    config::global().set("c.sets", std::to_string(sets), "test");
    config::global().set("c.ways", std::to_string(ways), "test");
    config::global().set("m.size", "0x100000", "test");
    cache = std::make_unique<asc_cache>("c");
    mem = std::make_unique<sparse_memory>("m");
    ini = std::make_unique<gpuvp::testing::test_initiator>("ini");
    ini->out.bind(cache->in);
    cache->out.bind(mem->in);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
  // An access as the UAT passes it on: PA with the leaf PTE attached.
  tlm::tlm_response_status acc(tlm::tlm_command cmd, uint64_t pa, void* d, unsigned n, uint64_t pte, bool xlat = true,
                               const maint_op* m = nullptr) {
    transaction t(cmd, pa, d, n);
    uat::xlat_ext x;
    x.pte = pte;
    x.va = 0xffffffa000000000ull + pa;
    asc::asc_maint mx;
    if (xlat) t.gp.set_extension(&x);
    if (m) mx.op = *m, t.gp.set_extension(&mx);
    sc_core::sc_time d0;
    ini->out->b_transport(t.gp, d0);
    if (xlat) t.gp.clear_extension(&x);
    if (m) t.gp.clear_extension(&mx);
    return t.gp.get_response_status();
  }
  uint64_t rd(uint64_t pa, uint64_t pte = normal) {
    uint64_t v = 0;
    EXPECT_EQ(acc(tlm::TLM_READ_COMMAND, pa, &v, 8, pte), tlm::TLM_OK_RESPONSE);
    return v;
  }
  void wr(uint64_t pa, uint64_t v, uint64_t pte = normal) { EXPECT_EQ(acc(tlm::TLM_WRITE_COMMAND, pa, &v, 8, pte), tlm::TLM_OK_RESPONSE); }
  uint64_t dram(uint64_t pa) {
    uint64_t v = 0;
    mem->peek(pa, &v, 8);
    return v;
  }
  void ap_store(uint64_t pa, uint64_t v) { mem->load(pa, &v, 8); }  // the AP's store lands in DRAM
  void maint(maint_op op, uint64_t pa, unsigned len) {
    std::vector<uint8_t> scratch(len);
    EXPECT_EQ(acc(tlm::TLM_IGNORE_COMMAND, pa, scratch.data(), len, normal, true, &op), tlm::TLM_OK_RESPONSE);
  }
};
}  // namespace

TEST_F(cache_test, write_back_write_allocate_keeps_stores_from_dram_until_cleaned) {
  build();
  wr(0x1008, 0x1122334455667788ull);  // miss: fill of line 0x1000, then dirty
  EXPECT_EQ(cache->misses.value(), 1u);
  EXPECT_EQ(dram(0x1008), 0u);                   // invisible to the AP
  EXPECT_EQ(rd(0x1008), 0x1122334455667788ull);  // hit
  EXPECT_EQ(cache->hits.value(), 1u);
  bool dirty = false;
  ASSERT_TRUE(cache->holds(0x1000, &dirty));
  EXPECT_TRUE(dirty);
  maint(maint_op::clean, 0x1000, 64);
  EXPECT_EQ(cache->writebacks.value(), 1u);
  EXPECT_EQ(dram(0x1008), 0x1122334455667788ull);
  ASSERT_TRUE(cache->holds(0x1000, &dirty));  // clean keeps the line
  EXPECT_FALSE(dirty);
}

TEST_F(cache_test, the_aps_stores_do_not_reach_a_cached_line_stale_reads_are_counted) {
  build();
  ap_store(0x2000, 1);
  EXPECT_EQ(rd(0x2000), 1u);  // miss, fill
  ap_store(0x2000, 2);        // not coherent: the line keeps 1
  EXPECT_EQ(rd(0x2000), 1u);  // stale hit
  EXPECT_EQ(cache->stale_reads.value(), 1u);
  ASSERT_NE(cache->first_stale(), nullptr);
  EXPECT_EQ(cache->first_stale()->pa, 0x2000u);
  EXPECT_EQ(cache->first_stale()->va, 0xffffffa000002000ull);
  maint(maint_op::invalidate, 0x2000, 8);
  EXPECT_EQ(cache->invalidations.value(), 1u);
  EXPECT_EQ(rd(0x2000), 2u);  // refetched
  EXPECT_EQ(cache->misses.value(), 2u);
}

TEST_F(cache_test, attr_index_decides_cached_or_uncached_and_walks_bypass) {
  build();
  wr(0x3000, 5, shared);  // AttrIndex 2: straight to DRAM
  EXPECT_EQ(dram(0x3000), 5u);
  EXPECT_FALSE(cache->holds(0x3000));
  uint64_t v = 0;
  EXPECT_EQ(acc(tlm::TLM_READ_COMMAND, 0x3000, &v, 8, 0, false), tlm::TLM_OK_RESPONSE);  // no xlat_ext: a table walk
  EXPECT_EQ(v, 5u);
  EXPECT_EQ(cache->uncached.value(), 2u);
  EXPECT_EQ(cache->hits.value() + cache->misses.value(), 0u);
}

// sets = 1, ways = 2: lines 0x0, 0x40, 0x80 all in set 0. LRU: after touching 0x0 and 0x40, then
// 0x0 again, the fill of 0x80 evicts 0x40 (dirty: one write-back).
TEST_F(cache_test, lru_eviction_writes_back_a_dirty_victim) {
  build(1, 2);
  wr(0x40, 0xaa);
  rd(0x0);
  rd(0x0);
  rd(0x80);
  EXPECT_FALSE(cache->holds(0x40));
  EXPECT_TRUE(cache->holds(0x0));
  EXPECT_EQ(cache->writebacks.value(), 1u);
  EXPECT_EQ(dram(0x40), 0xaau);
  EXPECT_EQ(cache->misses.value(), 3u);
}

TEST_F(cache_test, invalidate_drops_dirty_data_clean_invalidate_keeps_it) {
  build();
  wr(0x4000, 7);
  wr(0x4040, 8);
  maint(maint_op::invalidate, 0x4000, 64);  // DC IVAC: the store is lost
  EXPECT_EQ(cache->dirty_dropped.value(), 1u);
  EXPECT_EQ(dram(0x4000), 0u);
  maint(maint_op::clean_invalidate, 0x4040, 64);
  EXPECT_EQ(dram(0x4040), 8u);
  EXPECT_FALSE(cache->holds(0x4040));
  EXPECT_EQ(cache->invalidations.value(), 2u);
  EXPECT_EQ(cache->writebacks.value(), 1u);
}

TEST_F(cache_test, clean_invalidate_all_empties_the_cache) {
  build();
  wr(0x100, 1);
  rd(0x5000);
  EXPECT_EQ(cache->dirty_lines(), 1u);
  cache->clean_invalidate_all();
  EXPECT_EQ(cache->dirty_lines(), 0u);
  EXPECT_FALSE(cache->holds(0x100));
  EXPECT_FALSE(cache->holds(0x5000));
  EXPECT_EQ(dram(0x100), 1u);
}

TEST_F(cache_test, geometry_must_be_a_power_of_two) {
  config::global().set("c.sets", "3", "test");
  cache = std::make_unique<asc_cache>("c");
  EXPECT_THROW(cache->end_of_elaboration(), config_error);
}

// A dirty line remembers the VA of the store that dirtied it (here 0xffffffa000000000 + PA, view
// 0, slot 0). Its write-back is stale when `mapping` says that VA no longer maps the line's PA:
// the first write-back (VA still mapped) is not, the second (the page unmapped: ~0) is, and it is
// named with the store's VA (line-aligned) and the line's PA.
TEST_F(cache_test, a_write_back_after_the_va_stopped_mapping_its_pa_is_stale) {
  build();
  bool mapped = true;
  cache->mapping = [&](unsigned view, unsigned slot, uint64_t va) {
    EXPECT_EQ(view, 0u);
    EXPECT_EQ(slot, 0u);
    return mapped ? va - 0xffffffa000000000ull : ~uint64_t(0);
  };
  wr(0x2010, 1);
  maint(maint_op::clean, 0x2000, 64);
  EXPECT_EQ(cache->writebacks.value(), 1u);
  EXPECT_EQ(cache->stale_writebacks.value(), 0u);
  wr(0x2018, 2);
  mapped = false;                 // the driver unmapped the page; the line is still dirty
  cache->clean_invalidate_all();  // deep WFI
  EXPECT_EQ(cache->stale_writebacks.value(), 1u);
  ASSERT_NE(cache->first_stale_writeback(), nullptr);
  EXPECT_EQ(cache->first_stale_writeback()->va, 0xffffffa000002000ull);
  EXPECT_EQ(cache->first_stale_writeback()->pa, 0x2000u);
  EXPECT_EQ(dram(0x2018), 2u);  // written back all the same: the line goes over the page's new owner
  EXPECT_EQ(cache->first_stale(), nullptr);
}
