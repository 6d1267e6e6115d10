// SPDX-License-Identifier: Apache-2.0
// The nested PM4 listing (pm4_walk.h). What is followed, and how deep, is what Mesa's cffdump
// (src/freedreno/decode/cffdec.c) does, so that names, addresses and nesting of the two listings
// agree; the listing's text is gpuvp's own (docs/tools/pm4-decode.md).
#include "pm4_walk.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <sstream>

#include "afuc.h"
#include "afuc_iss.h"
#include "pm4.h"
#include "rd.h"

namespace gpuvp::cp {

namespace {

constexpr int max_level = 16;  // deeper nesting is a loop in the stream, not a real command stream
constexpr unsigned draw_state_groups = 32;

// CP_SET_MARKER's render modes (Mesa a6xx_marker) and the draw-state enable mask each selects.
constexpr unsigned mode_binning = 0x1, mode_gmem = 0x2, mode_bypass = 0x4, mode_all = 0x7;

// Packets before which cffdump loads every pending draw-state group (its load_all_groups list).
bool loads_draw_state(const std::string& n) {
  static const char* const draws[] = {"CP_DRAW_INDX",        "CP_DRAW_INDX_2",   "CP_DRAW_INDX_OFFSET",   "CP_EXEC_CS",
                                      "CP_EXEC_CS_INDIRECT", "CP_DRAW_INDIRECT", "CP_DRAW_INDX_INDIRECT", "CP_DRAW_INDIRECT_MULTI",
                                      "CP_DRAW_AUTO"};
  for (const char* d : draws)
    if (n == d) return true;
  return false;
}

class walker {
 public:
  walker(const pm4_memory& mem, const pm4_walk_options& opt) : mem_(mem), opt_(opt) {}

  void walk(uint64_t addr, uint32_t dwords, int level) {
    if (stopped_) return;
    // Never fetch more than the budget has left: a huge IB costs no more than a small one.
    const uint64_t left = opt_.max_dwords - std::min(opt_.max_dwords, dwords_);
    const std::vector<uint32_t> w = mem_(addr, uint32_t(std::min<uint64_t>(dwords, left + 1)));
    if (w.size() < dwords && w.size() <= left) {
      note(level, w.empty() ? "not in the capture: " + std::to_string(dwords) + " dwords at " + hex(addr)
                            : "only " + std::to_string(w.size()) + " of " + std::to_string(dwords) + " dwords in the capture");
      r_.missing++;
    }
    walk_words(w, addr, level);
  }

  pm4_walk_result take() {
    r_.listing = os_.str();
    return std::move(r_);
  }

 private:
  struct group {
    uint32_t enable_mask = 0, flags = 0, count = 0;
    uint64_t addr = 0;
  };

  std::string hex(uint64_t v) const {
    char b[32];
    std::snprintf(b, sizeof b, "0x%0*llx", int(opt_.addr_digits), static_cast<unsigned long long>(v));
    return b;
  }
  static std::string indent(int level) { return std::string(2 * size_t(level), ' '); }
  void note(int level, const std::string& text) { os_ << "; " << indent(level) << text << "\n"; }
  void line(uint64_t addr, uint32_t word, int level, const std::string& text) {
    char b[48];
    std::snprintf(b, sizeof b, "%0*llx: %08x  ", int(opt_.addr_digits), static_cast<unsigned long long>(addr), word);
    os_ << b << indent(level) << text << "\n";
  }

  void walk_words(const std::vector<uint32_t>& w, uint64_t base, int level) {
    size_t i = 0;
    while (i < w.size()) {
      if (r_.packets.size() >= opt_.max_packets || dwords_ >= opt_.max_dwords) {
        if (!stopped_)
          note(level, "listing stops after " + std::to_string(r_.packets.size()) + " packets, " + std::to_string(dwords_) +
                          " dwords (the budget)");
        stopped_ = true;
        return;
      }
      const uint64_t at = base + 4 * i;
      pm4_header h;
      if (!pm4_decode_header(w[i], h)) {
        line(at, w[i], level, "invalid header");
        r_.bad++;
        i++;
        continue;
      }
      pm4_listed p;
      p.addr = at;
      p.level = level;
      p.type4 = h.type4;
      p.count = h.count;
      if (h.type4) {
        p.reg = h.reg;
        p.name = "PKT4";
      } else {
        p.opcode = h.id;
        p.name = pm4_id_name(h.id, opt_.generation);
        if (loads_draw_state(p.name)) load_all_groups(level + 1);
      }
      if (stopped_) return;
      r_.packets.push_back(p);
      dwords_ += 1 + h.count;
      char b[32];
      std::snprintf(b, sizeof b, "0x%x", h.reg);
      const char* rn = h.type4 ? cp_reg_name(h.reg) : nullptr;
      line(at, w[i], level, (h.type4 ? "PKT4 " + std::string(rn ? rn : b) : p.name) + " (" + std::to_string(h.count) + ")");
      const size_t have = std::min<size_t>(h.count, w.size() - i - 1);
      for (uint32_t k = 0; k < have; k++) {
        std::string what = "[" + std::to_string(k) + "]";
        if (h.type4) {
          const char* n = cp_reg_name(h.reg + k);
          std::snprintf(b, sizeof b, "0x%x", h.reg + k);
          what = n ? n : b;
        }
        line(at + 4 * (k + 1), w[i + 1 + k], level, "  " + what);
      }
      if (have < h.count) {
        note(level, "truncated: " + std::to_string(h.count - have) + " dword(s) missing");
        r_.bad++;
        return;
      }
      if (!h.type4) follow(p.name, w.data() + i + 1, h.count, at + 4, level);
      i += 1 + h.count;
    }
  }

  // What a packet reaches: IBs, draw-state groups, the render mode, commands written to memory.
  void follow(const std::string& name, const uint32_t* p, uint32_t n, uint64_t payload_addr, int level) {
    if ((name == "CP_INDIRECT_BUFFER" || name == "CP_INDIRECT_BUFFER_PFE" || name == "CP_INDIRECT_BUFFER_PFD") && n == 3) {
      const uint64_t ib = p[0] | uint64_t(p[1]) << 32;
      const uint32_t size = p[2];
      std::string what = "IB at " + hex(ib) + ", " + std::to_string(size) + " dwords";
      if (opt_.once && dumped(ib)) {
        note(level + 1, what + ": listed before for this mode (--once)");
        return;
      }
      if (level + 1 > max_level) {
        note(level + 1, what + ": nested deeper than " + std::to_string(max_level) + " levels, not followed");
        return;
      }
      note(level + 1, what);
      walk(ib, size, level + 1);
    } else if (name == "CP_SET_DRAW_STATE") {
      set_draw_state(p, n, level + 1);
    } else if (name == "CP_SET_MARKER" && opt_.generation >= 6 && n >= 1) {
      switch (p[0] & 0xf) {  // RM6_DIRECT_RENDER, RM6_BIN_VISIBILITY, RM6_BIN_RENDER_START
        case 1:
          mode_ = mode_bypass;
          break;
        case 2:
          mode_ = mode_binning;
          break;
        case 4:
          mode_ = mode_gmem;
          break;
        default:
          break;
      }
    } else if (name == "CP_MEM_WRITE" && n > 2) {  // commands written to memory: listed as cffdump does
      const uint32_t top = p[2] & 0xf0000000u;
      if ((top == 0x40000000u || top == 0x70000000u) && level + 2 <= max_level) {
        note(level + 2, "commands written to " + hex(uint64_t(p[0]) | uint64_t(p[1]) << 32));
        walk_words(std::vector<uint32_t>(p + 2, p + n), payload_addr + 8, level + 2);
      }
    }
  }

  // cffdump's has_dumped: true when addr was listed before for every mode now enabled.
  bool dumped(uint64_t addr) {
    unsigned& m = dumped_[addr];
    if ((m & mode_) == mode_) return true;
    m |= mode_;
    return false;
  }

  void set_draw_state(const uint32_t* p, uint32_t n, int level) {
    const uint32_t step = opt_.generation >= 5 ? 3 : 2;
    for (uint32_t i = 0; i + step <= n; i += step) {
      group g;
      g.count = p[i] & 0xffff;
      g.flags = (p[i] >> 16) & 0xf;
      g.enable_mask = (p[i] >> 20) & 0xf;
      const uint32_t id = (p[i] >> 24) & 0x1f;
      g.addr = p[i + 1] | (step == 3 ? uint64_t(p[i + 2]) << 32 : 0);
      if (g.flags & 0x4) {  // DISABLE_ALL_GROUPS
        for (auto& s : groups_) s = group{};
        continue;
      }
      groups_[id] = (g.flags & 0x2) ? group{} : g;  // DISABLE
      if (g.flags & 0x8) {                          // LOAD_IMMED
        load_group(id, level);
        groups_[id] = group{};
      }
    }
  }

  void load_all_groups(int level) {
    if (loading_) {
      note(level, "a draw inside a draw-state group: groups not loaded again");
      return;
    }
    loading_ = true;
    for (unsigned id = 0; id < draw_state_groups; id++) load_group(id, level);
    loading_ = false;
    for (auto& s : groups_) s = group{};
  }

  void load_group(unsigned id, int level) {
    const group g = groups_[id];
    if (!g.count) return;
    char b[96];
    std::snprintf(b, sizeof b, "draw state group %u at %s, %u dwords, enable_mask 0x%x", id, hex(g.addr).c_str(), g.count, g.enable_mask);
    if (opt_.generation >= 6 && !(g.enable_mask & mode_)) {
      note(level + 1, std::string(b) + ": skipped in this mode");
      return;
    }
    if (level + 1 > max_level) return;
    note(level + 1, b);
    walk(g.addr, g.count, level + 1);
  }

  const pm4_memory& mem_;
  const pm4_walk_options& opt_;
  std::ostringstream os_;
  pm4_walk_result r_;
  group groups_[draw_state_groups];
  unsigned mode_ = mode_all;
  std::map<uint64_t, unsigned> dumped_;
  bool loading_ = false, stopped_ = false;
  uint64_t dwords_ = 0;  // dwords of the packets listed
};

}  // namespace

pm4_walk_result pm4_walk(const pm4_memory& mem, uint64_t addr, uint32_t dwords, const pm4_walk_options& opt) {
  walker w(mem, opt);
  w.walk(addr, dwords, 0);
  return w.take();
}

pm4_walk_result pm4_walk_capture(const rd_capture& c, uint64_t submit, uint64_t ib, bool once) {
  const std::string& path = c.origin;
  const int gen = c.generation();
  if (gen < 5)
    throw rd_error(path + ": " + (gen ? "an a" + std::to_string(gen) + "xx capture" : std::string("no GPU_ID or CHIP_ID")) +
                   ": pm4-decode lists a5xx and later streams (PM4 type 4 and type 7 packets)");
  if (submit >= c.submits.size())
    throw rd_error(path + ": submit " + std::to_string(submit) + " does not exist (" + std::to_string(c.submits.size()) + " submits)");
  const rd_capture::submit& s = c.submits[submit];
  if (ib >= s.ibs.size())
    throw rd_error(path + ": submit " + std::to_string(submit) + " has no IB " + std::to_string(ib) + " (" + std::to_string(s.ibs.size()) +
                   " IB1s)");
  const rd_capture::ib& first = s.ibs[ib];
  if (!s.find(first.addr, 4ull * first.dwords)) {
    char b[32];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(first.addr));
    throw rd_error(path + ": submit " + std::to_string(submit) + ", IB " + std::to_string(ib) + ": IB1 at " + b + " (" +
                   std::to_string(first.dwords) + " dwords) lies outside every buffer of its submit");
  }
  // The submit's buffers at their GPU addresses (a later buffer at the same address wins).
  const pm4_memory mem = [&s](uint64_t addr, uint32_t dwords) {
    std::vector<uint32_t> w;
    const rd_capture::buffer* b = s.find(addr, 4);
    if (!b) return w;
    const uint64_t off = addr - b->addr, have = (b->bytes.size() - off) / 4;
    w.resize(size_t(std::min<uint64_t>(have, dwords)));
    if (!w.empty()) std::memcpy(w.data(), b->bytes.data() + off, 4 * w.size());
    return w;
  };
  pm4_walk_options opt;
  opt.generation = gen;
  opt.once = once;
  return pm4_walk(mem, first.addr, first.dwords, opt);
}

int pm4_decode_rd(const std::string& path, uint64_t submit, uint64_t ib, bool once) {
  const rd_capture c = rd_parse(rd_read_file(path), path);
  const pm4_walk_result r = pm4_walk_capture(c, submit, ib, once);
  const rd_capture::submit& s = c.submits[submit];
  const rd_capture::ib& first = s.ibs[ib];
  char b[64];
  std::snprintf(b, sizeof b, "0x%016llx", static_cast<unsigned long long>(first.addr));
  std::cout << "; " << path << ": gpu_id " << c.gpu_id << ", submit " << submit << " of " << c.submits.size() << " (\"" << s.cmd
            << "\"), IB1 " << ib << " of " << s.ibs.size() << " at " << b << ", " << first.dwords << " dwords\n"
            << r.listing;
  if (r.missing) std::cerr << "pm4-decode: " << path << ": " << r.missing << " IB(s) or group(s) not (fully) in the capture\n";
  if (r.bad) {
    std::cerr << "pm4-decode: " << path << ": " << r.bad << " invalid or truncated packet(s)\n";
    return 1;
  }
  return 0;
}

}  // namespace gpuvp::cp
