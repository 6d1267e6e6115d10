// SPDX-License-Identifier: Apache-2.0
#include "mmu_nv50.h"
#include <algorithm>
#include <cstring>
#include <ostream>
#include <sstream>
#include "gpuvp/page_split.h"
#include "gpuvp/trace.h"

namespace gpuvp::mmu_nv50 {

using namespace gpuvp::mmu_nv50;

struct mmu_nv50::engine_stats {
  gauge hits;  // of the plain count mmu_nv50::hits_[engine], which the micro-TLB hit updates
  counter misses, walks;
  histogram walk_latency;
  engine_stats(const sc_core::sc_object* owner, const std::string& n, const uint64_t& hit_count)
      : hits(owner, n + ".hits", "TLB hits of " + n, [&hit_count] { return double(hit_count); }),
        misses(owner, n + ".misses", "TLB misses of " + n),
        walks(owner, n + ".walks", "page-table walks of " + n),
        walk_latency(owner, n + ".walk_latency", "time of each page-table walk of " + n, "ps") {}
};

namespace {

const char* engine_stat_name(generation g, uint32_t e) {
  static const char* names[16] = {"pgraph", nullptr, nullptr,  nullptr,    "peephole", "pfifo", "bar",     nullptr,
                                  "pmpeg",  "pbsp",  "pcrypt", "pcounter", "pfifo_bg", "pcopy", "pdaemon", nullptr};
  if (e == 1) return g == generation::nv50 ? "pvp1" : "pvp";
  if (e == 7) return g == generation::mcp89 ? "pvcomp" : "pme";
  return names[e & 0xf];
}

reserved_policy parse_policy(const param<std::string>& p) {
  if (p.get() == "ignore") return reserved_policy::ignore;
  if (p.get() == "fault") return reserved_policy::fault;
  throw config_error(p.path() + ": '" + p.get() + "' is not ignore or fault");
}

constexpr unsigned fault_kinds = 13;  // codes 0..12

}  // namespace

mmu_nv50::mmu_nv50(sc_core::sc_module_name name) : sc_module(name) {
  const auto g = parse_generation(gpu.get());
  if (!g) throw config_error(gpu.path() + ": unknown GPU generation '" + gpu.get() + "' (NV50, G84, GT215, MCP89, ...)");
  opt_.gen = *g;
  opt_.pde_bit4 = parse_policy(pde_bit4);
  opt_.pte_bits12 = parse_policy(pte_bits12);
  opt_.user_super_dmaobj_faults = user_super_dmaobj_faults;
  opt_.comp_vram_only = comp_vram_only;
  opt_.limit_inclusive = limit_inclusive;
  opt_.check_engine = check_engine;
  const auto pol = parse_tlb_policy(tlb_policy.get());
  if (!pol) throw config_error(tlb_policy.path() + ": '" + tlb_policy.get() + "' is not lru, fifo or random");
  try {
    for (auto& t : tlbs_) t.use_clock(&translations_);
    for (auto& t : tlbs_) t.configure(unsigned(tlb_entries.get()), unsigned(tlb_ways.get()), *pol, tlb_seed);
  } catch (const std::invalid_argument& e) {
    throw config_error(std::string(this->name()) + ": " + e.what());
  }
  for (uint32_t e = 0; e < engine::count; ++e) {
    if (!opt_.check_engine || engine_exists(opt_.gen, e)) engine_mask_ |= 1u << e;
    if (engine_exists(opt_.gen, e))
      estats_[e] = std::make_unique<engine_stats>(this, engine_stat_name(opt_.gen, e), hits_[e]);
    else if (!opt_.check_engine)
      estats_[e] = std::make_unique<engine_stats>(this, "engine" + std::to_string(e), hits_[e]);
  }
  fault_kinds_.resize(fault_kinds);
  for (unsigned f = 1; f < fault_kinds; ++f) {
    std::string n = fault_name(fault(f));
    std::transform(n.begin(), n.end(), n.begin(), [](char c) { return char(std::tolower(static_cast<unsigned char>(c))); });
    fault_kinds_[f] = std::make_unique<counter>(this, "faults." + n, std::string("faults of kind ") + fault_name(fault(f)));
  }
  dmaobjs_.resize(engine::count * clients);
  timed_read_ = [this](target tg, uint64_t lin, void* data, unsigned len) { return mem_read(tg, lin, data, len, *walk_delay_); };

  in.register_b_transport(this, &mmu_nv50::b_transport);
  in.register_transport_dbg(this, &mmu_nv50::transport_dbg);
  in.register_get_direct_mem_ptr(this, &mmu_nv50::get_direct_mem_ptr);
  out.register_invalidate_direct_mem_ptr(this, &mmu_nv50::invalidate_dmi);

  // The flush is timed against the writer's local time: the bank synchronises first.
  tlb_flush.sync = true;
  tlb_flush.on_write = [this](uint64_t v, uint64_t) {
    if (!tlb_flush_trigger::get(v)) return;
    flush_engine(uint32_t(tlb_flush_engine::get(v)));
    ++flushes;
    flush_done_ = sc_core::sc_time_stamp() + flush_latency.get();
  };
  tlb_flush.on_read = [this] {
    const bool busy = sc_core::sc_time_stamp() < flush_done_;
    return tlb_flush_trigger::set(tlb_flush.get(), busy);
  };
  fault_status.on_write = [this](uint64_t v, uint64_t) {
    if (v & 1) return;  // still pending
    fault_status = 0;
    fault_irq.write(false);
  };
}

mmu_nv50::~mmu_nv50() = default;

std::vector<component::target_port> mmu_nv50::targets() {
  return {{"regs", &regs.in, bar0_offset, regs.size(), true}, {"in", &in, 0, 0, false}};
}

uint64_t mmu_nv50::host_address(target t, uint64_t linear) const {
  // VRAM linear addresses are 32-bit (the high 8 bits are ignored); SYSRAM ones are bus addresses.
  return t == target::vram ? vram_base.get() + (linear & 0xffffffffu) : linear & 0xffffffffffull;
}

uint64_t mmu_nv50::fault_count_of(fault f) const {
  const auto i = size_t(f);
  return i > 0 && i < fault_kinds_.size() ? fault_kinds_[i]->value() : 0;
}

void mmu_nv50::flush_engine(uint32_t engine) {
  tlbs_[engine & 0xf].flush();
  for (unsigned c = 0; c < clients; ++c) dmaobjs_[(engine & 0xf) * clients + c].valid = false;
  drop_micro();
  invalidate_grants(engine & 0xf);
}

void mmu_nv50::rebind(uint32_t engine, uint32_t client) {
  dmaobjs_[(engine & 0xf) * clients + (client % clients)].valid = false;
  drop_micro();
  invalidate_grants(engine & 0xf);
}

void mmu_nv50::invalidate_grants(uint32_t engine) {
  const uint32_t mask = engine == gpu_ext::none ? ~0u : (1u << (engine & 0xf));
  if (!(dmi_engines_ & mask)) return;
  dmi_engines_ = 0;
  ++dmi_invalidations;
  for (int i = 0; i < int(in.size()); ++i) in[i]->invalidate_direct_mem_ptr(0, ~sc_dt::uint64(0));
}

void mmu_nv50::count_fault(fault f) {
  ++faults;
  ++*fault_kinds_[size_t(f)];
}

// ---- memory reads of the walker ----

bool mmu_nv50::mem_read(target t, uint64_t linear, void* data, unsigned len, sc_core::sc_time& delay) {
  const uint64_t host = host_address(t, linear);
  // Through DMI the read still sends its transaction (dmi_shadow: timed, booked and counted as any
  // other, the memory moving no data), then takes the data from the pointer.
  const uint8_t* p = nullptr;
  for (const auto& r : dmi_)
    if (host >= r.get_start_address() && host + len - 1 <= r.get_end_address()) {
      p = r.get_dmi_ptr() + (host - r.get_start_address());
      break;
    }
  transaction tr(tlm::TLM_READ_COMMAND, host, data, len);
  tr.ext.dmi_shadow = p != nullptr;
  out->b_transport(tr.gp, delay);
  if (!tr.ok()) return false;
  if (p) {
    std::memcpy(data, p, len);
    ++walk_dmi_reads;
    return true;
  }
  if (tr.gp.is_dmi_allowed() && dmi_.size() < 16) {
    transaction q(tlm::TLM_READ_COMMAND, host, nullptr, 0);
    tlm::tlm_dmi dmi;
    if (out->get_direct_mem_ptr(q.gp, dmi) && dmi.is_read_allowed()) dmi_.push_back(dmi);
  }
  return true;
}

bool mmu_nv50::mem_read_debug(target t, uint64_t linear, void* data, unsigned len) {
  transaction tr(tlm::TLM_READ_COMMAND, host_address(t, linear), data, len);
  tr.ext.debug = true;
  return out->transport_dbg(tr.gp) == len;
}

void mmu_nv50::invalidate_dmi(sc_dt::uint64 start, sc_dt::uint64 end) {
  std::erase_if(dmi_, [&](const tlm::tlm_dmi& r) { return r.get_start_address() <= end && start <= r.get_end_address(); });
  invalidate_grants(gpu_ext::none);  // regions granted on `in` are not tracked by host address
}

// ---- translation ----

translation mmu_nv50::translate_slow(const vm_access& a, sc_core::sc_time& delay) {
  translation t;
  translate_uncounted(a, delay, t);
  if (t.f != fault::none) count_fault(t.f);
  return t;
}

void mmu_nv50::translate_uncounted(const vm_access& a, sc_core::sc_time& delay, translation& t) {
  ++translations_;  // before any TLB touch or insert: the stamp of this translation
  delay += hit_latency.get();
  if (a.engine >= engine::count || !((engine_mask_ >> a.engine) & 1)) {
    ++dmaobj_misses_;
    t.f = fault::invalid_engine;
    return;
  }
  const uint32_t sel = a.selector & 0xffff;
  if (sel == 0) {
    ++dmaobj_misses_;
    t.f = fault::null_dmaobj;
    return;
  }
  walk_delay_ = &delay;  // the walker's reads (timed_read_) accumulate here
  cached_dmaobj& c = dmaobjs_[a.engine * clients + (a.client % clients)];
  if (!(c.valid && c.chandesc == a.chandesc && c.selector == sel && c.bind == a.bind)) {
    ++dmaobj_misses_;
    // Another selector, or the same one rewritten (a new dma_bind): the engine loads the object.
    drop_micro();  // micro entries may copy the object this slot held
    invalidate_grants(a.engine);
    dmaobj d;
    t.f = read_dmaobj(opt_, a.chandesc, sel, timed_read_, d);
    if (t.f != fault::none) return;
    ++dmaobj_loads;
    c = {dmaobj_cache.get(), a.chandesc, sel, a.bind, d};
  }
  t.f = apply_limit(opt_, c.d, a.address, a.size, t.virt);
  if (t.f == fault::none) lookup_or_walk(a, c.d, delay, t);
}

void mmu_nv50::lookup_or_walk(const vm_access& a, const dmaobj& d, sc_core::sc_time& delay, translation& t) {
  t.paged = d.paged();
  if (!t.paged) {
    t.r = unpaged_result(opt_, d, t.virt);
    t.f = check_access(opt_, d, t.r, a.write, a.user);
    return;
  }
  engine_stats& es = *estats_[a.engine];
  tlb& tl = tlbs_[a.engine];
  if (const tlb::entry* e = tl.lookup(a.chandesc, t.virt)) {
    ++hits_[a.engine];
    t.page_shift = e->shift;
    t.order = e->p.order;
    paged_result(opt_, d, e->p, e->shift, t.virt, t.r);
    fill_micro(a, d, e, t);
    t.f = check_access(opt_, d, t.r, a.write, a.user);
    return;
  }
  ++es.misses;
  ++es.walks;
  const sc_core::sc_time before = delay;
  delay += miss_latency.get();
  pte p;
  t.f = walk(opt_, a.chandesc, t.virt, timed_read_, p, t.page_shift);
  es.walk_latency.add((delay - before).value());
  if (auto& tr = tracer::global(); tr.enabled())
    tr.span(tr.track(name()), "walk", sc_core::sc_time_stamp() + before, delay - before,
            {{"engine", a.engine}, {"virt", to_hex(t.virt)}, {"fault", fault_name(t.f)}});
  if (t.f != fault::none) return;
  t.order = p.order;
  bool evicted = false;
  const tlb::entry* e = tl.insert(a.chandesc, t.virt, p, t.page_shift, &evicted);
  if (evicted) {
    ++evictions;
    drop_micro();                 // micro entries may copy the entry just replaced
    invalidate_grants(a.engine);  // so may a granted region
  }
  paged_result(opt_, d, p, t.page_shift, t.virt, t.r);
  fill_micro(a, d, e, t);
  t.f = check_access(opt_, d, t.r, a.write, a.user);
}

void mmu_nv50::fill_micro(const vm_access& a, const dmaobj& d, const tlb::entry* e, const translation& t) {
  if (!dmaobj_cache) return;  // without the DMA object cache every access reloads the object
  micro_entry& m = micro_[micro_index(a)];
  const uint64_t vmask = (uint64_t(1) << (t.page_shift + t.order)) - 1;
  m.who = load64(&a.engine);
  m.where = load64(&a.chandesc);
  m.bind_epoch = uint64_t(a.bind) << 32 | uint32_t(epoch_);
  m.shift = uint8_t(t.page_shift);
  m.order = uint8_t(t.order);
  const bool deny_user = t.r.super || (opt_.user_super_dmaobj_faults && d.super_object);  // as check_access
  m.deny = uint16_t((t.r.ro ? 0x0001 : 0) | (deny_user ? 0x0100 : 0));
  m.vbase = t.virt & ~vmask;
  m.base = d.base;
  // Logical addresses whose first byte is in the block, at or above the object's base (virtual =
  // base + logical) and within the limit (as apply_limit: the access passed it, so limit > base
  // and no sum wraps); `end` bounds the last byte (a size-0 access counts as one byte: lo..end-1
  // holds it, the first byte being checked by len).
  const uint64_t first = std::max(m.vbase, d.base);
  m.end = (opt_.limit_inclusive ? d.limit + 1 : d.limit) - d.base;
  m.lo = first - d.base;
  m.len = std::min(m.vbase + vmask + 1 - first, m.end - m.lo);
  m.stamp = tlbs_[a.engine].lru_stamp(e);
  // The result at the block start: undo the block offset (linear modulo 2^40, tag modulo 0x1000).
  const uint64_t off = t.virt & vmask;
  m.r0 = t.r;
  m.r0.linear = (t.r.linear - off) & 0xffffffffffull;
  if (t.r.comp != comp_mode::none) m.r0.tag = uint16_t((t.r.tag - (off >> 16) * (t.r.comp == comp_mode::dbl ? 2 : 1)) & 0xfff);
}

translation mmu_nv50::translate_debug(const vm_access& a) {
  return gpuvp::mmu_nv50::translate(
      opt_, a, [this](target tg, uint64_t lin, void* data, unsigned len) { return mem_read_debug(tg, lin, data, len); });
}

// ---- TLM ----

namespace {
vm_access access_of(const tlm::tlm_generic_payload& gp, const gpu_ext& e) {
  vm_access a{e.vm_engine, e.vm_client, e.vm_context, e.dma_slot, gp.get_address(), gp.is_write(), e.priv == privilege::user};
  a.bind = e.dma_bind;
  return a;
}
// The bytes of `left` from the translated address on that lie in its page or contig block (all
// of them for an unpaged object): one request's worth.
unsigned block_chunk(const translation& t, unsigned left) {
  if (!t.paged) return left;
  const uint64_t block = uint64_t(1) << (t.page_shift + t.order);
  return unsigned(std::min<uint64_t>(left, block - (t.virt & (block - 1))));
}
}  // namespace

void mmu_nv50::answer_fault(tlm::tlm_generic_payload& gp, fault f) {
  gp.set_response_status(f == fault::read_only || f == fault::supervisor ? tlm::TLM_COMMAND_ERROR_RESPONSE
                                                                         : tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

void mmu_nv50::latch_fault(const gpu_ext& e, uint64_t address, bool write, bool paged, fault f) {
  if (fault_count.get() != 0xffffffffu) fault_count = fault_count.get() + 1;
  if (fault_log_.size() < 16) {
    std::ostringstream os;
    os << "VM fault " << fault_name(f) << " engine " << to_hex(e.vm_engine) << " client " << to_hex(e.vm_client) << " selector "
       << to_hex(e.dma_slot) << " chandesc " << to_hex(e.vm_context) << " channel " << to_hex(e.channel) << " address " << to_hex(address)
       << (write ? " write" : " read");
    fault_log_.push_back(os.str());
    GPUVP_LOG(this, warning, fault_log_.back());
  }
  if (fault_pending::get(fault_status)) {  // one fault is latched at a time; later ones set overflow
    fault_status = fault_overflow::set(fault_status, 1);
    return;
  }
  fault_status = fault_pending::put(1) | fault_reason::put(uint64_t(f)) | fault_write::put(write) |
                 fault_user::put(e.priv == privilege::user) | fault_paged::put(paged);
  fault_source = fault_source_engine::put(e.vm_engine) | fault_source_client::put(e.vm_client);
  fault_selector = e.dma_slot;
  fault_channel = e.channel;
  fault_chandesc = e.vm_context;
  fault_addr_lo = address & 0xffffffffu;
  fault_addr_hi = address >> 32;
  fault_irq.write(true);
}

void mmu_nv50::b_transport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const gpu_ext& e = ext_of(gp);
  if (e.dma_slot == gpu_ext::none) {
    ++linear_accesses;
    out->b_transport(gp, delay);
    return;
  }
  forward(gp, e, delay);
  if (!grant_dmi) gp.set_dmi_allowed(false);  // else the downstream's hint: get_direct_mem_ptr translates
}

// An access is translated per block: one that runs past the end of its page (or contig block)
// goes out as one request per block, each translated on its own, as the hardware would issue
// them. A debugger access (gpu_ext::debug) uses no TLB, statistics, fault latching or timing.
void mmu_nv50::forward(tlm::tlm_generic_payload& gp, const gpu_ext& e, sc_core::sc_time& delay) {
  const uint64_t addr = gp.get_address();
  const unsigned len = gp.get_data_length(), width = gp.get_streaming_width();
  const bool streaming = width < len;  // one address repeated: translated once
  sc_core::sc_time scratch = sc_core::SC_ZERO_TIME;
  sc_core::sc_time& d = e.debug ? scratch : delay;
  vm_access a = access_of(gp, e);
  auto piece = [&](unsigned done) -> std::optional<page_piece> {
    a.address = addr + done;
    a.size = streaming ? width : len - done;
    const translation t = e.debug ? translate_debug(a) : translate(a, d);
    if (!t.ok()) {
      if (!e.debug) latch_fault(e, a.address, a.write, t.paged, t.f);
      answer_fault(gp, t.f);
      return std::nullopt;
    }
    const unsigned chunk = streaming ? len - done : block_chunk(t, len - done);
    if (chunk < len && gp.get_byte_enable_ptr()) {  // a split would have to cut the enables too
      gp.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
      return std::nullopt;
    }
    return page_piece{host_address(t.r.tgt, t.r.linear), chunk};
  };
  transport_by_page(gp, streaming, piece, [&](tlm::tlm_generic_payload& p) { out->b_transport(p, d); });
}

unsigned mmu_nv50::transport_dbg(int, tlm::tlm_generic_payload& gp) {
  const gpu_ext& e = ext_of(gp);
  if (e.dma_slot == gpu_ext::none) return out->transport_dbg(gp);
  // Block by block like forward(), without side effects; returns the bytes done.
  const uint64_t addr = gp.get_address();
  const unsigned len = gp.get_data_length();
  vm_access a = access_of(gp, e);
  auto piece = [&](unsigned done) -> std::optional<page_piece> {
    a.address = addr + done;
    a.size = len - done;
    const translation t = translate_debug(a);
    if (!t.ok()) return std::nullopt;
    return page_piece{host_address(t.r.tgt, t.r.linear), block_chunk(t, len - done)};
  };
  return debug_by_page(gp, piece, [&](tlm::tlm_generic_payload& p) { return out->transport_dbg(p); });
}

// DMI on `in`: the translation of the requested address (through the engine's TLB, not counted in
// translations, dmaobj_hits or TLB hits, its walk untimed: the request has no delay; a fault is
// neither counted nor latched, the access that follows will be) and the downstream's region for its linear address give a
// region in DMA object offsets covering the page or contig block, clipped to the object's limit
// and to the downstream region. Regions hold for the request's side band only (see the header).
bool mmu_nv50::get_direct_mem_ptr(int, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
  const uint64_t addr = gp.get_address();
  dmi.allow_none();
  dmi.set_start_address(addr);
  dmi.set_end_address(addr);
  const gpu_ext& e = ext_of(gp);
  if (!grant_dmi || e.debug) return false;
  if (e.dma_slot == gpu_ext::none) {  // linear: host addresses, as b_transport passes them on
    const bool granted = out->get_direct_mem_ptr(gp, dmi);
    if (granted) {
      dmi_engines_ |= 1u << 16;
      ++dmi_grants;
    }
    return granted;
  }
  vm_access a = access_of(gp, e);
  a.size = 1;
  // The translation through the engine's TLB, untimed, and not counted in the statistics (the
  // grant follows an access that made the same translation: DMI must change no statistic). The
  // TLB clock still advances (the entry's LRU stamp moves, as the access just did).
  const uint64_t misses_before = dmaobj_misses_;
  const std::array<uint64_t, engine::count> hits_before = hits_;
  sc_core::sc_time scratch = sc_core::SC_ZERO_TIME;
  translation t;
  translate_uncounted(a, scratch, t);
  ++grant_translations_;
  dmaobj_misses_ = misses_before;
  hits_ = hits_before;
  if (!t.ok()) return false;
  const dmaobj& d = dmaobjs_[a.engine * clients + (a.client % clients)].d;
  // Logical range: the block (unpaged: the whole object) within [base, limit].
  const uint64_t vmask = t.paged ? (uint64_t(1) << (t.page_shift + t.order)) - 1 : ~uint64_t(0);
  const uint64_t vfirst = std::max(t.virt & ~vmask, d.base);
  const uint64_t vlast = std::min(t.virt | vmask, opt_.limit_inclusive ? d.limit : d.limit - 1);
  uint64_t lo = vfirst - d.base, hi = vlast - d.base;  // lo <= addr <= hi
  // Linear addresses wrap (VRAM at 4 GiB, the high bits ignored; SYSRAM at 2^40): keep the range
  // where host addresses follow logical ones one to one.
  const uint64_t wmask = t.r.tgt == target::vram ? 0xffffffffull : 0xffffffffffull;
  const uint64_t lw = t.r.linear & wmask;
  lo = addr - std::min(addr - lo, lw);
  hi = addr + std::min(hi - addr, wmask - lw);
  const uint64_t host = host_address(t.r.tgt, t.r.linear);
  transaction q(a.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, host, nullptr, 0);
  q.ext = e;
  q.ext.dma_slot = gpu_ext::none;
  tlm::tlm_dmi down;
  if (!out->get_direct_mem_ptr(q.gp, down)) return false;
  const uint64_t ds = down.get_start_address(), de = down.get_end_address();
  if (host < ds || host > de) return false;
  lo = addr - std::min(addr - lo, host - ds);
  hi = addr + std::min(hi - addr, de - host);
  const bool rd = down.is_read_allowed(), wr = down.is_write_allowed() && !t.r.ro;  // read-only page: read-only DMI
  if (rd && wr)
    dmi.allow_read_write();
  else if (rd)
    dmi.allow_read();
  else if (wr)
    dmi.allow_write();
  else
    return false;
  dmi.set_start_address(lo);
  dmi.set_end_address(hi);
  dmi.set_dmi_ptr(down.get_dmi_ptr() + (host - ds) - (addr - lo));
  dmi.set_read_latency(down.get_read_latency() + hit_latency.get());
  dmi.set_write_latency(down.get_write_latency() + hit_latency.get());
  dmi_engines_ |= 1u << a.engine;
  ++dmi_grants;
  return true;
}

// ---- qtest, report ----

bool mmu_nv50::qtest(const std::vector<std::string>& w, std::string& reply) {
  if (w.empty() || w[0] != "translate") return false;
  static const char* usage = "FAIL usage: translate ENGINE CLIENT CHANDESC SELECTOR ADDR r|w [user|super] [notlb]";
  if (w.size() < 7 || w.size() > 9) {
    reply = usage;
    return true;
  }
  vm_access a;
  try {
    a.engine = uint32_t(parse_u64(w[1]));
    a.client = uint32_t(parse_u64(w[2]));
    a.chandesc = uint32_t(parse_u64(w[3]));
    a.selector = uint32_t(parse_u64(w[4]));
    a.address = parse_u64(w[5]);
  } catch (const std::exception&) {
    reply = std::string("FAIL translate: bad number in '") + w[1] + " " + w[2] + " " + w[3] + " " + w[4] + " " + w[5] + "'";
    return true;
  }
  if (w[6] != "r" && w[6] != "w") {
    reply = "FAIL translate: access must be r or w, not '" + w[6] + "'";
    return true;
  }
  a.write = w[6] == "w";
  bool bypass = false;
  for (size_t i = 7; i < w.size(); ++i) {
    if (w[i] == "user")
      a.user = true;
    else if (w[i] == "super")
      a.user = false;
    else if (w[i] == "notlb")
      bypass = true;
    else {
      reply = "FAIL translate: unknown option '" + w[i] + "' (user, super, notlb)";
      return true;
    }
  }
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  const translation t = bypass ? translate_debug(a) : translate(a, delay);
  if (!t.ok()) {
    reply = std::string("OK fault=") + fault_name(t.f);
    return true;
  }
  std::ostringstream os;
  os << "OK linear=" << to_hex(t.r.linear) << " target=" << target_name(t.r.tgt) << " ro=" << t.r.ro << " super=" << t.r.super
     << " storage=" << to_hex(t.r.storage) << " comp=" << unsigned(t.r.comp) << " tag=" << to_hex(t.r.tag)
     << " pcycle=" << unsigned(t.r.pcycle) << " enc=" << t.r.enc << " paged=" << t.paged
     << " host=" << to_hex(host_address(t.r.tgt, t.r.linear));
  reply = os.str();
  return true;
}

void mmu_nv50::report(std::ostream& os) {
  uint64_t hits = 0, misses = 0;
  for (const auto& s : estats_)
    if (s) misses += s->misses;
  for (uint64_t h : hits_) hits += h;
  os << "translations " << translations.value() << " (TLB hits " << hits << ", misses " << misses
     << "; unpaged DMA objects need no TLB), linear accesses " << linear_accesses.value() << ", faults " << faults.value() << ", flushes "
     << flushes.value() << "\n";
}

// A fault the driver acknowledged (FAULT_STATUS written) was handled; one still latched was not.
std::vector<std::string> mmu_nv50::modelled_errors() {
  if (!(fault_status.get() & 1)) return {};
  std::vector<std::string> errors = fault_log_;
  errors.insert(errors.begin(), "VM fault still latched in FAULT_STATUS at the end of the run (not acknowledged)");
  return errors;
}

}  // namespace gpuvp::mmu_nv50
