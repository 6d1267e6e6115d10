// SPDX-License-Identifier: Apache-2.0
#include "gpuvp/config.h"
#include "gpuvp/number.h"
#include "gpuvp/suggest.h"
#include "gpuvp/text.h"
#include "gpuvp/timing.h"
#include "gpuvp/yaml.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <yaml-cpp/eventhandler.h>
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
}  // namespace

// parse_number, whose "not a number" message here also lists the size suffixes (configuration
// values and qtest operands are often byte counts).
uint64_t parse_u64(const std::string& text) {
  try {
    return parse_number(text);
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    if (what.find("suffix") == std::string::npos) throw;
    throw std::invalid_argument(what.substr(0, what.size() - 1) + "; sizes take k/KiB, M/MiB, G/GiB or T/TiB: 4KiB, 1 MiB)");
  }
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

double parse_double(const std::string& text) {
  const std::string t = trim(text);
  char* end = nullptr;
  errno = 0;
  const double v = t.empty() ? 0.0 : std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size()) throw std::invalid_argument("'" + text + "' is not a number");
  if (errno == ERANGE || !std::isfinite(v)) throw std::out_of_range("'" + text + "' is out of range");
  return v;
}

sc_core::sc_time max_time() { return 3600_s; }

sc_core::sc_time parse_time(const std::string& text) {
  const std::string t = trim(text);
  // A plain decimal number (an exponent allowed), no sign, hex, inf or nan, then the unit.
  char* end = nullptr;
  const bool starts = !t.empty() && (std::isdigit(static_cast<unsigned char>(t[0])) || t[0] == '.');
  const double v = starts ? std::strtod(t.c_str(), &end) : 0.0;
  const size_t pos = starts ? size_t(end - t.c_str()) : 0;
  if (pos == 0 || t.find_first_of("xXnN") < pos || !std::isfinite(v))
    throw std::invalid_argument("'" + text + "' is not a time (a number and a unit: 10 ns, 1.5 us; units fs, ps, ns, us, ms, s)");
  const std::string unit = lower(trim(t.substr(pos)));
  static const struct {
    const char* name;
    double scale;
    sc_core::sc_time_unit unit;
  } units[] = {{"fs", 1e-15, sc_core::SC_FS}, {"ps", 1e-12, sc_core::SC_PS}, {"ns", 1e-9, sc_core::SC_NS}, {"", 1e-9, sc_core::SC_NS},
               {"us", 1e-6, sc_core::SC_US},  {"ms", 1e-3, sc_core::SC_MS},  {"s", 1.0, sc_core::SC_SEC}};
  for (const auto& [name, scale, sc_unit] : units) {
    if (unit != name) continue;
    // Compare in seconds before building the sc_time: it would clamp or wrap a huge value.
    const double seconds = v * scale;
    if (seconds > max_time().to_seconds())
      throw std::out_of_range("'" + text + "' is longer than gpuvp's largest time, " + format_time(max_time()));
    const sc_core::sc_time r(v, sc_unit);
    if (v > 0 && r == sc_core::SC_ZERO_TIME)
      throw std::out_of_range("'" + text + "' is below the time resolution, " + format_time(sc_core::sc_get_time_resolution()));
    // sc_time rounds to the resolution: 0.5 ps would silently become 1 ps. Refuse what does not
    // land on a step (relative tolerance: a double's decimal 1.1 ns is 1100.0000000000002 ps).
    const double steps = seconds / sc_core::sc_get_time_resolution().to_seconds();
    if (std::fabs(steps - std::round(steps)) > std::max(1e-6, steps * 1e-12))
      throw std::out_of_range("'" + text + "' is not a whole number of the time resolution, " +
                              format_time(sc_core::sc_get_time_resolution()));
    return r;
  }
  throw std::invalid_argument("'" + text + "': unknown time unit '" + unit + "' (fs, ps, ns, us, ms, s)");
}

void check_input_file(const std::string& path, const std::string& what) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (path.empty()) throw config_error("empty file name given for the " + what);
  if (!std::filesystem::exists(st)) throw config_error(path + ": no such " + what);
  if (std::filesystem::is_directory(st)) throw config_error(path + ": is a directory, expected a " + what);
  if (!std::filesystem::is_regular_file(st) && !std::filesystem::is_character_file(st) && !std::filesystem::is_fifo(st))
    throw config_error(path + ": is not a regular file, expected a " + what);
  if (!std::ifstream(path)) throw config_error(path + ": cannot read the " + what);
}

void check_output_file(const std::string& path, const std::string& what) {
  if (path.empty()) throw config_error("empty file name given for the " + what);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw config_error(path + ": is a directory, cannot write the " + what);
  // Opening for append creates the file (and proves the directory is writable) without
  // truncating a file that an earlier run left, in case this run stops before writing.
  const bool existed = std::filesystem::exists(path, ec);
  if (!std::ofstream(path, std::ios::app)) throw config_error(path + ": cannot create the " + what);
  if (!existed) std::filesystem::remove(path, ec);
}

std::string format_time(const sc_core::sc_time& t) {
  // The largest unit in which the value is a whole number: exact and readable ("1 us", "1500 ps").
  const uint64_t ps = t.value() / (1_ps).value();
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
  lists_.clear();
}

namespace {
bool is_index(const std::string& s) { return !s.empty() && s.size() <= 9 && s.find_first_not_of("0123456789") == std::string::npos; }
}  // namespace

void config::erase_list(const std::string& path) {
  const std::string p = path + ".";
  std::erase_if(order_, [&](const std::string& key) {
    const bool item = key.compare(0, p.size(), p) == 0 && is_index(key.substr(p.size()));
    if (item) settings_.erase(key);
    return item;
  });
}

void config::set(const std::string& path, const std::string& value, const std::string& origin) {
  // The later source wins, as for any key: a value replaces a list given earlier as a sequence
  // (path.0, path.1, ...), and a sequence's items replace a value given earlier.
  erase_list(path);
  if (const auto dot = path.rfind('.'); dot != std::string::npos && is_index(path.substr(dot + 1)))
    if (settings_.erase(path.substr(0, dot))) std::erase(order_, path.substr(0, dot));
  auto [it, inserted] = settings_.try_emplace(path);
  if (inserted) order_.push_back(path);
  it->second.value = value;
  it->second.origin = origin;
}

namespace {
// Bounds on a configuration file after alias expansion: a YAML alias is a reference, so a few
// lines of nested aliases can stand for billions of nodes ("billion laughs").
constexpr size_t yaml_max_depth = 64;
constexpr size_t yaml_max_nodes = 100000;

// Walks the parser's events before the document is built: rejects an alias inside the node its
// anchor names (a cycle), bounds nesting depth and node count as the aliases would expand them,
// rejects a key given twice in one mapping and a second document. Each error names file:line.
class yaml_guard : public YAML::EventHandler {
 public:
  yaml_guard(std::string origin, std::string what) : origin_(std::move(origin)), what_(std::move(what)) {}
  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ > 1) fail(mark, "a second YAML document ('---' or content after '...'); a " + what_ + " holds one mapping");
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor, nullptr); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string& value) override {
    if (anchor != YAML::NullAnchor) scalars_[anchor] = value;
    leaf(mark, anchor, &value);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    for (const auto& f : open_)
      if (f.anchor == anchor && anchor != YAML::NullAnchor) fail(mark, "alias refers to a node that contains it (recursive alias)");
    auto s = scalars_.find(anchor);
    item(mark, s == scalars_.end() ? nullptr : &s->second);
    auto it = anchors_.find(anchor);
    const expansion e = it == anchors_.end() ? expansion{1, 0} : it->second;
    add(mark, e.nodes, open_.size() + e.depth);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(mark, anchor, false);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(mark, anchor, true);
  }
  void OnMapEnd() override { close(); }

 private:
  struct expansion {
    size_t nodes, depth;
  };  // nodes in the subtree, levels below its root
  struct frame {
    YAML::anchor_t anchor;
    size_t nodes, depth;
    YAML::Mark mark;
    bool map = false;
    size_t items = 0;                 // children so far (a mapping's keys are the even ones)
    std::map<std::string, int> keys;  // a mapping's scalar keys -> line
  };
  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& what) const {
    throw config_error(origin_ + ":" + std::to_string(mark.line + 1) + ": " + what);
  }
  // One more child of the open node; a mapping's key (scalar text when known) must be new.
  void item(const YAML::Mark& mark, const std::string* text) {
    if (open_.empty()) return;
    frame& f = open_.back();
    if (f.map && f.items % 2 == 0 && text) {
      auto [it, fresh] = f.keys.try_emplace(*text, mark.line + 1);
      if (!fresh) fail(mark, "duplicate key '" + *text + "' (first given on line " + std::to_string(it->second) + ")");
    }
    ++f.items;
  }
  // A subtree of `nodes` nodes whose deepest node lies at absolute depth `depth`.
  void add(const YAML::Mark& mark, size_t nodes, size_t depth) {
    total_ += nodes;
    if (total_ > yaml_max_nodes) fail(mark, "more than " + std::to_string(yaml_max_nodes) + " nodes once aliases are expanded");
    if (depth > yaml_max_depth) fail(mark, "nested deeper than " + std::to_string(yaml_max_depth) + " levels");
    if (!open_.empty()) {
      open_.back().nodes += nodes;
      open_.back().depth = std::max(open_.back().depth, depth);
    }
  }
  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor, const std::string* text) {
    if (anchor != YAML::NullAnchor) anchors_[anchor] = {1, 0};
    item(mark, text);
    add(mark, 1, open_.size());
  }
  void open(const YAML::Mark& mark, YAML::anchor_t anchor, bool map) {
    if (open_.size() + 1 > yaml_max_depth) fail(mark, "nested deeper than " + std::to_string(yaml_max_depth) + " levels");
    open_.push_back({anchor, 0, open_.size(), mark, map, 0, {}});
  }
  void close() {
    const size_t nodes = open_.back().nodes, depth = open_.back().depth;
    const YAML::anchor_t anchor = open_.back().anchor;
    const YAML::Mark mark = open_.back().mark;
    open_.pop_back();
    if (anchor != YAML::NullAnchor) anchors_[anchor] = {nodes + 1, depth - open_.size()};
    item(mark, nullptr);
    total_ -= nodes;  // add() counts them again as part of this node
    add(mark, nodes + 1, depth);
  }
  std::string origin_, what_;
  int documents_ = 0;
  size_t total_ = 0;
  std::vector<frame> open_;
  std::map<YAML::anchor_t, expansion> anchors_;
  std::map<YAML::anchor_t, std::string> scalars_;  // anchors of scalars (an alias used as a key)
};

// A path given twice in one file (`a.b: 1` beside `a: {b: 2}`) is refused like a duplicate key.
void flatten(const YAML::Node& node, const std::string& prefix, const std::string& origin, config& cfg,
             std::map<std::string, std::string>& seen, size_t depth = 0) {
  const std::string where = origin + ":" + std::to_string(node.Mark().line + 1);
  if (depth > yaml_max_depth) throw config_error(where + ": nested deeper than " + std::to_string(yaml_max_depth) + " levels");
  switch (node.Type()) {
    case YAML::NodeType::Map:
      for (const auto& kv : node) {
        if (!kv.first.IsScalar())
          throw config_error(origin + ":" + std::to_string(kv.first.Mark().line + 1) + ": a key must be a plain name");
        const std::string key = kv.first.Scalar();
        flatten(kv.second, prefix.empty() ? key : prefix + "." + key, origin, cfg, seen, depth + 1);
      }
      break;
    case YAML::NodeType::Sequence: {
      cfg.erase_list(prefix);                     // a sequence replaces a longer one given earlier, item for item
      if (node.size() == 0 && !prefix.empty()) {  // [] has no items to carry it: an explicit empty list
        cfg.set(prefix, "[]", where);
        break;
      }
      size_t i = 0;
      for (const auto& item : node) flatten(item, prefix + "." + std::to_string(i++), origin, cfg, seen, depth + 1);
      break;
    }
    case YAML::NodeType::Scalar:
      if (prefix.empty()) throw config_error(where + ": expected a mapping of configuration keys");
      if (auto [it, fresh] = seen.try_emplace(prefix, where); !fresh)
        throw config_error(where + ": " + prefix + " is given twice in this file (also at " + it->second + ")");
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

YAML::Node load_yaml(const std::string& text, const std::string& origin, const std::string& what) {
  // Directives (%YAML, %TAG) only make sense before further documents; gpuvp reads one plain one.
  {
    std::istringstream lines(text);
    std::string line;
    for (size_t n = 1; std::getline(lines, line); ++n)
      if (!line.empty() && line[0] == '%')
        throw config_error(origin + ":" + std::to_string(n) + ": YAML directive '" + trim(line) + "' is not supported (a " + what +
                           " is one plain mapping)");
  }
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    yaml_guard guard(origin, what);
    while (parser.HandleNextDocument(guard)) {}
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw config_error(origin + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

void config::load_yaml_text(const std::string& text, const std::string& origin_name) {
  std::map<std::string, std::string> seen;
  flatten(load_yaml(text, origin_name, "configuration file"), "", origin_name, *this, seen);
}

void config::load_yaml_file(const std::string& file) {
  check_input_file(file, "configuration file");
  const auto text = read_whole_file(file);
  if (!text) throw config_error(file + ": cannot open configuration file");
  load_yaml_text(*text, file);
}

void config::apply_override(const std::string& assignment) {
  auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) throw config_error("--set " + assignment + ": expected path=value");
  set(trim(assignment.substr(0, eq)), trim(assignment.substr(eq + 1)), "--set " + assignment);
}

const config::setting* config::find(const std::string& path) {
  auto it = settings_.find(path);
  if (it == settings_.end()) return nullptr;
  it->second.used = true;
  return &it->second;
}

const config::setting* config::find_list(const std::string& path) {
  std::map<uint64_t, setting*> items;  // index -> item, in index order
  const std::string p = path + ".";
  for (auto& [key, s] : settings_) {
    if (key.compare(0, p.size(), p) != 0) continue;
    const std::string index = key.substr(p.size());
    if (is_index(index)) items[std::stoull(index)] = &s;
  }
  if (items.empty()) return nullptr;
  std::vector<std::string> values;
  for (auto& [i, s] : items) {
    s->used = true;
    values.push_back(s->value);
  }
  setting& l = lists_[path];
  l = {detail::param_traits<std::vector<std::string>>::show(values), items.begin()->second->origin, true};
  return &l;
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

std::string closest_name(const std::string& word, const std::vector<std::string>& candidates, size_t below) {
  auto norm = [](std::string t) {
    for (char& c : t) c = c == '_' ? '-' : char(std::tolower(static_cast<unsigned char>(c)));
    return t;
  };
  std::string best;
  size_t best_d = below;
  for (const auto& c : candidates) {
    size_t d = edit_distance(word, c);
    if (d > 1 && (norm(word) == norm(c) || (!word.empty() && norm(c).rfind(norm(word), 0) == 0))) d = 1;
    if (d < best_d) best_d = d, best = c;
  }
  return best;
}

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
  bool leaf = false, list = false;
  std::vector<yaml_tree> children;
  yaml_tree& child(const std::string& n) {
    for (auto& c : children)
      if (c.name == n) return c;
    children.push_back(yaml_tree{n, "", "", false, false, {}});
    return children.back();
  }
};
// Values of words, numbers, times and paths stay plain (the dump is hashed into run metadata, so
// its form is kept); anything else is double-quoted. The emitter quotes a plain-looking value
// that YAML would read back as something else (null, ~) and escapes control characters.
bool plain_value(const std::string& v) {
  const bool words = std::all_of(
      v.begin(), v.end(), [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '.' || c == ' ' || c == '-' || c == '/'; });
  return words && !v.empty() && v.front() != ' ' && v.back() != ' ' && v.front() != '-';
}
void emit(YAML::Emitter& out, const yaml_tree& t, bool with_descriptions) {
  out << YAML::BeginMap;
  for (const auto& c : t.children) {
    out << YAML::Key << c.name << YAML::Value;
    if (c.leaf && c.children.empty() && c.list) {
      out << YAML::Flow << YAML::BeginSeq;
      for (const auto& item : YAML::Load(c.value)) {
        if (!plain_value(item.Scalar())) out << YAML::DoubleQuoted;
        out << item.Scalar();
      }
      out << YAML::EndSeq;
      if (with_descriptions && !c.description.empty()) out << YAML::Comment(c.description);
    } else if (c.leaf && c.children.empty()) {
      if (!plain_value(c.value)) out << YAML::DoubleQuoted;
      out << c.value;
      if (with_descriptions && !c.description.empty()) out << YAML::Comment(c.description);
    } else {
      emit(out, c, with_descriptions);
    }
  }
  out << YAML::EndMap;
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
    node->list = d.type == "list";
    // Addresses in hex, as every document writes them (every reader takes either form).
    const std::string name = d.path.substr(d.path.rfind('.') + 1);
    const bool address = name == "base" || name.ends_with("_base") || name == "addr" || name.ends_with("_addr");
    node->value = address && d.type == "uint" ? to_hex(parse_u64(d.value)) : d.value;
    node->description = d.description;
    if (!d.min.empty() || !d.max.empty()) node->description += " [" + d.min + ", " + d.max + "]";
  }
  if (root.children.empty()) return "";
  YAML::Emitter out;
  emit(out, root, with_descriptions);
  return std::string(out.c_str()) + "\n";
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
double param_traits<double>::parse(const std::string& s) { return parse_double(s); }
std::string param_traits<double>::show(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}
std::string param_traits<std::string>::parse(const std::string& s) { return s; }
std::string param_traits<std::string>::show(const std::string& v) { return v; }
std::vector<std::string> param_traits<std::vector<std::string>>::parse(const std::string& s) {
  std::vector<std::string> out;
  const std::string t = trim(s);
  if (t.empty()) return out;
  if (t.front() == '[') {  // a YAML flow sequence of plain values
    const YAML::Node n = YAML::Load(t);
    if (!n.IsSequence()) throw std::invalid_argument("not a list");
    for (const auto& item : n) {
      if (!item.IsScalar()) throw std::invalid_argument("a list item is not a plain value");
      out.push_back(item.Scalar());
    }
    return out;
  }
  std::stringstream ss(t);  // "a,b": the comma-separated form
  for (std::string item; std::getline(ss, item, ',');)
    if (!trim(item).empty()) out.push_back(trim(item));
  return out;
}
std::string param_traits<std::vector<std::string>>::show(const std::vector<std::string>& v) {
  YAML::Emitter out;
  out << YAML::Flow << YAML::BeginSeq;
  for (const auto& item : v) out << item;
  out << YAML::EndSeq;
  return out.c_str();
}
sc_core::sc_time param_traits<sc_core::sc_time>::parse(const std::string& s) { return parse_time(s); }
std::string param_traits<sc_core::sc_time>::show(const sc_core::sc_time& v) { return format_time(v); }
}  // namespace detail

}  // namespace gpuvp
