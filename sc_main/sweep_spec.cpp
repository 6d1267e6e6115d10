// SPDX-License-Identifier: Apache-2.0
#include "sweep_spec.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <yaml-cpp/yaml.h>
#include "gpuvp/config.h"
#include "sha256.h"

namespace fs = std::filesystem;

namespace gpuvp::sweep {

namespace {

// "spec.yaml:12: message" (yaml-cpp lines count from 0).
[[noreturn]] void fail(const std::string& file, const YAML::Node& n, const std::string& msg) {
  const int line = n.IsDefined() && n.Mark().line >= 0 ? n.Mark().line + 1 : 0;
  throw config_error(file + (line ? ":" + std::to_string(line) : std::string()) + ": " + msg);
}

std::string scalar(const std::string& file, const YAML::Node& n, const std::string& what) {
  if (!n.IsScalar()) fail(file, n, what + ": expected a single value");
  return n.Scalar();
}

// A number of a range: integers stay integers, anything else is a double.
struct number {
  bool integer = true;
  int64_t i = 0;
  double d = 0;
};
number parse_number(const std::string& file, const YAML::Node& n, const std::string& what) {
  const std::string t = scalar(file, n, what);
  number r;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), r.i);
  if (ec == std::errc() && p == t.data() + t.size()) {
    r.d = double(r.i);
    return r;
  }
  r.integer = false;
  auto [p2, ec2] = std::from_chars(t.data(), t.data() + t.size(), r.d);
  if (ec2 != std::errc() || p2 != t.data() + t.size() || !std::isfinite(r.d)) fail(file, n, what + ": '" + t + "' is not a number");
  return r;
}

YAML::Node child(const std::string& file, const YAML::Node& m, const char* key, const std::string& what) {
  for (const auto& kv : m)
    if (kv.first.Scalar() == key) return kv.second;
  fail(file, m, what + ": missing '" + key + "'");
}

void only_keys(const std::string& file, const YAML::Node& m, std::set<std::string> known, const std::string& what) {
  if (!m.IsMap()) fail(file, m, what + ": expected a mapping");
  for (const auto& kv : m)
    if (!known.count(kv.first.Scalar())) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      fail(file, kv.first, what + ": unknown key '" + kv.first.Scalar() + "' (known: " + list + ")");
    }
}

std::vector<std::string> values_of(const std::string& file, const std::string& key, const YAML::Node& v) {
  std::vector<std::string> out;
  const std::string what = "parameter " + key;
  if (v.IsSequence()) {
    for (const auto& e : v) out.push_back(scalar(file, e, what));
  } else if (v.IsMap() && v.size() == 1 && v.begin()->first.Scalar() == "range") {
    const YAML::Node r = v.begin()->second;
    only_keys(file, r, {"from", "to", "step"}, what + ": range");
    const number from = parse_number(file, child(file, r, "from", what), what + ": from");
    const number to = parse_number(file, child(file, r, "to", what), what + ": to");
    const number step = parse_number(file, child(file, r, "step", what), what + ": step");
    if (step.d == 0 || (to.d - from.d) / step.d < 0) fail(file, r, what + ": step must be non-zero and lead from 'from' to 'to'");
    const double n = std::floor((to.d - from.d) / step.d + 1e-9) + 1;
    if (n > double(max_values)) fail(file, r, what + ": more than " + std::to_string(max_values) + " values");
    const bool ints = from.integer && to.integer && step.integer;
    for (int64_t k = 0; k < int64_t(n); ++k)
      out.push_back(ints ? std::to_string(from.i + k * step.i) : format_number(from.d + double(k) * step.d));
  } else if (v.IsMap() && v.size() == 1 && v.begin()->first.Scalar() == "log2") {
    const YAML::Node r = v.begin()->second;
    only_keys(file, r, {"from", "to"}, what + ": log2");
    const number from = parse_number(file, child(file, r, "from", what), what + ": from");
    const number to = parse_number(file, child(file, r, "to", what), what + ": to");
    if (!from.integer || !to.integer || from.i < 1 || to.i < from.i)
      fail(file, r, what + ": log2 needs integers 1 <= from <= to");
    for (int64_t x = from.i; x <= to.i; x *= 2) {
      out.push_back(std::to_string(x));
      if (x > to.i / 2) break;
    }
  } else {
    fail(file, v, what + ": expected a list of values, {range: {from, to, step}} or {log2: {from, to}}");
  }
  if (out.empty()) fail(file, v, what + ": no values");
  if (out.size() > max_values) fail(file, v, what + ": more than " + std::to_string(max_values) + " values");
  return out;
}

// Uniform double in [0, 1) from 53 random bits: the same on every platform (unlike the
// standard distributions, whose algorithms are implementation-defined).
double unit(std::mt19937_64& rng) { return double(rng() >> 11) * 0x1.0p-53; }

// Latin hypercube over the parameters' value lists: each parameter's range is cut into n strata,
// every stratum is used once, and the strata are paired across parameters by independent
// shuffles (Fisher-Yates with the seeded generator).
std::vector<std::vector<std::string>> latin_hypercube(const std::vector<parameter>& ps, uint64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<std::string>> pts(n, std::vector<std::string>(ps.size()));
  for (size_t k = 0; k < ps.size(); ++k) {
    std::vector<uint64_t> perm(n);
    for (uint64_t i = 0; i < n; ++i) perm[i] = i;
    for (uint64_t i = n; i > 1; --i) std::swap(perm[i - 1], perm[rng() % i]);
    for (uint64_t i = 0; i < n; ++i) {
      const double u = (double(perm[i]) + unit(rng)) / double(n);
      const size_t idx = std::min(ps[k].values.size() - 1, size_t(u * double(ps[k].values.size())));
      pts[i][k] = ps[k].values[idx];
    }
  }
  return pts;
}

void flatten(const std::string& file, const YAML::Node& n, const std::string& prefix,
             std::vector<std::pair<std::string, std::string>>& out) {
  if (n.IsMap()) {
    for (const auto& kv : n) flatten(file, kv.second, prefix.empty() ? kv.first.Scalar() : prefix + "." + kv.first.Scalar(), out);
  } else {
    out.emplace_back(prefix, scalar(file, n, "set: " + prefix));
  }
}

std::string file_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

std::string format_number(double v) {
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, p);
}

spec load_spec(const std::string& file, bool (*is_workload_name)(const std::string&)) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(file);
  } catch (const YAML::BadFile&) {
    throw config_error(file + ": cannot open sweep specification");
  } catch (const YAML::Exception& e) {
    throw config_error(file + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (!root.IsMap()) throw config_error(file + ": a sweep specification is a YAML mapping");
  only_keys(file, root, {"workload", "config", "set", "parameters", "combine", "metrics"}, "sweep specification");
  const fs::path dir = fs::absolute(fs::path(file)).parent_path();
  auto relative = [&](const std::string& p) { return fs::path(p).is_absolute() ? p : (dir / p).lexically_normal().string(); };

  spec s;
  s.file = file;
  if (const YAML::Node w = root["workload"]) {
    const std::string name = scalar(file, w, "workload");
    if (is_workload_name(name)) {
      s.workload = name;
    } else {
      s.workload = relative(name);
      if (!fs::is_regular_file(s.workload)) fail(file, w, "workload '" + name + "': neither a workload name nor a file (" + s.workload + ")");
    }
  }
  if (const YAML::Node c = root["config"]) {
    std::vector<YAML::Node> items;
    if (c.IsSequence()) for (const auto& e : c) items.push_back(e);
    else items.push_back(c);
    for (const auto& e : items) {
      const std::string p = relative(scalar(file, e, "config"));
      if (!fs::is_regular_file(p)) fail(file, e, "config: no such file " + p);
      s.configs.push_back(p);
    }
  }
  if (const YAML::Node st = root["set"]) {
    if (!st.IsMap()) fail(file, st, "set: expected a mapping of path: value");
    flatten(file, st, "", s.sets);
  }
  std::set<std::string> columns = {"point", "exit_code", "error"};
  if (const YAML::Node ps = root["parameters"]) {
    if (!ps.IsMap()) fail(file, ps, "parameters: expected a mapping of path: values");
    for (const auto& kv : ps) {
      const std::string key = kv.first.Scalar();
      if (!columns.insert(key).second) fail(file, kv.first, "parameter " + key + ": duplicate column name");
      s.parameters.push_back({key, values_of(file, key, kv.second), {}});
    }
  }
  if (const YAML::Node c = root["combine"]) {
    if (c.IsScalar() && (c.Scalar() == "grid" || c.Scalar() == "zip")) {
      s.combine = c.Scalar();
    } else if (c.IsMap() && c.size() == 1 && c.begin()->first.Scalar() == "random") {
      const YAML::Node r = c.begin()->second;
      only_keys(file, r, {"points", "seed"}, "combine: random");
      const number n = parse_number(file, child(file, r, "points", "combine: random"), "combine: random: points");
      if (!n.integer || n.i < 1 || uint64_t(n.i) > max_points)
        fail(file, r, "combine: random: points must be an integer in [1, " + std::to_string(max_points) + "]");
      s.combine = "random";
      s.random_points = uint64_t(n.i);
      if (r["seed"]) {
        const number sd = parse_number(file, r["seed"], "combine: random: seed");
        if (!sd.integer || sd.i < 0) fail(file, r["seed"], "combine: random: seed must be a non-negative integer");
        s.random_seed = uint64_t(sd.i);
      }
    } else {
      fail(file, c, "combine: expected grid, zip or {random: {points: N, seed: S}}");
    }
  }
  if (const YAML::Node ms = root["metrics"]) {
    if (!ms.IsMap() || ms.size() == 0) fail(file, ms, "metrics: expected a mapping of column name: statistics path");
    for (const auto& kv : ms) {
      const std::string name = kv.first.Scalar();
      if (!columns.insert(name).second) fail(file, kv.first, "metric " + name + ": duplicate column name");
      s.metrics.push_back({name, scalar(file, kv.second, "metric " + name)});
    }
  } else {
    s.metrics.push_back({"sim_time_ps", "run.sim_time_ps"});
  }

  // Values naming files relative to the spec (compute.config_files: a.config,b.config) become
  // absolute in the points' --set, so the spec runs from any directory.
  for (auto& [k, v] : s.sets)
    if (auto r = resolve_path_value(dir.string(), v)) v = *r;
  for (auto& p : s.parameters) {
    std::set<std::string> seen;
    for (const auto& v : p.values)
      if (seen.insert(v).second)
        if (auto r = resolve_path_value(dir.string(), v)) p.paths.emplace_back(v, *r);
  }

  // Points.
  if (s.combine == "grid") {
    double total = 1;
    for (const auto& p : s.parameters) total *= double(p.values.size());
    if (total > double(max_points)) fail(file, root["parameters"], "the grid has more than " + std::to_string(max_points) + " points");
    s.points.assign(1, {});
    for (const auto& p : s.parameters) {  // the first parameter varies slowest (nested loops)
      std::vector<std::vector<std::string>> next;
      for (const auto& pt : s.points)
        for (const auto& v : p.values) {
          next.push_back(pt);
          next.back().push_back(v);
        }
      s.points = std::move(next);
    }
  } else if (s.combine == "zip") {
    const size_t n = s.parameters.empty() ? 1 : s.parameters[0].values.size();
    for (const auto& p : s.parameters)
      if (p.values.size() != n)
        fail(file, root["parameters"][p.key], "combine zip: parameter " + p.key + " has " + std::to_string(p.values.size()) +
                                                  " values, " + s.parameters[0].key + " has " + std::to_string(n));
    for (size_t i = 0; i < n; ++i) {
      s.points.emplace_back();
      for (const auto& p : s.parameters) s.points.back().push_back(p.values[i]);
    }
  } else {
    s.points = latin_hypercube(s.parameters, s.random_points, s.random_seed);
  }

  // The hash covers what decides the points' results: workload, configuration contents,
  // settings and points. Not the metrics: changing them and resuming re-tabulates the stored
  // statistics. Not comments or the spec's location.
  std::ostringstream h;
  h << "gpuvp-sweep 1\nworkload " << s.workload << "\n";
  if (!s.workload.empty() && !is_workload_name(s.workload)) h << "workload-sha256 " << sha256_hex(file_text(s.workload)) << "\n";
  for (const auto& c : s.configs) h << "config " << c << " " << sha256_hex(file_text(c)) << "\n";
  for (const auto& [k, v] : s.sets) h << "set " << k << "=" << v << "\n";
  for (const auto& p : s.parameters) {
    h << "parameter " << p.key << "\n";
    for (const auto& [v, abs] : p.paths) {  // a changed option file changes the points' results
      std::string items = abs + ",";
      for (size_t at = 0, c; (c = items.find(',', at)) != std::string::npos; at = c + 1)
        h << "file " << items.substr(at, c - at) << " " << sha256_hex(file_text(items.substr(at, c - at))) << "\n";
    }
  }
  for (const auto& pt : s.points) {
    h << "point";
    for (const auto& v : pt) h << " " << v.size() << ":" << v;
    h << "\n";
  }
  s.sha256 = sha256_hex(h.str());
  return s;
}

std::optional<std::string> resolve_path_value(const std::string& dir, const std::string& value) {
  if (value.empty() || value.size() > 4096) return std::nullopt;
  std::string out;
  const std::string items = value + ",";
  for (size_t at = 0, c; (c = items.find(',', at)) != std::string::npos; at = c + 1) {
    const std::string item = items.substr(at, c - at);
    if (item.empty()) return std::nullopt;
    const fs::path p = fs::path(item).is_absolute() ? fs::path(item) : (fs::path(dir) / item).lexically_normal();
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) return std::nullopt;
    out += (out.empty() ? "" : ",") + p.string();
  }
  return out;
}

std::vector<std::string> point_args(const spec& s, size_t i, const std::string& stats) {
  std::vector<std::string> a = {"run"};
  if (!s.workload.empty()) a.insert(a.end(), {"--workload", s.workload});
  for (const auto& c : s.configs) a.insert(a.end(), {"--config", c});
  for (const auto& [k, v] : s.sets) a.insert(a.end(), {"--set", k + "=" + v});
  for (size_t k = 0; k < s.parameters.size(); ++k) {
    std::string v = s.points[i][k];
    for (const auto& [text, abs] : s.parameters[k].paths)
      if (text == v) v = abs;
    a.insert(a.end(), {"--set", s.parameters[k].key + "=" + v});
  }
  a.insert(a.end(), {"--stats", stats});
  return a;
}

}  // namespace gpuvp::sweep
