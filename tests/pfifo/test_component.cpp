// SPDX-License-Identifier: Apache-2.0
// The pfifo component on the platform: channels set up through the registers and USERD by the
// .pb workloads (as a driver would), run on the SystemC kernel, flat and through the NV50 MMU.
#include <fstream>
#include <sstream>
#include "gpuvp/config.h"
#include "gpuvp/host.h"
#include "gpuvp/platform.h"
#include "mmu_nv50.h"
#include "pfifo.h"
#include "testing.h"
#include "pb_reject.h"
#include "workload.h"

using namespace gpuvp;

namespace {

class pfifo_platform : public gpuvp::testing::sim_test {
 protected:
  void configure(const std::string& extra = "") {
    auto& cfg = config::global();
    cfg.load_yaml_text(default_platform_yaml(), "embedded");
    const auto* k = registry::global().find_workload_kind("x.pb");
    ASSERT_NE(k, nullptr);
    cfg.load_yaml_text(k->platform_yaml, "overlay");
    if (!extra.empty()) cfg.load_yaml_text(extra, "test");
  }
  // Runs a workload file; returns the failed expectations (messages in `msgs`).
  int run_file(platform& p, const std::string& file, std::string& msgs) {
    auto w = pfifo::load_pb_workload(gpuvp::testing::source_path(file));
    p.host_initiator().run_workload(w.get());
    sc_core::sc_start(sc_core::sc_time(200, sc_core::SC_MS));
    std::ostringstream os;
    const int failed = w->check(p, os);
    msgs = os.str();
    return failed;
  }
  // Runs a workload file that must meet all its expectations and leave no modelled error.
  void expect_passes(platform& p, const std::string& file) {
    std::string msgs;
    EXPECT_EQ(run_file(p, file, msgs), 0) << msgs;
    EXPECT_TRUE(p.modelled_errors().empty());
  }
  // The same for workload text (a file edited by the test).
  void expect_text_passes(platform& p, const std::string& text, const std::string& name) {
    auto w = pfifo::parse_pb_workload(text, name);
    p.host_initiator().run_workload(w.get());
    sc_core::sc_start(sc_core::sc_time(200, sc_core::SC_MS));
    std::ostringstream os;
    EXPECT_EQ(w->check(p, os), 0) << os.str();
    EXPECT_TRUE(p.modelled_errors().empty());
  }
  static std::string file_text(const std::string& file) {
    std::ifstream f(gpuvp::testing::source_path(file));
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
};

}  // namespace

// Without the MMU a paged DMA object faults, so channel 2's paged object (virtual 0x10000000,
// whose two small pages map A = 0x3000000 and B = 0x3001000) becomes the unpaged VRAM object
// with the same linear addresses.
TEST_F(pfifo_platform, DefaultScenarioFlat) {
  configure("pfifo:\n  memory_target: interconnect\n");
  platform p;
  std::string text = file_text("models/pfifo/workloads/default.pb");
  const std::string paged = "dmaobj 2 0x616 target vm base 0x10000000 limit 0x1fff";
  const size_t at = text.find(paged);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, paged.size(), "dmaobj 2 0x616 target vram base 0x3000000 limit 0x1fff");
  expect_text_passes(p, text, "default-flat.pb");
  EXPECT_TRUE(p.host_initiator().finished());
  // REF through the control area of channel 2 (BAR0 0xc00000 + 2 * 0x2000 + 0x48)
  uint32_t ref = 0;
  ASSERT_TRUE(p.debug_read(p.bar0_base + 0xc00000 + 2 * 0x2000 + 0x48, &ref, 4));
  EXPECT_EQ(ref, 0x102u);
  // DMA mode channel 2: DMA_GET reached DMA_PUT; IB mode channel 1: IB_GET = IB_PUT = 2 entries.
  uint32_t get = 0, put = 1, ibget = 0;
  ASSERT_TRUE(p.debug_read(p.bar0_base + 0xc00000 + 2 * 0x2000 + 0x44, &get, 4));
  ASSERT_TRUE(p.debug_read(p.bar0_base + 0xc00000 + 2 * 0x2000 + 0x40, &put, 4));
  EXPECT_EQ(get, put);
  ASSERT_TRUE(p.debug_read(p.bar0_base + 0xc00000 + 1 * 0x2000 + 0x88, &ibget, 4));
  EXPECT_EQ(ibget, 2u);
  auto* pf = p.find_as<gpuvp::pfifo::pfifo>("pfifo");
  ASSERT_NE(pf, nullptr);
  std::string reply;
  EXPECT_TRUE(pf->qtest({"pfifo", "ref", "1"}, reply));
  EXPECT_EQ(reply, "OK 0x101");
  EXPECT_TRUE(pf->qtest({"pfifo", "ref", "99"}, reply));
  EXPECT_EQ(reply.rfind("FAIL", 0), 0u);
  EXPECT_FALSE(pf->qtest({"other"}, reply));
  EXPECT_GE(pf->core().chan(1).stats.semaphore_waits + pf->core().chan(2).stats.semaphore_waits, 1u);
  EXPECT_GE(pf->core().chan(1).stats.engine_switches, 1u);
}

TEST_F(pfifo_platform, ErrorScenarioEveryErrorIsReportedAndAcknowledged) {
  configure();
  platform p;
  expect_passes(p, "models/pfifo/workloads/errors.pb");
}

TEST_F(pfifo_platform, Gf100Scenario) {
  configure("pfifo:\n  generation: GF100\n");
  platform p;
  expect_passes(p, "models/pfifo/workloads/gf100.pb");
  auto* pf = p.find_as<gpuvp::pfifo::pfifo>("pfifo");
  auto* rec = dynamic_cast<pfifo::recording_engine*>(pf->engine_at(1));
  ASSERT_NE(rec, nullptr);
  std::vector<std::pair<uint32_t, uint32_t>> got, want = {{0, 1}, {0x100, 1}, {0x104, 2}, {0x104, 3}};
  for (auto& l : rec->log) got.emplace_back(l.mthd, l.param);
  EXPECT_EQ(got, want);
  EXPECT_EQ(pf->core().chan(0).stats.semaphore_waits, 1u);
}

TEST_F(pfifo_platform, Nv40ScenarioRaminObjectsAndGlobalRamht) {
  configure("pfifo:\n  generation: NV40\n");
  platform p;
  expect_passes(p, "models/pfifo/workloads/nv40.pb");
  auto* pf = p.find_as<gpuvp::pfifo::pfifo>("pfifo");
  EXPECT_EQ(pf->initiators().at(0).to, "interconnect");  // no NV50 VM before G80
  auto* rec = dynamic_cast<pfifo::recording_engine*>(pf->engine_at(2));
  ASSERT_NE(rec, nullptr);
  std::vector<std::pair<uint32_t, uint32_t>> got, want = {{0, 0x40}, {0x104, 1}, {0x104, 2}};
  for (auto& l : rec->log) got.emplace_back(l.mthd, l.param);
  EXPECT_EQ(got, want);
  EXPECT_EQ(pf->core().chan(0).stats.semaphore_waits, 1u);
  // Set up as nouveau's nv40 fifo does it: RAMHT = search 128 << 24 | (12 - 9) << 16 | 0x10000 >> 8,
  // NV40_RAMFC = 0x30000 | 0x20000 >> 16, MODE = channels 0 and 1; the semaphore wait switched
  // channels through their RAMFC records.
  auto reg = [&](uint64_t off) {
    uint32_t v = 0;
    EXPECT_TRUE(p.debug_read(p.bar0_base + 0x2000 + off, &v, 4));
    return v;
  };
  EXPECT_EQ(reg(0x210), 0x03030100u);
  EXPECT_EQ(reg(0x220), 0x00030002u);
  EXPECT_EQ(reg(0x504), 3u);
  EXPECT_GE(pf->core().ramfc_saves, 1u);
  EXPECT_GE(pf->core().ramfc_loads, 2u);
  // NV40 control areas are nouveau's: BAR0 0xc00000 + 0x1000 x channel; REF at +0x48 (the
  // workload's `expect ref 1 0x41`), and channel 0's area ends where channel 1's starts.
  uint32_t ref = 0;
  ASSERT_TRUE(p.debug_read(p.bar0_base + 0xc00000 + 1 * 0x1000 + 0x48, &ref, 4));
  EXPECT_EQ(ref, 0x41u);
  ASSERT_TRUE(p.debug_read(p.bar0_base + 0xc00000 + 0x48, &ref, 4));
  EXPECT_EQ(ref, 0x40u);
}

TEST_F(pfifo_platform, WorkloadForAnotherGenerationIsRefused) {
  configure();
  platform p;
  std::string msgs;
  EXPECT_EQ(run_file(p, "models/pfifo/workloads/gf100.pb", msgs), 1);
  EXPECT_NE(msgs.find("written for GF100 but pfifo.generation is G84"), std::string::npos) << msgs;
}

TEST_F(pfifo_platform, SemaphoreMemFaultFlat) {
  configure("pfifo:\n  memory_target: interconnect\n");
  platform p;
  expect_passes(p, "models/pfifo/workloads/semaphore_fault.pb");
}

TEST_F(pfifo_platform, DefaultScenarioThroughTheMmu) {
  configure("components:\n  mmu: mmu_nv50\npfifo:\n  memory_target: auto\n");
  platform p;
  auto* pf = p.find_as<gpuvp::pfifo::pfifo>("pfifo");
  ASSERT_NE(pf, nullptr);
  ASSERT_EQ(pf->initiators().at(0).to, "mmu.in");
  expect_passes(p, "models/pfifo/workloads/default.pb");
  // Channel 2's copy reads A (virtual 0x10000000) and writes B (0x10001000): two small pages,
  // each walked once (C = B's copy proves the mapping; default.pb expects it).
  auto* mmu = p.find_as<mmu_nv50::mmu_nv50>("mmu");
  ASSERT_NE(mmu, nullptr);
  std::ostringstream os;
  mmu->report(os);
  EXPECT_NE(os.str().find("misses 2;"), std::string::npos) << os.str();
}

TEST_F(pfifo_platform, Gt215CopyEngineIsPcopyThroughTheMmu) {
  configure("pfifo:\n  generation: GT215\nmmu:\n  generation: GT215\n");
  platform p;
  std::string text = file_text("models/pfifo/workloads/default.pb");
  text.replace(text.find("gen G84"), 7, "gen GT215");
  expect_text_passes(p, text, "gt215.pb");
  // the copies went through the MMU as VM engine 0xd (PCOPY): an engine absent on GT215 would fault
  auto* pf = p.find_as<gpuvp::pfifo::pfifo>("pfifo");
  auto* ce = dynamic_cast<pfifo::m2mf_engine*>(pf->engine_at(3));
  ASSERT_NE(ce, nullptr);
  EXPECT_EQ(ce->copies, 2u);
  EXPECT_EQ(ce->faults, 0u);
}

TEST_F(pfifo_platform, UnmetExpectationFails) {
  configure();
  platform p;
  auto w = pfifo::parse_pb_workload("channel 0 dma\npush 0\n  inc 0 REF_CNT 1\nend\nexpect ref 0 2\n", "t.pb");
  p.host_initiator().run_workload(w.get());
  sc_core::sc_start(sc_core::sc_time(10, sc_core::SC_MS));
  std::ostringstream os;
  EXPECT_EQ(w->check(p, os), 1);
  EXPECT_NE(os.str().find("t.pb:5: expect ref 0 = 0x2, got 0x1"), std::string::npos) << os.str();
}

TEST_F(pfifo_platform, BadWorkloadNamesFileAndLine) {
  configure();
  const auto bad = expect_pb_rejected;
  bad("channel 0 dma\npush 0\n inc 9 0x100 1\nend\n", "w.pb:3: subchannel 9");
  bad("push 0\nend\n", "w.pb:1: channel 0 is not declared");
  bad("channel 0 dma\npush 0\n", "w.pb:2: 'push' block without 'end'");
  bad("frob\n", "w.pb:1: unknown statement 'frob'");
  bad("expect error 0 WHATEVER\n", "unknown error type");
  // NV4:G80 RAMFC (nouveau's layout) has no IB, DMA limit or SLI word; big-endian from NV11; the
  // records (32 x 128 bytes on NV40 at RAMIN 0x20000: selectors 0x2000-0x20ff) are not objects.
  bad("gen NV40\nchannel 0 ib\npush 0\nend\n", "w.pb: channel 0: IB mode needs G80 or later");
  bad("gen NV40\nchannel 0 dma limit 0x100\n", "channel 0: 'limit' needs G80 or later");
  bad("gen NV25\nchannel 1 dma sli 3\n", "channel 1: 'sli' needs G80 or later");
  bad("gen NV10\nchannel 0 dma big_endian\n", "channel 0: big-endian channels exist from NV1A");
  bad("gen NV40\nchannel 0 dma\ndmaobj 0 0x20ff target vram base 0 limit 0xfff\n",
      "dmaobj selector 0x20ff overlaps RAMFC (RAMIN 0x20000-0x20fff)");
  bad("channel 0 ib order 1\npush 0\nend\npush 0\nend\n", "do not fit");
}

// gpuvp's own CHAN_* set-up registers (NV3 and GF100; inert on NV4:GF100, test_channels.cpp).
TEST_F(pfifo_platform, RegistersAndUserdFromTheHost) {
  configure("pfifo:\n  generation: NV3\n");
  platform p;
  auto* pf = p.find_as<gpuvp::pfifo::pfifo>("pfifo");
  ASSERT_NE(pf, nullptr);
  // Timed register writes straight into the bank (the hooks run as for a host access).
  auto wr = [&](uint64_t off, uint32_t v) {
    gpuvp::transaction t(tlm::TLM_WRITE_COMMAND, off, &v, 4);
    sc_core::sc_time d;
    pf->regs.b_transport(t.gp, d);
    return t.ok();
  };
  ASSERT_TRUE(wr(0x300, 3));                // CHAN_SEL
  ASSERT_TRUE(wr(0x310, 0x1000));           // CHAN_DMA_LIMIT
  ASSERT_TRUE(wr(0x304, 1 | 8 | 5 << 16));  // CHAN_CTRL: enable, SLI, mask 5
  uint32_t v = 0;
  EXPECT_TRUE(pf->core().chan(3).enabled);
  EXPECT_TRUE(pf->core().chan(3).sli_enable);
  EXPECT_EQ(pf->core().chan(3).sli_mask, 5u);
  EXPECT_EQ(pf->core().chan(3).dma_limit, 0x1000u);
  // NV3 control areas (nouveau's NV3:NV40 user areas): BAR0 0x800000 + 0x10000 x channel;
  // channel 7 (of 8) answers, a channel beyond the count is an address error in USERD.
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // debug reads go through the bound interconnect
  EXPECT_TRUE(p.debug_read(p.bar0_base + 0x800000 + 7 * 0x10000 + 0x48, &v, 4));
  EXPECT_FALSE(p.debug_read(p.bar0_base + 0x800000 + 8 * 0x10000 + 0x48, &v, 4));
}

// Selector rebind (nv50-vm.rst: writing a slot's selector flushes the cached object; gpu_ext
// dma_bind): the pushbuffer copies A's first word through object 0x21 (base 0x3000000), then
// M2MF itself rewrites object 0x21 in the channel structure (structure 0x1000000 + 0x21 * 16) to
// base 0x3100000, then DMA_BUFFER_IN = the same object again and copies once more: by hand the
// second copy reads B (0xbbbbbbbb), not A. The new object's words lie inside A's window (offset
// 0x100), so DMA_BUFFER_IN stays 0x21 throughout: only the rewrite of the same selector (dma_bind)
// tells a cache to reload. Flat (pfifo's own object cache: without the bind this reads A, checked)
// and through mmu_nv50 (whose reload on the alternating IN/OUT selectors also covers it).
// New object words (G80 layout): class 0x3d | VRAM << 16 | 2 << 18 = 0x9003d, limit = base +
// 0x1000 = 0x3101000 (exclusive), base 0x3100000.
TEST_F(pfifo_platform, RewrittenDmaObjectIsUsedAfterTheSelectorIsRewritten) {
  const std::string wl =
      "gen G84\nchannel 0 dma\n"
      "dmaobj 0 0x20 target vram base 0 limit 0x3fffffff\n"
      "dmaobj 0 0x21 target vram base 0x3000000 limit 0xfff\n"
      "object 0 0xcafe5039 engine 1 sel 0x30\nobject 0 0xd0000020 engine 0 sel 0x20\nobject 0 0xd0000021 engine 0 sel 0x21\n"
      "vram 0x3000000 0xaaaaaaaa\nvram 0x3100000 0xbbbbbbbb\n"
      "vram 0x3000100 0x9003d 0x3101000 0x3100000 0 0 0\n"
      "push 0\n"
      "  inc 1 OBJECT 0xcafe5039\n"
      "  inc 1 M2MF.DMA_BUFFER_IN 0xd0000021 0xd0000020\n"
      "  inc 1 M2MF.OFFSET_IN 0 0x3300000\n  inc 1 M2MF.LINE_LENGTH_IN 4 1\n  inc 1 M2MF.BUFFER_NOTIFY 0\n"
      "  inc 1 M2MF.OFFSET_IN 0x100 0x1000210\n  inc 1 M2MF.LINE_LENGTH_IN 24 1\n  inc 1 M2MF.BUFFER_NOTIFY 0\n"
      "  inc 1 M2MF.DMA_BUFFER_IN 0xd0000021\n"
      "  inc 1 M2MF.OFFSET_IN 0 0x3300004\n  inc 1 M2MF.LINE_LENGTH_IN 4 1\n  inc 1 M2MF.BUFFER_NOTIFY 0\n"
      "  inc 0 REF_CNT 1\n"
      "end\n"
      "expect vram 0x3300000 0xaaaaaaaa\nexpect vram 0x3300004 0xbbbbbbbb\nexpect ref 0 1\n";
  for (const char* target : {"interconnect", "auto"}) {
    gpuvp::testing::fresh_simulation();
    configure(std::string("components:\n  mmu: mmu_nv50\npfifo:\n  memory_target: ") + target + "\n");
    platform p;
    auto w = pfifo::parse_pb_workload(wl, "rebind.pb");
    p.host_initiator().run_workload(w.get());
    sc_core::sc_start(sc_core::sc_time(10, sc_core::SC_MS));
    std::ostringstream os;
    EXPECT_EQ(w->check(p, os), 0) << target << ": " << os.str();
    EXPECT_TRUE(p.modelled_errors().empty()) << target;
    // Both ways PFIFO streamed through DMI regions (through the MMU: keyed by the side band, so
    // the region of 0x21 under bind 1 is not used for bind 2).
    EXPECT_GT(p.find_as<gpuvp::pfifo::pfifo>("pfifo")->dmi_accesses.value(), 0u) << target;
  }
}
