// SPDX-License-Identifier: Apache-2.0
// Address-decoding interconnect with contention. Initiators bind to `in`, targets to `out`;
// map() assigns each out port an address window (overlaps are a configuration error naming both).
// The target sees addresses relative to its window base. Timing per transaction, without any
// kernel event: the transaction reaches the router at t = now + delay and needs its target link
// for ceil(length / width) cycles of that port's clock. Each target link keeps a booking calendar
// (its busy intervals, exact), so the transfer takes the first free time at or after t, whatever
// order temporally decoupled initiators called in (split over the free gaps where one is too
// short: a link is one server, never two transfers at once); it then crosses both port latencies.
// A transaction already timed by another model (untimed_ext: the GPU's memory system) is
// carried, counted and translated, but books no link time. DMI requests are forwarded with address translation; transport_dbg too.
// An access made through a DMI pointer sends its transaction all the same (gpu_ext::dmi_shadow),
// so it books the links and is counted like the transaction it replaces.
#pragma once
#include <cstdint>
#include <utility>
#include <memory>
#include <string>
#include <vector>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_socket_bases.h>
#include "gpuvp/config.h"
#include "gpuvp/extension.h"
#include "gpuvp/link_calendar.h"
#include "gpuvp/timing.h"
#include "gpuvp/untimed.h"
#include "gpuvp/stats.h"

namespace gpuvp {

class router : public sc_core::sc_module {
 public:
  // The input side: each initiator's bind gets its own forward interface, which calls the router
  // with that input's index (tlm_utils' multi target socket goes through a callback functor: one
  // indirect call and its checks more per transaction). in[i] is the backward interface of input
  // i, in.size() the number of inputs bound so far. Multi initiator sockets bind as to tlm_utils'.
  class input_socket : public tlm::tlm_target_socket<32, tlm::tlm_base_protocol_types, 0, sc_core::SC_ONE_OR_MORE_BOUND>,
                       public tlm_utils::multi_to_multi_bind_base<tlm::tlm_base_protocol_types> {
   public:
    input_socket(const char* name, router& owner);
    ~input_socket() override;
    unsigned size() const { return handed_out_; }

   private:
    friend class router;
    struct binding;
    using tlm_target_socket::get_base_interface;
    tlm::tlm_fw_transport_if<>& get_base_interface() override;
    tlm::tlm_fw_transport_if<>* get_last_binder(tlm::tlm_bw_transport_if<>*) override;
    router& owner_;
    std::vector<std::unique_ptr<binding>> bindings_;  // [0] is also the export's own interface
    unsigned handed_out_ = 0;
  };
  input_socket in{"in", *this};
  tlm_utils::multi_passthrough_initiator_socket<router> out{"out"};

  param<sc_core::sc_time> latency{this, "latency", 1_ns, "default latency of each port (a transaction crosses two)", sc_core::SC_ZERO_TIME,
                                  1_s};
  param<uint64_t> width{this, "width", 32, "default port width in bytes per cycle", 1, 4096};
  param<sc_core::sc_time> clock{this, "clock", 1_ns, "default port clock period", 1_ps, 1_ms};
  param<bool> contention{this, "contention", true, "model link occupancy and queueing"};
  param<uint64_t> slot_cycles{this,
                              "slot_cycles",
                              64,
                              "booking-calendar horizon: 256 slots of this many port cycles (rounded up to a power of two of time units); "
                              "older arrivals are not queued",
                              1,
                              1 << 20};

  struct window {
    uint64_t base, size;
    unsigned index;
    std::string name;
  };

  // One link of the router, on the initiator side or the target side. Its params and statistics
  // live under "<router>.<port name>" and default to the router-wide params above.
  struct port {
    port(const std::string& path, router& owner);
    param<sc_core::sc_time> latency;
    param<uint64_t> width;
    param<sc_core::sc_time> clock;
    counter transactions;
    counter bytes;
    histogram queueing;  // queueing delay, ps
    counter stale;       // bookings older than the calendar's horizon (not queued)
    counter untimed;     // carried without booking: timed by another model (untimed_ext)
    gauge busy;          // booked time up to now / now
    // Hot-path state in kernel time units (sc_time::value()), cached from the params.
    uint64_t busy_time = 0;     // booked (contention off: transferring) time, summed
    bool single_server = true;  // contention on: transfers on this link never overlap
    // Booking calendar: arrivals older than its horizon are not queued (`stale`).
    static uint64_t calendar_horizon(uint64_t cycle, uint64_t slot_cycles);
    link_calendar calendar;
    // The pieces of the last booking (one unless it was split over gaps), kept for the trace only.
    bool record_pieces = false;
    link_calendar::piece_list pieces;
    // Books `occ` time units at or after t in the link's free time (adding them to busy_time);
    // returns when the transfer ends.
    uint64_t book(uint64_t t, uint64_t occ);
    // Booked time after `t` still in the calendar (the busy gauge counts up to now only).
    uint64_t booked_after(uint64_t t) const { return calendar.booked_after(t); }
    uint64_t cycle = 0, bytes_per_cycle = 1, latency_value = 0;
    int width_shift = -1;  // log2(width) when width is a power of two: a shift instead of a division
    uint32_t track = 0;    // trace track
    // Initiator side: the window this initiator used last, resolved to its port and target's
    // interface (size 0: none), so that a hit needs no search and no socket look-up; with the
    // last length's occupancies of both links and the two ports' latencies summed, so that a hit
    // of the same length needs no arithmetic either.
    struct route {
      uint64_t base = 0, size = 0;
      port* out = nullptr;
      tlm::tlm_blocking_transport_if<>* target = nullptr;
      const window* w = nullptr;
      uint64_t length = ~uint64_t(0);  // the length below are for (none: no 32-bit length; never 0)
      uint64_t occ_in = 0, occ_out = 0, transfer = 0, latency = 0;
      sc_core::sc_time unqueued_delay;  // transfer + latency: the delay a hop adds without queueing
    } last;
    // Initiator side: delay += `units` kernel time units. sc_time::from_value is a library call:
    // the last increment is kept as an sc_time (an initiator's increments mostly repeat).
    uint64_t last_increment = 0;
    sc_core::sc_time last_increment_time = sc_core::SC_ZERO_TIME;
    void add_delay(sc_core::sc_time& delay, uint64_t units) {
      if (units != last_increment) {
        last_increment = units;
        last_increment_time = sc_core::sc_time::from_value(units);
      }
      delay += last_increment_time;
    }
    uint64_t occupancy(unsigned length) const {
      const uint64_t cycles =
          width_shift >= 0 ? (length + bytes_per_cycle - 1) >> width_shift : (length + bytes_per_cycle - 1) / bytes_per_cycle;
      return cycles * cycle;
    }
  };

  explicit router(sc_core::sc_module_name name);

  // Name the initiator bound to in[index] (stats and params use it). Unnamed inputs are "in<i>".
  void name_input(unsigned index, const std::string& name);
  // Map a window to the target bound to out[index], which is named `name`.
  void map(unsigned index, uint64_t base, uint64_t size, const std::string& name);

  void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned transport_dbg(int id, tlm::tlm_generic_payload& gp);
  bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
  void invalidate_direct_mem_ptr(int id, sc_dt::uint64 start, sc_dt::uint64 end);

  const std::vector<window>& windows() const { return windows_; }
  counter decode_errors{this, "decode_errors", "accesses to no mapped window"};
  counter dmi_transactions{this, "dmi_transactions",
                           "transactions whose data moved through a DMI pointer (booked and counted on their ports as any other)"};

 private:
  const window* decode(uint64_t addr) const;
  // Points `r` at the window holding [addr, addr + len), with the occupancies of len; false when
  // no window holds it all (`r` then holds the window of addr, if any).
  bool refresh(port& pin, port::route& r, uint64_t addr, unsigned len);
  // A transaction through input `id`: the common case inline, without a call before the target's;
  // anything else (a miss of the route, an untimed access, a link booked past the arrival within
  // the horizon, a full calendar, no contention, tracing or logging) in transport_general.
  void transport(port& pin, int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  [[gnu::noinline]] void transport_general(port& pin, int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  // The target's call with the transaction's log line after it (debug level: out of line).
  [[gnu::noinline]] void forward_logged(int id, const window& w, tlm::tlm_blocking_transport_if<>& target, tlm::tlm_generic_payload& gp,
                                        sc_core::sc_time& delay, uint64_t addr);
  // Before the simulation starts the multi-sockets have not completed their bindings: debug and
  // DMI requests then find no target.
  static bool bindings_complete() { return sc_core::sc_get_status() >= sc_core::SC_START_OF_SIMULATION; }
  // Out of line: the log message's stream would otherwise enlarge b_transport's frame.
  [[gnu::cold, gnu::noinline]] void decode_error(int id, tlm::tlm_generic_payload& gp);
  void trace_access(int id, const port& pout, const tlm::tlm_generic_payload& gp, const gpu_ext* ext, uint64_t start, uint64_t transfer);
  void log_transaction(int id, const window& w, const tlm::tlm_generic_payload& gp, const sc_core::sc_time& delay);
  port& port_at(std::vector<std::unique_ptr<port>>& ports, std::vector<std::string>& names, unsigned index, const char* prefix);
  port& input(unsigned index);
  port& output(unsigned index);
  void before_end_of_elaboration() override;
  std::vector<window> windows_;  // sorted by base
  std::vector<std::unique_ptr<port>> inputs_, outputs_;
  std::vector<std::string> input_names_, output_names_;
  void start_of_simulation() override;
  bool log_debug_ = false;
  bool tracing_ = false;
  bool plain_ = false;  // contention on, neither tracing nor logging: transport may take its inline path
  uint64_t ps_ = 1;     // kernel time units per picosecond
};

}  // namespace gpuvp
