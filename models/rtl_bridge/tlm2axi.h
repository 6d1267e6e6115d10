// SPDX-License-Identifier: Apache-2.0
// tlm2axi: a TLM-2.0 target socket driving AXI4 master pins into an RTL slave (32-, 64-, 128- or
// 256-bit data bus: a 32-bit bus uses byte lanes 0-3 of the pins' 64-bit data, wider buses the
// pins' wide data, axi.h). Burst rules, IDs and responses: the tlm2axi row of docs/rtl.md.
//
// A transaction becomes INCR bursts of the bus width (at most max_burst_beats beats, never across
// 4 KiB) or, with a streaming width of 1/2/4/8 below its length, FIXED bursts (16 beats at most).
// Byte enables become WSTRB. Up to max_outstanding bursts per direction are in flight, each with
// its own ID (at most 2^bits for a slave with fewer ID bits). The worst response of the bursts is
// the transaction's (SLVERR: generic error, DECERR: address error); a bad streaming width or a
// misaligned FIXED address is a burst error, a zero length a generic error. No DMI, no debug access.
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
  tlm2axi(sc_core::sc_module_name name, rtl_clock& clock, axi4_pins& pins, unsigned bus_bytes = axi4_bus_bytes, unsigned id_bits = 4);
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
    unsigned next = 0;          // next beat to send / receive
    uint32_t resp = resp_okay;  // worst response of the burst (trace)
    sc_core::sc_time issued;    // when its address went on the pins (trace)
  };
  void split(job& j);
  void finish(burst& b, uint32_t resp);
  // update()'s steps, in order: the handshakes sampled this cycle (writes, then reads), new
  // bursts onto the address queues, the pins for the next cycle. Inline, defined in tlm2axi.cpp
  // and called from update() alone: folded back into it (once per RTL cycle).
  inline void retire_writes();
  inline void retire_reads();
  inline void issue_waiting();
  inline void drive_pins();
  std::deque<std::unique_ptr<burst>> waiting_;                 // not yet issued (no free ID)
  std::deque<burst*> aw_, w_, ar_;                             // address / data queues on the pins
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
