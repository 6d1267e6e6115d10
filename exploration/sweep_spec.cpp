// SPDX-License-Identifier: Apache-2.0
#include "sweep_spec.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <yaml-cpp/yaml.h>
#include "gpuvp/config.h"
#include "gpuvp/text.h"
#include "gpuvp/yaml.h"
#include "gpuvp/sha256.h"

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

YAML::Node child(const std::string& file, const YAML::Node& m, const char* key, const std::string& what);

// A range bound or step as an exact decimal: mantissa * 10^exp, with an optional unit (1.5 us).
// Ranges are computed on these in 128-bit integers, so every value is exact (no binary
// fractions, no rounding past 2^53, no overflow of int64).
struct decimal {
  __int128 mantissa = 0;
  int exp = 0;
  std::string unit;
};
constexpr int max_digits = 30;  // significant digits and |exponent| of a range's numbers

decimal parse_decimal(const std::string& file, const YAML::Node& n, const std::string& what) {
  const std::string t = scalar(file, n, what);
  auto bad = [&](const std::string& why) { fail(file, n, what + ": '" + t + "' " + why); };
  size_t i = 0;
  const bool neg = i < t.size() && t[i] == '-';
  if (neg || (i < t.size() && t[i] == '+')) ++i;
  decimal d;
  int digits = 0, frac = 0;
  bool any = false, point = false;
  for (; i < t.size() && (std::isdigit(static_cast<unsigned char>(t[i])) || (t[i] == '.' && !point)); ++i) {
    if (t[i] == '.') {
      point = true;
      continue;
    }
    any = true;
    if (d.mantissa == 0 && t[i] == '0') {
      if (point) ++frac;
      continue;
    }
    if (++digits > max_digits) bad("has more than " + std::to_string(max_digits) + " significant digits");
    d.mantissa = d.mantissa * 10 + (t[i] - '0');
    if (point) ++frac;
  }
  if (!any) bad("is not a number");
  long e = 0;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    size_t j = i + 1;
    const bool eneg = j < t.size() && t[j] == '-';
    if (eneg || (j < t.size() && t[j] == '+')) ++j;
    if (j >= t.size() || !std::isdigit(static_cast<unsigned char>(t[j]))) bad("is not a number");
    for (; j < t.size() && std::isdigit(static_cast<unsigned char>(t[j])); ++j)
      if ((e = e * 10 + (t[j] - '0')) > max_digits) bad("has an exponent beyond +-" + std::to_string(max_digits));
    e = eneg ? -e : e;
    i = j;
  }
  while (i < t.size() && t[i] == ' ') ++i;
  d.unit = t.substr(i);
  if (!std::all_of(d.unit.begin(), d.unit.end(), [](unsigned char c) { return std::isalpha(c); })) bad("is not a number");
  d.exp = int(e) - frac;
  if (d.exp < -2 * max_digits) bad("is too small");
  if (neg) d.mantissa = -d.mantissa;
  return d;
}

__int128 pow10(int k) {
  __int128 r = 1;
  while (k-- > 0) r *= 10;
  return r;
}

// {range: {from, to, step}}: from, from + step, ... while within `to` (inclusive).
std::vector<std::string> range_values(const std::string& file, const YAML::Node& r, const std::string& what) {
  decimal v[3] = {parse_decimal(file, child(file, r, "from", what), what + ": from"),
                  parse_decimal(file, child(file, r, "to", what), what + ": to"),
                  parse_decimal(file, child(file, r, "step", what), what + ": step")};
  if (v[1].unit != v[0].unit || v[2].unit != v[0].unit)
    fail(file, r, what + ": from, to and step need the same unit ('" + v[0].unit + "', '" + v[1].unit + "', '" + v[2].unit + "')");
  // One exponent for all three: |mantissa| < 10^30, shifted by at most 10^7, stays below 2^123.
  const int e = std::min({v[0].exp, v[1].exp, v[2].exp});
  __int128 m[3];
  for (int k = 0; k < 3; ++k) {
    const int shift = v[k].exp - e;
    if (shift > 7) fail(file, r, what + ": from, to and step differ too much in scale (more than 7 decimal places apart)");
    m[k] = v[k].mantissa * pow10(shift);
  }
  const __int128 span = m[1] - m[0], step = m[2];
  if (step == 0 || (span != 0 && (span < 0) != (step < 0))) fail(file, r, what + ": step must be non-zero and lead from 'from' to 'to'");
  const __int128 n = span / step + 1;
  if (n > __int128(max_values)) fail(file, r, what + ": more than " + std::to_string(max_values) + " values");
  std::vector<std::string> out;
  for (__int128 k = 0; k < n; ++k) out.push_back(format_decimal(m[0] + k * step, e) + (v[0].unit.empty() ? "" : " " + v[0].unit));
  return out;
}

// log2 bounds: integers.
int64_t parse_integer(const std::string& file, const YAML::Node& n, const std::string& what) {
  const std::string t = scalar(file, n, what);
  int64_t v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size()) fail(file, n, what + ": '" + t + "' is not an integer");
  return v;
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
    out = range_values(file, r, what);
  } else if (v.IsMap() && v.size() == 1 && v.begin()->first.Scalar() == "log2") {
    const YAML::Node r = v.begin()->second;
    only_keys(file, r, {"from", "to"}, what + ": log2");
    const int64_t from = parse_integer(file, child(file, r, "from", what), what + ": from");
    const int64_t to = parse_integer(file, child(file, r, "to", what), what + ": to");
    if (from < 1 || to < from) fail(file, r, what + ": log2 needs integers 1 <= from <= to");
    for (int64_t x = from; x <= to; x *= 2) {
      out.push_back(std::to_string(x));
      if (x > to / 2) break;
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
    const std::string v = scalar(file, n, "set: " + prefix);
    for (const auto& [k, old] : out)
      if (k == prefix) fail(file, n, "set: " + prefix + " is given twice");
    out.emplace_back(prefix, v);
  }
}

std::string file_text(const std::string& path) { return read_whole_file(path).value_or(""); }

}  // namespace

std::string format_decimal(__int128 m, int exp) {
  const bool neg = m < 0;
  std::string digits;
  for (unsigned __int128 u = neg ? -(unsigned __int128)m : (unsigned __int128)m; u || digits.empty(); u /= 10)
    digits.insert(digits.begin(), char('0' + int(u % 10)));
  if (exp >= 0) {
    if (digits != "0") digits.append(size_t(exp), '0');
  } else {
    const size_t f = size_t(-exp);
    if (digits.size() <= f) digits.insert(0, f - digits.size() + 1, '0');
    digits.insert(digits.size() - f, ".");
    while (digits.back() == '0') digits.pop_back();
    if (digits.back() == '.') digits.pop_back();
  }
  return (neg && digits != "0" ? "-" : "") + digits;
}

std::string format_number(double v) {
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, p);
}

namespace {

// A path in the spec, taken relative to the spec's folder.
std::string relative_to(const fs::path& dir, const std::string& p) {
  return fs::path(p).is_absolute() ? p : (dir / p).lexically_normal().string();
}

// workload: a workload name, or a file relative to the spec.
std::string read_workload(const std::string& file, const YAML::Node& w, const fs::path& dir, bool (*is_workload_name)(const std::string&)) {
  const std::string name = scalar(file, w, "workload");
  if (is_workload_name(name)) return name;
  const std::string path = relative_to(dir, name);
  if (!fs::is_regular_file(path)) fail(file, w, "workload '" + name + "': neither a workload name nor a file (" + path + ")");
  return path;
}

// config: one file or a list, relative to the spec.
void read_configs(const std::string& file, const YAML::Node& c, const fs::path& dir, spec& s) {
  std::vector<YAML::Node> items;
  if (c.IsSequence())
    for (const auto& e : c) items.push_back(e);
  else
    items.push_back(c);
  for (const auto& e : items) {
    const std::string p = relative_to(dir, scalar(file, e, "config"));
    if (!fs::is_regular_file(p)) fail(file, e, "config: no such file " + p);
    s.configs.push_back(p);
  }
}

// parameters: path: values; each key is a column of the results (`columns`: those taken).
void read_parameters(const std::string& file, const YAML::Node& ps, spec& s, std::set<std::string>& columns) {
  if (!ps.IsMap()) fail(file, ps, "parameters: expected a mapping of path: values");
  for (const auto& kv : ps) {
    const std::string key = kv.first.Scalar();
    if (!columns.insert(key).second) fail(file, kv.first, "parameter " + key + ": duplicate column name");
    s.parameters.push_back({key, values_of(file, key, kv.second), {}});
  }
}

// combine: grid, zip or {random: {points: N, seed: S}}.
void read_combine(const std::string& file, const YAML::Node& c, spec& s) {
  if (c.IsScalar() && (c.Scalar() == "grid" || c.Scalar() == "zip")) {
    s.combine = c.Scalar();
  } else if (c.IsMap() && c.size() == 1 && c.begin()->first.Scalar() == "random") {
    const YAML::Node r = c.begin()->second;
    only_keys(file, r, {"points", "seed"}, "combine: random");
    const YAML::Node pn = child(file, r, "points", "combine: random");
    const int64_t n = parse_integer(file, pn, "combine: random: points");
    if (n < 1 || uint64_t(n) > max_points)
      fail(file, pn, "combine: random: points must be an integer in [1, " + std::to_string(max_points) + "]");
    s.combine = "random";
    s.random_points = uint64_t(n);
    if (r["seed"]) {
      const int64_t sd = parse_integer(file, r["seed"], "combine: random: seed");
      if (sd < 0) fail(file, r["seed"], "combine: random: seed must be a non-negative integer");
      s.random_seed = uint64_t(sd);
    }
  } else {
    fail(file, c, "combine: expected grid, zip or {random: {points: N, seed: S}}");
  }
}

// metrics: column name: statistics path.
void read_metrics(const std::string& file, const YAML::Node& ms, spec& s, std::set<std::string>& columns) {
  if (!ms.IsMap() || ms.size() == 0) fail(file, ms, "metrics: expected a mapping of column name: statistics path");
  for (const auto& kv : ms) {
    const std::string name = kv.first.Scalar();
    if (!columns.insert(name).second) fail(file, kv.first, "metric " + name + ": duplicate column name");
    const std::string path = scalar(file, kv.second, "metric " + name);
    if (path.empty() || path.size() > max_metric_path)
      fail(file, kv.second, "metric " + name + ": a statistics path of 1 to " + std::to_string(max_metric_path) + " characters");
    s.metrics.push_back({name, path});
  }
}

// Values naming files relative to the spec (compute.config_files: a.config,b.config) become
// absolute in the points' --set, so the spec runs from any directory.
void resolve_paths(spec& s, const fs::path& dir) {
  for (auto& [k, v] : s.sets)
    if (auto r = resolve_path_value(dir.string(), v)) v = *r;
  for (auto& p : s.parameters) {
    std::set<std::string> seen;
    for (const auto& v : p.values)
      if (seen.insert(v).second)
        if (auto r = resolve_path_value(dir.string(), v)) p.paths.emplace_back(v, *r);
  }
}

// The points of combine: grid, zip or random.
void make_points(const std::string& file, YAML::Node root, spec& s) {
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
        fail(file, root["parameters"][p.key],
             "combine zip: parameter " + p.key + " has " + std::to_string(p.values.size()) + " values, " + s.parameters[0].key + " has " +
                 std::to_string(n));
    for (size_t i = 0; i < n; ++i) {
      s.points.emplace_back();
      for (const auto& p : s.parameters) s.points.back().push_back(p.values[i]);
    }
  } else {
    s.points = latin_hypercube(s.parameters, s.random_points, s.random_seed);
  }
}

// The hash covers what decides the points' results: workload, configuration contents,
// settings and points. Not the metrics: changing them and resuming re-tabulates the stored
// statistics. Not comments or the spec's location.
std::string spec_sha256(const spec& s, bool (*is_workload_name)(const std::string&)) {
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
  return sha256_hex(h.str());
}

}  // namespace

spec load_spec(const std::string& file, bool (*is_workload_name)(const std::string&)) {
  check_input_file(file, "sweep specification");
  YAML::Node root = load_yaml(file_text(file), file, "sweep specification");
  if (!root.IsMap()) throw config_error(file + ": a sweep specification is a YAML mapping");
  only_keys(file, root, {"workload", "config", "set", "parameters", "combine", "metrics"}, "sweep specification");
  const fs::path dir = fs::absolute(fs::path(file)).parent_path();

  spec s;
  s.file = file;
  if (const YAML::Node w = root["workload"]) s.workload = read_workload(file, w, dir, is_workload_name);
  if (const YAML::Node c = root["config"]) read_configs(file, c, dir, s);
  if (const YAML::Node st = root["set"]) {
    if (!st.IsMap()) fail(file, st, "set: expected a mapping of path: value");
    flatten(file, st, "", s.sets);
  }
  std::set<std::string> columns = {"point", "exit_code", "error"};
  if (const YAML::Node ps = root["parameters"]) read_parameters(file, ps, s, columns);
  if (const YAML::Node c = root["combine"]) read_combine(file, c, s);
  if (const YAML::Node ms = root["metrics"])
    read_metrics(file, ms, s, columns);
  else
    s.metrics.push_back({"sim_time_ps", "run.sim_time_ps"});
  resolve_paths(s, dir);
  make_points(file, root, s);
  s.sha256 = spec_sha256(s, is_workload_name);
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

std::vector<std::string> config_args(const spec& s, const std::vector<std::string>& values) {
  std::vector<std::string> a;
  if (!s.workload.empty()) a.insert(a.end(), {"--workload", s.workload});
  for (const auto& c : s.configs) a.insert(a.end(), {"--config", c});
  for (const auto& [k, v] : s.sets) a.insert(a.end(), {"--set", k + "=" + v});
  for (size_t k = 0; k < s.parameters.size() && k < values.size(); ++k) {
    std::string v = values[k];
    for (const auto& [text, abs] : s.parameters[k].paths)
      if (text == v) v = abs;
    a.insert(a.end(), {"--set", s.parameters[k].key + "=" + v});
  }
  return a;
}

std::vector<std::string> point_args(const spec& s, size_t i, const std::string& stats) {
  std::vector<std::string> a = {"run"};
  const auto c = config_args(s, s.points[i]);
  a.insert(a.end(), c.begin(), c.end());
  a.insert(a.end(), {"--stats", stats});
  return a;
}

}  // namespace gpuvp::sweep
