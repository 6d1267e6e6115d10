// SPDX-License-Identifier: Apache-2.0
// The gpu_l2 component: other engines' VRAM accesses through the compute engine's L2/crossbar/
// DRAM model (docs/models/gpu-memory.md, "Other engines"), driven through its sockets.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

#include "cli.h"
#include "compute.h"
#include "gpu_l2.h"
#include "gpuvp/config.h"
#include "gpuvp/memory.h"
#include "cli_testing.h"
#include "testing.h"

using namespace gpuvp;
using namespace gpuvp::sm;
using sc_core::SC_PS;
using sc_core::sc_time;

namespace {

constexpr uint64_t P = 883;  // QV100 core period in ps (1132 MHz)

// compute (QV100, memory gpgpu-sim) and gpu_l2, each in front of its own sparse memory; VRAM at 0.
struct rig {
  void build(bool model = true) {
    tlm::tlm_global_quantum::instance().set(sc_time(100, sc_core::SC_NS));
    auto& c = config::global();
    c.set("compute.mem_base", "0", "test");
    c.set("gpu_l2.vram_base", "0", "test");
    c.set("gpu_l2.model", model ? "true" : "false", "test");
    c.set("ram.read_latency", "20 ns", "test");
    c.set("ram.write_latency", "10 ns", "test");
    eng = std::make_unique<compute_engine>("compute");
    l2 = std::make_unique<gpu_l2_port>("gpu_l2");
    sm_mem = std::make_unique<sparse_memory>("sm_ram");
    ram = std::make_unique<sparse_memory>("ram");
    ini = std::make_unique<gpuvp::testing::test_initiator>("engine");
    eng->out.bind(sm_mem->in);
    l2->out.bind(ram->in);
    ini->out.bind(l2->in);
  }
  // One access at local offset `at` from the engine; the delay it comes back with.
  sc_time access(bool write, uint64_t addr, unsigned len, sc_time at = sc_core::SC_ZERO_TIME) {
    std::vector<uint8_t> buf(len, 0x5a);
    ini->delay = at;
    EXPECT_EQ(write ? ini->write(addr, buf.data(), len) : ini->read(addr, buf.data(), len), tlm::TLM_OK_RESPONSE);
    return ini->delay;
  }
  std::unique_ptr<compute_engine> eng;
  std::unique_ptr<gpu_l2_port> l2;
  std::unique_ptr<sparse_memory> sm_mem, ram;
  std::unique_ptr<gpuvp::testing::test_initiator> ini;
};

class gpu_l2_test : public gpuvp::testing::sim_test, public rig {};

}  // namespace

// Worked by hand from the QV100 parameters and the memory model's pipeline (docs/models/gpu-memory.md;
// core, crossbar, L2 at 1132 MHz, DRAM at 850 MHz: edge j has gpu_sim_cycle ceil(j x 1.3318)), no
// kernel yet, so the frame starts at 0. A read of a fresh sector at time 0 (cycle 0): popped by
// its sub-partition in 3, ROP 160, L2 access in 164, a miss, in the L2 -> DRAM queue in 165,
// popped at DRAM edge 124 (gpu_sim_cycle 166), out of the latency queue (+100) at edge 199 (266):
// activate in 200, column 212, CL 12 and one data cycle: DRAM -> L2 queue at edge 225 (264.71 ns,
// core 299.6), L2 fill in 300, out of the L2 in 301, answered 5 cycles later: 306 * 883 ps. The
// same sector read again at 1 us (first edge: cycle 1133, 1132.5) is an L2 hit: access in 1297,
// answered in 1302 (169 cycles). A write (write-back L2, no DRAM read) is acknowledged 2 cycles
// sooner than a read's data would be: 167 cycles.
TEST_F(gpu_l2_test, l2_miss_and_hit_latency_by_hand) {
  build();
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // elaboration: gpu_l2 finds the compute engine
  EXPECT_EQ(access(false, 0x1000, 32), sc_time(306 * P, SC_PS));
  EXPECT_EQ(access(false, 0x1000, 32, sc_time(1, sc_core::SC_US)), sc_time(1302 * P, SC_PS));
  EXPECT_EQ(access(true, 0x2000, 32, sc_time(2000 * P, SC_PS)), sc_time(2167 * P, SC_PS));
  EXPECT_EQ(l2->accesses.value(), 3u);
  EXPECT_EQ(l2->read_sectors.value(), 2u);
  EXPECT_EQ(l2->write_sectors.value(), 1u);
  EXPECT_EQ(l2->busy_cycles.value(), 306u + 169 + 167);
  const mem_stats s = eng->shared_memory()->stats();
  EXPECT_EQ(s.l2_misses, 2u);  // the first read; the write to a line not present
  EXPECT_EQ(s.l2_hits, 1u);
  EXPECT_EQ(s.dram_reads, 1u);
  // Data still moves through `out`: the ram saw every access.
  EXPECT_EQ(ram->reads.value(), 2u);
  EXPECT_EQ(ram->writes.value(), 1u);
  std::ostringstream rep;
  eng->report(rep);
  EXPECT_NE(rep.str().find("other engines (copy engine, PFIFO, CP, host): VRAM through gpu_l2 (gpu_l2.in) into this memory system"),
            std::string::npos)
      << rep.str();
}

// Outside the VRAM window, debug accesses and model false: forwarded with the downstream delay.
TEST_F(gpu_l2_test, passes_through_outside_vram_debug_and_model_false) {
  config::global().set("gpu_l2.vram_size", "1 MiB", "test");
  build();
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  EXPECT_EQ(access(false, 0x100000, 64), sc_time(20, sc_core::SC_NS));  // first byte past the window
  // The last sector inside, at 5 ns: first core edge cycle 6 (5.66), a write: 6 + 167.
  EXPECT_EQ(access(true, 0xfffe0, 32, sc_time(5, sc_core::SC_NS)), sc_time(173 * P, SC_PS));
  access(false, 0xffff0, 32);  // straddles the window's end: passed
  ini->ext.debug = true;
  EXPECT_EQ(access(false, 0x40, 4), sc_time(20, sc_core::SC_NS));
  EXPECT_EQ(l2->passed.value(), 3u);
  EXPECT_EQ(l2->accesses.value(), 1u);
}

TEST_F(gpu_l2_test, model_false_is_a_plain_wire) {
  build(false);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  EXPECT_EQ(access(false, 0x1000, 32), sc_time(20, sc_core::SC_NS));
  EXPECT_EQ(access(true, 0x1000, 32), sc_time(10, sc_core::SC_NS));
  EXPECT_EQ(l2->passed.value(), 2u);
  EXPECT_EQ(eng->shared_memory()->stats().l2_accesses, 0u);
  std::ostringstream rep;
  eng->report(rep);
  EXPECT_NE(rep.str().find("VRAM through the interconnect, bypassing this memory system"), std::string::npos) << rep.str();
}

namespace {

trace_writer_inst ldg(unsigned d, uint64_t base, uint64_t stride) {
  std::vector<uint64_t> a(32);
  for (unsigned t = 0; t < 32; ++t) a[t] = base + t * stride;
  return {"LDG.E", {d}, {4}, 4, a, 0xffffffffu};
}

// 8 warps x 16 independent loads, one sector per lane: 4096 L2 sector misses.
std::shared_ptr<const kernel_trace> loads_kernel() {
  std::vector<std::vector<trace_writer_inst>> warps;
  for (unsigned w = 0; w < 8; ++w) {
    std::vector<trace_writer_inst> v;
    for (unsigned i = 0; i < 16; ++i) v.push_back(ldg(8 + i, 0x10000000ull + (w * 16 + i) * 1024ull, 32));
    v.push_back({"EXIT", {}, {}, 0, {}, 0xffffffffu});
    warps.push_back(v);
  }
  return std::make_shared<const kernel_trace>(parse_kernel_trace_text(
      write_kernel_trace("loads", 1, {1, 1, 1}, {unsigned(warps.size()) * 32, 1, 1}, 70, 0, 32, warps), "generated"));
}

// A copy engine streaming 16 KiB reads of VRAM back to back while `on`, in its own thread.
struct streamer : sc_core::sc_module {
  gpuvp::testing::test_initiator& ini;
  bool on = true;
  uint64_t bytes = 0;
  streamer(sc_core::sc_module_name n, gpuvp::testing::test_initiator& i) : sc_module(n), ini(i) {
    SC_HAS_PROCESS(streamer);
    SC_THREAD(run);
  }
  void run() {
    std::vector<uint8_t> buf(16384);
    for (uint64_t a = 0; on; a = (a + buf.size()) % (64u << 20)) {
      ini.delay = sc_core::SC_ZERO_TIME;
      if (ini.read(a, buf.data(), unsigned(buf.size())) != tlm::TLM_OK_RESPONSE) return;
      bytes += buf.size();
      sc_core::wait(ini.delay);
    }
  }
};

}  // namespace

// The same kernel alone, with a copy engine streaming through gpu_l2 (slower: the kernel's
// misses queue behind the stream's sectors at the crossbar ports, L2 slices and DRAM channels),
// and with gpu_l2.model false (the stream bypasses the model: exactly the cycles alone).
TEST_F(gpu_l2_test, kernel_is_slower_while_a_copy_engine_streams) {
  auto run = [](int mode) {  // 0: alone, 1: stream through the model, 2: stream with model false
    gpuvp::testing::fresh_simulation();
    rig t;
    t.build(mode != 2);
    std::unique_ptr<streamer> s;
    if (mode) s = std::make_unique<streamer>("copy", *t.ini);
    auto k = loads_kernel();
    kernel_result got;
    t.eng->launch({k->grid, k->block, k}, [&](const kernel_result& r) {
      got = r;
      if (s) s->on = false;
    });
    sc_core::sc_start();
    if (s) {
      EXPECT_GT(s->bytes, 0u);
    }
    return got;
  };
  const kernel_result alone = run(0), busy = run(1), bypass = run(2);
  EXPECT_EQ(alone.mem.l2_misses, 4096u);
  EXPECT_GT(busy.cycles, alone.cycles);
  EXPECT_EQ(bypass.cycles, alone.cycles);
  EXPECT_EQ(bypass.mem.l2_accesses, alone.mem.l2_accesses);
  std::cout << "loads kernel: alone " << alone.cycles << " cycles, with a 16 KiB-read stream through gpu_l2 "
            << busy.cycles << ", stream bypassing " << bypass.cycles << "\n";
}

// Without a compute engine with memory gpgpu-sim there is nothing to share: a configuration error.
TEST(gpu_l2_cli, needs_a_compute_engine_with_gpgpu_sim_memory) {
  const std::string dir = ::testing::TempDir() + "gpu_l2_cli";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/fixed.yaml") << "components:\n  compute: compute\n  gpu_l2: gpu_l2\ncompute:\n  memory: fixed\n";
  auto r = gpuvp::testing::run_gpuvp({"run", "--config", dir + "/fixed.yaml", "--workload",
                                      gpuvp::testing::source_path("tests/sm/data/ffma/kernelslist.g")});
  EXPECT_EQ(r.rc, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("compute.memory is not gpgpu-sim"), std::string::npos) << r.err;
  std::ofstream(dir + "/none.yaml") << "components:\n  gpu_l2: gpu_l2\ngpu_l2:\n  compute_component: gpu\n";
  r = gpuvp::testing::run_gpuvp({"run", "--config", dir + "/none.yaml", "--workload",
                                 gpuvp::testing::source_path("tests/sm/data/ffma/kernelslist.g")});
  EXPECT_EQ(r.rc, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("gpu_l2.compute_component: no compute component 'gpu'"), std::string::npos) << r.err;
}

// `gpuvp run`: a traffic generator bound to gpu_l2.in; the report names the engines' path.
TEST(gpu_l2_cli, run_report_names_the_engines_memory_path) {
  const std::string dir = ::testing::TempDir() + "gpu_l2_cli";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/l2.yaml") << "components:\n  compute: compute\n  gpu_l2: gpu_l2\n  traffic: traffic\n"
                                     "traffic:\n  initiators: 1\n  g0:\n    pattern: sequential\n    base: 0x200000000\n"
                                     "    range: 1 MiB\n    size: 128\n    count: 4\n    to: gpu_l2.in\n";
  auto r = gpuvp::testing::run_gpuvp({"run", "--config", dir + "/l2.yaml", "--workload",
                                      gpuvp::testing::source_path("tests/sm/data/ffma/kernelslist.g")});
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("other engines (copy engine, PFIFO, CP, host): VRAM through gpu_l2 (gpu_l2.in) into this memory system"),
            std::string::npos)
      << r.out;
  // 4 reads of 128 bytes = 4 sectors each.
  EXPECT_NE(r.out.find("gpu_l2: memory path: VRAM [compute's L2 slices, crossbar and DRAM channels]; 4 timed accesses (16 "
                       "sectors read, 0 written"),
            std::string::npos)
      << r.out;
}
