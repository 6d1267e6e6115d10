// SPDX-License-Identifier: Apache-2.0
// The UAT through the agx platform: the seed's PTEs, the permission tables of the three views, the
// walk's invalid levels, faults in FAULT_INFO, the TLBs' ASID tags. Expected values are worked out
// by hand from the reference (m1n1 hw/uat.py, hw/agx.py; Asahi pgtable.rs) as each comment says.
#include <sstream>
#include <gtest/gtest.h>
#include "agx_fixture.h"

using namespace agx_test;

namespace {
struct uat_test : agx_fixture {};

// "-- R- -W RW" -> rights per column (UXN << 1 | PXN), as the reference writes the tables.
std::vector<uint8_t> row(const std::string& text) {
  std::istringstream is(text);
  std::vector<uint8_t> r;
  for (std::string cell; is >> cell;) {
    uint8_t m = 0;
    if (cell[0] == 'R') m |= uat::right_r;
    if (cell[1] == 'W' || cell[1] == '?') m |= uat::right_w;  // "-?" is read as write-only (kernel FW_GPU_WO)
    if (cell[1] == 'X') m |= uat::right_x | uat::right_r;     // "RX"
    r.push_back(m);
  }
  return r;
}
}  // namespace

// Seed: 0x00E0000961DF4C0B maps 1:0x1500d50000 -> 0x961df4000 (OS=1, UXN=1, PXN=1, nG=1, AF=1,
// AP=0, AttrIndex=2); 0x00C00009109BC44B maps 0:0xfa00c428000 -> 0x9109bc000 (AP=1, PXN=0, nG=0).
TEST_F(uat_test, seed_ptes_decode_to_the_seed_addresses_and_attributes) {
  build();
  map_user(seed_pte_user);
  map_kernel(seed_pte_kernel);
  auto t = tr(view::gpu, 1, user_va + 0x1234);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t.pa, 0x961df5234ull);  // the page offset is kept
  EXPECT_EQ(t.level, 3u);
  EXPECT_EQ(uat::pte_fields::attr(t.pte), 2u);
  EXPECT_EQ(uat::pte_fields::ap(t.pte), 0u);
  EXPECT_TRUE(uat::pte_fields::uxn(t.pte) && uat::pte_fields::pxn(t.pte) && uat::pte_fields::ng(t.pte));
  EXPECT_EQ(uat::pte_fields::sh(t.pte), 0u);
  // GPU=RW, EL1=RW, GL1=RW (perm=10011: AP0, column 3).
  for (view v : {view::gpu, view::fw, view::ppl})
    for (auto a : {access_type::read, access_type::write}) EXPECT_TRUE(walk(v, 1, user_va, a).ok()) << uat::view_name(v);
  // GPU=--, EL1=RW, GL1=RW (perm=10110: AP1, column 2).
  EXPECT_EQ(walk(view::gpu, 0, kern_va).f, fault::no_access);
  t = tr(view::fw, 0, kern_va, access_type::write);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t.pa, 0x9109bc000ull);
  EXPECT_EQ(uat::pte_fields::ap(t.pte), 1u);
  EXPECT_FALSE(uat::pte_fields::ng(t.pte));
  EXPECT_EQ(walk(view::ppl, 0, kern_va + 0x4000).pa, 0x90fd80000ull);
}

// Every (OS, AP, UXN, PXN) in every view, against the reference's tables (section 4).
TEST_F(uat_test, every_permission_combination_in_every_view) {
  build();
  const char* gpu_os1[4] = {"-- R- -W RW", "-- -- -- R-", "R- -W RW --", "-- -- -- --"};
  const char* fw_os1[4] = {"-- R- -? RW", "R- -- RW RW", "-- -- -- --", "-- -- -- --"};
  const char* el1_os0[4] = {"-- -- -- --", "-- RW -- RW", "-- RX -- --", "RX R- -- R-"};
  const char* gl1_os0[4] = {"-- -- -- RW", "-- -- -- RW", "RX -- -- R-", "RX RW -- R-"};
  unsigned checked = 0;
  for (unsigned os = 0; os < 2; ++os)
    for (unsigned ap = 0; ap < 4; ++ap)
      for (unsigned col = 0; col < 4; ++col) {
        const uint64_t pte =
            0x961df4000ull | 0x403 | uint64_t(ap) << 6 | uint64_t(col & 1) << 53 | uint64_t(col >> 1) << 54 | uint64_t(os) << 55;
        map_user(pte);
        const uint8_t expect[3] = {os ? row(gpu_os1[ap])[col] : uint8_t(0), (os ? row(fw_os1[ap]) : row(el1_os0[ap]))[col],
                                   (os ? row(fw_os1[ap]) : row(gl1_os0[ap]))[col]};
        for (unsigned v = 0; v < 3; ++v) {
          const uint8_t r = expect[v];
          // Reasons: allowed; a write where only reading is allowed read_only; a read where only
          // writing is allowed write_only; nothing at all, or execute denied, no_access.
          auto want = [&](access_type a) {
            const uint8_t need = a == access_type::read ? 1 : a == access_type::write ? 2 : 4;
            if (r & need) return fault::none;
            if (r == 0) return fault::no_access;
            if (a == access_type::write && (r & 1)) return fault::read_only;
            if (a == access_type::read && (r & 2)) return fault::write_only;
            return fault::no_access;
          };
          for (auto a : {access_type::read, access_type::write, access_type::execute}) {
            const auto t = walk(view(v), 1, user_va, a);
            EXPECT_EQ(t.f, want(a)) << "OS " << os << " AP " << ap << " UXN " << (col >> 1) << " PXN " << (col & 1) << " view "
                                    << uat::view_name(view(v)) << " access " << int(a);
            if (t.f != fault::none) {
              EXPECT_EQ(t.level, 3u);
            }
            ++checked;
          }
        }
      }
  EXPECT_EQ(checked, 2u * 4 * 4 * 3 * 3);
  // The kernel's names (pgtable.rs), with bit 55 set: GPU_RW = (2,1,0) is GPU RW and FW --.
  map_user(0x961df4000ull | 0x403 | 2 << 6 | uint64_t(1) << 54 | uint64_t(1) << 55);
  EXPECT_TRUE(walk(view::gpu, 1, user_va, access_type::write).ok());
  EXPECT_EQ(walk(view::fw, 1, user_va).f, fault::no_access);
}

// A descriptor with VALID = 0 ends the walk at its level (0 = TTBAT entry ... 3 = leaf).
TEST_F(uat_test, invalid_descriptors_fault_at_their_level_and_af0_is_access_flag) {
  build();
  map_user(seed_pte_user);
  EXPECT_EQ(walk(view::gpu, 5, user_va).f, fault::invalid);  // slot 5: TTBAT entry is zero
  EXPECT_EQ(walk(view::gpu, 5, user_va).level, 0u);
  store64(user_l1 + 8, 0);
  EXPECT_EQ(walk(view::gpu, 1, user_va).level, 1u);
  map_user(seed_pte_user);
  store64(user_l2 + 0x280 * 8, user_l3 | 2);  // TYPE without VALID
  EXPECT_EQ(walk(view::gpu, 1, user_va).f, fault::invalid);
  EXPECT_EQ(walk(view::gpu, 1, user_va).level, 2u);
  map_user(seed_pte_user & ~uint64_t(2));  // leaf with TYPE = 0: not a page
  EXPECT_EQ(walk(view::gpu, 1, user_va).level, 3u);
  EXPECT_EQ(walk(view::gpu, 1, user_va).f, fault::invalid);
  map_user(seed_pte_user & ~uint64_t(1 << 10));  // AF = 0
  EXPECT_EQ(walk(view::gpu, 1, user_va).f, fault::access_flag);
  EXPECT_EQ(tr(view::gpu, 1, user_va).f, fault::access_flag);
  EXPECT_EQ(agx->uat.view_tlb(view::gpu).valid_entries(), 0u);  // AF = 0 leaves are not cached
  // L2 VALID with TYPE = 0: m1n1's walker follows it as a table (the default).
  map_user(seed_pte_user);
  store64(user_l2 + 0x280 * 8, user_l3 | 1);
  EXPECT_TRUE(walk(view::gpu, 1, user_va).ok());
}

TEST_F(uat_test, type0_tables_are_invalid_under_the_kernels_rule) {
  build({{"agx.uat.l12_type0", "invalid"}});
  map_user(seed_pte_user);
  store64(user_l2 + 0x280 * 8, user_l3 | 1);
  EXPECT_EQ(walk(view::gpu, 1, user_va).f, fault::invalid);
  EXPECT_EQ(walk(view::gpu, 1, user_va).level, 2u);
}

// VA bit 39 picks TTB1: the same low bits in the kernel half walk another table.
TEST_F(uat_test, user_and_kernel_halves_use_ttb0_and_ttb1) {
  build();
  map_user(seed_pte_user);
  map_kernel(seed_pte_kernel);
  set_ttb(1, 1, kern_l1 | 1);  // slot 1's TTB1 points at the shared kernel table (m1n1 does this)
  EXPECT_EQ(walk(view::fw, 1, kern_va).pa, 0x9109bc000ull);
  EXPECT_EQ(walk(view::fw, 1, kern_va & 0x7fffffffffull).f, fault::invalid);   // bit 39 clear: TTB0, L1[2] empty
  EXPECT_EQ(walk(view::fw, 1, kern_va & 0xffffffffffull).pa, 0x9109bc000ull);  // bits 63:40 ignored
  set_ttb(1, 1, 0);
  EXPECT_EQ(walk(view::fw, 1, kern_va).level, 0u);  // TTB1 invalid
  EXPECT_TRUE(walk(view::fw, 1, user_va).ok());     // TTB0 still serves the user half
}

// FAULT_INFO (hw/agx.py): ADDR 63:30 = VA >> 6, CONTEXT 22:17, UNIT 16:9, LEVEL 8:7, READ 4,
// REASON 3:1, FAULTED 0. A GPU write to the seed's kernel page (GPU=--) in slot 0 with client 3:
// (0xa00c428000 >> 6) << 30 | 0 << 17 | 3 << 9 | 3 << 7 | 0 << 4 | 4 << 1 | 1.
TEST_F(uat_test, gpu_faults_latch_fault_info_raise_the_interrupt_and_answer_an_error) {
  build();
  map_kernel(seed_pte_kernel);
  uint32_t v = 0;
  gpu->ext.vm_context = 0;
  gpu->ext.vm_client = 3;
  EXPECT_EQ(gpu->write(kern_va, &v, 4), tlm::TLM_COMMAND_ERROR_RESPONSE);
  const uint64_t expect = (0xa00c428000ull >> 6) << 30 | 3u << 9 | 3u << 7 | 4u << 1 | 1;
  EXPECT_EQ(agx->uat.fault_info.get(), expect);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  EXPECT_TRUE(agx->uat.fault_irq.read());
  // A second fault does not overwrite the first.
  gpu->ext.vm_context = 7;
  EXPECT_EQ(gpu->read(user_va, &v, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);  // slot 7 invalid
  EXPECT_EQ(agx->uat.fault_info.get(), expect);
  EXPECT_EQ(agx->uat.faults_lost.value(), 1u);
  EXPECT_EQ(agx->uat.modelled_errors().size(), 3u);  // still latched + the two faults
  // Writing 1 to FAULTED acknowledges it (our choice); then the next fault latches: slot 7, client
  // 3, level 0, read, reason 0 -> (0x1500d50000 >> 6) << 30 | 7 << 17 | 3 << 9 | 1 << 4 | 1.
  uint64_t one = 1;
  gpuvp::transaction t(tlm::TLM_WRITE_COMMAND, 0x17030, &one, 8);
  sc_core::sc_time d;
  agx->uat.regs.b_transport(t.gp, d);
  EXPECT_EQ(agx->uat.fault_info.get(), 0u);
  EXPECT_EQ(gpu->read(user_va, &v, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(agx->uat.fault_info.get(), (0x1500d50000ull >> 6) << 30 | 7u << 17 | 3u << 9 | 1u << 4 | 1);
  // ASC faults answer an error but leave FAULT_INFO alone (latch_asc_faults = false).
  fw->ext.vm_context = 9;
  agx->uat.regs.b_transport(t.gp, d);
  EXPECT_EQ(fw->read(user_va, &v, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(agx->uat.fault_info.get(), 0u);
  // Context slots are 6 bits: 64 is no slot.
  gpu->ext.vm_context = 64;
  EXPECT_EQ(gpu->read(user_va, &v, 4), tlm::TLM_GENERIC_ERROR_RESPONSE);
  EXPECT_EQ(agx->uat.bad_slot.value(), 1u);
}

// Data through the views: a GPU write lands at the PA, split at the 16 KiB page boundary.
TEST_F(uat_test, accesses_reach_dram_at_the_translated_address) {
  build();
  map_user(seed_pte_user);
  store64(user_l3 + 0x355 * 8, 0x00E0000961DF0C0Bull);  // next VA page -> 0x961df0000
  gpu->ext.vm_context = 1;
  const uint64_t value = 0x1122334455667788ull;
  ASSERT_EQ(gpu->write(user_va + 0x3ffc, &value, 8), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(uint32_t(load64(0x961df7ff8ull) >> 32), 0x55667788u);  // first 4 bytes at the end of page 0x961df4000
  EXPECT_EQ(uint32_t(load64(0x961df0000ull)), 0x11223344u);        // last 4 at the start of 0x961df0000
  uint64_t back = 0;
  ASSERT_EQ(gpu->read(user_va + 0x3ffc, &back, 8), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(back, value);
}

// Timing worked out by hand: a hit costs hit_latency (1 ns). A miss adds walk_latency (2 ns) and
// four 8-byte reads through the fabric, 1 ns (agx.gpu_out port) + 1 cycle (8 bytes on a 32-byte
// link, 1 ns) + 1 ns (dram port) + 60 ns = 63 ns each, whether the read goes by b_transport (the
// TTBAT entry and L1) or through the DMI region L1's read obtained (L2, L3: the read's transaction
// still crosses the fabric, so DMI changes no time).
TEST_F(uat_test, a_hit_costs_the_lookup_and_a_miss_the_walk) {
  build();
  map_user(seed_pte_user);
  sc_core::sc_time d;
  agx->uat.translate(view::gpu, 1, user_va, access_type::read, d);
  EXPECT_EQ(d, sc_core::sc_time(1 + 2 + 63 + 63 + 63 + 63, sc_core::SC_NS));
  d = sc_core::SC_ZERO_TIME;
  agx->uat.translate(view::gpu, 1, user_va, access_type::read, d);
  EXPECT_EQ(d, sc_core::sc_time(1, sc_core::SC_NS));
  EXPECT_EQ(agx->uat.stat(view::gpu, "hits"), 1u);
  EXPECT_EQ(agx->uat.stat(view::gpu, "misses"), 1u);
  EXPECT_EQ(agx->uat.stat(view::gpu, "walks"), 1u);
  EXPECT_EQ(agx->uat.stat(view::fw, "misses"), 0u);  // views keep their own TLBs
}

// The tag is the TTBAT entry's ASID field: two slots with ASID 1 share entries even though their
// tables differ (slot 2 gets slot 1's translation from the TLB), and only the walk tells them apart.
TEST_F(uat_test, tlb_tag_is_the_asid_field_not_the_slot) {
  build();
  map_user(seed_pte_user);
  set_ttb(2, 0, uint64_t(1) << 48 | 0x800300000ull | 1);  // slot 2, ASID 1, an empty L1 table
  EXPECT_TRUE(tr(view::gpu, 1, user_va).ok());
  const auto t = tr(view::gpu, 2, user_va);
  EXPECT_TRUE(t.hit);
  EXPECT_EQ(t.pa, 0x961df4000ull);
  EXPECT_EQ(walk(view::gpu, 2, user_va).f, fault::invalid);
  // With ASID 2 in slot 2 the lookup misses and walks slot 2's own tables.
  set_ttb(2, 0, uint64_t(2) << 48 | 0x800300000ull | 1);
  agx->tlbi(uat::tlbi_op::vmalle1os, 0);  // drops the cached TTBs too
  EXPECT_EQ(tr(view::gpu, 2, user_va).f, fault::invalid);
  // Only the low agx.uat.asid_bits (8) bits of the ASID tag: 0x101 matches ASID 1.
  set_ttb(2, 0, uint64_t(0x101) << 48 | 0x800300000ull | 1);
  agx->tlbi(uat::tlbi_op::vmalle1os, 0);
  EXPECT_TRUE(tr(view::gpu, 1, user_va).ok());
  EXPECT_TRUE(tr(view::gpu, 2, user_va).hit);
}

TEST(uat_config, bad_parameters_are_configuration_errors) {
  for (const auto& [key, value, text] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"agx.uat.gpu.tlb_entries", "48", "agx.uat.gpu.tlb_entries: TLB of 48 entries"},
           {"agx.uat.fw.tlb_policy", "mru", "agx.uat.fw.tlb_policy: 'mru' is not lru, fifo or random"},
           {"agx.uat.l12_type0", "block", "agx.uat.l12_type0: 'block' is not table or invalid"},
           {"agx.uat.ttbat", "0x9fff74008", "agx.uat.ttbat: 0x9fff74008 is not 16-byte aligned"},
           {"agx.uat.asid_bits", "17", "out of range"},
           {"agx.axi2af.tlbi_gate", "0x404", "agx.axi2af.tlbi_gate: 0x404 is not a poke offset of t8103"},
           {"agx.axi2af.soc", "t6000", "agx.axi2af.soc: 't6000' is not t8103 or t8112"}}) {
    gpuvp::testing::fresh_simulation();
    register_all_models();
    config::global().load_yaml_text(registry::global().find_platform("agx")->yaml, "agx.yaml");
    config::global().set(key, value, "test");
    try {
      platform p;
      ADD_FAILURE() << key << "=" << value << " accepted";
    } catch (const config_error& e) {
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  }
}

// The hint table (a speed switch riding on the context cache) must not change what the TLB does:
// the same accesses with the context cache off (no hints; the TTB read every time) give the same
// translations, hits, misses and evictions. Two-entry, two-way LRU TLB over three pages.
TEST(uat_hints, hits_through_hints_match_plain_lookups) {
  std::vector<std::string> runs[2];
  for (int cached = 0; cached < 2; ++cached) {
    struct fx : agx_fixture {
      void TestBody() override {}
    } f;
    f.build({{"agx.uat.context_cache", cached ? "true" : "false"}, {"agx.uat.gpu.tlb_entries", "2"}, {"agx.uat.gpu.tlb_ways", "2"}});
    f.map_user(seed_pte_user);
    f.store64(user_l3 + 0x355 * 8, 0x00E0000961DF0C0Bull);
    f.store64(user_l3 + 0x356 * 8, 0x00E0000961DECC4Bull);  // AP1, column 3: GPU read-only
    const unsigned pages[] = {0, 1, 0, 2, 1, 0, 0, 2, 2, 1};
    for (unsigned i = 0; i < 10; ++i) {
      const auto a = i % 3 == 2 ? access_type::write : access_type::read;
      const auto t = f.tr(view::gpu, 1, user_va + pages[i] * 0x4000, a);
      runs[cached].push_back(gpuvp::to_hex(t.pa) + " " + uat::fault_name(t.f) + (t.hit ? " hit" : " miss"));
      if (i == 6) f.agx->tlbi(uat::tlbi_op::vae1os, 0x1000001500d54ull);  // page 1
    }
    for (const char* s : {"hits", "misses", "evictions", "faults"}) runs[cached].push_back(std::to_string(f.agx->uat.stat(view::gpu, s)));
  }
  EXPECT_EQ(runs[0], runs[1]);
  // LRU by hand: 0 miss, 1 miss, 0 hit, 2 miss (evicts 1), 1 miss (evicts 0), 0 miss (evicts 2),
  // 0 hit, [vae1os page 1], 2 miss (a free way), 2 hit (a write: read_only), 1 miss (evicts 0).
  EXPECT_EQ(runs[1][10], "3");  // hits
  EXPECT_EQ(runs[1][11], "7");  // misses
  EXPECT_EQ(runs[1][8], "0x961dec000 read_only hit");
  EXPECT_EQ(runs[1][12], "4");  // evictions
  EXPECT_EQ(runs[1][13], "1");  // faults
}
