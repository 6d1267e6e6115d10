// SPDX-License-Identifier: Apache-2.0
// The compute engine as a SystemC component: launch interface, completion, timing of L1 misses
// through a TLM target, modelled errors, and `gpuvp run --workload kernelslist.g` end to end.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli.h"
#include "compute.h"
#include "kernel_builder.h"
#include "gpuvp/config.h"
#include "gpuvp/extension.h"
#include "gpuvp/memory.h"
#include "gpuvp/registry.h"
#include "gpuvp/trace.h"
#include <tlm_utils/simple_target_socket.h>
#include "paths.h"
#include "cli_testing.h"
#include "testing.h"

using namespace gpuvp;
using namespace gpuvp::sm;

namespace {

std::shared_ptr<const kernel_trace> kernel(const std::vector<std::vector<trace_writer_inst>>& warps) {
  return std::make_shared<const kernel_trace>(
      parse_kernel_trace_text(write_kernel_trace("k", 1, {1, 1, 1}, {unsigned(warps.size()) * 32, 1, 1}, 70, 0, 32, warps), "generated"));
}
trace_writer_inst op(const std::string& o, std::vector<unsigned> d, std::vector<unsigned> s) {
  return {o, std::move(d), std::move(s), 0, {}, 0xffffffffu};
}
trace_writer_inst ldg(unsigned d, uint64_t base, uint64_t stride) {
  std::vector<uint64_t> a(32);
  for (unsigned t = 0; t < 32; ++t) a[t] = base + t * stride;
  return {"LDG.E", {d}, {4}, 4, a, 0xffffffffu};
}

class compute_test : public gpuvp::testing::sim_test {
 protected:
  void build() {
    tlm::tlm_global_quantum::instance().set(sc_core::sc_time(1, sc_core::SC_US));
    eng = std::make_unique<compute_engine>("compute");
    mem = std::make_unique<sparse_memory>("vram");
    eng->out.bind(mem->in);
  }
  std::unique_ptr<compute_engine> eng;
  std::unique_ptr<sparse_memory> mem;
};

}  // namespace

TEST_F(compute_test, dependent_chain_completes_with_callback_and_time) {
  config::global().set("compute.sms", "1", "test");
  build();
  std::vector<trace_writer_inst> w(100, op("FFMA", {1}, {1, 2, 3}));
  w.push_back(op("EXIT", {}, {}));
  auto k = kernel({w});
  kernel_result got;
  bool called = false;
  eng->launch({k->grid, k->block, k}, [&](const kernel_result& r) {
    got = r;
    called = true;
  });
  sc_core::sc_start();
  ASSERT_TRUE(called);
  EXPECT_EQ(got.cycles, 703u);  // as sm_core.dependent_ffma_chain_qv100
  EXPECT_EQ(eng->kernels.value(), 1u);
  EXPECT_EQ(eng->warp_insts.value(), 101u);
  // 1132 MHz: 883 ps per cycle (SystemC resolution 1 ps); 703 cycles of local time, then one
  // synchronisation at the end: 703 * 883 ps = 620.749 ns.
  EXPECT_EQ(eng->clock_period(), sc_core::sc_time(883, sc_core::SC_PS));
  EXPECT_EQ(sc_core::sc_time_stamp(), sc_core::sc_time(620749, sc_core::SC_PS));
  EXPECT_TRUE(eng->idle());
  std::ostringstream rep;
  eng->report(rep);
  EXPECT_NE(rep.str().find("703 cycles"), std::string::npos) << rep.str();
  EXPECT_NE(rep.str().find("unit utilisation: SP"), std::string::npos) << rep.str();
}

TEST_F(compute_test, per_kernel_outputs_worked_by_hand) {
  // Kernel 1: one warp, 100 dependent FFMA + EXIT on one QV100 SM (703 cycles, see
  // sm_core.dependent_ffma_chain_qv100). By hand:
  //   instructions 101, IPC 101/703 = 0.14367;
  //   SP unit 0 busy (dispatch register or pipeline non-empty at the end of its cycle) 2 cycles
  //   per FFMA (the dispatch-delay cycle and the cycle it enters stage 0): 200 / (703 x 4 SP
  //   units x 1 SM) = 7.11238 %; EXIT on INT unit 0 (latency 1, initiation 1): 1 cycle, 0.0355619 %;
  //   no result-bus, dispatch or pipeline stalls; scheduler 0: 594 scoreboard cycles between the
  //   FFMAs, idle in cycle 1 and in 697..702 after the EXIT (7); schedulers 1-3 have no warp: idle
  //   in all 702 SM cycles: 7 + 3 x 702 = 2113 idle.
  // Kernel 2: LDG R1 (miss), FFMA R5 <- R1 (waits for the fill), LDG R2 of the same line (hit):
  //   L1 hit rate 0.5.
  const std::string file = ::testing::TempDir() + "/sm_per_kernel.json";
  std::remove(file.c_str());
  config::global().set("compute.sms", "1", "test");
  config::global().set("compute.results_file", file, "test");
  build();
  std::vector<trace_writer_inst> w(100, op("FFMA", {1}, {1, 2, 3}));
  w.push_back(op("EXIT", {}, {}));
  auto k1 = kernel({w});
  auto k2 = kernel({{ldg(1, 0x10000, 4), op("FFMA", {5}, {1, 1, 1}), ldg(2, 0x10000, 4), op("EXIT", {}, {})}});
  eng->launch({k1->grid, k1->block, k1});
  eng->launch({k2->grid, k2->block, k2});
  sc_core::sc_start();
  ASSERT_EQ(eng->results().size(), 2u);
  std::ifstream f(file);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string j = ss.str();
  // nlohmann-json's compact form; rates and percentages to 6 significant digits (a zero one: 0.0).
  for (const char* want : {"\"cycles\":703,\"warp_insts\":101,\"ipc\":0.14367,",
                           "\"result_bus_stalls\":0,\"dispatch_stalls\":0,\"stall_scoreboard\":594,"
                           "\"stall_pipeline\":0,\"stall_barrier\":0,\"stall_idle\":2113,",
                           "\"unit_issued\":{\"SP\":100,\"DP\":0,\"INT\":1,",
                           "\"unit_utilisation_pct\":{\"SP\":7.11238,\"DP\":0.0,\"INT\":0.0355619,", "\"l1_hit_rate\":0.5,"})
    EXPECT_NE(j.find(want), std::string::npos) << want << "\n" << j;
  std::ostringstream rep;
  eng->report(rep);
  // k2: the first LDG misses the line's 4 sectors, the second (after the FFMA waited for the
  // fill) hits them.
  for (const char* want : {": 703 cycles, 101 warp instructions, IPC 0.144\n", "unit utilisation: SP 7.1 % DP 0.0 % INT 0.0 %",
                           "stalls: result bus 0, dispatch 0, scheduler scoreboard 594 / pipeline 0 / barrier 0 / idle 2113",
                           "L1D_total_cache_accesses 8, hits 4, pending_hits 0, misses 4"})
    EXPECT_NE(rep.str().find(want), std::string::npos) << want << "\n" << rep.str();
  EXPECT_NEAR(eng->l1_hit_rate.value(), 0.5, 1e-12);
}

// compute.results_file is JSON whatever the kernel's name holds (quotes, backslashes, a tab,
// bytes that are not UTF-8): the whole line is written by nlohmann-json.
TEST_F(compute_test, results_file_is_json_for_any_kernel_name) {
  const std::string file = ::testing::TempDir() + "/sm_names.json";
  std::remove(file.c_str());
  config::global().set("compute.sms", "1", "test");
  config::global().set("compute.results_file", file, "test");
  build();
  const std::string name = "f<\"a\\b\">\tx\xff";
  auto k = std::make_shared<const kernel_trace>(
      parse_kernel_trace_text(write_kernel_trace(name, 1, {1, 1, 1}, {32, 1, 1}, 70, 0, 32, {{op("EXIT", {}, {})}}), "generated"));
  ASSERT_EQ(k->name, name);
  eng->launch({k->grid, k->block, k});
  sc_core::sc_start();
  std::ifstream f(file);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string text = ss.str();
  EXPECT_NE(text.find("  {\"kernel\":1,\"name\":\"f<\\\"a\\\\b\\\">\\tx\xef\xbf\xbd\",\"cycles\":"), std::string::npos) << text;
  const auto j = nlohmann::json::parse(text);
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["name"], "f<\"a\\b\">\tx\xef\xbf\xbd");  // 0xff became U+FFFD
  EXPECT_EQ(j[0]["unit_issued"]["INT"], 1);
}

TEST_F(compute_test, l1_misses_take_the_targets_latency) {
  config::global().set("compute.sms", "1", "test");
  config::global().set("compute.mem_base", "0", "test");
  config::global().set("vram.read_latency", "100 ns", "test");
  config::global().set("compute.memory", "tlm", "test");  // the target's delay is the latency
  build();
  // 100 ns at 883 ps/cycle = 113.25 -> 114 cycles. 32 one-sector lines accessed at cycles 7..38,
  // each sent after the L1 latency, the last at 58, back at 58 + 114 = 172.
  auto k = kernel({{ldg(1, 0x1000, 128), op("EXIT", {}, {})}});
  eng->launch({k->grid, k->block, k});
  sc_core::sc_start();
  ASSERT_EQ(eng->results().size(), 1u);
  EXPECT_EQ(eng->results()[0].cycles, 172u);
  EXPECT_EQ(eng->mem_reads.value(), 32u);
  EXPECT_EQ(eng->l1_misses.value(), 32u);
  EXPECT_TRUE(eng->modelled_errors().empty());
}

TEST_F(compute_test, memory_error_is_a_modelled_error) {
  config::global().set("compute.sms", "1", "test");
  config::global().set("compute.mem_base", "0", "test");
  config::global().set("compute.mem_size", "4 GiB", "test");
  config::global().set("vram.size", "1 GiB", "test");
  build();
  auto k = kernel({{ldg(1, 0x80000000, 4), op("EXIT", {}, {})}});  // beyond the 1 GiB memory
  eng->launch({k->grid, k->block, k});
  sc_core::sc_start();
  EXPECT_EQ(eng->mem_errors.value(), 4u);  // the line's 4 sector reads
  ASSERT_EQ(eng->modelled_errors().size(), 4u);
  EXPECT_NE(eng->modelled_errors()[0].find("trace address 0x80000000"), std::string::npos);
}

TEST_F(compute_test, launch_and_config_errors) {
  build();
  auto k = kernel({{op("EXIT", {}, {})}});
  EXPECT_THROW(eng->launch({{2, 1, 1}, k->block, k}), std::invalid_argument);
  EXPECT_THROW(eng->launch({k->grid, k->block, nullptr}), std::invalid_argument);
  EXPECT_THROW(make_gpu_config("GTX480", {}, "compute.gpu"), config_error);
  EXPECT_THROW(make_gpu_config("QV100", {"/nonexistent/trace.config"}, "compute.gpu"), config_error);
  gpu_config h = make_gpu_config("H100", {}, "compute.gpu");
  EXPECT_EQ(h.spec[5].name, "GMMA");
}

TEST_F(compute_test, cta_that_does_not_fit_is_a_modelled_error) {
  build();
  auto text = write_kernel_trace("big", 1, {1, 1, 1}, {32, 1, 1}, 70, 1 << 20, 32, {{op("EXIT", {}, {})}});
  auto k = std::make_shared<const kernel_trace>(parse_kernel_trace_text(text, "big.traceg"));
  eng->launch({k->grid, k->block, k});
  sc_core::sc_start();
  ASSERT_EQ(eng->modelled_errors().size(), 1u);
  EXPECT_NE(eng->modelled_errors()[0].find("does not fit an SM"), std::string::npos);
}

TEST_F(compute_test, perfetto_spans_for_sampled_warps) {
  config::global().set("compute.sms", "1", "test");
  config::global().set("compute.trace_warps", "2", "test");  // warp slots 0, 2, ... of SM 0
  build();
  const std::string file = ::testing::TempDir() + "sm_trace.json";
  ASSERT_TRUE(tracer::global().open(file));
  auto k = kernel({{op("FFMA", {1}, {2, 3, 4}), op("EXIT", {}, {})},
                   {op("IADD3", {1}, {2, 3, 4}), op("EXIT", {}, {})},
                   {op("MUFU.RSQ", {1}, {2}), op("EXIT", {}, {})}});
  eng->launch({k->grid, k->block, k});
  sc_core::sc_start();
  tracer::global().close();
  std::ifstream f(file);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string t = ss.str();
  EXPECT_NE(t.find("compute.sm0.warp0"), std::string::npos);
  EXPECT_NE(t.find("compute.sm0.warp2"), std::string::npos);
  EXPECT_EQ(t.find("compute.sm0.warp1"), std::string::npos);  // not sampled
  EXPECT_NE(t.find("\"FFMA\""), std::string::npos);
  EXPECT_NE(t.find("\"MUFU.RSQ\""), std::string::npos);
  EXPECT_EQ(t.find("\"IADD3\""), std::string::npos);
  // The kernel's span on the engine's track, its one CTA in CTA slot 0, and warp 0 (the first
  // warp launched on the SM is always sampled; with the default trace_warp_sample 16 the next
  // two are not) from start to end on its slot's track.
  EXPECT_NE(t.find("\"compute\""), std::string::npos);
  EXPECT_NE(t.find("compute.sm0.cta0"), std::string::npos);
  EXPECT_EQ(t.find("compute.sm0.cta1"), std::string::npos);
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t p = t.find(what); p != std::string::npos; p = t.find(what, p + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("\"name\":\"cta\""), 1u);
  EXPECT_EQ(count("\"name\":\"warp\""), 1u);
  EXPECT_EQ(count("\"cycles\":"), 1u);  // one kernel span
}

namespace {
// A target that answers every access after 50 ns and records the side-band data it saw.
struct recording_target : sc_core::sc_module {
  tlm_utils::simple_target_socket<recording_target> in{"in"};
  std::vector<gpu_ext> seen;
  std::vector<uint64_t> addrs;
  explicit recording_target(sc_core::sc_module_name n) : sc_module(n) { in.register_b_transport(this, &recording_target::b_transport); }
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) {
    seen.push_back(ext_of(gp));
    addrs.push_back(gp.get_address());
    d += sc_core::sc_time(50, sc_core::SC_NS);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};
}  // namespace

TEST_F(compute_test, accesses_carry_the_vm_side_band_and_fold_addresses) {
  config::global().set("compute.sms", "1", "test");
  config::global().set("compute.vm_engine", "0", "test");
  config::global().set("compute.vm_client", "3", "test");
  config::global().set("compute.dma_slot", "5", "test");
  config::global().set("compute.vm_context", "0x1234", "test");
  config::global().set("compute.mem_base", "0x10000000", "test");
  config::global().set("compute.mem_size", "64 KiB", "test");
  config::global().set("compute.memory", "tlm", "test");  // the target's 50 ns are the latency
  tlm::tlm_global_quantum::instance().set(sc_core::sc_time(1, sc_core::SC_US));
  compute_engine e("compute");
  recording_target t("mmu");
  e.out.bind(t.in);
  ASSERT_EQ(e.initiators().size(), 1u);
  EXPECT_EQ(e.initiators()[0].to, "interconnect");  // the platform's compute.out.to redirects it
  // One LDG of one 128-byte line at trace address 0x7f0000012300 (32 threads x 4 B): folded to
  // 0x10000000 + (0x7f0000012300 mod 64 KiB = 0x2300), its 4 sectors. 50 ns / 883 ps = 56.6 ->
  // 57 cycles: issue 2, unit 5, L1 access 6, the 4 sector requests sent after the L1 latency at
  // 26..29, the last back at 29 + 57 = 86; kernel 87.
  auto k = kernel({{ldg(1, 0x7f0000012300, 4), op("EXIT", {}, {})}});
  e.launch({k->grid, k->block, k});
  sc_core::sc_start();
  ASSERT_EQ(t.seen.size(), 4u);
  EXPECT_EQ(t.addrs[0], 0x10002300u);
  EXPECT_EQ(t.addrs[3], 0x10002360u);
  EXPECT_EQ(t.seen[0].vm_engine, 0u);
  EXPECT_EQ(t.seen[0].vm_client, 3u);
  EXPECT_EQ(t.seen[0].dma_slot, 5u);
  EXPECT_EQ(t.seen[0].vm_context, 0x1234u);
  EXPECT_EQ(t.seen[0].priv, privilege::user);
  ASSERT_EQ(e.results().size(), 1u);
  EXPECT_EQ(e.results()[0].cycles, 87u);
}

TEST_F(compute_test, memcpy_counts_sectors_and_optionally_fills_in_zero_cycles) {
  // Accel-Sim's perf_memcpy_to_gpu touches one L2 sector per 32 bytes (counter 0, 32, ... below
  // the size) and charges no cycles. 300 bytes: sectors at 0, 32, ..., 288: 10.
  config::global().set("compute.mem_base", "0x10000000", "test");
  config::global().set("compute.mem_size", "64 KiB", "test");
  config::global().set("compute.vm_context", "0x1234", "test");
  {
    compute_engine e("plain");
    recording_target t("t0");
    e.out.bind(t.in);
    EXPECT_TRUE(e.memcpy_to_device(0x7f0000012340, 300));
    EXPECT_EQ(e.memcpys.value(), 1u);
    EXPECT_EQ(e.memcpy_bytes.value(), 300u);
    EXPECT_EQ(e.memcpy_sectors.value(), 10u);
    EXPECT_EQ(e.memcpy_writes.value(), 0u);
    EXPECT_TRUE(t.seen.empty());  // no L2 here: nothing to warm, no data to move
  }
  // memcpy_fill: zeros over [0x12340, 0x1246c) folded into the 64 KiB window at 0x10000000, one
  // write per 128-byte line part: 0x2340 (64 bytes), 0x2380 (128), 0x2400 (108); the params'
  // side band; the target's 50 ns are not charged (simulated time stays 0).
  config::global().set("compute.memcpy_fill", "true", "test");
  compute_engine e("compute");
  recording_target t("t1");
  e.out.bind(t.in);
  EXPECT_TRUE(e.memcpy_to_device(0x7f0000012340, 300));
  EXPECT_EQ(e.memcpy_writes.value(), 3u);
  ASSERT_EQ(t.addrs.size(), 3u);
  EXPECT_EQ(t.addrs[0], 0x10002340u);
  EXPECT_EQ(t.addrs[1], 0x10002380u);
  EXPECT_EQ(t.addrs[2], 0x10002400u);
  EXPECT_EQ(t.seen[2].vm_context, 0x1234u);
  EXPECT_EQ(t.seen[2].priv, privilege::user);
  EXPECT_EQ(e.memcpy_sectors.value(), 10u);
  EXPECT_EQ(sc_core::sc_time_stamp(), sc_core::SC_ZERO_TIME);
  EXPECT_EQ(e.kernels.value(), 0u);
}

using gpuvp::testing::run_gpuvp;

TEST(sm_cli, run_workload_kernelslist) {
  auto r = run_gpuvp({"run", "--workload", sm_data_dir() + "/ffma/kernelslist.g", "--set", "compute.sms=2"});
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("kernel 1 _Z9ffma_testPf"), std::string::npos) << r.out << r.err;
  // The list's MemcpyHtoD of 4096 bytes: 128 sectors, no cycles (the DtoH line is skipped).
  EXPECT_NE(r.out.find("memcpy: 1 MemcpyHtoD, 4096 bytes, 128 sectors (no cycles)"), std::string::npos) << r.out;
}

TEST(sm_cli, malformed_trace_fails_naming_file_and_line) {
  auto r = run_gpuvp({"run", "--workload", sm_data_dir() + "/bad/kernelslist.g"});
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.err.find("kernel-1.traceg:24: unknown volta opcode 'FROB'"), std::string::npos) << r.out << r.err;
}

TEST(sm_cli, run_is_deterministic) {
  auto a = run_gpuvp({"run", "--workload", sm_data_dir() + "/ffma/kernelslist.g", "--set", "compute.sms=2"});
  auto b = run_gpuvp({"run", "--workload", sm_data_dir() + "/ffma/kernelslist.g", "--set", "compute.sms=2"});
  auto kernel_line = [](const std::string& out) {
    auto p = out.find("kernel 1 ");
    return out.substr(p, out.find('\n', p) - p);
  };
  ASSERT_EQ(a.rc, 0);
  EXPECT_EQ(kernel_line(a.out), kernel_line(b.out));
}

TEST(sm_cli, sm_run_tool) {
  gpuvp::testing::fresh_simulation();
  const tool* t = registry::global().find_tool("sm-run");
  ASSERT_NE(t, nullptr);
  std::string list = sm_data_dir() + "/ffma/kernelslist.g";
  std::vector<std::string> args{"sm-run", "--gpu", "A100", "--sms", "1", list};
  std::vector<char*> argv;
  for (auto& x : args) argv.push_back(x.data());
  ::testing::internal::CaptureStdout();
  int rc = t->main(int(argv.size()), argv.data());
  std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(rc, 0);
  EXPECT_NE(out.find("kernel 1 _Z9ffma_testPf"), std::string::npos) << out;
  EXPECT_NE(out.find("memcpy HtoD 0x7f4e8a000000 4096 bytes: 128 sectors, no cycles"), std::string::npos) << out;
  std::vector<std::string> bad{"sm-run", "--gpu", "GTX480", list};
  std::vector<char*> argv2;
  for (auto& x : bad) argv2.push_back(x.data());
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(t->main(int(argv2.size()), argv2.data()), 2);  // an unknown --gpu is an option error
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("unknown shipped GPU configuration 'GTX480'"), std::string::npos);
  std::vector<std::string> zero{"sm-run", "--threads", "0", list};
  std::vector<char*> argv3;
  for (auto& x : zero) argv3.push_back(x.data());
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(t->main(int(argv3.size()), argv3.data()), 2);
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("--threads 0: '0' is out of range [1, 64]"), std::string::npos);
}

// `gpuvp run --workload` and `gpuvp sm-run` give the same cycles for the reference's memory
// calibration kernels (one list: 8 dependent line loads, a pointer chase of 8 hops, the 4-warp
// store kernel, the 4-warp load kernel twice so that the second hits L2): the compute engine's
// default memory (gpgpu-sim) is the same L2/crossbar/DRAM model, `out` carrying the accesses.
TEST(sm_cli, run_and_sm_run_agree_on_the_memory_kernels) {
  gpuvp::testing::fresh_simulation();
  const std::string dir = ::testing::TempDir() + "/sm_run_vs_run";
  std::filesystem::create_directories(dir);
  const uint64_t G = 0x7f4000000000ull;
  auto o = [](const std::string& opc, std::vector<unsigned> d, std::vector<unsigned> s) {
    return trace_writer_inst{opc, std::move(d), std::move(s), 0, {}, 0xffffffffu};
  };
  auto m = [](const std::string& opc, std::vector<unsigned> d, std::vector<unsigned> s, uint64_t base, uint64_t stride) {
    std::vector<uint64_t> a(32);
    for (unsigned t = 0; t < 32; ++t) a[t] = base + t * stride;
    return trace_writer_inst{opc, std::move(d), std::move(s), 4, a, 0xffffffffu};
  };
  auto loads = [&](unsigned first) {
    std::vector<trace_writer_inst> v;
    for (unsigned i = 0; i < 8; ++i) {
      v.push_back(m("LDG.E.32", {10 + i}, {2}, G + 128 * (first + i), 4));
      v.push_back(o("FFMA", {40 + i}, {10 + i, 3, 4}));
    }
    v.push_back(o("EXIT", {}, {}));
    return v;
  };
  std::vector<std::vector<std::vector<trace_writer_inst>>> kernels;
  kernels.push_back({loads(0)});
  std::vector<trace_writer_inst> chase;
  for (unsigned h = 0; h < 8; ++h) chase.push_back(m("LDG.E.32", {4}, {4}, G + 17 * 128 * h + 8 + 0x100000, 0));
  chase.push_back(o("FFMA", {5}, {4, 3, 2}));
  chase.push_back(o("EXIT", {}, {}));
  kernels.push_back({chase});
  std::vector<std::vector<trace_writer_inst>> st, l4;
  for (unsigned w = 0; w < 4; ++w) {
    std::vector<trace_writer_inst> v;
    for (unsigned i = 0; i < 8; ++i) {
      v.push_back(o("FFMA", {5}, {2, 3, 4}));
      v.push_back(m("STG.E.32", {}, {6, 5}, G + 0x200000 + 128 * (8 * w + i), 4));
    }
    v.push_back(o("EXIT", {}, {}));
    st.push_back(v);
    l4.push_back(loads(0x4000 + 8 * w));
  }
  kernels.push_back(st);
  kernels.push_back(l4);
  kernels.push_back(l4);
  std::ofstream list(dir + "/kernelslist.g");
  for (unsigned i = 0; i < kernels.size(); ++i) {
    const std::string f = "kernel-" + std::to_string(i + 1) + ".traceg";
    std::ofstream(dir + "/" + f) << write_kernel_trace("k" + std::to_string(i + 1), i + 1, {1, 1, 1},
                                                       {unsigned(kernels[i].size()) * 32, 1, 1}, 70, 0, 32, kernels[i]);
    list << f << "\n";
  }
  list.close();
  auto cycles_of = [](const std::string& out) {
    std::vector<std::string> v;
    for (size_t p = out.find("\nkernel "); p != std::string::npos; p = out.find("\nkernel ", p + 1))
      v.push_back(out.substr(p + 1, out.find(" cycles", p) - p - 1));
    return v;
  };
  auto run = run_gpuvp({"run", "--workload", dir + "/kernelslist.g"});
  ASSERT_EQ(run.rc, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("memory: GPGPU-Sim memory system: 32 DRAM channels"), std::string::npos) << run.out;
  // The other engines' path (docs/models/gpu_memory.md, "Other engines"): the default bypass.
  EXPECT_NE(run.out.find(" of compute's own; other engines (copy engine, PFIFO, CP, host): VRAM through the interconnect (or a "
                         "gpu_l2 component's memory system), bypassing this memory system (no contention with the SMs)"),
            std::string::npos)
      << run.out;
  const tool* t = registry::global().find_tool("sm-run");
  std::vector<std::string> args{"sm-run", dir + "/kernelslist.g"};
  std::vector<char*> argv;
  for (auto& x : args) argv.push_back(x.data());
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(t->main(int(argv.size()), argv.data()), 0);
  const std::string smrun = "\n" + ::testing::internal::GetCapturedStdout();
  const auto a = cycles_of("\n" + run.out), b = cycles_of(smrun);
  ASSERT_EQ(a.size(), 5u) << run.out;
  EXPECT_EQ(a, b) << run.out << smrun;
  // The SMs on host threads (a speed switch): the same report (every component's statistics,
  // the SMs' transactions through compute.out among them) but for the host's speed, and the same
  // cycles from sm-run.
  auto threaded = run_gpuvp({"run", "--workload", dir + "/kernelslist.g", "--set", "compute.sim_threads=2"});
  ASSERT_EQ(threaded.rc, 0) << threaded.err;
  auto simulated = [](const std::string& out) {
    std::istringstream in(out);
    std::string line, kept;
    while (std::getline(in, line))
      if (line.find("wall time") == std::string::npos && line.find("simulation speed") == std::string::npos &&
          line.rfind("gpuvp run: ", 0) != 0)  // the first line names the --set applied
        kept += line + "\n";
    return kept;
  };
  EXPECT_EQ(simulated(threaded.out), simulated(run.out));
  std::vector<std::string> args3{"sm-run", "--threads", "3", dir + "/kernelslist.g"};
  std::vector<char*> argv3;
  for (auto& x : args3) argv3.push_back(x.data());
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(t->main(int(argv3.size()), argv3.data()), 0);
  EXPECT_EQ(cycles_of("\n" + ::testing::internal::GetCapturedStdout()), a);
  // The second 4-warp kernel hits L2 and is faster than the first (persisting L2, flushed L1).
  EXPECT_NE(smrun.find("kernel 5 k5: "), std::string::npos);
}

// The RTX 3070's interconnect buffers (GPGPU-Sim's default 64 packets: its option file sets none)
// bind on the bandwidth kernel's shape (92 CTAs, 2 per SM): an L1 miss queue waits while its
// cluster's crossbar input is full (mem_port::full). The compute engine's memory path asks the
// same memory system, so `gpuvp run` and `gpuvp sm-run` give the same cycles.
TEST(sm_cli, run_and_sm_run_agree_where_the_crossbar_input_fills) {
  gpuvp::testing::fresh_simulation();
  const std::string dir = ::testing::TempDir() + "/sm_run_vs_run_rtx3070";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/kernel-1.traceg") << gpuvp::sm::testing::bandwidth_kernel_text(92, 86);
  std::ofstream(dir + "/kernelslist.g") << "kernel-1.traceg\n";
  auto cycles_line = [](const std::string& out) {
    const size_t p = out.find("kernel 1 bw: ");
    return p == std::string::npos ? out : out.substr(p, out.find(" cycles", p) - p);
  };
  auto run = run_gpuvp({"run", "--workload", dir + "/kernelslist.g", "--set", "compute.gpu=RTX3070"});
  ASSERT_EQ(run.rc, 0) << run.err;
  const tool* t = registry::global().find_tool("sm-run");
  std::vector<std::string> args{"sm-run", "--gpu", "RTX3070", dir + "/kernelslist.g"};
  std::vector<char*> argv;
  for (auto& x : args) argv.push_back(x.data());
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(t->main(int(argv.size()), argv.data()), 0);
  const std::string smrun = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(cycles_line(run.out), cycles_line(smrun));
  EXPECT_NE(smrun.find("kernel 1 bw: "), std::string::npos) << smrun;
}
