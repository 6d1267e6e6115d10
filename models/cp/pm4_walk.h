// SPDX-License-Identifier: Apache-2.0
// Nested PM4 listing of a command stream in GPU memory, as Mesa's cffdump walks it
// (docs/tools/pm4-decode.md): IB2s of CP_INDIRECT_BUFFER one level down, CP_SET_DRAW_STATE
// groups loaded at the next draw (or at once for LOAD_IMMED) two levels down, CP_COND_* bodies in
// place. No SystemC.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gpuvp::cp {

// GPU memory as the walker sees it: the dwords at addr, at most `dwords` of them (fewer when the
// buffer that holds addr ends earlier; none when no buffer holds it).
using pm4_memory = std::function<std::vector<uint32_t>(uint64_t addr, uint32_t dwords)>;

struct pm4_walk_options {
  int generation = 6;         // packet names (a5xx names where they differ) and CP_SET_MARKER's modes
  bool once = false;          // cffdump --once: an IB already listed for the current mode is not again
  unsigned addr_digits = 16;  // address column width (cffdump: 16 on a5xx and later)
  // Listing budget, so that a stream that calls itself or huge IBs cannot run away (time, memory).
  uint64_t max_packets = 1u << 20;
  uint64_t max_dwords = 1u << 22;
};

// One listed packet: where it is, how deep, and what it is.
struct pm4_listed {
  uint64_t addr = 0;
  int level = 0;       // cffdump's nesting: 0 = the IB1, +1 per IB, +2 for a draw-state group
  bool type4 = false;  // PKT4: reg is the first register; PKT7: opcode
  uint32_t reg = 0, opcode = 0;
  uint32_t count = 0;  // payload dwords
  std::string name;    // the packet's name (PKT4: "PKT4")
};

struct pm4_walk_result {
  std::string listing;
  std::vector<pm4_listed> packets;
  unsigned bad = 0;      // invalid headers and truncated packets
  unsigned missing = 0;  // IBs and groups whose memory the capture does not hold
};

// Walks `dwords` dwords at addr (the IB1) and everything it reaches.
pm4_walk_result pm4_walk(const pm4_memory& mem, uint64_t addr, uint32_t dwords, const pm4_walk_options& opt);

struct rd_capture;
// One IB1 of a capture (submit, IB of that submit) with that submit's buffers; throws rd_error
// naming the capture when the submit, the IB or its memory is missing, or the GPU is before a5xx.
pm4_walk_result pm4_walk_capture(const rd_capture& c, uint64_t submit, uint64_t ib, bool once);
// `pm4-decode CAPTURE.rd[.gz] [--submit N] [--ib K] [--once]`: one IB1 of a capture.
int pm4_decode_rd(const std::string& path, uint64_t submit, uint64_t ib, bool once);

}  // namespace gpuvp::cp
