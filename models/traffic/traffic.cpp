// SPDX-License-Identifier: Apache-2.0
#include "traffic.h"

#include <iomanip>
#include <ostream>
#include <set>
#include "gpuvp/extension.h"
#include "gpuvp/timing.h"
#include "gpuvp/trace.h"

namespace gpuvp::traffic {

traffic_generator::traffic_generator(sc_core::sc_module_name name, unsigned id) : sc_module(name), id_(id) {
  if (pattern.get() != "sequential" && pattern.get() != "strided" && pattern.get() != "random")
    throw gpuvp::config_error(pattern.path() + ": '" + pattern.get() + "' is not sequential, strided or random");
  if (size > range) throw gpuvp::config_error(size.path() + ": larger than " + range.path());
  rng_ = seed * 0x9e3779b97f4a7c15ull + id;
  SC_HAS_PROCESS(traffic_generator);
  SC_THREAD(thread);
}

uint64_t traffic_generator::next_address(uint64_t i) {
  const uint64_t slots = range / size;  // whole transactions that fit the region
  uint64_t slot;
  if (pattern.get() == "sequential") {
    slot = i % slots;
  } else if (pattern.get() == "strided") {
    slot = (i * std::max<uint64_t>(1, stride / size)) % slots;
  } else {
    rng_ ^= rng_ << 13;  // xorshift64: fast, deterministic
    rng_ ^= rng_ >> 7;
    rng_ ^= rng_ << 17;
    slot = rng_ % slots;
  }
  return base + slot * size;
}

void traffic_generator::thread() {
  gpuvp::local_time t;
  std::vector<uint8_t> buffer(size, uint8_t(id_));
  gpuvp::transaction txn;
  txn.ext.initiator = 1 + id_;
  uint64_t choice = seed + 12345 * (id_ + 1);
  const uint64_t ps = (1_ps).value();
  const double wf = write_fraction;
  // Trace: one span per batch of trace_batch transactions (issue of the first to the end of the last).
  auto& tr = gpuvp::tracer::global();
  const bool tracing = tr.enabled();
  const uint32_t track = tracing ? tr.track(name()) : 0;
  constexpr uint64_t trace_batch = 1024;
  sc_core::sc_time batch_start = sc_core::sc_time_stamp() + t.offset();
  uint64_t batch_first = 0;
  for (uint64_t i = 0; i < count; ++i) {
    choice = choice * 6364136223846793005ull + 1442695040888963407ull;  // LCG for the read/write choice
    const bool is_write = double(choice >> 11) * 0x1.0p-53 < wf;
    txn.set(is_write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, next_address(i), buffer.data(), unsigned(size));
    sc_core::sc_time& delay = t.offset();
    const sc_core::sc_time issued = delay;
    out->b_transport(txn.gp, delay);
    latency.add((delay - issued).value() / ps);
    t.update();
    if (!txn.ok()) {
      ++errors;
    } else {
      ++transactions;
      bytes += size;
    }
    if (interval.get() != sc_core::SC_ZERO_TIME) t.advance(interval);
    if (tracing && ((i + 1) % trace_batch == 0 || i + 1 == count)) {
      const sc_core::sc_time now = sc_core::sc_time_stamp() + t.offset();
      tr.span(track, "transactions", batch_start, now - batch_start, {{"first", batch_first}, {"count", i + 1 - batch_first}});
      batch_start = now;
      batch_first = i + 1;
    }
  }
  t.sync();
  finished_at_ = sc_core::sc_time_stamp();
  done_ = true;
}

double traffic_generator::bandwidth_bpns() const {
  const sc_core::sc_time end = done_ ? finished_at_ : sc_core::sc_time_stamp();
  const double ns = end.to_seconds() * 1e9;
  return ns > 0 ? double(bytes.value()) / ns : 0.0;
}

traffic::traffic(sc_core::sc_module_name name) : sc_module(name) {
  for (unsigned i = 0; i < generator_count; ++i) gens_.push_back(std::make_unique<traffic_generator>(("g" + std::to_string(i)).c_str(), i));
  // Settings of generators beyond the count (default.yaml's g2 when a sweep sets initiators=1) are
  // not errors, but only where they name a generator parameter: a misspelt key is refused anywhere.
  auto& cfg = gpuvp::config::global();
  const std::string g0 = std::string(this->name()) + ".g0.";
  std::set<std::string> generator_params;
  for (const auto& d : cfg.declarations())
    if (d.path.compare(0, g0.size(), g0) == 0) generator_params.insert(d.path.substr(g0.size()));
  for (const auto& child : cfg.children(this->name())) {
    if (child.size() < 2 || child[0] != 'g' || child.find_first_not_of("0123456789", 1) != std::string::npos ||
        (child.size() <= 4 && std::stoul(child.substr(1)) < generator_count))  // g1000+: beyond any count
      continue;
    const std::string prefix = std::string(this->name()) + "." + child;
    if (generator_params.empty()) cfg.ignore_prefix(prefix);  // no generator declared them: cannot tell
    for (const auto& leaf : cfg.children(prefix))
      if (generator_params.count(leaf)) cfg.find(prefix + "." + leaf);  // claimed, unused
  }
}

std::vector<gpuvp::component::initiator_port> traffic::initiators() {
  std::vector<initiator_port> ports;
  for (auto& g : gens_) ports.push_back({g->basename(), &g->out});
  return ports;
}

void traffic::report(std::ostream& os) {
  os << "\n";
  for (auto& g : gens_)
    os << "    " << g->basename() << ": " << g->transactions.value() << " transactions, " << std::fixed << std::setprecision(2)
       << g->bandwidth_bpns() << " B/ns, latency mean " << g->latency.mean() / 1000.0 << " ns (min " << g->latency.min() / 1000.0
       << ", max " << g->latency.max() / 1000.0 << ")\n"
       << std::defaultfloat;
}

std::vector<std::string> traffic::busy() {
  std::vector<std::string> out;
  for (auto& g : gens_)
    if (!g->done())
      out.push_back(std::string(g->basename()) + " (" + std::to_string(g->transactions.value()) + " of " + std::to_string(g->count.get()) +
                    " transactions)");
  return out;
}

std::vector<std::string> traffic::modelled_errors() {
  std::vector<std::string> errors;
  for (auto& g : gens_)
    if (g->errors.value())
      errors.push_back(std::string(g->basename()) + ": " + std::to_string(g->errors.value()) +
                       " transactions answered with an error (unmapped address?)");
  return errors;
}

}  // namespace gpuvp::traffic
