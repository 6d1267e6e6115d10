// SPDX-License-Identifier: Apache-2.0
// SM execute stage, modelled exactly as GPGPU-Sim's shader.{h,cc} (function units, pipelines).
//
// - simd_function_unit: a dispatch register and an `occupied` bitset of MAX_ALU_LATENCY bits.
//   can_issue(inst) = dispatch register empty && !occupied[inst.latency]; issue() moves the
//   instruction from the OC_EX register set to the dispatch register and sets occupied[latency].
// - pipelined_unit: `max_latency` pipeline registers; each cycle() stage 0 goes to the result port
//   (EX_WB), the stages shift down, the dispatch register enters stage latency-initiation once its
//   dispatch delay (initiation interval, counted down once per cycle()) is over; occupied >>= 1.
// - execute_stage::execute(): all result buses >>= 1, then per unit: cycle() x clock_multiplier,
//   then issue from its OC_EX port if can_issue; a non-stallable unit also needs a result bus whose
//   bit `latency` is free (test_res_bus), else the instruction stalls (counted).
// Pure C++ (no SystemC): the core and the tests drive it cycle by cycle.
#pragma once
#include <algorithm>
#include <bitset>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gpuvp::sm {

constexpr unsigned MAX_ALU_LATENCY = 512;
constexpr unsigned SPECIALIZED_UNIT_NUM = 8;

// Execution resource an opcode needs (GPGPU-Sim's op classes, folded to the units).
enum class op_class : uint8_t {
  sp,
  dp,
  sfu,
  intp,
  tensor,
  mem,
  spec1,
  spec2,
  spec3,
  spec4,
  spec5,
  spec6,
  spec7,
  spec8,
  exit,
  barrier,
  nop,  // EXIT, BAR, NOP-class: issued to the INT unit (latency 1,1 / 1,1 / int)
};
constexpr unsigned num_op_classes = 17;
inline op_class spec_class(unsigned n) { return op_class(unsigned(op_class::spec1) + n - 1); }
const char* op_class_name(op_class c);

// GPGPU-Sim's std::bitset<MAX_ALU_LATENCY> that shifts right by one each cycle (a unit's
// `occupied`, a result bus), kept as a ring: the shift is O(1) and free while no bit is set.
class latency_bits {
 public:
  bool test(unsigned i) const { return w_[idx(i) / 64] >> (idx(i) % 64) & 1; }
  void set(unsigned i) {
    const unsigned k = idx(i);
    const uint64_t b = uint64_t(1) << (k % 64);
    if (!(w_[k / 64] & b)) ++count_;
    w_[k / 64] |= b;
  }
  bool none() const { return count_ == 0; }
  // bitset >>= n: bit 0 drops out, zeros come in at the top.
  void shift(uint64_t n = 1) {
    for (; n && count_; --n) {
      const uint64_t b = uint64_t(1) << (base_ % 64);
      if (w_[base_ / 64] & b) {
        w_[base_ / 64] &= ~b;
        --count_;
      }
      base_ = (base_ + 1) % MAX_ALU_LATENCY;
    }
  }
  std::bitset<MAX_ALU_LATENCY> bits() const {
    std::bitset<MAX_ALU_LATENCY> r;
    for (unsigned i = 0; i < MAX_ALU_LATENCY; ++i) r[i] = test(i);
    return r;
  }

 private:
  unsigned idx(unsigned i) const { return (base_ + i) % MAX_ALU_LATENCY; }
  uint64_t w_[MAX_ALU_LATENCY / 64] = {};
  unsigned base_ = 0, count_ = 0;
};

// The result buses (GPGPU-Sim's m_result_bus: one std::bitset<MAX_ALU_LATENCY> per EX_WB slot,
// all shifted right by one each cycle), kept as one ring of per-latency bus masks: a cycle's
// shift clears one entry, and the first free bus at a latency is one lookup.
class result_buses {
 public:
  explicit result_buses(unsigned n) : all_(n >= 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1), n_(n) {}
  unsigned size() const { return n_; }
  // First bus whose bit `latency` is free, or -1.
  int first_free(unsigned latency) const {
    const uint64_t free = ~ring_[idx(latency)] & all_;
    return free ? int(__builtin_ctzll(free)) : -1;
  }
  bool test(unsigned bus, unsigned latency) const { return ring_[idx(latency)] >> bus & 1; }
  void set(unsigned bus, unsigned latency) {
    uint64_t& e = ring_[idx(latency)];
    if (!e) ++used_;
    e |= uint64_t(1) << bus;
  }
  // Every bus >>= n (free while no bit is set).
  void shift(uint64_t n = 1) {
    for (; n && used_; --n) {
      if (ring_[base_]) {
        ring_[base_] = 0;
        --used_;
      }
      base_ = (base_ + 1) % MAX_ALU_LATENCY;
    }
  }

 private:
  unsigned idx(unsigned i) const { return (base_ + i) % MAX_ALU_LATENCY; }
  uint64_t ring_[MAX_ALU_LATENCY] = {};  // bit b of entry (base_ + i) % MAX: bus b's bit i
  uint64_t all_;
  unsigned n_, base_ = 0, used_ = 0;  // used_: non-zero entries
};

enum class mem_space : uint8_t { none, global, local, shared, constant, texture };

// One warp instruction in flight (GPGPU-Sim's warp_inst_t, the fields timing needs). Copied
// from stage to stage, so kept to one 64-byte cache line (widest fields first).
struct warp_inst {
  uint64_t uid = 0;  // issue order: register_set::get_ready picks the oldest
  // Memory instructions: addresses (32, 0 = inactive), space, access size per thread, store?
  const uint64_t* addrs = nullptr;
  unsigned latency = 1;          // cycles through the unit (bit of occupied / result bus)
  unsigned initiation = 1;       // initiation interval
  unsigned dispatch_cycles = 0;  // the dispatch-delay counter, = initiation at scheduler issue
  uint32_t active_mask = 0xffffffffu;
  uint16_t warp = 0, sched = 0;  // warp slot in the SM (< 128), issuing scheduler (< 64)
  uint16_t opcode = 0;           // index into the opcode table (stats, names)
  uint16_t dst[4] = {0, 0, 0, 0};
  uint16_t src[4] = {0, 0, 0, 0};
  op_class op = op_class::nop;
  int8_t ndst = 0, nsrc = 0;
  mem_space space = mem_space::none;
  bool store = false;
  uint8_t width = 0;
  bool valid = false;

  bool empty() const { return !valid; }
  void clear() { valid = false; }
  // GPGPU-Sim's warp_inst_t::dispatch_delay(): count down, true while still delaying.
  bool dispatch_delay() {
    if (dispatch_cycles > 0) --dispatch_cycles;
    return dispatch_cycles > 0;
  }
};

static_assert(sizeof(warp_inst) <= 64, "warp_inst is copied through the pipeline: keep it to one cache line");

// A pipeline register set (ID_OC_*, OC_EX_*, EX_WB) of `width` slots.
class register_set {
 public:
  // width: 1-64 (-gpgpu_pipeline_widths).
  explicit register_set(unsigned width = 1, std::string name = "");
  unsigned size() const { return width_; }
  bool has_free() const { return used_ < width_; }
  bool has_free(bool sub_core, unsigned slot) const { return sub_core ? !(mask_ >> index_of(slot) & 1) : has_free(); }
  bool has_ready() const { return used_ != 0; }
  bool has_ready(bool sub_core, unsigned slot) const { return sub_core ? (mask_ >> index_of(slot) & 1) != 0 : has_ready(); }
  // Oldest (lowest uid) occupied slot, or nullptr; with sub_core only `slot`.
  warp_inst* get_ready() {
    if (!mask_) return nullptr;
    if (oldest_ >= width_) oldest_ = oldest();
    return &regs_[oldest_];
  }
  warp_inst* get_ready(bool sub_core, unsigned slot) {
    if (!sub_core) return get_ready();
    const unsigned i = index_of(slot);
    return mask_ >> i & 1 ? &regs_[i] : nullptr;
  }
  // Slot i (< size()) if occupied, or nullptr.
  warp_inst* ready_at(unsigned i) { return mask_ >> i & 1 ? &regs_[i] : nullptr; }
  // Moves `src` into a free slot (the given slot in sub-core mode); src is emptied.
  void move_in(warp_inst& src) { move_in(false, 0, src); }
  void move_in(bool sub_core, unsigned slot, warp_inst& src) {
    emplace(sub_core, slot, src.uid) = src;
    src.clear();
  }
  // The slot move_in(sub_core, slot, ...) would fill, marked occupied, with `uid` set; the
  // caller sets every other field.
  warp_inst& emplace(bool sub_core, unsigned slot, uint64_t uid) {
    const unsigned i = sub_core ? index_of(slot) : first_free();
    if (i >= width_ || mask_ >> i & 1) [[unlikely]]
      fail_full();
    if (!mask_) {
      oldest_ = i;
      if (watch_) *watch_ |= watch_bit_;
    } else if (oldest_ < width_ && uid < regs_[oldest_].uid) {
      oldest_ = i;
    }
    mask_ |= uint64_t(1) << i;
    ++used_;
    regs_[i].uid = uid;
    return regs_[i];
  }
  // Moves the oldest ready instruction into `dst` (which must be empty).
  void move_out_to(warp_inst& dst);
  void move_out_to(bool sub_core, unsigned slot, warp_inst& dst);
  // Empties an occupied slot of this set (from get_ready or slot()); slots are emptied only
  // through the set, which counts its occupied slots.
  void clear_slot(warp_inst& w) {
    w.clear();
    const unsigned i = unsigned(&w - regs_.data());
    mask_ &= ~(uint64_t(1) << i);
    if (i == oldest_) oldest_ = width_;
    --used_;
    if (!mask_ && watch_) *watch_ &= ~watch_bit_;
  }
  // Keeps bit `bit` of *word set while the set holds an instruction (the execute stage's mask of
  // issue ports to look at).
  void watch(uint64_t* word, uint64_t bit) {
    watch_ = word;
    watch_bit_ = bit;
    if (mask_) *word |= bit;
  }
  uint64_t slots_mask() const { return mask_; }  // bit i: slot i occupied
  unsigned occupancy() const { return used_; }
  bool empty() const { return used_ == 0; }
  const std::string& name() const { return name_; }
  const warp_inst& slot(unsigned i) const { return regs_[i]; }
  warp_inst& slot(unsigned i) { return regs_[i]; }

 private:
  // Occupied slots (bit i: regs_[i]) and their count: empty sets and slots answer without
  // touching the instructions.
  unsigned oldest() const;  // index of the oldest occupied slot (some slot occupied)
  // Slot `slot` maps to in sub-core mode (slot % width; schedulers usually number below it).
  unsigned index_of(unsigned slot) const { return slot < width_ ? slot : slot % width_; }
  unsigned first_free() const {  // width_ if none
    const uint64_t free = ~mask_ & (width_ == 64 ? ~uint64_t(0) : (uint64_t(1) << width_) - 1);
    return free ? unsigned(__builtin_ctzll(free)) : width_;
  }
  [[noreturn]] void fail_full() const;
  uint64_t mask_ = 0;
  unsigned used_ = 0, width_;
  unsigned oldest_ = 64;  // get_ready's slot while it is known, else >= width_
  uint64_t* watch_ = nullptr;
  uint64_t watch_bit_ = 0;
  std::vector<warp_inst> regs_;
  std::string name_;
};

class simd_function_unit {
 public:
  explicit simd_function_unit(std::string name) : name_(std::move(name)) {}
  virtual ~simd_function_unit() = default;
  virtual bool can_issue(const warp_inst& inst) const { return dispatch_reg_.empty() && !occupied_.test(inst.latency); }
  virtual void issue(register_set& source, warp_inst& ready) { take(source, ready); }
  // issue()'s work (the execute stage calls it directly for a pipelined unit).
  void take(register_set& source, warp_inst& ready) {
    dispatch_reg_ = ready;
    source.clear_slot(ready);
    occupied_.set(dispatch_reg_.latency);
    ++issued;
  }
  virtual void cycle() = 0;
  virtual bool stallable() const = 0;
  virtual bool accepts(op_class op) const = 0;
  virtual bool busy() const = 0;  // anything in flight (drain check)
  // cycle() would change nothing (nothing in flight, no occupied bit): execute() skips it.
  bool quiescent() const { return !busy() && occupied_.none(); }
  bool occupied_none() const { return occupied_.none(); }
  unsigned clock_multiplier() const { return clock_multiplier_; }
  void set_clock_multiplier(unsigned m) { clock_multiplier_ = m ? m : 1; }
  const std::string& name() const { return name_; }
  std::bitset<MAX_ALU_LATENCY> occupied() const { return occupied_.bits(); }
  const warp_inst& dispatch_reg() const { return dispatch_reg_; }
  // n cycles in which cycle() would only shift `occupied` (the SM's idle-cycle skip).
  void shift_occupied(uint64_t n) { occupied_.shift(n); }
  // Statistics: instructions issued into the unit, cycles with something in the pipeline.
  uint64_t issued = 0, active_cycles = 0;

 protected:
  std::string name_;
  warp_inst dispatch_reg_;
  latency_bits occupied_;
  unsigned clock_multiplier_ = 1;
};

// GPGPU-Sim's pipelined_simd_unit (sp, dp, sfu, int, tensor and specialized units alike).
class pipelined_unit final : public simd_function_unit {
 public:
  // `result_port` is the core's EX_WB register set; `max_latency` the pipeline depth.
  pipelined_unit(std::string name, register_set* result_port, unsigned max_latency, std::vector<op_class> supported);
  void cycle() override;
  bool stallable() const override { return false; }
  bool accepts(op_class op) const override;
  bool can_issue(const warp_inst& inst) const override { return accepts(inst.op) && simd_function_unit::can_issue(inst); }
  bool busy() const override { return !dispatch_reg_.empty() || active_ != 0; }
  unsigned depth() const { return depth_; }
  const warp_inst& stage(unsigned s) const { return stages_[at(s)]; }
  // cycle() without the virtual call (the execute stage's per-cycle path).
  [[gnu::always_inline]] inline void step();

 private:
  // The stages are a ring: GPGPU-Sim's move_warp shifts every stage down one each cycle (stage 0
  // has just left, so each move finds its stage empty), which is the ring's head moving by one.
  unsigned at(unsigned s) const { return head_ + s < depth_ ? head_ + s : head_ + s - depth_; }
  register_set* result_port_;
  std::vector<warp_inst> stages_;  // stage s is stages_[at(s)]
  unsigned depth_, head_ = 0;
  unsigned active_ = 0;     // active_insts_in_pipeline
  uint32_t supported_ = 0;  // bit per op_class it accepts
};

void pipelined_unit::step() {
  warp_inst& out = stages_[head_];
  if (!out.empty()) {
    result_port_->move_in(out);
    --active_;
  }
  if (active_) head_ = head_ + 1 == depth_ ? 0 : head_ + 1;  // the emptied stage 0 becomes the top stage
  if (!dispatch_reg_.empty() && !dispatch_reg_.dispatch_delay()) {
    // The instruction keeps moving through the pipeline during its dispatch delay: it enters at
    // stage latency - initiation (clamped to the pipeline), if that stage is free.
    const int start = int(dispatch_reg_.latency) - int(dispatch_reg_.initiation);
    warp_inst& in = stages_[at(start <= 0 ? 0 : std::min(unsigned(start), depth_ - 1))];
    if (in.empty()) {
      in = dispatch_reg_;
      dispatch_reg_.clear();
      ++active_;
    }
  }
  if (active_ || !dispatch_reg_.empty()) ++active_cycles;
  occupied_.shift();
}

// Interface the execute stage uses to reach the stallable LDST unit's memory side.
class stallable_unit : public simd_function_unit {
 public:
  using simd_function_unit::simd_function_unit;
  bool stallable() const override { return true; }
};

// The execute stage: units, their OC_EX issue ports, result buses and the stall counters.
class execute_stage {
 public:
  // `ex_wb_width` result buses (= the EX_WB width of -gpgpu_pipeline_widths).
  execute_stage(unsigned ex_wb_width, bool sub_core);
  // Adds a unit issuing from `issue_port` (an OC_EX register set); in sub-core mode the unit
  // takes instructions only from slot `sub_core_slot` of that set (any_slot: shared, as LDST).
  static constexpr unsigned any_slot = ~0u;
  void add_unit(std::unique_ptr<simd_function_unit> u, register_set* issue_port, unsigned sub_core_slot);
  // GPGPU-Sim's shader_core_ctx::execute(), one core cycle. Returns false when the cycle only
  // stepped stallable units (LDST): no pipelined unit had anything in flight, none issued and no
  // result bus stall happened (the SM's idle-cycle skip checks the stallable unit itself).
  // stallable_only: only the stallable units' part, for a cycle in which every other unit is
  // quiescent with an empty issue port (it would skip them).
  bool execute(bool stallable_only = false);
  // A cycle the SM skips as idle (execute() returned false and nothing changed since): the
  // result buses and the stepped units' `occupied` shift as execute() would shift them.
  void idle_cycle(uint64_t n = 1);  // n such cycles
  // First result bus whose bit `latency` is free, or -1.
  int test_res_bus(unsigned latency) const;

  register_set& ex_wb() { return ex_wb_; }
  unsigned num_units() const { return unsigned(units_.size()); }
  simd_function_unit& unit(unsigned i) { return *units_[i].fu; }
  std::bitset<MAX_ALU_LATENCY> result_bus(unsigned i) const;
  unsigned num_result_buses() const { return buses_.size(); }
  bool busy() const;

  // Instructions the units took from their OC_EX ports (each emptied a slot).
  uint64_t port_takes() const { return port_takes_; }

  uint64_t result_bus_stalls = 0;  // ready + can_issue, but no result bus free at `latency`
  uint64_t dispatch_stalls = 0;    // ready, but the unit cannot take it (dispatch reg / occupied)

 private:
  struct entry {
    std::unique_ptr<simd_function_unit> fu;
    register_set* port;
    unsigned slot;
    bool own_slot;         // sub-core mode and a unit of one slot: it takes only port slot `index`
    unsigned index;        // slot % port size
    uint32_t accepts;      // bit per op_class fu->accepts (fixed per unit: no virtual call per cycle)
    bool stallable;        // fu->stallable()
    pipelined_unit* pipe;  // fu as a pipelined unit (its calls need no virtual dispatch), or null
    bool quiet = true;     // fu->quiescent() after its last cycle/issue (kept here: no pointer chase)
  };
  bool step(entry& e) { return e.pipe ? step_unit(e, *e.pipe) : step_unit(e, *e.fu); }
  template <class Unit>
  bool step_unit(entry& e, Unit& fu);
  void set_awake(unsigned i, bool quiet) {
    if (quiet)
      awake_ &= ~(uint64_t(1) << i);
    else
      awake_ |= uint64_t(1) << i;
  }
  std::vector<entry> units_;
  // Up to 64 units: a cycle visits only the units that are not quiet (awake_) or whose issue
  // port holds an instruction (ports_), in unit order; more units: every unit (masks unused).
  bool masked_ = true;
  uint64_t awake_ = 0;
  struct port_units {
    register_set* port;
    uint64_t units;  // units issuing from it
  };
  std::vector<port_units> ports_;
  uint64_t ports_held_ = 0;          // bit k: ports_[k] holds an instruction (register_set::watch)
  std::vector<unsigned> stallable_;  // indices of the stallable units in units_
  result_buses buses_;
  register_set ex_wb_;
  bool sub_core_;
  uint64_t port_takes_ = 0;
};

}  // namespace gpuvp::sm
