// SPDX-License-Identifier: Apache-2.0
#include "trace_scan.h"

#include <array>
#include <bit>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gpuvp::sm {

static_assert(std::endian::native == std::endian::little, "words are loaded with the line's first byte lowest");

namespace {

constexpr uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;

// 0x80 in each byte of v that is not a hex digit. Byte ranges are tested by adding to the low 7
// bits, which cannot carry into the next byte.
inline uint64_t non_hex_bytes(uint64_t v) {
  const uint64_t low7 = v & ~highs;
  const uint64_t digit = (low7 + 0x50 * ones) & ~(low7 + 0x46 * ones);     // 0x30..0x39
  const uint64_t lower = low7 | 0x20 * ones;                               // 'A'..'F' as 'a'..'f'
  const uint64_t letter = (lower + 0x1f * ones) & ~(lower + 0x19 * ones);  // 0x61..0x66
  return ((~(digit | letter)) | v) & highs;
}

// Eight hex digits, the first in the lowest byte (as loaded), as a 32-bit number: each byte's
// value, then pairs, quads and the eight merged by multiplying (no carry crosses a lane).
inline uint64_t hex8_value(uint64_t v) {
  v = (v & 0x0f * ones) + ((v >> 6) & ones) * 9;
  v = ((v * 0x1001) >> 8) & 0x00ff00ff00ff00ffull;
  v = ((v * 0x01000001) >> 16) & 0x0000ffff0000ffffull;
  return (v * 0x0001000000000001ull) >> 32;
}

inline unsigned first_marked_byte(uint64_t marks) { return unsigned(__builtin_ctzll(marks)) >> 3; }

// Bit 0: a blank that ends a field (' ', '\t'); bit 1: skipped before a field (also '\r').
constexpr std::array<uint8_t, 256> blank_kinds = [] {
  std::array<uint8_t, 256> t{};
  t[' '] = t['\t'] = 3;
  t['\r'] = 2;
  return t;
}();

}  // namespace

hex_run leading_hex_portable(const char* p16) {
  uint64_t head, tail;
  std::memcpy(&head, p16, 8);
  std::memcpy(&tail, p16 + 8, 8);
  if (const uint64_t bad = non_hex_bytes(head)) {
    const unsigned n = first_marked_byte(bad);
    return {n ? hex8_value(head << (64 - 8 * n)) : 0, n};  // shifted in: leading zero digits
  }
  const uint64_t bad_tail = non_hex_bytes(tail);
  const unsigned m = bad_tail ? first_marked_byte(bad_tail) : 8;
  uint64_t v = hex8_value(head);
  if (m) v = v << (4 * m) | hex8_value(tail << (64 - 8 * m));
  return {v, 8 + m};
}

#if defined(__SSE2__)
// The 16 bytes at once: each byte's digit test and value, the run's length from the first failed
// test, then pairs of digits packed into bytes, most significant first (byte-swapped).
inline hex_run leading_hex_sse2(const char* p16) {
  const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p16));
  const __m128i lower = _mm_or_si128(c, _mm_set1_epi8(0x20));
  // x - lo + 0x80 as a signed byte is below -128 + count exactly when x is in [lo, lo + count)
  const __m128i digit = _mm_cmplt_epi8(_mm_sub_epi8(c, _mm_set1_epi8(char(0xb0))), _mm_set1_epi8(-128 + 10));
  const __m128i letter = _mm_cmplt_epi8(_mm_sub_epi8(lower, _mm_set1_epi8(char(0xe1))), _mm_set1_epi8(-128 + 6));
  const unsigned n = unsigned(__builtin_ctz(~unsigned(_mm_movemask_epi8(_mm_or_si128(digit, letter)))));
  if (n == 0) return {0, 0};
  // a digit's value is below its letter form's and the other way round (wrapping bytes)
  __m128i v = _mm_min_epu8(_mm_sub_epi8(c, _mm_set1_epi8('0')), _mm_sub_epi8(lower, _mm_set1_epi8('a' - 10)));
  v = _mm_and_si128(v, _mm_set1_epi8(0x0f));  // a non-digit's garbage stays in its own nibble
  v = _mm_and_si128(_mm_or_si128(_mm_slli_epi16(v, 4), _mm_srli_epi16(v, 8)), _mm_set1_epi16(0x00ff));
  const uint64_t pairs = uint64_t(_mm_cvtsi128_si64(_mm_packus_epi16(v, v)));
  return {__builtin_bswap64(pairs) >> (4 * (16 - n)), n};
}
hex_run leading_hex(const char* p16) { return leading_hex_sse2(p16); }
#define GPUVP_LEADING_HEX leading_hex_sse2
#else
hex_run leading_hex(const char* p16) { return leading_hex_portable(p16); }
#define GPUVP_LEADING_HEX leading_hex_portable
#endif

namespace {

// A position in a trimmed line's padded copy: every field ends at a blank or at `end`, where
// the padding's first zero byte is; the blanks after it are skipped (as cursor does; a trimmed
// line ends in a non-blank, so the skip needs no end check).
struct scanner {
  const char* p;
  const char* end;

  // "0x" or "0X" at p (p[1] is readable: the padding's zero follows the line).
  bool at_hex_prefix() const {
    uint16_t two;
    std::memcpy(&two, p, 2);
    return (two | 0x2000) == ('x' << 8 | '0');  // little-endian: p[0] the low byte
  }

  bool field_end() {
    if (!(blank_kinds[uint8_t(*p)] & 1)) return p == end;
    do ++p;
    while (blank_kinds[uint8_t(*p)]);
    return true;
  }

  // Up to 16 hex digits, after "0x" (cursor::number(16); "0x" with nothing after it is refused
  // either way).
  bool hex(uint64_t& v) {
    if (at_hex_prefix()) p += 2;
    const hex_run run = GPUVP_LEADING_HEX(p);
    v = run.value;
    p += run.digits;
    return run.digits && field_end();
  }

  // 1 to `most` decimal digits (19 never pass 2^64 - 1), without the field's end.
  bool digits(uint64_t& v, long most) {
    const char* first = p;
    uint64_t x = 0;
    for (unsigned d; (d = unsigned(uint8_t(*p)) - '0') <= 9; ++p) x = x * 10 + d;
    v = x;
    return p != first && p - first <= most;
  }

  bool decimal(uint64_t& v) { return digits(v, 19) && field_end(); }

  // An optional '-' and up to 18 digits (within int64_t; cursor::signed_number).
  bool signed_decimal(int64_t& v) {
    const bool negative = *p == '-';
    p += negative;
    uint64_t x = 0;
    if (!digits(x, 18) || !field_end()) return false;
    v = negative ? -int64_t(x) : int64_t(x);
    return true;
  }

  // "R12" or "UR4" (uniform registers above the 256 general ones), at most 255.
  bool reg(uint16_t& r) {
    const unsigned prefix = p[0] == 'R' ? 1 : p[0] == 'U' && p[1] == 'R' ? 2 : 0;
    if (!prefix) return false;
    p += prefix;
    uint64_t v = 0;
    if (!decimal(v) || v > 255) return false;
    r = uint16_t((prefix - 1) * 256 + v);
    return true;
  }

  // A word up to a blank, and its first (up to) 8 bytes zero-extended.
  bool word(std::string_view& w, uint64_t& head) {
    const char* first = p;
    while (*p && !(blank_kinds[uint8_t(*p)] & 1)) ++p;
    const size_t n = size_t(p - first);
    std::memcpy(&head, first, 8);
    if (n < 8) head &= (uint64_t(1) << (8 * n)) - 1;
    w = std::string_view(first, n);
    return n && field_end();
  }

  // The instruction's trailing immediate: decimal, or hex after "0x", optionally negative.
  bool immediate() {
    p += *p == '-';
    uint64_t v = 0;
    return at_hex_prefix() ? hex(v) : decimal(v);
  }

  // The addresses after mem_width, as parse_addresses (trace.cpp) places them.
  bool addresses(uint32_t mask, uint64_t* a) {
    uint64_t format = 0;
    if (!decimal(format)) return false;
    if (format == 0) {
      for (unsigned t = 0; t < 32; ++t) {
        a[t] = 0;
        if ((mask >> t & 1) && !hex(a[t])) return false;
      }
      return true;
    }
    std::memset(a, 0, 32 * sizeof *a);
    uint64_t addr = 0;
    if (format == 1) {
      int64_t stride = 0;
      if (!hex(addr) || !signed_decimal(stride)) return false;
      base_stride_lanes(mask, addr, stride, a);
      return true;
    }
    if (format == 2) {
      if (!hex(addr)) return false;
      bool first = true;
      for (unsigned t = 0; t < 32; ++t) {
        if (!(mask >> t & 1)) continue;
        int64_t delta = 0;
        if (!first && !signed_decimal(delta)) return false;
        addr += uint64_t(delta);
        a[t] = addr;
        first = false;
      }
      return true;
    }
    return false;
  }
};

}  // namespace

bool instruction_scanner::scan(std::string_view line, scanned_inst& out) {
  if (padded_.size() < line.size() + 16) padded_.resize(line.size() + 16);
  char* copy = padded_.data();
  std::memcpy(copy, line.data(), line.size());
  std::memset(copy + line.size(), 0, 16);
  scanner s{copy, copy + line.size()};
  uint64_t v = 0;
  if (!s.hex(v)) return false;
  out.pc = uint32_t(v);  // as the full parser: the PC's low 32 bits
  if (!s.hex(v) || v > UINT32_MAX) return false;
  out.mask = uint32_t(v);
  if (!s.decimal(v) || v > 4) return false;
  out.ndst = uint8_t(v);
  for (unsigned d = 0; d < out.ndst; ++d)
    if (!s.reg(out.dst[d])) return false;
  if (!s.word(out.opcode, out.opcode_head)) return false;
  if (!s.decimal(v) || v > 4) return false;
  out.nsrc = uint8_t(v);
  for (unsigned i = 0; i < out.nsrc; ++i)
    if (!s.reg(out.src[i])) return false;
  if (!s.decimal(v)) return false;
  out.memory = v != 0;
  if (out.memory && !s.addresses(out.mask, out.addrs)) return false;
  if (s.p != s.end && !s.immediate()) return false;
  return s.p == s.end;
}

void base_stride_lanes(uint32_t mask, uint64_t base, int64_t stride, uint64_t* a) {
  bool started = false;
  for (unsigned t = 0; t < 32; ++t) {
    if (mask >> t & 1) {
      if (started) base += uint64_t(stride);
      a[t] = base;
      started = true;
    } else if (started) {
      break;
    }
  }
}

}  // namespace gpuvp::sm
