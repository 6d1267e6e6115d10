// SPDX-License-Identifier: Apache-2.0
// Shared by the RTL co-simulation tests: the skip when gpuvp was built without Verilator, and test
// data as the hex string qtest's write/read commands take.
#pragma once
#include <cstdio>
#include <string>
#include <gtest/gtest.h>

#ifdef GPUVP_TEST_RTL
#define NEEDS_RTL()
#else
#define NEEDS_RTL() GTEST_SKIP() << "built without Verilator (GPUVP_RTL off): RTL co-simulation not available"
#endif

namespace gpuvp::testing {
// n bytes (i * 13 + seed) & 0xff as hex digits, without the 0x.
inline std::string hex_bytes(int n, int seed) {
  std::string s;
  for (int i = 0; i < n; ++i) {
    char b[3];
    std::snprintf(b, sizeof b, "%02x", (i * 13 + seed) & 0xff);
    s += b;
  }
  return s;
}
}  // namespace gpuvp::testing
