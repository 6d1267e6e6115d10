// SPDX-License-Identifier: Apache-2.0
// GPGPU-Sim's memory side behind the SMs' L1 data caches (memory_system, a mem_port): the request
// crossbar to the memory sub-partitions, the L2 slices (sectored, write-back, persisting across
// kernels), the DRAM channels (dram.h) and the reply crossbar back to the SIMT clusters, in core
// cycles in the order gpgpu_sim::cycle() steps them; DRAM edges fall between core cycles as
// GPGPU-Sim's clock domains place them (clock_domains in dram.h). Crossbars and DRAM channels are
// clocked only while they hold requests; every access answers later (mem_port::pending) with its
// exact cycle. Pipeline, arbitration and reservation fails: docs/models/gpu_memory.md, "Memory side".
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "booksim_fly.h"
#include "dram.h"
#include "glibc_rand.h"
#include "gpuvp/flat_map.h"
#include "core/gpu_config.h"
#include "mem_log.h"
#include "mem_port.h"

namespace gpuvp::gpu_memory {

using sm::config_file_error;  // the GPU configuration the SMs and the memory system share (models/sm)
using sm::gpu_config;

// Where a sector lives: GPGPU-Sim's addrdec with -gpgpu_mem_addr_mapping "dramid@N;mask" and
// -gpgpu_memory_partition_indexing (memsys_decode.cpp).
struct dram_address {
  unsigned channel = 0, sub_partition = 0, bank = 0;
  uint64_t row = 0;
};

class memory_system : public mem_port {
 public:
  explicit memory_system(const gpu_config& cfg);
  // One sector (bytes <= 32 within one sector; a write writes the bytes of `written`) from an SM
  // at core cycle `cycle`: always `pending`, answered through client->mem_done in the cycle the
  // data (read) or the acknowledgement (write) is back at the SM.
  uint64_t access(uint64_t addr, unsigned bytes, bool write, uint32_t written, uint64_t cycle, mem_client* client, unsigned tag) override;
  // An SM's cluster input buffer of the request crossbar holds -icnt_in_buffer_limit packets
  // (xbar_router::Has_Buffer_In); other engines are never refused.
  bool full(const mem_client* client) const override;
  // A sector; with a non-sectored L2 (-gpgpu_cache:dl2 N:...) its whole line, GPGPU-Sim's
  // mem_fetch of a line (read_only_cache's line fetch, an uncoalesced segment past the L1D).
  unsigned packet_bytes() const override { return line_mode_ ? m_.l2.line : mem_port::sector_bytes; }
  void cycle(uint64_t cycle) override;
  // With -gpgpu_memory_partition_indexing 4 the first decode of an address's chunk draws its
  // sub-partition: the SMs report every GPGPU-Sim decode (mem_port::decoded), drawn in SM order
  // after their cycle (sms_stepped, or the next cycle()).
  dram_address decode(uint64_t addr);
  bool wants_decodes() const override { return random_; }
  void decoded(uint64_t addr, const mem_client* client) override;
  void sms_stepped() override;
  mem_stats stats() const override;
  // A kernel starts: every read of the previous one has completed; its write-backs still
  // queued are finished, then the timing state (busy-until times) restarts at 0 with the new
  // kernel's cycles; contents stay (L2 lines, open DRAM rows).
  void kernel_start(uint64_t gpu_cycle) override;
  // Accel-Sim's perf_memcpy_to_gpu: the range's sectors become present in L2, no time.
  void memcpy_to_device(uint64_t addr, uint64_t bytes) override;
  // Clusters' accesses only touch their own crossbar input (and an atomic count).
  bool concurrent_access(unsigned nodes) override;
  // cycle(c) is gpgpu_sim::cycle's order: the reply crossbar's deliveries to the clusters (A) and
  // the sub-partitions' pushes into it (B), the DRAM channels (D), the L2 steps (L), the request
  // crossbar (X), the reply crossbar (R); then the SMs step (S). B, D and L of cycle c touch only
  // the sub-partitions' queues, L2 and DRAM, which S(c - 1) does not (an SM's access only enters
  // its cluster's crossbar input, which X moves): prepare_ahead does B(c), run_ahead D(c) and
  // L(c) beside S(c - 1), and cycle(c) then A(c), X(c) and R(c).
  bool prepare_ahead(uint64_t cycle) override;
  void run_ahead(uint64_t cycle) override;
  std::string describe() const override;
  // sm-run --mem-log (single-threaded runs only): the events of every request from now on
  // (nullptr: none). Statistics per sub-partition (L2 accesses by the status data_cache::access
  // returns: HIT, HIT_RESERVED, MISS, RESERVATION_FAIL; index 4 unused) and per channel, since
  // the memory was made.
  void set_event_log(mem_event_log* log);
  const std::vector<std::array<uint64_t, 5>>& l2_bank_stats() const { return sp_stats_; }
  const std::vector<dram_channel>& channels() const { return ch_; }

 private:
  // A line's state; its tag and LRU stamp are in l2_tag_ and l2_lru_ at the same index (a set's
  // tags in three host cache lines: the lookup does not touch every way's state).
  struct l2_line {
    uint8_t valid = 0, dirty = 0;
    // Partly written sectors (GPGPU-Sim's sector_cache_block with lazy fetch-on-read): a MODIFIED
    // sector whose 32 bytes are not all written is `unreadable` (m_readable false, which counts
    // only while the sector is MODIFIED: a read is a SECTOR_MISS that fetches it from DRAM); a
    // sector written while its fill is due is `early`:
    // MODIFIED instead of RESERVED until the fill, which makes it readable (m_set_readable_on_fill).
    // (The bytes written are in l2_written_, touched by writes only.)
    uint8_t unreadable = 0, early = 0;
    // The sectors a fill leaves MODIFIED (m_set_modified_on_fill) and makes readable
    // (m_set_readable_on_fill): a fill goes to the index its miss took, whatever line holds it.
    uint8_t modified_on_fill = 0, readable_on_fill = 0;
    uint64_t ready[4] = {0, 0, 0, 0};  // core cycle each sector's fill was in L2 (~0: still due, RESERVED or early)
  };
  struct waiter {
    mem_client* client;  // nullptr: a write-allocate read nobody waits for (L2_WR_ALLOC_R)
    unsigned tag;
    uint64_t addr;   // the access's address (a sector's: its first byte)
    unsigned bytes;  // and data size (the reply's packet carries it)
  };
  // An L2 MSHR entry (mshr_table's, one per sector; a non-sectored L2's per line): the accesses
  // merged into the miss, in order, and the L2 line index the miss took (the fill's target).
  struct l2_mshr {
    fifo_pool<waiter>::list waiting;
    uint32_t line = ~0u;
  };
  struct due_fill {  // a read's data in the DRAM -> L2 queue, filled into L2 in cycle t
    uint64_t t, key;
  };
  struct l2_request {  // a sector request past the crossbar and the ROP queue
    uint64_t t;        // the first core cycle the L2 may access it (in the icnt -> L2 queue)
    uint64_t addr;
    mem_client* client;
    unsigned tag;
    uint32_t written;  // a write's bytes in the sector (mem_port::access)
    bool write;
    dram_address a;       // decode(addr), worked out once when it is sent
    unsigned bytes = 32;  // data size: a sector, or with a non-sectored L2 up to its line
  };
  struct xbar_packet {  // a request in its crossbar input buffer
    uint64_t ready;     // the first cycle the crossbar may move it (icnt_transfer)
    unsigned sp;        // (an SM's with -gpgpu_memory_partition_indexing 4: set by draw_sm_decodes)
    l2_request r;
  };
  struct reply {  // an answer on its way back to an SM
    uint64_t q;   // the cycle it entered the L2 -> icnt queue
    uint64_t addr;
    mem_client* client;
    unsigned tag;
    bool write;
    unsigned port = 0;    // the client's crossbar port (set when it enters the L2 -> icnt queue)
    uint64_t t = 0;       // -network_mode 1: the first cycle its cluster may pop it
    unsigned bytes = 32;  // the access's data size (a read reply's packet carries it)
  };
  struct sub_partition {
    // A request granted by the request crossbar waits in the crossbar's output buffer (xout, t:
    // the first cycle it may be popped), is popped into the ROP delay queue (rop, t: the cycle its
    // delay ends), moves to the icnt -> L2 queue (in, t: the first cycle the L2 may access it) and
    // is served from there (memory_sub_partition::push and cache_cycle). The three FIFOs follow
    // each other in one ring, oldest first: `in` requests, then `rop` ones, then the output
    // buffer's; a request moves on by a count and its t, not by a copy.
    ring<l2_request> req;
    size_t in = 0, rop = 0;
    size_t xout_size() const { return req.size() - in - rop; }
    uint64_t l2_free = 0;  // the core cycle of the tag port's next access
    unsigned mshrs = 0;    // L2 MSHR entries: from the miss until the last merged access has left
    // The head of `in` is a read miss that stalled for want of an MSHR: only a release (mshrs
    // falling) can change that, so until then its retries fail without looking it up again.
    bool mshr_stall = false;
    ring<due_fill> due;  // fills known from the DRAM, in their cycles' order (one a cycle)
    // MSHR entries whose fill is in (mshr_table::m_current_response): their accesses leave one a
    // cycle, the first entry's first.
    ring<uint64_t> ready;
    // The reply crossbar's input buffer (its first `rin` answers) and behind it the L2 -> icnt
    // queue (by q): one ring, an answer moves on by a count.
    ring<reply> rep;
    size_t rin = 0;
    size_t out_size() const { return rep.size() - rin; }
    ring<reply>::iterator out_begin() { return rep.begin() + ptrdiff_t(rin); }
  };
  // bytes: the data size; answered: a write acknowledged from the DRAM (its token).
  void dram_push(const dram_address& a, bool write, uint64_t cycle, uint64_t sector, unsigned bytes = 32, bool answered = false);
  // A non-sectored L2 (line_mode_) keeps a line as one unit: its state in sector 0, its MSHR
  // (fills_) keyed by its first sector, each miss one DRAM request of the whole line.
  uint64_t fill_key(uint64_t addr) const { return line_mode_ ? addr / m_.l2.line * (m_.l2.line / 32) : addr / 32; }
  unsigned sector_of(uint64_t addr) const { return line_mode_ ? 0 : unsigned(addr % m_.l2.line / 32) % 4; }
  unsigned line_bytes() const { return line_mode_ ? m_.l2.line : 32; }  // a read miss's request
  bool l2_write_miss_naive(unsigned sp, l2_line* l, const l2_request& r, bool reserved, uint64_t t);
  void run_dram(uint64_t until, bool drop_waiters);
  void run_l2(uint64_t now);
  void step_sub_partition(unsigned sp, uint64_t c);             // one cycle of gpgpu_sim::cycle's L2 step for sp
  void l2_next_access(unsigned sp, uint64_t c);                 // a ready MSHR entry's next access leaves
  void l2_fill(unsigned sp, uint64_t key, uint64_t c);          // a fill into L2, its MSHR entry ready
  void fill_index(uint32_t line, unsigned sector, uint64_t c);  // tag_array::fill(index, ...)
  void l2_drop(uint64_t key, bool fill);                        // an MSHR entry ended unanswered (between kernels)
  void fill_due(unsigned sp, uint64_t t, uint64_t key);         // a fill known from the DRAM
  uint64_t first_due() const;                                   // the cycle of the first fill due (~0: none)
  void drain_l2();                                              // between kernels: every queued request, unanswered
  void l2_queued(uint64_t t);                                   // counts a request in; no step before cycle t
  unsigned port_of(unsigned node);                              // a client's crossbar port (grows the port vectors)
  void advance(uint64_t now);                                   // the request crossbar's icnt_transfer of cycle now
  void grant(unsigned input, uint64_t now);                     // moves input's head packet to its output
  void answer(unsigned sp, uint64_t q, reply a);                // into sp's L2 -> icnt queue in cycle q
  void deliver_replies(uint64_t now);                           // A: the clusters take an answer each
  void push_replies(uint64_t now);                              // B: L2 -> icnt queues into the reply crossbar
  void run_memory(uint64_t now);                                // D and L
  void reply_advance(uint64_t now);                             // the reply crossbar's icnt_transfer
  void booksim_requests(uint64_t now);                          // -network_mode 1: subnet 0's _Step of cycle now
  void booksim_replies(uint64_t now);                           // and subnet 1's
  unsigned in_buffer() const { return m_.network_mode == 1 ? m_.icnt_file_input_buffer : m_.icnt_in_buffer; }
  uint64_t rr_pointer(uint64_t now) const;  // -icnt_arbiter_algo 0: the first node offered in cycle now
  bool l2_access(unsigned sp, const l2_request& r, uint64_t now, bool drop_replies);  // false: stalled
  // l2_access's parts: the queues' checks, a probe's count and log, a retry in the next cycle (a
  // reservation fail by its cause), the victim's allocation, a write, a read that is no hit.
  bool l2_queues_admit(unsigned sp, const l2_request& r, uint64_t t, uint64_t now);
  void l2_probe(unsigned sp, uint64_t addr, uint64_t& total, unsigned status, uint64_t at);
  bool l2_retry(unsigned sp, uint64_t now);
  bool l2_fail(unsigned sp, uint64_t addr, uint64_t t, uint64_t now, uint64_t& cause);
  l2_line* l2_allocate(l2_line* victim, uint64_t line, uint64_t t);
  void l2_write(unsigned sp, l2_line* l, const l2_request& r, unsigned sector, bool present, bool reserved, uint64_t t);
  // (f: the sector's MSHR entry, new if `fresh`; nullptr: looked up or made here.)
  void l2_read_miss(unsigned sp, l2_line* l, const l2_request& r, unsigned sector, bool reserved, bool early, uint64_t t,
                    l2_mshr* f = nullptr, bool fresh = false);
  // The line's way in its set, or nullptr and in `victim` the least recently used way without a
  // sector whose fill is pending at cycle t (nullptr: every way has one).
  l2_line* l2_find(unsigned sp, uint64_t line, l2_line*& victim, uint64_t t = 0);
  unsigned l2_set(uint64_t line) const;  // the L2 set of a line (l2_cache_config::set_index)

  // A mask's runs of adjacent bits, worked out once: extract() packs them to the bottom.
  struct bit_runs {
    unsigned n = 0;
    struct run {
      uint8_t lo, at;  // the run's lowest bit in the address, its lowest bit in the result
      uint64_t bits;   // the run's bits, shifted to the bottom
    } r[32];
    explicit bit_runs(uint64_t mask);
    uint64_t extract(uint64_t v) const {
      uint64_t out = 0;
      for (unsigned i = 0; i < n; ++i) out |= (v >> r[i].lo & r[i].bits) << r[i].at;
      return out;
    }
  };

  // The decode's constants (memsys_decode.cpp): channel and sub-partition bits, whether the
  // channel count is no power of two (a division then), the IPOLY byte tables of the
  // sub-partition and L2 set hashes (nullptr: none of that size).
  void init_decode();
  unsigned ch_bits_ = 0, sp_bits_ = 0;
  bool ch_gap_ = false;
  const uint8_t *part_hash_ = nullptr, *set_hash_ = nullptr;

  // -gpgpu_memory_partition_indexing 4 (memsys_decode.cpp).
  unsigned random_sub_partition(uint64_t addr);  // the chunk's, drawn at its first decode
  void draw_sm_decodes();                        // the SMs' decodes since the last call, in SM order

  const gpu_config& cfg_;
  const mem_config& m_;
  bool line_mode_;  // -gpgpu_cache:dl2 N: not sectored
  // Writes acknowledged from the DRAM (non-sectored L2, write-allocate 'W'), by their DRAM token.
  std::unordered_map<uint64_t, reply> acks_;
  uint64_t next_ack_ = 0;
  bit_runs bank_runs_, row_runs_;
  bit_runs part_runs_;  // the channel-local address without its sub-partition bits (partition_address)
  clock_domains clock_;
  uint64_t rop_;                               // -gpgpu_l2_rop_latency in core cycles
  std::vector<ring<xbar_packet>> xin_;         // crossbar input buffers: one per SIMT cluster, then other engines
  std::vector<unsigned> next_node_;            // iSLIP: per output, the input after the last granted (scanned from)
  std::vector<unsigned> xscratch_, dscratch_;  // scratch of round robin: inputs with a packet, outputs granted
  std::vector<uint64_t> bucket_scratch_;       // scratch: iSLIP's candidates per output (islip_sets)
  std::atomic<uint64_t> xbar_queued_{0};       // packets in the input buffers (counted by the SMs' threads)
  std::vector<ring<reply>> rout_;              // reply crossbar output buffers, per port as xin_
  booksim_fly<xbar_packet> req_net_;           // -network_mode 1: BookSim's request subnet (0)
  booksim_fly<reply> rep_net_;                 // and reply subnet (1)
  std::vector<unsigned> rnext_;                // iSLIP pointers of the reply crossbar, per cluster (node ids)
  uint64_t replies_queued_ = 0;                // answers in the L2 -> icnt queues and the reply crossbar
  std::vector<sub_partition> sp_;
  uint64_t l2_queued_ = 0;                     // requests in the sub-partitions' xout, rop and in queues
  uint64_t l2_ready_ = 0;                      // MSHR entries in the sub-partitions' ready lists
  uint64_t fills_due_ = 0, next_due_ = ~0ull;  // fills in the due queues; at most the first one's cycle
  uint64_t l2_stepped_ = 0;                    // the last cycle run_l2 stepped (+1; 0: none this kernel)
  std::vector<l2_line> l2_;                    // sub_partition × sets × ways
  std::vector<uint64_t> l2_tag_, l2_lru_;      // per line of l2_: its line address (~0: none), LRU stamp
  // Per line of l2_, per sector: the bytes written since the line was allocated (bit i: byte i;
  // GPGPU-Sim's m_dirty_byte_mask).
  std::vector<std::array<uint32_t, 4>> l2_written_;
  std::vector<dram_channel> ch_;
  sector_map<l2_mshr> fills_;  // L2 MSHRs: sector (fill_key) -> who waits (in fill_waiters_)
  fifo_pool<waiter> fill_waiters_;
  std::vector<waiter> woken_;      // scratch: the waiters of a fill
  std::vector<dram_done> done_;    // scratch
  uint64_t dram_queued_ = 0;       // requests in the channels
  uint64_t stamp_ = 0, base_ = 0;  // base_: the GPU cycle the running kernel started in
  uint64_t ahead_ = ~0ull;         // the cycle whose B, D and L prepare_ahead / run_ahead did (~0: none)
  mem_stats st_;
  std::vector<std::array<uint64_t, 5>> sp_stats_;  // per sub-partition: probes by status
  mem_event_log* log_ = nullptr;
  // -gpgpu_memory_partition_indexing 4: the sub-partition drawn for each chunk decoded
  // (address >> chunk_shift_), rand() as GPGPU-Sim's srand(1) seeds it, and per crossbar port the
  // SMs' decodes not drawn yet (access: a packet of that port's input still undecoded).
  struct sm_decode {
    uint64_t addr;
    bool access;
  };
  bool random_ = false;
  unsigned chunk_shift_ = 0;
  std::unordered_map<uint64_t, unsigned> random_sp_;
  glibc_rand rand_{1};
  std::vector<std::vector<sm_decode>> sm_decodes_;
};

// "gpgpu-sim": memory_system; "fixed": fixed_latency_memory at -gpgpu_l2_rop_latency + -dram_latency.
// Throws std::invalid_argument for another kind.
std::unique_ptr<mem_port> make_memory(const gpu_config& cfg, const std::string& kind);

}  // namespace gpuvp::gpu_memory
