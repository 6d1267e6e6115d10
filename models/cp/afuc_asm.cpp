// SPDX-License-Identifier: Apache-2.0
#include "afuc_asm.h"
#include "gpuvp/number.h"
#include "gpuvp/text.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "afuc.h"
#include "afuc_iss.h"

namespace gpuvp::cp {

namespace {

struct tok {
  enum kind { ident, reg, num, label_ref, ctrl, sqe, bit, literal, punct } k;
  std::string s;
  uint64_t v = 0;
  int64_t sv = 0;
};

// gpuvp's one number parser (gpuvp/number.h): decimal, 0x hex, 0b binary, `_` separators (a
// leading 0 is not octal). A number beyond 64 bits gives ~0, so that the operand's range check
// names it; text that is no number gives nullopt.
std::optional<uint64_t> number_of(const std::string& text) {
  try {
    return parse_number(text);
  } catch (const std::out_of_range&) {
    return ~uint64_t(0);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

struct line_parser {
  const std::string& file;
  int line;
  std::string text;
  size_t pos = 0;

  [[noreturn]] void fail(const std::string& msg) const { throw asm_error(file + ":" + std::to_string(line) + ": " + msg); }

  static bool idch(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

  // `$reg`, `#label`, `@CONTROL[+N]`, `%SQE[+N]` at pos (the sigil c).
  void lex_sigil(char c, std::vector<tok>& out) {
    size_t b = ++pos;
    if (c == '$') {
      while (pos < text.size() && idch(text[pos])) pos++;
      out.push_back({tok::reg, text.substr(b, pos - b)});
      return;
    }
    if (c == '#' && pos < text.size() && (text[pos] == '-' || text[pos] == '+')) pos++;
    while (pos < text.size() && idch(text[pos])) pos++;
    out.push_back({c == '#' ? tok::label_ref : c == '@' ? tok::ctrl : tok::sqe, text.substr(b, pos - b)});
    // Mesa's `@NAME+N` / `%NAME+N`: a control (SQE) register plus an offset.
    if (c != '#' && pos + 1 < text.size() && text[pos] == '+' && std::isdigit(static_cast<unsigned char>(text[pos + 1]))) {
      const size_t nb = ++pos;
      while (pos < text.size() && idch(text[pos])) pos++;
      const auto v = number_of(text.substr(nb, pos - nb));
      if (!v) fail("bad offset in '" + std::string(1, c) + out.back().s + "+" + text.substr(nb, pos - nb) + "'");
      out.back().v = *v;
    }
  }

  // "[hex]" is a raw literal if the bracket holds only hex digits (else '[' is punctuation).
  bool lex_literal(std::vector<tok>& out) {
    const size_t e = text.find(']', pos);
    if (e == std::string::npos || e <= pos + 1) return false;
    const std::string in = text.substr(pos + 1, e - pos - 1);
    bool allhex = in.size() <= 8;
    for (char h : in) allhex = allhex && std::isxdigit(static_cast<unsigned char>(h));
    if (!allhex) return false;
    out.push_back({tok::literal, in, *number_of("0x" + in)});
    pos = e + 1;
    return true;
  }

  // A word: `label:`, a bit number `bN` (decimal), or an identifier (mnemonic, directive).
  void lex_word(std::vector<tok>& out) {
    const size_t b = pos++;
    while (pos < text.size() && (idch(text[pos]) || text[pos] == '.')) pos++;
    if (pos < text.size() && text[pos] == ':') {
      out.push_back({tok::punct, text.substr(b, pos - b) + ":"});
      pos++;
      return;
    }
    const std::string w = text.substr(b, pos - b);
    if (w.size() >= 2 && w[0] == 'b' && std::all_of(w.begin() + 1, w.end(), ::isdigit))
      out.push_back({tok::bit, w, *number_of(w.substr(1))});
    else
      out.push_back({tok::ident, w});
  }

  std::vector<tok> lex() {
    std::vector<tok> out;
    while (pos < text.size()) {
      const char c = text[pos];
      if (c == ';') break;
      if (std::isspace(static_cast<unsigned char>(c))) {
        pos++;
        continue;
      }
      if (c == '$' || c == '#' || c == '@' || c == '%') {
        lex_sigil(c, out);
        continue;
      }
      if (c == '[' && lex_literal(out)) continue;
      if (c == '(') {
        const size_t e = text.find(')', pos);
        if (e == std::string::npos) fail("unterminated '('");
        out.push_back({tok::punct, text.substr(pos, e - pos + 1)});
        pos = e + 1;
      } else if (c == '<' && pos + 1 < text.size() && text[pos + 1] == '<') {
        out.push_back({tok::punct, "<<"});
        pos += 2;
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        const size_t b = pos;
        while (pos < text.size() && idch(text[pos])) pos++;
        const std::string n = text.substr(b, pos - b);
        const auto v = number_of(n);
        if (!v) fail("bad number '" + n + "'");
        out.push_back({tok::num, n, *v});
      } else if (idch(c) || c == '.') {
        lex_word(out);
      } else if (c == ',' || c == '[' || c == ']' || c == '+' || c == '!') {
        out.push_back({tok::punct, std::string(1, c)});
        pos++;
      } else {
        fail(std::string("unexpected character '") + c + "'");
      }
    }
    return out;
  }
};

uint8_t parse_reg(const line_parser& lp, const std::string& r, bool is_dst) {
  if (r == "rem") return REG_REM;
  if (r == "data") return REG_DATA;
  if (is_dst && r == "addr") return REG_ADDR;
  if (is_dst && r == "usraddr") return REG_USRADDR;
  if (!is_dst && r == "memdata") return REG_MEMDATA;
  if (!is_dst && r == "regdata") return REG_REGDATA;
  if (!is_dst && r == "addr") return REG_MEMDATA;  // Mesa's afuc.rst spells reads "mov $03, $addr"
  if (r.size() == 2 && std::isxdigit(static_cast<unsigned char>(r[0])) && std::isxdigit(static_cast<unsigned char>(r[1]))) {
    const uint64_t v = *number_of("0x" + r);
    if (v < 0x1c) return uint8_t(v);
  }
  lp.fail("bad " + std::string(is_dst ? "destination" : "source") + " register '$" + r + "'");
}

struct pending {
  afuc_instr in;
  std::string label;   // unresolved target
  bool rel = false;    // label is a relative/absolute number, not a name
  int64_t number = 0;  // that number
  int line = 0;
  bool raw = false;
  uint32_t raw_word = 0;
};

// SQE registers of Mesa's swrite/sread (`%NAME`; see docs/tools/afuc.md).
std::optional<uint32_t> sqe_reg_by_name(const std::string& n) {
  if (n == "PREEMPT_INSTR") return 0x004;
  if (n == "SP") return 0x005;
  if (n.size() == 6 && n.compare(0, 5, "STACK") == 0 && n[5] >= '0' && n[5] <= '7') return 0x008 + uint32_t(n[5] - '0');
  return std::nullopt;
}

// The operands of one instruction line: tokens t[i..] after the mnemonic mn, into p.
struct operand_reader {
  const line_parser& lp;
  const std::vector<tok>& t;
  size_t i;
  std::string mn;  // the mnemonic, for messages
  pending& p;
  int gen;

  bool at(tok::kind k) const { return i < t.size() && t[i].k == k; }
  bool at(const char* s) const { return i < t.size() && t[i].s == s; }
  const tok& need(tok::kind k, const char* what) {
    if (!at(k)) lp.fail(std::string("expected ") + what + " in '" + mn + "'");
    return t[i++];
  }
  void punct(const char* s) {
    if (!at(s)) lp.fail(std::string("expected '") + s + "' in '" + mn + "'");
    i++;
  }
  void comma() { punct(","); }
  uint8_t reg(bool is_dst, const char* what) { return parse_reg(lp, need(tok::reg, what).s, is_dst); }
  uint32_t imm(uint64_t max, const char* what) {
    const tok& n = need(tok::num, what);
    if (n.v > max) lp.fail(std::string(what) + " " + n.s + " out of range");
    return uint32_t(n.v);
  }
  void label() {
    const tok& l = need(tok::label_ref, "a #label");
    p.label = l.s;
    p.rel = !l.s.empty() && (l.s[0] == '-' || l.s[0] == '+' || std::isdigit(static_cast<unsigned char>(l.s[0])));
    if (p.rel) {  // "#-3", "#+0x10", "#16": the whole text must be one number in range
      const bool sign = l.s[0] == '-' || l.s[0] == '+';
      const auto v = number_of(l.s.substr(sign ? 1 : 0));
      if (!v || *v > uint64_t(INT64_MAX)) lp.fail("bad branch target '#" + l.s + "'");
      p.number = l.s[0] == '-' ? -int64_t(*v) : int64_t(*v);
    }
  }
  void done() {
    if (i != t.size()) lp.fail("unexpected '" + t[i].s + "' after '" + mn + "'");
  }
};

// The base of a control access: imm12, @CONTROL_REG[+N] or (sread/swrite) %SQE_REG[+N].
uint32_t control_base(operand_reader& r, bool sqe) {
  if (r.at(tok::ctrl) || r.at(tok::sqe)) {
    const tok& n = r.t[r.i];
    const bool is_sqe = n.k == tok::sqe;
    const char* sigil = is_sqe ? "%" : "@";
    if (is_sqe && !sqe) r.lp.fail("SQE register '%" + n.s + "' needs sread/swrite");
    auto v = is_sqe ? sqe_reg_by_name(n.s) : control_reg_by_name(n.s, r.gen);
    if (!v) r.lp.fail(std::string("unknown ") + (is_sqe ? "SQE" : "control") + " register '" + sigil + n.s + "'");
    if (*v + n.v > 0xfff) r.lp.fail(std::string("control offset '") + sigil + n.s + "+" + std::to_string(n.v) + "' out of range");
    r.i++;
    return uint32_t(*v + n.v);
  }
  return r.imm(0xfff, "control offset");
}

// cwrite/cread/swrite/sread/store/load $reg, [$off + base] then Mesa's current `!`
// (pre-increment) or the older `, flags`. FLAGS [15:12]: 0x8 sread/swrite (a6xx; on a5xx the
// plain cwrite/cread), 0x4 pre-increment, 0x3 (sdsN). Without flags, a5xx cwrite/cread get 0x8.
void parse_control(operand_reader& r, afuc_instr& in, bool value_is_dst, bool sqe) {
  if (value_is_dst)
    in.dst = r.reg(true, "a register");
  else
    in.src1 = r.reg(false, "a register");
  r.comma();
  r.punct("[");
  const uint8_t off = r.reg(false, "an offset register");
  (value_is_dst ? in.src1 : in.src2) = off;
  r.punct("+");
  in.immed = control_base(r, sqe);
  r.punct("]");
  uint32_t flags = in.bit;  // (sdsN) so far
  if (r.at("!")) {
    r.i++;
    flags |= 0x4;
  }
  if (r.at(",")) {
    r.i++;
    flags |= r.imm(0xf, "flags");
  } else if (r.gen == 5 && (in.op == afuc_op::cwrite || in.op == afuc_op::cread)) {
    flags |= 0x8;
  }
  if (sqe) flags |= 0x8;
  in.bit = uint8_t(flags);
}

uint8_t parse_modifiers(operand_reader& r, afuc_instr& in) {
  uint8_t sds = 0;
  while (r.at(tok::punct) && r.t[r.i].s[0] == '(') {
    const std::string& m = r.t[r.i].s;
    const auto digit = [&](const char* prefix) -> int {
      const size_t n = std::strlen(prefix);
      return m.size() == n + 2 && m.compare(0, n, prefix) == 0 && m[n] >= '1' && m[n] <= '3' ? m[n] - '0' : 0;
    };
    if (m == "(rep)")
      in.rep = true;
    else if (int x = digit("(xmov"))
      in.xmov = uint8_t(x);
    else if (int d = digit("(sds"))
      sds = uint8_t(d);
    else
      r.lp.fail("unknown modifier '" + m + "'");
    r.i++;
  }
  return sds;
}

const std::map<std::string, afuc_op>& alu_ops() {
  static const std::map<std::string, afuc_op> m = {
      {"add", afuc_op::add},   {"addhi", afuc_op::addhi}, {"sub", afuc_op::sub},   {"subhi", afuc_op::subhi}, {"and", afuc_op::and_},
      {"or", afuc_op::or_},    {"xor", afuc_op::xor_},    {"not", afuc_op::not_},  {"shl", afuc_op::shl},     {"ushr", afuc_op::ushr},
      {"ishr", afuc_op::ishr}, {"rot", afuc_op::rot},     {"mul8", afuc_op::mul8}, {"min", afuc_op::min},     {"max", afuc_op::max},
      {"cmp", afuc_op::cmp},   {"msb", afuc_op::msb},     {"bic", afuc_op::bic}};
  return m;
}

void parse_alu(operand_reader& r, afuc_instr& in, afuc_op op) {
  in.op = op;
  in.dst = r.reg(true, "a destination register");
  r.comma();
  const bool one_src = in.op == afuc_op::not_ || in.op == afuc_op::msb;
  if (!one_src) {
    in.src1 = r.reg(false, "a source register");
    r.comma();
  }
  if (r.at(tok::num)) {
    if (in.op == afuc_op::msb) r.lp.fail("msb takes a register source");
    if (in.xmov) r.lp.fail("(xmovN) needs a register source");
    in.has_immed = true;
    in.immed = r.imm(0xffff, "immediate");
  } else {
    const uint8_t s = r.reg(false, "a source register or immediate");
    (one_src ? in.src1 : in.src2) = s;
  }
}

void parse_mov(operand_reader& r, afuc_instr& in) {
  in.dst = r.reg(true, "a destination register");
  r.comma();
  if (r.at(tok::reg)) {
    in.op = afuc_op::or_;
    in.src1 = 0;
    in.src2 = r.reg(false, "a source register");
    return;
  }
  in.op = afuc_op::movi;
  if (in.xmov) r.lp.fail("(xmovN) needs a register source");
  if (r.at(tok::label_ref)) {
    r.label();
    return;
  }
  uint32_t v = r.imm(0xffffffffull, "immediate");
  if (r.at("<<")) {
    r.i++;
    in.shift = uint8_t(r.imm(31, "shift"));
    if (v > 0xffff) r.lp.fail("immediate does not fit 16 bits");
  } else {
    while (v > 0xffff && !(v & 1)) {
      v >>= 1;
      in.shift++;
    }
    if (v > 0xffff) r.lp.fail("immediate cannot be encoded as imm16 << shift");
  }
  in.immed = v;
}

void parse_branch(operand_reader& r, afuc_instr& in, bool ne) {
  in.src1 = r.reg(false, "a source register");
  r.comma();
  if (r.at(tok::bit)) {
    if (r.t[r.i].v > 31) r.lp.fail("bit number out of range");
    in.op = ne ? afuc_op::brneb : afuc_op::breqb;
    in.bit = uint8_t(r.t[r.i++].v);
  } else {
    in.op = ne ? afuc_op::brnei : afuc_op::breqi;
    in.immed = r.imm(0x1f, "branch immediate");
    in.bit = uint8_t(in.immed);
  }
  r.comma();
  r.label();
}

void parse_setbit(operand_reader& r, afuc_instr& in, bool set) {
  in.op = set ? afuc_op::setbit : afuc_op::clrbit;
  in.dst = r.reg(true, "a destination register");
  r.comma();
  in.src1 = r.reg(false, "a source register");
  r.comma();
  if (set && r.at(tok::reg)) {  // register form (a6xx)
    in.op = afuc_op::setbitr;
    in.src2 = r.reg(false, "a register");
  } else {
    const tok& b = r.need(tok::bit, "a bit number bN or a register");
    if (b.v > 31) r.lp.fail("bit number out of range");
    in.bit = uint8_t(b.v);
  }
  if (in.xmov && in.op != afuc_op::setbitr) r.lp.fail("(xmovN) is not allowed on '" + r.mn + "' with bN");
}

// a7xx `ubfx/bfi $d, $s, bLO, bHI`.
void parse_bitfield(operand_reader& r, afuc_instr& in, bool extract) {
  in.op = extract ? afuc_op::ubfx : afuc_op::bfi;
  in.dst = r.reg(true, "a destination register");
  r.comma();
  in.src1 = r.reg(false, "a source register");
  for (int k = 0; k < 2; k++) {
    r.comma();
    const tok& b = r.need(tok::bit, "a bit number bN");
    if (b.v > 31) r.lp.fail("bit number out of range");
    if (k == 0)
      in.bit = uint8_t(b.v);
    else
      in.immed = uint32_t(b.v);
  }
  if (in.bit > in.immed) r.lp.fail("'" + r.mn + "': low bit above high bit");
}

// Flow instructions and nop; false if mn is none of them.
bool parse_flow(operand_reader& r, afuc_instr& in) {
  const std::string& mn = r.mn;
  static const std::map<std::string, afuc_op> bare = {
      {"ret", afuc_op::ret}, {"iret", afuc_op::iret}, {"waitin", afuc_op::waitin}, {"nop", afuc_op::nop}};
  static const std::map<std::string, afuc_op> absolute = {
      {"call", afuc_op::call}, {"jumpa", afuc_op::jumpa}, {"preemptleave", afuc_op::preemptleave}};
  if (auto it = bare.find(mn); it != bare.end()) {
    in.op = it->second;
  } else if (auto a = absolute.find(mn); a != absolute.end()) {
    in.op = a->second;
    r.label();
  } else if ((mn == "jump" && r.at(tok::reg)) || mn == "jumpr") {
    in.op = afuc_op::jumpr;
    in.src1 = r.reg(false, "a register");
  } else if (mn == "jump") {
    in.op = afuc_op::brneb;
    r.label();
  } else if (mn == "setsecure") {
    in.op = afuc_op::setsecure;
    if (r.reg(false, "$02") != 2) r.lp.fail("setsecure takes $02");
    r.comma();
    r.label();  // the target is implicitly pc + 3; checked when resolved
  } else if (mn == "bl" || mn == "sret") {
    r.lp.fail("'" + mn +
              "' (branch-and-link through $lr) has no encoding in the public sources "
              "consulted; use call/ret (docs/tools/afuc.md)");
  } else {
    return false;
  }
  return true;
}

// One instruction after its labels; false for a directive that produced none.
bool parse_instruction(operand_reader& r, bool& jumptable) {
  afuc_instr& in = r.p.in;
  if (r.at(tok::ident) && r.t[r.i].s == ".nojumptable") {
    jumptable = false;
    return false;
  }
  if (r.at(tok::literal)) {
    r.p.raw = true;
    r.p.raw_word = uint32_t(r.t[r.i++].v);
    if (r.i != r.t.size()) r.lp.fail("junk after literal");
    return true;
  }
  const uint8_t sds = parse_modifiers(r, in);
  if (!r.at(tok::ident)) r.lp.fail("expected an instruction");
  r.mn = r.t[r.i++].s;
  const std::string& mn = r.mn;
  const bool sqe = mn == "swrite" || mn == "sread";
  if (sqe && r.gen < 6) r.lp.fail("'" + mn + "' needs a6xx or later");
  if (sds && mn != "cwrite") r.lp.fail("(sdsN) is allowed only on cwrite");
  if (auto it = alu_ops().find(mn); it != alu_ops().end())
    parse_alu(r, in, it->second);
  else if (mn == "mov")
    parse_mov(r, in);
  else if (mn == "cwrite" || mn == "store" || mn == "swrite") {
    in.op = mn == "store" ? afuc_op::store : afuc_op::cwrite;
    in.bit = sds;
    parse_control(r, in, false, sqe);
  } else if (mn == "cread" || mn == "load" || mn == "sread") {
    in.op = mn == "load" ? afuc_op::load : afuc_op::cread;
    parse_control(r, in, true, sqe);
  } else if (mn == "brne" || mn == "breq")
    parse_branch(r, in, mn == "brne");
  else if (mn == "setbit" || mn == "clrbit")
    parse_setbit(r, in, mn == "setbit");
  else if (mn == "ubfx" || mn == "bfi")
    parse_bitfield(r, in, mn == "ubfx");
  else if (!parse_flow(r, in))
    r.lp.fail("unknown instruction '" + mn + "'");
  r.done();
  if ((in.rep || in.xmov) && is_branch(in.op)) r.lp.fail("modifiers are not allowed on '" + mn + "'");
  return true;
}

struct program {
  std::vector<pending> instrs;
  std::map<std::string, uint32_t> labels;
  std::vector<std::pair<std::string, uint32_t>> label_order;
  bool jumptable = true;
};

program parse_program(const std::string& text, int gen, const std::string& file) {
  program prog;
  std::istringstream is(text);
  std::string ln;
  int lineno = 0;
  while (std::getline(is, ln)) {
    lineno++;
    line_parser lp{file, lineno, ln};
    const std::vector<tok> t = lp.lex();
    size_t i = 0;
    while (i < t.size() && t[i].k == tok::punct && t[i].s.back() == ':' && t[i].s.size() > 1) {
      const std::string name = t[i].s.substr(0, t[i].s.size() - 1);
      if (prog.labels.count(name)) lp.fail("label '" + name + "' defined twice");
      prog.labels[name] = uint32_t(prog.instrs.size());
      prog.label_order.push_back({name, uint32_t(prog.instrs.size())});
      i++;
    }
    if (i >= t.size()) continue;
    pending p;
    p.line = lineno;
    const std::string mn = i < t.size() ? t[i].s : "";
    operand_reader r{lp, t, i, mn, p, gen};
    if (parse_instruction(r, prog.jumptable)) prog.instrs.push_back(p);
  }
  return prog;
}

bool absolute_target(afuc_op op) { return op == afuc_op::call || op == afuc_op::preemptleave || op == afuc_op::jumpa; }

// Resolves instruction pc's label into its offset/literal/immediate.
void resolve_target(const program& prog, uint32_t pc, pending& p, const std::string& file) {
  afuc_instr& in = p.in;
  auto fail = [&](const std::string& m) { throw asm_error(file + ":" + std::to_string(p.line) + ": " + m); };
  int64_t target = -1;
  if (p.rel) {
    target = absolute_target(in.op) ? p.number : int64_t(pc) + p.number;
  } else {
    auto it = prog.labels.find(p.label);
    if (it == prog.labels.end()) fail("undefined label '" + p.label + "'");
    target = it->second;
  }
  switch (in.op) {
    case afuc_op::brnei:
    case afuc_op::breqi:
    case afuc_op::brneb:
    case afuc_op::breqb:
      in.offset = int32_t(target - int64_t(pc));
      break;
    case afuc_op::call:
    case afuc_op::preemptleave:
    case afuc_op::jumpa:
      if (target < 0) fail("negative target");
      in.literal = uint32_t(target);
      break;
    case afuc_op::setsecure:
      if (target != int64_t(pc) + 3) fail("setsecure skips to pc+3; its label must be there");
      break;
    case afuc_op::movi:
      in.immed = uint32_t(target);
      break;
    default:
      break;
  }
}

}  // namespace

std::vector<uint32_t> afuc_assemble(const std::string& text, int gen, const std::string& file) {
  if (gen < 5 || gen > 7) throw asm_error(file + ": unsupported generation " + std::to_string(gen));
  program prog = parse_program(text, gen, file);
  std::vector<uint32_t> out;
  out.reserve(prog.instrs.size() + 1 + jumptable_entries);
  out.push_back(0);  // file header, stripped by the loader
  const uint32_t n = uint32_t(prog.instrs.size());
  for (uint32_t pc = 0; pc < n; pc++) {
    pending& p = prog.instrs[pc];
    if (p.raw) {
      // Word 1 of the image holds the jump-table offset (= number of instructions).
      out.push_back(pc == 1 && prog.jumptable ? (p.raw_word & ~0xffffu) | n : p.raw_word);
      continue;
    }
    const std::string where = file + ":" + std::to_string(p.line) + ": ";
    if (pc == 1 && prog.jumptable) throw asm_error(where + "instruction 1 must be a [literal] (it holds the jump-table offset)");
    if (!p.label.empty()) resolve_target(prog, pc, p, file);
    try {
      out.push_back(afuc_encode(p.in, gen));
    } catch (const std::invalid_argument& e) {
      throw asm_error(where + e.what());
    }
  }
  if (prog.jumptable) {
    std::vector<uint32_t> jt(jumptable_entries, 0);
    for (const auto& [name, off] : prog.label_order)
      if (auto id = pm4_id_by_name(name, gen); id && *id < jumptable_entries) jt[*id] = off;
    out.insert(out.end(), jt.begin(), jt.end());
  }
  return out;
}

afuc_image afuc_split(const std::vector<uint32_t>& w) {
  afuc_image img;
  if (w.empty()) return img;
  img.header = w[0];
  img.instrs.assign(w.begin() + 1, w.end());
  img.code_size = uint32_t(img.instrs.size());
  if (img.instrs.size() >= 2) {
    uint32_t off = img.instrs[1] & 0xffff;
    if (uint64_t(off) + jumptable_entries == img.instrs.size()) {
      img.has_jumptable = true;
      img.code_size = off;
      img.jumptable.assign(img.instrs.begin() + off, img.instrs.end());
    }
  }
  return img;
}

namespace {
// Runs an a6xx image's boot code (as Mesa's disassembler does) to learn the jump table it
// writes through PACKET_TABLE_WRITE, with the image at a fake address in CP_SQE_INSTR_BASE
// and served through MEM_READ / load. Control register 0 selects the variant: 0, then the
// a650 and a660 values of Mesa's emulator.
struct boot_env : afuc_env {
  const std::vector<uint32_t>& img;
  uint32_t ctrl[0x1000] = {};
  static constexpr uint64_t base = 0x100000000ull;
  explicit boot_env(const std::vector<uint32_t>& i) : img(i) {}
  uint32_t word(uint64_t a) const {
    const uint64_t off = (a - base) / 4;
    return a >= base && off < img.size() ? img[off] : 0;
  }
  bool pop_data(uint32_t&) override { return false; }
  void reg_write(uint32_t& a, uint32_t, bool) override { a++; }
  uint32_t read_memdata(uint32_t& a) override {
    if (ctrl[0x1a]) {
      const uint64_t m = ctrl[0x18] | uint64_t(ctrl[0x19]) << 32;
      ctrl[0x1a]--;
      ctrl[0x18] = uint32_t(m + 4);
      ctrl[0x19] = uint32_t((m + 4) >> 32);
      return word(m);
    }
    const uint32_t r = a++ & 0x3ffff;
    return r == 0x830 ? uint32_t(base) : r == 0x831 ? uint32_t(base >> 32) : 0;  // CP_SQE_INSTR_BASE
  }
  uint32_t read_regdata() override {
    const uint32_t r = ctrl[0x27]++ & 0x3ffff;
    return r == 0x830 ? uint32_t(base) : r == 0x831 ? uint32_t(base >> 32) : 0;
  }
  void ctrl_write(uint32_t r, uint32_t v) override { ctrl[r & 0xfff] = v; }
  uint32_t ctrl_read(uint32_t r) override { return ctrl[r & 0xfff]; }
  uint32_t mem_read(uint64_t a) override { return word(a); }
};

bool boot_jumptable(const std::vector<uint32_t>& img, int gen, std::vector<uint32_t>& jt) {
  for (uint32_t c0 : {0u, 1u << 28, 3u << 28}) {
    afuc_iss iss(gen, 16);
    boot_env env(img);
    env.ctrl[0] = c0;
    iss.load(img);
    iss.set_env(&env);
    for (int i = 0; i < 1000 && iss.st() == afuc_iss::state::running && iss.packet_table_write_addr() < 0x80; i++) iss.run(100);
    if (iss.packet_table_write_addr() >= 0x80) {
      jt.resize(jumptable_entries);
      for (unsigned id = 0; id < jumptable_entries; id++) jt[id] = iss.jumptable(id);
      return true;
    }
  }
  return false;
}
}  // namespace

namespace {
// Branch target of pc's instruction (may lie outside the image); nullopt without one.
std::optional<int64_t> target_of(uint32_t pc, const afuc_instr& in) {
  if (in.op == afuc_op::call || in.op == afuc_op::preemptleave || in.op == afuc_op::jumpa) return in.literal;
  if (in.op == afuc_op::setsecure) return int64_t(pc) + 3;
  if (in.op == afuc_op::brnei || in.op == afuc_op::breqi || in.op == afuc_op::brneb || in.op == afuc_op::breqb)
    return int64_t(pc) + in.offset;
  return std::nullopt;
}

struct listing {
  uint32_t listed = 0;
  std::vector<std::optional<afuc_instr>> dec;
  std::vector<std::vector<std::string>> names;  // labels per pc (listed + 1 entries)
  std::vector<bool> as_raw;
};

// Labels: jump-table entries by packet name, branch targets as lNNNN. Marks the words listed
// raw: undecodable, not canonical, or branching outside the image.
void label_and_mark(listing& l, const afuc_image& img, const std::vector<uint32_t>& entries, bool jt, int gen) {
  l.names.assign(l.listed + 1, {});
  // An entry may name the end of the code (offset == listed): its label goes after the last line.
  for (uint32_t id = 0; id < entries.size(); id++)
    if (entries[id] != 0 && entries[id] <= l.listed) l.names[entries[id]].push_back(pm4_id_name(id, gen));
  l.as_raw.assign(l.listed, false);
  if (jt && l.listed > 1) l.as_raw[1] = true;  // word 1 is the jump-table offset, a literal
  for (uint32_t pc = 0; pc < l.listed; pc++) {
    if (!l.dec[pc] || afuc_encode(*l.dec[pc], gen) != img.instrs[pc]) {
      l.as_raw[pc] = true;
      continue;
    }
    const std::optional<int64_t> t = target_of(pc, *l.dec[pc]);
    if (!t) continue;
    // A target outside the image has no label to print (and a bare "#-1" would read back as an
    // offset from pc): the word is listed raw.
    if (*t < 0 || *t > int64_t(l.listed)) {
      l.as_raw[pc] = true;
      continue;
    }
    if (l.names[size_t(*t)].empty()) {
      char b[16];
      std::snprintf(b, sizeof b, "l%04x", unsigned(*t));
      l.names[size_t(*t)].push_back(b);
    }
  }
}

// Reachability from pc 0 and every jump-table entry.
void count_reachable(const listing& l, const std::vector<uint32_t>& entries, disasm_result& r) {
  std::vector<bool> seen(l.listed, false);
  std::vector<uint32_t> work{0};
  for (uint32_t e : entries) work.push_back(e);
  while (!work.empty()) {
    uint32_t pc = work.back();
    work.pop_back();
    while (pc < l.listed && !seen[pc]) {
      seen[pc] = true;
      r.reachable++;
      if (!l.dec[pc]) {
        r.unknown_reachable++;
        r.unknown_pcs.push_back(pc);
        break;
      }
      const afuc_instr& in = *l.dec[pc];
      const std::optional<int64_t> t = target_of(pc, in);
      if (t && *t >= 0 && *t < int64_t(l.listed)) work.push_back(uint32_t(*t));
      if (in.op == afuc_op::call) work.push_back(pc + 2);
      // unconditional transfers: the delay slot still runs, then the flow leaves.
      const bool uncond = in.op == afuc_op::ret || in.op == afuc_op::iret || in.op == afuc_op::jumpr || in.op == afuc_op::jumpa ||
                          in.op == afuc_op::waitin || in.op == afuc_op::call || (in.op == afuc_op::brneb && in.src1 == 0);
      if (uncond) {
        if (pc + 1 < l.listed && !seen[pc + 1]) work.push_back(pc + 1);
        break;
      }
      pc++;
    }
  }
}

std::string print_listing(const listing& l, const afuc_image& img, bool jt, int gen, bool verbose) {
  std::ostringstream os;
  os << "; a" << gen << "xx microcode\n";
  char b[64];
  std::snprintf(b, sizeof b, "; Version: %08x\n\n", img.instrs.size() > 0 ? img.instrs[0] : 0);
  os << b;
  if (!jt) os << ".nojumptable\n";
  if (!jt && img.header != 0) {
    // The header word is regenerated as zero: keep a non-zero one visible.
    std::snprintf(b, sizeof b, "; file header %08x is not zero\n", img.header);
    os << b;
  }
  std::vector<std::string> first(l.listed + 1);
  for (uint32_t pc = 0; pc <= l.listed; pc++)
    if (!l.names[pc].empty()) first[pc] = l.names[pc][0];
  for (uint32_t pc = 0; pc <= l.listed; pc++) {
    for (const auto& nm : l.names[pc]) os << nm << ":\n";
    if (pc == l.listed) break;
    if (verbose) {
      std::snprintf(b, sizeof b, "\t%04x: %08x  ", pc, img.instrs[pc]);
      os << b;
    }
    if (l.as_raw[pc]) {
      std::snprintf(b, sizeof b, "[%08x]", img.instrs[pc]);
      os << (verbose ? "" : "\t") << b << (l.dec[pc] ? "\n" : "\t; unknown encoding\n");
      continue;
    }
    os << (verbose ? "" : "\t") << afuc_format(*l.dec[pc], gen, pc, &first) << "\n";
  }
  return os.str();
}
}  // namespace

disasm_result afuc_disassemble(const std::vector<uint32_t>& file_words, int gen, bool verbose) {
  disasm_result r;
  const afuc_image img = afuc_split(file_words);
  bool jt = img.has_jumptable && img.header == 0;
  if (jt)
    for (uint32_t e : img.jumptable) jt = jt && e <= img.code_size;
  listing l;
  l.listed = jt ? img.code_size : uint32_t(img.instrs.size());
  l.dec.resize(l.listed);
  for (uint32_t pc = 0; pc < l.listed; pc++) l.dec[pc] = afuc_decode(img.instrs[pc], gen);
  // Entry points: the trailing jump table, or (a6xx+ without one) the table the boot code writes.
  std::vector<uint32_t> entries;
  if (jt)
    entries = img.jumptable;
  else if (gen >= 6)
    boot_jumptable(img.instrs, gen, entries);
  label_and_mark(l, img, entries, jt, gen);
  count_reachable(l, entries, r);
  r.text = print_listing(l, img, jt, gen, verbose);
  return r;
}

std::vector<uint32_t> read_words(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw std::runtime_error(path + ": is a directory, expected a file of 32-bit words");
  const auto file = read_whole_file(path);
  if (!file) throw std::runtime_error("cannot open " + path);
  const std::string& data = *file;
  if (data.size() % 4) throw std::runtime_error(path + ": size is not a multiple of 4 bytes");
  std::vector<uint32_t> w(data.size() / 4);
  for (size_t i = 0; i < w.size(); i++)
    w[i] = uint32_t(uint8_t(data[4 * i])) | uint32_t(uint8_t(data[4 * i + 1])) << 8 | uint32_t(uint8_t(data[4 * i + 2])) << 16 |
           uint32_t(uint8_t(data[4 * i + 3])) << 24;
  return w;
}

void write_words(const std::string& path, const std::vector<uint32_t>& w) {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot write " + path);
  for (uint32_t v : w) {
    char b[4] = {char(v), char(v >> 8), char(v >> 16), char(v >> 24)};
    f.write(b, 4);
  }
  if (!f) throw std::runtime_error("write failed: " + path);
}

}  // namespace gpuvp::cp
