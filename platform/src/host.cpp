// SPDX-License-Identifier: Apache-2.0
#include "gpuvp/host.h"

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstring>
#include <iostream>
#include <sstream>
#include "gpuvp/extension.h"
#include "gpuvp/platform.h"
#include "gpuvp/text.h"
#include "gpuvp/timing.h"
#include "gpuvp/trace.h"

namespace gpuvp {

host::host(sc_core::sc_module_name name, platform& p) : sc_module(name), platform_(p) {
  SC_HAS_PROCESS(host);
  SC_THREAD(thread);
}

bool host::access(tlm::tlm_command cmd, uint64_t addr, void* data, unsigned len, std::string* why) {
  transaction t(cmd, addr, data, len);
  t.ext.initiator = 0;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  out->b_transport(t.gp, delay);
  sc_core::wait(delay);
  if (cmd == tlm::TLM_WRITE_COMMAND)
    ++writes;
  else
    ++reads;
  if (!t.ok()) {
    ++errors;
    if (why) *why = t.gp.get_response_string();
    return false;
  }
  return true;
}

bool host::read(uint64_t addr, void* data, unsigned len) { return access(tlm::TLM_READ_COMMAND, addr, data, len, nullptr); }
bool host::write(uint64_t addr, const void* data, unsigned len) {
  return access(tlm::TLM_WRITE_COMMAND, addr, const_cast<void*>(data), len, nullptr);
}
bool host::peek(uint64_t addr, void* data, unsigned len) { return platform_.debug_read(addr, data, len); }
bool host::poke(uint64_t addr, const void* data, unsigned len) { return platform_.debug_write(addr, data, len); }
void host::wait(const sc_core::sc_time& t) { sc_core::wait(t); }

bool host::wait_irq(const sc_core::sc_time& timeout) {
  if (irq.read()) return true;
  sc_core::wait(timeout, irq.posedge_event());
  return irq.read();
}

void host::thread() {
  if (workload_) {
    workload_->run(platform_, *this);
    finished_ = true;
    sc_core::sc_stop();
    return;
  }
  if (!qin_) return;
  std::string line;
  for (unsigned n = 1; !quit_ && std::getline(*qin_, line); ++n) {
    if (line.empty() || line[0] == '#') continue;
    current_line_ = (qorigin_.empty() ? std::string("stdin") : qorigin_) + ":" + std::to_string(n) + ": " + line;
    const std::string reply = qtest_line(line);
    *qout_ << reply << std::endl;
    if (qdiag_ && reply.rfind("FAIL", 0) == 0) *qdiag_ << qorigin_ << ":" << n << ": " << line << ": " << reply << "\n";
  }
  finished_ = true;
  sc_core::sc_stop();
}

std::string host::unfinished() const {
  if (finished_ || !has_work()) return "";
  if (workload_) return "the host's workload had not finished";
  return "the host was still answering qtest line " + current_line_;
}

namespace {
std::string hex_bytes(const std::vector<uint8_t>& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string s = "0x";
  for (uint8_t b : bytes) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}
uint64_t ns_of(const sc_core::sc_time& t) { return t.value() / (1_ns).value(); }
// A qtest time in nanoseconds, checked against the largest time gpuvp accepts.
sc_core::sc_time qtest_ns(const std::string& word) {
  const uint64_t ns = parse_u64(word);
  if (ns > ns_of(max_time())) throw std::out_of_range(word + " ns is longer than gpuvp's largest time, " + format_time(max_time()));
  return sc_core::sc_time(double(ns), sc_core::SC_NS);
}
}  // namespace

std::string host::past_limit(const sc_core::sc_time& until) const {
  if (until <= platform_.time_limit.get()) return "";
  return "time limit of " + format_time(platform_.time_limit) + " (platform.time_limit) reached: simulated time stays at " +
         std::to_string(ns_of(sc_core::sc_time_stamp()));
}

namespace {
void need_args(const std::vector<std::string>& w, size_t n) {
  if (w.size() != n) throw std::invalid_argument(w[0] + " takes " + std::to_string(n - 1) + " argument(s)");
}
// A byte count of read/write/memset: 1 byte to 1 MiB.
bool qtest_size_ok(uint64_t size) { return size != 0 && size <= (1u << 20); }
}  // namespace

// readb/w/l/q ADDR and writeb/w/l/q ADDR VALUE.
bool host::qtest_sized_access(const std::vector<std::string>& w, std::string& reply) {
  static const std::pair<const char*, unsigned> sizes[] = {{"b", 1}, {"w", 2}, {"l", 4}, {"q", 8}};
  for (auto& [suffix, size] : sizes) {
    std::string why;
    if (w[0] == std::string("read") + suffix) {
      need_args(w, 2);
      uint64_t v = 0;
      if (!access(tlm::TLM_READ_COMMAND, parse_u64(w[1]), &v, size, &why)) return reply = "FAIL " + why, true;
      char buf[32];
      std::snprintf(buf, sizeof buf, "OK 0x%016" PRIx64, v);
      return reply = buf, true;
    }
    if (w[0] == std::string("write") + suffix) {
      need_args(w, 3);
      uint64_t v = parse_u64(w[2]);
      if (size < 8 && v >> (8 * size)) return reply = "FAIL value " + w[2] + " does not fit in " + std::to_string(size) + " bytes", true;
      reply = access(tlm::TLM_WRITE_COMMAND, parse_u64(w[1]), &v, size, &why) ? "OK" : "FAIL " + why;
      return true;
    }
  }
  return false;
}

// read ADDR SIZE, write ADDR SIZE HEX and memset ADDR SIZE BYTE.
bool host::qtest_bytes(const std::vector<std::string>& w, std::string& reply) {
  const std::string& cmd = w[0];
  if (cmd != "read" && cmd != "write" && cmd != "memset") return false;
  need_args(w, cmd == "read" ? 3 : 4);
  const uint64_t size = parse_u64(w[2]);
  if (!qtest_size_ok(size)) return reply = "FAIL size must be 1 to 1 MiB", true;
  std::vector<uint8_t> bytes(size, 0);
  std::string why;
  if (cmd == "read") {
    reply = access(tlm::TLM_READ_COMMAND, parse_u64(w[1]), bytes.data(), unsigned(size), &why) ? "OK " + hex_bytes(bytes) : "FAIL " + why;
    return true;
  }
  if (cmd == "write") {
    std::string hex = w[3];
    if (hex.rfind("0x", 0) == 0 || hex.rfind("0X", 0) == 0) hex = hex.substr(2);
    if (hex.size() > 2 * size || hex.size() % 2) return reply = "FAIL data does not match size " + w[2], true;
    for (size_t i = 0; i < hex.size(); ++i)
      if (!std::isxdigit(static_cast<unsigned char>(hex[i])))
        return reply = "FAIL data " + w[3] + ": '" + hex[i] + "' is not a hex digit", true;
    for (size_t i = 0; i < hex.size() / 2; ++i) bytes[i] = uint8_t(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
  } else {
    const uint64_t byte = parse_u64(w[3]);
    if (byte > 0xff) return reply = "FAIL byte value " + w[3] + " is larger than 0xff", true;
    std::fill(bytes.begin(), bytes.end(), uint8_t(byte));
  }
  reply = access(tlm::TLM_WRITE_COMMAND, parse_u64(w[1]), bytes.data(), unsigned(size), &why) ? "OK" : "FAIL " + why;
  return true;
}

// clock_step [NS] and clock_set NS.
bool host::qtest_clock(const std::vector<std::string>& w, std::string& reply) {
  sc_core::sc_time target;
  if (w[0] == "clock_step") {
    if (w.size() > 2) throw std::invalid_argument("clock_step takes at most 1 argument");
    sc_core::sc_time step;
    if (w.size() == 2) {
      step = qtest_ns(w[1]);
    } else {
      // To the next pending activity, as QEMU steps to the next timer deadline.
      step = sc_core::sc_time_to_pending_activity();
      if (step == sc_core::SC_ZERO_TIME || step == sc_core::sc_max_time() - sc_core::sc_time_stamp()) step = 1_ns;
    }
    target = sc_core::sc_time_stamp() + step;
  } else if (w[0] == "clock_set") {
    need_args(w, 2);
    target = qtest_ns(w[1]);
    if (target < sc_core::sc_time_stamp()) return reply = "FAIL cannot go back in time", true;
  } else {
    return false;
  }
  if (auto why = past_limit(target); !why.empty()) return reply = "FAIL " + why, true;
  // (clock_step 0 still waits: a delta cycle lets what was triggered now run)
  if (w[0] == "clock_step" || target > sc_core::sc_time_stamp()) sc_core::wait(target - sc_core::sc_time_stamp());
  return reply = "OK " + std::to_string(ns_of(sc_core::sc_time_stamp())), true;
}

// stats [PREFIX]: every statistic under PREFIX as path=value.
std::string host::qtest_stats(const std::vector<std::string>& w) {
  if (w.size() > 2) throw std::invalid_argument("stats takes at most 1 argument");
  std::string s = "OK";
  for (const auto& e : stats_registry::global().list(w.size() == 2 ? w[1] : "")) {
    std::ostringstream os;
    os << " " << e.path << "=";
    if (e.c)
      os << e.c->value();
    else if (e.g)
      os << e.g->value();
    else
      os << e.h->count();
    s += os.str();
  }
  return s;
}

std::string host::qtest_line(const std::string& line) {
  const auto w = split_words(line);
  if (w.empty()) return "FAIL empty line";
  const std::string& cmd = w[0];
  // Every access takes time: at the limit none can run (the session goes on, answering FAIL).
  static const std::vector<std::string> timed = {"readb",  "readw",  "readl", "readq", "writeb", "writew",
                                                 "writel", "writeq", "read",  "write", "memset"};
  if (std::find(timed.begin(), timed.end(), cmd) != timed.end())
    if (auto why = past_limit(sc_core::sc_time_stamp() + 1_ps); !why.empty()) return "FAIL " + why;
  try {
    std::string reply;
    if (qtest_sized_access(w, reply) || qtest_bytes(w, reply) || qtest_clock(w, reply)) return reply;
    if (cmd == "irq_intercept") {
      std::ostream* os = qout_ ? qout_ : &std::cout;
      platform_.pmc().observer = [os](unsigned line_no, bool level) {
        *os << "IRQ " << (level ? "raise " : "lower ") << line_no << std::endl;
      };
      return "OK";
    }
    if (cmd == "stats") return qtest_stats(w);
    if (cmd == "quit") {
      quit_ = true;
      return "OK";
    }
    for (const auto& name : platform_.component_names())
      if (platform_.find(name)->qtest(w, reply)) return reply;
  } catch (const std::exception& e) {
    return std::string("FAIL ") + e.what();
  }
  return "FAIL unknown command '" + cmd + "'";
}

}  // namespace gpuvp
