// SPDX-License-Identifier: Apache-2.0
// TLBI broadcast: ASID and global entries, the seed's operands, the AXI2AF bridge's pokes, stage 2
// and the hypervisor's passthrough; and the `agx` platform on the command line.
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <gtest/gtest.h>
#include "agx_fixture.h"
#include "cli.h"
#include "cli_testing.h"

using namespace agx_test;
using uat::tlbi_op;

namespace {
struct tlbi_test : agx_fixture {
  // Fills the view's TLB with the page, then remaps it in memory to 0x961df8000: until a TLBI
  // covers the entry, translations keep the old PA (a stale hit).
  void fill_then_remap_user(view v) {
    map_user(seed_pte_user);
    ASSERT_EQ(tr(v, 1, user_va).pa, 0x961df4000ull);
    store64(user_l3 + 0x354 * 8, 0x00E0000961DF8C0Bull);
  }
  uint64_t pa(view v, unsigned slot, uint64_t va) { return tr(v, slot, va).pa; }
};
}  // namespace

// Operands (mem.rs / m1n1): vae1os = ASID << 48 | VA >> 12; the seed's "1000001500d50" is ASID 1,
// VA 0x1500d50000. aside1os = ASID << 48.
TEST_F(tlbi_test, a_stale_entry_stays_until_a_tlbi_for_its_asid_and_page) {
  build({{"agx.uat.detect_stale", "true"}});
  fill_then_remap_user(view::gpu);
  EXPECT_EQ(pa(view::gpu, 1, user_va), 0x961df4000ull);  // stale
  EXPECT_EQ(walk(view::gpu, 1, user_va).pa, 0x961df8000ull);
  agx->tlbi(tlbi_op::vae1os, 0x2000001500d50ull);    // ASID 2: not ours
  agx->tlbi(tlbi_op::aside1os, 0x2000000000000ull);  // ASID 2
  agx->tlbi(tlbi_op::vae1os, 0x1000001500d54ull);    // ASID 1, the next page
  EXPECT_EQ(pa(view::gpu, 1, user_va), 0x961df4000ull);
  EXPECT_EQ(agx->uat.stat(view::gpu, "stale_hits"), 2u);
  const uat::stale_hit* s = agx->uat.first_stale(view::gpu);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->stale_pa, 0x961df4000ull);
  EXPECT_EQ(s->current_pa, 0x961df8000ull);
  EXPECT_EQ(s->va, user_va);
  agx->tlbi(tlbi_op::vae1os, 0x1000001500d50ull);  // the seed's operand
  EXPECT_EQ(pa(view::gpu, 1, user_va), 0x961df8000ull);
  EXPECT_EQ(agx->uat.stat(view::gpu, "tlbi_vae1os"), 3u);
  EXPECT_EQ(agx->uat.stat(view::gpu, "entries_invalidated"), 1u);
  // aside1os of ASID 1 drops it too.
  store64(user_l3 + 0x354 * 8, seed_pte_user);
  agx->tlbi(tlbi_op::aside1os, 0x1000000000000ull);
  EXPECT_EQ(pa(view::gpu, 1, user_va), 0x961df4000ull);
  EXPECT_EQ(agx->uat.stat(view::gpu, "stale_hits"), 2u);
}

// Kernel pages are global (nG = 0): a by-VA TLBI with any ASID hits them (the seed: macOS uses
// 0x40, "this field is actually ignored"), an ASID TLBI does not (ARM's aside1 keeps globals).
TEST_F(tlbi_test, global_entries_ignore_the_asid_of_by_va_tlbis) {
  build();
  map_kernel(seed_pte_kernel);
  ASSERT_TRUE(tr(view::fw, 0, kern_va).ok());
  store64(kern_l3 + 0x10a * 8, 0);  // unmapped
  agx->tlbi(tlbi_op::aside1os, 0);
  EXPECT_TRUE(tr(view::fw, 0, kern_va).ok());
  // vae1os with ASID 0x40: VA 0xffffffa00c428000 >> 12 masked to 44 bits.
  agx->tlbi(tlbi_op::vae1os, 0x40ull << 48 | ((kern_va >> 12) & 0xffffffffffcull));
  EXPECT_EQ(tr(view::fw, 0, kern_va).f, fault::invalid);
}

// The seed's range TLBIs (reference, section 4): 0x40801ffe80310c = ASID 0x40, TG 2 (16 KiB),
// SCALE 0, NUM 0 -> (0 + 1) << 1 = 2 pages from BaseADDR 0x1ffe80310c = VA 0xffffffa00c430000:
// the end of the remapped range [0xffffffa00c428000, +0x8000), so it misses both remapped pages.
// 0x40801ffe80310a starts at 0xffffffa00c428000 and covers them.
TEST_F(tlbi_test, rvae1os_with_the_end_of_range_operand_misses_the_first_page) {
  build({{"agx.uat.detect_stale", "true"}});
  map_kernel(seed_pte_kernel);
  ASSERT_EQ(pa(view::fw, 0, kern_va), 0x9109bc000ull);
  ASSERT_EQ(pa(view::fw, 0, kern_va + 0x4000), 0x90fd80000ull);
  store64(kern_l3 + 0x10a * 8, 0);  // the dance's unmap
  store64(kern_l3 + 0x10b * 8, 0);
  agx->tlbi(tlbi_op::rvae1os, 0x40801ffe80310cull);
  EXPECT_EQ(pa(view::fw, 0, kern_va), 0x9109bc000ull);  // still there: stale
  EXPECT_EQ(pa(view::fw, 0, kern_va + 0x4000), 0x90fd80000ull);
  EXPECT_EQ(agx->uat.stat(view::fw, "stale_hits"), 2u);
  EXPECT_EQ(agx->uat.first_stale(view::fw)->current_pa, 0u);  // memory maps nothing there
  agx->tlbi(tlbi_op::rvae1os, 0x40801ffe80310aull);
  EXPECT_EQ(tr(view::fw, 0, kern_va).f, fault::invalid);
  EXPECT_EQ(tr(view::fw, 0, kern_va + 0x4000).f, fault::invalid);
  EXPECT_EQ(agx->uat.stat(view::fw, "entries_invalidated"), 2u);
  // SCALE 1, NUM 1: (1 + 1) << 6 = 128 pages; TG 0 (reserved) covers nothing.
  const auto s = uat::decode_tlbi(tlbi_op::rvae1os, uint64_t(2) << 46 | uint64_t(1) << 44 | uint64_t(1) << 39 | 0x10);
  EXPECT_EQ(s.first, 0x10u);
  EXPECT_EQ(s.pages, 128u);
  EXPECT_EQ(uat::decode_tlbi(tlbi_op::rvae1os, 0x801ffe80310aull & ~(uint64_t(3) << 46)).pages, 0u);
}

// The bridge forwards TLBIs to the ASC side only with its pokes in place: without them the GPU's
// TLB is invalidated and the ASC's keeps its stale entry, and each drop is counted.
TEST_F(tlbi_test, without_the_pokes_the_asc_never_sees_a_tlbi) {
  build({{"agx.axi2af.pokes", "false"}});
  fill_then_remap_user(view::fw);                           // fw TLB: 0x961df4000; memory: 0x961df8000
  ASSERT_EQ(tr(view::gpu, 1, user_va).pa, 0x961df8000ull);  // the GPU walks after the remap
  store64(user_l3 + 0x354 * 8, 0x00E0000961DFCC0Bull);      // and again: 0x961dfc000
  agx->tlbi(tlbi_op::vmalle1os, 0);
  EXPECT_EQ(agx->bridge.tlbis_dropped.value(), 1u);
  EXPECT_EQ(agx->uat.stat(view::fw, "tlbi_vmalle1os"), 0u);
  EXPECT_EQ(agx->uat.stat(view::gpu, "tlbi_vmalle1os"), 1u);
  EXPECT_EQ(pa(view::fw, 1, user_va), 0x961df4000ull);   // stale in the ASC's view
  EXPECT_EQ(pa(view::gpu, 1, user_va), 0x961dfc000ull);  // the GPU's was invalidated
  // A driver that writes the pokes itself (m1n1's list, 32-bit read-modify-writes) opens the gate.
  for (const auto& pk : axi2af::axi2af::pokes_of("t8103")) {
    gpuvp::reg* r = agx->bridge.regs.find(pk.offset);
    r->set((r->get() & ~uint64_t(pk.clear)) | pk.set);
  }
  agx->tlbi(tlbi_op::vmalle1os, 0);
  EXPECT_EQ(agx->bridge.tlbis_forwarded.value(), 1u);
  EXPECT_EQ(pa(view::fw, 1, user_va), 0x961dfc000ull);
}

// tlbi_gate chooses the pokes that matter: with only 0x800 (bit 8), clearing bit 8 drops TLBIs
// although every other poke is in place; with "none" the bridge forwards without any.
TEST_F(tlbi_test, the_gating_poke_is_a_parameter) {
  build({{"agx.axi2af.tlbi_gate", "0x800"}});
  EXPECT_EQ(agx->bridge.regs.find(0x400)->get(), 0x40010001u);  // (0 & ~0x400103ff) | 0x40010001
  EXPECT_EQ(agx->bridge.regs.find(0x800)->get(), 0x100u);
  agx->bridge.regs.find(0x800)->set(0);
  agx->tlbi(tlbi_op::vmalle1os, 0);
  EXPECT_EQ(agx->bridge.tlbis_dropped.value(), 1u);
  agx->bridge.regs.find(0x800)->set(0x100);
  agx->bridge.regs.find(0x030)->set(0);
  agx->tlbi(tlbi_op::vmalle1os, 0);
  EXPECT_EQ(agx->bridge.tlbis_forwarded.value(), 1u);
}

TEST_F(tlbi_test, gate_none_forwards_without_pokes) {
  build({{"agx.axi2af.pokes", "false"}, {"agx.axi2af.tlbi_gate", "none"}});
  agx->tlbi(tlbi_op::vmalle1os, 0);
  EXPECT_EQ(agx->bridge.tlbis_forwarded.value(), 1u);
  EXPECT_EQ(agx->bridge.regs.find(0x800)->get(), 0u);
}

// Seed: "TLBI instructions do not broadcast to the GPU from EL1 with stage 2 translation enabled".
TEST_F(tlbi_test, under_stage_2_no_tlbi_reaches_gpu_or_asc) {
  build({{"agx.ap.stage2", "true"}});
  map_user(seed_pte_user);
  ASSERT_TRUE(tr(view::gpu, 1, user_va).ok());
  ASSERT_TRUE(tr(view::fw, 1, user_va).ok());
  store64(user_l3 + 0x354 * 8, 0x00E0000961DF8C0Bull);
  EXPECT_EQ(agx->tlbi(tlbi_op::vmalle1os, 0), sc_core::SC_ZERO_TIME);
  EXPECT_EQ(agx->ap.tlbis_dropped.value(), 1u);
  EXPECT_EQ(pa(view::gpu, 1, user_va), 0x961df4000ull);
  EXPECT_EQ(pa(view::fw, 1, user_va), 0x961df4000ull);
  EXPECT_EQ(agx->bridge.tlbis_dropped.value() + agx->bridge.tlbis_forwarded.value(), 0u);  // never left the AP
}

// Timing by hand: the AP's message reaches each listener after dvm_latency (20 ns); the GPU's UAT
// applies it in tlbi_latency (10 ns) -> 30 ns; the ASC's after the bridge's tlbi_latency (4 ns)
// -> 34 ns. The AP waits for the last: 34 ns; the hypervisor's trap adds 500 ns -> 534 ns.
TEST_F(tlbi_test, hypervisor_passthrough_delivers_them_again_at_a_cost) {
  build({{"agx.ap.stage2", "true"}, {"agx.hv.tlbi_passthrough", "true"}});
  fill_then_remap_user(view::fw);
  EXPECT_EQ(agx->tlbi(tlbi_op::vae1os, 0x1000001500d50ull), sc_core::sc_time(534, sc_core::SC_NS));
  EXPECT_EQ(agx->hv.tlbis_passed.value(), 1u);
  EXPECT_EQ(pa(view::fw, 1, user_va), 0x961df8000ull);
}

TEST_F(tlbi_test, broadcast_time_without_hypervisor) {
  build();
  EXPECT_EQ(agx->tlbi(tlbi_op::vmalle1os, 0), sc_core::sc_time(34, sc_core::SC_NS));
}

// ---- the command line ----

using gpuvp::testing::run_gpuvp;
using gpuvp::testing::slurp;

TEST(agx_cli, platform_option_help_and_errors) {
  auto r = run_gpuvp({"--help"});
  EXPECT_NE(r.out.find("platforms (gpuvp run|qtest|config dump --platform NAME):"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  agx "), std::string::npos) << r.out;
  r = run_gpuvp({"run", "--platform", "agx"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("platform agx without a workload"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pokes applied (t8103)"), std::string::npos) << r.out;
  r = run_gpuvp({"config", "dump", "--platform", "default"});
  EXPECT_EQ(r.rc, 0);
  EXPECT_EQ(r.out.find("agx"), std::string::npos);
}

// The input errors each in a process of their own (ctest): an exception thrown after a simulation
// leaves ASan's view of the main stack stale (SystemC's coroutines), and a later run in the same
// process may trip over it.
TEST(agx_cli, an_unknown_platform_is_an_input_error) {
  auto r = run_gpuvp({"run", "--platform", "m3"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--platform m3: unknown platform (known: default agx"), std::string::npos) << r.err;
}

TEST(agx_cli, a_misspelt_key_gets_a_suggestion) {
  auto r = run_gpuvp({"run", "--platform", "agx", "--set", "agx.uat.ttbatt=0"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("did you mean 'agx.uat.ttbat'?"), std::string::npos) << r.err;
}

TEST(agx_cli, config_dump_lists_the_issue_keys_with_their_defaults) {
  auto r = run_gpuvp({"config", "dump", "--platform", "agx"});
  ASSERT_EQ(r.rc, 0) << r.err;
  // config dump prints integers in decimal: ttbat 0x9fff74000 = 42949099520.
  for (const char* line : {"    ttbat: 42949099520", "    pokes: true", "    stage2: false", "    tlbi_passthrough: false",
                           "    detect_stale: false", "      tlb_entries: 64"})
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  const std::string f = ::testing::TempDir() + "agx_dump.yaml";
  std::ofstream(f) << r.out;
  auto again = run_gpuvp({"config", "dump", "--platform", "agx", "--config", f});
  ASSERT_EQ(again.rc, 0) << again.err;
  EXPECT_EQ(r.out, again.out);
}

TEST(agx_cli, every_agx_parameter_is_documented) {
  auto r = run_gpuvp({"config", "dump", "--platform", "agx"});
  ASSERT_EQ(r.rc, 0) << r.err;
  std::string doc = slurp(gpuvp::testing::source_path("docs/configuration.md"));
  for (const auto& entry : std::filesystem::directory_iterator(gpuvp::testing::source_path("docs/models")))
    doc += slurp(entry.path().string());
  for (const auto& d : config::global().declarations()) {
    std::string key = std::regex_replace(d.path, std::regex("^([a-z0-9_]+)\\.([a-z0-9_]+)\\.to$"), "COMPONENT.PORT.to");
    key = std::regex_replace(key, std::regex("^interconnect\\.[a-z0-9_.]+\\.(latency|width|clock)$"), "interconnect.PORT.$1");
    key = std::regex_replace(key, std::regex("^components\\.[a-z0-9_]+$"), "components.NAME");
    key = std::regex_replace(key, std::regex("^agx\\.uat\\.(gpu|fw|ppl)\\."), "agx.uat.VIEW.");
    if (key.rfind("dram.", 0) == 0) key = "MEMORY." + key.substr(5);
    EXPECT_NE(doc.find("`" + key + "`"), std::string::npos) << "undocumented parameter " << d.path << " (as " << key << ")";
  }
}
