// SPDX-License-Identifier: Apache-2.0
// The AGX scenario test fixture of the ASC tests: the agx platform with a scenario's settings,
// the scenario run to its end, and debug reads of memory.
#pragma once
#include <gtest/gtest.h>
#include "agx.h"
#include "agx_scenario.h"
#include "asc_fw.h"
#include "gpuvp/config.h"
#include "gpuvp/host.h"
#include "gpuvp/memory.h"
#include "gpuvp/platform.h"
#include "gpuvp/registry.h"
#include "testing.h"

using namespace gpuvp;
namespace hf = gpuvp::ascfw::handoff;
namespace rg = gpuvp::ascfw::ring;

namespace {
constexpr uint64_t handoff = 0x9fff4c000ull;  // agx.uat.handoff
constexpr uint64_t page = 0x4000;
const std::string head =
    "boot\n"
    "alloc stamps 1\nmap stamps 0xffffffa000100000 uncached fw\n"
    "alloc cb 1\nmap cb 0xffffffa00c428000 cached fw\n";

struct fw_test : gpuvp::testing::sim_test {
  std::unique_ptr<platform> p;
  agx::agx_soc* agx = nullptr;
  std::unique_ptr<workload> w;
  int failed = 0;
  std::string messages;
  void run(const std::string& text, const std::vector<std::pair<std::string, std::string>>& sets = {}) {
    register_all_models();
    config::global().load_yaml_text(registry::global().find_platform("agx")->yaml, "agx.yaml");
    config::global().load_yaml_text(agx_scenario::overlay(text), "scenario");
    for (const auto& [k, v] : sets) config::global().set(k, v, "test");
    p = std::make_unique<platform>();
    agx = p->find_as<agx::agx_soc>("agx");
    w = agx_scenario::parse(text, "test");
    config::global().check_unused();
    w->validate(*p);
    p->host_initiator().run_workload(w.get());
    for (int i = 0; i < 100000 && !p->host_initiator().finished(); ++i) sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_US));
    std::ostringstream os;
    failed = w->check(*p, os);
    messages = os.str();
  }
  uint64_t peek64(uint64_t pa) {
    uint64_t v = 0;
    p->debug_read(pa, &v, 8);
    return v;
  }
  uint32_t peek32(uint64_t pa) {
    uint32_t v = 0;
    p->debug_read(pa, &v, 4);
    return v;
  }
  // The control page: wherever the driver's allocator put it (after boot's tables).
  uint64_t ctrl() { return agx->uat.translate_debug(uat::view::fw, 0, agx->asc.ring_va_p, uat::access_type::read).pa; }
  uint8_t peek8(uint64_t pa) {
    uint8_t v = 0;
    p->debug_read(pa, &v, 1);
    return v;
  }
};
}  // namespace
