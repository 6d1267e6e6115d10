// SPDX-License-Identifier: Apache-2.0
// Exactness guard for the SM cycle loop's speed work (idle-cycle skipping, cached scoreboard
// state): every statistic of a few kernels, compared in full.
// - recorded_statistics: the values were recorded from main's model (commit a860ed6) WITHOUT the
//   speed work, by running this file's kernels and printing fingerprint(); a change in the
//   model's behaviour (not its speed) must re-record them, saying why in the commit.
// - idle_skip_on_and_off_agree: the same kernels (and the memory calibration shapes) with the
//   idle-cycle skip switched on and off give identical statistics, whatever the model's rules.
// - host_threads_agree: the same with the SMs stepped on 2 host threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <stdexcept>
#include <thread>

#include "core/gpu.h"
#include "core/gpu_config.h"
#include "core/memsys.h"
#include "core/thread_team.h"
#include "core/trace.h"
#include "kernel_builder.h"
#include "paths.h"

using namespace gpuvp::sm;
using namespace gpuvp::gpu_memory;

namespace {

constexpr uint64_t GBASE = 0x7f4000000000ull;

using gpuvp::sm::testing::mem;
using gpuvp::sm::testing::op;
using gpuvp::sm::testing::shipped;

kernel_trace bandwidth_kernel(unsigned ctas, unsigned binver) {
  return parse_kernel_trace_text(gpuvp::sm::testing::bandwidth_kernel_text(ctas, binver), "bandwidth");
}

std::vector<trace_writer_inst> mixed(unsigned n) {
  const char* ops[] = {"IMAD", "FFMA", "DFMA", "MUFU.EX2", "IADD3", "FADD", "HMMA.884.F32.F32.STEP0"};
  std::vector<trace_writer_inst> v;
  for (unsigned i = 0; i < n; ++i) v.push_back(op(ops[i % 7], {20 + i % 40}, {2 + i % 3, 3}));
  v.push_back(op("EXIT", {}, {}));
  return v;
}

// Loads with partial masks and L1 re-reads, stores, shared memory with and without bank
// conflicts, a barrier, dependent uses: warp w of 4.
std::vector<trace_writer_inst> memory_mix(unsigned w) {
  std::vector<trace_writer_inst> v;
  v.push_back(mem("LDG.E.32", {10}, {2}, GBASE + 128 * (4 * w), 4));
  v.push_back(mem("LDG.E.32", {11}, {2}, GBASE + 128 * (4 * w + 1) + 64, 4, 0xffff0000u));
  v.push_back(op("FFMA", {20}, {10, 3, 4}));
  v.push_back(mem("STG.E.32", {}, {6, 20}, GBASE + 0x100000 + 128 * w, 4));
  v.push_back(mem("LDS", {12}, {4}, 0x0, 128));
  v.push_back(mem("STS", {}, {4, 12}, 0x1000 + 128 * w, 4));
  v.push_back(op("BAR.SYNC", {}, {}));
  v.push_back(mem("LDG.E.32", {13}, {2}, GBASE + 128 * (4 * ((w + 1) % 4)), 4));  // another warp's line
  v.push_back(mem("LDG.E.32", {14}, {13}, GBASE + 128 * (4 * w + 2), 8));
  v.push_back(op("MUFU.EX2", {21}, {14}));
  v.push_back(mem("STG.E.32", {}, {6, 21}, GBASE + 0x100000 + 128 * w + 4, 8));
  v.push_back(op("DFMA", {22}, {21, 11, 13}));
  v.push_back(op("EXIT", {}, {}));
  return v;
}

kernel_trace make(const std::vector<std::vector<trace_writer_inst>>& warps, unsigned ctas, unsigned binver, unsigned nregs) {
  std::string text = write_kernel_trace("k", 1, {ctas, 1, 1}, {unsigned(warps.size()) * 32, 1, 1}, binver, 0, nregs, warps);
  return parse_kernel_trace_text(text, "generated");
}

// Every statistic of a kernel result, in one line.
std::string fingerprint(const kernel_result& r) {
  const sm_stats& s = r.stats;
  const mem_stats& m = r.mem;
  std::string f = "cyc " + std::to_string(r.cycles);
  auto add = [&](const char* n, uint64_t v) { f += std::string(" ") + n + " " + std::to_string(v); };
  add("act", s.active_cycles);
  add("wi", s.warp_insts);
  add("ti", s.thread_insts);
  for (unsigned i = 0; i < unsigned(stall_cause::n); ++i) add("st", s.sched_stalls[i]);
  add("rbs", s.result_bus_stalls);
  add("ds", s.dispatch_stalls);
  add("bc", s.bank_conflicts);
  add("l1a", s.l1_accesses);
  add("l1h", s.l1_hits);
  add("l1p", s.l1_pending_hits);
  add("l1m", s.l1_misses);
  add("l1w", s.l1_write_accesses);
  for (uint64_t v : s.l1_fails) add("l1f", v);
  add("mr", s.mem_reads);
  add("mw", s.mem_writes);
  add("sm", s.smem_accesses);
  add("smc", s.smem_bank_conflict_cycles);
  add("ctas", s.ctas_done);
  for (auto& [n, v] : s.unit_issued) add(("i." + n).c_str(), v);
  for (auto& [n, v] : s.unit_active) add(("a." + n).c_str(), v);
  add("l2a", m.l2_accesses);
  add("l2h", m.l2_hits);
  add("l2p", m.l2_pending_hits);
  add("l2m", m.l2_misses);
  add("l2w", m.l2_writes);
  add("dr", m.dram_reads);
  add("dw", m.dram_writes);
  add("drh", m.dram_row_hits);
  add("db", m.dram_bytes);
  add("sms", r.sms_used);
  add("cps", r.ctas_per_sm);
  return f;
}

struct run_case {
  const char* name;
  std::string gpu, scheduler, memory;
  unsigned sms;  // 0: the config's
  std::function<kernel_trace()> kernel;
  unsigned repeats;  // kernels run back to back on one gpu_sim (L2/L1 state carried)
};

std::vector<run_case> cases() {
  auto mix16 = [] { return make(std::vector(16, mixed(56)), 10, 70, 128); };
  auto memmix = [](unsigned binver) {
    return [binver] {
      std::vector<std::vector<trace_writer_inst>> w;
      for (unsigned i = 0; i < 4; ++i) w.push_back(memory_mix(i));
      return make(w, 12, binver, 32);
    };
  };
  return {
      {"bandwidth_320_qv100", "QV100", "", "gpgpu-sim", 0, [] { return bandwidth_kernel(320, 70); }, 1},
      {"bandwidth_320_qv100_fixed", "QV100", "", "fixed", 0, [] { return bandwidth_kernel(320, 70); }, 1},
      {"bandwidth_92_rtx3070", "RTX3070", "", "gpgpu-sim", 0, [] { return bandwidth_kernel(92, 86); }, 1},
      {"mixed_lrr", "QV100", "lrr", "gpgpu-sim", 4, mix16, 1},
      {"mixed_gto", "QV100", "gto", "gpgpu-sim", 4, mix16, 1},
      {"mixed_two_level", "QV100", "two_level_active:2", "gpgpu-sim", 4, mix16, 1},
      {"memory_mix_qv100", "QV100", "", "gpgpu-sim", 3, memmix(70), 2},
      {"memory_mix_qv100_gto", "QV100", "gto", "gpgpu-sim", 3, memmix(70), 1},
      {"memory_mix_a100", "A100", "", "gpgpu-sim", 5, memmix(80), 2},
      {"memory_mix_h100_fixed", "H100", "", "fixed", 2, memmix(90), 1},
  };
}

// Runs a case; one fingerprint per kernel, joined by " | ".
std::string run(const run_case& rc, bool skip_idle = true, unsigned threads = 1) {
  const gpu_config c = shipped(rc.gpu, rc.scheduler);
  auto m = make_memory(c, rc.memory);
  gpu_sim g(c, m.get(), rc.sms);
  g.skip_idle_cycles = skip_idle;
  g.threads = threads;
  const kernel_trace k = rc.kernel();
  std::string out;
  for (unsigned i = 0; i < rc.repeats; ++i) out += (i ? " | " : "") + fingerprint(g.run(k));
  return out;
}

// Recorded with GPUVP_PRINT_FINGERPRINTS=1 after the memory pipeline became GPGPU-Sim's (branch
// exact: core-cycle hand-offs, GPGPU-Sim's clock domains, request and reply crossbars with iSLIP,
// DRAM credits back with the data, private and shared credits per sub-partition): the
// memory-bound cases changed on purpose, the compute-only
// ones (mixed_*, *_fixed) did not. (Before: main a860ed6, first 014e5e2.)
// Branch exact320: memory_mix_a100's first kernel 2046 -> 2082 cycles when each L2 slice makes
// one access a cycle in that cycle (memory_sub_partition::cache_cycle) instead of serving a
// backlog at once with later access times. bandwidth_92_rtx3070 4643 -> 4665 when the sub-partition
// pops the crossbar only while its icnt -> L2 queue (64) has room for 4 (memory_sub_partition::full):
// the same DRAM row hits, the L2 waiting for the ROP queue after a pause; bandwidth_320_qv100 stays.
// Then 4665 -> 4627 when the request crossbar moves a packet only into an output buffer with room
// (Has_Buffer_Out; the RTX 3070 file leaves -icnt_out_buffer_limit at GPGPU-Sim's 64; QV100's 512
// does not bind on the 320-CTA kernel: at most 474 packets). Then 4627 -> 4621 when an L1 miss
// queue sends only while its cluster's crossbar input buffer has room (-icnt_in_buffer_limit, 64
// there: up to 311 packets waited in it before; QV100's 512: at most 315).
// Branch wb: the LDST unit's write-back stage (ldst_unit::writeback): an L1 fill makes its MSHR
// entry ready, the stage takes one access a cycle (freeing the entry with its last one, a cycle
// before the register is released) and writes it back through the operand collector's banks,
// waiting while an ALU write-back holds one. Every memory case changed on purpose
// (bandwidth_320_qv100 9655 -> 9679, Accel-Sim 9690; the memory_mix cases' merged loads are
// written back one a cycle; the fixed-latency bandwidth case 2444 -> 2516 from the bank waits),
// the compute-only mixed_* cases did not. Then shared-memory loads through the
// -gpgpu_smem_latency pipeline and the same write-back stage (client 0 of its round robin with
// the L1D), shared stores done when they leave the dispatch register: the memory_mix cases
// (their LDS/STS) changed, the bandwidth and mixed_* cases (no shared memory) did not.
// Then a fourth L1 reservation-fail cause (LINE_ALLOC_FAIL: no way without a pending fill), the
// adaptive L1D (QV100 256 ways without shared memory) and GPGPU-Sim's register rounding in
// the occupancy: a new "l1f" field (0 in every case), no other value changed. Then the L1 miss
// queue sends before the cycle's L1 accesses (GPGPU-Sim's order), so the crossbar input's room is
// checked after that cycle's crossbar step: bandwidth_92_rtx3070 4652 -> 4668 (its 64-packet
// input buffers fill); every QV100 case unchanged (512 never fills).
// Then the DRAM -> L2 queue's bound (the return queue's head waits, the arbitration passes a
// sub-partition with a full one over) and the L2's one fill a cycle per sub-partition: no case
// changed (QV100's DRAM clock is below the L2's; the A100 and RTX 3070 cases never fill it).
// Then the L1's stores as GPGPU-Sim's lazy fetch-on-read write-allocate makes them: no cycle
// changed; the memory_mix cases' L1 accesses now count their 576 store sectors as GPGPU-Sim's
// cache statistics do (l1a + 576): each SM's first store to each of the 20 sectors the kernel
// writes (lines 0x100000 + 128 j, j = 0..4: STG 1 a full line per warp, STG 2 half of each
// sector of two lines) misses, every later one hits them MODIFIED, so l1m + 20 per SM (3 SMs on
// QV100, 5 on A100, 2 on H100) and l1h + 576 - that.
// Then the DRAM return queue's own bound (a full return queue holds the rwq delay line, a full
// rwq refuses column commands): no case changed (no DRAM edge is held in any of them). Then the
// L2's partly written sectors (lazy fetch-on-read): no case changed. Then a read's data leaves
// the rwq in one pop whatever BL / ratio (dram_t::cycle moves one 32-byte atom per pop; the
// model held the data bus BL / ratio cycles): bandwidth_92_rtx3070 4668 -> 4647, its reads (BL
// 16 / ratio 4) each 3 DRAM cycles sooner, 3 / 3500.5 MHz = 0.97 core cycles at 1132 MHz, so a
// core cycle earlier for most of them (tCCD 4 kept the column commands 4 apart either way; the
// row-hit count moves with the scheduler's timing, 35368 -> 35208); every QV100, A100 and H100
// case unchanged (BL / ratio 1: one pop before too).
// November 2026, the configuration files' provenance (no model change): the A100, H100 and RTX 3070 files take
// every option read from their public gpgpusim.config (docs/models/sm.md, "Shipped"); their
// issue/execute values had been copied from older QV100 / RTX 3070 files. memory_mix_a100
// 2019 -> 2097 and 1380 -> 1381, memory_mix_h100_fixed 2223 -> 2415: all from -gpgpu_scheduler
// gto -> lrr (with gto and the other new values the old cycles come back; 32 register banks and
// -gpgpu_smem_latency 28 alone change no cycle of these kernels). bandwidth_92_rtx3070 4647 ->
// 4627 from gto -> lrr (alone 4594 with gto), 16 -> 8 register banks (4632 with 16),
// -icnt_in/out_buffer_limit 64 -> 512 (4639 with 64) and -dram_bnkgrp_indexing_policy 0 -> 1
// (4626 with 0); -gpgpu_shader_cta 16 -> 32 changes nothing (4 CTAs per SM by registers). Every
// QV100 case unchanged.
// November 2026, the scheduler stall counters in GPGPU-Sim's order (scheduler_unit::cycle:
// pipeline when some warp was ready, before scoreboard): in seven cases stalls move between the
// scoreboard and pipeline counters (their sum the same); every cycle and every other statistic
// unchanged.
// Branch sm-real: a DRAM channel with only queued requests no longer skips its idle cycles past
// the cycle asked for (a request the L2 pushed later waited until then; sm-run --mem-log's first
// difference against Accel-Sim's ldg_coal_6warp timeline, now identical): bandwidth_92_rtx3070 4627 -> 4441, memory_mix_qv100 1770 -> 1755, memory_mix_qv100_gto 1773 -> 1690, memory_mix_a100 2097 -> 1797;
// bandwidth_320_qv100 and the compute-only cases unchanged.
// Branch mem-exact: the crossbars' iSLIP as the GPGPU-Sim behind Accel-Sim's timelines arbitrates
// (xbar_router::iSLIP_Advance scanning from the output's pointer with the pointer's own node
// included, and an input whose packet moved offering its next one to the later outputs of the
// same cycle; the model passed the node at the pointer over and moved one packet per input):
// sm-run --mem-log's first difference against Accel-Sim's ldg_stride128_3warp and ldg_hide_3cta
// timelines (two replies delivered in the other order), both now identical, event for event, at
// Accel-Sim's 1603 and 879 cycles. bandwidth_320_qv100 9679 -> 9644 (Accel-Sim 9690),
// bandwidth_92_rtx3070 4441 -> 4435, memory_mix_qv100 1755 -> 1781, memory_mix_qv100_gto
// 1690 -> 1698, memory_mix_a100 1797 -> 2361 (its request crossbar's order alone: 2377; the
// small dependent-load kernels move by whole DRAM round trips with the order their requests
// reach a channel); the fixed-latency and compute-only cases unchanged.
// Then the FR-FCFS scheduler's current row of a bank never activated is row 0 (GPGPU-Sim's
// dram_t callocs its banks, and frfcfs_scheduler::schedule prefers the requests of curr_row,
// counting them as row hits): the 320-CTA kernel's first difference against Accel-Sim's
// timeline (bank 13 of channel 13 opening row 1, the oldest request's, where Accel-Sim opens
// row 0 in cycle 367). bandwidth_320_qv100 9644 -> 9690, Accel-Sim's cycles, all 888 011 events
// of its timeline identical and every channel's activates, precharges and row-buffer locality
// Accel-Sim's; row hits (drh) bandwidth_92_rtx3070 37076 -> 37190 (cycles unchanged),
// memory_mix_qv100 and memory_mix_qv100_gto 48 -> 56 (cycles unchanged); the other cases
// unchanged.
// Branch l2exact: the L2's MSHR entries as GPGPU-Sim's mshr_table keeps them (one ready list per
// L2 slice, an entry held until its last access has left, its merge slots counted until then;
// the model freed the entry and stopped counting merges once the DRAM had the data) and a fill
// to the index its miss took: memory_mix_a100's first kernel 2361 -> 2413, 56 of its pending hits
// now hits (a read finding the entry's 4 merge slots taken fails, MSHR_MERGE_ENRTY_FAIL 5083 ->
// 5826, and hits once the fill is in; with the merges counted as before: 2369, the ready list's
// order alone). Every other case unchanged.
const std::map<std::string, std::string>& recorded() {
  static const std::map<std::string, std::string> r = {
      {"bandwidth_320_qv100",
       "cyc 9690 act 761862 wi 330240 ti 10567680 st 29408 st 742888 st 1944912 st 0 rbs 0 ds 728396 bc 23782 l1a 163840 l1h 0 l1p 0 l1m "
       "163840 l1w 0 l1f 1235192 l1f 0 l1f 62905 l1f 0 mr 163840 mw 0 sm 0 smc 0 ctas 320 i.SP 286720 i.DP 0 i.INT 2560 i.SFU 0 "
       "i.TENSOR_CORE 0 i.BRA 0 i.TEX 0 i.TENSOR 0 i.LDST 40960 a.SP 573440 a.DP 0 a.INT 2560 a.SFU 0 a.TENSOR_CORE 0 a.BRA 0 a.TEX 0 "
       "a.TENSOR 0 a.LDST 760902 l2a 163840 l2h 0 l2p 0 l2m 163840 l2w 0 dr 163840 dw 0 drh 95460 db 5242880 sms 80 cps 4"},
      {"bandwidth_320_qv100_fixed",
       "cyc 2516 act 201200 wi 330240 ti 10567680 st 3520 st 36320 st 434720 st 0 rbs 0 ds 327120 bc 22480 l1a 163840 l1h 0 l1p 0 l1m "
       "163840 l1w 0 l1f 0 l1f 0 l1f 226960 l1f 0 mr 163840 mw 0 sm 0 smc 0 ctas 320 i.SP 286720 i.DP 0 i.INT 2560 i.SFU 0 i.TENSOR_CORE 0 "
       "i.BRA 0 i.TEX 0 i.TENSOR 0 i.LDST 40960 a.SP 573440 a.DP 0 a.INT 2560 a.SFU 0 a.TENSOR_CORE 0 a.BRA 0 a.TEX 0 a.TENSOR 0 a.LDST "
       "200240 l2a 0 l2h 0 l2p 0 l2m 0 l2w 0 dr 0 dw 0 drh 0 db 0 sms 80 cps 4"},
      {"bandwidth_92_rtx3070",
       "cyc 4435 act 202711 wi 94944 ti 3038208 st 3814 st 308249 st 403837 st 0 rbs 0 ds 106132 bc 170626 l1a 47104 l1h 0 l1p 0 l1m 47104 "
       "l1w 0 l1f 262307 l1f 0 l1f 27416 l1f 0 mr 47104 mw 0 sm 0 smc 0 ctas 92 i.SP 82432 i.DP 0 i.INT 736 i.SFU 0 i.TENSOR_CORE 0 i.BRA "
       "0 i.TEX 0 i.TENSOR 0 i.UDP 0 i.LDST 11776 a.SP 119779 a.DP 0 a.INT 736 a.SFU 0 a.TENSOR_CORE 0 a.BRA 0 a.TEX 0 a.TENSOR 0 a.UDP 0 "
       "a.LDST 202139 l2a 47104 l2h 0 l2p 0 l2m 47104 l2w 0 dr 47104 dw 0 drh 37190 db 1507328 sms 46 cps 4"},
      {"mixed_lrr",
       "cyc 895 act 2980 wi 9120 ti 291840 st 1150 st 0 st 1650 st 0 rbs 36 ds 10636 bc 814 l1a 0 l1h 0 l1p 0 l1m 0 l1w 0 l1f 0 l1f 0 l1f "
       "0 l1f 0 mr 0 mw 0 sm 0 smc 0 ctas 10 i.SP 2560 i.DP 1280 i.INT 2720 i.SFU 1280 i.TENSOR_CORE 0 i.BRA 0 i.TEX 0 i.TENSOR 1280 "
       "i.LDST 0 a.SP 5120 a.DP 7230 a.INT 5280 a.SFU 10900 a.TENSOR_CORE 0 a.BRA 0 a.TEX 0 a.TENSOR 2560 a.LDST 0 l2a 0 l2h 0 l2p 0 l2m 0 "
       "l2w 0 dr 0 dw 0 drh 0 db 0 sms 4 cps 1"},
      {"mixed_gto",
       "cyc 848 act 2824 wi 9120 ti 291840 st 1498 st 0 st 678 st 0 rbs 36 ds 8128 bc 126 l1a 0 l1h 0 l1p 0 l1m 0 l1w 0 l1f 0 l1f 0 l1f 0 "
       "l1f 0 mr 0 mw 0 sm 0 smc 0 ctas 10 i.SP 2560 i.DP 1280 i.INT 2720 i.SFU 1280 i.TENSOR_CORE 0 i.BRA 0 i.TEX 0 i.TENSOR 1280 i.LDST "
       "0 a.SP 5120 a.DP 9096 a.INT 5280 a.SFU 10720 a.TENSOR_CORE 0 a.BRA 0 a.TEX 0 a.TENSOR 2560 a.LDST 0 l2a 0 l2h 0 l2p 0 l2m 0 l2w 0 "
       "dr 0 dw 0 drh 0 db 0 sms 4 cps 1"},
      {"mixed_two_level",
       "cyc 852 act 2834 wi 9120 ti 291840 st 1440 st 0 st 776 st 0 rbs 124 ds 10614 bc 372 l1a 0 l1h 0 l1p 0 l1m 0 l1w 0 l1f 0 l1f 0 l1f "
       "0 l1f 0 mr 0 mw 0 sm 0 smc 0 ctas 10 i.SP 2560 i.DP 1280 i.INT 2720 i.SFU 1280 i.TENSOR_CORE 0 i.BRA 0 i.TEX 0 i.TENSOR 1280 "
       "i.LDST 0 a.SP 5120 a.DP 8018 a.INT 5280 a.SFU 10748 a.TENSOR_CORE 0 a.BRA 0 a.TEX 0 a.TENSOR 2560 a.LDST 0 l2a 0 l2h 0 l2p 0 l2m 0 "
       "l2w 0 dr 0 dw 0 drh 0 db 0 sms 4 cps 1"},
      {"memory_mix_qv100",
       "cyc 1781 act 5324 wi 624 ti 19200 st 4507 st 11056 st 4482 st 627 rbs 0 ds 1952 bc 96 l1a 1440 l1h 708 l1p 504 l1m 228 l1w 576 l1f "
       "0 l1f 0 l1f 473 l1f 0 mr 168 mw 576 sm 96 smc 1488 ctas 12 i.SP 48 i.DP 48 i.INT 96 i.SFU 48 i.TENSOR_CORE 0 i.BRA 0 i.TEX 0 "
       "i.TENSOR 0 i.LDST 384 a.SP 96 a.DP 384 a.INT 96 a.SFU 528 a.TENSOR_CORE 0 a.BRA 0 a.TEX 0 a.TENSOR 0 a.LDST 5309 l2a 744 l2h 556 "
       "l2p 112 l2m 76 l2w 576 dr 56 dw 0 drh 56 db 1792 sms 3 cps 16 | cyc 1484 act 4408 wi 624 ti 19200 st 4359 st 7698 st 4024 st 927 "
       "rbs 0 ds 1838 bc 96 l1a 1440 l1h 708 l1p 504 l1m 228 l1w 576 l1f 0 l1f 0 l1f 85 l1f 0 mr 168 mw 576 sm 96 smc 1488 ctas 12 i.SP 48 "
       "i.DP 48 i.INT 96 i.SFU 48 i.TENSOR_CORE 0 i.BRA 0 i.TEX 0 i.TENSOR 0 i.LDST 384 a.SP 96 a.DP 384 a.INT 96 a.SFU 528 a.TENSOR_CORE "
       "0 a.BRA 0 a.TEX 0 a.TENSOR 0 a.LDST 4393 l2a 744 l2h 744 l2p 0 l2m 0 l2w 576 dr 0 dw 0 drh 0 db 0 sms 3 cps 16"},
      {"memory_mix_qv100_gto",
       "cyc 1698 act 5073 wi 624 ti 19200 st 4345 st 10044 st 5177 st 102 rbs 0 ds 1836 bc 96 l1a 1440 l1h 708 l1p 504 l1m 228 l1w 576 l1f "
       "0 l1f 0 l1f 212 l1f 0 mr 168 mw 576 sm 96 smc 1488 ctas 12 i.SP 48 i.DP 48 i.INT 96 i.SFU 48 i.TENSOR_CORE 0 i.BRA 0 i.TEX 0 "
       "i.TENSOR 0 i.LDST 384 a.SP 96 a.DP 384 a.INT 96 a.SFU 528 a.TENSOR_CORE 0 a.BRA 0 a.TEX 0 a.TENSOR 0 a.LDST 5058 l2a 744 l2h 556 "
       "l2p 112 l2m 76 l2w 576 dr 56 dw 0 drh 56 db 1792 sms 3 cps 16"},
      {"memory_mix_a100",
       "cyc 2413 act 11887 wi 624 ti 19200 st 6803 st 37222 st 1539 st 1360 rbs 0 ds 1759 bc 96 l1a 1440 l1h 668 l1p 392 l1m 380 l1w 576 "
       "l1f 0 l1f 0 l1f 424 l1f 0 mr 280 mw 576 sm 96 smc 1488 ctas 12 i.SP 48 i.DP 48 i.INT 96 i.SFU 48 i.TENSOR_CORE 0 i.BRA 0 i.TEX 0 "
       "i.TENSOR 0 i.UDP 0 i.LDST 384 a.SP 136 a.DP 288 a.INT 96 a.SFU 684 a.TENSOR_CORE 0 a.BRA 0 a.TEX 0 a.TENSOR 0 a.UDP 0 a.LDST 11819 "
       "l2a 856 l2h 612 l2p 168 l2m 76 l2w 576 dr 56 dw 0 drh 40 db 1792 sms 5 cps 16 | cyc 1376 act 6372 wi 624 ti 19200 st 5966 st 15997 "
       "st 1539 st 1362 rbs 0 ds 1748 bc 96 l1a 1440 l1h 668 l1p 392 l1m 380 l1w 576 l1f 0 l1f 0 l1f 172 l1f 0 mr 280 mw 576 sm 96 smc "
       "1488 ctas 12 i.SP 48 i.DP 48 i.INT 96 i.SFU 48 i.TENSOR_CORE 0 i.BRA 0 i.TEX 0 i.TENSOR 0 i.UDP 0 i.LDST 384 a.SP 136 a.DP 288 "
       "a.INT 96 a.SFU 684 a.TENSOR_CORE 0 a.BRA 0 a.TEX 0 a.TENSOR 0 a.UDP 0 a.LDST 6347 l2a 856 l2h 856 l2p 0 l2m 0 l2w 576 dr 0 dw 0 "
       "drh 0 db 0 sms 5 cps 16"},
      {"memory_mix_h100_fixed",
       "cyc 2415 act 4828 wi 624 ti 19200 st 4050 st 8488 st 6150 st 0 rbs 0 ds 1850 bc 96 l1a 1440 l1h 728 l1p 560 l1m 152 l1w 576 l1f 0 "
       "l1f 0 l1f 126 l1f 0 mr 112 mw 576 sm 96 smc 1488 ctas 12 i.SP 48 i.DP 48 i.INT 96 i.SFU 48 i.TENSOR_CORE 0 i.BRA 0 i.TEX 0 "
       "i.TENSOR 0 i.UDP 0 i.GMMA 0 i.LDST 384 a.SP 112 a.DP 384 a.INT 96 a.SFU 504 a.TENSOR_CORE 0 a.BRA 0 a.TEX 0 a.TENSOR 0 a.UDP 0 "
       "a.GMMA 0 a.LDST 4818 l2a 0 l2h 0 l2p 0 l2m 0 l2w 0 dr 0 dw 0 drh 0 db 0 sms 2 cps 16"},
  };
  return r;
}

}  // namespace

TEST(sm_exact, recorded_statistics) {
  const bool print = std::getenv("GPUVP_PRINT_FINGERPRINTS") != nullptr;
  for (const run_case& rc : cases()) {
    const std::string f = run(rc);
    if (print) std::printf("%s: %s\n", rc.name, f.c_str());
    auto it = recorded().find(rc.name);
    ASSERT_NE(it, recorded().end()) << rc.name;
    EXPECT_EQ(f, it->second) << rc.name;
  }
}

// The memory calibration shapes of core_mem_test.cpp (pointer chase, a store burst filling the
// miss queue) and small versions of the cases above.
std::vector<run_case> small_cases() {
  std::vector<run_case> v;
  for (const run_case& rc : cases())
    if (rc.name != std::string("bandwidth_320_qv100") && rc.name != std::string("bandwidth_320_qv100_fixed")) v.push_back(rc);
  v.push_back({"bandwidth_160_qv100_20sms", "QV100", "", "gpgpu-sim", 20, [] { return bandwidth_kernel(160, 70); }, 2});
  v.push_back({"bandwidth_64_qv100_gto", "QV100", "gto", "gpgpu-sim", 8, [] { return bandwidth_kernel(64, 70); }, 1});
  auto chase = [] {
    std::vector<trace_writer_inst> w;
    for (unsigned h = 0; h < 8; ++h) w.push_back(mem("LDG.E.32", {4}, {4}, GBASE + 17 * 128 * h + 8, 0));
    w.push_back(op("FFMA", {5}, {4, 3, 2}));
    w.push_back(op("EXIT", {}, {}));
    return make({w}, 1, 70, 32);
  };
  v.push_back({"pointer_chase", "QV100", "", "gpgpu-sim", 1, chase, 2});
  auto stores = [] {
    std::vector<std::vector<trace_writer_inst>> st;
    for (unsigned w = 0; w < 4; ++w) {
      std::vector<trace_writer_inst> x;
      for (unsigned i = 0; i < 8; ++i) {
        x.push_back(op("FFMA", {5}, {2, 3, 4}));
        x.push_back(mem("STG.E.32", {}, {6, 5}, GBASE + 128 * (8 * w + i), 4));
      }
      x.push_back(op("EXIT", {}, {}));
      st.push_back(x);
    }
    return make(st, 3, 70, 32);
  };
  v.push_back({"store_burst", "QV100", "", "gpgpu-sim", 1, stores, 1});
  v.push_back({"store_burst_rtx3070", "RTX3070", "", "gpgpu-sim", 2, stores, 1});
  return v;
}

TEST(sm_exact, idle_skip_on_and_off_agree) {
  for (const run_case& rc : small_cases()) EXPECT_EQ(run(rc, true), run(rc, false)) << rc.name;
}

// Threads step chunks of whole clusters (an uneven split too), at most the host's hardware
// threads, with the memory's next cycle beside them; the fixed-latency memory (one shared
// counter) and the tracing hooks keep the SMs on the calling thread.
TEST(sm_exact, host_threads_agree) {
  // Cases with 3 or more SMs (fewer run on one thread); 3 SMs are clusters of 2 and 1.
  for (const run_case& rc : small_cases()) {
    if (rc.sms < 3) continue;
    EXPECT_EQ(run(rc, true, 2), run(rc, true, 1)) << rc.name;
  }
  const gpu_config c = shipped("QV100", "");
  const kernel_trace k = bandwidth_kernel(16, 70);
  // On two threads the memory runs its next cycle beside the SMs in every cycle but those near
  // the end (no instruction left to issue) and the watchdog's; on one, never.
  for (unsigned threads : {1u, 2u}) {
    auto m = make_memory(c, "gpgpu-sim");
    gpu_sim g(c, m.get(), 8);
    g.threads = threads;
    const kernel_result r = g.run(k);
    if (g.threads_used() == 1) {
      EXPECT_EQ(g.memory_ahead_cycles(), 0u);
    } else {
      EXPECT_GT(g.memory_ahead_cycles(), r.cycles / 2);
      EXPECT_LT(g.memory_ahead_cycles(), r.cycles);
    }
  }
  auto used = [&](const char* memory, unsigned sms, unsigned threads, bool hook) {
    auto m = make_memory(c, memory);
    gpu_sim g(c, m.get(), sms);
    g.threads = threads;
    if (hook) g.on_warp = [](unsigned, unsigned, unsigned, unsigned, bool) {};
    g.start(k);
    return g.threads_used();
  };
  const unsigned host = std::max(1u, std::thread::hardware_concurrency());
  EXPECT_EQ(used("gpgpu-sim", 8, 3, false), std::min(3u, host));
  EXPECT_EQ(used("gpgpu-sim", 2, 3, false), std::min(2u, host));  // two clusters
  EXPECT_EQ(used("fixed", 8, 3, false), 1u);
  EXPECT_EQ(used("gpgpu-sim", 8, 3, true), 1u);
  EXPECT_THROW(used("gpgpu-sim", 8, 0, false), std::invalid_argument);
  EXPECT_THROW(used("gpgpu-sim", 8, 65, false), std::invalid_argument);
}

// Each thread walks its own range of chunks upwards, then the others' from their tops down; a
// thread alone (workers not joined) claims them all, each once per step. rebalance() sizes the
// ranges by the chunks each thread claimed.
TEST(sm_exact, owned_chunks_own_range_first_then_the_others_from_the_top) {
  owned_chunks chunks;
  chunks.reset(10, 3);  // ranges 0-2, 3-5, 6-9
  EXPECT_EQ(chunks.lo(1), 3u);
  EXPECT_EQ(chunks.lo(2), 6u);
  std::vector<unsigned> order;
  chunks.run(0, 1, [&](unsigned c) { order.push_back(c); });
  EXPECT_EQ(order, (std::vector<unsigned>{0, 1, 2, 5, 4, 3, 9, 8, 7, 6}));
  order.clear();
  chunks.run(1, 1, [&](unsigned c) { order.push_back(c); });  // all claimed in step 1
  EXPECT_TRUE(order.empty());
  // Step 2, thread 2 alone: its own range, then range 0 and range 1, each from the top.
  chunks.run(2, 2, [&](unsigned c) { order.push_back(c); });
  EXPECT_EQ(order, (std::vector<unsigned>{6, 7, 8, 9, 2, 1, 0, 5, 4, 3}));
  order.clear();
  chunks.run(0, 2, [&](unsigned c) { order.push_back(c); });
  EXPECT_TRUE(order.empty());
  // A thread meets the owner coming up: thread 1 owns 3-5 and has taken 3; thread 0 takes the
  // rest of range 1 from the top (5, 4) and stops at 3.
  chunks.run(1, 3, [&](unsigned c) {
    order.push_back(c);
    if (c == 3) chunks.run(0, 3, [&](unsigned d) { order.push_back(100 + d); });
  });
  EXPECT_EQ(order, (std::vector<unsigned>{3, 100, 101, 102, 105, 104, 109, 108, 107, 106}));
  // Claimed since the start: thread 0 10 + 9, thread 1 0 + 1, thread 2 10: ranges of
  // 10 x 19/30, 10 x 1/30, 10 x 10/30 chunks, bounds rounded: 0, 6, 7 (6.33, 6.67).
  chunks.rebalance();
  EXPECT_EQ(chunks.lo(0), 0u);
  EXPECT_EQ(chunks.lo(1), 6u);
  EXPECT_EQ(chunks.lo(2), 7u);
  EXPECT_EQ(chunks.lo(3), 10u);
  chunks.rebalance();  // nothing claimed since: unchanged
  EXPECT_EQ(chunks.lo(1), 6u);
  // With the team: every chunk once per step, whoever joins, rebalanced every 16 steps.
  thread_team team(3);
  chunks.reset(12, 3);
  for (uint32_t step = 1; step <= 300; ++step) {
    if (step % 16 == 0) chunks.rebalance();
    std::vector<std::atomic<int>> done(12);
    team.share([&](unsigned g) { chunks.run(g, step, [&](unsigned c) { ++done[c]; }); });
    for (unsigned c = 0; c < 12; ++c) ASSERT_EQ(done[c].load(), 1) << "step " << step << " chunk " << c;
  }
}

// The team shares one pool per call: the calling thread runs group 0 and the workers that join
// take part; whoever takes them, every item is done once. An exception comes back (the lowest
// group's), and the team stays usable.
TEST(sm_exact, thread_team_shares_a_pool_and_rethrows) {
  thread_team team(3);
  EXPECT_EQ(team.size(), 3u);
  const auto caller = std::this_thread::get_id();
  for (int r = 0; r < 200; ++r) {
    std::atomic<unsigned> next{0};
    std::vector<int> done(1000, 0);
    std::thread::id group0;
    team.share([&](unsigned g) {
      if (g == 0) group0 = std::this_thread::get_id();
      for (unsigned i; (i = next.fetch_add(1)) < done.size();) ++done[i];
    });
    EXPECT_EQ(std::count(done.begin(), done.end(), 1), 1000) << "round " << r;
    EXPECT_EQ(group0, caller);
  }
  // A worker's exception: group 0 waits (up to 10 s) until a worker has joined.
  std::atomic<bool> joined{false};
  try {
    team.share([&](unsigned g) {
      if (g == 0) {
        for (int i = 0; i < 10000 && !joined; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return;
      }
      joined = true;
      throw std::runtime_error("group " + std::to_string(g));
    });
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(std::string(e.what()) == "group 1" || std::string(e.what()) == "group 2") << e.what();
  }
  EXPECT_THROW(team.share([](unsigned g) {
    if (g == 0) throw std::runtime_error("group 0");
  }),
               std::runtime_error);
  std::atomic<unsigned> calls{0};
  team.share([&](unsigned) { ++calls; });  // usable after an exception
  EXPECT_GE(calls.load(), 1u);
  EXPECT_THROW(thread_team(1), std::invalid_argument);
  EXPECT_THROW(thread_team(thread_team::max_threads + 1), std::invalid_argument);
}
