// SPDX-License-Identifier: Apache-2.0
// Test support for the command line: runs the gpuvp program in this process (gpuvp_main) on a
// fresh simulation kernel, with `input` as standard input, and captures its exit code and output.
#pragma once
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include "cli.h"
#include "testing.h"

namespace gpuvp::testing {

struct cli_result {
  int rc;
  std::string out, err;
};

// `before` runs after the fresh kernel starts, before the program (e.g. registering test types).
inline cli_result run_gpuvp(std::vector<std::string> args, const std::string& input = "", void (*before)() = nullptr) {
  fresh_simulation();
  if (before) before();
  args.insert(args.begin(), "gpuvp");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  std::istringstream in(input);
  std::ostringstream out, err;
  const int rc = gpuvp_main(int(argv.size()), argv.data(), in, out, err);
  return {rc, out.str(), err.str()};
}

// A file's whole text ("" if it cannot be read).
inline std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace gpuvp::testing
