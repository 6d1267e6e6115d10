// SPDX-License-Identifier: Apache-2.0
// `gpuvp run --workload FILE.pm4`: loads memory and IBs, fills the ring, kicks the CP, waits
// until it is idle (acknowledging its interrupts like a driver), then checks the expectations.
#include <ostream>

#include "cp.h"
#include "gpuvp/platform.h"
#include "gpuvp/registry.h"
#include "pm4.h"

namespace gpuvp::cp {

namespace {
class pm4_workload : public workload {
 public:
  explicit pm4_workload(pm4_program p) : p_(std::move(p)) {}

  void run(platform& plat, host_port& host) override {
    auto cps = plat.all_of<command_processor>();
    if (cps.empty()) {
      problems_.push_back(p_.origin + ": the platform has no CP component");
      return;
    }
    cp_ = cps.front();
    const uint64_t win = plat.bar0_base + cp_->base;
    auto wr = [&](uint32_t r, uint32_t v) { host.write32(win + 4ull * r, v); };
    for (auto& b : p_.mem) host.poke(b.addr, b.words.data(), unsigned(4 * b.words.size()));
    for (auto& ib : p_.ibs) host.poke(ib.addr, ib.words.data(), unsigned(4 * ib.words.size()));
    host.poke(p_.ring_addr, p_.ring.data(), unsigned(4 * p_.ring.size()));
    unsigned bufsz = 0;  // 8 << BUFSZ bytes = ring_dwords * 4
    while ((2u << bufsz) < p_.ring_dwords) bufsz++;
    wr(CP_RB_BASE, uint32_t(p_.ring_addr));
    wr(CP_RB_BASE_HI, uint32_t(p_.ring_addr >> 32));
    wr(CP_RB_CNTL, bufsz);
    wr(CP_RB_WPTR, uint32_t(p_.ring.size()));
    const int line = plat.irq_line(std::string(cp_->name()) + ".irq");
    const uint32_t rptr_end = uint32_t(p_.ring.size()) % p_.ring_dwords;
    for (;;) {
      host.wait(sc_core::sc_time(500, sc_core::SC_NS));
      ack(host, win, plat.bar0_base, line);
      if (cp_->idle() && (cp_->halted() || host.read32(win + 4ull * CP_RB_RPTR) == rptr_end)) break;
    }
    ack(host, win, plat.bar0_base, line);
  }

  void validate(platform& plat) override {
    auto need = [&](int line, const char* what, uint64_t addr, size_t words) {
      if (plat.mapped(addr, 4 * uint64_t(words))) return;
      throw config_error(p_.origin + ":" + std::to_string(line) + ": " + what + " at " + to_hex(addr) + " (" + std::to_string(4 * words) +
                         " bytes) is not in mapped memory");
    };
    for (auto& b : p_.mem) need(b.line, "mem", b.addr, b.words.size());
    for (auto& ib : p_.ibs) need(ib.line, ("ib " + ib.name).c_str(), ib.addr, ib.words.size());
    need(p_.ring_line, "ring", p_.ring_addr, p_.ring_dwords);
  }

  int check(platform& plat, std::ostream& os) override {
    int failed = 0;
    for (auto& m : problems_) {
      os << m << "\n";
      failed++;
    }
    if (!cp_) return failed;
    for (auto& e : p_.expects) {
      const std::string at = p_.origin + ":" + std::to_string(e.line) + ": ";
      uint32_t got = 0;
      switch (e.kind) {
        case pm4_program::expectation::mem:
          if (!plat.debug_read(e.where, &got, 4)) {
            os << at << "cannot read memory at " << to_hex(e.where) << "\n";
            failed++;
            continue;
          }
          break;
        case pm4_program::expectation::reg:
          got = cp_->gpu_reg(uint32_t(e.where));
          break;
        case pm4_program::expectation::dispatches:
          got = uint32_t(cp_->dispatches().size());
          break;
        case pm4_program::expectation::fault:
          got = uint32_t(cp_->hw_fault.get());
          break;
        case pm4_program::expectation::irq:
          if (!(irq_seen_ & INT_EVENT)) {
            os << at << "expected a CP event interrupt, none came\n";
            failed++;
          }
          continue;
      }
      if (got != e.value) {
        os << at << "expected " << to_hex(e.value) << ", got " << to_hex(got) << "\n";
        failed++;
      }
    }
    return failed;
  }

 private:
  // Acknowledges CP interrupts like a driver: CP_INT_STATUS (W1C) at the CP, then the CP's line
  // in the PMC's INTR (W1C).
  void ack(host_port& host, uint64_t win, uint64_t bar0, int line) {
    const uint32_t st = host.read32(win + 4ull * CP_INT_STATUS);
    if (!st) return;
    irq_seen_ |= st;
    host.write32(win + 4ull * CP_INT_STATUS, st);
    if (line >= 0) host.write32(bar0 + 0x100, 1u << line);
  }

  pm4_program p_;
  command_processor* cp_ = nullptr;
  uint32_t irq_seen_ = 0;
  std::vector<std::string> problems_;
};
}  // namespace

void register_pm4_workload() {
  workload_kind k;
  k.name = "pm4";
  k.description = "Adreno PM4 stream (.pm4) on the CP: ring, IBs, memory, expectations";
  k.matches = [](const std::string& path) { return path.size() > 4 && path.substr(path.size() - 4) == ".pm4"; };
  k.platform_yaml =
      "components:\n"
      "  cp: cp\n"
      "  traffic: none\n";
  k.load = [](const std::string& path) -> std::unique_ptr<workload> { return std::make_unique<pm4_workload>(pm4_parse_file(path)); };
  registry::global().add_workload_kind(k);
}

}  // namespace gpuvp::cp
