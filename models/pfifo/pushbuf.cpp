// SPDX-License-Identifier: Apache-2.0
#include "pushbuf.h"

#include <algorithm>
#include <cctype>

namespace gpuvp::pfifo {

namespace {
struct gen_entry {
  const char* name;
  gen g;
};
constexpr gen_entry gens[] = {
    {"NV1", gen::nv1},     {"NV3", gen::nv3},     {"NV4", gen::nv4},     {"NV10", gen::nv10}, {"NV1A", gen::nv1a},
    {"NV11", gen::nv11},   {"NV25", gen::nv25},   {"NV40", gen::nv40},   {"G80", gen::g80},   {"G84", gen::g84},
    {"GT215", gen::gt215}, {"MCP89", gen::mcp89}, {"GF100", gen::gf100},
};
}  // namespace

std::optional<gen> parse_gen(const std::string& name) {
  std::string up = name;
  std::transform(up.begin(), up.end(), up.begin(), [](unsigned char c) { return char(std::toupper(c)); });
  if (up == "NV50") up = "G80";
  if (up == "NVC0") up = "GF100";
  if (up == "NV04") up = "NV4";
  if (up == "NV03") up = "NV3";
  if (up == "NV01") up = "NV1";
  for (const auto& e : gens)
    if (up == e.name) return e.g;
  return std::nullopt;
}

std::string gen_name(gen g) {
  for (const auto& e : gens)
    if (e.g == g) return e.name;
  return "?";
}

const char* cmd_kind_name(cmd_kind k) {
  switch (k) {
    case cmd_kind::increasing:
      return "INC";
    case cmd_kind::non_increasing:
      return "NINC";
    case cmd_kind::long_non_increasing:
      return "LONG_NINC";
    case cmd_kind::sli_conditional:
      return "SLI_COND";
    case cmd_kind::ret:
      return "RETURN";
    case cmd_kind::old_jump:
      return "OLD_JUMP";
    case cmd_kind::jump:
      return "JUMP";
    case cmd_kind::call:
      return "CALL";
    case cmd_kind::gf_increasing:
      return "GF_INC";
    case cmd_kind::gf_non_increasing:
      return "GF_NINC";
    case cmd_kind::gf_inline:
      return "GF_INLINE";
    case cmd_kind::gf_increase_once:
      return "GF_INCR_ONCE";
    case cmd_kind::gf_sli_user_mask_store:
      return "GF_SLI_MASK_STORE";
    case cmd_kind::gf_sli_cond_user_mask:
      return "GF_SLI_COND_USER";
    case cmd_kind::invalid:
      return "INVALID";
  }
  return "?";
}

bool uses_gf100_format(gen g) { return g >= gen::gf100; }

static command methods(cmd_kind k, uint32_t w) {
  command c;
  c.kind = k;
  c.mthd = ((w >> 2) & 0x7ff) << 2;
  c.subc = (w >> 13) & 7;
  c.count = (w >> 18) & 0x7ff;
  return c;
}

static command gf_methods(cmd_kind k, uint32_t w) {
  command c;
  c.kind = k;
  c.mthd = (w & 0xfff) << 2;  // bit 12 unused
  c.subc = (w >> 13) & 7;
  c.count = (w >> 16) & 0x1fff;
  if (k == cmd_kind::gf_inline) {
    c.data = c.count;
    c.count = 0;
  }
  return c;
}

command decode_header(uint32_t w, const decode_mode& m) {
  command c;
  if (uses_gf100_format(m.g)) {
    switch (w >> 29) {
      case 0:
        switch ((w >> 16) & 3) {
          case 0:
            return methods(cmd_kind::increasing, w);
          case 1:
            c.kind = cmd_kind::sli_conditional;
            c.mask = (w >> 4) & 0xfff;
            return c;
          case 2:
            c.kind = cmd_kind::gf_sli_user_mask_store;
            c.mask = (w >> 4) & 0xfff;
            return c;
          default:
            c.kind = cmd_kind::gf_sli_cond_user_mask;
            return c;
        }
      case 1:
        return gf_methods(cmd_kind::gf_increasing, w);
      case 2:
        if ((w >> 16) & 3) return c;  // tert bits must be 0 in the old non-increasing form
        return methods(cmd_kind::non_increasing, w);
      case 3:
        return gf_methods(cmd_kind::gf_non_increasing, w);
      case 4:
        return gf_methods(cmd_kind::gf_inline, w);
      case 5:
        return gf_methods(cmd_kind::gf_increase_once, w);
      default:
        return c;  // 6: ???, 7: END_PB_SEGMENT (Volta+): INVALID_CMD here
    }
  }
  // Pre-GF100: the pseudocode's match order.
  const bool dma = !m.ib;
  if ((w & 0xe0000003) == 0x20000000 && dma) {
    c.kind = cmd_kind::old_jump;
    c.target = w & 0x1fffffff;
  } else if ((w & 3) == 1 && dma && m.g >= gen::nv1a) {
    c.kind = cmd_kind::jump;
    c.target = w & 0xfffffffc;
  } else if ((w & 3) == 2 && dma && m.g >= gen::nv1a) {
    c.kind = cmd_kind::call;
    c.target = w & 0xfffffffc;
  } else if (w == 0x00020000 && dma && m.g >= gen::nv1a) {
    c.kind = cmd_kind::ret;
  } else if ((w & 0xe0030003) == 0) {
    c = methods(cmd_kind::increasing, w);
  } else if ((w & 0xe0030003) == 0x40000000 && m.g >= gen::nv10) {
    c = methods(cmd_kind::non_increasing, w);
  } else if ((w & 0xffff0003) == 0x00030000 && m.ib) {
    c = methods(cmd_kind::long_non_increasing, w);
    c.count = 0;
  } else if ((w & 0xffff0003) == 0x00010000 && m.sli_enable) {
    c.kind = cmd_kind::sli_conditional;
    c.mask = (w >> 4) & 0xfff;
  }
  return c;
}

ib_entry decode_ib(uint32_t w0, uint32_t w1) {
  ib_entry e;
  e.address = (uint64_t(w1 & 0xff) << 32) | (w0 & 0xfffffffc);
  e.priv = (w1 >> 8) & 1;
  e.nonmain = (w1 >> 9) & 1;
  e.length = (w1 >> 10) & 0x1fffff;
  e.no_prefetch = (w1 >> 31) & 1;
  return e;
}

void encode_ib(const ib_entry& e, uint32_t& w0, uint32_t& w1) {
  w0 = uint32_t(e.address) & 0xfffffffc;
  w1 = uint32_t(e.address >> 32) & 0xff;
  w1 |= uint32_t(e.priv) << 8 | uint32_t(e.nonmain) << 9 | (e.length & 0x1fffff) << 10 | uint32_t(e.no_prefetch) << 31;
}

uint32_t hdr_inc(uint32_t subc, uint32_t mthd, uint32_t count) { return (count & 0x7ff) << 18 | (subc & 7) << 13 | (mthd & 0x1ffc); }
uint32_t hdr_ninc(uint32_t subc, uint32_t mthd, uint32_t count) { return 0x40000000 | hdr_inc(subc, mthd, count); }
uint32_t hdr_long_ninc(uint32_t subc, uint32_t mthd) { return 0x00030000 | (subc & 7) << 13 | (mthd & 0x1ffc); }
static uint32_t gf_hdr(uint32_t secop, uint32_t subc, uint32_t mthd, uint32_t count) {
  return secop << 29 | (count & 0x1fff) << 16 | (subc & 7) << 13 | ((mthd >> 2) & 0xfff);
}
uint32_t hdr_gf_inc(uint32_t subc, uint32_t mthd, uint32_t count) { return gf_hdr(1, subc, mthd, count); }
uint32_t hdr_gf_ninc(uint32_t subc, uint32_t mthd, uint32_t count) { return gf_hdr(3, subc, mthd, count); }
uint32_t hdr_gf_inline(uint32_t subc, uint32_t mthd, uint32_t data) { return gf_hdr(4, subc, mthd, data); }
uint32_t hdr_gf_incr_once(uint32_t subc, uint32_t mthd, uint32_t count) { return gf_hdr(5, subc, mthd, count); }
uint32_t hdr_sli(uint32_t mask) { return 0x00010000 | (mask & 0xfff) << 4; }

namespace {
struct mthd_entry {
  uint32_t mthd;
  gen from, to;
  const char* name;
};
// puller.rst's table; `to` is exclusive (gen(0xff) = no end).
constexpr gen none_end = gen(0xff);
constexpr mthd_entry puller_methods[] = {
    {0x0000, gen::nv1, none_end, "OBJECT"},
    {0x0008, gen::gf100, none_end, "NOP"},
    {0x0010, gen::g84, none_end, "SEMAPHORE_ADDRESS_HIGH"},
    {0x0014, gen::g84, none_end, "SEMAPHORE_ADDRESS_LOW"},
    {0x0018, gen::g84, none_end, "SEMAPHORE_SEQUENCE"},
    {0x001c, gen::g84, none_end, "SEMAPHORE_TRIGGER"},
    {0x0020, gen::g84, none_end, "NOTIFY_INTR"},
    {0x0024, gen::g84, none_end, "WRCACHE_FLUSH"},
    {0x0028, gen::mcp89, none_end, "UNK28"},
    {0x002c, gen::mcp89, none_end, "UNK2C"},
    {0x0050, gen::nv10, none_end, "REF_CNT"},
    {0x0060, gen::nv1a, gen::gf100, "DMA_SEMAPHORE"},
    {0x0064, gen::nv1a, none_end, "SEMAPHORE_OFFSET"},
    {0x0068, gen::nv1a, none_end, "SEMAPHORE_ACQUIRE"},
    {0x006c, gen::nv1a, none_end, "SEMAPHORE_RELEASE"},
    {0x0070, gen::gf100, none_end, "UNK70"},
    {0x0074, gen::gf100, none_end, "UNK74"},
    {0x0078, gen::gf100, none_end, "UNK78"},
    {0x007c, gen::gf100, none_end, "UNK7C"},
    {0x0080, gen::nv40, none_end, "YIELD"},
};
const mthd_entry* find_puller(gen g, uint32_t mthd) {
  for (const auto& e : puller_methods)
    if (e.mthd == mthd && g >= e.from && g < e.to) return &e;
  return nullptr;
}
}  // namespace

bool puller_knows_mthd(gen g, uint32_t mthd) {
  if (mthd >= 0x100) return mthd < method_space(g);
  return find_puller(g, mthd) != nullptr;
}

const char* puller_mthd_name(gen g, uint32_t mthd) {
  const auto* e = find_puller(g, mthd);
  return e ? e->name : "";
}

uint32_t method_space(gen g) { return g >= gen::gf100 ? 0x4000 : 0x2000; }

const char* m2mf_mthd_name(uint32_t mthd) {
  switch (mthd) {
    case 0x100:
      return "M2MF.NOP";
    case 0x104:
      return "M2MF.NOTIFY";
    case 0x180:
      return "M2MF.DMA_NOTIFY";
    case 0x184:
      return "M2MF.DMA_BUFFER_IN";
    case 0x188:
      return "M2MF.DMA_BUFFER_OUT";
    case 0x238:
      return "M2MF.OFFSET_IN_HIGH";
    case 0x23c:
      return "M2MF.OFFSET_OUT_HIGH";
    case 0x30c:
      return "M2MF.OFFSET_IN";
    case 0x310:
      return "M2MF.OFFSET_OUT";
    case 0x314:
      return "M2MF.PITCH_IN";
    case 0x318:
      return "M2MF.PITCH_OUT";
    case 0x31c:
      return "M2MF.LINE_LENGTH_IN";
    case 0x320:
      return "M2MF.LINE_COUNT";
    case 0x324:
      return "M2MF.FORMAT";
    case 0x328:
      return "M2MF.BUFFER_NOTIFY";
    default:
      return "";
  }
}

}  // namespace gpuvp::pfifo
