// SPDX-License-Identifier: Apache-2.0
// Sparse memory: allocation on write, zero reads, bounds, DMI grant and revoke.
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>
#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>
#include "gpuvp/extension.h"
#include "gpuvp/memory.h"
#include "testing.h"

using namespace gpuvp;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {
// A memory (after fresh_simulation() and any settings) with an initiator bound and elaborated.
struct memory_with_initiator {
  sparse_memory mem{"mem"};
  gpuvp::testing::test_initiator init{"init"};
  memory_with_initiator() {
    init.out.bind(mem.in);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
  // The DMI region granted for an address (a failed test when none is).
  tlm::tlm_dmi dmi_at(uint64_t address) {
    tlm::tlm_generic_payload gp;
    gp.set_address(address);
    tlm::tlm_dmi dmi;
    EXPECT_TRUE(init.out->get_direct_mem_ptr(gp, dmi));
    return dmi;
  }
};
}  // namespace

TEST(memory, terabyte_space_costs_only_touched_pages) {
  gpuvp::testing::fresh_simulation();
  config::global().set("mem.size", "1 TiB", "test");
  sparse_memory mem("mem");
  const uint64_t far = (uint64_t(1) << 40) - 16;
  uint64_t v = 0x0123456789abcdefull;
  transaction t(tlm::TLM_WRITE_COMMAND, far, &v, 8);
  sc_time delay = sc_core::SC_ZERO_TIME;
  mem.b_transport(t.gp, delay);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(delay, sc_time(20, SC_NS));
  EXPECT_EQ(mem.pages_allocated.value(), 1.0);
  uint64_t back = 0;
  t.set(tlm::TLM_READ_COMMAND, far, &back, 8);
  mem.b_transport(t.gp, delay);
  EXPECT_EQ(back, v);
  uint64_t zero = 1;
  t.set(tlm::TLM_READ_COMMAND, 0x1000, &zero, 8);  // untouched: zero, no allocation
  mem.b_transport(t.gp, delay);
  EXPECT_EQ(zero, 0u);
  EXPECT_EQ(mem.pages_allocated.value(), 1.0);
  EXPECT_EQ(mem.bytes_read.value(), 16u);
}

TEST(memory, accesses_beyond_the_end_fail) {
  gpuvp::testing::fresh_simulation();
  config::global().set("mem.size", "0x1000", "test");
  sparse_memory mem("mem");
  uint64_t v = 0;
  transaction t(tlm::TLM_READ_COMMAND, 0xffc, &v, 8);  // straddles the end
  sc_time delay;
  mem.b_transport(t.gp, delay);
  EXPECT_EQ(t.gp.get_response_status(), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(mem.errors.value(), 1u);
  EXPECT_THROW(mem.load(0x1000, &v, 1), std::out_of_range);
}

TEST(memory, backdoor_load_spans_pages) {
  gpuvp::testing::fresh_simulation();
  sparse_memory mem("mem");
  std::vector<uint8_t> image(3 * sparse_memory::page_size + 7);
  for (size_t i = 0; i < image.size(); ++i) image[i] = uint8_t(i * 7);
  mem.load(sparse_memory::page_size - 3, image.data(), image.size());
  std::vector<uint8_t> back(image.size());
  mem.peek(sparse_memory::page_size - 3, back.data(), back.size());
  EXPECT_EQ(back, image);
  EXPECT_EQ(mem.pages_allocated.value(), 5.0);  // partial first page, 3 whole, partial last
}

TEST(memory, dmi_grants_one_page_with_latencies_and_can_be_revoked) {
  gpuvp::testing::fresh_simulation();
  memory_with_initiator m;
  m.mem.write32(0x12344, 0xfeedf00d);
  const tlm::tlm_dmi dmi = m.dmi_at(0x12345);
  EXPECT_EQ(dmi.get_start_address(), 0x10000u);  // the 64 KiB page holding 0x12345
  EXPECT_EQ(dmi.get_end_address(), 0x1ffffu);
  EXPECT_EQ(dmi.get_read_latency(), sc_time(20, SC_NS));
  uint32_t through_dmi;
  std::memcpy(&through_dmi, dmi.get_dmi_ptr() + 0x2344, 4);
  EXPECT_EQ(through_dmi, 0xfeedf00du);
  m.mem.revoke_dmi();
  EXPECT_EQ(m.init.invalidations, 1);
}

// Pages are anonymous memory that the host zeroes on first touch: a write of 4 bytes makes one
// host page resident, not the 64 KiB page (mincore tells which host pages are resident).
TEST(memory, resident_memory_follows_the_bytes_touched) {
  gpuvp::testing::fresh_simulation();
  config::global().set("mem.size", "4 GiB", "test");
  memory_with_initiator m;
  m.mem.write32(0x30008, 0x5a5a5a5a);
  const tlm::tlm_dmi dmi = m.dmi_at(0x30000);
  const long host_page = sysconf(_SC_PAGESIZE);
  ASSERT_GT(host_page, 0);
  ASSERT_EQ(sparse_memory::page_size % uint64_t(host_page), 0u);
  std::vector<unsigned char> resident(sparse_memory::page_size / uint64_t(host_page));
  ASSERT_EQ(mincore(dmi.get_dmi_ptr(), sparse_memory::page_size, resident.data()), 0);
  unsigned n = 0;
  for (unsigned char r : resident) n += r & 1;
  EXPECT_EQ(n, 1u) << "of " << resident.size() << " host pages";
  EXPECT_EQ(resident[0] & 1, 1);  // the one holding 0x30008
  // The rest reads as zero (after counting: reading maps the host's zero page).
  uint32_t far = 1;
  m.mem.peek(0x3fffc, &far, 4);
  EXPECT_EQ(far, 0u);
}

// A DMI pointer stays valid while many more pages (several arenas) are allocated.
TEST(memory, dmi_pointer_outlives_later_allocations) {
  gpuvp::testing::fresh_simulation();
  config::global().set("mem.size", "1 TiB", "test");
  memory_with_initiator m;
  sparse_memory& mem = m.mem;
  unsigned char* p = m.dmi_at(0x10000).get_dmi_ptr();
  constexpr uint64_t more = 3000;  // 3000 x 64 KiB: more than 2 arenas of 64 MiB
  for (uint64_t i = 0; i < more; ++i) mem.write32((i + 2) * sparse_memory::page_size + 4 * i, uint32_t(i));
  EXPECT_EQ(mem.pages_allocated.value(), double(more + 1));
  const uint32_t v = 0xc0ffee11;
  std::memcpy(p + 0x40, &v, 4);
  EXPECT_EQ(mem.read32(0x10040), v);
  for (uint64_t i = 0; i < more; i += 997) EXPECT_EQ(mem.read32((i + 2) * sparse_memory::page_size + 4 * i), uint32_t(i));
}

// Scattered writes cost host storage in 256-byte blocks, packed in the order of first touch, plus
// one 1 KiB block table (256 four-byte indices) per 64 KiB page: 1000 writes of 8 bytes every
// 4 KiB touch 1000 blocks in 63 pages (4 000 KiB / 64 KiB, rounded up), not 1000 host pages.
TEST(memory, scattered_writes_cost_blocks_not_host_pages) {
  gpuvp::testing::fresh_simulation();
  config::global().set("mem.size", "4 GiB", "test");
  memory_with_initiator m;
  for (uint64_t i = 0; i < 1000; ++i) {
    uint64_t v = 0x1111111111111111ull * (i % 15 + 1);
    transaction t(tlm::TLM_WRITE_COMMAND, 0x40000000 + i * 4096, &v, 8);
    sc_time delay;
    m.mem.b_transport(t.gp, delay);
    ASSERT_TRUE(t.ok());
  }
  EXPECT_EQ(m.mem.pages_allocated.value(), 63.0);
  EXPECT_EQ(m.mem.host_bytes(), 1000u * 256 + 63u * 1024);
  for (uint64_t i = 0; i < 1000; i += 37) {
    uint64_t back[2] = {1, 1};  // the written word and the untouched word after it
    m.mem.peek(0x40000000 + i * 4096, back, 16);
    EXPECT_EQ(back[0], 0x1111111111111111ull * (i % 15 + 1));
    EXPECT_EQ(back[1], 0u);
  }
}

// The first DMI grant turns a page of blocks into one contiguous 64 KiB page holding what was
// written (an access straddling two blocks included); later accesses from either side see each
// other, and the page keeps its pointer.
TEST(memory, dmi_grant_gathers_the_written_blocks) {
  gpuvp::testing::fresh_simulation();
  memory_with_initiator m;
  const uint8_t bytes[6] = {1, 2, 3, 4, 5, 6};
  m.mem.load(0x500fd, bytes, 6);  // blocks 0x50000 and 0x50100
  m.mem.write32(0x5fffc, 0xa5a5a5a5);
  const uint64_t before = m.mem.host_bytes();
  const tlm::tlm_dmi dmi = m.dmi_at(0x50000);
  EXPECT_EQ(m.mem.host_bytes(), before + sparse_memory::page_size);
  unsigned char* p = dmi.get_dmi_ptr();
  EXPECT_EQ(std::memcmp(p + 0xfd, bytes, 6), 0);
  uint32_t last;
  std::memcpy(&last, p + 0xfffc, 4);
  EXPECT_EQ(last, 0xa5a5a5a5u);
  EXPECT_EQ(p[0x200], 0);
  m.mem.write32(0x58000, 0x600df00d);
  std::memcpy(&last, p + 0x8000, 4);
  EXPECT_EQ(last, 0x600df00du);
  p[0x10] = 0x77;
  EXPECT_EQ(m.mem.read32(0x50010), 0x77u);
  EXPECT_EQ(m.dmi_at(0x5ff00).get_dmi_ptr(), p);
  EXPECT_EQ(m.mem.pages_allocated.value(), 1.0);
}

// fill() writes whole and partial blocks across a page boundary.
TEST(memory, fill_spans_blocks_and_pages) {
  gpuvp::testing::fresh_simulation();
  sparse_memory mem("mem");
  mem.fill(sparse_memory::page_size - 300, 0xab, 700);
  std::vector<uint8_t> back(702, 1);
  mem.peek(sparse_memory::page_size - 301, back.data(), back.size());
  EXPECT_EQ(back.front(), 0);
  EXPECT_EQ(back.back(), 0);
  for (size_t i = 1; i + 1 < back.size(); ++i) ASSERT_EQ(back[i], 0xab) << i;
  EXPECT_EQ(mem.pages_allocated.value(), 2.0);
}

// A transaction into the block the previous one used takes a short cut; a DMI grant in between
// moves that block into the contiguous page, and the next transaction must land there.
TEST(memory, transactions_after_a_grant_reach_the_contiguous_page) {
  gpuvp::testing::fresh_simulation();
  memory_with_initiator m;
  uint32_t v = 0x11223344;
  transaction t(tlm::TLM_WRITE_COMMAND, 0x60010, &v, 4);
  sc_time delay;
  m.mem.b_transport(t.gp, delay);
  ASSERT_TRUE(t.ok());
  unsigned char* p = m.dmi_at(0x60000).get_dmi_ptr();
  v = 0x55667788;
  t.set(tlm::TLM_WRITE_COMMAND, 0x60020, &v, 4);
  m.mem.b_transport(t.gp, delay);
  ASSERT_TRUE(t.ok());
  uint32_t seen[2];
  std::memcpy(&seen[0], p + 0x10, 4);
  std::memcpy(&seen[1], p + 0x20, 4);
  EXPECT_EQ(seen[0], 0x11223344u);
  EXPECT_EQ(seen[1], 0x55667788u);
  p[0x30] = 0x99;
  uint8_t back = 0;
  t.set(tlm::TLM_READ_COMMAND, 0x60030, &back, 1);
  m.mem.b_transport(t.gp, delay);
  EXPECT_EQ(back, 0x99);
}
