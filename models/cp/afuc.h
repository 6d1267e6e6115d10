// SPDX-License-Identifier: Apache-2.0
// afuc: the Adreno CP microcontroller instruction set (a5xx PFP/ME, a6xx SQE).
// Encoding per Mesa's isaspec tables (see docs/tools/afuc.md): 32-bit words, bit 26 = (rep).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpuvp::cp {

enum class afuc_op : uint8_t {
  // ALU ops: numeric value == the 5-bit ALU code of the a5xx/a6xx encoding (a7xx renumbers some).
  add = 0x01,
  addhi = 0x02,
  sub = 0x03,
  subhi = 0x04,
  and_ = 0x05,
  or_ = 0x06,
  xor_ = 0x07,
  not_ = 0x08,
  shl = 0x09,
  ushr = 0x0a,
  ishr = 0x0b,
  rot = 0x0c,
  mul8 = 0x0d,
  min = 0x0e,
  max = 0x0f,
  cmp = 0x10,
  bic = 0x11,      // a7xx: SRC1 & ~SRC2 (its a7xx code is 0x09; enum values are the a5xx/a6xx codes)
  setbitr = 0x12,  // a6xx/a7xx 2-src only: "setbit DST, SRC1, SRC2": bit SRC2[5:1] of SRC1 := SRC2[0]
  msb = 0x14,
  nop = 0x20,
  movi,
  cwrite,
  cread,
  load,
  store,
  brnei,
  breqi,
  brneb,
  breqb,
  ret,
  iret,
  call,
  waitin,
  preemptleave,
  setsecure,
  setbit,
  clrbit,   // 10010 (a5xx/a6xx): set/clear bit BIT of SRC into DST (bit 0 picks set)
  jumpr,    // 110111: jump to the address in SRC, with a delay slot ("jump $reg")
  jumpa,    // 111001: jump to an absolute target, with a delay slot
  payload,  // [31:27]==0 but not the nop pattern: firmware data words, executed as nop
  ubfx,
  bfi,  // a7xx bit fields: LO in `bit`, HI in `immed` (ubfx: DST = SRC[HI:LO]; bfi: inserts)
};

// Register numbers of the special registers.
enum : uint8_t { REG_REM = 0x1c, REG_MEMDATA = 0x1d, REG_ADDR = 0x1d, REG_REGDATA = 0x1e, REG_USRADDR = 0x1e, REG_DATA = 0x1f };

struct afuc_instr {
  afuc_op op = afuc_op::nop;
  bool rep = false;
  bool has_immed = false;  // ALU immediate form
  uint8_t xmov = 0;        // 2-src ALU only: 0..3
  uint8_t dst = 0, src1 = 0, src2 = 0;
  uint8_t shift = 0;     // movi
  uint8_t bit = 0;       // control flags [15:12] or branch bit/imm5
  uint32_t immed = 0;    // imm16 / control reg imm12 / branch imm5
  int32_t offset = 0;    // branch offset relative to the branch's PC
  uint32_t literal = 0;  // call/preemptleave absolute target; raw word for payload
};

bool is_alu(afuc_op op);
bool is_branch(afuc_op op);  // brne/breq/jump/jumpr/jumpa/call/ret/iret/preemptleave/setsecure

// Decodes one word for generation gen (5, 6 or 7). nullopt: no encoding matches.
std::optional<afuc_instr> afuc_decode(uint32_t word, int gen);
// Encodes; throws std::invalid_argument if a field is out of range or the op is not in gen.
uint32_t afuc_encode(const afuc_instr& in, int gen);

// Names of control registers (@NAME) and PM4 packet ids (jump-table labels).
std::optional<uint32_t> control_reg_by_name(const std::string& name, int gen);
const char* control_reg_name(uint32_t offset, int gen);  // nullptr if unnamed
// PM4 packet names of Mesa's adreno_pm4.xml: a6xx, and for gen 5 the a5xx names where they differ.
std::optional<uint32_t> pm4_id_by_name(const std::string& name, int gen = 6);  // incl. PKT4 and UNKN<n>
std::string pm4_id_name(uint32_t id, int gen = 6);                             // UNKN<n> if unnamed
const char* pm4_name_or_null(uint32_t id, int gen = 6);

// One instruction as text (Mesa afuc-disasm syntax). label_at(pc) returns the label name for
// a branch/call target (empty: print as a numeric offset).
std::string afuc_format(const afuc_instr& in, int gen, uint32_t pc, const std::vector<std::string>* labels = nullptr);

}  // namespace gpuvp::cp
