// Accel-Sim trace parser: the fixture in tests/sm/data/ffma and malformed inputs, each of which
// must fail with a message naming file:line.
#include <gtest/gtest.h>

#include "core/gpu.h"
#include "core/trace.h"
#include "paths.h"

using namespace gpuvp::sm;


namespace {

const std::string header =
    "-kernel name = k\n-kernel id = 1\n-grid dim = (2,1,1)\n-block dim = (64,1,1)\n-shmem = 0\n"
    "-nregs = 8\n-binary version = 70\n#traces format = x\n";

std::string error_of(const std::string& text) {
  try {
    parse_kernel_trace_text(text, "t.traceg");
  } catch (const trace_error& e) {
    return e.what();
  }
  return "no error";
}

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
  EXPECT_EQ(k.addresses[in[1].addr_index + 0], 0x7f4e8a000000ull);
  EXPECT_EQ(k.addresses[in[1].addr_index + 31], 0x7f4e8a000000ull + 31 * 4);
  EXPECT_EQ(in[2].info.cls, op_class::sp);
  EXPECT_EQ(in[2].pc, 0x20u);
  EXPECT_EQ(in[2].nsrc, 3);
  EXPECT_EQ(in[2].dst[0], 1);
  // STG with mask 0xf, base+deltas format: 0x...100, +4, +4, +4; other threads inactive (0)
  EXPECT_TRUE(in[3].info.store);
  EXPECT_EQ(in[3].mask, 0xfu);
  EXPECT_EQ(k.addresses[in[3].addr_index + 3], 0x7f4e8a00010cull);
  EXPECT_EQ(k.addresses[in[3].addr_index + 4], 0u);
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
  EXPECT_EQ(k.addresses[k.ctas[0].warps[0].insts[1].addr_index + 17], 0x80u);
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
  EXPECT_FALSE(arch_from_binary_version(61));
  EXPECT_EQ(*arch_from_binary_version(90), sass_arch::hopper);
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
INSTANTIATE_TEST_SUITE_P(
    cases, sm_trace_malformed,
    ::testing::Values(
        malformed_case{"unknown opcode", header + tb + "0000 ffffffff 1 R1 FOO 0 0\n#END_TB\n", "t.traceg:13: unknown volta opcode 'FOO'"},
        malformed_case{"bad register", header + tb + "0000 ffffffff 1 X1 FFMA 0 0\n#END_TB\n", "t.traceg:13: bad destination register 'X1'"},
        malformed_case{"missing field", header + tb + "0000 ffffffff 1 R1 FFMA 3 R1 R2\n#END_TB\n", "t.traceg:13: missing source register"},
        malformed_case{"bad mask", header + tb + "0000 fffffzff 0 EXIT 0 0\n#END_TB\n", "t.traceg:13: bad active mask"},
        malformed_case{"insts mismatch", header + tb + "#END_TB\n", "t.traceg:11: warp declares insts = 1 but has 0"},
        malformed_case{"too many lines", header + tb + "0000 ffffffff 0 EXIT 0 0\n0010 ffffffff 0 EXIT 0 0\n#END_TB\n", "t.traceg:14: more instruction lines"},
        malformed_case{"no END_TB", header + tb + "0000 ffffffff 0 EXIT 0 0\n", "t.traceg:13: end of file inside a thread block"},
        malformed_case{"warp outside block", header + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 2\n", "t.traceg:11: warp 2 outside the block (2 warps)"},
        malformed_case{"block outside grid", header + "#BEGIN_TB\nthread block = 5,0,0\n", "t.traceg:10: thread block outside the grid"},
        malformed_case{"bad dims", "-grid dim = (1,1)\n", "t.traceg:1: bad grid dim"},
        malformed_case{"unsupported arch", "-binary version = 61\n", "t.traceg:1: unsupported binary version 61"},
        malformed_case{"line outside TB", header + "0000 ffffffff 0 EXIT 0 0\n", "t.traceg:9: instruction or block line outside"},
        malformed_case{"bad address mode", header + tb + "0000 ffffffff 1 R1 LDG.E 1 R2 4 7 0x0\n#END_TB\n", "t.traceg:13: unknown address format 7"},
        malformed_case{"short address list", header + tb + "0000 00000003 1 R1 LDG.E 1 R2 4 0 0x10\n#END_TB\n", "t.traceg:13: missing address"},
        malformed_case{"trailing text", header + tb + "0000 ffffffff 0 EXIT 0 0 junk\n#END_TB\n", "t.traceg:13: trailing text 'junk'"},
        malformed_case{"empty", "", "t.traceg:0: missing '-grid dim'"},
        malformed_case{"block too large", "-block dim = (2048,1,1)\n", "t.traceg:1: block dim has 2048 threads"},
        malformed_case{"header in body", header + tb + "-shmem = 4\n", "t.traceg:13: header line inside"}));

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
  std::string base = write_kernel_trace("k", 1, {2, 1, 1}, {64, 1, 1}, 70, 0, 32,
                                        {{trace_writer_inst{"LDG.E", {1}, {4}, 4, std::vector<uint64_t>(32, 0x100), 0xffffffffu},
                                          trace_writer_inst{"FFMA", {2}, {1, 2, 3}, 0, {}, 0xffffffffu},
                                          trace_writer_inst{"BAR.SYNC", {}, {}, 0, {}, 0xffffffffu},
                                          trace_writer_inst{"EXIT", {}, {}, 0, {}, 0xffffffffu}},
                                         {trace_writer_inst{"BAR.SYNC", {}, {}, 0, {}, 0xffffffffu},
                                          trace_writer_inst{"EXIT", {}, {}, 0, {}, 0xffffffffu}}});
  uint64_t rng = 12345;
  auto next = [&] { rng = rng * 6364136223846793005ull + 1442695040888963407ull; return unsigned(rng >> 33); };
  const char alphabet[] = "0123456789abcdefxR =-,()#\n.";
  unsigned parsed = 0, rejected = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string t = base;
    for (int m = 0, n = 1 + next() % 3; m < n; ++m) {
      size_t pos = next() % t.size();
      switch (next() % 3) {
        case 0: t[pos] = alphabet[next() % (sizeof alphabet - 1)]; break;
        case 1: t.erase(pos, 1 + next() % 4); break;
        default: t.insert(pos, 1, alphabet[next() % (sizeof alphabet - 1)]); break;
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
      while (g.step() && ++cycles < 200000) {
      }
      EXPECT_LT(cycles, 200000u) << "variant " << i << " did not finish";
    } catch (const trace_error& e) {
      ++rejected;
      EXPECT_EQ(std::string(e.what()).rfind("fuzz.traceg:", 0), 0u) << e.what();
    }
  }
  EXPECT_GT(parsed, 100u);
  EXPECT_GT(rejected, 100u);
}
