// SPDX-License-Identifier: Apache-2.0
// Register bank: access policies, partial and spanning accesses, errors, sync.
#include <gtest/gtest.h>
#include "gpuvp/extension.h"
#include "gpuvp/regbank.h"
#include "testing.h"

using namespace gpuvp;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {
struct bank_fixture : gpuvp::testing::sim_test {
  register_bank bank{"bank", 0x100};
  reg ctrl{bank, "CTRL", 0x00, 4, 0x11223344};
  reg status{bank, "STATUS", 0x04, 4, 0xff, access::w1c};
  reg set{bank, "SET", 0x08, 4, 0x1, access::w1s};
  reg id{bank, "ID", 0x0c, 4, 0xcafe, access::ro};
  reg event{bank, "EVENT", 0x10, 4, 0x5, access::rc};
  reg cmd{bank, "CMD", 0x14, 4, 0x7, access::wo};
  reg wide{bank, "WIDE", 0x20, 8, 0x0102030405060708};
  reg masked{bank, "MASKED", 0x30, 4, 0, access::rw, 0x0000ffff};

  tlm::tlm_response_status access(tlm::tlm_command c, uint64_t addr, void* data, unsigned len) {
    transaction t(c, addr, data, len);
    sc_time delay = sc_core::SC_ZERO_TIME;
    bank.b_transport(t.gp, delay);
    return t.gp.get_response_status();
  }
  uint32_t rd32(uint64_t addr) {
    uint32_t v = 0;
    EXPECT_EQ(access(tlm::TLM_READ_COMMAND, addr, &v, 4), tlm::TLM_OK_RESPONSE);
    return v;
  }
  void wr32(uint64_t addr, uint32_t v) { EXPECT_EQ(access(tlm::TLM_WRITE_COMMAND, addr, &v, 4), tlm::TLM_OK_RESPONSE); }
};
}  // namespace

TEST_F(bank_fixture, reset_values_and_policies) {
  EXPECT_EQ(rd32(0x00), 0x11223344u);
  wr32(0x00, 0xdeadbeef);
  EXPECT_EQ(rd32(0x00), 0xdeadbeefu);
  wr32(0x04, 0x0f);  // W1C: 0xff & ~0x0f
  EXPECT_EQ(rd32(0x04), 0xf0u);
  wr32(0x08, 0x6);  // W1S: 0x1 | 0x6
  EXPECT_EQ(rd32(0x08), 0x7u);
  wr32(0x0c, 0x1234);  // RO ignores writes
  EXPECT_EQ(rd32(0x0c), 0xcafeu);
  EXPECT_EQ(rd32(0x10), 0x5u);  // RC: returns, then clears
  EXPECT_EQ(rd32(0x10), 0x0u);
  EXPECT_EQ(rd32(0x14), 0x0u);  // WO reads 0
  EXPECT_EQ(cmd.get(), 0x7u);
  wr32(0x30, 0xabcd1234);  // only the low 16 bits are writable
  EXPECT_EQ(rd32(0x30), 0x1234u);
  EXPECT_EQ(bank.reads.value(), 9u);  // nine rd32 calls above
  EXPECT_EQ(bank.writes.value(), 5u);
}

TEST_F(bank_fixture, partial_accesses_touch_only_their_bytes) {
  uint8_t b = 0;
  ASSERT_EQ(access(tlm::TLM_READ_COMMAND, 0x02, &b, 1), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(b, 0x22);  // little endian: byte 2 of 0x11223344
  uint16_t h = 0xaabb;
  ASSERT_EQ(access(tlm::TLM_WRITE_COMMAND, 0x01, &h, 2), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(ctrl.get(), 0x11aabb44u);
  uint32_t hi = 0;
  ASSERT_EQ(access(tlm::TLM_READ_COMMAND, 0x24, &hi, 4), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(hi, 0x01020304u);  // upper half of the 64-bit register
}

TEST_F(bank_fixture, spanning_access_covers_adjacent_registers) {
  uint64_t v = 0;
  ASSERT_EQ(access(tlm::TLM_READ_COMMAND, 0x00, &v, 8), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(v, 0x000000ff11223344ull);  // CTRL then STATUS
  uint64_t w = 0x0000000f00000000ull;   // CTRL <- 0, STATUS W1C 0x0f
  ASSERT_EQ(access(tlm::TLM_WRITE_COMMAND, 0x00, &w, 8), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(ctrl.get(), 0u);
  EXPECT_EQ(status.get(), 0xf0u);
}

TEST_F(bank_fixture, unmapped_and_bad_sizes_are_errors_without_side_effects) {
  uint32_t v = 0x55;
  EXPECT_EQ(access(tlm::TLM_READ_COMMAND, 0x18, &v, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);  // hole
  uint64_t w = 0;
  // 0x10..0x17 is EVENT + CMD, 0x14..0x1b runs into the hole: nothing may be written.
  EXPECT_EQ(access(tlm::TLM_WRITE_COMMAND, 0x14, &w, 8), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(cmd.get(), 0x7u);
  uint8_t three[3] = {};
  EXPECT_EQ(access(tlm::TLM_READ_COMMAND, 0x00, three, 3), tlm::TLM_BURST_ERROR_RESPONSE);
  EXPECT_EQ(bank.errors.value(), 3u);
}

TEST_F(bank_fixture, hooks_see_the_value_after_the_policy) {
  uint64_t seen = 0, seen_old = 0;
  status.on_write = [&](uint64_t v, uint64_t old) {
    seen = v;
    seen_old = old;
  };
  id.on_read = [] { return uint64_t(0x1234); };
  wr32(0x04, 0x01);
  EXPECT_EQ(seen, 0xfeu);
  EXPECT_EQ(seen_old, 0xffu);
  EXPECT_EQ(rd32(0x0c), 0x1234u);
}

TEST_F(bank_fixture, latency_is_annotated_per_access) {
  uint32_t v = 0;
  transaction t(tlm::TLM_READ_COMMAND, 0, &v, 4);
  sc_time delay(5, SC_NS);
  bank.b_transport(t.gp, delay);
  EXPECT_EQ(delay, sc_time(6, SC_NS));  // 5 ns already annotated + 1 ns read latency
}

TEST(regbank, overlapping_registers_are_rejected) {
  gpuvp::testing::fresh_simulation();
  register_bank bank("bank", 0x10);
  reg a(bank, "A", 0x0, 4, 0);
  EXPECT_THROW(reg(bank, "B", 0x2, 4, 0), config_error);
  EXPECT_THROW(reg(bank, "C", 0xe, 4, 0), config_error);  // outside the bank
}

// Named bit fields: a field reads its bits, inserts a value without touching the others, and
// truncates a value wider than itself (CHAN_CTRL-like layout: 0 enable, 16-27 a 12-bit mask).
TEST(regbank, fields_read_and_insert_their_bits_only) {
  using enable = gpuvp::field<0, 1>;
  using mask = gpuvp::field<16, 12>;
  using whole = gpuvp::field<0, 64>;
  static_assert(mask::mask == 0x0fff0000u && enable::mask == 1 && whole::mask == ~uint64_t(0));
  EXPECT_EQ(mask::get(0xabcd1235u), 0xbcdu);
  EXPECT_EQ(enable::get(0xabcd1235u), 1u);
  EXPECT_EQ(mask::put(0x1234), 0x02340000u);  // bit 12 of the value lies outside the field
  EXPECT_EQ(mask::set(0xf000ffffu, 0xfff), 0xffffffffu);
  EXPECT_EQ(mask::set(0xffffffffu, 0), 0xf000ffffu);
  EXPECT_EQ(whole::get(0x8000000000000001ull), 0x8000000000000001ull);
}
