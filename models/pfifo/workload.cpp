// SPDX-License-Identifier: Apache-2.0
// The .pb workload run like a driver (channel set-up, kicks, interrupt service) and its checks.
#include "workload.h"

#include <array>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include "fifo_core.h"
#include "gpuvp/config.h"
#include "gpuvp/platform.h"
#include "pb_text.h"
#include "pfifo.h"

#include "workload_decl.h"

namespace gpuvp::pfifo {

using namespace pbw;

namespace {

// The driver side of pb_workload::run: what every set-up step shares (the PFIFO, the host port,
// BAR0 and memory bases), so that each step is a function of its own.
struct pb_driver {
  pb_workload& wl;
  platform& p;
  host_port& h;
  pfifo& pf;
  const gen g;
  const uint64_t bar, regs, userd, vram, ramin;
  const bool g80;
  // G80:GF100 channels are set up as nouveau does it: RAMFC in the instance block, the channel
  // table, the runlist, then PFIFO's CACHES/PUSH0/PULL0 (docs/formats/pushbuffer.md).
  const bool ramfc;
  const uint32_t pb_sel;
  const unsigned bits;  // RAMHT size as a hash width

  pb_driver(pb_workload& wlo, platform& pl, host_port& hp, pfifo& c)
      : wl(wlo),
        p(pl),
        h(hp),
        pf(c),
        g(wlo.g),
        bar(pl.bar0_base),
        regs(bar + c.regs_base),
        userd(bar + c.userd_offset()),
        vram(c.vram_base),
        ramin(c.ramin_base),
        g80(g >= gen::g80),
        ramfc(g80 && g < gen::gf100),
        pb_sel(ramfc ? pb_selector_g80 : 1),
        bits(ramht_bits(uint32_t(c.ramht_size.get()))) {}

  uint64_t reg_at(const gpuvp::reg& r) const { return regs + r.offset(); }  // a PFIFO register's BAR0 address
  void poke32(uint64_t a, uint32_t v) { h.poke(a, &v, 4); }
  uint32_t peek32(uint64_t a) {
    uint32_t v = 0;
    h.peek(a, &v, 4);
    return v;
  }
  uint64_t obj_addr(unsigned ch, uint32_t sel) { return (g80 ? vram + wl.chans[ch].inst : ramin) + uint64_t(sel) * 16; }
  // Pushbuffer words and IB entries in the endianness the pusher reads them with: the channel's
  // big-endian switch before G80, the global pfifo.big_endian from G80 (dma-pusher.rst).
  bool be(const chan_decl& c) const { return g >= gen::g80 ? bool(pf.big_endian.get()) : c.big_endian; }
  void poke_words(uint64_t a, std::vector<uint32_t> w, bool swap) {
    if (swap)
      for (auto& x : w) x = __builtin_bswap32(x);
    h.poke(a, w.data(), unsigned(4 * w.size()));
  }
  // GF100's VM is not modelled (virtual = host physical): IB entries and the IB carry host addresses.
  uint64_t bias(const chan_decl& c) const { return g >= gen::gf100 && !c.sysram ? vram : 0; }

  void write_dmaobj(const dmaobj_decl& d);
  void load_memory();
  bool set_up_g80_ramfc();
  bool set_up_nv04_ramfc();
  void set_up_own_registers();
  void kick_channels();
  void service_until_idle();
  void tear_down();
  void read_end_state();
};

void pb_driver::write_dmaobj(const dmaobj_decl& d) {
  const uint64_t a = obj_addr(d.ch, d.sel);
  if (g80) {
    const uint32_t rights = d.rights == 1 ? 1 : 2;
    const uint64_t limit = d.base + d.limit + 1;  // G80: an address, exclusive
    const uint32_t w[6] = {(d.cls & 0xffff) | d.target << 16 | rights << 18,
                           uint32_t(limit),
                           uint32_t(d.base),
                           uint32_t(d.base >> 32 & 0xff) | uint32_t(limit >> 32 & 0xff) << 24,
                           0,
                           0};
    h.poke(a, w, sizeof w);
  } else {
    const uint32_t target = d.target == 1 ? 0 : 2;  // NV4: 0 VRAM, 2 PCI
    const uint32_t w[3] = {(d.cls & 0xfff) | 1u << 12 | 1u << 13 | d.rights << 14 | target << 16 | uint32_t(d.base & 0xfff) << 20,
                           uint32_t(d.limit), uint32_t(d.base & 0xfffff000) | 3};
    h.poke(a, w, sizeof w);
  }
}

// Memory, DMA objects (the pushbuffer one covers all of VRAM), RAMHT, pushbuffers.
void pb_driver::load_memory() {
  for (const auto& m : wl.mems)
    poke_words((m.vram ? vram : 0) + m.addr, m.words, m.pb_channel >= 0 && be(wl.chans[unsigned(m.pb_channel)]));
  for (auto& [id, c] : wl.chans)
    if (c.declared) write_dmaobj({id, pb_sel, 0x3d, c.sysram ? 2u : 1u, 0, 0, 0x3fffffff});  // VRAM or SYSRAM [0, 1 GiB)
  for (const auto& d : wl.dmaobjs) write_dmaobj(d);
  for (const auto& o : wl.objects) {
    const uint64_t base = (g80 ? vram + wl.chans[o.ch].inst : ramin) + pf.ramht_offset;
    uint32_t idx = ramht_hash(o.handle, bits, g80 ? 0 : o.ch);
    unsigned tries = 0;
    while ((peek32(base + idx * 8) || peek32(base + idx * 8 + 4)) && ++tries < (1u << bits)) idx = (idx + 1) & ((1u << bits) - 1);
    poke32(base + idx * 8, o.handle);
    poke32(base + idx * 8 + 4, ramht_context(g, o.engine, o.sel, o.ch));
  }
  for (auto& [id, c] : wl.chans) {
    if (!c.declared) continue;
    const uint64_t at = c.sysram ? 0 : vram;  // where the channel's pushbuffer object points
    if (!c.ib) poke_words(at + c.pb, c.stream, be(c));
    for (size_t i = 0; i < c.ibs.size(); ++i) {
      uint32_t w[2];
      const auto& e = c.ibs[i];
      if (e.raw)
        w[0] = e.w0, w[1] = e.w1;
      else
        encode_ib({bias(c) + e.addr, e.len, e.nonmain, false, false}, w[0], w[1]);
      const uint32_t slot = uint32_t(c.ib_start + i) & ((1u << c.order) - 1);  // `ibstart`: the ring wraps
      poke_words(at + c.ib_addr + 8 * uint64_t(slot), {w[0], w[1]}, be(c));
    }
  }
}

// G80:GF100: RAMFC in each instance block, the channel table, the runlist, CACHES/PUSH0/PULL0.
// False (a run problem) where RAMFC's RAMHT descriptor cannot express the configured RAMHT.
bool pb_driver::set_up_g80_ramfc() {
  if (bits < 9 || bits > 12 || pf.ramht_offset.get() > 0xffff0 || (pf.ramht_offset.get() & 0xf)) {
    wl.run_problems.push_back("RAMFC's RAMHT descriptor cannot express ramht_size " + std::to_string(pf.ramht_size.get()) +
                              " / ramht_offset " + std::to_string(pf.ramht_offset.get()) +
                              " (4-32 KiB, 16-byte aligned offset below 1 MiB)");
    return false;
  }
  std::vector<uint32_t> runlist;
  for (auto& [id, c] : wl.chans) {
    if (!c.declared) continue;
    uint32_t f[0xa0 / 4] = {};
    auto set = [&](uint32_t off, uint32_t v) { f[off / 4] = v; };
    if (c.ib) {
      set(ramfc::dma_fetch, 0x403f6078);  // nouveau's IB channel value: bit 30 IB_ENABLE
      set(ramfc::ib_get, c.ib_start);
      set(ramfc::ib_put, c.ib_start);
      set(ramfc::ib_address_low, uint32_t(c.ib_addr));
      set(ramfc::ib_config, (uint32_t(c.ib_addr >> 32) & 0xff) | c.order << 16);
    } else {
      set(ramfc::dma_put, uint32_t(c.pb));
      set(ramfc::dma_put_high, uint32_t(c.pb >> 32));
      set(ramfc::dma_get, uint32_t(c.pb));
      set(ramfc::dma_get_high, uint32_t(c.pb >> 32));
      set(ramfc::dma_fetch, 0x003f6078);  // nouveau's DMA channel value
    }
    set(ramfc::dma_timeslice, 0x01003fff);
    set(ramfc::dma_instance, pb_sel);  // the pushbuffer DMA object's offset in the instance >> 4
    set(ramfc::dma_limit, uint32_t(c.limit));
    set(ramfc::acquire_timeout, 0x7fffffff);
    set(ramfc::sli, c.sli ? 0x30000000 | (c.sli_mask & 0xfff) : 0);
    set(ramfc::ramht, (bits - 9) << 27 | 4 << 24 | uint32_t(pf.ramht_offset.get() >> 4));
    if (g >= gen::g84) {
      set(ramfc::cache_inst, uint32_t((c.inst + g84_cache_offset) >> 10));
      set(ramfc::chan_inst, uint32_t(c.inst >> 12));
    }
    h.poke(vram + c.inst + (g >= gen::g84 ? g84_ramfc_offset : 0), f, ramfc::size(g));
    runlist.push_back(id);
  }
  h.poke(vram + runlist_address, runlist.data(), unsigned(4 * runlist.size()));
  for (auto& [id, c] : wl.chans) {  // bind, then start (nouveau's nv50_chan_bind / nv50_chan_start)
    if (!c.declared) continue;
    const uint32_t e = g >= gen::g84 ? uint32_t((c.inst + g84_ramfc_offset) >> 8) : uint32_t(c.inst >> 12);
    h.write32(reg_at(*pf.chan_table[id]), e);
    h.write32(reg_at(*pf.chan_table[id]), 0x80000000u | e);
  }
  h.write32(reg_at(pf.playlist), uint32_t(runlist_address >> 12));
  h.write32(reg_at(pf.playlist_len), uint32_t(runlist.size()));  // commit
  h.write32(reg_at(pf.push0), 1);                                // ACCESS
  h.write32(reg_at(pf.pull0), 1);                                // ACCESS
  h.write32(reg_at(pf.caches), 1);                               // REASSIGN
  return true;
}

// NV4:G80 as nouveau does it: RAMFC records (dma*_new / *_chan_ramfc_write: DMA_PUT = DMA_GET =
// the pushbuffer offset, DMA_INSTANCE = the pushbuffer object >> 4, DMA_FETCH = TRIG_128 |
// SIZE_128 | MAX_REQS_8 (0x86078), NV40 | 0x30000000 and DMA_TIMESLICE 0x1ffff at 0x3c), then
// fifo init: RAMHT, RAMFC, PUSH0/PULL0/CACHES, and MODE (channel start). False (a run problem)
// where NV03_PFIFO_RAMHT cannot place the configured RAMHT.
bool pb_driver::set_up_nv04_ramfc() {
  const uint64_t ro = pf.ramht_offset.get(), rsize = pf.ramht_size.get();
  const auto& l = *nv04_ramfc::of(g);
  const uint64_t rf_end = nv04_ramfc_offset + uint64_t(pf.core().channel_count()) * l.size;
  if (bits < 9 || bits > 12 || (ro & 0xfff) || ro > 0xfff000 || (ro < rf_end && ro + rsize > nv04_ramfc_offset)) {
    wl.run_problems.push_back("NV03_PFIFO_RAMHT cannot place ramht_size " + std::to_string(rsize) + " at ramht_offset " + hex_string(ro) +
                              " (4-32 KiB, 4 KiB aligned, clear of RAMFC at RAMIN " + hex_string(nv04_ramfc_offset) + "-" +
                              hex_string(rf_end - 1) + ")");
    return false;
  }
  uint32_t mode_bits = 0;
  for (auto& [id, c] : wl.chans) {
    if (!c.declared) continue;
    std::vector<uint32_t> f(l.size / 4, 0);
    f[l.dma_put / 4] = f[l.dma_get / 4] = uint32_t(c.pb);
    f[l.dma_instance / 4] = pb_sel;  // the pushbuffer DMA object's RAMIN offset >> 4
    f[l.dma_fetch / 4] = 0x86078u | (g == gen::nv40 ? 0x30000000u : 0) | (c.big_endian ? nv04_ramfc::fetch_big_endian : 0);
    if (g == gen::nv40) f[0x3c / 4] = 0x0001ffff;
    h.poke(ramin + nv04_ramfc_offset + uint64_t(id) * l.size, f.data(), l.size);
    mode_bits |= 1u << id;
  }
  h.write32(reg_at(pf.ramht_reg), 3u << 24 | (bits - 9) << 16 | uint32_t(ro >> 8));  // search 128, size, base
  if (g == gen::nv40)
    h.write32(reg_at(pf.ramfc40_reg), 0x30000u | uint32_t(nv04_ramfc_offset >> 16));
  else
    h.write32(reg_at(pf.ramfc_reg), uint32_t(nv04_ramfc_offset >> 8) | (g >= gen::nv25 ? 0x10000u : 0));
  h.write32(reg_at(pf.push0), 1);
  h.write32(reg_at(pf.pull0), 1);
  h.write32(reg_at(pf.caches), 1);
  h.write32(reg_at(pf.mode), mode_bits);  // the channels in DMA mode
  return true;
}

// Channel setup through gpuvp's own registers (NV3, GF100).
void pb_driver::set_up_own_registers() {
  for (auto& [id, c] : wl.chans) {
    if (!c.declared || ramfc || nv04_family(g)) continue;
    h.write32(reg_at(pf.chan_sel), id);
    h.write32(reg_at(pf.chan_inst), uint32_t(c.inst >> 12));  // channel descriptor: VRAM target
    h.write32(reg_at(pf.chan_pb_dma), pb_sel);
    h.write32(reg_at(pf.chan_limit), uint32_t(c.limit));
    h.write32(reg_at(pf.chan_ib_lo), uint32_t(bias(c) + c.ib_addr));
    h.write32(reg_at(pf.chan_ib_hi), uint32_t((bias(c) + c.ib_addr) >> 32));
    h.write32(reg_at(pf.chan_ib_order), c.order);
    h.write32(reg_at(pf.chan_get), c.ib ? 0 : uint32_t(c.pb));  // IB mode: DMA_GET = DMA_PUT = 0 until the first entry
    h.write32(reg_at(pf.chan_ctrl),
              1u | uint32_t(c.ib) << 1 | uint32_t(c.big_endian) << 2 | uint32_t(c.sli) << 3 | (c.sli_mask & 0xfff) << 16);
  }
}

// The kicks through USERD: DMA_PUT or IB_PUT past the last word or entry.
void pb_driver::kick_channels() {
  for (auto& [id, c] : wl.chans) {
    if (!c.declared) continue;
    const uint64_t u = userd + uint64_t(id) * pf.userd_stride();
    if (c.ib) {
      h.write32(u + pfifo::u_ib_put, uint32_t(c.ib_start + c.ibs.size()) & ((1u << c.order) - 1));
    } else {
      h.write32(u + pfifo::u_dma_put_high, 0);
      h.write32(u + pfifo::u_dma_put, uint32_t(c.pb + 4 * c.stream.size()));
    }
  }
}

// Service interrupts like a driver until every channel is idle, stopped for good or hung.
// (The PMC INTR bit is left latched: writing it from the host thread makes a second driver
// of host_irq in the current platform; the workload polls PFIFO's own INTR instead.)
void pb_driver::service_until_idle() {
  const uint64_t start = uint64_t(sc_core::sc_time_stamp().to_seconds() * 1e12);
  std::vector<std::pair<unsigned, uint32_t>> busy_list;  // channel, CHAN_STATUS
  for (;;) {
    h.wait(sc_core::sc_time(double(wl.poll_ps), sc_core::SC_PS));
    const uint32_t intr = h.read32(reg_at(pf.intr));
    if (intr & fifo_core::intr_notify) ++wl.notifies;
    // The errors latched now, and no more: a channel that faults again at once waits for the next
    // poll, so this loop ends and the timeout below is always reached.
    for (uint32_t k = 0, pending = h.read32(reg_at(pf.err_pending)); k < pending; ++k) {
      seen_error e{h.read32(reg_at(pf.err_channel)), err_type(h.read32(reg_at(pf.err_kind))), h.read32(reg_at(pf.err_code)),
                   h.read32(reg_at(pf.err_word)), uint64_t(h.read32(reg_at(pf.err_pos_hi))) << 32 | h.read32(reg_at(pf.err_pos_lo))};
      if (wl.errors.size() < wl.max_recorded_errors)
        wl.errors.push_back(e);
      else
        ++wl.errors_dropped;
      h.write32(reg_at(pf.err_ack), 1);
    }
    if (intr) h.write32(reg_at(pf.intr), intr);
    bool busy = false;
    busy_list.clear();
    for (auto& [id, c] : wl.chans) {
      if (!c.declared) continue;
      h.write32(reg_at(pf.chan_sel), id);
      const uint32_t st = h.read32(reg_at(pf.chan_status));
      if ((st & 1) && !(st & 0x20)) {
        busy = true;
        busy_list.emplace_back(id, st);
      }
    }
    if (!busy && !h.read32(reg_at(pf.err_pending))) {
      wl.finished = true;
      break;
    }
    if (uint64_t(sc_core::sc_time_stamp().to_seconds() * 1e12) - start > wl.timeout_ps) {
      std::string what;
      for (const auto& [id, st] : busy_list) {
        h.write32(reg_at(pf.chan_sel), id);
        what += std::string(what.empty() ? "" : ", ") + "channel " + std::to_string(id) + " (CHAN_STATUS " + hex_string(st) + ", DMA_GET " +
                hex_string(h.read32(reg_at(pf.chan_get))) + ")";
      }
      wl.run_problems.push_back("still busy after the workload timeout of " +
                                sc_core::sc_time(double(wl.timeout_ps), sc_core::SC_PS).to_string() + ": " + what);
      wl.timed_out = true;
      break;
    }
  }
}

// Tear down like a driver: unload the resident channel (KICK_CHANNEL), so that every RAMFC
// holds its channel's final state (DMA_GET, REF, ...), which `expect vram` lines may check.
void pb_driver::tear_down() {
  if (ramfc && wl.finished)
    for (auto& [id, c] : wl.chans) {
      if (!c.declared) continue;
      h.write32(reg_at(pf.kick_channel), uint32_t(c.inst >> 12));
      for (int i = 0; i < 1000 && h.read32(reg_at(pf.kick_channel)) == 0xffffffff; ++i) h.wait(sc_core::sc_time(100, sc_core::SC_NS));
    }
  // Leave no interrupt pending, as a driver would: clear PFIFO's INTR so its line drops, then
  // acknowledge the latched bits in the PMC's INTR (W1C).
  h.write32(reg_at(pf.intr), 0xffffffff);
  h.wait(sc_core::sc_time(10, sc_core::SC_NS));
  // A VM fault behind an expected MEM_FAULT was seen and handled: acknowledge it in the MMU
  // (FAULT_STATUS, W1C). Unexpected ones still fail check() as unexpected PFIFO errors.
  if (p.find("mmu")) h.write32(bar + 0x100c90, 1);
  h.write32(bar + 0x100, 0xffffffff);
  unsigned hangs = 0;
  for (const auto& e : wl.expects)
    if (e.kind == "hang") ++hangs;
  pf.expected_hangs = hangs;
}

// `expect userd` / `expect ramfc`: the channel's state as a driver reads it at the end (RAMFC:
// G80:GF100 after the unload kick; before G80 as of the channel's last switch away).
void pb_driver::read_end_state() {
  for (auto& e : wl.expects) {
    if (e.kind == "userd") {
      e.found = h.read32(userd + uint64_t(e.ch) * pf.userd_stride() + e.addr);
      e.read = true;
    } else if (e.kind == "ramfc") {
      const auto& c = wl.chans[e.ch];
      const uint64_t a = ramfc ? vram + c.inst + (g >= gen::g84 ? g84_ramfc_offset : 0)
                               : ramin + nv04_ramfc_offset + uint64_t(e.ch) * nv04_ramfc::of(g)->size;
      e.found = peek32(a + e.addr);
      e.read = true;
    }
  }
}

// `expect error`: marks the first unused error seen that matches (each seen error answers one
// expectation); when none does, says so with the first near misses (same channel and type).
bool find_expected_error(const expect_decl& e, const std::vector<seen_error>& errors, std::vector<bool>& used, gen g, const std::string& at,
                         std::ostream& os) {
  bool found = false;
  for (size_t i = 0; i < errors.size() && !found; ++i)
    if (!used[i] && errors[i].ch == e.ch && errors[i].type == e.type && (e.code < 0 || uint32_t(e.code) == errors[i].code) &&
        (!e.has_word || errors[i].word == e.word) && (!e.has_pos || errors[i].pos == e.pos))
      found = used[i] = true;
  if (!found) {
    os << at << "expected " << err_type_name(e.type) << (e.code >= 0 ? "(" + err_code_name(g, e.type, uint32_t(e.code)) + ")" : "")
       << " on channel " << e.ch << (e.has_word ? " with word " + hex_string(e.word) : "") << (e.has_pos ? " at " + hex_string(e.pos) : "")
       << " was not raised";
    unsigned shown = 0;
    for (const auto& r : errors)  // the first near misses: same channel and type
      if (r.ch == e.ch && r.type == e.type && shown++ < 4)
        os << "; " << err_code_name(g, r.type, r.code) << " word " << hex_string(r.word) << " at " << hex_string(r.pos) << " was";
    os << "\n";
  }
  return found;
}

}  // namespace

void pb_workload::run(platform& p, host_port& h) {
  auto all = p.all_of<pfifo>();
  if (all.empty()) {
    run_problems.push_back("no pfifo component in the platform");
    return;
  }
  pfifo& pf = *all.front();
  const gen pg = pf.core().g();
  if (pg != g) {
    run_problems.push_back("the workload is written for " + gen_name(g) + " but " + std::string(pf.name()) + ".generation is " +
                           gen_name(pg) + " (use --set " + std::string(pf.name()) + ".generation=" + gen_name(g) + ")");
    return;
  }
  pb_driver d(*this, p, h, pf);
  d.load_memory();
  if (d.ramfc && !d.set_up_g80_ramfc()) return;
  if (nv04_family(g) && !d.set_up_nv04_ramfc()) return;
  d.set_up_own_registers();
  d.kick_channels();
  d.service_until_idle();
  d.tear_down();
  d.read_end_state();
}

int pb_workload::check(platform& p, std::ostream& os) {
  int failed = 0;
  for (const auto& s : run_problems) {
    os << origin << ": " << s << "\n";
    ++failed;
  }
  // The expectations say nothing about a run that did not happen; a run that timed out did happen
  // (the busy channel is named above) and its expectations are still checked.
  if (failed && !timed_out) return failed;
  auto all = p.all_of<pfifo>();
  if (all.empty()) return failed;
  pfifo& pf = *all.front();
  std::vector<bool> used(errors.size(), false);
  bool want_errors = false;
  for (const auto& e : expects) {
    const std::string at = origin + ":" + std::to_string(e.line) + ": ";
    if (e.kind == "mem" || e.kind == "vram") {
      uint32_t v = 0;
      const uint64_t a = (e.vram ? uint64_t(pf.vram_base) : 0) + e.addr;
      if (!p.debug_read(a, &v, 4)) {
        os << at << "expect " << e.kind << " 0x" << std::hex << e.addr << ": address not readable" << std::dec << "\n";
        ++failed;
      } else if (v != e.value) {
        os << at << "expect " << e.kind << " 0x" << std::hex << e.addr << " = 0x" << e.value << ", got 0x" << v << std::dec << "\n";
        ++failed;
      }
    } else if (e.kind == "ref") {
      const uint32_t v = e.ch < pf.core().channel_count() ? pf.core().chan(e.ch).ref : 0;
      if (v != e.value) {
        os << at << "expect ref " << e.ch << " = 0x" << std::hex << e.value << ", got 0x" << v << std::dec << "\n";
        ++failed;
      }
    } else if (e.kind == "error") {
      want_errors = true;
      if (!find_expected_error(e, errors, used, g, at, os)) ++failed;
    } else if (e.kind == "hang") {
      if (e.ch >= pf.core().channel_count() || !pf.core().chan(e.ch).hung) {
        os << at << "expected channel " << e.ch << " to hang\n";
        ++failed;
      }
    } else if (e.kind == "notify") {
      if (pf.core().notify_intrs != e.value) {
        os << at << "expected " << e.value << " NOTIFY_INTR, got " << pf.core().notify_intrs << "\n";
        ++failed;
      }
    } else if (e.kind == "no-errors") {
      want_errors = true;
    } else if (e.kind == "userd" || e.kind == "ramfc") {
      if (!e.read) {
        os << at << "expect " << e.kind << ": the run ended before the channel state was read\n";
        ++failed;
      } else if (e.found != e.value) {
        os << at << "expect " << e.kind << " " << e.ch << " " << hex_string(e.addr) << " = " << hex_string(e.value) << ", got "
           << hex_string(e.found) << "\n";
        ++failed;
      }
    }
  }
  (void)want_errors;
  constexpr int shown_max = 20;  // a channel that keeps faulting gives a bounded report
  int unexpected = 0;
  for (size_t i = 0; i < errors.size(); ++i)
    if (!used[i] && ++unexpected <= shown_max) {
      const auto& r = errors[i];
      os << origin << ": unexpected " << err_type_name(r.type) << "(" << err_code_name(g, r.type, r.code) << ") on channel " << r.ch
         << ", word 0x" << std::hex << r.word << " at 0x" << r.pos << std::dec << "\n";
    }
  if (unexpected > shown_max) os << origin << ": ... and " << (unexpected - shown_max) << " more unexpected errors\n";
  if (errors_dropped)
    os << origin << ": " << errors_dropped << " more errors after the first " << max_recorded_errors << " (not recorded)\n";
  failed += unexpected + (errors_dropped ? 1 : 0);
  return failed;
}

void register_workload_kind() {
  gpuvp::workload_kind k;
  k.name = "pushbuffer";
  k.description = "PFIFO pushbuffer workload (.pb): channels, DMA/RAMHT objects, pushbuffers, expectations";
  k.matches = [](const std::string& path) { return path.size() > 3 && path.substr(path.size() - 3) == ".pb"; };
  k.platform_yaml =
      "components:\n"
      "  pfifo: pfifo\n"
      "  traffic: none\n";  // the workload runs alone
  // The workload's "gen X" line sets the generation, so it runs as written (--set overrides).
  // A "compute KERNELSLIST [engine ID]" line adds the compute component and puts the compute
  // class at engine ID (default 2, GF100 1) next to the usual copy engines (it takes the place
  // of a copy engine with its id).
  k.overlay_for = [](const std::string& text) {
    std::istringstream in(text);
    std::string gen, list, id;
    for (std::string line; std::getline(in, line);) {
      std::istringstream words(line);
      std::string key, a, b, c;
      if (!(words >> key >> a)) continue;
      // An unknown generation is left to the parser, which names the file and line.
      if (key == "gen" && gen.empty() && parse_gen(a)) gen = a;
      if (key == "compute" && list.empty()) {
        list = a;
        if (words >> b >> c && b == "engine") id = c;
      }
    }
    std::string o;
    if (!gen.empty()) o += "pfifo:\n  generation: " + gen + "\n";
    if (!list.empty()) {
      const bool gf = parse_gen(gen) == gen::gf100;
      if (id.empty()) id = gf ? "1" : "2";
      if (gen.empty()) o += "pfifo:\n";
      o += "  engine_map: [";  // the usual copy engines, less one at the compute class's id
      for (const char* copy : gf ? std::array{"0", "4"} : std::array{"1", "3"})
        if (id != copy) o += std::string(copy) + ":m2mf, ";
      o += id + ":compute]\n";
      o += "  launch.kernels: \"" + list + "\"\n";
      o += "components:\n  compute: compute\n";
    }
    return o;
  };
  k.parse = [](const std::string& text, const std::string& origin) { return parse_pb_workload(text, origin); };
  k.load = [](const std::string& path) { return load_pb_workload(path); };
  gpuvp::registry::global().add_workload_kind(k);
}

}  // namespace gpuvp::pfifo