// SPDX-License-Identifier: Apache-2.0
#include "pfifo.h"

#include <cstring>
#include <ostream>
#include <sstream>
#include "compute_launch.h"
#include "gpuvp/trace.h"

namespace gpuvp::pfifo {

namespace {
uint64_t ps(const sc_core::sc_time& t) { return uint64_t(t.to_seconds() * 1e12 + 0.5); }

// NV50 VM engines / clients (nv50-vm.rst) used for PFIFO's own accesses.
constexpr uint32_t vm_pfifo = 0x5, vm_pfifo_bg = 0xc, vm_pgraph = 0x0, vm_pcopy = 0xd;
constexpr uint32_t client_pfifo_write = 0x04, client_pfifo_read = 0x08, client_dispatch = 0x03, client_pcopy = 0x13;

}  // namespace

pfifo::pfifo(sc_core::sc_module_name name) : sc_core::sc_module(name) {
  choose_generation();
  make_core();
  build_engines();
  hook_core_events();
  wire_error_registers();
  wire_setup_registers();
  wire_switching_registers();
  mem.register_invalidate_direct_mem_ptr(this, &pfifo::invalidate_dmi);
  userd.register_b_transport(this, &pfifo::userd_transport);
  userd.register_transport_dbg(this, &pfifo::userd_dbg);
  add_channel_statistics();
  SC_HAS_PROCESS(pfifo);
  SC_THREAD(thread);
}

// The generation fixes the USERD layout and, with memory_target, whether mem goes through the MMU.
void pfifo::choose_generation() {
  auto g = parse_gen(generation);
  if (!g) throw config_error(generation.path() + ": unknown GPU generation '" + generation.get() + "'");
  gen_ = *g;
  userd_stride_ = gen_ >= gen::g80 ? 0x2000 : gen_ == gen::nv40 ? 0x1000 : 0x10000;
  userd_offset_ = userd_base.get() ? userd_base.get() : gen_ >= gen::nv40 ? 0xc00000 : 0x800000;
  // Where mem goes.
  // auto: the platform binds mem to an mmu_nv50's `in` on G80:GF100 if it has one (initiators()).
  mem_to_ = memory_target;
  if (mem_to_ == "auto" && !(gen_ >= gen::g80 && gen_ < gen::gf100)) mem_to_ = "interconnect";
  mmu_mode_ = mem_to_ != "interconnect";
}

// The SystemC-free core from the parameters (checked here, where their paths are known).
void pfifo::make_core() {
  core_config cc;
  cc.g = gen_;
  cc.channels = unsigned(channels.get());
  cc.cache_depth = unsigned(cache_depth.get());
  cc.burst_words = unsigned(burst_bytes.get() / 4 ? burst_bytes.get() / 4 : 1);
  cc.method_cost_ps = ps(method_cost);
  cc.word_cost_ps = ps(word_cost);
  if (cc.word_cost_ps == 0) throw config_error(word_cost.path() + ": must be at least 1 ps (every pusher step costs time)");
  cc.acquire_retry_ps = std::max<uint64_t>(1, ps(acquire_retry));
  cc.acquire_timeout_ps = ps(acquire_timeout);
  cc.timeslice_ps = std::max<uint64_t>(1, ps(timeslice));
  cc.pfifo_big_endian = big_endian;
  cc.seed_literal_trigger = seed_literal_trigger;
  cc.ramin_base = ramin_base;
  cc.ramht_offset = ramht_offset;
  cc.ramht_size = uint32_t(ramht_size.get());
  cc.ramfc = ramfc_mode();
  cc.nv04_ramfc = nv04_mode();
  cc.vram_base = vram_base;
  if (ramht_size.get() & (ramht_size.get() - 1))
    throw config_error(ramht_size.path() + ": " + std::to_string(ramht_size.get()) + " is not a power of two");
  core_ = std::make_unique<fifo_core>(cc, static_cast<fifo_bus&>(*this));
  put_high_.assign(cc.channels, 0);
  get_high_shadow_.assign(cc.channels, 0);
  mget_high_shadow_.assign(cc.channels, 0);
  core_->on_load = [this](unsigned ch) {
    for (auto it = dmaobjs_.begin(); it != dmaobjs_.end();) it = std::get<0>(it->first) == ch ? dmaobjs_.erase(it) : std::next(it);
  };
}

// One engine of engine_map (ID:KIND), timed by the engine_* parameters and attached to the core.
void pfifo::add_engine(const std::string& item) {
  const auto colon = item.find(':');
  if (colon == std::string::npos) throw config_error(engine_map.path() + ": '" + item + "' is not ID:KIND");
  unsigned id;
  try {
    id = unsigned(parse_u64(item.substr(0, colon)));
  } catch (const std::exception&) {
    throw config_error(engine_map.path() + ": '" + item + "': bad engine id");
  }
  if (id >= 32) throw config_error(engine_map.path() + ": engine id " + std::to_string(id) + " is not below 32");
  if (core_->engine_at(id))  // a second engine would silently replace the first
    throw config_error(engine_map.path() + ": engine id " + std::to_string(id) + " is given twice");
  const std::string kind = item.substr(colon + 1);
  std::unique_ptr<engine> e;
  const std::string ename = kind + std::to_string(id);
  if (kind == "m2mf") {
    // Engine id 3 is PCOPY from GT215 (VM engine 0xd); otherwise the copy runs as PGRAPH's M2MF.
    const client as = (id == 3 && gen_ >= gen::gt215 && gen_ < gen::gf100) ? client::copy_engine : client::engine;
    auto m = std::make_unique<m2mf_engine>(ename, static_cast<fifo_bus&>(*this), gen_ >= gen::gf100, as);
    m->bytes_per_ns = copy_bandwidth;
    e = std::move(m);
  } else if (kind == "record") {
    e = std::make_unique<recording_engine>(ename);
  } else if (kind == "null") {
    e = std::make_unique<null_engine>(ename);
  } else if (kind == "compute") {
    auto c = std::make_unique<compute_launch_engine>(ename, static_cast<fifo_bus&>(*this), gen_ >= gen::gf100, this);
    c->channel_desc = [this](unsigned ch) { return ch < core_->channel_count() ? core_->chan(ch).inst_desc : 0xffffffffu; };
    e = std::move(c);
  } else {
    throw config_error(engine_map.path() + ": unknown engine kind '" + kind + "' (m2mf, record, null, compute)");
  }
  e->method_cost_ps = ps(engine_method_cost);
  e->switch_cost_ps = ps(engine_switch_cost);
  e->queue_depth = unsigned(engine_queue.get());
  e->wake = [this] {
    core_->engine_finished();
    kick_.notify(sc_core::SC_ZERO_TIME);
  };
  core_->attach_engine(id, e.get());
  engines_.push_back(std::move(e));
}

// Engines, in engine_map's order ([auto]: the generation's usual set).
void pfifo::build_engines() {
  std::vector<std::string> map = engine_map;
  if (map == std::vector<std::string>{"auto"})
    map = gen_ >= gen::gf100 ? std::vector<std::string>{"0:m2mf", "1:record", "4:m2mf"}
                             : std::vector<std::string>{"1:m2mf", "2:record", "3:m2mf"};
  for (const auto& item : map) {
    if (item == "auto") throw config_error(engine_map.path() + ": auto stands alone ([auto]), not beside other engines");
    add_engine(item);
  }
}

// The core's interrupts wake the thread; its errors become trace instants.
void pfifo::hook_core_events() {
  core_->on_intr = [this] { kick_.notify(sc_core::SC_ZERO_TIME); };
  core_->on_error = [this](const error_record& r) {  // an instant per error on the trace (no state kept here)
    if (auto& tr = tracer::global(); tr.enabled())
      tr.instant(tr.track(this->name()), err_type_name(r.type), sc_core::sc_time(double(r.time_ps), sc_core::SC_PS),
                 trace_args{{"channel", r.channel}, {"code", std::string(err_code_name(gen_, r.type, r.code))}});
  };
}

// INTR / INTR_EN and the error latch (ERR_*): views of the core's interrupt bits and error queue.
void pfifo::wire_error_registers() {
  intr.on_read = [this] { return uint64_t(core_->intr); };
  intr.on_write = [this](uint64_t v, uint64_t) {
    core_->intr &= ~uint32_t(v);
    kick_.notify(sc_core::SC_ZERO_TIME);
  };
  intr_en.on_write = [this](uint64_t, uint64_t) { kick_.notify(sc_core::SC_ZERO_TIME); };
  auto err = [this](auto f) { return [this, f]() -> uint64_t { return core_->errors().empty() ? 0 : f(core_->errors().front()); }; };
  err_channel.on_read = err([](const error_record& r) { return uint64_t(r.channel); });
  err_kind.on_read = err([](const error_record& r) { return uint64_t(r.type); });
  err_code.on_read = err([](const error_record& r) { return uint64_t(r.code); });
  err_word.on_read = err([](const error_record& r) { return uint64_t(r.word); });
  err_pos_lo.on_read = err([](const error_record& r) { return r.position & 0xffffffff; });
  err_pos_hi.on_read = err([](const error_record& r) { return r.position >> 32; });
  err_mthd.on_read = err([](const error_record& r) { return err_mthd_subc::put(r.subc) | err_mthd_method::put(r.mthd); });
  err_pending.on_read = [this] { return uint64_t(core_->errors().size()); };
  err_ack.on_write = [this](uint64_t, uint64_t) {
    core_->ack_error();
    if (!core_->errors().empty()) {  // the next latched error keeps its interrupt pending
      switch (core_->errors().front().type) {
        case err_type::dma_pusher:
          core_->intr |= fifo_core::intr_dma_pusher;
          break;
        case err_type::cache_error:
          core_->intr |= fifo_core::intr_cache_error;
          break;
        case err_type::semaphore:
          core_->intr |= fifo_core::intr_semaphore;
          break;
        case err_type::acquire_timeout:
          core_->intr |= fifo_core::intr_acquire_timeout;
          break;
        default:
          break;
      }
    }
    kick_.notify(sc_core::SC_ZERO_TIME);
  };
}

// The CHAN_* set-up registers (NV3 and GF100; elsewhere they read the selected channel only).
void pfifo::wire_setup_registers() {
  auto sel = [this]() -> channel& { return core_->chan(unsigned(chan_sel.get() % core_->channel_count())); };
  const bool own_setup = !ramfc_switching();  // the CHAN_* set-up registers work on NV3 and GF100
  chan_sel.on_write = [this](uint64_t v, uint64_t) {
    if (v >= core_->channel_count())
      GPUVP_LOG(this, warning, "CHAN_SEL " << v << " is not below the channel count " << core_->channel_count());
  };
  chan_ctrl.on_read = [sel] {
    const channel& c = sel();
    return chan_ctrl_enable::put(c.enabled) | chan_ctrl_ib_mode::put(c.ib_mode) | chan_ctrl_big_endian::put(c.big_endian) |
           chan_ctrl_sli_enable::put(c.sli_enable) | chan_ctrl_sli_mask::put(c.sli_mask);
  };
  chan_ctrl.on_write = [this, sel, own_setup](uint64_t v, uint64_t) {
    if (!own_setup) return;  // NV4:GF100 channels are set up through RAMFC (MODE / the channel table)
    channel& c = sel();
    c.enabled = chan_ctrl_enable::get(v);
    c.ib_mode = chan_ctrl_ib_mode::get(v);
    c.big_endian = chan_ctrl_big_endian::get(v);
    c.sli_enable = chan_ctrl_sli_enable::get(v);
    c.sli_mask = uint32_t(chan_ctrl_sli_mask::get(v));
    dmaobjs_.clear();
    core_->kick(c.id);
    kick_.notify(sc_core::SC_ZERO_TIME);
  };
  chan_inst.on_read = [sel] { return uint64_t(sel().inst_desc); };
  chan_inst.on_write = [this, sel, own_setup](uint64_t v, uint64_t) {
    if (!own_setup) return;
    channel& c = sel();
    c.inst_desc = uint32_t(chan_inst_desc::get(v));
    c.inst = desc_address(c.inst_desc, vram_base);
    dmaobjs_.clear();
  };
  chan_pb_dma.on_read = [sel] { return uint64_t(sel().pb_dmaobj); };
  chan_pb_dma.on_write = [sel, own_setup](uint64_t v, uint64_t) {
    if (!own_setup) return;
    sel().pb_dmaobj = uint32_t(chan_pb_dmaobj::get(v));
    ++sel().pb_bind;
  };
  chan_limit.on_read = [sel] { return sel().dma_limit; };
  chan_limit.on_write = [sel, own_setup](uint64_t v, uint64_t) {
    if (own_setup) sel().dma_limit = v;
  };
  chan_ib_lo.on_read = [sel] { return sel().ib_address & 0xffffffff; };
  chan_ib_lo.on_write = [sel, own_setup](uint64_t v, uint64_t) {
    auto& c = sel();
    if (own_setup) c.ib_address = (c.ib_address & ~0xffffffffull) | (v & chan_ib_addr_lo::mask);
  };
  chan_ib_hi.on_read = [sel] { return sel().ib_address >> 32; };
  chan_ib_hi.on_write = [sel, own_setup](uint64_t v, uint64_t) {
    auto& c = sel();
    if (own_setup) c.ib_address = (c.ib_address & 0xffffffffull) | chan_ib_addr_hi::get(v) << 32;
  };
  chan_ib_order.on_read = [sel] { return uint64_t(sel().ib_order); };
  chan_ib_order.on_write = [sel, own_setup](uint64_t v, uint64_t) {
    if (own_setup) sel().ib_order = uint32_t(chan_ib_order_log2::get(v));
  };
  chan_status.on_read = [this, sel] {
    const channel& c = sel();
    const bool busy = c.dma_get != c.dma_put || (c.ib_mode && c.ib_get != c.ib_put) || !c.cache.empty() || c.acquire_active;
    return chan_status_busy::put(busy) | chan_status_cache::put(!c.cache.empty()) | chan_status_acquire::put(c.acquire_active) |
           chan_status_pusher_stopped::put(c.pusher_stopped) | chan_status_puller_stopped::put(c.puller_stopped) |
           chan_status_hung::put(c.hung);
  };
  chan_get.on_read = [sel] { return sel().dma_get & 0xffffffff; };
  chan_get.on_write = [this, sel, own_setup](uint64_t v, uint64_t) {
    if (!own_setup) return;
    channel& c = sel();
    c.dma_get = c.dma_mget = c.dma_put = v;  // an empty pushbuffer until the host writes DMA_PUT
    core_->kick(c.id);
  };
  cache_flush.on_write = [this](uint64_t, uint64_t) { dmaobjs_.clear(); };
}

// NV4:GF100 channel switching as nouveau drives it: the channel table, runlist, CACHES/PUSH0/PULL0,
// the unload kick (G80:GF100) and RAMHT, RAMFC and MODE (NV4:G80).
void pfifo::wire_switching_registers() {
  // G80:GF100: the channel table, the runlist, CACHES/PUSH0/PULL0 and the unload kick.
  auto notify = [this] { kick_.notify(sc_core::SC_ZERO_TIME); };
  for (unsigned i = 0; i < 128; ++i) {
    std::ostringstream n;
    n << "CHAN_TABLE[" << i << "]";
    chan_table.push_back(std::make_unique<reg>(regs, n.str(), 0x600 + 4 * i, 4, 0, access::rw, 0xbfffffff));
    chan_table.back()->on_write = [this, i, notify](uint64_t v, uint64_t) {
      if (!ramfc_mode() || i >= core_->channel_count()) return;  // entries past `channels` are stored only
      const bool en = chan_table_enable::get(v);
      if (gen_ == gen::g80) {  // instance >> 12 | target << 28; RAMFC at instance + 0
        const uint32_t desc = uint32_t(chan_table_g80_desc::get(v));
        core_->bind_channel(i, en, desc_address(desc, vram_base), desc);
      } else {  // RAMFC >> 8 | target << 24; the instance comes from RAMFC's CHAN_INST
        core_->bind_channel(i, en, target_address(chan_table_ramfc::get(v) << 8, unsigned(chan_table_target::get(v)), vram_base),
                            core_->chan(i).inst_desc);
      }
      notify();
    };
  }
  caches.on_write = [this, notify](uint64_t v, uint64_t) {
    if (ramfc_switching()) core_->reassign = access_enable::get(v);
    notify();
  };
  push0.on_write = [this, notify](uint64_t v, uint64_t) {
    if (ramfc_switching()) core_->push_access = access_enable::get(v);
    notify();
  };
  pull0.on_write = [this, notify](uint64_t v, uint64_t) {
    if (ramfc_switching()) core_->pull_access = access_enable::get(v);
    notify();
  };
  // NV4:G80: RAMHT (all pre-G80 generations), RAMFC / NV40_RAMFC and MODE (nouveau's nv04 family).
  ramht_reg.on_write = [this](uint64_t v, uint64_t) {
    if (gen_ < gen::g80) core_->set_ramht(ramht_addr::get(v) << 8, unsigned(ramht_bits::get(v)) + 9);
  };
  ramfc_reg.on_write = [this, notify](uint64_t, uint64_t) {
    if (nv04_mode() && gen_ != gen::nv40) rebind_nv04();
    notify();
  };
  ramfc40_reg.on_write = [this, notify](uint64_t, uint64_t) {
    if (gen_ == gen::nv40) rebind_nv04();
    notify();
  };
  mode.on_write = [this, notify](uint64_t, uint64_t) {
    if (nv04_mode()) rebind_nv04();
    notify();
  };
  const uint32_t pending_bit = gen_ == gen::g80 ? 1u << 8 : 1u << 12, len_mask = gen_ == gen::g80 ? 0xff : 0xfff;
  playlist_len.on_read = [this, pending_bit, len_mask] {
    return (playlist_len.get() & len_mask) | (core_->runlist_pending() ? pending_bit : 0);
  };
  playlist_len.on_write = [this, notify, len_mask](uint64_t v, uint64_t) {
    if (!ramfc_mode()) return;
    core_->request_runlist(desc_address(uint32_t(playlist.get()), vram_base), unsigned(v & len_mask));
    notify();
  };
  kick_channel.on_read = [this] { return core_->unload_pending() ? uint64_t(0xffffffff) : kick_channel.get(); };
  kick_channel.on_write = [this, notify](uint64_t v, uint64_t) {
    if (!ramfc_mode()) return;
    core_->request_unload(uint32_t(v));
    notify();
  };
}

// ch<N>.* gauges: views of each channel's counters in the core.
void pfifo::add_channel_statistics() {
  for (unsigned i = 0; i < core_->channel_count(); ++i) {
    const std::string p = "ch" + std::to_string(i) + ".";
    auto add = [&](const std::string& n, const std::string& d, std::function<double(const channel_stats&)> f) {
      chan_stats_.push_back(std::make_unique<gauge>(this, p + n, d, [this, i, f] { return f(core_->chan(i).stats); }));
    };
    add("methods_engine", "methods forwarded to engines", [](auto& s) { return double(s.methods_engine); });
    add("methods_puller", "methods executed by the puller", [](auto& s) { return double(s.methods_puller); });
    add("methods_increasing", "methods in increasing commands", [](auto& s) { return double(s.methods_inc); });
    add("methods_non_increasing", "methods in non-increasing commands", [](auto& s) { return double(s.methods_ninc); });
    add("methods_inline", "GF100 inline methods", [](auto& s) { return double(s.methods_inline); });
    add("bytes_fetched", "pushbuffer bytes fetched", [](auto& s) { return double(s.bytes_fetched); });
    add("ib_entries", "IB entries read", [](auto& s) { return double(s.ib_entries); });
    add("cache_max", "highest CACHE occupancy", [](auto& s) { return double(s.cache_max); });
    add("engine_switches", "engine channel switches caused", [](auto& s) { return double(s.engine_switches); });
    add("engine_wait_ns", "time waiting for engines (idle or queue space)", [](auto& s) { return double(s.engine_wait_ps) / 1000; });
    add("semaphore_waits", "acquires that had to wait", [](auto& s) { return double(s.semaphore_waits); });
    add("semaphore_wait_ns", "time spent in pending acquires", [](auto& s) { return double(s.semaphore_wait_ps) / 1000; });
    add("channel_switches", "times PFIFO switched to this channel", [](auto& s) { return double(s.channel_switches); });
    add("errors", "errors raised", [](auto& s) { return double(s.errors); });
    add("ramfc_switch_ns", "NV4:GF100: time saving the resident channel to RAMFC and loading this one",
        [](auto& s) { return double(s.ramfc_switch_ps) / 1000; });
  }
}

pfifo::~pfifo() = default;

void pfifo::rebind_nv04() {
  const uint64_t base = ramin_base + (gen_ == gen::nv40 ? (ramfc40_reg.get() & 0xffff) << 16 : (ramfc_reg.get() & 0xffff) << 8);
  const unsigned size = nv04_ramfc::of(gen_)->size;
  const uint32_t m = uint32_t(mode.get());
  // Only a MODE bit that changes (a set bit: the channel starts and its next load takes the
  // record) or a new base (every channel is a new one) rebinds a channel.
  for (unsigned i = 0; i < core_->channel_count(); ++i) {
    const bool en = i < 32 && ((m >> i) & 1), was = i < 32 && ((mode_bound_ >> i) & 1);
    if (en != was || base != ramfc_bound_) core_->bind_channel(i, en, base + uint64_t(i) * size, 0);
  }
  mode_bound_ = m;
  ramfc_bound_ = base;
}

std::vector<component::target_port> pfifo::targets() {
  return {{"regs", &regs.in, regs_base, 0x2000, true},
          {"userd", &userd, userd_offset_, uint64_t(core_->channel_count()) * userd_stride_, true}};
}

std::vector<component::interface_port> pfifo::interface_ports() {
  std::vector<interface_port> ports;
  for (auto& e : engines_)
    if (auto* c = dynamic_cast<compute_launch_engine*>(e.get())) ports.push_back(c->port.port());
  return ports;
}

std::vector<component::initiator_port> pfifo::initiators() {
  return {{"mem", &mem, mem_to_, "mmu_nv50.in", [this](const std::string& to) {
             mem_to_ = to;
             mmu_mode_ = to != "interconnect";
           }}};
}

void pfifo::thread() {
  const uint64_t slice = std::max<uint64_t>(1000, ps(run_slice));
  uint64_t core_now = 0;  // PFIFO's own time: may run ahead of the kernel by up to a slice
  if (auto& tr = tracer::global(); tr.enabled()) {
    // Tracks: each engine's method batches and channel switches; each channel's semaphore waits.
    for (auto& e : engines_) {
      const uint32_t track = tr.track(std::string(name()) + ".engine." + e->name());
      e->trace = [track](const char* what, unsigned ch, uint64_t start, uint64_t end, uint64_t methods) {
        trace_args args{{"channel", ch}};
        if (methods) args.emplace_back("methods", methods);
        tracer::global().span(track, what, sc_core::sc_time(double(start), sc_core::SC_PS),
                              sc_core::sc_time(double(end - start), sc_core::SC_PS), args);
      };
      e->flow = [track](uint64_t at) { return tracer::global().flow_out(track, sc_core::sc_time(double(at), sc_core::SC_PS)); };
    }
    core_->on_semaphore_wait = [this](unsigned ch, uint64_t from, uint64_t to, bool acquired) {
      auto& t = tracer::global();
      t.span(t.track(std::string(name()) + ".ch" + std::to_string(ch)), acquired ? "semaphore wait" : "semaphore wait (timeout)",
             sc_core::sc_time(double(from), sc_core::SC_PS), sc_core::sc_time(double(to - from), sc_core::SC_PS));
    };
  }
  for (;;) {
    stamp_ps_ = ps(sc_core::sc_time_stamp());
    uint64_t now = std::max(core_now, stamp_ps_);
    const uint64_t started = now;
    const uint64_t next = core_->run(now, now + slice);
    core_now = now;
    if (auto& tr = tracer::global(); tr.enabled()) {
      const uint32_t track = tr.track(name());
      if (now > started && core_->current >= 0)
        tr.span(track, "run", sc_core::sc_time(double(started), sc_core::SC_PS), sc_core::sc_time(double(now - started), sc_core::SC_PS),
                trace_args{{"channel", core_->current}});
    }
    for (auto& e : engines_)
      if (e->trace) e->flush_trace(next == never ? never - 1 : now);  // idle: the last batch too
    if (core_->current >= 0) cache_occupancy.add(core_->chan(unsigned(core_->current)).cache.size());
    update_irq();
    // Always wait with kick_ in the sensitivity, so that no host kick is lost.
    if (next == never)
      wait(kick_);
    else
      wait(sc_core::sc_time(double(std::max(next, now) - stamp_ps_), sc_core::SC_PS), kick_);
  }
}

void pfifo::update_irq() { irq.write((core_->intr & uint32_t(intr_en.get())) != 0); }

// ---------------------------------------------------------------- memory bus
void pfifo::invalidate_dmi(sc_dt::uint64 start, sc_dt::uint64 end) {
  // The MMU invalidates its whole logical space; flat regions are dropped where they overlap.
  std::erase_if(dmis_,
                [&](const dmi_region& r) { return mmu_mode_ || (start <= r.d.get_end_address() && end >= r.d.get_start_address()); });
  dmi_next_ = 0;
}

bool pfifo::xfer(bool write, uint64_t addr, void* data, unsigned len, uint64_t& now, const gpu_ext* ext) {
  const bool keyed = mmu_mode_ && ext;
  const uint32_t k_eng = keyed ? ext->vm_engine : gpu_ext::none, k_client = keyed ? ext->vm_client : gpu_ext::none,
                 k_slot = keyed ? ext->dma_slot : gpu_ext::none, k_bind = keyed ? ext->dma_bind : 0,
                 k_ctx = keyed ? ext->vm_context : gpu_ext::none;
  // A DMI hit still sends the transaction (dmi_shadow: timed, booked and counted on the way as
  // any other, the memory moving no data) and then moves the data through the pointer, so that
  // use_dmi changes no simulated time and no statistic other than dmi_accesses.
  unsigned char* p = nullptr;
  for (const dmi_region& r : dmis_) {
    const tlm::tlm_dmi& d = r.d;
    if (r.engine != k_eng || r.client != k_client || r.slot != k_slot || r.bind != k_bind || r.context != k_ctx) continue;
    if (addr < d.get_start_address() || addr + len - 1 > d.get_end_address()) continue;
    if (write ? !d.is_write_allowed() : !d.is_read_allowed()) continue;
    p = d.get_dmi_ptr() + (addr - d.get_start_address());
    break;
  }
  transaction t(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, addr, data, len);
  if (ext) {
    t.ext.vm_engine = ext->vm_engine;
    t.ext.vm_client = ext->vm_client;
    t.ext.dma_slot = ext->dma_slot;
    t.ext.dma_bind = ext->dma_bind;
    t.ext.vm_context = ext->vm_context;
    t.ext.channel = ext->channel;
  }
  t.ext.dmi_shadow = p != nullptr;
  if (flow_source) t.ext.flow = flow_source(now);
  sc_core::sc_time delay(double(now - stamp_ps_), sc_core::SC_PS);
  mem->b_transport(t.gp, delay);
  now = stamp_ps_ + ps(delay);
  ++transactions;
  if (!t.ok()) {
    ++faults;
    return false;
  }
  if (p) {
    if (write)
      std::memcpy(p, data, len);
    else
      std::memcpy(data, p, len);
    ++dmi_accesses;
    return true;
  }
  if (use_dmi && t.gp.is_dmi_allowed()) {
    // Through the MMU the request carries the access's side band and command (a region is
    // granted for that side band only: mmu_nv50.md's contract for initiators).
    tlm::tlm_dmi d;
    t.set(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, addr, data, len);
    if (mem->get_direct_mem_ptr(t.gp, d)) {
      dmi_region r{d, k_eng, k_client, k_slot, k_bind, k_ctx};
      if (dmis_.size() < dmi_slots)
        dmis_.push_back(r);
      else
        dmis_[dmi_next_++ % dmi_slots] = r;
    }
  }
  return true;
}

bool pfifo::resolve(unsigned ch, uint32_t obj, client c, uint32_t bind, uint64_t offset, unsigned len, bool write, uint64_t& host,
                    uint64_t& now) {
  if (obj == 0) return false;  // no object bound
  const bool g80 = gen_ >= gen::g80;
  const auto key = std::make_tuple(g80 ? ch : 0u, obj, int(c));
  auto it = dmaobjs_.find(key);
  if (it == dmaobjs_.end() || it->second.bind != bind) {
    uint32_t w[6] = {};
    const uint64_t at = (g80 ? core_->chan(ch).inst : uint64_t(ramin_base)) + uint64_t(obj) * 16;
    if (!xfer(false, at, w, g80 ? 24 : 12, now, nullptr)) return false;
    it = dmaobjs_.insert_or_assign(key, cached_obj{g80 ? parse_g80_dmaobj(w) : parse_nv4_dmaobj(gen_, w), bind}).first;
  }
  const dma_object& o = it->second.o;
  if (g80) {
    // G80 limit is an address: base + offset >= limit faults (as the NV50 MMU model does).
    if (o.base + offset < o.base || o.base + offset >= o.limit) return false;
    if (write && o.rights == 1) return false;
    if (o.target == 0) return false;  // paged: needs the MMU (memory_target)
    host = (o.target == 1 ? uint64_t(vram_base) : 0) + o.base + offset;
  } else {
    if (offset + len - 1 > o.limit) return false;  // NV4 limit: last valid byte of the object
    if (write && o.rights == 1) return false;
    host = (o.target == 0 ? uint64_t(vram_base) : 0) + o.base + offset;
  }
  return true;
}

bool pfifo::dma(bool write, unsigned ch, uint32_t obj, uint64_t offset, void* data, unsigned len, client c, uint64_t& now, uint32_t bind) {
  if (mmu_mode_) {
    // nv50-vm.rst: PGRAPH's M2MF is engine 0 client 0x03 DISPATCH, PCOPY engine 0xd client 0x13,
    // PFIFO engine 5 (0xc for the background acquire) with client 0x04 PFIFO_WRITE / 0x08 PFIFO_READ.
    gpu_ext e;
    e.vm_engine = c == client::engine         ? vm_pgraph
                  : c == client::copy_engine  ? vm_pcopy
                  : c == client::semaphore_bg ? vm_pfifo_bg
                                              : vm_pfifo;
    e.vm_client = c == client::engine        ? client_dispatch
                  : c == client::copy_engine ? client_pcopy
                  : write                    ? client_pfifo_write
                                             : client_pfifo_read;
    e.dma_slot = obj;
    e.dma_bind = bind;
    e.vm_context = core_->chan(ch).inst_desc;
    e.channel = ch;
    return xfer(write, offset, data, len, now, &e);
  }
  uint64_t host;
  if (!resolve(ch, obj, c, bind, offset, len, write, host, now)) {
    ++faults;
    return false;
  }
  return xfer(write, host, data, len, now, nullptr);
}

bool pfifo::vm(bool write, unsigned ch, uint64_t va, void* data, unsigned len, client, uint64_t& now) {
  // GF100 VM is not modelled: a virtual address is the host physical address.
  gpu_ext e;
  e.channel = ch;
  return xfer(write, va, data, len, now, &e);
}

bool pfifo::inst(bool write, uint64_t addr, void* data, unsigned len, uint64_t& now) {
  gpu_ext e;
  e.vm_engine = vm_pfifo;
  e.vm_client = write ? client_pfifo_write : client_pfifo_read;
  return xfer(write, addr, data, len, now, &e);
}

void pfifo::wrcache_flush(uint64_t&) {}  // PFIFO posts no writes in this model: nothing to flush

// ---------------------------------------------------------------- USERD
uint32_t pfifo::userd_read(unsigned ch, uint32_t off) {
  const channel& c = core_->chan(ch);
  switch (off) {
    case u_dma_put:
      return uint32_t(c.dma_put);
    case u_dma_get:
      return uint32_t(c.dma_get);
    case u_ref:
      return c.ref;
    case u_dma_put_high:
      return uint32_t(c.dma_put >> 32);
    case u_dma_cget:
      return uint32_t(c.subr_active ? c.subr_return : c.dma_get);
    case u_dma_mget:
      return uint32_t(c.dma_mget);
    case u_dma_mget_high:
      return mget_high_shadow_[ch];  // as latched by the last DMA_MGET read
    case u_dma_get_high:
      return get_high_shadow_[ch];  // as latched by the last DMA_GET read
    case u_ib_get:
      return c.ib_get;
    case u_ib_put:
      return c.ib_put;
    default:
      return 0;
  }
}

void pfifo::userd_write(unsigned ch, uint32_t off, uint32_t v) {
  channel& c = core_->chan(ch);
  switch (off) {
    case u_dma_put_high:
      put_high_[ch] = v & 0xff;
      return;
    case u_dma_put:
      c.dma_put = uint64_t(put_high_[ch]) << 32 | v;
      c.put_written = true;
      break;
    case u_ib_put:
      // A channel not loaded yet has no IB order here: RAMFC's is applied when it loads.
      c.ib_put = ramfc_mode() && core_->loaded() != int(ch) ? v : v & ((uint32_t(1) << c.ib_order) - 1);
      c.ib_put_written = true;
      break;
    default:
      return;  // read-only or unused
  }
  core_->kick(ch);
  kick_.notify(sc_core::SC_ZERO_TIME);
}

void pfifo::userd_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const uint64_t a = gp.get_address();
  const unsigned ch = unsigned(a / userd_stride_);
  if (gp.get_data_length() != 4 || (a & 3) || gp.get_byte_enable_ptr()) {
    gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  if (ch >= core_->channel_count()) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  uint32_t v;
  if (gp.is_read()) {
    const uint32_t off = uint32_t(a % userd_stride_);
    // Read shadow rule (read low, then high): the low-half read latches the high half.
    if (off == u_dma_get) get_high_shadow_[ch] = uint32_t(core_->chan(ch).dma_get >> 32) & 0xff;
    if (off == u_dma_mget) mget_high_shadow_[ch] = uint32_t(core_->chan(ch).dma_mget >> 32) & 0xff;
    v = userd_read(ch, off);
    std::memcpy(gp.get_data_ptr(), &v, 4);
  } else {
    std::memcpy(&v, gp.get_data_ptr(), 4);
    userd_write(ch, uint32_t(a % userd_stride_), v);
  }
  delay += sc_core::sc_time(1, sc_core::SC_NS);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned pfifo::userd_dbg(tlm::tlm_generic_payload& gp) {
  const uint64_t a = gp.get_address();
  const unsigned ch = unsigned(a / userd_stride_);
  if (!gp.is_read() || gp.get_data_length() != 4 || (a & 3) || ch >= core_->channel_count()) return 0;
  const uint32_t v = userd_read(ch, uint32_t(a % userd_stride_));
  std::memcpy(gp.get_data_ptr(), &v, 4);
  return 4;
}

// ---------------------------------------------------------------- reports
bool pfifo::qtest(const std::vector<std::string>& words, std::string& reply) {
  if (words.empty() || words[0] != "pfifo") return false;
  if (words.size() >= 2 && words[1] == "errors") {
    reply = "OK " + std::to_string(core_->errors_raised);
    return true;
  }
  if (words.size() >= 3 && words[1] == "ref") {
    try {
      const auto ch = parse_u64(words[2]);
      if (ch >= core_->channel_count()) throw std::out_of_range("channel");
      reply = "OK " + hex_string(core_->chan(unsigned(ch)).ref);
    } catch (const std::exception&) {
      reply = "FAIL bad channel '" + words[2] + "'";
    }
    return true;
  }
  reply = "FAIL usage: pfifo errors | pfifo ref CHANNEL";
  return true;
}

void pfifo::report(std::ostream& os) {
  channel_stats t;
  for (unsigned i = 0; i < core_->channel_count(); ++i) {
    const auto& s = core_->chan(i).stats;
    t.methods_engine += s.methods_engine;
    t.methods_puller += s.methods_puller;
    t.bytes_fetched += s.bytes_fetched;
    t.engine_switches += s.engine_switches;
    t.engine_wait_ps += s.engine_wait_ps;
    t.semaphore_waits += s.semaphore_waits;
    t.channel_switches += s.channel_switches;
    t.errors += s.errors;
  }
  os << "generation " << gen_name(gen_) << (mmu_mode_ ? ", through " + mem_to_ : std::string(", flat addressing"))
     << ", methods to engines " << t.methods_engine << ", puller methods " << t.methods_puller << ", bytes fetched " << t.bytes_fetched
     << ", engine switches " << t.engine_switches << " (waited " << t.engine_wait_ps / 1000 << " ns), semaphore waits " << t.semaphore_waits
     << ", channel switches " << t.channel_switches << ", errors " << t.errors << ", hangs " << core_->hangs;
  if (ramfc_switching()) os << ", RAMFC loads " << core_->ramfc_loads << " saves " << core_->ramfc_saves;
  os << "\n";
}

std::vector<std::string> pfifo::modelled_errors() {
  std::vector<std::string> v;
  for (const auto& r : core_->errors())
    v.push_back(std::string("unacknowledged ") + err_type_name(r.type) + "(" + err_code_name(gen_, r.type, r.code) + ") on channel " +
                std::to_string(r.channel) + ", word " + hex_string(r.word) + " at " + hex_string(r.position));
  if (core_->hangs > expected_hangs)
    for (unsigned i = 0; i < core_->channel_count(); ++i)
      if (core_->chan(i).hung) v.push_back("channel " + std::to_string(i) + " hung on an invalid SEMAPHORE_TRIGGER operation");
  for (const auto& e : engines_)
    if (auto* m = dynamic_cast<m2mf_engine*>(e.get()); m && m->faults)
      v.push_back(m->name() + ": " + std::to_string(m->faults) + " copies hit a memory fault");
  for (const auto& e : engines_) e->describe_errors(v);
  for (const auto& p : core_->ramfc_problems) v.push_back(p);
  return v;
}

}  // namespace gpuvp::pfifo
