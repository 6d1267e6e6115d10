// SPDX-License-Identifier: Apache-2.0
#include "sweep_results.h"

#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>
#include "gpuvp/config.h"
#include "gpuvp/text.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace gpuvp::sweep {

namespace json_read {
namespace {
[[noreturn]] void bad(const std::string& file, const std::string& what, const std::string& expected) {
  throw config_error(file + ": " + what + ": expected " + expected + " (a damaged sweep folder?)");
}
}  // namespace
const json& field(const json& object, const std::string& key, const std::string& file) {
  if (!object.is_object()) bad(file, key, "an object around it");
  auto it = object.find(key);
  if (it == object.end()) throw config_error(file + ": '" + key + "' is missing (a damaged sweep folder?)");
  return *it;
}
std::string text(const json& v, const std::string& what, const std::string& file) {
  if (!v.is_string()) bad(file, what, "a string");
  return v.get<std::string>();
}
double number(const json& v, const std::string& what, const std::string& file, double lo, double hi) {
  if (!v.is_number() || !(v.get<double>() >= lo && v.get<double>() <= hi))
    bad(file, what, "a number in [" + format_number(lo) + ", " + format_number(hi) + "]");
  return v.get<double>();
}
uint64_t integer(const json& v, const std::string& what, const std::string& file, uint64_t hi) {
  if (!v.is_number_unsigned() || v.get<uint64_t>() > hi) bad(file, what, "an integer in [0, " + std::to_string(hi) + "]");
  return v.get<uint64_t>();
}
const json& array(const json& v, const std::string& what, const std::string& file, size_t most) {
  if (!v.is_array() || v.size() > most) bad(file, what, "a list of at most " + std::to_string(most) + " items");
  return v;
}
std::vector<std::string> texts(const json& v, const std::string& what, const std::string& file, size_t most) {
  std::vector<std::string> out;
  for (const auto& e : array(v, what, file, most)) out.push_back(text(e, what + "[" + std::to_string(out.size()) + "]", file));
  return out;
}
json object_file(const std::string& path, const std::string& what) {
  json j = json::parse(read_file(path), nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw config_error(path + ": not a readable " + what + " (a JSON object; a damaged sweep folder?)");
  return j;
}
}  // namespace json_read

std::string point_dir(const std::string& out, size_t i, size_t n) {
  size_t width = 4;
  for (size_t m = n ? n - 1 : 0; m >= 10000; m /= 10) ++width;
  std::string id = std::to_string(i);
  id.insert(0, width > id.size() ? width - id.size() : 0, '0');
  return (fs::path(out) / "points" / id).string();
}

std::string read_file(const std::string& path) { return read_whole_file(path).value_or(""); }

void write_file_atomic(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw config_error(tmp + ": cannot create file");
    f << text;
    f.flush();
    if (!f) throw config_error(tmp + ": write failed");
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) throw config_error(path + ": cannot rename " + tmp + ": " + ec.message());
}

std::optional<point_result> read_result(const std::string& pdir) {
  const std::string file = pdir + "/result.json";
  std::error_code ec;
  if (!fs::exists(file, ec)) return std::nullopt;
  // Written atomically by the sweep: anything else is damage, named with the way out.
  try {
    const json j = json_read::object_file(file, "point result");
    point_result r;
    r.exit_code = int(json_read::integer(json_read::field(j, "exit_code", file), "exit_code", file, 255));
    r.error = json_read::text(json_read::field(j, "error", file), "error", file);
    r.wall_s = json_read::number(json_read::field(j, "wall_s", file), "wall_s", file, 0, 1e9);
    r.host = json_read::text(json_read::field(j, "host", file), "host", file);
    return r;
  } catch (const config_error& e) {
    throw config_error(std::string(e.what()) + "; delete it to run the point again");
  }
}

void write_result(const std::string& pdir, const point_result& r) {
  const json j = {{"exit_code", r.exit_code}, {"error", r.error}, {"wall_s", r.wall_s}, {"host", r.host}};
  write_file_atomic(pdir + "/result.json", j.dump(2) + "\n");
}

namespace {
// Statistics nest a few levels; deeper (damaged) parts are left out rather than recursed into.
constexpr int max_stats_depth = 32;
void flatten(const json& j, const std::string& prefix, std::map<std::string, json>& out, int depth = 0) {
  if (j.is_object()) {
    if (depth >= max_stats_depth) return;
    for (const auto& [k, v] : j.items()) flatten(v, prefix.empty() ? k : prefix + "." + k, out, depth + 1);
  } else if (!j.is_array()) {
    out[prefix] = j;
  }
}

// flatten() straight from the parser's events, without the document in memory (parsing into a
// document is most of what the driver spends on a point's statistics). Equal to flatten() of
// the document whenever no path comes twice; a path that does (a repeated key, "a.b" beside
// "a": {"b": ...}) stops it with repeated(), for the caller to flatten the document instead,
// which settles such cases as the document does.
class flattener : public nlohmann::json_sax<json> {
 public:
  explicit flattener(std::map<std::string, json>& out) : out_(out) {}
  bool repeated() const { return repeated_; }

  bool null() override { return value(json()); }
  bool boolean(bool v) override { return value(json(v)); }
  bool number_integer(number_integer_t v) override { return value(json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return value(json(v)); }
  bool number_float(number_float_t v, const string_t&) override { return value(json(v)); }
  bool string(string_t& v) override { return value(json(v)); }
  bool binary(binary_t&) override { return true; }  // JSON text has none
  bool start_object(std::size_t) override { return open(true); }
  bool start_array(std::size_t) override { return open(false); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    if (!kept()) return true;
    path_.resize(frames_.back().length);
    if (!path_.empty()) path_ += '.';
    path_ += k;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  struct frame {
    size_t length;  // of the container's own path: its members' prefix
    bool kept;      // an object flatten() enters (not an array, not past max_stats_depth)
  };
  // Values are kept at the top level and in kept objects; path_ is then theirs.
  bool kept() const { return frames_.empty() || frames_.back().kept; }
  bool value(json v) {
    if (!kept()) return true;
    if (containers_.count(path_) || !out_.emplace(path_, std::move(v)).second) return stop();
    return true;
  }
  bool open(bool object) {
    if (frames_.empty()) {
      frames_.push_back({0, object});
      return true;
    }
    if (!kept()) {
      frames_.push_back({0, false});
      return true;
    }
    if (out_.count(path_) || !containers_.insert(path_).second) return stop();
    frames_.push_back({path_.size(), object && int(frames_.size()) < max_stats_depth});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return true;
  }
  bool stop() {
    repeated_ = true;
    return false;
  }

  std::map<std::string, json>& out_;
  std::vector<frame> frames_;
  std::string path_;
  std::set<std::string> containers_;  // paths of the objects and arrays in kept objects
  bool repeated_ = false;
};

std::vector<std::string> segments(const std::string& p) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : p) {
    if (c == '.')
      out.push_back(cur), cur.clear();
    else
      cur += c;
  }
  out.push_back(cur);
  return out;
}

}  // namespace

// Glob on one segment: * any run of characters, ? one character. Greedy with one resume point
// (the last *): a later * supersedes the earlier ones, so no backtracking beyond it and at most
// len(p) * len(s) steps, whatever the number of stars.
bool glob_match(std::string_view p, std::string_view s) {
  size_t pi = 0, si = 0, star = std::string_view::npos, resume = 0;
  while (si < s.size()) {
    if (pi < p.size() && (p[pi] == '?' || (p[pi] != '*' && p[pi] == s[si]))) {
      ++pi, ++si;
    } else if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      resume = si;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      si = ++resume;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

namespace {

bool matches(const std::vector<std::string>& pat, const std::string& path) {
  const auto segs = segments(path);
  if (segs.size() != pat.size()) return false;
  for (size_t i = 0; i < segs.size(); ++i)
    if (!glob_match(pat[i], segs[i])) return false;
  return true;
}

std::string cell(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return format_number(v.get<double>());
  return v.dump();
}
}  // namespace

std::map<std::string, json> load_stats(const std::string& path) {
  std::map<std::string, json> out;
  const std::string text = read_file(path);
  flattener events(out);
  if (json::sax_parse(text, &events)) return out;
  out.clear();  // unreadable: empty; a path twice: as the document has it
  if (!events.repeated()) return out;
  const json j = json::parse(text, nullptr, false);
  if (!j.is_discarded()) flatten(j, "", out);
  return out;
}

std::optional<std::string> metric_cell(const std::map<std::string, json>& stats, const std::string& path) {
  if (path.find_first_of("*?") == std::string::npos) {
    auto it = stats.find(path);
    if (it == stats.end()) return std::nullopt;
    return cell(it->second);
  }
  const auto pat = segments(path);
  bool any = false, ints = true;
  __int128 isum = 0;  // exact for any count of int64/uint64 statistics
  double dsum = 0;
  for (const auto& [k, v] : stats) {
    if (!v.is_number() || !matches(pat, k)) continue;
    any = true;
    if (v.is_number_unsigned())
      isum += v.get<uint64_t>();
    else if (v.is_number_integer())
      isum += v.get<int64_t>();
    else
      ints = false;
    dsum += v.get<double>();
  }
  if (!any) return std::nullopt;
  return ints ? format_decimal(isum, 0) : format_number(dsum);
}

std::string explain_failure(const std::string& pdir, int exit_code, int signal) {
  if (signal) {
    const char* name = sigabbrev_np(signal);
    return "killed by signal " + std::to_string(signal) + (name ? std::string(" (SIG") + name + ")" : std::string());
  }
  if (exit_code == 0) return "";
  // The modelled errors, as the run recorded them.
  const json j = json::parse(read_file(pdir + "/stats.json"), nullptr, false);
  if (!j.is_discarded() && j.contains("run") && j["run"].contains("errors") && !j["run"]["errors"].empty()) {
    std::string e;
    for (const auto& m : j["run"]["errors"]) e += (e.empty() ? "" : "; ") + (m.is_string() ? m.get<std::string>() : m.dump());
    return e;
  }
  // Otherwise the last error line of the log (configuration errors, crashes in the model).
  std::istringstream log(read_file(pdir + "/log"));
  std::string line, last;
  while (std::getline(log, line))
    if (line.rfind("gpuvp", 0) == 0 || line.rfind("error", 0) == 0 || line.find("Error") != std::string::npos) last = line;
  return last.empty() ? "exit code " + std::to_string(exit_code) : last;
}

std::string csv_field(const std::string& v) {
  if (v.find_first_of(",\"\n\r") == std::string::npos) return v;
  std::string q = "\"";
  for (char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

size_t write_tables(const std::string& out, const spec& s) {
  std::ostringstream res, tim;
  res << "point";
  for (const auto& p : s.parameters) res << "," << csv_field(p.key);
  for (const auto& m : s.metrics) res << "," << csv_field(m.name);
  res << ",exit_code,error\n";
  tim << "point,wall_s,host\n";
  size_t done = 0;
  for (size_t i = 0; i < s.points.size(); ++i) {
    const std::string pdir = point_dir(out, i, s.points.size());
    const auto r = read_result(pdir);
    if (!r) continue;  // not finished: no row (a resumed sweep adds it)
    ++done;
    res << i;
    for (const auto& v : s.points[i]) res << "," << csv_field(v);
    const auto stats = load_stats(pdir + "/stats.json");
    for (const auto& m : s.metrics) res << "," << csv_field(metric_cell(stats, m.path).value_or(""));
    res << "," << r->exit_code << "," << csv_field(r->error) << "\n";
    tim << i << "," << format_number(std::round(r->wall_s * 1e3) / 1e3) << "," << csv_field(r->host) << "\n";
  }
  write_file_atomic((fs::path(out) / "results.csv").string(), res.str());
  write_file_atomic((fs::path(out) / "timing.csv").string(), tim.str());
  return done;
}

}  // namespace gpuvp::sweep
