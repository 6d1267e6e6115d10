// SPDX-License-Identifier: Apache-2.0
// The memory calibration kernels of the reference (Accel-Sim dev 73f9fac + GPGPU-Sim dev 667834cf,
// SM7_QV100 configs, -gpgpu_kernel_launch_latency 0) and the scheduler kernels at 2 and 4 warps
// per sub-core. The expected cycles are the oracle's gpu_sim_cycle; the kernels are built as
// the reference describes them (GBASE = 0x7f4000000000, lane t at GBASE + ... + 4t).
#include <gtest/gtest.h>

#include <bit>
#include <cstdio>
#include <sstream>
#include <tuple>

#include "core/gpu.h"
#include "core/dram.h"
#include "core/gpu_config.h"
#include "core/mem_log.h"
#include "core/memsys.h"
#include "core/trace.h"
#include "kernel_builder.h"
#include "paths.h"

using namespace gpuvp::sm;
using namespace gpuvp::gpu_memory;

namespace {

constexpr uint64_t GBASE = 0x7f4000000000ull;

gpu_config qv100() { return gpuvp::sm::testing::shipped("QV100"); }
using gpuvp::sm::testing::mem;
using gpuvp::sm::testing::op;

kernel_trace make(const std::vector<std::vector<trace_writer_inst>>& warps, unsigned nregs = 32) {
  std::string text = write_kernel_trace("k", 1, {1, 1, 1}, {unsigned(warps.size()) * 32, 1, 1}, 70, 0, nregs, warps);
  return parse_kernel_trace_text(text, "generated");
}

// Row 1: 8 × (load a new line, FFMA on it).
std::vector<trace_writer_inst> load_lines(unsigned first_line) {
  std::vector<trace_writer_inst> v;
  for (unsigned i = 0; i < 8; ++i) {
    v.push_back(mem("LDG.E.32", {10 + i}, {2}, GBASE + 128 * (first_line + i), 4));
    v.push_back(op("FFMA", {40 + i}, {10 + i, 3, 4}));
  }
  v.push_back(op("EXIT", {}, {}));
  return v;
}

std::vector<trace_writer_inst> pointer_chase(unsigned hops) {
  std::vector<trace_writer_inst> v;
  for (unsigned h = 0; h < hops; ++h) v.push_back(mem("LDG.E.32", {4}, {4}, GBASE + 17 * 128 * h + 8, 0));
  v.push_back(op("FFMA", {5}, {4, 3, 2}));
  v.push_back(op("EXIT", {}, {}));
  return v;
}

std::vector<trace_writer_inst> mixed(unsigned n) {
  const char* ops[] = {"IMAD", "FFMA", "DFMA", "MUFU.EX2", "IADD3", "FADD", "HMMA.884.F32.F32.STEP0"};
  std::vector<trace_writer_inst> v;
  for (unsigned i = 0; i < n; ++i) v.push_back(op(ops[i % 7], {20 + i}, {2, 3}));
  v.push_back(op("EXIT", {}, {}));
  return v;
}

kernel_result run_qv100(const gpu_config& c, const kernel_trace& k) {
  memory_system m(c);
  gpu_sim g(c, &m, 1);
  return g.run(k);
}

std::vector<std::vector<trace_writer_inst>> store_kernel() {
  std::vector<std::vector<trace_writer_inst>> st;
  for (unsigned w = 0; w < 4; ++w) {
    std::vector<trace_writer_inst> v;
    for (unsigned i = 0; i < 8; ++i) {
      v.push_back(op("FFMA", {5}, {2, 3, 4}));
      v.push_back(mem("STG.E.32", {}, {6, 5}, GBASE + 128 * (8 * w + i), 4));
    }
    v.push_back(op("EXIT", {}, {}));
    st.push_back(v);
  }
  return st;
}

}  // namespace

// Hand-worked from the model's rules (docs/models/gpu_memory.md), QV100 clocks: core, crossbar
// and L2 1132 MHz (core cycle c at c x 883.39 ps), DRAM 850 MHz (edge j at j x 1176.47 ps); a
// DRAM edge between core cycles c - 1 and c has gpu_sim_cycle c. The LDG issues in cycle 2,
// reaches the LDST unit in 5, makes its L1 access in 6 (a miss), enters the miss queue after the
// L1 latency in 26 and is sent in 27 (pushed into the crossbar's input). Crossbar: moved in 28,
// popped by its sub-partition in 29; ROP 160: L2 access
// in 190, a miss, in the L2 -> DRAM queue in 191, popped at the first DRAM edge of
// gpu_sim_cycle >= 192: edge 144 (169.41 ns, core 191.8 -> 192); out of the latency queue at the
// first edge of gpu_sim_cycle >= 192 + 100: edge 219 (257.65 ns, 291.7 -> 292); to the scheduler
// and the bank in 220: activate, column 232 (tRCD 12), CL 12 and one data cycle: in the DRAM ->
// L2 queue at edge 245 (288.24 ns, 326.3), filled into L2 in core cycle 327, leaves the L2 in
// 328, register released 5 cycles later in 333 (crossbar, cluster, L1 fill, writeback). The
// dependent FFMA issues in 333, writes back in 340 and the kernel takes 341 cycles: the
// reference's pointer chase with one hop (oracle 341, 331 per dependent miss).
TEST(sm_memory, single_dependent_miss) {
  const gpu_config c = qv100();
  kernel_result r = run_qv100(c, make({pointer_chase(1)}));
  EXPECT_EQ(r.cycles, 341u);
  EXPECT_EQ(r.stats.l1_misses, 1u);
  EXPECT_EQ(r.mem.l2_misses, 1u);
  EXPECT_EQ(r.mem.dram_reads, 1u);
}

// The same kernel twice on one GPU: L1 flushed between kernels (-gpgpu_flush_l1_cache 1), L2
// kept. The second LDG misses L1 and hits L2: queued in 26 as above, L2 access in 190, a hit: the
// answer leaves the L2 in that cycle, register released in 195, FFMA write-back in 202, kernel
// 203 (the oracle's two-launch kernel: 169 cycles per dependent L2 hit).
TEST(sm_memory, l2_hit_after_l1_flush) {
  const gpu_config c = qv100();
  kernel_trace k = make({pointer_chase(1)});
  memory_system m(c);
  gpu_sim g(c, &m, 1);
  EXPECT_EQ(g.run(k).cycles, 341u);
  kernel_result r = g.run(k);
  EXPECT_EQ(r.cycles, 203u);
  EXPECT_EQ(r.stats.l1_hits, 0u);
  EXPECT_EQ(r.mem.l2_hits, 1u);
  EXPECT_EQ(r.mem.dram_reads, 0u);
  // Without the flush the L1 keeps the sector: the access in 6 hits, the data is back after the
  // L1 latency in 26, the FFMA writes back in 33, kernel 34 (a dependent L1 hit costs 25).
  gpu_config keep = c;
  keep.mem.flush_l1 = false;
  memory_system m2(keep);
  gpu_sim g2(keep, &m2, 1);
  g2.run(k);
  kernel_result r2 = g2.run(k);
  EXPECT_EQ(r2.stats.l1_hits, 1u);
  EXPECT_EQ(r2.cycles, 34u);
}

// Two dependent loads to one DRAM bank. The first as in single_dependent_miss (activate at DRAM
// edge 220, column 232, register released in 333). The second issues in 333, is sent in 357,
// popped in 360, L2 access in 521, in the L2 -> DRAM queue in 522; first edge of gpu_sim_cycle
// >= 523: 392; out of the latency queue at the first edge of gpu_sim_cycle >= 623: 468; at the
// bank in 469.
//  - same row (GBASE + 32: the line's next sector, an L1 and L2 sector miss): row hit, column
//    469, DRAM -> L2 queue at 482 (567.06 ns, core 641.9), L2 fill 642, register 648, kernel
//    648 + 8 = 656;
//  - another row of the bank (GBASE + k MiB on the same sub-partition and bank): precharge in
//    469 (tRAS since 220 long over), activate 481 (tRP), column 493 (tRCD), DRAM -> L2 queue at
//    506 (595.29 ns, 673.9), L2 fill 674, register 680, kernel 688.
TEST(sm_memory, row_buffer_hit_and_miss) {
  const gpu_config c = qv100();
  memory_system probe(c);
  // With IPOLY partition indexing the higher address bits move the sub-partition, so the row-miss
  // address is the first one 1 MiB apart (the next row: row bits from bit 20 of the address with
  // the 5 channel bits taken out) that lands on the same sub-partition and bank.
  const dram_address a = probe.decode(GBASE);
  uint64_t far = GBASE + (1u << 20);
  while (probe.decode(far).sub_partition != a.sub_partition || probe.decode(far).bank != a.bank) far += 1u << 20;
  const dram_address b = probe.decode(far);
  EXPECT_EQ(a.channel, b.channel);
  EXPECT_EQ(a.bank, b.bank);
  EXPECT_NE(a.row, b.row);
  auto two = [&](uint64_t second) {
    std::vector<trace_writer_inst> v{mem("LDG.E.32", {4}, {4}, GBASE, 0), mem("LDG.E.32", {4}, {4}, second, 0), op("FFMA", {5}, {4, 3, 2}),
                                     op("EXIT", {}, {})};
    return run_qv100(c, make({v}));
  };
  kernel_result hit = two(GBASE + 32), miss = two(far);
  // Row hits as GPGPU-Sim counts them (frfcfs_scheduler::schedule: a request of the bank's
  // curr_row, which is row 0 until the bank's first activate): GBASE's row is 0, so the first
  // read, which activates a bank never opened, counts as a row hit too.
  ASSERT_EQ(a.row, 0u);
  EXPECT_EQ(hit.cycles, 656u);
  EXPECT_EQ(hit.mem.dram_row_hits, 2u);
  EXPECT_EQ(miss.cycles, 688u);
  EXPECT_EQ(miss.mem.dram_row_hits, 1u);
}

// One QV100 channel (tRCD 12, tRAS 28, tRP 12, tRC 40, CL 12, tCCDL 2, BL/ratio 1), three reads
// of bank 0 in its L2 -> DRAM queue in cycle 0: rows 1, 2, 1, popped one a cycle after the
// commands of cycles 0, 1, 2 (no latency queue), so they reach the scheduler in 1, 2, 3.
// FR-FCFS: row 1 activated in 1, column 13, data 25, in the DRAM -> L2 queue at 26. Bank free
// in 14: the queued row-1 request goes first (a row hit), column in 15 (tCCDL after 13), out at
// 28. Row 2 in 16: precharge when tRAS allows (29), activate at 41 (tRP, tRC), column 53, out
// at 66. FIFO (-gpgpu_dram_scheduler 0): row 2 second: precharge 29, activate 41, column 53 (out
// 66); row 1 handed to the bank in 54: precharge at 41 + tRAS = 69, activate 81, column 93, out
// 106.
TEST(sm_memory, dram_fr_fcfs_serves_row_hits_first) {
  auto run = [](unsigned scheduler) {
    mem_config m;
    m.dram_scheduler = scheduler;
    m.dram_bnkgrp_lower_bits = 1;
    dram_channel ch(m);
    ch.push({0, 1, 0, false, 1});
    ch.push({0, 2, 0, false, 2});
    ch.push({0, 1, 0, false, 3});
    std::vector<dram_done> out;
    ch.run(30, out);  // only up to cycle 30: row 2 not done yet
    EXPECT_FALSE(ch.empty());
    ch.run(1000, out);
    EXPECT_TRUE(ch.empty());
    std::vector<std::pair<uint64_t, uint64_t>> got;
    for (const dram_done& d : out) got.emplace_back(d.token, d.data_end);
    return std::make_tuple(got, ch.row_hits, ch.activates, ch.precharges);
  };
  using v = std::vector<std::pair<uint64_t, uint64_t>>;
  auto [fr, fr_hits, fr_act, fr_pre] = run(1);
  EXPECT_EQ(fr, (v{{1, 26}, {3, 28}, {2, 66}}));
  EXPECT_EQ(fr_hits, 1u);
  EXPECT_EQ(fr_act, 2u);
  EXPECT_EQ(fr_pre, 1u);
  auto [fi, fi_hits, fi_act, fi_pre] = run(0);
  EXPECT_EQ(fi, (v{{1, 26}, {2, 66}, {3, 106}}));
  EXPECT_EQ(fi_hits, 0u);
  EXPECT_EQ(fi_act, 3u);
  EXPECT_EQ(fi_pre, 2u);
}

namespace {
// The RTX 3070's DRAM data bus on the file above: 2 bytes x BL 16 = one 32-byte atom in 4 DRAM
// cycles (command ratio 4), bank groups from the lower bits.
mem_config rtx3070_bus() {
  mem_config m;
  m.dram_bnkgrp_lower_bits = 1;
  m.dram_buswidth = 2;
  m.dram_burst_length = 16;
  m.dram_cmd_ratio = 4;
  return m;
}
}  // namespace

// The same three reads with the RTX 3070's data bus (BL 16, ratio 4: 2 B x 16 = one 32-byte atom
// in 4 DRAM cycles). dram_t::cycle pops the delay line once a cycle and one pop delivers an atom,
// so the reads leave as with QV100's bus (column + CL + 1): 26, 28, 66; BL / ratio enters only
// tRTP (4: row 2's precharge still waits for tRAS, 29) and the read-write turnarounds. (Holding
// the bus BL / ratio cycles per read gave 29, 33, 69.)
TEST(sm_memory, dram_data_leaves_in_one_pop_whatever_the_burst) {
  const mem_config m = rtx3070_bus();  // (the channel keeps a reference)
  dram_channel ch(m);
  ch.push({0, 1, 0, false, 1});
  ch.push({0, 2, 0, false, 2});
  ch.push({0, 1, 0, false, 3});
  std::vector<dram_done> out;
  ch.run(1000, out);
  std::vector<std::pair<uint64_t, uint64_t>> got;
  for (const dram_done& d : out) got.emplace_back(d.token, d.data_end);
  EXPECT_EQ(got, (std::vector<std::pair<uint64_t, uint64_t>>{{1, 26}, {3, 28}, {2, 66}}));
}

// A request of several 32-byte atoms (a non-sectored L2's line: dram_req_t's nbytes 128) holds
// its bank for one column command per atom and completes with the last atom's data. The file
// above: bank 0 row 1 activated in 1, columns 13, 15, 17, 19 (tCCDL 2), data CL 12 later, the
// last popped at 31: done at 32; the next request of the row only gets the bank then, column 21,
// done at 34. Five column commands, two completions.
TEST(sm_memory, dram_request_of_several_bursts) {
  const mem_config m = rtx3070_bus();  // (the channel keeps a reference)
  dram_channel ch(m);
  dram_request line{0, 1, 0, false, 1};
  line.bursts = 4;
  ch.push(line);
  ch.push({0, 1, 0, false, 2});
  std::vector<dram_done> out;
  ch.run(1000, out);
  std::vector<std::pair<uint64_t, uint64_t>> got;
  for (const dram_done& d : out) got.emplace_back(d.token, d.data_end);
  EXPECT_EQ(got, (std::vector<std::pair<uint64_t, uint64_t>>{{1, 32}, {2, 34}}));
  EXPECT_EQ(ch.reads, 5u);
}

// tRTPL: a read holds the precharge of every bank of its bank group (dram.cc's bkgrp RTPLc)
// tRTPL cycles. Default file (one command a cycle, groups of four banks from the higher bits:
// banks 0 and 1 in group 0, bank 4 in group 1), no latency queue. A (bank 0, row 1) and C
// (bank 0, row 2) queued in 0, B (row 1) in 15. Bank 0 activated in 1 (tRAS to 29, tRC to 41),
// column A 13, out at 26; C takes the bank in 14 and waits for its precharge. B's bank activated
// in 16, its column in 28 (tRCD), out at 41. B on bank 1: the precharge of bank 0 waits for
// tRTPL after B's read, 31 (not tRAS's 29), activate at 31 + tRP = 43, column 55, out at 68. B on
// bank 4 (another group): precharge 29, activate 41 (tRP, tRC), column 53, out at 66. The same
// with a row and a column command a cycle (-dram_dual_bus_interface 1): no two commands meet.
TEST(sm_memory, dram_read_holds_its_bank_groups_precharges) {
  auto run = [](unsigned b_bank, unsigned dual_bus) {
    mem_config m;
    m.dram_dual_bus = dual_bus;
    dram_channel ch(m);
    ch.push({0, 1, 0, false, 'A'});
    ch.push({0, 2, 0, false, 'C'});
    ch.push({15, 1, b_bank, false, 'B'});
    std::vector<dram_done> out;
    ch.run(1000, out);
    std::vector<std::pair<uint64_t, uint64_t>> got;
    for (const dram_done& d : out) got.emplace_back(d.token, d.data_end);
    EXPECT_EQ(ch.precharges, 1u);
    return got;
  };
  using v = std::vector<std::pair<uint64_t, uint64_t>>;
  for (unsigned dual : {0u, 1u}) {
    EXPECT_EQ(run(1, dual), (v{{'A', 26}, {'B', 41}, {'C', 68}})) << dual;
    EXPECT_EQ(run(4, dual), (v{{'A', 26}, {'B', 41}, {'C', 66}})) << dual;
  }
}

// A full scheduler queue holds requests back in the L2 -> DRAM queue: with room for one request,
// the row-1 request arriving third cannot overtake the row-2 one (it enters the scheduler only
// when row 2's has gone to the bank), so the order is the FIFO's.
TEST(sm_memory, dram_scheduler_queue_back_pressure) {
  mem_config m;
  m.frfcfs_queue = 1;
  dram_channel ch(m);
  ch.push({0, 1, 0, false, 1});
  ch.push({0, 2, 0, false, 2});
  ch.push({0, 1, 0, false, 3});
  std::vector<dram_done> out;
  ch.run(1000, out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[1].token, 2u);
  EXPECT_EQ(out[2].token, 3u);
  EXPECT_EQ(ch.row_hits, 0u);
}

// Miss queue of 4, fixed memory latency 100, two independent stores of a line each. STG1 enters
// the LDST unit in 6: its 4 sectors (banks 3, 2, 1, 0 of -gpgpu_l1_banks 4) enter their L1
// latency pipelines together and reach stage 0 after the L1 latency, in 26, where all 4 fit the
// empty miss queue; it sends one per cycle, 26..29. STG2 enters the pipelines in 7 and reaches
// stage 0 in 27: after 26's send 3 requests are queued, so bank 0's store takes the last entry
// and banks 1..3 fail (MISS_QUEUE_FULL, 3 fails); 28: bank 1 goes, 2 and 3 fail (2); 29: bank 2
// goes, 3 fails (1); 30: bank 3 goes. 6 reservation fails; STG2's stores are sent 30..33. The
// warp is done only when its stores are acknowledged: the last ack in 133, kernel 134.
TEST(sm_memory, store_burst_fills_the_miss_queue) {
  gpu_config c = qv100();
  c.mem.l1.miss_queue = 4;
  std::vector<trace_writer_inst> v{mem("STG.E.32", {}, {6, 7}, GBASE, 4), mem("STG.E.32", {}, {8, 9}, GBASE + 128, 4), op("EXIT", {}, {})};
  fixed_latency_memory m(100);
  gpu_sim g(c, &m, 1);
  kernel_result r = g.run(make({v}));
  EXPECT_EQ(r.stats.l1_write_accesses, 8u);
  EXPECT_EQ(r.stats.mem_writes, 8u);
  EXPECT_EQ(r.stats.l1_fails[unsigned(l1_fail::miss_queue_full)], 6u);
  EXPECT_EQ(r.stats.l1_reservation_fails(), 6u);
  EXPECT_EQ(r.cycles, 134u);
}

// Stores write the L1 as -gpgpu_cache:dl1's lazy fetch-on-read write-allocate policy (L) makes
// them (data_cache::wr_miss_wa_lazy_fetch_on_read / wr_hit_wt), besides writing through. One
// warp stores a line, then loads it: each of the store's four sector accesses covers all 32 bytes
// of its sector (8 lanes x 4 bytes), so the sectors are MODIFIED and readable, and the load's
// four accesses, one cycle behind the store's in the same bank pipelines, hit. With write-allocate
// N the store leaves the L1 as it was: the load misses all four sectors (the L2, written by the
// store first, answers them). The stores count in the L1's accesses as GPGPU-Sim counts writes:
// a store to a sector not in the L1 is a miss, to a VALID or MODIFIED one a hit, to one whose
// fill is due a pending hit.
TEST(sm_memory, store_then_load_lazy_fetch_on_read) {
  const auto kernel = [](uint32_t store_mask, uint32_t second_store_mask) {
    std::vector<trace_writer_inst> v{mem("STG.E.32", {}, {6, 5}, GBASE, 4, store_mask)};
    if (second_store_mask) {  // the lanes after the first store's, continuing its addresses
      trace_writer_inst s2 = mem("STG.E.32", {}, {6, 5}, GBASE, 4, second_store_mask);
      for (unsigned t = 0; t < 32; ++t)
        if (second_store_mask >> t & 1) s2.addrs[t] = GBASE + 4 * t;
      v.push_back(s2);
    }
    v.push_back(mem("LDG.E.32", {10}, {2}, GBASE, 4));
    v.push_back(op("FFMA", {11}, {10, 3, 4}));
    v.push_back(op("EXIT", {}, {}));
    return make({v});
  };
  const gpu_config c = qv100();
  ASSERT_EQ(c.mem.l1.write_alloc, 'L');  // the shipped QV100 file's -gpgpu_cache:dl1 L:T:m:L:L
  kernel_result full = run_qv100(c, kernel(0xffffffffu, 0));
  EXPECT_EQ(full.stats.l1_write_accesses, 4u);
  EXPECT_EQ(full.stats.l1_accesses, 8u);
  EXPECT_EQ(full.stats.l1_hits, 4u);    // the load's
  EXPECT_EQ(full.stats.l1_misses, 4u);  // the store's
  EXPECT_EQ(full.stats.mem_reads, 0u);
  EXPECT_EQ(full.mem.l2_writes, 4u);
  EXPECT_EQ(full.mem.dram_reads, 0u);
  // Lanes 0-3 write bytes 0-15 of sector 0 only: that sector is MODIFIED but not readable (a
  // SECTOR_MISS for the load), the other three are not in the L1: four misses, and the store's.
  kernel_result partial = run_qv100(c, kernel(0x0000000fu, 0));
  EXPECT_EQ(partial.stats.l1_write_accesses, 1u);
  EXPECT_EQ(partial.stats.l1_hits, 0u);
  EXPECT_EQ(partial.stats.l1_misses, 5u);
  // A second store of lanes 4-7 writes bytes 16-31: the sector's byte mask is full, it is
  // readable (update_m_readable), and the load hits it. The second store hits the MODIFIED sector.
  kernel_result completed = run_qv100(c, kernel(0x0000000fu, 0x000000f0u));
  EXPECT_EQ(completed.stats.l1_write_accesses, 2u);
  EXPECT_EQ(completed.stats.l1_hits, 2u);    // the second store, the load's sector 0
  EXPECT_EQ(completed.stats.l1_misses, 4u);  // the first store, the load's sectors 1-3
  gpu_config no_allocate = c;
  no_allocate.mem.l1.write_alloc = 'N';
  kernel_result through = run_qv100(no_allocate, kernel(0xffffffffu, 0));
  EXPECT_EQ(through.stats.l1_hits, 0u);
  EXPECT_EQ(through.stats.l1_misses, 8u);
  EXPECT_EQ(through.mem.l2_hits, 4u);
  // A store to sectors whose fill is pending (HIT_RESERVED): they become MODIFIED and, fully
  // written, readable at once, so a second load hits them instead of merging into the MSHRs.
  // The store's four accesses are pending hits (HIT_RESERVED), with either policy.
  const auto reserved_kernel = make({{mem("LDG.E.32", {10}, {2}, GBASE, 4), mem("STG.E.32", {}, {6, 5}, GBASE, 4),
                                      mem("LDG.E.32", {12}, {2}, GBASE, 4), op("FFMA", {11}, {10, 12, 4}), op("EXIT", {}, {})}});
  kernel_result over_fill = run_qv100(c, reserved_kernel);
  EXPECT_EQ(over_fill.stats.l1_misses, 4u);
  EXPECT_EQ(over_fill.stats.l1_hits, 4u);
  EXPECT_EQ(over_fill.stats.l1_pending_hits, 4u);
  kernel_result merged = run_qv100(no_allocate, reserved_kernel);
  EXPECT_EQ(merged.stats.l1_misses, 4u);
  EXPECT_EQ(merged.stats.l1_hits, 0u);
  EXPECT_EQ(merged.stats.l1_pending_hits, 8u);  // the store's and the second load's
  // Cycles: the STG issues in 2 and the LDG in 3; their sectors enter the bank pipelines in 5
  // and 6 and reach stage 0 in 25 and 26. The stores take the miss queue and are sent one a cycle
  // in 26-29; the load hits in 26, so its FFMA issues in 27 (a dependent L1 hit, as in
  // l2_hit_after_l1_flush one cycle later). The kernel lasts until the last store is acknowledged:
  // sent in 29, L2 access 163 cycles later in 192 (single_dependent_miss: sent 27, access 190),
  // acknowledged two cycles before a read's release (192 + 5 - 2 = 195), kernel 197. Without the
  // allocation the load's misses go to the L2 behind the four stores and the kernel is longer.
  EXPECT_EQ(full.cycles, 197u);
  EXPECT_GT(through.cycles, full.cycles);
}

// A cluster whose response FIFO is full pops no answer from the reply crossbar
// (simt_core_cluster::icnt_cycle pops only while it holds fewer than
// -gpgpu_n_cluster_ejection_buffer_size): the answer waits in the crossbar's output buffer and is
// popped in the first cycle the FIFO has room, its register released 3 cycles after the pop as
// always (single_dependent_miss). A hold that ends before the answer is there changes nothing.
TEST(sm_memory, full_cluster_response_fifo_holds_the_reply_crossbar) {
  const gpu_config c = qv100();
  struct client final : mem_client {
    uint64_t hold = 0, done = 0;
    void mem_done(uint64_t, bool, unsigned, uint64_t cycle) override { done = cycle; }
    unsigned icnt_node() const override { return 0; }
    bool reply_fifo_full(uint64_t cycle) const override { return cycle < hold; }
  };
  const auto answered = [&](uint64_t hold) {
    memory_system m(c);
    client p;
    p.hold = hold;
    EXPECT_EQ(m.access(GBASE, 4, false, mem_port::whole_sector, 0, &p, 0), mem_port::pending);
    for (uint64_t cyc = 0; cyc < 5000 && !p.done; ++cyc) m.cycle(cyc);
    return p.done;
  };
  const uint64_t free = answered(0);
  ASSERT_GT(free, 100u);
  EXPECT_EQ(answered(free - 10), free);
  EXPECT_EQ(answered(free + 50), free + 50 + 3);
}

// An L1D of one set and one way. LDG R1 misses line A (sector 0 reserved, the fill 100 cycles
// away); a store to that sector while its fill is due makes it MODIFIED (HIT_RESERVED, a pending
// hit), so the line is no longer reserved (is_reserved_line) and LDG R2 of line B, answered 400
// cycles later, replaces it. A's fill then fills the cache index its miss took, which holds B by
// now (baseline_cache::fill with allocate-on-miss: tag_array::fill(index, ...), whatever line is
// there): B's sector 0 becomes VALID (B's allocation cleared m_set_modified_on_fill) and no longer
// reserved. LDG R3 of B, issued once R1 is released (after A's fill), hits it: an L1 hit, whose
// dependent FFMA issues as long after it as after the hit in a kernel that loads B twice, long
// before B's own fill. (Filling only a line still present, R3 would merge into B's miss and wait
// for its fill.)
TEST(sm_memory, fill_goes_to_the_index_its_miss_took) {
  gpu_config c = qv100();
  c.adaptive_l1 = false;
  c.l1_sets = 1;
  c.l1_ways = 1;
  constexpr uint64_t A = 0x10000, B = 0x10200;
  struct timed_memory final : mem_port {
    uint64_t access(uint64_t addr, unsigned, bool write, uint32_t, uint64_t cycle, mem_client*, unsigned) override {
      return !write && addr / 128 == B / 128 ? 400 - cycle : 100;
    }
  };
  const auto run = [&](const std::vector<trace_writer_inst>& v, std::vector<uint64_t>& issued) {
    timed_memory m;
    gpu_sim g(c, &m, 1);
    g.on_issue = [&](unsigned, unsigned, uint16_t, uint64_t cycle) { issued.push_back(cycle); };
    return g.run(make({v}));
  };
  std::vector<uint64_t> t, ref;
  const kernel_result r = run({mem("LDG.E", {1}, {4}, A, 0), mem("STG.E", {}, {4, 5}, A, 0), mem("LDG.E", {2}, {6}, B, 0),
                               mem("LDG.E", {3}, {1}, B, 0), op("FFMA", {7}, {3, 3, 3}), op("EXIT", {}, {})},
                              t);
  EXPECT_EQ(r.stats.l1_misses, 2u);        // A, B
  EXPECT_EQ(r.stats.l1_pending_hits, 1u);  // the store
  EXPECT_EQ(r.stats.l1_hits, 1u);          // LDG R3
  EXPECT_EQ(r.stats.mem_reads, 2u);
  const kernel_result b =
      run({mem("LDG.E", {1}, {4}, B, 0), mem("LDG.E", {3}, {1}, B, 0), op("FFMA", {7}, {3, 3, 3}), op("EXIT", {}, {})}, ref);
  EXPECT_EQ(b.stats.l1_hits, 1u);
  ASSERT_EQ(t.size(), 6u);
  ASSERT_EQ(ref.size(), 4u);
  EXPECT_LT(t[4], 300u);
  EXPECT_EQ(t[4] - t[3], ref[2] - ref[1]);
}

// The L2 as GPGPU-Sim's write-back, lazy fetch-on-read L2 (-gpgpu_cache:dl2 ...,L:B:m:L:P:
// data_cache::wr_miss_wa_lazy_fetch_on_read, wr_hit_wb, update_m_readable, tag_array::probe):
// a store writes its bytes of a sector without a DRAM read; a sector not all of whose 32 bytes
// are written is MODIFIED but not readable, so a read of it is a SECTOR_MISS (an L2 miss) that
// fetches it from DRAM; the fill makes it readable and leaves it MODIFIED, so its eviction
// writes it back. One warp's stores in one kernel, a load of sector 0 of GBASE's line (lanes
// 0-7: bytes 0-31) in the next: the L1 is flushed between kernels, the L2 kept, so the load
// reaches the L2. Its cycles: an L2 hit as in l2_hit_after_l1_flush (203), a miss to DRAM as in
// single_dependent_miss (341: the same sector, the DRAM banks idle with no row open, since the
// stores wrote nothing to DRAM).
TEST(sm_memory, l2_partial_writes_lazy_fetch_on_read) {
  const gpu_config c = qv100();
  ASSERT_EQ(c.mem.l2.write_alloc, 'L');  // the shipped QV100 file's -gpgpu_cache:dl2 S:32:128:24,L:B:m:L:P
  const kernel_trace load = make({{mem("LDG.E.32", {10}, {2}, GBASE, 4, 0x000000ffu), op("FFMA", {11}, {10, 3, 4}), op("EXIT", {}, {})}});
  // Lanes 0-3 store bytes 0-15, lanes 4-7 bytes 16-31, lanes 0-7 all 32 bytes of sector 0.
  const auto store = [](uint32_t mask) { return mem("STG.E.32", {}, {6, 5}, GBASE + 4 * unsigned(std::countr_zero(mask)), 4, mask); };
  struct outcome {
    kernel_result st, ld, again;
  };
  const auto run = [&](const gpu_config& cfg, std::vector<trace_writer_inst> stores) {
    stores.push_back(op("EXIT", {}, {}));
    memory_system m(cfg);
    gpu_sim g(cfg, &m, 1);
    outcome o;
    o.st = g.run(make({stores}));
    o.ld = g.run(load);
    o.again = g.run(load);
    return o;
  };
  // A partial store, then the load: the store is an L2 write miss (the sector allocated
  // MODIFIED with bytes 0-15, unreadable); the load a SECTOR_MISS: one L2 miss, one DRAM read.
  const outcome partial = run(c, {store(0x0000000fu)});
  EXPECT_EQ(partial.st.mem.l2_writes, 1u);
  EXPECT_EQ(partial.st.mem.l2_misses, 1u);
  EXPECT_EQ(partial.st.mem.dram_reads + partial.st.mem.dram_writes, 0u);
  EXPECT_EQ(partial.ld.mem.l2_accesses, 1u);
  EXPECT_EQ(partial.ld.mem.l2_misses, 1u);
  EXPECT_EQ(partial.ld.mem.l2_hits, 0u);
  EXPECT_EQ(partial.ld.mem.dram_reads, 1u);
  EXPECT_EQ(partial.ld.cycles, 341u);
  // The fill made the sector readable: the load again hits, no DRAM access.
  EXPECT_EQ(partial.again.mem.l2_hits, 1u);
  EXPECT_EQ(partial.again.mem.dram_reads, 0u);
  EXPECT_EQ(partial.again.cycles, 203u);
  // Two stores of complementary halves: a write miss, then a write hit (the sector MODIFIED,
  // readable or not, is a HIT for a write) that completes the byte mask: the load hits.
  const outcome halves = run(c, {store(0x0000000fu), store(0x000000f0u)});
  EXPECT_EQ(halves.st.mem.l2_writes, 2u);
  EXPECT_EQ(halves.st.mem.l2_misses, 1u);
  EXPECT_EQ(halves.st.mem.l2_hits, 1u);
  EXPECT_EQ(halves.ld.mem.l2_accesses, 1u);
  EXPECT_EQ(halves.ld.mem.l2_hits, 1u);
  EXPECT_EQ(halves.ld.mem.dram_reads, 0u);
  EXPECT_EQ(halves.ld.cycles, 203u);
  // A store of the whole sector: readable at once, the load hits (as before partial writes).
  const outcome full = run(c, {store(0x000000ffu)});
  EXPECT_EQ(full.st.mem.l2_misses, 1u);
  EXPECT_EQ(full.ld.mem.l2_hits, 1u);
  EXPECT_EQ(full.ld.mem.dram_reads, 0u);
  EXPECT_EQ(full.ld.cycles, 203u);
  // The fetched sector stays dirty (allocate_sector's m_set_modified_on_fill): with one L2 set of
  // one way (one channel, one sub-partition), a load of another line evicts it and writes it
  // back, one 32-byte DRAM write (the whole sector, its byte mask with it).
  gpu_config tiny = c;
  tiny.mem.n_mem = 1;
  tiny.mem.sub_per_channel = 1;
  tiny.mem.partition_indexing = 0;
  tiny.mem.l2.sets = 1;
  tiny.mem.l2.ways = 1;
  {
    memory_system m(tiny);
    gpu_sim g(tiny, &m, 1);
    g.run(make({{store(0x0000000fu), op("EXIT", {}, {})}}));
    const kernel_result ld = g.run(load);
    EXPECT_EQ(ld.mem.l2_misses, 1u);
    EXPECT_EQ(ld.mem.dram_reads, 1u);
    const kernel_result other = g.run(make({{mem("LDG.E.32", {10}, {2}, GBASE + 128, 0), op("EXIT", {}, {})}}));
    EXPECT_EQ(other.mem.l2_misses, 1u);
    EXPECT_EQ(other.mem.dram_reads, 1u);
    EXPECT_EQ(other.mem.dram_writes, 1u);
  }
}

// The same rules for accesses to a sector whose fill is due, driven at the memory's port:
// cluster 0 sends a read of sector 0 of GBASE's line in cycle 26 (it reaches the L2 in 190, a
// miss: the timing of single_dependent_miss, filled into L2 in 327, leaving it in 328, back in
// 333), a write of it in 27 (L2 access 191: HIT_RESERVED, a pending hit; the sector is MODIFIED
// from now, its fill still due; acknowledged at 191 + 3 = 194) and a read in 28 (L2 access 192).
// With bytes 0-15 written, that read is a SECTOR_MISS: an L2 miss that joins the fill in DRAM
// (send_read_request's MSHR hit) and makes the sector RESERVED again (allocate_sector), answered
// with the fill, one a cycle after the first: it leaves the L2 in 329, back in 334; a read in 29
// (L2 access 193) then merges as a pending hit (330, 335); after the fill a read in 400 (L2
// access 564) hits, back in 569. With all 32 bytes written the read in 28 hits the MODIFIED
// sector at once (GPGPU-Sim's probe: MODIFIED and readable is a HIT), back in 197, before the fill.
TEST(sm_memory, l2_write_to_a_sector_whose_fill_is_due) {
  const auto run = [](uint32_t written) {
    const gpu_config c = qv100();
    memory_system m(c);
    struct port final : mem_client {
      void mem_done(uint64_t, bool, unsigned tag, uint64_t cycle) override { done[tag] = cycle; }
      unsigned icnt_node() const override { return 0; }
      uint64_t done[5] = {0, 0, 0, 0, 0};
    } p;
    const uint64_t sends[5] = {26, 27, 28, 29, 400};
    for (uint64_t cyc = 0; cyc < 700; ++cyc) {
      m.cycle(cyc);
      for (unsigned i = 0; i < 5; ++i)
        if (cyc == sends[i]) {
          EXPECT_EQ(m.access(GBASE, 32, i == 1, i == 1 ? written : mem_port::whole_sector, cyc, &p, i), mem_port::pending);
        }
    }
    return std::make_pair(std::vector<uint64_t>(p.done, p.done + 5), m.stats());
  };
  const auto [partial, ps] = run(0x0000ffffu);
  EXPECT_EQ(partial, (std::vector<uint64_t>{333, 194, 334, 335, 569}));
  EXPECT_EQ(ps.l2_accesses, 5u);
  EXPECT_EQ(ps.l2_writes, 1u);
  EXPECT_EQ(ps.l2_misses, 2u);        // the first read, the SECTOR_MISS
  EXPECT_EQ(ps.l2_pending_hits, 2u);  // the write, the read in 29
  EXPECT_EQ(ps.l2_hits, 1u);          // the read after the fill
  EXPECT_EQ(ps.dram_reads, 1u);
  const auto [whole, ws] = run(mem_port::whole_sector);
  EXPECT_EQ(whole[1], 194u);
  EXPECT_EQ(whole[2], 197u);
  EXPECT_EQ(whole[3], 198u);
  EXPECT_EQ(ws.l2_misses, 1u);
  EXPECT_EQ(ws.l2_pending_hits, 1u);
  EXPECT_EQ(ws.l2_hits, 3u);
  EXPECT_EQ(ws.dram_reads, 1u);
}

namespace {
// A client at crossbar node 0 that records the cycle each of two tags is answered in.
struct two_answers final : mem_client {
  void mem_done(uint64_t, bool, unsigned tag, uint64_t cycle) override { done[tag] = cycle; }
  unsigned icnt_node() const override { return 0; }
  uint64_t done[2] = {0, 0};
};
}  // namespace

// A non-sectored L2 (-gpgpu_cache:dl2 N:..., the GTX 1080 file's): GPGPU-Sim keeps a line as
// one block, and a miss sends the whole line down (baseline_cache::send_read_request sets the
// request's data size to get_atom_sz(), the line), which the DRAM moves in one request of four
// 32-byte column commands (dram_t::issue_col_command keeps the request at its bank until txbytes
// reaches nbytes); the answer follows the last. QV100's timeline (single_dependent_miss): a read
// sent in 26 makes its L2 access in 190, its request reaches the bank at DRAM edge 220: activate,
// column 232. Sectored: one column, its data out at edge 245 (core 326.3), L2 fill in 327, back
// in 333. Not sectored: columns 232, 234, 236, 238 (tCCDL 2 within the bank group), the last
// data popped at 250 and in the DRAM -> L2 queue at edge 251 (295.29 ns, core 334.3): L2 fill in
// 335, back in 341; four DRAM reads. A read of the line's last sector in 300 (L2 access 464)
// then hits the whole line: back in 469.
TEST(sm_memory, non_sectored_l2_moves_whole_lines) {
  const auto run = [](bool sectored) {
    gpu_config c = qv100();
    c.mem.l2.sectored = sectored;
    memory_system m(c);
    two_answers p;
    for (uint64_t cyc = 0; cyc < 700; ++cyc) {
      m.cycle(cyc);
      if (cyc == 26) {
        EXPECT_EQ(m.access(GBASE, 32, false, mem_port::whole_sector, cyc, &p, 0), mem_port::pending);
      }
      if (cyc == 300) {
        EXPECT_EQ(m.access(GBASE + 96, 32, false, mem_port::whole_sector, cyc, &p, 1), mem_port::pending);
      }
    }
    EXPECT_EQ(m.packet_bytes(), sectored ? 32u : 128u);
    return std::make_tuple(std::vector<uint64_t>(p.done, p.done + 2), m.stats(), m.channels()[0].reads);
  };
  const auto [sec, ss, sreads] = run(true);
  EXPECT_EQ(sec[0], 333u);
  EXPECT_EQ(ss.l2_misses, 2u);  // the other sector is a sector miss: its own DRAM read
  EXPECT_EQ(ss.dram_reads, 2u);
  const auto [line, ls, lreads] = run(false);
  EXPECT_EQ(line, (std::vector<uint64_t>{341, 469}));
  EXPECT_EQ(ls.l2_misses, 1u);
  EXPECT_EQ(ls.l2_hits, 1u);
  EXPECT_EQ(ls.dram_reads, 4u);
  EXPECT_EQ(lreads, 4u);  // (channel 0: GBASE's)
}

// BookSim (-network_mode 1, TITAN X's file: flit_size 40, internal_speedup 2.0) carries a
// read's answer in data size + 8 bytes of control (the reply's mf->size()): a sector's 40 bytes
// are one flit, a non-sectored L2 line's 136 four. The node injects one flit a cycle and a
// packet's further flits follow its head one a cycle, so the whole line's answer reaches the
// cluster 3 cycles after a sector's would; the request (8 bytes, one flit) and the L2 hit are
// the same.
TEST(sm_memory, booksim_answer_of_a_line_takes_its_flits) {
  const auto answered = [](unsigned bytes) {
    gpu_config c = gpuvp::sm::testing::shipped("TITANX");
    c.mem.l2.sectored = false;
    memory_system m(c);
    const uint64_t base = 0x40000000;  // below 4 GiB: perf_memcpy_to_gpu keeps 32 address bits
    m.memcpy_to_device(base, 128);
    struct port final : mem_client {
      void mem_done(uint64_t, bool, unsigned, uint64_t cycle) override { done = cycle; }
      unsigned icnt_node() const override { return 0; }
      uint64_t done = 0;
    } p;
    for (uint64_t cyc = 0; cyc < 400; ++cyc) {
      m.cycle(cyc);
      if (cyc == 10) {
        EXPECT_EQ(m.access(base, bytes, false, mem_port::whole_sector, cyc, &p, 0), mem_port::pending);
      }
      m.sms_stepped();
    }
    EXPECT_EQ(m.stats().l2_hits, 1u);
    return p.done;
  };
  const uint64_t sector = answered(32), line = answered(128);
  EXPECT_GT(sector, 10u);
  EXPECT_EQ(line, sector + 3);
}

// A non-sectored L2 with write-allocate 'W' (the GTX 1080 file's L:B:m:W:L): a write miss goes
// to the DRAM as it is and is acknowledged from there (data_cache::wr_miss_wa_naive sends it
// down; memory_sub_partition::cache_cycle acknowledges a write at the L2 only under
// fetch-on-write or lazy fetch-on-read, and passes the DRAM's answer, which waits for no fill,
// to the L2 -> icnt queue), and a read of the whole line follows it from the L2's miss queue
// (L2_WR_ALLOC_R), answering nobody. QV100's timeline, a 4-byte store sent in 26: L2 access in
// 190, the write popped at DRAM edge 144, at the bank in 220: activate; its column after
// tRCDWR = tRCD - (WL + 1) = 9: 229, data WL = 2 later, popped at 231, into the DRAM -> L2 queue
// at edge 232 (272.94 ns, core 308.97): L2 step 309 puts the acknowledgement in the L2 -> icnt
// queue, the cluster pops it in 311, the LDST unit has it in 312. The line read leaves the miss
// queue a cycle after the write, popped at edge 145 (gpu_sim_cycle 194), out of the latency
// queue at the first edge of gpu_sim_cycle >= 294 (221), at the bank in 222 behind the write:
// a row hit, column after tWTR = WL + BL / ratio + CDLR = 6 from the write's, 235, 237, 239,
// 241; the last data at 253, in at edge 254 (core 338.3): the line is valid from 339. A read of
// it in 300 (L2 access 464) hits: back in 469. One DRAM write, four DRAM reads.
TEST(sm_memory, non_sectored_l2_write_allocate_naive) {
  gpu_config c = qv100();
  c.mem.l2.sectored = false;
  c.mem.l2.write_alloc = 'W';
  memory_system m(c);
  two_answers p;
  for (uint64_t cyc = 0; cyc < 700; ++cyc) {
    m.cycle(cyc);
    if (cyc == 26) {
      EXPECT_EQ(m.access(GBASE, 4, true, 0xfu, cyc, &p, 0), mem_port::pending);
    }
    if (cyc == 300) {
      EXPECT_EQ(m.access(GBASE + 32, 32, false, mem_port::whole_sector, cyc, &p, 1), mem_port::pending);
    }
  }
  EXPECT_EQ(std::vector<uint64_t>(p.done, p.done + 2), (std::vector<uint64_t>{312, 469}));
  const mem_stats s = m.stats();
  EXPECT_EQ(s.l2_writes, 1u);
  EXPECT_EQ(s.l2_misses, 1u);
  EXPECT_EQ(s.l2_hits, 1u);
  EXPECT_EQ(s.dram_writes, 1u);
  EXPECT_EQ(s.dram_reads, 4u);
}

// The reference's memory calibration kernels. Statistics: exact (they follow from coalescing
// and the caches' rules; the store kernel's 153 reservation fails are the oracle's). Cycles: the
// oracle's, exactly (the 320-CTA bandwidth kernel, not exact yet, is in core_exact_test.cpp and
// docs/models/gpu_memory.md).
TEST(sm_memory, reference_calibration_kernels) {
  const gpu_config c = qv100();
  kernel_result r1 = run_qv100(c, make({load_lines(0)}));
  EXPECT_EQ(r1.stats.l1_accesses, 32u);
  EXPECT_EQ(r1.stats.l1_misses, 32u);
  EXPECT_EQ(r1.mem.l2_accesses, 32u);
  EXPECT_EQ(r1.mem.l2_misses, 32u);
  EXPECT_EQ(r1.cycles, 2663u);
  const unsigned hops[] = {1, 2, 8, 16}, oracle[] = {341, 672, 2657, 5304};
  for (unsigned i = 0; i < 4; ++i) EXPECT_EQ(run_qv100(c, make({pointer_chase(hops[i])})).cycles, oracle[i]) << hops[i];
  kernel_result st = run_qv100(c, make(store_kernel()));
  EXPECT_EQ(st.stats.l1_write_accesses, 128u);
  EXPECT_EQ(st.stats.l1_accesses, 128u);  // GPGPU-Sim's L1D_total_cache_accesses counts the stores:
  EXPECT_EQ(st.stats.l1_misses, 128u);    // 32 lines written once, four sectors each, all misses
  EXPECT_EQ(st.mem.l2_writes, 128u);
  EXPECT_EQ(st.stats.l1_fails[unsigned(l1_fail::miss_queue_full)], 153u);  // the oracle's count
  EXPECT_EQ(st.stats.l1_reservation_fails(), 153u);
  EXPECT_EQ(st.cycles, 328u);
  std::vector<std::vector<trace_writer_inst>> l4;
  for (unsigned w = 0; w < 4; ++w) l4.push_back(load_lines(8 * w));
  kernel_trace k4 = make(l4);
  memory_system m(c);
  gpu_sim g(c, &m, 1);
  kernel_result a = g.run(k4), b = g.run(k4);
  EXPECT_EQ(a.cycles, 2683u);
  EXPECT_EQ(b.stats.l1_misses, 128u);  // L1 flushed
  EXPECT_EQ(b.mem.l2_hits, 128u);      // L2 kept
  EXPECT_EQ(b.mem.dram_reads, 0u);
  EXPECT_EQ(b.cycles, 1597u);
  std::vector<trace_writer_inst> pm{mem("LDG.E.32", {10}, {2}, GBASE + 64, 4, 0xffff0000u), op("FFMA", {40}, {10, 3, 4}),
                                    mem("LDG.E.32", {11}, {2}, GBASE + 128, 4), op("FFMA", {41}, {11, 3, 4}), op("EXIT", {}, {})};
  kernel_result p = run_qv100(c, make({pm}));
  EXPECT_EQ(p.stats.l1_misses, 6u);  // lanes 16..31 at GBASE + 64 + 4k: 2 sectors; then 4
  EXPECT_EQ(p.stats.l1_hits, 0u);
  EXPECT_EQ(p.cycles, 668u);
}

// The L2 set is GPGPU-Sim's l2_cache_config::set_index of the partition address. With one
// channel of one sub-partition the partition address is the address itself: line n = addr / 128,
// GBASE's line n0 = 0xfe80000000 (bits 0 and 1 clear). Two sets of one way: the linear function
// (L) takes n mod 2, so n0 and n0 + 2 (GBASE + 256) share set 0, the second load's miss evicts the
// first line (once its fill is in: a way whose sector is pending is not replaced) and a second
// kernel's load of GBASE misses again; X XORs bit 1 of n (the bit above the set bits) into the
// index: n0 + 2 goes to set 1 and the second kernel hits in L2.
TEST(sm_memory, l2_set_index_function) {
  for (char f : {'L', 'X'}) {
    gpu_config c = qv100();
    c.mem.n_mem = 1;
    c.mem.sub_per_channel = 1;
    c.mem.partition_indexing = 0;
    c.mem.l2.sets = 2;
    c.mem.l2.ways = 1;
    c.mem.l2.set_index = f;
    const kernel_trace k1 = make({{mem("LDG.E.32", {4}, {2}, GBASE, 0), mem("LDG.E.32", {5}, {2}, GBASE + 256, 0), op("EXIT", {}, {})}});
    const kernel_trace k2 = make({{mem("LDG.E.32", {4}, {2}, GBASE, 0), op("EXIT", {}, {})}});
    memory_system m(c);
    gpu_sim g(c, &m, 1);
    const kernel_result a = g.run(k1), b = g.run(k2);
    EXPECT_EQ(a.mem.l2_misses, 2u) << f;
    // L: the second line needs the first's way, whose fill is pending until its L2 fill in 327
    // (single_dependent_miss's timing; DRAM banks start idle whatever the channel count): the
    // second sector reaches the L2 in 191 (as sector 1 of l2_mshr_limit_stalls_the_l2_input) and
    // fails to allocate (LINE_ALLOC_FAIL) in 191..326, replacing the filled line in 327.
    EXPECT_EQ(a.mem.l2_reservation_fails, f == 'L' ? 136u : 0u) << f;
    EXPECT_EQ(a.mem.l2_fail_line_alloc, a.mem.l2_reservation_fails) << f;
    EXPECT_EQ(a.mem.l2_queue_stalls, 0u) << f;
    EXPECT_EQ(b.mem.l2_misses, f == 'L' ? 1u : 0u) << f;
    EXPECT_EQ(b.mem.l2_hits, f == 'L' ? 0u : 1u) << f;
  }
}

// The L2 input stalls on a full MSHR table (-gpgpu_cache:dl2 A:1). One LDG of lanes 0..15 (64
// bytes: sectors 0 and 1 of GBASE's line, L1 banks 0 and 1) enters the L1 pipelines in 6; in 26
// bank 0 then bank 1 miss, the miss queue sends sector 0 in 27 and sector 1 in 28 (the memory
// counting from 26 and 27, the cycles of their L1 accesses). Sector 0 is
// single_dependent_miss's: L2 access 190, filled into L2 in 327, register in 333. Sector 1 is
// popped in 30 and reaches the L2 in 191, finds the only MSHR taken and stalls: one reservation
// fail per cycle 191..327 (the entry is free once sector 0's answer has left the L2, in 328); in
// 328 it misses, L2 -> DRAM queue 329, popped at edge 248 (gpu_sim_cycle 331), out of the latency
// queue at edge 323 (431), at the bank in 324: a row hit on the open row, column 324, DRAM -> L2
// queue at 337 (396.47 ns, core 448.8), L2 fill 449, register 455. The FFMA issues in 455 and
// writes back in 462: kernel 463. With the shipped 192 MSHRs sector 1 misses in 191, is popped at
// edge 145 (194), leaves the latency queue at 221 (295), goes to the bank in 222, after sector
// 0's column command (232): column 234 (tCCDL 2), out at 247 (290.59 ns, 328.95), L2 fill 329,
// register 335, kernel 343.
TEST(sm_memory, l2_mshr_limit_stalls_the_l2_input) {
  gpu_config c = qv100();
  std::vector<trace_writer_inst> v{mem("LDG.E.32", {4}, {2}, GBASE, 4, 0x0000ffffu), op("FFMA", {5}, {4, 3, 2}), op("EXIT", {}, {})};
  kernel_result free = run_qv100(c, make({v}));
  EXPECT_EQ(free.cycles, 343u);
  EXPECT_EQ(free.mem.l2_reservation_fails, 0u);
  c.mem.l2.mshrs = 1;
  kernel_result one = run_qv100(c, make({v}));
  EXPECT_EQ(one.mem.l2_misses, 2u);
  EXPECT_EQ(one.mem.dram_row_hits, 2u);           // row 0 of a bank never opened counts (row_buffer_hit_and_miss) and the open row
  EXPECT_EQ(one.mem.l2_reservation_fails, 137u);  // cycles 191..327
  EXPECT_EQ(one.mem.l2_fail_mshr_entry, 137u);
  EXPECT_EQ(one.mem.l2_queue_stalls, 0u);
  // An L2 -> DRAM queue of one entry (-gpgpu_dram_partition_queues 64:1:64:64), 192 MSHRs: sector
  // 0's miss (190) holds it until DRAM edge 144 (gpu_sim_cycle 192) takes it, so sector 1 (at the
  // L2 in 191) is not tried in 191 (cache_cycle: the queue is full; no reservation fail) and
  // misses in 192.
  c.mem.l2.mshrs = 192;
  c.mem.l2_dram_queue = 1;
  kernel_result q1 = run_qv100(c, make({v}));
  EXPECT_EQ(q1.mem.l2_queue_stalls, 1u);
  EXPECT_EQ(q1.mem.l2_reservation_fails, 0u);
  EXPECT_EQ(q1.mem.l2_misses, 2u);
  EXPECT_EQ(one.cycles, 463u);
}

// GPGPU-Sim's clock domains, QV100 (core 1132 MHz: 883.39 ps, DRAM 850 MHz: 1176.47 ps): DRAM
// edge 0 ticks with core edge 0 (gpu_sim_cycle 0); edge 1 (1.18 ns) falls between core edges 1
// (0.88) and 2 (1.77): gpu_sim_cycle 2; edge 144 (169.41 ns = 191.8 core periods) 192, edge 219
// (291.7) 292, edge 245 (326.3) 327. The first edge of gpu_sim_cycle >= 192 is 144 (edge 143:
// 190.4 -> 191). With one clock for all four domains every call ticks all of them: DRAM edge j
// runs in core cycle j's call, before the core step, so its gpu_sim_cycle is j.
TEST(sm_memory, clock_domains_as_gpgpu_sim) {
  clock_domains q(1132, 1132, 1132, 850);
  EXPECT_EQ(q.core_at(0), 0u);
  EXPECT_EQ(q.core_at(1), 2u);
  EXPECT_EQ(q.core_at(144), 192u);
  EXPECT_EQ(q.core_at(143), 191u);
  EXPECT_EQ(q.core_at(219), 292u);
  EXPECT_EQ(q.core_at(245), 327u);
  EXPECT_EQ(q.first_edge(0), 0u);
  EXPECT_EQ(q.first_edge(1), 1u);
  EXPECT_EQ(q.first_edge(2), 1u);
  EXPECT_EQ(q.first_edge(192), 144u);
  EXPECT_EQ(q.first_edge(292), 219u);
  clock_domains same(1132, 1132, 1132, 1132);
  for (uint64_t j : {0u, 1u, 566u, 10000u}) EXPECT_EQ(same.core_at(j), j);
  EXPECT_EQ(same.first_edge(777), 777u);
}

// A channel with two sub-partitions and a 3-cycle latency queue, one command per cycle
// (-dram_dual_bus_interface 0). Sub-partition 0 queues A (bank 0) and B (bank 1), sub-partition
// 1 C (bank 2) and D (bank 3), all row 1, in cycle 0. Round robin from sub-partition 0: A leaves
// its L2 -> DRAM queue in 0, C in 1, B in 2, D in 3; each leaves the latency queue 3 cycles later
// and goes to its bank in that cycle (the scheduler's prio moves one bank on each: 1, 2, 3, 4).
// Activates tRRD 3 apart, banks tried from prio: A in 3 (prio then 1), in 6 from prio 4 the
// first waiting bank is 1 (B; prio 2), in 9 bank 2 (C), in 12 bank 3 (D). Columns tRCD 12 later
// (15, 18, 21, 24), data CL 12 later for one cycle: A ends 28, B 31, C 34, D 37.
TEST(sm_memory, dram_arbitration_and_latency_queue) {
  mem_config m;
  dram_channel ch(m, 2, 3);
  ch.push({0, 1, 0, false, 'A'}, 0);
  ch.push({0, 1, 1, false, 'B'}, 0);
  ch.push({0, 1, 2, false, 'C'}, 1);
  ch.push({0, 1, 3, false, 'D'}, 1);
  std::vector<dram_done> out;
  ch.run(0, out);
  EXPECT_EQ(ch.l2_queue(0), 1u);
  EXPECT_EQ(ch.l2_queue(1), 2u);
  ch.run(1, out);
  EXPECT_EQ(ch.l2_queue(1), 1u);
  ch.run(1000, out);
  std::vector<std::pair<uint64_t, uint64_t>> got;
  for (const dram_done& d : out) got.emplace_back(d.token, d.data_end);
  EXPECT_EQ(got, (std::vector<std::pair<uint64_t, uint64_t>>{{'A', 28}, {'B', 31}, {'C', 34}, {'D', 37}}));
}

// The DRAM -> L2 queue (-gpgpu_dram_partition_queues' third field) with a DRAM clock four times
// the core's. GPGPU-Sim's double-summed edges: DRAM edges 25..28 fall in core cycle 7, 29..32
// in 8, 33..36 in 9, 37..40 in 10, 41..44 in 11, 49..52 in 13. Sub-partition 0 queues A, B, C
// (bank 0, row 1) in cycle 0 and E in 29, sub-partition 1 D (same row) in 3; no latency queue,
// so each reaches the scheduler the edge after it leaves its L2 -> DRAM queue: activate in 1,
// columns tCCDL 2 apart from 13 (A, B, C, D), last beats out (data_end) at 26, 28, 30, 32. The
// L2 takes one read a cycle per sub-partition: A in 7, B (ready in 7) in 8, C in 9, D in 8.
// E leaves its queue in 29, column in 30, out at 43 (core 11). With a one-entry queue: B waits
// in the return queue until the edge after the L2 step of 7 (29), C until after 8's (33), and D
// behind C (the return queue's head holds it) to 34: core 9. Sub-partition 0's queue holds B
// from 29 and C from 33 to 36, so E goes to the DRAM only in 37 (can_issue_to_dram), column in
// 38, out at 51: core 13.
TEST(sm_memory, dram_to_l2_queue_bound) {
  auto run = [](unsigned limit) {
    mem_config m;
    m.dram_l2_queue = limit;
    clock_domains clock(1000, 1000, 1000, 4000);
    EXPECT_EQ(clock.core_at(28), 7u);
    EXPECT_EQ(clock.core_at(29), 8u);
    EXPECT_EQ(clock.core_at(33), 9u);
    EXPECT_EQ(clock.core_at(37), 10u);
    dram_channel ch(m, 2, 0, &clock);
    for (char t : {'A', 'B', 'C'}) ch.push({0, 1, 0, false, uint64_t(t)}, 0);
    ch.push({3, 1, 0, false, 'D'}, 1);
    ch.push({29, 1, 0, false, 'E'}, 0);
    std::vector<dram_done> out;
    ch.run(1000, out);
    std::vector<std::tuple<uint64_t, uint64_t, uint64_t>> got;
    for (const dram_done& d : out) got.emplace_back(d.token, d.data_end, d.fill);
    return got;
  };
  using v = std::vector<std::tuple<uint64_t, uint64_t, uint64_t>>;
  EXPECT_EQ(run(64), (v{{'A', 26, 7}, {'B', 28, 8}, {'C', 30, 9}, {'D', 32, 8}, {'E', 43, 11}}));
  EXPECT_EQ(run(1), (v{{'A', 26, 7}, {'B', 28, 8}, {'C', 30, 9}, {'D', 32, 9}, {'E', 51, 13}}));
}

// The return queue's own bound (-gpgpu_dram_return_queue_size; GPGPU-Sim's dram_t::cycle pops
// its rwq delay line only while the return queue is below the bound after dram_cycle's move of
// that edge). The clock of dram_to_l2_queue_bound (DRAM edges 4c - 3 .. 4c in core cycle c) and
// a one-entry DRAM -> L2 queue per sub-partition. Sub-partition 0 queues A, B, C (bank 0, row 1)
// in cycle 0, sub-partition 1 D (same bank and row) in 20: columns 13, 15, 17 (tCCDL 2) and 21
// (D leaves its L2 -> DRAM queue in 20, reaches the scheduler in 21), CL 12 pops each.
// - Return queue of 192 (as before): pops 25, 27, 29, 33, out (data_end) 26, 28, 30, 34. A
//   leaves the return queue in 26 (fill in core 7), B waits while A is in the DRAM -> L2 queue
//   (core 7's edges) to 29 (core 8), C to 33 (core 9); D leaves in 34 behind C: core 9.
// - Return queue of 1: A pops 25 and leaves 26; B pops 27 and waits to 29, so edge 28 finds the
//   return queue full and the rwq stands still (C, 12 pops after its column in 17, pops in 30,
//   not 29); C waits to 33, so 31 and 32 are held as well, and D (12 pops after 21: 22..27, 29,
//   30, 33..36) pops in 36, is out at 37 and leaves the return queue in 37: its fill moves from
//   core 9 to 10. Three held edges (28, 31, 32).
// - Size 0 is a 1024-entry queue (dram_t's constructor), so the same as 192 here.
TEST(sm_memory, dram_return_queue_bound_holds_the_rwq) {
  auto run = [](unsigned size, uint64_t* held = nullptr) {
    mem_config m;
    m.dram_l2_queue = 1;
    m.dram_return_queue = size;
    clock_domains clock(1000, 1000, 1000, 4000);
    dram_channel ch(m, 2, 0, &clock);
    for (char t : {'A', 'B', 'C'}) ch.push({0, 1, 0, false, uint64_t(t)}, 0);
    ch.push({20, 1, 0, false, 'D'}, 1);
    std::vector<dram_done> out;
    ch.run(1000, out);
    if (held) *held = ch.return_queue_stalls;
    EXPECT_EQ(ch.rwq_full_cycles, 0u);
    std::vector<std::tuple<uint64_t, uint64_t, uint64_t>> got;
    for (const dram_done& d : out) got.emplace_back(d.token, d.data_end, d.fill);
    return got;
  };
  using v = std::vector<std::tuple<uint64_t, uint64_t, uint64_t>>;
  uint64_t held = 99;
  EXPECT_EQ(run(192, &held), (v{{'A', 26, 7}, {'B', 28, 8}, {'C', 30, 9}, {'D', 34, 9}}));
  EXPECT_EQ(held, 0u);
  EXPECT_EQ(run(0, &held), (v{{'A', 26, 7}, {'B', 28, 8}, {'C', 30, 9}, {'D', 34, 9}}));
  EXPECT_EQ(held, 0u);
  EXPECT_EQ(run(1, &held), (v{{'A', 26, 7}, {'B', 28, 8}, {'C', 31, 9}, {'D', 37, 10}}));
  EXPECT_EQ(held, 3u);
}

// A full rwq (CL + 1 = 13 entries) refuses column commands. One sub-partition, 17 reads R1..R17
// of bank 0, row 1 queued in cycle 0, tCCDL 1: each reaches the scheduler the edge after it
// leaves the L2 -> DRAM queue (R_i in i), so the columns follow the activate (1) from 13, one a
// cycle: R_i in 12 + i, 12 pops later.
// The summed doubles put the first DRAM edge of core cycle c at 4c - 3 up to c = 10 (37), at
// 4c - 4 from 11 to 18 (40 .. 68), 4c - 3 again from 19 (73, .., 89 for 23).
// - Return queue of 192: R_i pops in 24 + i, out at 25 + i. The DRAM -> L2 queue (1 entry, one
//   fill a core cycle) takes R1 in 26 (core 7) and R_i (i >= 2) at the first edge of core
//   6 + i (R2 29, R3 33): fill 6 + i.
// - Return queue of 1: R2 pops in 26 and waits to 29, and from then on the rwq pops only at the
//   edge the return queue's read leaves (the first edge of the next core cycle), every other
//   edge from 27 on is held: R_i (i >= 3) pops when R_(i-1) leaves, at the first edge of core
//   5 + i, and is out one edge later (R3 30, R5 38, R6 41, R13 69, R14 74, R17 86). The fills
//   stay 6 + i (the DRAM -> L2 queue is the bottleneck either way). The rwq's last data is at
//   pop count 24 + i after R_i's column: R15's column in 27 (pops so far 26, held 27: its data 13
//   deep, the rwq full), so R16 is refused in 28 and goes in 29 (pops 27), R17 is refused in 30,
//   31 and 32 (held) and goes in 33: 4 cycles.
TEST(sm_memory, dram_full_rwq_refuses_column_commands) {
  auto run = [](unsigned size, uint64_t* refused) {
    mem_config m;
    m.dram_l2_queue = 1;
    m.dram_return_queue = size;
    m.dram.CCDL = 1;
    clock_domains clock(1000, 1000, 1000, 4000);
    EXPECT_EQ(clock.first_edge(10), 37u);
    EXPECT_EQ(clock.first_edge(11), 40u);
    EXPECT_EQ(clock.first_edge(18), 68u);
    EXPECT_EQ(clock.first_edge(19), 73u);
    EXPECT_EQ(clock.first_edge(22), 85u);
    dram_channel ch(m, 1, 0, &clock);
    for (uint64_t i = 1; i <= 17; ++i) ch.push({0, 1, 0, false, i}, 0);
    std::vector<dram_done> out;
    ch.run(1000, out);
    *refused = ch.rwq_full_cycles;
    std::vector<std::tuple<uint64_t, uint64_t, uint64_t>> got;
    for (const dram_done& d : out) got.emplace_back(d.token, d.data_end, d.fill);
    return got;
  };
  clock_domains clock(1000, 1000, 1000, 4000);
  std::vector<std::tuple<uint64_t, uint64_t, uint64_t>> large, small;
  for (uint64_t i = 1; i <= 17; ++i) {
    large.emplace_back(i, 25 + i, 6 + i);
    small.emplace_back(i, i <= 2 ? 25 + i : clock.first_edge(5 + i) + 1, 6 + i);
  }
  EXPECT_EQ(std::get<1>(small[5]), 41u);
  EXPECT_EQ(std::get<1>(small[16]), 86u);
  uint64_t refused = 99;
  EXPECT_EQ(run(192, &refused), large);
  EXPECT_EQ(refused, 0u);
  EXPECT_EQ(run(1, &refused), small);
  EXPECT_EQ(refused, 4u);
}

// 16 warps of mixed units (4 per sub-core): the oracle takes 299 cycles. Two causes of the
// earlier 284: the oracle's SM7_QV100 file (accel-sim branch of gpgpu-sim_distribution) sets
// -gpgpu_scheduler lrr, not gto; and GPGPU-Sim's allocate_cu moves from each ID_OC set only its
// oldest instruction, into a collector unit of that instruction's sub-core, so a sub-core whose
// two collector units are busy holds back younger instructions of the other sub-cores in the
// same set (lrr with slot-order allocation: 295). GTO on the same kernel: 284.
TEST(sm_memory, scheduling_with_four_warps_per_sub_core) {
  gpu_config c = qv100();
  EXPECT_EQ(c.scheduler, "lrr");
  EXPECT_EQ(run_qv100(c, make(std::vector(16, mixed(56)), 128)).cycles, 299u);
  c.scheduler = "gto";
  EXPECT_EQ(run_qv100(c, make(std::vector(16, mixed(56)), 128)).cycles, 284u);
}

// The shipped files' memory options (gpgpu-sim_distribution tested-cfgs), and every memory option
// refusing a malformed or out-of-range value with file:line and the option's name.
TEST(sm_memory, shipped_memory_options_and_errors) {
  const gpu_config q = qv100();
  EXPECT_EQ(q.mem.n_mem, 32u);
  EXPECT_EQ(q.mem.sub_partitions(), 64u);
  EXPECT_EQ(q.mem.l2.sets, 32u);
  EXPECT_EQ(q.mem.l2.ways, 24u);
  EXPECT_EQ(q.mem.l2.write_policy, 'B');
  EXPECT_EQ(q.mem.l1.write_policy, 'T');
  EXPECT_EQ(q.mem.l1.miss_queue, 16u);
  EXPECT_EQ(q.l1_mshrs, 512u);
  EXPECT_EQ(q.mem.dram.RCD, 12u);  // from the two-line quoted -gpgpu_dram_timing_opt
  EXPECT_EQ(q.mem.dram.RTPL, 3u);
  EXPECT_DOUBLE_EQ(q.mem.dram_mhz, 850.0);
  EXPECT_EQ(q.mem.bank_mask, 0x7100u);            // ...RBBBCCCB.CCCSSSSS: bits 8, 12-14
  EXPECT_EQ(q.mem.row_mask, 0xfff8000u);          // bits 15-27
  EXPECT_EQ(q.mem.cluster_ejection_buffer, 32u);  // as tested-cfgs/SM7_QV100 sets it (GPGPU-Sim's default: 8)
  EXPECT_EQ(q.mem.ldst_response_buffer, 2u);      // not in that file: GPGPU-Sim's default, marked [spec]
  memory_system m(q);
  EXPECT_EQ(m.decode(0x100).channel, 1u);  // channel bits from bit 8
  EXPECT_NE(m.describe().find("32 DRAM channels x 2 L2 slices (96 KiB each)"), std::string::npos) << m.describe();
  gpu_config r;
  load_config_file(r, sm_config_dir() + "/" + shipped_config_dir("RTX3070") + "/gpgpusim.config");
  EXPECT_EQ(r.mem.n_mem, 16u);
  EXPECT_EQ(r.mem.dram.CL, 24u);
  EXPECT_EQ(r.mem.dram_burst_length / r.mem.dram_cmd_ratio, 4u);
  auto error = [](const std::string& text) {
    gpu_config c;
    try {
      load_config_text(c, text, "m.config");
      c.validate();
    } catch (const config_file_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error("-gpgpu_n_mem 0\n").find("m.config:1: -gpgpu_n_mem: 0 outside [1, 256]"), std::string::npos);
  EXPECT_NE(error("\n-gpgpu_n_sub_partition_per_mchannel 9\n").find("m.config:2: -gpgpu_n_sub_partition_per_mchannel: 9 outside [1, 8]"),
            std::string::npos);
  EXPECT_NE(error("-gpgpu_dram_timing_opt nbk=16:CL=x\n").find("-gpgpu_dram_timing_opt CL: 'x' is not an unsigned number"),
            std::string::npos);
  EXPECT_NE(error("-gpgpu_dram_timing_opt nbk=16:XYZ=3\n").find("unknown timing 'XYZ'"), std::string::npos);
  EXPECT_NE(error("-gpgpu_dram_timing_opt nbk=6:nbkgrp=4\n").find("not a multiple of nbkgrp"), std::string::npos);
  EXPECT_NE(error("-gpgpu_dram_timing_opt \"nbk=16:\n").find("unterminated quoted value"), std::string::npos);
  EXPECT_NE(error("-gpgpu_cache:dl2 S:32:100:24\n").find("line size 100 is not a power of two"), std::string::npos);
  EXPECT_NE(error("-gpgpu_cache:dl2 S:32:128:24,L:Q:m:L:P\n").find("write policy 'Q' not one of RBTEWL"), std::string::npos);
  EXPECT_NE(error("-gpgpu_cache:dl2 S:32:128:24,L:B:m:L:H\n").find("-gpgpu_cache:dl2: set index function H not modelled (L, P or X)"),
            std::string::npos);
  EXPECT_NE(error("-gpgpu_cache:dl2 S:128:128:24,L:B:m:L:P\n").find("set index function P (IPOLY) needs 16, 32 or 64 sets, not 128"),
            std::string::npos);
  EXPECT_NE(error("-gpgpu_cache:dl2 S:24:128:24,L:B:m:L:X\n").find("set index function X needs a power-of-two set count, not 24"),
            std::string::npos);
  EXPECT_NE(error("-gpgpu_cache:dl1 S:4:128:64,L:T:m:L:L,A:512:8,0:0,32\n").find("miss queue: 0 outside [1, 65536]"), std::string::npos);
  // The L1's lines hold whole 32-byte sectors, at most 8 (a 16-byte line would have none).
  EXPECT_NE(error("-gpgpu_cache:dl1 S:4:16:64,L:T:m:L:L,A:512:8,16:0,32\n").find("line 16 outside [32, 256] bytes"), std::string::npos);
  EXPECT_NE(error("-gpgpu_cache:dl1 S:4:512:64,L:T:m:L:L,A:512:8,16:0,32\n").find("line 512 outside [32, 256] bytes"), std::string::npos);
  EXPECT_NE(error("-gpgpu_mem_addr_mapping dramid@8;0000CCCC\n").find("needs B (bank) and R (row) bits"), std::string::npos);
  EXPECT_NE(error("-gpgpu_clock_domains 1132:1132:1132:0\n").find("clock 0 MHz outside [1, 100000]"), std::string::npos);
  EXPECT_NE(error("-gpgpu_flush_l1_cache 2\n").find("-gpgpu_flush_l1_cache: 2 outside [0, 1]"), std::string::npos);
  EXPECT_NE(
      error("-gpgpu_cache:dl1 S:4:128:64,L:T:m:L:L,A:512:8,2:0,32\n").find("miss queue 2 and MSHRs 512 must hold the 4 sectors of a line"),
      std::string::npos);
  // One column command moves dram_t's atom, BL x bus width: below a sector an access would take several.
  EXPECT_NE(error("-gpgpu_dram_buswidth 8\n").find("8 B x 2 = 16 B per column command, below a 32-byte sector"), std::string::npos);
  EXPECT_EQ(error("-gpgpu_dram_buswidth 2\n-gpgpu_dram_burst_length 16\n"), "no error");  // RTX 3070: 32 B
  EXPECT_NE(error("-gpgpu_dram_return_queue_size 70000\n").find("m.config:1: -gpgpu_dram_return_queue_size: 70000 outside [0, 65536]"),
            std::string::npos);
  EXPECT_NE(error("-gpgpu_dram_return_queue_size x\n").find("m.config:1: -gpgpu_dram_return_queue_size"), std::string::npos);
  EXPECT_NE(error("-gpgpu_dram_partition_queues 8:8:8\n")
                .find("m.config:1: -gpgpu_dram_partition_queues: expected icnt_L2:L2_dram:dram_L2:L2_icnt"),
            std::string::npos);
  EXPECT_NE(error("-gpgpu_dram_partition_queues 8:0:8:8\n").find("-gpgpu_dram_partition_queues: 0 outside [1, 65536]"), std::string::npos);
  EXPECT_NE(error("-gpgpu_dram_partition_queues 3:8:8:8\n").find("an icnt->L2 queue of 3 never takes a request"), std::string::npos);
  EXPECT_NE(
      error("-gpgpu_n_cluster_ejection_buffer_size 0\n").find("m.config:1: -gpgpu_n_cluster_ejection_buffer_size: 0 outside [1, 65536]"),
      std::string::npos);
  EXPECT_NE(error("-gpgpu_n_ldst_response_buffer_size 65537\n").find("-gpgpu_n_ldst_response_buffer_size: 65537 outside [1, 65536]"),
            std::string::npos);
  EXPECT_NE(error("-gpgpu_l1_banks 0\n").find("-gpgpu_l1_banks: 0 outside [1, 32]"), std::string::npos);
  EXPECT_NE(error("-network_mode 3\n").find("-network_mode: 3 outside [1, 2]"), std::string::npos);
  EXPECT_NE(error("-network_mode 1\n").find("-network_mode 1 (BookSim) needs -inter_config_file"), std::string::npos);
  EXPECT_NE(error("-inter_config_file no_such.icnt\n").find("no_such.icnt: cannot open the interconnect configuration"), std::string::npos);
  EXPECT_NE(error("-inter_config_file /\n").find("/: is a directory, expected an interconnect configuration"), std::string::npos);
}

// The interconnect options and the BookSim file the QV100 file names (config_volta_islip.icnt,
// shipped next to it); a malformed line or value names the file and line.
TEST(sm_memory, interconnect_options_and_file) {
  const gpu_config q = qv100();
  EXPECT_EQ(q.mem.network_mode, 2u);
  EXPECT_EQ(q.mem.icnt_in_buffer, 512u);
  EXPECT_EQ(q.mem.icnt_out_buffer, 512u);
  EXPECT_EQ(q.mem.icnt_subnets, 2u);
  EXPECT_EQ(q.mem.icnt_arbiter, 1u);
  EXPECT_EQ(q.mem.l2_dram_queue, 64u);
  EXPECT_EQ(q.mem.icnt_l2_queue, 64u);
  EXPECT_EQ(q.mem.l1_banks, 4u);
  EXPECT_NE(q.mem.icnt_file.find("config_volta_islip.icnt"), std::string::npos);
  EXPECT_EQ(q.mem.icnt_file_flit_size, 40u);
  EXPECT_EQ(q.mem.icnt_file_input_buffer, 256u);
  EXPECT_EQ(q.mem.icnt_file_ejection_buffer, 256u);
  EXPECT_EQ(q.mem.icnt_file_subnets, 2u);
  const std::string dir = ::testing::TempDir();
  auto icnt_error = [&](const std::string& body) {
    const std::string path = dir + "bad.icnt";
    FILE* f = std::fopen(path.c_str(), "w");
    std::fputs(body.c_str(), f);
    std::fclose(f);
    mem_config m;
    try {
      load_icnt_file(m, path);
    } catch (const config_file_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(icnt_error("// comment\nflit_size 40\n").find("bad.icnt:2: expected 'key = value;'"), std::string::npos);
  EXPECT_NE(icnt_error("flit_size = 4;\n").find("bad.icnt:1: flit_size: 4 outside [8, 1024]"), std::string::npos);
  EXPECT_NE(icnt_error("subnets = ;\n").find("subnets: empty value"), std::string::npos);
  EXPECT_EQ(icnt_error("topology = fly; // BookSim's\nflit_size = 32;\n"), "no error");
}

// -gpgpu_memory_partition_indexing (addrdec.cc), worked out from GPGPU-Sim's equations. QV100 (32
// channels x 2, IPOLY(67) over 64 sub-partitions; the higher bits are addr >> (8 + 5 + 1)):
//  - 0x4000: consecutive channel (0x4000 >> 8) mod 32 = 0, bank bits of (2 << 8) = 0, so
//    sub-partition 0; higher bits = 1 (a0): a0 is in the equations of index bits 0 and 1 -> 3,
//    channel 1;
//  - 0x8000: consecutive 0; higher = 2 (a1): index bits 1 and 2 -> 6, channel 3;
//  - XOR (1) on 0x4000: channel 0 ^ (1 & 31) = 1, sub-partition 2 (bank 0).
// RTX 3070 (16 x 2, IPOLY(37), higher = addr >> 13): 0x2000 -> consecutive 0, a0 is in index bits
// 0 and 2 -> 5, channel 2.
TEST(sm_memory, partition_indexing_as_addrdec) {
  gpu_config q = qv100();
  ASSERT_EQ(q.mem.partition_indexing, 2u);
  memory_system m(q);
  EXPECT_EQ(m.decode(0x4000).sub_partition, 3u);
  EXPECT_EQ(m.decode(0x4000).channel, 1u);
  EXPECT_EQ(m.decode(0x8000).sub_partition, 6u);
  EXPECT_EQ(m.decode(0x8000).channel, 3u);
  EXPECT_EQ(m.decode(0x100).sub_partition, 2u);  // higher bits 0: the consecutive value
  q.mem.partition_indexing = 1;
  memory_system x(q);
  EXPECT_EQ(x.decode(0x4000).channel, 1u);
  EXPECT_EQ(x.decode(0x4000).sub_partition, 2u);
  q.mem.partition_indexing = 0;
  memory_system c(q);
  EXPECT_EQ(c.decode(0x4000).sub_partition, 0u);
  gpu_config r;
  load_config_file(r, sm_config_dir() + "/" + shipped_config_dir("RTX3070") + "/gpgpusim.config");
  memory_system rm(r);
  EXPECT_EQ(rm.decode(0x2000).sub_partition, 5u);
  EXPECT_EQ(rm.decode(0x2000).channel, 2u);
  // The 64 chunks of 256 bytes below one 16 KiB boundary (32 channels x 2 bank parities) reach
  // every QV100 sub-partition once: for a fixed higher part the hash XORs a constant.
  std::vector<unsigned> seen(64, 0);
  for (uint64_t a = 5u << 14; a < (6u << 14); a += 256) ++seen[m.decode(a).sub_partition];
  for (unsigned n : seen) EXPECT_EQ(n, 1u);
}

// A100 / H100 memory options as their public files give them (gpgpu-sim/gpgpu-sim_distribution
// baf2b8f0 SM80_A100; jc19chaoj/accel-sim-framework 0caad296 SM90_H100): 40 channels x 4
// sub-partitions (not a power of two: channel = (addr >> 8) mod 40), consecutive indexing.
TEST(sm_memory, a100_and_h100_memory_options) {
  auto load = [](const char* g) {
    gpu_config c;
    const std::string dir = sm_config_dir() + "/" + shipped_config_dir(g);
    load_config_file(c, dir + "/gpgpusim.config");
    load_config_file(c, dir + "/trace.config");
    c.validate();
    return c;
  };
  gpu_config a = load("A100"), h = load("H100");
  EXPECT_EQ(a.mem.n_mem, 40u);
  EXPECT_EQ(a.mem.sub_partitions(), 160u);
  EXPECT_EQ(a.mem.l2.sets, 128u);
  EXPECT_EQ(a.mem.l2.ways, 16u);
  EXPECT_EQ(a.mem.dram.CL, 22u);
  EXPECT_DOUBLE_EQ(a.mem.dram_mhz, 1512.0);
  EXPECT_EQ(a.l2_rop_latency, 200u);
  EXPECT_EQ(a.dram_latency, 190u);
  EXPECT_EQ(a.mem.partition_indexing, 0u);
  EXPECT_EQ(h.mem.l2.sets, 256u);
  EXPECT_EQ(h.mem.l2.ways, 40u);
  EXPECT_EQ(h.mem.dram.RCD, 16u);
  EXPECT_DOUBLE_EQ(h.mem.dram_mhz, 2619.0);
  memory_system am(a);
  EXPECT_EQ(am.decode(41u << 8).channel, 1u);
  EXPECT_NE(am.describe().find("40 DRAM channels x 4 L2 slices (256 KiB each)"), std::string::npos) << am.describe();
  auto error = [](const std::string& text) {
    gpu_config c;
    try {
      load_config_text(c, text, "m.config");
      c.validate();
    } catch (const config_file_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // Accel-Sim's addrdec_tlx: 3 (PAE) is enumerated but has no case (GPGPU-Sim stops), 5 (CUSTOM)
  // has no function and keeps the consecutive decode; 6 (IPOLY_MODULO) is not modelled.
  EXPECT_NE(error("-gpgpu_memory_partition_indexing 6\n").find("m.config:1: -gpgpu_memory_partition_indexing: 6 outside [0, 5]"),
            std::string::npos);
  EXPECT_NE(error("-gpgpu_memory_partition_indexing 3\n").find("3 (PAE): Accel-Sim's GPGPU-Sim has no decoder for it"), std::string::npos);
  gpu_config p;
  load_config_text(p, "-gpgpu_memory_partition_indexing 4\n", "m.config");
  EXPECT_EQ(p.mem.partition_indexing, 4u);
  EXPECT_TRUE(p.unmodelled_timing(false).empty());
  // 5 on QV100 (32 channels x 2): every address where 0 puts it; 2 (IPOLY) moves some of them.
  gpu_config consecutive = qv100(), custom = qv100(), ipoly = qv100();
  consecutive.mem.partition_indexing = 0;
  load_config_text(custom, "-gpgpu_memory_partition_indexing 5\n", "m.config");
  EXPECT_TRUE(custom.unmodelled_timing(false).empty());
  ASSERT_EQ(ipoly.mem.partition_indexing, 2u);
  memory_system m0(consecutive), m5(custom), m2(ipoly);
  unsigned moved_by_ipoly = 0;
  for (uint64_t addr = 0; addr < (64u << 20); addr += 4096 + 32) {
    const dram_address a0 = m0.decode(addr), a5 = m5.decode(addr);
    EXPECT_EQ(a5.sub_partition, a0.sub_partition) << addr;
    EXPECT_EQ(a5.channel, a0.channel) << addr;
    EXPECT_EQ(a5.bank, a0.bank) << addr;
    EXPECT_EQ(a5.row, a0.row) << addr;
    moved_by_ipoly += m2.decode(addr).sub_partition != a0.sub_partition;
  }
  EXPECT_GT(moved_by_ipoly, 0u);
  EXPECT_NE(error("-gpgpu_n_mem 40\n-gpgpu_n_sub_partition_per_mchannel 4\n-gpgpu_memory_partition_indexing 2\n")
                .find("IPOLY) needs 16, 32 or 64 sub-partitions"),
            std::string::npos);
  EXPECT_NE(error("-gpgpu_n_mem 40\n-gpgpu_memory_partition_indexing 1\n").find("needs a power-of-two -gpgpu_n_mem"), std::string::npos);
}

namespace {
// A crossbar client: one SIMT cluster's port, recording when each answer is back.
struct cluster_port final : mem_client {
  explicit cluster_port(unsigned n) : node(n) {}
  void mem_done(uint64_t, bool, unsigned, uint64_t cycle) override { done = cycle; }
  unsigned icnt_node() const override { return node; }
  unsigned node;
  uint64_t done = 0;
};

// Clusters 0, 1 and 2 each read one sector of the same L2 line (present in L2: hits) in cycle
// `sent`; the answers' cycles, cluster by cluster.
std::vector<uint64_t> three_clusters_one_sub_partition(unsigned algo, uint64_t sent) {
  gpu_config c = qv100();
  c.mem.icnt_arbiter = algo;
  memory_system m(c);
  const uint64_t base = 0x40000000;  // below 4 GiB: perf_memcpy_to_gpu keeps 32 address bits
  m.memcpy_to_device(base, 128);
  std::vector<cluster_port> ports{cluster_port(0), cluster_port(1), cluster_port(2)};
  for (uint64_t cyc = 0; cyc < sent + 200; ++cyc) {
    m.cycle(cyc);
    if (cyc != sent) continue;
    for (unsigned i = 0; i < 3; ++i)
      EXPECT_EQ(m.access(base + 32 * i, 4, false, mem_port::whole_sector, cyc, &ports[i], i), mem_port::pending);
  }
  return {ports[0].done, ports[1].done, ports[2].done};
}
}  // namespace

// The request crossbar's arbitration (local_interconnect.cc), three inputs for one output.
// Sent in cycle s, each packet may move in s + 2; one moves a cycle (one packet per output),
// popped by the sub-partition one cycle later, ROP 160: the k-th granted (k = 0, 1, 2) makes its
// L2 access (a hit) in s + 3 + k + 161 and is back 5 cycles later: s + 169 + k.
// - iSLIP (xbar_router::iSLIP_Advance): the output's pointer starts at node 0 and the scan takes
//   the first input from the pointer on, the pointer's own node included: cluster 0, pointer 1;
//   cluster 1, pointer 2; cluster 2.
// - Round robin: the inputs from node (Advance count mod 144 nodes: 80 clusters + 64
//   sub-partitions), one a cycle. Sent in 0: pointer 2 in cycle 2 (cluster 2), 3 in cycle 3
//   (wraps: cluster 0), 4 (cluster 1). Sent in 143: pointer 145 mod 144 = 1 in cycle 145
//   (cluster 1), 2 (cluster 2), 3 (wraps: cluster 0).
TEST(sm_memory, crossbar_arbitration_islip_and_round_robin) {
  EXPECT_EQ(three_clusters_one_sub_partition(1, 0), (std::vector<uint64_t>{169, 170, 171}));
  EXPECT_EQ(three_clusters_one_sub_partition(0, 0), (std::vector<uint64_t>{170, 171, 169}));
  EXPECT_EQ(three_clusters_one_sub_partition(0, 143), (std::vector<uint64_t>{143 + 171, 143 + 169, 143 + 170}));
}

namespace {
// Cluster 0 sends two reads (L2 hits) in cycle 0, first to sub-partition `first_sp`'s line, then
// to `second_sp`'s; the cycles of their L2 accesses (sm-run --mem-log's L2 events), in that order.
std::pair<uint64_t, uint64_t> one_cluster_two_sub_partitions(bool ascending) {
  gpu_config c = qv100();
  c.mem.icnt_arbiter = 1;
  memory_system m(c);
  const uint64_t base = 0x40000000;
  uint64_t other = base + 128;
  while (m.decode(other).sub_partition == m.decode(base).sub_partition) other += 128;
  const bool base_lower = m.decode(base).sub_partition < m.decode(other).sub_partition;
  const uint64_t a = base_lower == ascending ? base : other, b = a == base ? other : base;
  m.memcpy_to_device(a, 32);
  m.memcpy_to_device(b, 32);
  mem_event_log log(100);
  m.set_event_log(&log);
  cluster_port port(0);
  for (uint64_t cyc = 0; cyc < 200; ++cyc) {
    m.cycle(cyc);
    if (cyc != 0) continue;
    EXPECT_EQ(m.access(a, 4, false, mem_port::whole_sector, cyc, &port, 0), mem_port::pending);
    EXPECT_EQ(m.access(b, 4, false, mem_port::whole_sector, cyc, &port, 1), mem_port::pending);
  }
  std::ostringstream os;
  log.flush(os, 1, "k");
  auto l2_cycle = [&](uint64_t addr) {
    std::ostringstream key;
    key << std::hex << addr;
    std::istringstream in(os.str());
    for (std::string l; std::getline(in, l);)
      if (l.rfind("L2,", 0) == 0 && l.find("," + key.str() + ",") != std::string::npos)
        return uint64_t(std::stoull(l.substr(3, l.find(',', 3) - 3)));
    ADD_FAILURE() << "no L2 event for " << key.str() << " in\n" << os.str();
    return uint64_t(0);
  };
  return {l2_cycle(a), l2_cycle(b)};
}
}  // namespace

// iSLIP takes the outputs in ascending order, and an input whose packet was granted offers its
// next one to the outputs still to come in the same cycle (xbar_router::iSLIP_Advance as
// Accel-Sim's timelines show it): two packets of one cluster for sub-partitions in ascending
// order move in one crossbar cycle (their L2 accesses in one cycle), in descending order one a
// cycle (the second's output was passed before the first moved).
TEST(sm_memory, crossbar_islip_moves_an_inputs_next_packet_to_a_later_output) {
  const auto [a1, b1] = one_cluster_two_sub_partitions(true);
  EXPECT_EQ(a1, 164u);  // s + 3 + 161, as above
  EXPECT_EQ(b1, 164u);
  const auto [a2, b2] = one_cluster_two_sub_partitions(false);
  EXPECT_EQ(a2, 164u);
  EXPECT_EQ(b2, 165u);
}
