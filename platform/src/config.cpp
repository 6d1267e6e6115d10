#include "gpuvp/config.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>
#include <yaml-cpp/yaml.h>

namespace gpuvp {

namespace {
std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}
std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}
// Splits "123KiB" into digits and suffix; returns the multiplier of the suffix.
uint64_t size_multiplier(const std::string& suffix) {
  static const std::pair<const char*, uint64_t> table[] = {
      {"", 1}, {"k", 1ull << 10}, {"kib", 1ull << 10}, {"m", 1ull << 20}, {"mib", 1ull << 20},
      {"g", 1ull << 30}, {"gib", 1ull << 30}, {"t", 1ull << 40}, {"tib", 1ull << 40}};
  for (auto& [name, mult] : table)
    if (lower(suffix) == name) return mult;
  throw std::invalid_argument("unknown size suffix '" + suffix + "'");
}
}  // namespace

uint64_t parse_u64(const std::string& text) {
  std::string t;
  for (char c : trim(text))
    if (c != '_') t += c;
  if (t.empty()) throw std::invalid_argument("empty number");
  size_t pos = 0;
  uint64_t v;
  int base = 10;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) base = 16;
  else if (t.size() > 2 && t[0] == '0' && (t[1] == 'b' || t[1] == 'B')) base = 2;
  if (!std::isxdigit(static_cast<unsigned char>(t[base == 10 ? 0 : 2])))
    throw std::invalid_argument("'" + text + "' is not a number");
  v = std::stoull(base == 10 ? t : t.substr(2), &pos, base);
  pos += base == 10 ? 0 : 2;
  uint64_t mult = size_multiplier(trim(t.substr(pos)));
  if (mult != 1 && v > ~uint64_t(0) / mult) throw std::out_of_range("'" + text + "' overflows 64 bits");
  return v * mult;
}

int64_t parse_i64(const std::string& text) {
  std::string t = trim(text);
  if (!t.empty() && t[0] == '-') {
    uint64_t m = parse_u64(t.substr(1));
    if (m > uint64_t(1) << 63) throw std::out_of_range("'" + text + "' is out of range");
    return -static_cast<int64_t>(m);
  }
  uint64_t v = parse_u64(t);
  if (v > uint64_t(INT64_MAX)) throw std::out_of_range("'" + text + "' is out of range");
  return static_cast<int64_t>(v);
}

sc_core::sc_time parse_time(const std::string& text) {
  std::string t = trim(text);
  size_t pos = 0;
  double v = std::stod(t, &pos);
  std::string unit = lower(trim(t.substr(pos)));
  if (v < 0 || !std::isfinite(v)) throw std::invalid_argument("negative or invalid time");
  static const std::pair<const char*, sc_core::sc_time_unit> units[] = {
      {"fs", sc_core::SC_FS}, {"ps", sc_core::SC_PS}, {"ns", sc_core::SC_NS}, {"", sc_core::SC_NS},
      {"us", sc_core::SC_US}, {"ms", sc_core::SC_MS}, {"s", sc_core::SC_SEC}};
  for (auto& [name, u] : units)
    if (unit == name) return sc_core::sc_time(v, u);
  throw std::invalid_argument("unknown time unit '" + unit + "'");
}

std::string format_time(const sc_core::sc_time& t) {
  // The largest unit in which the value is a whole number: exact and readable ("1 us", "1500 ps").
  const uint64_t ps = t.value() / sc_core::sc_time(1, sc_core::SC_PS).value();
  static const std::pair<const char*, uint64_t> units[] = {
      {"s", 1000000000000ull}, {"ms", 1000000000ull}, {"us", 1000000ull}, {"ns", 1000ull}, {"ps", 1ull}};
  if (ps == 0) return "0 ns";
  for (auto& [name, scale] : units)
    if (ps % scale == 0) return std::to_string(ps / scale) + " " + name;
  return std::to_string(ps) + " ps";
}

std::string to_hex(uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

config& config::global() {
  static config instance;
  return instance;
}

void config::reset() {
  settings_.clear();
  order_.clear();
  declared_.clear();
}

void config::set(const std::string& path, const std::string& value, const std::string& origin) {
  auto [it, inserted] = settings_.try_emplace(path);
  if (inserted) order_.push_back(path);
  it->second.value = value;
  it->second.origin = origin;
}

namespace {
void flatten(const YAML::Node& node, const std::string& prefix, const std::string& origin, config& cfg) {
  const std::string where = origin + ":" + std::to_string(node.Mark().line + 1);
  switch (node.Type()) {
    case YAML::NodeType::Map:
      for (const auto& kv : node) {
        const std::string key = kv.first.as<std::string>();
        flatten(kv.second, prefix.empty() ? key : prefix + "." + key, origin, cfg);
      }
      break;
    case YAML::NodeType::Sequence: {
      size_t i = 0;
      for (const auto& item : node) flatten(item, prefix + "." + std::to_string(i++), origin, cfg);
      break;
    }
    case YAML::NodeType::Scalar:
      if (prefix.empty()) throw config_error(where + ": expected a mapping of configuration keys");
      cfg.set(prefix, node.Scalar(), where);
      break;
    case YAML::NodeType::Null:
      if (!prefix.empty()) throw config_error(where + ": " + prefix + " has no value");
      break;
    default:
      throw config_error(where + ": unsupported YAML node");
  }
}
}  // namespace

void config::load_yaml_text(const std::string& text, const std::string& origin_name) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw config_error(origin_name + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  flatten(root, "", origin_name, *this);
}

void config::load_yaml_file(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw config_error(file + ": cannot open configuration file");
  std::stringstream ss;
  ss << in.rdbuf();
  load_yaml_text(ss.str(), file);
}

void config::apply_override(const std::string& assignment) {
  auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw config_error("--set " + assignment + ": expected path=value");
  set(trim(assignment.substr(0, eq)), trim(assignment.substr(eq + 1)), "--set " + assignment);
}

const config::setting* config::find(const std::string& path) {
  auto it = settings_.find(path);
  if (it == settings_.end()) return nullptr;
  it->second.used = true;
  return &it->second;
}

std::vector<std::string> config::children(const std::string& prefix) const {
  std::vector<std::string> out;
  const std::string p = prefix + ".";
  for (const auto& key : order_) {
    if (key.compare(0, p.size(), p) != 0) continue;
    std::string child = key.substr(p.size());
    child = child.substr(0, child.find('.'));
    if (std::find(out.begin(), out.end(), child) == out.end()) out.push_back(child);
  }
  return out;
}

void config::declare(declared d) {
  for (auto& existing : declared_)
    if (existing.path == d.path) {
      existing = std::move(d);
      return;
    }
  declared_.push_back(std::move(d));
}

namespace {
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}
}  // namespace

void config::ignore_prefix(const std::string& prefix) {
  for (auto& [key, s] : settings_)
    if (key.compare(0, prefix.size() + 1, prefix + ".") == 0) s.used = true;
}

void config::check_unused() const {
  std::string errors;
  for (const auto& key : order_) {
    const auto& s = settings_.at(key);
    if (s.used) continue;
    errors += s.origin + ": unknown configuration key '" + key + "'";
    // Suggest the declared key closest in edit distance (typos), if it is close.
    std::string hint;
    size_t best = 4;
    for (const auto& d : declared_) {
      const size_t dist = edit_distance(key, d.path);
      if (dist < best) best = dist, hint = d.path;
    }
    if (!hint.empty()) errors += " (did you mean '" + hint + "'?)";
    errors += "\n";
  }
  if (!errors.empty()) throw config_error(errors.substr(0, errors.size() - 1));
}

namespace {
// Children carry their own name: a vector<pair<string, yaml_tree>> of the incomplete type does not
// compile with clang and libstdc++ (the fuzz preset).
struct yaml_tree {
  std::string name, value, description;
  bool leaf = false;
  std::vector<yaml_tree> children;
  yaml_tree& child(const std::string& n) {
    for (auto& c : children)
      if (c.name == n) return c;
    children.push_back(yaml_tree{n, "", "", false, {}});
    return children.back();
  }
};
std::string yaml_scalar(const std::string& v) {
  if (v.empty()) return "\"\"";
  bool plain = std::all_of(v.begin(), v.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '.' || c == ' ' || c == '-' || c == '/';
  });
  if (plain && v.front() != ' ' && v.back() != ' ' && v.front() != '-') return v;
  std::string q = "\"";
  for (char c : v) q += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return q + "\"";
}
void emit(std::ostringstream& os, const yaml_tree& t, int depth, bool with_descriptions) {
  for (const auto& c : t.children) {
    os << std::string(2 * depth, ' ') << c.name << ":";
    if (c.leaf && c.children.empty()) {
      os << " " << yaml_scalar(c.value);
      if (with_descriptions && !c.description.empty()) os << "  # " << c.description;
      os << "\n";
    } else {
      os << "\n";
      emit(os, c, depth + 1, with_descriptions);
    }
  }
}
}  // namespace

std::string config::dump_yaml(bool with_descriptions) const {
  yaml_tree root;
  for (const auto& d : declared_) {
    yaml_tree* node = &root;
    std::stringstream ss(d.path);
    std::string part;
    while (std::getline(ss, part, '.')) node = &node->child(part);
    node->leaf = true;
    node->value = d.value;
    node->description = d.description;
  }
  std::ostringstream os;
  emit(os, root, 0, with_descriptions);
  return os.str();
}

namespace detail {
std::string join_path(const sc_core::sc_object* owner, const std::string& name) {
  return owner ? std::string(owner->name()) + "." + name : name;
}
bool param_traits<bool>::parse(const std::string& s) {
  const std::string v = lower(trim(s));
  if (v == "true" || v == "yes" || v == "on" || v == "1") return true;
  if (v == "false" || v == "no" || v == "off" || v == "0") return false;
  throw std::invalid_argument("not a bool");
}
std::string param_traits<bool>::show(bool v) { return v ? "true" : "false"; }
uint64_t param_traits<uint64_t>::parse(const std::string& s) { return parse_u64(s); }
// Integers are printed in decimal whatever their value, so that a dump (and a script reading it)
// sees one form; every reader accepts 0x hex and size suffixes on input.
std::string param_traits<uint64_t>::show(uint64_t v) { return std::to_string(v); }
int64_t param_traits<int64_t>::parse(const std::string& s) { return parse_i64(s); }
std::string param_traits<int64_t>::show(int64_t v) { return std::to_string(v); }
double param_traits<double>::parse(const std::string& s) {
  size_t pos = 0;
  const std::string t = trim(s);
  double v = std::stod(t, &pos);
  if (pos != t.size()) throw std::invalid_argument("trailing characters");
  return v;
}
std::string param_traits<double>::show(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}
std::string param_traits<std::string>::parse(const std::string& s) { return s; }
std::string param_traits<std::string>::show(const std::string& v) { return v; }
sc_core::sc_time param_traits<sc_core::sc_time>::parse(const std::string& s) { return parse_time(s); }
std::string param_traits<sc_core::sc_time>::show(const sc_core::sc_time& v) { return format_time(v); }
}  // namespace detail

}  // namespace gpuvp
