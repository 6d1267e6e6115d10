// SPDX-License-Identifier: Apache-2.0
// The CP in SystemC: ring buffer, IB1/IB2 fetch, each firmware handler end to end, errors,
// a5xx PFP + ME + MEQ. Driven through the register socket like the host would.
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>

#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>

#include "afuc_asm.h"
#include "afuc_iss.h"
#include "cp.h"
#include "gpuvp/config.h"
#include "gpuvp/extension.h"
#include "gpuvp/memory.h"
#include "cp_bench.h"
#include "testing.h"

using namespace gpuvp;
using namespace gpuvp::cp;

using namespace cp_test;

namespace {

struct cpModel : gpuvp::testing::sim_test {
  std::unique_ptr<cp_bench> b;
  void run(std::function<void(cp_bench&)> script) {
    b = std::make_unique<cp_bench>("bench", std::move(script));
    sc_core::sc_start();
  }

  // A Debian Adreno SQE file (GPUVP_ADRENO_FW_DIR) as cp.firmware, booted from memory (autostart
  // off, control register 0 = ctrl0): its words, or none when the file is missing (fw_path names it).
  std::string fw_path;
  std::vector<uint32_t> use_real_firmware(const std::string& file, const char* ctrl0) {
    const char* env = std::getenv("GPUVP_ADRENO_FW_DIR");
    fw_path = std::string(env ? env : GPUVP_ADRENO_FW_DIR_DEFAULT) + "/" + file;
    std::vector<uint32_t> words;
    try {
      words = read_words(fw_path);
    } catch (const std::exception&) {
      return {};
    }
    config::global().set("bench.cp.firmware", fw_path, "test");
    config::global().set("bench.cp.autostart", "false", "test");
    config::global().set("bench.cp.ctrl0", ctrl0, "test");
    return words;
  }
  std::string fw_missing() const { return fw_path + " not found (tools/fetch-adreno-firmware.sh DIR; GPUVP_ADRENO_FW_DIR)"; }
  // The image (file without its header) at 0x800000 = CP_SQE_INSTR_BASE, then CP_SQE_CNTL = 1:
  // the boot code reads its jump table from there.
  static void boot_from_memory(cp_bench& b, const std::vector<uint32_t>& file) {
    const uint64_t image = 0x800000;
    b.mem.load(image, file.data() + 1, 4 * (file.size() - 1));
    b.write_reg(CP_SQE_INSTR_BASE, uint32_t(image));
    b.write_reg(CP_SQE_CNTL, 1);
  }
};
}  // namespace

TEST_F(cpModel, Pkt4WritesRegistersAndRingPointerAdvances) {
  run([](cp_bench& b) {
    b.submit({t4(CP_SCRATCH_REG0, 2), 0x11, 0x22});
    ASSERT_TRUE(b.wait_idle());
    EXPECT_EQ(b.read_reg(CP_SCRATCH_REG0), 0x11u);
    EXPECT_EQ(b.read_reg(CP_SCRATCH_REG0 + 1), 0x22u);
    EXPECT_EQ(b.read_reg(CP_RB_RPTR), 3u);
    // registers outside the CP's own reg members are kept in the register file
    b.submit({t4(0x9e0b, 1), 0xabc});
    ASSERT_TRUE(b.wait_idle());
    EXPECT_EQ(b.cp.gpu_reg(0x9e0b), 0xabcu);
  });
  EXPECT_EQ(b->cp.packets.value(), 2u);
  EXPECT_EQ(b->cp.packets_by_opcode().at(4), 2u);
  EXPECT_TRUE(b->cp.modelled_errors().empty());
}

TEST_F(cpModel, NopAndMeInitSkipTheirPayload) {
  run([](cp_bench& b) {
    b.submit({t7(0x10, 2), 0xdead, 0xbeef, t7(0x48, 1), 0x5, t4(CP_SCRATCH_REG0, 1), 0x5});
    ASSERT_TRUE(b.wait_idle());
    EXPECT_EQ(b.read_reg(CP_SCRATCH_REG0), 0x5u);
  });
  EXPECT_EQ(b->cp.packets_by_opcode().at(0x10), 1u);
  EXPECT_EQ(b->cp.packets_by_opcode().at(0x48), 1u);
}

TEST_F(cpModel, MemWrite) {
  run([](cp_bench& b) {
    b.submit({t7(0x3d, 4), 0x8000, 0x0, 0xaaaa, 0xbbbb});
    ASSERT_TRUE(b.wait_idle());
    EXPECT_EQ(b.mem.read32(0x8000), 0xaaaau);
    EXPECT_EQ(b.mem.read32(0x8004), 0xbbbbu);
  });
}

TEST_F(cpModel, IndirectBuffersIb1AndIb2) {
  run([](cp_bench& b) {
    // IB2 at 0x30000: scratch2 = 9
    for (uint32_t i = 0; uint32_t w : {t4(CP_SCRATCH_REG0 + 2, 1), 9u}) b.mem.write32(0x30000 + 4 * i++, w);
    // IB1 at 0x20000: scratch1 = 7, then IB2
    for (uint32_t i = 0; uint32_t w : {t4(CP_SCRATCH_REG0 + 1, 1), 7u, t7(0x3f, 3), 0x30000u, 0u, 2u}) b.mem.write32(0x20000 + 4 * i++, w);
    b.submit({t7(0x3f, 3), 0x20000, 0, 6, t4(CP_SCRATCH_REG0 + 3, 1), 3});
    ASSERT_TRUE(b.wait_idle());
    EXPECT_EQ(b.read_reg(CP_SCRATCH_REG0 + 1), 7u);
    EXPECT_EQ(b.read_reg(CP_SCRATCH_REG0 + 2), 9u);
    EXPECT_EQ(b.read_reg(CP_SCRATCH_REG0 + 3), 3u);  // back on the ring afterwards
    EXPECT_EQ(b.read_reg(CP_IB1_BASE), 0x20000u);
    EXPECT_EQ(b.read_reg(CP_IB2_BASE), 0x30000u);
  });
  EXPECT_TRUE(b->cp.modelled_errors().empty());
}

TEST_F(cpModel, Ib3IsMalformed) {
  run([](cp_bench& b) {
    for (uint32_t i = 0; uint32_t w : {t7(0x3f, 3), 0x50000u, 0u, 1u}) b.mem.write32(0x40000 + 4 * i++, w);
    for (uint32_t i = 0; uint32_t w : {t7(0x3f, 3), 0x40000u, 0u, 4u}) b.mem.write32(0x30000 + 4 * i++, w);
    b.submit({t7(0x3f, 3), 0x30000, 0, 4});
    ASSERT_TRUE(b.wait_idle());
    // CP_HW_FAULT = FAULT_MALFORMED (3) | opcode 0x3f << 8
    EXPECT_EQ(b.read_reg(CP_HW_FAULT), 0x3f03u);
    EXPECT_EQ(b.read_reg(CP_INT_STATUS) & INT_ERROR, INT_ERROR);
    EXPECT_TRUE(b.irq_sig.read());
    b.write_reg(CP_INT_STATUS, INT_ERROR);  // write 1 to clear
    sc_core::wait(sc_core::sc_time(10, sc_core::SC_NS));
    EXPECT_FALSE(b.irq_sig.read());
  });
  ASSERT_EQ(b->cp.modelled_errors().size(), 1u);
  EXPECT_NE(b->cp.modelled_errors()[0].find("malformed PM4 packet, opcode CP_INDIRECT_BUFFER"), std::string::npos);
}

TEST_F(cpModel, RegToMemAndMemToReg) {
  run([](cp_bench& b) {
    b.mem.write32(0x5000, 0x1234);
    b.mem.write32(0x5004, 0x5678);
    b.submit({t4(CP_SCRATCH_REG0, 2), 0xa1, 0xa2,
              // REG_TO_MEM: REG 0x883 | CNT 2 << 18 = 0x00080883, dst 0x9000
              t7(0x3e, 3), 0x00080883, 0x9000, 0,
              // 64B with CNT 1: two dwords: 0x40000000 | 1 << 18 | 0x883 = 0x40040883, dst 0x9100
              t7(0x3e, 3), 0x40040883, 0x9100, 0,
              // MEM_TO_REG: REG 0x885 | CNT 2 << 19 = 0x00100885, src 0x5000
              t7(0x42, 3), 0x00100885, 0x5000, 0});
    ASSERT_TRUE(b.wait_idle());
    EXPECT_EQ(b.mem.read32(0x9000), 0xa1u);
    EXPECT_EQ(b.mem.read32(0x9004), 0xa2u);
    EXPECT_EQ(b.mem.read32(0x9100), 0xa1u);
    EXPECT_EQ(b.mem.read32(0x9104), 0xa2u);
    EXPECT_EQ(b.read_reg(CP_SCRATCH_REG0 + 2), 0x1234u);
    EXPECT_EQ(b.read_reg(CP_SCRATCH_REG0 + 3), 0x5678u);
  });
}

TEST_F(cpModel, MemToMemSingleAndDouble) {
  run([](cp_bench& b) {
    b.mem.write32(0x7000, 0x11);
    b.mem.write32(0x7004, 0x22);
    b.submit({t7(0x73, 5), 0, 0xa000, 0, 0x7000, 0,           // one dword
              t7(0x73, 5), 1u << 29, 0xa100, 0, 0x7000, 0});  // DOUBLE: two dwords
    ASSERT_TRUE(b.wait_idle());
    EXPECT_EQ(b.mem.read32(0xa000), 0x11u);
    EXPECT_EQ(b.mem.read32(0xa004), 0u);
    EXPECT_EQ(b.mem.read32(0xa100), 0x11u);
    EXPECT_EQ(b.mem.read32(0xa104), 0x22u);
  });
}

TEST_F(cpModel, ScratchWrite) {
  run([](cp_bench& b) {
    b.submit({t7(0x4c, 3), 2, 0xa, 0xb});
    ASSERT_TRUE(b.wait_idle());
    EXPECT_EQ(b.read_reg(CP_SCRATCH_REG0 + 2), 0xau);
    EXPECT_EQ(b.read_reg(CP_SCRATCH_REG0 + 3), 0xbu);
  });
}

TEST_F(cpModel, EventWriteTimestampAndInterrupt) {
  run([](cp_bench& b) {
    // CACHE_FLUSH_TS (4), no IRQ: only the write of the value (Mesa adreno_pm4.xml)
    b.submit({t7(0x46, 4), 0x00000004, 0xb000, 0, 0x76});
    ASSERT_TRUE(b.wait_idle());
    EXPECT_EQ(b.mem.read32(0xb000), 0x76u);
    EXPECT_FALSE(b.irq_sig.read());
    // TIMESTAMP (1<<30): the 64-bit CP timestamp instead of the value
    b.submit({t7(0x46, 4), 0x40000004, 0xb008, 0, 0x75});
    ASSERT_TRUE(b.wait_idle());
    EXPECT_NE(b.mem.read32(0xb008), 0x75u);
    EXPECT_GT(b.mem.read32(0xb008), 0u);  // cycles since time 0
    EXPECT_EQ(b.mem.read32(0xb00c), 0u);
    // with IRQ (1<<31)
    b.submit({t7(0x46, 4), 0x80000004, 0xb000, 0, 0x77});
    ASSERT_TRUE(b.wait_idle());
    EXPECT_EQ(b.mem.read32(0xb000), 0x77u);
    EXPECT_EQ(b.read_reg(CP_INT_STATUS), INT_EVENT);
    EXPECT_TRUE(b.irq_sig.read());
    b.write_reg(CP_INT_EN, 0);  // masked: the line drops, the status stays
    sc_core::wait(sc_core::sc_time(10, sc_core::SC_NS));
    EXPECT_FALSE(b.irq_sig.read());
    EXPECT_EQ(b.read_reg(CP_INT_STATUS), INT_EVENT);
  });
  EXPECT_EQ(b->cp.events.value(), 3u);
}

TEST_F(cpModel, WaitRegMemPollsMemoryUntilEqual) {
  run([](cp_bench& b) {
    // FUNCTION EQ (3) | POLL_MEMORY (1<<4) = 0x13; poll 0x6000 for 1, mask ~0, 10 cycles apart
    b.submit({t7(0x3c, 6), 0x13, 0x6000, 0, 1, 0xffffffff, 10, t4(CP_SCRATCH_REG0, 1), 0x55});
    sc_core::wait(sc_core::sc_time(2, sc_core::SC_US));
    EXPECT_EQ(b.read_reg(CP_SCRATCH_REG0), 0u);  // still polling
    b.mem.write32(0x6000, 1);
    ASSERT_TRUE(b.wait_idle());
    EXPECT_EQ(b.read_reg(CP_SCRATCH_REG0), 0x55u);
  });
  EXPECT_GT(b->cp.stall_poll.value(), 10u);
}

// POLL = 2 (scratch): FUNCTION EQ (3) | POLL 2 << 4 = 0x23 polls CP_SCRATCH_REG[5 & 7] for 7.
TEST_F(cpModel, WaitRegMemPollsAScratchRegister) {
  run([](cp_bench& b) {
    b.submit({t7(0x3c, 6), 0x23, 5, 0, 7, 0xffffffff, 4, t4(CP_SCRATCH_REG0, 1), 0x66});
    sc_core::wait(sc_core::sc_time(2, sc_core::SC_US));
    EXPECT_EQ(b.read_reg(CP_SCRATCH_REG0), 0u);  // still polling
    b.write_reg(CP_SCRATCH_REG0 + 5, 7);
    ASSERT_TRUE(b.wait_idle());
    EXPECT_EQ(b.read_reg(CP_SCRATCH_REG0), 0x66u);
  });
  EXPECT_TRUE(b->cp.modelled_errors().empty());
}

// WRITE_MEMORY (1 << 8): EQ | POLL_MEMORY (1 << 4) | 1 << 8 = 0x113, 9 dwords; 0xbeef lands
// at 0xc000 only when the wait ends.
TEST_F(cpModel, WaitRegMemWriteMemoryWhenTheWaitEnds) {
  run([](cp_bench& b) {
    b.submit({t7(0x3c, 9), 0x113, 0x6000, 0, 1, 0xffffffff, 4, 0xc000, 0, 0xbeef});
    sc_core::wait(sc_core::sc_time(2, sc_core::SC_US));
    EXPECT_EQ(b.mem.read32(0xc000), 0u);
    b.mem.write32(0x6000, 1);
    ASSERT_TRUE(b.wait_idle());
    EXPECT_EQ(b.mem.read32(0xc000), 0xbeefu);
  });
  EXPECT_TRUE(b->cp.modelled_errors().empty());
}

// Malformed: POLL = 3 (a7xx on-chip, 0x30); 9 dwords without WRITE_MEMORY; 6 with it.
TEST_F(cpModel, WaitRegMemMalformedOptions) {
  run([](cp_bench& b) {
    b.submit({t7(0x3c, 6), 0x30, 0,           0,     0,
              0,           1,    t7(0x3c, 9), 0x10,  0x6000,
              0,           0,    0,           1,     0xc000,
              0,           1,    t7(0x3c, 6), 0x110, 0x6000,
              0,           0,    0,           1,     t4(CP_SCRATCH_REG0, 1),
              0x77});
    ASSERT_TRUE(b.wait_idle());
    EXPECT_EQ(b.read_reg(CP_HW_FAULT), FAULT_MALFORMED | 0x3cu << 8);
    EXPECT_EQ(b.read_reg(CP_SCRATCH_REG0), 0x77u);  // each packet was skipped whole
    EXPECT_EQ(b.mem.read32(0xc000), 0u);
  });
  EXPECT_EQ(b->cp.modelled_errors().size(), 3u);
}

// ACCUMULATE (1 << 31): memory += registers. scratch0 = 2, scratch1 = 0x10.
// 32-bit (0x80080883, CNT 2): 0xffffffff + 2 = 0x1 (no carry out), 5 + 0x10 = 0x15.
// 64B (0xc0080883): 0x5_ffffffff + 0x10_00000002 = 0x16_00000001.
// 64B copy with CNT 2 (0x40080883) is one 64-bit value: two dwords, 0x9208 untouched.
TEST_F(cpModel, RegToMemAccumulateAnd64B) {
  run([](cp_bench& b) {
    b.mem.write32(0x9000, 0xffffffff);
    b.mem.write32(0x9004, 5);
    b.mem.write32(0x9100, 0xffffffff);
    b.mem.write32(0x9104, 5);
    b.mem.write32(0x9208, 0x5a5a);
    b.submit({t4(CP_SCRATCH_REG0, 2), 2, 0x10, t7(0x3e, 3), 0x80080883, 0x9000, 0, t7(0x3e, 3), 0xc0080883, 0x9100, 0, t7(0x3e, 3),
              0x40080883, 0x9200, 0});
    ASSERT_TRUE(b.wait_idle());
    EXPECT_EQ(b.mem.read32(0x9000), 1u);
    EXPECT_EQ(b.mem.read32(0x9004), 0x15u);
    EXPECT_EQ(b.mem.read32(0x9100), 1u);
    EXPECT_EQ(b.mem.read32(0x9104), 0x16u);
    EXPECT_EQ(b.mem.read32(0x9200), 2u);
    EXPECT_EQ(b.mem.read32(0x9204), 0x10u);
    EXPECT_EQ(b.mem.read32(0x9208), 0x5a5au);
  });
  EXPECT_TRUE(b->cp.modelled_errors().empty());
}

// Register polls of every compare function. value is put in scratch4 (0x887); pass = the
// packet after the wait runs at once.
struct wrm_case {
  uint32_t func;
  uint32_t value, ref;
  bool is_signed, pass;
};
class cpWaitRegMem : public cpModel, public ::testing::WithParamInterface<wrm_case> {};

TEST_P(cpWaitRegMem, CompareFunctions) {
  const wrm_case c = GetParam();
  run([c](cp_bench& b) {
    b.submit({t4(CP_SCRATCH_REG0 + 4, 1), c.value, t7(0x3c, 6), c.func | (c.is_signed ? 8u : 0u), CP_SCRATCH_REG0 + 4, 0, c.ref, 0xffffffff,
              4, t4(CP_SCRATCH_REG0, 1), 0x99});
    sc_core::wait(sc_core::sc_time(5, sc_core::SC_US));
    EXPECT_EQ(b.read_reg(CP_SCRATCH_REG0), c.pass ? 0x99u : 0u);
  });
}

static std::string wrm_name(const ::testing::TestParamInfo<wrm_case>& i) {
  static const char* const f[] = {"always", "lt", "le", "eq", "ne", "ge", "gt"};
  return std::string(f[i.param.func]) + (i.param.is_signed ? "_signed" : "") + "_" + std::to_string(i.index) +
         (i.param.pass ? "_passes" : "_waits");
}

INSTANTIATE_TEST_SUITE_P(cpAllFunctions, cpWaitRegMem,
                         ::testing::Values(wrm_case{0, 1, 9, false, true},                                   // always
                                           wrm_case{1, 4, 5, false, true},                                   // LT: 4 < 5
                                           wrm_case{1, 5, 5, false, false}, wrm_case{2, 5, 5, false, true},  // LE
                                           wrm_case{2, 6, 5, false, false}, wrm_case{3, 5, 5, false, true},  // EQ
                                           wrm_case{3, 4, 5, false, false}, wrm_case{4, 4, 5, false, true},  // NE
                                           wrm_case{4, 5, 5, false, false}, wrm_case{5, 5, 5, false, true},  // GE
                                           wrm_case{5, 4, 5, false, false}, wrm_case{6, 6, 5, false, true},  // GT
                                           wrm_case{6, 5, 5, false, false},
                                           wrm_case{6, 0xffffffff, 1, false, true},  // unsigned: 0xffffffff > 1
                                           wrm_case{6, 0xffffffff, 1, true, false},  // signed: -1 > 1 is false
                                           wrm_case{1, 0xffffffff, 1, true, true}),  // signed: -1 < 1
                         wrm_name);

// Preemption: STOP in CP_CONTEXT_SWITCH_CNTL makes the SQE run our handler (jump-table entry
// 15, PREEMPT_INSTR unset), which raises CP_INT_STATUS bit 2 and returns with iret; STOP
// clears when the handler is entered, and the interrupted context goes on.
TEST_F(cpModel, HostPreemptionRunsTheHandlerAndResumes) {
  run([](cp_bench& b) {
    b.submit({t4(CP_SCRATCH_REG0, 1), 0x11});
    ASSERT_TRUE(b.wait_idle());
    b.write_reg(CP_CONTEXT_SWITCH_CNTL, 1);
    ASSERT_TRUE(b.until([&] { return b.read_reg(CP_INT_STATUS) == INT_PREEMPT; }));
    EXPECT_EQ(b.read_reg(CP_CONTEXT_SWITCH_CNTL), 0u);
    EXPECT_TRUE(b.irq_sig.read());
    b.write_reg(CP_INT_STATUS, INT_PREEMPT);
    // back in the waitin delay slot it interrupted: the next packets run normally
    b.submit({t7(0x3d, 3), 0x8000, 0, 0x5a, t4(CP_SCRATCH_REG0 + 1, 1), 0x22});
    ASSERT_TRUE(b.wait_idle());
    EXPECT_EQ(b.mem.read32(0x8000), 0x5au);
    EXPECT_EQ(b.read_reg(CP_SCRATCH_REG0 + 1), 0x22u);
    EXPECT_FALSE(b.cp.iss(0).in_handler());
  });
  EXPECT_EQ(b->cp.preempt_requests.value(), 1u);
  EXPECT_EQ(b->cp.preemptions.value(), 1u);
  EXPECT_TRUE(b->cp.modelled_errors().empty());
  EXPECT_EQ(b->cp.packets.value(), 3u);
}

// PREEMPT_TRIGGER (control 0x072) from the firmware itself, with PREEMPT_INSTR (SQE register
// 0x004, written with swrite = cwrite flag 0x8) set by the boot code: the handler at 12 (not jump-table entry 15) raises bit 3 and irets into
// the CP_NOP handler, which then consumes the payload.
TEST_F(cpModel, FirmwareTriggeredPreemptionUsesPreemptInstr) {
  const std::string fw = ::testing::TempDir() + "cp_preempt_trigger.fw";
  write_words(fw, afuc_assemble(R"([01000000]
[01000000]
	mov $02, 0xc
	cwrite $02, [$00 + 0x004], 0x8  ; swrite: SQE register PREEMPT_INSTR = 12
	waitin
	mov $01, $data
CP_NOP:
	mov $02, 0x1
	cwrite $02, [$00 + 0x072], 0x0  ; PREEMPT_TRIGGER
	(rep)mov $00, $data             ; the handler runs before this
	waitin
	mov $01, $data
	nop
handler:
	mov $1a, 0x8
	cwrite $1a, [$00 + 0x0f1], 0x0  ; CP_INT_STATUS bit 3
	iret
	nop
)",
                                6, "preempt.asm"));
  config::global().set("bench.cp.firmware", fw, "test");
  run([](cp_bench& b) {
    b.submit({t7(0x10, 2), 0xa, 0xb, t7(0x10, 0)});
    ASSERT_TRUE(b.wait_idle());
    EXPECT_EQ(b.read_reg(CP_INT_STATUS), 0x8u);
  });
  EXPECT_EQ(b->cp.preempt_requests.value(), 2u);  // each CP_NOP triggers once
  EXPECT_EQ(b->cp.preemptions.value(), 2u);
  EXPECT_EQ(b->cp.packets.value(), 2u);
  EXPECT_TRUE(b->cp.modelled_errors().empty());
}

// CP_SET_SECURE_MODE {SECURE}: setsecure succeeds (secure_switch on) and skips the refusal.
TEST_F(cpModel, SetSecureModeSwitchesBothWays) {
  run([](cp_bench& b) {
    b.submit({t7(0x66, 1), 1});
    ASSERT_TRUE(b.wait_idle());
    EXPECT_TRUE(b.cp.secure());
    b.submit({t7(0x66, 1), 0});
    ASSERT_TRUE(b.wait_idle());
    EXPECT_FALSE(b.cp.secure());
    EXPECT_EQ(b.read_reg(CP_INT_STATUS), 0u);
  });
  EXPECT_EQ(b->cp.secure_switches.value(), 2u);
  EXPECT_TRUE(b->cp.modelled_errors().empty());
}

// secure_switch off: setsecure fails, the two instructions after it report the refusal:
// CP_HW_FAULT = 7 (secure) | 1 (the mode asked for) << 8 = 0x107.
TEST_F(cpModel, RefusedSecureSwitchIsAFault) {
  config::global().set("bench.cp.secure_switch", "false", "test");
  run([](cp_bench& b) {
    b.submit({t7(0x66, 1), 1, t4(CP_SCRATCH_REG0, 1), 0x33});
    ASSERT_TRUE(b.wait_idle());
    EXPECT_FALSE(b.cp.secure());
    EXPECT_EQ(b.read_reg(CP_HW_FAULT), 0x107u);
    EXPECT_EQ(b.read_reg(CP_INT_STATUS), INT_ERROR);
    EXPECT_EQ(b.read_reg(CP_SCRATCH_REG0), 0x33u);  // the CP goes on
  });
  EXPECT_EQ(b->cp.secure_refused.value(), 1u);
  ASSERT_EQ(b->cp.modelled_errors().size(), 1u);
  EXPECT_NE(b->cp.modelled_errors()[0].find("secure mode switch to secure refused"), std::string::npos);
}

TEST_F(cpModel, MalformedSetSecureMode) {
  run([](cp_bench& b) {
    b.submit({t7(0x66, 2), 1, 1});
    ASSERT_TRUE(b.wait_idle());
    EXPECT_EQ(b.read_reg(CP_HW_FAULT), FAULT_MALFORMED | 0x66u << 8);
  });
}

// Packet fetch through DMI: the same packets at the same time as through b_transport. 125
// dwords in the ring, bursts of 16: 7 x 16 + 13, 8 fetches. The region is asked for at the first
// fetch and covers the ring (one 64 KiB page): 8 DMI fetches from one grant. Every burst still
// sends its read (dmi_shadow), so the memory counts 8 reads either way, 8 of them DMI accesses
// with fetch_dmi on.
TEST_F(cpModel, FetchThroughDmiKeepsTheTiming) {
  struct result {
    sc_core::sc_time irq;
    uint64_t fetches, dmi_fetches, grants, mem_reads, mem_dmi;
  };
  auto once = [this](bool dmi) {
    config::global().set("bench.cp.fetch_dmi", dmi ? "true" : "false", "test");
    result r{};
    run([&r](cp_bench& b) {
      std::vector<uint32_t> s;
      for (uint32_t i = 0; i < 60; i++) s.insert(s.end(), {t4(CP_SCRATCH_REG0, 1), i});
      s.insert(s.end(), {t7(0x46, 4), 0x80000004, 0xb000, 0, 0x99});  // value + IRQ
      b.submit(s);
      sc_core::wait(b.irq_sig.posedge_event());
      r.irq = sc_core::sc_time_stamp();
      ASSERT_TRUE(b.wait_idle());
      EXPECT_EQ(b.read_reg(CP_SCRATCH_REG0), 59u);
      EXPECT_EQ(b.mem.read32(0xb000), 0x99u);
    });
    r.fetches = b->cp.fetches.value();
    r.dmi_fetches = b->cp.dmi_fetches.value();
    r.grants = b->mem.dmi_grants.value();
    r.mem_reads = b->mem.reads.value();
    r.mem_dmi = b->mem.dmi_accesses.value();
    b.reset();
    gpuvp::testing::fresh_simulation();
    return r;
  };
  const result on = once(true), off = once(false);
  EXPECT_EQ(on.irq, off.irq);
  EXPECT_GT(on.irq, sc_core::SC_ZERO_TIME);
  EXPECT_EQ(on.fetches, 8u);
  EXPECT_EQ(on.dmi_fetches, 8u);
  EXPECT_EQ(on.grants, 1u);
  EXPECT_EQ(on.mem_reads, 8u);
  EXPECT_EQ(on.mem_dmi, 8u);
  EXPECT_EQ(off.fetches, 8u);
  EXPECT_EQ(off.dmi_fetches, 0u);
  EXPECT_EQ(off.grants, 0u);
  EXPECT_EQ(off.mem_reads, 8u);
  EXPECT_EQ(off.mem_dmi, 0u);
}

// An invalidation drops the CP's region: the next fetch asks again. Three 2-dword fetches:
// DMI (grant 1), DMI, revoke, DMI (grant 2: the second fetch's read allowed DMI again). Each
// still reads memory (dmi_shadow): 3 reads.
TEST_F(cpModel, DmiInvalidationIsHonoured) {
  run([](cp_bench& b) {
    for (uint32_t v : {1u, 2u, 3u}) {
      b.submit({t4(CP_SCRATCH_REG0, 1), v});
      ASSERT_TRUE(b.wait_idle());
      if (v == 2) b.mem.revoke_dmi();
    }
    EXPECT_EQ(b.read_reg(CP_SCRATCH_REG0), 3u);
  });
  EXPECT_EQ(b->mem.dmi_grants.value(), 2u);
  EXPECT_EQ(b->cp.dmi_fetches.value(), 3u);
  EXPECT_EQ(b->mem.reads.value(), 3u);
}

// A target without DMI (memory dmi off): every fetch goes through b_transport. Each of the two
// 2-dword submissions is one fetch (under the 16-dword burst), so two memory reads.
TEST_F(cpModel, FetchWithoutDmiFromTheTarget) {
  config::global().set("bench.mem.dmi", "false", "test");
  run([](cp_bench& b) {
    for (uint32_t v : {2u, 3u}) {
      b.submit({t4(CP_SCRATCH_REG0, 1), v});
      ASSERT_TRUE(b.wait_idle());
    }
    EXPECT_EQ(b.read_reg(CP_SCRATCH_REG0), 3u);
  });
  EXPECT_EQ(b->cp.fetches.value(), 2u);
  EXPECT_EQ(b->cp.dmi_fetches.value(), 0u);
  EXPECT_EQ(b->mem.reads.value(), 2u);
  EXPECT_EQ(b->mem.dmi_grants.value(), 0u);
}

TEST_F(cpModel, ExecCsGoesToTheDispatchPort) {
  run([](cp_bench& b) {
    b.submit({t7(0x33, 4), 0, 2, 3, 4});
    ASSERT_TRUE(b.wait_idle());
  });
  ASSERT_EQ(b->cp.dispatches().size(), 1u);
  EXPECT_EQ(b->cp.dispatches()[0].words, (std::vector<uint32_t>{0, 2, 3, 4}));
}

TEST_F(cpModel, UnknownOpcodeRaisesErrorAndContinues) {
  run([](cp_bench& b) {
    b.submit({t7(0x21, 2), 1, 2, t4(CP_SCRATCH_REG0, 1), 0x42});  // CP_REG_RMW: no handler
    ASSERT_TRUE(b.wait_idle());
    EXPECT_EQ(b.read_reg(CP_HW_FAULT), 0x2102u);  // FAULT_UNKNOWN_OPCODE | 0x21 << 8
    EXPECT_TRUE(b.irq_sig.read());
    EXPECT_EQ(b.read_reg(CP_SCRATCH_REG0), 0x42u);
  });
  ASSERT_EQ(b->cp.modelled_errors().size(), 1u);
  EXPECT_NE(b->cp.modelled_errors()[0].find("unknown PM4 opcode 0x00000021"), std::string::npos);
}

TEST_F(cpModel, MalformedMemWrite) {
  run([](cp_bench& b) {
    b.submit({t7(0x3d, 2), 0x8000, 0});
    ASSERT_TRUE(b.wait_idle());
    EXPECT_EQ(b.read_reg(CP_HW_FAULT), 0x3d03u);
  });
}

TEST_F(cpModel, BadHeaderStopsTheMicrocontroller) {
  run([](cp_bench& b) {
    b.submit({0x12345678});
    sc_core::wait(sc_core::sc_time(2, sc_core::SC_US));
    EXPECT_EQ(b.read_reg(CP_HW_FAULT) & 0xff, FAULT_MICROCODE);
    EXPECT_TRUE(b.irq_sig.read());
  });
  EXPECT_EQ(b->cp.iss(0).st(), afuc_iss::state::halted);
  ASSERT_EQ(b->cp.modelled_errors().size(), 1u);
  EXPECT_NE(b->cp.modelled_errors()[0].find("invalid PM4 header 0x12345678"), std::string::npos);
}

TEST_F(cpModel, BusErrorOnFetch) {
  run([](cp_bench& b) {
    b.submit({t7(0x3f, 3), 0x0, 0x100, 4});  // IB at 0x100_00000000: outside the memory
    sc_core::wait(sc_core::sc_time(2, sc_core::SC_US));
    EXPECT_EQ(b.read_reg(CP_HW_FAULT) & 0xff, FAULT_BUS);
  });
}

TEST_F(cpModel, MissingFirmwareIsAConfigError) {
  config::global().set("bench.cp.firmware", "/nonexistent/sqe.fw", "test");
  EXPECT_THROW(cp_bench("bench", [](cp_bench&) {}), config_error);
}

TEST_F(cpModel, A5xxPfpAndMeThroughTheMeq) {
  config::global().set("bench.cp.generation", "5", "test");
  config::global().set("bench.cp.meq_depth", "4", "test");
  run([](cp_bench& b) {
    for (uint32_t i = 0; uint32_t w : {t4(CP_SCRATCH_REG0 + 1, 1), 7u}) b.mem.write32(0x20000 + 4 * i++, w);
    b.submit({t4(CP_SCRATCH_REG0, 2), 0x11, 0x22, t7(0x3d, 6), 0x8000, 0, 1, 2, 3, 4, t7(0x3f, 3), 0x20000, 0, 2, t7(0x10, 1), 0});
    ASSERT_TRUE(b.wait_idle());
    EXPECT_EQ(b.read_reg(CP_SCRATCH_REG0), 0x11u);
    EXPECT_EQ(b.read_reg(CP_SCRATCH_REG0 + 1), 7u);  // IB1 by the PFP, executed by the ME
    EXPECT_EQ(b.mem.read32(0x800c), 4u);
  });
  EXPECT_EQ(b->cp.num_ucs(), 2u);
  EXPECT_GT(b->cp.stall_meq_full.value(), 0u);  // 8 dwords of MEM_WRITE through a 4-deep MEQ
  EXPECT_EQ(b->cp.meq_occupancy.max(), 4u);
  EXPECT_EQ(b->cp.packets.value(), 4u);  // PKT4, MEM_WRITE, PKT4 from the IB, NOP
  EXPECT_TRUE(b->cp.modelled_errors().empty());
}

// Stretch goal: the real a630 SQE firmware (Debian firmware-qcom-soc) boots from its image in
// memory (its bootstrap fills the jump table through MEM_READ and PACKET_TABLE_WRITE) and runs
// CP_NOP, PKT4 and CP_MEM_WRITE (the latter through the NRT_ADDR/NRT_DATA pipe registers).
struct real_fw {
  const char* file;
  const char* ctrl0;
};
class cpRealFirmware : public cpModel, public ::testing::WithParamInterface<real_fw> {};

TEST_P(cpRealFirmware, RunsATinyStream) {
  const std::vector<uint32_t> file = use_real_firmware(GetParam().file, GetParam().ctrl0);
  if (file.empty()) GTEST_SKIP() << fw_missing();
  run([&file](cp_bench& b) {
    boot_from_memory(b, file);
    b.submit({t7(0x10, 0), t4(CP_SCRATCH_REG0, 1), 0x42, t7(0x3d, 3), 0x8000, 0, 0x77});
    ASSERT_TRUE(b.wait_idle()) << "SQE at pc " << std::hex << b.cp.iss(0).pc();
    EXPECT_EQ(b.read_reg(CP_SCRATCH_REG0), 0x42u);
    EXPECT_EQ(b.mem.read32(0x8000), 0x77u);
  });
  EXPECT_TRUE(b->cp.modelled_errors().empty());
  EXPECT_EQ(b->cp.packets.value(), 3u);
  std::string regs;
  for (uint32_t r : b->cp.unmodelled_control_registers()) {
    char buf[8];
    std::snprintf(buf, sizeof buf, " %03x", r);
    regs += buf;
  }
  RecordProperty("unmodelled_control_registers", regs);
  std::printf("%s control registers without behaviour:%s; other pipe writes: %llu\n", GetParam().file, regs.c_str(),
              (unsigned long long)b->cp.pipe_other.value());
}

// a650 reads control register 0 to tell its variant (values from Mesa's emulator).
INSTANTIATE_TEST_SUITE_P(cpSqe, cpRealFirmware,
                         ::testing::Values(real_fw{"a630_sqe.fw", "0"}, real_fw{"a650_sqe.fw", "0x10000000"},
                                           real_fw{"a660_sqe.fw", "0x30000000"}),
                         [](const ::testing::TestParamInfo<real_fw>& i) { return std::string(i.param.file).substr(0, 4); });

// The real a630 firmware's preemption routine (PREEMPT_INSTR set by its boot code) is entered
// on CP_CONTEXT_SWITCH_CNTL.STOP and left (iret or preemptleave) without a fault, STOP clears,
// and the ring goes on. What the routine does inside is not checked.
TEST_F(cpModel, A630PreemptionRoutineIsEnteredAndLeft) {
  const std::vector<uint32_t> file = use_real_firmware("a630_sqe.fw", "0");
  if (file.empty()) GTEST_SKIP() << fw_missing();
  run([&file](cp_bench& b) {
    boot_from_memory(b, file);
    b.submit({t7(0x10, 0), t4(CP_SCRATCH_REG0, 1), 0x42});
    ASSERT_TRUE(b.wait_idle());
    EXPECT_NE(b.cp.iss(0).sqe_reg(SQE_PREEMPT_INSTR), 0u);  // set by the boot code (swrite)
    b.write_reg(CP_CONTEXT_SWITCH_CNTL, 1);
    ASSERT_TRUE(b.until([&] { return b.cp.preemptions.value() == 1 && !b.cp.iss(0).in_handler(); }));
    EXPECT_EQ(b.read_reg(CP_CONTEXT_SWITCH_CNTL), 0u);
    b.submit({t4(CP_SCRATCH_REG0, 1), 0x43});
    ASSERT_TRUE(b.wait_idle());
    EXPECT_EQ(b.read_reg(CP_SCRATCH_REG0), 0x43u);
  });
  EXPECT_TRUE(b->cp.modelled_errors().empty());
  EXPECT_EQ(b->cp.packets.value(), 3u);
}

// a660 boot handshake: the SQE starts LPAC (CP_LPAC_SQE_CNTL = 1 through REG_WRITE), sets
// THREAD_SYNC (control 0x200) bit 0 and spins at pc 0xaa until bit 1 is set. With
// lpac_boot_ack off nothing sets it (there is no LPAC): no packet is ever dispatched.
TEST_F(cpModel, A660WaitsForLpacWithoutTheBootAck) {
  const std::vector<uint32_t> file = use_real_firmware("a660_sqe.fw", "0x30000000");
  if (file.empty()) GTEST_SKIP() << fw_missing();
  config::global().set("bench.cp.lpac_boot_ack", "false", "test");
  run([&file](cp_bench& b) {
    boot_from_memory(b, file);
    b.submit({t7(0x10, 0)});
    EXPECT_FALSE(b.wait_idle(sc_core::sc_time(20, sc_core::SC_US)));
    const uint32_t pc = b.cp.iss(0).pc();
    EXPECT_TRUE(pc == 0xaa || pc == 0xab) << std::hex << pc;  // the brne and its delay slot
  });
  EXPECT_EQ(b->cp.packets.value(), 0u);
  EXPECT_TRUE(b->cp.modelled_errors().empty());
}
