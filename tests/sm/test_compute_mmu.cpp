// SPDX-License-Identifier: Apache-2.0
// The compute engine's global memory through the real NV50 MMU (compute.out -> mmu.in): the SM's
// side band selects a paged DMA object, the MMU walks page tables built here, the translated
// host addresses are the ones accessed, and a page fault comes back as the compute engine's
// modelled error (and the MMU's latched fault).
#include <gtest/gtest.h>

#include <memory>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include "compute.h"
#include "gpuvp/config.h"
#include "gpuvp/memory.h"
#include "gpuvp/platform.h"
#include "gpuvp/stats.h"
#include "mmu_nv50.h"
#include "testing.h"

using namespace gpuvp;
using namespace gpuvp::sm;

namespace {

constexpr uint64_t vram = 0x200000000;  // host address of VRAM linear 0

// Between the MMU and memory: records what the MMU sends (walk reads and translated accesses).
struct tap : sc_core::sc_module {
  tlm_utils::simple_target_socket<tap> in{"in"};
  tlm_utils::simple_initiator_socket<tap> out{"out"};
  struct seen {
    uint64_t addr;
    unsigned len;
    bool write;
  };
  std::vector<seen> log;
  explicit tap(sc_core::sc_module_name n) : sc_module(n) {
    in.register_b_transport(this, &tap::b_transport);
    in.register_transport_dbg(this, &tap::dbg);
  }
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) {
    log.push_back({gp.get_address(), gp.get_data_length(), gp.is_write()});
    out->b_transport(gp, d);
  }
  unsigned dbg(tlm::tlm_generic_payload& gp) { return out->transport_dbg(gp); }
  bool saw(uint64_t addr, bool write) const {
    for (const auto& s : log)
      if (s.addr == addr && s.write == write) return true;
    return false;
  }
};

std::shared_ptr<const kernel_trace> kernel(const std::vector<trace_writer_inst>& warp) {
  return std::make_shared<const kernel_trace>(
      parse_kernel_trace_text(write_kernel_trace("k", 1, {1, 1, 1}, {32, 1, 1}, 70, 0, 32, {warp}), "generated"));
}
trace_writer_inst mem_op(const std::string& o, bool store, uint64_t base) {
  std::vector<uint64_t> a(32);
  for (unsigned t = 0; t < 32; ++t) a[t] = base + t * 4;
  if (store) return {o, {}, {4, 1}, 4, a, 0xffffffffu};
  return {o, {1}, {4}, 4, a, 0xffffffffu};
}
trace_writer_inst exit_op() { return {"EXIT", {}, {}, 0, {}, 0xffffffffu}; }

class compute_mmu : public gpuvp::testing::sim_test {
 protected:
  std::unique_ptr<compute_engine> ce;
  std::unique_ptr<mmu_nv50::mmu_nv50> mmu;
  std::unique_ptr<tap> t;
  std::unique_ptr<sparse_memory> mem;
  std::unique_ptr<gpuvp::testing::test_initiator> bar0;
  std::unique_ptr<sc_core::sc_signal<bool>> irq;

  void build() {
    auto& c = config::global();
    c.set("mem.size", "16 GiB", "test");
    c.set("mem.dmi", "false", "test");
    // The SM's side band: PGRAPH (VM engine 0), client DISPATCH (3), the paged DMA object at
    // selector 2 of the channel whose structure is at VRAM 0x100000 (descriptor 0x100).
    c.set("compute.sms", "1", "test");
    c.set("compute.vm_engine", "0", "test");
    c.set("compute.vm_client", "3", "test");
    c.set("compute.dma_slot", "2", "test");
    c.set("compute.vm_context", "0x100", "test");
    c.set("compute.mem_base", "0", "test");  // trace addresses fold to DMA object offsets [0, 1 MiB)
    c.set("compute.mem_size", "1 MiB", "test");
    tlm::tlm_global_quantum::instance().set(sc_core::sc_time(1, sc_core::SC_US));
    ce = std::make_unique<compute_engine>("compute");
    mmu = std::make_unique<mmu_nv50::mmu_nv50>("mmu");
    t = std::make_unique<tap>("tap");
    mem = std::make_unique<sparse_memory>("mem");
    bar0 = std::make_unique<gpuvp::testing::test_initiator>("bar0");
    irq = std::make_unique<sc_core::sc_signal<bool>>("irq");
    ce->out.bind(mmu->in);
    mmu->out.bind(t->in);
    t->out.bind(mem->in);
    bar0->out.bind(mmu->regs.in);
    mmu->fault_irq.bind(*irq);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    // Channel 0x100: page table at VRAM 0x200000, pages -> 0xa0000000; page 0x40 left empty.
    load_channel(0x100000, 0x200000, 0xa0000000);
  }

  // A channel structure at VRAM `structure`. Selector 2: paged, everything from the page tables,
  // base 0, limit 0xffffffffff (as the MMU's own tests build it). G84 PDE 0 at structure + 0x200:
  // small pages, table at VRAM `table`. PTEs 0..15: page i -> VRAM linear `linear` + i * 4 KiB,
  // present.
  void load_channel(uint64_t structure, uint64_t table, uint64_t linear) {
    const uint32_t d[6] = {0x7fc0003d, 0xffffffff, 0, 0xff000000, 0, 0x00080000};
    mem->load(vram + structure + 0x20, d, sizeof d);
    const uint64_t pde = table | 3;
    mem->load(vram + structure + 0x200, &pde, 8);
    for (uint64_t i = 0; i < 16; ++i) {
      const uint64_t pte = (linear | 1) + (i << 12);
      mem->load(vram + table + i * 8, &pte, 8);
    }
  }
};

}  // namespace

TEST_F(compute_mmu, GlobalAccessesAreTranslatedByThePageTables) {
  build();
  // LDG of the line at trace 0x7f0000002300: offset 0x2300 in the DMA object (1 MiB fold) ->
  // page 2 -> VRAM linear 0xa0002000 + 0x300 -> host 0x2a0002300. STG at 0x7f0000005000 ->
  // page 5 -> host 0x2a0005000.
  auto k = kernel({mem_op("LDG.E", false, 0x7f0000002300), mem_op("STG.E", true, 0x7f0000005000), exit_op()});
  ce->launch({k->grid, k->block, k});
  sc_core::sc_start();
  ASSERT_EQ(ce->results().size(), 1u);
  EXPECT_TRUE(ce->modelled_errors().empty());
  EXPECT_TRUE(t->saw(vram + 0xa0002300, false));
  EXPECT_TRUE(t->saw(vram + 0xa0005000, true));
  // The walk: the DMA object (0x18 bytes at 0x100020), the PDE and the PTEs of pages 2 and 5,
  // all linear reads.
  EXPECT_TRUE(t->saw(vram + 0x100020, false));
  EXPECT_TRUE(t->saw(vram + 0x100200, false));
  EXPECT_TRUE(t->saw(vram + 0x200000 + 2 * 8, false));
  EXPECT_TRUE(t->saw(vram + 0x200000 + 5 * 8, false));
  // Nothing went to the untranslated (folded) address.
  for (const auto& s : t->log) EXPECT_GE(s.addr, vram) << std::hex << s.addr;
  EXPECT_EQ(ce->mem_errors.value(), 0u);
  // One 128-byte line each: 4 sector reads, 4 sector writes (the L1D is sectored).
  EXPECT_EQ(ce->mem_reads.value(), 4u);
  EXPECT_EQ(ce->mem_writes.value(), 4u);
  EXPECT_FALSE(irq->read());
}

TEST_F(compute_mmu, LaunchSidebandSelectsTheChannelsPageTables) {
  build();
  // A second channel structure at VRAM 0x300000 (descriptor 0x300) with the same paged DMA object
  // at selector 2 but its own page directory: PDE 0 -> page table at VRAM 0x400000, PTE i -> VRAM
  // linear 0xb0000000 + i * 4 KiB. The same kernel (STG at trace 0x7f0000005000: offset 0x5000,
  // page 5) launched with each channel's side band (PGRAPH, client 0x0b PROP, selector 2) lands
  // at 0xa0005000 for descriptor 0x100 and at 0xb0005000 for descriptor 0x300.
  load_channel(0x300000, 0x400000, 0xb0000000);
  auto k = kernel({mem_op("STG.E", true, 0x7f0000005000), exit_op()});
  mem_sideband a{0x0, 0x0b, 2, 0, 0x100, 0}, b{0x0, 0x0b, 2, 0, 0x300, 1};
  ce->launch({k->grid, k->block, k, a});
  ce->launch({k->grid, k->block, k, b});
  sc_core::sc_start();
  ASSERT_EQ(ce->results().size(), 2u);
  EXPECT_TRUE(ce->modelled_errors().empty());
  EXPECT_EQ(ce->sideband_kernels.value(), 2u);
  EXPECT_TRUE(t->saw(vram + 0xa0005000, true));
  EXPECT_TRUE(t->saw(vram + 0xb0005000, true));
  EXPECT_TRUE(t->saw(vram + 0x300200, false));          // channel B's PDE was walked
  EXPECT_TRUE(t->saw(vram + 0x400000 + 5 * 8, false));  // and its PTE of page 5
  // A launch without a side band uses the params (descriptor 0x100): channel A's page again.
  t->log.clear();
  ce->launch({k->grid, k->block, k});
  sc_core::sc_start();
  EXPECT_TRUE(t->saw(vram + 0xa0005000, true));
  EXPECT_FALSE(t->saw(vram + 0xb0005000, true));
  EXPECT_EQ(ce->sideband_kernels.value(), 2u);
}

TEST_F(compute_mmu, PageFaultIsTheComputeEnginesModelledError) {
  build();
  // trace 0x7f0000040000 -> offset 0x40000 -> page 0x40, whose PTE (VRAM 0x200200) is 0:
  // PTE_NOT_PRESENT (reason 4), TLM_ADDRESS_ERROR_RESPONSE back to the SM.
  // A one-sector load (every lane at the same address): one access, one fault.
  auto k = kernel({{"LDG.E", {1}, {4}, 4, std::vector<uint64_t>(32, 0x7f0000040000), 0xffffffffu}, exit_op()});
  ce->launch({k->grid, k->block, k});
  sc_core::sc_start();
  EXPECT_EQ(ce->mem_errors.value(), 1u);
  const auto errs = ce->modelled_errors();
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_NE(errs[0].find("trace address 0x7f0000040000 (host 0x40000)"), std::string::npos) << errs[0];
  EXPECT_NE(errs[0].find("ADDRESS_ERROR"), std::string::npos) << errs[0];
  // The MMU latched it: FAULT_STATUS pending, reason 4, read, user (bits 0, 8-15, 17, 18 paged);
  // FAULT_SOURCE engine 0 client 3; FAULT_ADDR_LO 0x40000; its interrupt is up.
  EXPECT_EQ(bar0->read32(0xc90), 1u | 4u << 8 | 1u << 17 | 1u << 18);
  EXPECT_EQ(bar0->read32(0xc94), 3u << 8);
  EXPECT_EQ(bar0->read32(0xca4), 0x40000u);
  EXPECT_TRUE(irq->read());
  EXPECT_FALSE(mmu->modelled_errors().empty());
  // No access reached memory beyond the walk's linear reads.
  EXPECT_FALSE(t->saw(vram + 0xa0040000, false));
}

// On the platform, configured as a user would: the default platform (mmu_nv50 "mmu" in it),
// `compute.out.to: mmu.in` and the side band as params; page tables written into VRAM through
// the debug path. VRAM is 1 GiB here, so PTE i maps page i to VRAM linear 0x1000000 + i * 4 KiB.
class compute_mmu_platform : public gpuvp::testing::sim_test {
 protected:
  void configure() {
    auto& cfg = config::global();
    cfg.load_yaml_text(default_platform_yaml(), "embedded");
    cfg.load_yaml_text(
        "components:\n  compute: compute\n  traffic: none\n"
        "compute:\n  sms: 1\n  vm_engine: 0\n  vm_client: 3\n  dma_slot: 2\n  vm_context: 0x100\n"
        "  mem_base: 0\n  mem_size: 1 MiB\n  out:\n    to: mmu.in\n",
        "test");
  }
  void tables(platform& p) {
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // end of elaboration: the router's sockets are bound
    const uint32_t d[6] = {0x7fc0003d, 0xffffffff, 0, 0xff000000, 0, 0x00080000};
    ASSERT_TRUE(p.debug_write(vram + 0x100000 + 0x20, d, sizeof d));
    const uint64_t pde = 0x00200003;
    ASSERT_TRUE(p.debug_write(vram + 0x100000 + 0x200, &pde, 8));
    for (uint64_t i = 0; i < 16; ++i) {
      const uint64_t pte = 0x01000001ull + (i << 12);
      ASSERT_TRUE(p.debug_write(vram + 0x200000 + i * 8, &pte, 8));
    }
  }
};

TEST_F(compute_mmu_platform, StoreLandsAtTheTranslatedAddress) {
  configure();
  platform p;
  auto* ce = p.find_as<compute_engine>("compute");
  ASSERT_NE(ce, nullptr);
  tables(p);
  // Markers: the translated target of the STG (page 5 -> VRAM 0x1005000) and the untranslated
  // folded address (host 0x5000, system RAM) hold all-ones. The LDG of page 2 reads zeros into
  // the SM's line buffer, which the STG then writes: the marker at the translated address
  // becomes 0, the other stays.
  const uint32_t ones = 0xffffffff;
  ASSERT_TRUE(p.debug_write(vram + 0x1005000, &ones, 4));
  ASSERT_TRUE(p.debug_write(0x5000, &ones, 4));
  auto k = kernel({mem_op("LDG.E", false, 0x7f0000002300), mem_op("STG.E", true, 0x7f0000005000), exit_op()});
  ce->launch({k->grid, k->block, k});
  sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_MS));
  ASSERT_EQ(ce->results().size(), 1u);
  uint32_t v = 1, u = 0;
  ASSERT_TRUE(p.debug_read(vram + 0x1005000, &v, 4));
  ASSERT_TRUE(p.debug_read(0x5000, &u, 4));
  EXPECT_EQ(v, 0u);
  EXPECT_EQ(u, 0xffffffffu);
  // 8 translated accesses (the 4 sectors of each line), 2 PGRAPH TLB misses (pages 2 and 5), no
  // fault.
  auto& st = stats_registry::global();
  EXPECT_EQ(st.value("mmu.translations"), 8.0);
  EXPECT_EQ(st.value("mmu.pgraph.misses"), 2.0);
  EXPECT_EQ(st.value("mmu.faults"), 0.0);
  EXPECT_TRUE(p.modelled_errors().empty());
}

TEST_F(compute_mmu_platform, FaultIsAModelledErrorOfTheRun) {
  configure();
  platform p;
  auto* ce = p.find_as<compute_engine>("compute");
  ASSERT_NE(ce, nullptr);
  tables(p);
  auto k = kernel({mem_op("LDG.E", false, 0x7f0000040000), exit_op()});  // page 0x40: no PTE
  ce->launch({k->grid, k->block, k});
  sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_MS));
  ASSERT_EQ(ce->results().size(), 1u);    // the kernel runs to its end; the error is reported
  EXPECT_EQ(ce->mem_errors.value(), 4u);  // 4 sectors
  const auto errs = p.modelled_errors();
  bool from_compute = false, from_mmu = false;
  for (const auto& e : errs) {
    if (e.find("trace address 0x7f0000040000") != std::string::npos) from_compute = true;
    if (e.find("PTE_NOT_PRESENT") != std::string::npos) from_mmu = true;
  }
  EXPECT_TRUE(from_compute) << ::testing::PrintToString(errs);
  EXPECT_TRUE(from_mmu) << ::testing::PrintToString(errs);
}
