// SPDX-License-Identifier: Apache-2.0
// `gpuvp run --workload CAPTURE.rd[.gz]`: replays a Mesa freedreno capture on the CP
// (docs/formats/rd.md). Per submit: its buffers at their GPU addresses, then one
// CP_INDIRECT_BUFFER per IB1 on the ring, each waited for; with real firmware the image boots
// from memory (CP_SQE_INSTR_BASE) and CP_ME_INIT goes first, as Linux msm's a6xx_cp_init emits it.
#include <cstdio>
#include <iostream>
#include <sstream>

#include "afuc_asm.h"
#include "cp.h"
#include "gpuvp/platform.h"
#include "gpuvp/registry.h"
#include "gpuvp/workload_json.h"
#include "rd.h"

namespace gpuvp::cp {

namespace {
constexpr uint32_t ring_dwords = 4096;         // 16 KiB ring
constexpr uint64_t reserved_bytes = 1u << 20;  // ring + firmware image, outside every buffer
constexpr uint64_t fw_offset = 0x10000;        // firmware image within the reserved region
constexpr uint32_t pkt7(uint32_t op, uint32_t cnt) {
  auto odd = [](uint32_t v) { return uint32_t(__builtin_parity(v) ^ 1); };
  return 0x70000000u | cnt | odd(cnt) << 15 | op << 16 | odd(op) << 23;
}
constexpr uint32_t CP_INDIRECT_BUFFER_OP = 0x3f, CP_ME_INIT_OP = 0x48;
// Linux msm a6xx_cp_init / a5xx_me_init: 8 dwords. a5xx_me_init's sixth dword names microcode
// workarounds: 0xb (token end syncs, WFI after direct-render draws) on a505/a506/a530, 1 on a510.
std::vector<uint32_t> me_init(int generation, uint32_t gpu_id) {
  uint32_t workarounds = 0;
  if (generation == 5 && (gpu_id == 505 || gpu_id == 506 || gpu_id == 530)) workarounds = 0xb;
  if (generation == 5 && gpu_id == 510) workarounds = 0x1;
  return {0x2f, 0x3, 0x20000000, 0, 0, workarounds, 0, 0};
}

std::string hex32(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}

rd_capture load_capture(const std::vector<uint8_t>& bytes, const std::string& origin) {
  try {
    rd_capture c = rd_parse(bytes, origin);
    const int g = c.generation();
    if (g == 0) throw config_error(origin + ": no GPU_ID or CHIP_ID section: the CP generation is unknown");
    if (g != 5 && g != 6)
      throw config_error(origin + ": GPU " +
                         (c.gpu_id ? std::to_string(c.gpu_id) : hex32(uint32_t(c.chip_id >> 32)) + hex32(uint32_t(c.chip_id)).substr(2)) +
                         " is a" + std::to_string(g) + "xx; the CP model replays a5xx and a6xx captures only");
    return c;
  } catch (const rd_error& e) {
    throw config_error(std::string("malformed capture: ") + e.what());
  }
}

class rd_workload : public workload, public workload_stats_json {
 public:
  explicit rd_workload(rd_capture c) : c_(std::move(c)) {}

  void validate(platform& plat) override {
    cp_ = plat.all_of<command_processor>().empty() ? nullptr : plat.all_of<command_processor>().front();
    if (!cp_) throw config_error(c_.origin + ": the platform has no CP component");
    n_submits_ = cp_->rd_submits ? std::min<size_t>(cp_->rd_submits, c_.submits.size()) : c_.submits.size();
    for (size_t s = 0; s < n_submits_; s++) {
      const auto& sub = c_.submits[s];
      for (const auto& b : sub.buffers)
        if (!b.bytes.empty() && !plat.mapped(b.addr, b.bytes.size()))
          throw config_error(c_.origin + ": submit " + std::to_string(s) + ": buffer at " + to_hex(b.addr) + " (" +
                             std::to_string(b.bytes.size()) + " bytes, section at offset " + to_hex(b.offset) +
                             ") is not in mapped memory");
      for (size_t i = 0; i < ibs_of(s); i++) {
        const auto& ib = sub.ibs[i];
        if (!sub.find(ib.addr, 4ull * ib.dwords))
          throw config_error(c_.origin + ": submit " + std::to_string(s) + ", IB " + std::to_string(i) + ": IB1 at " + to_hex(ib.addr) +
                             " (" + std::to_string(ib.dwords) + " dwords, section at offset " + to_hex(ib.offset) +
                             ") lies outside every buffer of its submit");
      }
    }
    // The ring and the firmware image go where no buffer of the capture is.
    auto free_at = [&](uint64_t a) {
      for (const auto& sub : c_.submits)
        for (const auto& b : sub.buffers)
          if (a < b.addr + b.bytes.size() && b.addr < a + reserved_bytes) return false;
      return plat.mapped(a, reserved_bytes);
    };
    for (uint64_t a = 0xfff00000ull; a >= reserved_bytes && !reserved_; a -= reserved_bytes)
      if (free_at(a)) reserved_ = a;
    if (!reserved_) throw config_error(c_.origin + ": no free 1 MiB of mapped memory below 4 GiB for the ring");
  }

  void run(platform& plat, host_port& host) override {
    const uint64_t win = plat.bar0_base + cp_->base;
    bar0_ = plat.bar0_base;
    auto wr = [&](uint32_t r, uint32_t v) { host.write32(win + 4ull * r, v); };
    irq_line_ = plat.irq_line(std::string(cp_->name()) + ".irq");
    const bool real_fw = !cp_->firmware.get().empty();
    if (real_fw && cp_->generation == 6) {  // the SQE's boot code reads its image from memory
      std::vector<uint32_t> fw = read_words(cp_->firmware);
      if (fw.size() > 1 && 4 * (fw.size() - 1) <= reserved_bytes - fw_offset)
        host.poke(reserved_ + fw_offset, fw.data() + 1, unsigned(4 * (fw.size() - 1)));
      wr(CP_SQE_INSTR_BASE, uint32_t(reserved_ + fw_offset));
      wr(CP_SQE_INSTR_BASE_HI, uint32_t((reserved_ + fw_offset) >> 32));
    }
    unsigned bufsz = 0;
    while ((2u << bufsz) < ring_dwords) bufsz++;
    wr(CP_RB_BASE, uint32_t(reserved_));
    wr(CP_RB_BASE_HI, uint32_t(reserved_ >> 32));
    wr(CP_RB_CNTL, bufsz);
    wr(CP_SQE_CNTL, 1);
    if (real_fw) {
      std::vector<uint32_t> p{pkt7(CP_ME_INIT_OP, 8)};
      const std::vector<uint32_t> init = me_init(int(cp_->generation), c_.gpu_id);
      p.insert(p.end(), init.begin(), init.end());
      if (!submit_ring(host, win, p)) return;
    }
    for (size_t s = 0; s < n_submits_; s++) {
      cur_submit_ = s;
      const auto& sub = c_.submits[s];
      const sc_core::sc_time t0 = sc_core::sc_time_stamp();
      const uint64_t p0 = cp_->packets.value();
      for (const auto& b : sub.buffers)
        for (uint64_t o = 0; o < b.bytes.size(); o += 1u << 24)  // poke in chunks: its length is an unsigned
          host.poke(b.addr + o, b.bytes.data() + o, unsigned(std::min<uint64_t>(b.bytes.size() - o, 1u << 24)));
      const size_t n = ibs_of(s);
      for (size_t i = 0; i < n; i++) {
        cur_ib_ = i;
        const auto& ib = sub.ibs[i];
        if (!submit_ring(host, win, {pkt7(CP_INDIRECT_BUFFER_OP, 3), uint32_t(ib.addr), uint32_t(ib.addr >> 32), ib.dwords})) return;
      }
      std::cout << "submit " << s << ": " << n << " IBs, " << (cp_->packets.value() - p0) << " packets, "
                << format_time(sc_core::sc_time_stamp() - t0) << "\n";
      submits_done_ = s + 1;
    }
  }

  int check(platform&, std::ostream& os) override {
    if (!cp_ || submits_done_ == n_submits_) return 0;
    os << c_.origin << ": submit " << cur_submit_;
    if (cur_submit_ < c_.submits.size() && cur_ib_ < c_.submits[cur_submit_].ibs.size()) {
      const auto& ib = c_.submits[cur_submit_].ibs[cur_ib_];
      const uint32_t rem = cp_->modelled_errors().empty() ? cp_->gpu_reg(CP_IB1_REM_SIZE) : cp_->ib1_rem_at_fault();
      os << ", IB " << cur_ib_ << " at " << to_hex(ib.addr) << ": stopped at dword offset " << (ib.dwords - std::min(rem, ib.dwords))
         << " of " << ib.dwords;
    }
    os << " (" << (hang_.empty() ? "did not finish" : hang_) << ")\n";
    return 1;
  }

  std::string stats_json() override {
    if (!cp_) return "";
    std::ostringstream os;
    os << "{\"cp_registers\":{";
    bool first = true;
    for (const auto& [r, v] : cp_->written_registers()) {
      char k[16];
      std::snprintf(k, sizeof k, "0x%04x", r);
      os << (first ? "" : ",") << "\"" << k << "\":\"" << hex32(v) << "\"";
      first = false;
    }
    os << "}}";
    return os.str();
  }

 private:
  size_t ibs_of(size_t s) const {
    const size_t n = c_.submits[s].ibs.size();
    return cp_->rd_ibs ? std::min<size_t>(cp_->rd_ibs, n) : n;
  }

  // Writes dwords at the ring's write pointer and waits until the CP has run them. False when the
  // CP faulted or hung (no packet for cp.rd.hang_timeout while busy).
  bool submit_ring(host_port& host, uint64_t win, const std::vector<uint32_t>& p) {
    for (uint32_t v : p) {
      host.poke(reserved_ + 4ull * wptr_, &v, 4);
      wptr_ = (wptr_ + 1) % ring_dwords;
    }
    host.write32(win + 4ull * CP_RB_WPTR, wptr_);
    uint64_t last_packets = cp_->packets.value();
    sc_core::sc_time last_progress = sc_core::sc_time_stamp();
    for (;;) {
      host.wait(sc_core::sc_time(500, sc_core::SC_NS));
      ack(host, win);
      if (!cp_->modelled_errors().empty()) {  // a fault: the replay stops there
        hang_ = "CP fault: " + cp_->modelled_errors().front();
        return false;
      }
      if (cp_->idle() && host.read32(win + 4ull * CP_RB_RPTR) == wptr_) return true;
      if (cp_->packets.value() != last_packets || cp_->idle()) {
        last_packets = cp_->packets.value();
        last_progress = sc_core::sc_time_stamp();
      } else if (sc_core::sc_time_stamp() - last_progress >= cp_->rd_hang_timeout.get()) {
        hang_ = "hang: no packet for " + format_time(cp_->rd_hang_timeout.get()) + ", " + cp_->iss_position();
        return false;
      }
    }
  }

  void ack(host_port& host, uint64_t win) {
    const uint32_t st = host.read32(win + 4ull * CP_INT_STATUS);
    if (!st) return;
    host.write32(win + 4ull * CP_INT_STATUS, st);
    if (irq_line_ >= 0) host.write32(bar0_ + 0x100, 1u << irq_line_);  // the PMC's INTR (W1C)
  }

  rd_capture c_;
  command_processor* cp_ = nullptr;
  size_t n_submits_ = 0, submits_done_ = 0, cur_submit_ = 0, cur_ib_ = 0;
  uint64_t reserved_ = 0, bar0_ = 0;
  uint32_t wptr_ = 0;
  int irq_line_ = -1;
  std::string hang_;
};
}  // namespace

void register_rd_workload() {
  workload_kind k;
  k.name = "rd";
  k.description = "Mesa freedreno capture (.rd, .rd.gz) replayed on the CP, submit by submit";
  k.matches = [](const std::string& p) { return p.ends_with(".rd") || p.ends_with(".rd.gz"); };
  k.platform_yaml =
      "components:\n"
      "  cp: cp\n"
      "  traffic: none\n"
      "cp:\n"
      "  autostart: false\n";
  // The CP generation from GPU_ID / CHIP_ID. A malformed capture gets no overlay here: load()
  // then reports it with the file's name.
  k.overlay_for = [](const std::string& text) -> std::string {
    try {
      return "cp:\n  generation: " + std::to_string(load_capture(rd_decompress(text, "capture"), "capture").generation()) + "\n";
    } catch (const std::exception&) {
      return "";
    }
  };
  k.load = [](const std::string& path) -> std::unique_ptr<workload> {
    try {
      return std::make_unique<rd_workload>(load_capture(rd_read_file(path), path));
    } catch (const rd_error& e) {
      throw config_error(std::string("malformed capture: ") + e.what());
    }
  };
  registry::global().add_workload_kind(k);
}

}  // namespace gpuvp::cp
