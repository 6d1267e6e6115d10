// SPDX-License-Identifier: Apache-2.0
// Kernel traces read while the simulation runs (core/trace_stream.h): the same thread blocks and
// the same statistics as the whole file parsed first, errors late in the file as file:line when
// the simulation reaches them, the trace in memory bounded by the reader's window plus the CTAs
// the SMs hold, and `gpuvp sm-run` failing cleanly on a truncated file.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/gpu.h"
#include "core/memsys.h"
#include "core/trace.h"
#include "core/trace_stream.h"
#include "kernel_builder.h"
#include "sm_run.h"
#include "testing.h"

using namespace gpuvp::sm;
using gpuvp::gpu_memory::fixed_latency_memory;
using gpuvp::gpu_memory::make_memory;
using gpuvp::sm::testing::mem;
using gpuvp::sm::testing::op;
using gpuvp::sm::testing::shipped;

namespace {

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// 1-based number of the line that starts at byte `pos` of `text`.
unsigned line_at(const std::string& text, size_t pos) { return unsigned(std::count(text.begin(), text.begin() + long(pos), '\n')) + 1; }

// `ctas` one-warp CTAs: a load of CTA c's own line, an FFMA on it, EXIT.
std::string small_kernel_text(unsigned ctas) {
  std::string text;
  for (unsigned c = 0; c < ctas; ++c) {
    const std::vector<std::vector<trace_writer_inst>> warps = {
        {mem("LDG.E.32", {10}, {2}, 0x7f4000000000ull + 128ull * c, 4), op("FFMA", {11}, {10, 3, 4}), op("EXIT", {}, {})}};
    std::string one = write_kernel_trace("small", 1, {1, 1, 1}, {32, 1, 1}, 70, 0, 32, warps);
    const size_t b = one.find("#BEGIN_TB");
    if (c == 0) text = one.substr(0, b);
    std::string tb = one.substr(b);
    tb.replace(tb.find("thread block = 0,0,0"), 20, "thread block = " + std::to_string(c) + ",0,0");
    text += tb;
  }
  text.replace(text.find("grid dim = (1,1,1)"), 18, "grid dim = (" + std::to_string(ctas) + ",1,1)");
  return text;
}

// QV100's SM holding at most `slots` CTAs (run on one SM, with a fixed-latency memory).
gpu_config one_sm(unsigned slots) {
  gpu_config c = shipped("QV100");
  c.max_ctas_per_sm = slots;
  return c;
}

using gpuvp::sm::testing::sm_run;
using gpuvp::sm::testing::sm_run_result;

// The trace_error message `f` throws, or "no error".
template <typename F>
std::string trace_error_of(F f) {
  try {
    f();
  } catch (const trace_error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(sm_trace_stream, streamed_blocks_are_the_whole_files_blocks) {
  const std::string text = gpuvp::sm::testing::bandwidth_kernel_text(40, 70);
  const std::string path = write_file("stream_same.traceg", text);
  const kernel_trace whole = parse_kernel_trace(path);
  ASSERT_EQ(whole.ctas.size(), 40u);
  EXPECT_EQ(parse_kernel_trace_text(text, path).warp_insts, whole.warp_insts);
  kernel_trace_stream s(path, {3, uint64_t(1) << 30});  // a window of 3 blocks: the reader waits for the taker
  EXPECT_EQ(s.header().grid.x, 40u);
  EXPECT_EQ(s.header().nregs, 64u);
  EXPECT_EQ(s.cta_count(), 40u);
  for (unsigned i = 0; i < 40; ++i) {
    const auto c = s.take(i);
    const trace_cta& w = whole.ctas[i];
    ASSERT_EQ(c->id.x, i);
    ASSERT_EQ(c->warps.size(), w.warps.size());
    for (size_t j = 0; j < w.warps.size(); ++j) {
      const auto &a = c->warps[j].insts, &b = w.warps[j].insts;
      ASSERT_EQ(a.size(), b.size());
      for (size_t n = 0; n < a.size(); ++n) {
        ASSERT_EQ(a[n].pc, b[n].pc);
        ASSERT_EQ(a[n].mask, b[n].mask);
        ASSERT_EQ(a[n].opcode, b[n].opcode);
        ASSERT_EQ(a[n].info.cls, b[n].info.cls);
        ASSERT_EQ(a[n].width, b[n].width);
        ASSERT_TRUE(std::equal(a[n].src, a[n].src + 4, b[n].src) && std::equal(a[n].dst, a[n].dst + 4, b[n].dst));
        if (a[n].width) {
          ASSERT_TRUE(std::equal(&c->addresses[a[n].addr_index], &c->addresses[a[n].addr_index] + 32, &w.addresses[b[n].addr_index]));
        }
      }
    }
    // kernel_builder: lane t of LDG i of warp w reads 0x7f4000000000 + 128 ((8c + w) 16 + i) + 4t.
    EXPECT_EQ(c->addresses[c->warps[5].insts[7 * 3].addr_index + 9], 0x7f4000000000ull + 128ull * ((8 * i + 5) * 16 + 3) + 4 * 9);
  }
  EXPECT_NO_THROW(s.check_end());
}

TEST(sm_trace_stream, simulation_gives_the_whole_files_statistics) {
  // The 320-CTA bandwidth kernel on QV100 with the whole memory system: Accel-Sim's 9690 cycles
  // (core_exact_test records every statistic for the whole-file path), streamed with a window
  // smaller than the CTAs resident at once (4 per SM: all 320), on one and two host threads.
  const std::string path = write_file("stream_bw320.traceg", gpuvp::sm::testing::bandwidth_kernel_text(320, 70));
  const gpu_config c = shipped("QV100");
  kernel_result whole;
  {
    auto m = make_memory(c, "gpgpu-sim");
    gpu_sim g(c, m.get());
    whole = g.run(parse_kernel_trace(path));
  }
  EXPECT_EQ(whole.cycles, 9690u);
  for (unsigned threads : {1u, 2u}) {
    auto m = make_memory(c, "gpgpu-sim");
    gpu_sim g(c, m.get());
    g.threads = threads;
    kernel_trace_stream s(path, {64, uint64_t(1) << 30});
    g.start(s);
    while (g.step()) {}
    const kernel_result r = g.result();
    EXPECT_EQ(r.cycles, whole.cycles) << threads;
    EXPECT_EQ(r.stats.warp_insts, whole.stats.warp_insts);
    EXPECT_EQ(r.stats.thread_insts, whole.stats.thread_insts);
    EXPECT_EQ(r.stats.active_cycles, whole.stats.active_cycles);
    EXPECT_EQ(r.stats.l1_misses, whole.stats.l1_misses);
    EXPECT_EQ(r.stats.l1_reservation_fails(), whole.stats.l1_reservation_fails());
    EXPECT_EQ(r.stats.ctas_done, 320u);
    EXPECT_EQ(r.mem.dram_reads, whole.mem.dram_reads);
    EXPECT_EQ(r.mem.dram_row_hits, whole.mem.dram_row_hits);
    EXPECT_EQ(r.mem.l2_queue_stalls, whole.mem.l2_queue_stalls);
    EXPECT_EQ(s.resident_ctas(), 0u);  // every CTA released when it finished
  }
}

TEST(sm_trace_stream, memory_holds_the_window_and_the_resident_ctas) {
  // 300 CTAs through a window of 4 onto one SM with 2 CTA slots: at most 4 parsed ahead, 1 being
  // handed over and 2 on the SM at any time.
  const std::string path = write_file("stream_bound.traceg", small_kernel_text(300));
  const gpu_config c = one_sm(2);
  fixed_latency_memory m(50);
  gpu_sim g(c, &m, 1);
  kernel_trace_stream s(path, {4, uint64_t(1) << 30});
  g.start(s);
  uint64_t peak_seen = 0;
  while (g.step()) peak_seen = std::max(peak_seen, s.resident_ctas());
  EXPECT_EQ(g.result().stats.ctas_done, 300u);
  EXPECT_LE(s.peak_resident_ctas(), 4u + 1u + 2u);
  EXPECT_GE(s.peak_resident_ctas(), peak_seen);
  EXPECT_GE(peak_seen, 2u);  // the SM did hold two at once
  EXPECT_EQ(s.resident_ctas(), 0u);
  // A byte budget smaller than one block: one parsed ahead at a time.
  fixed_latency_memory m2(50);
  gpu_sim g2(c, &m2, 1);
  kernel_trace_stream b(path, {256, 1});
  g2.start(b);
  while (g2.step()) {}
  EXPECT_EQ(g2.result().stats.ctas_done, 300u);
  EXPECT_LE(b.peak_resident_ctas(), 1u + 1u + 2u);
}

TEST(sm_trace_stream, error_in_the_last_cta_stops_the_kernel_after_the_others_ran) {
  std::string text = small_kernel_text(12);
  const size_t last = text.rfind("FFMA");
  text.replace(last, 4, "FROB");
  const unsigned bad_line = line_at(text, text.rfind('\n', last) + 1);
  const std::string path = write_file("stream_late_error.traceg", text);
  const gpu_config c = one_sm(1);
  fixed_latency_memory m(50);
  gpu_sim g(c, &m, 1);  // one CTA at a time: the first 11 finish before the 12th launches
  kernel_trace_stream s(path);
  g.start(s);
  const std::string msg = trace_error_of([&] {
    while (g.step()) {}
  });
  EXPECT_EQ(msg.rfind(path + ":" + std::to_string(bad_line) + ": unknown volta opcode 'FROB'", 0), 0u) << msg;
  EXPECT_EQ(g.ctas_done(), 11u);
  EXPECT_FALSE(g.running());
  // The whole-file parse names the same line.
  EXPECT_EQ(trace_error_of([&] { parse_kernel_trace(path); }), msg);
}

TEST(sm_trace_stream, errors_past_the_last_cta_fail_the_kernel_at_its_end) {
  // A line after the last block, and a block more than the grid: found once every CTA ran.
  const std::string base = small_kernel_text(5);
  const unsigned lines = unsigned(std::count(base.begin(), base.end(), '\n'));
  const std::string junk = write_file("stream_junk.traceg", base + "0000 ffffffff 0 EXIT 0 0\n");
  const std::string extra = write_file("stream_extra.traceg", base + base.substr(base.find("#BEGIN_TB")));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {junk, junk + ":" + std::to_string(lines + 1) + ": instruction or block line outside #BEGIN_TB/#END_TB"},
      {extra, extra + ":" + std::to_string(lines + 1) + ": more thread blocks than grid dim (5,1,1) has (5)"}};
  const gpu_config c = one_sm(1);
  for (const auto& [path, expect] : cases) {
    fixed_latency_memory m(50);
    gpu_sim g(c, &m, 1);
    kernel_trace_stream s(path);
    g.start(s);
    const std::string msg = trace_error_of([&] {
      while (g.step()) {}
    });
    EXPECT_EQ(msg.rfind(expect, 0), 0u) << msg;
    EXPECT_EQ(g.ctas_done(), 5u);
    EXPECT_FALSE(g.running());
  }
}

TEST(sm_trace_stream, a_file_with_fewer_blocks_than_the_grid_is_refused) {
  std::string text = small_kernel_text(4);
  text.replace(text.find("grid dim = (4,1,1)"), 18, "grid dim = (6,1,1)");
  const unsigned lines = unsigned(std::count(text.begin(), text.end(), '\n'));
  const std::string path = write_file("stream_short.traceg", text);
  const std::string expect = path + ":" + std::to_string(lines) + ": end of file after 4 thread blocks, but grid dim (6,1,1) has 6";
  kernel_trace_stream s(path);
  for (unsigned i = 0; i < 4; ++i) EXPECT_NE(s.take(i), nullptr);
  EXPECT_EQ(trace_error_of([&] { s.take(4); }), expect);
  EXPECT_EQ(trace_error_of([&] { parse_kernel_trace(path); }), expect);
}

TEST(sm_trace_stream, header_errors_come_before_the_simulation) {
  const std::string bad = write_file("stream_bad_header.traceg", "-grid dim = (1,1)\n");
  EXPECT_THROW(
      {
        try {
          kernel_trace_stream s(bad);
        } catch (const trace_error& e) {
          EXPECT_EQ(std::string(e.what()), bad + ":1: bad grid dim '(1,1)' (expected (x,y,z))");
          throw;
        }
      },
      trace_error);
  EXPECT_THROW(kernel_trace_stream(::testing::TempDir() + "no_such.traceg"), trace_error);
  EXPECT_THROW(kernel_trace_stream(::testing::TempDir()), trace_error);  // a directory
}

TEST(sm_trace_stream, a_stream_dropped_mid_kernel_stops_its_reader) {
  // The reader waits on a full window; destroying the stream stops and joins it, and the blocks
  // already taken stay valid.
  const std::string path = write_file("stream_drop.traceg", small_kernel_text(300));
  std::shared_ptr<const trace_cta> first;
  {
    kernel_trace_stream s(path, {2, uint64_t(1) << 30});
    first = s.take(0);
  }
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->warps[0].insts.size(), 3u);
  EXPECT_EQ(first->addresses[first->warps[0].insts[0].addr_index], 0x7f4000000000ull);
}

TEST(sm_trace_stream, lines_of_any_length_across_chunks) {
  // A 16-byte chunk: every line crosses a chunk boundary; the last line has no '\n'.
  const std::string path = write_file("stream_lines.txt", "a\n\nthe third line, longer than a chunk\r\nlast");
  line_reader r(path, 16);
  std::vector<std::string> got;
  std::string_view l;
  while (r.next(l)) got.emplace_back(l);
  EXPECT_EQ(got, (std::vector<std::string>{"a", "", "the third line, longer than a chunk\r", "last"}));
  EXPECT_EQ(r.number(), 4u);
}

TEST(sm_trace_stream, sm_run_on_a_truncated_trace_exits_1_naming_file_and_line) {
  const std::string dir = ::testing::TempDir() + "stream_sm_run";
  std::filesystem::create_directories(dir);
  std::string text = gpuvp::sm::testing::bandwidth_kernel_text(8, 70);
  text.erase(text.rfind("#END_TB"));  // the last block cut off after its last warp
  const unsigned lines = unsigned(std::count(text.begin(), text.end(), '\n'));
  std::ofstream(dir + "/kernel-1.traceg") << text;
  std::ofstream(dir + "/kernelslist.g") << "kernel-1.traceg\n";
  const sm_run_result r = sm_run({"--gpu", "QV100", dir + "/kernelslist.g"});
  EXPECT_EQ(r.rc, 1);
  const std::string expect = "gpuvp sm-run: error: " + dir + "/kernel-1.traceg:" + std::to_string(lines) +
                             ": end of file inside a thread block (missing #END_TB) (the simulation stopped there: kernel 1 at cycle ";
  EXPECT_NE(r.err.find(expect), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(", CTAs 0 of 8 done)"), std::string::npos) << r.err;  // all 8 resident at once: none had finished
  EXPECT_EQ(r.out.find("kernel 1 bw:"), std::string::npos) << r.out;         // no figures for the failed kernel
}
