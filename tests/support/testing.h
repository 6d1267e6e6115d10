// Test support. Each test that elaborates SystemC modules derives its fixture from
// gpuvp::testing::sim_test: it starts a fresh simulation kernel and a clean configuration,
// statistics registry and logger, so tests are independent even within one process.
#pragma once
#include <string>
#include <gtest/gtest.h>
#include <systemc>

namespace gpuvp::testing {

// Fresh kernel + empty config/stats/logger. Call before creating any module.
void fresh_simulation();

class sim_test : public ::testing::Test {
 protected:
  sim_test() { fresh_simulation(); }
};

// Path of a file in the source tree (from GPUVP_SOURCE_DIR, set by ctest).
std::string source_path(const std::string& relative);
// Path in the build tree (from GPUVP_BINARY_DIR).
std::string binary_path(const std::string& relative);

}  // namespace gpuvp::testing
