// SPDX-License-Identifier: Apache-2.0
#include "gpuvp/router.h"

#include <algorithm>
#include "gpuvp/extension.h"
#include "gpuvp/timing.h"
#include "gpuvp/trace.h"

namespace gpuvp {

namespace {
// A payload's extension, read inline: tlm_generic_payload::get_extension(unsigned) is out of line
// in the SystemC library (a call, and the caller's registers saved around it, twice per hop). The
// array is private: an explicit instantiation may name a private member (C++20
// [temp.spec.general]/6), which hands a pointer to it to the friend below.
using extension_array = tlm::tlm_array<tlm::tlm_extension_base*>;
struct extensions_tag {
  friend extension_array tlm::tlm_generic_payload::*member(extensions_tag);
};
template <extension_array tlm::tlm_generic_payload::*array>
struct expose_extensions {
  friend extension_array tlm::tlm_generic_payload::*member(extensions_tag) { return array; }
};
template struct expose_extensions<&tlm::tlm_generic_payload::m_extensions>;

template <typename T>
T* extension(const tlm::tlm_generic_payload& gp) {
  const extension_array& a = gp.*member(extensions_tag{});
  return T::ID < a.size() ? static_cast<T*>(a[T::ID]) : nullptr;
}

// Both paths count a forwarded transaction alike (a template: the port type is the router's own).
template <typename port, typename counter>
[[gnu::always_inline]] inline void count_transfer(counter& dmi_transactions, port& pin, port& pout, const gpu_ext* ext, unsigned len) {
  if (ext && ext->dmi_shadow) ++dmi_transactions;
  ++pin.transactions;
  ++pout.transactions;
  pin.bytes += len;
  pout.bytes += len;
}
}  // namespace

// The horizon: 256 slots of at least slot_cycles cycles, each a power of two of time units.
// (clock <= 1 ms and slot_cycles <= 2^20 keep this below 2^58 time units: no overflow)
uint64_t router::port::calendar_horizon(uint64_t cycle, uint64_t slot_cycles) {
  const uint64_t want = cycle * slot_cycles;
  unsigned slot_shift = 0;
  while (slot_shift < 62 && (uint64_t(1) << slot_shift) < want) ++slot_shift;
  return uint64_t(256) << slot_shift;
}

router::port::port(const std::string& path, router& owner)
    : latency(path + ".latency", owner.latency.get(), "latency of this port", sc_core::SC_ZERO_TIME, 1_s),
      width(path + ".width", owner.width.get(), "bytes per cycle of this port", 1, 4096),
      clock(path + ".clock", owner.clock.get(), "clock period of this port", 1_ps, 1_ms),
      transactions(path + ".transactions", "transactions through this port"),
      bytes(path + ".bytes", "bytes through this port"),
      queueing(path + ".queueing", "queueing delay before the port was free", "ps"),
      stale(path + ".stale", "transactions older than the booking calendar's horizon (not queued)"),
      untimed(path + ".untimed", "transactions carried without booking the link: timed by the GPU's memory system"),
      busy(path + ".busy", "fraction of simulated time the port was transferring (booked time up to now)",
           [this] {
             const uint64_t now = sc_core::sc_time_stamp().value();
             if (now == 0) return 0.0;
             const double b = double(busy_time - booked_after(now)) / double(now);
             return single_server ? b : std::min(1.0, b);  // without contention transfers may overlap
           }),
      calendar(calendar_horizon(clock.get().value(), owner.slot_cycles)) {
  if (clock.get() == sc_core::SC_ZERO_TIME) throw config_error(path + ".clock: must be greater than 0");
  cycle = clock.get().value();
  single_server = owner.contention.get();
  bytes_per_cycle = width;
  if ((bytes_per_cycle & (bytes_per_cycle - 1)) == 0) width_shift = __builtin_ctzll(bytes_per_cycle);
  latency_value = latency.get().value();
}

uint64_t router::port::book(uint64_t t, uint64_t occ) {
  if (record_pieces) pieces.clear();
  if (occ == 0) return t;
  if (!calendar.remembers(t)) {
    ++stale;
    return t + occ;
  }
  busy_time += occ;
  return calendar.book(t, occ, record_pieces ? &pieces : nullptr);
}

// One input's forward interface: final, so that b_transport is one virtual call into the router.
struct router::input_socket::binding final : tlm::tlm_fw_transport_if<> {
  binding(router& r, int i) : owner(r), index(i) {}
  router& owner;
  const int index;
  port* pin = nullptr;  // set before the end of elaboration
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) override { owner.transport(*pin, index, gp, delay); }
  unsigned transport_dbg(tlm::tlm_generic_payload& gp) override { return owner.transport_dbg(index, gp); }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) override { return owner.get_direct_mem_ptr(index, gp, dmi); }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) override {
    SC_REPORT_ERROR(owner.in.name(), "nb_transport_fw: the router is a blocking (loosely-timed) target");
    return tlm::TLM_COMPLETED;
  }
};

// The export needs an interface of its own before anything binds: input 0's, handed out first.
router::input_socket::input_socket(const char* name, router& owner) : tlm_target_socket(name), owner_(owner) {
  bindings_.push_back(std::make_unique<binding>(owner_, 0));
  tlm_target_socket::bind(*bindings_[0]);
}

router::input_socket::~input_socket() = default;

// Called once by each initiator socket's bind: the next input.
tlm::tlm_fw_transport_if<>& router::input_socket::get_base_interface() {
  if (handed_out_ == bindings_.size()) bindings_.push_back(std::make_unique<binding>(owner_, int(handed_out_)));
  return *bindings_[handed_out_++];
}

// A multi initiator socket asks for the interface its bind just got (its backward interface is
// bound to our port as any initiator's).
tlm::tlm_fw_transport_if<>* router::input_socket::get_last_binder(tlm::tlm_bw_transport_if<>*) { return bindings_[handed_out_ - 1].get(); }

router::router(sc_core::sc_module_name name) : sc_module(name) {
  ps_ = (1_ps).value();
  out.register_invalidate_direct_mem_ptr(this, &router::invalidate_direct_mem_ptr);
}

// The port at `index` of one side, created on first use with its name (default "<prefix><index>").
router::port& router::port_at(std::vector<std::unique_ptr<port>>& ports, std::vector<std::string>& names, unsigned index,
                              const char* prefix) {
  if (index >= ports.size()) {
    ports.resize(index + 1);
    names.resize(index + 1);
  }
  if (!ports[index]) {
    if (names[index].empty()) names[index] = prefix + std::to_string(index);
    const std::string path = std::string(name()) + "." + names[index];
    ports[index] = std::make_unique<port>(path, *this);
    ports[index]->track = tracer::global().track(path);
  }
  return *ports[index];
}

router::port& router::input(unsigned index) { return port_at(inputs_, input_names_, index, "in"); }
router::port& router::output(unsigned index) { return port_at(outputs_, output_names_, index, "out"); }

void router::name_input(unsigned index, const std::string& port_name) {
  if (index < inputs_.size() && inputs_[index])
    throw config_error(std::string(name()) + ": input " + std::to_string(index) + " is already named");
  if (index >= input_names_.size()) input_names_.resize(index + 1);
  input_names_[index] = port_name;
  input(index);
}

void router::map(unsigned index, uint64_t base, uint64_t size, const std::string& target_name) {
  if (size == 0 || base + size - 1 < base)
    throw config_error(std::string(name()) + ": window of " + target_name + " at " + to_hex(base) + " size " + to_hex(size) +
                       " is empty or wraps");
  for (const auto& w : windows_)
    if (base < w.base + w.size && w.base < base + size)
      throw config_error(std::string(name()) + ": address window of " + target_name + " [" + to_hex(base) + ", " + to_hex(base + size) +
                         ") overlaps " + w.name + " [" + to_hex(w.base) + ", " + to_hex(w.base + w.size) + ")");
  if (index >= output_names_.size()) output_names_.resize(index + 1);
  if (!(index < outputs_.size() && outputs_[index])) {
    output_names_[index] = target_name;
    output(index);
  }
  for (auto& p : inputs_)  // cached windows point into windows_, which may move now
    if (p) p->last = {};
  window w{base, size, index, target_name};
  windows_.insert(std::upper_bound(windows_.begin(), windows_.end(), w, [](const window& a, const window& b) { return a.base < b.base; }),
                  w);
}

void router::before_end_of_elaboration() {
  for (unsigned i = 0; i < in.size(); ++i) in.bindings_[i]->pin = &input(i);
  for (unsigned i = 0; i < unsigned(out.size()); ++i) output(i);
  log_debug_ = logger::global().enabled(name(), log_level::debug);
}

void router::start_of_simulation() {
  tracing_ = tracer::global().enabled();
  plain_ = contention && !tracing_ && !log_debug_;
  for (auto& p : outputs_)
    if (p) p->record_pieces = tracing_;
}

const router::window* router::decode(uint64_t addr) const {
  auto it = std::upper_bound(windows_.begin(), windows_.end(), addr, [](uint64_t a, const window& w) { return a < w.base; });
  if (it == windows_.begin()) return nullptr;
  const window& w = *(it - 1);
  return addr - w.base < w.size ? &w : nullptr;
}

bool router::refresh(port& pin, port::route& r, uint64_t addr, unsigned len) {
  if (addr - r.base >= r.size) {
    const window* w = decode(addr);
    if (!w) {
      r = {};
      return false;
    }
    r = {};  // no length yet
    r.base = w->base;
    r.size = w->size;
    r.out = outputs_[w->index].get();
    r.target = out[w->index];
    r.w = w;
    r.latency = pin.latency_value + r.out->latency_value;
  }
  if (addr - r.base + len > r.size) return false;
  if (len != r.length) {
    r.length = len ? len : ~uint64_t(0);  // no inline path without a transfer to book
    r.occ_in = pin.occupancy(len);
    r.occ_out = r.out->occupancy(len);
    r.transfer = std::max(r.occ_in, r.occ_out);
    r.unqueued_delay = sc_core::sc_time::from_value(r.transfer + r.latency);
  }
  return true;
}

void router::b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) { transport(*inputs_[id], id, gp, delay); }

// Inline in each input's b_transport. The common case: the input's last window and length again,
// an access to time here, contention on, no trace or log, and the target link free at the arrival
// with room in its calendar (or the arrival older than the calendar's horizon): transport_general
// would book the transfer at the arrival (or count it stale), queue it for 0 and add its transfer
// and latencies to the delay. That is done here, without a call that would make the caller save
// its registers.
[[gnu::always_inline]] inline void router::transport(port& pin, int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const uint64_t addr = gp.get_address();
  const unsigned len = gp.get_data_length();
  const port::route& r = pin.last;
  if (!plain_ || addr - r.base >= r.size || addr - r.base + len > r.size || len != r.length || extension<untimed_ext>(gp))
    return transport_general(pin, id, gp, delay);
  port& pout = *r.out;
  const uint64_t arrival = simcontext()->time_stamp().value() + delay.value();
  if (pout.calendar.can_append(arrival)) {
    pout.calendar.append(arrival, r.occ_out);
    pout.busy_time += r.occ_out;
  } else if (!pout.calendar.remembers(arrival)) {  // older than the horizon: not queued, nothing booked
    ++pout.stale;
  } else {
    return transport_general(pin, id, gp, delay);
  }
  count_transfer(dmi_transactions, pin, pout, extension<gpu_ext>(gp), len);
  pout.queueing.add(0);
  pin.busy_time += r.occ_in;
  delay += r.unqueued_delay;
  tlm::tlm_blocking_transport_if<>* target = r.target;  // before the call: the target may come back here
  gp.set_address(addr - r.base);
  target->b_transport(gp, delay);
  gp.set_address(addr);
}

void router::transport_general(port& pin, int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const uint64_t addr = gp.get_address();
  const unsigned len = gp.get_data_length();
  // Initiators mostly stay in one window with one length: try the last ones before searching.
  port::route& r = pin.last;
  if ((addr - r.base >= r.size || addr - r.base + len > r.size || len != r.length) && !refresh(pin, r, addr, len))
    return decode_error(id, gp);
  // Locals: a target may reach this input again, or map() clear the route, before we return.
  const uint64_t base = r.base;
  const window* w = r.w;
  tlm::tlm_blocking_transport_if<>* target = r.target;
  port& pout = *r.out;
  const gpu_ext* ext = extension<gpu_ext>(gp);
  count_transfer(dmi_transactions, pin, pout, ext, len);

  // Occupancy: the target link is booked in its calendar at or after the arrival; the initiator's
  // link only has to carry the bytes (one initiator does not contend with itself). An access
  // another model times (the GPU's memory system) books nothing: only the latencies.
  if (extension<untimed_ext>(gp)) {
    ++pin.untimed;
    ++pout.untimed;
    pin.add_delay(delay, r.latency);
  } else {
    const uint64_t arrival = simcontext()->time_stamp().value() + delay.value();
    const uint64_t occ_in = r.occ_in, occ_out = r.occ_out, transfer = r.transfer;
    uint64_t end = arrival + transfer;
    if (contention) {
      end = std::max(pout.book(arrival, occ_out), arrival + occ_in);
      const uint64_t waited = end - arrival - transfer;
      pout.queueing.add(waited == 0 ? 0 : waited / ps_);
    } else {
      pout.busy_time += occ_out;
      if (tracing_) pout.pieces.assign(1, {arrival, occ_out});
    }
    pin.busy_time += occ_in;
    pin.add_delay(delay, end - arrival + r.latency);
    if (tracing_) trace_access(id, pout, gp, ext, end - transfer, transfer);
  }
  gp.set_address(addr - base);
  if (log_debug_) return forward_logged(id, *w, *target, gp, delay, addr);
  target->b_transport(gp, delay);
  gp.set_address(addr);
}

void router::forward_logged(int id, const window& w, tlm::tlm_blocking_transport_if<>& target, tlm::tlm_generic_payload& gp,
                            sc_core::sc_time& delay, uint64_t addr) {
  target.b_transport(gp, delay);
  gp.set_address(addr);
  log_transaction(id, w, gp, delay);
}

void router::decode_error(int id, tlm::tlm_generic_payload& gp) {
  ++decode_errors;
  GPUVP_LOG(this, warning,
            "no target for " << (gp.is_write() ? "write" : "read") << " of " << gp.get_data_length() << " bytes at "
                             << to_hex(gp.get_address()) << " from " << (size_t(id) < input_names_.size() ? input_names_[id] : "?"));
  gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

// The access's spans on its target link's track: one per booked piece (one unless the transfer was
// split over free gaps), so that spans on the track never overlap; a flow arrow from the command
// that caused it ends in the middle of its transfer.
void router::trace_access(int id, const port& pout, const tlm::tlm_generic_payload& gp, const gpu_ext* ext, uint64_t start,
                          uint64_t transfer) {
  auto& tr = tracer::global();
  trace_args a{{"addr", to_hex(gp.get_address())}, {"len", gp.get_data_length()}, {"from", input_names_[id]}};
  if (ext && ext->dmi_shadow) a.emplace_back("dmi", true);
  const std::string args = tracer::args_body(a);  // once for every piece
  const char* what = gp.is_write() ? "write" : "read";
  for (const auto& [at, length] : pout.pieces)
    tr.span(pout.track, what, sc_core::sc_time::from_value(at), sc_core::sc_time::from_value(length), args);
  if (ext && ext->flow) tr.flow_in(ext->flow, pout.track, sc_core::sc_time::from_value(start + transfer / 2));
}

void router::log_transaction(int id, const window& w, const tlm::tlm_generic_payload& gp, const sc_core::sc_time& delay) {
  const gpu_ext& e = ext_of(gp);
  GPUVP_LOG(this, debug,
            input_names_[id] << " -> " << w.name << " " << (gp.is_write() ? "W" : "R") << " " << to_hex(gp.get_address()) << " len "
                             << gp.get_data_length() << " initiator " << e.initiator << " delay " << format_time(delay) << " (done at "
                             << format_time(sc_core::sc_time_stamp() + delay) << ")"
                             << " " << (gp.is_response_ok() ? "ok" : gp.get_response_string()));
}

unsigned router::transport_dbg(int id, tlm::tlm_generic_payload& gp) {
  const uint64_t addr = gp.get_address();
  const window* w = decode(addr);
  if (!w || addr - w->base + gp.get_data_length() > w->size || !bindings_complete()) return 0;
  gp.set_address(addr - w->base);
  const unsigned n = out[w->index]->transport_dbg(gp);
  gp.set_address(addr);
  return n;
}

bool router::get_direct_mem_ptr(int id, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
  const uint64_t addr = gp.get_address();
  const window* w = decode(addr);
  if (!w || !bindings_complete()) return false;
  gp.set_address(addr - w->base);
  const bool granted = out[w->index]->get_direct_mem_ptr(gp, dmi);
  gp.set_address(addr);
  if (!granted) return false;
  // Back to global addresses, clipped to the window.
  uint64_t start = dmi.get_start_address(), end = dmi.get_end_address();
  const uint64_t clip_start = std::max<uint64_t>(start, 0), clip_end = std::min<uint64_t>(end, w->size - 1);
  dmi.set_dmi_ptr(dmi.get_dmi_ptr() + (clip_start - start));
  dmi.set_start_address(w->base + clip_start);
  dmi.set_end_address(w->base + clip_end);
  const sc_core::sc_time hop = inputs_[id]->latency.get() + outputs_[w->index]->latency.get();
  dmi.set_read_latency(dmi.get_read_latency() + hop);
  dmi.set_write_latency(dmi.get_write_latency() + hop);
  return true;
}

void router::invalidate_direct_mem_ptr(int id, sc_dt::uint64 start, sc_dt::uint64 end) {
  for (const auto& w : windows_) {
    if (int(w.index) != id || start >= w.size) continue;
    const uint64_t gstart = w.base + start;
    const uint64_t gend = end >= w.size - 1 ? w.base + w.size - 1 : w.base + end;
    for (unsigned i = 0; i < unsigned(in.size()); ++i) in[i]->invalidate_direct_mem_ptr(gstart, gend);
  }
}

}  // namespace gpuvp
