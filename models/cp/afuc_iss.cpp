// SPDX-License-Identifier: Apache-2.0
#include "afuc_iss.h"

#include <algorithm>
#include <cstdio>

namespace gpuvp::cp {

bool pm4_decode_header(uint32_t h, pm4_header& o) {
  if ((h & 0xf0000000u) == 0x40000000u) {
    const uint32_t cnt = h & 0x7f, reg = (h >> 8) & 0x7ffff;
    if (((h >> 7) & 1) != pm4_parity(cnt) || ((h >> 27) & 1) != pm4_parity(reg & 0x3ffff)) return false;
    o = {true, 4, cnt, reg & 0x3ffff};
    return true;
  }
  if ((h & 0xff000000u) == 0x70000000u) {
    const uint32_t cnt = h & 0x3fff, op = (h >> 16) & 0x7f;
    if (((h >> 15) & 1) != pm4_parity(cnt) || ((h >> 23) & 1) != pm4_parity(op)) return false;
    o = {false, op, cnt, 0};
    return true;
  }
  return false;
}

// The fast-path form of a register-only instruction without modifiers (f_exit for the others).
afuc_iss::fast_op afuc_iss::fast_form(const afuc_instr& in) {
  fast_op f;
  if (in.rep || in.xmov) return f;
  const bool plain_src1 = in.src1 < REG_MEMDATA, plain_src2 = in.has_immed || in.src2 < REG_MEMDATA;
  f.dst = in.dst ? in.dst : sink;
  f.src1 = in.src1;
  f.src2 = in.src2;
  f.alu = in.op;
  f.imm = in.immed;
  f.offset = in.offset;
  if (is_alu(in.op)) {
    if (in.dst >= REG_ADDR) return fast_op{};
    const bool one = in.op == afuc_op::not_ || in.op == afuc_op::msb;
    if (in.has_immed && in.op == afuc_op::not_)
      f.kind = f_not_i;  // ~immed, no register read
    else if (!plain_src1)
      return fast_op{};
    else if (in.has_immed)
      f.kind = in.op == afuc_op::add ? f_add_i : in.op == afuc_op::sub ? f_sub_i : f_alu_i;
    else if (one)
      f.kind = f_alu_r, f.src2 = 0;  // the second operand is unused (reads $00)
    else if (plain_src2)
      f.kind = f_alu_r;
    else
      return fast_op{};
  } else if (in.op == afuc_op::movi) {
    if (in.dst >= REG_ADDR) return fast_op{};
    f.kind = f_movi;
    f.imm = in.immed << in.shift;
  } else if (in.op == afuc_op::brnei || in.op == afuc_op::breqi || in.op == afuc_op::brneb || in.op == afuc_op::breqb) {
    if (!plain_src1) return fast_op{};
    f.kind = in.op == afuc_op::brnei ? f_brnei : in.op == afuc_op::breqi ? f_breqi : in.op == afuc_op::brneb ? f_brneb : f_breqb;
    if (in.op == afuc_op::brneb || in.op == afuc_op::breqb) f.imm = 1u << in.bit;
  } else if (in.op == afuc_op::nop || in.op == afuc_op::payload) {
    f.kind = f_nop;
  }
  return f;
}

afuc_iss::afuc_iss(int gen, unsigned call_depth) : gen_(gen), depth_(call_depth), stack_(call_depth) {}

void afuc_iss::load(const std::vector<uint32_t>& image) {
  words_ = image;
  code_.assign(image.size(), afuc_instr{});
  valid_.assign(image.size(), 0);
  fast_.assign(image.size(), fast_op{});
  for (size_t i = 0; i < image.size(); i++) {
    if (auto d = afuc_decode(image[i], gen_)) {
      code_[i] = *d;
      valid_[i] = 1;
      fast_[i] = fast_form(*d);
    }
  }
  for (auto& e : jt_) e = 0;
  if (image.size() >= 2) {
    const uint32_t off = image[1] & 0xffff;
    if (uint64_t(off) + 128 == image.size())
      for (unsigned i = 0; i < 128; i++) jt_[i] = image[off + i];
  }
  reset();
}

void afuc_iss::reset() {
  for (auto& r : regs_) r = 0;
  carry_ = 0;
  pc_ = 0;
  branch_ = -1;
  waitin_ = false;
  sp_ = 0;
  pt_write_addr_ = 0;
  data_pipe_ = data_user_ = false;
  starve_ = skip2_ = iret_ = rep_in_progress_ = false;
  irq_pending_ = in_handler_ = saved_waitin_ = false;
  irq_target_ = saved_pc_ = 0;
  std::fill(sqe_.begin(), sqe_.end(), 0u);
  saved_branch_ = -1;
  st_ = state::running;
  err_.clear();
}

void afuc_iss::fail(const std::string& why) {
  if (st_ == state::halted) return;
  char b[96];
  const uint32_t w = pc_ < words_.size() ? words_[pc_] : 0;
  std::snprintf(b, sizeof b, "CP microcode error at pc 0x%04x (word 0x%08x): ", pc_, w);
  err_ = b + why;
  st_ = state::halted;
  if (env_) env_->error(err_);
}

uint32_t afuc_iss::alu(afuc_op op, uint32_t a, uint32_t b, uint32_t& carry) {
  uint64_t t;
  switch (op) {
    case afuc_op::add:
      t = uint64_t(a) + b;
      carry = uint32_t(t >> 32);
      return uint32_t(t);
    case afuc_op::addhi:
      return a + b + carry;
    case afuc_op::sub:
      t = uint64_t(a) - b;
      carry = uint32_t(t >> 32);
      return uint32_t(t);
    case afuc_op::subhi:
      return a - b + carry;
    case afuc_op::and_:
      return a & b;
    case afuc_op::bic:
      return a & ~b;
    case afuc_op::or_:
      return a | b;
    case afuc_op::xor_:
      return a ^ b;
    case afuc_op::not_:
      return ~a;
    // Shift counts are taken modulo 32 (what the reference emulator does on x86).
    case afuc_op::shl:
      return a << (b & 31);
    case afuc_op::ushr:
      return a >> (b & 31);
    case afuc_op::ishr:
      return uint32_t(int32_t(a) >> (b & 31));
    case afuc_op::rot: {
      if (b & 0x80000000u) {  // negative count: 64-bit rotate of the zero-extended value
        const unsigned r = (0u - b) & 63;
        const uint64_t x = a;
        return uint32_t(r ? (x << r) | (x >> (64 - r)) : x);
      }
      const unsigned r = b & 31;
      return r ? (a << r) | (a >> (32 - r)) : a;
    }
    case afuc_op::mul8:
      return (a & 0xff) * (b & 0xff);
    case afuc_op::min:
      return a < b ? a : b;
    case afuc_op::max:
      return a > b ? a : b;
    case afuc_op::cmp:
      return a > b ? 0x00 : a == b ? 0x2b : 0x1e;
    case afuc_op::msb:
      return a ? 31 - __builtin_clz(a) : 0;
    case afuc_op::setbitr: {
      const uint32_t bit = (b >> 1) & 31;
      return (a & ~(1u << bit)) | ((b & 1u) << bit);
    }
    default:
      return 0;
  }
}

inline uint32_t afuc_iss::rd(uint8_t r) {
  if (r < REG_MEMDATA) return regs_[r];
  if (!env_) return 0;
  switch (r) {
    case REG_MEMDATA:
      return env_->read_memdata(regs_[REG_ADDR]);
    case REG_REGDATA:
      return env_->read_regdata();
    default: {
      uint32_t v = 0;
      if (starve_ || !env_->pop_data(v)) {
        starve_ = true;
        return 0;
      }
      regs_[REG_REM]--;
      pops_++;
      return v;
    }
  }
}

inline void afuc_iss::wr(uint8_t r, uint32_t v) {
  if (r < REG_ADDR) {
    if (r) regs_[r] = v;  // $00 ignores writes
    return;
  }
  if (r == REG_ADDR || r == REG_USRADDR) {
    regs_[r] = v;
    data_user_ = r == REG_USRADDR;
    // Pipe registers have their id in bits 31:24 (low bits zero but b18); below that the
    // value is a register offset whose bits above 17 are flags (e.g. a PKT4 header's parity).
    data_pipe_ = gen_ >= 6 && (v >> 24) != 0;
    return;
  }
  // $data write: to the register (or pipe register) selected by $addr/$usraddr.
  const uint8_t a = data_user_ ? REG_USRADDR : REG_ADDR;
  const uint32_t off = regs_[a];
  if (!env_) return;
  if (data_pipe_) {
    if (!(off & 0x40000)) regs_[a] = off + 0x01000000;  // b18 = no auto-increment
    env_->pipe_write(off >> 24, v);
  } else {
    env_->reg_write(regs_[a], v, data_user_);
  }
}

// An ALU instruction with its (xmovN) moves; false if it starved before writing anything.
bool afuc_iss::exec_alu(const afuc_instr& in, uint64_t pops_before, int& main_popped) {
  const uint32_t a = in.has_immed && in.op == afuc_op::not_ ? in.immed : rd(in.src1);
  const uint32_t b = in.has_immed ? in.immed : in.op == afuc_op::not_ || in.op == afuc_op::msb ? 0 : rd(in.src2);
  if (starve_) return false;  // nothing written: the instruction is retried
  main_popped = pops_ != pops_before;
  wr(in.dst, alu(in.op, a, b, carry_));
  if (in.xmov) {
    // Extra moves from src2, bounded by $rem as it is after the instruction's own $data
    // read; destinations as the reference emulator: 1: $data; 2: $data, $data;
    // 3: $data, DST, $data. A move that pops $data is counted by the pop itself.
    const unsigned m = std::min<uint32_t>(in.xmov, regs_[REG_REM]);
    for (unsigned k = 1; k <= m && !starve_; k++) {
      const uint64_t p = pops_;
      const uint32_t v = rd(in.src2);
      if (starve_) break;
      if (pops_ == p) regs_[REG_REM]--;
      wr(m == 3 && k == 2 ? in.dst : uint8_t(REG_DATA), v);
    }
  }
  return true;
}

// cwrite/cread (control or, a6xx flag 0x8, SQE registers) and load/store; flag 0x4 pre-increments.
void afuc_iss::exec_control(const afuc_instr& in) {
  switch (in.op) {
    case afuc_op::cwrite:
    case afuc_op::cread: {
      // cwrite: src1 = value, src2 = offset reg; cread: src1 = offset reg.
      const uint8_t offreg = in.op == afuc_op::cwrite ? in.src2 : in.src1;
      const uint32_t value = in.op == afuc_op::cwrite ? rd(in.src1) : 0;
      const uint32_t base = rd(offreg);
      if (starve_) return;
      const uint32_t addr = base + in.immed;
      if (in.bit & 0x4) wr(offreg, addr);  // pre-increment
      if (gen_ >= 6 && (in.bit & 0x8)) {   // swrite / sread: the SQE register space
        if (in.op == afuc_op::cread)
          wr(in.dst, sqe_reg(addr));
        else
          sqe_write(addr, value);
        break;
      }
      if (in.op == afuc_op::cread) {
        wr(in.dst, env_ ? env_->ctrl_read(addr) : 0);
        break;
      }
      if (gen_ >= 6 && addr == 0x060) {
        pt_write_addr_ = value;
      } else if (gen_ >= 6 && addr == 0x061) {
        if (pt_write_addr_ >= 128) {
          fail("PACKET_TABLE_WRITE past the 128-entry jump table");
          break;
        }
        jt_[pt_write_addr_++] = value;
      }
      if (env_) env_->ctrl_write(addr, value);
      break;
    }
    case afuc_op::load:
    case afuc_op::store: {
      const uint8_t offreg = in.op == afuc_op::store ? in.src2 : in.src1;
      const uint32_t value = in.op == afuc_op::store ? rd(in.src1) : 0;
      const uint32_t base = rd(offreg);
      if (starve_) return;
      const uint64_t hi = env_ ? env_->ctrl_read(0x058) : 0;  // LOAD_STORE_HI
      const uint64_t addr = (hi << 32) + base + in.immed;
      if (in.bit & 0x4) wr(offreg, base + in.immed);
      if (in.op == afuc_op::load)
        wr(in.dst, env_ ? env_->mem_read(addr) : 0);
      else if (env_)
        env_->mem_write(addr, value);
      break;
    }
    default:
      break;
  }
}

// Branches, calls, returns, jumps and the other control-flow instructions. False: starved on
// $data (the instruction is retried).
bool afuc_iss::exec_flow(const afuc_instr& in) {
  switch (in.op) {
    case afuc_op::brnei:
    case afuc_op::breqi:
    case afuc_op::brneb:
    case afuc_op::breqb: {
      const uint32_t s = rd(in.src1);
      if (starve_) return false;
      bool taken;
      if (in.op == afuc_op::brnei)
        taken = s != in.immed;
      else if (in.op == afuc_op::breqi)
        taken = s == in.immed;
      else if (in.op == afuc_op::brneb)
        taken = !(s & (1u << in.bit));
      else
        taken = (s & (1u << in.bit)) != 0;
      if (taken) branch_ = int64_t(pc_) + in.offset;
      break;
    }
    case afuc_op::call:
      if (sp_ >= depth_) {
        fail("call stack overflow (depth " + std::to_string(depth_) + ")");
        break;
      }
      stack_[sp_++] = pc_ + 2;  // returns after the delay slot
      branch_ = in.literal;
      break;
    case afuc_op::ret:
      if (sp_ == 0) {
        fail("ret with an empty call stack");
        break;
      }
      branch_ = stack_[--sp_];
      break;
    case afuc_op::iret:
      // Returns to the interrupted context after the delay slot (step() restores it).
      if (!in_handler_) {
        fail("iret outside an interrupt handler");
        break;
      }
      branch_ = saved_pc_;
      iret_ = true;
      break;
    case afuc_op::waitin:
      waitin_ = true;
      break;
    case afuc_op::jumpr: {
      const uint32_t t = rd(in.src1);
      if (starve_) return false;
      branch_ = t;
      break;
    }
    case afuc_op::jumpa:
      branch_ = in.literal;
      break;
    case afuc_op::preemptleave:
      // Inside a handler leaving succeeds: the interrupted context is dropped and execution
      // falls through. Outside one it fails and jumps to the target (with a delay slot).
      if (in_handler_)
        in_handler_ = false;
      else
        branch_ = in.literal;
      break;
    case afuc_op::setsecure:
      // Success skips the next two instructions (no delay slot: "skips", not "branches").
      if (env_ && env_->set_secure(regs_[2])) skip2_ = true;
      break;
    default:
      break;
  }
  return true;
}

void afuc_iss::exec(const afuc_instr& in) {
  const uint64_t pops_before = pops_;
  int main_popped = -1;  // did the instruction itself (not its xmov moves) read $data?
  switch (in.op) {
    case afuc_op::nop:
    case afuc_op::payload:
      break;
    case afuc_op::movi:
      wr(in.dst, in.immed << in.shift);
      break;
    case afuc_op::cwrite:
    case afuc_op::cread:
    case afuc_op::load:
    case afuc_op::store:
      exec_control(in);
      if (starve_) return;
      break;
    case afuc_op::brnei:
    case afuc_op::breqi:
    case afuc_op::brneb:
    case afuc_op::breqb:
    case afuc_op::call:
    case afuc_op::ret:
    case afuc_op::iret:
    case afuc_op::waitin:
    case afuc_op::jumpr:
    case afuc_op::jumpa:
    case afuc_op::preemptleave:
    case afuc_op::setsecure:
      if (!exec_flow(in)) return;  // starved: retried
      break;
    case afuc_op::setbit:
    case afuc_op::clrbit: {
      const uint32_t v = rd(in.src1);
      if (starve_) return;
      wr(in.dst, in.op == afuc_op::setbit ? v | (1u << in.bit) : v & ~(1u << in.bit));
      break;
    }
    case afuc_op::ubfx:
    case afuc_op::bfi: {  // LO = bit, HI = immed (Mesa emu.c)
      const uint32_t v = rd(in.src1);
      if (starve_) return;
      const uint32_t width = in.immed - in.bit + 1;
      const uint32_t mask = width >= 32 ? ~0u : (1u << width) - 1;
      if (in.op == afuc_op::ubfx)
        wr(in.dst, (v >> in.bit) & mask);
      else
        wr(in.dst, rd(in.dst) | (v & mask) << in.bit);
      break;
    }
    default:                                                // ALU
      if (!exec_alu(in, pops_before, main_popped)) return;  // starved: retried
      break;
  }
  // (rep): an iteration that read $data was counted by the read; otherwise count it here.
  if (main_popped < 0) main_popped = pops_ != pops_before;
  if (in.rep && !main_popped) regs_[REG_REM]--;
}

void afuc_iss::dispatch() {
  pm4_header h;
  const uint32_t w = regs_[1];
  if (headers_from_pfp_ && w >> 28 == 7) {
    h = {false, (w >> 16) & 0x7f, w & 0x3fff, 0};
  } else if (headers_from_pfp_ && (w >> 28 == 4 || w >> 28 == 0)) {  // PKT4 as the PFP's $01 holds it
    h = {true, 4, w & 0x7f, (w >> 8) & 0x3ffff};
  } else if (!pm4_decode_header(w, h)) {
    char b[64];
    std::snprintf(b, sizeof b, "invalid PM4 header 0x%08x", regs_[1]);
    fail(b);
    return;
  }
  if (h.type4) regs_[1] &= 0x0fffffff;
  regs_[REG_REM] = h.count;
  stats_.packets++;
  stats_.packets_by_id[h.id]++;
  pc_ = jt_[h.id];
}

uint32_t afuc_iss::sqe_reg(uint32_t r) const {
  r &= 0xfff;
  if (r == 0x005) return sp_;
  if (r >= 0x008 && r < 0x010 && r - 0x008 < depth_) return stack_[r - 0x008];
  return sqe_[r];
}

void afuc_iss::sqe_write(uint32_t r, uint32_t v) {
  r &= 0xfff;
  if (r == 0x005) {
    if (v > depth_) {
      fail("SP " + std::to_string(v) + " beyond the call stack depth " + std::to_string(depth_));
      return;
    }
    sp_ = v;
  } else if (r >= 0x008 && r < 0x010 && r - 0x008 < depth_) {
    stack_[r - 0x008] = v;
  }
  sqe_[r] = v;
}

void afuc_iss::take_interrupt() {
  saved_pc_ = pc_;
  saved_branch_ = branch_;
  saved_waitin_ = waitin_;
  branch_ = -1;
  waitin_ = false;
  pc_ = irq_target_;
  irq_pending_ = false;
  in_handler_ = true;
  stats_.interrupts++;
}

void afuc_iss::step() {
  if (st_ != state::running) return;
  if (irq_pending_ && !in_handler_ && !rep_in_progress_) take_interrupt();
  rep_in_progress_ = false;
  if (pc_ >= code_.size()) {
    fail("pc outside the microcode image");
    return;
  }
  if (!valid_[pc_]) {
    fail("undecodable instruction");
    return;
  }
  const afuc_instr& in = code_[pc_];
  const int64_t pending = branch_;
  const bool pending_waitin = waitin_, pending_iret = iret_;
  branch_ = -1;
  waitin_ = iret_ = false;
  if (in.rep) {
    stats_.instructions += regs_[REG_REM] == 0;  // a (rep) with $rem == 0 still issues once
    for (uint64_t budget = rep_budget_; regs_[REG_REM] != 0 && !starve_ && st_ == state::running;) {
      if (budget-- == 0) {  // out of budget: same instruction, same delay-slot state next time
        branch_ = pending;
        waitin_ = pending_waitin;
        iret_ = pending_iret;
        rep_in_progress_ = true;
        return;
      }
      exec(in);
      stats_.instructions++;
    }
  } else {
    exec(in);
    stats_.instructions++;
  }
  if (starve_) {
    // Nothing to read: retry this instruction when data arrives.
    starve_ = false;
    branch_ = pending;
    waitin_ = pending_waitin;
    iret_ = pending_iret;
    if (st_ == state::running) st_ = state::starved;
    return;
  }
  if (st_ != state::running) return;
  if ((pending >= 0 || pending_waitin) && (branch_ >= 0 || waitin_)) {
    fail("taken branch in the delay slot of a taken branch");
    return;
  }
  if (pending_waitin) {  // errors name the delay slot that read the header
    dispatch();
    return;
  }
  pc_++;
  if (skip2_) {
    skip2_ = false;
    pc_ += 2;
  }
  if (pending >= 0) pc_ = uint32_t(pending);
  if (pending_iret) {  // back in the interrupted context, with its own pending delay slot
    branch_ = saved_branch_;
    waitin_ = saved_waitin_;
    in_handler_ = false;
  }
}

// The fast path: register-only ALU, movi, branches and nops outside a waitin delay slot, with
// the PC, pending branch, carry and count in locals. It does exactly what step() does for them.
// False: stop running (the budget is spent, or a fault).
bool afuc_iss::run_fast(uint64_t end) {
  const fast_op* const fast = fast_.data();
  const uint32_t size = uint32_t(fast_.size());
  uint32_t* const r = regs_;
  uint32_t pc = pc_, carry = carry_;
  int64_t branch = branch_;
  uint64_t n = stats_.instructions;
  bool both_taken = false;
  while (n < end && pc < size) {
    const fast_op& f = fast[pc];
    if (f.kind == f_exit) break;
    const int64_t pending = branch;
    branch = -1;
    bool taken = false;
    switch (f.kind) {
      case f_exit:
      case f_nop:
        break;
      case f_movi:
        r[f.dst] = f.imm;
        break;
      case f_add_i: {
        const uint64_t t = uint64_t(r[f.src1]) + f.imm;
        carry = uint32_t(t >> 32);
        r[f.dst] = uint32_t(t);
        break;
      }
      case f_sub_i: {
        const uint64_t t = uint64_t(r[f.src1]) - f.imm;
        carry = uint32_t(t >> 32);
        r[f.dst] = uint32_t(t);
        break;
      }
      case f_alu_i:
        r[f.dst] = alu(f.alu, r[f.src1], f.imm, carry);
        break;
      case f_alu_r:
        r[f.dst] = alu(f.alu, r[f.src1], r[f.src2], carry);
        break;
      case f_not_i:
        r[f.dst] = ~f.imm;
        break;
      case f_brnei:
        taken = r[f.src1] != f.imm;
        break;
      case f_breqi:
        taken = r[f.src1] == f.imm;
        break;
      case f_brneb:
        taken = !(r[f.src1] & f.imm);
        break;
      case f_breqb:
        taken = (r[f.src1] & f.imm) != 0;
        break;
    }
    if (taken) {
      if (pending >= 0) {
        branch = pending;
        both_taken = true;
        break;
      }
      branch = int64_t(pc) + f.offset;
    }
    n++;
    pc = pending >= 0 ? uint32_t(pending) : pc + 1;
  }
  pc_ = pc;
  carry_ = carry;
  branch_ = branch;
  stats_.instructions = n;
  if (both_taken) {
    fail("taken branch in the delay slot of a taken branch");
    return false;
  }
  return n < end;
}

uint64_t afuc_iss::run(uint64_t max_instrs) {
  const uint64_t start = stats_.instructions;
  const uint64_t end = max_instrs > ~start ? ~uint64_t(0) : start + max_instrs;
  while (st_ == state::running && stats_.instructions < end) {
    if (irq_pending_ && !in_handler_ && !rep_in_progress_) take_interrupt();
    if (!waitin_ && !iret_ && !run_fast(end)) break;  // (an iret's delay slot goes through step())
    rep_budget_ = end - stats_.instructions;
    step();
    rep_budget_ = ~uint64_t(0);
  }
  return stats_.instructions - start;
}

}  // namespace gpuvp::cp
