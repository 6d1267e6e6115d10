// SPDX-License-Identifier: Apache-2.0
// The ASC's firmware, host-compiled: gpuvp's own stand-in for Apple's GPU coprocessor firmware
// (RTKit + uPPL), written from the Asahi sources' descriptions of its interfaces. It runs in the
// ASC model's SystemC thread (models/asc) and reaches memory only through the hal below: every
// load and store goes through the ASC's UAT view and its L1 data cache, every step costs time.
// Layouts marked "our choice" are gpuvp's, not Apple's. See docs/models/asc.md.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace gpuvp::ascfw {

constexpr uint64_t ppl_magic = 0x4b1d000000000002ull;  // PPL_MAGIC (m1n1 handoff.py, kernel mmu.rs)

// The uPPL handoff area (m1n1 fw/agx/handoff.py = kernel mmu.rs `struct Handoff`, 0x648 bytes).
namespace handoff {
constexpr uint64_t magic_ap = 0x00, magic_fw = 0x08, lock_ap = 0x10, lock_fw = 0x11, turn = 0x14, cur_slot = 0x18;
constexpr uint64_t flush = 0x20, flush_stride = 0x18;  // flush[65] of {state u64, addr u64, size u64}
constexpr uint64_t unk2 = 0x638, unk3 = 0x640, size = 0x648;
constexpr unsigned flush_slots = 65, fw_slot = 64;  // 64: the firmware/kernel slot
inline uint64_t flush_state(unsigned i) { return flush + i * flush_stride; }
inline uint64_t flush_addr(unsigned i) { return flush + i * flush_stride + 8; }
inline uint64_t flush_size(unsigned i) { return flush + i * flush_stride + 16; }
constexpr uint32_t no_slot = 0xffffffffu;  // cur_slot 0 or 0xffffffff: none
}  // namespace handoff

// The control page (our choice): ring pointers, the ASC-maintained globals, both rings. Uncached.
namespace ring {
constexpr uint64_t cmd_wptr = 0x00, cmd_rptr = 0x04, evt_wptr = 0x08, evt_rptr = 0x0c;
constexpr uint64_t power = 0x10;                       // 1 while the ASC is up, 0 in deep WFI (the global Lina's notes poll)
constexpr uint64_t fw_status = 0x14;                   // 0 reset, 1 serving, 0xdead after an assert
constexpr uint64_t cmd_base = 0x100, cmd_entry = 32;   // entry: type u32, pad u32, payload 24 bytes
constexpr uint64_t evt_base = 0x2000, evt_entry = 16;  // entry: type u32, pad u32, value u64
constexpr unsigned max_entries = 128;
constexpr uint32_t type_fwctl = 1, type_submit = 2;               // command ring entry types
constexpr uint32_t evt_stamp = 1, evt_fwctl = 2, evt_kernel = 3;  // event types (kernel: a launch done)
// Submit payload: cmdbuf VA u64, length u32, context slot u32. FWCtl payload: the FWCtl message
// {addr u64, unk_8 u32, context_id u32, unk_10 u16, unk_12 u16}.
}  // namespace ring

// Kick (doorbell) value, the macOS trace's "FWRing Kick 0x84000000000000 (TYPE=0x8, KICK=0x0)": TYPE in
// bits 59:52, KICK (ring index) in bits 31:0 (our reading; other bits ignored).
constexpr unsigned kick_type(uint64_t v) { return unsigned(v >> 52) & 0xff; }
constexpr uint32_t kick_index(uint64_t v) { return uint32_t(v); }
constexpr unsigned kick_type_fw_ring = 0x8;
constexpr uint64_t make_kick(unsigned type, uint32_t index) { return uint64_t(type) << 52 | uint64_t(0x4) << 48 | index; }

// Command buffer commands (our choice): u32 header whose bits 5:0 are the SKU command id (the
// Asahi Lina's notes: "SKU command IDs are masked with 0x3f"); 8-byte aligned, fixed sizes.
namespace cmd {
constexpr uint32_t end = 0x10;      // 8 bytes: header, pad
constexpr uint32_t barrier = 0x11;  // 8 bytes: header, pad
constexpr uint32_t stamp = 0x12;    // 16 bytes: header, value u32, stamp VA u64 (stamps: uncached)
constexpr uint32_t write64 = 0x13;  // 24 bytes: header, pad, VA u64, value u64 (a firmware object store)
constexpr uint32_t work = 0x14;     // 24 bytes: header, context slot u32, VA u64, length u32, value u32
constexpr uint32_t launch = 0x15;   // 24 bytes: header, context slot u32, kernel u32, stamp value u32, stamp VA u64
unsigned size_of(uint32_t id);      // 0: unknown
}  // namespace cmd

// A firmware assert (the run's modelled error): its text as the firmware prints it.
struct fw_assert : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What the firmware may do: implemented by the ASC model.
class hal {
 public:
  enum class space { fw, ppl };  // the ASC's UAT views: EL1 firmware, GL1 uPPL
  enum class maint { invalidate, clean, clean_invalidate };
  virtual ~hal() = default;
  // Loads/stores of 1, 2, 4 or 8 bytes at a VA (kernel VAs in slot 0, user VAs in the current
  // slot); a translation fault or bus error throws fw_assert ("data abort ...").
  virtual uint64_t ld(space s, uint64_t va, unsigned size) = 0;
  virtual void st(space s, uint64_t va, uint64_t value, unsigned size) = 0;
  // Data cache maintenance by VA range (translated page by page).
  virtual void dc(maint m, uint64_t va, uint64_t len) = 0;
  virtual void op(unsigned n = 1) = 0;  // n firmware operations (the cost model)
  virtual void poll() = 0;              // one polling interval
  // Waits for a kick; false when the idle timeout passed first (with_timeout).
  virtual bool wait_kick(bool with_timeout, uint64_t& value) = 0;
  // Deep WFI: cache cleaned and invalidated, TLBs emptied; returns when a kick wakes the ASC.
  virtual uint64_t deep_wfi() = 0;
  // GPU work: `len` bytes of `value` written through the GPU view of `slot` at `va`.
  virtual void gpu_work(unsigned slot, uint64_t va, uint32_t len, uint32_t value) = 0;
  // GPU launch: runs kernel `kernel` (1-based in the ASC's kernel list) on the compute engine, its
  // memory through the GPU view of `slot`; returns when it is done (a fault or a bad index: fw_assert).
  virtual void gpu_launch(unsigned slot, uint32_t kernel) = 0;
  virtual void set_current_slot(uint32_t slot) = 0;  // the user context the ASC maps
  virtual bool invalidate_cmdbuf() const = 0;
  virtual uint64_t handoff_va() const = 0;
  virtual uint64_t ring_va() const = 0;
  virtual unsigned ring_entries() const = 0;
  virtual uint64_t max_maint() const = 0;  // longest maintenance range before an assert
};

class firmware {
 public:
  explicit firmware(hal& h) : h_(h) {}
  void run();  // boots, then serves kicks forever (throws fw_assert)
  uint64_t commands() const { return commands_; }

  // Firmware side of the handoff's Dekker lock (mirrors the AP's: lock_fw, turn = 0 on release).
  void lock();
  void unlock();

 private:
  void boot();
  void serve_ring();
  void fwctl(uint64_t entry);
  void submit(uint64_t entry);
  void execute(uint64_t cb, uint32_t len, uint32_t slot);
  void event(uint32_t type, uint64_t value);
  void stamp(uint64_t sva, uint32_t value, uint32_t evt);  // sequential check, store, event
  void current_slot(uint32_t s);                           // cur_slot changed under the handoff lock
  uint64_t hld(uint64_t off, unsigned n) { return h_.ld(hal::space::ppl, h_.handoff_va() + off, n); }
  void hst(uint64_t off, uint64_t v, unsigned n) { h_.st(hal::space::ppl, h_.handoff_va() + off, v, n); }
  uint64_t rld(uint64_t off, unsigned n) { return h_.ld(hal::space::fw, h_.ring_va() + off, n); }
  void rst(uint64_t off, uint64_t v, unsigned n) { h_.st(hal::space::fw, h_.ring_va() + off, v, n); }
  hal& h_;
  uint64_t commands_ = 0;
};

}  // namespace gpuvp::ascfw
