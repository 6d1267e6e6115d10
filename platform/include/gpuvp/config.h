// SPDX-License-Identifier: Apache-2.0
// Hierarchical configuration: every tunable of every model is a param<T> whose path is the
// owning SystemC object's name plus the param name ("mmu.tlb_entries"). Values come, in order of
// precedence, from --set path=value, the --config YAML file(s), the embedded platform defaults,
// and the param's own default. A key that no param claims, or a value of the wrong type or out of
// range, is a config_error naming the key and where it was set (file:line or --set).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>
#include <systemc>

namespace gpuvp {

struct config_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Number parsing shared by config, qtest and workload formats: 0x hex, decimal, optional
// size suffix (K, KiB, M, MiB, G, GiB, T, TiB). Throws std::invalid_argument on junk.
uint64_t parse_u64(const std::string& text);
int64_t parse_i64(const std::string& text);
// A float with nothing after it (no "stod" texts in messages).
double parse_double(const std::string& text);
// "10 ns", "1.5us", "2 ms", "0"; a bare number is nanoseconds. A value above max_time() or a
// non-zero one below the kernel's resolution is std::out_of_range (never clamped or rounded to 0).
sc_core::sc_time parse_time(const std::string& text);
// The largest time any parameter or input accepts (1 hour): sums of a few never overflow sc_time.
sc_core::sc_time max_time();
std::string format_time(const sc_core::sc_time& t);
// An input file exists, is not a directory and is readable; config_error "PATH: ..." naming `what`.
void check_input_file(const std::string& path, const std::string& what);
// An output file can be created (checked before a run starts, so a run's results are not lost).
void check_output_file(const std::string& path, const std::string& what);
// "0x1f": addresses in messages.
std::string to_hex(uint64_t v);

class config {
 public:
  struct setting {
    std::string value;
    std::string origin;  // "file.yaml:12", "--set", "embedded:3"
    bool used = false;
  };
  struct declared {
    std::string path, type, default_value, description, value;
    std::string min, max;  // range as shown in messages and docs; empty for bool and string
  };

  static config& global();
  void reset();  // forget everything (tests)

  // Sources of values. Later calls override earlier ones for the same key.
  void set(const std::string& path, const std::string& value, const std::string& origin);
  void load_yaml_text(const std::string& text, const std::string& origin_name);
  void load_yaml_file(const std::string& file);
  void apply_override(const std::string& assignment);  // "path=value" from --set
  void erase_list(const std::string& path);            // forgets the items path.0, path.1, ... (a new list replaces them)

  // Lookup for params (marks the key used). Returns nullptr if unset.
  const setting* find(const std::string& path);
  // A list param's value given as a YAML sequence (path.0, path.1, ...): one setting whose value
  // is the flow sequence "[a, b]" and whose origin is the first item's (marks them used); nullptr
  // if none is set.
  const setting* find_list(const std::string& path);
  // Children of a mapping key in the order first set: children("components") -> names.
  std::vector<std::string> children(const std::string& prefix) const;

  // Registry of declared params (for dump, docs check and error messages).
  void declare(declared d);
  const std::vector<declared>& declarations() const { return declared_; }

  // Marks every key under "prefix." as used (settings of a component that was removed).
  void ignore_prefix(const std::string& prefix);
  // After elaboration: every key set must have been claimed by a param.
  void check_unused() const;
  // Effective configuration as YAML (all declared params and their values), loadable again.
  std::string dump_yaml(bool with_descriptions) const;

 private:
  std::map<std::string, setting> settings_;
  std::vector<std::string> order_;  // insertion order of keys
  std::vector<declared> declared_;
  std::map<std::string, setting> lists_;  // find_list's answers
};

namespace detail {
template <typename T>
struct param_traits;
template <typename T>
struct default_range {
  static std::optional<T> min() { return std::nullopt; }
  static std::optional<T> max() { return std::nullopt; }
};
// Every time value is bounded, even where a model gives no range of its own.
template <>
struct default_range<sc_core::sc_time> {
  static std::optional<sc_core::sc_time> min() { return sc_core::SC_ZERO_TIME; }
  static std::optional<sc_core::sc_time> max() { return max_time(); }
};
template <>
struct param_traits<bool> {
  static constexpr const char* name = "bool";
  static bool parse(const std::string&);
  static std::string show(bool);
};
template <>
struct param_traits<uint64_t> {
  static constexpr const char* name = "uint";
  static uint64_t parse(const std::string&);
  static std::string show(uint64_t);
};
template <>
struct param_traits<int64_t> {
  static constexpr const char* name = "int";
  static int64_t parse(const std::string&);
  static std::string show(int64_t);
};
template <>
struct param_traits<double> {
  static constexpr const char* name = "float";
  static double parse(const std::string&);
  static std::string show(double);
};
template <>
struct param_traits<std::string> {
  static constexpr const char* name = "string";
  static std::string parse(const std::string&);
  static std::string show(const std::string&);
};
// A list of strings: a YAML sequence in a file, "[a, b]" or the comma-separated "a,b" in --set.
template <>
struct param_traits<std::vector<std::string>> {
  static constexpr const char* name = "list";
  static std::vector<std::string> parse(const std::string&);
  static std::string show(const std::vector<std::string>&);
};
template <>
struct param_traits<sc_core::sc_time> {
  static constexpr const char* name = "time";
  static sc_core::sc_time parse(const std::string&);
  static std::string show(const sc_core::sc_time&);
};
std::string join_path(const sc_core::sc_object* owner, const std::string& name);
}  // namespace detail

// A configuration parameter. Read it like the value it holds: `if (entries > 64) ...`.
// Declare params as members of the model so the header reads like a datasheet:
//   param<uint64_t> tlb_entries{this, "tlb_entries", 64, "entries per TLB", 1, 1 << 16};
template <typename T>
class param {
 public:
  param(const sc_core::sc_object* owner, const std::string& name, T def, std::string description)
      : param(detail::join_path(owner, name), std::move(def), std::move(description)) {}
  param(const sc_core::sc_object* owner, const std::string& name, T def, std::string description, T min, T max)
      : param(detail::join_path(owner, name), std::move(def), std::move(description), min, max) {}
  param(std::string path, T def, std::string description, std::optional<T> min = std::nullopt, std::optional<T> max = std::nullopt)
      : path_(std::move(path)), value_(std::move(def)) {
    using tr = detail::param_traits<T>;
    if (!min) min = detail::default_range<T>::min();
    if (!max) max = detail::default_range<T>::max();
    const std::string def_text = tr::show(value_);
    auto& cfg = config::global();
    const auto* s = cfg.find(path_);
    if constexpr (std::is_same_v<T, std::vector<std::string>>)
      if (!s) s = cfg.find_list(path_);
    if (s) {
      try {
        value_ = tr::parse(s->value);
      } catch (const std::out_of_range& e) {
        throw config_error(s->origin + ": " + path_ + ": " + e.what() + " (" + description + ")");
      } catch (const std::exception&) {
        throw config_error(s->origin + ": " + path_ + ": '" + s->value + "' is not a valid " + tr::name + " (" + description + ")");
      }
      if ((min && value_ < *min) || (max && value_ > *max))
        throw config_error(s->origin + ": " + path_ + " = " + s->value + " is out of range [" + tr::show(min.value_or(value_)) + ", " +
                           tr::show(max.value_or(value_)) + "]");
    }
    cfg.declare(
        {path_, tr::name, def_text, std::move(description), tr::show(value_), min ? tr::show(*min) : "", max ? tr::show(*max) : ""});
  }
  operator const T&() const { return value_; }
  const T& get() const { return value_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  T value_;
};

}  // namespace gpuvp
