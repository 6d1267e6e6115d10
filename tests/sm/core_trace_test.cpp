// SPDX-License-Identifier: Apache-2.0
// Accel-Sim trace parser: the fixture in tests/sm/data/ffma and malformed inputs, each of which
// must fail with a message naming file:line.
#include <gtest/gtest.h>

#include "core/gpu.h"
#include "core/trace.h"
#include "kernel_builder.h"
#include "paths.h"

using namespace gpuvp::sm;
using gpuvp::gpu_memory::fixed_latency_memory;

namespace {

const std::string header =
    "-kernel name = k\n-kernel id = 1\n-grid dim = (2,1,1)\n-block dim = (64,1,1)\n-shmem = 0\n"
    "-nregs = 8\n-binary version = 70\n#traces format = x\n";

std::string error_of(const std::string& text) { return gpuvp::sm::testing::parse_error_of(text, "t.traceg"); }

}  // namespace

TEST(sm_trace, parses_fixture_kernelslist_and_trace) {
  kernelslist kl = parse_kernelslist(sm_data_dir() + "/ffma/kernelslist.g");
  ASSERT_EQ(kl.entries.size(), 3u);
  EXPECT_FALSE(kl.entries[0].is_kernel);
  EXPECT_TRUE(kl.entries[0].copy.to_device);
  EXPECT_EQ(kl.entries[0].copy.addr, 0x7f4e8a000000ull);
  EXPECT_EQ(kl.entries[0].copy.size, 4096u);
  ASSERT_TRUE(kl.entries[1].is_kernel);
  EXPECT_EQ(kl.entries[1].trace_path, sm_data_dir() + "/ffma/kernel-1.traceg");
  EXPECT_FALSE(kl.entries[2].copy.to_device);

  kernel_trace k = parse_kernel_trace(kl.entries[1].trace_path);
  EXPECT_EQ(k.name, "_Z9ffma_testPf");
  EXPECT_EQ(k.block.x, 32u);
  EXPECT_EQ(k.arch, sass_arch::volta);
  EXPECT_EQ(k.tracer_version, 5u);
  EXPECT_EQ(k.shmem_base, 0x7f4e90000000ull);
  ASSERT_EQ(k.ctas.size(), 1u);
  ASSERT_EQ(k.ctas[0].warps.size(), 1u);
  const auto& in = k.ctas[0].warps[0].insts;
  ASSERT_EQ(in.size(), 6u);
  EXPECT_EQ(k.warp_insts, 6u);
  EXPECT_EQ(in[0].info.cls, op_class::intp);
  EXPECT_EQ(in[0].src[0], 255);
  // LDG, base+stride format: thread t at 0x7f4e8a000000 + 4t
  EXPECT_EQ(in[1].info.cls, op_class::mem);
  EXPECT_EQ(in[1].info.space, mem_space::global);
  EXPECT_EQ(in[1].width, 4);
  EXPECT_EQ(k.ctas[0].addresses[in[1].addr_index + 0], 0x7f4e8a000000ull);
  EXPECT_EQ(k.ctas[0].addresses[in[1].addr_index + 31], 0x7f4e8a000000ull + 31 * 4);
  EXPECT_EQ(in[2].info.cls, op_class::sp);
  EXPECT_EQ(in[2].pc, 0x20u);
  EXPECT_EQ(in[2].nsrc, 3);
  EXPECT_EQ(in[2].dst[0], 1);
  // STG with mask 0xf, base+deltas format: 0x...100, +4, +4, +4; other threads inactive (0)
  EXPECT_TRUE(in[3].info.store);
  EXPECT_EQ(in[3].mask, 0xfu);
  EXPECT_EQ(k.ctas[0].addresses[in[3].addr_index + 3], 0x7f4e8a00010cull);
  EXPECT_EQ(k.ctas[0].addresses[in[3].addr_index + 4], 0u);
  EXPECT_EQ(in[4].info.cls, op_class::spec3);  // HMMA on the tensor (specialized unit 3)
  EXPECT_EQ(k.opcodes[in[4].opcode], "HMMA.884.F32.F32.STEP0");
  EXPECT_EQ(in[5].info.cls, op_class::exit);
}

TEST(sm_trace, writer_output_parses_back) {
  trace_writer_inst ffma{"FFMA", {1}, {1, 2, 3}, 0, {}};
  trace_writer_inst ld{"LDS", {5}, {4}, 4, std::vector<uint64_t>(32, 0x80), 0xffffffffu};
  trace_writer_inst ex{"EXIT", {}, {}, 0, {}};
  std::string text = write_kernel_trace("k", 3, {2, 1, 1}, {64, 1, 1}, 86, 1024, 16, {{ffma, ld, ex}, {ffma, ex}});
  kernel_trace k = parse_kernel_trace_text(text, "gen");
  EXPECT_EQ(k.arch, sass_arch::ampere);
  ASSERT_EQ(k.ctas.size(), 2u);
  EXPECT_EQ(k.ctas[1].id.x, 1u);
  EXPECT_EQ(k.ctas[1].warps[0].insts.size(), 3u);
  EXPECT_EQ(k.ctas[1].warps[1].insts.size(), 2u);
  EXPECT_EQ(k.warp_insts, 10u);
  EXPECT_EQ(k.shmem, 1024u);
  EXPECT_EQ(k.ctas[0].addresses[k.ctas[0].warps[0].insts[1].addr_index + 17], 0x80u);
}

TEST(sm_trace, opcode_maps_per_architecture) {
  EXPECT_EQ(classify_opcode(sass_arch::volta, "DFMA")->cls, op_class::dp);
  EXPECT_EQ(classify_opcode(sass_arch::volta, "MUFU.RSQ")->cls, op_class::sfu);
  EXPECT_EQ(classify_opcode(sass_arch::volta, "TEX.B")->cls, op_class::spec2);
  EXPECT_EQ(classify_opcode(sass_arch::volta, "BRA")->cls, op_class::spec1);
  EXPECT_EQ(classify_opcode(sass_arch::volta, "BAR.SYNC")->cls, op_class::barrier);
  EXPECT_FALSE(classify_opcode(sass_arch::volta, "UIADD3"));
  EXPECT_EQ(classify_opcode(sass_arch::turing, "UIADD3")->cls, op_class::intp);
  EXPECT_EQ(classify_opcode(sass_arch::ampere, "UIADD3")->cls, op_class::spec4);
  EXPECT_EQ(classify_opcode(sass_arch::ampere, "LDGSTS.E")->space, mem_space::global);
  EXPECT_FALSE(classify_opcode(sass_arch::ampere, "HGMMA"));
  EXPECT_EQ(classify_opcode(sass_arch::hopper, "HGMMA.64x128x16.F32")->cls, op_class::spec5);
  EXPECT_EQ(classify_opcode(sass_arch::hopper, "STS.128")->space, mem_space::shared);
  EXPECT_TRUE(classify_opcode(sass_arch::hopper, "STS.128")->store);
  EXPECT_FALSE(arch_from_binary_version(50));
  EXPECT_FALSE(arch_from_binary_version(62));
  EXPECT_EQ(*arch_from_binary_version(90), sass_arch::hopper);
}

TEST(sm_trace, binary_versions_select_accel_sims_opcode_maps) {
  // trace_kernel_info_t: 35 Kepler, 60/61 Pascal, 70 Volta, 75 Turing, 80/86 Ampere.
  EXPECT_EQ(*arch_from_binary_version(35), sass_arch::kepler);
  EXPECT_EQ(*arch_from_binary_version(60), sass_arch::pascal);
  EXPECT_EQ(*arch_from_binary_version(61), sass_arch::pascal);
  EXPECT_EQ(*arch_from_binary_version(70), sass_arch::volta);
  EXPECT_EQ(*arch_from_binary_version(75), sass_arch::turing);
  EXPECT_EQ(*arch_from_binary_version(80), sass_arch::ampere);
  EXPECT_EQ(*arch_from_binary_version(86), sass_arch::ampere);
  // kepler_opcode.h: ISUB/ISAD INTP_OP, FSWZ SP_OP, LD is a global load (OP_LDG), ST a global
  // store, conversions and textures ALU_OP (the INT unit), no XMAD.
  EXPECT_EQ(classify_opcode(sass_arch::kepler, "ISUB")->cls, op_class::intp);
  EXPECT_EQ(classify_opcode(sass_arch::kepler, "FSWZ")->cls, op_class::sp);
  EXPECT_EQ(classify_opcode(sass_arch::kepler, "LD.E")->space, mem_space::global);
  EXPECT_TRUE(classify_opcode(sass_arch::kepler, "ST.E")->store);
  EXPECT_EQ(classify_opcode(sass_arch::kepler, "F2F.F32")->cls, op_class::intp);
  EXPECT_EQ(classify_opcode(sass_arch::kepler, "TEX")->cls, op_class::intp);
  EXPECT_EQ(classify_opcode(sass_arch::kepler, "LDSLK")->space, mem_space::shared);
  EXPECT_FALSE(classify_opcode(sass_arch::kepler, "XMAD"));
  // pascal_opcode.h: XMAD INTP_OP, branches BRANCH_OP (no specialized unit), TEX ALU_OP, DMNMX
  // DP_OP, HFMA2 SP_OP; no ISUB, no uniform or tensor opcodes.
  EXPECT_EQ(classify_opcode(sass_arch::pascal, "XMAD.PSL.CBCC")->cls, op_class::intp);
  EXPECT_EQ(classify_opcode(sass_arch::pascal, "BRA")->cls, op_class::intp);
  EXPECT_EQ(classify_opcode(sass_arch::pascal, "TEX.B")->cls, op_class::intp);
  EXPECT_EQ(classify_opcode(sass_arch::pascal, "DMNMX")->cls, op_class::dp);
  EXPECT_EQ(classify_opcode(sass_arch::pascal, "HFMA2")->cls, op_class::sp);
  EXPECT_EQ(classify_opcode(sass_arch::pascal, "LDG.E.CG")->space, mem_space::global);
  EXPECT_EQ(classify_opcode(sass_arch::pascal, "ATOMS.ADD")->space, mem_space::shared);
  EXPECT_EQ(classify_opcode(sass_arch::pascal, "EXIT")->cls, op_class::exit);
  EXPECT_FALSE(classify_opcode(sass_arch::pascal, "ISUB"));
  EXPECT_FALSE(classify_opcode(sass_arch::pascal, "UMOV"));
  EXPECT_FALSE(classify_opcode(sass_arch::pascal, "HMMA"));
  EXPECT_EQ(std::string(supported_binary_versions()).find("35, 60, 61, 70"), 0u);
}

struct malformed_case {
  const char* what;
  std::string text;
  std::string expect;  // substring of the message, which starts with file:line
};

void PrintTo(const malformed_case& c, std::ostream* os) { *os << c.what; }

class sm_trace_malformed : public ::testing::TestWithParam<malformed_case> {};

TEST_P(sm_trace_malformed, names_file_and_line) {
  const auto& c = GetParam();
  std::string msg = error_of(c.text);
  EXPECT_NE(msg.find(c.expect), std::string::npos) << c.what << ": " << msg;
}

const std::string tb = "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n";
const std::string tb2 = "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n";
INSTANTIATE_TEST_SUITE_P(
    cases, sm_trace_malformed,
    ::testing::Values(
        malformed_case{"unknown opcode", header + tb + "0000 ffffffff 1 R1 FOO 0 0\n#END_TB\n", "t.traceg:13: unknown volta opcode 'FOO'"},
        malformed_case{"bad register", header + tb + "0000 ffffffff 1 X1 FFMA 0 0\n#END_TB\n",
                       "t.traceg:13: bad destination register 'X1'"},
        malformed_case{"missing field", header + tb + "0000 ffffffff 1 R1 FFMA 3 R1 R2\n#END_TB\n", "t.traceg:13: missing source register"},
        malformed_case{"bad mask", header + tb + "0000 fffffzff 0 EXIT 0 0\n#END_TB\n", "t.traceg:13: bad active mask"},
        malformed_case{"insts mismatch", header + tb + "#END_TB\n", "t.traceg:11: warp declares insts = 1 but has 0"},
        malformed_case{"too many lines", header + tb + "0000 ffffffff 0 NOP 0 0\n0010 ffffffff 0 EXIT 0 0\n#END_TB\n",
                       "t.traceg:14: more instruction lines"},
        malformed_case{"no END_TB", header + tb + "0000 ffffffff 0 EXIT 0 0\n", "t.traceg:13: end of file inside a thread block"},
        malformed_case{"warp outside block", header + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 2\n",
                       "t.traceg:11: warp 2 outside the block (2 warps)"},
        malformed_case{"block outside grid", header + "#BEGIN_TB\nthread block = 5,0,0\n", "t.traceg:10: thread block outside the grid"},
        malformed_case{"bad dims", "-grid dim = (1,1)\n", "t.traceg:1: bad grid dim"},
        malformed_case{"unsupported arch", "-binary version = 50\n",
                       "t.traceg:1: unsupported binary version 50 (supported: 35, 60, 61, 70, 72, 75, 80, 86"},
        malformed_case{"EXIT of an exited lane", header + tb2 + "0000 ffffffff 0 EXIT 0 0\n0010 00000001 0 EXIT 0 0\n#END_TB\n",
                       "t.traceg:14: EXIT of lanes 00000001 that already exited"},
        malformed_case{"line outside TB", header + "0000 ffffffff 0 EXIT 0 0\n", "t.traceg:9: instruction or block line outside"},
        malformed_case{"bad address mode", header + tb + "0000 ffffffff 1 R1 LDG.E 1 R2 4 7 0x0\n#END_TB\n",
                       "t.traceg:13: unknown address format 7"},
        malformed_case{"short address list", header + tb + "0000 00000003 1 R1 LDG.E 1 R2 4 0 0x10\n#END_TB\n",
                       "t.traceg:13: missing address"},
        malformed_case{"trailing text", header + tb + "0000 ffffffff 0 EXIT 0 0 junk\n#END_TB\n", "t.traceg:13: trailing text 'junk'"},
        malformed_case{"empty", "", "t.traceg:0: missing '-grid dim'"},
        malformed_case{"block too large", "-block dim = (2048,1,1)\n", "t.traceg:1: block dim has 2048 threads"},
        malformed_case{"instruction count above 2^32-1", header + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 4294967296\n",
                       "t.traceg:12: instruction count 4294967296 above 4294967295"},
        malformed_case{"mask wider than a warp", header + tb + "0000 1ffffffff 0 EXIT 0 0\n#END_TB\n",
                       "t.traceg:13: active mask 1ffffffff wider than 32 lanes"},
        malformed_case{"mask above 2^64-1", header + tb + "0000 10000000000000000 0 EXIT 0 0\n#END_TB\n",
                       "t.traceg:13: bad active mask '10000000000000000'"},
        malformed_case{"register count overflows", header + tb + "0000 ffffffff 18446744073709551616 EXIT 0 0\n#END_TB\n",
                       "t.traceg:13: bad destination count"},
        malformed_case{"header in body", header + tb + "-shmem = 4\n", "t.traceg:13: header line inside"},
        // The grid's count of blocks, no fewer (at the end) and no more (at the extra one).
        malformed_case{"fewer blocks than the grid", header + tb + "0000 ffffffff 0 EXIT 0 0\n#END_TB\n",
                       "t.traceg:14: end of file after 1 thread block, but grid dim (2,1,1) has 2"},
        malformed_case{"more blocks than the grid",
                       header + tb + "0000 ffffffff 0 EXIT 0 0\n#END_TB\n" + tb + "0000 ffffffff 0 EXIT 0 0\n#END_TB\n" + tb,
                       "t.traceg:21: more thread blocks than grid dim (2,1,1) has (2)"}));

TEST(sm_trace, kernelslist_errors_name_file_and_line) {
  try {
    parse_kernelslist_text("kernel-1.traceg\nMemcpyXtoY,0x0,4\n", "kl.g", "");
    FAIL();
  } catch (const trace_error& e) {
    EXPECT_NE(std::string(e.what()).find("kl.g:2: unknown command 'MemcpyXtoY'"), std::string::npos) << e.what();
  }
  try {
    parse_kernelslist_text("MemcpyHtoD,0x10,zz\n", "kl.g", "");
    FAIL();
  } catch (const trace_error& e) {
    EXPECT_NE(std::string(e.what()).find("kl.g:1: bad memcpy size"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_kernelslist_text("# only a comment\n", "kl.g", ""), trace_error);
  EXPECT_THROW(parse_kernelslist("/nonexistent/kernelslist.g"), trace_error);
}

TEST(sm_trace, mutated_traces_fail_cleanly_or_run) {
  // Deterministic mutation fuzzing of the fixture: every variant must either parse or throw a
  // trace_error naming the file; a variant that parses must run to completion on one SM.
  std::string base = write_kernel_trace(
      "k", 1, {2, 1, 1}, {64, 1, 1}, 70, 0, 32,
      {{trace_writer_inst{"LDG.E", {1}, {4}, 4, std::vector<uint64_t>(32, 0x100), 0xffffffffu},
        trace_writer_inst{"FFMA", {2}, {1, 2, 3}, 0, {}, 0xffffffffu}, trace_writer_inst{"BAR.SYNC", {}, {}, 0, {}, 0xffffffffu},
        trace_writer_inst{"EXIT", {}, {}, 0, {}, 0xffffffffu}},
       {trace_writer_inst{"BAR.SYNC", {}, {}, 0, {}, 0xffffffffu}, trace_writer_inst{"EXIT", {}, {}, 0, {}, 0xffffffffu}}});
  uint64_t rng = 12345;
  auto next = [&] {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return unsigned(rng >> 33);
  };
  const char alphabet[] = "0123456789abcdefxR =-,()#\n.";
  unsigned parsed = 0, rejected = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string t = base;
    for (int m = 0, n = 1 + next() % 3; m < n; ++m) {
      size_t pos = next() % t.size();
      switch (next() % 3) {
        case 0:
          t[pos] = alphabet[next() % (sizeof alphabet - 1)];
          break;
        case 1:
          t.erase(pos, 1 + next() % 4);
          break;
        default:
          t.insert(pos, 1, alphabet[next() % (sizeof alphabet - 1)]);
          break;
      }
    }
    try {
      kernel_trace k = parse_kernel_trace_text(t, "fuzz.traceg");
      ++parsed;
      gpu_config c;
      fixed_latency_memory m(50);
      gpu_sim g(c, &m, 1);
      try {
        g.start(k);
      } catch (const std::runtime_error&) {
        continue;  // a CTA that does not fit: reported, not run
      }
      uint64_t cycles = 0;
      while (g.step() && ++cycles < 200000) {}
      EXPECT_LT(cycles, 200000u) << "variant " << i << " did not finish";
    } catch (const trace_error& e) {
      ++rejected;
      EXPECT_EQ(std::string(e.what()).rfind("fuzz.traceg:", 0), 0u) << e.what();
    }
  }
  EXPECT_GT(parsed, 100u);
  EXPECT_GT(rejected, 100u);
}

namespace {
// One warp of one CTA around the given instruction lines (as the tracer writes them).
kernel_trace one_warp(const std::vector<std::string>& lines) {
  std::string t =
      "-kernel name = k\n-kernel id = 1\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-shmem = 0\n"
      "-nregs = 32\n-binary version = 70\n-accelsim tracer version = 5\n"
      "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width "
      "[adrrescompress?] [mem_addresses] immediate\n#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = " +
      std::to_string(lines.size()) + "\n";
  for (auto& l : lines) t += l + "\n";
  return parse_kernel_trace_text(t + "#END_TB\n", "real.traceg");
}
const uint64_t* addrs_of(const kernel_trace& k, unsigned i) { return &k.ctas[0].addresses[k.ctas[0].warps[0].insts[i].addr_index]; }
}  // namespace

TEST(sm_trace, real_tracer_lines_carry_a_trailing_immediate) {
  // mem_width 0 then the immediate; with and without it the instruction is the same.
  kernel_trace k = one_warp({"0000 ffffffff 1 R1 FFMA 3 R1 R2 R3 0 0", "0010 ffffffff 1 R1 IMAD.MOV.U32 2 R255 R255 0 0x3f800000",
                             "0020 ffffffff 1 R1 FFMA 3 R1 R2 R3 0", "0030 ffffffff 0 EXIT 0 0 -1"});
  const auto& in = k.ctas[0].warps[0].insts;
  ASSERT_EQ(in.size(), 4u);
  EXPECT_EQ(in[0].nsrc, 3);
  EXPECT_EQ(in[0].width, 0);
  EXPECT_EQ(in[1].dst[0], 1);
  // Anything that is not one number after the fields is still refused, naming file:line.
  EXPECT_NE(error_of(header + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 ffffffff 1 R1 FFMA 3 R1 R2 R3 0 0 0\n#END_TB\n")
                .find("t.traceg:13: trailing text '0'"),
            std::string::npos);
  EXPECT_NE(error_of(header + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 ffffffff 1 R1 FFMA 3 R1 R2 R3 0 zz\n#END_TB\n")
                .find("t.traceg:13: trailing text 'zz'"),
            std::string::npos);
}

TEST(sm_trace, base_stride_starts_at_the_first_active_lane) {
  // Mask ffff0000, base 0x7f4000000040 stride 4: lane 16+k at base + 4k (the reference's
  // partial-mask calibration kernel), lanes 0-15 inactive (0).
  kernel_trace k = one_warp({"0000 ffff0000 1 R10 LDG.E.32 1 R2 4 1 0x7f4000000040 4 0", "0010 ffffffff 0 EXIT 0 0 0"});
  const uint64_t* a = addrs_of(k, 0);
  for (unsigned t = 0; t < 16; ++t) EXPECT_EQ(a[t], 0u) << t;
  for (unsigned t = 16; t < 32; ++t) EXPECT_EQ(a[t], 0x7f4000000040ull + 4 * (t - 16)) << t;
  EXPECT_EQ(k.ctas[0].warps[0].insts[0].width, 4);
  // Negative stride, full mask, no immediate: lane t at base - 8t.
  kernel_trace n = one_warp({"0000 ffffffff 1 R10 LDG.E.64 1 R2 8 1 0x1000 -8", "0010 ffffffff 0 EXIT 0 0 0"});
  EXPECT_EQ(addrs_of(n, 0)[31], 0x1000u - 8 * 31);
  EXPECT_EQ(n.ctas[0].warps[0].insts[0].width, 8);
  // A gap in the mask ends the run, as Accel-Sim's base_stride_decompress: lanes 0-1 get base,
  // base+4; lane 3 (after the inactive lane 2) gets 0.
  kernel_trace g = one_warp({"0000 0000000b 1 R10 LDG.E 1 R2 4 1 0x2000 4 0", "0010 ffffffff 0 EXIT 0 0 0"});
  EXPECT_EQ(addrs_of(g, 0)[0], 0x2000u);
  EXPECT_EQ(addrs_of(g, 0)[1], 0x2004u);
  EXPECT_EQ(addrs_of(g, 0)[3], 0u);
}

TEST(sm_trace, base_delta_as_the_tracer_writes_it) {
  // Mask 0000000d (lanes 0, 2, 3): base, then n-1 = 2 deltas, then the immediate (which
  // Accel-Sim's parser reads as a third delta and drops). Lane 0 base, lane 2 base+128, lane 3
  // base+128-4.
  for (std::string tail : {" 0", ""}) {
    kernel_trace k = one_warp({"0000 0000000d 0 STG.E.U8 2 R2 R5 1 2 0x3000 128 -4" + tail, "0010 ffffffff 0 EXIT 0 0 0"});
    const uint64_t* a = addrs_of(k, 0);
    EXPECT_EQ(a[0], 0x3000u);
    EXPECT_EQ(a[1], 0u);
    EXPECT_EQ(a[2], 0x3080u);
    EXPECT_EQ(a[3], 0x307cu);
    EXPECT_EQ(k.ctas[0].warps[0].insts[0].width, 1);  // U8 from the opcode, not the trace's mem_width 1
  }
}

TEST(sm_trace, three_address_forms_give_the_same_addresses) {
  // Full mask, lane t at 0x7f4000000000 + 4t: list, base+stride, base+delta (31 deltas + imm).
  std::string list = "0000 ffffffff 1 R10 LDG.E.32 1 R2 4 0", delta = "0000 ffffffff 1 R10 LDG.E.32 1 R2 4 2 0x7f4000000000";
  for (unsigned t = 0; t < 32; ++t) {
    char buf[32];
    std::snprintf(buf, sizeof buf, " 0x%llx", 0x7f4000000000ull + 4 * t);
    list += buf;
    if (t) delta += " 4";
  }
  kernel_trace a = one_warp({list + " 0", "0010 ffffffff 0 EXIT 0 0 0"});
  kernel_trace b = one_warp({"0000 ffffffff 1 R10 LDG.E.32 1 R2 4 1 0x7f4000000000 4 0", "0010 ffffffff 0 EXIT 0 0 0"});
  kernel_trace c = one_warp({delta + " 0", "0010 ffffffff 0 EXIT 0 0 0"});
  for (unsigned t = 0; t < 32; ++t) {
    EXPECT_EQ(addrs_of(a, 0)[t], 0x7f4000000000ull + 4 * t);
    EXPECT_EQ(addrs_of(b, 0)[t], addrs_of(a, 0)[t]);
    EXPECT_EQ(addrs_of(c, 0)[t], addrs_of(a, 0)[t]);
  }
}

TEST(sm_trace, access_width_comes_from_the_opcode) {
  EXPECT_EQ(access_width_of("LDG.E.32"), 4u);
  EXPECT_EQ(access_width_of("LDG.E.64.SYS"), 8u);
  EXPECT_EQ(access_width_of("LDG.E.128"), 16u);
  EXPECT_EQ(access_width_of("LDG.E.U8"), 1u);
  EXPECT_EQ(access_width_of("STG.E.U16"), 2u);
  EXPECT_EQ(access_width_of("LDG.E"), 4u);
  EXPECT_EQ(access_width_of("LDS"), 4u);
}
