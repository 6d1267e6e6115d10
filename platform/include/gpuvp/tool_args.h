// SPDX-License-Identifier: Apache-2.0
// gpuvp's one command-line parser: every command and tool (`gpuvp run`, `qtest`, `config dump`,
// `sweep`, `sm-run`, `pb-asm`, `pb-decode`, `afuc-asm`, `afuc-disasm`, `pm4-asm`, `pm4-decode`)
// declares its options here, on Boost.Program_options, without SystemC, so the model cores'
// tools follow the same conventions:
//   --help / -h              the usage (synopsis, arguments, options) on standard output, exit 0;
//   a usage error            ONE line on standard error, "gpuvp TOOL: PROBLEM (usage: gpuvp TOOL
//                            SYNOPSIS)", exit 2. Usage errors: an unknown option, an option
//                            without its value, an option that is not repeatable given twice,
//                            a value that is not a number or out of its range, a missing or an
//                            extra positional argument;
//   the tool's own errors    bad input exits 2, a modelled error exits 1 (the tool decides).
// Spelling: options are matched exactly (no abbreviations); a value follows as the next argument
// or after `=` (`--gen G84`, `--gen=G84`, `-g 6`, `-g6`); `--` ends the options.
//
// Declaring (each returns *this):
//   flag(names, b, help)                      bool set by the option; at most once
//   text(names, s, ARG, help)                 one string; at most once; s keeps its default if absent
//   texts(names, v, ARG, help)                repeatable: every occurrence appended to v, in order
//   number(names, n, ARG, help[, lo, hi])     an integer in the project's number forms
//                                             (gpuvp/number.h: decimal, 0x, 0b, `_` separators,
//                                             size suffixes; signed types also take a leading -),
//                                             range [lo, hi] (default: the type's); at most once
//   real(names, d, ARG, help, lo, hi)         a floating-point number in [lo, hi]; at most once
//   positional(NAME, s, help[, required])     the next positional argument (in declaration order)
//   hidden()                                  the option declared next is accepted but not listed
// names: "long", "long,s" (with a one-letter short form) or ",s" (the short form only).
//
// Parsing:
//   int rc = args.parse(argc, argv[, out, err]);   argv[0] is the command's name (skipped)
//   rc < 0: go on; rc >= 0: the exit code (0 after --help, 2 after a usage error, both printed).
//   args.given("name")       whether the option (long name, or short letter) was on the line
//   args.usage_error(text)   prints a usage error found later (one line), returns 2
//   args.help_text()         what --help prints
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>
#include "gpuvp/number.h"

namespace gpuvp {

class tool_args {
 public:
  // command: as typed after `gpuvp` ("pb-asm", "config dump"); synopsis: what follows it in the
  // usage line ("[--gen G84] INPUT.txt -o OUTPUT.bin"); about: an optional paragraph for --help.
  tool_args(std::string command, std::string synopsis, std::string about = "");
  ~tool_args();
  tool_args(const tool_args&) = delete;
  tool_args& operator=(const tool_args&) = delete;

  tool_args& flag(const std::string& names, bool& value, const std::string& help);
  tool_args& text(const std::string& names, std::string& value, const std::string& arg, const std::string& help);
  tool_args& texts(const std::string& names, std::vector<std::string>& values, const std::string& arg, const std::string& help);
  template <class T>
  tool_args& number(const std::string& names, T& value, const std::string& arg, const std::string& help,
                    T lo = std::numeric_limits<T>::min(), T hi = std::numeric_limits<T>::max());
  tool_args& real(const std::string& names, double& value, const std::string& arg, const std::string& help, double lo, double hi);
  tool_args& positional(const std::string& name, std::string& value, const std::string& help, bool required = true);
  tool_args& hidden();

  int parse(int argc, char** argv, std::ostream& out = std::cout, std::ostream& err = std::cerr);
  bool given(const std::string& name) const;
  int usage_error(const std::string& problem, std::ostream& err = std::cerr) const;
  std::string help_text() const;
  const std::string& command() const { return command_; }

  // The integer a value holds (the forms of parse_number; a leading - for signed T), in [lo, hi];
  // throws std::invalid_argument naming the text otherwise.
  template <class T>
  static T to_integer(const std::string& text, T lo, T hi);

 private:
  struct option {
    std::string names, arg, help;
    enum kind_t { flag, text, texts, converted, positional } kind;
    option(std::string n, std::string a, std::string h, kind_t k) : names(std::move(n)), arg(std::move(a)), help(std::move(h)), kind(k) {}
    bool hidden = false, required = false;
    bool* flag_value = nullptr;
    std::string* text_value = nullptr;
    std::vector<std::string>* texts_value = nullptr;
    std::function<void(const std::string&)> convert;  // converted: the raw text to the value
    std::string raw;                                  // converted: what the command line gave
  };
  tool_args& add(option o);
  std::string command_, synopsis_, about_;
  std::deque<option> options_;
  bool next_hidden_ = false;
  struct state;
  std::unique_ptr<state> state_;
};

template <class T>
T tool_args::to_integer(const std::string& text, T lo, T hi) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>, "tool_args::number needs an integer type");
  const auto range = [&] {
    return std::invalid_argument("'" + text + "' is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  };
  size_t i = 0;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  const bool negative = i < text.size() && text[i] == '-';
  if (negative && !std::is_signed_v<T>) throw range();
  uint64_t magnitude;
  try {
    magnitude = parse_number(negative ? text.substr(i + 1) : text);
  } catch (const std::out_of_range&) {
    throw range();
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument("'" + text + "' is not a number");
  }
  if constexpr (std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    const uint64_t limit = negative ? uint64_t(U(std::numeric_limits<T>::max())) + 1 : uint64_t(std::numeric_limits<T>::max());
    if (magnitude > limit) throw range();
    const T v = negative ? T(-int64_t(magnitude - 1) - 1) : T(magnitude);
    if (v < lo || v > hi) throw range();
    return v;
  } else {
    if (magnitude > uint64_t(std::numeric_limits<T>::max()) || T(magnitude) < lo || T(magnitude) > hi) throw range();
    return T(magnitude);
  }
}

template <class T>
tool_args& tool_args::number(const std::string& names, T& value, const std::string& arg, const std::string& help, T lo, T hi) {
  option o{names, arg, help, option::converted};
  o.convert = [&value, lo, hi](const std::string& t) { value = to_integer<T>(t, lo, hi); };
  return add(std::move(o));
}

}  // namespace gpuvp
