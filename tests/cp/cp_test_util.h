// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the cp tests.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "afuc_asm.h"
#include "testing.h"

namespace cp_test {
// Assembles source without a jump table and returns the instruction words (header dropped).
inline std::vector<uint32_t> assemble(const std::string& src, int gen) {
  auto w = gpuvp::cp::afuc_assemble(".nojumptable\n" + src, gen, "t.asm");
  return std::vector<uint32_t>(w.begin() + 1, w.end());
}
inline uint32_t asm1(const std::string& line, int gen) { return assemble(line, gen).at(0); }

using gpuvp::testing::command_result;
using gpuvp::testing::run_command;
}  // namespace cp_test
