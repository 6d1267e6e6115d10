// SPDX-License-Identifier: Apache-2.0
// The host (application processor) initiator: the driver model. Its thread either runs a workload
// (`workload::run`) or serves QEMU's qtest protocol line by line (docs/qtest.md), then stops the
// simulation. Accesses are timed b_transport calls at host physical addresses; the host waits for
// each access's annotated delay, since a driver's register accesses are synchronous.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include "gpuvp/registry.h"
#include "gpuvp/stats.h"

namespace gpuvp {

class platform;

class host : public sc_core::sc_module, public host_port {
 public:
  tlm_utils::simple_initiator_socket<host> out{"out"};
  sc_core::sc_in<bool> irq{"irq"};

  counter reads{this, "reads", "host reads"};
  counter writes{this, "writes", "host writes"};
  counter errors{this, "errors", "host accesses answered with an error"};

  host(sc_core::sc_module_name name, platform& p);

  // What the host thread does. Without either, the host stays idle and the run ends when the other
  // initiators are done.
  void run_workload(workload* w) { workload_ = w; }
  // A script file (origin = its name) also reports each FAIL answer on `diag` as
  // "FILE:LINE: COMMAND: FAIL ..."; the protocol on `out` is unchanged.
  void run_qtest(std::istream& in, std::ostream& out, std::string origin = "", std::ostream* diag = nullptr) {
    qin_ = &in;
    qout_ = &out;
    qorigin_ = std::move(origin);
    qdiag_ = diag;
  }

  // One qtest line, answered with one line (without the newline). Public for tests.
  std::string qtest_line(const std::string& line);
  bool quit_requested() const { return quit_; }
  // Set when the workload or script finished (the CLI distinguishes it from a time-out).
  bool finished() const { return finished_; }
  // A workload or a qtest session was given (else the host idles from the start).
  bool has_work() const { return workload_ || qin_; }
  bool qtest_session() const { return qin_ != nullptr; }
  // What the host was doing when the simulation stopped without it finishing ("" if it finished
  // or had nothing to do): the qtest line it was answering, or the workload.
  std::string unfinished() const;

  bool read(uint64_t addr, void* data, unsigned len) override;
  bool write(uint64_t addr, const void* data, unsigned len) override;
  bool peek(uint64_t addr, void* data, unsigned len) override;
  bool poke(uint64_t addr, const void* data, unsigned len) override;
  void wait(const sc_core::sc_time& t) override;
  bool wait_irq(const sc_core::sc_time& timeout) override;

 private:
  void thread();
  bool access(tlm::tlm_command cmd, uint64_t addr, void* data, unsigned len, std::string* why);
  // qtest: empty if simulated time may advance to `until`, else the FAIL reason (time limit).
  std::string past_limit(const sc_core::sc_time& until) const;
  // qtest commands by kind: each answers true (reply set) when the line is its command.
  bool qtest_sized_access(const std::vector<std::string>& w, std::string& reply);
  bool qtest_bytes(const std::vector<std::string>& w, std::string& reply);
  bool qtest_clock(const std::vector<std::string>& w, std::string& reply);
  std::string qtest_stats(const std::vector<std::string>& w);
  platform& platform_;
  workload* workload_ = nullptr;
  std::istream* qin_ = nullptr;
  std::ostream* qout_ = nullptr;
  std::string qorigin_;
  std::ostream* qdiag_ = nullptr;
  std::string current_line_;  // the qtest line being answered, "ORIGIN:N: TEXT"
  bool quit_ = false, finished_ = false;
};

}  // namespace gpuvp
