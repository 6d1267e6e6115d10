// SPDX-License-Identifier: Apache-2.0
// The gpu_l2 component: the GPU's memory system (L2 slices, crossbar, DRAM channels) as a platform
// component, the compute engine's SMs bound to it through their l2 port, timing other engines' VRAM
// accesses (docs/models/gpu_memory.md, "Other engines"), driven through its sockets.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

#include "cli.h"
#include "compute.h"
#include "copy_tlm.h"
#include "gpu_l2.h"
#include "gpuvp/config.h"
#include "gpuvp/memory.h"
#include "gpuvp/router.h"
#include "cli_testing.h"
#include "testing.h"

using namespace gpuvp;
using namespace gpuvp::sm;
using namespace gpuvp::gpu_memory;
using sc_core::SC_PS;
using sc_core::sc_time;

namespace {

constexpr uint64_t P = 883;  // QV100 core period in ps (1132 MHz)

// compute (QV100, memory gpgpu-sim) and gpu_l2 (QV100), VRAM at 0. compute.out goes to gpu_l2.in
// and compute.l2 to gpu_l2.sms (shared: the SMs use gpu_l2's memory system; `port` false: only
// out) or to a sparse memory of its own (separate: the SMs keep their own); gpu_l2.out goes to
// `ram`, and a test initiator (an engine) to gpu_l2.in.
struct rig {
  void build(bool model = true, bool shared = false, bool port = true) {
    tlm::tlm_global_quantum::instance().set(sc_time(100, sc_core::SC_NS));
    auto& c = config::global();
    c.set("compute.mem_base", "0", "test");
    c.set("gpu_l2.vram_base", "0", "test");
    c.set("gpu_l2.model", model ? "true" : "false", "test");
    c.set("ram.read_latency", "20 ns", "test");
    c.set("ram.write_latency", "10 ns", "test");
    eng = std::make_unique<compute_engine>("compute");
    l2 = std::make_unique<gpu_l2_port>("gpu_l2");
    ram = std::make_unique<sparse_memory>("ram");
    ini = std::make_unique<gpuvp::testing::test_initiator>("engine");
    if (shared) {
      eng->out.bind(l2->in);
      if (port) eng->l2.bind(l2->sms);
    } else {
      sm_mem = std::make_unique<sparse_memory>("sm_ram");
      eng->out.bind(sm_mem->in);
    }
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

// Worked by hand from the QV100 parameters and the memory model's pipeline (docs/models/gpu_memory.md;
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
  build();  // the engine alone on gpu_l2's memory system: the compute engine keeps its own
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  EXPECT_EQ(access(false, 0x1000, 32), sc_time(306 * P, SC_PS));
  EXPECT_EQ(access(false, 0x1000, 32, sc_time(1, sc_core::SC_US)), sc_time(1302 * P, SC_PS));
  EXPECT_EQ(access(true, 0x2000, 32, sc_time(2000 * P, SC_PS)), sc_time(2167 * P, SC_PS));
  EXPECT_EQ(l2->accesses.value(), 3u);
  EXPECT_EQ(l2->read_sectors.value(), 2u);
  EXPECT_EQ(l2->write_sectors.value(), 1u);
  EXPECT_EQ(l2->busy_cycles.value(), 306u + 169 + 167);
  const mem_stats s = l2->memory().stats();
  EXPECT_EQ(s.l2_misses, 2u);  // the first read; the write to a line not present
  EXPECT_EQ(s.l2_hits, 1u);
  EXPECT_EQ(s.dram_reads, 1u);
  // The component's statistics are its memory system's.
  EXPECT_EQ(l2->l2_accesses.value(), 3.0);
  EXPECT_EQ(l2->l2_misses.value(), 2.0);
  EXPECT_EQ(l2->l2_hits.value(), 1.0);
  EXPECT_EQ(l2->dram_reads.value(), 1.0);
  EXPECT_EQ(l2->dram_writes.value(), 0.0);  // write-back L2: the dirty sector stays
  EXPECT_EQ(l2->dram_bytes.value(), 32.0);  // the one sector read
  // One DRAM access, to row 0 of a bank never opened: GPGPU-Sim's scheduler takes the bank's
  // curr_row as 0 until its first activate and counts the access as a row hit.
  EXPECT_EQ(l2->row_buffer_locality.value(), 1.0);
  // The compute engine's memory is another one, untouched.
  EXPECT_NE(eng->shared_memory(), &l2->memory());
  EXPECT_EQ(eng->shared_memory()->stats().l2_accesses, 0u);
  EXPECT_EQ(eng->memory_owner(), "");
  // Data still moves through `out`: the ram saw every access.
  EXPECT_EQ(ram->reads.value(), 2u);
  EXPECT_EQ(ram->writes.value(), 1u);
  std::ostringstream rep;
  l2->report(rep);
  EXPECT_NE(rep.str().find("memory path: VRAM [gpu_l2's L2 slices, crossbar and DRAM channels: GPGPU-Sim memory system: 32 "
                           "DRAM channels x 2 L2 slices"),
            std::string::npos)
      << rep.str();
  EXPECT_NE(rep.str().find("no SMs attached (no compute engine's l2 port is bound to gpu_l2.sms); 3 timed accesses (2 sectors read, 1 "
                           "written, 642 core cycles)"),
            std::string::npos)
      << rep.str();
  EXPECT_NE(rep.str().find("L2 3 accesses, 1 hits, 0 pending hits, 2 misses"), std::string::npos) << rep.str();
  rep.str("");
  eng->report(rep);
  EXPECT_NE(rep.str().find("of compute's own; other engines (copy engine, PFIFO, CP, host): VRAM through the interconnect (or a "
                           "gpu_l2 component's memory system), bypassing this memory system (no contention with the SMs)"),
            std::string::npos)
      << rep.str();
}

// An engine's write covers part of a sector when its range does: the L2 keeps such a sector
// unreadable (GPGPU-Sim's lazy fetch-on-read L2, docs/models/gpu_memory.md) until a read fetches
// it from DRAM; a sector written whole is read as an L2 hit. 4 bytes at 0x3004: a write miss
// (sector 0x3000 allocated MODIFIED, unreadable); a read of the sector: a SECTOR_MISS, one DRAM
// read; again: a hit (the fill made it readable). 48 bytes at 0x4010: bytes 16-31 of sector
// 0x4000 and all of 0x4020, two write misses; a read of 0x4020 hits, one of 0x4000 misses to
// DRAM. 7 sector accesses: 5 misses, 2 hits, 2 DRAM reads, no DRAM write (write-back L2).
TEST_F(gpu_l2_test, partial_sector_writes_from_an_engine) {
  build();
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  access(true, 0x3004, 4);
  access(false, 0x3000, 32, sc_time(1, sc_core::SC_US));
  EXPECT_EQ(l2->memory().stats().dram_reads, 1u);
  access(false, 0x3000, 32, sc_time(2, sc_core::SC_US));
  access(true, 0x4010, 48, sc_time(3, sc_core::SC_US));
  access(false, 0x4020, 32, sc_time(4, sc_core::SC_US));
  EXPECT_EQ(l2->memory().stats().dram_reads, 1u);
  access(false, 0x4000, 32, sc_time(5, sc_core::SC_US));
  const mem_stats s = l2->memory().stats();
  EXPECT_EQ(s.l2_accesses, 7u);
  EXPECT_EQ(s.l2_writes, 3u);
  EXPECT_EQ(s.l2_misses, 5u);
  EXPECT_EQ(s.l2_hits, 2u);
  EXPECT_EQ(s.l2_pending_hits, 0u);
  EXPECT_EQ(s.dram_reads, 2u);
  EXPECT_EQ(s.dram_writes, 0u);
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

// model false: no memory system: a compute engine whose l2 port is bound to it keeps its own.
TEST_F(gpu_l2_test, model_false_is_a_plain_wire) {
  build(false, true);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  EXPECT_FALSE(l2->owns_memory());
  EXPECT_EQ(eng->memory_owner(), "");
  ASSERT_NE(eng->shared_memory(), nullptr);
  EXPECT_EQ(access(false, 0x1000, 32), sc_time(20, sc_core::SC_NS));
  EXPECT_EQ(access(true, 0x1000, 32), sc_time(10, sc_core::SC_NS));
  EXPECT_EQ(l2->passed.value(), 2u);
  EXPECT_EQ(l2->l2_accesses.value(), 0.0);
  EXPECT_EQ(eng->shared_memory()->stats().l2_accesses, 0u);
  std::ostringstream rep;
  eng->report(rep);
  EXPECT_NE(rep.str().find("bypassing this memory system (no contention with the SMs)"), std::string::npos) << rep.str();
  rep.str("");
  l2->report(rep);
  EXPECT_NE(rep.str().find("memory path: pass-through (model false)"), std::string::npos) << rep.str();
}

// The l2 port bound to gpu_l2.sms: the SMs use its memory system; unbound, their own.
TEST_F(gpu_l2_test, compute_uses_the_memory_system_its_l2_port_is_bound_to) {
  build(true, true);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  EXPECT_EQ(eng->memory_owner(), "gpu_l2");
  EXPECT_EQ(eng->shared_memory(), &l2->memory());
  EXPECT_EQ(l2->attached_sms(), "compute");
  EXPECT_EQ(ram->reads.value(), 0u);
  std::ostringstream rep;
  eng->report(rep);
  EXPECT_NE(rep.str().find(", owned by gpu_l2 (bound to compute.l2); other engines (copy engine, PFIFO, CP, host): VRAM "
                           "through gpu_l2 (gpu_l2.in) into this memory system where bound to it (contending with the SMs)"),
            std::string::npos)
      << rep.str();
  rep.str("");
  l2->report(rep);
  EXPECT_NE(rep.str().find("shared with the SMs of compute;"), std::string::npos) << rep.str();
}

// l2 unbound (compute.out bound elsewhere; with it at gpu_l2.in: out_bound_without_the_l2_port_is_reported).
TEST_F(gpu_l2_test, compute_bound_elsewhere_keeps_its_own_memory_system) {
  build(true, false);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  EXPECT_EQ(eng->memory_owner(), "");
  ASSERT_NE(eng->shared_memory(), nullptr);
  EXPECT_NE(eng->shared_memory(), &l2->memory());
  EXPECT_EQ(l2->attached_sms(), "");
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

// The loads kernel (4096 L2 misses: 8 warps x 16 loads x 32 lanes, each its own sector) with the
// SMs on a memory system of their own, on gpu_l2's, and with a copy engine streaming 16 KiB
// reads through gpu_l2: slower when they share it (the kernel's misses queue behind the stream's
// sectors at the crossbar ports, L2 slices and DRAM channels), exactly the cycles alone when they
// do not (the SMs bound elsewhere, or gpu_l2.model false: a plain wire, the SMs keep their own).
TEST_F(gpu_l2_test, kernel_cycles_alone_shared_and_with_a_copy_stream) {
  struct outcome {
    kernel_result r;
    uint64_t forwarded = 0, sm_transactions = 0, timed = 0;
    double l2_accesses = 0, l2_misses = 0, dram_reads = 0;
    std::string owner;
  };
  enum setup { own_alone, shared_alone, shared_stream, own_stream, wire_stream };
  auto run = [](setup m) {
    gpuvp::testing::fresh_simulation();
    rig t;
    t.build(m != wire_stream, m == shared_alone || m == shared_stream || m == wire_stream);
    std::unique_ptr<streamer> s;
    if (m == shared_stream || m == own_stream || m == wire_stream) s = std::make_unique<streamer>("copy", *t.ini);
    auto k = loads_kernel();
    outcome o;
    t.eng->launch({k->grid, k->block, k}, [&](const kernel_result& r) {
      o.r = r;
      if (s) s->on = false;
    });
    sc_core::sc_start();
    if (s) {
      EXPECT_GT(s->bytes, 0u);
    }
    o.forwarded = t.l2->sm_forwarded.value();
    o.sm_transactions = t.eng->mem_reads.value() + t.eng->mem_writes.value();
    o.timed = t.l2->accesses.value();
    o.l2_accesses = t.l2->l2_accesses.value();
    o.l2_misses = t.l2->l2_misses.value();
    o.dram_reads = t.l2->dram_reads.value();
    o.owner = t.eng->memory_owner();
    return o;
  };
  const outcome own = run(own_alone), shared = run(shared_alone), busy = run(shared_stream), apart = run(own_stream),
                wire = run(wire_stream);
  EXPECT_EQ(own.r.mem.l2_misses, 4096u);
  EXPECT_EQ(own.owner, "");
  EXPECT_EQ(shared.owner, "gpu_l2");
  // On gpu_l2's memory system the kernel takes exactly the cycles it takes on its own.
  EXPECT_EQ(shared.r.cycles, own.r.cycles);
  EXPECT_EQ(shared.r.mem.l2_accesses, own.r.mem.l2_accesses);
  EXPECT_EQ(shared.r.mem.l2_misses, 4096u);
  EXPECT_EQ(shared.r.mem.dram_reads, own.r.mem.dram_reads);
  // Its SMs' accesses went through gpu_l2 untimed; the memory system counted their sectors.
  EXPECT_EQ(shared.forwarded, shared.sm_transactions);
  EXPECT_GT(shared.forwarded, 0u);
  EXPECT_EQ(shared.timed, 0u);
  EXPECT_EQ(shared.l2_accesses, double(shared.r.mem.l2_accesses));
  EXPECT_EQ(shared.l2_misses, 4096.0);
  EXPECT_EQ(shared.dram_reads, double(shared.r.mem.dram_reads));
  EXPECT_EQ(own.l2_accesses, 0.0);  // SMs on their own memory: gpu_l2's saw nothing
  // Contention: slower with the stream (4578 since the memory side follows GPGPU-Sim's pipeline
  // and crossbars; the engine's sectors enter at the sub-partitions' crossbar outputs; 4583 since
  // the sub-partitions pop those outputs, access the L2 and move the ROP queue in the cycles they
  // step, one access a cycle; 4581 since an idle DRAM channel no longer skips past the cycle
  // asked for; 4953 since a read is answered when it leaves the L2's ready list, not once the DRAM
  // has its data, so gpu_l2 runs the memory further ahead of the SMs for each of its accesses: a
  // recorded contention figure, not worked by hand).
  EXPECT_GT(busy.r.cycles, shared.r.cycles);
  EXPECT_EQ(busy.r.cycles, 4953u);
  EXPECT_GT(busy.timed, 0u);
  EXPECT_EQ(busy.owner, "gpu_l2");
  // No contention when the stream's memory system is not the SMs'.
  EXPECT_EQ(apart.r.cycles, own.r.cycles);
  EXPECT_GT(apart.timed, 0u);
  EXPECT_EQ(wire.owner, "");
  EXPECT_EQ(wire.r.cycles, own.r.cycles);
  EXPECT_EQ(wire.r.mem.l2_accesses, own.r.mem.l2_accesses);
  std::cout << "loads kernel: own memory " << own.r.cycles << " cycles, on gpu_l2's " << shared.r.cycles
            << ", with a 16 KiB-read stream through gpu_l2 " << busy.r.cycles << ", stream on a separate memory system " << apart.r.cycles
            << ", gpu_l2 a wire " << wire.r.cycles << "\n";
}

namespace {
// The copy engine's TLM model programmed through its registers by a host thread at time 0.
struct copy_rig {
  copy_engine::copy_tlm ce{"copy", sc_time(1, sc_core::SC_NS), 4};
  gpuvp::testing::test_initiator host{"host"};
  sc_core::sc_signal<bool> irq{"copy_irq"};
  copy_rig(uint64_t src, uint64_t dst, uint32_t len) {  // ce.mem is bound by the caller
    ce.irq.bind(irq);
    host.out.bind(ce.regs.in);
    sc_core::sc_spawn([this, src, dst, len] {
      using namespace copy_engine::copy_engine_regs;
      host.write32(src_lo, uint32_t(src));
      host.write32(src_hi, uint32_t(src >> 32));
      host.write32(dst_lo, uint32_t(dst));
      host.write32(dst_hi, uint32_t(dst >> 32));
      host.write32(copy_engine::copy_engine_regs::len, len);
      host.write32(ctrl, ctrl_go);
    });
  }
};
}  // namespace

// The copy engine (its TLM model) and a kernel on one memory system: a 256 KiB copy inside VRAM
// (2048 chunks of 128 bytes, one read and one write each) started with the kernel slows it; the
// same copy through its own path (bound to the memory, not to gpu_l2) does not.
TEST_F(gpu_l2_test, copy_engine_and_kernel_contend) {
  enum setup { alone, through_gpu_l2, beside };
  auto run = [](setup m, uint64_t& copied, uint64_t& timed) {
    gpuvp::testing::fresh_simulation();
    rig t;
    t.build(true, true);
    std::unique_ptr<copy_rig> c;
    std::unique_ptr<sparse_memory> own;
    if (m != alone) c = std::make_unique<copy_rig>(0x1000000, 0x2000000, 256 * 1024);
    if (m == through_gpu_l2) c->ce.mem.bind(t.l2->in);
    if (m == beside) {
      own = std::make_unique<sparse_memory>("copy_ram");
      c->ce.mem.bind(own->in);
    }
    auto k = loads_kernel();
    kernel_result got;
    t.eng->launch({k->grid, k->block, k}, [&](const kernel_result& r) { got = r; });
    sc_core::sc_start();
    copied = c ? c->ce.bytes.value() : 0;
    timed = t.l2->accesses.value();
    return got;
  };
  uint64_t copied = 0, timed = 0;
  const kernel_result a = run(alone, copied, timed);
  EXPECT_EQ(timed, 0u);
  const kernel_result b = run(beside, copied, timed);
  EXPECT_EQ(copied, 256u * 1024);
  EXPECT_EQ(timed, 0u);
  EXPECT_EQ(b.cycles, a.cycles);
  const kernel_result c = run(through_gpu_l2, copied, timed);
  EXPECT_EQ(copied, 256u * 1024);
  EXPECT_EQ(timed, 2u * 2048);  // every chunk's read and write timed by the memory system
  EXPECT_GT(c.cycles, a.cycles);
  std::cout << "loads kernel: alone " << a.cycles << " cycles, with a 256 KiB copy on another path " << b.cycles
            << ", with the copy through gpu_l2 " << c.cycles << "\n";
}

// The two configurations differ in a memory option: the run stops before it starts, naming both
// components and the option (QV100 has 32 channels; the file asks gpu_l2 for 16).
TEST_F(gpu_l2_test, memory_option_mismatch_is_a_configuration_error) {
  const std::string file = ::testing::TempDir() + "gpu_l2_n_mem16.config";
  std::ofstream(file) << "-gpgpu_n_mem 16\n";
  config::global().set("gpu_l2.config_files", file, "test");
  build(true, true);
  try {
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    FAIL() << "no configuration error";
  } catch (const config_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("compute.l2 is bound to gpu_l2.sms, whose memory system the SMs would use, but the GPU configurations differ "
                     "(compute.gpu / config_files vs gpu_l2.gpu / config_files): -gpgpu_n_mem 32 vs 16"),
              std::string::npos)
        << m;
  }
}

TEST_F(gpu_l2_test, another_gpu_is_a_configuration_error) {
  config::global().set("gpu_l2.gpu", "RTX3070", "test");
  build(true, true);
  // QV100 1132:1132:1132:850 MHz against RTX 3070's clock domains: the first option compared.
  EXPECT_THROW(sc_core::sc_start(sc_core::SC_ZERO_TIME), config_error);
}

// A compute option that is not a memory option (the warp scheduler) may differ.
TEST_F(gpu_l2_test, sm_options_may_differ) {
  const std::string file = ::testing::TempDir() + "gpu_l2_gto.config";
  std::ofstream(file) << "-gpgpu_scheduler gto\n";
  config::global().set("compute.config_files", file, "test");
  build(true, true);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  EXPECT_EQ(eng->memory_owner(), "gpu_l2");
}

TEST_F(gpu_l2_test, fixed_memory_bound_to_it_is_a_configuration_error) {
  config::global().set("compute.memory", "fixed", "test");
  build(true, true);
  try {
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    FAIL() << "no configuration error";
  } catch (const config_error& e) {
    EXPECT_NE(std::string(e.what()).find("compute.memory is fixed, but compute.l2 is bound to gpu_l2.sms, a GPU memory system"),
              std::string::npos)
        << e.what();
  }
}

// memory tlm, compute.l2 unbound: the SMs' accesses are timed by gpu_l2 like any engine's (one L1 line, a
// VRAM offset): the kernel's latency is the delay gpu_l2 annotates.
TEST_F(gpu_l2_test, tlm_memory_is_timed_as_an_engine) {
  config::global().set("compute.memory", "tlm", "test");
  build(true, true, false);
  auto k = loads_kernel();
  kernel_result got;
  eng->launch({k->grid, k->block, k}, [&](const kernel_result& r) { got = r; });
  sc_core::sc_start();
  EXPECT_EQ(eng->memory_owner(), "");
  EXPECT_EQ(l2->sm_forwarded.value(), 0u);
  EXPECT_EQ(l2->accesses.value(), eng->mem_reads.value() + eng->mem_writes.value());
  EXPECT_GT(got.cycles, 0u);
}

// Two compute engines cannot share one GPU's memory system.
TEST_F(gpu_l2_test, two_compute_engines_on_one_memory_system_are_refused) {
  build(true, true);
  auto second = std::make_unique<compute_engine>("compute2");
  second->out.bind(l2->in);
  second->l2.bind(l2->sms);
  try {
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    FAIL() << "no configuration error";
  } catch (const config_error& e) {
    EXPECT_NE(std::string(e.what()).find("gpu_l2: compute engines compute and compute2 are both bound to gpu_l2.sms"), std::string::npos)
        << e.what();
  }
}

namespace {
std::string cli_dir() {
  const std::string dir = ::testing::TempDir() + "gpu_l2_cli";
  std::filesystem::create_directories(dir);
  return dir;
}
}  // namespace

// The gpu-memory platform: the kernel's SMs use gpu_l2 through compute.l2; the report says so.
TEST(gpu_l2_cli, gpu_memory_platform_runs_a_kernel_on_gpu_l2) {
  const std::string list = gpuvp::testing::source_path("tests/sm/data/ffma/kernelslist.g");
  auto shared = gpuvp::testing::run_gpuvp({"run", "--platform", "gpu-memory", "--workload", list});
  ASSERT_EQ(shared.rc, 0) << shared.out << shared.err;
  EXPECT_NE(shared.out.find("owned by gpu_l2 (bound to compute.l2); other engines (copy engine, PFIFO, CP, host): VRAM "
                            "through gpu_l2 (gpu_l2.in) into this memory system where bound to it"),
            std::string::npos)
      << shared.out;
  EXPECT_NE(shared.out.find("gpu_l2: memory path: VRAM [gpu_l2's L2 slices, crossbar and DRAM channels: GPGPU-Sim memory system"),
            std::string::npos)
      << shared.out;
  EXPECT_NE(shared.out.find("shared with the SMs of compute; 0 timed accesses"), std::string::npos) << shared.out;
  // The default platform: the same cycles with the compute engine's own memory system.
  auto own = gpuvp::testing::run_gpuvp({"run", "--workload", list});
  ASSERT_EQ(own.rc, 0) << own.out << own.err;
  const auto kernel_line = [](const std::string& out) {
    const size_t at = out.find("kernel 1 ");
    return at == std::string::npos ? std::string() : out.substr(at, out.find('\n', at) - at);
  };
  EXPECT_FALSE(kernel_line(own.out).empty()) << own.out;
  EXPECT_EQ(kernel_line(shared.out), kernel_line(own.out));
  EXPECT_NE(own.out.find("of compute's own; other engines"), std::string::npos) << own.out;
}

// The SMs' dependency on the memory system is a port bound in configuration: config dump shows it.
TEST(gpu_l2_cli, l2_port_binding_shows_in_the_config_dump) {
  auto r = gpuvp::testing::run_gpuvp({"config", "dump", "--platform", "gpu-memory"});
  ASSERT_EQ(r.rc, 0) << r.err;
  const size_t compute = r.out.find("\ncompute:\n");
  ASSERT_NE(compute, std::string::npos) << r.out;
  // compute's section: up to the next top-level key (a line that does not start with a space).
  size_t end = compute + 1;
  while ((end = r.out.find('\n', end + 1)) != std::string::npos && end + 1 < r.out.size() && r.out[end + 1] == ' ') {}
  const std::string section = r.out.substr(compute, end == std::string::npos ? std::string::npos : end - compute + 1);
  EXPECT_NE(section.find("\n  l2:\n    to: gpu_l2.sms\n"), std::string::npos) << section;
  // The default platform leaves it unbound: the SMs use a memory system of their own.
  r = gpuvp::testing::run_gpuvp({"config", "dump", "--workload", gpuvp::testing::source_path("tests/sm/data/ffma/kernelslist.g")});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.find("to: gpu_l2.sms"), std::string::npos) << r.out;
}

// Bound to a name no component exports (a misspelt export, a TLM socket): exit 2 before the run,
// naming the port, the name and the exports there are.
TEST(gpu_l2_cli, l2_port_bound_to_no_export_exits_2_naming_both_ends) {
  const std::string list = gpuvp::testing::source_path("tests/sm/data/ffma/kernelslist.g");
  for (const std::string to : {"gpu_l2.nowhere", "gpu_l2.in"}) {
    auto r = gpuvp::testing::run_gpuvp({"run", "--platform", "gpu-memory", "--workload", list, "--set", "compute.l2.to=" + to});
    EXPECT_EQ(r.rc, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("compute.l2.to: compute.l2 (gpu memory system (gpu_memory_if)) is bound to '" + to +
                         "', which no component exports (exports: compute.launch (kernel launch (launch_if)) gpu_l2.sms (gpu memory "
                         "system (gpu_memory_if)))"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.out.find("kernel 1 "), std::string::npos) << r.out;  // nothing ran
  }
}

namespace {
// A component exporting an interface that is not the GPU memory system's.
struct other_if : virtual sc_core::sc_interface {};
struct other_export : sc_core::sc_module, gpuvp::component, other_if {
  sc_core::sc_export<other_if> port{"port"};
  explicit other_export(sc_core::sc_module_name n) : sc_module(n) { port.bind(*this); }
  sc_core::sc_module& module() override { return *this; }
  std::vector<interface_export> interface_exports() override { return {{"port", "a test interface", &port}}; }
};
void register_other_export() {
  gpuvp::registry::global().add_component_type("other_export", "test: exports another interface", gpuvp::make_component<other_export>);
}
}  // namespace

// Bound to an export of another interface: exit 2 before the run, naming both ends and both interfaces.
TEST(gpu_l2_cli, l2_port_bound_to_another_interface_exits_2_naming_both_ends) {
  auto r = gpuvp::testing::run_gpuvp(
      {"run", "--platform", "gpu-memory", "--workload", gpuvp::testing::source_path("tests/sm/data/ffma/kernelslist.g"), "--set",
       "components.other=other_export", "--set", "compute.l2.to=other.port"},
      "", register_other_export);
  EXPECT_EQ(r.rc, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("compute.l2.to: compute.l2 needs gpu memory system (gpu_memory_if), but other.port is a test interface"),
            std::string::npos)
      << r.err;
}

// A memory option differs between compute and gpu_l2: exit 2 before the run, naming both.
TEST(gpu_l2_cli, configuration_mismatch_exits_2) {
  const std::string dir = cli_dir();
  std::ofstream(dir + "/n_mem.config") << "-gpgpu_n_mem 16\n";
  auto r = gpuvp::testing::run_gpuvp({"run", "--platform", "gpu-memory", "--workload",
                                      gpuvp::testing::source_path("tests/sm/data/ffma/kernelslist.g"), "--set",
                                      "gpu_l2.config_files=" + dir + "/n_mem.config"});
  EXPECT_EQ(r.rc, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("compute.l2 is bound to gpu_l2.sms, whose memory system the SMs would use, but the GPU configurations differ"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("-gpgpu_n_mem 32 vs 16"), std::string::npos) << r.err;
  r = gpuvp::testing::run_gpuvp({"run", "--platform", "gpu-memory", "--workload",
                                 gpuvp::testing::source_path("tests/sm/data/ffma/kernelslist.g"), "--set", "gpu_l2.gpu=B200"});
  EXPECT_EQ(r.rc, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("gpu_l2.gpu / gpu_l2.config_files: unknown shipped GPU configuration 'B200'"), std::string::npos) << r.err;
}

// The component alone with the copy engine (no compute engine): a copy of 1024 bytes inside VRAM
// is 8 chunks of 128 bytes (16 beats of 8), each a read and a write of 4 sectors: 16 timed
// accesses, 32 sectors read and 32 written; the L2 starts empty, so the 32 reads miss (32 DRAM
// reads) and the 32 writes to lines not present miss too (write-back L2: no DRAM write).
TEST(gpu_l2_cli, copy_engine_alone_through_gpu_l2) {
  const std::string dir = cli_dir();
  std::ofstream(dir + "/vram.copies") << "copy 0x200010000 0x200020000 1024\n";
  auto r = gpuvp::testing::run_gpuvp(
      {"run", "--platform", "gpu-memory", "--workload", dir + "/vram.copies", "--set", "components.compute=none"});
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("no SMs attached (no compute engine's l2 port is bound to gpu_l2.sms); 16 timed accesses (32 sectors read, 32 "
                       "written"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("L2 64 accesses, 0 hits, 0 pending hits, 64 misses"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("DRAM 32 reads, 0 writes"), std::string::npos) << r.out;
}

// `gpuvp run`: a traffic generator bound to gpu_l2.in beside a kernel; the report names the path.
TEST(gpu_l2_cli, run_report_names_the_engines_memory_path) {
  const std::string dir = cli_dir();
  std::ofstream(dir + "/l2.yaml") << "components:\n  compute: compute\n  gpu_l2: gpu_l2\n  traffic: traffic\n"
                                     "compute:\n  out:\n    to: gpu_l2.in\n  l2:\n    to: gpu_l2.sms\n"
                                     "traffic:\n  initiators: 1\n  g0:\n    pattern: sequential\n    base: 0x200000000\n"
                                     "    range: 1 MiB\n    size: 128\n    count: 4\n    to: gpu_l2.in\n";
  auto r = gpuvp::testing::run_gpuvp(
      {"run", "--config", dir + "/l2.yaml", "--workload", gpuvp::testing::source_path("tests/sm/data/ffma/kernelslist.g")});
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("other engines (copy engine, PFIFO, CP, host): VRAM through gpu_l2 (gpu_l2.in) into this memory system"),
            std::string::npos)
      << r.out;
  // 4 reads of 128 bytes = 4 sectors each.
  EXPECT_NE(r.out.find("shared with the SMs of compute; 4 timed accesses (16 sectors read, 0 written"), std::string::npos) << r.out;
}

// compute.out bound to gpu_l2.in with the l2 port left unbound: the SMs' accesses, timed by their
// own memory system, reach gpu_l2, which does not time them again (0 timed: the ffma kernel's 5
// L1-line accesses pass) and reports a modelled error naming the port to bind (exit 1).
TEST(gpu_l2_cli, out_bound_without_the_l2_port_is_reported) {
  const std::string dir = cli_dir();
  std::ofstream(dir + "/nol2.yaml") << "components:\n  gpu_l2: gpu_l2\n  traffic: none\ncompute:\n  out:\n    to: gpu_l2.in\n";
  auto r = gpuvp::testing::run_gpuvp(
      {"run", "--config", dir + "/nol2.yaml", "--workload", gpuvp::testing::source_path("tests/sm/data/ffma/kernelslist.g")});
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_NE((r.out + r.err)
                .find("gpu_l2: an access timed by another GPU memory system reached gpu_l2.in (initiator 0x534d): "
                      "a compute engine whose out reaches gpu_l2 needs its l2 port bound to gpu_l2.sms"),
            std::string::npos)
      << r.out << r.err;
  EXPECT_NE(r.out.find("no SMs attached (no compute engine's l2 port is bound to gpu_l2.sms); 0 timed accesses (0 sectors read, "
                       "0 written, 0 core cycles), 5 passed through, 0 SM accesses forwarded"),
            std::string::npos)
      << r.out;
}

// compute.out through the MMU to a gpu_l2 behind it, compute.l2 bound to it: the SMs' accesses,
// translated there, reach gpu_l2 marked and are forwarded untimed.
TEST(gpu_l2_cli, bound_behind_the_mmu) {
  const std::string dir = cli_dir();
  std::ofstream(dir + "/mmu.yaml") << "components:\n  gpu_l2: gpu_l2\ncompute:\n  out:\n    to: mmu.in\n  l2:\n    to: gpu_l2.sms\n"
                                      "mmu:\n  out:\n    to: gpu_l2.in\n";
  auto r = gpuvp::testing::run_gpuvp(
      {"run", "--config", dir + "/mmu.yaml", "--workload", gpuvp::testing::source_path("tests/sm/data/ffma/kernelslist.g")});
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("owned by gpu_l2 (bound to compute.l2)"), std::string::npos) << r.out;
  // The ffma kernel: 5 L1-line accesses (the mmu report's linear accesses), all the SMs'.
  EXPECT_NE(r.out.find("shared with the SMs of compute; 0 timed accesses (0 sectors read, 0 written, 0 core cycles), 0 passed "
                       "through, 5 SM accesses forwarded"),
            std::string::npos)
      << r.out;
}

// From the command line: on the gpu-memory platform the MMU's output goes through gpu_l2, so a
// PFIFO workload's channel traffic (pushbuffer fetches, RAMFC, semaphores, M2MF in VRAM) is timed
// by the memory system the kernels use: the first kernel (cold L2) then waits behind it and takes
// longer than with the MMU bound past gpu_l2 (the bypass), where no engine access is timed.
TEST(gpu_l2_cli, pfifo_channels_and_kernels_contend_on_the_gpu_memory_platform) {
  const std::string pb = gpuvp::testing::source_path("models/pfifo/workloads/compute.pb");
  const auto first_kernel_cycles = [](const std::string& out) {
    const size_t at = out.find("kernel 1 _Z9ffma_testPf: ");
    return at == std::string::npos ? 0ul : std::stoul(out.substr(at + 25));
  };
  // compute.pb names its kernelslist relative to the repository root.
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(gpuvp::testing::source_path(""));
  auto shared = gpuvp::testing::run_gpuvp({"run", "--platform", "gpu-memory", "--workload", pb});
  auto bypass = gpuvp::testing::run_gpuvp({"run", "--platform", "gpu-memory", "--workload", pb, "--set", "mmu.out.to=interconnect"});
  std::filesystem::current_path(cwd);
  ASSERT_EQ(shared.rc, 0) << shared.out << shared.err;
  ASSERT_EQ(bypass.rc, 0) << bypass.out << bypass.err;
  EXPECT_EQ(shared.out.find("shared with the SMs of compute; 0 timed accesses"), std::string::npos) << shared.out;
  EXPECT_NE(bypass.out.find("shared with the SMs of compute; 0 timed accesses"), std::string::npos) << bypass.out;
  EXPECT_GT(first_kernel_cycles(bypass.out), 0u) << bypass.out;
  EXPECT_GT(first_kernel_cycles(shared.out), first_kernel_cycles(bypass.out)) << shared.out;
}
