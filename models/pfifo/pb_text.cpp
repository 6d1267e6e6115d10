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

void assemble_line(const std::string& raw, gen g, std::vector<uint32_t>& out) {
  std::string line = raw.substr(0, raw.find('#'));
  auto w = split_words(line);
  if (w.empty()) return;
  const std::string& op = w[0];
  auto need = [&](size_t n, const char* usage) {
    if (w.size() < n) throw asm_error("'" + op + "' needs " + usage);
  };
  auto subc = [&](const std::string& t) {
    uint32_t s = u32(t, "subchannel");
    if (s > 7) throw asm_error("subchannel " + t + " is not in 0..7");
    return s;
  };
  auto data_from = [&](size_t first) {
    std::vector<uint32_t> d;
    for (size_t i = first; i < w.size(); ++i) d.push_back(u32(w[i], "data word"));
    return d;
  };
  const bool gf = uses_gf100_format(g);
  if (op == "word" || op == "raw") {
    need(2, "at least one word");
    for (auto v : data_from(1)) out.push_back(v);
  } else if (op == "inc" || op == "ninc" || op == "gf.inc" || op == "gf.ninc" || op == "gf.once") {
    need(4, "SUBC METHOD DATA...");
    const uint32_t s = subc(w[1]), m = parse_method(w[2], g);
    auto d = data_from(3);
    const bool old = op == "inc" || op == "ninc";
    if (old && (d.size() > 0x7ff || m >= 0x2000)) throw asm_error("'" + op + "' takes at most 2047 words and methods below 0x2000");
    if (!old && !gf) throw asm_error("'" + op + "' exists only in the GF100 format (gen " + gen_name(g) + ")");
    if (!old && d.size() > 0x1fff) throw asm_error("'" + op + "' takes at most 8191 words");
    if (op == "ninc" && g < gen::nv10) throw asm_error("non-increasing methods need NV10+");
    if (op == "inc")
      out.push_back(hdr_inc(s, m, uint32_t(d.size())));
    else if (op == "ninc")
      out.push_back(hdr_ninc(s, m, uint32_t(d.size())));
    else if (op == "gf.inc")
      out.push_back(hdr_gf_inc(s, m, uint32_t(d.size())));
    else if (op == "gf.ninc")
      out.push_back(hdr_gf_ninc(s, m, uint32_t(d.size())));
    else
      out.push_back(hdr_gf_incr_once(s, m, uint32_t(d.size())));
    out.insert(out.end(), d.begin(), d.end());
  } else if (op == "lninc") {
    need(4, "SUBC METHOD DATA...");
    if (gf) throw asm_error("'lninc' does not exist in the GF100 format");
    const uint32_t s = subc(w[1]), m = parse_method(w[2], g);
    auto d = data_from(3);
    out.push_back(hdr_long_ninc(s, m));
    out.push_back(uint32_t(d.size()) & 0xffffff);
    out.insert(out.end(), d.begin(), d.end());
  } else if (op == "gf.inline") {
    need(4, "SUBC METHOD VALUE");
    if (!gf) throw asm_error("'gf.inline' exists only in the GF100 format");
    const uint32_t s = subc(w[1]), m = parse_method(w[2], g), v = u32(w[3], "inline value");
    if (v > 0x1fff) throw asm_error("inline value " + w[3] + " does not fit in 13 bits");
    out.push_back(hdr_gf_inline(s, m, v));
  } else if (op == "jump" || op == "oldjump" || op == "call") {
    need(2, "ADDRESS");
    const uint32_t a = u32(w[1], "address");
    if (a & 3) throw asm_error("target " + w[1] + " is not 4-byte aligned");
    if (op == "oldjump") {
      if (a > 0x1fffffff) throw asm_error("old jump target " + w[1] + " does not fit in 29 bits");
      out.push_back(0x20000000 | a);
    } else {
      out.push_back(a | (op == "jump" ? 1 : 2));
    }
  } else if (op == "ret" || op == "return") {
    out.push_back(0x00020000);
  } else if (op == "sli") {
    need(2, "MASK");
    out.push_back(hdr_sli(u32(w[1], "SLI mask")));
  } else if (op == "gf.sli.store") {
    need(2, "MASK");
    out.push_back(0x00020000 | (u32(w[1], "SLI mask") & 0xfff) << 4);
  } else if (op == "gf.sli.user") {
    out.push_back(0x00030000);
  } else if (op == "nop") {
    out.push_back(0);
  } else {
    throw asm_error("unknown command '" + op + "'");
  }
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

std::string decode_listing(const std::vector<uint32_t>& words, const listing_mode& m, unsigned* errors) {
  std::ostringstream os;
  unsigned errs = 0;
  size_t i = 0;
  auto addr = [&](size_t k) { return hex(m.base + 4 * k, 10); };
  while (i < words.size()) {
    const uint32_t w = words[i];
    const command c = decode_header(w, {m.g, m.ib, m.sli_enable});
    os << addr(i) << "  " << hex(w) << "  " << cmd_kind_name(c.kind);
    size_t count = c.count;
    bool ni = false, once = false;
    switch (c.kind) {
      case cmd_kind::increasing:
      case cmd_kind::gf_increasing:
        break;
      case cmd_kind::non_increasing:
      case cmd_kind::gf_non_increasing:
        ni = true;
        break;
      case cmd_kind::gf_increase_once:
        once = true;
        break;
      case cmd_kind::long_non_increasing:
        ni = true;
        if (i + 1 >= words.size()) {
          os << "  subc " << c.subc << " mthd " << hex(c.mthd, 4) << "  ERROR: count word missing\n";
          ++errs;
          i = words.size();
          continue;
        }
        count = words[i + 1] & 0xffffff;
        break;
      default:
        break;
    }
    switch (c.kind) {
      case cmd_kind::jump:
      case cmd_kind::old_jump:
      case cmd_kind::call:
        os << " " << hex(c.target) << "\n";
        ++i;
        continue;
      case cmd_kind::ret:
        os << "\n";
        ++i;
        continue;
      case cmd_kind::sli_conditional:
      case cmd_kind::gf_sli_user_mask_store:
        os << " mask " << hex(c.mask, 3) << "\n";
        ++i;
        continue;
      case cmd_kind::gf_sli_cond_user_mask:
        os << "\n";
        ++i;
        continue;
      case cmd_kind::invalid:
        os << "  ERROR: INVALID_CMD\n";
        ++errs;
        ++i;
        continue;
      default:
        break;
    }
    auto name = [&](uint32_t mthd) {
      std::string n = mthd < 0x100 ? puller_mthd_name(m.g, mthd) : m2mf_mthd_name(mthd);
      return n.empty() ? std::string() : " " + n;
    };
    if (c.kind == cmd_kind::gf_inline) {
      os << "  [" << c.subc << "] " << hex(c.mthd, 4) << name(c.mthd) << " = " << hex(c.data, 4) << "\n";
      ++i;
      continue;
    }
    os << "  subc " << c.subc << " mthd " << hex(c.mthd, 4) << name(c.mthd) << " count " << count;
    if (count == 0) os << (c.kind == cmd_kind::increasing && w == 0 ? " (NOP)" : "");
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
      if (once && k == 0)
        mthd += 4;
      else if (!ni && !once)
        mthd += 4;
      mthd &= method_space(m.g) - 1;
    }
    if (k < count) {
      os << "ERROR: command truncated, " << (count - k) << " data word(s) missing\n";
      ++errs;
    }
    i = first + k;
  }
  if (errors) *errors = errs;
  return os.str();
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
