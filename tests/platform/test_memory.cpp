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
