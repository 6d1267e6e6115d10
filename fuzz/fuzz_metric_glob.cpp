// SPDX-License-Identifier: Apache-2.0
// The metric glob of sweep specifications (docs/formats/sweep.md): the first line is a pattern,
// each further line a text. The matcher must agree with a plain dynamic-programming matcher, and
// answer in time linear in each length's product (the time-out catches backtracking).
#include <string>
#include <vector>
#include "fuzz_common.h"
#include "sweep_results.h"

namespace {
// Reference: m[i][j] = pattern[0, i) matches text[0, j).
bool reference(const std::string& p, const std::string& s) {
  std::vector<std::vector<char>> m(p.size() + 1, std::vector<char>(s.size() + 1, 0));
  m[0][0] = 1;
  for (size_t i = 1; i <= p.size(); ++i)
    for (size_t j = 0; j <= s.size(); ++j) {
      if (p[i - 1] == '*')
        m[i][j] = m[i - 1][j] || (j > 0 && m[i][j - 1]);
      else
        m[i][j] = j > 0 && m[i - 1][j - 1] && (p[i - 1] == '?' || p[i - 1] == s[j - 1]);
    }
  return m[p.size()][s.size()];
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = gpuvp::fuzz::as_text(data, size);
  const size_t nl = text.find('\n');
  const std::string pattern = text.substr(0, nl);
  std::string rest = nl == std::string::npos ? "" : text.substr(nl + 1);
  for (size_t at = 0; at <= rest.size();) {
    const size_t end = std::min(rest.find('\n', at), rest.size());
    const std::string s = rest.substr(at, end - at);
    if (gpuvp::sweep::glob_match(pattern, s) != reference(pattern, s))
      gpuvp::fuzz::finding("glob disagrees with the reference", "'" + pattern + "' vs '" + s + "'");
    at = end + 1;
  }
  return 0;
}
