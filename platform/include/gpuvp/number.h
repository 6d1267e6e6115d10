// SPDX-License-Identifier: Apache-2.0
// gpuvp's one number parser, without SystemC, for every text format that takes numbers
// (configuration values, qtest, .pb and .pm4 workloads, pb-decode --base, ...): decimal, 0x hex,
// 0b binary, `_` separators anywhere ("0x1_0000"), an optional size suffix (k/KiB, M/MiB, G/GiB,
// T/TiB); no sign. Throws std::invalid_argument (not a number) or std::out_of_range (over 64 bits)
// with a message quoting the text. config.h's parse_u64 is this function.
#pragma once
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace gpuvp {

namespace number_detail {
inline std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}
inline std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}
// Splits "123KiB" into digits and suffix; returns the multiplier of the suffix.
inline uint64_t size_multiplier(const std::string& suffix) {
  static const std::pair<const char*, uint64_t> table[] = {
      {"", 1},           {"k", 1ull << 10},   {"kib", 1ull << 10}, {"m", 1ull << 20},  {"mib", 1ull << 20},
      {"g", 1ull << 30}, {"gib", 1ull << 30}, {"t", 1ull << 40},   {"tib", 1ull << 40}};
  for (auto& [name, mult] : table)
    if (lower(suffix) == name) return mult;
  throw std::invalid_argument("unknown size suffix '" + suffix + "'");
}
}  // namespace number_detail

inline uint64_t parse_number(const std::string& text) {
  using namespace number_detail;
  std::string t;
  for (char c : trim(text))
    if (c != '_') t += c;
  if (t.empty()) throw std::invalid_argument("empty number");
  int base = 10;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X'))
    base = 16;
  else if (t.size() > 2 && t[0] == '0' && (t[1] == 'b' || t[1] == 'B'))
    base = 2;
  // Digits by hand: std::stoull would accept a sign and report bare "stoull" texts.
  size_t pos = base == 10 ? 0 : 2;
  const size_t first = pos;
  uint64_t v = 0;
  bool overflow = false;
  for (; pos < t.size(); ++pos) {
    const unsigned char c = static_cast<unsigned char>(t[pos]);
    unsigned d;
    if (std::isdigit(c))
      d = c - '0';
    else if (base == 16 && std::isxdigit(c))
      d = std::tolower(c) - 'a' + 10;
    else
      break;
    if (d >= unsigned(base)) break;
    if (v > (~uint64_t(0) - d) / unsigned(base)) overflow = true;
    v = v * unsigned(base) + d;
  }
  if (pos == first) throw std::invalid_argument("'" + text + "' is not a number");
  if (overflow) throw std::out_of_range("'" + text + "' does not fit in 64 bits");
  const std::string suffix = trim(t.substr(pos));
  // A hex number's suffix must be separated: "0x1z" is a typo, not 1 with suffix "z".
  uint64_t mult;
  try {
    mult = size_multiplier(suffix);
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument("'" + text + "' is not a number (bad digit or suffix '" + suffix + "')");
  }
  if (mult != 1 && v > ~uint64_t(0) / mult) throw std::out_of_range("'" + text + "' does not fit in 64 bits");
  return v * mult;
}

}  // namespace gpuvp
