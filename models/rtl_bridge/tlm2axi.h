// SPDX-License-Identifier: Apache-2.0
// tlm2axi: a TLM-2.0 target socket driving AXI4 master pins into an RTL slave (32-, 64-, 128- or
// 256-bit data bus: a 32-bit bus uses byte lanes 0-3 of the pins' 64-bit data, 128 and 256 bits
// the pins' wide data, axi.h). A transaction is split into beats of the bus width.
//
// A transaction becomes one or more bursts of AxSIZE = the bus width:
//   - INCR (streaming width = length): a burst never crosses a 4 KiB boundary and has at most
//     max_burst_beats beats; an unaligned start is an unaligned AxADDR with a partial first beat.
//   - FIXED (streaming width < length): streaming width 1, 2, 4 or 8 bytes and the address aligned
//     to it; AxSIZE = log2(streaming width), every beat at the same address (a FIFO port), at most
//     16 beats per burst (A3.4.1); the streaming width must not exceed the bus width.
// Byte enables become WSTRB (writes) or are applied when copying read data back (reads). Up to
// max_outstanding bursts per direction are in flight, each with its own ID (0..max-1), so several
// TLM initiators (or one long transaction) keep the slave busy; responses may come back in any
// order of IDs. A slave with IDs of fewer than 4 bits (or none) gets at most 2^bits bursts per
// direction. The worst response of a transaction's bursts is its TLM response: SLVERR ->
// TLM_GENERIC_ERROR_RESPONSE, DECERR -> TLM_ADDRESS_ERROR_RESPONSE. A streaming width that is not
// 1, 2, 4 or 8 (or a misaligned FIXED address) is TLM_BURST_ERROR_RESPONSE, a zero length
// TLM_GENERIC_ERROR_RESPONSE. No DMI and no debug access (the RTL has no backdoor port).
// WRAP bursts are accepted by the checker and the shipped RTL, but a TLM transaction never maps
// to one (there is no wrapping TLM transaction).
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <unordered_map>
#include <memory>
#include <vector>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>
#include "transactor.h"

namespace gpuvp::rtl {

class tlm2axi : public transactor {
 public:
  tlm_utils::simple_target_socket<tlm2axi> in{"in"};
  axi4_pins& pins;

  param<uint64_t> max_burst_beats{this, "max_burst_beats", 16, "longest INCR burst issued (beats of the bus width)", 1, 256};
  param<uint64_t> max_outstanding{this, "max_outstanding", 4, "bursts in flight per direction (distinct IDs)", 1, 16};

  counter transactions{this, "transactions", "TLM transactions received"};
  counter bursts{this, "bursts", "AXI bursts issued"};
  counter beats{this, "beats", "AXI data beats transferred"};

  // bus_bytes: 4, 8, 16 or 32 (as the pins); id_bits: the slave's ID width (0: none).
  tlm2axi(sc_core::sc_module_name name, rtl_clock& clock, axi4_pins& pins, unsigned bus_bytes = axi4_bus_bytes,
          unsigned id_bits = 4);
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  // Lock-step memory (NAME.lockstep_memory): every successful write also goes to a TLM shadow
  // memory, every successful read is compared with it (bytes never written are not compared);
  // the first mismatch is a modelled error that stops the run, like the copy engine's.
  void enable_lockstep_memory() { lockstep_ = true; }
  const std::vector<std::string>& lockstep_errors() const { return lockstep_errors_; }

  void sample(uint64_t cycle) override;
  void update(uint64_t cycle) override;
  bool active() const override;

 private:
  struct job {
    tlm::tlm_generic_payload* gp = nullptr;
    unsigned left = 0;
    uint32_t resp = resp_okay;
    sc_core::sc_event done;
  };
  // Per beat: lanes [lane_lo, lane_hi) carry the payload's bytes offset + lane.
  struct lane_map {
    beat_data data;
    uint32_t strb = 0;
    int64_t offset = 0;
    uint8_t lane_lo = 0, lane_hi = 0;
  };
  struct burst {
    job* owner;
    bool write;
    uint32_t id = 0;
    uint64_t addr;
    uint32_t len, size, type;
    std::vector<lane_map> beat;
    unsigned next = 0;  // next beat to send / receive
    uint32_t resp = resp_okay;  // worst response of the burst (trace)
    sc_core::sc_time issued;    // when its address went on the pins (trace)
  };
  void split(job& j);
  void finish(burst& b, uint32_t resp);
  std::deque<std::unique_ptr<burst>> waiting_;          // not yet issued (no free ID)
  std::deque<burst*> aw_, w_, ar_;                      // address / data queues on the pins
  std::map<uint32_t, std::unique_ptr<burst>> writes_, reads_;  // in flight by ID
  bool aw_fire_ = false, w_fire_ = false, b_fire_ = false, ar_fire_ = false, r_fire_ = false;
  uint32_t bid_ = 0, bresp_ = 0, rid_ = 0, rresp_ = 0;
  beat_data rdata_;
  const unsigned bus_bytes_, size_log2_, id_count_;
  void shadow(const tlm::tlm_generic_payload& gp);
  bool lockstep_ = false;
  std::unordered_map<uint64_t, uint8_t> shadow_;  // written bytes by address
  std::vector<std::string> lockstep_errors_;
};

}  // namespace gpuvp::rtl
