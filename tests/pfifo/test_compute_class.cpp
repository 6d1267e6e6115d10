// SPDX-License-Identifier: Apache-2.0
// The compute class behind the puller (compute_launch.h): kernels launched from a pushbuffer on
// the SM model's compute engine, the engine busy until the kernel is done (REF_CNT and the engine
// switch wait for it), completion notifier and semaphore, and launch errors.
#include <fstream>
#include <sstream>
#include "compute.h"
#include "compute_launch.h"
#include "core_fixture.h"
#include "gpuvp/config.h"
#include "gpuvp/host.h"
#include "gpuvp/platform.h"
#include "pfifo.h"
#include "testing.h"
#include "pb_reject.h"
#include "workload.h"

using namespace gpuvp;

namespace {

constexpr uint64_t vram = 0x200000000;

std::string text_of(const std::string& file) {
  std::ifstream f(gpuvp::testing::source_path(file));
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

class compute_class : public gpuvp::testing::sim_test {
 protected:
  // The default platform, the .pb overlay, the file's own overlay (compute line), then `extra`.
  void configure(const std::string& file, const std::string& extra = "") { configure_text(text_of(file), extra); }
  void configure_text(const std::string& text, const std::string& extra = "") {
    auto& cfg = config::global();
    cfg.load_yaml_text(default_platform_yaml(), "embedded");
    const auto* k = registry::global().find_workload_kind("x.pb");
    ASSERT_NE(k, nullptr);
    cfg.load_yaml_text(k->platform_yaml, "overlay");
    const std::string o = k->overlay_for(text);
    ASSERT_NE(o.find("compute: compute"), std::string::npos) << o;
    cfg.load_yaml_text(o, "file overlay");
    // The file's kernelslist path is relative to the repository root; tests run elsewhere.
    cfg.set("pfifo.launch.kernels", gpuvp::testing::source_path("tests/sm/data/ffma/kernelslist.g"), "test");
    // The waits below are worked out with both launches of the kernel taking the same time, as with
    // the platform's memory path (compute.memory tlm); the GPU memory system's L2 keeps the first
    // launch's lines, so there the second launch would be shorter.
    cfg.set("compute.memory", "tlm", "test");
    if (!extra.empty()) cfg.load_yaml_text(extra, "test");
  }
  uint32_t vram32(platform& p, uint64_t off) {
    uint32_t v = 0;
    EXPECT_TRUE(p.debug_read(vram + off, &v, 4));
    return v;
  }
};

}  // namespace

// models/pfifo/workloads/compute.pb, stepped to see the order of events.
// Expected by hand from the puller's rules (envytools puller.rst: REF_CNT waits for the last
// engine to be idle; an engine switches channels only when idle here):
//   channel 0: LAUNCH (kernel A) -> engine busy -> REF_CNT 0x55 blocks until A is done.
//   channel 1: OBJECT to the busy engine held by channel 0 -> blocks until A is done, then
//              LAUNCH (kernel B) -> REF_CNT 0x66 after B.
// So: REF0 is still 0 while A runs and is 0x55 once A is done; B starts after A; REF1 after B.
// The notifier's timestamp is A's completion time in ns; each kernel takes its cycle count times
// the QV100 period of 883 ps (1132 MHz). Stepped 10 ns at a time.
TEST_F(compute_class, WorkloadLaunchesKernelsAndRefWaitsForThem) {
  configure("models/pfifo/workloads/compute.pb");
  platform p;
  auto* pf = p.find_as<gpuvp::pfifo::pfifo>("pfifo");
  auto* ce = p.find_as<sm::compute_engine>("compute");
  ASSERT_NE(pf, nullptr);
  ASSERT_NE(ce, nullptr);
  auto* eng = dynamic_cast<pfifo::compute_launch_engine*>(pf->engine_at(2));
  ASSERT_NE(eng, nullptr);
  auto w = pfifo::load_pb_workload(gpuvp::testing::source_path("models/pfifo/workloads/compute.pb"));
  p.host_initiator().run_workload(w.get());
  const sc_core::sc_time step(10, sc_core::SC_NS);
  sc_core::sc_time a_done, ref0_set, b_done, ref1_set;
  bool saw_a_running = false;
  for (int i = 0; i < 2000000 && !p.host_initiator().finished(); ++i) {
    sc_core::sc_start(step);
    const auto now = sc_core::sc_time_stamp();
    const size_t done = ce->results().size();
    const uint32_t ref0 = pf->core().chan(0).ref, ref1 = pf->core().chan(1).ref;
    if (done == 0 && !ce->idle()) {
      saw_a_running = true;
      EXPECT_EQ(ref0, 0u) << "REF set while the kernel runs, at " << now;
      EXPECT_FALSE(pf->engine_at(2)->idle(UINT64_MAX - 1));  // busy until finish()
    }
    if (done >= 1 && a_done == sc_core::SC_ZERO_TIME) a_done = now;
    if (ref0 == 0x55 && ref0_set == sc_core::SC_ZERO_TIME) ref0_set = now;
    if (done >= 2 && b_done == sc_core::SC_ZERO_TIME) b_done = now;
    if (ref1 == 0x66 && ref1_set == sc_core::SC_ZERO_TIME) ref1_set = now;
    if (done < 2) {
      EXPECT_NE(ref1, 0x66u) << "channel 1's REF before its kernel, at " << now;
    }
  }
  std::ostringstream os;
  EXPECT_EQ(w->check(p, os), 0) << os.str();
  EXPECT_TRUE(p.modelled_errors().empty());
  EXPECT_TRUE(saw_a_running);
  ASSERT_EQ(ce->results().size(), 2u);
  EXPECT_GT(a_done, sc_core::SC_ZERO_TIME);
  EXPECT_GE(ref0_set, a_done);
  EXPECT_GE(b_done, a_done);
  EXPECT_GE(ref1_set, b_done);
  EXPECT_EQ(eng->launches, 2u);
  EXPECT_EQ(eng->completed, 2u);
  EXPECT_EQ(eng->releases, 2u);
  EXPECT_EQ(eng->notifies, 1u);
  // Notifier: completion time in ns (low word), return 0, status 0, within the step that saw it.
  const uint64_t ts_ns = vram32(p, 0x3100000) | uint64_t(vram32(p, 0x3100004)) << 32;
  EXPECT_LE(sc_core::sc_time(double(ts_ns), sc_core::SC_NS), a_done);
  EXPECT_GT(sc_core::sc_time(double(ts_ns + 1), sc_core::SC_NS), a_done - step);
  EXPECT_EQ(vram32(p, 0x3100008), 0u);
  // Waits, by hand: kernel A lasts a = cycles x 883 ps. The compute engine's first method
  // (OBJECT) costs the engine_switch_cost of 100 ns before the 14 methods up to LAUNCH (1 ns
  // each on the engine), while the puller needs 1 ns per method to reach REF_CNT: so channel 0's
  // REF_CNT waits at least a + 100 ns + (engine's 14 ns - puller's ~15 ns) - a few ns of
  // fetches. It resumes when the kernel is done and PFIFO has switched back to channel 0, which
  // ran channel 1 meanwhile (G80:GF100: RAMFC save and load, counted in channel 0's
  // ramfc_switch_ps, which also holds its first load): at most a + 130 ns + that.
  const uint64_t a_ps = ce->results()[0].cycles * 883;
  const uint64_t w0 = pf->core().chan(0).stats.engine_wait_ps, w1 = pf->core().chan(1).stats.engine_wait_ps;
  EXPECT_GE(w0, a_ps + 85000);
  EXPECT_LE(w0, a_ps + 130000 + pf->core().chan(0).stats.ramfc_switch_ps);
  // Channel 1's OBJECT came after channel 0 blocked: it waits at most as long, at least A's run.
  EXPECT_GE(w1, a_ps);
  EXPECT_LE(w1, w0);
  // B starts after A's end plus the engine's channel switch (100 ns) and runs its own cycles;
  // the steps are 10 ns.
  EXPECT_GE(b_done - a_done, sc_core::sc_time(double(ce->results()[1].cycles * 883 + 100000 - 10000), sc_core::SC_PS));
}

// The kernels' side band comes from the launching channel (compute_launch.h): with compute.out
// bound to the platform's NV50 MMU, three channels launch the ffma kernel (LDG of the line at
// trace 0x7f4e8a000000, STG of the line at 0x7f4e8a000100; mem_base 0 / mem_size 4 KiB fold them
// to offsets 0x000 and 0x100) after DMA_GLOBAL (0x188) selects each channel's own linear VRAM DMA
// object at selector 0x22. Channels 0 and 1: bases 0x3300000 and 0x3400000, so the STG's 128
// zero bytes (the line the LDG read) land at VRAM 0x3300100 and 0x3400100, pre-filled with a
// pattern here. Channel 2: limit 0xff, so the STG at 0x100 faults; the MMU's fault names the
// side band: engine 0 (PGRAPH), client 0xb (PROP), selector 0x22, channel 2's descriptor, a write.
TEST_F(compute_class, KernelAccessesUseTheLaunchingChannelsAddressSpace) {
  std::string text = "gen G84\ncompute tests/sm/data/ffma/kernelslist.g\n";
  const char* base[3] = {"0x3300000 limit 0xfff", "0x3400000 limit 0xfff", "0x3500000 limit 0xff"};
  for (int c = 0; c < 3; ++c) {
    const std::string n = std::to_string(c);
    text += "channel " + n + " dma\ndmaobj " + n + " 0x22 target vram base " + base[c] + "\n" + "object " + n +
            " 0xc0de50c0 engine 2 sel 0x40\nobject " + n + " 0xd0000022 engine 0 sel 0x22\n" + "push " + n +
            "\n  inc 0 OBJECT 0xc0de50c0\n  inc 0 0x188 0xd0000022\n  inc 0 0x200 1 1 1 1 32 1 1\n" + "  inc 0 0x300 0\n  inc 0 REF_CNT " +
            std::to_string(0x10 + c) + "\nend\nexpect ref " + n + " " + std::to_string(0x10 + c) + "\n";
  }
  configure_text(text, "compute:\n  out:\n    to: mmu.in\n  mem_base: 0\n  mem_size: 4096\n");
  platform p;
  auto* pf = p.find_as<gpuvp::pfifo::pfifo>("pfifo");
  auto* ce = p.find_as<sm::compute_engine>("compute");
  ASSERT_NE(pf, nullptr);
  ASSERT_NE(ce, nullptr);
  auto w = pfifo::parse_pb_workload(text, "sideband.pb");
  p.host_initiator().run_workload(w.get());
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // elaborated: the debug path works
  const uint32_t pattern[2] = {0xdeadbeef, 0xdeadbeef};
  ASSERT_TRUE(p.debug_write(vram + 0x3300100, pattern, 8));
  ASSERT_TRUE(p.debug_write(vram + 0x3400100, pattern, 8));
  sc_core::sc_start(sc_core::sc_time(10, sc_core::SC_MS));
  std::ostringstream os;
  EXPECT_EQ(w->check(p, os), 0) << os.str();
  ASSERT_EQ(ce->results().size(), 3u);
  EXPECT_EQ(ce->sideband_kernels.value(), 3u);
  EXPECT_EQ(vram32(p, 0x3300100), 0u);
  EXPECT_EQ(vram32(p, 0x3300104), 0u);
  EXPECT_EQ(vram32(p, 0x3400100), 0u);
  EXPECT_EQ(vram32(p, 0x3400104), 0u);
  EXPECT_EQ(ce->mem_errors.value(), 1u);  // channel 2's STG
  const uint32_t d0 = pf->core().chan(0).inst_desc, d2 = pf->core().chan(2).inst_desc;
  EXPECT_NE(d0, pf->core().chan(1).inst_desc);
  // The MMU's fault registers (BAR0 0x100c90..; the workload's driver acknowledged the interrupt,
  // the source registers stay): FAULT_SOURCE engine 0 | client 0x0b << 8, FAULT_SELECTOR 0x22,
  // FAULT_CHANNEL 2, FAULT_CHANDESC = channel 2's descriptor, FAULT_ADDR_LO 0x100.
  auto mmu_reg = [&](uint64_t off) {
    uint32_t v = 0;
    EXPECT_TRUE(p.debug_read(0x100000000ull + 0x100000 + off, &v, 4));
    return v;
  };
  EXPECT_EQ(mmu_reg(0xc94), 0x0bu << 8);
  EXPECT_EQ(mmu_reg(0xc98), 0x22u);
  EXPECT_EQ(mmu_reg(0xc9c), 2u);
  EXPECT_EQ(mmu_reg(0xca0), d2);
  EXPECT_EQ(mmu_reg(0xca4), 0x100u);
}

// Launch errors are refused with notifier status 2 and a modelled error naming the cause; the
// channel goes on (REF after the refused launch).
TEST_F(compute_class, LaunchErrorsAreModelledErrors) {
  configure("models/pfifo/workloads/compute.pb");
  platform p;
  auto* pf = p.find_as<gpuvp::pfifo::pfifo>("pfifo");
  auto w = pfifo::parse_pb_workload(
      "gen G84\nchannel 0 dma\n"
      "dmaobj 0 0x21 target vram base 0x3100000 limit 0xfff\n"
      "object 0 0xc0de50c0 engine 2 sel 0x40\nobject 0 0xd0000021 engine 0 sel 0x21\n"
      "push 0\n"
      "  inc 0 OBJECT 0xc0de50c0\n"
      "  inc 0 0x180 0xd0000021\n"
      "  inc 0 0x200 7\n"  // KERNEL 7: the list has one kernel
      "  inc 0 0x104 0\n  inc 0 0x300 0\n"
      "  inc 0 0x200 1 2 1 1 32 1 1\n"  // grid 2x1x1: the trace says 1x1x1
      "  inc 0 0x300 0\n"
      "  inc 0 REF_CNT 9\n"
      "end\n"
      "expect ref 0 9\nexpect vram 0x310000c 2\n",
      "bad_launch.pb");
  p.host_initiator().run_workload(w.get());
  sc_core::sc_start(sc_core::sc_time(10, sc_core::SC_MS));
  std::ostringstream os;
  EXPECT_EQ(w->check(p, os), 0) << os.str();
  auto* eng = dynamic_cast<pfifo::compute_launch_engine*>(pf->engine_at(2));
  ASSERT_NE(eng, nullptr);
  EXPECT_EQ(eng->launch_errors, 2u);
  EXPECT_EQ(p.find_as<sm::compute_engine>("compute")->results().size(), 0u);
  const auto errs = p.modelled_errors();
  ASSERT_EQ(errs.size(), 2u);
  EXPECT_NE(errs[0].find("KERNEL 7 is not a kernel"), std::string::npos) << errs[0];
  EXPECT_NE(errs[1].find("grid/block do not match"), std::string::npos) << errs[1];
}

// The launch port (sm/launch_port.h) is bound at elaboration from pfifo.launch.to to a compute
// engine's launch export: a name no component exports, an export of another interface, and no
// engine at all while a kernel list is set are configuration errors naming both ends.
TEST_F(compute_class, LaunchPortBindingErrorsNameBothEnds) {
  auto rejected = [&](const std::string& extra, const std::vector<std::string>& parts) {
    config::global().reset();
    configure("models/pfifo/workloads/compute.pb", extra);
    try {
      platform p;
      ADD_FAILURE() << "accepted: " << extra;
    } catch (const config_error& e) {
      for (const auto& part : parts) EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  rejected("pfifo:\n  launch.to: gpc.launch\n",
           {"test:2: pfifo.launch.to", "pfifo.launch (kernel launch (launch_if)) is bound to 'gpc.launch', which no component exports",
            "(exports: compute.launch (kernel launch (launch_if)))"});
  rejected("pfifo:\n  launch.to: compute\n", {"pfifo.launch.to", "is bound to 'compute', which no component exports"});
  rejected("components:\n  l2: gpu_l2\npfifo:\n  launch.to: l2.sms\n",
           {"pfifo.launch.to", "pfifo.launch needs kernel launch (launch_if), but l2.sms is gpu memory system (gpu_memory_if)"});
  rejected("components:\n  compute: none\n",
           {"pfifo.launch.to", "pfifo.launch is unbound (no export 'compute.launch') but pfifo.launch.kernels is set"});
  rejected("pfifo:\n  launch.to: none\n", {"pfifo.launch is unbound (none) but pfifo.launch.kernels is set"});
}

// Without a kernel list the port may stay unbound: a LAUNCH is then refused (status 2) as a
// modelled error of the engine, and the channel goes on.
TEST_F(compute_class, UnboundPortWithoutKernelsRefusesTheLaunch) {
  configure("models/pfifo/workloads/compute.pb", "components:\n  compute: none\n");
  config::global().set("pfifo.launch.kernels", "", "test");
  platform p;
  auto w = pfifo::parse_pb_workload(
      "gen G84\nchannel 0 dma\nobject 0 0xc0de50c0 engine 2 sel 0x40\n"
      "push 0\n  inc 0 OBJECT 0xc0de50c0\n  inc 0 0x200 1 1 1 1 32 1 1\n  inc 0 0x300 0\n  inc 0 REF_CNT 3\nend\n"
      "expect ref 0 3\n",
      "nocompute.pb");
  p.host_initiator().run_workload(w.get());
  sc_core::sc_start(sc_core::sc_time(10, sc_core::SC_MS));
  std::ostringstream os;
  EXPECT_EQ(w->check(p, os), 0) << os.str();
  const auto errs = p.modelled_errors();
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_NE(errs[0].find("no compute engine bound to the launch port"), std::string::npos) << errs[0];
}

TEST_F(compute_class, ComputeLineAndBadKernelsList) {
  const auto bad = expect_pb_rejected;
  bad("compute\n", "w.pb:1: 'compute' needs a kernelslist.g");
  bad("compute a.g engine\n", "w.pb:1: usage: compute KERNELSLIST [engine ID]");
  bad("compute a.g engine 40\n", "w.pb:1: engine id is not below 32");
  // The overlay: the component, the engine map with the compute class at its id, the list.
  const auto* k = registry::global().find_workload_kind("x.pb");
  ASSERT_NE(k, nullptr);
  const std::string o = k->overlay_for(text_of("models/pfifo/workloads/compute.pb"));
  EXPECT_EQ(o,
            "pfifo:\n  generation: G84\n  engine_map: [1:m2mf, 3:m2mf, 2:compute]\n"
            "  launch.kernels: \"tests/sm/data/ffma/kernelslist.g\"\ncomponents:\n  compute: compute\n");
  EXPECT_EQ(k->overlay_for("gen GF100\ncompute k.g engine 5\n"),
            "pfifo:\n  generation: GF100\n  engine_map: [0:m2mf, 4:m2mf, 5:compute]\n"
            "  launch.kernels: \"k.g\"\ncomponents:\n  compute: compute\n");
  // At a copy engine's id the compute class takes its place (two engines at one id are refused).
  EXPECT_EQ(k->overlay_for("compute k.g engine 3\n"),
            "pfifo:\n  engine_map: [1:m2mf, 3:compute]\n  launch.kernels: \"k.g\"\ncomponents:\n  compute: compute\n");
  // Issue 10: an unknown generation stays out of the overlay (it would be reported as the bare
  // parameter pfifo.generation), so the parser reports it at file:line.
  EXPECT_EQ(k->overlay_for("gen 0x1z\n"), "");
  bad("\ngen 0x1z\n", "w.pb:2: unknown generation '0x1z'");
  // A missing kernelslist is a configuration error naming the parameter.
  config::global().load_yaml_text(default_platform_yaml(), "embedded");
  config::global().load_yaml_text(k->platform_yaml, "overlay");
  config::global().load_yaml_text("pfifo:\n  engine_map: \"2:compute\"\n  launch.kernels: /nonexistent/kernelslist.g\n", "t");
  try {
    platform p;
    ADD_FAILURE() << "accepted a missing kernelslist";
  } catch (const config_error& e) {
    EXPECT_NE(std::string(e.what()).find("pfifo.launch.kernels"), std::string::npos) << e.what();
  }
}

// GF100: no RAMHT or DMA objects; OBJECT names engine 1 (the compute class by default there) and
// the DMA_* methods carry 32-bit addresses (here in system RAM, host = GPU address).
TEST_F(compute_class, Gf100LaunchWithAddressesInsteadOfDmaObjects) {
  const std::string text =
      "gen GF100\ncompute k.g\nchannel 0 ib order 2\n"
      "push 0\n"
      "  gf.inc 0 OBJECT 0x150c0\n"             // engine 1, class 0x50c0
      "  gf.inc 0 0x180 0x3100000 0x3100000\n"  // DMA_NOTIFY, DMA_SEMAPHORE (addresses)
      "  gf.inc 0 0x200 1 1 1 1 32 1 1\n"
      "  gf.inc 0 0x220 0x10 0xcafe\n"
      "  gf.inline 0 0x104 0\n"
      "  gf.inline 0 0x300 0\n"
      "  gf.inline 0 REF_CNT 0x77\n"
      "end\n"
      "expect mem 0x3100010 0xcafe\nexpect mem 0x310000c 0\nexpect ref 0 0x77\n";
  configure_text(text);
  platform p;
  auto w = pfifo::parse_pb_workload(text, "gf100_compute.pb");
  p.host_initiator().run_workload(w.get());
  sc_core::sc_start(sc_core::sc_time(10, sc_core::SC_MS));
  std::ostringstream os;
  EXPECT_EQ(w->check(p, os), 0) << os.str();
  EXPECT_TRUE(p.modelled_errors().empty());
  EXPECT_EQ(p.find_as<sm::compute_engine>("compute")->results().size(), 1u);
  uint32_t ts = 0;
  ASSERT_TRUE(p.debug_read(0x3100000, &ts, 4));
  EXPECT_GT(ts, 0u);  // the completion time in ns
}

// A second LAUNCH behind a running kernel queues a second kernel on the compute engine; the
// engine is idle (and REF set) only when both are done. Each launch releases its own semaphore.
TEST_F(compute_class, SecondLaunchQueuesBehindTheFirst) {
  configure("models/pfifo/workloads/compute.pb");
  platform p;
  auto* pf = p.find_as<gpuvp::pfifo::pfifo>("pfifo");
  auto* ce = p.find_as<sm::compute_engine>("compute");
  auto w = pfifo::parse_pb_workload(
      "gen G84\nchannel 0 dma\n"
      "dmaobj 0 0x21 target vram base 0x3100000 limit 0xfff\n"
      "object 0 0xc0de50c0 engine 2 sel 0x40\nobject 0 0xd0000021 engine 0 sel 0x21\n"
      "push 0\n"
      "  inc 0 OBJECT 0xc0de50c0\n  inc 0 0x184 0xd0000021\n  inc 0 0x200 1 1 1 1 32 1 1\n"
      "  inc 0 0x220 0x40 1\n  inc 0 0x300 0\n"
      "  inc 0 0x220 0x44 2\n  inc 0 0x300 0\n"
      "  inc 0 REF_CNT 0x99\n"
      "end\n"
      "expect vram 0x3100040 1\nexpect vram 0x3100044 2\nexpect ref 0 0x99\n",
      "two.pb");
  p.host_initiator().run_workload(w.get());
  bool ref_early = false;
  for (int i = 0; i < 100000 && !p.host_initiator().finished(); ++i) {
    sc_core::sc_start(sc_core::sc_time(10, sc_core::SC_NS));
    if (pf->core().chan(0).ref == 0x99 && ce->results().size() < 2) ref_early = true;
  }
  std::ostringstream os;
  EXPECT_EQ(w->check(p, os), 0) << os.str();
  EXPECT_FALSE(ref_early);
  EXPECT_EQ(ce->results().size(), 2u);
  auto* eng = dynamic_cast<pfifo::compute_launch_engine*>(pf->engine_at(2));
  ASSERT_NE(eng, nullptr);
  EXPECT_EQ(eng->completed, 2u);
  EXPECT_EQ(eng->releases, 2u);
  EXPECT_TRUE(p.modelled_errors().empty());
}

// The notifier and semaphore slots carry their selector-rewrite generations (gpu_ext::dma_bind,
// nv50-vm.rst: rewriting the selector flushes the engine's cached object): DMA_NOTIFY written
// twice (the same selector) is generation 2, DMA_SEMAPHORE once is 1. A LAUNCH that is refused
// (no compute component in this bench) still completes: semaphore release, then the notifier
// with status 2.
TEST_F(compute_class, NotifierAndSemaphoreCarryTheirBindGenerations) {
  pfifo::test::flat_bus bus;
  bus.objs[0x22] = {0x1000, 0xff};
  bus.objs[0x21] = {0x2000, 0xfff};
  pfifo::compute_launch_engine e("compute_class", bus, false, nullptr);
  using E = pfifo::compute_launch_engine;
  uint64_t t = 0;
  for (auto [m, v] : std::initializer_list<std::pair<uint32_t, uint32_t>>{{E::m_dma_notify, 0x22},
                                                                          {E::m_dma_notify, 0x22},
                                                                          {E::m_dma_semaphore, 0x21},
                                                                          {E::m_notify, 0},
                                                                          {E::m_semaphore_offset, 0x10},
                                                                          {E::m_semaphore_release, 0x77},
                                                                          {E::m_launch, 0}}) {
    e.submit(0, 0, m, v, t);
    t += 1000;
  }
  ASSERT_EQ(bus.dma_log.size(), 2u);
  EXPECT_EQ(bus.dma_log[0].obj, 0x21u);
  EXPECT_EQ(bus.dma_log[0].bind, 1u);
  EXPECT_EQ(bus.dma_log[1].obj, 0x22u);
  EXPECT_EQ(bus.dma_log[1].bind, 2u);
  EXPECT_EQ(bus.r32(0x2010), 0x77u);
  EXPECT_EQ(bus.r32(0x100c), 2u);  // notifier status: the launch was refused
  EXPECT_EQ(e.launch_errors, 1u);
}
