// SPDX-License-Identifier: Apache-2.0
// Pushbuffer formats, IB entries, RAMHT hash, assembler and listing. Expected values are worked
// out by hand from dma-pusher.rst / the reference tables (arithmetic in the comments).
#include <gtest/gtest.h>
#include "fifo_core.h"
#include "pb_text.h"
#include "pushbuf.h"

using namespace gpuvp::pfifo;

namespace {
command dec(uint32_t w, gen g = gen::g84, bool ib = false, bool sli = false) { return decode_header(w, {g, ib, sli}); }
}  // namespace

TEST(pfifo_PushbufNv4, IncreasingMethods) {
  // count 2 << 18 = 0x80000, subc 0, mthd 0x50 -> 0x00080050
  EXPECT_EQ(hdr_inc(0, 0x50, 2), 0x00080050u);
  auto c = dec(0x00080050);
  EXPECT_EQ(c.kind, cmd_kind::increasing);
  EXPECT_EQ(c.mthd, 0x50u);
  EXPECT_EQ(c.subc, 0u);
  EXPECT_EQ(c.count, 2u);
  // NV4 has increasing methods too.
  EXPECT_EQ(dec(0x00080050, gen::nv4).kind, cmd_kind::increasing);
  // count 0x7ff << 18 = 0x1ffc0000, subc 6 << 13 = 0xc000, mthd 0x1ffc -> 0x1ffcdffc
  c = dec(0x1ffcdffc);
  EXPECT_EQ(c.kind, cmd_kind::increasing);
  EXPECT_EQ(c.count, 0x7ffu);
  EXPECT_EQ(c.subc, 6u);
  // bits 17:16 set make it something else (here nothing valid on G84 in DMA mode)
  EXPECT_EQ(dec(0x1fffdffc).kind, cmd_kind::invalid);
  EXPECT_EQ(c.mthd, 0x1ffcu);
}

TEST(pfifo_PushbufNv4, NonIncreasingNeedsNv10) {
  // 0x40000000 | 1<<18 (0x40000) | 3<<13 (0x6000) | 0x104 = 0x40046104
  EXPECT_EQ(hdr_ninc(3, 0x104, 1), 0x40046104u);
  auto c = dec(0x40046104, gen::nv10);
  EXPECT_EQ(c.kind, cmd_kind::non_increasing);
  EXPECT_EQ(c.subc, 3u);
  EXPECT_EQ(c.mthd, 0x104u);
  EXPECT_EQ(c.count, 1u);
  EXPECT_EQ(dec(0x40046104, gen::nv4).kind, cmd_kind::invalid);
}

TEST(pfifo_PushbufNv4, LongNonIncreasingOnlyInIb) {
  // 0x00030000 | 1<<13 | 0x100 = 0x00032100
  EXPECT_EQ(hdr_long_ninc(1, 0x100), 0x00032100u);
  auto c = dec(0x00032100, gen::g84, true);
  EXPECT_EQ(c.kind, cmd_kind::long_non_increasing);
  EXPECT_EQ(c.subc, 1u);
  EXPECT_EQ(c.mthd, 0x100u);
  EXPECT_EQ(dec(0x00032100, gen::g84, false).kind, cmd_kind::invalid);
}

TEST(pfifo_PushbufNv4, ControlFlowOnlyInDmaMode) {
  EXPECT_EQ(dec(0x20001000).kind, cmd_kind::old_jump);
  EXPECT_EQ(dec(0x20001000).target, 0x1000u);
  EXPECT_EQ(dec(0x3ffffffc).target, 0x1ffffffcu);  // 29-bit target
  EXPECT_EQ(dec(0x20001000, gen::nv4).kind, cmd_kind::old_jump);
  EXPECT_EQ(dec(0x00001001).kind, cmd_kind::jump);
  EXPECT_EQ(dec(0x80001001).target, 0x80001000u);
  EXPECT_EQ(dec(0x00002002).kind, cmd_kind::call);
  EXPECT_EQ(dec(0x00002002).target, 0x2000u);
  EXPECT_EQ(dec(0x00020000).kind, cmd_kind::ret);
  // In IB mode all of them are INVALID_CMD.
  for (uint32_t w : {0x20001000u, 0x00001001u, 0x00002002u, 0x00020000u})
    EXPECT_EQ(dec(w, gen::g84, true).kind, cmd_kind::invalid) << std::hex << w;
  // jump / call / return need NV11: on NV10 they fall through to INVALID_CMD.
  for (uint32_t w : {0x00001001u, 0x00002002u, 0x00020000u}) EXPECT_EQ(dec(w, gen::nv10).kind, cmd_kind::invalid) << std::hex << w;
}

TEST(pfifo_PushbufNv4, SliConditionalOnlyIfEnabled) {
  // 0x00010050: mask = (0x50 >> 4) & 0xfff = 5
  auto c = dec(0x00010050, gen::nv40, false, true);
  EXPECT_EQ(c.kind, cmd_kind::sli_conditional);
  EXPECT_EQ(c.mask, 5u);
  EXPECT_EQ(dec(0x00010050, gen::nv40, false, false).kind, cmd_kind::invalid);
  EXPECT_EQ(hdr_sli(5), 0x00010050u);
}

TEST(pfifo_PushbufGf100, NewForms) {
  // increasing: 1<<29 | 3<<16 | 2<<13 | 0x1234>>2 = 0x20000000|0x30000|0x4000|0x48d
  EXPECT_EQ(hdr_gf_inc(2, 0x1234, 3), 0x2003448du);
  auto c = dec(0x2003448d, gen::gf100);
  EXPECT_EQ(c.kind, cmd_kind::gf_increasing);
  EXPECT_EQ(c.subc, 2u);
  EXPECT_EQ(c.mthd, 0x1234u);
  EXPECT_EQ(c.count, 3u);
  // NVC36F_PUSH_HDR_SEM_EXECUTE = (1<<29)|(1<<16)|(0x6c>>2) = 0x2001001b
  c = dec(0x2001001b, gen::gf100);
  EXPECT_EQ(c.mthd, 0x6cu);
  EXPECT_EQ(c.count, 1u);
  // non-increasing: 3<<29 = 0x60000000 | 1<<16 | 0 | 0x40 (0x100>>2) = 0x60010040
  c = dec(0x60010040, gen::gf100);
  EXPECT_EQ(c.kind, cmd_kind::gf_non_increasing);
  EXPECT_EQ(c.mthd, 0x100u);
  // inline: 4<<29 | 5<<16 | 7<<13 | 0x50>>2 = 0x80000000|0x50000|0xe000|0x14 = 0x8005e014
  EXPECT_EQ(hdr_gf_inline(7, 0x50, 5), 0x8005e014u);
  c = dec(0x8005e014, gen::gf100);
  EXPECT_EQ(c.kind, cmd_kind::gf_inline);
  EXPECT_EQ(c.subc, 7u);
  EXPECT_EQ(c.mthd, 0x50u);
  EXPECT_EQ(c.data, 5u);
  // increase-once: 5<<29 | 2<<16 | 0x40 = 0xa0020040
  c = dec(0xa0020040, gen::gf100);
  EXPECT_EQ(c.kind, cmd_kind::gf_increase_once);
  EXPECT_EQ(c.count, 2u);
  EXPECT_EQ(c.mthd, 0x100u);
  // bit 12 is unused: 0x2001101b is the same method 0x6c
  EXPECT_EQ(dec(0x2001101b, gen::gf100).mthd, 0x6cu);
  // 6 (???) and 7 (END_PB_SEGMENT) are INVALID_CMD here
  EXPECT_EQ(dec(0xc0000000, gen::gf100).kind, cmd_kind::invalid);
  EXPECT_EQ(dec(0xe0000000, gen::gf100).kind, cmd_kind::invalid);
}

TEST(pfifo_PushbufGf100, OldFormsAndSli) {
  // old increasing (secop 0, tert 0) keeps the NV4 layout; low two bits ignored
  auto c = dec(0x00080053, gen::gf100);
  EXPECT_EQ(c.kind, cmd_kind::increasing);
  EXPECT_EQ(c.mthd, 0x50u);
  EXPECT_EQ(c.count, 2u);
  // old non-increasing needs bits 17:16 = 0
  EXPECT_EQ(dec(0x40046104, gen::gf100).kind, cmd_kind::non_increasing);
  EXPECT_EQ(dec(0x40056104, gen::gf100).kind, cmd_kind::invalid);
  // SLI forms: tert 1 conditional (mask bits 15:4), 2 user-mask store, 3 conditional from user mask
  c = dec(0x00010050, gen::gf100);
  EXPECT_EQ(c.kind, cmd_kind::sli_conditional);
  EXPECT_EQ(c.mask, 5u);
  c = dec(0x00020ab0, gen::gf100);
  EXPECT_EQ(c.kind, cmd_kind::gf_sli_user_mask_store);
  EXPECT_EQ(c.mask, 0xabu);
  EXPECT_EQ(dec(0x00030000, gen::gf100).kind, cmd_kind::gf_sli_cond_user_mask);
}

TEST(pfifo_PushbufIb, EntryFields) {
  // w1 = 0xc42: bits 7:0 = 0x42 (address 39:32), bits 8,9 = 0, length = 0xc42 >> 10 = 3
  auto e = decode_ib(0x12345678, 0x00000c42);
  EXPECT_EQ(e.address, 0x4212345678ull);
  EXPECT_EQ(e.length, 3u);
  EXPECT_FALSE(e.nonmain);
  EXPECT_FALSE(e.priv);
  // 0x80000f00: bit 31 no-prefetch, bit 9 not-main, bit 8 priv, length (0xf00 >> 10) & 0x1fffff = 3
  e = decode_ib(0x1003, 0x80000f00);
  EXPECT_EQ(e.address, 0x1000ull);  // bits 1:0 are dropped
  EXPECT_TRUE(e.nonmain);
  EXPECT_TRUE(e.priv);
  EXPECT_TRUE(e.no_prefetch);
  EXPECT_EQ(e.length, 3u);
  uint32_t w0, w1;
  encode_ib({0x4212345678ull, 3, false, false, false}, w0, w1);
  EXPECT_EQ(w0, 0x12345678u);
  EXPECT_EQ(w1, 0x00000c42u);
}

TEST(pfifo_Ramht, HashVectorsFromReference) {
  // bits = log2(0x8000 / 8) = 12
  EXPECT_EQ(ramht_bits(0x8000), 12u);
  // 0xbeef0201: 0x201 ^ 0xef0 ^ 0x0be = 0xc4f
  EXPECT_EQ(ramht_hash(0xbeef0201, 12, 0), 0xc4fu);
  // chid 1: ^ 1 << 8 = 0xd4f
  EXPECT_EQ(ramht_hash(0xbeef0201, 12, 1), 0xd4fu);
  // 0xd8000001: 0x001 ^ 0x000 ^ 0xd8 = 0xd9
  EXPECT_EQ(ramht_hash(0xd8000001, 12, 0), 0xd9u);
  EXPECT_EQ(ramht_hash(1, 12, 0), 1u);
  // bits 9 (4 KiB RAMHT), chid 3: pieces 0x001, 0x181, 0x1bb, 0x017 -> 0x02c; ^ 3 << 5 = 0x04c
  EXPECT_EQ(ramht_bits(0x1000), 9u);
  EXPECT_EQ(ramht_hash(0xbeef0201, 9, 3), 0x04cu);
}

TEST(pfifo_Ramht, ContextWords) {
  // G80: engine << 20 | inst >> 4 (nouveau)
  EXPECT_EQ(ramht_context(gen::g84, 1, 0x123, 0), 0x00100123u);
  // NV4: valid bit 31 | chid << 24 | engine << 16 | addr
  EXPECT_EQ(ramht_context(gen::nv4, 1, 0x1234, 2), 0x82011234u);
  // NV40: chid << 23 | engine << 20 | addr
  EXPECT_EQ(ramht_context(gen::nv40, 1, 0x1234, 2), 0x01101234u);
}

TEST(pfifo_PullerTable, GenerationRanges) {
  EXPECT_TRUE(puller_knows_mthd(gen::nv3, 0x0));
  EXPECT_FALSE(puller_knows_mthd(gen::g84, 0x4));
  EXPECT_FALSE(puller_knows_mthd(gen::g84, 0x8));  // NOP is GF100+
  EXPECT_TRUE(puller_knows_mthd(gen::gf100, 0x8));
  EXPECT_FALSE(puller_knows_mthd(gen::g80, 0x10));  // new-style semaphores are G84+
  EXPECT_TRUE(puller_knows_mthd(gen::g84, 0x1c));
  EXPECT_FALSE(puller_knows_mthd(gen::gt215, 0x28));
  EXPECT_TRUE(puller_knows_mthd(gen::mcp89, 0x28));
  EXPECT_FALSE(puller_knows_mthd(gen::nv4, 0x50));  // REF_CNT is NV10+
  EXPECT_TRUE(puller_knows_mthd(gen::nv10, 0x50));
  EXPECT_FALSE(puller_knows_mthd(gen::nv10, 0x60));  // semaphores NV1A+ (envytools order NV10, NV1A, NV11)
  EXPECT_TRUE(puller_knows_mthd(gen::nv11, 0x60));
  EXPECT_TRUE(puller_knows_mthd(gen::nv1a, 0x60));
  EXPECT_TRUE(puller_knows_mthd(gen::g84, 0x60));
  EXPECT_FALSE(puller_knows_mthd(gen::gf100, 0x60));  // DMA_SEMAPHORE is NV1A:GF100
  EXPECT_TRUE(puller_knows_mthd(gen::gf100, 0x64));
  EXPECT_TRUE(puller_knows_mthd(gen::gf100, 0x70));
  EXPECT_FALSE(puller_knows_mthd(gen::g84, 0x70));
  EXPECT_FALSE(puller_knows_mthd(gen::nv25, 0x80));  // YIELD is NV40+
  EXPECT_TRUE(puller_knows_mthd(gen::nv40, 0x80));
  EXPECT_TRUE(puller_knows_mthd(gen::g84, 0x1ffc));
  EXPECT_FALSE(puller_knows_mthd(gen::g84, 0x2000));
  EXPECT_TRUE(puller_knows_mthd(gen::gf100, 0x3ffc));
  EXPECT_STREQ(puller_mthd_name(gen::g84, 0x68), "SEMAPHORE_ACQUIRE");
}

TEST(pfifo_Assembler, EveryCommand) {
  auto w = assemble(
      "inc 0 OBJECT 0xbeef0201   # bind\n"
      "ninc 1 0x104 1 2\n"
      "lninc 2 0x100 7\n"
      "jump 0x1000\noldjump 0x2000\ncall 0x3000\nret\nsli 5\nword 0xdeadbeef 1\nnop\n",
      gen::g84, "t");
  std::vector<uint32_t> expect = {0x00040000, 0xbeef0201,     // 1 << 18
                                  0x40082104, 1,          2,  // 0x40000000|2<<18|1<<13|0x104
                                  0x00034100, 1,          7,  // 0x30000|2<<13|0x100, count
                                  0x00001001, 0x20002000, 0x00003002, 0x00020000, 0x00010050, 0xdeadbeef, 1, 0};
  EXPECT_EQ(w, expect);
  auto g = assemble("gf.inc 1 0x100 5 6\ngf.ninc 0 0x104 9\ngf.inline 7 REF_CNT 5\ngf.once 0 0x100 1 2\n", gen::gf100, "t");
  // gf.inc: 1<<29|2<<16|1<<13|0x40 = 0x20022040; gf.ninc: 3<<29|1<<16|0x41 = 0x60010041
  std::vector<uint32_t> expect_gf = {0x20022040, 5, 6, 0x60010041, 9, 0x8005e014, 0xa0020040, 1, 2};
  EXPECT_EQ(g, expect_gf);
}

TEST(pfifo_Assembler, ErrorsNameTheLine) {
  auto fails = [](const std::string& text, gen g, const std::string& what) {
    try {
      assemble(text, g, "f.txt");
      ADD_FAILURE() << "no error for " << text;
    } catch (const asm_error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  fails("\ninc 9 0x100 1", gen::g84, "f.txt:2: subchannel 9");
  fails("inc 0 0x101 1", gen::g84, "not a multiple of 4");
  fails("inc 0 0x2000 1", gen::g84, "outside the method space");
  fails("gf.inline 0 0x100 0x2000", gen::gf100, "13 bits");
  fails("gf.inc 0 0x100 1", gen::g84, "GF100 format");
  fails("frobnicate", gen::g84, "unknown command");
  fails("inc 0 0x100 zz", gen::g84, "'zz' is not a valid data word");
  fails("jump 0x1002", gen::g84, "aligned");
}

TEST(pfifo_Listing, NamesKindsAndErrors) {
  auto w = assemble("inc 0 REF_CNT 7\nninc 1 0x184 0xbeef\njump 0x100\n", gen::g84, "t");
  unsigned errs = 9;
  std::string s = decode_listing(w, {gen::g84, false, false, 0x1000}, &errs);
  EXPECT_EQ(errs, 0u);
  EXPECT_NE(s.find("0x0000001000  0x00040050  INC  subc 0 mthd 0x0050 REF_CNT count 1"), std::string::npos) << s;
  EXPECT_NE(s.find("0x0000001004  0x00000007    [0] 0x0050 REF_CNT"), std::string::npos) << s;
  EXPECT_NE(s.find("NINC  subc 1 mthd 0x0184 M2MF.DMA_BUFFER_IN count 1"), std::string::npos) << s;
  EXPECT_NE(s.find("JUMP 0x00000100"), std::string::npos) << s;
  // Malformed: invalid command, unknown low method, truncated command.
  std::vector<uint32_t> bad = {0xc0000000, hdr_inc(0, 0x4, 1), 0, hdr_inc(0, 0x100, 3), 1};
  s = decode_listing(bad, {gen::g84, false, false, 0}, &errs);
  EXPECT_EQ(errs, 3u) << s;
  EXPECT_NE(s.find("ERROR: INVALID_CMD"), std::string::npos);
  EXPECT_NE(s.find("ERROR: INVALID_MTHD"), std::string::npos);
  EXPECT_NE(s.find("2 data word(s) missing"), std::string::npos);
}
