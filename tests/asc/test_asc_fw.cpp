// SPDX-License-Identifier: Apache-2.0
// The ASC firmware on the agx platform, driven by AP driver scenarios (docs/formats/agx.md): the
// boot handshake, the Dekker lock, rings and events, FWCtl and the flush protocol, power-down and
// wake-up, the work command, and the firmware's asserts. Expected values from the reference's
// handoff layout and our ring layout (docs/models/asc.md).
#include "fw_fixture.h"

// Init (m1n1): the AP writes magic_ap, takes the lock and waits for magic_fw; the firmware
// publishes it without the lock; the AP then releases: turn = 1, lock_ap = 0.
TEST_F(fw_test, boot_handshake_publishes_magic_without_the_lock) {
  run("boot\n");
  EXPECT_EQ(failed, 0) << messages;
  EXPECT_EQ(peek64(handoff + hf::magic_ap), 0x4b1d000000000002ull);
  EXPECT_EQ(peek64(handoff + hf::magic_fw), 0x4b1d000000000002ull);
  EXPECT_EQ(peek8(handoff + hf::lock_ap), 0u);
  EXPECT_EQ(peek8(handoff + hf::lock_fw), 0u);
  EXPECT_EQ(peek32(handoff + hf::turn), 1u);
  EXPECT_EQ(peek32(ctrl() + rg::power), 1u);
  EXPECT_EQ(peek32(ctrl() + rg::fw_status), 1u);
  EXPECT_TRUE(agx->asc.running());
}

// One stamp command: the firmware reads the cached command buffer (one 64-byte line: a miss at the
// header, hits for the value, the stamp VA and the END header), writes the uncached stamp, posts an
// event {type 1, value 1} and advances the command ring's read pointer.
TEST_F(fw_test, a_stamp_command_writes_the_stamp_and_posts_an_event) {
  run(head + "cmd cb 0 stamp 1 stamps\ncmd cb 16 end\nsubmit cb 0 0x4000\nwait-stamp stamps 0 1\n");
  EXPECT_EQ(failed, 0) << messages;
  EXPECT_EQ(agx->asc.commands(), 2u);
  EXPECT_EQ(agx->asc.cache.misses.value(), 1u);
  EXPECT_EQ(agx->asc.cache.hits.value(), 3u);
  EXPECT_EQ(peek32(ctrl() + rg::cmd_rptr), 1u);
  EXPECT_EQ(peek32(ctrl() + rg::evt_wptr), 1u);
  EXPECT_EQ(peek32(ctrl() + rg::evt_base), rg::evt_stamp);
  EXPECT_EQ(peek64(ctrl() + rg::evt_base + 8), 1u);
  EXPECT_EQ(agx->asc.kicks.value(), 1u);
}

// The dance: flush slot 64 goes 0 -> 1 (AP) -> 2 (uPPL after FWCtl) -> 0 (AP); the firmware's dirty
// line reaches DRAM through the clean+invalidate.
TEST_F(fw_test, fwctl_cleans_the_flush_slot_range_and_sets_state_2) {
  run(head +
          "alloc obj 1\nmap obj 0xffffffa00c430000 cached fw\n"
          "cmd cb 0 write64 0xffffffa00c430000 0x1234\ncmd cb 24 stamp 1 stamps\ncmd cb 40 end\n"
          "submit cb 0 0x4000\nwait-stamp stamps 0 1\nrelease obj\nexpect-mem obj 0 0x1234\n",
      {{"agx.driver.unmap_dance", "true"}});
  EXPECT_EQ(failed, 0) << messages;
  EXPECT_EQ(peek64(handoff + hf::flush_state(64)), 0u);
  EXPECT_EQ(peek64(handoff + hf::flush_addr(64)), 0xffffffa00c430000ull);
  EXPECT_EQ(peek64(handoff + hf::flush_size(64)), 0x4000u);
  EXPECT_EQ(agx->asc.cache.writebacks.value(), 1u);
  EXPECT_EQ(agx->asc.cache.dirty_lines(), 0u);
  EXPECT_EQ(peek32(ctrl() + rg::evt_base + rg::evt_entry), rg::evt_fwctl);  // second event
}

// Idle for agx.asc.idle_timeout: deep WFI (power global 0, cache and ASC TLBs empty); a kick wakes it.
TEST_F(fw_test, idle_timeout_powers_down_and_a_kick_wakes) {
  run(head + "cmd cb 0 stamp 1 stamps\ncmd cb 16 end\nsubmit cb 0 0x4000\nwait-stamp stamps 0 1\nwait-powerdown\n",
      {{"agx.asc.idle_timeout", "10 us"}});
  EXPECT_EQ(failed, 0) << messages;
  EXPECT_EQ(agx->asc.powerdowns.value(), 1u);
  EXPECT_EQ(peek32(ctrl() + rg::power), 0u);
  EXPECT_EQ(agx->uat.view_tlb(uat::view::fw).valid_entries(), 0u);
  EXPECT_EQ(agx->uat.view_tlb(uat::view::ppl).valid_entries(), 0u);
  EXPECT_EQ(agx->asc.cache.dirty_lines(), 0u);
  EXPECT_EQ(agx->asc.wakeups.value(), 0u);
}

TEST_F(fw_test, a_kick_wakes_the_asc_from_deep_wfi) {
  run(head +
          "cmd cb 0 stamp 1 stamps\ncmd cb 16 end\nsubmit cb 0 0x4000\nwait-stamp stamps 0 1\nwait-powerdown\n"
          "cmd cb 0 stamp 2 stamps\nsubmit cb 0 0x4000\nwait-stamp stamps 0 2\n",
      {{"agx.asc.idle_timeout", "10 us"}});
  EXPECT_EQ(failed, 0) << messages;
  EXPECT_EQ(agx->asc.wakeups.value(), 1u);
  EXPECT_EQ(peek32(ctrl() + rg::power), 1u);
}

// Work: the firmware takes the Dekker lock, names the context in cur_slot, writes through the GPU
// view of slot 1, and restores cur_slot = 0 (released: turn = 0, lock_fw = 0).
TEST_F(fw_test, work_writes_through_the_gpu_view_of_its_slot) {
  run(head +
      "alloc tgt 1\nmap tgt 0x1500d50000 uncached gpu slot 1\n"
      "cmd cb 0 work 1 0x1500d50000 64 0xabcd0123\ncmd cb 24 stamp 1 stamps\ncmd cb 40 end\n"
      "submit cb 0 0x4000\nwait-stamp stamps 0 1\n");
  EXPECT_EQ(failed, 0) << messages;
  // tgt is the driver's page after ctrl, stamps, cb and their tables: find it through a GPU walk.
  const auto t = agx->uat.translate_debug(uat::view::gpu, 1, 0x1500d50000ull, uat::access_type::read);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(peek32(t.pa), 0xabcd0123u);
  EXPECT_EQ(peek32(t.pa + 60), 0xabcd0123u);
  EXPECT_EQ(peek32(t.pa + 64), 0u);
  EXPECT_EQ(peek32(handoff + hf::cur_slot), 0u);
  EXPECT_EQ(peek8(handoff + hf::lock_fw), 0u);
  EXPECT_EQ(peek32(handoff + hf::turn), 0u);
}

TEST_F(fw_test, an_unknown_sku_command_asserts) {
  run(head + "cmd cb 0 raw 0x42424242\nsubmit cb 0 0x4000\nwait-stamp stamps 0 1\n");
  EXPECT_TRUE(agx->asc.asserted());
  EXPECT_NE(agx->asc.assert_text().find("unknown SKU command 0x2"), std::string::npos) << agx->asc.assert_text();
  EXPECT_GT(failed, 0);
  EXPECT_EQ(agx->modelled_errors().size(), 1u);
}

TEST_F(fw_test, a_non_sequential_stamp_asserts) {
  run(head + "cmd cb 0 stamp 5 stamps\ncmd cb 16 end\nsubmit cb 0 0x4000\nwait-stamp stamps 0 5\n");
  EXPECT_NE(agx->asc.assert_text().find("non-sequential stamp update at 0xffffffa000100000: 0 -> 5"), std::string::npos)
      << agx->asc.assert_text();
  EXPECT_EQ(peek32(0), 0u);
}

TEST_F(fw_test, fwctl_without_a_pending_flush_asserts) {
  run(head + "fwctl cb\nwait-stamp stamps 0 1\n");
  EXPECT_EQ(agx->asc.assert_text(), "uPPL: FWCtl for 0xffffffa00c428000 (context 0x40) but flush slot 64 is in state 0");
}

// A kick whose TYPE is not 0x8 (bits 59:52), or whose KICK index is not 0, wakes nothing up: the
// ring entry written before it is served only by the next proper kick.
TEST_F(fw_test, kicks_of_another_type_or_ring_are_ignored) {
  run(head +
      "cmd cb 0 stamp 1 stamps\ncmd cb 16 end\n"
      "write ctrl 0x100 2 u32\nwrite ctrl 0x108 0xffffffa00c428000\nwrite ctrl 0x110 0x4000 u32\nwrite ctrl 0 1 u32\n"
      "kick 0x0094000000000000\nkick 0x0084000000000001\nwait 5000\n"
      "expect-mem stamps 0 0\nkick 0x0084000000000000\nwait-stamp stamps 0 1\n");
  EXPECT_EQ(failed, 0) << messages;
  EXPECT_EQ(agx->asc.kicks.value(), 3u);
  EXPECT_EQ(agx->asc.commands(), 2u);
}

TEST_F(fw_test, scenario_errors_name_file_and_line) {
  EXPECT_THROW(agx_scenario::parse("boot\nfrobnicate\n", "x.agx"), config_error);
  EXPECT_THROW(agx_scenario::parse("alloc a 1\n", "x.agx"), config_error);  // no boot
  EXPECT_THROW(agx_scenario::parse("boot\nsubmit\n", "x.agx"), config_error);
  EXPECT_THROW(agx_scenario::parse("boot\nalloc a 1\nmap a 0x4000 writeback fw\n", "x.agx"), config_error);
  EXPECT_THROW(agx_scenario::parse("boot\nalloc a 1\nmap a 0x4000 cached gpu 1\n", "x.agx"), config_error);
  EXPECT_THROW(agx_scenario::parse("boot\nalloc a 1\nmap a 0x4000 cached rw\n", "x.agx"), config_error);
  EXPECT_THROW(agx_scenario::parse("boot\nfill b 0x42\n", "x.agx"), config_error);  // no such buffer
  EXPECT_THROW(agx_scenario::parse("boot\nalloc a 1\ncmd a 0 stamp 1 nope\n", "x.agx"), config_error);
  EXPECT_THROW(agx_scenario::parse("boot\nalloc a 1\ncmd a 0 jump 1\n", "x.agx"), config_error);
  EXPECT_THROW(agx_scenario::parse("boot\nalloc a one\n", "x.agx"), config_error);
  try {
    agx_scenario::parse("boot\ntlbi-all extra\n", "x.agx");
    FAIL();
  } catch (const config_error& e) {
    EXPECT_NE(std::string(e.what()).find("x.agx:2"), std::string::npos) << e.what();
  }
}

// Line n of the overlay is the scenario's line n (errors name the scenario's line); the fixed
// settings follow, unless the scenario gives them.
TEST_F(fw_test, overlay_keeps_the_scenarios_line_numbers) {
  EXPECT_EQ(agx_scenario::overlay("set agx.ap.stage2 true\nboot\nset agx.asc.idle_timeout 20 us # c\n"),
            "\"agx.ap.stage2\": \"true\"\n\n\"agx.asc.idle_timeout\": \"20 us\"\nagx.uat.detect_stale: true\n");
  EXPECT_EQ(agx_scenario::overlay("set agx.uat.detect_stale false\nset agx.asc.launch.kernels k.g\n"),
            "\"agx.uat.detect_stale\": \"false\"\n\"agx.asc.launch.kernels\": \"k.g\"\ncomponents.compute: compute\n");
  // Quotes and backslashes in a value stay text.
  EXPECT_EQ(agx_scenario::overlay("set a.b x\"\\y\n"), "\"a.b\": \"x\\\"\\\\y\"\nagx.uat.detect_stale: true\n");
}
