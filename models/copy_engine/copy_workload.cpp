// SPDX-License-Identifier: Apache-2.0
// The copy-list workload kind (.copies files) and the embedded workload rtl-copy.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include "copy_engine.h"
#include "embedded/copy_rtl_copy.h"
#include "gpuvp/platform.h"
#include "gpuvp/text.h"
#include "gpuvp/timing.h"

namespace {

using namespace gpuvp::copy_engine::copy_engine_regs;
using gpuvp::operator""_ms;
using gpuvp::copy_engine::copy_engine;

// Source pattern: a byte that depends on its address (so shifted or misplaced bytes show).
uint8_t pattern(uint64_t a) { return uint8_t(a * 131 + (a >> 8) * 7 + 3); }
constexpr uint8_t guard = 0xee;
constexpr unsigned guard_bytes = 8;

struct copy_job {
  uint64_t src, dst, len;
  std::string where;  // origin:line
};

class copy_workload : public gpuvp::workload {
 public:
  std::vector<copy_job> jobs;
  gpuvp::param<sc_core::sc_time> timeout{"copy_workload.timeout", 1_ms, "rtl-copy workload: longest wait for one copy's interrupt"};

  void run(gpuvp::platform& p, gpuvp::host_port& host) override {
    auto* ce = p.find_as<copy_engine>("copy");
    if (!ce) {
      failures_.push_back("the platform has no copy_engine component named 'copy'");
      return;
    }
    const uint64_t regs = p.bar0_base + ce->bar0_offset;
    const int line = p.irq_line("copy.irq");
    for (const auto& j : jobs) {
      std::vector<uint8_t> src(j.len), dst(j.len + 2 * guard_bytes, guard);
      for (uint64_t i = 0; i < j.len; ++i) src[i] = pattern(j.src + i);
      host.poke(j.src, src.data(), unsigned(j.len));
      host.poke(j.dst - guard_bytes, dst.data(), unsigned(dst.size()));
      host.write32(regs + src_lo, uint32_t(j.src));
      host.write32(regs + src_hi, uint32_t(j.src >> 32));
      host.write32(regs + dst_lo, uint32_t(j.dst));
      host.write32(regs + dst_hi, uint32_t(j.dst >> 32));
      host.write32(regs + len, uint32_t(j.len));
      host.write32(regs + ctrl, ctrl_go | ctrl_irq_en);
      if (!host.wait_irq(timeout)) {
        failures_.push_back(j.where + ": no interrupt within " + gpuvp::format_time(timeout));
        return;
      }
      const uint32_t st = host.read32(regs + status);
      if (st != status_done) {
        std::ostringstream m;
        m << j.where << ": STATUS 0x" << std::hex << st << " after the interrupt, expected 0x" << status_done << " (DONE)";
        failures_.push_back(m.str());
      }
      host.write32(regs + status, status_done | status_error);       // acknowledge (w1c) ...
      if (line >= 0) host.write32(p.bar0_base + 0x100, 1u << line);  // ... and the PMC line
      ++done_;
    }
  }

  int check(gpuvp::platform& p, std::ostream& os) override {
    int failed = 0;
    for (const auto& f : failures_) os << f << "\n", ++failed;
    for (size_t k = 0; k < done_; ++k) {
      const auto& j = jobs[k];
      std::vector<uint8_t> got(j.len + 2 * guard_bytes);
      p.debug_read(j.dst - guard_bytes, got.data(), unsigned(got.size()));
      for (uint64_t i = 0; i < got.size(); ++i) {
        const bool inside = i >= guard_bytes && i < guard_bytes + j.len;
        const uint8_t want = inside ? pattern(j.src + i - guard_bytes) : guard;
        if (got[i] != want) {
          std::ostringstream m;
          m << j.where << ": byte at 0x" << std::hex << j.dst - guard_bytes + i << " is 0x" << unsigned(got[i]) << ", expected 0x"
            << unsigned(want) << (inside ? "" : " (guard byte: written outside the destination)");
          os << m.str() << "\n";
          ++failed;
          break;  // one message per copy
        }
      }
    }
    return failed;
  }

 private:
  std::vector<std::string> failures_;
  size_t done_ = 0;
};

std::unique_ptr<gpuvp::workload> parse(const std::string& text, const std::string& origin) {
  auto w = std::make_unique<copy_workload>();
  std::istringstream in(text);
  unsigned n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string key, a, b, c, extra;
    if (!(words >> key)) continue;
    const std::string at = origin + ":" + std::to_string(n);
    if (key != "copy" || !(words >> a >> b >> c) || (words >> extra)) throw gpuvp::config_error(at + ": expected 'copy SRC DST LEN'");
    copy_job j{0, 0, 0, at};
    try {
      j.src = gpuvp::parse_u64(a), j.dst = gpuvp::parse_u64(b), j.len = gpuvp::parse_u64(c);
    } catch (const std::exception&) {
      throw gpuvp::config_error(at + ": SRC, DST and LEN must be numbers");
    }
    if (j.len == 0 || j.len > (1u << 24)) throw gpuvp::config_error(at + ": LEN must be 1 to 16 MiB");
    if (j.dst < guard_bytes || (j.src < j.dst + j.len + guard_bytes && j.dst < j.src + j.len + guard_bytes))
      throw gpuvp::config_error(at + ": source and destination (with 8 guard bytes) overlap");
    w->jobs.push_back(j);
  }
  if (w->jobs.empty()) throw gpuvp::config_error(origin + ": no copy lines");
  return w;
}

}  // namespace

void register_copy_workloads() {
  gpuvp::workload_kind k;
  k.name = "copy-list";
  k.description = "copy engine workload (.copies): copy SRC DST LEN lines, checked byte by byte";
  k.matches = [](const std::string& path) { return path.ends_with(".copies"); };
  k.platform_yaml =
      "components:\n"
      "  copy: copy_engine\n"
      "  traffic: none\n";
  k.parse = parse;
  k.load = [](const std::string& path) {
    const auto text = gpuvp::read_whole_file(path);
    if (!text) throw gpuvp::config_error(path + ": cannot open workload");
    return parse(*text, path);
  };
  auto& r = gpuvp::registry::global();
  r.add_workload_kind(k);
  r.add_embedded_workload(
      {"rtl-copy", "copy engine: 5 copies (aligned, unaligned, multi-burst, across 4 KiB), set copy.impl", "copy-list", copy_rtl_copy});
}
