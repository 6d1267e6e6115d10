// SPDX-License-Identifier: Apache-2.0
#include "afuc.h"

#include <cstdio>
#include <map>
#include <stdexcept>

namespace gpuvp::cp {

bool is_alu(afuc_op op) { return static_cast<uint8_t>(op) <= 0x14 && static_cast<uint8_t>(op) != 0; }

bool is_branch(afuc_op op) {
  switch (op) {
    case afuc_op::brnei:
    case afuc_op::breqi:
    case afuc_op::brneb:
    case afuc_op::breqb:
    case afuc_op::ret:
    case afuc_op::iret:
    case afuc_op::call:
    case afuc_op::preemptleave:
    case afuc_op::setsecure:
    case afuc_op::jumpr:
    case afuc_op::jumpa:
      return true;
    default:
      return false;
  }
}

static uint32_t bits(uint32_t w, int lo, int hi) { return (w >> lo) & ((1u << (hi - lo + 1)) - 1); }

// a7xx ALU codes where they differ from the enum value (Mesa afuc.xml, gen min 7): the
// 2-register sub-op, and (imm) the primary opcode of the imm16 form; 0 = no such form.
namespace {
struct alu7 {
  afuc_op op;
  uint8_t reg, imm;
};
constexpr alu7 alu7_codes[] = {{afuc_op::bic, 0x09, 0x09},  {afuc_op::min, 0x0a, 0x0a}, {afuc_op::max, 0x0b, 0x0b},
                               {afuc_op::mul8, 0x0c, 0x0c}, {afuc_op::cmp, 0x0d, 0x0d}, {afuc_op::shl, 0x12, 0},
                               {afuc_op::ushr, 0x13, 0},    {afuc_op::ishr, 0x14, 0},   {afuc_op::rot, 0x15, 0},
                               {afuc_op::setbitr, 0x16, 0}, {afuc_op::msb, 0x19, 0}};
// a7xx shifts with an immediate: primary 10010, [15:12] selects, imm12 in [11:0].
constexpr afuc_op alu7_imm12[] = {afuc_op::shl, afuc_op::ushr, afuc_op::ishr, afuc_op::rot};  // 2..5
}  // namespace

// The ALU op of a 2-register sub-op (reg) or imm16 primary opcode (!reg); nullopt if none.
static std::optional<afuc_op> alu_of_code(uint32_t code, int gen, bool reg) {
  if (gen >= 7) {
    if (code >= 0x01 && code <= 0x08) return static_cast<afuc_op>(code);
    for (const alu7& a : alu7_codes)
      if ((reg ? a.reg : a.imm) == code) return a.op;
    return std::nullopt;
  }
  if (code >= 0x01 && code <= 0x10) return static_cast<afuc_op>(code);
  if (reg && (code == 0x14 || (code == 0x12 && gen >= 6))) return static_cast<afuc_op>(code);
  return std::nullopt;
}

// The code of op in gen (2-register sub-op, or imm16 primary opcode); 0 if it has none.
static uint32_t code_of_alu(afuc_op op, int gen, bool reg) {
  const uint32_t v = static_cast<uint8_t>(op);
  if (gen >= 7) {
    for (const alu7& a : alu7_codes)
      if (a.op == op) return reg ? a.reg : a.imm;
    return v;
  }
  if (op == afuc_op::bic) return 0;
  if (!reg && (op == afuc_op::msb || op == afuc_op::setbitr)) return 0;
  return v;
}

// Flow control: 6-bit opcode [31:26], no (rep). Same in every generation.
static std::optional<afuc_instr> decode_flow(uint32_t w) {
  afuc_instr in;
  switch (w >> 26) {
    case 0x30:
      in.op = afuc_op::brnei;
      break;
    case 0x31:
      in.op = afuc_op::breqi;
      break;
    case 0x32:
      in.op = afuc_op::brneb;
      break;
    case 0x33:
      in.op = afuc_op::breqb;
      break;
    case 0x34:
      in.op = bits(w, 25, 25) ? afuc_op::iret : afuc_op::ret;
      return in;
    case 0x35:
      in.op = afuc_op::call;
      in.literal = bits(w, 0, 25);
      return in;
    case 0x36:
      in.op = afuc_op::waitin;
      return in;
    case 0x37:
      in.op = afuc_op::jumpr;
      in.src1 = bits(w, 21, 25);
      return in;
    case 0x39:
      in.op = afuc_op::jumpa;
      in.literal = bits(w, 0, 25);
      return in;
    case 0x38:
      in.op = afuc_op::preemptleave;
      in.literal = bits(w, 0, 25);
      return in;
    case 0x3b:
      in.op = afuc_op::setsecure;
      in.offset = 3;
      return in;
    default:
      return std::nullopt;
  }
  in.src1 = bits(w, 21, 25);
  in.bit = bits(w, 16, 20);
  in.immed = in.bit;
  in.offset = static_cast<int16_t>(bits(w, 0, 15));
  return in;
}

// Control form: [25:21] OFFSET reg, [20:16] SRC/DST, [15:12] FLAGS, [11:0] immediate.
static std::optional<afuc_instr> decode_control(uint32_t w, int gen, afuc_instr in) {
  switch (w >> 27) {
    case 0x14:
      if (gen < 6) return std::nullopt;
      in.op = afuc_op::store;
      break;
    case 0x15:
      in.op = afuc_op::cwrite;
      break;
    case 0x16:
      in.op = gen >= 6 ? afuc_op::load : afuc_op::cread;
      break;
    case 0x17:
      if (gen < 6) return std::nullopt;
      in.op = afuc_op::cread;
      break;
    default:
      return std::nullopt;
  }
  in.immed = bits(w, 0, 11);
  in.bit = bits(w, 12, 15);
  if (in.op == afuc_op::cwrite || in.op == afuc_op::store) {
    in.src1 = bits(w, 16, 20);  // value
    in.src2 = bits(w, 21, 25);  // offset register
  } else {
    in.dst = bits(w, 16, 20);
    in.src1 = bits(w, 21, 25);  // offset register
  }
  return in;
}

// Primary opcode 10010: setbit/clrbit bN; on a7xx [15:12] also selects the imm12 shifts and
// ubfx/bfi. SRC [25:21], DST [20:16].
static std::optional<afuc_instr> decode_10010(uint32_t w, int gen, afuc_instr in) {
  in.src1 = bits(w, 21, 25);
  in.dst = bits(w, 16, 20);
  const uint32_t sel = bits(w, 12, 15);
  if (gen < 7 || sel == 6) {  // [5:1] BIT, [0] set; [15:6] unused (a7xx: [11:6])
    in.op = bits(w, 0, 0) ? afuc_op::setbit : afuc_op::clrbit;
    in.bit = bits(w, 1, 5);
  } else if (sel >= 2 && sel <= 5) {
    in.op = alu7_imm12[sel - 2];
    in.has_immed = true;
    in.immed = bits(w, 0, 11);
  } else if (sel == 7 || sel == 8) {  // [4:0] LO, [9:5] HI
    in.op = sel == 7 ? afuc_op::ubfx : afuc_op::bfi;
    in.bit = bits(w, 0, 4);
    in.immed = bits(w, 5, 9);
  } else {
    return std::nullopt;
  }
  return in;
}

static std::optional<afuc_instr> decode_alu_reg(uint32_t w, int gen, afuc_instr in) {
  const auto op = alu_of_code(bits(w, 0, 4), gen, true);
  if (!op) return std::nullopt;
  in.op = *op;
  in.xmov = bits(w, 9, 10);
  in.dst = bits(w, 11, 15);
  if (in.op == afuc_op::not_ || in.op == afuc_op::msb) {
    in.src1 = bits(w, 16, 20);  // the 1-src forms read SRC1 from bits 20:16
  } else {
    in.src2 = bits(w, 16, 20);
    in.src1 = bits(w, 21, 25);
  }
  return in;
}

std::optional<afuc_instr> afuc_decode(uint32_t w, int gen) {
  if ((w >> 26) >= 0x30) return decode_flow(w);
  afuc_instr in;
  const uint32_t op5 = w >> 27;
  in.rep = bits(w, 26, 26);
  if (op5 == 0) {
    const uint32_t nop = gen >= 6 ? 0x01000000u : 0u;
    if (bits(w, 0, 25) == nop) {
      in.op = afuc_op::nop;
      return in;
    }
    in.op = afuc_op::payload;
    in.rep = false;
    in.literal = w;
    return in;
  }
  if (op5 == 0x13) return decode_alu_reg(w, gen, in);
  if (op5 == 0x12) return decode_10010(w, gen, in);
  if (op5 == (gen >= 7 ? 0x0eu : 0x11u)) {  // movi
    in.op = afuc_op::movi;
    in.immed = bits(w, 0, 15);
    in.dst = bits(w, 16, 20);
    in.shift = bits(w, 21, 25);
    return in;
  }
  if (const auto op = alu_of_code(op5, gen, false)) {  // ALU with 16-bit immediate
    in.op = *op;
    in.has_immed = true;
    in.immed = bits(w, 0, 15);
    in.dst = bits(w, 16, 20);
    if (in.op != afuc_op::not_) in.src1 = bits(w, 21, 25);
    return in;
  }
  return decode_control(w, gen, in);
}

static void check(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(what);
}

static uint32_t encode_alu(const afuc_instr& in, int gen, uint32_t rep) {
  if (in.has_immed) {
    check(in.op != afuc_op::msb, "msb has no immediate form");
    check(in.op != afuc_op::setbitr, "setbit with an immediate is the bN form");
    check(in.xmov == 0, "(xmovN) needs the two-register form");
    const uint32_t sd = uint32_t(in.src1) << 21 | uint32_t(in.dst) << 16;
    if (gen >= 7 && code_of_alu(in.op, gen, false) == 0) {  // a7xx shifts: 10010, imm12
      check(in.immed <= 0xfff, "a7xx shift immediate does not fit 12 bits");
      uint32_t sel = 0;
      for (uint32_t k = 0; k < 4; k++)
        if (alu7_imm12[k] == in.op) sel = k + 2;
      return 0x12u << 27 | rep | sd | sel << 12 | in.immed;
    }
    const uint32_t code = code_of_alu(in.op, gen, false);
    check(code != 0, "bic needs a7xx");
    check(in.immed <= 0xffff, "immediate does not fit 16 bits");
    return code << 27 | rep | sd | in.immed;
  }
  const uint32_t code = code_of_alu(in.op, gen, true);
  check(in.xmov <= 3, "xmov count out of range");
  check(in.op != afuc_op::setbitr || gen >= 6, "setbit with a register bit needs a6xx");
  check(code != 0, "bic needs a7xx");
  const uint32_t w = 0x13u << 27 | rep | uint32_t(in.dst) << 11 | uint32_t(in.xmov) << 9 | code;
  if (in.op == afuc_op::not_ || in.op == afuc_op::msb) return w | uint32_t(in.src1) << 16;
  return w | uint32_t(in.src1) << 21 | uint32_t(in.src2) << 16;
}

static uint32_t encode_control(const afuc_instr& in, int gen, uint32_t rep) {
  check(in.immed <= 0xfff, "control immediate does not fit 12 bits");
  check(in.bit <= 0xf, "flags do not fit 4 bits");
  uint32_t op5 = 0;
  if (in.op == afuc_op::cwrite)
    op5 = 0x15;
  else if (in.op == afuc_op::store) {
    check(gen >= 6, "store needs a6xx");
    op5 = 0x14;
  } else if (in.op == afuc_op::load) {
    check(gen >= 6, "load needs a6xx");
    op5 = 0x16;
  } else
    op5 = gen >= 6 ? 0x17 : 0x16;
  const bool writes = in.op == afuc_op::cwrite || in.op == afuc_op::store;
  const uint32_t reg = writes ? in.src1 : in.dst, off = writes ? in.src2 : in.src1;
  return op5 << 27 | rep | off << 21 | reg << 16 | uint32_t(in.bit) << 12 | in.immed;
}

static uint32_t encode_flow(const afuc_instr& in) {
  switch (in.op) {
    case afuc_op::brnei:
    case afuc_op::breqi:
    case afuc_op::brneb:
    case afuc_op::breqb: {
      check(in.offset >= -32768 && in.offset <= 32767, "branch offset out of range");
      const bool is_imm = in.op == afuc_op::brnei || in.op == afuc_op::breqi;
      const uint32_t field = is_imm ? in.immed : in.bit;
      check(field < 32, is_imm ? "branch immediate does not fit 5 bits" : "bit number out of range");
      const uint32_t op6 = in.op == afuc_op::brnei ? 0x30 : in.op == afuc_op::breqi ? 0x31 : in.op == afuc_op::brneb ? 0x32 : 0x33;
      return op6 << 26 | uint32_t(in.src1) << 21 | field << 16 | (uint32_t(in.offset) & 0xffff);
    }
    case afuc_op::ret:
      return 0x34u << 26;
    case afuc_op::iret:
      return 0x34u << 26 | 1u << 25;
    case afuc_op::waitin:
      return 0x36u << 26;
    case afuc_op::jumpr:
      return 0x37u << 26 | uint32_t(in.src1) << 21;
    case afuc_op::setsecure:
      return 0x3bu << 26;
    case afuc_op::call:
    case afuc_op::jumpa:
    case afuc_op::preemptleave: {
      const uint32_t op6 = in.op == afuc_op::call ? 0x35 : in.op == afuc_op::jumpa ? 0x39 : 0x38;
      check(in.literal < (1u << 26), in.op == afuc_op::call    ? "call target out of range"
                                     : in.op == afuc_op::jumpa ? "jumpa target out of range"
                                                               : "preemptleave target out of range");
      return op6 << 26 | in.literal;
    }
    default:
      break;
  }
  throw std::invalid_argument("unknown operation");
}

// setbit/clrbit bN (a7xx: [15:12] = 6) and a7xx ubfx/bfi ([15:12] = 7/8, [9:5] HI, [4:0] LO).
static uint32_t encode_10010(const afuc_instr& in, int gen, uint32_t rep) {
  const uint32_t sd = 0x12u << 27 | rep | uint32_t(in.src1) << 21 | uint32_t(in.dst) << 16;
  check(in.xmov == 0, "(xmovN) is not allowed on setbit/clrbit/ubfx/bfi");
  if (in.op == afuc_op::ubfx || in.op == afuc_op::bfi) {
    check(gen >= 7, "ubfx/bfi need a7xx");
    check(in.bit < 32 && in.immed < 32, "bit number out of range");
    return sd | (in.op == afuc_op::ubfx ? 7u : 8u) << 12 | in.immed << 5 | in.bit;
  }
  check(in.bit < 32, "bit number out of range");
  return sd | (gen >= 7 ? 6u << 12 : 0u) | uint32_t(in.bit) << 1 | (in.op == afuc_op::setbit ? 1u : 0u);
}

uint32_t afuc_encode(const afuc_instr& in, int gen) {
  check(in.dst < 32 && in.src1 < 32 && in.src2 < 32, "register number out of range");
  const uint32_t rep = in.rep ? 1u << 26 : 0;
  if (is_alu(in.op)) return encode_alu(in, gen, rep);
  switch (in.op) {
    case afuc_op::nop:
      return rep | (gen >= 6 ? 0x01000000u : 0u);
    case afuc_op::payload:
      return in.literal;
    case afuc_op::movi:
      check(in.immed <= 0xffff, "immediate does not fit 16 bits");
      check(in.shift < 32, "shift out of range");
      return (gen >= 7 ? 0x0eu : 0x11u) << 27 | rep | uint32_t(in.shift) << 21 | uint32_t(in.dst) << 16 | in.immed;
    case afuc_op::cwrite:
    case afuc_op::store:
    case afuc_op::cread:
    case afuc_op::load:
      return encode_control(in, gen, rep);
    case afuc_op::setbit:
    case afuc_op::clrbit:
    case afuc_op::ubfx:
    case afuc_op::bfi:
      return encode_10010(in, gen, rep);
    default:
      return encode_flow(in);
  }
}

// --- names ---------------------------------------------------------------------------------

namespace {
struct named {
  const char* name;
  uint32_t value;
};
// Control registers (Mesa adreno_control_regs.xml, facts only).
const named a5_ctrl[] = {{"IB1_BASE", 0x0b0},      {"IB1_BASE_HI", 0x0b1},      {"IB1_DWORDS", 0x0b2},
                         {"IB2_BASE", 0x0b4},      {"IB2_BASE_HI", 0x0b5},      {"IB2_DWORDS", 0x0b6},
                         {"MEM_READ_ADDR", 0x0b8}, {"MEM_READ_ADDR_HI", 0x0b9}, {"MEM_READ_DWORDS", 0x0ba}};
const named a6_ctrl[] = {{"RB_RPTR", 0x001},
                         {"PREEMPT_INSTR", 0x004},
                         {"IB1_BASE", 0x010},
                         {"IB1_BASE_HI", 0x011},
                         {"IB1_DWORDS", 0x012},
                         {"IB2_BASE", 0x014},
                         {"IB2_BASE_HI", 0x015},
                         {"IB2_DWORDS", 0x016},
                         {"MEM_READ_ADDR", 0x018},
                         {"MEM_READ_ADDR_HI", 0x019},
                         {"MEM_READ_DWORDS", 0x01a},
                         {"REG_WRITE_ADDR", 0x024},
                         {"REG_WRITE", 0x025},
                         {"REG_READ_DWORDS", 0x026},
                         {"REG_READ_ADDR", 0x027},
                         {"WFI_PEND_INCR", 0x030},
                         {"QUERY_PEND_INCR", 0x031},
                         {"WFI_PEND_CTR", 0x038},
                         {"QUERY_PEND_CTR", 0x039},
                         {"CACHE_FLUSH_PEND_CTR", 0x03a},
                         {"DRAW_STATE_SEL", 0x041},
                         {"SDS_BASE", 0x042},
                         {"SDS_BASE_HI", 0x043},
                         {"SDS_DWORDS", 0x044},
                         {"DRAW_STATE_BASE", 0x045},
                         {"DRAW_STATE_BASE_HI", 0x046},
                         {"DRAW_STATE_HDR", 0x047},
                         {"DRAW_STATE_ACTIVE_BITMASK", 0x049},
                         {"DRAW_STATE_SET", 0x04a},
                         {"IB_LEVEL", 0x054},
                         {"LOAD_STORE_HI", 0x058},
                         {"PERFCNTR_CNTL", 0x05d},
                         {"PACKET_TABLE_WRITE_ADDR", 0x060},
                         {"PACKET_TABLE_WRITE", 0x061},
                         {"PREEMPTION_TIMER", 0x06e},
                         {"PREEMPTION_TIMER_CNTL", 0x06f},
                         {"CONTEXT_SWITCH_CNTL", 0x070},
                         {"PREEMPT_ENABLE", 0x071},
                         {"PREEMPT_TRIGGER", 0x072},
                         {"SECURE_MODE", 0x075},
                         {"PREEMPT_COOKIE", 0x078},
                         {"PREEMPTION_INFO", 0x126},
                         {"MARKER", 0x12a},
                         {"MODE_BITMASK", 0x12b},
                         {"SCRATCH_REG0", 0x170},
                         {"SCRATCH_REG1", 0x171},
                         {"SCRATCH_REG2", 0x172},
                         {"SCRATCH_REG3", 0x173},
                         {"SCRATCH_REG4", 0x174},
                         {"SCRATCH_REG5", 0x175},
                         {"SCRATCH_REG6", 0x176},
                         {"SCRATCH_REG7", 0x177},
                         {"PRED_REG", 0x17f}};
// PM4 type-7 opcodes of a6xx (Mesa adreno_pm4.xml, adreno_pm4_type3_packets), plus the
// firmware's internal jump-table entries (PKT4, IN_*).
const named pm4_ids[] = {{"PKT4", 0x04},
                         {"IN_IB_END", 0x0a},
                         {"IN_GMU_INTERRUPT", 0x0b},
                         {"IN_PREEMPT", 0x0f},
                         {"CP_NOP", 0x10},
                         {"CP_RECORD_PFP_TIMESTAMP", 0x11},
                         {"CP_WAIT_MEM_WRITES", 0x12},
                         {"CP_WAIT_FOR_ME", 0x13},
                         {"CP_WAIT_MEM_GTE", 0x14},
                         {"CP_DRAW_PRED_ENABLE_GLOBAL", 0x19},
                         {"CP_DRAW_PRED_ENABLE_LOCAL", 0x1a},
                         {"CP_SKIP_IB2_ENABLE_GLOBAL", 0x1d},
                         {"CP_SET_INDEX_BUFFER", 0x20},
                         {"CP_REG_RMW", 0x21},
                         {"CP_DRAW_INDX", 0x22},
                         {"CP_SKIP_IB2_ENABLE_LOCAL", 0x23},
                         {"CP_DRAW_AUTO", 0x24},
                         {"CP_DRAW_INDX_INDIRECT_IMPLICIT", 0x25},
                         {"CP_WAIT_FOR_IDLE", 0x26},
                         {"CP_IM_LOAD", 0x27},
                         {"CP_DRAW_INDIRECT", 0x28},
                         {"CP_DRAW_INDX_INDIRECT", 0x29},
                         {"CP_DRAW_INDIRECT_MULTI", 0x2a},
                         {"CP_IM_LOAD_IMMEDIATE", 0x2b},
                         {"CP_BLIT", 0x2c},
                         {"CP_SET_BIN_DATA5_OFFSET", 0x2e},
                         {"CP_SET_BIN_DATA5", 0x2f},
                         {"CP_RUN_OPENCL", 0x31},
                         {"CP_LOAD_STATE6_GEOM", 0x32},
                         {"CP_EXEC_CS", 0x33},
                         {"CP_LOAD_STATE6_FRAG", 0x34},
                         {"CP_SET_SUBDRAW_SIZE", 0x35},
                         {"CP_LOAD_STATE6", 0x36},
                         {"CP_INDIRECT_BUFFER_PFD", 0x37},
                         {"CP_DRAW_INDX_OFFSET", 0x38},
                         {"CP_REG_TEST", 0x39},
                         {"CP_INVALIDATE_STATE", 0x3b},
                         {"CP_WAIT_REG_MEM", 0x3c},
                         {"CP_MEM_WRITE", 0x3d},
                         {"CP_REG_TO_MEM", 0x3e},
                         {"CP_INDIRECT_BUFFER", 0x3f},
                         {"CP_INTERRUPT", 0x40},
                         {"CP_EXEC_CS_INDIRECT", 0x41},
                         {"CP_MEM_TO_REG", 0x42},
                         {"CP_SET_DRAW_STATE", 0x43},
                         {"CP_COND_EXEC", 0x44},
                         {"CP_COND_WRITE5", 0x45},
                         {"CP_EVENT_WRITE", 0x46},
                         {"CP_COND_REG_EXEC", 0x47},
                         {"CP_ME_INIT", 0x48},
                         {"CP_REG_TO_SCRATCH", 0x4a},
                         {"CP_SET_DRAW_INIT_FLAGS", 0x4b},
                         {"CP_SCRATCH_WRITE", 0x4c},
                         {"CP_SCRATCH_TO_REG", 0x4d},
                         {"CP_DRAW_PRED_SET", 0x4e},
                         {"CP_MEM_WRITE_CNTR", 0x4f},
                         {"CP_START_BIN", 0x50},
                         {"CP_END_BIN", 0x51},
                         {"CP_WAIT_REG_EQ", 0x52},
                         {"CP_SMMU_TABLE_UPDATE", 0x53},
                         {"CP_CONTEXT_SWITCH", 0x54},
                         {"CP_SET_AMBLE", 0x55},
                         {"CP_SET_PSEUDO_REG", 0x56},
                         {"CP_INDIRECT_BUFFER_CHAIN", 0x57},
                         {"CP_EVENT_WRITE_SHD", 0x58},
                         {"CP_EVENT_WRITE_CFL", 0x59},
                         {"CP_EVENT_WRITE_ZPD", 0x5b},
                         {"CP_CONTEXT_REG_BUNCH", 0x5c},
                         {"CP_CONTEXT_UPDATE", 0x5e},
                         {"CP_SET_PROTECTED_MODE", 0x5f},
                         {"CP_WHERE_AM_I", 0x62},
                         {"CP_SET_MODE", 0x63},
                         {"CP_SET_VISIBILITY_OVERRIDE", 0x64},
                         {"CP_SET_MARKER", 0x65},
                         {"CP_SET_SECURE_MODE", 0x66},
                         {"CP_CONTEXT_SWITCH_YIELD", 0x6b},
                         {"CP_PREEMPT_DISABLE", 0x6c},
                         {"CP_REG_WRITE", 0x6d},
                         {"CP_BOOTSTRAP_UCODE", 0x6f},
                         {"CP_WAIT_TWO_REGS", 0x70},
                         {"CP_TEST_TWO_MEMS", 0x71},
                         {"CP_REG_TO_MEM_OFFSET_REG", 0x72},
                         {"CP_MEM_TO_MEM", 0x73},
                         {"CP_REG_TO_MEM_OFFSET_MEM", 0x74},
                         {"CP_MEMCPY", 0x75},
                         {"CP_REG_WR_NO_CTXT", 0x78}};
// a5xx where adreno_pm4.xml names an id differently (looked up before the a6xx table).
const named pm4_ids_a5[] = {{"CP_PREEMPT_ENABLE", 0x1c},
                            {"CP_PREEMPT_TOKEN", 0x1e},
                            {"CP_SET_STATE", 0x25},
                            {"CP_LOAD_STATE4", 0x30},
                            {"CP_COND_INDIRECT_BUFFER_PFE", 0x3a},
                            {"CP_PERFCOUNTER_ACTION", 0x50},
                            {"CP_PREEMPT_ENABLE_GLOBAL", 0x69},
                            {"CP_PREEMPT_ENABLE_LOCAL", 0x6a},
                            {"CP_SET_RENDER_MODE", 0x6c},
                            {"CP_COMPUTE_CHECKPOINT", 0x6e}};
// a5xx names accepted as input but not printed: Mesa lists CP_INDIRECT_BUFFER (all generations)
// before CP_INDIRECT_BUFFER_PFE (a5xx) and CP_PREEMPT_ENABLE before CP_YIELD_ENABLE (a5xx), and
// its decoders print the first name valid for the generation.
const named pm4_aliases_a5[] = {{"CP_INDIRECT_BUFFER_PFE", 0x3f}, {"CP_YIELD_ENABLE", 0x1c}};
template <size_t N>
const char* find_name(const named (&t)[N], uint32_t v) {
  for (const auto& e : t)
    if (e.value == v) return e.name;
  return nullptr;
}
template <size_t N>
std::optional<uint32_t> find_value(const named (&t)[N], const std::string& n) {
  for (const auto& e : t)
    if (n == e.name) return e.value;
  return std::nullopt;
}
}  // namespace

std::optional<uint32_t> control_reg_by_name(const std::string& name, int gen) {
  return gen >= 6 ? find_value(a6_ctrl, name) : find_value(a5_ctrl, name);
}
const char* control_reg_name(uint32_t offset, int gen) { return gen >= 6 ? find_name(a6_ctrl, offset) : find_name(a5_ctrl, offset); }
const char* pm4_name_or_null(uint32_t id, int gen) {
  if (gen == 5)
    if (const char* n = find_name(pm4_ids_a5, id)) return n;
  return find_name(pm4_ids, id);
}
std::optional<uint32_t> pm4_id_by_name(const std::string& name, int gen) {
  if (gen == 5) {
    if (auto v = find_value(pm4_ids_a5, name)) return v;
    if (auto v = find_value(pm4_aliases_a5, name)) return v;
  }
  // a5xx keeps the a6xx names of the ids it does not rename (gpuvp's a5xx ME shares the a6xx
  // firmware source and its jump-table labels; docs/tools/afuc.md).
  if (auto v = find_value(pm4_ids, name)) return v;
  if (name.size() > 4 && name.compare(0, 4, "UNKN") == 0) {
    uint32_t v = 0;
    for (size_t i = 4; i < name.size(); i++) {
      if (name[i] < '0' || name[i] > '9') return std::nullopt;
      v = v * 10 + uint32_t(name[i] - '0');
      if (v > 0xffff) return std::nullopt;
    }
    return v;
  }
  return std::nullopt;
}
std::string pm4_id_name(uint32_t id, int gen) {
  if (const char* n = pm4_name_or_null(id, gen)) return n;
  return "UNKN" + std::to_string(id);
}

// --- text ----------------------------------------------------------------------------------

static std::string hex(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%x", v);
  return b;
}

static std::string reg_name(uint8_t r, bool is_dst) {
  static const char* const src_names[] = {"$rem", "$memdata", "$regdata", "$data"};
  static const char* const dst_names[] = {"$rem", "$addr", "$usraddr", "$data"};
  if (r >= 0x1c) return is_dst ? dst_names[r - 0x1c] : src_names[r - 0x1c];
  char b[8];
  std::snprintf(b, sizeof b, "$%02x", r);
  return b;
}

static const char* alu_name(afuc_op op) {
  static const char* const names[] = {"",    "add",  "addhi", "sub", "subhi", "and", "or",  "xor", "not",
                                      "shl", "ushr", "ishr",  "rot", "mul8",  "min", "max", "cmp"};
  if (op == afuc_op::msb) return "msb";
  if (op == afuc_op::setbitr) return "setbit";
  if (op == afuc_op::bic) return "bic";
  return names[static_cast<uint8_t>(op)];
}

// SQE register names of swrite/sread (Mesa afuc.xml / emu: PREEMPT_INSTR, SP, STACK0-7).
static std::string sqe_reg_text(uint32_t v) {
  if (v == 0x004) return "%PREEMPT_INSTR";
  if (v == 0x005) return "%SP";
  if (v >= 0x008 && v <= 0x00f) return "%STACK" + std::to_string(v - 8);
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%03x", v);
  return buf;
}

// cwrite/cread/load/store in Mesa's current syntax: FLAGS [15:12] = 0x8 sread/swrite (a6xx+;
// on a5xx set in every plain cwrite/cread), 0x4 `!` pre-increment (the base then prints as a
// number), 0x3 `(sdsN)` (cwrite). Flag combinations that syntax cannot say print in the older
// `, flags` form, which the assembler reads too, so the round trip stays exact.
static std::string control_text(const afuc_instr& in, int gen) {
  const bool writes = in.op == afuc_op::cwrite || in.op == afuc_op::store;
  const bool mem = in.op == afuc_op::load || in.op == afuc_op::store;
  const std::string v = reg_name(writes ? in.src1 : in.dst, !writes);
  const std::string off = reg_name(writes ? in.src2 : in.src1, false);
  const bool pre = in.bit & 0x4, s_space = gen >= 6 && (in.bit & 0x8);
  const unsigned sds = in.bit & 0x3;
  const bool plain = gen >= 6 ? !(mem && (in.bit & 0x8)) && (sds == 0 || in.op == afuc_op::cwrite) && !(s_space && sds)
                              : !mem && (in.bit & 0x8) && sds == 0;
  char buf[16];
  std::snprintf(buf, sizeof buf, mem ? "0x%x" : "0x%03x", in.immed);
  const char* ctrl_name = mem ? nullptr : control_reg_name(in.immed, gen);
  std::string base = ctrl_name ? std::string("@") + ctrl_name : std::string(buf);
  std::string name = in.op == afuc_op::cwrite ? "cwrite" : in.op == afuc_op::cread ? "cread" : in.op == afuc_op::load ? "load" : "store";
  if (!plain)  // the older syntax: explicit flags, the base as a control register name
    return name + " " + v + ", [" + off + " + " + base + "], " + hex(in.bit);
  if (pre)
    base = buf;
  else if (s_space)
    base = sqe_reg_text(in.immed);
  if (s_space) name = in.op == afuc_op::cwrite ? "swrite" : "sread";
  const std::string prefix = sds ? "(sds" + std::to_string(sds) + ")" : "";
  return prefix + name + " " + v + ", [" + off + " + " + base + "]" + (pre ? "!" : "");
}

std::string afuc_format(const afuc_instr& in, int gen, uint32_t pc, const std::vector<std::string>* labels) {
  auto target = [&](int64_t t) -> std::string {
    if (labels && t >= 0 && t < int64_t(labels->size()) && !(*labels)[size_t(t)].empty()) return "#" + (*labels)[size_t(t)];
    return "#" + std::to_string(t);
  };
  std::string s = in.rep ? "(rep)" : "";
  if (in.xmov) s += "(xmov" + std::to_string(in.xmov) + ")";
  const std::string d = reg_name(in.dst, true), a = reg_name(in.src1, false), b = reg_name(in.src2, false);
  if (is_alu(in.op)) {
    if (in.op == afuc_op::or_ && !in.has_immed && in.src1 == 0) return s + "mov " + d + ", " + b;
    s += alu_name(in.op);
    if (in.op == afuc_op::not_ || in.op == afuc_op::msb) return s + " " + d + ", " + (in.has_immed ? hex(in.immed) : a);
    return s + " " + d + ", " + a + ", " + (in.has_immed ? hex(in.immed) : b);
  }
  switch (in.op) {
    case afuc_op::nop:
      return s + "nop";
    case afuc_op::payload: {
      char buf[16];
      std::snprintf(buf, sizeof buf, "[%08x]", in.literal);
      return buf;
    }
    case afuc_op::movi:
      return s + "mov " + d + ", " + hex(in.immed) + (in.shift ? " << " + std::to_string(in.shift) : std::string());
    case afuc_op::cwrite:
    case afuc_op::cread:
    case afuc_op::store:
    case afuc_op::load:
      return s + control_text(in, gen);
    case afuc_op::brnei:
    case afuc_op::breqi:
      return std::string(in.op == afuc_op::brnei ? "brne " : "breq ") + a + ", " + hex(in.immed) + ", " + target(int64_t(pc) + in.offset);
    case afuc_op::brneb:
    case afuc_op::breqb:
      if (in.op == afuc_op::brneb && in.src1 == 0 && in.bit == 0) return "jump " + target(int64_t(pc) + in.offset);
      return std::string(in.op == afuc_op::brneb ? "brne " : "breq ") + a + ", b" + std::to_string(in.bit) + ", " +
             target(int64_t(pc) + in.offset);
    case afuc_op::ret:
      return "ret";
    case afuc_op::iret:
      return "iret";
    case afuc_op::call:
      return "call " + target(in.literal);
    case afuc_op::waitin:
      return "waitin";
    case afuc_op::setbit:
    case afuc_op::clrbit:
      return s + (in.op == afuc_op::setbit ? "setbit " : "clrbit ") + d + ", " + a + ", b" + std::to_string(in.bit);
    case afuc_op::ubfx:
    case afuc_op::bfi:
      return s + (in.op == afuc_op::ubfx ? "ubfx " : "bfi ") + d + ", " + a + ", b" + std::to_string(in.bit) + ", b" +
             std::to_string(in.immed);
    case afuc_op::jumpr:
      return "jump " + a;
    case afuc_op::jumpa:
      return "jumpa " + target(in.literal);
    case afuc_op::preemptleave:
      return "preemptleave " + target(in.literal);
    case afuc_op::setsecure:
      return "setsecure $02, " + target(int64_t(pc) + 3);
    default:
      break;
  }
  return "[invalid]";
}

}  // namespace gpuvp::cp
