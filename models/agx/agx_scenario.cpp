// SPDX-License-Identifier: Apache-2.0
// The AGX scenario workload: parsing (steps validated up front) and the AP driver that runs them.
#include "agx_scenario.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <vector>
#include "agx.h"
#include "asc_fw.h"
#include "gpuvp/platform.h"
#include "gpuvp/stats.h"
#include "gpuvp/text.h"

namespace gpuvp::agx_scenario {

namespace {

namespace hf = ascfw::handoff;
namespace rg = ascfw::ring;
constexpr uint64_t heap_base = 0x900000000ull;  // the driver's page allocator (our choice)
constexpr uint64_t page = 0x4000;

struct step {
  std::vector<std::string> w;
  std::string at;  // origin:line
};

// Words each step takes (min, max), checked at parse time.
const std::map<std::string, std::pair<size_t, size_t>>& grammar() {
  static const std::map<std::string, std::pair<size_t, size_t>> g = {
      {"set", {3, 4}},        {"boot", {1, 1}},        {"alloc", {3, 4}},    {"map", {5, 7}},
      {"unmap", {2, 2}},      {"tlbi", {2, 2}},        {"tlbi-all", {1, 1}}, {"fill", {3, 3}},
      {"free", {2, 2}},       {"write", {4, 5}},       {"cmd", {4, 8}},      {"submit", {2, 5}},
      {"wait-stamp", {4, 4}}, {"release", {2, 2}},     {"idle", {1, 1}},     {"wait-powerdown", {1, 1}},
      {"expect-mem", {4, 4}}, {"expect-stat", {3, 3}}, {"wait", {2, 2}},     {"kick", {2, 2}},
      {"fwctl", {2, 2}},      {"expect-event", {4, 4}}};
  return g;
}

uint64_t num(const step& s, size_t i) {
  try {
    return parse_u64(s.w.at(i));
  } catch (const std::exception&) {
    throw config_error(s.at + ": '" + (i < s.w.size() ? s.w[i] : std::string()) + "' is not a number (" + s.w[0] + ")");
  }
}

class scenario : public workload {
 public:
  std::vector<step> steps;
  std::vector<std::pair<std::string, uint64_t>> heap_need;  // (step, heap pages needed up to it)

  void validate(platform& p) override {
    auto* agx = p.find_as<agx::agx_soc>("agx");
    if (!agx) throw config_error("AGX scenarios need the agx platform (--platform agx): no component 'agx'");
    // The driver's pages come from heap_base upwards: within the DRAM window there and below the
    // UAT's fixed structures (handoff area, TTBAT) when they lie above it.
    uint64_t end = 0;
    for (const auto& win : p.interconnect().windows())
      if (heap_base >= win.base && heap_base - win.base < win.size) end = win.base + win.size;
    for (uint64_t fixed : {agx->uat.handoff.get(), agx->uat.ttbat.get()})
      if (fixed >= heap_base) end = std::min(end, fixed);
    heap_end_ = std::max(end, heap_base);
    const uint64_t avail = (heap_end_ - heap_base) / page;
    for (const auto& [at, need] : heap_need)
      if (need > avail)
        throw config_error(at + ": the scenario's pages (with their page tables) need up to " + std::to_string(need) +
                           " pages of 16 KiB from " + to_hex(heap_base) + "; the DRAM there holds " + std::to_string(avail) + " below " +
                           to_hex(heap_end_));
  }

  void run(platform& p, host_port& host) override {
    agx_ = p.find_as<agx::agx_soc>("agx");
    p_ = &p;
    h_ = &host;
    for (const auto& s : steps) {
      at_ = s.at;
      if (!exec(s)) break;  // a failed wait ends the scenario
      if (agx_->asc.asserted()) {
        fail("the ASC firmware asserted: " + agx_->asc.assert_text());
        break;
      }
    }
  }

  int check(platform&, std::ostream& os) override {
    int failed = 0;
    for (const auto& f : failures_) os << f << "\n", ++failed;
    if (!agx_) return failed;
    if (agx_->asc.asserted())
      os << "firmware assert: \"" << agx_->asc.assert_text() << "\" at " << format_time(agx_->asc.assert_time()) << "\n";
    for (auto v : {uat::view::fw, uat::view::ppl, uat::view::gpu})
      if (const auto* st = agx_->uat.first_stale(v)) {
        os << "first stale TLB access: " << uat::describe(*st, v) << "\n";
        ++failed;
      }
    if (const auto* sr = agx_->asc.cache.first_stale()) {
      os << "first stale cache read: view " << uat::view_name(uat::view(sr->view)) << " slot " << sr->slot << " VA " << to_hex(sr->va)
         << " PA " << to_hex(sr->pa) << " (the ASC's clean line differs from DRAM) at " << format_time(sr->when) << " ("
         << agx_->asc.cache.stale_reads.value() << " stale reads)\n";
      ++failed;
    }
    if (const auto* wb = agx_->asc.cache.first_stale_writeback()) {
      os << "first stale write-back: view " << uat::view_name(uat::view(wb->view)) << " slot " << wb->slot << " VA " << to_hex(wb->va)
         << " PA " << to_hex(wb->pa) << " (a dirty line of the ASC's cache, written back after its VA stopped mapping that PA: "
         << "it overwrote the page's next owner) at " << format_time(wb->when) << " (" << agx_->asc.cache.stale_writebacks.value()
         << " stale write-backs)\n";
      ++failed;
    }
    return failed;
  }

 private:
  struct buffer {
    std::vector<uint64_t> pas;
    uint64_t va = 0;
    unsigned slot = 0;
    bool mapped = false;
    uint64_t pte_bits = 0;
  };

  void fail(const std::string& m) { failures_.push_back(at_ + ": " + m); }
  buffer& buf(const step& s, size_t i) {
    auto it = bufs_.find(s.w[i]);
    if (it == bufs_.end()) throw config_error(s.at + ": no buffer named '" + s.w[i] + "' (alloc it first)");
    return it->second;
  }
  void st64(uint64_t pa, uint64_t v) { h_->write(pa, &v, 8); }
  void st32(uint64_t pa, uint32_t v) { h_->write(pa, &v, 4); }
  uint64_t ld64(uint64_t pa) {
    uint64_t v = 0;
    h_->read(pa, &v, 8);
    return v;
  }
  uint64_t peek64(uint64_t pa) {
    uint64_t v = 0;
    h_->peek(pa, &v, 8);
    return v;
  }
  uint64_t alloc_page() {
    if (next_ + page > heap_end_) throw config_error(at_ + ": out of DRAM for the driver's pages (" + to_hex(heap_end_) + ")");
    // A fresh page is zero already: nothing wrote above next_ (the sparse DRAM reads 0 where it
    // holds nothing), so no stores (a 1 GiB buffer would otherwise allocate 1 GiB of host memory).
    const uint64_t pa = next_;
    next_ += page;
    return pa;
  }
  uint64_t handoff_pa() const { return agx_->uat.handoff; }
  uint64_t ctrl_pa() const { return ctrl_pa_; }

  // The leaf PTE's address for va in slot's tables, creating tables on the way.
  uint64_t leaf(unsigned slot, uint64_t va) {
    using uat::pte_fields, uat::ttb_fields;
    const unsigned half = uat::half_of(va);
    const uint64_t ttb_addr = agx_->uat.ttbat + slot * 16 + half * 8;
    uint64_t ttb = peek64(ttb_addr);
    if (!ttb_fields::valid(ttb))
      st64(ttb_addr, ttb = ttb_fields::asid_bits::put(half ? 0 : slot) | alloc_page() | ttb_fields::valid_bit::put(1));
    uint64_t table = ttb & ttb_fields::base_mask;
    for (const uint64_t index : {uat::va_l1_index::get(va), uat::va_l2_index::get(va)}) {
      const uint64_t a = table + index * 8;
      uint64_t d = peek64(a);
      if (!pte_fields::valid(d)) st64(a, d = alloc_page() | pte_fields::valid_bit::put(1) | pte_fields::type_bit::put(1));  // a table
      table = d & pte_fields::address_mask;
    }
    return table + uat::va_l3_index::get(va) * 8;
  }
  static uint64_t pte_of(uint64_t pa, bool cached, const std::string& perm, const std::string& where) {
    uint64_t ap, uxn, pxn;  // pgtable.rs names with OS (bit 55) set
    if (perm == "fw")
      ap = 1, uxn = 1, pxn = 0;  // FW_RW
    else if (perm == "gpu-fw")
      ap = 0, uxn = 1, pxn = 1;  // FW_GPU_RW
    else if (perm == "gpu")
      ap = 2, uxn = 1, pxn = 0;  // GPU_RW
    else if (perm == "gpu-ro")
      ap = 2, uxn = 0, pxn = 0;  // GPU_RO
    else
      throw config_error(where + ": permission must be fw, gpu-fw, gpu or gpu-ro, not '" + perm + "'");
    using f = uat::pte_fields;  // a valid page, AttrIndex 0 (cached) or 2, accessed
    return pa | f::valid_bit::put(1) | f::type_bit::put(1) | f::attr_index::put(cached ? 0 : 2) | f::ap_bits::put(ap) | f::af_bit::put(1) |
           f::pxn_bit::put(pxn) | f::uxn_bit::put(uxn) | f::os_bit::put(1);
  }
  void map_pages(buffer& b, uint64_t pte_bits) {
    for (size_t i = 0; i < b.pas.size(); ++i) {
      const uint64_t va = b.va + i * page;
      st64(leaf(b.slot, va), b.pas[i] | pte_bits | uat::pte_fields::ng_bit::put(uat::half_of(va) ? 0 : 1));  // user half: non-global
    }
    b.pte_bits = pte_bits;
    b.mapped = true;
  }
  void unmap_pages(uint64_t va, uint64_t pages, unsigned slot) {
    for (uint64_t i = 0; i < pages; ++i) st64(leaf(slot, va + i * page), 0);
  }

  // The driver's TLBI of a range: vae1os for one page, rvae1os otherwise (mem.rs), whose base is
  // the range's end unless agx.driver.tlbi_range_fix (the macOS bug in Asahi Lina's notes).
  void tlbi_range(uint64_t va, uint64_t pages, unsigned asid) {
    using op = uat::tlbi_operand;
    if (pages <= 1) {
      agx_->tlbi(uat::tlbi_op::vae1os, op::asid::put(asid) | op::va_page::put((va >> 12) & ~uint64_t(3)));  // VA[55:12], 16 KiB aligned
      return;
    }
    pages += pages & 1;
    uint64_t scale = 0, n = 0;
    for (scale = 0; scale < 4; ++scale) {
      n = (pages + (uint64_t(1) << (5 * scale + 1)) - 1) >> (5 * scale + 1);
      if (n <= 32) break;
    }
    const uint64_t base = agx_->driver.tlbi_range_fix ? va : va + pages * page;
    agx_->tlbi(
        uat::tlbi_op::rvae1os,
        op::asid::put(asid) | op::tg::put(2) | op::scale::put(scale) | op::num::put(n - 1) | op::base::put(base >> 14));  // TG 2: 16 KiB
  }

  // AP side of the Dekker lock (m1n1 handoff.py, kernel mmu.rs).
  void lock() {
    const uint64_t h = handoff_pa();
    uint8_t one = 1, zero = 0;
    h_->write(h + hf::lock_ap, &one, 1);
    for (;;) {
      uint8_t fw = 0;
      h_->read(h + hf::lock_fw, &fw, 1);
      if (!fw) break;
      if (h_->read32(h + hf::turn) != 0) {
        h_->write(h + hf::lock_ap, &zero, 1);
        while (h_->read32(h + hf::turn) != 0) h_->wait(sc_core::sc_time(1, sc_core::SC_US));
        h_->write(h + hf::lock_ap, &one, 1);
      }
    }
  }
  void unlock() {
    uint8_t zero = 0;
    st32(handoff_pa() + hf::turn, 1);
    h_->write(handoff_pa() + hf::lock_ap, &zero, 1);
  }

  // Polls until pred() or the driver's timeout; false (and a failure) on timeout or an assert.
  template <typename P>
  bool wait_for(P pred, const std::string& what) {
    const sc_core::sc_time end = sc_core::sc_time_stamp() + agx_->driver.timeout.get();
    while (!pred()) {
      if (agx_->asc.asserted()) return fail("waiting for " + what + ": the ASC firmware asserted"), false;
      if (sc_core::sc_time_stamp() >= end) return fail("timeout waiting for " + what), false;
      h_->wait(sc_core::sc_time(1, sc_core::SC_US));
    }
    return true;
  }

  void ring_entry(uint32_t type, const uint8_t (&payload)[24]) {
    const unsigned n = unsigned(agx_->asc.ring_entries_p);
    const uint32_t w = h_->read32(ctrl_pa() + rg::cmd_wptr);
    const uint64_t e = ctrl_pa() + rg::cmd_base + (w % n) * rg::cmd_entry;
    st32(e, type);
    h_->write(e + 8, payload, 24);
    st32(ctrl_pa() + rg::cmd_wptr, (w + 1) % n);
    uint64_t k = ascfw::make_kick(ascfw::kick_type_fw_ring, 0);
    h_->write(agx_->asc.base + 0x8800, &k, 8);  // through the AXI2AF bridge
  }

  bool exec(const step& s) {
    const std::string& op = s.w[0];
    if (op == "set") return true;  // applied as configuration before the run
    if (op == "boot") return boot();
    if (auto done = exec_buffer_step(s)) return *done;
    if (auto done = exec_driver_step(s)) return *done;
    if (auto done = exec_expect_step(s)) return *done;
    throw config_error(s.at + ": unknown step '" + op + "'");
  }

  // alloc, map, unmap, tlbi, tlbi-all, fill, free, write: the AP driver's buffers and page tables.
  std::optional<bool> exec_buffer_step(const step& s) {
    const std::string& op = s.w[0];
    if (op == "alloc") {  // `reused`: the most recently freed pages first (counted at parse time)
      auto& b = bufs_[s.w[1]];
      b = buffer{};
      for (uint64_t i = 0, n = num(s, 2); i < n; ++i) {
        if (s.w.size() == 4) {
          b.pas.push_back(freed_.back());
          freed_.pop_back();
          std::vector<uint8_t> zero(page, 0);
          h_->poke(b.pas.back(), zero.data(), unsigned(page));
        } else {
          b.pas.push_back(alloc_page());
        }
      }
      return true;
    }
    if (op == "map") {
      buffer& b = buf(s, 1);
      if (s.w[3] != "cached" && s.w[3] != "uncached") throw config_error(s.at + ": map takes cached or uncached, not '" + s.w[3] + "'");
      b.va = num(s, 2);
      b.slot = s.w.size() == 7 ? unsigned(num(s, 6)) : 0;
      map_pages(b, pte_of(0, s.w[3] == "cached", s.w[4], s.at));
      return true;
    }
    if (op == "unmap") {
      buffer& b = buf(s, 1);
      unmap_pages(b.va, b.pas.size(), b.slot);
      b.mapped = false;
      return true;
    }
    if (op == "tlbi") {
      buffer& b = buf(s, 1);
      tlbi_range(b.va, b.pas.size(), uat::half_of(b.va) ? 0 : b.slot);
      return true;
    }
    if (op == "tlbi-all") return agx_->tlbi(uat::tlbi_op::vmalle1os, 0), true;
    if (op == "fill") {
      buffer& b = buf(s, 1);
      std::vector<uint8_t> v(page, uint8_t(num(s, 2)));
      for (uint64_t pa : b.pas) h_->write(pa, v.data(), unsigned(page));
      return true;
    }
    if (op == "free") {  // reused only by `alloc ... reused`
      buffer& b = buf(s, 1);
      freed_.insert(freed_.end(), b.pas.begin(), b.pas.end());
      return b.pas.clear(), true;
    }
    if (op == "write") {
      buffer& b = buf(s, 1);
      const uint64_t off = num(s, 2), v = num(s, 3);
      const bool w32 = s.w.size() == 5 && s.w[4] == "u32";
      if (off / page >= b.pas.size()) throw config_error(s.at + ": offset outside the buffer");
      if (w32)
        st32(b.pas[off / page] + off % page, uint32_t(v));
      else
        st64(b.pas[off / page] + off % page, v);
      return true;
    }
    return std::nullopt;
  }

  // cmd, submit, wait-stamp, release, fwctl, kick, idle, wait-powerdown, wait: the driver's
  // requests to the firmware and its waits.
  std::optional<bool> exec_driver_step(const step& s) {
    const std::string& op = s.w[0];
    if (op == "cmd") return command(s);
    if (op == "submit") {
      buffer& b = buf(s, 1);
      uint8_t p[24] = {};
      const uint64_t va = b.va + (s.w.size() >= 3 ? num(s, 2) : 0);
      const uint32_t len = s.w.size() >= 4 ? uint32_t(num(s, 3)) : uint32_t(b.pas.size() * page);
      const uint32_t slot = s.w.size() == 5 ? uint32_t(num(s, 4)) : 0;
      std::memcpy(p, &va, 8), std::memcpy(p + 8, &len, 4), std::memcpy(p + 12, &slot, 4);
      ring_entry(rg::type_submit, p);
      return true;
    }
    if (op == "wait-stamp") {
      buffer& b = buf(s, 1);
      const uint64_t pa = b.pas.at(num(s, 2) / page) + num(s, 2) % page;
      const uint32_t want = uint32_t(num(s, 3));
      // Complete: the stamp holds VALUE and the firmware consumed every ring entry (rptr = wptr).
      return wait_for(
          [&] { return h_->read32(pa) == want && h_->read32(ctrl_pa() + rg::cmd_rptr) == h_->read32(ctrl_pa() + rg::cmd_wptr); },
          "stamp " + std::to_string(want));
    }
    if (op == "release") return release(buf(s, 1));
    if (op == "fwctl") return fwctl(buf(s, 1)), true;
    if (op == "kick") {
      const uint64_t k = num(s, 1);
      h_->write(agx_->asc.base + 0x8800, &k, 8);
      return true;
    }
    if (op == "idle") return !agx_->driver.wait_powerdown || wait_powerdown();
    if (op == "wait-powerdown") return wait_powerdown();
    if (op == "wait") return h_->wait(sc_core::sc_time(double(num(s, 1)), sc_core::SC_NS)), true;
    return std::nullopt;
  }

  // expect-mem, expect-event, expect-stat: the scenario's checks.
  std::optional<bool> exec_expect_step(const step& s) {
    const std::string& op = s.w[0];
    if (op == "expect-mem") {
      buffer& b = buf(s, 1);
      const uint64_t off = num(s, 2), want = num(s, 3);
      const uint64_t got = ld64(b.pas.at(off / page) + off % page);
      if (got != want)
        fail("memory of " + s.w[1] + " + " + to_hex(off) + " (PA " + to_hex(b.pas.at(off / page) + off % page) + ") holds " + to_hex(got) +
             ", expected " + to_hex(want) + (agx_->asc.cache.dirty_lines() ? " (the ASC's cache still holds dirty lines)" : ""));
      return true;
    }
    if (op == "expect-event") {
      const uint64_t i = num(s, 1), type = num(s, 2), want = num(s, 3);
      const uint64_t e = ctrl_pa() + rg::evt_base + (i % agx_->asc.ring_entries_p) * rg::evt_entry;
      const uint32_t got_type = h_->read32(e);
      const uint64_t got = ld64(e + 8);
      if (got_type != type || got != want)
        fail("event " + std::to_string(i) + " is {type " + std::to_string(got_type) + ", value " + to_hex(got) + "}, expected {type " +
             std::to_string(type) + ", value " + to_hex(want) + "}");
      return true;
    }
    if (op == "expect-stat") {
      const double got = stats_registry::global().value(s.w[1]);
      if (got != double(num(s, 2))) fail("statistic " + s.w[1] + " is " + std::to_string(uint64_t(got)) + ", expected " + s.w[2]);
      return true;
    }
    return std::nullopt;
  }

  bool boot() {
    auto& a = agx_->asc;
    const uint64_t fw_rw = pte_of(0, false, "fw", at_);
    buffer& hb = bufs_["handoff"];
    hb = buffer{{handoff_pa()}, a.handoff_va_p, 0, false, 0};
    std::vector<uint8_t> zero(page, 0);
    h_->poke(handoff_pa(), zero.data(), unsigned(page));
    map_pages(hb, fw_rw);
    buffer& cb = bufs_["ctrl"];
    cb = buffer{{ctrl_pa_ = alloc_page()}, a.ring_va_p, 0, false, 0};
    map_pages(cb, fw_rw);
    st64(handoff_pa() + hf::magic_ap, ascfw::ppl_magic);
    st32(handoff_pa() + hf::cur_slot, 0);
    st64(handoff_pa() + hf::unk3, 0);
    h_->write32(a.base + 0x44, 0x10);  // CPU_CONTROL.RUN
    lock();                            // m1n1 holds the lock while it waits for the firmware's magic
    const bool ok = wait_for([&] { return ld64(handoff_pa() + hf::magic_fw) == ascfw::ppl_magic; }, "the firmware's handoff magic");
    for (unsigned i = 0; i < hf::flush_slots; ++i) st64(handoff_pa() + hf::flush_state(i), 0);
    unlock();
    return ok;
  }

  bool wait_powerdown() {
    return wait_for([&] { return h_->read32(ctrl_pa() + rg::power) == 0; }, "the ASC to power down");
  }

  // The FWCtl message of the kernel driver: {addr, unk_8 = 0, context 0x40, page count, unk_12 = 2}.
  void fwctl(const buffer& b) {
    uint8_t p[24] = {};
    const uint32_t ctx = 0x40;
    const uint16_t count = uint16_t(b.pas.size()), unk12 = 2;
    std::memcpy(p, &b.va, 8), std::memcpy(p + 12, &ctx, 4), std::memcpy(p + 16, &count, 2), std::memcpy(p + 18, &unk12, 2);
    ring_entry(rg::type_fwctl, p);
  }

  // Unmapping a cached firmware buffer: macOS's dance of Lina's notes, or (without agx.driver.unmap_dance) a
  // plain unmap + TLBI that leaves the ASC's lines behind.
  bool release(buffer& b) {
    const uint64_t pages = b.pas.size();
    const unsigned asid = uat::half_of(b.va) ? 0 : b.slot;
    if (agx_->driver.unmap_dance) {
      map_pages(b, (b.pte_bits & ~uint64_t(7 << 2)) | 2 << 2);  // remap uncached
      tlbi_range(b.va, pages, asid);
      const uint64_t h = handoff_pa();
      if (ld64(h + hf::flush_state(hf::fw_slot)) != 0) return fail("flush slot 64 busy"), false;
      st64(h + hf::flush_addr(hf::fw_slot), b.va);
      st64(h + hf::flush_size(hf::fw_slot), pages * page);
      st64(h + hf::flush_state(hf::fw_slot), 1);
      fwctl(b);
      if (!wait_for([&] { return ld64(h + hf::flush_state(hf::fw_slot)) == 2; }, "flush slot 64 state 2")) return false;
      unmap_pages(b.va, pages, b.slot);
      tlbi_range(b.va, pages, asid);
      st64(h + hf::flush_state(hf::fw_slot), 0);
    } else {
      unmap_pages(b.va, pages, b.slot);
      tlbi_range(b.va, pages, asid);
    }
    b.mapped = false;
    return true;
  }

  // cmd BUF OFF end|barrier|stamp VALUE STAMPBUF|write64 VA VALUE|work SLOT VA LEN VALUE|
  //     launch SLOT KERNEL VALUE STAMPBUF|raw WORD
  bool command(const step& s) {
    buffer& b = buf(s, 1);
    const uint64_t off = num(s, 2);
    const std::string& c = s.w[3];
    uint32_t w[6] = {};
    unsigned n = 2;
    auto need = [&](size_t k) {
      if (s.w.size() != k) throw config_error(s.at + ": cmd " + c + " takes " + std::to_string(k - 4) + " operand(s)");
    };
    if (c == "end")
      need(4), w[0] = ascfw::cmd::end;
    else if (c == "barrier")
      need(4), w[0] = ascfw::cmd::barrier;
    else if (c == "stamp") {
      need(6);
      buffer& sb = buf(s, 5);
      w[0] = ascfw::cmd::stamp, w[1] = uint32_t(num(s, 4)), n = 4;
      std::memcpy(&w[2], &sb.va, 8);
    } else if (c == "write64") {
      need(6);
      const uint64_t va = num(s, 4), v = num(s, 5);
      w[0] = ascfw::cmd::write64, n = 6;
      std::memcpy(&w[2], &va, 8), std::memcpy(&w[4], &v, 8);
    } else if (c == "work") {
      need(8);
      const uint64_t va = num(s, 5);
      w[0] = ascfw::cmd::work, w[1] = uint32_t(num(s, 4)), w[4] = uint32_t(num(s, 6)), w[5] = uint32_t(num(s, 7)), n = 6;
      std::memcpy(&w[2], &va, 8);
    } else if (c == "launch") {
      need(8);
      buffer& sb = buf(s, 7);
      w[0] = ascfw::cmd::launch, w[1] = uint32_t(num(s, 4)), w[2] = uint32_t(num(s, 5)), w[3] = uint32_t(num(s, 6)), n = 6;
      std::memcpy(&w[4], &sb.va, 8);
    } else if (c == "raw")
      need(5), w[0] = uint32_t(num(s, 4)), n = 1;
    else
      throw config_error(s.at + ": unknown command '" + c + "' (end, barrier, stamp, write64, work, launch, raw)");
    if (off / page >= b.pas.size() || (off % page) + n * 4 > page) throw config_error(s.at + ": command outside the buffer");
    h_->write(b.pas[off / page] + off % page, w, n * 4);
    return true;
  }

  agx::agx_soc* agx_ = nullptr;
  platform* p_ = nullptr;
  host_port* h_ = nullptr;
  std::map<std::string, buffer> bufs_;
  std::vector<uint64_t> freed_;  // freed pages, reused by `alloc NAME N reused`
  uint64_t next_ = heap_base, ctrl_pa_ = 0, heap_end_ = ~uint64_t(0);
  std::string at_;
  std::vector<std::string> failures_;
};

}  // namespace

namespace {
// Operand limits checked when the file is read (docs/formats/agx.md).
constexpr uint64_t u32_max = 0xffffffffull;
constexpr uint64_t slots = 64;                       // TTBAT entries
constexpr uint64_t user_va_end = uint64_t(1) << 39;  // TTB0: [0, 2^39); TTB1: the top 2^39
constexpr uint64_t kernel_va_base = ~(user_va_end - 1);
constexpr uint64_t max_heap_pages = uint64_t(1) << 22;  // 64 GiB: beyond any DRAM; validate() checks the real one
constexpr uint64_t fwctl_max_pages = 0xffff;            // FWCtl's page count is a u16

// Number operand i, at most `most` (named `what` in the message).
uint64_t operand(const step& s, size_t i, uint64_t most, const char* what) {
  const uint64_t v = num(s, i);
  if (v > most) throw config_error(s.at + ": " + s.w[0] + ": " + what + " " + s.w[i] + " is out of range [0, " + to_hex(most) + "]");
  return v;
}
// `bytes` at OFFSET of a buffer of `pages`: inside it, and inside one page (its pages are not contiguous).
void check_access(const step& s, size_t i, uint64_t pages, uint64_t bytes) {
  const uint64_t off = num(s, i);
  if (off >= pages * page || off + bytes > pages * page)
    throw config_error(s.at + ": " + s.w[0] + ": " + std::to_string(bytes) + " bytes at offset " + s.w[i] + " lie outside " + s.w[1] +
                       " (" + to_hex(pages * page) + " bytes)");
  if (off % page + bytes > page)
    throw config_error(s.at + ": " + s.w[0] + ": " + std::to_string(bytes) + " bytes at offset " + s.w[i] +
                       " cross a 16 KiB page boundary of " + s.w[1] + " (its pages are not contiguous)");
}
// Bytes a `cmd` writes (ascfw::cmd layouts).
uint64_t command_bytes(const std::string& c) { return c == "end" || c == "barrier" ? 8 : c == "stamp" ? 16 : c == "raw" ? 4 : 24; }
}  // namespace

namespace {
// Checks a scenario's steps as they are read, so that input errors are found before the run
// (exit 2), never in the middle of it: numbers, ranges, names, permissions, and the pages the
// buffers and their tables take.
struct step_checker {
  std::map<std::string, uint64_t> pages;  // pages per buffer (0 once freed), for operand and `reused` checks
  uint64_t freed = 0, heap = 0;           // freed pages; heap pages used (buffers + an upper bound of tables)
  bool booted = false;

  void check(const step& s) {
    const std::string& op = s.w[0];
    const auto g = grammar().find(op);
    if (g == grammar().end()) throw config_error(s.at + ": unknown step '" + op + "'");
    if (s.w.size() < g->second.first || s.w.size() > g->second.second)
      throw config_error(s.at + ": '" + op + "' takes " + std::to_string(g->second.first - 1) + " to " +
                         std::to_string(g->second.second - 1) + " operands");
    static const std::set<std::string> named = {"map", "unmap",  "tlbi",       "fill",    "free",       "write",
                                                "cmd", "submit", "wait-stamp", "release", "expect-mem", "fwctl"};
    if (named.count(op) && !pages.count(s.w[1])) throw config_error(s.at + ": no buffer named '" + s.w[1] + "' (alloc it first)");
    const uint64_t size = named.count(op) ? pages[s.w[1]] : 0;  // pages of the step's buffer
    if (op == "alloc")
      check_alloc(s);
    else if (op == "map")
      check_map(s, size);
    else if (op == "cmd")
      check_cmd(s, size);
    else
      check_operands(s, size);
    if (op == "boot") {
      pages["handoff"] = pages["ctrl"] = 1;
      heap += 1 + 2 * 5;  // the control page and the tables of the two boot mappings
      booted = true;
    } else if (op != "set" && op != "alloc" && !booted && op != "map" && op != "fill" && op != "write" && op != "cmd") {
      throw config_error(s.at + ": '" + op + "' before boot");
    }
  }

  void check_alloc(const step& s) {
    if (s.w.size() == 4 && s.w[3] != "reused") throw config_error(s.at + ": alloc NAME PAGES [reused], not '" + s.w[3] + "'");
    const uint64_t count = num(s, 2);
    if (count == 0) throw config_error(s.at + ": alloc " + s.w[1] + ": PAGES must be at least 1");
    if (s.w.size() == 4) {
      if (count > freed)
        throw config_error(s.at + ": alloc " + s.w[1] + " " + s.w[2] + " reused: only " + std::to_string(freed) + " freed pages");
      freed -= count;
    } else if (heap > max_heap_pages || count > max_heap_pages - heap) {
      throw config_error(s.at + ": alloc " + s.w[1] + " " + s.w[2] + ": more pages than any DRAM holds (" + std::to_string(max_heap_pages) +
                         " pages of 16 KiB in all)");
    } else {
      heap += count;
    }
    pages[s.w[1]] = count;
  }

  void check_map(const step& s, uint64_t size) {
    if (s.w[3] != "cached" && s.w[3] != "uncached") throw config_error(s.at + ": map takes cached or uncached, not '" + s.w[3] + "'");
    if (s.w.size() == 6 || (s.w.size() == 7 && s.w[5] != "slot")) throw config_error(s.at + ": map ... [slot S]");
    if (s.w[4] != "fw" && s.w[4] != "gpu-fw" && s.w[4] != "gpu" && s.w[4] != "gpu-ro")
      throw config_error(s.at + ": permission must be fw, gpu-fw, gpu or gpu-ro, not '" + s.w[4] + "'");
    const uint64_t va = num(s, 2);
    if (s.w.size() == 7) operand(s, 6, slots - 1, "slot");
    if (va % page) throw config_error(s.at + ": map: VA " + s.w[2] + " is not 16 KiB aligned");
    const bool user = va < user_va_end;
    if (!user && va < kernel_va_base)
      throw config_error(s.at + ": map: VA " + s.w[2] + " is neither a user VA (below " + to_hex(user_va_end) + ") nor a kernel VA (from " +
                         to_hex(kernel_va_base) + ")");
    if (size * page > (user ? user_va_end : 0) - va)  // the bytes left in the half (2^64 - va for kernel VAs)
      throw config_error(s.at + ": map: " + s.w[1] + "'s " + std::to_string(size) + " pages from VA " + s.w[2] +
                         " run past the end of the " + (user ? "user" : "kernel") + " half");
    heap += size / 2048 + 5;  // tables: a leaf table per 32 MiB, an L2 per 64 GiB, the L1 (upper bound)
  }

  void check_cmd(const step& s, uint64_t size) {
    const std::string& c = s.w[3];
    const size_t want = c == "end" || c == "barrier"     ? 4
                        : c == "raw"                     ? 5
                        : c == "stamp" || c == "write64" ? 6
                        : c == "work" || c == "launch"   ? 8
                                                         : 0;
    if (!want) throw config_error(s.at + ": unknown command '" + c + "' (end, barrier, stamp, write64, work, launch, raw)");
    if (s.w.size() != want) throw config_error(s.at + ": cmd " + c + " takes " + std::to_string(want - 4) + " operand(s)");
    const size_t stampbuf = c == "stamp" ? 5 : c == "launch" ? 7 : 0;
    for (size_t i = 4; i < want; ++i)  // every operand is a u32 field but write64's VA and VALUE and work's VA
      if (i != stampbuf) operand(s, i, c == "write64" || (c == "work" && i == 5) ? ~uint64_t(0) : u32_max, "operand");
    if (stampbuf && !pages.count(s.w[stampbuf])) throw config_error(s.at + ": no buffer named '" + s.w[stampbuf] + "' (alloc it first)");
    check_access(s, 2, size, command_bytes(c));
  }

  // The other steps' operands.
  void check_operands(const step& s, uint64_t size) {
    const std::string& op = s.w[0];
    if (op == "fill") {
      operand(s, 2, 0xff, "BYTE");
    } else if (op == "free") {
      freed += size, pages[s.w[1]] = 0;
    } else if (op == "write") {
      if (s.w.size() == 5 && s.w[4] != "u32") throw config_error(s.at + ": write NAME OFFSET VALUE [u32], not '" + s.w[4] + "'");
      const bool w32 = s.w.size() == 5;
      operand(s, 3, w32 ? u32_max : ~uint64_t(0), "VALUE");
      check_access(s, 2, size, w32 ? 4 : 8);
    } else if (op == "submit") {
      if (s.w.size() >= 3 && num(s, 2) >= size * page)
        throw config_error(s.at + ": submit: offset " + s.w[2] + " lies outside " + s.w[1] + " (" + to_hex(size * page) + " bytes)");
      if (s.w.size() >= 4)
        operand(s, 3, u32_max, "LEN");
      else if (size * page > u32_max)
        throw config_error(s.at + ": submit: " + s.w[1] + " is larger than a u32 length; give LEN");
      if (s.w.size() >= 5) operand(s, 4, u32_max, "SLOT");
    } else if (op == "wait-stamp") {
      operand(s, 3, u32_max, "VALUE");
      check_access(s, 2, size, 4);
    } else if (op == "expect-mem") {
      num(s, 3);
      check_access(s, 2, size, 8);
    } else if (op == "expect-event") {
      num(s, 1), num(s, 3);
      operand(s, 2, u32_max, "TYPE");
    } else if (op == "expect-stat") {
      num(s, 2);
    } else if (op == "wait") {
      operand(s, 1, uint64_t(max_time().to_seconds()) * 1000000000ull, "NS");
    } else if (op == "kick") {
      num(s, 1);
    } else if ((op == "fwctl" || op == "release") && size > fwctl_max_pages) {
      throw config_error(s.at + ": " + op + ": " + s.w[1] + " has " + std::to_string(size) + " pages; a FWCtl message counts at most " +
                         std::to_string(fwctl_max_pages));
    }
  }
};
}  // namespace

std::unique_ptr<workload> parse(const std::string& text, const std::string& origin) {
  auto w = std::make_unique<scenario>();
  std::istringstream in(text);
  unsigned n = 0;
  step_checker checker;
  for (std::string line; std::getline(in, line);) {
    ++n;
    line = line.substr(0, line.find('#'));
    step s{split_words(line), origin + ":" + std::to_string(n)};
    if (s.w.empty()) continue;
    checker.check(s);
    const std::string& op = s.w[0];
    if (op == "alloc" || op == "map" || op == "boot") w->heap_need.emplace_back(s.at, checker.heap);
    w->steps.push_back(std::move(s));
  }
  if (!checker.booted) throw config_error(origin + ": no boot step");
  return w;
}

std::string overlay(const std::string& text) {
  // Line n of the YAML is the scenario's line n (a `set` line's "key": "value", else empty), so
  // that a configuration error names the scenario's own line. After them: stale detection on and,
  // for a kernel list, the compute component, unless the scenario sets them itself.
  auto quoted = [](const std::string& v) {
    std::string q = "\"";
    for (unsigned char c : v) {
      if (c == '"' || c == '\\')
        q += '\\', q += char(c);
      else if (c < 0x20 || c == 0x7f)
        q += "\\x" + std::string(1, "0123456789abcdef"[c >> 4]) + "0123456789abcdef"[c & 15];
      else
        q += char(c);
    }
    return q + "\"";
  };
  std::ostringstream os;
  std::set<std::string> keys;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line.substr(0, line.find('#')));
    std::string k, key, value, unit;
    if ((words >> k) && k == "set" && (words >> key >> value)) {
      if (words >> unit) value += " " + unit;  // a time: "20 us"
      os << quoted(key) << ": " << quoted(value);
      keys.insert(key);
    }
    os << "\n";
  }
  if (!keys.count("agx.uat.detect_stale")) os << "agx.uat.detect_stale: true\n";
  if (keys.count("agx.asc.launch.kernels") && !keys.count("components.compute")) os << "components.compute: compute\n";  // the GPU's cores
  return os.str();
}

}  // namespace gpuvp::agx_scenario

#include "embedded/agx_scn_axi2af.h"
#include "embedded/agx_scn_cached_unmap.h"
#include "embedded/agx_scn_hv_tlbi.h"
#include "embedded/agx_scn_no_inval.h"
#include "embedded/agx_scn_powerdown.h"
#include "embedded/agx_scn_rvae_end.h"

void gpuvp::agx_scenario::register_kind() {
  workload_kind k;
  k.name = "agx-scenario";
  k.description = "AGX AP driver scenario (.agx, docs/formats/agx.md): page tables, TLBIs, handoff, ASC rings; runs on the agx platform";
  k.platform = "agx";
  k.matches = [](const std::string& path) { return path.ends_with(".agx"); };
  k.overlay_for = overlay;
  k.parse = parse;
  k.load = [](const std::string& path) {
    const auto text = read_whole_file(path);
    if (!text) throw config_error(path + ": cannot open workload");
    return parse(*text, path);
  };
  auto& r = registry::global();
  r.add_workload_kind(k);
  r.add_embedded_workload({"agx-hv-tlbi",
                           "AGX: stage 2 swallows TLBIs, the ASC parses a freed command buffer (fix: agx.hv.tlbi_passthrough=true)",
                           "agx-scenario", agx_scn_hv_tlbi});
  r.add_embedded_workload(
      {"agx-axi2af", "AGX: no AXI2AF pokes, no TLBI reaches the ASC (fix: agx.axi2af.pokes=true)", "agx-scenario", agx_scn_axi2af});
  r.add_embedded_workload(
      {"agx-rvae-end", "AGX: range TLBI based at the range end (fix: agx.driver.tlbi_range_fix=true)", "agx-scenario", agx_scn_rvae_end});
  r.add_embedded_workload({"agx-no-inval",
                           "AGX: firmware reads a command buffer from its stale cache (fix: agx.asc.invalidate_cmdbuf=true)",
                           "agx-scenario", agx_scn_no_inval});
  r.add_embedded_workload({"agx-cached-unmap",
                           "AGX: cached firmware object unmapped without the flush dance (fix: agx.driver.unmap_dance=true)",
                           "agx-scenario", agx_scn_cached_unmap});
  r.add_embedded_workload({"agx-powerdown", "AGX: structures remapped while the ASC stays awake (fix: agx.driver.wait_powerdown=true)",
                           "agx-scenario", agx_scn_powerdown});
}
