// SPDX-License-Identifier: Apache-2.0
// pfifo: the PFIFO command front end as a SystemC component (docs/models/pfifo.md).
//
// Sockets:
//   mem    initiator: pushbuffer, IB, RAMFC, runlist, RAMHT, DMA object, semaphore and copy-engine
//          accesses. Bound to "mmu.in" on G80+ when an mmu_nv50 component is configured (accesses
//          carry gpu_ext vm_engine/vm_client/dma_slot = selector/dma_bind/vm_context = channel
//          descriptor/channel; DMI regions are kept with that side band), otherwise to
//          "interconnect" with DMA objects resolved here (flat addressing).
//   regs   BAR0 0x002000-0x003fff: interrupts, error latch, channel set-up (NV4:G80: RAMHT/RAMFC,
//          MODE, CACHES/PUSH0/PULL0; G80:GF100: channel table, runlist, CACHES/PUSH0/PULL0,
//          unload kick; NV3 and GF100: gpuvp's CHAN_* registers).
//   userd  BAR0 0xc00000 + 0x2000 * channel (G80+; NV40 0xc00000 + 0x1000 *, NV3:NV40 0x800000 +
//          0x10000 *): the channel control areas (USERD).
//   irq    interrupt output: (INTR & INTR_EN) != 0.
#pragma once
#include <cstdint>
#include <map>
#include <tuple>
#include <memory>
#include <string>
#include <vector>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include "engines.h"
#include "fifo_core.h"
#include "gpuvp/config.h"
#include "gpuvp/extension.h"
#include "gpuvp/regbank.h"
#include "gpuvp/registry.h"
#include "gpuvp/stats.h"

namespace gpuvp::pfifo {

class pfifo : public sc_core::sc_module, public gpuvp::component, private fifo_bus {
 public:
  tlm_utils::simple_initiator_socket<pfifo> mem{"mem"};
  tlm_utils::simple_target_socket<pfifo> userd{"userd"};
  sc_core::sc_out<bool> irq{"irq"};

  // --- parameters ---
  gpuvp::param<std::string> generation{this, "generation", "G84",
                                       "GPU generation: NV3 NV4 NV10 NV1A NV11 NV25 NV40 G80 G84 GT215 MCP89 GF100"};
  gpuvp::param<uint64_t> channels{this, "channels", 8, "number of channels", 1, 128};
  gpuvp::param<uint64_t> cache_depth{this, "cache_depth", 128, "CACHE entries per channel", 1, 65536};
  gpuvp::param<uint64_t> burst_bytes{this, "burst_bytes", 128, "pusher fetch burst in bytes (multiple of 4)", 4, 4096};
  gpuvp::param<sc_core::sc_time> method_cost{this,
                                             "method_cost",
                                             sc_core::sc_time(1, sc_core::SC_NS),
                                             "puller time per method",
                                             sc_core::SC_ZERO_TIME,
                                             sc_core::sc_time(1, sc_core::SC_SEC)};
  gpuvp::param<sc_core::sc_time> word_cost{this,
                                           "word_cost",
                                           sc_core::sc_time(1, sc_core::SC_NS),
                                           "pusher time per step (pushbuffer word or IB entry) on top of fetch latency; at least 1 ps, so "
                                           "a channel spinning in a jump loop advances time",
                                           sc_core::sc_time(1, sc_core::SC_PS),
                                           sc_core::sc_time(1, sc_core::SC_SEC)};
  gpuvp::param<sc_core::sc_time> acquire_retry{this,
                                               "acquire_retry",
                                               sc_core::sc_time(1, sc_core::SC_US),
                                               "interval between semaphore acquire retries",
                                               sc_core::sc_time(1, sc_core::SC_NS),
                                               sc_core::sc_time(1, sc_core::SC_SEC)};
  gpuvp::param<sc_core::sc_time> acquire_timeout{
      this,
      "acquire_timeout",
      sc_core::sc_time(10, sc_core::SC_MS),
      "pending acquire time after which ACQUIRE_TIMEOUT is raised (envytools: not reverse-engineered yet)",
      sc_core::SC_ZERO_TIME,
      gpuvp::max_time()};
  gpuvp::param<sc_core::sc_time> timeslice{this,
                                           "timeslice",
                                           sc_core::sc_time(100, sc_core::SC_US),
                                           "channel timeslice when several channels are busy",
                                           sc_core::sc_time(1, sc_core::SC_NS),
                                           sc_core::sc_time(1, sc_core::SC_SEC)};
  gpuvp::param<sc_core::sc_time> run_slice{this,
                                           "run_slice",
                                           sc_core::sc_time(1, sc_core::SC_US),
                                           "simulated time PFIFO runs before yielding to the kernel",
                                           sc_core::sc_time(1, sc_core::SC_NS),
                                           sc_core::sc_time(1, sc_core::SC_SEC)};
  gpuvp::param<bool> big_endian{this, "big_endian", false, "G80+ PFIFO endianness (pushbuffers and semaphores)"};
  gpuvp::param<bool> seed_literal_trigger{
      this, "seed_literal_trigger", false,
      "SEMAPHORE_TRIGGER exactly as envytools' puller pseudocode (WRITE_LONG only for param==2, writes param; op = param & 7)"};
  gpuvp::param<std::string> memory_target{
      this, "memory_target", "auto",
      "where mem binds: auto (mmu.in on G80+ if an mmu_nv50 component exists, else interconnect), interconnect, or <component>.<socket>"};
  gpuvp::param<uint64_t> vram_base{this, "vram_base", 0x200000000, "host physical address of VRAM linear address 0", 0, ~uint64_t(0)};
  gpuvp::param<uint64_t> ramin_base{this, "ramin_base", 0x200000000, "pre-G80: host physical address of RAMIN (DMA objects, RAMHT)",
                                    0,    ~uint64_t(0)};
  gpuvp::param<uint64_t> ramht_offset{this, "ramht_offset",   0x10000, "RAMHT offset in RAMIN (pre-G80) or in the channel structure (G80+)",
                                      0,    uint64_t(1) << 32};
  gpuvp::param<uint64_t> ramht_size{this, "ramht_size", 0x8000, "RAMHT size in bytes (power of two, 8 bytes per entry)", 128, 1 << 20};
  gpuvp::param<std::vector<std::string>> engine_map{
      this,
      "engine_map",
      {"auto"},
      "engines by PFIFO engine id: a list of ID:KIND with KIND m2mf, record, null or compute (the compute class, compute_launch.h); [auto] "
      "= PGRAPH m2mf + PCOPY m2mf + id 2 record"};
  gpuvp::param<sc_core::sc_time> engine_method_cost{this,
                                                    "engine_method_cost",
                                                    sc_core::sc_time(1, sc_core::SC_NS),
                                                    "engine time per method",
                                                    sc_core::SC_ZERO_TIME,
                                                    sc_core::sc_time(1, sc_core::SC_SEC)};
  gpuvp::param<sc_core::sc_time> engine_switch_cost{this,
                                                    "engine_switch_cost",
                                                    sc_core::sc_time(100, sc_core::SC_NS),
                                                    "engine channel switch time",
                                                    sc_core::SC_ZERO_TIME,
                                                    sc_core::sc_time(1, sc_core::SC_SEC)};
  gpuvp::param<uint64_t> engine_queue{this, "engine_queue", 16, "engine input queue depth (methods)", 1, 65536};
  gpuvp::param<bool> use_dmi{this, "use_dmi", true,
                             "use DMI where granted (flat: host addresses; through the MMU: regions kept per side band)"};
  gpuvp::param<uint64_t> copy_bandwidth{this, "copy_bandwidth", 16, "copy engine bytes per ns", 1, 4096};
  gpuvp::param<uint64_t> regs_base{this, "regs_base", 0x002000, "BAR0 offset of the PFIFO registers", 0, uint64_t(1) << 40};
  gpuvp::param<uint64_t> userd_base{
      this, "userd_base",
      0,    "BAR0 offset of channel 0's control area; 0 = nouveau's for the generation (0x800000 NV3:NV40, 0xc00000 NV40+)",
      0,    uint64_t(1) << 40};

  // --- registers (BAR0 regs_base + offset) ---
  gpuvp::register_bank regs{"regs", 0x2000};
  gpuvp::reg intr{regs, "INTR", 0x100, 4, 0};  // W1C: 0 CACHE_ERROR, 12 DMA_PUSHER, 20 SEMAPHORE, 24 ACQUIRE_TIMEOUT, 30 NOTIFY_INTR
  gpuvp::reg intr_en{regs, "INTR_EN", 0x140, 4, 0xffffffff};
  gpuvp::reg err_channel{regs, "ERR_CHANNEL", 0x1f00, 4, 0, gpuvp::access::ro};  // oldest unacknowledged error
  gpuvp::reg err_kind{regs, "ERR_TYPE", 0x1f04,
                      4,    0,          gpuvp::access::ro};  // 0 none, 1 DMA_PUSHER, 2 CACHE_ERROR, 3 SEMAPHORE, 4 ACQUIRE_TIMEOUT
  gpuvp::reg err_code{regs, "ERR_CODE", 0x1f08, 4, 0, gpuvp::access::ro};      // pusher id / cache reason / semaphore subtype
  gpuvp::reg err_word{regs, "ERR_WORD", 0x1f0c, 4, 0, gpuvp::access::ro};      // offending word or method parameter
  gpuvp::reg err_pos_lo{regs, "ERR_POS_LO", 0x1f10, 4, 0, gpuvp::access::ro};  // pushbuffer address of the word
  gpuvp::reg err_pos_hi{regs, "ERR_POS_HI", 0x1f14, 4, 0, gpuvp::access::ro};
  gpuvp::reg err_mthd{regs, "ERR_MTHD", 0x1f18, 4, 0, gpuvp::access::ro};        // subc << 16 | method
  gpuvp::reg err_ack{regs, "ERR_ACK", 0x1f1c, 4, 0, gpuvp::access::wo};          // any write: acknowledge, the channel resumes
  gpuvp::reg err_pending{regs, "ERR_PENDING", 0x1f20, 4, 0, gpuvp::access::ro};  // unacknowledged errors
  // NV4:G80 channel set-up as nouveau does it (nvkm/engine/fifo/nv04.c..nv40.c, regsnv04.h).
  gpuvp::reg ramht_reg{regs, "RAMHT", 0x210, 4, 0};  // 0-15 RAMHT offset in RAMIN >> 8, 16-17 bits - 9, 24-25 search (stored)
  gpuvp::reg ramfc_reg{regs, "RAMFC", 0x214, 4, 0};  // NV4:NV40: 0-15 RAMFC offset in RAMIN >> 8 (bit 16, nouveau's NV17+ value, stored)
  gpuvp::reg ramro_reg{regs, "RAMRO", 0x218, 4, 0};  // stored (RAMRO, the PIO runout area, is not modelled)
  gpuvp::reg ramfc40_reg{regs, "NV40_RAMFC", 0x220, 4, 0};  // NV40: 0-15 RAMFC offset in RAMIN >> 16 (16-17 stored)
  gpuvp::reg mode{regs, "MODE", 0x504, 4, 0};               // NV4:G80: bit c: channel c in DMA mode (enabled)
  gpuvp::reg chan_sel{regs, "CHAN_SEL", 0x300, 4, 0};       // channel the CHAN_* registers address
  gpuvp::reg chan_ctrl{regs, "CHAN_CTRL", 0x304, 4, 0};     // 0 enable, 1 IB mode, 2 big-endian (NV11:G80), 3 SLI enable, 16-27 SLI mask
  gpuvp::reg chan_inst{regs, "CHAN_INST", 0x308, 4, 0};     // G80+: channel descriptor (structure address >> 12 | target << 28)
  gpuvp::reg chan_pb_dma{regs, "CHAN_PB_DMAOBJ", 0x30c, 4, 0};  // pushbuffer DMA object selector
  gpuvp::reg chan_limit{regs, "CHAN_DMA_LIMIT", 0x310, 4, 0xffffffff};
  gpuvp::reg chan_ib_lo{regs, "CHAN_IB_ADDR_LO", 0x314, 4, 0};
  gpuvp::reg chan_ib_hi{regs, "CHAN_IB_ADDR_HI", 0x318, 4, 0};
  gpuvp::reg chan_ib_order{regs, "CHAN_IB_ORDER", 0x31c, 4, 0, gpuvp::access::rw, 0x1f};
  gpuvp::reg chan_status{regs, "CHAN_STATUS",    0x320, 4,
                         0,    gpuvp::access::ro};  // 0 busy, 1 CACHE non-empty, 2 acquire, 3 pusher stopped, 4 puller stopped, 5 hung
  gpuvp::reg chan_get{regs, "CHAN_DMA_GET", 0x324, 4, 0};  // initial DMA_GET = DMA_PUT = DMA_MGET, written before enabling
  gpuvp::reg cache_flush{regs, "DMAOBJ_FLUSH", 0x330, 4, 0, gpuvp::access::wo};  // any write: drop cached DMA objects (flat mode)
  // NV4:GF100 channel set-up as nouveau does it (envytools rnndb nv50_pfifo.xml; docs/models/pfifo.md).
  // The CHAN_CTRL..CHAN_DMA_GET set-up registers above work only on NV3 and GF100.
  gpuvp::reg caches{regs, "CACHES", 0x500, 4, 0, gpuvp::access::rw, 0x1};        // 0 REASSIGN: channel switching (scheduling) enabled
  gpuvp::reg push0{regs, "CACHE1_PUSH0", 0x1200, 4, 0, gpuvp::access::rw, 0x1};  // 0 ACCESS: pushers run
  gpuvp::reg pull0{regs, "CACHE1_PULL0", 0x1250, 4, 0, gpuvp::access::rw, 0x1};  // 0 ACCESS: pullers run
  gpuvp::reg playlist_len{regs, "PLAYLIST_LEN", 0x12ec, 4,
                          0};  // write: runlist of LEN channel ids at PLAYLIST; read: LEN | pending (bit 8 G80, 12 G84+)
  gpuvp::reg playlist{regs, "PLAYLIST", 0x12f4, 4, 0};          // runlist address >> 12 | target << 28
  gpuvp::reg kick_channel{regs, "KICK_CHANNEL", 0x12fc, 4, 0};  // write instance >> 12: save and unload it; reads 0xffffffff until done
  std::vector<std::unique_ptr<gpuvp::reg>>
      chan_table;  // CHAN_TABLE 0x600 + 4 * chid (128): 31 ENABLE, RAMFC address (G80: >> 12, G84+: >> 8)
  // Register bit fields (gpuvp::field<lsb, width>).
  using chan_ctrl_enable = gpuvp::field<0, 1>;
  using chan_ctrl_ib_mode = gpuvp::field<1, 1>;
  using chan_ctrl_big_endian = gpuvp::field<2, 1>;
  using chan_ctrl_sli_enable = gpuvp::field<3, 1>;
  using chan_ctrl_sli_mask = gpuvp::field<16, 12>;
  using chan_inst_desc = gpuvp::field<0, 30>;  // structure address >> 12 | target << 28
  using chan_pb_dmaobj = gpuvp::field<0, 16>;
  using chan_ib_addr_lo = gpuvp::field<3, 29>;  // IB address bits 3-31 (8-byte entries)
  using chan_ib_addr_hi = gpuvp::field<0, 8>;   // IB address bits 32-39
  using chan_ib_order_log2 = gpuvp::field<0, 5>;
  using chan_status_busy = gpuvp::field<0, 1>;
  using chan_status_cache = gpuvp::field<1, 1>;
  using chan_status_acquire = gpuvp::field<2, 1>;
  using chan_status_pusher_stopped = gpuvp::field<3, 1>;
  using chan_status_puller_stopped = gpuvp::field<4, 1>;
  using chan_status_hung = gpuvp::field<5, 1>;
  using err_mthd_method = gpuvp::field<0, 16>;
  using err_mthd_subc = gpuvp::field<16, 16>;
  using chan_table_enable = gpuvp::field<31, 1>;
  using chan_table_g80_desc = gpuvp::field<0, 30>;  // G80: instance >> 12 | target << 28
  using chan_table_ramfc = gpuvp::field<0, 24>;     // G84+: RAMFC address >> 8
  using chan_table_target = gpuvp::field<24, 2>;    // G84+
  using ramht_addr = gpuvp::field<0, 16>;           // RAMHT offset in RAMIN >> 8
  using ramht_bits = gpuvp::field<16, 2>;           // hash bits - 9
  using access_enable = gpuvp::field<0, 1>;         // CACHES REASSIGN, PUSH0 / PULL0 ACCESS

  // USERD offsets (per channel, 0x2000 apart)
  // Where the control areas are (nouveau's user areas): NV3:NV40 0x800000 + 0x10000 x channel,
  // NV40 0xc00000 + 0x1000 x channel, G80+ 0xc00000 + 0x2000 x channel; userd_base overrides the base.
  uint64_t userd_offset() const { return userd_offset_; }
  uint32_t userd_stride() const { return userd_stride_; }
  enum : uint32_t {
    u_dma_put = 0x40,
    u_dma_get = 0x44,
    u_ref = 0x48,
    u_dma_put_high = 0x4c,
    u_dma_cget = 0x54,
    u_dma_mget = 0x58,
    u_dma_mget_high = 0x5c,
    u_dma_get_high = 0x60,
    u_ib_get = 0x88,
    u_ib_put = 0x8c
  };

  // --- statistics (per channel ones are ch<N>.*) ---
  gpuvp::counter transactions{this, "transactions", "memory transactions issued (those of DMI accesses included)"};
  gpuvp::counter dmi_accesses{
      this, "dmi_accesses",
      "memory accesses whose data moved through DMI (flat and through the MMU; timed and counted as transactions too)"};
  gpuvp::counter faults{this, "faults", "memory accesses answered with an error"};
  gpuvp::histogram cache_occupancy{this, "cache_occupancy", "CACHE entries of the running channel, sampled per run slice", "entries"};

  explicit pfifo(sc_core::sc_module_name name);
  ~pfifo() override;

  // component
  sc_core::sc_module& module() override { return *this; }
  std::vector<target_port> targets() override;
  // The compute class's launch port (compute_launch.h), when engine_map has a compute engine.
  std::vector<interface_port> interface_ports() override;
  std::vector<initiator_port> initiators() override;
  std::vector<irq_port> irqs() override { return {{"irq", &irq}}; }
  bool qtest(const std::vector<std::string>& words, std::string& reply) override;
  void report(std::ostream& os) override;
  std::vector<std::string> modelled_errors() override;

  gpuvp::pfifo::fifo_core& core() { return *core_; }
  gpuvp::pfifo::engine* engine_at(unsigned id) { return core_->engine_at(id); }
  unsigned expected_hangs = 0;  // hangs a workload expects (not reported as modelled errors)

  void userd_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned userd_dbg(tlm::tlm_generic_payload& gp);

 private:
  // Construction, one step per responsibility (in this order: each needs the ones before).
  void choose_generation();
  void make_core();
  void build_engines();
  void add_engine(const std::string& item);
  void hook_core_events();
  void wire_error_registers();
  void wire_setup_registers();
  void wire_switching_registers();
  void add_channel_statistics();
  void thread();
  void update_irq();
  void latch_error_regs();
  uint32_t userd_read(unsigned ch, uint32_t off);
  void userd_write(unsigned ch, uint32_t off, uint32_t v);
  bool mmu_mode() const { return mmu_mode_; }
  bool ramfc_mode() const { return gen_ >= gpuvp::pfifo::gen::g80 && gen_ < gpuvp::pfifo::gen::gf100; }
  bool nv04_mode() const { return gen_ >= gpuvp::pfifo::gen::nv4 && gen_ < gpuvp::pfifo::gen::g80; }
  bool ramfc_switching() const { return ramfc_mode() || nv04_mode(); }  // NV4:GF100: channels switch through RAMFC
  void rebind_nv04();                    // MODE / RAMFC base written: every channel's enable and RAMFC record address
  uint32_t mode_bound_ = 0;              // MODE as last applied to the channels
  uint64_t ramfc_bound_ = ~uint64_t(0);  // RAMFC base (host address) as last applied
  bool xfer(bool write, uint64_t addr, void* data, unsigned len, uint64_t& now, const gpuvp::gpu_ext* ext);
  bool resolve(unsigned ch, uint32_t obj, gpuvp::pfifo::client c, uint32_t bind, uint64_t offset, unsigned len, bool write, uint64_t& host,
               uint64_t& now);
  // fifo_bus
  bool dma(bool write, unsigned ch, uint32_t obj, uint64_t offset, void* data, unsigned len, gpuvp::pfifo::client c, uint64_t& now_ps,
           uint32_t bind = 0) override;
  bool vm(bool write, unsigned ch, uint64_t va, void* data, unsigned len, gpuvp::pfifo::client c, uint64_t& now_ps) override;
  bool inst(bool write, uint64_t addr, void* data, unsigned len, uint64_t& now_ps) override;
  void wrcache_flush(uint64_t& now_ps) override;

  gpuvp::pfifo::gen gen_;
  uint64_t userd_offset_ = 0xc00000;
  uint32_t userd_stride_ = 0x2000;
  bool mmu_mode_ = false;
  std::string mem_to_;
  std::unique_ptr<gpuvp::pfifo::fifo_core> core_;
  std::vector<std::unique_ptr<gpuvp::pfifo::engine>> engines_;
  std::vector<uint32_t> engine_vm_;  // NV50 VM engine of each PFIFO engine id
  std::vector<uint32_t> put_high_;
  std::vector<uint32_t> get_high_shadow_, mget_high_shadow_;  // USERD read shadows: latched by the low-half read
  // Flat mode DMA object cache: (channel, selector, issuer) -> the object and the slot's dma_bind
  // it was read under (a new bind reloads it, as a selector rewrite does in hardware).
  struct cached_obj {
    gpuvp::pfifo::dma_object o;
    uint32_t bind;
  };
  std::map<std::tuple<unsigned, uint32_t, int>, cached_obj> dmaobjs_;
  std::vector<std::unique_ptr<gpuvp::gauge>> chan_stats_;
  // DMI regions, each with the side band it was granted for (flat addressing: host addresses,
  // side band ignored; through the MMU: DMA object offsets, valid only for the same vm_engine,
  // vm_client, dma_slot, dma_bind and vm_context). Up to dmi_slots, replaced round robin.
  struct dmi_region {
    tlm::tlm_dmi d;
    uint32_t engine, client, slot, bind, context;
  };
  static constexpr size_t dmi_slots = 8;
  std::vector<dmi_region> dmis_;
  size_t dmi_next_ = 0;
  void invalidate_dmi(sc_dt::uint64 start, sc_dt::uint64 end);
  sc_core::sc_event kick_;
  uint64_t stamp_ps_ = 0;  // sc_time_stamp of the current run slice, in ps
};

}  // namespace gpuvp::pfifo
