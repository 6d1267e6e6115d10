// SPDX-License-Identifier: Apache-2.0
#include "sweep_results.h"

#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include "gpuvp/config.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace gpuvp::sweep {

std::string point_dir(const std::string& out, size_t i, size_t n) {
  size_t width = 4;
  for (size_t m = n ? n - 1 : 0; m >= 10000; m /= 10) ++width;
  std::string id = std::to_string(i);
  id.insert(0, width > id.size() ? width - id.size() : 0, '0');
  return (fs::path(out) / "points" / id).string();
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

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
  const std::string text = read_file(pdir + "/result.json");
  if (text.empty()) return std::nullopt;
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("exit_code")) return std::nullopt;
  point_result r;
  r.exit_code = j.value("exit_code", 0);
  r.error = j.value("error", "");
  r.wall_s = j.value("wall_s", 0.0);
  r.host = j.value("host", "");
  return r;
}

void write_result(const std::string& pdir, const point_result& r) {
  const json j = {{"exit_code", r.exit_code}, {"error", r.error}, {"wall_s", r.wall_s}, {"host", r.host}};
  write_file_atomic(pdir + "/result.json", j.dump(2) + "\n");
}

namespace {
void flatten(const json& j, const std::string& prefix, std::map<std::string, json>& out) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) flatten(v, prefix.empty() ? k : prefix + "." + k, out);
  } else if (!j.is_array()) {
    out[prefix] = j;
  }
}

std::vector<std::string> segments(const std::string& p) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : p) {
    if (c == '.') out.push_back(cur), cur.clear();
    else cur += c;
  }
  out.push_back(cur);
  return out;
}

// Glob on one segment: * any run of characters, ? one character.
bool glob(const char* p, const char* s) {
  if (!*p) return !*s;
  if (*p == '*') return glob(p + 1, s) || (*s && glob(p, s + 1));
  return *s && (*p == '?' || *p == *s) && glob(p + 1, s + 1);
}

bool matches(const std::vector<std::string>& pat, const std::string& path) {
  const auto segs = segments(path);
  if (segs.size() != pat.size()) return false;
  for (size_t i = 0; i < segs.size(); ++i)
    if (!glob(pat[i].c_str(), segs[i].c_str())) return false;
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
  const json j = json::parse(read_file(path), nullptr, false);
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
  uint64_t isum = 0;
  double dsum = 0;
  for (const auto& [k, v] : stats) {
    if (!v.is_number() || !matches(pat, k)) continue;
    any = true;
    if (v.is_number_unsigned() || v.is_number_integer()) isum += v.get<uint64_t>();
    else ints = false;
    dsum += v.get<double>();
  }
  if (!any) return std::nullopt;
  return ints ? std::to_string(isum) : format_number(dsum);
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
    for (const auto& m : j["run"]["errors"]) e += (e.empty() ? "" : "; ") + m.get<std::string>();
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
