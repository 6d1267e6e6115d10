// SPDX-License-Identifier: Apache-2.0
// "Did you mean ...?": the candidate closest to a mistyped name (configuration keys, workload
// names), by edit distance.
#pragma once
#include <string>
#include <vector>

namespace gpuvp {

// Levenshtein distance (insertions, deletions, substitutions of one character each).
size_t edit_distance(const std::string& a, const std::string& b);
// The candidate nearest to `word` at a distance below `below` (ties: the first); "" if none.
// A candidate that `word` is a prefix of, or that differs only in '-' / '_', counts as distance 1.
std::string closest_name(const std::string& word, const std::vector<std::string>& candidates, size_t below = 4);

}  // namespace gpuvp
