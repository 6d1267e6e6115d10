// SPDX-License-Identifier: Apache-2.0
#include "pm4.h"
#include "gpuvp/number.h"
#include "gpuvp/text.h"
#include "gpuvp/tool_args.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "afuc.h"
#include "afuc_asm.h"
#include "afuc_iss.h"
#include "cp_regs.h"
#include "pm4_walk.h"

namespace gpuvp::cp {

namespace {
struct named_reg {
  const char* name;
  uint32_t reg;
};
const named_reg cp_regs[] = {{"CP_RB_BASE", CP_RB_BASE},
                             {"CP_RB_BASE_HI", CP_RB_BASE_HI},
                             {"CP_RB_CNTL", CP_RB_CNTL},
                             {"CP_RB_RPTR", CP_RB_RPTR},
                             {"CP_RB_WPTR", CP_RB_WPTR},
                             {"CP_SQE_CNTL", CP_SQE_CNTL},
                             {"CP_SQE_INSTR_BASE", CP_SQE_INSTR_BASE},
                             {"CP_SQE_INSTR_BASE_HI", CP_SQE_INSTR_BASE_HI},
                             {"CP_HW_FAULT", CP_HW_FAULT},
                             {"CP_INT_STATUS", CP_INT_STATUS},
                             {"CP_INT_EN", CP_INT_EN},
                             {"CP_ME_NRT_ADDR_LO", CP_ME_NRT_ADDR_LO},
                             {"CP_ME_NRT_ADDR_HI", CP_ME_NRT_ADDR_HI},
                             {"CP_ME_NRT_DATA", CP_ME_NRT_DATA},
                             {"CP_SCRATCH_REG0", CP_SCRATCH_REG0},
                             {"CP_SCRATCH_REG1", CP_SCRATCH_REG0 + 1},
                             {"CP_SCRATCH_REG2", CP_SCRATCH_REG0 + 2},
                             {"CP_SCRATCH_REG3", CP_SCRATCH_REG0 + 3},
                             {"CP_SCRATCH_REG4", CP_SCRATCH_REG0 + 4},
                             {"CP_SCRATCH_REG5", CP_SCRATCH_REG0 + 5},
                             {"CP_SCRATCH_REG6", CP_SCRATCH_REG0 + 6},
                             {"CP_SCRATCH_REG7", CP_SCRATCH_REG0 + 7},
                             {"CP_IB1_BASE", CP_IB1_BASE},
                             {"CP_IB1_BASE_HI", CP_IB1_BASE_HI},
                             {"CP_IB1_REM_SIZE", CP_IB1_REM_SIZE},
                             {"CP_IB2_BASE", CP_IB2_BASE},
                             {"CP_IB2_BASE_HI", CP_IB2_BASE_HI},
                             {"CP_IB2_REM_SIZE", CP_IB2_REM_SIZE}};

std::string hex8(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "%08x", v);
  return b;
}
}  // namespace

std::optional<uint32_t> cp_reg_by_name(const std::string& name) {
  for (const auto& r : cp_regs)
    if (name == r.name) return r.reg;
  return std::nullopt;
}
const char* cp_reg_name(uint32_t reg) {
  for (const auto& r : cp_regs)
    if (r.reg == reg) return r.name;
  return nullptr;
}

namespace {
// One .pm4 text being parsed: the program so far, the open "ib ... end" block, the ib: operands
// still to resolve, and the current line's tokens.
struct pm4_parser {
  // ib:NAME operands: patched with the IB's address and size once every IB is known.
  struct pending_ib {
    bool placed;
    size_t pos;
    std::string name;
    int line;
    bool in_ring;
    size_t owner;
  };

  const std::string& origin;
  pm4_program p;
  std::vector<pending_ib> fixups;
  int cur_ib = -1;  // index into p.ibs while inside "ib ... end"
  int line = 0;
  std::vector<std::string> tok;

  explicit pm4_parser(const std::string& o) : origin(o) { p.origin = o; }

  [[noreturn]] void fail(const std::string& m) const { throw pm4_error(origin + ":" + std::to_string(line) + ": " + m); }
  uint64_t num(const std::string& t, uint64_t max = 0xffffffffull) const {
    if (t.empty()) fail("expected a number");
    uint64_t v = 0;
    try {  // gpuvp's one number parser (gpuvp/number.h): decimal, 0x hex, 0b binary, `_` separators
      v = parse_number(t);
    } catch (const std::exception&) {
      fail("bad number '" + t + "'");
    }
    if (v > max) fail("value '" + t + "' out of range");
    return v;
  }
  uint32_t reg(const std::string& t) const {
    if (auto r = cp_reg_by_name(t)) return *r;
    if (!t.empty() && (t[0] >= '0' && t[0] <= '9')) return uint32_t(num(t, 0x3ffff));
    fail("unknown register '" + t + "'");
  }
  // The stream packets go to: the open IB's, else the ring's.
  std::vector<uint32_t>& out() { return cur_ib >= 0 ? p.ibs[size_t(cur_ib)].words : p.ring; }

  // Expands the value tokens of a packet line.
  std::vector<uint32_t> values(size_t from) {
    std::vector<uint32_t> v;
    for (size_t i = from; i < tok.size(); i++) {
      const std::string& t = tok[i];
      if (t.rfind("ib:", 0) == 0) {
        // address lo, hi, size: resolved at the end (the IB may be defined later)
        fixups.push_back({false, v.size(), t.substr(3), line, cur_ib < 0, size_t(cur_ib < 0 ? 0 : cur_ib)});
        v.insert(v.end(), {0, 0, 0});
      } else if (t.rfind("addr:", 0) == 0) {
        const uint64_t a = num(t.substr(5), ~0ull);
        v.push_back(uint32_t(a));
        v.push_back(uint32_t(a >> 32));
      } else if (t.rfind("reg:", 0) == 0) {
        v.push_back(reg(t.substr(4)));
      } else {
        v.push_back(uint32_t(num(t)));
      }
    }
    return v;
  }
  // Appends dwords to the current stream, placing this line's ib: operands.
  void append(const std::vector<uint32_t>& v) {
    std::vector<uint32_t>& o = out();
    for (auto& f : fixups)
      if (!f.placed) {
        f.pos += o.size();
        f.placed = true;
      }
    o.insert(o.end(), v.begin(), v.end());
  }
  void emit(uint32_t header, std::vector<uint32_t> payload) {
    payload.insert(payload.begin(), header);
    for (auto& f : fixups)
      if (!f.placed) f.pos += 1;
    append(payload);
  }

  void parse_ring() {
    if (tok.size() != 2 && tok.size() != 4) fail("usage: ring ADDR [dwords N]");
    p.ring_addr = num(tok[1], ~0ull);
    p.ring_line = line;
    if (tok.size() == 4) {
      if (tok[2] != "dwords") fail("usage: ring ADDR [dwords N]");
      const uint64_t n = num(tok[3], 1u << 30);
      if (n < 4 || (n & (n - 1))) fail("ring size must be a power of two >= 4 dwords");
      p.ring_dwords = uint32_t(n);
    }
  }
  void parse_mem() {
    if (tok.size() < 3) fail("usage: mem ADDR VALUE...");
    pm4_program::block b;
    b.addr = num(tok[1], ~0ull);
    b.line = line;
    for (size_t i = 2; i < tok.size(); i++) b.words.push_back(uint32_t(num(tok[i])));
    p.mem.push_back(b);
  }
  void parse_ib() {
    if (cur_ib >= 0) fail("'ib' inside an ib block (missing 'end')");
    if (tok.size() != 3) fail("usage: ib NAME ADDR");
    for (auto& b : p.ibs)
      if (b.name == tok[1]) fail("ib '" + tok[1] + "' defined twice");
    p.ibs.push_back({tok[1], num(tok[2], ~0ull), {}, line});
    cur_ib = int(p.ibs.size() - 1);
  }
  void parse_expect() {
    if (tok.size() < 2) fail("usage: expect mem|reg|dispatches|irq|fault ...");
    pm4_program::expectation e{pm4_program::expectation::irq, 0, 0, line};
    if (tok[1] == "mem" && tok.size() == 4) {
      e = {pm4_program::expectation::mem, num(tok[2], ~0ull), uint32_t(num(tok[3])), line};
    } else if (tok[1] == "reg" && tok.size() == 4) {
      e = {pm4_program::expectation::reg, reg(tok[2]), uint32_t(num(tok[3])), line};
    } else if (tok[1] == "dispatches" && tok.size() == 3) {
      e = {pm4_program::expectation::dispatches, 0, uint32_t(num(tok[2])), line};
    } else if (tok[1] == "irq" && tok.size() == 2) {
    } else if (tok[1] == "fault" && tok.size() == 3) {
      e = {pm4_program::expectation::fault, 0, uint32_t(num(tok[2])), line};
    } else {
      fail("bad expectation (expect mem ADDR V | reg REG V | dispatches N | irq | fault V)");
    }
    p.expects.push_back(e);
  }
  // raw, PKT4, pkt7 or a CP_ opcode's name; false for none of them.
  bool parse_packet(const std::string& kw) {
    if (kw == "raw") {
      append(values(1));
    } else if (kw == "PKT4" || kw == "pkt4") {
      if (tok.size() < 2) fail("usage: PKT4 REG VALUE...");
      const uint32_t r = reg(tok[1]);
      auto v = values(2);
      if (v.size() > 0x7f) fail("PKT4 carries at most 127 dwords");
      emit(pm4_type4(r, uint32_t(v.size())), v);
    } else if (kw == "pkt7") {
      if (tok.size() < 2) fail("usage: pkt7 OPCODE VALUE...");
      const uint32_t op = uint32_t(num(tok[1], 0x7f));
      auto v = values(2);
      if (v.size() > 0x3fff) fail("type-7 packet too long");
      emit(pm4_type7(op, uint32_t(v.size())), v);
    } else if (auto id = pm4_id_by_name(kw); id && kw.rfind("CP_", 0) == 0) {
      auto v = values(1);
      if (v.size() > 0x3fff) fail("type-7 packet too long");
      emit(pm4_type7(*id, uint32_t(v.size())), v);
    } else {
      return false;
    }
    return true;
  }
  void parse_line(std::string ln) {
    line++;
    for (char c : {'#', ';'}) {
      size_t k = ln.find(c);
      if (k != std::string::npos) ln.resize(k);
    }
    tok = split_words(ln);
    if (tok.empty()) return;
    const std::string kw = tok[0];
    if (kw == "ring")
      parse_ring();
    else if (kw == "mem")
      parse_mem();
    else if (kw == "ib")
      parse_ib();
    else if (kw == "end") {
      if (cur_ib < 0) fail("'end' without 'ib'");
      cur_ib = -1;
    } else if (kw == "expect")
      parse_expect();
    else if (!parse_packet(kw))
      fail("unknown packet or directive '" + kw + "'");
  }

  // The end-of-text checks, and the ib: operands patched now that every IB is known.
  void finish() {
    if (cur_ib >= 0) {
      line++;
      fail("ib '" + p.ibs[size_t(cur_ib)].name + "' has no 'end'");
    }
    for (auto& f : fixups) {
      const pm4_program::ib* target = nullptr;
      for (auto& b : p.ibs)
        if (b.name == f.name) target = &b;
      if (!target) throw pm4_error(origin + ":" + std::to_string(f.line) + ": undefined ib '" + f.name + "'");
      std::vector<uint32_t>& w = f.in_ring ? p.ring : p.ibs[f.owner].words;
      w[f.pos] = uint32_t(target->addr);
      w[f.pos + 1] = uint32_t(target->addr >> 32);
      w[f.pos + 2] = uint32_t(target->words.size());
    }
    if (p.ring.size() >= p.ring_dwords)
      throw pm4_error(origin + ": the ring stream (" + std::to_string(p.ring.size()) + " dwords) does not fit the ring (" +
                      std::to_string(p.ring_dwords) + ")");
  }
};
}  // namespace

pm4_program pm4_parse(const std::string& text, const std::string& origin) {
  pm4_parser parser(origin);
  std::istringstream is(text);
  for (std::string ln; std::getline(is, ln);) parser.parse_line(ln);
  parser.finish();
  return std::move(parser.p);
}

pm4_program pm4_parse_file(const std::string& path) {
  const auto text = read_whole_file(path);
  if (!text) throw pm4_error("cannot open " + path);
  return pm4_parse(*text, path);
}

unsigned pm4_decode(const std::vector<uint32_t>& w, std::string& listing, uint64_t base) {
  std::ostringstream os;
  unsigned bad = 0;
  char b[64];
  size_t i = 0;
  while (i < w.size()) {
    std::snprintf(b, sizeof b, "%06llx: %s  ", (unsigned long long)(base + 4 * i), hex8(w[i]).c_str());
    os << b;
    pm4_header h;
    if (!pm4_decode_header(w[i], h)) {
      os << "invalid header\n";
      bad++;
      i++;
      continue;
    }
    if (h.type4) {
      const char* n = cp_reg_name(h.reg);
      std::snprintf(b, sizeof b, "0x%x", h.reg);
      os << "PKT4 " << (n ? n : b) << " (" << h.count << ")\n";
    } else {
      os << pm4_id_name(h.id) << " (" << h.count << ")\n";
    }
    for (uint32_t k = 1; k <= h.count; k++) {
      if (i + k >= w.size()) {
        os << "        truncated: " << (h.count - k + 1) << " dword(s) missing\n";
        bad++;
        break;
      }
      std::snprintf(b, sizeof b, "%06llx: %s    ", (unsigned long long)(base + 4 * (i + k)), hex8(w[i + k]).c_str());
      os << b;
      if (h.type4) {
        const char* n = cp_reg_name(h.reg + k - 1);
        if (n)
          os << n;
        else
          os << "0x" << std::hex << (h.reg + k - 1) << std::dec;
      } else {
        os << "[" << (k - 1) << "]";
      }
      os << "\n";
    }
    i += 1 + h.count;
  }
  listing = os.str();
  return bad;
}

int pm4_asm_main(int argc, char** argv) {
  std::string in, out;
  tool_args args("pm4-asm", "IN.pm4 OUT.bin", "Writes a .pm4 workload's ring stream as little-endian dwords (docs/formats/pm4.md).");
  args.positional("IN.pm4", in, "the .pm4 workload").positional("OUT.bin", out, "the binary ring stream to write");
  if (int rc = args.parse(argc, argv); rc >= 0) return rc;
  try {
    pm4_program p = pm4_parse_file(in);
    std::vector<uint32_t> w = p.ring;
    write_words(out, w);
  } catch (const std::exception& e) {
    std::cerr << "pm4-asm: " << e.what() << "\n";
    return 2;  // the source or a file: an input error
  }
  return 0;
}

int pm4_decode_main(int argc, char** argv) {
  std::string in;
  uint64_t submit = 0, ib = 0;
  bool once = false;
  tool_args args("pm4-decode", "[--submit N] [--ib K] [--once] IN.bin|IN.pm4|CAPTURE.rd[.gz]",
                 "Lists PM4 packets (docs/tools/pm4-decode.md).");
  args.number("submit", submit, "N", "capture: the submit (default 0)", uint64_t(0), uint64_t(1) << 32)
      .number("ib", ib, "K", "capture: the IB1 of that submit (default 0)", uint64_t(0), uint64_t(1) << 32)
      .flag("once", once, "capture: an IB already listed in the current render mode is not listed again (cffdump --once)")
      .positional("IN.bin|IN.pm4|CAPTURE.rd[.gz]", in,
                  "binary little-endian dwords, a .pm4 workload (its ring and IBs), or a Mesa .rd capture");
  if (int rc = args.parse(argc, argv); rc >= 0) return rc;
  auto ends_with = [&](const std::string& s) { return in.size() > s.size() && in.compare(in.size() - s.size(), s.size(), s) == 0; };
  const bool capture = ends_with(".rd") || ends_with(".rd.gz");
  if (!capture && (args.given("submit") || args.given("ib") || args.given("once")))
    return args.usage_error("--submit, --ib and --once apply to a .rd capture only");
  if (capture) {
    try {
      return pm4_decode_rd(in, submit, ib, once);
    } catch (const std::exception& e) {
      std::cerr << "pm4-decode: " << e.what() << "\n";
      return 2;  // an unreadable or malformed capture, a submit or IB it does not have
    }
  }
  try {
    std::string listing;
    unsigned bad = 0;
    if (in.size() > 4 && in.substr(in.size() - 4) == ".pm4") {
      pm4_program p = pm4_parse_file(in);
      std::string part;
      std::cout << "; ring at 0x" << std::hex << p.ring_addr << std::dec << "\n";
      bad += pm4_decode(p.ring, part, p.ring_addr);
      std::cout << part;
      for (auto& ib : p.ibs) {
        std::cout << "; ib " << ib.name << " at 0x" << std::hex << ib.addr << std::dec << "\n";
        bad += pm4_decode(ib.words, part, ib.addr);
        std::cout << part;
      }
    } else {
      bad = pm4_decode(read_words(in), listing);
      std::cout << listing;
    }
    if (bad) {
      std::cerr << "pm4-decode: " << in << ": " << bad << " invalid or truncated packet(s)\n";
      return 1;
    }
  } catch (const std::exception& e) {
    std::cerr << "pm4-decode: " << e.what() << "\n";
    return 2;  // the file cannot be read or parsed: an input error
  }
  return 0;
}

}  // namespace gpuvp::cp
