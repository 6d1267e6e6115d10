// SPDX-License-Identifier: Apache-2.0
// CP register layout (no SystemC): GPU register dword offsets in the CP window
// (BAR0 0x400000 + 4 x offset), fault causes and interrupt bits. See docs/models/cp.md.
#pragma once
#include <cstdint>
#include "gpuvp/field.h"

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
// Control registers (cread/cwrite) with behaviour (a6xx SQE; Mesa adreno_control_regs.xml).
enum : uint32_t {
  CTRL_REG_WRITE_ADDR = 0x024,  // the register REG_WRITE writes (bits 15:0, advances)
  CTRL_REG_WRITE = 0x025,
  CTRL_REG_READ_DWORDS = 0x026,
  CTRL_REG_READ_ADDR = 0x027,
  CTRL_IB_LEVEL = 0x054,
  CTRL_LOAD_STORE_HI = 0x058,
  CTRL_REG_READ_TEST_RESULT = 0x05b,
  CTRL_PACKET_TABLE_WRITE_ADDR = 0x060,
  CTRL_PACKET_TABLE_WRITE = 0x061,
  CTRL_PREEMPT_TRIGGER = 0x072,
  CTRL_SECURE_MODE = 0x075,
  CTRL_THREAD_SYNC = 0x200,
};
using reg_write_addr_register = field<0, 16>;  // CTRL_REG_WRITE_ADDR
using preempt_trigger_start = field<0, 1>;     // CTRL_PREEMPT_TRIGGER
using secure_mode_on = field<0, 1>;            // CTRL_SECURE_MODE and the refused switch's value
// gpuvp firmware's private control registers (firmware/cp, docs/models/cp.md).
enum : uint32_t {
  GPUVP_RAISE_IRQ = 0x0f1,       // write: raise these CP_INT_STATUS bits
  GPUVP_CS_WORD = 0x0f2,         // write: one word of a compute dispatch
  GPUVP_CS_LAUNCH = 0x0f3,       // write: the dispatch is complete, launch it
  GPUVP_STALL = 0x0f4,           // write: wait N cycles (a poll's delay)
  GPUVP_EVENT_RECORD = 0x0f5,    // write: an event, after every kernel launched before it
  GPUVP_UNKNOWN_OPCODE = 0x0f6,  // write: the packet header with an unknown opcode
  GPUVP_MALFORMED = 0x0f7,       // write: the header of a malformed packet
  GPUVP_MEQ_PUSH = 0x0f8,        // write: PFP -> MEQ (a5xx)
  GPUVP_SECURE_REFUSED = 0x0f9,  // write: a secure-mode switch the CP refuses
  GPUVP_PACKET_NOOP = 0x0fa,     // write: a packet accepted without effect in the model
  GPUVP_TIMESTAMP_LO = 0x0fb,    // read: CP timestamp bits 31:0, latches the high dword
  GPUVP_TIMESTAMP_HI = 0x0fc,    // read: CP timestamp bits 63:32
};
// A PM4 header as the handlers see it: type 7 packets carry their opcode in bits 22:16.
using pm4_header_type = field<28, 4>;
using pm4_header_opcode = field<16, 7>;
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
