// SPDX-License-Identifier: Apache-2.0
// The launch command: the ASC firmware runs an Accel-Sim kernel on the agx platform's compute
// engine (models/sm), whose memory goes through the UAT's gpu view of the command's context slot;
// when the kernel is done the firmware writes the command's stamp and posts a kernel event.
// Kernels: 1 = the ffma fixture of tests/sm/data (LDG of a line, FFMA, STG of 4 lanes, HMMA, EXIT);
// 2 = 100 dependent FFMAs + EXIT, 703 cycles on one QV100 SM (worked by hand in
// sm_core.dependent_ffma_chain_qv100, Accel-Sim's calibration point).
#include <filesystem>
#include <fstream>
#include <sstream>
#include "cli.h"
#include "compute.h"
#include "core/trace.h"
#include "fw_fixture.h"

namespace {

// A kernel list in a temporary folder: kernel-1.traceg (the ffma fixture), kernel-2.traceg (the chain).
std::string kernel_list() {
  // One folder per test: ctest runs the tests of this file in parallel processes.
  const std::string dir = ::testing::TempDir() + "/agx_launch_kernels_" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(gpuvp::testing::source_path("tests/sm/data/ffma/kernel-1.traceg"), dir + "/kernel-1.traceg",
                             std::filesystem::copy_options::overwrite_existing);
  std::vector<sm::trace_writer_inst> w(100, {"FFMA", {1}, {1, 2, 3}, 0, {}, 0xffffffffu});
  w.push_back({"EXIT", {}, {}, 0, {}, 0xffffffffu});
  std::ofstream(dir + "/kernel-2.traceg") << sm::write_kernel_trace("chain", 2, {1, 1, 1}, {32, 1, 1}, 70, 0, 32, {w});
  std::ofstream(dir + "/kernelslist.g") << "kernel-1.traceg\nkernel-2.traceg\n";
  return dir + "/kernelslist.g";
}

// The ffma trace's addresses 0x7f4e8a000000 (LDG, a 128-byte line) and 0x7f4e8a000100 (STG, lanes
// 0-3: one 32-byte sector) fold into [0, 512 GiB) as 0x4e8a000000 and 0x4e8a000100: one GPU page
// of slot 1. The AP fills it with 0x42 and puts 0x5a bytes in the loaded line.
std::string data_page(unsigned slot) {
  std::string s = "alloc data 1\nmap data 0x4e8a000000 uncached gpu slot " + std::to_string(slot) + "\nfill data 0x42\n";
  for (unsigned off = 0; off < 0x80; off += 8) s += "write data " + std::to_string(off) + " 0x5a5a5a5a5a5a5a5a\n";
  return s;
}

constexpr uint64_t fill42 = 0x4242424242424242ull;

struct launch_test : fw_test {};  // a suite of its own (fw_test is per translation unit)

}  // namespace

TEST_F(launch_test, launch_runs_the_kernel_through_the_gpu_view_and_stamps_when_it_is_done) {
  const std::string list = kernel_list();
  run("set agx.asc.launch.kernels " + list + "\n" + head + data_page(1) +
      "cmd cb 0 launch 1 1 1 stamps\ncmd cb 24 launch 1 2 2 stamps\ncmd cb 48 end\nsubmit cb 0 0x4000\n"
      "wait-stamp stamps 0 2\nexpect-event 0 3 1\nexpect-event 1 3 2\nexpect-stat agx.asc.launches 2\n");
  EXPECT_EQ(failed, 0) << messages;
  auto* ce = p->find_as<sm::compute_engine>("compute");
  ASSERT_NE(ce, nullptr);
  ASSERT_EQ(ce->results().size(), 2u);
  EXPECT_EQ(ce->results()[1].cycles, 703u);
  EXPECT_EQ(agx->asc.kernel_cycles.value(), ce->results()[0].cycles + 703u);
  // The kernels' accesses carried slot 1 (vm_context) into the gpu view: the STG's sector at VA
  // 0x4e8a000100 was written at the PA slot 1 maps (what it holds is not modelled: traces carry no
  // values, only that 32 bytes were written), the rest of the page keeps the AP's bytes.
  const auto t = agx->uat.translate_debug(uat::view::gpu, 1, 0x4e8a000000ull, uat::access_type::read);
  ASSERT_TRUE(t.ok());
  EXPECT_NE(peek64(t.pa + 0x100), fill42);
  EXPECT_NE(peek64(t.pa + 0x118), fill42);
  EXPECT_EQ(peek64(t.pa + 0x120), fill42);
  EXPECT_EQ(peek64(t.pa + 0xf8), fill42);
  EXPECT_EQ(peek64(t.pa + 0x78), 0x5a5a5a5a5a5a5a5aull);
  EXPECT_EQ(ce->mem_errors.value(), 0u);
  EXPECT_EQ(ce->sideband_kernels.value(), 2u);
  // Stamps after the kernels, events {3, 1} and {3, 2}; the current slot is back to 0.
  EXPECT_EQ(peek32(ctrl() + rg::evt_wptr), 2u);
  EXPECT_EQ(peek32(handoff + hf::cur_slot), 0u);
  // The chain ran after the ffma kernel: 703 cycles of 883 ps (1132 MHz) = 620.749 ns before its stamp.
  EXPECT_GT(sc_core::sc_time_stamp(), sc_core::sc_time(620749, sc_core::SC_PS));
}

TEST_F(launch_test, launch_of_a_kernel_outside_the_list_asserts) {
  run("set agx.asc.launch.kernels " + kernel_list() + "\n" + head +
      "cmd cb 0 launch 1 3 1 stamps\nsubmit cb 0 0x4000\nwait-stamp stamps 0 1\n");
  EXPECT_EQ(agx->asc.assert_text(), "launch of kernel 3: not in the kernel list (2 kernels)");
  EXPECT_GT(failed, 0);
}

TEST_F(launch_test, launch_without_a_kernel_list_asserts) {
  run(head + "cmd cb 0 launch 1 1 1 stamps\nsubmit cb 0 0x4000\nwait-stamp stamps 0 1\n");
  EXPECT_EQ(agx->asc.assert_text(), "launch of kernel 1: not in the kernel list (0 kernels)");
}

TEST_F(launch_test, launch_for_slot_0_asserts) {
  run(head + "cmd cb 0 launch 0 1 1 stamps\nsubmit cb 0 0x4000\nwait-stamp stamps 0 1\n");
  EXPECT_EQ(agx->asc.assert_text(), "launch for context slot 0 (1..63)");
}

// The page is mapped in slot 1 only: the same kernel for slot 2 faults in the gpu view (the LDG's
// 4 sectors and the STG's one: 5 faulting accesses); the UAT latches the first fault and the
// firmware asserts; no stamp is written.
TEST_F(launch_test, a_kernel_fault_in_the_gpu_view_asserts_and_latches_the_fault) {
  run("set agx.asc.launch.kernels " + kernel_list() + "\n" + head + data_page(1) +
      "cmd cb 0 launch 2 1 1 stamps\nsubmit cb 0 0x4000\nwait-stamp stamps 0 1\n");
  EXPECT_EQ(agx->asc.assert_text(), "GPU fault: kernel 1 (_Z9ffma_testPf) for slot 2: 5 faulting memory accesses");
  EXPECT_EQ(agx->uat.faults_latched.value(), 1u);
  bool named = false;
  for (const auto& e : agx->modelled_errors()) named |= e.find("view gpu slot 2 VA 0x4e8a000000 read") != std::string::npos;
  EXPECT_TRUE(named);
  const auto s = agx->uat.translate_debug(uat::view::fw, 0, 0xffffffa000100000ull, uat::access_type::read);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(peek32(s.pa), 0u);
}

TEST_F(launch_test, a_bad_kernel_list_is_an_input_error) {
  register_all_models();
  config::global().load_yaml_text(registry::global().find_platform("agx")->yaml, "agx.yaml");
  config::global().set("agx.asc.launch.kernels", ::testing::TempDir() + "/no-such-list.g", "test");
  try {
    platform q;
    FAIL() << "no error";
  } catch (const config_error& e) {
    EXPECT_NE(std::string(e.what()).find("agx.asc.launch.kernels: "), std::string::npos) << e.what();
  }
}

TEST_F(launch_test, launch_command_errors_are_found_at_parse_time) {
  EXPECT_THROW(agx_scenario::parse("boot\nalloc a 1\ncmd a 0 launch 1 1 1 nope\n", "x.agx"), config_error);
  EXPECT_THROW(agx_scenario::parse("boot\nalloc a 1\ncmd a 0 launch 1 one 1 a\n", "x.agx"), config_error);
  EXPECT_THROW(agx_scenario::parse("boot\nalloc a 1\ncmd a 0 launch 1 1 a\n", "x.agx"), config_error);
  EXPECT_THROW(agx_scenario::parse("boot\nexpect-event 0 3\n", "x.agx"), config_error);
  EXPECT_THROW(agx_scenario::parse("boot\nexpect-event 0 kernel 1\n", "x.agx"), config_error);
}

// From the command line: the run's report has the kernels' cycle lines and the ASC's count.
TEST(agx_launch_cli, the_report_names_the_kernels_cycles) {
  const std::string file = ::testing::TempDir() + "/agx_launch.agx";
  std::ofstream(file) << "set agx.asc.launch.kernels " << kernel_list() << "\n"
                      << head << data_page(1) << "cmd cb 0 launch 1 2 1 stamps\ncmd cb 24 end\nsubmit cb 0 0x4000\nwait-stamp stamps 0 1\n";
  gpuvp::testing::fresh_simulation();
  std::vector<std::string> args = {"gpuvp", "run", "--platform", "agx", "--workload", file};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  std::istringstream in;
  std::ostringstream out, err;
  EXPECT_EQ(gpuvp::gpuvp_main(int(argv.size()), argv.data(), in, out, err), 0) << out.str() << err.str();
  EXPECT_NE(out.str().find("kernel 2 chain: 703 cycles, 101 warp instructions, IPC 0.144\n"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("1 kernels (703 cycles)"), std::string::npos) << out.str();
}
