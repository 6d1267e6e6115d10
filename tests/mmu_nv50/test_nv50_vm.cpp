// SPDX-License-Identifier: Apache-2.0
// The pure NV50 VM translation core, with expected values worked out by hand from nv50-vm.rst.
#include <gtest/gtest.h>
#include "fake_vm_memory.h"
#include "nv50_tlb.h"
#include "nv50_vm.h"

using namespace gpuvp::mmu_nv50;
using gpuvp::mmu_nv50::testing::fake_memory;

namespace {

constexpr auto V = target::vram;
constexpr auto S = target::sysram_snoop;
constexpr auto N = target::sysram_nosnoop;

// --- field decoders ---------------------------------------------------------------------------

TEST(mmu_nv50_decode, DmaObjectEveryField) {
  // w0 = 0x3d | 2<<16 | 1<<18 | 2<<20 | 0x55<<22 | 2<<29 | 1<<31
  //    = 0x3d + 0x20000 + 0x40000 + 0x200000 + 0x15400000 + 0x40000000 + 0x80000000 = 0xd566003d
  // w3 = limit hi 0x7f (bits 24-31), base hi 0xa5 (bits 0-7); w4 junk in 12-15 and 28-31;
  // w5 = comp base 0xbeef, bits 16-17 = 2, bits 18-19 = 2, junk above.
  const uint32_t w[6] = {0xd566003d, 0x89abcdef, 0x01234567, 0x7f0000a5, 0xfabcf123, 0xfffabeef};
  const dmaobj d = decode_dmaobj(w, generation::g84);
  EXPECT_EQ(d.cls, 0x3d);
  EXPECT_EQ(d.target, 2);
  EXPECT_EQ(d.ro, 1);
  EXPECT_EQ(d.super, 2);
  EXPECT_EQ(d.storage, 0x55);
  EXPECT_EQ(d.comp, 2);
  EXPECT_TRUE(d.super_object);
  EXPECT_EQ(d.limit, 0x7f89abcdefull);
  EXPECT_EQ(d.base, 0xa501234567ull);
  EXPECT_EQ(d.base_tag, 0x123);
  EXPECT_EQ(d.limit_tag, 0xabc);
  EXPECT_EQ(d.comp_base, 0xbeef0000u);
  EXPECT_EQ(d.pcycle, 2);
  EXPECT_EQ(d.enc, 2);
  EXPECT_FALSE(d.paged());
  // The encryption field is G84+: the original NV50 ignores word 5 bits 18-19.
  EXPECT_EQ(decode_dmaobj(w, generation::nv50).enc, 0);
  const uint32_t paged[6] = {0x0000003d, 0, 0, 0, 0, 0};
  EXPECT_TRUE(decode_dmaobj(paged, generation::g84).paged());
}

TEST(mmu_nv50_decode, PdeEveryField) {
  // w0 = 0x12345000 | 3 (small) | 2<<2 (SYSRAM_SNOOP) | 1<<4 | 1<<5 (0x8000 entries) = 0x1234503b
  const pde p = decode_pde(0x000000ab1234503bull);
  EXPECT_EQ(p.size, 3);
  EXPECT_EQ(p.target, 2);
  EXPECT_TRUE(p.bit4);
  EXPECT_EQ(p.pt_size, 1);
  EXPECT_EQ(p.address, 0xab12345000ull);
  EXPECT_EQ(p.page_shift(), 12u);
  EXPECT_EQ(p.entries(), 0x8000u);
  // Small-page table sizes: code 0..3 = 0x20000, 0x8000, 0x4000, 0x2000 entries.
  const uint32_t small[4] = {0x20000, 0x8000, 0x4000, 0x2000};
  for (uint64_t code = 0; code < 4; ++code) EXPECT_EQ(decode_pde(3 | code << 5).entries(), small[code]);
  // Large pages: 0x20000000 / 0x10000 = 0x2000 entries; medium: / 0x4000 = 0x8000. The size
  // field (bits 5-6) only applies to small pages.
  EXPECT_EQ(decode_pde(1 | 3 << 5).entries(), 0x2000u);
  EXPECT_EQ(decode_pde(1).page_shift(), 16u);
  EXPECT_EQ(decode_pde(2 | 3 << 5).entries(), 0x8000u);
  EXPECT_EQ(decode_pde(2).page_shift(), 14u);
  EXPECT_EQ(decode_pde(0).size, 0);
}

TEST(mmu_nv50_decode, PteEveryFieldEveryPageSize) {
  // w0 = 0xfedcb000 | 0xc00 (ignored bits 10-11) | 5<<7 | 1<<6 | 3<<4 | 1<<3 | 3<<1 | 1 = 0xfedcbeff
  // w1 = 0x12 | 0x5a<<8 | 2<<15 | 0xabc<<17 | 1<<29 | 1<<30 | 1<<31 (junk) = 0xf5795a12
  const uint64_t raw = 0xf5795a12fedcbeffull;
  const pte s = decode_pte(raw, 12, generation::g84);
  EXPECT_TRUE(s.present);
  EXPECT_EQ(s.bits12, 3);
  EXPECT_TRUE(s.ro);
  EXPECT_EQ(s.target, 3);
  EXPECT_TRUE(s.super);
  EXPECT_EQ(s.order, 5);
  EXPECT_EQ(s.address, 0x12fedcb000ull);  // bits 12-31 + 32-39
  EXPECT_EQ(s.storage, 0x5a);
  EXPECT_EQ(s.comp, 2);
  EXPECT_EQ(s.tag, 0xabc);
  EXPECT_EQ(s.pcycle, 1);
  EXPECT_TRUE(s.enc);
  EXPECT_EQ(decode_pte(raw, 14, generation::gt215).address, 0x12fedc8000ull);  // 0xb000 & 0xc000
  EXPECT_EQ(decode_pte(raw, 16, generation::g84).address, 0x12fedc0000ull);
  EXPECT_FALSE(decode_pte(raw, 12, generation::nv50).enc);  // bit 62 is G84+
  EXPECT_FALSE(decode_pte(raw & ~1ull, 12, generation::g84).present);
}

TEST(mmu_nv50_decode, NamesAndGenerations) {
  EXPECT_EQ(parse_generation("g86"), generation::g84);
  EXPECT_EQ(parse_generation("NV50"), generation::nv50);
  EXPECT_EQ(parse_generation("GT218"), generation::gt215);
  EXPECT_EQ(parse_generation("MCP89"), generation::mcp89);
  EXPECT_FALSE(parse_generation("GF100"));
  EXPECT_STREQ(fault_name(fault::dmaobj_limit), "DMAOBJ_LIMIT");
  // Engine gates: PCOUNTER/PFIFO_BG G84+, PCOPY/PDAEMON GT215+, 7 = PME (NV50) or PVCOMP (MCP89).
  EXPECT_TRUE(engine_exists(generation::nv50, engine::pfifo));
  EXPECT_FALSE(engine_exists(generation::nv50, engine::pfifo_bg));
  EXPECT_TRUE(engine_exists(generation::g84, engine::pfifo_bg));
  EXPECT_FALSE(engine_exists(generation::g84, engine::pcopy));
  EXPECT_TRUE(engine_exists(generation::gt215, engine::pcopy));
  EXPECT_TRUE(engine_exists(generation::nv50, 7));
  EXPECT_FALSE(engine_exists(generation::g84, 7));
  EXPECT_TRUE(engine_exists(generation::mcp89, 7));
  EXPECT_FALSE(engine_exists(generation::mcp89, 2));
  EXPECT_FALSE(engine_exists(generation::mcp89, 0xf));
}

// --- whole translations ----------------------------------------------------------------------

// A G84 channel in VRAM at linear 0x100000: descriptor 0x100 (0x100000 >> 12, target 0).
// Page directory at 0x100000 + 0x200 (G84) or + 0x1400 (NV50).
class mmu_nv50_vm : public ::testing::Test {
 protected:
  static constexpr uint32_t chan = 0x100;
  fake_memory mem;
  options opt;

  mmu_nv50_vm() {
    // selector 1: unpaged VRAM, base 0x10000000, limit 0x20000000, all attributes default.
    mem.dmaobj(V, 0x100010, 0x0001003d, 0x20000000, 0x10000000, 0, 0, 0);
    // selector 2: paged, storage 0x7f / comp 3 / ro 0 / super 0 / pcycle 0 / enc 2 = all from
    // the page tables; w0 = 0x3d + 0x7f<<22 + 3<<29 = 0x7fc0003d; base 0, limit 0xffffffffff.
    mem.dmaobj(V, 0x100020, 0x7fc0003d, 0xffffffff, 0, 0xff000000, 0, 0x00080000);
    // PDE 0 (VA 0-0x1fffffff): small pages, table in VRAM at 0x200000, full size.
    mem.w64(V, 0x100200, 0x00200003);
    // PDE 1: large pages, table in SYSRAM_SNOOP at 0x123456000 (w0 = 0x23456000 | 1 | 2<<2).
    mem.w64(V, 0x100208, 0x0000000123456009ull);
    // PDE 2: medium pages, table in VRAM at 0x300000.
    mem.w64(V, 0x100210, 0x00300002);
    // PDE 3 (VA 0x60000000-0x7fffffff): small pages, size code 3 (0x2000 entries), at 0x400000.
    mem.w64(V, 0x100218, 0x00400063);
    // PDE 4: not present.
  }
  translation tr(uint32_t sel, uint64_t addr, bool write = false, bool user = false, uint32_t eng = engine::pgraph) {
    return translate(opt, vm_access{eng, client::dispatch, chan, sel, addr, write, user}, mem.fn());
  }
};

TEST_F(mmu_nv50_vm, UnpagedVramObject) {
  const auto t = tr(1, 0x1234);  // 0x10000000 + 0x1234
  ASSERT_TRUE(t.ok()) << fault_name(t.f);
  EXPECT_FALSE(t.paged);
  EXPECT_EQ(t.r.linear, 0x10001234u);
  EXPECT_EQ(t.r.tgt, V);
  EXPECT_FALSE(t.r.ro);
  EXPECT_FALSE(t.r.super);
  EXPECT_EQ(t.r.storage, 0);
  EXPECT_EQ(t.r.comp, comp_mode::none);
  EXPECT_EQ(t.r.pcycle, 0);
  EXPECT_FALSE(t.r.enc);
  EXPECT_TRUE(tr(1, 0x1234, true, true).ok());  // ro 0/super 0 on unpaged: read-write, user
}

TEST_F(mmu_nv50_vm, NullSelectorFaults) {
  EXPECT_EQ(tr(0, 0).f, fault::null_dmaobj);
  EXPECT_EQ(mem.reads, 0u);  // decided before reading anything
}

TEST_F(mmu_nv50_vm, LimitIsExclusiveAsTheSeedSays) {
  // base 0x10000000 + 0x0fffffff = 0x1fffffff < limit 0x20000000: fine; + 0x10000000 = limit: fault.
  EXPECT_TRUE(tr(1, 0x0fffffff).ok());
  EXPECT_EQ(tr(1, 0x10000000).f, fault::dmaobj_limit);
  EXPECT_EQ(tr(1, ~0ull).f, fault::dmaobj_limit);  // wrap-around is over the limit too
  // A 4-byte access: its last byte is checked too (0x0ffffffc + 3 = 0x0fffffff fits, + 4 not).
  auto sized = [&](uint64_t addr) {
    vm_access a{engine::pgraph, client::dispatch, chan, 1, addr, false, false, 4};
    return translate(opt, a, mem.fn()).f;
  };
  EXPECT_EQ(sized(0x0ffffffc), fault::none);
  EXPECT_EQ(sized(0x0ffffffd), fault::dmaobj_limit);
  opt.limit_inclusive = true;  // nouveau's reading: limit is the last valid byte
  EXPECT_TRUE(tr(1, 0x10000000).ok());
  EXPECT_EQ(tr(1, 0x10000001).f, fault::dmaobj_limit);
}

TEST_F(mmu_nv50_vm, SysramObjectAttributes) {
  // selector 3: w0 = 0x3d | 3<<16 | 1<<18 | 2<<20 | 0x7f<<22 | 3<<29 = 0x7fe7003d,
  // base 0x300000000 (w3 bits 0-7 = 3), limit 0x310000000 (w3 bits 24-31 = 3),
  // w5 = pcycle 2 (long) | enc 1 = 0x20000 + 0x40000 = 0x60000.
  mem.dmaobj(V, 0x100030, 0x7fe7003d, 0x10000000, 0, 0x03000003, 0, 0x00060000);
  const auto t = tr(3, 0x4567);
  ASSERT_TRUE(t.ok()) << fault_name(t.f);
  EXPECT_EQ(t.r.linear, 0x300004567ull);
  EXPECT_EQ(t.r.tgt, N);
  EXPECT_TRUE(t.r.ro);
  EXPECT_TRUE(t.r.super);
  EXPECT_EQ(t.r.storage, 0);             // 0x7f ("from page tables") on an unpaged object: 0
  EXPECT_EQ(t.r.comp, comp_mode::none);  // 3 on an unpaged object: none
  EXPECT_EQ(t.r.pcycle, 1);
  EXPECT_TRUE(t.r.enc);
  EXPECT_EQ(tr(3, 0x4567, true).f, fault::read_only);
  EXPECT_EQ(tr(3, 0x4567, false, true).f, fault::supervisor);
  EXPECT_EQ(tr(3, 0x4567, true, true).f, fault::supervisor);  // privilege is checked first
  opt.gen = generation::nv50;                                 // no encryption before G84
  EXPECT_FALSE(tr(3, 0x4567).r.enc);
}

TEST_F(mmu_nv50_vm, SupervisorDmaObjectRefusesUserAccess) {
  // selector 4: selector 1 with bit 31 (supervisor object) set.
  mem.dmaobj(V, 0x100040, 0x8001003d, 0x20000000, 0x10000000, 0, 0, 0);
  EXPECT_TRUE(tr(4, 0x10).ok());
  EXPECT_EQ(tr(4, 0x10, false, true).f, fault::supervisor);
  opt.user_super_dmaobj_faults = false;
  EXPECT_TRUE(tr(4, 0x10, false, true).ok());
}

TEST_F(mmu_nv50_vm, UnpagedCompressionTag) {
  // selector 5: VRAM, SINGLE (1<<29): w0 = 0x2001003d; base 0x10000000, limit 0x20000000;
  // tags base 0x10, limit 0x20 (w4 = 0x00200010); compression base 0x10000000 (w5 = 0x1000).
  mem.dmaobj(V, 0x100050, 0x2001003d, 0x20000000, 0x10000000, 0, 0x00200010, 0x1000);
  // 0x10053000 - 0x10000000 = 0x53000; >> 16 = 5; + 0x10 = 0x15 <= 0x20.
  auto t = tr(5, 0x53000);
  EXPECT_EQ(t.r.comp, comp_mode::single);
  EXPECT_EQ(t.r.tag, 0x15);
  // 0x10ffff >> 16 = 0x10, + 0x10 = 0x20 = limit tag: still fine (<=).
  t = tr(5, 0x10ffff);
  EXPECT_EQ(t.r.comp, comp_mode::single);
  EXPECT_EQ(t.r.tag, 0x20);
  // 0x110000 >> 16 = 0x11, + 0x10 = 0x21 > 0x20: forced to none.
  t = tr(5, 0x110000);
  EXPECT_EQ(t.r.comp, comp_mode::none);
  EXPECT_EQ(t.r.tag, 0);
  // Compression base 0x18000000 (w5 = 0x1800): 0x10053000 - 0x18000000 < 0: forced to none.
  mem.w32(V, 0x100050 + 20, 0x1800);
  t = tr(5, 0x53000);
  EXPECT_EQ(t.r.comp, comp_mode::none);
  EXPECT_EQ(t.r.tag, 0);
  // DOUBLE uses the same steps: one cell index per 0x10000 bytes from the base tag.
  mem.w32(V, 0x100050, 0x4001003d);  // comp 2
  mem.w32(V, 0x100050 + 20, 0x1000);
  t = tr(5, 0x53000);
  EXPECT_EQ(t.r.comp, comp_mode::dbl);
  EXPECT_EQ(t.r.tag, 0x15);
}

TEST_F(mmu_nv50_vm, SysramCompressionForcedToNone) {
  // selector 6: SYSRAM_SNOOP (2<<16) SINGLE: w0 = 0x2002003d.
  mem.dmaobj(V, 0x100060, 0x2002003d, 0x20000000, 0x10000000, 0, 0x00200010, 0x1000);
  EXPECT_EQ(tr(6, 0x53000).r.comp, comp_mode::none);
}

TEST_F(mmu_nv50_vm, SmallPageFromPageTables) {
  // VA 0x5678: PDE 0, index 5, PTE at 0x200000 + 5*8 = 0x200028.
  // w0 = 0xabcde001 (present, VRAM); w1 = storage 0x70<<8 | SINGLE 1<<15 | tag 0x123<<17 |
  // long 1<<29 | enc 1<<30 = 0x7000 + 0x8000 + 0x2460000 + 0x20000000 + 0x40000000 = 0x6246f000.
  mem.w64(V, 0x200028, 0x6246f000abcde001ull);
  const auto t = tr(2, 0x5678);
  ASSERT_TRUE(t.ok()) << fault_name(t.f);
  EXPECT_TRUE(t.paged);
  EXPECT_EQ(t.page_shift, 12u);
  EXPECT_EQ(t.r.linear, 0xabcde678u);
  EXPECT_EQ(t.r.tgt, V);
  EXPECT_FALSE(t.r.ro);
  EXPECT_FALSE(t.r.super);
  EXPECT_EQ(t.r.storage, 0x70);
  EXPECT_EQ(t.r.comp, comp_mode::single);
  EXPECT_EQ(t.r.tag, 0x123);
  EXPECT_EQ(t.r.pcycle, 1);
  EXPECT_TRUE(t.r.enc);
  EXPECT_EQ(mem.reads, 3u);  // DMA object, PDE, PTE
}

TEST_F(mmu_nv50_vm, DmaObjectOverridesPageTables) {
  mem.w64(V, 0x200028, 0x6246f000abcde001ull);
  // selector 7: paged, ro 1 (1<<18), super 2 (2<<20), storage 0x11 (0x4400000), DOUBLE (2<<29):
  // w0 = 0x3d + 0x40000 + 0x200000 + 0x4400000 + 0x40000000 = 0x4464003d; w5 = short (1<<16),
  // not encrypted (0).
  mem.dmaobj(V, 0x100070, 0x4464003d, 0xffffffff, 0, 0xff000000, 0, 0x00010000);
  const auto t = tr(7, 0x5678);
  ASSERT_TRUE(t.ok()) << fault_name(t.f);
  EXPECT_EQ(t.r.linear, 0xabcde678u);
  EXPECT_TRUE(t.r.ro);
  EXPECT_TRUE(t.r.super);
  EXPECT_EQ(t.r.storage, 0x11);
  EXPECT_EQ(t.r.comp, comp_mode::dbl);
  EXPECT_EQ(t.r.tag, 0x123);
  EXPECT_EQ(t.r.pcycle, 0);
  EXPECT_FALSE(t.r.enc);
  // PTE read-only + supervisor (bits 3, 6: w0 = 0xabcde049) and an object saying read-write (2)
  // user-supervisor (1): w0 = 0x3d + 2<<18 + 1<<20 + 0x7f<<22 + 3<<29 = 0x7fd8003d.
  mem.w64(V, 0x200028, 0x6246f000abcde049ull);
  EXPECT_EQ(tr(2, 0x5678, true).f, fault::read_only);
  EXPECT_EQ(tr(2, 0x5678, false, true).f, fault::supervisor);
  mem.dmaobj(V, 0x100070, 0x7fd8003d, 0xffffffff, 0, 0xff000000, 0, 0);
  EXPECT_TRUE(tr(7, 0x5678, true, true).ok());
}

TEST_F(mmu_nv50_vm, LargePageInSysramTable) {
  // VA 0x20034567: PDE 1 (>> 29 = 1), index (0x34567 >> 16) = 3, PTE at SYSRAM 0x123456000 + 0x18.
  // w0 = 0x8765a021: present, SYSRAM_SNOOP (2<<4), address bits 16-31 = 0x8765 (0xa000 ignored);
  // w1 = 0x05: address bits 32-39. Linear = 0x587650000 + 0x4567.
  mem.w64(S, 0x123456018, 0x000000058765a021ull);
  const auto t = tr(2, 0x20034567);
  ASSERT_TRUE(t.ok()) << fault_name(t.f);
  EXPECT_EQ(t.page_shift, 16u);
  EXPECT_EQ(t.r.linear, 0x587654567ull);
  EXPECT_EQ(t.r.tgt, S);
}

TEST_F(mmu_nv50_vm, MediumPagesAreGt215Only) {
  // VA 0x40009abc: PDE 2, index 0x9abc >> 14 = 2, PTE at 0x300010; w0 = 0x1111e001: address
  // bits 14-31 = 0x1111c000. Linear = 0x1111c000 + (0x9abc & 0x3fff = 0x1abc) = 0x1111dabc.
  mem.w64(V, 0x300010, 0x1111e001);
  EXPECT_EQ(tr(2, 0x40009abc).f, fault::page_size);
  opt.gen = generation::gt215;
  const auto t = tr(2, 0x40009abc);
  ASSERT_TRUE(t.ok()) << fault_name(t.f);
  EXPECT_EQ(t.page_shift, 14u);
  EXPECT_EQ(t.r.linear, 0x1111dabcu);
}

TEST_F(mmu_nv50_vm, PageFaults) {
  EXPECT_EQ(tr(2, 0x80000000).f, fault::pde_not_present);  // PDE 4
  EXPECT_EQ(tr(2, 0x6000).f, fault::pte_not_present);      // PDE 0, index 6: zero PTE
}

TEST_F(mmu_nv50_vm, SmallPageTableSizeLimits) {
  // PDE 3 covers 0x60000000-0x7fffffff with size code 3 = 0x2000 entries: index 0x1fff is in
  // the table (an empty PTE), index 0x2000 (VA 0x60000000 + 0x2000000) is beyond it.
  EXPECT_EQ(tr(2, 0x61fff000).f, fault::pte_not_present);
  EXPECT_EQ(tr(2, 0x62000000).f, fault::pt_limit);
  // The same PDE with every size code: last index limit-1 reads a PTE, index `limit` faults.
  const uint32_t limit[4] = {0x20000, 0x8000, 0x4000, 0x2000};
  for (uint64_t code = 1; code < 4; ++code) {
    mem.w64(V, 0x100218, 0x00400003 | code << 5);
    EXPECT_EQ(tr(2, 0x60000000 + uint64_t(limit[code] - 1) * 0x1000).f, fault::pte_not_present) << code;
    EXPECT_EQ(tr(2, 0x60000000 + uint64_t(limit[code]) * 0x1000).f, fault::pt_limit) << code;
  }
  mem.w64(V, 0x100218, 0x00400003);  // full: the last index 0x1ffff is in the table
  EXPECT_EQ(tr(2, 0x7ffff000).f, fault::pte_not_present);
}

TEST_F(mmu_nv50_vm, ContigBlocks) {
  // Small pages 0x10-0x13 (VA 0x10000-0x13fff) form an order-2 block: every PTE says
  // address 0x55555000, order 2 (2<<7 = 0x100), SINGLE (0x8000 in w1), tag 0x40 (0x800000).
  for (uint64_t i = 0x10; i < 0x14; ++i) mem.w64(V, 0x200000 + i * 8, 0x0080800055555101ull);
  // VA 0x12345: offset in block 0x12345 & 0x3fff = 0x2345 -> 0x55557345; tag 0x40 + 0x2345>>16.
  auto t = tr(2, 0x12345);
  ASSERT_TRUE(t.ok()) << fault_name(t.f);
  EXPECT_EQ(t.order, 2u);
  EXPECT_EQ(t.r.linear, 0x55557345u);
  EXPECT_EQ(t.r.tag, 0x40);
  // Large pages 8-15 of PDE 1 (VA 0x20080000-0x200fffff): order 3 (0x180), VRAM, address
  // 0x10000000, DOUBLE (2<<15 = 0x10000), tag 0x100 (0x2000000): w1 = 0x02010000.
  for (uint64_t i = 8; i < 16; ++i) mem.w64(S, 0x123456000 + i * 8, 0x0201000010000181ull);
  // VA 0x200b1234: block offset 0xb1234 & 0x7ffff = 0x31234 -> 0x10031234;
  // tag 0x100 + (0x31234 >> 16 = 3) * 2 cells = 0x106.
  t = tr(2, 0x200b1234);
  ASSERT_TRUE(t.ok()) << fault_name(t.f);
  EXPECT_EQ(t.r.linear, 0x10031234u);
  EXPECT_EQ(t.r.comp, comp_mode::dbl);
  EXPECT_EQ(t.r.tag, 0x106);
}

TEST_F(mmu_nv50_vm, Nv50ChannelLayout) {
  // On NV50 the page directory is at 0x1400: PDE 0 at 0x101400 points to a table at 0x500000.
  mem.w64(V, 0x101400, 0x00500003);
  mem.w64(V, 0x500028, 0x77777001);  // VA 0x5xxx on NV50 -> 0x77777xxx
  mem.w64(V, 0x200028, 0xabcde001);  // VA 0x5xxx on G84 -> 0xabcdexxx
  EXPECT_EQ(tr(2, 0x5678).r.linear, 0xabcde678u);
  opt.gen = generation::nv50;
  EXPECT_EQ(tr(2, 0x5678).r.linear, 0x77777678u);
  EXPECT_EQ(page_directory_offset(generation::nv50), 0x1400u);
  EXPECT_EQ(page_directory_offset(generation::g84), 0x200u);
}

TEST_F(mmu_nv50_vm, ChannelInSysramAndInvalidTargets) {
  // Descriptor 0x20000500: SYSRAM_SNOOP (2<<28), structure at 0x500000.
  mem.dmaobj(S, 0x500010, 0x0001003d, 0xabd000, 0xabc000, 0, 0, 0);
  auto t = translate(opt, vm_access{0, 3, 0x20000500, 1, 0x10, false, false}, mem.fn());
  ASSERT_TRUE(t.ok()) << fault_name(t.f);
  EXPECT_EQ(t.r.linear, 0xabc010u);
  t = translate(opt, vm_access{0, 3, 0x10000500, 1, 0x10, false, false}, mem.fn());  // target 1
  EXPECT_EQ(t.f, fault::invalid_target);
  mem.w64(V, 0x100200, 0x00200007);  // PDE with target 1
  EXPECT_EQ(tr(2, 0x5000).f, fault::invalid_target);
  mem.w64(V, 0x100200, 0x00200003);
  mem.w64(V, 0x200028, 0xabcde011);  // PTE with target 1
  EXPECT_EQ(tr(2, 0x5000).f, fault::invalid_target);
}

TEST_F(mmu_nv50_vm, ReservedBitsPolicies) {
  mem.w64(V, 0x100200, 0x00200013);  // PDE bit 4
  mem.w64(V, 0x200028, 0xabcde007);  // PTE bits 1-2
  EXPECT_TRUE(tr(2, 0x5000).ok());
  opt.pde_bit4 = reserved_policy::fault;
  EXPECT_EQ(tr(2, 0x5000).f, fault::reserved_bits);
  opt.pde_bit4 = reserved_policy::ignore;
  opt.pte_bits12 = reserved_policy::fault;
  EXPECT_EQ(tr(2, 0x5000).f, fault::reserved_bits);
}

TEST_F(mmu_nv50_vm, MemoryErrorsAndEngines) {
  mem.error_range = {0x200000, 0x200fff};
  EXPECT_EQ(tr(2, 0x5000).f, fault::mem_error);
  EXPECT_EQ(tr(1, 0x5000, false, false, 2).f, fault::invalid_engine);
  EXPECT_EQ(tr(1, 0x5000, false, false, engine::pcopy).f, fault::invalid_engine);
  opt.gen = generation::gt215;
  EXPECT_TRUE(tr(1, 0x5000, false, false, engine::pcopy).ok());
}

// --- the TLB ---------------------------------------------------------------------------------

pte page(uint64_t address, uint8_t order = 0) {
  pte p;
  p.present = true;
  p.address = address;
  p.order = order;
  return p;
}

TEST(mmu_nv50_tlb, ContigBlockIsOneEntry) {
  tlb t;
  t.configure(16, 4, tlb_policy::lru);
  t.insert(0x100, 0x10000, page(0x55555000, 2), 12);  // covers 0x10000-0x13fff
  EXPECT_EQ(t.valid_entries(), 1u);
  for (uint64_t va : {0x10000ull, 0x11fffull, 0x13fffull}) EXPECT_NE(t.lookup(0x100, va), nullptr) << va;
  EXPECT_EQ(t.lookup(0x100, 0x14000), nullptr);
  EXPECT_EQ(t.lookup(0x100, 0xf000), nullptr);
  EXPECT_EQ(t.lookup(0x200, 0x10000), nullptr);  // another channel
}

TEST(mmu_nv50_tlb, MixedGranularities) {
  tlb t;
  t.configure(64, 4, tlb_policy::lru);
  t.insert(0x100, 0x5000, page(0x1000), 12);
  t.insert(0x100, 0x20030000, page(0x40000), 16);
  t.insert(0x100, 0x20080000, page(0x80000, 3), 16);  // 8 large pages
  EXPECT_EQ(t.lookup(0x100, 0x5fff)->p.address, 0x1000u);
  EXPECT_EQ(t.lookup(0x100, 0x2003ffff)->p.address, 0x40000u);
  EXPECT_EQ(t.lookup(0x100, 0x200fffff)->p.address, 0x80000u);
  EXPECT_EQ(t.lookup(0x100, 0x6000), nullptr);
  t.flush();
  EXPECT_EQ(t.valid_entries(), 0u);
  EXPECT_EQ(t.lookup(0x100, 0x5fff), nullptr);
}

TEST(mmu_nv50_tlb, LruEvictionUnderCapacity) {
  // 4 entries, 4 ways: one set. Fill pages 0-3, touch 0, insert 4: LRU evicts page 1.
  tlb t;
  t.configure(4, 4, tlb_policy::lru);
  bool evicted = true;
  for (uint64_t i = 0; i < 4; ++i) {
    t.insert(1, i << 12, page(i << 12), 12, &evicted);
    EXPECT_FALSE(evicted);
  }
  EXPECT_NE(t.lookup(1, 0), nullptr);
  const tlb::entry* e = t.insert(1, 4 << 12, page(4 << 12), 12, &evicted);
  EXPECT_TRUE(evicted);
  EXPECT_EQ(e, t.lookup(1, 4 << 12));  // insert answers the new entry
  EXPECT_EQ(t.valid_entries(), 4u);
  EXPECT_NE(t.lookup(1, 0), nullptr);
  EXPECT_EQ(t.lookup(1, 1 << 12), nullptr);
  EXPECT_NE(t.lookup(1, 2 << 12), nullptr);
}

// The hint table in front of the set search may only name what the search would find: the
// search probes the smallest granularity first, so a 4 KiB entry inserted inside a 64 KiB page
// that a hint already names must win from then on.
TEST(mmu_nv50_tlb, HintsNeverShadowANewerSmallerEntry) {
  tlb t;
  t.configure(64, 4, tlb_policy::lru);
  t.insert(0x100, 0x20030000, page(0x40000), 16);
  EXPECT_EQ(t.lookup(0x100, 0x20031000)->p.address, 0x40000u);  // the large page (the hint now names it)
  EXPECT_EQ(t.lookup(0x100, 0x20031000)->p.address, 0x40000u);
  t.insert(0x100, 0x20031000, page(0x7000), 12);
  EXPECT_EQ(t.lookup(0x100, 0x20031000)->p.address, 0x7000u);   // the 4 KiB entry
  EXPECT_EQ(t.lookup(0x100, 0x20032000)->p.address, 0x40000u);  // the rest of the large page
  t.flush();
  EXPECT_EQ(t.lookup(0x100, 0x20031000), nullptr);
}

// An outside clock (the MMU's translation count) gives the same LRU victims as the TLB's own, as
// long as it advances between events: here it jumps by 10 each time.
TEST(mmu_nv50_tlb, OutsideClockGivesTheSameVictims) {
  tlb own, ext;
  uint64_t clock = 0;
  own.configure(4, 4, tlb_policy::lru);
  ext.configure(4, 4, tlb_policy::lru);
  ext.use_clock(&clock);
  // Pages 0-3, then touches 2, 0, 3: page 1 is the LRU, then page 2.
  const uint64_t order[] = {0, 1, 2, 3, 2, 0, 3};
  for (size_t i = 0; i < 7; ++i) {
    clock += 10;
    if (i < 4) {
      own.insert(1, order[i] << 12, page(order[i] << 12), 12);
      ext.insert(1, order[i] << 12, page(order[i] << 12), 12);
    } else {
      own.lookup(1, order[i] << 12);
      ext.lookup(1, order[i] << 12);
    }
  }
  for (uint64_t p = 4; p < 6; ++p) {
    clock += 10;
    own.insert(1, p << 12, page(p << 12), 12);
    ext.insert(1, p << 12, page(p << 12), 12);
  }
  for (uint64_t p = 0; p < 6; ++p) {
    const bool expected = p != 1 && p != 2;  // 1 then 2 were evicted
    EXPECT_EQ(own.lookup(1, p << 12) != nullptr, expected) << p;
    EXPECT_EQ(ext.lookup(1, p << 12) != nullptr, expected) << p;
  }
}

TEST(mmu_nv50_tlb, FifoEvictsOldestInsert) {
  tlb t;
  t.configure(4, 4, tlb_policy::fifo);
  for (uint64_t i = 0; i < 4; ++i) t.insert(1, i << 12, page(i << 12), 12);
  EXPECT_NE(t.lookup(1, 0), nullptr);  // a hit does not refresh FIFO order
  t.insert(1, 4 << 12, page(4 << 12), 12);
  EXPECT_EQ(t.lookup(1, 0), nullptr);
  EXPECT_NE(t.lookup(1, 1 << 12), nullptr);
}

TEST(mmu_nv50_tlb, RandomIsDeterministicAndGeometryChecked) {
  tlb a, b;
  a.configure(8, 8, tlb_policy::random, 42);
  b.configure(8, 8, tlb_policy::random, 42);
  for (uint64_t i = 0; i < 32; ++i) {
    a.insert(1, i << 12, page(0), 12);
    b.insert(1, i << 12, page(0), 12);
  }
  for (uint64_t i = 0; i < 32; ++i) EXPECT_EQ(a.lookup(1, i << 12) != nullptr, b.lookup(1, i << 12) != nullptr);
  EXPECT_EQ(a.valid_entries(), 8u);
  EXPECT_THROW(a.configure(12, 4, tlb_policy::lru), std::invalid_argument);
  EXPECT_THROW(a.configure(4, 8, tlb_policy::lru), std::invalid_argument);
  EXPECT_EQ(parse_tlb_policy("fifo"), tlb_policy::fifo);
  EXPECT_FALSE(parse_tlb_policy("plru"));
}

}  // namespace
