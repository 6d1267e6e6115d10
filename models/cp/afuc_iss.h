// SPDX-License-Identifier: Apache-2.0
// Interpreter ISS for one afuc microcontroller (a5xx PFP or ME, a6xx SQE).
// The image is decoded once at load; run() executes from the predecoded array. Everything
// outside the core (packet stream, GPU registers, control registers, memory) goes through
// afuc_env, whose callbacks may block (in the platform they wait on SystemC events).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "afuc.h"

namespace gpuvp::cp {

class afuc_env {
 public:
  virtual ~afuc_env() = default;
  // Next dword of the PM4 stream for a $data read; false = none (the ISS stops, "starved").
  virtual bool pop_data(uint32_t& v) = 0;
  // $data write to GPU register `addr` ($addr, or $usraddr when user): the environment
  // advances addr (registers auto-increment; data ports such as CP_ME_NRT_DATA do not).
  virtual void reg_write(uint32_t& addr, uint32_t v, bool user) = 0;
  // $memdata (src 0x1d) read; addr = $addr, advanced by the environment like reg_write.
  virtual uint32_t read_memdata(uint32_t& addr) = 0;
  // $regdata (src 0x1e) read.
  virtual uint32_t read_regdata() = 0;
  virtual void ctrl_write(uint32_t reg, uint32_t v) = 0;
  virtual uint32_t ctrl_read(uint32_t reg) = 0;
  // a6xx pipe registers ($addr >= 0x10000: register id in bits 31:24).
  virtual void pipe_write(uint32_t id, uint32_t v) {}
  // a6xx load/store (64-bit address).
  virtual uint32_t mem_read(uint64_t addr) { return 0; }
  virtual void mem_write(uint64_t addr, uint32_t v) {}
  // setsecure: v = $02 (bit 0: the mode asked for); true = success (skips the next two
  // instructions).
  virtual bool set_secure(uint32_t v) { return false; }
  // The ISS raised a microcode error (message names PC and word).
  virtual void error(const std::string& msg) {}
};

struct afuc_stats {
  uint64_t instructions = 0;  // retired, (rep) iterations counted one by one
  uint64_t packets = 0;       // waitin dispatches
  uint64_t interrupts = 0;    // interrupt (preemption) handlers entered
  uint64_t packets_by_id[128] = {};
};

class afuc_iss {
 public:
  enum class state { running, starved, halted };

  afuc_iss(int gen, unsigned call_depth = 4);
  // Loads an image (the firmware file minus its header word). The jump table comes from the
  // trailing table when the image has the Mesa layout; a6xx firmware may also fill it at boot
  // through the PACKET_TABLE_WRITE control registers.
  void load(const std::vector<uint32_t>& image);
  void reset();
  void set_env(afuc_env* e) { env_ = e; }
  // a5xx ME: packet headers come from the PFP through the MEQ, already checked there, and the
  // PFP makes some of its own (an IB start is opcode 0x3f without parity; a PKT4 header comes as
  // the PFP's $01 holds it, type bits cleared): they are decoded without parity checks.
  void set_headers_from_pfp(bool on) { headers_from_pfp_ = on; }

  // Runs at most max_instrs instructions; returns the number executed. Stops early when
  // starved (no packet data) or halted (microcode error). (rep) iterations count one by one: a
  // (rep) with a large $rem stops at the budget and goes on at the next run(), so every run()
  // ends after about max_instrs iterations whatever $rem holds.
  uint64_t run(uint64_t max_instrs);
  // Single instruction (with its (rep) iterations).
  void step();

  // Interrupt (preemption) request: at the next instruction boundary the microcontroller saves
  // its context (PC and a pending branch/waitin of a delay slot) and runs the handler at
  // `target`; iret (after its delay slot) restores the context. Requests are not nested: one
  // made inside a handler waits until the handler is left. A starved instruction is retried
  // after iret.
  void interrupt(uint32_t target) {
    irq_pending_ = true;
    irq_target_ = target;
  }
  bool irq_pending() const { return irq_pending_; }
  bool in_handler() const { return in_handler_; }
  uint32_t saved_pc() const { return saved_pc_; }
  // a6xx SQE registers (Mesa swrite/sread: cwrite/cread with flag 0x8): 0x004 PREEMPT_INSTR,
  // 0x005 SP (return-stack depth in use), 0x008 + n STACKn (return-stack entries); others stored.
  uint32_t sqe_reg(uint32_t r) const;

  state st() const { return st_; }
  void resume() {
    if (st_ == state::starved) st_ = state::running;
  }
  // Stops with a microcode error raised from outside (e.g. a bus error in the environment).
  void halt(const std::string& why) { fail(why); }
  const std::string& error_message() const { return err_; }
  uint32_t pc() const { return pc_; }
  void set_pc(uint32_t pc) { pc_ = pc; }
  uint32_t reg(unsigned r) const { return regs_[r & 31]; }
  void set_reg(unsigned r, uint32_t v) {
    if (r & 31) regs_[r & 31] = v;
  }
  uint32_t carry() const { return carry_; }
  uint32_t jumptable(unsigned id) const { return jt_[id & 127]; }
  uint32_t packet_table_write_addr() const { return pt_write_addr_; }
  void set_jumptable(unsigned id, uint32_t pc) { jt_[id & 127] = pc; }
  unsigned call_depth_now() const { return sp_; }
  const afuc_stats& stats() const { return stats_; }
  int gen() const { return gen_; }

  // Plain ALU function (exposed for tests): the carry in/out is the high word of the 64-bit sum.
  static uint32_t alu(afuc_op op, uint32_t a, uint32_t b, uint32_t& carry);

 private:
  uint32_t rd(uint8_t r);
  void wr(uint8_t r, uint32_t v);
  void exec(const afuc_instr& in);
  bool exec_alu(const afuc_instr& in, uint64_t pops_before, int& main_popped);
  void exec_control(const afuc_instr& in);
  bool exec_flow(const afuc_instr& in);
  bool run_fast(uint64_t end);
  void fail(const std::string& why);
  void dispatch();
  void take_interrupt();
  void sqe_write(uint32_t r, uint32_t v);

  int gen_;
  unsigned depth_;
  bool headers_from_pfp_ = false;
  afuc_env* env_ = nullptr;
  std::vector<uint32_t> words_;
  std::vector<afuc_instr> code_;
  std::vector<uint8_t> valid_;
  // run()'s fast path: register-only instructions predecoded for one switch, with what each
  // needs resolved at load (immediate forms, shifted movi value, branch bit mask).
  static constexpr uint8_t sink = 32;  // register index that takes writes to $00
  enum fast_kind : uint8_t { f_exit, f_nop, f_movi, f_add_i, f_sub_i, f_alu_i, f_alu_r, f_not_i, f_brnei, f_breqi, f_brneb, f_breqb };
  struct fast_op {
    fast_kind kind = f_exit;                 // f_exit: step() runs it
    uint8_t dst = sink, src1 = 0, src2 = 0;  // dst $00 is the sink register (writes ignored)
    afuc_op alu = afuc_op::nop;
    uint32_t imm = 0;    // ALU immediate, movi value, branch compare value or bit mask
    int32_t offset = 0;  // branch offset
  };
  static fast_op fast_form(const afuc_instr& in);
  std::vector<fast_op> fast_;
  uint32_t regs_[33] = {};  // $00..$1f and the sink
  uint32_t carry_ = 0;
  uint32_t pc_ = 0;
  int64_t branch_ = -1;  // taken branch waiting for its delay slot
  bool waitin_ = false;  // waitin waiting for its delay slot
  std::vector<uint32_t> stack_;
  unsigned sp_ = 0;
  uint32_t jt_[128] = {};
  uint32_t pt_write_addr_ = 0;
  bool data_pipe_ = false;  // $data writes go to a pipe register
  bool data_user_ = false;  // $data writes via $usraddr
  bool starve_ = false;
  uint64_t pops_ = 0;                   // $data reads so far
  bool skip2_ = false;                  // setsecure succeeded
  uint64_t rep_budget_ = ~uint64_t(0);  // (rep) iterations step() may still run (set by run())
  bool rep_in_progress_ = false;        // a (rep) stopped at the budget; resumes before anything else
  bool iret_ = false;                   // iret waiting for its delay slot
  bool irq_pending_ = false;            // interrupt requested, not taken yet
  uint32_t irq_target_ = 0;
  bool in_handler_ = false;                                       // between taking an interrupt and iret/preemptleave
  std::vector<uint32_t> sqe_ = std::vector<uint32_t>(0x1000, 0);  // SQE register store
  uint32_t saved_pc_ = 0;                                         // interrupted context
  int64_t saved_branch_ = -1;
  bool saved_waitin_ = false;
  state st_ = state::running;
  std::string err_;
  afuc_stats stats_;
};

// PM4 header helpers (freedreno_pm4.h facts): odd parity over the nibbles.
inline uint32_t pm4_parity(uint32_t v) {
  v ^= v >> 16;
  v ^= v >> 8;
  v ^= v >> 4;
  return (~0x6996u >> (v & 0xf)) & 1;
}
inline uint32_t pm4_type4(uint32_t reg, uint32_t cnt) {
  return 0x40000000u | cnt | pm4_parity(cnt) << 7 | (reg & 0x3ffff) << 8 | pm4_parity(reg) << 27;
}
inline uint32_t pm4_type7(uint32_t op, uint32_t cnt) {
  return 0x70000000u | (cnt & 0x3fff) | pm4_parity(cnt) << 15 | (op & 0x7f) << 16 | pm4_parity(op) << 23;
}
// Decodes a header: returns false if not a valid type4/type7 header.
struct pm4_header {
  bool type4;
  uint32_t id;
  uint32_t count;
  uint32_t reg;
};
bool pm4_decode_header(uint32_t h, pm4_header& out);

}  // namespace gpuvp::cp
