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

std::string host::qtest_line(const std::string& line) {
  const auto w = split_words(line);
  if (w.empty()) return "FAIL empty line";
  const std::string& cmd = w[0];
  auto need = [&](size_t n) {
    if (w.size() != n) throw std::invalid_argument(cmd + " takes " + std::to_string(n - 1) + " argument(s)");
  };
  // Every access takes time: at the limit none can run (the session goes on, answering FAIL).
  static const std::vector<std::string> timed = {"readb",  "readw",  "readl", "readq", "writeb", "writew",
                                                 "writel", "writeq", "read",  "write", "memset"};
  if (std::find(timed.begin(), timed.end(), cmd) != timed.end())
    if (auto why = past_limit(sc_core::sc_time_stamp() + 1_ps); !why.empty()) return "FAIL " + why;
  try {
    static const std::pair<const char*, unsigned> sizes[] = {{"b", 1}, {"w", 2}, {"l", 4}, {"q", 8}};
    for (auto& [suffix, size] : sizes) {
      if (cmd == std::string("read") + suffix) {
        need(2);
        uint64_t v = 0;
        std::string why;
        if (!access(tlm::TLM_READ_COMMAND, parse_u64(w[1]), &v, size, &why)) return "FAIL " + why;
        char buf[32];
        std::snprintf(buf, sizeof buf, "OK 0x%016" PRIx64, v);
        return buf;
      }
      if (cmd == std::string("write") + suffix) {
        need(3);
        uint64_t v = parse_u64(w[2]);
        if (size < 8 && v >> (8 * size)) return "FAIL value " + w[2] + " does not fit in " + std::to_string(size) + " bytes";
        std::string why;
        if (!access(tlm::TLM_WRITE_COMMAND, parse_u64(w[1]), &v, size, &why)) return "FAIL " + why;
        return "OK";
      }
    }
    if (cmd == "read") {
      need(3);
      const uint64_t size = parse_u64(w[2]);
      if (size == 0 || size > (1u << 20)) return "FAIL size must be 1 to 1 MiB";
      std::vector<uint8_t> bytes(size);
      std::string why;
      if (!access(tlm::TLM_READ_COMMAND, parse_u64(w[1]), bytes.data(), unsigned(size), &why)) return "FAIL " + why;
      return "OK " + hex_bytes(bytes);
    }
    if (cmd == "write") {
      need(4);
      const uint64_t size = parse_u64(w[2]);
      std::string hex = w[3];
      if (hex.rfind("0x", 0) == 0 || hex.rfind("0X", 0) == 0) hex = hex.substr(2);
      if (size == 0 || size > (1u << 20)) return "FAIL size must be 1 to 1 MiB";
      if (hex.size() > 2 * size || hex.size() % 2) return "FAIL data does not match size " + w[2];
      std::vector<uint8_t> bytes(size, 0);
      for (size_t i = 0; i < hex.size(); ++i)
        if (!std::isxdigit(static_cast<unsigned char>(hex[i]))) return "FAIL data " + w[3] + ": '" + hex[i] + "' is not a hex digit";
      for (size_t i = 0; i < hex.size() / 2; ++i) bytes[i] = uint8_t(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
      std::string why;
      if (!access(tlm::TLM_WRITE_COMMAND, parse_u64(w[1]), bytes.data(), unsigned(size), &why)) return "FAIL " + why;
      return "OK";
    }
    if (cmd == "memset") {
      need(4);
      const uint64_t size = parse_u64(w[2]), byte = parse_u64(w[3]);
      if (size == 0 || size > (1u << 20)) return "FAIL size must be 1 to 1 MiB";
      if (byte > 0xff) return "FAIL byte value " + w[3] + " is larger than 0xff";
      std::vector<uint8_t> bytes(size, uint8_t(byte));
      std::string why;
      if (!access(tlm::TLM_WRITE_COMMAND, parse_u64(w[1]), bytes.data(), unsigned(size), &why)) return "FAIL " + why;
      return "OK";
    }
    if (cmd == "clock_step") {
      if (w.size() > 2) throw std::invalid_argument("clock_step takes at most 1 argument");
      sc_core::sc_time step;
      if (w.size() == 2) {
        step = qtest_ns(w[1]);
      } else {
        // To the next pending activity, as QEMU steps to the next timer deadline.
        step = sc_core::sc_time_to_pending_activity();
        if (step == sc_core::SC_ZERO_TIME || step == sc_core::sc_max_time() - sc_core::sc_time_stamp()) step = 1_ns;
      }
      if (auto why = past_limit(sc_core::sc_time_stamp() + step); !why.empty()) return "FAIL " + why;
      sc_core::wait(step);
      return "OK " + std::to_string(ns_of(sc_core::sc_time_stamp()));
    }
    if (cmd == "clock_set") {
      need(2);
      const sc_core::sc_time target = qtest_ns(w[1]);
      if (target < sc_core::sc_time_stamp()) return "FAIL cannot go back in time";
      if (auto why = past_limit(target); !why.empty()) return "FAIL " + why;
      if (target > sc_core::sc_time_stamp()) sc_core::wait(target - sc_core::sc_time_stamp());
      return "OK " + std::to_string(ns_of(sc_core::sc_time_stamp()));
    }
    if (cmd == "irq_intercept") {
      std::ostream* os = qout_ ? qout_ : &std::cout;
      platform_.pmc().observer = [os](unsigned line_no, bool level) {
        *os << "IRQ " << (level ? "raise " : "lower ") << line_no << std::endl;
      };
      return "OK";
    }
    if (cmd == "stats") {
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
    if (cmd == "quit") {
      quit_ = true;
      return "OK";
    }
    std::string reply;
    for (const auto& name : platform_.component_names())
      if (platform_.find(name)->qtest(w, reply)) return reply;
  } catch (const std::exception& e) {
    return std::string("FAIL ") + e.what();
  }
  return "FAIL unknown command '" + cmd + "'";
}

}  // namespace gpuvp
