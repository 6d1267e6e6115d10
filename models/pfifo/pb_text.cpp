// SPDX-License-Identifier: Apache-2.0
#include "pb_text.h"
#include "gpuvp/number.h"
#include "gpuvp/text.h"
#include "gpuvp/tool_args.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

namespace gpuvp::pfifo {

namespace {

// gpuvp's one number parser (gpuvp/number.h): decimal, 0x hex, 0b binary, `_` separators.
uint64_t number(const std::string& t, const char* what) {
  try {
    return gpuvp::parse_number(t);
  } catch (const std::exception&) {
    throw asm_error(std::string("'") + t + "' is not a valid " + what);
  }
}

uint32_t u32(const std::string& t, const char* what) {
  uint64_t v = number(t, what);
  if (v > 0xffffffffull) throw asm_error(std::string(what) + " '" + t + "' does not fit in 32 bits");
  return uint32_t(v);
}

std::string hex(uint64_t v, int width = 8) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%0*llx", width, static_cast<unsigned long long>(v));
  return b;
}

}  // namespace

uint32_t parse_method(const std::string& token, gen g) {
  for (uint32_t m = 0; m < 0x100; m += 4)
    if (token == puller_mthd_name(g, m)) return m;
  for (uint32_t m = 0x100; m < 0x400; m += 4)
    if (*m2mf_mthd_name(m) && token == m2mf_mthd_name(m)) return m;
  uint32_t m = u32(token, "method");
  if (m & 3) throw asm_error("method " + token + " is not a multiple of 4");
  if (m >= method_space(g)) throw asm_error("method " + token + " is outside the method space of " + gen_name(g));
  return m;
}

namespace {
// One line's words, with the operand checks every command shares.
struct asm_line {
  std::vector<std::string> w;
  gen g;
  const std::string& op() const { return w[0]; }
  void need(size_t n, const char* usage) const {
    if (w.size() < n) throw asm_error("'" + op() + "' needs " + usage);
  }
  uint32_t subc(const std::string& t) const {
    uint32_t s = u32(t, "subchannel");
    if (s > 7) throw asm_error("subchannel " + t + " is not in 0..7");
    return s;
  }
  std::vector<uint32_t> data_from(size_t first) const {
    std::vector<uint32_t> d;
    for (size_t i = first; i < w.size(); ++i) d.push_back(u32(w[i], "data word"));
    return d;
  }
};

// inc, ninc, gf.inc, gf.ninc, gf.once, lninc, gf.inline: a method header and its data.
bool assemble_methods(const asm_line& l, std::vector<uint32_t>& out) {
  const std::string& op = l.op();
  const bool gf = uses_gf100_format(l.g);
  if (op == "inc" || op == "ninc" || op == "gf.inc" || op == "gf.ninc" || op == "gf.once") {
    l.need(4, "SUBC METHOD DATA...");
    const uint32_t s = l.subc(l.w[1]), m = parse_method(l.w[2], l.g);
    auto d = l.data_from(3);
    const bool old = op == "inc" || op == "ninc";
    if (old && (d.size() > 0x7ff || m >= 0x2000)) throw asm_error("'" + op + "' takes at most 2047 words and methods below 0x2000");
    if (!old && !gf) throw asm_error("'" + op + "' exists only in the GF100 format (gen " + gen_name(l.g) + ")");
    if (!old && d.size() > 0x1fff) throw asm_error("'" + op + "' takes at most 8191 words");
    if (op == "ninc" && l.g < gen::nv10) throw asm_error("non-increasing methods need NV10+");
    const uint32_t n = uint32_t(d.size());
    out.push_back(op == "inc"       ? hdr_inc(s, m, n)
                  : op == "ninc"    ? hdr_ninc(s, m, n)
                  : op == "gf.inc"  ? hdr_gf_inc(s, m, n)
                  : op == "gf.ninc" ? hdr_gf_ninc(s, m, n)
                                    : hdr_gf_incr_once(s, m, n));
    out.insert(out.end(), d.begin(), d.end());
  } else if (op == "lninc") {
    l.need(4, "SUBC METHOD DATA...");
    if (gf) throw asm_error("'lninc' does not exist in the GF100 format");
    const uint32_t s = l.subc(l.w[1]), m = parse_method(l.w[2], l.g);
    auto d = l.data_from(3);
    out.push_back(hdr_long_ninc(s, m));
    out.push_back(uint32_t(d.size()) & 0xffffff);
    out.insert(out.end(), d.begin(), d.end());
  } else if (op == "gf.inline") {
    l.need(4, "SUBC METHOD VALUE");
    if (!gf) throw asm_error("'gf.inline' exists only in the GF100 format");
    const uint32_t s = l.subc(l.w[1]), m = parse_method(l.w[2], l.g), v = u32(l.w[3], "inline value");
    if (v > 0x1fff) throw asm_error("inline value " + l.w[3] + " does not fit in 13 bits");
    out.push_back(hdr_gf_inline(s, m, v));
  } else {
    return false;
  }
  return true;
}

// word/raw, jump, oldjump, call, ret, sli, gf.sli.*, nop.
bool assemble_control(const asm_line& l, std::vector<uint32_t>& out) {
  const std::string& op = l.op();
  if (op == "word" || op == "raw") {
    l.need(2, "at least one word");
    for (auto v : l.data_from(1)) out.push_back(v);
  } else if (op == "jump" || op == "oldjump" || op == "call") {
    l.need(2, "ADDRESS");
    const uint32_t a = u32(l.w[1], "address");
    if (a & 3) throw asm_error("target " + l.w[1] + " is not 4-byte aligned");
    if (op == "oldjump") {
      if (a > 0x1fffffff) throw asm_error("old jump target " + l.w[1] + " does not fit in 29 bits");
      out.push_back(0x20000000 | a);
    } else {
      out.push_back(a | (op == "jump" ? 1 : 2));
    }
  } else if (op == "ret" || op == "return") {
    out.push_back(0x00020000);
  } else if (op == "sli") {
    l.need(2, "MASK");
    out.push_back(hdr_sli(u32(l.w[1], "SLI mask")));
  } else if (op == "gf.sli.store") {
    l.need(2, "MASK");
    out.push_back(0x00020000 | (u32(l.w[1], "SLI mask") & 0xfff) << 4);
  } else if (op == "gf.sli.user") {
    out.push_back(0x00030000);
  } else if (op == "nop") {
    out.push_back(0);
  } else {
    return false;
  }
  return true;
}
}  // namespace

void assemble_line(const std::string& raw, gen g, std::vector<uint32_t>& out) {
  const asm_line l{split_words(raw.substr(0, raw.find('#'))), g};
  if (l.w.empty()) return;
  if (!assemble_methods(l, out) && !assemble_control(l, out)) throw asm_error("unknown command '" + l.op() + "'");
}

std::vector<uint32_t> assemble(const std::string& text, gen g, const std::string& origin) {
  std::vector<uint32_t> out;
  std::istringstream in(text);
  std::string line;
  unsigned n = 0;
  while (std::getline(in, line)) {
    ++n;
    try {
      assemble_line(line, g, out);
    } catch (const asm_error& e) {
      throw asm_error(origin + ":" + std::to_string(n) + ": " + e.what());
    }
  }
  return out;
}

namespace {
// The listing of one pushbuffer: a line per word, each command's data words under it.
struct listing_writer {
  const std::vector<uint32_t>& words;
  const listing_mode& m;
  std::ostringstream os;
  unsigned errs = 0;

  listing_writer(const std::vector<uint32_t>& w, const listing_mode& mode) : words(w), m(mode) {}

  std::string addr(size_t k) const { return hex(m.base + 4 * k, 10); }
  std::string name(uint32_t mthd) const {
    std::string n = mthd < 0x100 ? puller_mthd_name(m.g, mthd) : m2mf_mthd_name(mthd);
    return n.empty() ? std::string() : " " + n;
  }
  // A command without data words (jumps, calls, returns, SLI masks, invalid): its line; false for
  // a method header.
  bool control(const command& c) {
    switch (c.kind) {
      case cmd_kind::jump:
      case cmd_kind::old_jump:
      case cmd_kind::call:
        os << " " << hex(c.target) << "\n";
        return true;
      case cmd_kind::ret:
      case cmd_kind::gf_sli_cond_user_mask:
        os << "\n";
        return true;
      case cmd_kind::sli_conditional:
      case cmd_kind::gf_sli_user_mask_store:
        os << " mask " << hex(c.mask, 3) << "\n";
        return true;
      case cmd_kind::invalid:
        os << "  ERROR: INVALID_CMD\n";
        ++errs;
        return true;
      default:
        return false;
    }
  }
  // The data words of a method header at i: the word after the last one listed.
  size_t methods(size_t i, const command& c, size_t count) {
    const bool ni = c.kind == cmd_kind::non_increasing || c.kind == cmd_kind::gf_non_increasing || c.kind == cmd_kind::long_non_increasing;
    const bool once = c.kind == cmd_kind::gf_increase_once;
    os << "  subc " << c.subc << " mthd " << hex(c.mthd, 4) << name(c.mthd) << " count " << count;
    if (count == 0) os << (c.kind == cmd_kind::increasing && words[i] == 0 ? " (NOP)" : "");
    os << "\n";
    size_t first = i + (c.kind == cmd_kind::long_non_increasing ? 2 : 1);
    if (c.kind == cmd_kind::long_non_increasing) os << addr(i + 1) << "  " << hex(words[i + 1]) << "    count\n";
    uint32_t mthd = c.mthd;
    size_t k = 0;
    for (; k < count && first + k < words.size(); ++k) {
      os << addr(first + k) << "  " << hex(words[first + k]) << "    [" << c.subc << "] " << hex(mthd, 4) << name(mthd);
      if (m.g < gen::gf100 && !puller_knows_mthd(m.g, mthd)) {
        os << "  ERROR: INVALID_MTHD";
        ++errs;
      }
      os << "\n";
      if ((once && k == 0) || (!ni && !once)) mthd += 4;
      mthd &= method_space(m.g) - 1;
    }
    if (k < count) {
      os << "ERROR: command truncated, " << (count - k) << " data word(s) missing\n";
      ++errs;
    }
    return first + k;
  }
  // The command at i: the index of the next one.
  size_t command_at(size_t i) {
    const uint32_t w = words[i];
    const command c = decode_header(w, {m.g, m.ib, m.sli_enable});
    os << addr(i) << "  " << hex(w) << "  " << cmd_kind_name(c.kind);
    if (control(c)) return i + 1;
    if (c.kind == cmd_kind::gf_inline) {
      os << "  [" << c.subc << "] " << hex(c.mthd, 4) << name(c.mthd) << " = " << hex(c.data, 4) << "\n";
      return i + 1;
    }
    size_t count = c.count;
    if (c.kind == cmd_kind::long_non_increasing) {
      if (i + 1 >= words.size()) {
        os << "  subc " << c.subc << " mthd " << hex(c.mthd, 4) << "  ERROR: count word missing\n";
        ++errs;
        return words.size();
      }
      count = words[i + 1] & 0xffffff;
    }
    return methods(i, c, count);
  }
};
}  // namespace

std::string decode_listing(const std::vector<uint32_t>& words, const listing_mode& m, unsigned* errors) {
  listing_writer l(words, m);
  for (size_t i = 0; i < words.size();) i = l.command_at(i);
  if (errors) *errors = l.errs;
  return l.os.str();
}

int pb_asm_main(int argc, char** argv) {
  std::string in, out, gname = "G84";
  gpuvp::tool_args args("pb-asm", "[--gen G84] INPUT.txt -o OUTPUT.bin",
                        "Assembles a text pushbuffer into little-endian 32-bit words (docs/tools/pushbuffer.md).");
  args.text("gen", gname, "GEN", "generation: NV3 ... GF100 (default G84)")
      .text("output,o", out, "OUTPUT.bin", "the binary pushbuffer to write (required)")
      .positional("INPUT.txt", in, "the text pushbuffer");
  if (int rc = args.parse(argc, argv); rc >= 0) return rc;
  if (out.empty()) return args.usage_error("missing -o OUTPUT.bin");
  auto g = parse_gen(gname);
  if (!g) return args.usage_error("--gen " + gname + ": unknown generation (NV3 ... GF100)");
  const auto text = read_whole_file(in);
  if (!text) {
    std::cerr << "pb-asm: cannot open " << in << "\n";
    return 2;
  }
  std::vector<uint32_t> words;
  try {
    words = assemble(*text, *g, in);
  } catch (const asm_error& e) {
    std::cerr << "pb-asm: " << e.what() << "\n";
    return 2;
  }
  std::ofstream o(out, std::ios::binary);
  for (uint32_t w : words) {
    unsigned char b[4] = {uint8_t(w), uint8_t(w >> 8), uint8_t(w >> 16), uint8_t(w >> 24)};
    o.write(reinterpret_cast<const char*>(b), 4);
  }
  if (!o) {
    std::cerr << "pb-asm: cannot write " << out << "\n";
    return 2;
  }
  return 0;
}

int pb_decode_main(int argc, char** argv) {
  std::string in, gname = "G84";
  listing_mode m;
  gpuvp::tool_args args("pb-decode", "[--gen G84] [--ib] [--sli] [--base ADDR] INPUT.bin",
                        "Lists a binary pushbuffer: commands, subchannels, methods, data (docs/tools/pushbuffer.md).");
  args.text("gen", gname, "GEN", "generation: NV3 ... GF100 (default G84)")
      .flag("ib", m.ib, "decode as an IB-mode stream")
      .flag("sli", m.sli_enable, "enable the SLI conditional command")
      .number("base", m.base, "ADDR", "address of the first word (default 0)")
      .positional("INPUT.bin", in, "the binary pushbuffer (little-endian 32-bit words)");
  if (int rc = args.parse(argc, argv); rc >= 0) return rc;
  auto g = parse_gen(gname);
  if (!g) return args.usage_error("--gen " + gname + ": unknown generation (NV3 ... GF100)");
  m.g = *g;
  const auto file = read_whole_file(in);
  if (!file) {
    std::cerr << "pb-decode: cannot open " << in << "\n";
    return 2;
  }
  const std::vector<unsigned char> bytes(file->begin(), file->end());
  if (bytes.size() % 4) {
    std::cerr << "pb-decode: " << in << ": size " << bytes.size() << " is not a multiple of 4 bytes\n";
    return 2;
  }
  std::vector<uint32_t> words(bytes.size() / 4);
  for (size_t i = 0; i < words.size(); ++i)
    words[i] =
        uint32_t(bytes[4 * i]) | uint32_t(bytes[4 * i + 1]) << 8 | uint32_t(bytes[4 * i + 2]) << 16 | uint32_t(bytes[4 * i + 3]) << 24;
  unsigned errs = 0;
  std::cout << decode_listing(words, m, &errs);
  if (errs) {
    std::cerr << "pb-decode: " << in << ": " << errs << " malformed command(s)\n";
    return 1;
  }
  return 0;
}

}  // namespace gpuvp::pfifo
