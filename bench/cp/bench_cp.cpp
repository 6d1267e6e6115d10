// SPDX-License-Identifier: Apache-2.0
// ISS speed on a tight microcode loop, against a bare interpreter loop measured in the same run:
//   BM_bare_interpreter   - a minimal switch interpreter (3-instruction loop, no afuc semantics)
//   BM_iss_tight_loop     - afuc_iss::run on "sub; brne; (delay slot) add"
//   BM_cp_sqe_decoupled   - the same loop as SQE firmware in the SystemC CP, temporal decoupling on
//   BM_cp_ring_fetch/0|1  - gpuvp's firmware consuming a ring of CP_NOPs (fetch-bound), packet
//                           fetch through b_transport (0) or DMI (1); items = dwords fetched
//   BM_cp_rd_replay/0|1   - submit 0 of a Mesa capture (GPUVP_RD_CAPTURE, default the glmark2
//                           shadow capture in ../shared/real/adreno) with gpuvp's firmware (0) or
//                           Debian's a630_sqe.fw (1, GPUVP_ADRENO_FW_DIR); items = PM4 packets
// Each reports items_per_second = instructions per second; the ratios to the bare loop follow the
// table, with the goal of the SQE figure (>= 0.6x).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <fstream>
#include <tlm_utils/simple_initiator_socket.h>

#include "../ratio_reporter.h"
#include "afuc_asm.h"
#include "afuc_iss.h"
#include "rd.h"
#include "cp.h"
#include "gpuvp/config.h"
#include "gpuvp/memory.h"
#include "gpuvp/registry.h"
#include "gpuvp/stats.h"

using namespace gpuvp::cp;

namespace {
const char* loop_src =
    ".nojumptable\n"
    "loop:\n"
    "  sub $01, $01, 0x1\n"
    "  brne $01, 0x0, #loop\n"
    "  add $02, $02, 0x1\n"
    "  waitin\n"
    "  mov $01, $data\n";

struct null_env : afuc_env {
  bool pop_data(uint32_t&) override { return false; }
  void reg_write(uint32_t& a, uint32_t, bool) override { a++; }
  uint32_t read_memdata(uint32_t&) override { return 0; }
  uint32_t read_regdata() override { return 0; }
  void ctrl_write(uint32_t, uint32_t) override {}
  uint32_t ctrl_read(uint32_t) override { return 0; }
};
}  // namespace

// Baseline: the same loop shape in the smallest possible switch interpreter.
static void BM_bare_interpreter(benchmark::State& state) {
  struct op {
    uint8_t code, dst;
    int16_t imm;
  };
  const op prog[] = {{0, 1, 1}, {1, 1, -1}, {2, 2, 1}, {3, 0, 0}};  // sub, brne, add, halt
  const uint32_t n = uint32_t(state.range(0));
  uint64_t executed = 0;
  for (auto _ : state) {
    uint32_t r[4] = {0, n, 0, 0};
    uint32_t pc = 0;
    int64_t target = -1;
    bool run = true;
    while (run) {
      const op& o = prog[pc];
      const int64_t pending = target;
      target = -1;
      switch (o.code) {
        case 0:
          r[o.dst] -= uint32_t(o.imm);
          break;
        case 1:
          if (r[o.dst] != 0) target = int64_t(pc) + o.imm;
          break;
        case 2:
          r[o.dst] += uint32_t(o.imm);
          break;
        default:
          run = false;
          break;
      }
      executed++;
      pc = pending >= 0 ? uint32_t(pending) : pc + 1;
    }
    benchmark::DoNotOptimize(r[2]);
  }
  state.SetItemsProcessed(int64_t(executed));
}
BENCHMARK(BM_bare_interpreter)->Arg(1 << 22);

static void BM_iss_tight_loop(benchmark::State& state) {
  auto w = afuc_assemble(loop_src, 6, "loop.asm");
  afuc_iss iss(6, 4);
  null_env env;
  iss.load(std::vector<uint32_t>(w.begin() + 1, w.end()));
  iss.set_env(&env);
  const uint32_t n = uint32_t(state.range(0));
  uint64_t executed = 0;
  for (auto _ : state) {
    iss.reset();
    iss.set_reg(1, n);
    executed += iss.run(~0ull);  // stops starved at the waitin's delay slot
    benchmark::DoNotOptimize(iss.reg(2));
  }
  state.SetItemsProcessed(int64_t(executed));
}
BENCHMARK(BM_iss_tight_loop)->Arg(1 << 22);

namespace {
struct cp_bench_top : sc_core::sc_module {
  gpuvp::sparse_memory mem{"mem"};
  command_processor cp{"cp"};
  sc_core::sc_signal<bool> irq{"irq"};
  tlm_utils::simple_initiator_socket<cp_bench_top> host{"host"};
  explicit cp_bench_top(sc_core::sc_module_name n) : sc_module(n) {
    host.bind(cp.regs.in);
    cp.mem.bind(mem.in);
    cp.irq(irq);
  }
};

// A new simulation context and an empty configuration for each iteration's platform.
void fresh_simulation() {
  sc_core::sc_curr_simcontext = new sc_core::sc_simcontext();
  sc_core::sc_default_global_context = sc_core::sc_curr_simcontext;
  gpuvp::config::global().reset();
}
}  // namespace

// The SQE runs the loop from boot until its first waitin (the ring is empty). Timed: the run after
// the first batch, so that building and elaborating the platform (a fresh simulation context each
// iteration) stays out of the figure; counted: the instructions of the timed part only.
static void BM_cp_sqe_decoupled(benchmark::State& state) {
  const std::string fw = "/tmp/gpuvp_bench_cp_loop.fw";
  std::string src = std::string(loop_src).substr(std::string(".nojumptable\n").size());
  src = ".nojumptable\n  mov $01, " + std::to_string(state.range(0)) + " \n" + src;
  write_words(fw, afuc_assemble(src, 6, "loop.asm"));
  uint64_t executed = 0;
  for (auto _ : state) {
    state.PauseTiming();
    fresh_simulation();
    gpuvp::config::global().set("top.cp.firmware", fw, "bench");
    auto top = std::make_unique<cp_bench_top>("top");
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // elaboration, start of simulation, the first batch
    const uint64_t before = top->cp.iss(0).stats().instructions;
    state.ResumeTiming();
    sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_SEC));
    state.PauseTiming();
    executed += top->cp.iss(0).stats().instructions - before;
    top.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(int64_t(executed));
}
BENCHMARK(BM_cp_sqe_decoupled)->Arg(1 << 22)->Unit(benchmark::kMillisecond);

// A ring of 4000 CP_NOPs with 14 payload dwords each (60000 dwords, bursts of 16), fetched
// through b_transport (arg 0) or DMI (arg 1). The simulation ends when the SQE waits for input.
static void BM_cp_ring_fetch(benchmark::State& state) {
  constexpr uint64_t ring = 0x100000;
  constexpr uint32_t packets = 4000, payload = 14, dwords = packets * (payload + 1);
  uint64_t fetched = 0;
  for (auto _ : state) {
    state.PauseTiming();
    fresh_simulation();
    gpuvp::config::global().set("top.cp.fetch_dmi", state.range(0) ? "true" : "false", "bench");
    auto top = std::make_unique<cp_bench_top>("top");
    for (uint32_t p = 0, a = 0; p < packets; p++) {
      top->mem.write32(ring + 4ull * a++, pm4_type7(0x10, payload));
      for (uint32_t i = 0; i < payload; i++) top->mem.write32(ring + 4ull * a++, i);
    }
    top->cp.rb_base = ring;
    top->cp.rb_cntl = 15;  // 8 << 15 bytes = 65536 dwords
    top->cp.rb_wptr = dwords;
    state.ResumeTiming();
    sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_SEC));
    state.PauseTiming();
    if (top->cp.rb_rptr.get() != dwords) state.SkipWithError("ring not consumed");
    fetched += top->cp.fetched.value();
    top.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(int64_t(fetched));
}
BENCHMARK(BM_cp_ring_fetch)->Arg(0)->Arg(1)->Iterations(5)->Unit(benchmark::kMillisecond);

// Submit 0 of a capture, every IB1 on the ring at once (its buffers written first); with the real
// firmware the image boots from memory and CP_ME_INIT goes first, as `gpuvp run` does it
// (docs/formats/rd.md). The simulation ends when the SQE waits for input.
static void BM_cp_rd_replay(benchmark::State& state) {
  auto env = [](const char* n, const std::string& def) { return std::getenv(n) ? std::string(std::getenv(n)) : def; };
  const std::string cap = env("GPUVP_RD_CAPTURE", std::string(GPUVP_SOURCE_DIR) + "/../shared/real/adreno/shadow.rd.gz");
  const std::string fw = env("GPUVP_ADRENO_FW_DIR", GPUVP_BINARY_DIR "/adreno-fw") + "/a630_sqe.fw";
  const bool real = state.range(0) != 0;
  rd_capture c;
  std::vector<uint32_t> image;
  try {
    c = rd_parse(rd_read_file(cap), cap);
    if (real) image = read_words(fw);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  if (c.submits.empty()) {
    state.SkipWithError("the capture has no submit");
    return;
  }
  constexpr uint64_t ring = 0x3ff00000, fw_at = ring + 0x10000;  // below 1 GiB, free in the Mesa captures
  std::vector<uint32_t> words;
  if (real) words = {pm4_type7(0x48, 8), 0x2f, 0x3, 0x20000000, 0, 0, 0, 0, 0};  // CP_ME_INIT as msm
  for (const auto& ib : c.submits[0].ibs)
    words.insert(words.end(), {pm4_type7(0x3f, 3), uint32_t(ib.addr), uint32_t(ib.addr >> 32), ib.dwords});
  uint64_t packets = 0, instructions = 0;
  for (auto _ : state) {
    state.PauseTiming();
    fresh_simulation();
    if (real) {
      gpuvp::config::global().set("top.cp.firmware", fw, "bench");
      gpuvp::config::global().set("top.cp.autostart", "false", "bench");
    }
    auto top = std::make_unique<cp_bench_top>("top");
    for (const auto& b : c.submits[0].buffers) top->mem.load(b.addr, b.bytes.data(), b.bytes.size());
    for (size_t i = 0; i < words.size(); i++) top->mem.write32(ring + 4 * i, words[i]);
    if (real) {
      top->mem.load(fw_at, image.data() + 1, 4 * (image.size() - 1));
      top->cp.sqe_instr_base = uint32_t(fw_at);
      top->cp.sqe_cntl = 1;
    }
    top->cp.rb_base = uint32_t(ring);
    top->cp.rb_cntl = 12;  // 8 << 12 bytes = 8192 dwords
    top->cp.rb_wptr = words.size();
    state.ResumeTiming();
    sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_SEC));
    state.PauseTiming();
    if (top->cp.rb_rptr.get() != words.size() || !top->cp.modelled_errors().empty()) state.SkipWithError("the replay did not finish");
    packets += top->cp.packets.value();
    instructions += top->cp.iss(0).stats().instructions;
    top.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(int64_t(packets));
  state.counters["instructions"] = benchmark::Counter(double(instructions), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_cp_rd_replay)->Arg(0)->Arg(1)->Iterations(5)->Unit(benchmark::kMillisecond);

int sc_main(int argc, char** argv) {
  gpuvp::bench::initialize_steady(argc, argv);
  gpuvp::bench::ratio_reporter rep([](gpuvp::bench::ratio_reporter& r) {
    r.rate_ratio("BM_iss_tight_loop/4194304", "BM_bare_interpreter/4194304");
    r.rate_ratio("BM_cp_sqe_decoupled/4194304", "BM_bare_interpreter/4194304", 0.6);
    r.rate_ratio("BM_cp_ring_fetch/1/iterations:5", "BM_cp_ring_fetch/0/iterations:5");
  });
  benchmark::RunSpecifiedBenchmarks(&rep);
  benchmark::Shutdown();
  return 0;
}
