// SPDX-License-Identifier: Apache-2.0
// Router: decoding, contention arithmetic (worked out by hand below), errors, DMI and debug.
#include <cstring>
#include <fstream>
#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>
#include "gpuvp/extension.h"
#include "gpuvp/memory.h"
#include "gpuvp/router.h"
#include "gpuvp/trace.h"
#include "gpuvp/untimed.h"
#include "testing.h"

using namespace gpuvp;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {
struct initiator : gpuvp::testing::test_initiator {
  using test_initiator::test_initiator;
  // One read at now + `at`; returns the delay annotated on return.
  sc_time read(uint64_t addr, unsigned len, sc_time at, tlm::tlm_response_status* status = nullptr) {
    std::vector<uint8_t> buf(len);
    transaction t(tlm::TLM_READ_COMMAND, addr, buf.data(), len);
    out->b_transport(t.gp, at);
    if (status) *status = t.gp.get_response_status();
    return at;
  }
};

// Two initiators a and b, one memory at 0x10000000 (1 MiB): width 8 B/cycle, 1 ns clock,
// 1 ns latency per port, memory read latency 10 ns.
// Configuration must exist before the modules below read their params.
struct router_config : gpuvp::testing::sim_test {
  explicit router_config(bool contention) {
    auto& c = config::global();
    if (!contention) c.set("r.contention", "false", "test");
    c.set("r.width", "8", "test");
    c.set("r.latency", "1 ns", "test");
    c.set("r.clock", "1 ns", "test");
    c.set("mem.read_latency", "10 ns", "test");
    c.set("mem.size", "1 MiB", "test");
  }
};
struct router_fixture : router_config {
  explicit router_fixture(bool contention = true) : router_config(contention) {}
  router r{"r"};
  sparse_memory mem{"mem"};
  initiator a{"a"}, b{"b"};
  void build() {
    a.out.bind(r.in);
    b.out.bind(r.in);
    r.name_input(0, "a");
    r.name_input(1, "b");
    r.out.bind(mem.in);
    r.map(0, 0x10000000, 1 << 20, "mem");
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
};
}  // namespace

TEST_F(router_fixture, contention_queues_the_second_initiator) {
  build();
  // a: arrives 0, both links free; 32 B / 8 B per cycle = 4 cycles = 4 ns on each link;
  //    delay = 0 queue + 4 transfer + 1 + 1 port latencies + 10 memory = 16 ns.
  EXPECT_EQ(a.read(0x10000000, 32, sc_time(0, SC_NS)), sc_time(16, SC_NS));
  // b: arrives 0, but the memory link is busy until 4 ns: 4 queue + 4 + 2 + 10 = 20 ns.
  EXPECT_EQ(b.read(0x10000100, 32, sc_time(0, SC_NS)), sc_time(20, SC_NS));
  // a again, arriving at 2 ns: memory link free at 8 ns (b held it 4..8): start 8;
  //    delay from now = 8 + 4 + 2 + 10 = 24 ns.
  EXPECT_EQ(a.read(0x10000200, 32, sc_time(2, SC_NS)), sc_time(24, SC_NS));
  auto* q = stats_registry::global().list("r.mem.queueing").at(0).h;
  EXPECT_EQ(q->count(), 3u);
  EXPECT_EQ(q->sum(), 0u + 4000u + 6000u);  // ps
  EXPECT_EQ(stats_registry::global().value("r.mem.transactions"), 3.0);
  EXPECT_EQ(stats_registry::global().value("r.mem.bytes"), 96.0);
  EXPECT_EQ(stats_registry::global().value("r.a.transactions"), 2.0);
}

TEST_F(router_fixture, an_earlier_arrival_uses_free_time_before_a_later_booking) {
  build();
  // a ran ahead in its quantum and booked the memory link at 900..904 ns (16 ns after arrival).
  EXPECT_EQ(a.read(0x10000000, 32, sc_time(900, SC_NS)), sc_time(916, SC_NS));
  // b, decoupled, is called later but arrives at 100 ns: the link is free then, no queueing:
  // 100 + 4 transfer + 2 latencies + 10 memory = 116 ns.
  EXPECT_EQ(b.read(0x10000100, 32, sc_time(100, SC_NS)), sc_time(116, SC_NS));
  auto* q = stats_registry::global().list("r.mem.queueing").at(0).h;
  EXPECT_EQ(q->sum(), 0u);
}

TEST_F(router_fixture, a_transfer_straddling_a_slot_waits_for_the_booked_part_of_the_next) {
  build();
  // Slots are 64 cycles of 1 ns rounded up to 2^16 ps = 65.536 ns.
  // b books 65.536..69.536 ns (start of slot 1): delay 65.536 + 4 + 2 + 10 = 81.536 ns.
  EXPECT_EQ(b.read(0x10000100, 32, sc_time(65536, sc_core::SC_PS)), sc_time(81536, sc_core::SC_PS));
  // a arrives at 64 ns: 1.536 ns fit at the end of slot 0, the other 2.464 ns go after b's booking
  // in slot 1: 69.536 + 2.464 = 72 ns; delay 72 + 2 + 10 = 84 ns; queueing 72 - 64 - 4 = 4 ns.
  EXPECT_EQ(a.read(0x10000000, 32, sc_time(64, SC_NS)), sc_time(84, SC_NS));
  auto* q = stats_registry::global().list("r.mem.queueing").at(0).h;
  EXPECT_EQ(q->sum(), 4000u);
}

TEST_F(router_fixture, an_arrival_older_than_the_calendar_is_counted_stale_and_not_queued) {
  build();
  // Slots are 65.536 ns, the ring holds 256: a booking at 20 us lands in slot 305 = ring entry 49.
  EXPECT_EQ(a.read(0x10000000, 32, sc_time(20, sc_core::SC_US)), sc_time(20016, SC_NS));
  // b arrives in slot 49 (49 * 65.536 ns = 3211.264 ns), whose ring entry now holds slot 305:
  // too old to book; it crosses without queueing: 4 transfer + 2 latencies + 10 memory.
  EXPECT_EQ(b.read(0x10000100, 32, sc_time(3211264, sc_core::SC_PS)), sc_time(3227264, sc_core::SC_PS));
  EXPECT_EQ(stats_registry::global().value("r.mem.stale"), 1.0);
}

// The same from one initiator on its last window and length (the router's inline path).
TEST_F(router_fixture, a_repeated_read_older_than_the_calendar_is_counted_stale_and_books_nothing) {
  build();
  EXPECT_EQ(a.read(0x10000000, 32, sc_time(20, sc_core::SC_US)), sc_time(20016, SC_NS));
  // The horizon is 256 slots of 65.536 ns = 16777.216 ns before the latest end (20004 ns):
  // 3211.264 ns is older; no queueing: 4 + 2 + 10.
  EXPECT_EQ(a.read(0x10000020, 32, sc_time(3211264, sc_core::SC_PS)), sc_time(3227264, sc_core::SC_PS));
  auto& st = stats_registry::global();
  EXPECT_EQ(st.value("r.mem.stale"), 1.0);
  EXPECT_EQ(st.value("r.mem.transactions"), 2.0);
  EXPECT_EQ(st.value("r.a.bytes"), 64.0);
  EXPECT_EQ(st.list("r.mem.queueing").at(0).h->count(), 2u);
  // Only the first is booked: 4 ns of the memory link in 20.01 us; a's link carried both.
  sc_core::sc_start(20010, SC_NS);
  EXPECT_DOUBLE_EQ(st.value("r.mem.busy"), 4.0 / 20010.0);
  EXPECT_DOUBLE_EQ(st.value("r.a.busy"), 8.0 / 20010.0);
}

TEST_F(router_fixture, a_later_arrival_never_shares_the_link_with_an_earlier_booking) {
  build();
  // a books 50..54 ns; b (decoupled, called later) 0..4 ns: both free.
  EXPECT_EQ(a.read(0x10000000, 32, sc_time(50, SC_NS)), sc_time(66, SC_NS));
  EXPECT_EQ(b.read(0x10000100, 32, sc_time(0, SC_NS)), sc_time(16, SC_NS));
  // a again at 51 ns: the link is a's until 54 ns (a per-slot sum would have let it start at 51,
  // two transfers at once): 54..58, delay 58 + 2 + 10 = 70 ns, queueing 3 ns.
  EXPECT_EQ(a.read(0x10000200, 32, sc_time(51, SC_NS)), sc_time(70, SC_NS));
  auto* q = stats_registry::global().list("r.mem.queueing").at(0).h;
  EXPECT_EQ(q->sum(), 3000u);
}

TEST_F(router_fixture, an_untimed_access_is_carried_and_counted_but_books_nothing) {
  build();
  std::vector<uint8_t> buf(32);
  transaction t(tlm::TLM_READ_COMMAND, 0x10000000, buf.data(), 32);
  untimed_ext carried;
  t.gp.set_extension(&carried);
  sc_time d = sc_core::SC_ZERO_TIME;
  a.out->b_transport(t.gp, d);
  t.gp.clear_extension(&carried);
  EXPECT_TRUE(t.ok());
  EXPECT_EQ(d, sc_time(12, SC_NS));  // the two port latencies and the memory's 10 ns, no transfer
  // b at 0 finds the link free: 4 + 2 + 10.
  EXPECT_EQ(b.read(0x10000100, 32, sc_time(0, SC_NS)), sc_time(16, SC_NS));
  auto& st = stats_registry::global();
  EXPECT_EQ(st.value("r.mem.transactions"), 2.0);
  EXPECT_EQ(st.value("r.mem.untimed"), 1.0);
  EXPECT_EQ(st.value("r.mem.bytes"), 64.0);
  EXPECT_EQ(st.list("r.mem.queueing").at(0).h->count(), 1u);  // b's only
}

TEST_F(router_fixture, busy_counts_the_booked_time_up_to_now_only) {
  build();
  b.read(0x10000000, 32, sc_time(0, SC_NS));    // 0..4 ns
  a.read(0x10000100, 32, sc_time(100, SC_NS));  // 100..104 ns: after the 10 ns simulated below
  sc_core::sc_start(10, SC_NS);
  EXPECT_DOUBLE_EQ(stats_registry::global().value("r.mem.busy"), 0.4);  // 4 ns of 10
  sc_core::sc_start(92, SC_NS);                                         // now 102 ns
  EXPECT_DOUBLE_EQ(stats_registry::global().value("r.mem.busy"), 6.0 / 102.0);
}

// Reads of one initiator to one window with one length, each after the link is free again, take
// the router's inline path from the second on: they must time, book and count as any other.
TEST_F(router_fixture, repeated_reads_after_the_link_is_free_book_and_count_as_any_other) {
  build();
  // a at 0, 20 and 40 ns: 32 B take 4 ns on both links, never queued: arrival + 4 + 2 + 10.
  EXPECT_EQ(a.read(0x10000000, 32, sc_time(0, SC_NS)), sc_time(16, SC_NS));
  EXPECT_EQ(a.read(0x10000020, 32, sc_time(20, SC_NS)), sc_time(36, SC_NS));
  EXPECT_EQ(a.read(0x10000040, 32, sc_time(40, SC_NS)), sc_time(56, SC_NS));
  // b, decoupled, arrives at 21 ns: a's second read holds the memory link 20..24 ns, so b takes
  // 24..28 ns (before a's third at 40): 28 + 2 + 10 = 40 ns, queued 3 ns.
  EXPECT_EQ(b.read(0x10000100, 32, sc_time(21, SC_NS)), sc_time(40, SC_NS));
  auto& st = stats_registry::global();
  EXPECT_EQ(st.value("r.mem.transactions"), 4.0);
  EXPECT_EQ(st.value("r.mem.bytes"), 128.0);
  EXPECT_EQ(st.value("r.a.transactions"), 3.0);
  EXPECT_EQ(st.value("r.a.bytes"), 96.0);
  const histogram* q = st.list("r.mem.queueing").at(0).h;
  EXPECT_EQ(q->count(), 4u);
  EXPECT_EQ(q->bins()[0], 3u);  // a's three
  EXPECT_EQ(q->sum(), 3000u);   // ps: b's
  sc_core::sc_start(50, SC_NS);
  // Memory link busy 0..4, 20..28 and 40..44 ns: 16 of 50 ns; a's link carried 3 x 4 ns.
  EXPECT_DOUBLE_EQ(st.value("r.mem.busy"), 16.0 / 50.0);
  EXPECT_DOUBLE_EQ(st.value("r.a.busy"), 12.0 / 50.0);
}

TEST_F(router_fixture, a_new_length_on_the_same_window_is_timed_at_its_own_occupancy) {
  build();
  EXPECT_EQ(a.read(0x10000000, 32, sc_time(0, SC_NS)), sc_time(16, SC_NS));   // 4 cycles
  EXPECT_EQ(a.read(0x10000000, 64, sc_time(20, SC_NS)), sc_time(40, SC_NS));  // 8: 20 + 8 + 12
  EXPECT_EQ(a.read(0x10000000, 1, sc_time(40, SC_NS)), sc_time(53, SC_NS));   // 1 (rounded up)
  EXPECT_EQ(a.read(0x10000000, 32, sc_time(60, SC_NS)), sc_time(76, SC_NS));  // 4 again
  // No bytes: no transfer, the latencies only (twice: a length of 0 is never the inline path's).
  uint8_t none = 0;
  for (unsigned at : {80, 100}) {
    transaction t(tlm::TLM_READ_COMMAND, 0x10000000, &none, 0);
    sc_time d(at, SC_NS);
    a.out->b_transport(t.gp, d);
    EXPECT_EQ(d, sc_time(at + 12, SC_NS)) << at;
  }
  EXPECT_EQ(a.read(0x10000000, 32, sc_time(120, SC_NS)), sc_time(136, SC_NS));
  auto& st = stats_registry::global();
  EXPECT_EQ(st.value("r.mem.bytes"), 32.0 + 64 + 1 + 32 + 32);
  EXPECT_EQ(st.value("r.mem.transactions"), 7.0);
  sc_core::sc_start(140, SC_NS);
  EXPECT_DOUBLE_EQ(st.value("r.mem.busy"), (4 + 8 + 1 + 4 + 4) / 140.0);
}

// More reads, each after the last, than the memory link's calendar holds before it grows: each
// booking stays in the calendar, so a decoupled arrival before them finds the gaps between them.
TEST_F(router_fixture, more_repeated_reads_than_the_calendar_holds_at_first_keep_every_booking) {
  build();
  for (unsigned k = 0; k < 200; ++k) ASSERT_EQ(a.read(0x10000000 + 32 * k, 32, sc_time(10 * k, SC_NS)), sc_time(10 * k + 16, SC_NS)) << k;
  // b at 1 ns: a holds 0..4, b takes 4..8 (free until 10): 8 + 2 + 10 = 20 ns, queued 3 ns.
  EXPECT_EQ(b.read(0x10000000, 32, sc_time(1, SC_NS)), sc_time(20, SC_NS));
  // b at 1993 ns: a's last read holds 1990..1994: 1994..1998, delay 2010 ns.
  EXPECT_EQ(b.read(0x10000000, 32, sc_time(1993, SC_NS)), sc_time(2010, SC_NS));
  sc_core::sc_start(2000, SC_NS);
  EXPECT_DOUBLE_EQ(stats_registry::global().value("r.mem.busy"), (200 * 4 + 4 + 4) / 2000.0);
}

// A transaction that moves its data through a DMI pointer is counted as such on every path.
TEST_F(router_fixture, repeated_dmi_shadow_transactions_are_counted_each) {
  build();
  std::vector<uint8_t> buf(32);
  sc_time d = sc_core::SC_ZERO_TIME;
  for (unsigned k = 0; k < 3; ++k) {
    transaction t(tlm::TLM_READ_COMMAND, 0x10000000, buf.data(), 32);
    t.ext.dmi_shadow = true;
    d = sc_time(20 * k, SC_NS);
    a.out->b_transport(t.gp, d);
    EXPECT_TRUE(t.ok());
  }
  EXPECT_EQ(d, sc_time(56, SC_NS));
  EXPECT_EQ(r.dmi_transactions.value(), 3u);
  EXPECT_EQ(stats_registry::global().value("r.mem.transactions"), 3.0);
}

// An untimed access on the window and length a timed one used just before books nothing.
TEST_F(router_fixture, an_untimed_access_after_a_timed_one_still_books_nothing) {
  build();
  EXPECT_EQ(a.read(0x10000000, 32, sc_time(0, SC_NS)), sc_time(16, SC_NS));
  std::vector<uint8_t> buf(32);
  transaction t(tlm::TLM_READ_COMMAND, 0x10000000, buf.data(), 32);
  untimed_scope untimed(t.gp, true);
  sc_time d(20, SC_NS);
  a.out->b_transport(t.gp, d);
  EXPECT_EQ(d, sc_time(32, SC_NS));  // 20 + the two latencies + the memory's 10
  // b at 21 ns finds the memory link free.
  EXPECT_EQ(b.read(0x10000100, 32, sc_time(21, SC_NS)), sc_time(37, SC_NS));
  EXPECT_EQ(stats_registry::global().value("r.mem.untimed"), 1.0);
  EXPECT_EQ(stats_registry::global().list("r.mem.queueing").at(0).h->count(), 2u);
}

struct router_without_contention : router_fixture {
  router_without_contention() : router_fixture(false) {}
};
TEST_F(router_without_contention, only_latency_and_transfer_count) {
  build();
  EXPECT_EQ(a.read(0x10000000, 32, sc_time(0, SC_NS)), sc_time(16, SC_NS));
  EXPECT_EQ(b.read(0x10000100, 32, sc_time(0, SC_NS)), sc_time(16, SC_NS));
  EXPECT_EQ(a.read(0x10000000, 32, sc_time(1, SC_NS)), sc_time(17, SC_NS));  // overlapping a's first
  EXPECT_EQ(stats_registry::global().list("r.mem.queueing").size(), 1u);
  EXPECT_EQ(stats_registry::global().list("r.mem.queueing").at(0).h->count(), 0u);  // nothing queued
}

TEST_F(router_fixture, per_port_parameters_override_the_router_defaults) {
  config::global().set("r.mem.width", "4", "test");  // memory link: 32 B = 8 cycles
  config::global().set("r.mem.latency", "3 ns", "test");
  build();  // ports (and their params) are created by map()
  // transfer = max(4 ns on a's link, 8 ns on the memory link) = 8; latencies 1 + 3; memory 10.
  EXPECT_EQ(a.read(0x10000000, 32, sc_time(0, SC_NS)), sc_time(22, SC_NS));
}

TEST_F(router_fixture, unmapped_address_is_an_address_error) {
  build();
  tlm::tlm_response_status st;
  a.read(0x20000000, 4, sc_time(0, SC_NS), &st);
  EXPECT_EQ(st, tlm::TLM_ADDRESS_ERROR_RESPONSE);
  a.read(0x100ffffc, 8, sc_time(0, SC_NS), &st);  // runs past the window's end
  EXPECT_EQ(st, tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(r.decode_errors.value(), 2u);
}

TEST_F(router_fixture, target_sees_window_relative_addresses_and_debug_works) {
  build();
  mem.write32(0x40, 0x600dcafe);
  uint32_t v = 0;
  tlm::tlm_generic_payload gp;
  gp.set_command(tlm::TLM_READ_COMMAND);
  gp.set_address(0x10000040);
  gp.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
  gp.set_data_length(4);
  gp.set_streaming_width(4);
  EXPECT_EQ(a.out->transport_dbg(gp), 4u);
  EXPECT_EQ(v, 0x600dcafeu);
  EXPECT_EQ(gp.get_address(), 0x10000040u);  // restored for the initiator
}

TEST_F(router_fixture, dmi_is_translated_to_global_addresses) {
  build();
  mem.write32(0x10010, 0x12345678);
  tlm::tlm_generic_payload gp;
  gp.set_address(0x10010010);
  tlm::tlm_dmi dmi;
  ASSERT_TRUE(a.out->get_direct_mem_ptr(gp, dmi));
  EXPECT_EQ(dmi.get_start_address(), 0x10010000u);
  EXPECT_EQ(dmi.get_end_address(), 0x1001ffffu);
  EXPECT_EQ(dmi.get_read_latency(), sc_time(12, SC_NS));  // memory 10 + two port latencies
  uint32_t v;
  std::memcpy(&v, dmi.get_dmi_ptr() + 0x10, 4);
  EXPECT_EQ(v, 0x12345678u);
  mem.revoke_dmi();
  EXPECT_EQ(a.invalidations, 1);
  EXPECT_EQ(b.invalidations, 1);
  EXPECT_EQ(a.inv_start, 0x10000000u);
  EXPECT_EQ(a.inv_end, 0x100fffffu);
}

TEST(router, overlapping_windows_name_both_targets) {
  gpuvp::testing::fresh_simulation();
  router r("r");
  r.map(0, 0x1000, 0x1000, "vram");
  try {
    r.map(1, 0x1800, 0x1000, "bar0");
    FAIL() << "overlap not detected";
  } catch (const config_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("bar0"), std::string::npos) << m;
    EXPECT_NE(m.find("vram"), std::string::npos) << m;
  }
}

// A debug access before the end of elaboration (the output socket is not bound yet) answers
// 0 bytes instead of crashing; after elaboration the same access reads memory.
TEST_F(router_fixture, debug_access_before_elaboration_answers_nothing) {
  a.out.bind(r.in);
  b.out.bind(r.in);
  r.out.bind(mem.in);
  r.map(0, 0x10000000, 1 << 20, "mem");
  uint32_t v = 0;
  transaction t(tlm::TLM_READ_COMMAND, 0x10000010, &v, 4);
  EXPECT_EQ(r.transport_dbg(0, t.gp), 0u);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  EXPECT_EQ(r.transport_dbg(0, t.gp), 4u);
}

// The same for a DMI request before the simulation starts: refused, then granted.
TEST_F(router_fixture, dmi_request_before_elaboration_is_refused) {
  a.out.bind(r.in);
  b.out.bind(r.in);
  r.out.bind(mem.in);
  r.map(0, 0x10000000, 1 << 20, "mem");
  tlm::tlm_dmi dmi;
  transaction t(tlm::TLM_READ_COMMAND, 0x10000010, nullptr, 4);
  EXPECT_FALSE(r.get_direct_mem_ptr(0, t.gp, dmi));
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  EXPECT_TRUE(r.get_direct_mem_ptr(0, t.gp, dmi));
}

namespace {
std::vector<std::string> lines_of(const std::string& file) {
  std::ifstream f(file);
  std::vector<std::string> out;
  for (std::string l; std::getline(f, l);) out.push_back(l);
  return out;
}
size_t count_with(const std::vector<std::string>& lines, std::initializer_list<const char*> parts) {
  size_t n = 0;
  for (const auto& l : lines) {
    bool all = true;
    for (const char* p : parts) all &= l.find(p) != std::string::npos;
    n += all;
  }
  return n;
}
}  // namespace

// A flow arrow started by an initiator (gpu_ext::flow) ends on the access's span on the target
// port's track, in the middle of its transfer: 64 bytes at 8 B per 1 ns cycle take [0, 8 ns], so
// the end is at 4 ns; the start is where the initiator put it.
TEST_F(router_fixture, a_flow_arrow_ends_in_the_middle_of_the_access_span) {
  const std::string file = ::testing::TempDir() + "router_flow.json";
  auto& tr = tracer::global();
  EXPECT_EQ(tr.flow_out(1, sc_time(1, SC_NS)), 0u);  // tracing off: no flow
  ASSERT_TRUE(tr.open(file));
  build();
  const uint32_t src = tr.track("test.source");
  std::vector<uint8_t> buf(64);
  transaction t(tlm::TLM_READ_COMMAND, 0x10000000, buf.data(), 64);
  t.ext.flow = tr.flow_out(src, sc_time(2, SC_NS));
  ASSERT_NE(t.ext.flow, 0u);
  sc_time at = sc_core::SC_ZERO_TIME;
  a.out->b_transport(t.gp, at);
  tr.flow_in(t.ext.flow, src, sc_time(3, SC_NS));  // already ended: writes nothing
  // A start that flow_slots newer starts follow is forgotten: its end writes nothing.
  const uint64_t old = tr.flow_out(src, sc_time(2, SC_NS));
  for (uint32_t i = 0; i < tracer::flow_slots; ++i) tr.flow_out(src, sc_time(2, SC_NS));
  tr.flow_in(old, src, sc_time(5, SC_NS));
  tr.close();
  const auto lines = lines_of(file);
  const std::string id = "\"id\":" + std::to_string(t.ext.flow) + ",";
  const std::string src_tid = "\"tid\":" + std::to_string(src) + ",";
  EXPECT_EQ(count_with(lines, {"\"ph\":\"s\"", id.c_str(), src_tid.c_str(), "\"ts\":0.002000"}), 1u);
  EXPECT_EQ(count_with(lines, {"\"ph\":\"f\"", "\"bp\":\"e\"", id.c_str(), "\"ts\":0.004000"}), 1u);
  EXPECT_EQ(count_with(lines, {"\"ph\":\"X\"", "\"ts\":0.000000,\"dur\":0.008000"}), 1u);  // the access
  EXPECT_EQ(count_with(lines, {"\"ph\":\"s\""}), 1u);
  EXPECT_EQ(count_with(lines, {"\"ph\":\"f\""}), 1u);
}
