// SPDX-License-Identifier: Apache-2.0
// The mmu_nv50 component through its sockets: translation, TLB timing, flushes, faults, qtest.
#include <cstring>
#include <functional>
#include <memory>
#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>
#include "gpuvp/config.h"
#include "gpuvp/extension.h"
#include "gpuvp/host.h"
#include "gpuvp/memory.h"
#include "gpuvp/platform.h"
#include "gpuvp/stats.h"
#include "mmu_nv50.h"
#include "testing.h"

using namespace gpuvp;
using namespace gpuvp::mmu_nv50;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

constexpr uint64_t vram = 0x200000000;  // host address of VRAM linear 0
constexpr uint32_t chan = 0x100;        // channel structure at VRAM 0x100000 (G84: PD at 0x100200)

struct engine_port : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<engine_port> out{"out"};
  tlm_utils::simple_initiator_socket<engine_port> bar0{"bar0"};  // the host's BAR0 path to the registers
  int invalidations = 0;                                         // DMI invalidations received on out, and the last range
  sc_dt::uint64 inv_start = 1, inv_end = 0;
  explicit engine_port(sc_core::sc_module_name n) : sc_module(n) { out.register_invalidate_direct_mem_ptr(this, &engine_port::invalidate); }
  void invalidate(sc_dt::uint64 start, sc_dt::uint64 end) {
    ++invalidations;
    inv_start = start;
    inv_end = end;
  }
};

class mmu_nv50_sockets : public gpuvp::testing::sim_test {
 protected:
  std::unique_ptr<mmu_nv50::mmu_nv50> mmu;
  std::unique_ptr<sparse_memory> mem;  // host physical space: SYSRAM at 0, VRAM at 0x200000000
  std::unique_ptr<engine_port> eng;
  std::unique_ptr<sc_core::sc_signal<bool>> irq;

  void build(bool dmi = false) {
    auto& c = config::global();
    c.set("mem.size", "16 GiB", "test");
    c.set("mem.read_latency", "30 ns", "test");
    c.set("mem.write_latency", "30 ns", "test");
    c.set("mem.dmi", dmi ? "true" : "false", "test");
    mmu = std::make_unique<mmu_nv50::mmu_nv50>("mmu");
    mem = std::make_unique<sparse_memory>("mem");
    eng = std::make_unique<engine_port>("eng");
    irq = std::make_unique<sc_core::sc_signal<bool>>("irq");
    mmu->out.bind(mem->in);
    eng->out.bind(mmu->in);
    eng->bar0.bind(mmu->regs.in);
    mmu->fault_irq.bind(*irq);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // end of elaboration: the multi socket's callbacks
    // selector 1: unpaged VRAM base 0x10000000 limit 0x20000000.
    put_dmaobj(0x10, 0x0001003d, 0x20000000, 0x10000000, 0, 0, 0);
    // selector 2: paged, everything from the page tables, base 0, limit 0xffffffffff.
    put_dmaobj(0x20, 0x7fc0003d, 0xffffffff, 0, 0xff000000, 0, 0x00080000);
    // selector 3: paged, read-only (1<<18): w0 = 0x7fc4003d.
    put_dmaobj(0x30, 0x7fc4003d, 0xffffffff, 0, 0xff000000, 0, 0);
    put_pde(0x200, 0x00200003);   // G84 PDE 0: small pages, table at VRAM 0x200000
    put_pde(0x1400, 0x00300003);  // NV50 PDE 0: table at VRAM 0x300000
    for (uint64_t i = 0; i < 16; ++i) put_pte(0x200000 + i * 8, 0x00000000a0000001ull + (i << 12));  // page i -> 0xa000i000
    put_pte(0x300000 + 5 * 8, 0x77777001);
  }
  void put_dmaobj(uint64_t off, uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3, uint32_t w4, uint32_t w5) {
    const uint32_t w[6] = {w0, w1, w2, w3, w4, w5};
    mem->load(vram + 0x100000 + off, w, sizeof w);
  }
  void put_pde(uint64_t off, uint64_t v) { mem->load(vram + 0x100000 + off, &v, 8); }
  void put_pte(uint64_t linear, uint64_t v) { mem->load(vram + linear, &v, 8); }

  struct result {
    tlm::tlm_response_status status;
    sc_time delay;
    uint32_t data;
  };
  uint32_t bind = 0;  // gpu_ext::dma_bind of access() and dmi()
  // The side band of an engine's access through DMA object `sel` of channel `chan`.
  void side_band(transaction& t, uint32_t engine, uint32_t client, uint32_t sel) {
    t.ext.vm_engine = engine;
    t.ext.vm_client = client;
    t.ext.dma_slot = sel;
    t.ext.dma_bind = bind;
    t.ext.vm_context = chan;
  }
  result access(uint32_t engine, uint32_t client, uint32_t sel, uint64_t addr, bool write = false, uint32_t data = 0, bool user = false) {
    transaction t(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, addr, &data, 4);
    side_band(t, engine, client, sel);
    t.ext.channel = 3;
    t.ext.priv = user ? privilege::user : privilege::supervisor;
    sc_time d = sc_core::SC_ZERO_TIME;
    eng->out->b_transport(t.gp, d);
    return {t.gp.get_response_status(), d, data};
  }
  // A DMI request on mmu.in with the same side band as access().
  bool dmi(tlm::tlm_dmi& out, uint32_t engine, uint32_t client, uint32_t sel, uint64_t addr, bool write = false, bool user = false) {
    transaction t(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, addr, nullptr, 0);
    side_band(t, engine, client, sel);
    t.ext.priv = user ? privilege::user : privilege::supervisor;
    return eng->out->get_direct_mem_ptr(t.gp, out);
  }
  uint32_t reg_access(uint64_t off, bool write = false, uint32_t v = 0) {
    transaction t(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, off, &v, 4);
    sc_time d = sc_core::SC_ZERO_TIME;
    eng->bar0->b_transport(t.gp, d);
    EXPECT_TRUE(t.ok()) << std::hex << off;
    return v;
  }
  // Runs `body` in a SystemC thread (register syncs wait).
  void run(std::function<void()> body) {
    sc_core::sc_spawn([body] { body(); });
    sc_core::sc_start();
  }
  std::string qtest(const std::string& line) {
    std::vector<std::string> w;
    std::istringstream is(line);
    for (std::string s; is >> s;) w.push_back(s);
    std::string reply;
    EXPECT_TRUE(mmu->qtest(w, reply));
    return reply;
  }
};

TEST_F(mmu_nv50_sockets, TranslatedAndLinearAccesses) {
  build();
  mem->write32(vram + 0xa0005678, 0xcafe0001);  // page 5 -> VRAM 0xa0005000
  mem->write32(vram + 0x10001234, 0xcafe0002);  // unpaged: 0x10000000 + 0x1234
  mem->write32(0x4000, 0xcafe0003);             // linear SYSRAM
  EXPECT_EQ(access(engine::pfifo, client::pfifo_read, 2, 0x5678).data, 0xcafe0001u);
  EXPECT_EQ(access(engine::pfifo, client::pfifo_read, 1, 0x1234).data, 0xcafe0002u);
  EXPECT_EQ(access(engine::pfifo, client::pfifo_read, gpu_ext::none, 0x4000).data, 0xcafe0003u);
  // A write lands at the translated address.
  EXPECT_EQ(access(engine::pgraph, client::dispatch, 2, 0x5008, true, 0x1234abcd).status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(mem->read32(vram + 0xa0005008), 0x1234abcdu);
  EXPECT_EQ(mmu->linear_accesses.value(), 1u);
  EXPECT_EQ(mmu->translations.value(), 3u);
}

TEST_F(mmu_nv50_sockets, MissCostIsTheWalk) {
  build();
  // Miss on page 5: hit latency 1 + dmaobj read 30 + miss latency 2 + PDE 30 + PTE 30 + data 30.
  auto r = access(engine::pfifo, client::pfifo_read, 2, 0x5000);
  EXPECT_EQ(r.delay, sc_time(123, SC_NS));
  // Hit on page 5 (DMA object cached): 1 + 30.
  r = access(engine::pfifo, client::pfifo_read, 2, 0x5ffc);
  EXPECT_EQ(r.delay, sc_time(31, SC_NS));
  // Miss on page 6: 1 + 2 + 30 + 30 + 30 = 93: the miss costs 62 ns more, the walk's time.
  r = access(engine::pfifo, client::pfifo_read, 2, 0x6000);
  EXPECT_EQ(r.delay, sc_time(93, SC_NS));
  EXPECT_EQ(stats_registry::global().value("mmu.pfifo.hits"), 1.0);
  EXPECT_EQ(stats_registry::global().value("mmu.pfifo.misses"), 2.0);
  EXPECT_EQ(stats_registry::global().value("mmu.pfifo.walks"), 2.0);
  EXPECT_EQ(mmu->dmaobj_loads.value(), 1u);
  EXPECT_EQ(mmu->dmaobj_hits.value(), 2u);
}

TEST_F(mmu_nv50_sockets, WalkUsesDmiWhereGranted) {
  build(true);
  access(engine::pfifo, client::pfifo_read, 2, 0x5000);  // first reads get DMI granted
  const uint64_t before = mmu->walk_dmi_reads.value();
  access(engine::pfifo, client::pfifo_read, 2, 0x7000);  // PDE and PTE through DMI
  EXPECT_EQ(mmu->walk_dmi_reads.value(), before + 2);
}

TEST_F(mmu_nv50_sockets, EvictionUnderCapacity) {
  config::global().set("mmu.tlb_entries", "4", "test");
  config::global().set("mmu.tlb_ways", "4", "test");
  build();
  for (uint64_t p = 0; p < 5; ++p) access(engine::pgraph, client::dispatch, 2, p << 12);  // 5 pages, 4 entries
  EXPECT_EQ(mmu->evictions.value(), 1u);
  EXPECT_EQ(mmu->engine_tlb(engine::pgraph).valid_entries(), 4u);
  // LRU evicted page 0 (the oldest): touching page 4 hits, page 0 walks again.
  access(engine::pgraph, client::dispatch, 2, 4 << 12);
  EXPECT_EQ(stats_registry::global().value("mmu.pgraph.hits"), 1.0);
  access(engine::pgraph, client::dispatch, 2, 0);
  EXPECT_EQ(stats_registry::global().value("mmu.pgraph.walks"), 6.0);
}

TEST_F(mmu_nv50_sockets, FlushOneEngineAndCompletionTiming) {
  build();
  run([this] {
    access(engine::pgraph, client::dispatch, 2, 0x1000);
    access(engine::pfifo, client::pfifo_read, 2, 0x1000);
    EXPECT_EQ(mmu->engine_tlb(engine::pgraph).valid_entries(), 1u);
    EXPECT_EQ(mmu->engine_tlb(engine::pfifo).valid_entries(), 1u);
    sc_core::wait(sc_time(1000, SC_NS));
    reg_access(0xc80, true, 5 << 16 | 1);  // flush PFIFO's TLB at t = 1000 ns
    EXPECT_EQ(mmu->engine_tlb(engine::pfifo).valid_entries(), 0u);
    EXPECT_EQ(mmu->engine_tlb(engine::pgraph).valid_entries(), 1u);  // others keep theirs
    EXPECT_EQ(reg_access(0xc80), 0x50001u);                          // busy: bit 0 still 1
    sc_core::wait(sc_time(199, SC_NS));
    EXPECT_EQ(reg_access(0xc80) & 1, 1u);  // 1199 ns: flush_latency 200 ns not yet over
    sc_core::wait(sc_time(1, SC_NS));
    EXPECT_EQ(reg_access(0xc80), 0x50000u);  // 1200 ns: done
    EXPECT_EQ(mmu->flushes.value(), 1u);
    // PFIFO walks again (and reloads its DMA object), PGRAPH still hits.
    access(engine::pfifo, client::pfifo_read, 2, 0x1000);
    access(engine::pgraph, client::dispatch, 2, 0x1000);
    EXPECT_EQ(stats_registry::global().value("mmu.pfifo.walks"), 2.0);
    EXPECT_EQ(stats_registry::global().value("mmu.pgraph.hits"), 1.0);
    // Writing without the trigger bit flushes nothing.
    reg_access(0xc80, true, 0 << 16);
    EXPECT_EQ(mmu->engine_tlb(engine::pgraph).valid_entries(), 1u);
  });
}

TEST_F(mmu_nv50_sockets, FaultIsLatchedRaisesIrqAndAnswersError) {
  build();
  run([this] {
    // VA 0x20000000: PDE 1 is empty -> PDE_NOT_PRESENT, an address error.
    auto r = access(engine::pfifo, client::pfifo_read, 2, 0x20000010);
    EXPECT_EQ(r.status, tlm::TLM_ADDRESS_ERROR_RESPONSE);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    EXPECT_TRUE(irq->read());
    // FAULT_STATUS = pending 1 | reason 3 << 8 | paged 1 << 18 = 0x40301.
    EXPECT_EQ(reg_access(0xc90), 0x40301u);
    EXPECT_EQ(reg_access(0xc94), 0x805u);       // engine 5 | client 8 << 8
    EXPECT_EQ(reg_access(0xc98), 2u);           // selector
    EXPECT_EQ(reg_access(0xc9c), 3u);           // channel
    EXPECT_EQ(reg_access(0xca0), chan);         // channel descriptor
    EXPECT_EQ(reg_access(0xca4), 0x20000010u);  // address
    EXPECT_EQ(reg_access(0xca8), 0u);
    // A second fault while one is latched only sets overflow (bit 1); the first one stays.
    r = access(engine::pgraph, client::dispatch, 0, 0x10, true);
    EXPECT_EQ(r.status, tlm::TLM_ADDRESS_ERROR_RESPONSE);  // NULL_DMAOBJ
    EXPECT_EQ(reg_access(0xc90), 0x40303u);
    EXPECT_EQ(reg_access(0xcac), 2u);
    // Write 1 to bit 0: cleared, the interrupt drops.
    reg_access(0xc90, true, 1);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    EXPECT_EQ(reg_access(0xc90), 0u);
    EXPECT_FALSE(irq->read());
    // Protection faults are command errors: read-only object written; supervisor page by user.
    r = access(engine::pfifo, client::pfifo_write, 3, 0x5000, true);
    EXPECT_EQ(r.status, tlm::TLM_COMMAND_ERROR_RESPONSE);
    // FAULT_STATUS = 1 | READ_ONLY 6 << 8 | write 1 << 16 | paged 1 << 18 = 0x50601.
    EXPECT_EQ(reg_access(0xc90), 0x50601u);
    reg_access(0xc90, true, 1);
    put_pte(0x200000 + 8 * 8, 0xa0008041);  // page 8 supervisor-only
    r = access(engine::pfifo, client::pfifo_read, 2, 0x8000, false, 0, true);
    EXPECT_EQ(r.status, tlm::TLM_COMMAND_ERROR_RESPONSE);
    // 1 | SUPERVISOR 7 << 8 | user 1 << 17 | paged 1 << 18 = 0x60701.
    EXPECT_EQ(reg_access(0xc90), 0x60701u);
  });
  EXPECT_EQ(mmu->fault_count_of(fault::pde_not_present), 1u);
  EXPECT_EQ(mmu->fault_count_of(fault::null_dmaobj), 1u);
  EXPECT_EQ(mmu->fault_count_of(fault::read_only), 1u);
  EXPECT_EQ(mmu->fault_count_of(fault::supervisor), 1u);
  // The last fault is still latched (never acknowledged): a modelled error, listed with the log
  // of all four faults behind one header line.
  EXPECT_EQ(mmu->modelled_errors().size(), 5u);
}

TEST_F(mmu_nv50_sockets, DmaObjectCacheAndRebind) {
  build();
  mem->write32(vram + 0x10000010, 1);
  mem->write32(vram + 0x18000010, 2);
  EXPECT_EQ(access(engine::pfifo, client::pfifo_read, 1, 0x10).data, 1u);
  put_dmaobj(0x10, 0x0001003d, 0x20000000, 0x18000000, 0, 0, 0);           // software moves the object
  EXPECT_EQ(access(engine::pfifo, client::pfifo_read, 1, 0x10).data, 1u);  // engine still holds the old one
  mmu->rebind(engine::pfifo, client::pfifo_read);                          // selector rebound
  EXPECT_EQ(access(engine::pfifo, client::pfifo_read, 1, 0x10).data, 2u);
  EXPECT_EQ(mmu->dmaobj_loads.value(), 2u);
  access(engine::pfifo, client::pfifo_read, 2, 0x10);  // another selector: loaded
  EXPECT_EQ(mmu->dmaobj_loads.value(), 3u);
}

TEST_F(mmu_nv50_sockets, Nv50Layout) {
  config::global().set("mmu.generation", "NV50", "test");
  build();
  mem->write32(vram + 0x77777010, 0x5a5a);
  EXPECT_EQ(access(engine::pfifo, client::pfifo_read, 2, 0x5010).data, 0x5a5au);  // PD at 0x1400
  EXPECT_EQ(access(engine::pfifo_bg, client::pfifo_read, 2, 0x5010).status, tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(mmu->fault_count_of(fault::invalid_engine), 1u);
}

TEST_F(mmu_nv50_sockets, QtestTranslate) {
  build();
  // Page 5 -> VRAM 0xa0005000; the object's enc 2 takes the PTE's (0); storage 0x7f from PTE (0).
  EXPECT_EQ(qtest("translate 5 8 0x100 2 0x5678 r"),
            "OK linear=0xa0005678 target=VRAM ro=0 super=0 storage=0x0 comp=0 tag=0x0 pcycle=0 enc=0 paged=1 host=0x2a0005678");
  EXPECT_EQ(stats_registry::global().value("mmu.pfifo.walks"), 1.0);
  qtest("translate 5 8 0x100 2 0x5000 r");  // same TLB as real traffic: a hit
  EXPECT_EQ(stats_registry::global().value("mmu.pfifo.hits"), 1.0);
  EXPECT_EQ(qtest("translate 5 8 0x100 2 0x9000 r notlb").substr(0, 20), "OK linear=0xa0009000");
  EXPECT_EQ(stats_registry::global().value("mmu.pfifo.walks"), 1.0);  // notlb: no walk counted
  EXPECT_EQ(qtest("translate 5 8 0x100 0 0 r"), "OK fault=NULL_DMAOBJ");
  EXPECT_EQ(qtest("translate 5 8 0x100 1 0x10000000 r"), "OK fault=DMAOBJ_LIMIT");
  EXPECT_EQ(qtest("translate 5 8 0x100 3 0x5000 w"), "OK fault=READ_ONLY");
  EXPECT_EQ(qtest("translate 5 8 0x100 2 0x20000000 r user"), "OK fault=PDE_NOT_PRESENT");
  EXPECT_EQ(qtest("translate 5 8 0x100 2 0x10000 r"), "OK fault=PTE_NOT_PRESENT");
  EXPECT_EQ(mmu->fault_status.get(), 0u);  // probes latch nothing
  EXPECT_EQ(qtest("translate 5 8 0x100 2 r"), "FAIL usage: translate ENGINE CLIENT CHANDESC SELECTOR ADDR r|w [user|super] [notlb]");
  EXPECT_EQ(qtest("translate 5 8 zz 2 0 r").substr(0, 28), "FAIL translate: bad number i");
  EXPECT_EQ(qtest("translate 5 8 0x100 2 0 x"), "FAIL translate: access must be r or w, not 'x'");
  EXPECT_EQ(qtest("translate 5 8 0x100 2 0 r bogus"), "FAIL translate: unknown option 'bogus' (user, super, notlb)");
  std::string reply;
  EXPECT_FALSE(mmu->qtest({"readl", "0"}, reply));
}

TEST_F(mmu_nv50_sockets, RepeatedBlockHitsKeepLimitsAndTags) {
  build();
  // PDE 1 (VA 0x20000000-0x3fffffff): large pages, table at VRAM 0x400000. Pages 8-15 form an
  // order-3 block (0x180) at VRAM 0x10000000, DOUBLE (2<<15) with tag 0x100 (0x100<<17):
  // w0 = 0x10000181, w1 = 0x02010000.
  put_pde(0x208, 0x00400001);
  for (uint64_t i = 8; i < 16; ++i) put_pte(0x400000 + i * 8, 0x0201000010000181ull);
  // VA 0x200b1234: offset in the 512 KiB block 0x31234 -> 0x10031234, tag 0x100 + 3 * 2.
  EXPECT_EQ(qtest("translate 5 8 0x100 2 0x200b1234 r"),
            "OK linear=0x10031234 target=VRAM ro=0 super=0 storage=0x0 comp=2 tag=0x106 pcycle=0 enc=0 paged=1 host=0x210031234");
  // Same block, offset 0x70000: tag 0x100 + 7 * 2 = 0x10e; offset 0: tag 0x100.
  EXPECT_EQ(qtest("translate 5 8 0x100 2 0x200f0000 r"),
            "OK linear=0x10070000 target=VRAM ro=0 super=0 storage=0x0 comp=2 tag=0x10e pcycle=0 enc=0 paged=1 host=0x210070000");
  EXPECT_EQ(qtest("translate 5 8 0x100 2 0x20080000 r"),
            "OK linear=0x10000000 target=VRAM ro=0 super=0 storage=0x0 comp=2 tag=0x100 pcycle=0 enc=0 paged=1 host=0x210000000");
  EXPECT_EQ(stats_registry::global().value("mmu.pfifo.walks"), 1.0);  // one entry for the block
  EXPECT_EQ(stats_registry::global().value("mmu.pfifo.hits"), 2.0);
  // selector 4: paged, limit 0x5800 (w1): page 5 is half inside the object.
  put_dmaobj(0x40, 0x7fc0003d, 0x5800, 0, 0, 0, 0);
  EXPECT_EQ(qtest("translate 5 8 0x100 4 0x5000 r").substr(0, 20), "OK linear=0xa0005000");
  EXPECT_EQ(qtest("translate 5 8 0x100 4 0x57fc r").substr(0, 20), "OK linear=0xa00057fc");
  EXPECT_EQ(qtest("translate 5 8 0x100 4 0x5800 r"), "OK fault=DMAOBJ_LIMIT");  // same page, over the limit
  // Another client of the engine has its own DMA object binding.
  EXPECT_EQ(qtest("translate 5 4 0x100 1 0x5800 r").substr(0, 20), "OK linear=0x10005800");
}

TEST_F(mmu_nv50_sockets, AccessAcrossPagesIsSplitPerPage) {
  build();
  put_pte(0x200000 + 6 * 8, 0xa0009001);  // page 6 -> 0xa0009000, not after page 5's 0xa0005000
  uint64_t v = 0x1122334455667788ull;
  transaction t(tlm::TLM_WRITE_COMMAND, 0x5ffc, &v, 8);
  side_band(t, engine::pfifo, client::pfifo_write, 2);
  sc_time d = sc_core::SC_ZERO_TIME;
  eng->out->b_transport(t.gp, d);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(mem->read32(vram + 0xa0005ffc), 0x55667788u);  // low half in page 5
  EXPECT_EQ(mem->read32(vram + 0xa0009000), 0x11223344u);  // high half in page 6
  EXPECT_EQ(t.gp.get_address(), 0x5ffcu);                  // the payload is given back intact
  EXPECT_EQ(t.gp.get_data_length(), 8u);
  EXPECT_EQ(stats_registry::global().value("mmu.pfifo.walks"), 2.0);  // one request per page
  // Debug reads split the same way.
  uint64_t back = 0;
  transaction r(tlm::TLM_READ_COMMAND, 0x5ffc, &back, 8);
  r.ext = t.ext;
  EXPECT_EQ(eng->out->transport_dbg(r.gp), 8u);
  EXPECT_EQ(back, 0x1122334455667788ull);
  // The last byte is limit-checked: selector 4 ends at 0x5800 (w1); 8 bytes at 0x57fc cross it.
  put_dmaobj(0x40, 0x7fc0003d, 0x5800, 0, 0, 0, 0);
  t.ext.dma_slot = 4;
  t.gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  eng->out->b_transport(t.gp, d);
  EXPECT_EQ(t.gp.get_response_status(), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(mmu->fault_count_of(fault::dmaobj_limit), 1u);
}

TEST_F(mmu_nv50_sockets, DebugTransportHasNoSideEffects) {
  build();
  mem->write32(vram + 0xa0005678, 0x77);
  uint32_t v = 0;
  transaction t(tlm::TLM_READ_COMMAND, 0x5678, &v, 4);
  side_band(t, engine::pfifo, client::pfifo_read, 2);
  EXPECT_EQ(eng->out->transport_dbg(t.gp), 4u);
  EXPECT_EQ(v, 0x77u);
  EXPECT_EQ(mmu->translations.value(), 0u);
  EXPECT_EQ(mmu->engine_tlb(engine::pfifo).valid_entries(), 0u);
  t.ext.dma_slot = 0;
  EXPECT_EQ(eng->out->transport_dbg(t.gp), 0u);
  EXPECT_EQ(mmu->fault_status.get(), 0u);
}

// The micro-TLB (a speed-up in front of the TLB) must answer exactly what the TLB holds: a
// rewritten PTE is not seen while its entry is cached (the hardware's stale TLB), and once the
// entry is evicted the next access walks and sees the new PTE, never the micro-TLB's old copy.
TEST_F(mmu_nv50_sockets, EvictedEntryIsNotServedByTheFastPath) {
  config::global().set("mmu.tlb_entries", "4", "test");
  config::global().set("mmu.tlb_ways", "4", "test");
  build();
  mem->write32(vram + 0xa0000010, 0x01d);                                                 // page 0 as first mapped (PTE 0xa0000001)
  mem->write32(vram + 0xb0000010, 0x2e3);                                                 // page 0 after the rewrite (PTE 0xb0000001)
  for (uint64_t p = 0; p < 4; ++p) access(engine::pgraph, client::dispatch, 2, p << 12);  // 4 walks, TLB full
  EXPECT_EQ(access(engine::pgraph, client::dispatch, 2, 0x10).data, 0x01du);              // hit
  put_pte(0x200000, 0xb0000001);                                                          // no flush
  EXPECT_EQ(access(engine::pgraph, client::dispatch, 2, 0x10).data, 0x01du);              // still the cached PTE
  for (uint64_t p = 1; p < 4; ++p) access(engine::pgraph, client::dispatch, 2, p << 12);  // page 0 is now LRU
  EXPECT_EQ(stats_registry::global().value("mmu.pgraph.hits"), 5.0);
  access(engine::pgraph, client::dispatch, 2, 4 << 12);  // walk: evicts page 0
  EXPECT_EQ(mmu->evictions.value(), 1u);
  // Page 0 walks again and reads the new PTE: hit latency 1 + miss latency 2 + PDE 30 + PTE 30 +
  // data 30 = 93 ns (the DMA object stays cached).
  const auto r = access(engine::pgraph, client::dispatch, 2, 0x10);
  EXPECT_EQ(r.data, 0x2e3u);
  EXPECT_EQ(r.delay, sc_time(93, SC_NS));
  EXPECT_EQ(stats_registry::global().value("mmu.pgraph.walks"), 6.0);
  EXPECT_EQ(stats_registry::global().value("mmu.pgraph.hits"), 5.0);
  // And a flush drops what the fast path held: page 4 (resident) walks again after it.
  mmu->flush_engine(engine::pgraph);
  access(engine::pgraph, client::dispatch, 2, 4 << 12);
  EXPECT_EQ(stats_registry::global().value("mmu.pgraph.walks"), 7.0);
}

// A repeated hit that the access checks refuse (write to a read-only object, user access to a
// supervisor page) faults exactly as the first one would, fast path or not.
TEST_F(mmu_nv50_sockets, RepeatedHitsKeepAccessChecks) {
  build();
  put_pte(0x200000 + 8 * 8, 0xa0008041);                                                          // page 8 supervisor-only (bit 6)
  EXPECT_EQ(access(engine::pfifo, client::pfifo_write, 3, 0x5000).status, tlm::TLM_OK_RESPONSE);  // read: fine
  EXPECT_EQ(access(engine::pfifo, client::pfifo_write, 3, 0x5004).status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(access(engine::pfifo, client::pfifo_write, 3, 0x5008, true).status, tlm::TLM_COMMAND_ERROR_RESPONSE);
  EXPECT_EQ(access(engine::pfifo, client::pfifo_read, 2, 0x8000).status, tlm::TLM_OK_RESPONSE);  // supervisor
  EXPECT_EQ(access(engine::pfifo, client::pfifo_read, 2, 0x8004, false, 0, true).status, tlm::TLM_COMMAND_ERROR_RESPONSE);
  EXPECT_EQ(mmu->fault_count_of(fault::read_only), 1u);
  EXPECT_EQ(mmu->fault_count_of(fault::supervisor), 1u);
  EXPECT_EQ(stats_registry::global().value("mmu.pfifo.hits"), 3.0);  // the faulting accesses hit the TLB too
}

// nv50-vm.rst: "Most engines cache the most recently bound DMA object. To flush the caches,
// it's usually enough to rewrite the selector register". An engine bumps gpu_ext::dma_bind when
// it rewrites the slot's selector: the same bind keeps the (stale) object, a new one reloads it.
TEST_F(mmu_nv50_sockets, DmaBindRewriteReloadsTheObject) {
  build();
  mem->write32(vram + 0x10000010, 1);
  mem->write32(vram + 0x18000010, 2);
  bind = 7;
  EXPECT_EQ(access(engine::pfifo, client::pfifo_read, 1, 0x10).data, 1u);
  put_dmaobj(0x10, 0x0001003d, 0x20000000, 0x18000000, 0, 0, 0);           // software moves the object
  EXPECT_EQ(access(engine::pfifo, client::pfifo_read, 1, 0x10).data, 1u);  // same bind: the old object
  EXPECT_EQ(mmu->dmaobj_loads.value(), 1u);
  bind = 8;  // selector rewritten
  const auto r = access(engine::pfifo, client::pfifo_read, 1, 0x10);
  EXPECT_EQ(r.data, 2u);
  EXPECT_EQ(r.delay, sc_time(61, SC_NS));  // hit latency 1 + object read 30 + data 30
  EXPECT_EQ(mmu->dmaobj_loads.value(), 2u);
  EXPECT_EQ(access(engine::pfifo, client::pfifo_read, 1, 0x10).data, 2u);  // bind 8 again: cached
  EXPECT_EQ(mmu->dmaobj_loads.value(), 2u);
  // A paged object: repeated hits (the fast path) must not outlive the rebinding either. Page 5
  // -> 0xa0005000; moving the object's base to 0x1000 maps offset 0x5010 to page 6 -> 0xa0006010.
  mem->write32(vram + 0xa0005010, 5);
  mem->write32(vram + 0xa0006010, 6);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(access(engine::pgraph, client::dispatch, 2, 0x5010).data, 5u);
  put_dmaobj(0x20, 0x7fc0003d, 0xffffffff, 0x1000, 0xff000000, 0, 0);
  EXPECT_EQ(access(engine::pgraph, client::dispatch, 2, 0x5010).data, 5u);
  bind = 9;
  EXPECT_EQ(access(engine::pgraph, client::dispatch, 2, 0x5010).data, 6u);
  // The other client's binding (bind 8 above) is its own: client pfifo_read reloads at bind 9.
  EXPECT_EQ(access(engine::pfifo, client::pfifo_read, 1, 0x10).data, 2u);
  EXPECT_EQ(mmu->dmaobj_loads.value(), 5u);  // 2 + pgraph's first + pgraph's rebind + pfifo's rebind
}

// DMI on mmu.in: a paged 4 KiB VRAM page is granted in DMA object offsets, its pointer at the
// page's VRAM; the latency is the memory's 30 ns plus the hit latency of 1 ns.
TEST_F(mmu_nv50_sockets, DmiForAPagedVramPage) {
  build(true);
  mem->write32(vram + 0xa0005010, 0x5a5a0001);
  tlm::tlm_dmi d;
  ASSERT_TRUE(dmi(d, engine::pfifo, client::pfifo_read, 2, 0x5010));
  EXPECT_EQ(d.get_start_address(), 0x5000u);  // page 5 of selector 2 (base 0): offsets 0x5000-0x5fff
  EXPECT_EQ(d.get_end_address(), 0x5fffu);
  EXPECT_TRUE(d.is_read_write_allowed());
  uint32_t v = 0;
  std::memcpy(&v, d.get_dmi_ptr() + (0x5010 - 0x5000), 4);
  EXPECT_EQ(v, 0x5a5a0001u);
  v = 0x5a5a0002;
  std::memcpy(d.get_dmi_ptr() + (0x5ffc - 0x5000), &v, 4);  // a write lands at VRAM 0xa0005ffc
  EXPECT_EQ(mem->read32(vram + 0xa0005ffc), 0x5a5a0002u);
  EXPECT_EQ(d.get_read_latency(), sc_time(31, SC_NS));
  EXPECT_EQ(d.get_write_latency(), sc_time(31, SC_NS));
  // The grant is not counted as a translation (DMI changes no statistic; it normally follows an
  // access that was); here it missed, so it walked (untimed) and the walk counts. No fault.
  EXPECT_EQ(mmu->translations.value(), 0.0);
  EXPECT_EQ(stats_registry::global().value("mmu.pfifo.walks"), 1.0);
  EXPECT_EQ(mmu->dmi_grants.value(), 1u);
  // An unpaged object is one linear range: clipped to the memory's 64 KiB DMI page around
  // VRAM 0x10001234 (base 0x10000000 + 0x1234): offsets 0-0xffff.
  ASSERT_TRUE(dmi(d, engine::pfifo, client::pfifo_read, 1, 0x1234));
  EXPECT_EQ(d.get_start_address(), 0u);
  EXPECT_EQ(d.get_end_address(), 0xffffu);
  mem->write32(vram + 0x10001234, 0x5a5a0003);
  std::memcpy(&v, d.get_dmi_ptr() + 0x1234, 4);
  EXPECT_EQ(v, 0x5a5a0003u);
  // A contig block (PDE 1: large pages at VRAM table 0x400000; pages 8-15 one order-3 block at
  // VRAM 0x10000000) spans 512 KiB, VA 0x20080000-0x200fffff; offset 0x200b1234 is linear
  // 0x10031234, whose 64 KiB memory page is VRAM 0x10030000-0x1003ffff: the region is clipped to
  // offsets 0x200b0000-0x200bffff.
  put_pde(0x208, 0x00400001);
  for (uint64_t i = 8; i < 16; ++i) put_pte(0x400000 + i * 8, 0x10000181);
  mem->write32(vram + 0x10031234, 0x5a5a0004);
  ASSERT_TRUE(dmi(d, engine::pfifo, client::pfifo_read, 2, 0x200b1234));
  EXPECT_EQ(d.get_start_address(), 0x200b0000u);
  EXPECT_EQ(d.get_end_address(), 0x200bffffu);
  std::memcpy(&v, d.get_dmi_ptr() + 0x1234, 4);
  EXPECT_EQ(v, 0x5a5a0004u);
  // A linear access is passed on: the memory's region in host addresses.
  ASSERT_TRUE(dmi(d, engine::pfifo, client::pfifo_read, gpu_ext::none, vram + 0x123456));
  EXPECT_EQ(d.get_start_address(), vram + 0x120000);
  EXPECT_EQ(d.get_end_address(), vram + 0x12ffff);
}

TEST_F(mmu_nv50_sockets, DmiRefusedAcrossAFaultAndReadOnlyWhereReadOnly) {
  build(true);
  tlm::tlm_dmi d;
  EXPECT_FALSE(dmi(d, engine::pfifo, client::pfifo_read, 2, 0x20000010));     // PDE 1 not present
  EXPECT_FALSE(dmi(d, engine::pfifo, client::pfifo_read, 0, 0x10));           // NULL_DMAOBJ
  EXPECT_FALSE(dmi(d, engine::pfifo, client::pfifo_write, 3, 0x5000, true));  // write to a read-only object
  EXPECT_EQ(mmu->fault_status.get(), 0u);                                     // a request is not an access: nothing latched or counted
  EXPECT_EQ(mmu->faults.value(), 0u);
  // Read-only object (selector 3): read-only DMI.
  ASSERT_TRUE(dmi(d, engine::pfifo, client::pfifo_write, 3, 0x5000));
  EXPECT_TRUE(d.is_read_allowed());
  EXPECT_FALSE(d.is_write_allowed());
  // Read-only page (PTE bit 3) through the read-write-from-PTE selector 2: read-only DMI too.
  put_pte(0x200000 + 9 * 8, 0xa0009009);
  ASSERT_TRUE(dmi(d, engine::pgraph, client::dispatch, 2, 0x9000));
  EXPECT_FALSE(d.is_write_allowed());
  EXPECT_EQ(d.get_start_address(), 0x9000u);
  // Selector 4 ends at 0x5800 (w1): the grant stops at the last byte inside, 0x57ff.
  put_dmaobj(0x40, 0x7fc0003d, 0x5800, 0, 0, 0, 0);
  ASSERT_TRUE(dmi(d, engine::pbsp, client::pbsp, 4, 0x5100));
  EXPECT_EQ(d.get_start_address(), 0x5000u);
  EXPECT_EQ(d.get_end_address(), 0x57ffu);
}

TEST_F(mmu_nv50_sockets, DmiNeedsTheMemorysDmi) {
  build(false);  // mem.dmi = false
  tlm::tlm_dmi d;
  EXPECT_FALSE(dmi(d, engine::pfifo, client::pfifo_read, 2, 0x5000));
  EXPECT_EQ(mmu->dmi_grants.value(), 0u);
}

TEST_F(mmu_nv50_sockets, DmiInvalidatedOnFlushRebindReloadAndDownstream) {
  build(true);
  run([this] {
    tlm::tlm_dmi d;
    ASSERT_TRUE(dmi(d, engine::pfifo, client::pfifo_read, 2, 0x5000));
    reg_access(0xc80, true, 0 << 16 | 1);  // flush PGRAPH: holds no region, nothing to drop
    EXPECT_EQ(eng->invalidations, 0);
    reg_access(0xc80, true, 5 << 16 | 1);  // flush PFIFO through TLB_FLUSH
    EXPECT_EQ(eng->invalidations, 1);
    EXPECT_EQ(eng->inv_start, 0u);  // all of the logical space: regions carry no side band
    EXPECT_EQ(eng->inv_end, ~sc_dt::uint64(0));
    ASSERT_TRUE(dmi(d, engine::pfifo, client::pfifo_read, 2, 0x5000));
    mmu->rebind(engine::pfifo, client::pfifo_read);
    EXPECT_EQ(eng->invalidations, 2);
    ASSERT_TRUE(dmi(d, engine::pfifo, client::pfifo_read, 2, 0x5000));
    bind = 1;  // the selector rewritten: the access reloads the object and drops the regions
    access(engine::pfifo, client::pfifo_read, 2, 0x5000);
    EXPECT_EQ(eng->invalidations, 3);
    ASSERT_TRUE(dmi(d, engine::pfifo, client::pfifo_read, 2, 0x5000));
    mmu->flush_engine(engine::pfifo);
    EXPECT_EQ(eng->invalidations, 4);
    ASSERT_TRUE(dmi(d, engine::pfifo, client::pfifo_read, 2, 0x5000));
    mem->revoke_dmi();  // the memory withdraws its pointers: so does the MMU
    EXPECT_EQ(eng->invalidations, 5);
    EXPECT_EQ(mmu->dmi_invalidations.value(), 5u);
  });
}

TEST_F(mmu_nv50_sockets, GrantDmiOffGrantsNone) {
  config::global().set("mmu.grant_dmi", "false", "test");
  build(true);
  tlm::tlm_dmi d;
  EXPECT_FALSE(dmi(d, engine::pfifo, client::pfifo_read, 2, 0x5000));
  EXPECT_FALSE(dmi(d, engine::pfifo, client::pfifo_read, gpu_ext::none, vram));
  uint32_t v = 0;
  transaction t(tlm::TLM_READ_COMMAND, 0x5000, &v, 4);
  side_band(t, engine::pfifo, client::pfifo_read, 2);
  sc_time delay = sc_core::SC_ZERO_TIME;
  eng->out->b_transport(t.gp, delay);
  ASSERT_TRUE(t.ok());
  EXPECT_FALSE(t.gp.is_dmi_allowed());
  EXPECT_EQ(mmu->dmi_grants.value(), 0u);
}

TEST_F(mmu_nv50_sockets, BadConfigurationIsAClearError) {
  config::global().set("mmu.generation", "GF100", "test.yaml:3");
  EXPECT_THROW(mmu = std::make_unique<mmu_nv50::mmu_nv50>("mmu"), config_error);
}

TEST_F(mmu_nv50_sockets, BadTlbGeometryIsAClearError) {
  config::global().set("mmu.tlb_entries", "12", "--set");
  try {
    mmu = std::make_unique<mmu_nv50::mmu_nv50>("mmu");
    FAIL() << "no error";
  } catch (const config_error& e) {
    EXPECT_NE(std::string(e.what()).find("powers of two"), std::string::npos) << e.what();
  }
}

}  // namespace

// ---- in the assembled platform ----------------------------------------------------------------

namespace {

class mmu_nv50_platform : public gpuvp::testing::sim_test {
 protected:
  void configure() {
    config::global().load_yaml_text(R"(
platform:
  bar0_base: 0x100000000
  bar0_size: 16 MiB
components:
  sysram: memory
  vram: memory
  mmu: mmu_nv50
sysram:
  base: 0x0
  size: 4 GiB
vram:
  base: 0x200000000
  size: 1 GiB
)",
                                    "test.yaml");
  }
};

TEST_F(mmu_nv50_platform, PlugsIntoThePlatform) {
  configure();
  platform p;
  auto* m = p.find_as<mmu_nv50::mmu_nv50>("mmu");
  ASSERT_NE(m, nullptr);
  EXPECT_GE(p.irq_line("mmu.fault"), 0);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  // A G84 channel at VRAM 0x100000 with a paged object (selector 2) and page 5 -> VRAM 0x3a005000 (inside the 1 GiB VRAM),
  // written at host addresses (VRAM linear L = host 0x200000000 + L).
  const uint32_t obj[6] = {0x7fc0003d, 0xffffffff, 0, 0xff000000, 0, 0};
  ASSERT_TRUE(p.debug_write(vram + 0x100020, obj, sizeof obj));
  const uint64_t pde = 0x00200003, pte = 0x3a005001, data = 0x1122334455667788ull;
  ASSERT_TRUE(p.debug_write(vram + 0x100200, &pde, 8));
  ASSERT_TRUE(p.debug_write(vram + 0x200028, &pte, 8));
  ASSERT_TRUE(p.debug_write(vram + 0x3a005010, &data, 8));
  sc_time d = sc_core::SC_ZERO_TIME;
  const auto t = m->translate(vm_access{engine::pfifo, client::pfifo_read, chan, 2, 0x5010, false, false}, d);
  ASSERT_TRUE(t.ok()) << fault_name(t.f);
  EXPECT_EQ(m->host_address(t.r.tgt, t.r.linear), vram + 0x3a005010);
  std::string reply;
  ASSERT_TRUE(m->qtest({"translate", "5", "8", "0x100", "2", "0x5010", "r"}, reply));
  EXPECT_EQ(reply.substr(0, 20), "OK linear=0x3a005010");
  // The registers answer in BAR0 at 0x100000000 + 0x100c80.
  uint32_t flush = 0xffffffff;
  ASSERT_TRUE(p.debug_read(0x100000000ull + 0x100c80, &flush, 4));
  EXPECT_EQ(flush, 0u);
}

// A qtest session: the channel written with writel, a translate probe, a flush polled over time.
TEST_F(mmu_nv50_platform, QtestSession) {
  configure();
  platform p;
  std::istringstream script(R"(writel 0x200100020 0x7fc0003d
writel 0x200100024 0xffffffff
writel 0x20010002c 0xff000000
writel 0x200100200 0x00200003
writel 0x200200028 0x3a005001
translate 5 8 0x100 2 0x5010 r
translate 5 8 0x100 2 0x6010 r
writel 0x100100c80 0x50001
readl 0x100100c80
clock_step 200
readl 0x100100c80
stats mmu.flushes
)");
  std::ostringstream out;
  p.host_initiator().run_qtest(script, out);
  sc_core::sc_start();
  std::vector<std::string> lines;
  std::istringstream is(out.str());
  for (std::string l; std::getline(is, l);) lines.push_back(l);
  ASSERT_EQ(lines.size(), 12u) << out.str();
  // Page 5 -> 0x3a005000; VRAM linear 0x3a005010 is host 0x200000000 + 0x3a005010.
  EXPECT_EQ(lines[5], "OK linear=0x3a005010 target=VRAM ro=0 super=0 storage=0x0 comp=0 tag=0x0 pcycle=0 enc=0 paged=1 host=0x23a005010");
  EXPECT_EQ(lines[6], "OK fault=PTE_NOT_PRESENT");
  EXPECT_EQ(lines[8], "OK 0x0000000000050001");   // flush of engine 5 still running
  EXPECT_EQ(lines[10], "OK 0x0000000000050000");  // 200 ns later: done
  EXPECT_EQ(lines[11], "OK mmu.flushes=1");
}

}  // namespace
