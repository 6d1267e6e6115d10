// SPDX-License-Identifier: Apache-2.0
// Traffic generator: several independent initiators, each issuing a configurable stream of reads
// and writes (sequential, strided or random addresses) with temporal decoupling. It measures the
// latency each transaction saw and the bandwidth each generator got, which shows the
// interconnect's latency, bandwidth and contention in the report. The default workload until GPU
// front ends drive real traffic.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>
#include "gpuvp/config.h"
#include "gpuvp/registry.h"
#include "gpuvp/stats.h"
#include "gpuvp/timing.h"

namespace gpuvp::traffic {

class traffic_generator : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<traffic_generator> out{"out"};

  gpuvp::param<std::string> pattern{this, "pattern", "sequential", "address pattern: sequential, strided or random"};
  gpuvp::param<uint64_t> base{this, "base", 0, "first host physical address of the region", 0, ~uint64_t(0)};
  gpuvp::param<uint64_t> range{this, "range", 1 << 20, "bytes in the region (addresses wrap inside it)", 1, uint64_t(1) << 48};
  gpuvp::param<uint64_t> size{this, "size", 64, "bytes per transaction", 1, 4096};
  gpuvp::param<uint64_t> stride{this, "stride", 4096, "address step of the strided pattern", 0, uint64_t(1) << 48};
  gpuvp::param<uint64_t> count{this, "count", 10000, "transactions to issue", 0, uint64_t(1) << 40};
  gpuvp::param<double> write_fraction{this, "write_fraction", 0.0, "fraction of transactions that are writes", 0.0, 1.0};
  gpuvp::param<sc_core::sc_time> interval{this, "interval", sc_core::SC_ZERO_TIME, "gap between transactions", sc_core::SC_ZERO_TIME, 1_s};
  gpuvp::param<uint64_t> seed{this, "seed", 1, "seed of the random pattern and of the read/write choice", 0, ~uint64_t(0)};

  gpuvp::counter transactions{this, "transactions", "transactions completed"};
  gpuvp::counter bytes{this, "bytes", "bytes transferred"};
  gpuvp::counter errors{this, "errors", "transactions answered with an error"};
  gpuvp::histogram latency{this, "latency", "latency of each transaction", "ps"};
  gpuvp::gauge bandwidth{this, "bandwidth", "achieved bandwidth in bytes per ns of simulated time", [this] { return bandwidth_bpns(); }};

  traffic_generator(sc_core::sc_module_name name, unsigned id);
  double bandwidth_bpns() const;
  bool done() const { return done_; }

 private:
  void thread();
  uint64_t next_address(uint64_t i);
  unsigned id_;
  uint64_t rng_;
  sc_core::sc_time finished_at_;
  bool done_ = false;
};

class traffic : public sc_core::sc_module, public gpuvp::component {
 public:
  gpuvp::param<uint64_t> generator_count{this, "initiators", 3, "number of generators (g0, g1, ...)", 0, 64};

  explicit traffic(sc_core::sc_module_name name);
  sc_core::sc_module& module() override { return *this; }
  std::vector<initiator_port> initiators() override;
  void report(std::ostream& os) override;
  std::vector<std::string> modelled_errors() override;
  std::vector<std::string> busy() override;

 private:
  std::vector<std::unique_ptr<traffic_generator>> gens_;
};

}  // namespace gpuvp::traffic
