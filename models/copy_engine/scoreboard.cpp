// SPDX-License-Identifier: Apache-2.0
#include "scoreboard.h"

#include <iomanip>
#include <sstream>
#include "gpuvp/config.h"
#include "gpuvp/timing.h"

namespace gpuvp::copy_engine {

std::string copy_scoreboard::show(const char* who, const txn& t) {
  std::ostringstream m;
  m << who << " " << (t.write ? "write" : "read") << " #" << t.index << " at " << gpuvp::format_time(t.time) << ": " << t.data.size()
    << " bytes at 0x" << std::hex << t.addr << ":";
  for (size_t i = 0; i < t.data.size() && i < 32; ++i) m << " " << std::setw(2) << std::setfill('0') << unsigned(t.data[i]);
  if (t.data.size() > 32) m << " ...";
  return m.str();
}

void copy_scoreboard::fail(const std::string& m) {
  if (!errors_.empty()) return;  // the first mismatch is the one that matters
  errors_.push_back("lock-step mismatch at " + gpuvp::format_time(sc_core::sc_time_stamp()) + ": " + m);
  sc_core::sc_stop();
}

void copy_scoreboard::record(side s, const tlm::tlm_generic_payload& gp) {
  const int stream = gp.is_write() ? 1 : 0;
  txn t{gp.is_write(), gp.get_address(), std::vector<unsigned char>(gp.get_data_ptr(), gp.get_data_ptr() + gp.get_data_length()),
        sc_core::sc_time_stamp(), ++count_[stream][s]};
  if (s == tlm_side && t.write)
    for (size_t i = 0; i < t.data.size(); ++i) tlm_written_[t.addr + i] = t.data[i];
  q_[stream][s].push_back(std::move(t));
  compare(stream);
}

void copy_scoreboard::compare(int stream) {
  auto& a = q_[stream][tlm_side];
  auto& b = q_[stream][rtl_side];
  while (!a.empty() && !b.empty()) {
    const txn &x = a.front(), &y = b.front();
    if (x.addr != y.addr || x.data.size() != y.data.size()) {
      fail("transactions differ in address or length\n  " + show("TLM", x) + "\n  " + show("RTL", y));
      return;
    }
    if (x.data != y.data) {
      size_t i = 0;
      while (x.data[i] == y.data[i]) ++i;
      std::ostringstream m;
      m << "data differ from byte " << i << " (address 0x" << std::hex << x.addr + i << ")\n  " << show("TLM", x) << "\n  "
        << show("RTL", y);
      fail(m.str());
      return;
    }
    ++compared;
    a.pop_front();
    b.pop_front();
  }
}

void copy_scoreboard::go() {
  go_time_ = sc_core::sc_time_stamp();
  done_[0] = done_[1] = false;
  tlm_written_.clear();
}

void copy_scoreboard::done(side s) {
  if (done_[s]) return;
  done_[s] = true;
  done_time_[s] = sc_core::sc_time_stamp();
  if (!done_[1 - s]) return;
  ++copies;
  tlm_time_ps += (done_time_[tlm_side] - go_time_).value() / (1_ps).value();
  rtl_time_ps += (done_time_[rtl_side] - go_time_).value() / (1_ps).value();
  for (int st = 0; st < 2; ++st)
    if (q_[st][0].size() != q_[st][1].size()) {
      const auto& longer = q_[st][0].size() > q_[st][1].size() ? q_[st][0] : q_[st][1];
      fail(std::string("one side issued more ") + (st ? "writes" : "reads") + " than the other\n  " +
           show(&longer == &q_[st][0] ? "TLM" : "RTL", longer.front()) + "\n  (no matching transaction on the other side)");
      return;
    }
  if (!peek) return;
  for (const auto& [addr, byte] : tlm_written_) {
    unsigned char v = 0;
    if (peek(addr, &v, 1) && v != byte) {
      std::ostringstream m;
      m << "final memory differs at 0x" << std::hex << addr << ": TLM model wrote 0x" << unsigned(byte) << ", memory holds 0x"
        << unsigned(v) << " after the RTL's copy";
      fail(m.str());
      return;
    }
  }
}

}  // namespace gpuvp::copy_engine
