// SPDX-License-Identifier: Apache-2.0
// `gpuvp sm-run ARGS` in-process, in a fresh simulation context, with its exit status and output.
#pragma once
#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "gpuvp/registry.h"
#include "testing.h"

namespace gpuvp::sm::testing {

struct sm_run_result {
  int rc;
  std::string out, err;
};

inline sm_run_result sm_run(std::vector<std::string> args) {
  gpuvp::testing::fresh_simulation();
  const gpuvp::tool* t = gpuvp::registry::global().find_tool("sm-run");
  args.insert(args.begin(), "sm-run");
  std::vector<char*> argv;
  for (auto& x : args) argv.push_back(x.data());
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int rc = t->main(int(argv.size()), argv.data());
  std::string out = ::testing::internal::GetCapturedStdout();
  return {rc, out, ::testing::internal::GetCapturedStderr()};
}

}  // namespace gpuvp::sm::testing
