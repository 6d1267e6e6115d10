// SPDX-License-Identifier: Apache-2.0
// CP register layout (no SystemC): GPU register dword offsets in the CP window
// (BAR0 0x400000 + 4 x offset), fault causes and interrupt bits. See docs/models/cp.md.
#pragma once
#include <cstdint>

namespace gpuvp::cp {

// GPU register dword offsets of the CP registers (a6xx-like layout, see docs/models/cp.md).
enum : uint32_t {
  CP_RB_BASE = 0x800,
  CP_RB_BASE_HI = 0x801,
  CP_RB_CNTL = 0x802,
  CP_RB_RPTR = 0x806,
  CP_RB_WPTR = 0x807,
  CP_SQE_CNTL = 0x808,
  CP_SQE_INSTR_BASE = 0x830,
  CP_SQE_INSTR_BASE_HI = 0x831,
  CP_HW_FAULT = 0x821,
  CP_INT_STATUS = 0x823,
  CP_INT_EN = 0x824,
  CP_ME_NRT_ADDR_LO = 0x840,
  CP_ME_NRT_ADDR_HI = 0x841,
  CP_ME_NRT_DATA = 0x842,
  CP_SCRATCH_REG0 = 0x883,
  CP_IB1_BASE = 0x928,
  CP_IB1_BASE_HI = 0x929,
  CP_IB1_REM_SIZE = 0x92a,
  CP_IB2_BASE = 0x92b,
  CP_IB2_BASE_HI = 0x92c,
  CP_IB2_REM_SIZE = 0x92d,
  CP_CONTEXT_SWITCH_CNTL = 0x8a0,  // a6xx: bit 0 STOP, set by the host to preempt
  CP_LPAC_SQE_CNTL = 0xb81,        // a6xx: the SQE's boot code starts LPAC by writing it
};
// Control registers with behaviour (a6xx SQE; Mesa adreno_control_regs.xml).
enum : uint32_t { CTRL_REG_READ_TEST_RESULT = 0x05b, CTRL_PREEMPT_TRIGGER = 0x072, CTRL_SECURE_MODE = 0x075, CTRL_THREAD_SYNC = 0x200 };
// SQE registers (swrite/sread) with behaviour: the preemption handler's address.
enum : uint32_t { SQE_PREEMPT_INSTR = 0x004 };
// CP_HW_FAULT causes (bits 7:0; bits 31:8 = detail: PC or PM4 opcode).
enum : uint32_t {
  FAULT_MICROCODE = 1,
  FAULT_UNKNOWN_OPCODE = 2,
  FAULT_MALFORMED = 3,
  FAULT_IB_NESTING = 4,
  FAULT_BUS = 5,
  FAULT_COMPUTE = 6,
  FAULT_SECURE = 7
};
// Jump-table entry the a6xx SQE runs when an IB's dwords are consumed (Mesa adreno_pm4.xml).
enum : uint32_t { PM4_IN_IB_END = 0x0a };
// CP_INT_STATUS bits.
enum : uint32_t { INT_ERROR = 1u << 0, INT_EVENT = 1u << 1, INT_PREEMPT = 1u << 2 };

}  // namespace gpuvp::cp
