// SPDX-License-Identifier: Apache-2.0
// gpuvp's small text toolkit, without SystemC, for every reader of a text or binary input file
// (workloads, configurations, traces, firmware images) and every writer of a shell command line.
// The callers keep their own error messages: these functions only say that something failed.
#pragma once
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace gpuvp {

// The whole content of file `path`, byte for byte; nullopt when it cannot be opened. A folder
// opens and reads as empty (callers that must tell check is_directory first).
inline std::optional<std::string> read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The words of `line`, split at white space (as `stream >> word` reads them).
inline std::vector<std::string> split_words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// `word` as a POSIX shell reads it back as one word: as it is when it holds only characters no
// shell treats specially, else in single quotes (a quote inside as '\'').
inline std::string shell_quote(std::string_view word, bool always = false) {
  constexpr std::string_view plain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:@%";
  if (!always && !word.empty() && word.find_first_not_of(plain) == std::string_view::npos) return std::string(word);
  std::string q = "'";
  for (char c : word) q += c == '\'' ? std::string_view("'\\''") : std::string_view(&c, 1);
  return q + "'";
}

}  // namespace gpuvp
