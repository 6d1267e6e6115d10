// SPDX-License-Identifier: Apache-2.0
// Pushbuffer command formats (envytools dma-pusher.rst, reference §1): the NV4 format used by all
// pre-GF100 GPUs, the GF100 format, IB (GPFIFO) entries, GPU generations and the puller's
// method table (envytools puller.rst). Pure C++: used by the pusher, pb-asm and pb-decode.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpuvp::pfifo {

// GPU generations in envytools' order, so that `g >= gen::nv1a` reads like puller.rst's ranges. It is
// not the chipset number: envytools orders the NV10 family NV10, NV15, NV1A, NV11, NV17, ..., so
// `NV1A-` includes NV11 and `NV11:GF100` excludes NV1A. The values are ranks, never chipset ids.
enum class gen : uint32_t { nv1 = 1, nv3, nv4, nv10, nv1a, nv11, nv25, nv40, g80, g84, gt215, mcp89, gf100 };
inline bool operator<(gen a, gen b) { return uint32_t(a) < uint32_t(b); }
inline bool operator>=(gen a, gen b) { return uint32_t(a) >= uint32_t(b); }
// "NV4", "g84", "GF100"...; nullopt if unknown.
std::optional<gen> parse_gen(const std::string& name);
std::string gen_name(gen g);

// Kinds of pushbuffer commands (first word of a command).
enum class cmd_kind : uint8_t {
  increasing,              // NV4+ 000CCCCCCCCCCC00SSSMMMMMMMMMMM00 (and GF100 "old" form)
  non_increasing,          // NV10+ 010CCCCCCCCCCC00SSSMMMMMMMMMMM00 (and GF100 "old" form)
  long_non_increasing,     // IB only: count in the next word & 0xffffff
  sli_conditional,         // NV40+ if sli_enable (GF100: secop 0, tert 1)
  ret,                     // 0x00020000, NV11+, DMA mode only
  old_jump,                // 001J..J00, DMA mode only
  jump,                    // J..J01, NV11+, DMA mode only
  call,                    // J..J10, NV11+, DMA mode only
  gf_increasing,           // GF100 secop 1
  gf_non_increasing,       // GF100 secop 3
  gf_inline,               // GF100 secop 4: 13-bit immediate data
  gf_increase_once,        // GF100 secop 5
  gf_sli_user_mask_store,  // GF100 secop 0, tert 2
  gf_sli_cond_user_mask,   // GF100 secop 0, tert 3
  invalid,                 // INVALID_CMD
};
const char* cmd_kind_name(cmd_kind k);

struct command {
  cmd_kind kind = cmd_kind::invalid;
  uint32_t subc = 0;
  uint32_t mthd = 0;    // byte address of the first method
  uint32_t count = 0;   // data words that follow (long NI: from the next word)
  uint64_t target = 0;  // jump / call target
  uint32_t data = 0;    // inline data
  uint32_t mask = 0;    // SLI mask
};

struct decode_mode {
  gen g = gen::g80;
  bool ib = false;          // IB mode (jump/call/return invalid, long NI valid)
  bool sli_enable = false;  // SLI conditional exists
};
bool uses_gf100_format(gen g);
// Decodes the first word of a command exactly in the pseudocode's match order.
command decode_header(uint32_t word, const decode_mode& m);

// IB entry (8 bytes, two little-endian words).
struct ib_entry {
  uint64_t address = 0;      // bits 2-39
  uint32_t length = 0;       // dwords (word1 bits 10-30)
  bool nonmain = false;      // word1 bit 9
  bool priv = false;         // word1 bit 8 (cl506f PRIV; envytools "???")
  bool no_prefetch = false;  // word1 bit 31
};
ib_entry decode_ib(uint32_t w0, uint32_t w1);
void encode_ib(const ib_entry& e, uint32_t& w0, uint32_t& w1);

// Header encoders (pb-asm, tests, workloads). mthd is a byte address.
uint32_t hdr_inc(uint32_t subc, uint32_t mthd, uint32_t count);
uint32_t hdr_ninc(uint32_t subc, uint32_t mthd, uint32_t count);
uint32_t hdr_long_ninc(uint32_t subc, uint32_t mthd);  // followed by the count word
uint32_t hdr_gf_inc(uint32_t subc, uint32_t mthd, uint32_t count);
uint32_t hdr_gf_ninc(uint32_t subc, uint32_t mthd, uint32_t count);
uint32_t hdr_gf_inline(uint32_t subc, uint32_t mthd, uint32_t data);
uint32_t hdr_gf_incr_once(uint32_t subc, uint32_t mthd, uint32_t count);
uint32_t hdr_sli(uint32_t mask);

// The puller's special methods (puller.rst's table): does method `mthd` (byte address < 0x100) exist on g?
bool puller_knows_mthd(gen g, uint32_t mthd);
// Name of a puller method ("SEMAPHORE_ACQUIRE"), or "" if none.
const char* puller_mthd_name(gen g, uint32_t mthd);
// Highest method byte address + 4 that can be submitted (0x2000 pre-GF100, 0x4000 GF100).
uint32_t method_space(gen g);
// Name of an NV50 M2MF (class 0x5039) method, or "".
const char* m2mf_mthd_name(uint32_t mthd);

}  // namespace gpuvp::pfifo
