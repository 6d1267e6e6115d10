// SPDX-License-Identifier: Apache-2.0
#include "gpuvp/stats.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <nlohmann/json.hpp>
#include "gpuvp/config.h"

namespace gpuvp {

namespace {
std::string path_of(const sc_core::sc_object* owner, const std::string& name) { return detail::join_path(owner, name); }
}  // namespace

counter::counter(const sc_core::sc_object* owner, const std::string& name, const std::string& description)
    : counter(path_of(owner, name), description) {}
counter::counter(std::string path, const std::string& description) {
  stats_registry::global().add({std::move(path), description, this, nullptr, nullptr});
}
counter::~counter() { stats_registry::global().remove(this); }

histogram::histogram(const sc_core::sc_object* owner, const std::string& name, const std::string& description, std::string unit)
    : histogram(path_of(owner, name), description, std::move(unit)) {}
histogram::histogram(std::string path, const std::string& description, std::string unit) : unit_(std::move(unit)) {
  stats_registry::global().add({std::move(path), description, nullptr, this, nullptr});
}
histogram::~histogram() { stats_registry::global().remove(this); }

gauge::gauge(const sc_core::sc_object* owner, const std::string& name, const std::string& description, std::function<double()> fn)
    : gauge(path_of(owner, name), description, std::move(fn)) {}
gauge::gauge(std::string path, const std::string& description, std::function<double()> fn) : fn_(std::move(fn)) {
  stats_registry::global().add({std::move(path), description, nullptr, nullptr, this});
}
gauge::~gauge() { stats_registry::global().remove(this); }

stats_registry& stats_registry::global() {
  static stats_registry instance;
  return instance;
}

void stats_registry::add(entry e) { entries_.push_back(std::move(e)); }

void stats_registry::remove(const void* stat) {
  std::erase_if(entries_, [stat](const entry& e) {
    return e.c == stat || static_cast<const void*>(e.h) == stat || static_cast<const void*>(e.g) == stat;
  });
}

std::vector<stats_registry::entry> stats_registry::list(const std::string& prefix) const {
  std::vector<entry> out;
  for (const auto& e : entries_)
    if (e.path.compare(0, prefix.size(), prefix) == 0) out.push_back(e);
  std::stable_sort(out.begin(), out.end(), [](const entry& a, const entry& b) { return a.path < b.path; });
  return out;
}

namespace {
// Gauges may be NaN or infinite (0/0 before anything ran): JSON has no such numbers.
nlohmann::json number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }
}  // namespace

std::string stats_registry::to_json(const std::string& prefix) const {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& e : list(prefix)) {
    if (e.c) {
      j[e.path] = e.c->value();
    } else if (e.g) {
      j[e.path] = number(e.g->value());
    } else {
      const histogram& h = *e.h;
      nlohmann::ordered_json hj;
      hj["count"] = h.count();
      hj["sum"] = h.sum();
      hj["min"] = h.min();
      hj["max"] = h.max();
      hj["mean"] = h.mean();
      if (!h.unit().empty()) hj["unit"] = h.unit();
      // Buckets as [lower bound, count] for non-empty buckets only.
      nlohmann::ordered_json bins = nlohmann::ordered_json::array();
      for (unsigned b = 0; b < histogram::buckets; ++b)
        if (h.bins()[b]) bins.push_back({b == 0 ? 0 : uint64_t(1) << (b - 1), h.bins()[b]});
      hj["buckets"] = bins;
      j[e.path] = hj;
    }
  }
  return j.dump(2) + "\n";
}

std::string stats_registry::to_text(const std::string& prefix) const {
  std::ostringstream os;
  for (const auto& e : list(prefix)) {
    os << e.path << " = ";
    if (e.c) {
      os << e.c->value();
    } else if (e.g) {
      os << e.g->value();
    } else {
      const histogram& h = *e.h;
      os << "count " << h.count() << " mean " << h.mean() << " min " << h.min() << " max " << h.max();
      if (!h.unit().empty()) os << " " << h.unit();
    }
    os << "\n";
  }
  return os.str();
}

double stats_registry::value(const std::string& path) const {
  for (const auto& e : entries_)
    if (e.path == path) {
      if (e.c) return double(e.c->value());
      if (e.g) return e.g->value();
      return double(e.h->count());
    }
  return std::nan("");
}

}  // namespace gpuvp
