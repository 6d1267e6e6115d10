// SPDX-License-Identifier: Apache-2.0
#include "trace.h"
#include "gpuvp/text.h"
#include "trace_scan.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unordered_map>

namespace gpuvp::sm {

namespace {

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw trace_error(path + ": is a directory, expected a trace file");
  auto text = read_whole_file(path);
  if (!text) throw trace_error(path + ":0: cannot open file");
  return std::move(*text);
}

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// A whole word as an unsigned number in base 10 or 16 (digits only, no sign or prefix); false
// when empty, not a number or above 2^64 - 1. (A plain loop: std::from_chars's general path
// was a third of the parser's time.)
template <unsigned base>
inline bool parse_unsigned(std::string_view w, uint64_t& v) {
  if (w.empty()) return false;
  uint64_t x = 0;
  for (char ch : w) {
    unsigned d;
    if (ch >= '0' && ch <= '9')
      d = unsigned(ch - '0');
    else if (base == 16 && ch >= 'a' && ch <= 'f')
      d = unsigned(ch - 'a' + 10);
    else if (base == 16 && ch >= 'A' && ch <= 'F')
      d = unsigned(ch - 'A' + 10);
    else
      return false;
    if (__builtin_mul_overflow(x, base, &x) || __builtin_add_overflow(x, uint64_t(d), &x)) return false;
  }
  v = x;
  return true;
}

// Splits text into lines (views), keeping 1-based numbers implicit by index.
std::vector<std::string_view> lines_of(const std::string& text) {
  std::vector<std::string_view> v;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    v.emplace_back(text.data() + start, nl - start);
    start = nl + 1;
  }
  return v;
}

// Per character: its digit value (0-15), `blank` (a word's end) or `other`.
constexpr uint8_t blank = 16, other = 17;
constexpr std::array<uint8_t, 256> digit_values = [] {
  std::array<uint8_t, 256> t{};
  t.fill(other);
  for (unsigned c = 0; c < 10; ++c) t['0' + c] = uint8_t(c);
  for (unsigned c = 0; c < 6; ++c) t['a' + c] = t['A' + c] = uint8_t(10 + c);
  t[' '] = t['\t'] = blank;
  return t;
}();

struct cursor {
  const std::string& file;
  unsigned line;
  std::string_view rest;

  void skip_blanks() {
    size_t b = 0;
    while (b < rest.size() && (rest[b] == ' ' || rest[b] == '\t' || rest[b] == '\r')) ++b;
    rest.remove_prefix(b);
  }
  // The digits of rest from `i` up to a blank or the end as a number in base 10 or 16, into v;
  // false when there are none, one is not a digit of the base, or the value passes 2^64 - 1.
  template <unsigned base>
  bool digits(size_t& i, uint64_t& v) const {
    const size_t first = i;
    uint64_t x = 0;
    for (; i < rest.size(); ++i) {
      const unsigned d = digit_values[uint8_t(rest[i])];
      if (d == blank) break;
      if (d >= base) return false;
      if constexpr (base == 16) {
        if (x >> 60) return false;
        x = x << 4 | d;
      } else if (__builtin_mul_overflow(x, uint64_t(base), &x) || __builtin_add_overflow(x, uint64_t(d), &x)) {
        return false;
      }
    }
    v = x;
    return i != first;
  }

  [[noreturn]] void fail(const std::string& msg) const { throw trace_error(file + ":" + std::to_string(line) + ": " + msg); }
  // The next space- or tab-separated word (a plain scan: find_first_of(" \t") searches the set
  // once per character).
  std::string_view word(const char* what) {
    size_t b = 0;  // leading blanks (the line is trimmed at its end already)
    while (b < rest.size() && (rest[b] == ' ' || rest[b] == '\t' || rest[b] == '\r')) ++b;
    rest.remove_prefix(b);
    if (rest.empty()) fail(std::string("missing ") + what);
    size_t e = 0;
    while (e < rest.size() && rest[e] != ' ' && rest[e] != '\t') ++e;
    std::string_view w = rest.substr(0, e);
    rest.remove_prefix(e);
    return w;
  }
  // A number read in the same pass that finds the word's end; anything unusual goes the way of
  // number_of_word, for its message.
  uint64_t number(const char* what, int base) {
    skip_blanks();
    uint64_t v = 0;
    size_t i = base == 16 && rest.size() > 2 && rest[0] == '0' && (rest[1] == 'x' || rest[1] == 'X') ? 2 : 0;
    if (!(base == 16 ? digits<16>(i, v) : digits<10>(i, v))) return number_of_word(what, base);
    rest.remove_prefix(i);
    return v;
  }
  uint64_t number_of_word(const char* what, int base) {
    std::string_view w = word(what);
    if (base == 16 && w.size() > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X')) w.remove_prefix(2);
    uint64_t v = 0;
    if (!(base == 16 ? parse_unsigned<16>(w, v) : parse_unsigned<10>(w, v))) fail(std::string("bad ") + what + " '" + std::string(w) + "'");
    return v;
  }
  int64_t signed_number(const char* what) {
    std::string_view w = word(what);
    int64_t v = 0;
    auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), v, 10);
    if (ec != std::errc() || p != w.data() + w.size()) fail(std::string("bad ") + what + " '" + std::string(w) + "'");
    return v;
  }
  // The trailing immediate: decimal, or hex with 0x, optionally negative.
  void immediate() {
    std::string_view w = word("immediate");
    std::string_view d = w;
    if (!d.empty() && d[0] == '-') d.remove_prefix(1);
    int base = 10;
    if (d.size() > 2 && d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) {
      d.remove_prefix(2);
      base = 16;
    }
    uint64_t v = 0;
    auto [p, ec] = std::from_chars(d.data(), d.data() + d.size(), v, base);
    if (d.empty() || ec != std::errc() || p != d.data() + d.size())
      fail("trailing text '" + std::string(w) + (trim(rest).empty() ? "" : " ") + std::string(trim(rest)) +
           "' (expected at most the instruction's immediate)");
  }
  // "R12"; uniform registers "UR4" are numbered above the 256 general registers. Read in one
  // pass as number() is; anything unusual goes the way of reg_of_word, for its message.
  uint16_t reg(const char* what) {
    skip_blanks();
    const bool uniform = rest.size() > 2 && rest[0] == 'U' && rest[1] == 'R';
    size_t i = uniform ? 2 : rest.size() > 1 && rest[0] == 'R' ? 1 : 0;
    uint64_t v = 0;
    if (i == 0 || !digits<10>(i, v) || v > 255) return reg_of_word(what);
    rest.remove_prefix(i);
    return uint16_t((uniform ? 256 : 0) + v);
  }
  uint16_t reg_of_word(const char* what) {
    std::string_view w = word(what);
    // "R12"; uniform registers "UR4" are numbered above the 256 general registers.
    unsigned base = 0;
    if (w.size() > 2 && w[0] == 'U' && w[1] == 'R') {
      base = 256;
      w.remove_prefix(2);
    } else if (w.size() > 1 && w[0] == 'R') {
      w.remove_prefix(1);
    } else {
      fail(std::string("bad ") + what + " '" + std::string(w) + "' (expected Rn)");
    }
    uint64_t v = 0;
    if (!parse_unsigned<10>(w, v) || v > 255) fail(std::string("bad ") + what + " register number '" + std::string(w) + "'");
    return uint16_t(base + v);
  }
};

// "(x,y,z)" or "x,y,z"
dim3 parse_dim(const cursor& c, std::string_view v, const char* what, bool nonzero = true) {
  std::string s;
  for (char ch : v)
    if (ch != '(' && ch != ')' && ch != ' ') s += ch;
  dim3 d;
  unsigned* out[3] = {&d.x, &d.y, &d.z};
  size_t pos = 0;
  for (int i = 0; i < 3; ++i) {
    size_t e = s.find(',', pos);
    std::string_view part(s.data() + pos, (e == std::string::npos ? s.size() : e) - pos);
    auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), *out[i]);
    if (part.empty() || ec != std::errc() || p != part.data() + part.size() || (e == std::string::npos && i < 2))
      c.fail(std::string("bad ") + what + " '" + std::string(v) + "' (expected (x,y,z))");
    pos = e + 1;
  }
  if (nonzero && d.count() == 0) c.fail(std::string(what) + " has a zero dimension");
  return d;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
}

}  // namespace

unsigned access_width_of(std::string_view opcode) {
  // The first '.'-separated token that is a bit count ("32", "64", "128") or "U<bits>" ("U8",
  // "U16") gives the width; none: 4 bytes (Accel-Sim's get_datawidth_from_opcode).
  size_t pos = 0;
  while (pos <= opcode.size()) {
    size_t e = opcode.find('.', pos);
    if (e == std::string_view::npos) e = opcode.size();
    std::string_view t = opcode.substr(pos, e - pos);
    if (!t.empty() && t[0] == 'U')
      t.remove_prefix(1);
    else if (!all_digits(t))
      t = {};
    if (all_digits(t) && t.size() <= 4) {
      unsigned bits = 0;
      std::from_chars(t.data(), t.data() + t.size(), bits);
      return std::max(1u, bits / 8);
    }
    pos = e + 1;
  }
  return 4;
}

namespace {
// Addresses of one memory instruction after its mem_width, into a[32] (0 for inactive lanes).
void parse_addresses(cursor& c, uint32_t mask, uint64_t* a) {
  const uint64_t mode = c.number("address format", 10);
  if (mode == 0) {  // list all: one address per active lane
    for (unsigned t = 0; t < 32; ++t)
      if (mask >> t & 1) a[t] = c.number("address", 16);
  } else if (mode == 1) {
    // base + stride: the first active lane gets base, each following active lane the previous
    // address + stride. As Accel-Sim's base_stride_decompress, the run ends at the first inactive
    // lane after it: later lanes get address 0 (the tracer writes this form only for contiguous
    // masks, so this never matters for its traces).
    const uint64_t base = c.number("base address", 16);
    base_stride_lanes(mask, base, c.signed_number("stride"), a);
  } else if (mode == 2) {
    // base + deltas: the first active lane gets base, each following active lane the previous
    // address + its delta. The tracer writes n-1 deltas for n active lanes; Accel-Sim's parser
    // reads n values, so the n-th is the immediate (swallowed), or absent.
    uint64_t addr = c.number("base address", 16);
    bool first = true;
    for (unsigned t = 0; t < 32; ++t) {
      if (!(mask >> t & 1)) continue;
      if (!first) addr += uint64_t(c.signed_number("address delta"));
      a[t] = addr;
      first = false;
    }
  } else {
    c.fail("unknown address format " + std::to_string(mode) + " (0 list, 1 base+stride, 2 base+deltas)");
  }
}
}  // namespace

// ---- kernelslist.g ---------------------------------------------------------------------------

kernelslist parse_kernelslist_text(const std::string& text, const std::string& name, const std::string& dir) {
  kernelslist kl;
  kl.file = name;
  auto lines = lines_of(text);
  for (unsigned i = 0; i < lines.size(); ++i) {
    std::string_view l = trim(lines[i]);
    if (l.empty() || l[0] == '#') continue;
    cursor c{name, i + 1, l};
    kernelslist::entry e;
    e.line = i + 1;
    if (l.rfind("Memcpy", 0) == 0) {
      // MemcpyHtoD,0x00007f1234500000,4096
      std::string s(l);
      for (char& ch : s)
        if (ch == ',') ch = ' ';
      cursor m{name, i + 1, s};
      std::string_view kind = m.word("memcpy kind");
      if (kind != "MemcpyHtoD" && kind != "MemcpyDtoH") c.fail("unknown command '" + std::string(kind) + "'");
      e.copy.to_device = kind == "MemcpyHtoD";
      e.copy.addr = m.number("memcpy address", 16);
      e.copy.size = m.number("memcpy size", 10);
    } else {
      if (l.find(' ') != std::string_view::npos) c.fail("expected a trace file name or Memcpy command, got '" + std::string(l) + "'");
      e.is_kernel = true;
      e.trace_path = (l[0] == '/' || dir.empty()) ? std::string(l) : dir + "/" + std::string(l);
    }
    kl.entries.push_back(std::move(e));
  }
  bool any = false;
  for (auto& e : kl.entries) any |= e.is_kernel;
  if (!any) throw trace_error(name + ":" + std::to_string(lines.size()) + ": no kernel trace listed");
  return kl;
}

kernelslist parse_kernelslist(const std::string& path) {
  std::string dir;
  if (auto s = path.rfind('/'); s != std::string::npos) dir = path.substr(0, s);
  return parse_kernelslist_text(read_file(path), path, dir);
}

// ---- kernel-N.traceg -------------------------------------------------------------------------

size_t trace_cta::bytes() const {
  size_t n = warps.capacity() * sizeof(trace_warp) + addresses.capacity() * sizeof(uint64_t);
  for (const trace_warp& w : warps) n += w.insts.capacity() * sizeof(trace_inst);
  return n;
}

// One kernel trace being parsed: which headers were seen, the thread block and warp the lines go
// to, and the opcodes classified so far.
struct kernel_trace_parser::state {
  const std::string name;
  kernel_header& k;
  std::vector<std::string> opcodes;  // distinct full opcode strings, in order of first use
  uint64_t warp_insts = 0, ctas_done = 0;
  size_t last_addresses = 0;  // the last block's address count
  // Each distinct opcode string classified once: its index into opcodes and its class
  // (looked up by the line's view, no string built per line).
  struct opcode_hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::pair<uint16_t, opcode_info>, opcode_hash, std::equal_to<>> opcode_ids;
  // In front of opcode_ids for the common lines: a slot per hash of the opcode's first 8 bytes
  // and length, compared without hashing a string.
  struct cached_opcode {
    uint64_t head = 0;
    std::string text;
    uint16_t id = 0;
    opcode_info info;
    uint8_t width = 0;  // access_width_of(text)
  };
  std::array<cached_opcode, 64> opcode_cache;
  instruction_scanner scanner;
  scanned_inst scanned;  // the line instruction_scanned reads
  // Lines without addresses repeat exactly in every warp that runs the instruction: each set of
  // two holds the last two such lines that hashed to it (the last used first), and their
  // instructions.
  struct repeated_line {
    std::string text;
    trace_inst inst;
  };
  static constexpr unsigned repeated_bits = 10;  // sets
  std::vector<repeated_line> repeated = std::vector<repeated_line>(size_t(2) << repeated_bits);
  bool have_grid = false, have_block = false, have_version = false, in_tb = false, in_body = false;
  trace_cta cur;  // the thread block being read
  trace_cta* cta = &cur;
  trace_warp* warp = nullptr;
  uint64_t expect_insts = 0;
  unsigned warp_line = 0;
  uint32_t lanes_left = 0;  // the current warp's lanes that have not exited

  state(const std::string& n, kernel_header& kh) : name(n), k(kh) {}

  void check_warp_done() const {
    if (warp && warp->insts.size() != expect_insts)
      cursor{name, warp_line, {}}.fail("warp declares insts = " + std::to_string(expect_insts) + " but has " +
                                       std::to_string(warp->insts.size()) + " instruction lines");
  }

  // One trimmed line, numbered from 1; true when it ended a thread block.
  bool parse_line(std::string_view l, unsigned line) {
    cursor c{name, line, l};
    if (l.empty()) return false;
    if (l[0] == '-') return header(c, l), false;
    if (l[0] == '#') return marker(c, l);
    if (!in_tb) c.fail("instruction or block line outside #BEGIN_TB/#END_TB: '" + std::string(l) + "'");
    if (l.rfind("thread block", 0) == 0) return thread_block(c, l), false;
    if (l.rfind("warp", 0) == 0 && l.find('=') != std::string_view::npos) return warp_start(c, l), false;
    if (l.rfind("insts", 0) == 0 && l.find('=') != std::string_view::npos) return insts_count(c, l), false;
    if (!warp) c.fail("instruction before 'warp ='");
    instruction(c);
    return false;
  }

  // "-key = value"
  void header(const cursor& c, std::string_view l) {
    if (in_body) c.fail("header line inside the trace body");
    auto eq = l.find('=');
    if (eq == std::string_view::npos) c.fail("header line without '='");
    std::string_view key = trim(l.substr(1, eq - 1)), val = trim(l.substr(eq + 1));
    cursor v{name, c.line, val};
    if (key == "kernel name")
      k.name = std::string(val);
    else if (key == "kernel id")
      k.id = unsigned(v.number("kernel id", 10));
    else if (key == "grid dim") {
      k.grid = parse_dim(c, val, "grid dim");
      have_grid = true;
    } else if (key == "block dim") {
      k.block = parse_dim(c, val, "block dim");
      if (k.block.count() > 1024) c.fail("block dim has " + std::to_string(k.block.count()) + " threads (at most 1024)");
      have_block = true;
    } else if (key == "shmem")
      k.shmem = unsigned(v.number("shmem", 10));
    else if (key == "nregs")
      k.nregs = unsigned(v.number("nregs", 10));
    else if (key == "binary version") {
      k.binary_version = unsigned(v.number("binary version", 10));
      auto a = arch_from_binary_version(k.binary_version);
      if (!a)
        c.fail("unsupported binary version " + std::to_string(k.binary_version) + " (supported: " + supported_binary_versions() + ")");
      k.arch = *a;
      have_version = true;
    } else if (key == "cuda stream id")
      k.stream = v.number("cuda stream id", 10);
    else if (key == "shmem base_addr")
      k.shmem_base = v.number("shmem base_addr", 16);
    else if (key == "local mem base_addr")
      k.local_base = v.number("local mem base_addr", 16);
    else if (key == "accelsim tracer version")
      k.tracer_version = unsigned(v.number("tracer version", 10));
    // other header lines (nvbit version, enable lineinfo, ...) carry nothing timing needs
  }

  // #BEGIN_TB, #END_TB (true: a thread block ended); "#traces format = ..." and comments are
  // skipped.
  bool marker(const cursor& c, std::string_view l) {
    if (l.rfind("#BEGIN_TB", 0) == 0) {
      if (in_tb) c.fail("#BEGIN_TB inside a thread block");
      if (!have_grid || !have_block) c.fail("#BEGIN_TB before '-grid dim' and '-block dim'");
      if (!have_version) c.fail("#BEGIN_TB before '-binary version'");
      if (ctas_done == k.grid.count())
        c.fail("more thread blocks than grid dim " + dims(k.grid) + " has (" + std::to_string(k.grid.count()) + ")");
      in_tb = in_body = true;
      cur = trace_cta{};
      cur.warps.resize(k.warps_per_cta());
      cur.addresses.reserve(last_addresses);  // blocks of one kernel are much alike
      warp = nullptr;
    } else if (l.rfind("#END_TB", 0) == 0) {
      if (!in_tb) c.fail("#END_TB without #BEGIN_TB");
      check_warp_done();
      in_tb = false;
      warp = nullptr;
      ++ctas_done;
      last_addresses = cur.addresses.size();
      return true;
    }
    return false;
  }

  void thread_block(const cursor& c, std::string_view l) {
    auto eq = l.find('=');
    if (eq == std::string_view::npos) c.fail("'thread block' without '='");
    cta->id = parse_dim(c, trim(l.substr(eq + 1)), "thread block", false);
    if (cta->id.x >= k.grid.x || cta->id.y >= k.grid.y || cta->id.z >= k.grid.z) c.fail("thread block outside the grid");
  }

  void warp_start(const cursor& c, std::string_view l) {
    check_warp_done();
    cursor v{name, c.line, trim(l.substr(l.find('=') + 1))};
    uint64_t w = v.number("warp id", 10);
    if (w >= cta->warps.size())
      c.fail("warp " + std::to_string(w) + " outside the block (" + std::to_string(cta->warps.size()) + " warps)");
    warp = &cta->warps[w];
    if (!warp->insts.empty()) c.fail("warp " + std::to_string(w) + " listed twice in this block");
    warp_line = c.line;
    expect_insts = 0;
    const uint64_t threads = std::min<uint64_t>(32, k.block.count() - w * 32);
    lanes_left = threads == 32 ? ~0u : (1u << threads) - 1;
  }

  void insts_count(const cursor& c, std::string_view l) {
    if (!warp) c.fail("'insts =' before 'warp ='");
    cursor v{name, c.line, trim(l.substr(l.find('=') + 1))};
    expect_insts = v.number("instruction count", 10);
    if (expect_insts > UINT32_MAX) c.fail("instruction count " + std::to_string(expect_insts) + " above 4294967295");
    warp->insts.reserve(size_t(std::min<uint64_t>(expect_insts, 1u << 16)));
  }

  // PC mask dest_num [R..] opcode src_num [R..] mem_width [addr_mode addresses]
  void instruction(cursor& c) {
    trace_inst ti;
    ti.pc = uint32_t(c.number("PC", 16));
    const uint64_t mask = c.number("active mask", 16);
    if (mask > UINT32_MAX) {
      char hex[24];
      std::snprintf(hex, sizeof hex, "%llx", (unsigned long long)mask);
      c.fail(std::string("active mask ") + hex + " wider than 32 lanes");
    }
    ti.mask = uint32_t(mask);
    uint64_t nd = c.number("destination count", 10);
    if (nd > 4) c.fail("destination count " + std::to_string(nd) + " > 4");
    ti.ndst = uint8_t(nd);
    for (unsigned d = 0; d < nd; ++d) ti.dst[d] = c.reg("destination register");
    std::string_view op = c.word("opcode");
    classify(c, op, ti);
    if (ti.info.cls == op_class::exit) {
      // Each lane exits once, and only a thread of the block can (Accel-Sim asserts both in
      // shd_warp_t::set_completed).
      if (ti.mask & ~lanes_left) {
        char hex[16];
        std::snprintf(hex, sizeof hex, "%08x", ti.mask & ~lanes_left);
        c.fail(std::string("EXIT of lanes ") + hex + " that already exited or are not threads of the block");
      }
      lanes_left &= ~ti.mask;
    }
    uint64_t ns = c.number("source count", 10);
    if (ns > 4) c.fail("source count " + std::to_string(ns) + " > 4");
    ti.nsrc = uint8_t(ns);
    for (unsigned s = 0; s < ns; ++s) ti.src[s] = c.reg("source register");
    memory_operands(c, op, ti);
    // Every real tracer line ends with the instruction's immediate (its `#traces format` comment
    // names it); Accel-Sim ignores it, lines without it are accepted too.
    if (!trim(c.rest).empty()) c.immediate();
    if (!trim(c.rest).empty()) c.fail("trailing text '" + std::string(trim(c.rest)) + "'");
    if (warp->insts.size() >= expect_insts) c.fail("more instruction lines than 'insts = " + std::to_string(expect_insts) + "'");
    warp->insts.push_back(ti);
    ++warp_insts;
  }

  static bool is_hex_digit(char ch) { return digit_values[uint8_t(ch)] < 16; }

  // An instruction line of the common shape (trace_scan.h) that every check passes, read without
  // a cursor; false, the parse unchanged, for any other line: instruction() then reads it.
  bool instruction_scanned(std::string_view l) {
    repeated_line* ways = &repeated[repeated_set(l) * 2];
    const bool seen = ways[0].text == l || (ways[1].text == l && (std::swap(ways[0], ways[1]), true));
    trace_inst ti;
    bool memory = false;
    if (seen) {
      ti = ways[0].inst;
    } else {
      if (!scan_fields(l, ti)) return false;
      memory = scanned.memory;
    }
    const bool exits = ti.info.cls == op_class::exit;
    if (exits && (ti.mask & ~lanes_left)) return false;
    std::vector<uint64_t>& a = cta->addresses;
    if (memory && a.size() > UINT32_MAX - 32) return false;
    if (warp->insts.size() >= expect_insts) return false;
    if (exits) lanes_left &= ~ti.mask;
    if (memory) {
      ti.addr_index = uint32_t(a.size());
      a.insert(a.end(), scanned.addrs, scanned.addrs + 32);
    } else if (!seen) {  // the older way makes room
      std::swap(ways[0], ways[1]);
      ways[0].text.assign(l);
      ways[0].inst = ti;
    }
    warp->insts.push_back(ti);
    ++warp_insts;
    return true;
  }

  // The line's fields into ti with its opcode's class and the memory checks of memory_operands
  // (the addresses stay in `scanned`); false where instruction() is to read the line.
  bool scan_fields(std::string_view l, trace_inst& ti) {
    scanned_inst& si = scanned;
    if (!scanner.scan(l, si)) return false;
    const cached_opcode* op = cached(si.opcode, si.opcode_head);
    if (!op) return false;
    ti.pc = si.pc;
    ti.mask = si.mask;
    ti.opcode = op->id;
    ti.info = op->info;
    ti.ndst = si.ndst;
    ti.nsrc = si.nsrc;
    std::copy_n(si.dst, si.ndst, ti.dst);
    std::copy_n(si.src, si.nsrc, ti.src);
    if (si.memory) {
      if (ti.info.cls != op_class::mem) return false;
      ti.width = op->width;
    } else if (ti.info.cls == op_class::mem && ti.info.space != mem_space::constant) {
      ti.info.space = mem_space::none;  // as memory_operands
    }
    return true;
  }

  // A set of `repeated` from the line's first and last 8 bytes and its length (lines of two
  // instructions differ in those: the PC and the registers).
  static size_t repeated_set(std::string_view l) {
    uint64_t head = 0, tail = 0;
    if (l.size() >= 8) {
      std::memcpy(&head, l.data(), 8);
      std::memcpy(&tail, l.data() + l.size() - 8, 8);
    }
    const uint64_t h = (head * 0x9e3779b97f4a7c15ull) ^ (tail * 0xc2b2ae3d27d4eb4full) ^ l.size();
    return size_t((h * 0x9e3779b97f4a7c15ull) >> (64 - repeated_bits));
  }

  // The opcode's cache slot, filled from opcode_ids; nullptr when it was never classified.
  const cached_opcode* cached(std::string_view op, uint64_t head) {
    cached_opcode& e = opcode_cache[((head ^ op.size()) * 0x9e3779b97f4a7c15ull) >> 58];
    if (e.head == head && e.text.size() == op.size() &&
        (op.size() <= 8 || std::memcmp(e.text.data() + 8, op.data() + 8, op.size() - 8) == 0))
      return &e;
    auto it = opcode_ids.find(op);
    if (it == opcode_ids.end()) return nullptr;
    e = cached_opcode{head, std::string(op), it->second.first, it->second.second, uint8_t(access_width_of(op))};
    return &e;
  }

  // The opcode's index into opcodes and its class (classified on its first use).
  void classify(const cursor& c, std::string_view op, trace_inst& ti) {
    auto it = opcode_ids.find(op);
    if (it == opcode_ids.end()) {
      auto info = classify_opcode(k.arch, op);
      if (!info) c.fail("unknown " + std::string(arch_name(k.arch)) + " opcode '" + std::string(op) + "'");
      if (opcodes.size() > UINT16_MAX) c.fail("more than 65536 distinct opcodes in one kernel");
      it = opcode_ids.emplace(std::string(op), std::pair{uint16_t(opcodes.size()), *info}).first;
      opcodes.emplace_back(op);
    }
    ti.opcode = it->second.first;
    ti.info = it->second.second;
  }

  // The trace's mem_width only says "memory instruction" when > 0; the access width comes from
  // the opcode, as Accel-Sim's parser reads it (nvbit can report mem_width wrongly).
  void memory_operands(cursor& c, std::string_view op, trace_inst& ti) {
    uint64_t mem_width = c.number("memory width", 10);
    if (mem_width) {
      if (ti.info.cls != op_class::mem) c.fail("memory width on non-memory opcode '" + std::string(op) + "'");
      ti.width = uint8_t(access_width_of(op));
      std::vector<uint64_t>& a = cta->addresses;
      if (a.size() > UINT32_MAX - 32) c.fail("more than 134217727 memory instructions in one thread block");
      ti.addr_index = uint32_t(a.size());
      a.resize(a.size() + 32, 0);
      parse_addresses(c, ti.mask, &a[ti.addr_index]);
    } else if (ti.info.cls == op_class::mem && ti.info.space != mem_space::constant) {
      ti.info.space = mem_space::none;  // a memory opcode traced without addresses: no access
    }
  }

  // The end-of-file checks; `last`: the number of the last line.
  void finish(unsigned last) const {
    const cursor c{name, last, {}};
    if (in_tb) c.fail("end of file inside a thread block (missing #END_TB)");
    if (!have_grid || !have_block) c.fail("missing '-grid dim' or '-block dim' header");
    if (ctas_done == 0) c.fail("no thread block in trace");
    if (ctas_done != k.grid.count())
      c.fail("end of file after " + std::to_string(ctas_done) + (ctas_done == 1 ? " thread block" : " thread blocks") + ", but grid dim " +
             dims(k.grid) + " has " + std::to_string(k.grid.count()));
  }
  static std::string dims(const dim3& d) { return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")"; }
};

kernel_trace_parser::kernel_trace_parser(const std::string& file, kernel_header& header) : s_(std::make_unique<state>(file, header)) {}
kernel_trace_parser::~kernel_trace_parser() = default;
bool kernel_trace_parser::line(std::string_view text, unsigned number) {
  const std::string_view l = trim(text);
  // An instruction line (a warp is open, so a block too) of the common shape first.
  if (s_->warp && !l.empty() && state::is_hex_digit(l[0]) && s_->instruction_scanned(l)) return false;
  return s_->parse_line(l, number);
}
trace_cta kernel_trace_parser::take_cta() { return std::move(s_->cur); }
bool kernel_trace_parser::in_body() const { return s_->in_body; }
void kernel_trace_parser::finish(unsigned last) const { s_->finish(last); }
const std::vector<std::string>& kernel_trace_parser::opcodes() const { return s_->opcodes; }
uint64_t kernel_trace_parser::warp_insts() const { return s_->warp_insts; }
uint64_t kernel_trace_parser::ctas() const { return s_->ctas_done; }

kernel_trace parse_kernel_trace_text(const std::string& text, const std::string& name) {
  kernel_trace k;
  k.file = name;
  kernel_trace_parser parser(name, k);
  unsigned number = 0;
  for (size_t start = 0; start < text.size(); ++number) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    if (parser.line(std::string_view(text.data() + start, nl - start), number + 1)) k.ctas.push_back(parser.take_cta());
    start = nl + 1;
  }
  parser.finish(number);
  k.opcodes = parser.opcodes();
  k.warp_insts = parser.warp_insts();
  return k;
}

}  // namespace gpuvp::sm
