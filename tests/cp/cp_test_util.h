// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the cp tests.
#pragma once
#include <sys/wait.h>

#include <cstdio>
#include <string>
#include <vector>

#include "afuc_asm.h"

namespace cp_test {
// Assembles source without a jump table and returns the instruction words (header dropped).
inline std::vector<uint32_t> assemble(const std::string& src, int gen) {
  auto w = gpuvp::cp::afuc_assemble(".nojumptable\n" + src, gen, "t.asm");
  return std::vector<uint32_t>(w.begin() + 1, w.end());
}
inline uint32_t asm1(const std::string& line, int gen) { return assemble(line, gen).at(0); }

// Runs a shell command line; its exit status (-1 if it did not exit) and what it printed.
struct command_result {
  int rc = -1;
  std::string out;
};
inline command_result run_command(const std::string& cmd) {
  command_result r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = pclose(p);
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}
}  // namespace cp_test
