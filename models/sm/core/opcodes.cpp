// SPDX-License-Identifier: Apache-2.0
#include "opcodes.h"

#include <unordered_map>

namespace gpuvp::sm {

std::optional<sass_arch> arch_from_binary_version(unsigned v) {
  switch (v) {
    case 35:
      return sass_arch::kepler;
    case 60:
    case 61:
      return sass_arch::pascal;
    case 70:
    case 72:
      return sass_arch::volta;
    case 75:
      return sass_arch::turing;
    case 80:
    case 86:
    case 87:
    case 89:
      return sass_arch::ampere;
    case 90:
      return sass_arch::hopper;
    default:
      return std::nullopt;
  }
}

const char* supported_binary_versions() { return "35, 60, 61, 70, 72, 75, 80, 86, 87, 89, 90"; }

const char* arch_name(sass_arch a) {
  switch (a) {
    case sass_arch::kepler:
      return "kepler";
    case sass_arch::pascal:
      return "pascal";
    case sass_arch::volta:
      return "volta";
    case sass_arch::turing:
      return "turing";
    case sass_arch::ampere:
      return "ampere";
    case sass_arch::hopper:
      return "hopper";
  }
  return "?";
}

namespace {

using map_t = std::unordered_map<std::string_view, opcode_info>;

void add(map_t& m, std::initializer_list<std::string_view> names, opcode_info info) {
  for (auto n : names) m[n] = info;
}

// Opcodes common to every architecture from Volta on.
void add_common(map_t& m) {
  const opcode_info sp{op_class::sp}, dp{op_class::dp}, sfu{op_class::sfu}, in{op_class::intp}, bra{op_class::spec1}, tex{op_class::spec2},
      tensor{op_class::spec3}, nop{op_class::nop};
  add(m, {"FADD",    "FADD32I", "FCHK",      "FFMA32I", "FFMA",      "FMNMX", "FMUL",      "FMUL32I", "FSEL",   "FSET",  "FSETP",
          "FSWZADD", "HADD2",   "HADD2_32I", "HFMA2",   "HFMA2_32I", "HMUL2", "HMUL2_32I", "HSET2",   "HSETP2", "HMNMX2"},
      sp);
  add(m, {"DADD", "DFMA", "DMUL", "DSETP"}, dp);
  add(m, {"MUFU", "F2F", "F2I", "I2F", "FRND", "F2FP"}, sfu);
  add(m, {"BMSK",  "BREV", "FLO",     "IABS",   "IADD",        "IADD3",       "IADD32I",  "IDP",    "IDP4A", "IMAD",
          "IMNMX", "IMUL", "IMUL32I", "ISCADD", "ISCADD32I",   "ISETP",       "LEA",      "LOP",    "LOP3",  "LOP32I",
          "POPC",  "SHF",  "SHL",     "SHR",    "VABSDIFF",    "VABSDIFF4",   "I2I",      "I2IP",   "MOV",   "MOV32I",
          "PRMT",  "SEL",  "SGXT",    "SHFL",   "PLOP3",       "PSETP",       "P2R",      "R2P",    "CS2R",  "S2R",
          "B2R",   "R2B",  "VOTE",    "LEPC",   "GETLMEMBASE", "SETLMEMBASE", "SETCTAID", "CSMTEST"},
      in);
  add(m, {"HMMA", "IMMA", "BMMA"}, tensor);
  add(m, {"TEX", "TLD", "TLD4", "TMML", "TXD", "TXQ", "TEXS", "TLD4S", "TLDS"}, tex);
  add(m,
      {"BMOV", "BPT", "BRA", "BREAK", "BRX", "BSSY", "BSYNC", "CALL", "JMP", "JMX", "KILL", "RET", "RPCMOV", "RTT", "WARPSYNC", "YIELD",
       "NANOSLEEP"},
      bra);
  add(m, {"NOP", "DEPBAR", "PMTRIG", "ERRBAR", "CCTL", "CCTLL", "CCTLT", "MEMBAR", "FENCE"}, nop);
  m["EXIT"] = {op_class::exit};
  m["BAR"] = {op_class::barrier};
  const auto g = mem_space::global, s = mem_space::shared, l = mem_space::local;
  add(m, {"LD", "LDG", "ATOM", "ATOMG", "MATCH", "QSPC"}, {op_class::mem, g, false});
  add(m, {"ST", "STG", "RED"}, {op_class::mem, g, true});
  add(m, {"LDL"}, {op_class::mem, l, false});
  add(m, {"STL"}, {op_class::mem, l, true});
  add(m, {"LDS", "LDSM", "ATOMS"}, {op_class::mem, s, false});
  add(m, {"STS"}, {op_class::mem, s, true});
  add(m, {"LDC"}, {op_class::mem, mem_space::constant, false});
}

// Uniform-datapath opcodes (Turing on): INT on Turing, the UDP unit (specialized unit 4) from
// Ampere on, as the shipped RTX 3070/A100/H100 configs define it.
void add_uniform(map_t& m, op_class cls) {
  add(m, {"UIADD3", "UMOV",  "ULDC", "USHF", "ULOP3", "ULOP", "UISETP", "UPRMT", "USEL",  "UFLO",   "UPOPC",  "UBREV",   "UP2UR",
          "UR2UP",  "VOTEU", "R2UR", "S2UR", "UBMSK", "ULEA", "UIMAD",  "UCLEA", "USGXT", "UPLOP3", "UPSETP", "ULOP32I", "USETMAXREG"},
      {cls});
}

// Kepler (35) and Pascal (60/61) maps: no specialized units (branches, textures and
// conversions are ALU work, run by the INT unit, or by the SP units where there is none).
// ALU_OP, INTP_OP, BRANCH_OP, CALL_OPS and RET_OPS all take the int latency.
void add_pre_volta(map_t& m, sass_arch a) {
  const opcode_info sp{op_class::sp}, dp{op_class::dp}, sfu{op_class::sfu}, in{op_class::intp}, nop{op_class::nop};
  const auto g = mem_space::global, s = mem_space::shared, l = mem_space::local;
  add(m, {"FADD", "FADD32I", "FCHK", "FFMA32I", "FFMA", "FMNMX", "FMUL", "FMUL32I", "FSET", "FSETP", "RRO", "FCMP"}, sp);
  add(m, {"MUFU"}, sfu);
  add(m, {"DADD", "DFMA", "DMUL", "DSETP", "DMNMX", "DSET"}, dp);
  add(m, {"IMAD", "IMADSP", "IMUL", "IMUL32I", "IADD",   "IADD32I", "ISCADD", "ISCADD32I", "IMNMX", "BFE", "BFI",
          "SHR",  "SHL",    "SHF",  "LOP",     "LOP32I", "FLO",     "ISET",   "ISETP",     "ICMP",  "POPC"},
      in);
  add(m, {"F2F",  "F2I",   "I2F", "I2I", "MOV",  "MOV32I", "SEL",  "PRMT",  "SHFL", "P2R", "R2P", "CSET", "CSETP",
          "PSET", "PSETP", "TEX", "TLD", "TLD4", "TXQ",    "CCTL", "CCTLL", "NOP",  "S2R", "B2R", "VOTE"},
      in);
  add(m, {"BRA", "BRX", "JMP", "JMX", "BPT", "CAL", "JCAL", "RET", "BRK", "CONT", "SSY", "PBK", "PCNT", "PRET"}, in);
  add(m, {"MEMBAR"}, nop);  // MEMORY_BARRIER_OP: as the Volta map, no fence modelled
  m["EXIT"] = {op_class::exit};
  m["BAR"] = {op_class::barrier};
  add(m, {"LDG", "ATOM", "RED"}, {op_class::mem, g, false});
  add(m, {"STG"}, {op_class::mem, g, true});
  add(m, {"LDL"}, {op_class::mem, l, false});
  add(m, {"STL"}, {op_class::mem, l, true});
  add(m, {"LDS"}, {op_class::mem, s, false});
  add(m, {"STS"}, {op_class::mem, s, true});
  add(m, {"LDC"}, {op_class::mem, mem_space::constant, false});  // as the other maps here
  add(m, {"LD"}, {op_class::mem, g, false});
  add(m, {"ST"}, {op_class::mem, g, true});
  if (a == sass_arch::kepler) {
    add(m, {"FSWZ"}, sp);
    add(m, {"ISUB", "ISAD"}, in);
    add(m, {"LDSLK"}, {op_class::mem, s, false});
    add(m, {"STSCUL"}, {op_class::mem, s, true});
    // Surface opcodes are LOAD_OP/STORE_OP: they go through the LDST unit (global when traced
    // with addresses).
    add(m, {"SUCLAMP", "SUBFM", "SUEAU", "SULDGA"}, {op_class::mem, g, false});
    add(m, {"SUSTGA"}, {op_class::mem, g, true});
  } else {
    add(m, {"FSEL", "FSWZADD", "HADD2", "HFMA2", "HMUL2", "HSET2", "HSETP2"}, sp);
    add(m, {"BMSK", "BREV", "IABS", "IADD3", "IDP", "IDP4A", "IMMA", "LEA", "LOP3", "VABSDIFF", "VABSDIFF4", "VADD", "XMAD", "VMNMX"}, in);
    add(m, {"I2IP", "FRND", "SGXT",    "PLOP3",  "MATCH",       "QSPC", "ERRBAR", "CCTLT", "TMML",     "TXD",         "TEXS",    "TLD4S",
            "TLDS", "CS2R", "CSMTEST", "DEPBAR", "GETLMEMBASE", "LEPC", "PMTRIG", "R2B",   "SETCTAID", "SETLMEMBASE", "VOTE_VTG"},
        in);
    add(m, {"BMOV", "BREAK", "BSSY", "BSYNC", "CALL", "SYNC", "KILL", "NANOSLEEP", "RPCMOV", "RTT", "WARPSYNC", "YIELD", "PEXIT"}, in);
    add(m, {"ATOMS"}, {op_class::mem, s, false});
    add(m, {"ATOMG"}, {op_class::mem, g, false});
  }
}

map_t build(sass_arch a) {
  map_t m;
  if (a == sass_arch::kepler || a == sass_arch::pascal) {
    add_pre_volta(m, a);
    return m;
  }
  add_common(m);
  if (a != sass_arch::volta) add_uniform(m, a == sass_arch::turing ? op_class::intp : op_class::spec4);
  if (a == sass_arch::ampere || a == sass_arch::hopper) {
    add(m, {"LDGSTS"}, {op_class::mem, mem_space::global, false});
    add(m, {"LDGDEPBAR", "ARRIVES"}, {op_class::nop});
    add(m, {"DMMA"}, {op_class::spec3});
    add(m, {"REDUX", "F2IP", "I2FP"}, {op_class::intp});
  }
  if (a == sass_arch::hopper) {
    add(m, {"HGMMA", "IGMMA", "QGMMA", "BGMMA"}, {op_class::spec5});
    add(m, {"UTMALDG", "UBLKCP", "UTMAPF"}, {op_class::mem, mem_space::global, false});
    add(m, {"UTMASTG", "UTMAREDG"}, {op_class::mem, mem_space::global, true});
    add(m, {"WARPGROUP", "SYNCS", "UCGABAR_ARV", "UCGABAR_WAIT", "ACQBULK", "FENCE"}, {op_class::nop});
    add(m, {"STSM"}, {op_class::mem, mem_space::shared, true});
  }
  return m;
}

}  // namespace

std::optional<opcode_info> classify_opcode(sass_arch arch, std::string_view opcode) {
  static const map_t maps[sass_arch_count] = {build(sass_arch::kepler), build(sass_arch::pascal), build(sass_arch::volta),
                                              build(sass_arch::turing), build(sass_arch::ampere), build(sass_arch::hopper)};
  auto dot = opcode.find('.');
  std::string_view base = opcode.substr(0, dot);
  const map_t& m = maps[unsigned(arch)];
  auto it = m.find(base);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

}  // namespace gpuvp::sm
