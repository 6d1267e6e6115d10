// SPDX-License-Identifier: Apache-2.0
// Test support. Each test that elaborates SystemC modules derives its fixture from
// gpuvp::testing::sim_test: it starts a fresh simulation kernel and a clean configuration,
// statistics registry and logger, so tests are independent even within one process.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>
#include "gpuvp/extension.h"

namespace gpuvp::testing {

// Fresh kernel + empty config/stats/logger. Call before creating any module.
void fresh_simulation();

class sim_test : public ::testing::Test {
 protected:
  sim_test() { fresh_simulation(); }
};

// An initiator for driving a model through its target socket like a real initiator would. Each
// access returns the response status; `delay` accumulates the annotated time.
struct test_initiator : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<test_initiator> out{"out"};
  sc_core::sc_time delay;
  gpuvp::gpu_ext ext;     // side-band data attached to every access
  int invalidations = 0;  // DMI invalidations received, and the last range
  sc_dt::uint64 inv_start = 0, inv_end = 0;
  explicit test_initiator(sc_core::sc_module_name n) : sc_module(n) {
    out.register_invalidate_direct_mem_ptr(this, &test_initiator::invalidate);
  }
  void invalidate(sc_dt::uint64 s, sc_dt::uint64 e) {
    ++invalidations;
    inv_start = s;
    inv_end = e;
  }
  tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t addr, void* data, unsigned len) {
    gpuvp::transaction t(cmd, addr, data, len);
    t.ext = ext;
    out->b_transport(t.gp, delay);
    return t.gp.get_response_status();
  }
  tlm::tlm_response_status read(uint64_t addr, void* data, unsigned len) { return access(tlm::TLM_READ_COMMAND, addr, data, len); }
  tlm::tlm_response_status write(uint64_t addr, const void* data, unsigned len) {
    return access(tlm::TLM_WRITE_COMMAND, addr, const_cast<void*>(data), len);
  }
  uint32_t read32(uint64_t addr) {
    uint32_t v = 0;
    EXPECT_EQ(read(addr, &v, 4), tlm::TLM_OK_RESPONSE) << std::hex << addr;
    return v;
  }
  void write32(uint64_t addr, uint32_t v) { EXPECT_EQ(write(addr, &v, 4), tlm::TLM_OK_RESPONSE) << std::hex << addr; }
};

// Path of a file in the source tree (from GPUVP_SOURCE_DIR, set by ctest).
std::string source_path(const std::string& relative);
// Path in the build tree (from GPUVP_BINARY_DIR).
std::string binary_path(const std::string& relative);
// Path of a file among the public real inputs (captures, traces, results nobody on the team wrote)
// kept beside the checkout in ../shared/real (or $GPUVP_REAL_DIR); "" when that folder is absent,
// as in a fresh clone. Tests that need it skip with real_data_missing().
std::string real_data_path(const std::string& relative);
std::string real_data_missing(const std::string& relative);

// Runs a shell command line: its exit status (-1 if it did not exit) and what it printed on stdout.
struct command_result {
  int rc = -1;
  std::string out;
};
command_result run_command(const std::string& cmd);

}  // namespace gpuvp::testing
