// SPDX-License-Identifier: Apache-2.0
// YAML configuration files and --set assignments (docs/configuration.md). The input is loaded as a
// YAML file, and each of its lines is applied as a --set. Errors are config_error naming
// "fuzz.yaml:LINE" or "--set ...". Every value then goes through every parameter type's parser;
// a value that parses must print (config dump) as text that parses back to the same value.
#include <cmath>
#include <sstream>
#include "fuzz_common.h"
#include "gpuvp/config.h"

using namespace gpuvp;

namespace {
template <typename T>
void round_trip(const std::string& value) {
  using tr = detail::param_traits<T>;
  T v;
  try {
    v = tr::parse(value);
  } catch (const std::exception&) {
    return;  // param<T> turns any parse failure into a config_error naming the key
  }
  const std::string shown = tr::show(v);
  T again;
  try {
    again = tr::parse(shown);
  } catch (const std::exception& e) {
    fuzz::finding((std::string(tr::name) + ": printed value does not parse").c_str(), "'" + value + "' -> '" + shown + "': " + e.what());
  }
  if constexpr (std::is_same_v<T, double>) {
    if (std::isnan(v) && std::isnan(again)) return;
  }
  if (!(again == v))
    fuzz::finding((std::string(tr::name) + ": printed value parses to another value").c_str(), "'" + value + "' -> '" + shown + "'");
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = fuzz::as_text(data, size);
  config yaml;
  fuzz::expect_only<config_error>("fuzz.yaml:", [&] { yaml.load_yaml_text(text, "fuzz.yaml"); });
  config sets;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) fuzz::expect_only<config_error>("--set ", [&] { sets.apply_override(line); });
  for (config* c : {&yaml, &sets}) {
    for (const std::string& top : c->children("")) (void)c->children(top);
    fuzz::expect_only<config_error>("", [&] { c->check_unused(); });
  }
  std::istringstream values(text);
  for (std::string line; std::getline(values, line);) {
    const std::string value = line.substr(line.find('=') == std::string::npos ? 0 : line.find('=') + 1);
    round_trip<bool>(value);
    round_trip<uint64_t>(value);
    round_trip<int64_t>(value);
    round_trip<double>(value);
    round_trip<sc_core::sc_time>(value);
  }
  return 0;
}
