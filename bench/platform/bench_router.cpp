// SPDX-License-Identifier: Apache-2.0
// Router cost against a bare b_transport, measured in the same run, plus the DMI read rate.
// Topologies, all elaborated once:
//   bare:   initiator -> sparse memory   (function call + copy: the reference's "bare b_transport")
//   1 hop:  initiator -> router -> sparse memory          (contention model on)
//   3 hops: initiator -> router -> router -> router -> sparse memory
//   DMI:    a pointer from the 1-hop memory, read directly
// After the runs it prints each case as a ratio to the bare call (goal for 1 hop: <= 2x) and the
// per-hop overhead.
// A fourth case keeps every read at the same time: a backlog that fills the router's booking
// calendar (the worst case for the contention model). It has a router of its own: on the 1-hop
// router its bookings ran far ahead of the 1-hop initiator, whose reads were then older than the
// calendar's horizon (stale: not the path measured) in every run after a backlog run.
#include <benchmark/benchmark.h>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include "gpuvp/config.h"
#include "gpuvp/extension.h"
#include "gpuvp/memory.h"
#include "gpuvp/router.h"
#include "../ratio_reporter.h"

using namespace gpuvp;

namespace {
struct initiator : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<initiator> out{"out"};
  // The initiator's local time: it goes on from one benchmark run to the next, as a real
  // initiator's does (restarting at 0 would find the router's calendar ahead of every read: those
  // reads are stale, counted without booking, and the run would time that cheaper path).
  sc_core::sc_time local_time = sc_core::SC_ZERO_TIME;
  explicit initiator(sc_core::sc_module_name n) : sc_module(n) {}
};

struct bench_system {
  initiator i0{"i0"}, i1{"i1"}, i3{"i3"}, ib{"ib"};
  sparse_memory t0{"t0"}, t1{"t1"}, t3{"t3"}, tb{"tb"};
  router r1{"r1"}, ra{"ra"}, rb{"rb"}, rc{"rc"}, rbl{"rbl"};
  bench_system() {
    i0.out.bind(t0.in);
    i1.out.bind(r1.in);
    r1.out.bind(t1.in);
    r1.map(0, 0, 1 << 20, "t1");
    i3.out.bind(ra.in);
    ra.out.bind(rb.in);
    rb.out.bind(rc.in);
    rc.out.bind(t3.in);
    ra.map(0, 0, 1 << 20, "rb");
    rb.map(0, 0, 1 << 20, "rc");
    rc.map(0, 0, 1 << 20, "t3");
    ib.out.bind(rbl.in);
    rbl.out.bind(tb.in);
    rbl.map(0, 0, 1 << 20, "tb");
    // Memories that hold data (reads of never-written pages take a slower zero-fill path).
    std::vector<uint8_t> image(1 << 16, 0x5a);
    for (sparse_memory* m : {&t0, &t1, &t3, &tb}) m->load(0, image.data(), image.size());
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
};
bench_system* sys;

// Back-to-back reads as a loosely-timed initiator issues them: each one when the previous is done
// (its annotated delay accumulates as the initiator's local time), booking the router's links.
void run_reads(benchmark::State& state, initiator& init, uint64_t base) {
  uint64_t data = 0;
  transaction t(tlm::TLM_READ_COMMAND, base, &data, 8);
  uint64_t i = 0;
  sc_core::sc_time delay = init.local_time;
  for (auto _ : state) {
    t.gp.set_address(base + ((i++ & 1023) << 3));
    t.gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    init.out->b_transport(t.gp, delay);
    benchmark::DoNotOptimize(delay);
  }
  init.local_time = delay;
  state.SetItemsProcessed(state.iterations());
}

void backlog_1_hop(benchmark::State& state) {
  uint64_t data = 0;
  transaction t(tlm::TLM_READ_COMMAND, 0, &data, 8);
  for (auto _ : state) {
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    t.gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sys->ib.out->b_transport(t.gp, delay);
    benchmark::DoNotOptimize(delay);
  }
  state.SetItemsProcessed(state.iterations());
}

void bare(benchmark::State& s) { run_reads(s, sys->i0, 0); }
void router_1_hop(benchmark::State& s) { run_reads(s, sys->i1, 0); }
void router_3_hops(benchmark::State& s) { run_reads(s, sys->i3, 0); }

void dmi_read(benchmark::State& state) {
  tlm::tlm_generic_payload gp;
  gp.set_address(0);
  tlm::tlm_dmi dmi;
  if (!sys->i1.out->get_direct_mem_ptr(gp, dmi)) {
    state.SkipWithError("no DMI");
    return;
  }
  const unsigned char* p = dmi.get_dmi_ptr();
  const uint64_t span = dmi.get_end_address() - dmi.get_start_address() + 1 - 8;
  sc_core::sc_time delay;
  uint64_t sum = 0, off = 0;
  for (auto _ : state) {
    uint64_t v;
    std::memcpy(&v, p + off, 8);
    sum += v;
    delay += dmi.get_read_latency();
    off = (off + 8) % span;
  }
  benchmark::DoNotOptimize(sum);
  benchmark::DoNotOptimize(delay);
  state.SetItemsProcessed(state.iterations());
}

}  // namespace

int sc_main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  sys = new bench_system;
  benchmark::RegisterBenchmark("bare_b_transport", bare);
  benchmark::RegisterBenchmark("router_1_hop", router_1_hop);
  benchmark::RegisterBenchmark("router_3_hops", router_3_hops);
  benchmark::RegisterBenchmark("dmi_read_8B", dmi_read);
  benchmark::RegisterBenchmark("router_1_hop_backlog", backlog_1_hop);
  bench::initialize_steady(argc, argv);
  bench::ratio_reporter rep([](bench::ratio_reporter& r) {
    r.time_ratio("router_1_hop", "bare_b_transport", 2.0);
    r.time_ratio("router_3_hops", "bare_b_transport");
    r.time_ratio("dmi_read_8B", "bare_b_transport");
    r.time_ratio("router_1_hop_backlog", "bare_b_transport");
    if (r.has("router_3_hops") && r.has("bare_b_transport"))
      std::printf("  router overhead per hop (3 hops): %.2f ns; %.2f M transactions/s through 1 hop\n",
                  (r.time("router_3_hops") - r.time("bare_b_transport")) / 3, r.has("router_1_hop") ? 1e3 / r.time("router_1_hop") : 0.0);
  });
  benchmark::RunSpecifiedBenchmarks(&rep);
  benchmark::Shutdown();
  return 0;
}
