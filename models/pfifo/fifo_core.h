// SPDX-License-Identifier: Apache-2.0
// PFIFO core: channels, DMA pusher, CACHE, puller, RAMHT, semaphores and the engine interface,
// written as plain C++ over an abstract memory bus so that it is testable without SystemC.
// The SystemC component (pfifo.h) owns a core, implements the bus with TLM transactions and
// drives it from its thread. Time is a picosecond counter passed in and advanced by costs.
#pragma once
#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>
#include "pushbuf.h"

namespace gpuvp::pfifo {

constexpr uint64_t never = std::numeric_limits<uint64_t>::max();

// ---- Errors (envytools puller.rst + dma-pusher.rst ids) ----
enum class err_type : uint32_t { none = 0, dma_pusher = 1, cache_error = 2, semaphore = 3, acquire_timeout = 4, hang = 5 };
namespace pusher_err {
enum : uint32_t { call_subr_active = 1, invalid_mthd = 2, ret_subr_inactive = 3, invalid_cmd = 4, ib_empty = 5, mem_fault = 6 };
}
namespace cache_err {
enum : uint32_t { no_hash = 1, empty_subchannel = 2, invalid_mthd = 3 };
}
// Pre-G80 code 1 is INVALID_OPERAND, G80+ code 1 is ADDRESS_UNALIGNED.
namespace sem_err {
enum : uint32_t { invalid_operand = 1, address_unaligned = 1, invalid_state = 2, address_too_large = 3, mem_fault = 4 };
}
const char* err_type_name(err_type t);
std::string err_code_name(gen g, err_type t, uint32_t code);

struct error_record {
  unsigned channel = 0;
  err_type type = err_type::none;
  uint32_t code = 0;
  uint32_t word = 0;            // offending pushbuffer word, or method parameter
  uint64_t position = 0;        // dma_get of the offending word, or the IB entry's address (pusher errors)
  bool ib_entry = false;        // pusher error on an IB entry (position is the entry's address)
  uint32_t subc = 0, mthd = 0;  // puller errors
  uint64_t time_ps = 0;
};

// Who issues an access (maps to NV50 VM engines/clients in the SystemC bus).
enum class client : uint8_t { pusher, puller, semaphore_bg, engine, copy_engine };

// Memory as PFIFO sees it. Every call returns false on a fault and adds its latency to now_ps.
class fifo_bus {
 public:
  virtual ~fifo_bus() = default;
  // Through a DMA object: `obj` is its selector (RAMIN offset pre-G80, channel-structure offset G80+).
  // `bind` is the slot's selector-rewrite generation (gpu_ext::dma_bind): bumped each time the
  // issuer rewrites the selector, so that a DMA object cache reloads the object.
  virtual bool dma(bool write, unsigned ch, uint32_t obj, uint64_t offset, void* data, unsigned len, client c, uint64_t& now_ps,
                   uint32_t bind = 0) = 0;
  // GF100+: through the channel's virtual address space.
  virtual bool vm(bool write, unsigned ch, uint64_t va, void* data, unsigned len, client c, uint64_t& now_ps) = 0;
  // Instance memory (RAMIN / channel structures, RAMHT, DMA objects) by physical address.
  virtual bool inst(bool write, uint64_t addr, void* data, unsigned len, uint64_t& now_ps) = 0;
  virtual void wrcache_flush(uint64_t& now_ps) {}
  // Trace: while set (by an engine executing a method), each access starts a flow arrow with it
  // at its time (engine::flow) and carries the id (gpu_ext::flow). Empty otherwise.
  std::function<uint64_t(uint64_t at_ps)> flow_source;
};

// ---- CACHE ----
struct cache_entry {
  uint16_t subc;
  uint16_t mthd;
  uint32_t data;
  bool ni;
};

// The CACHE of one channel: a ring of fixed capacity (the pusher never pushes into a full one).
class cache_ring {
 public:
  void reset(size_t capacity) {
    buf_.assign(capacity ? capacity : 1, {});
    head_ = count_ = 0;
  }
  bool empty() const { return count_ == 0; }
  size_t size() const { return count_; }
  const cache_entry& front() const { return buf_[head_]; }
  const cache_entry& operator[](size_t i) const {  // i-th from the head
    const size_t at = head_ + i;
    return buf_[at < buf_.size() ? at : at - buf_.size()];
  }
  // The entries from the head up to the ring's end: their count (at most size()).
  size_t front_part() const { return std::min(count_, buf_.size() - head_); }
  void pop_front() {
    if (++head_ == buf_.size()) head_ = 0;
    --count_;
  }
  void pop_front(size_t n) {  // n <= size()
    head_ += n;
    if (head_ >= buf_.size()) head_ -= buf_.size();
    count_ -= n;
  }
  void push_back(const cache_entry& e) {
    size_t tail = head_ + count_;
    if (tail >= buf_.size()) tail -= buf_.size();
    buf_[tail] = e;
    ++count_;
  }
  // n methods of one command (n <= the room left): data[i] to subchannel subc, method mthd
  // advancing by 4 (modulo `space`) after each unless ni. Returns the method after the last.
  uint32_t push_methods(uint16_t subc, uint32_t mthd, bool ni, uint32_t space, const uint32_t* data, size_t n) {
    size_t tail = head_ + count_;
    if (tail >= buf_.size()) tail -= buf_.size();
    count_ += n;
    while (n) {  // the ring's free part: up to its end, then from its start
      const size_t part = std::min(n, buf_.size() - tail);
      cache_entry* out = buf_.data() + tail;
      if (ni) {
        for (size_t i = 0; i < part; ++i) out[i] = {subc, uint16_t(mthd), data[i], true};
      } else {
        for (size_t i = 0; i < part; ++i, mthd = (mthd + 4) & (space - 1)) out[i] = {subc, uint16_t(mthd), data[i], false};
      }
      data += part;
      n -= part;
      tail = 0;
    }
    return mthd;
  }

 private:
  std::vector<cache_entry> buf_ = std::vector<cache_entry>(1);
  size_t head_ = 0, count_ = 0;
};

// ---- Engines ----
// Completion times of an engine's queued methods, oldest first: a ring that grows when full.
class time_ring {
 public:
  bool empty() const { return count_ == 0; }
  size_t size() const { return count_; }
  uint64_t front() const { return buf_[head_]; }
  uint64_t& operator[](size_t i) { return buf_[(head_ + i) & mask_]; }
  uint64_t operator[](size_t i) const { return buf_[(head_ + i) & mask_]; }
  void pop_front() {
    head_ = (head_ + 1) & mask_;
    --count_;
  }
  void push_back(uint64_t t) {
    if (count_ > mask_) grow();
    buf_[(head_ + count_) & mask_] = t;
    ++count_;
  }
  // Index of the first time above t: std::upper_bound's bisection, step for step.
  size_t upper_bound(uint64_t t) const;

 private:
  void grow();
  std::unique_ptr<uint64_t[]> buf_ = std::make_unique<uint64_t[]>(16);
  size_t mask_ = 15;  // capacity - 1, capacity a power of two
  size_t head_ = 0, count_ = 0;
};

// An engine accepts methods into an input queue and executes them asynchronously: the core only
// asks when it is idle, which channel it holds, and when there is room for one more method.
class engine {
 public:
  explicit engine(std::string name) : name_(std::move(name)) {}
  virtual ~engine() = default;
  const std::string& name() const { return name_; }
  bool idle(uint64_t now) const { return busy_until_ <= now; }
  uint64_t busy_until() const { return busy_until_; }
  int cur_channel() const { return cur_channel_; }
  // Earliest time a new method fits in the input queue.
  uint64_t accept_time(uint64_t now) const;
  void channel_switch(unsigned ch, uint64_t now);
  void submit(unsigned ch, unsigned subc, uint32_t mthd, uint32_t param, uint64_t now);
  // The puller's run of methods (fifo_core::pull_engine_run): n CACHE entries from channel ch,
  // the i-th at now + i * step, each submitted while accept_time lets it in at once. Returns
  // how many went in.
  size_t submit_run(unsigned ch, const cache_entry* q, size_t n, uint64_t now, uint64_t step);

  // Asynchronous engines (work done by another SystemC process, e.g. the compute class): the
  // owner's wake-up, called by finish(); and the engine's modelled errors for the owner's report.
  std::function<void()> wake;
  virtual void describe_errors(std::vector<std::string>&) const {}

  unsigned queue_depth = 16;
  uint64_t method_cost_ps = 1000;
  uint64_t switch_cost_ps = 100000;
  uint64_t methods = 0, switches = 0;

  // Trace (set by the owner when tracing): spans of back-to-back methods of one channel ("methods",
  // with their count) and channel switches ("switch"), in ps. A batch is handed over when the next
  // method leaves a gap, another channel comes, or flush_trace(now) finds it ended by now.
  // A method whose work runs asynchronously (busy_async) gets a span "work" from its start to
  // finish(). `flow` (set with `trace`) starts a flow arrow in this engine's span at `at` ps and
  // returns its id (tracer::flow_out), for the work the method hands to another model.
  std::function<void(const char* what, unsigned ch, uint64_t start, uint64_t end, uint64_t methods)> trace;
  std::function<uint64_t(uint64_t at)> flow;
  void flush_trace(uint64_t now);

 protected:
  // Executes one method; returns its execution time in ps (functional effect happens now).
  virtual uint64_t execute(unsigned ch, unsigned subc, uint32_t mthd, uint32_t param, uint64_t start) = 0;
  virtual void on_switch(unsigned ch) {}
  // execute() returns busy_async(start) to stay busy (busy_until() == never) until finish(t).
  static uint64_t busy_async(uint64_t start) { return never - start; }
  void finish(uint64_t t);

 private:
  std::string name_;
  uint64_t busy_until_ = 0;
  int cur_channel_ = -1;
  time_ring done_;  // completion times of queued methods
  uint64_t batch_start_ = 0, batch_end_ = 0, batch_methods_ = 0;
  unsigned batch_ch_ = 0;
  uint64_t async_start_ = never;  // start of the asynchronous method running (never: none)
  unsigned async_ch_ = 0;
};

// ---- Channel state ----
struct channel_stats {
  uint64_t methods_engine = 0, methods_puller = 0, methods_inc = 0, methods_ninc = 0, methods_inline = 0;
  uint64_t bytes_fetched = 0, fetches = 0, words = 0, ib_entries = 0;
  uint64_t engine_switches = 0, engine_wait_ps = 0, semaphore_waits = 0, semaphore_wait_ps = 0;
  uint64_t channel_switches = 0, errors = 0, yields = 0, cache_max = 0;
  uint64_t ramfc_switch_ps = 0;  // NV4:GF100: time saving the resident channel and loading this one from RAMFC
};

struct channel {
  unsigned id = 0;
  bool enabled = false, ib_mode = false, big_endian = false;
  uint64_t inst = 0;                   // instance / channel structure physical address
  uint32_t inst_desc = 0;              // G80+: channel descriptor (instance >> 12 | target << 28), the MMU's vm_context
  uint32_t pb_dmaobj = 0;              // pushbuffer DMA object selector
  uint32_t pb_bind = 0, sem_bind = 0;  // selector-rewrite generations (gpu_ext::dma_bind) of the two PFIFO slots
  uint64_t ramht_offset = 0;           // RAMHT: offset in RAMIN (pre-G80) / in the instance (G80+)
  unsigned ramht_bits = 12;            // log2 of the RAMHT entries
  // NV4:GF100 channel switching through RAMFC (core_config::ramfc / nv04_ramfc)
  uint64_t ramfc = 0;                                // RAMFC physical address (channel table; NV4:G80: RAMFC base + chid * record size)
  bool in_runlist = false;                           // listed in the committed runlist (playlist)
  bool fresh = false;                                // enabled in the channel table since its last load: load it to look for work
  bool ramfc_bad = false;                            // RAMFC unreadable: the channel does not run
  bool put_written = false, ib_put_written = false;  // USERD PUT written since the last save: wins over RAMFC's
  uint32_t ramfc_raw[40] = {};  // RAMFC as last loaded or saved: fields the model does not interpret are written back as read
  // pusher (dma-pusher.rst state)
  uint64_t dma_put = 0, dma_get = 0, dma_limit = 0xffffffff, dma_mget = 0, subr_return = 0;
  uint64_t err_pos = 0;  // position of the word being processed (error latch)
  bool err_ib = false;   // ... and whether it is an IB entry
  bool subr_active = false, nonmain = false;
  uint64_t ib_address = 0;
  uint32_t ib_order = 0, ib_get = 0, ib_put = 0;
  struct {
    uint32_t mthd = 0, subc = 0, mcnt = 0;
    bool ni = false, lenp = false, incr_once = false;
  } st;
  bool sli_enable = false, sli_active = true;
  uint32_t sli_mask = 0, user_mask = 0;
  uint32_t data_shadow = 0, rsvd_shadow = 0, dcount_shadow = 0;
  // fetch burst buffer
  std::vector<uint32_t> fetch;
  uint64_t fetch_addr = 0;
  // CACHE (this channel's part; saved/restored on channel switch)
  cache_ring cache;
  // puller (puller.rst "Puller state")
  uint32_t ctx[8] = {};
  uint32_t last_subc = 0;
  uint8_t engines[8] = {};
  uint8_t last_engine = 0;
  uint32_t ref = 0;
  bool acquire_active = false;
  uint64_t acquire_timestamp = 0;
  uint32_t acquire_value = 0;
  uint32_t dma_semaphore = 0, semaphore_offset = 0;
  bool semaphore_off_val = false;
  uint64_t semaphore_address = 0;
  uint32_t semaphore_sequence = 0;
  bool acquire_source = false;
  uint32_t acquire_mode = 0;  // 0 equal, 1 geq, 2 mask (GF100, documented extension)
  // control
  bool pusher_stopped = false;  // DMA_PUSHER error latched: the pusher waits for the host's acknowledge
  bool puller_stopped = false;  // puller error latched: the puller waits (the pusher may fill the CACHE)
  bool stopped() const { return pusher_stopped || puller_stopped; }
  bool hung = false;  // invalid semaphore operation (puller.rst: "results in hang")
  uint64_t blocked_until = 0;
  uint64_t wait_start = 0;
  bool waiting_engine = false;
  unsigned push_idle = 0;  // pusher steps since it last pushed a method (scheduling: see run())
  channel_stats stats;
};

struct core_config {
  gen g = gen::g84;
  unsigned channels = 8;
  unsigned cache_depth = 128;                    // CACHE entries per channel
  unsigned burst_words = 32;                     // pusher fetch burst
  uint64_t method_cost_ps = 1000;                // puller time per method
  uint64_t word_cost_ps = 1000;                  // pusher time per step (word or IB entry), on top of any fetch latency: never 0,
                                                 // so that a channel spinning in a jump loop advances time
  uint64_t acquire_retry_ps = 1000000;           // 1 us
  uint64_t acquire_timeout_ps = 10000000000ull;  // 10 ms
  uint64_t timeslice_ps = 100000000;             // 100 us
  bool pfifo_big_endian = false;                 // G80+ global PFIFO endianness
  bool seed_literal_trigger = false;             // SEMAPHORE_TRIGGER exactly as the pseudocode (param==2, op=param&7)
  uint64_t ramin_base = 0;                       // pre-G80: RAMIN physical base
  uint64_t ramht_offset = 0x10000;               // pre-G80: in RAMIN; G80+: in the channel structure
  uint32_t ramht_size = 0x8000;                  // bytes (8 per entry)
  bool ramfc = false;                            // G80:GF100 channels load/save their state from/to RAMFC (the component sets it)
  bool nv04_ramfc = false;                       // NV4:G80 channels load/save their state from/to the NV04-style RAMFC in RAMIN (idem)
  uint64_t vram_base = 0;                        // host address of VRAM 0 (decoding channel-table/RAMFC addresses)
  bool bulk_methods = true;                      // runs of methods taken at once (same results; false: one at a time)
};

// G80+ memory targets (0 VRAM, 2-3 SYSRAM): a linear address in the target as a host address.
inline uint64_t target_address(uint64_t linear, unsigned target, uint64_t vram_base) { return target == 0 ? vram_base + linear : linear; }
// A channel descriptor / runlist address: address >> 12 | target << 28.
inline uint64_t desc_address(uint32_t desc, uint64_t vram_base) {
  return target_address(uint64_t(desc & 0x0fffffff) << 12, (desc >> 28) & 3, vram_base);
}

// NV50/G84 RAMFC (envytools rnndb NV50_RAMFC; nouveau's channel set-up): byte offsets.
namespace ramfc {
enum : uint32_t {
  ib_put = 0x00,
  ib_get = 0x04,
  dma_put = 0x08,
  dma_put_high = 0x0c,
  dma_get = 0x10,
  dma_get_high = 0x14,
  dma_mget = 0x18,
  dma_mget_high = 0x1c,
  dma_state = 0x30,
  method_count = 0x34,
  dcount_shadow = 0x38,
  dma_fetch = 0x3c,
  subroutine = 0x40,
  dma_timeslice = 0x44,
  dma_instance = 0x48,
  dma_limit = 0x4c,
  ib_address_low = 0x50,
  ib_config = 0x54,
  engine = 0x58,
  pull1 = 0x5c,
  acquire_timeout = 0x60,
  acquire_timestamp = 0x64,
  acquire_value = 0x68,
  semaphore = 0x6c,
  ref = 0x74,
  sli = 0x7c,
  ramht = 0x80,
  cache_cnt = 0x84,
  cache_inst = 0x88,
  semaphore_address_high = 0x8c,
  semaphore_address_low = 0x90,
  semaphore_sequence = 0x94,
  chan_inst = 0x98
};
constexpr uint32_t dma_fetch_ib_enable = 1u << 30;
// Bytes PFIFO loads/saves: G80 up to CACHE_CNT, G84+ up to CHAN_INST.
inline unsigned size(gen g) { return g >= gen::g84 ? 0x9c : 0x88; }
}  // namespace ramfc

// NV4:G80 RAMFC: one record per channel in RAMIN at the RAMFC base (0x2214; NV40 0x2220) + chid *
// size (nouveau's nv04.c/nv10.c/nv17.c/nv40.c ramfc tables; -1: no such field in the record).
// NV4 (nv04): 32 bytes; NV10/NV11/NV1A (nv10): 32; NV25 (nv17): 64; NV40: 128.
namespace nv04_ramfc {
struct layout {
  unsigned size;
  int dma_put, dma_get, ref, dma_instance, dcount, dma_state, dma_fetch, engine, pull1;
  bool dcount_high;  // DCOUNT in bits 16-31 of the DMA_INSTANCE word (before NV40)
};
const layout* of(gen g);                         // nullptr for NV3 and G80+
constexpr uint32_t fetch_big_endian = 1u << 31;  // DMA_FETCH bit 31 (NV11:G80)
}  // namespace nv04_ramfc

// "0x" and v in hex (messages).
std::string hex_string(uint64_t v);

// RAMHT hash (nouveau ramht.c): xor-fold the handle in `bits`-bit pieces, xor chid << (bits-4).
uint32_t ramht_hash(uint32_t handle, unsigned bits, unsigned chid);
unsigned ramht_bits(uint32_t size_bytes);
// Builds the RAMHT context word for an object (inverse of the lookup; used by workloads/tests).
uint32_t ramht_context(gen g, unsigned engine, uint32_t addr, unsigned chid);

// DMA objects (NV4 and G80 layouts) parsed from instance memory words.
struct dma_object {
  uint32_t cls = 0;
  bool pt_present = false;
  unsigned rights = 0;  // NV4: 0 RW, 1 RO, 2 WO
  unsigned target = 0;  // NV4: 0 VRAM, 2 PCI, 3 AGP; G80: 0 VM, 1 VRAM, 2 SYSRAM, 3 SYSRAM_NOSNOOP
  uint64_t base = 0, limit = 0;
};
dma_object parse_nv4_dmaobj(gen g, const uint32_t w[3]);
dma_object parse_g80_dmaobj(const uint32_t w[6]);
uint32_t object_class(gen g, uint32_t word0);

class fifo_core {
 public:
  fifo_core(const core_config& cfg, fifo_bus& bus);
  const core_config& cfg() const { return cfg_; }
  gen g() const { return cfg_.g; }
  channel& chan(unsigned i) { return chans_.at(i); }
  unsigned channel_count() const { return unsigned(chans_.size()); }
  void attach_engine(unsigned id, engine* e);
  engine* engine_at(unsigned id) const { return id < engines_.size() ? engines_[id] : nullptr; }
  unsigned software_engine() const { return cfg_.g >= gen::gf100 ? 0x1f : 0; }

  // Host side: a new DMA_PUT / IB_PUT was written, or the channel was (re)configured.
  void kick(unsigned ch);
  // G80:GF100 channel table / runlist / unload (core_config::ramfc). bind_channel: a channel-table
  // write (enable bit and RAMFC address; NV4:G80: the MODE bit and base + chid * record size); a
  // new address resets the channel. request_runlist:
  // PLAYLIST_LEN written: the runlist is read at the next run. request_unload: KICK_CHANNEL
  // written with an instance >> 12: the channel is saved to RAMFC and unloaded at the next run.
  void bind_channel(unsigned ch, bool enable, uint64_t ramfc_addr, uint32_t desc);
  void request_runlist(uint64_t addr, unsigned count);
  void request_unload(uint32_t inst_shr12);
  // NV4:G80: NV03_PFIFO_RAMHT written: the global RAMHT's offset in RAMIN and log2 entries.
  void set_ramht(uint64_t offset, unsigned bits);
  bool runlist_pending() const { return runlist_pending_; }
  bool unload_pending() const { return unload_pending_; }
  int loaded() const { return loaded_; }
  bool reassign = true, push_access = true, pull_access = true;  // CACHES.REASSIGN, PUSH0/PULL0.ACCESS
  uint64_t ramfc_loads = 0, ramfc_saves = 0;
  std::vector<std::string> ramfc_problems;   // RAMFC/runlist memory errors (modelled errors of the component)
  std::function<void(unsigned ch)> on_load;  // a channel was loaded (the component drops its DMA object cache)
  // Acknowledge the oldest latched error: its channel resumes. A pusher error resumes at the word
  // (or IB entry) after the offending one: MEM_FAULT is raised before dma_get / ib_get advance
  // (dma-pusher.rst), so acknowledging it steps past the word, which is not fetched again.
  void ack_error();
  // An asynchronous engine finished: channels waiting for it (blocked until never) re-check.
  void engine_finished();
  const std::deque<error_record>& errors() const { return errors_; }
  // The first log_capacity errors raised (a channel that keeps faulting keeps no per-fault state);
  // errors_raised counts them all.
  static constexpr size_t log_capacity = 4096;
  const std::vector<error_record>& error_log() const { return log_; }
  uint64_t errors_raised = 0;
  std::function<void(const error_record&)> on_error;  // every raised error (traces)
  // A semaphore acquire that had to wait ended (acquired or timed out): channel, from, to (ps).
  std::function<void(unsigned ch, uint64_t from, uint64_t to, bool acquired)> on_semaphore_wait;

  // Runs channels until `until`, or until nothing can progress. Returns the time at which
  // something may next happen (never when every channel is idle or stopped).
  uint64_t run(uint64_t& now, uint64_t until);

  // Interrupt state (PFIFO_INTR bits, see pfifo.h) and hook called when a bit rises.
  uint32_t intr = 0;
  std::function<void()> on_intr;
  uint64_t notify_intrs = 0, wrcache_flushes = 0, hangs = 0, unknown_methods = 0;
  // Methods the pusher and the puller took in runs (core_config::bulk_methods): host-side only.
  uint64_t bulk_pushed = 0, bulk_pulled = 0;
  int current = -1;

  // RAMHT lookup for channel ch; returns false on a miss.
  struct ramht_result {
    uint32_t engine = 0, addr = 0, ctx = 0;
  };
  bool ramht_lookup(unsigned ch, uint32_t handle, ramht_result& r, uint64_t& now);

  // Intr bits.
  static constexpr uint32_t intr_cache_error = 1u << 0, intr_dma_pusher = 1u << 12, intr_semaphore = 1u << 20,
                            intr_acquire_timeout = 1u << 24, intr_hang = 1u << 28, intr_notify = 1u << 30;

 private:
  struct fault {
    err_type t;
    uint32_t code;
  };
  struct blocked {};  // the current method must wait (blocked_until set)

  bool runnable(const channel& c, uint64_t now) const;
  bool ramfc_switching() const { return cfg_.ramfc || cfg_.nv04_ramfc; }
  unsigned ramfc_bytes() const;
  bool load_channel(channel& c, uint64_t& now);
  void save_channel(channel& c, uint64_t& now);
  void take_nv50(channel& c, const uint32_t* f);
  void take_nv04(channel& c, const uint32_t* f);
  void fill_nv50(const channel& c, uint32_t* f) const;
  void fill_nv04(const channel& c, uint32_t* f) const;
  void housekeeping(uint64_t& now);
  // run()'s parts: the scheduler's choice, the wake-up time when nothing can run, the switch to
  // the chosen channel, and the work on it (the pusher's batch, the puller's drain of the CACHE).
  // The parts of run, pusher_step, puller_step and semaphore_method are inline, defined in their
  // caller's .cpp and called from it alone: the compiler folds them back into the hot path.
  inline int pick_channel(uint64_t now, bool& slice_over);
  inline uint64_t next_unblock(uint64_t now) const;
  inline bool switch_to(int pick, bool slice_over, uint64_t& now);
  inline void work_channel(channel& c, uint64_t& now, uint64_t until, uint64_t slice_end);
  inline void push_batch(channel& c, uint64_t& now, uint64_t until, uint64_t slice_end);
  inline void drain_cache(channel& c, uint64_t& now, uint64_t slice_end);
  // The bulk paths (core_config::bulk_methods): a run of a command's data words already fetched,
  // each a method for the CACHE, and a run of CACHE entries for the engine the puller last used,
  // with the bookkeeping of the one-at-a-time steps done once per run. Each returns the methods
  // it took: 0 when the next one needs the one-at-a-time step.
  size_t push_method_run(channel& c, uint64_t& now, uint64_t limit);
  size_t pull_engine_run(channel& c, uint64_t& now, uint64_t slice_end);
  void reset_channel(channel& c);
  bool can_pull(const channel& c) const;
  bool can_push(const channel& c) const;
  bool pusher_has_work(const channel& c) const;
  void raise(channel& c, error_record r, uint64_t now);
  // Pusher: processes one word (or IB entry). Throws fault.
  void pusher_step(channel& c, uint64_t& now);
  // pusher_step's parts: a pushbuffer word (a method's data or a command header) or an IB entry.
  // Each throws fault.
  inline void pusher_word(channel& c, uint64_t& now);
  inline void pusher_method_data(channel& c, uint32_t word);
  inline void pusher_command(channel& c, uint32_t word);
  inline void pusher_ib_entry(channel& c, uint64_t& now);
  bool fetch_word(channel& c, uint64_t addr, uint32_t& w, uint64_t& now);
  void cache_push(channel& c, uint32_t subc, uint32_t mthd, uint32_t data, bool ni);
  // Puller: executes the method at the head of the cache. Throws fault or blocked.
  void puller_step(channel& c, const cache_entry& e, uint64_t& now);
  // puller_step's parts by kind of method: every method before NV4, then (NV4+) methods for the
  // engines, the puller's own methods and, of those, OBJECT. Each throws fault or blocked.
  inline void puller_step_pre_nv4(channel& c, unsigned subc, uint32_t mthd, uint32_t param, uint64_t& now);
  inline void puller_engine_method(channel& c, unsigned subc, uint32_t mthd, uint32_t param, uint64_t& now);
  inline void puller_special_method(channel& c, unsigned subc, uint32_t mthd, uint32_t param, uint64_t& now);
  inline void puller_object(channel& c, unsigned subc, uint32_t param, uint64_t& now);
  // The semaphore methods (0x10-0x1c, 0x60-0x6c) of puller_step. Throws fault or blocked.
  void semaphore_method(channel& c, unsigned subc, uint32_t mthd, uint32_t param, uint64_t& now);
  // semaphore_method's longer methods: SEMAPHORE_TRIGGER, DMA_SEMAPHORE and the old-style
  // SEMAPHORE_ACQUIRE / SEMAPHORE_RELEASE. Each throws fault.
  inline void semaphore_trigger(channel& c, unsigned subc, uint32_t mthd, uint32_t param, uint64_t& now);
  inline void semaphore_dma_object(channel& c, uint32_t param, uint64_t& now);
  inline void semaphore_acquire_release(channel& c, uint32_t mthd, uint32_t param, uint64_t& now);
  void wait_engine_idle(channel& c, unsigned eng, uint64_t now);
  void submit(channel& c, unsigned eng, unsigned subc, uint32_t mthd, uint32_t param, uint64_t& now);
  void retry_acquire(channel& c, uint64_t& now);
  bool sem_read(channel& c, bool use_offset, uint32_t& w, client cl, uint64_t& now);
  bool sem_write(channel& c, uint64_t addr, const void* data, unsigned len, uint64_t& now);
  uint32_t swap(const channel& c, uint32_t v) const;
  bool swaps(const channel& c) const;  // pushbuffer words are byte-swapped (big-endian channel / PFIFO)
  bool sem_big_endian(const channel& c) const;

  core_config cfg_;
  fifo_bus& bus_;
  std::vector<channel> chans_;
  std::vector<engine*> engines_;
  std::deque<error_record> errors_;
  std::vector<error_record> log_;
  uint64_t slice_start_ = 0;
  bool yield_ = false;
  int loaded_ = -1;  // channel whose state PFIFO holds (RAMFC mode)
  bool runlist_pending_ = false, unload_pending_ = false;
  uint64_t runlist_addr_ = 0;
  unsigned runlist_count_ = 0;
  uint32_t unload_inst_ = 0;
};

}  // namespace gpuvp::pfifo
