// SPDX-License-Identifier: Apache-2.0
// G80:GF100 channel set-up the way nouveau does it, driven through the component's sockets:
// RAMFC in the channel's instance block, the channel table (0x2600), the runlist (0x32f4/0x32ec),
// CACHES/PUSH0/PULL0 and the unload kick (0x32fc); the USERD read shadow; the VM engines/clients
// and dma_bind generations of the accesses. The memory behind `mem` is a recording stub.
//
// Expected values are worked out by hand from envytools' rnndb NV50_RAMFC layout (0x00 IB_PUT,
// 0x04 IB_GET, 0x08/0x0c DMA_PUT, 0x10/0x14 DMA_GET, 0x3c DMA_FETCH bit 30 IB_ENABLE, 0x48
// DMA_INSTANCE = pushbuffer object >> 4, 0x54 IB_CONFIG order << 16, 0x58 ENGINE 4 bits per
// subchannel, 0x74 REF, 0x80 RAMHT (bits - 9) << 27 | search << 24 | offset >> 4, 0x98 CHAN_INST)
// and nouveau's nv50.c/g84.c (channel table = 0x80000000 | RAMFC >> 12 (G80) / >> 8 (G84)).
#include <cstring>
#include <memory>
#include <vector>
#include <systemc>
#include <tlm_utils/simple_target_socket.h>
#include "engines.h"
#include "gpuvp/config.h"
#include "gpuvp/extension.h"
#include "pb_text.h"
#include "pfifo.h"
#include "testing.h"

using namespace gpuvp;
using namespace gpuvp::pfifo;

namespace {

constexpr uint64_t vram_base = 0x200000000ull;

// VRAM (32 MiB at vram_base) that records every access's side band. In MMU mode (memory_target
// not `interconnect`) a DMA-object access carries the offset in the object: the test objects all
// start at VRAM 0, so the offset is the VRAM address.
struct mem_stub : sc_core::sc_module {
  tlm_utils::simple_target_socket<mem_stub> in{"in"};
  std::vector<uint8_t> m = std::vector<uint8_t>(32u << 20);
  struct rec {
    bool write;
    uint64_t addr;
    unsigned len;
    gpu_ext ext;
  };
  std::vector<rec> log;
  bool grant = false;                 // grant DMI (all of the memory) to DMA-object requests
  std::vector<gpu_ext> dmi_requests;  // side band of every DMI request
  explicit mem_stub(sc_core::sc_module_name n) : sc_core::sc_module(n) {
    in.register_b_transport(this, &mem_stub::bt);
    in.register_get_direct_mem_ptr(this, &mem_stub::dmi);
  }
  bool dmi(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& d) {
    const gpu_ext& e = ext_of(gp);
    dmi_requests.push_back(e);
    if (!grant || e.dma_slot == gpu_ext::none) return false;
    d.set_dmi_ptr(m.data());
    d.set_start_address(0);
    d.set_end_address(m.size() - 1);
    d.allow_read_write();
    d.set_read_latency(sc_core::sc_time(5, sc_core::SC_NS));
    d.set_write_latency(sc_core::sc_time(5, sc_core::SC_NS));
    return true;
  }
  void bt(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) {
    const gpu_ext& e = ext_of(gp);
    uint64_t a = gp.get_address();
    if (e.dma_slot == gpu_ext::none) a -= vram_base;
    log.push_back({gp.is_write(), a, gp.get_data_length(), e});
    if (a + gp.get_data_length() > m.size()) {
      gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    if (e.dmi_shadow) {  // the initiator moves the data through its DMI pointer
    } else if (gp.is_write()) {
      std::memcpy(&m[a], gp.get_data_ptr(), gp.get_data_length());
    } else {
      std::memcpy(gp.get_data_ptr(), &m[a], gp.get_data_length());
    }
    d += sc_core::sc_time(10, sc_core::SC_NS);
    gp.set_dmi_allowed(grant);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  uint32_t r32(uint64_t a) const {
    uint32_t v;
    std::memcpy(&v, &m[a], 4);
    return v;
  }
  void w32(uint64_t a, uint32_t v) { std::memcpy(&m[a], &v, 4); }
  void words(uint64_t a, const std::vector<uint32_t>& w) { std::memcpy(&m[a], w.data(), 4 * w.size()); }
};

// One channel (chid 1) as a driver sets it up: instance block at VRAM 0x100000, RAMFC at
// instance + 0x5400 (G84) or + 0 (G80), the pushbuffer DMA object at selector 0x600 (instance +
// 0x6000, all of VRAM), RAMHT at instance + 0x8000 with 1024 entries (8 KiB: bits 10, so a
// model using the ramht_offset/ramht_size parameters (0x10000, 4096 entries) would miss).
class channels : public gpuvp::testing::sim_test {
 protected:
  static constexpr unsigned ch = 1;
  static constexpr uint64_t inst = 0x100000, pb = 0x200000, ib = 0x300000, runlist = 0x400000;
  static constexpr uint32_t pb_sel = 0x600, ramht_off = 0x8000;
  std::unique_ptr<mem_stub> mem;
  std::unique_ptr<gpuvp::pfifo::pfifo> pf;
  std::unique_ptr<gpuvp::testing::test_initiator> regs, userd;
  sc_core::sc_signal<bool> irq{"irq"};
  gen g = gen::g84;
  uint64_t ramfc_at = 0;

  void build(const std::string& generation = "G84", bool through_mmu = false) {
    auto& cfg = config::global();
    cfg.set("pfifo.generation", generation, "test");
    if (through_mmu)
      cfg.set("pfifo.memory_target", "stub.in", "test");
    else
      cfg.set("pfifo.memory_target", "interconnect", "test");
    g = *parse_gen(generation);
    ramfc_at = inst + (g >= gen::g84 ? 0x5400 : 0);
    mem = std::make_unique<mem_stub>("stub");
    pf = std::make_unique<gpuvp::pfifo::pfifo>("pfifo");
    regs = std::make_unique<gpuvp::testing::test_initiator>("regs_host");
    userd = std::make_unique<gpuvp::testing::test_initiator>("userd_host");
    pf->mem.bind(mem->in);
    regs->out.bind(pf->regs.in);
    userd->out.bind(pf->userd);
    pf->irq.bind(irq);
    // Pushbuffer DMA object (G80 layout: class 0x3d, target VRAM, limit 1 GiB, base 0).
    mem->words(inst + pb_sel * 16, {0x3d | 1u << 16 | 2u << 18, 0x40000000, 0, 0, 0, 0});
  }
  // RAMFC as nouveau's dmanv50.c writes it for a DMA-mode channel whose pushbuffer starts at `get`.
  void ramfc_dma(uint64_t get) {
    ramfc(0x08, uint32_t(get));  // DMA_PUT
    ramfc(0x10, uint32_t(get));  // DMA_GET
    ramfc(0x3c, 0x003f6078);     // DMA_FETCH, IB disabled
    common_ramfc();
  }
  void ramfc_ib(uint32_t order) {
    ramfc(0x3c, 0x403f6078);  // DMA_FETCH with IB_ENABLE
    ramfc(0x50, uint32_t(ib));
    ramfc(0x54, order << 16);  // IB_CONFIG: address high 0, order
    common_ramfc();
  }
  void common_ramfc() {
    ramfc(0x44, 0x01003fff);                               // DMA_TIMESLICE (stored only)
    ramfc(0x48, pb_sel);                                   // DMA_INSTANCE
    ramfc(0x4c, 0xffffffff);                               // DMA_LIMIT
    ramfc(0x60, 0x7fffffff);                               // ACQUIRE_TIMEOUT (stored only)
    ramfc(0x80, 1u << 27 | 4u << 24 | ramht_off >> 4);     // RAMHT: 8 KiB (bits 10 - 9 = 1), SEARCH_FULL, offset 0x8000
    if (g >= gen::g84) ramfc(0x98, uint32_t(inst >> 12));  // CHAN_INST (VRAM)
  }
  void ramfc(uint32_t off, uint32_t v) { mem->w32(ramfc_at + off, v); }
  uint32_t ramfc_word(uint32_t off) { return mem->r32(ramfc_at + off); }
  uint32_t table_entry() const { return g >= gen::g84 ? uint32_t(ramfc_at >> 8) : uint32_t(inst >> 12); }
  // nouveau's fifo init / channel start: table entry, runlist {chid}, PUSH0/PULL0/CACHES.
  void start(bool enable = true) {
    mem->w32(runlist, ch);
    regs->write32(0x600 + 4 * ch, table_entry());
    if (enable) regs->write32(0x600 + 4 * ch, 0x80000000u | table_entry());
    regs->write32(0x12f4, uint32_t(runlist >> 12));
    regs->write32(0x12ec, 1);
    regs->write32(0x1200, 1);
    regs->write32(0x1250, 1);
    regs->write32(0x500, 1);
  }
  void object(uint32_t handle, unsigned engine, uint32_t sel) {
    const uint32_t h = ramht_hash(handle, 10, 0);
    mem->w32(inst + ramht_off + h * 8, handle);
    mem->w32(inst + ramht_off + h * 8 + 4, ramht_context(g, engine, sel, 0));
  }
  uint32_t u32(uint32_t off) { return userd->read32(ch * pf->userd_stride() + off); }
  void run(double us = 50) { sc_core::sc_start(sc_core::sc_time(us, sc_core::SC_US)); }
  recording_engine& rec() { return *dynamic_cast<recording_engine*>(pf->engine_at(2)); }
  std::vector<std::pair<uint32_t, uint32_t>> recorded() {
    std::vector<std::pair<uint32_t, uint32_t>> v;
    for (auto& l : rec().log) v.emplace_back(l.mthd, l.param);
    return v;
  }
};

}  // namespace

// RAMFC DMA_GET is where fetching starts and RAMFC ENGINE binds subchannels: the pushbuffer's
// first command (0x104 = 0xaaaa, words 0-1) lies before DMA_GET = pb + 8, so only 0x104 = 0xbbbb
// and REF_CNT 7 run; with no OBJECT in the stream, engine 2 comes from ENGINE (subchannel 0 =
// bits 0-3 = 2).
TEST_F(channels, RamfcDmaGetAndEngineAreHonoured) {
  build();
  mem->words(pb, {hdr_inc(0, 0x104, 1), 0xaaaa, hdr_inc(0, 0x104, 1), 0xbbbb, hdr_inc(0, 0x50, 1), 7});
  ramfc_dma(pb + 8);
  ramfc(0x58, 0x2);  // ENGINE: subchannel 0 -> engine 2
  start();
  userd->write32(ch * pf->userd_stride() + 0x40, uint32_t(pb + 24));  // DMA_PUT: the end
  run();
  const std::vector<std::pair<uint32_t, uint32_t>> want = {{0x104, 0xbbbb}};
  EXPECT_EQ(recorded(), want);
  EXPECT_EQ(u32(0x48), 7u);                                        // REF
  EXPECT_EQ(u32(0x44), uint32_t(pb + 24));                         // DMA_GET reached DMA_PUT
  EXPECT_EQ(pf->core().chan(ch).inst_desc, uint32_t(inst >> 12));  // CHAN_INST (0x98)
  EXPECT_TRUE(pf->modelled_errors().empty());
  EXPECT_EQ(pf->core().ramfc_loads, 1u);
}

// RAMFC's RAMHT descriptor gives the table's place and size: OBJECT 0xbeef finds its entry at
// instance + 0x8000 + hash(0xbeef, 10 bits) * 8 = 0xbeef & 0x3ff ^ 0xbeef >> 10 = 0x2ef ^ 0x2f = 0x2c0.
TEST_F(channels, RamfcRamhtDescriptorIsHonoured) {
  build();
  EXPECT_EQ(ramht_hash(0xbeef, 10, 0), 0x2c0u);
  object(0xbeef, 2, 0x40);
  mem->words(pb, {hdr_inc(0, 0, 1), 0xbeef, hdr_inc(0, 0x104, 1), 0x1234});
  ramfc_dma(pb);
  start();
  userd->write32(ch * pf->userd_stride() + 0x40, uint32_t(pb + 16));
  run();
  const std::vector<std::pair<uint32_t, uint32_t>> want = {{0, 0x40}, {0x104, 0x1234}};
  EXPECT_EQ(recorded(), want);
  EXPECT_TRUE(pf->core().errors().empty());
}

// IB mode from RAMFC: IB_CONFIG order 3 = 8 entries. RAMFC IB_GET = IB_PUT = 6; the host writes
// IB_PUT 1: entries 6, 7 and (wrapping at 8) 0 run, each a one-method segment, and IB_GET ends at 1.
TEST_F(channels, RamfcIbOrderWrapsIbGet) {
  build();
  for (uint32_t i = 0; i < 8; ++i) {
    const uint64_t seg = pb + 0x100 * i;
    mem->words(seg, {hdr_inc(0, 0x104, 1), 0x100 + i});
    uint32_t e[2];
    encode_ib({seg, 2, false, false, false}, e[0], e[1]);
    mem->words(ib + 8 * i, {e[0], e[1]});
  }
  ramfc_ib(3);
  ramfc(0x00, 6);  // IB_PUT
  ramfc(0x04, 6);  // IB_GET
  ramfc(0x58, 0x2);
  start();
  userd->write32(ch * pf->userd_stride() + 0x8c, 1);
  run();
  const std::vector<std::pair<uint32_t, uint32_t>> want = {{0x104, 0x106}, {0x104, 0x107}, {0x104, 0x100}};
  EXPECT_EQ(recorded(), want);
  EXPECT_EQ(u32(0x88), 1u);  // IB_GET
}

// A channel-table entry without bit 31 (ENABLE) does not run, nor does an enabled channel missing
// from the runlist or with CACHES.REASSIGN clear; once all hold, it runs.
TEST_F(channels, ChannelRunsOnlyWhenEnabledListedAndReassignOn) {
  build();
  mem->words(pb, {hdr_inc(0, 0x104, 1), 0x1});
  ramfc_dma(pb);
  ramfc(0x58, 0x2);
  start(false);  // table entry bit 31 clear
  userd->write32(ch * pf->userd_stride() + 0x40, uint32_t(pb + 8));
  run();
  EXPECT_TRUE(rec().log.empty());
  EXPECT_EQ(pf->core().ramfc_loads, 0u);
  mem->w32(runlist, 5);  // a runlist without channel 1
  regs->write32(0x12ec, 1);
  EXPECT_EQ(regs->read32(0x12ec), 1u | 1u << 12);  // LEN 1, update pending (G84: bit 12)
  regs->write32(0x600 + 4 * ch, 0x80000000u | table_entry());
  run();
  EXPECT_EQ(regs->read32(0x12ec), 1u);  // read: no longer pending
  EXPECT_TRUE(rec().log.empty());
  regs->write32(0x500, 0);  // CACHES.REASSIGN off
  mem->w32(runlist, ch);
  regs->write32(0x12ec, 1);
  run();
  EXPECT_TRUE(rec().log.empty());
  regs->write32(0x500, 1);
  run();
  ASSERT_EQ(rec().log.size(), 1u);
  EXPECT_EQ(rec().log[0].param, 1u);
}

// KICK_CHANNEL (0x32fc) saves the resident channel into RAMFC: by hand, after the pushbuffer of
// 3 commands (24 bytes) DMA_GET = DMA_PUT = pb + 24, REF = 7, ENGINE = 2, DMA_STATE = 0 (no
// command pending), and the fields PFIFO does not interpret come back as written (0x44, 0x60).
// The register reads 0xffffffff until the unload is done, then the value written.
TEST_F(channels, UnloadKickWritesStateBackToRamfc) {
  build();
  object(0xbeef, 2, 0x40);
  mem->words(pb, {hdr_inc(0, 0, 1), 0xbeef, hdr_inc(0, 0x104, 1), 0x1234, hdr_inc(0, 0x50, 1), 7});
  ramfc_dma(pb);
  start();
  userd->write32(ch * pf->userd_stride() + 0x40, uint32_t(pb + 24));
  run();
  EXPECT_EQ(ramfc_word(0x10), uint32_t(pb));  // still the driver's: the channel is resident
  regs->write32(0x12fc, uint32_t(inst >> 12));
  EXPECT_EQ(regs->read32(0x12fc), 0xffffffffu);
  run(1);
  EXPECT_EQ(regs->read32(0x12fc), uint32_t(inst >> 12));
  EXPECT_EQ(ramfc_word(0x08), uint32_t(pb + 24));  // DMA_PUT
  EXPECT_EQ(ramfc_word(0x10), uint32_t(pb + 24));  // DMA_GET
  EXPECT_EQ(ramfc_word(0x18), uint32_t(pb + 24));  // DMA_MGET
  EXPECT_EQ(ramfc_word(0x74), 7u);                 // REF
  EXPECT_EQ(ramfc_word(0x58), 0x2u);               // ENGINE: subchannel 0 bound to engine 2 by OBJECT
  EXPECT_EQ(ramfc_word(0x5c) & 0xf, 2u);           // PULL1: last engine 2
  EXPECT_EQ(ramfc_word(0x30), 0x54u);              // DMA_STATE: METHOD = REF_CNT 0x50 + 4 (incremented after its word), subc 0, increasing
  EXPECT_EQ(ramfc_word(0x44), 0x01003fffu);
  EXPECT_EQ(ramfc_word(0x60), 0x7fffffffu);
  EXPECT_EQ(pf->core().loaded(), -1);
  EXPECT_EQ(pf->core().ramfc_saves, 1u);
  // The host edits RAMFC while the channel is unloaded: REF 9, and it is re-enabled: the reload
  // takes RAMFC's REF.
  ramfc(0x74, 9);
  regs->write32(0x600 + 4 * ch, 0x80000000u | table_entry());
  run();
  EXPECT_EQ(u32(0x48), 9u);
}

// G80 form: the table entry is instance >> 12 and RAMFC sits at instance + 0.
TEST_F(channels, G80TableEntryIsTheInstance) {
  build("G80");
  mem->words(pb, {hdr_inc(0, 0x104, 1), 0x77, hdr_inc(0, 0x50, 1), 3});
  ramfc_dma(pb);
  ramfc(0x58, 0x2);
  start();
  userd->write32(ch * pf->userd_stride() + 0x40, uint32_t(pb + 16));
  run();
  const std::vector<std::pair<uint32_t, uint32_t>> want = {{0x104, 0x77}};
  EXPECT_EQ(recorded(), want);
  EXPECT_EQ(u32(0x48), 3u);
  EXPECT_EQ(regs->read32(0x12ec), 1u);  // G80: LEN 8 bits, pending bit 8 clear
}

// An unreadable RAMFC (address past the memory) keeps the channel off and is a modelled error.
TEST_F(channels, UnreadableRamfcIsAModelledError) {
  build();
  mem->w32(runlist, ch);
  regs->write32(0x600 + 4 * ch, 0x80000000u | 0x00ffff00u);  // RAMFC at VRAM 0xffff0000: not backed
  regs->write32(0x12f4, uint32_t(runlist >> 12));
  regs->write32(0x12ec, 1);
  regs->write32(0x1200, 1);
  regs->write32(0x1250, 1);
  regs->write32(0x500, 1);
  run();
  ASSERT_EQ(pf->modelled_errors().size(), 1u);
  EXPECT_NE(pf->modelled_errors()[0].find("channel 1: RAMFC at 0x2ffff0000 is not readable"), std::string::npos)
      << pf->modelled_errors()[0];
}

// gpuvp's CHAN_* set-up registers are inert on G80:GF100.
TEST_F(channels, OwnSetupRegistersAreInertOnG84) {
  build();
  regs->write32(0x300, ch);  // CHAN_SEL (still selects the channel CHAN_STATUS reports)
  regs->write32(0x304, 1);   // CHAN_CTRL enable: ignored
  regs->write32(0x310, 0x1000);
  EXPECT_FALSE(pf->core().chan(ch).enabled);
  EXPECT_EQ(pf->core().chan(ch).dma_limit, 0xffffffffu);
}

// USERD read shadow (reference: "read low then high"): reading DMA_GET latches DMA_GET_HIGH,
// reading DMA_MGET latches DMA_MGET_HIGH. RAMFC DMA_GET = DMA_MGET = 0x1_0000_0040 (high 1).
TEST_F(channels, UserdHighHalvesAreLatchedByTheLowRead) {
  build();
  ramfc_dma(0x40);
  for (uint32_t off : {0x0c, 0x14, 0x1c}) ramfc(off, 1);  // DMA_PUT/GET/MGET_HIGH = 1: no work
  ramfc(0x18, 0x40);
  start();
  run();
  EXPECT_EQ(pf->core().chan(ch).dma_get, 0x100000040ull);
  EXPECT_EQ(u32(0x60), 0u);  // DMA_GET_HIGH before any DMA_GET read: the (reset) shadow
  EXPECT_EQ(u32(0x5c), 0u);  // DMA_MGET_HIGH likewise
  EXPECT_EQ(u32(0x44), 0x40u);
  EXPECT_EQ(u32(0x58), 0x40u);
  EXPECT_EQ(u32(0x60), 1u);
  EXPECT_EQ(u32(0x5c), 1u);
  // The channel moves on to high half 2 (unload, RAMFC rewritten, re-enabled): the high reads
  // still give the latched 1 until the low halves are read again.
  regs->write32(0x12fc, uint32_t(inst >> 12));
  run(1);
  for (uint32_t off : {0x0c, 0x14, 0x1c}) ramfc(off, 2);
  regs->write32(0x600 + 4 * ch, 0x80000000u | table_entry());
  run();
  EXPECT_EQ(pf->core().chan(ch).dma_get, 0x200000040ull);
  EXPECT_EQ(u32(0x60), 1u);
  EXPECT_EQ(u32(0x5c), 1u);
  u32(0x44);
  u32(0x58);
  EXPECT_EQ(u32(0x60), 2u);
  EXPECT_EQ(u32(0x5c), 2u);
}

// Through the MMU (memory_target = the stub): the side band of each access (nv50-vm.rst):
// pushbuffer reads 5/0x08 slot 0x600, RAMFC/RAMHT linear (no slot), semaphore release 5/0x04,
// M2MF reads 0/0x03 DISPATCH, writes 0/0x03; every access carries vm_context = CHAN_INST.
// dma_bind: the M2MF BUFFER_IN selector written twice (same value) gives reads with bind 2;
// DMA_SEMAPHORE written once gives the release bind 1.
TEST_F(channels, EnginesUseTheirOwnVmClientsAndBindGenerations) {
  build("G84", true);
  // DMA objects at selectors 0x20 (VRAM 0, RW) for the copy and the semaphore.
  mem->words(inst + 0x20 * 16, {0x3d | 1u << 16 | 2u << 18, 0x40000000, 0, 0, 0, 0});
  object(0xc0, 1, 0x30);  // M2MF object on engine 1 (PGRAPH)
  object(0xd0, 0, 0x20);  // the DMA object
  mem->words(0x500000, {0x11111111, 0x22222222});
  mem->words(pb, {hdr_inc(1, 0, 1),
                  0xc0,
                  hdr_inc(1, 0x184, 2),
                  0xd0,
                  0xd0,  // BUFFER_IN, BUFFER_OUT (RAMHT-translated)
                  hdr_inc(1, 0x184, 1),
                  0xd0,  // BUFFER_IN again, same object: bind 2
                  hdr_inc(1, 0x30c, 2),
                  0x500000,
                  0x500100,  // OFFSET_IN, OFFSET_OUT
                  hdr_inc(1, 0x31c, 2),
                  8,
                  1,  // LINE_LENGTH_IN 8, LINE_COUNT 1
                  hdr_inc(1, 0x328, 1),
                  0,  // BUFFER_NOTIFY: the copy
                  hdr_inc(0, 0x60, 2),
                  0xd0,
                  0x100,  // DMA_SEMAPHORE, SEMAPHORE_OFFSET
                  hdr_inc(0, 0x6c, 1),
                  0x5555});  // SEMAPHORE_RELEASE
  ramfc_dma(pb);
  start();
  userd->write32(ch * pf->userd_stride() + 0x40, uint32_t(pb + 4 * 20));
  run();
  EXPECT_TRUE(pf->core().errors().empty());
  EXPECT_EQ(mem->r32(0x500100), 0x11111111u);
  EXPECT_EQ(mem->r32(0x500104), 0x22222222u);
  bool saw_pb = false, saw_in = false, saw_out = false, saw_release = false, saw_ramfc = false;
  for (const auto& r : mem->log) {
    const gpu_ext& e = r.ext;
    if (e.dma_slot == gpu_ext::none) {
      saw_ramfc |= r.addr == ramfc_at;
      continue;
    }
    EXPECT_EQ(e.vm_context, uint32_t(inst >> 12));
    EXPECT_EQ(e.channel, ch);
    if (e.dma_slot == pb_sel) {
      saw_pb = true;
      EXPECT_EQ(e.vm_engine, 5u);
      EXPECT_EQ(e.vm_client, 0x08u);
      EXPECT_EQ(e.dma_bind, 1u);  // one channel load wrote the pushbuffer selector
    } else if (r.addr == 0x500000) {
      saw_in = true;
      EXPECT_EQ(e.vm_engine, 0u);
      EXPECT_EQ(e.vm_client, 0x03u);
      EXPECT_EQ(e.dma_bind, 2u);
    } else if (r.addr == 0x500100) {
      saw_out = true;
      EXPECT_EQ(e.vm_engine, 0u);
      EXPECT_EQ(e.vm_client, 0x03u);
      EXPECT_TRUE(r.write);
      EXPECT_EQ(e.dma_bind, 1u);
    } else if (r.addr == 0x100 && r.write) {
      saw_release = true;
      EXPECT_EQ(e.vm_engine, 5u);
      EXPECT_EQ(e.vm_client, 0x04u);
      EXPECT_EQ(e.dma_bind, 1u);
    }
  }
  EXPECT_TRUE(saw_pb && saw_in && saw_out && saw_release && saw_ramfc);
  EXPECT_EQ(mem->r32(0x100), 0x5555u);
}

// DMI through the MMU (memory_target = the stub, which grants every DMA-object request all of
// its memory): a region is used only for the side band it was granted for, and an invalidation
// drops it. Kick 1: the pushbuffer fetch and the semaphore release each go by b_transport and
// each gets its own region (slot 0x600 / 5 / 0x08, slot 0x20 / 5 / 0x04). Kick 2: both through
// DMI (their transactions still come, marked dmi_shadow, carrying only timing). Invalidation,
// kick 3: both by b_transport again.
TEST_F(channels, DmiRegionsAreKeptWithTheirSideBand) {
  build("G84", true);
  mem->grant = true;
  object(0xd0, 0, 0x20);
  mem->words(pb, {hdr_inc(0, 0x60, 2), 0xd0, 0x100, hdr_inc(0, 0x6c, 1), 1,  // kick 1
                  hdr_inc(0, 0x6c, 1), 2,                                    // kick 2
                  hdr_inc(0, 0x6c, 1), 3});                                  // kick 3
  ramfc_dma(pb);
  start();
  auto count = [&](uint32_t slot, bool write, bool shadow = false) {
    unsigned n = 0;
    for (const auto& r : mem->log) n += r.ext.dma_slot == slot && r.write == write && r.ext.dmi_shadow == shadow;
    return n;
  };
  userd->write32(ch * pf->userd_stride() + 0x40, uint32_t(pb + 20));
  run();
  EXPECT_EQ(mem->r32(0x100), 1u);
  EXPECT_EQ(count(pb_sel, false), 1u);
  EXPECT_EQ(count(0x20, true), 1u);
  userd->write32(ch * pf->userd_stride() + 0x40, uint32_t(pb + 28));
  run();
  EXPECT_EQ(mem->r32(0x100), 2u);
  EXPECT_EQ(count(pb_sel, false), 1u);        // fetched through the pushbuffer's region
  EXPECT_EQ(count(0x20, true), 1u);           // written through the semaphore's region
  EXPECT_EQ(count(pb_sel, false, true), 1u);  // each with its timing-only transaction
  EXPECT_EQ(count(0x20, true, true), 1u);
  EXPECT_EQ(pf->dmi_accesses.value(), 2u);
  mem->in->invalidate_direct_mem_ptr(0, ~sc_dt::uint64(0));
  userd->write32(ch * pf->userd_stride() + 0x40, uint32_t(pb + 36));
  run();
  EXPECT_EQ(mem->r32(0x100), 3u);
  EXPECT_EQ(count(pb_sel, false), 2u);
  EXPECT_EQ(count(0x20, true), 2u);
  // Every grant request carried the access's side band.
  bool saw_pb = false, saw_sem = false;
  for (const auto& e : mem->dmi_requests) {
    saw_pb |= e.dma_slot == pb_sel && e.vm_engine == 5 && e.vm_client == 0x08 && e.vm_context == uint32_t(inst >> 12);
    saw_sem |= e.dma_slot == 0x20 && e.vm_engine == 5 && e.vm_client == 0x04 && e.dma_bind == 1;
  }
  EXPECT_TRUE(saw_pb && saw_sem);
}

// ---------------------------------------------------------------- NV4:G80
// Pre-G80 DMA channels set up as nouveau's nv04/nv10/nv17/nv40 fifo code does it (worked out by
// hand from nouveau's ramfc tables and dma channel constructors, and regsnv04.h): one RAMFC record
// per channel at the RAMFC base + chid * size, NV4 32 bytes (0x00 DMA_PUT, 0x04 DMA_GET, 0x08
// DMA_INSTANCE | DCOUNT << 16, 0x0c DMA_STATE, 0x10 DMA_FETCH, 0x14 ENGINE, 0x18 PULL1), NV10 and
// NV1A 32 bytes and NV25 (nouveau's nv17) 64 bytes (0x08 REF, 0x0c DMA_INSTANCE, 0x10 DMA_STATE,
// 0x14 DMA_FETCH, 0x18 ENGINE, 0x1c PULL1), NV40 128 bytes (0x08 REF, 0x0c DMA_INSTANCE, 0x10
// DCOUNT, 0x14 DMA_STATE, 0x18 DMA_FETCH, 0x1c ENGINE, 0x20 PULL1, 0x3c DMA_TIMESLICE). Registers
// (BAR0 0x2000 + offset): 0x210 RAMHT (search << 24 | (bits - 9) << 16 | offset >> 8), 0x214 RAMFC
// (offset >> 8), NV40 0x220 (offset >> 16 | 0x30000), 0x504 MODE (bit c: channel c in DMA mode),
// 0x500 CACHES, 0x1200 PUSH0, 0x1250 PULL0. RAMIN = VRAM here (ramin_base = vram_base), so a RAMIN
// offset is the stub's address.
namespace {
struct nv04_case {
  const char* generation;
  unsigned record;
  uint32_t inst, fetch, engine;
};
// record size and the DMA_INSTANCE / DMA_FETCH / ENGINE offsets of each layout (nouveau's tables)
const nv04_case nv04_cases[] = {{"NV4", 32, 0x08, 0x10, 0x14},
                                {"NV10", 32, 0x0c, 0x14, 0x18},
                                {"NV1A", 32, 0x0c, 0x14, 0x18},
                                {"NV25", 64, 0x0c, 0x14, 0x18},
                                {"NV40", 128, 0x0c, 0x18, 0x1c}};

class nv04_channels : public channels {
 protected:
  static constexpr uint64_t ramfc_base = 0x30000, ramht_at = 0x40000, pb_b = 0x200000;
  static constexpr uint32_t pbo = 0x100, pbo_b = 0x101;  // pushbuffer DMA objects at RAMIN 0x1000 / 0x1010
  nv04_case lay{};

  void build_nv(const nv04_case& c) {
    lay = c;
    build(c.generation);
    dmaobj(pbo, 0, 0x3fffffff);    // all of VRAM
    dmaobj(pbo_b, pb_b, 0xfffff);  // 1 MiB from VRAM 0x200000
  }
  // NV4 DMA object: class 0x3d | PT present | target VRAM | adjust << 20, limit, frame | 3.
  void dmaobj(uint32_t sel, uint32_t base, uint32_t limit) {
    mem->words(uint64_t(sel) * 16, {0x3d | 1u << 12 | 1u << 13 | (base & 0xfff) << 20, limit, (base & 0xfffff000) | 3});
  }
  uint64_t record_at(unsigned c) const { return ramfc_base + uint64_t(c) * lay.record; }
  void rf(unsigned c, uint32_t off, uint32_t v) { mem->w32(record_at(c) + off, v); }
  uint32_t rf_word(unsigned c, uint32_t off) const { return mem->r32(record_at(c) + off); }
  // nouveau's channel constructor: DMA_PUT = DMA_GET = get, DMA_INSTANCE = the object, DMA_FETCH =
  // TRIG_128 | SIZE_128 | MAX_REQS_8 = 0x78 | 0x6000 | 0x80000 (NV40 | 0x30000000, 0x3c 0x1ffff).
  void nv_dma(unsigned c, uint32_t get, uint32_t obj, unsigned engine0 = 2) {
    rf(c, 0x00, get);
    rf(c, 0x04, get);
    rf(c, lay.inst, obj);
    rf(c, lay.fetch, 0x86078u | (g == gen::nv40 ? 0x30000000u : 0));
    if (g == gen::nv40) rf(c, 0x3c, 0x0001ffff);
    rf(c, lay.engine, engine0);  // ENGINE: subchannel 0 -> engine0
  }
  // nouveau's fifo init, then MODE (channel start).
  void nv_start(uint32_t mode_bits) {
    regs->write32(0x210, 3u << 24 | 0u << 16 | uint32_t(ramht_at >> 8));  // RAMHT: search 128, 4 KiB (bits 9)
    if (g == gen::nv40)
      regs->write32(0x220, 0x30000u | uint32_t(ramfc_base >> 16));
    else
      regs->write32(0x214, uint32_t(ramfc_base >> 8));
    regs->write32(0x1200, 1);
    regs->write32(0x1250, 1);
    regs->write32(0x500, 1);
    regs->write32(0x504, mode_bits);
  }
  size_t reads_of(uint64_t addr, unsigned len) const {
    size_t n = 0;
    for (auto& r : mem->log) n += !r.write && r.addr == addr && r.len == len;
    return n;
  }
};

class nv04_generations : public nv04_channels, public ::testing::WithParamInterface<nv04_case> {};
}  // namespace

// RAMFC DMA_GET is where fetching starts, through the DMA_INSTANCE object, and the record has the
// generation's size. Object 0x101 starts at VRAM 0x200000: its offset 0x100 holds 0x104 = 0xaaaa,
// 0x108 holds 0x104 = 0xbbbb; VRAM 0x108 (what object 0x100 would give) holds 0x104 = 0xdead.
// RAMFC of channel 1: DMA_GET = DMA_PUT = 0x108, DMA_INSTANCE = 0x101; USERD DMA_PUT = 0x110.
// By hand: only 0xbbbb runs, fetched at VRAM 0x200108; the load is one read of `record` bytes at
// 0x30000 + record (channel 1).
TEST_P(nv04_generations, RamfcDmaGetInstanceAndRecordSize) {
  build_nv(GetParam());
  mem->words(pb_b + 0x100, {hdr_inc(0, 0x104, 1), 0xaaaa, hdr_inc(0, 0x104, 1), 0xbbbb});
  mem->words(0x108, {hdr_inc(0, 0x104, 1), 0xdead});
  nv_dma(ch, 0x108, pbo_b);
  nv_start(1u << ch);
  userd->write32(ch * pf->userd_stride() + 0x40, 0x110);
  run();
  const std::vector<std::pair<uint32_t, uint32_t>> want = {{0x104, 0xbbbb}};
  EXPECT_EQ(recorded(), want);
  EXPECT_EQ(u32(0x44), 0x110u);  // USERD DMA_GET reached DMA_PUT
  EXPECT_EQ(reads_of(ramfc_base + lay.record, lay.record), 1u);
  EXPECT_EQ(reads_of(pb_b + 0x108, 8), 1u);
  EXPECT_EQ(pf->core().ramfc_loads, 1u);
  EXPECT_TRUE(pf->modelled_errors().empty());
  EXPECT_TRUE(pf->core().errors().empty());
}

INSTANTIATE_TEST_SUITE_P(pfifo, nv04_generations, ::testing::ValuesIn(nv04_cases),
                         [](const auto& i) { return std::string(i.param.generation); });

// MODE bit 1 clear: channel 1 does not run (its record is not even read), although its RAMFC and
// USERD DMA_PUT are written; setting the bit starts it.
TEST_F(nv04_channels, ModeBitClearKeepsTheChannelOff) {
  build_nv(nv04_cases[1]);  // NV10
  mem->words(pb_b, {hdr_inc(0, 0x104, 1), 0x5});
  nv_dma(ch, 0, pbo_b);
  nv_start(1u);  // channel 0 only (its record is all zero: nothing to do)
  userd->write32(ch * pf->userd_stride() + 0x40, 8);
  run();
  EXPECT_TRUE(rec().log.empty());
  EXPECT_EQ(reads_of(record_at(ch), 32), 0u);
  EXPECT_FALSE(pf->core().chan(ch).enabled);
  regs->write32(0x504, 1u | 1u << ch);
  run();
  const std::vector<std::pair<uint32_t, uint32_t>> want = {{0x104, 0x5}};
  EXPECT_EQ(recorded(), want);
}

// A channel switch saves the resident channel to its record (NV40, 128 bytes). Channel 0 runs
// REF_CNT 0x55 and 0x104 = 1 (16 bytes from VRAM 0x300000), channel 1 then 0x104 = 2. By hand,
// switching to channel 1 writes channel 0's record at 0x30000: DMA_PUT = DMA_GET = 0x300010, REF
// 0x55, DMA_INSTANCE 0x100, DMA_STATE 0x108 (METHOD = 0x104 + 4, subchannel 0, increasing,
// METHOD_COUNT 0), ENGINE 2, and DMA_FETCH / DMA_TIMESLICE back as written. (REF_CNT comes first:
// it waits for idle engines, so after 0x104 it would still be pending at the switch.)
TEST_F(nv04_channels, SwitchSavesDmaGetBackToRamfc) {
  build_nv(nv04_cases[4]);  // NV40
  mem->words(0x300000, {hdr_inc(0, 0x50, 1), 0x55, hdr_inc(0, 0x104, 1), 1});
  mem->words(0x300100, {hdr_inc(0, 0x104, 1), 2});
  nv_dma(0, 0x300000, pbo);
  nv_dma(1, 0x300100, pbo);
  nv_start(3);
  userd->write32(0x40, 0x300010);
  userd->write32(pf->userd_stride() + 0x40, 0x300108);
  run();
  std::vector<std::pair<uint32_t, uint32_t>> want = {{0x104, 1}, {0x104, 2}};
  EXPECT_EQ(recorded(), want);
  EXPECT_EQ(pf->core().ramfc_saves, 1u);  // channel 0; channel 1 stays resident
  EXPECT_EQ(rf_word(0, 0x00), 0x300010u);
  EXPECT_EQ(rf_word(0, 0x04), 0x300010u);
  EXPECT_EQ(rf_word(0, 0x08), 0x55u);
  EXPECT_EQ(rf_word(0, 0x0c), 0x100u);
  EXPECT_EQ(rf_word(0, 0x14), 0x108u);
  EXPECT_EQ(rf_word(0, 0x18), 0x30086078u);
  EXPECT_EQ(rf_word(0, 0x1c), 2u);
  EXPECT_EQ(rf_word(0, 0x3c), 0x1ffffu);
  EXPECT_EQ(rf_word(1, 0x04), 0x300100u);  // channel 1's record is untouched while it is resident
  // As nouveau's fini/init: MODE bit 0 cleared, the record edited (DMA_GET back to the 0x104
  // command, REF 0x66), the bit set again. The load takes the record: 0x104 = 1 runs again and
  // REF is 0x66, not the 0x55 the model had.
  regs->write32(0x504, 2);
  rf(0, 0x04, 0x300008);
  rf(0, 0x08, 0x66);
  regs->write32(0x504, 3);
  run();
  want.push_back({0x104, 1});
  EXPECT_EQ(recorded(), want);
  EXPECT_EQ(userd->read32(0x48), 0x66u);
  EXPECT_EQ(userd->read32(0x44), 0x300010u);
}

// 0x2210 places the global RAMHT: 4 KiB (9 bits) at RAMIN 0x40000, not the parameters' 32 KiB at
// 0x10000. By hand, hash(0xbeef, 9 bits, chid 1) = 0x0ef ^ 0x05f ^ (1 << 5) = 0x90: the entry at
// 0x40000 + 0x90 * 8 = 0x40480, context valid | chid 1 << 24 | engine 2 << 16 | 0x40.
TEST_F(nv04_channels, RamhtRegisterPlacesTheTable) {
  build_nv(nv04_cases[0]);  // NV4
  EXPECT_EQ(ramht_hash(0xbeef, 9, 1), 0x90u);
  mem->words(0x40480, {0xbeef, 0x81020040});
  mem->words(pb_b, {hdr_inc(1, 0, 1), 0xbeef, hdr_inc(1, 0x104, 1), 0x1234});
  nv_dma(ch, 0, pbo_b, 0);
  nv_start(1u << ch);
  userd->write32(ch * pf->userd_stride() + 0x40, 16);
  run();
  const std::vector<std::pair<uint32_t, uint32_t>> want = {{0, 0x40}, {0x104, 0x1234}};
  EXPECT_EQ(recorded(), want);
  EXPECT_TRUE(pf->core().errors().empty());
  EXPECT_EQ(regs->read32(0x210), 3u << 24 | 0x400u);
}

// NV11:G80 DMA_FETCH bit 31: the channel's pushbuffer is big-endian (NV25 here): the words are
// stored byte-swapped and still decode to 0x104 = 0x01020304; the save writes bit 31 back.
TEST_F(nv04_channels, FetchBigEndianBitSwapsThePushbuffer) {
  build_nv(nv04_cases[3]);  // NV25
  mem->words(pb_b, {__builtin_bswap32(hdr_inc(0, 0x104, 1)), 0x04030201});
  mem->words(0x300000, {hdr_inc(0, 0x104, 1), 9});
  nv_dma(ch, 0, pbo_b);
  rf(ch, 0x14, 0x80086078u);  // DMA_FETCH | BIG_ENDIAN
  nv_dma(2, 0x300000, pbo);   // channel 2, little-endian: runs after channel 1 and saves it
  nv_start(1u << ch | 1u << 2);
  userd->write32(ch * pf->userd_stride() + 0x40, 8);
  userd->write32(2 * pf->userd_stride() + 0x40, 0x300008);
  run();
  const std::vector<std::pair<uint32_t, uint32_t>> want = {{0x104, 0x01020304}, {0x104, 9}};
  EXPECT_EQ(recorded(), want);
  EXPECT_EQ(rf_word(ch, 0x14), 0x80086078u);
  EXPECT_EQ(rf_word(ch, 0x04), 8u);
}

// A RAMFC base past the memory (NV40_RAMFC = 0xffff: RAMIN + 0xffff0000): channel 1's record at
// 0x2_0000_0000 + 0xffff0000 + 128 = 0x2ffff0080 cannot be read, a modelled error naming the
// channel and the address; the channel does not run, channel 0 (MODE bit clear) is not touched.
TEST_F(nv04_channels, UnreadableRecordIsAModelledError) {
  build_nv(nv04_cases[4]);
  nv_start(1u << ch);
  regs->write32(0x220, 0xffff);
  userd->write32(ch * pf->userd_stride() + 0x40, 8);
  run();
  ASSERT_EQ(pf->modelled_errors().size(), 1u);
  EXPECT_NE(pf->modelled_errors()[0].find("channel 1: RAMFC at 0x2ffff0080 is not readable"), std::string::npos)
      << pf->modelled_errors()[0];
  EXPECT_TRUE(rec().log.empty());
  EXPECT_EQ(pf->core().ramfc_loads, 0u);
}

// gpuvp's CHAN_* set-up registers are inert from NV4 (they work on NV3 and GF100 only).
TEST_F(nv04_channels, OwnSetupRegistersAreInertOnNv40) {
  build_nv(nv04_cases[4]);
  regs->write32(0x300, ch);
  regs->write32(0x304, 1);       // CHAN_CTRL enable: ignored
  regs->write32(0x30c, pbo);     // CHAN_PB_DMAOBJ: ignored
  regs->write32(0x310, 0x1000);  // CHAN_DMA_LIMIT: ignored
  EXPECT_FALSE(pf->core().chan(ch).enabled);
  EXPECT_EQ(pf->core().chan(ch).pb_dmaobj, 0u);
  EXPECT_EQ(pf->core().chan(ch).dma_limit, 0xffffffffu);
}
