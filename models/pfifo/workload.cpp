#include "workload.h"

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

namespace gpuvp::pfifo {

namespace {

struct chan_decl {
  unsigned id = 0;
  bool ib = false, big_endian = false, declared = false;
  uint64_t pb = 0, ib_addr = 0, inst = 0, limit = 0xffffffff;
  uint32_t order = 4, sli_mask = 0;
  bool sli = false;
  std::vector<uint32_t> stream;  // DMA mode main stream
  struct ib_ent { uint64_t addr; uint32_t len; bool nonmain; };
  std::vector<ib_ent> ibs;
  uint64_t next_free = 0;  // IB mode: where the next block goes (offset from pb)
};
struct dmaobj_decl { unsigned ch; uint32_t sel, cls; unsigned target, rights; uint64_t base, limit; };
struct object_decl { unsigned ch; uint32_t handle; unsigned engine; uint32_t sel; };
struct mem_decl { uint64_t addr; bool vram; std::vector<uint32_t> words; };
struct expect_decl { int line; std::string kind; unsigned ch = 0; uint64_t addr = 0; uint32_t value = 0; bool vram = false;
                     err_type type = err_type::none; int code = -1; };
struct seen_error { unsigned ch; err_type type; uint32_t code, word; uint64_t pos; };

err_type parse_err_type(const std::string& s) {
  for (auto t : {err_type::dma_pusher, err_type::cache_error, err_type::semaphore, err_type::acquire_timeout})
    if (s == err_type_name(t)) return t;
  return err_type::none;
}

class pb_workload : public gpuvp::workload {
 public:
  std::string origin;
  gen g = gen::g84;
  uint64_t timeout_ps = 50000000000ull;  // 50 ms
  uint64_t poll_ps = 2000000;            // 2 us
  std::map<unsigned, chan_decl> chans;
  std::vector<dmaobj_decl> dmaobjs;
  std::vector<object_decl> objects;
  std::vector<mem_decl> mems;
  std::vector<expect_decl> expects;
  // results of the run
  std::vector<seen_error> errors;
  uint64_t notifies = 0;
  std::vector<std::string> run_problems;
  bool finished = false;

  void run(platform& p, host_port& h) override;
  int check(platform& p, std::ostream& os) override;
};

// G80:GF100 layout written by the loader (nouveau's channel set-up; docs/formats/pushbuffer.md):
// RAMFC at instance + 0 (G80) / + 0x5400 (G84+, after the engine contexts, the page directory
// at 0x200 and the CACHE area at 0x4400), the pushbuffer DMA object at selector 0x600 (instance
// + 0x6000, clear of both layouts), the runlist at VRAM 0xfff000.
constexpr uint64_t g84_ramfc_offset = 0x5400, g84_cache_offset = 0x4400, runlist_address = 0xfff000;
constexpr uint32_t pb_selector_g80 = 0x600;
// NV4:G80 (nouveau's nv04..nv40 fifo): one RAMFC record per channel at RAMIN + 0x20000 (NV40's
// nouveau address; above the default RAMHT at 0x10000-0x17fff), 32 records at most.
constexpr uint64_t nv04_ramfc_offset = 0x20000;
constexpr unsigned nv04_max_channels = 32;
bool nv04_family(gen g) { return g >= gen::nv4 && g < gen::g80; }

uint64_t num(const std::string& t, const std::string& what) {
  try {
    return parse_u64(t);
  } catch (const std::exception&) {
    throw std::runtime_error("'" + t + "' is not a valid " + what);
  }
}

}  // namespace

std::unique_ptr<gpuvp::workload> parse_pb_workload(const std::string& text, const std::string& origin) {
  auto w = std::make_unique<pb_workload>();
  w->origin = origin;
  // Default generation: the configured pfifo's.
  for (const auto& d : config::global().declarations())
    if (d.path == "pfifo.generation")
      if (auto g = parse_gen(d.value)) w->g = *g;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  chan_decl* block = nullptr;
  bool block_main = false, block_nonmain = false;
  uint64_t block_at = 0;
  bool block_placed = false;
  std::vector<uint32_t> block_words;
  int block_line = 0;
  auto chan = [&](const std::string& t) -> chan_decl& {
    const uint64_t id = num(t, "channel number");
    if (id >= 128) throw std::runtime_error("channel " + t + " is not below 128");
    auto& c = w->chans[unsigned(id)];
    c.id = unsigned(id);
    return c;
  };
  while (std::getline(in, line)) {
    ++n;
    try {
      if (block) {
        std::istringstream ls(line.substr(0, line.find('#')));
        std::string first;
        ls >> first;
        if (first == "end") {
          if (block_placed) {
            w->mems.push_back({block_at, true, block_words});
            if (block->ib && block_main) block->ibs.push_back({block_at, uint32_t(block_words.size()), block_nonmain});
          } else if (block->ib) {
            const uint64_t at = block->pb + block->next_free;
            w->mems.push_back({at, true, block_words});
            block->ibs.push_back({at, uint32_t(block_words.size()), block_nonmain});
            block->next_free += 4 * block_words.size();
          } else {
            block->stream.insert(block->stream.end(), block_words.begin(), block_words.end());
          }
          block = nullptr;
          continue;
        }
        assemble_line(line, w->g, block_words);
        continue;
      }
      std::istringstream ls(line.substr(0, line.find('#')));
      std::vector<std::string> t;
      for (std::string x; ls >> x;) t.push_back(x);
      if (t.empty()) continue;
      auto need = [&](size_t k, const char* usage) {
        if (t.size() < k) throw std::runtime_error("'" + t[0] + "' needs " + usage);
      };
      auto opt = [&](size_t from, const std::string& key) -> const std::string* {
        for (size_t i = from; i + 1 < t.size(); ++i)
          if (t[i] == key) return &t[i + 1];
        return nullptr;
      };
      if (t[0] == "gen") {
        need(2, "a generation");
        auto g = parse_gen(t[1]);
        if (!g) throw std::runtime_error("unknown generation '" + t[1] + "'");
        w->g = *g;
      } else if (t[0] == "compute") {
        // Platform configuration only (overlay_for): the compute component and the compute class.
        need(2, "a kernelslist.g");
        if (t.size() != 2 && !(t.size() == 4 && t[2] == "engine"))
          throw std::runtime_error("usage: compute KERNELSLIST [engine ID]");
        if (t.size() == 4 && num(t[3], "engine id") >= 32) throw std::runtime_error("engine id is not below 32");
      } else if (t[0] == "timeout") {
        need(2, "a time");
        std::string rest = line.substr(line.find("timeout") + 7);
        rest = rest.substr(0, rest.find('#'));
        w->timeout_ps = uint64_t(parse_time(rest).to_seconds() * 1e12);
      } else if (t[0] == "channel") {
        need(2, "a channel number");
        auto& c = chan(t[1]);
        c.declared = true;
        c.pb = 0x2000000 + 0x40000 * uint64_t(c.id);
        c.ib_addr = c.pb + 0x30000;
        c.inst = 0x1000000 + 0x20000 * uint64_t(c.id);
        for (size_t i = 2; i < t.size(); ++i) {
          if (t[i] == "dma") c.ib = false;
          else if (t[i] == "ib") c.ib = true;
          else if (t[i] == "big_endian") c.big_endian = true;
          else if (i + 1 < t.size() && t[i] == "pb") c.pb = num(t[++i], "pushbuffer address");
          else if (i + 1 < t.size() && t[i] == "ibaddr") c.ib_addr = num(t[++i], "IB address");
          else if (i + 1 < t.size() && t[i] == "order") c.order = uint32_t(num(t[++i], "IB order"));
          else if (i + 1 < t.size() && t[i] == "limit") c.limit = num(t[++i], "DMA limit");
          else if (i + 1 < t.size() && t[i] == "inst") c.inst = num(t[++i], "channel structure address");
          else if (i + 1 < t.size() && t[i] == "sli") { c.sli = true; c.sli_mask = uint32_t(num(t[++i], "SLI mask")); }
          else throw std::runtime_error("unknown channel option '" + t[i] + "'");
        }
        if (c.order > 20) throw std::runtime_error("IB order " + std::to_string(c.order) + " is above 20");
        if (c.inst & 0xfff) throw std::runtime_error("channel structure address must be 4 KiB aligned");
      } else if (t[0] == "dmaobj") {
        need(3, "CHANNEL SELECTOR [target vram|sys|vm] [base B] [limit L] [class C] [rights rw|ro|wo]");
        dmaobj_decl d{unsigned(num(t[1], "channel")), uint32_t(num(t[2], "selector")), 0x3d, 1, 0, 0, 0xffffffff};
        if (d.sel == 0 || d.sel > 0xffff) throw std::runtime_error("selector " + t[2] + " is not in 1..0xffff");
        if (auto* v = opt(3, "target")) {
          if (*v == "vram") d.target = 1;
          else if (*v == "sys") d.target = 2;
          else if (*v == "vm") d.target = 0;
          else throw std::runtime_error("unknown target '" + *v + "' (vram, sys, vm)");
        }
        if (auto* v = opt(3, "base")) d.base = num(*v, "base");
        if (auto* v = opt(3, "limit")) d.limit = num(*v, "limit");
        if (auto* v = opt(3, "class")) d.cls = uint32_t(num(*v, "class"));
        if (auto* v = opt(3, "rights")) {
          if (*v == "rw") d.rights = 0;
          else if (*v == "ro") d.rights = 1;
          else if (*v == "wo") d.rights = 2;
          else throw std::runtime_error("unknown rights '" + *v + "' (rw, ro, wo)");
        }
        w->dmaobjs.push_back(d);
      } else if (t[0] == "object") {
        need(6, "CHANNEL HANDLE engine E sel SELECTOR");
        object_decl o{unsigned(num(t[1], "channel")), uint32_t(num(t[2], "handle")), 0, 0};
        const auto* e = opt(3, "engine");
        const auto* s = opt(3, "sel");
        if (!e || !s) throw std::runtime_error("'object' needs engine E and sel SELECTOR");
        o.engine = unsigned(num(*e, "engine id"));
        o.sel = uint32_t(num(*s, "selector"));
        w->objects.push_back(o);
      } else if (t[0] == "mem" || t[0] == "vram") {
        need(3, "ADDRESS WORD...");
        mem_decl m{num(t[1], "address"), t[0] == "vram", {}};
        for (size_t i = 2; i < t.size(); ++i) {
          const uint64_t v = num(t[i], "word");
          if (v > 0xffffffffull) throw std::runtime_error("word " + t[i] + " does not fit in 32 bits");
          m.words.push_back(uint32_t(v));
        }
        w->mems.push_back(m);
      } else if (t[0] == "push") {
        need(2, "a channel number");
        block = &chan(t[1]);
        if (!block->declared) throw std::runtime_error("channel " + t[1] + " is not declared (channel N ...)");
        block_words.clear();
        block_line = n;
        block_main = true;
        block_nonmain = false;
        block_placed = false;
        for (size_t i = 2; i < t.size(); ++i) {
          if (t[i] == "nonmain") block_nonmain = true;
          else if (t[i] == "at" && i + 1 < t.size()) {
            block_placed = true;
            block_main = false;
            block_at = num(t[++i], "offset");
          } else if (t[i] == "submit") block_main = true;
          else throw std::runtime_error("unknown push option '" + t[i] + "'");
        }
      } else if (t[0] == "expect") {
        need(2, "what to expect");
        expect_decl e;
        e.line = n;
        e.kind = t[1];
        if (e.kind == "mem" || e.kind == "vram") {
          need(4, "ADDRESS VALUE");
          e.vram = e.kind == "vram";
          e.addr = num(t[2], "address");
          e.value = uint32_t(num(t[3], "value"));
        } else if (e.kind == "ref") {
          need(4, "CHANNEL VALUE");
          e.ch = unsigned(num(t[2], "channel"));
          e.value = uint32_t(num(t[3], "value"));
        } else if (e.kind == "error") {
          need(4, "CHANNEL TYPE [CODE]");
          e.ch = unsigned(num(t[2], "channel"));
          e.type = parse_err_type(t[3]);
          if (e.type == err_type::none)
            throw std::runtime_error("unknown error type '" + t[3] + "' (DMA_PUSHER, CACHE_ERROR, SEMAPHORE, ACQUIRE_TIMEOUT)");
          if (t.size() >= 5) {
            e.code = -2;
            for (uint32_t c = 1; c <= 6; ++c)
              if (t[4] == err_code_name(w->g, e.type, c)) e.code = int(c);
            if (e.code == -2) e.code = int(num(t[4], "error code"));
          }
        } else if (e.kind == "hang") {
          need(3, "CHANNEL");
          e.ch = unsigned(num(t[2], "channel"));
        } else if (e.kind == "notify") {
          e.value = t.size() >= 3 ? uint32_t(num(t[2], "count")) : 1;
        } else if (e.kind == "no-errors") {
        } else {
          throw std::runtime_error("unknown expectation '" + e.kind + "' (mem, vram, ref, error, hang, notify, no-errors)");
        }
        w->expects.push_back(e);
      } else {
        throw std::runtime_error("unknown statement '" + t[0] + "'");
      }
    } catch (const asm_error& e) {
      throw std::runtime_error(origin + ":" + std::to_string(n) + ": " + e.what());
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(origin + ":" + std::to_string(n) + ": " + e.what());
    }
  }
  if (block) throw std::runtime_error(origin + ":" + std::to_string(block_line) + ": 'push' block without 'end'");
  if (w->g >= gen::gf100)
    for (auto& [id, c] : w->chans)
      if (c.declared && !c.ib)
        throw std::runtime_error(origin + ": channel " + std::to_string(id) + ": GF100 channels use IB mode in this format");
  for (auto& [id, c] : w->chans)
    if (c.ib && c.ibs.size() >= (size_t(1) << c.order))
      throw std::runtime_error(origin + ": channel " + std::to_string(id) + ": " + std::to_string(c.ibs.size()) +
                               " IB entries do not fit in 2^" + std::to_string(c.order) + " - 1");
  if (nv04_family(w->g)) {
    // NV4:G80 RAMFC has DMA_PUT/GET, DMA_INSTANCE, DMA_FETCH (big-endian from NV11): no IB, no
    // DMA limit (the pushbuffer object's own limit), no SLI.
    for (auto& [id, c] : w->chans) {
      const std::string what = origin + ": channel " + std::to_string(id) + ": ";
      if (!c.declared) continue;
      if (c.ib) throw std::runtime_error(what + "IB mode needs G80 or later");
      if (c.limit != 0xffffffff) throw std::runtime_error(what + "'limit' needs G80 or later (NV4-style RAMFC has no DMA_LIMIT)");
      if (c.sli) throw std::runtime_error(what + "'sli' needs G80 or later (NV4-style RAMFC has no SLI word)");
      if (c.big_endian && w->g < gen::nv11) throw std::runtime_error(what + "big-endian channels exist from NV11");
      if (id >= nv04_max_channels) throw std::runtime_error(what + "MODE enables channels 0-31 only");
    }
    const uint64_t end = nv04_ramfc_offset + nv04_max_channels * nv04_ramfc::of(w->g)->size;
    for (const auto& d : w->dmaobjs) {
      const uint64_t at = uint64_t(d.sel) * 16;
      if (at + 12 > nv04_ramfc_offset && at < end)
        throw std::runtime_error(origin + ": dmaobj selector " + hex_string(d.sel) + " overlaps RAMFC (RAMIN " +
                                 hex_string(nv04_ramfc_offset) + "-" + hex_string(end - 1) + ")");
    }
  }
  if (w->g >= gen::g80 && w->g < gen::gf100)
    for (const auto& d : w->dmaobjs) {
      const uint64_t at = uint64_t(d.sel) * 16, ramfc_at = w->g >= gen::g84 ? g84_ramfc_offset : 0;
      if ((at + 24 > ramfc_at && at < ramfc_at + ramfc::size(w->g)) || d.sel == pb_selector_g80)
        throw std::runtime_error(origin + ": dmaobj selector " + hex_string(d.sel) + " overlaps the channel's RAMFC or the pushbuffer object (selector 0x600)");
    }
  for (auto& o : w->objects)
    if (!w->chans.count(o.ch) || !w->chans[o.ch].declared)
      throw std::runtime_error(origin + ": object " + std::to_string(o.handle) + " names undeclared channel " + std::to_string(o.ch));
  return w;
}

std::unique_ptr<gpuvp::workload> load_pb_workload(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error(path + ": cannot open workload");
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_pb_workload(ss.str(), path);
}

void pb_workload::run(platform& p, host_port& h) {
  auto all = p.all_of<::pfifo_component>();
  if (all.empty()) {
    run_problems.push_back("no pfifo component in the platform");
    return;
  }
  ::pfifo_component& pf = *all.front();
  const gen pg = pf.core().g();
  if (pg != g) {
    run_problems.push_back("the workload is written for " + gen_name(g) + " but " + std::string(pf.name()) +
                           ".generation is " + gen_name(pg) + " (use --set " + std::string(pf.name()) + ".generation=" +
                           gen_name(g) + ")");
    return;
  }
  const uint64_t bar = p.bar0_base, regs = bar + pf.regs_base, userd = bar + pf.userd_offset();
  const uint64_t vram = pf.vram_base, ramin = pf.ramin_base;
  const bool g80 = g >= gen::g80;
  auto reg_at = [&](const gpuvp::reg& r) { return regs + r.offset(); };  // a PFIFO register's BAR0 address
  auto poke32 = [&](uint64_t a, uint32_t v) { h.poke(a, &v, 4); };
  auto peek32 = [&](uint64_t a) { uint32_t v = 0; h.peek(a, &v, 4); return v; };
  auto obj_addr = [&](unsigned ch, uint32_t sel) {
    return (g80 ? vram + chans[ch].inst : ramin) + uint64_t(sel) * 16;
  };
  auto write_dmaobj = [&](const dmaobj_decl& d) {
    const uint64_t a = obj_addr(d.ch, d.sel);
    if (g80) {
      const uint32_t rights = d.rights == 1 ? 1 : 2;
      const uint64_t limit = d.base + d.limit + 1;  // G80: an address, exclusive
      const uint32_t w[6] = {(d.cls & 0xffff) | d.target << 16 | rights << 18, uint32_t(limit), uint32_t(d.base),
                             uint32_t(d.base >> 32 & 0xff) | uint32_t(limit >> 32 & 0xff) << 24, 0, 0};
      h.poke(a, w, sizeof w);
    } else {
      const uint32_t target = d.target == 1 ? 0 : 2;  // NV4: 0 VRAM, 2 PCI
      const uint32_t w[3] = {(d.cls & 0xfff) | 1u << 12 | 1u << 13 | d.rights << 14 | target << 16 | uint32_t(d.base & 0xfff) << 20,
                             uint32_t(d.limit), uint32_t(d.base & 0xfffff000) | 3};
      h.poke(a, w, sizeof w);
    }
  };
  // G80:GF100 channels are set up as nouveau does it: RAMFC in the instance block, the channel
  // table, the runlist, then PFIFO's CACHES/PUSH0/PULL0 (docs/formats/pushbuffer.md).
  const bool ramfc = g80 && g < gen::gf100;
  const uint32_t pb_sel = ramfc ? pb_selector_g80 : 1;
  // Memory, DMA objects (the pushbuffer one covers all of VRAM), RAMHT, pushbuffers.
  for (const auto& m : mems) h.poke((m.vram ? vram : 0) + m.addr, m.words.data(), unsigned(4 * m.words.size()));
  for (auto& [id, c] : chans)
    if (c.declared) write_dmaobj({id, pb_sel, 0x3d, 1, 0, 0, 0x3fffffff});
  for (const auto& d : dmaobjs) write_dmaobj(d);
  const unsigned bits = ramht_bits(uint32_t(pf.ramht_size.get()));
  for (const auto& o : objects) {
    const uint64_t base = (g80 ? vram + chans[o.ch].inst : ramin) + pf.ramht_offset;
    uint32_t idx = ramht_hash(o.handle, bits, g80 ? 0 : o.ch);
    unsigned tries = 0;
    while ((peek32(base + idx * 8) || peek32(base + idx * 8 + 4)) && ++tries < (1u << bits)) idx = (idx + 1) & ((1u << bits) - 1);
    poke32(base + idx * 8, o.handle);
    poke32(base + idx * 8 + 4, ramht_context(g, o.engine, o.sel, o.ch));
  }
  // GF100's VM is not modelled (virtual = host physical): IB entries and the IB carry host addresses.
  const uint64_t bias = g >= gen::gf100 ? vram : 0;
  for (auto& [id, c] : chans) {
    if (!c.declared) continue;
    if (!c.ib) h.poke(vram + c.pb, c.stream.data(), unsigned(4 * c.stream.size()));
    for (size_t i = 0; i < c.ibs.size(); ++i) {
      uint32_t w[2];
      encode_ib({bias + c.ibs[i].addr, c.ibs[i].len, c.ibs[i].nonmain, false, false}, w[0], w[1]);
      h.poke(vram + c.ib_addr + 8 * i, w, 8);
    }
  }
  if (ramfc) {
    if (bits < 9 || bits > 12 || pf.ramht_offset.get() > 0xffff0 || (pf.ramht_offset.get() & 0xf)) {
      run_problems.push_back("RAMFC's RAMHT descriptor cannot express ramht_size " + std::to_string(pf.ramht_size.get()) +
                             " / ramht_offset " + std::to_string(pf.ramht_offset.get()) +
                             " (4-32 KiB, 16-byte aligned offset below 1 MiB)");
      return;
    }
    std::vector<uint32_t> runlist;
    for (auto& [id, c] : chans) {
      if (!c.declared) continue;
      uint32_t f[0xa0 / 4] = {};
      auto set = [&](uint32_t off, uint32_t v) { f[off / 4] = v; };
      if (c.ib) {
        set(ramfc::dma_fetch, 0x403f6078);  // nouveau's IB channel value: bit 30 IB_ENABLE
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
    for (auto& [id, c] : chans) {  // bind, then start (nouveau's nv50_chan_bind / nv50_chan_start)
      if (!c.declared) continue;
      const uint32_t e = g >= gen::g84 ? uint32_t((c.inst + g84_ramfc_offset) >> 8) : uint32_t(c.inst >> 12);
      h.write32(reg_at(*pf.chan_table[id]), e);
      h.write32(reg_at(*pf.chan_table[id]), 0x80000000u | e);
    }
    h.write32(reg_at(pf.playlist), uint32_t(runlist_address >> 12));
    h.write32(reg_at(pf.playlist_len), uint32_t(runlist.size()));  // commit
    h.write32(reg_at(pf.push0), 1);   // ACCESS
    h.write32(reg_at(pf.pull0), 1);   // ACCESS
    h.write32(reg_at(pf.caches), 1);  // REASSIGN
  }
  if (nv04_family(g)) {
    // NV4:G80 as nouveau does it: RAMFC records (dma*_new / *_chan_ramfc_write: DMA_PUT = DMA_GET =
    // the pushbuffer offset, DMA_INSTANCE = the pushbuffer object >> 4, DMA_FETCH = TRIG_128 |
    // SIZE_128 | MAX_REQS_8 (0x86078), NV40 | 0x30000000 and DMA_TIMESLICE 0x1ffff at 0x3c), then
    // fifo init: RAMHT, RAMFC, PUSH0/PULL0/CACHES, and MODE (channel start).
    const uint64_t ro = pf.ramht_offset.get(), rsize = pf.ramht_size.get();
    const auto& l = *nv04_ramfc::of(g);
    const uint64_t rf_end = nv04_ramfc_offset + uint64_t(pf.core().channel_count()) * l.size;
    if (bits < 9 || bits > 12 || (ro & 0xfff) || ro > 0xfff000 || (ro < rf_end && ro + rsize > nv04_ramfc_offset)) {
      run_problems.push_back("NV03_PFIFO_RAMHT cannot place ramht_size " + std::to_string(rsize) + " at ramht_offset " +
                             hex_string(ro) + " (4-32 KiB, 4 KiB aligned, clear of RAMFC at RAMIN " +
                             hex_string(nv04_ramfc_offset) + "-" + hex_string(rf_end - 1) + ")");
      return;
    }
    uint32_t mode_bits = 0;
    for (auto& [id, c] : chans) {
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
    if (g == gen::nv40) h.write32(reg_at(pf.ramfc40_reg), 0x30000u | uint32_t(nv04_ramfc_offset >> 16));
    else h.write32(reg_at(pf.ramfc_reg), uint32_t(nv04_ramfc_offset >> 8) | (g >= gen::nv25 ? 0x10000u : 0));
    h.write32(reg_at(pf.push0), 1);
    h.write32(reg_at(pf.pull0), 1);
    h.write32(reg_at(pf.caches), 1);
    h.write32(reg_at(pf.mode), mode_bits);  // the channels in DMA mode
  }
  // Channel setup through gpuvp's own registers (NV3, GF100), then the kicks through USERD.
  for (auto& [id, c] : chans) {
    if (!c.declared || ramfc || nv04_family(g)) continue;
    h.write32(reg_at(pf.chan_sel), id);
    h.write32(reg_at(pf.chan_inst), uint32_t(c.inst >> 12));  // channel descriptor: VRAM target
    h.write32(reg_at(pf.chan_pb_dma), pb_sel);
    h.write32(reg_at(pf.chan_limit), uint32_t(c.limit));
    h.write32(reg_at(pf.chan_ib_lo), uint32_t(bias + c.ib_addr));
    h.write32(reg_at(pf.chan_ib_hi), uint32_t((bias + c.ib_addr) >> 32));
    h.write32(reg_at(pf.chan_ib_order), c.order);
    h.write32(reg_at(pf.chan_get), c.ib ? 0 : uint32_t(c.pb));  // IB mode: DMA_GET = DMA_PUT = 0 until the first entry
    h.write32(reg_at(pf.chan_ctrl), 1u | uint32_t(c.ib) << 1 | uint32_t(c.big_endian) << 2 | uint32_t(c.sli) << 3 | (c.sli_mask & 0xfff) << 16);
  }
  for (auto& [id, c] : chans) {
    if (!c.declared) continue;
    const uint64_t u = userd + uint64_t(id) * pf.userd_stride();
    if (c.ib) {
      h.write32(u + ::pfifo_component::u_ib_put, uint32_t(c.ibs.size()));
    } else {
      h.write32(u + ::pfifo_component::u_dma_put_high, 0);
      h.write32(u + ::pfifo_component::u_dma_put, uint32_t(c.pb + 4 * c.stream.size()));
    }
  }
  // Service interrupts like a driver until every channel is idle, stopped for good or hung.
  // (The PMC INTR bit is left latched: writing it from the host thread makes a second driver
  // of host_irq in the current platform; the workload polls PFIFO's own INTR instead.)
  const uint64_t start = uint64_t(sc_core::sc_time_stamp().to_seconds() * 1e12);
  std::string last_busy;
  for (;;) {
    h.wait(sc_core::sc_time(double(poll_ps), sc_core::SC_PS));
    const uint32_t intr = h.read32(reg_at(pf.intr));
    if (intr & fifo_core::intr_notify) ++notifies;
    while (h.read32(reg_at(pf.err_pending))) {
      seen_error e{h.read32(reg_at(pf.err_channel)), err_type(h.read32(reg_at(pf.err_kind))), h.read32(reg_at(pf.err_code)),
                   h.read32(reg_at(pf.err_word)), uint64_t(h.read32(reg_at(pf.err_pos_hi))) << 32 | h.read32(reg_at(pf.err_pos_lo))};
      errors.push_back(e);
      h.write32(reg_at(pf.err_ack), 1);
    }
    if (intr) h.write32(reg_at(pf.intr), intr);
    bool busy = false;
    for (auto& [id, c] : chans) {
      if (!c.declared) continue;
      h.write32(reg_at(pf.chan_sel), id);
      const uint32_t st = h.read32(reg_at(pf.chan_status));
      if ((st & 1) && !(st & 0x20)) {
        busy = true;
        last_busy = "channel " + std::to_string(id) + " CHAN_STATUS " + hex_string(st);
      }
    }
    if (!busy && !h.read32(reg_at(pf.err_pending))) {
      finished = true;
      break;
    }
    if (uint64_t(sc_core::sc_time_stamp().to_seconds() * 1e12) - start > timeout_ps) {
      run_problems.push_back("channels still busy after the workload timeout (" + last_busy + ")");
      break;
    }
  }
  // Tear down like a driver: unload the resident channel (KICK_CHANNEL), so that every RAMFC
  // holds its channel's final state (DMA_GET, REF, ...), which `expect vram` lines may check.
  if (ramfc && finished)
    for (auto& [id, c] : chans) {
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
  for (const auto& e : expects)
    if (e.kind == "hang") ++hangs;
  pf.expected_hangs = hangs;
}

int pb_workload::check(platform& p, std::ostream& os) {
  int failed = 0;
  for (const auto& s : run_problems) {
    os << origin << ": " << s << "\n";
    ++failed;
  }
  if (failed) return failed;  // the expectations say nothing about a run that did not happen
  auto all = p.all_of<::pfifo_component>();
  if (all.empty()) return failed;
  ::pfifo_component& pf = *all.front();
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
      bool found = false;
      for (size_t i = 0; i < errors.size() && !found; ++i)
        if (!used[i] && errors[i].ch == e.ch && errors[i].type == e.type && (e.code < 0 || uint32_t(e.code) == errors[i].code))
          found = used[i] = true;
      if (!found) {
        os << at << "expected " << err_type_name(e.type) << (e.code >= 0 ? "(" + err_code_name(g, e.type, uint32_t(e.code)) + ")" : "")
           << " on channel " << e.ch << " was not raised\n";
        ++failed;
      }
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
    }
  }
  (void)want_errors;
  for (size_t i = 0; i < errors.size(); ++i)
    if (!used[i]) {
      const auto& r = errors[i];
      os << origin << ": unexpected " << err_type_name(r.type) << "(" << err_code_name(g, r.type, r.code) << ") on channel " << r.ch
         << ", word 0x" << std::hex << r.word << " at 0x" << r.pos << std::dec << "\n";
      ++failed;
    }
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
  // class at engine ID (default 2, GF100 1) next to the usual copy engines.
  k.overlay_for = [](const std::string& text) {
    std::istringstream in(text);
    std::string gen, list, id;
    for (std::string line; std::getline(in, line);) {
      std::istringstream words(line);
      std::string key, a, b, c;
      if (!(words >> key >> a)) continue;
      if (key == "gen" && gen.empty()) gen = a;
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
      o += "  engine_map: \"" + std::string(gf ? "0:m2mf,4:m2mf," : "1:m2mf,3:m2mf,") + id + ":compute\"\n";
      o += "  compute_kernels: \"" + list + "\"\n";
      o += "components:\n  compute: compute\n";
    }
    return o;
  };
  k.parse = [](const std::string& text, const std::string& origin) { return parse_pb_workload(text, origin); };
  k.load = [](const std::string& path) { return load_pb_workload(path); };
  gpuvp::registry::global().add_workload_kind(k);
}

}  // namespace gpuvp::pfifo
